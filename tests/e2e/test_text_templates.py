"""Text INSERT / REPLACE / UPDATE / DELETE of a repeated shape are built from the parsed tree of
an earlier one (crates/sql/src/parse/stmt_cache.rs): over the wire, with PyMySQL's text protocol,
the rows written must be exactly those of the literals sent, errors must be the parser's and
the executor's, and the sql_mode that changes tokens must be honoured."""
import decimal

import pymysql
import pytest
from conftest import global_status


def rows(cur, sql):
    cur.execute(sql)
    return [tuple(r) for r in cur.fetchall()]


def test_repeated_shapes_write_their_own_literals(server, db):
    c, _ = db
    cur = c.cursor()
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, n BIGINT, d DECIMAL(12,3), s VARCHAR(40), b VARCHAR(40))")
    hits0 = global_status(cur, "Strata_text_template_hits")
    want = {}
    texts = ["", "a", "ü€ snow ☃", "two\nlines", "tab\there", "%_", "-", " spaced "]
    for i in range(200):
        n = (-1) ** i * i * 1_000_003
        d = decimal.Decimal(i * 7) / 8  # 0.125 steps: exact in DECIMAL(12,3)
        s = texts[i % len(texts)] + str(i)
        b = None if i % 5 == 0 else texts[(i * 3) % len(texts)]
        # the same shape each time: literals differ, and so do their lengths and lines
        bl = "NULL" if b is None else f'"{b}"'
        cur.execute(f"INSERT INTO t (id, n, d, s, b) VALUES ({i}, {n}, {d}, '{s}', {bl})")
        want[i] = (i, n, d.quantize(decimal.Decimal("0.001")), s, b)
    assert rows(cur, "SELECT id, n, d, s, b FROM t ORDER BY id") == [want[i] for i in range(200)]
    # four shapes (n with or without a minus sign, b NULL or a string): every text after the
    # second of its shape came from the shape's template
    assert global_status(cur, "Strata_text_template_hits") - hits0 == 200 - 4 * 2

    # UPDATE and DELETE shapes, with IN lists and arithmetic
    for i in range(0, 200, 3):
        cur.execute(f"UPDATE t SET n = n + {i}, s = CONCAT(s, '+{i}') WHERE id IN ({i}, {i + 1})")
        want[i] = want[i][:1] + (want[i][1] + i,) + want[i][2:3] + (want[i][3] + f"+{i}",) + want[i][4:]
        j = i + 1
        if j < 200:
            want[j] = want[j][:1] + (want[j][1] + i,) + want[j][2:3] + (want[j][3] + f"+{i}",) + want[j][4:]
    for i in range(0, 200, 7):
        cur.execute(f"DELETE FROM t WHERE id = {i} AND d >= 0.000")
        del want[i]
    assert rows(cur, "SELECT id, n, d, s, b FROM t ORDER BY id") == [want[i] for i in sorted(want)]

    # multi-row REPLACE of one shape
    for k in range(3):
        vals = ", ".join(f"({i}, {k}, 0.5, 'r{k}', NULL)" for i in range(300, 310))
        cur.execute(f"REPLACE INTO t VALUES {vals}")
    assert rows(cur, "SELECT COUNT(*), MIN(n), MAX(s) FROM t WHERE id >= 300") == [(10, 2, "r2")]


def test_errors_through_a_template_are_the_same(server, db):
    c, _ = db
    cur = c.cursor()
    cur.execute("SET sql_mode = 'STRICT_TRANS_TABLES'")
    cur.execute("CREATE TABLE e (id INT PRIMARY KEY, v INT NOT NULL)")
    for i in range(3):
        cur.execute(f"INSERT INTO e VALUES ({i}, {i})")
    hits = global_status(cur, "Strata_text_template_hits")
    with pytest.raises(pymysql.err.IntegrityError) as dup:
        cur.execute("INSERT INTO e VALUES (1, 10)")
    assert dup.value.args[0] == 1062
    assert "Duplicate entry '1' for key" in dup.value.args[1]
    assert global_status(cur, "Strata_text_template_hits") > hits
    # a string where an integer goes: the executor's error with the text's own literal
    for i in range(3):
        cur.execute(f"UPDATE e SET v = '{i}' WHERE id = {i}")
    with pytest.raises(pymysql.err.DataError) as bad:
        cur.execute("UPDATE e SET v = 'abc' WHERE id = 2")
    assert bad.value.args[0] == 1366 and "'abc'" in bad.value.args[1]
    # a text of a known shape that does not parse is the parser's error
    with pytest.raises(pymysql.err.ProgrammingError) as syntax:
        cur.execute("INSERT INTO e VALUES (7, 7")
    assert syntax.value.args[0] == 1064
    assert rows(cur, "SELECT id, v FROM e ORDER BY id") == [(0, 0), (1, 1), (2, 2)]


def test_ansi_quotes_changes_the_shape(server, db):
    c, _ = db
    cur = c.cursor()
    cur.execute("CREATE TABLE q (id INT PRIMARY KEY, s VARCHAR(10))")
    cur.execute("INSERT INTO q VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    for i in (1, 2, 3):
        cur.execute(f'UPDATE q SET s = "id" WHERE id = {i}')
    assert rows(cur, "SELECT id, s FROM q ORDER BY id") == [(1, "id"), (2, "id"), (3, "id")]
    cur.execute("SET SESSION sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES')")
    # "id" is now the column: the text of a known shape must not reuse the string's template
    for i in (1, 2):
        cur.execute(f'UPDATE q SET s = "id" WHERE id = {i}')
    assert rows(cur, "SELECT id, s FROM q ORDER BY id") == [(1, "1"), (2, "2"), (3, "id")]


def test_bulk_rows_of_one_shape_keep_their_own_literals(server, db):
    """A multi-row INSERT whose rows call functions: the rows after the first are copies of
    the first row's parsed expressions with their own literals (crates/sql/src/parse/literal_rows.rs)."""
    c, _ = db
    cur = c.cursor()
    cur.execute("CREATE TABLE b (id INT PRIMARY KEY, s VARCHAR(40), h VARBINARY(16), n BIGINT, d DECIMAL(8,2))")
    rows, want = [], []
    for i in range(300):
        text = ["", "ü€", "two\nlines", "a-b-c"][i % 4] + str(i)
        hexs = f"{i:032x}"
        rows.append(f"({i}, CONCAT('{text}', '!'), UNHEX(REPLACE('{hexs[:8]}-{hexs[8:]}', '-', '')), -{i * 7}, ROUND({i}.456, 1))")
        want.append((i, text + "!", bytes.fromhex(hexs), -i * 7, decimal.Decimal(f"{i}.456").quantize(decimal.Decimal("0.1"))))
    cur.execute("INSERT INTO b VALUES " + ",\n".join(rows))
    assert cur.rowcount == 300
    got = rows_of(cur, "SELECT id, s, h, n, d FROM b ORDER BY id")
    assert got == [(i, s, h, n, d) for (i, s, h, n, d) in want]
    # a row of another shape in the same statement: parsed whole, same result
    cur.execute("INSERT INTO b VALUES (1000, CONCAT('a', 'b'), NULL, 1, 1), (1001, 'plain', NULL, 2, 2), "
                + ", ".join(f"({1002 + i}, CONCAT('c{i}', 'd'), NULL, {i}, {i})" for i in range(40)))
    assert rows_of(cur, "SELECT s FROM b WHERE id IN (1000, 1001, 1041) ORDER BY id") == [("ab",), ("plain",), ("c39d",)]


def rows_of(cur, sql):
    cur.execute(sql)
    return [tuple(bytes(v) if isinstance(v, (bytes, bytearray)) else v for v in r) for r in cur.fetchall()]
