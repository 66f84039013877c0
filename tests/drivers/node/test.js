// End-to-end check of the mysql2 driver against a running Strata server.
//
// Usage: STRATA_HOST=127.0.0.1 STRATA_PORT=3306 node test.js   (or: node test.js HOST PORT)
// Runs every check twice: with `query` (parameters interpolated client-side into COM_QUERY, text
// protocol results) and with `execute` (COM_STMT_PREPARE/EXECUTE, binary protocol results).
// Exits non-zero with a message naming the first mismatch.
'use strict';
const mysql = require('mysql2/promise');
const assert = require('node:assert/strict');

const host = process.argv[2] || process.env.STRATA_HOST || '127.0.0.1';
const port = Number(process.argv[3] || process.env.STRATA_PORT || 3306);

const vcText = 'héllo wörld ✓ 😀 日本語';
const txText = 'quote \' dq " bs \\ pct % 😀€ tab\t nl\n'.repeat(20);
const blob = Buffer.concat([Buffer.from([...Array(256).keys()]), Buffer.from([0x00, 0xff, 0x27, 0x5c, 0x22, 0x00])]);
const varbin = Buffer.from([0x00, 0xff, 0x27, 0x5c, 0x00]);
const hex = (b) => Buffer.from(b).toString('hex').toUpperCase();

const DDL = `CREATE TABLE t (
  id INT PRIMARY KEY,
  i INT, bi BIGINT, ubi BIGINT UNSIGNED, ti TINYINT,
  d DECIMAL(20,6), f FLOAT, db DOUBLE,
  dt DATE, dtm DATETIME(6), tm TIME, ts TIMESTAMP(6) NULL,
  vc VARCHAR(100), tx TEXT, bl BLOB, vb VARBINARY(64), b BOOL
) DEFAULT CHARSET=utf8mb4`;
const SERVER_VIEW = `SELECT id, i, bi, ubi, ti, CAST(d AS CHAR), f, db, CAST(dt AS CHAR), CAST(dtm AS CHAR),
  CAST(tm AS CHAR), CAST(ts AS CHAR), HEX(vc), HEX(tx), HEX(bl), HEX(vb), b FROM t ORDER BY id`;

// what the server must hold, as text through SQL functions (independent of the driver's decoding)
const EXPECTED_VIEW = [
  ['1', '-2147483648', '-9223372036854775808', '18446744073709551615', '-128', '-99999999999999.999999',
    '1.5', '-1234.5678', '2024-02-29', '2024-02-29 23:59:58.123456', '13:45:30',
    '2001-02-03 04:05:06.789000', hex(Buffer.from(vcText)), hex(Buffer.from(txText)), hex(blob), hex(varbin), '1'],
  ['2', '2147483647', '9223372036854775807', '0', '127', '0.000001', '-0.25', '0.1', '1000-01-01',
    '9999-12-31 23:59:59.999999', '-838:59:59', '2038-01-19 03:14:07.500000', '', '', '', '', '0'],
  ['3', ...Array(16).fill(null)],
];

async function run(mode) {
  const conn = await mysql.createConnection({
    host, port, user: 'root', password: '', charset: 'utf8mb4_general_ci', timezone: 'Z',
    supportBigNumbers: true, bigNumberStrings: true, dateStrings: ['DATETIME', 'TIMESTAMP'],
    multipleStatements: false,
  });
  // `q` runs through the mode under test
  const q = (sql, params) => (mode === 'execute' ? conn.execute(sql, params) : conn.query(sql, params));
  const where = (what) => `${mode}: ${what}`;
  try {
    await conn.query("SET time_zone = '+00:00'");
    const dbname = `node_drv_${mode}`;
    await conn.query(`DROP DATABASE IF EXISTS ${dbname}`);
    await conn.query(`CREATE DATABASE ${dbname}`);
    await conn.query(`USE ${dbname}`);
    await q(DDL);

    const ins = 'INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
    let [res] = await q(ins, [1, -2147483648, -9223372036854775808n, '18446744073709551615', -128,
      '-99999999999999.999999', 1.5, -1234.5678, '2024-02-29', '2024-02-29 23:59:58.123456', '13:45:30',
      new Date(Date.UTC(2001, 1, 3, 4, 5, 6, 789)), vcText, txText, blob, varbin, true]);
    assert.equal(res.affectedRows, 1, where('insert row 1 affectedRows'));
    await q(ins, [2, 2147483647, '9223372036854775807', 0, 127, '0.000001', -0.25, 0.1,
      new Date(Date.UTC(1000, 0, 1)), '9999-12-31 23:59:59.999999', '-838:59:59', '2038-01-19 03:14:07.5', '', '',
      Buffer.alloc(0), Buffer.alloc(0), false]);
    await q(ins, [3, ...Array(16).fill(null)]);

    // stored values, checked through SQL functions over the text protocol
    const [view] = await conn.query({ sql: SERVER_VIEW, rowsAsArray: true, typeCast: (f, next) => f.string() });
    assert.deepEqual(view, EXPECTED_VIEW, where('stored values'));

    // typed read-back through the mode under test (binary protocol for execute)
    const [rows] = await q('SELECT id, i, bi, ubi, ti, d, f, db, dt, dtm, tm, ts, vc, tx, bl, vb, b FROM t WHERE id > ? ORDER BY id', [0]);
    assert.equal(rows.length, 3, where('typed select row count'));
    const [r1, r2, r3] = rows;
    assert.equal(r1.i, -2147483648, where('INT min'));
    assert.equal(String(r1.bi), '-9223372036854775808', where('BIGINT min'));
    assert.equal(String(r1.ubi), '18446744073709551615', where('BIGINT UNSIGNED max'));
    assert.equal(r1.ti, -128, where('TINYINT min'));
    assert.equal(r1.d, '-99999999999999.999999', where('DECIMAL'));
    assert.equal(r1.f, 1.5, where('FLOAT'));
    assert.equal(r1.db, -1234.5678, where('DOUBLE'));
    assert.ok(r1.dt instanceof Date && r1.dt.getTime() === Date.UTC(2024, 1, 29), where(`DATE ${r1.dt}`));
    assert.equal(r1.dtm, '2024-02-29 23:59:58.123456', where('DATETIME(6)'));
    assert.equal(r1.tm, '13:45:30', where('TIME'));
    assert.equal(r1.ts, '2001-02-03 04:05:06.789000', where('TIMESTAMP(6)'));
    assert.equal(r1.vc, vcText, where('VARCHAR unicode'));
    assert.equal(r1.tx, txText, where('TEXT'));
    assert.ok(Buffer.isBuffer(r1.bl) && r1.bl.equals(blob), where('BLOB bytes'));
    assert.ok(Buffer.isBuffer(r1.vb) && r1.vb.equals(varbin), where('VARBINARY bytes'));
    assert.equal(r1.b, 1, where('BOOL true'));
    assert.equal(r2.i, 2147483647, where('INT max'));
    assert.equal(String(r2.bi), '9223372036854775807', where('BIGINT max'));
    assert.equal(String(r2.ubi), '0', where('BIGINT UNSIGNED 0'));
    assert.equal(r2.ti, 127, where('TINYINT max'));
    assert.equal(r2.d, '0.000001', where('DECIMAL small'));
    assert.equal(r2.f, -0.25, where('FLOAT negative'));
    assert.equal(r2.db, 0.1, where('DOUBLE 0.1'));
    assert.ok(r2.dt instanceof Date && r2.dt.getTime() === Date.UTC(1000, 0, 1), where(`DATE min ${r2.dt}`));
    assert.equal(r2.dtm, '9999-12-31 23:59:59.999999', where('DATETIME max'));
    assert.equal(r2.tm, '-838:59:59', where('TIME min'));
    assert.equal(r2.ts, '2038-01-19 03:14:07.500000', where('TIMESTAMP max'));
    assert.equal(r2.vc, '', where('empty VARCHAR'));
    assert.equal(r2.tx, '', where('empty TEXT'));
    assert.ok(Buffer.isBuffer(r2.bl) && r2.bl.length === 0, where('empty BLOB'));
    assert.ok(Buffer.isBuffer(r2.vb) && r2.vb.length === 0, where('empty VARBINARY'));
    assert.equal(r2.b, 0, where('BOOL false'));
    for (const [k, v] of Object.entries(r3)) {
      if (k !== 'id') assert.equal(v, null, where(`row 3 column ${k} NULL`));
    }

    // parameters echoed back by SELECT ?
    const [[echo]] = await q('SELECT ? AS a, ? AS b, ? AS c, ? AS d, ? AS e', [-42, '😀 ünï', Buffer.from([0, 255, 0]), null, 2.5]);
    assert.equal(Number(echo.a), -42, where('echo int'));
    assert.equal(echo.b, '😀 ünï', where('echo string'));
    assert.ok(Buffer.from(echo.c).equals(Buffer.from([0, 255, 0])), where(`echo bytes ${echo.c}`));
    assert.equal(echo.d, null, where('echo NULL'));
    assert.equal(Number(echo.e), 2.5, where('echo double'));

    // lookups by parameter of each type
    const [found] = await q('SELECT id FROM t WHERE vc = ? AND bl = ? AND ubi = ? AND dtm = ? AND d = ?',
      [vcText, blob, '18446744073709551615', '2024-02-29 23:59:58.123456', '-99999999999999.999999']);
    assert.deepEqual(found.map((r) => r.id), [1], where('lookup by params'));

    // UPDATE with parameters
    [res] = await q('UPDATE t SET vc = ?, bi = bi - CAST(? AS SIGNED) WHERE id = ?', ['ünï 😀', 1, 2]);
    assert.equal(res.affectedRows, 1, where('update affectedRows'));
    const [[upd]] = await q('SELECT vc, bi FROM t WHERE id = ?', [2]);
    assert.equal(upd.vc, 'ünï 😀', where('updated vc'));
    assert.equal(String(upd.bi), '9223372036854775806', where('updated bi'));

    // transactions
    await q('CREATE TABLE acct (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(20))');
    await conn.beginTransaction();
    await q('INSERT INTO acct (v) VALUES (?)', ['rolled back']);
    await conn.rollback();
    let [[c]] = await conn.query('SELECT COUNT(*) AS n FROM acct');
    assert.equal(Number(c.n), 0, where('rows after rollback'));
    await conn.beginTransaction();
    [res] = await q('INSERT INTO acct (v) VALUES (?), (?)', ['a', 'b']);
    assert.ok(res.insertId >= 1, where('insertId'));
    await conn.commit();
    [[c]] = await conn.query('SELECT COUNT(*) AS n FROM acct');
    assert.equal(Number(c.n), 2, where('rows after commit'));

    // error codes
    await assert.rejects(q('INSERT INTO t (id) VALUES (?)', [1]),
      (e) => e.errno === 1062 && e.code === 'ER_DUP_ENTRY' && e.sqlState === '23000', where('duplicate key 1062'));
    await assert.rejects(q('SELECT * FROM no_such_table WHERE id = ?', [1]),
      (e) => e.errno === 1146 && e.code === 'ER_NO_SUCH_TABLE' && e.sqlState === '42S02', where('missing table 1146'));
    [[c]] = await q('SELECT COUNT(*) AS n FROM t WHERE id <> ?', [0]);
    assert.equal(Number(c.n), 3, where('usable after errors'));
    await conn.query(`DROP DATABASE ${dbname}`);
    console.log(`mysql2 ${mode}: ok`);
  } finally {
    await conn.end();
  }
}

(async () => {
  try {
    await run('query');
    await run('execute');
    console.log('node driver checks passed');
  } catch (e) {
    console.error('node driver check FAILED:', e && e.stack ? e.stack : e);
    process.exit(1);
  }
})();
