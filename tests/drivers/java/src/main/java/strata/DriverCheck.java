package strata;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.TimeZone;

/**
 * End-to-end check of MySQL Connector/J against a running Strata server: client-side and
 * server-side prepared statements, rewritten batches, DatabaseMetaData, transactions, error codes
 * and NULL/unicode/binary round trips. Usage: DriverCheck [HOST PORT] (or STRATA_HOST/STRATA_PORT).
 * Throws (non-zero exit) with a message naming the first mismatch.
 */
public final class DriverCheck {
    static final String VC = "héllo wörld ✓ 😀 日本語";
    static final String TX = "quote ' dq \" bs \\ pct % 😀€ tab\t nl\n".repeat(20);
    static final byte[] BLOB = blob();
    static final byte[] VARBIN = {0x00, (byte) 0xFF, 0x27, 0x5C, 0x00};

    static byte[] blob() {
        byte[] b = new byte[262];
        for (int i = 0; i < 256; i++) {
            b[i] = (byte) i;
        }
        byte[] tail = {0x00, (byte) 0xFF, 0x27, 0x5C, 0x22, 0x00};
        System.arraycopy(tail, 0, b, 256, tail.length);
        return b;
    }

    static String hex(byte[] b) {
        return HexFormat.of().withUpperCase().formatHex(b);
    }

    static final String DDL = "CREATE TABLE t (\n"
            + "  id INT PRIMARY KEY,\n"
            + "  i INT, bi BIGINT, ubi BIGINT UNSIGNED, ti TINYINT,\n"
            + "  d DECIMAL(20,6), f FLOAT, db DOUBLE,\n"
            + "  dt DATE, dtm DATETIME(6), tm TIME, ts TIMESTAMP(6) NULL,\n"
            + "  vc VARCHAR(100), tx TEXT, bl BLOB, vb VARBINARY(64), b BOOL,\n"
            + "  UNIQUE KEY uk_bi (bi), KEY idx_vc (vc)\n"
            + ") DEFAULT CHARSET=utf8mb4";
    static final String SERVER_VIEW = "SELECT id, i, bi, ubi, ti, CAST(d AS CHAR), f, db, CAST(dt AS CHAR), "
            + "CAST(dtm AS CHAR), CAST(tm AS CHAR), CAST(ts AS CHAR), HEX(vc), HEX(tx), HEX(bl), HEX(vb), b "
            + "FROM t ORDER BY id";

    static final String[][] EXPECTED_VIEW = {
        {"1", "-2147483648", "-9223372036854775808", "18446744073709551615", "-128", "-99999999999999.999999",
            "1.5", "-1234.5678", "2024-02-29", "2024-02-29 23:59:58.123456", "13:45:30",
            "2001-02-03 04:05:06.789012", hex(VC.getBytes(StandardCharsets.UTF_8)),
            hex(TX.getBytes(StandardCharsets.UTF_8)), hex(BLOB), hex(VARBIN), "1"},
        {"2", "2147483647", "9223372036854775807", "0", "127", "0.000001", "-0.25", "0.1", "1000-01-01",
            "9999-12-31 23:59:59.999999", "-838:59:59", "2038-01-19 03:14:07.500000", "", "", "", "", "0"},
        {"3", null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null},
    };

    static String mode;

    static void fail(String what) {
        throw new AssertionError("Connector/J check FAILED (" + mode + "): " + what);
    }

    static void eq(Object got, Object want, String what) {
        if (!Objects.equals(got, want)) {
            fail(what + ": got <" + got + ">, want <" + want + ">");
        }
    }

    static void ok(boolean cond, String what) {
        if (!cond) {
            fail(what);
        }
    }

    static void expectError(int code, String state, ThrowingRunnable r, String what) {
        try {
            r.run();
        } catch (SQLException e) {
            SQLException cur = e;
            if (e instanceof BatchUpdateException && e.getNextException() != null) {
                cur = e.getNextException();
            }
            if (cur.getErrorCode() != code || !state.equals(cur.getSQLState())) {
                fail(what + ": want " + code + "/" + state + ", got " + cur.getErrorCode() + "/" + cur.getSQLState()
                        + " " + cur.getMessage());
            }
            return;
        }
        fail(what + ": no error, want " + code);
    }

    interface ThrowingRunnable {
        void run() throws SQLException;
    }

    static void run(String host, String port, boolean serverPrep) throws SQLException {
        mode = serverPrep ? "useServerPrepStmts=true" : "useServerPrepStmts=false";
        String db = serverPrep ? "cj_drv_server" : "cj_drv_client";
        String url = "jdbc:mysql://" + host + ":" + port + "/?user=root&password=&sslMode=DISABLED"
                + "&allowPublicKeyRetrieval=true&connectionTimeZone=UTC&characterEncoding=UTF-8"
                + "&rewriteBatchedStatements=true&useServerPrepStmts=" + serverPrep
                + "&cachePrepStmts=true" + System.getenv().getOrDefault("STRATA_JDBC_EXTRA", "");
        try (Connection c = DriverManager.getConnection(url)) {
            try (Statement s = c.createStatement()) {
                s.execute("SET time_zone = '+00:00'");
                s.execute("DROP DATABASE IF EXISTS " + db);
                s.execute("CREATE DATABASE " + db);
            }
            c.setCatalog(db);
            eq(c.getCatalog(), db, "getCatalog");
            try (Statement s = c.createStatement()) {
                s.execute(DDL);
            }
            insertRows(c);
            checkServerView(c);
            checkTypedRead(c);
            checkEcho(c);
            checkBatch(c);
            checkTransactions(c);
            checkErrors(c);
            checkMetadata(c, db);
            try (Statement s = c.createStatement()) {
                s.execute("DROP DATABASE " + db);
            }
        }
        System.out.println("Connector/J " + mode + ": ok");
    }

    static void insertRows(Connection c) throws SQLException {
        String ins = "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
        try (PreparedStatement p = c.prepareStatement(ins)) {
            p.setInt(1, 1);
            p.setInt(2, Integer.MIN_VALUE);
            p.setLong(3, Long.MIN_VALUE);
            // Connector/J sends a BigInteger as a signed 8-byte integer (-1) to server-side statements
            // (MySQL and MariaDB reject it too): unsigned extremes go as BigDecimal
            p.setBigDecimal(4, new BigDecimal("18446744073709551615"));
            p.setByte(5, (byte) -128);
            p.setBigDecimal(6, new BigDecimal("-99999999999999.999999"));
            p.setFloat(7, 1.5f);
            p.setDouble(8, -1234.5678);
            p.setObject(9, LocalDate.of(2024, 2, 29));
            p.setObject(10, LocalDateTime.of(2024, 2, 29, 23, 59, 58, 123456000));
            p.setObject(11, LocalTime.of(13, 45, 30));
            p.setTimestamp(12, java.sql.Timestamp.valueOf(LocalDateTime.of(2001, 2, 3, 4, 5, 6, 789012000)));
            p.setString(13, VC);
            p.setString(14, TX);
            p.setBytes(15, BLOB);
            p.setBytes(16, VARBIN);
            p.setBoolean(17, true);
            eq(p.executeUpdate(), 1, "insert row 1 update count");

            p.setInt(1, 2);
            p.setInt(2, Integer.MAX_VALUE);
            p.setLong(3, Long.MAX_VALUE);
            p.setBigDecimal(4, BigDecimal.ZERO);
            p.setByte(5, (byte) 127);
            p.setBigDecimal(6, new BigDecimal("0.000001"));
            p.setFloat(7, -0.25f);
            p.setDouble(8, 0.1);
            p.setDate(9, java.sql.Date.valueOf(LocalDate.of(1000, 1, 1)));
            p.setObject(10, LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999999000));
            p.setString(11, "-838:59:59");
            p.setObject(12, LocalDateTime.of(2038, 1, 19, 3, 14, 7, 500000000));
            p.setString(13, "");
            p.setString(14, "");
            p.setBytes(15, new byte[0]);
            p.setBytes(16, new byte[0]);
            p.setBoolean(17, false);
            eq(p.executeUpdate(), 1, "insert row 2 update count");

            p.setInt(1, 3);
            int[] sqlTypes = {Types.INTEGER, Types.BIGINT, Types.BIGINT, Types.TINYINT, Types.DECIMAL, Types.REAL,
                Types.DOUBLE, Types.DATE, Types.TIMESTAMP, Types.TIME, Types.TIMESTAMP, Types.VARCHAR,
                Types.LONGVARCHAR, Types.BLOB, Types.VARBINARY, Types.BOOLEAN};
            for (int i = 0; i < sqlTypes.length; i++) {
                p.setNull(i + 2, sqlTypes[i]);
            }
            eq(p.executeUpdate(), 1, "insert row 3 (NULLs) update count");
        }
    }

    static void checkServerView(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(SERVER_VIEW)) {
            int n = 0;
            while (rs.next()) {
                for (int col = 0; col < 17; col++) {
                    eq(rs.getString(col + 1), EXPECTED_VIEW[n][col], "stored row " + (n + 1) + " column " + col);
                }
                n++;
            }
            eq(n, 3, "stored row count");
        }
    }

    static void checkTypedRead(Connection c) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(
                "SELECT id, i, bi, ubi, ti, d, f, db, dt, dtm, tm, ts, vc, tx, bl, vb, b FROM t WHERE id > ? ORDER BY id")) {
            p.setInt(1, 0);
            try (ResultSet rs = p.executeQuery()) {
                ok(rs.next(), "row 1 missing");
                eq(rs.getInt("i"), Integer.MIN_VALUE, "INT min");
                eq(rs.getLong("bi"), Long.MIN_VALUE, "BIGINT min");
                eq(rs.getObject("ubi"), new BigInteger("18446744073709551615"), "BIGINT UNSIGNED max");
                eq(rs.getByte("ti"), (byte) -128, "TINYINT min");
                eq(rs.getBigDecimal("d"), new BigDecimal("-99999999999999.999999"), "DECIMAL");
                eq(rs.getFloat("f"), 1.5f, "FLOAT");
                eq(rs.getDouble("db"), -1234.5678, "DOUBLE");
                eq(rs.getObject("dt", LocalDate.class), LocalDate.of(2024, 2, 29), "DATE");
                eq(rs.getObject("dtm", LocalDateTime.class), LocalDateTime.of(2024, 2, 29, 23, 59, 58, 123456000), "DATETIME(6)");
                eq(rs.getObject("tm", LocalTime.class), LocalTime.of(13, 45, 30), "TIME");
                eq(rs.getTimestamp("ts").toLocalDateTime(), LocalDateTime.of(2001, 2, 3, 4, 5, 6, 789012000), "TIMESTAMP(6)");
                eq(rs.getString("vc"), VC, "VARCHAR unicode");
                eq(rs.getString("tx"), TX, "TEXT");
                ok(Arrays.equals(rs.getBytes("bl"), BLOB), "BLOB bytes: " + hex(rs.getBytes("bl")));
                ok(Arrays.equals(rs.getBytes("vb"), VARBIN), "VARBINARY bytes: " + hex(rs.getBytes("vb")));
                eq(rs.getBoolean("b"), true, "BOOL true");

                ok(rs.next(), "row 2 missing");
                eq(rs.getInt("i"), Integer.MAX_VALUE, "INT max");
                eq(rs.getLong("bi"), Long.MAX_VALUE, "BIGINT max");
                eq(rs.getObject("ubi"), BigInteger.ZERO, "BIGINT UNSIGNED 0");
                eq(rs.getByte("ti"), (byte) 127, "TINYINT max");
                eq(rs.getBigDecimal("d"), new BigDecimal("0.000001"), "DECIMAL small");
                eq(rs.getFloat("f"), -0.25f, "FLOAT negative");
                eq(rs.getDouble("db"), 0.1, "DOUBLE 0.1");
                eq(rs.getObject("dt", LocalDate.class), LocalDate.of(1000, 1, 1), "DATE min");
                eq(rs.getObject("dtm", LocalDateTime.class), LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999999000), "DATETIME max");
                eq(rs.getString("tm"), "-838:59:59", "TIME min as string");
                eq(rs.getObject("ts", LocalDateTime.class), LocalDateTime.of(2038, 1, 19, 3, 14, 7, 500000000), "TIMESTAMP max");
                eq(rs.getString("vc"), "", "empty VARCHAR");
                ok(!rs.wasNull(), "empty VARCHAR is not NULL");
                eq(rs.getString("tx"), "", "empty TEXT");
                eq(rs.getBytes("bl").length, 0, "empty BLOB");
                eq(rs.getBytes("vb").length, 0, "empty VARBINARY");
                ok(!rs.wasNull(), "empty VARBINARY is not NULL");
                eq(rs.getBoolean("b"), false, "BOOL false");

                ok(rs.next(), "row 3 missing");
                for (int col = 2; col <= 17; col++) {
                    ok(rs.getObject(col) == null && rs.wasNull(), "row 3 column " + col + " should be NULL: " + rs.getObject(col));
                }
                ok(!rs.next(), "more than 3 rows");
            }
        }
        // lookups by each parameter type
        try (PreparedStatement p = c.prepareStatement(
                "SELECT id FROM t WHERE vc = ? AND bl = ? AND ubi = ? AND dtm = ? AND d = ? AND b = ? AND f = ?")) {
            p.setString(1, VC);
            p.setBytes(2, BLOB);
            p.setBigDecimal(3, new BigDecimal("18446744073709551615"));
            p.setObject(4, LocalDateTime.of(2024, 2, 29, 23, 59, 58, 123456000));
            p.setBigDecimal(5, new BigDecimal("-99999999999999.999999"));
            p.setBoolean(6, true);
            p.setFloat(7, 1.5f);
            try (ResultSet rs = p.executeQuery()) {
                ok(rs.next(), "lookup by params found nothing");
                eq(rs.getInt(1), 1, "lookup by params");
            }
        }
        try (PreparedStatement p = c.prepareStatement("UPDATE t SET vc = ?, bi = bi - ? WHERE id = ?")) {
            p.setString(1, "ünï 😀");
            p.setLong(2, 1);
            p.setInt(3, 2);
            eq(p.executeUpdate(), 1, "update count");
        }
        try (PreparedStatement p = c.prepareStatement("SELECT vc, bi FROM t WHERE id = ?")) {
            p.setInt(1, 2);
            try (ResultSet rs = p.executeQuery()) {
                ok(rs.next(), "updated row");
                eq(rs.getString(1), "ünï 😀", "updated vc");
                eq(rs.getLong(2), Long.MAX_VALUE - 1, "updated bi");
            }
        }
    }

    static void checkEcho(Connection c) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT ?, ?, ?, ?, ?, ?")) {
            p.setLong(1, -42);
            p.setString(2, "😀 ünï");
            p.setBytes(3, new byte[] {0, (byte) 255, 0});
            p.setNull(4, Types.VARCHAR);
            p.setDouble(5, 2.5);
            p.setBigDecimal(6, new BigDecimal("12.340"));
            try (ResultSet rs = p.executeQuery()) {
                ok(rs.next(), "SELECT ? row");
                eq(rs.getLong(1), -42L, "echo long");
                eq(rs.getString(2), "😀 ünï", "echo string");
                ok(Arrays.equals(rs.getBytes(3), new byte[] {0, (byte) 255, 0}), "echo bytes " + hex(rs.getBytes(3)));
                ok(rs.getString(4) == null, "echo NULL");
                eq(rs.getDouble(5), 2.5, "echo double");
                eq(rs.getBigDecimal(6).compareTo(new BigDecimal("12.34")), 0, "echo decimal " + rs.getBigDecimal(6));
            }
        }
    }

    static void checkBatch(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE bat (id INT PRIMARY KEY, name VARCHAR(40), data VARBINARY(8), amount DECIMAL(10,2))");
        }
        // rewriteBatchedStatements=true: a multi-row INSERT (client-side) or a prepared multi-row
        // INSERT (server-side)
        try (PreparedStatement p = c.prepareStatement("INSERT INTO bat (id, name, data, amount) VALUES (?, ?, ?, ?)")) {
            for (int i = 1; i <= 500; i++) {
                p.setInt(1, i);
                p.setString(2, "n°" + i + " 😀");
                p.setBytes(3, new byte[] {(byte) i, 0, (byte) 0xFF});
                if (i % 7 == 0) {
                    p.setNull(4, Types.DECIMAL);
                } else {
                    p.setBigDecimal(4, new BigDecimal(i).movePointLeft(2));
                }
                p.addBatch();
            }
            int[] counts = p.executeBatch();
            for (int n : counts) {
                ok(n == 1 || n == Statement.SUCCESS_NO_INFO, "batch count " + n);
            }
            eq(counts.length, 500, "batch result length");
        }
        // a Statement batch of more than 4 statements goes out as one multi-statement COM_QUERY
        // (Connector/J switches multi-statements on with COM_SET_OPTION for it)
        try (Statement s = c.createStatement()) {
            s.addBatch("UPDATE bat SET name = 'x' WHERE id = 1");
            s.addBatch("UPDATE bat SET name = 'y' WHERE id BETWEEN 2 AND 4");
            s.addBatch("DELETE FROM bat WHERE id = 500");
            s.addBatch("INSERT INTO bat (id, name) VALUES (1000, 'z')");
            s.addBatch("UPDATE bat SET amount = amount WHERE id = 999");
            s.addBatch("INSERT INTO bat (id, name) VALUES (1001, 'w'), (1002, 'v')");
            s.addBatch("DELETE FROM bat WHERE id > 1000");
            int[] counts = s.executeBatch();
            eq(Arrays.toString(counts), "[1, 3, 1, 1, 0, 2, 2]", "statement batch counts");
        }
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(amount), COUNT(amount), "
                     + "SUM(name LIKE 'n°% 😀'), HEX(MAX(data)) FROM bat")) {
            ok(rs.next(), "batch summary");
            eq(rs.getLong(1), 500L, "batch row count");
            eq(rs.getLong(3), 500L - 71 - 1, "non-NULL amounts");
            eq(rs.getLong(4), 500L - 4 - 1, "unicode names kept");
        }
        // a duplicate inside a batch reports 1062
        try (PreparedStatement p = c.prepareStatement("INSERT INTO bat (id) VALUES (?)")) {
            p.setInt(1, 2000);
            p.addBatch();
            p.setInt(1, 2);
            p.addBatch();
            expectError(1062, "23000", p::executeBatch, "duplicate in batch");
        }
    }

    static void checkTransactions(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE acct (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(20))");
        }
        c.setAutoCommit(false);
        try (PreparedStatement p = c.prepareStatement("INSERT INTO acct (v) VALUES (?)")) {
            p.setString(1, "rolled back");
            p.executeUpdate();
        }
        c.rollback();
        eq(count(c, "acct"), 0L, "rows after rollback");
        try (PreparedStatement p = c.prepareStatement("INSERT INTO acct (v) VALUES (?), (?)",
                Statement.RETURN_GENERATED_KEYS)) {
            p.setString(1, "a");
            p.setString(2, "b");
            eq(p.executeUpdate(), 2, "insert in transaction");
            try (ResultSet keys = p.getGeneratedKeys()) {
                ok(keys.next() && keys.getLong(1) >= 1, "generated key");
            }
        }
        c.commit();
        c.setAutoCommit(true);
        eq(count(c, "acct"), 2L, "rows after commit");
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        eq(c.getTransactionIsolation(), Connection.TRANSACTION_READ_COMMITTED, "isolation level");
        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        c.setReadOnly(true);
        c.setReadOnly(false);
    }

    static long count(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static void checkErrors(Connection c) throws SQLException {
        expectError(1062, "23000", () -> {
            try (PreparedStatement p = c.prepareStatement("INSERT INTO t (id) VALUES (?)")) {
                p.setInt(1, 1);
                p.executeUpdate();
            }
        }, "duplicate key");
        expectError(1146, "42S02", () -> {
            try (PreparedStatement p = c.prepareStatement("SELECT * FROM no_such_table WHERE id = ?")) {
                p.setInt(1, 1);
                p.executeQuery();
            }
        }, "missing table");
        expectError(1064, "42000", () -> {
            try (Statement s = c.createStatement()) {
                s.execute("SELEC 1");
            }
        }, "syntax error");
        eq(count(c, "t"), 3L, "usable after errors");
    }

    static void checkMetadata(Connection c, String db) throws SQLException {
        DatabaseMetaData md = c.getMetaData();
        ok(md.getDatabaseProductVersion() != null && !md.getDatabaseProductVersion().isEmpty(), "product version");
        List<String> tables = new ArrayList<>();
        try (ResultSet rs = md.getTables(db, null, "%", new String[] {"TABLE"})) {
            while (rs.next()) {
                eq(rs.getString("TABLE_CAT"), db, "getTables TABLE_CAT");
                eq(rs.getString("TABLE_TYPE"), "TABLE", "getTables TABLE_TYPE");
                tables.add(rs.getString("TABLE_NAME"));
            }
        }
        eq(tables.toString(), "[acct, bat, t]", "getTables");

        List<String> cols = new ArrayList<>();
        try (ResultSet rs = md.getColumns(db, null, "t", "%")) {
            while (rs.next()) {
                String name = rs.getString("COLUMN_NAME");
                cols.add(name + ":" + rs.getString("TYPE_NAME") + ":" + rs.getInt("DATA_TYPE") + ":"
                        + rs.getString("IS_NULLABLE") + ":" + rs.getInt("ORDINAL_POSITION"));
                if (name.equals("d")) {
                    eq(rs.getInt("COLUMN_SIZE"), 20, "DECIMAL precision");
                    eq(rs.getInt("DECIMAL_DIGITS"), 6, "DECIMAL scale");
                }
                if (name.equals("vc")) {
                    eq(rs.getInt("COLUMN_SIZE"), 100, "VARCHAR length");
                }
            }
        }
        String wantCols = "[id:INT:4:NO:1, i:INT:4:YES:2, bi:BIGINT:-5:YES:3, ubi:BIGINT UNSIGNED:-5:YES:4, "
                + "ti:TINYINT:-6:YES:5, d:DECIMAL:3:YES:6, f:FLOAT:7:YES:7, db:DOUBLE:8:YES:8, dt:DATE:91:YES:9, "
                + "dtm:DATETIME:93:YES:10, tm:TIME:92:YES:11, ts:TIMESTAMP:93:YES:12, vc:VARCHAR:12:YES:13, "
                + "tx:TEXT:-1:YES:14, bl:BLOB:-4:YES:15, vb:VARBINARY:-3:YES:16, b:BIT:-7:YES:17]";
        eq(cols.toString(), wantCols, "getColumns");

        List<String> pk = new ArrayList<>();
        try (ResultSet rs = md.getPrimaryKeys(db, null, "t")) {
            while (rs.next()) {
                pk.add(rs.getString("COLUMN_NAME") + ":" + rs.getShort("KEY_SEQ") + ":" + rs.getString("PK_NAME"));
            }
        }
        eq(pk.toString(), "[id:1:PRIMARY]", "getPrimaryKeys");

        List<String> idx = new ArrayList<>();
        try (ResultSet rs = md.getIndexInfo(db, null, "t", false, false)) {
            while (rs.next()) {
                idx.add(rs.getString("INDEX_NAME") + ":" + rs.getBoolean("NON_UNIQUE") + ":"
                        + rs.getString("COLUMN_NAME") + ":" + rs.getShort("ORDINAL_POSITION"));
            }
        }
        eq(idx.toString(), "[PRIMARY:false:id:1, uk_bi:false:bi:1, idx_vc:true:vc:1]", "getIndexInfo");

        List<String> uniq = new ArrayList<>();
        try (ResultSet rs = md.getIndexInfo(db, null, "t", true, false)) {
            while (rs.next()) {
                uniq.add(rs.getString("INDEX_NAME"));
            }
        }
        eq(uniq.toString(), "[PRIMARY, uk_bi]", "getIndexInfo unique only");

        // result-set metadata of a prepared query
        try (PreparedStatement p = c.prepareStatement("SELECT id, ubi, d, vc, bl FROM t WHERE id = ?")) {
            var rsmd = p.getMetaData();
            ok(rsmd != null, "prepared statement metadata");
            eq(rsmd.getColumnCount(), 5, "metadata column count");
            eq(rsmd.getColumnTypeName(2), "BIGINT UNSIGNED", "metadata unsigned type");
            eq(rsmd.getPrecision(3), 20, "metadata decimal precision");
            eq(rsmd.getScale(3), 6, "metadata decimal scale");
            eq(rsmd.getColumnTypeName(5), "BLOB", "metadata blob type");
            eq(p.getParameterMetaData().getParameterCount(), 1, "parameter count");
        }
    }

    public static void main(String[] args) throws Exception {
        TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
        String host = args.length >= 2 ? args[0] : System.getenv().getOrDefault("STRATA_HOST", "127.0.0.1");
        String port = args.length >= 2 ? args[1] : System.getenv().getOrDefault("STRATA_PORT", "3306");
        run(host, port, false);
        run(host, port, true);
        System.out.println("Connector/J checks passed");
    }
}
