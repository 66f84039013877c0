// End-to-end check of go-sql-driver/mysql against a running Strata server.
//
// Usage: STRATA_HOST=127.0.0.1 STRATA_PORT=3306 go run .
// Runs every check twice: interpolateParams=true (parameters spliced into COM_QUERY text, results in
// the text protocol) and interpolateParams=false (COM_STMT_PREPARE/EXECUTE, binary-protocol results).
// Exits non-zero with a message naming the first mismatch.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "go driver check FAILED: "+format+"\n", args...)
	os.Exit(1)
}

func check(err error, what string) {
	if err != nil {
		fail("%s: %v", what, err)
	}
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// The values every driver test stores (row 1: minimum extremes, row 2: maximum extremes and
// empty values, row 3: all NULL).
var (
	vcText = "héllo wörld ✓ 😀 日本語"
	txText = strings.Repeat("quote ' dq \" bs \\ pct % 😀€ tab\t nl\n", 20)
	blob   = func() []byte {
		b := make([]byte, 0, 270)
		for i := 0; i < 256; i++ {
			b = append(b, byte(i))
		}
		return append(b, 0x00, 0xFF, '\'', '\\', '"', 0x00)
	}()
	varbin = []byte{0x00, 0xFF, 0x27, 0x5C, 0x00}
	utc    = time.UTC
)

// What the server holds, read back as text through SQL functions (independent of the driver's
// own decoding).
func expectedServerView() [][]string {
	hx := func(b []byte) string { return strings.ToUpper(fmt.Sprintf("%x", b)) }
	return [][]string{
		{"1", "-2147483648", "-9223372036854775808", "18446744073709551615", "-128", "-99999999999999.999999",
			"1.5", "-1234.5678", "2024-02-29", "2024-02-29 23:59:58.123456", "13:45:30",
			"2001-02-03 04:05:06.789012", hx([]byte(vcText)), hx([]byte(txText)), hx(blob), hx(varbin), "1"},
		{"2", "2147483647", "9223372036854775807", "0", "127", "0.000001", "-0.25", "0.1", "1000-01-01",
			"9999-12-31 23:59:59.999999", "-838:59:59", "2038-01-19 03:14:07.500000", "", "", "", "", "0"},
		{"3", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL",
			"NULL", "NULL", "NULL", "NULL"},
	}
}

const ddl = `CREATE TABLE %s (
  id INT PRIMARY KEY,
  i INT, bi BIGINT, ubi BIGINT UNSIGNED, ti TINYINT,
  d DECIMAL(20,6), f FLOAT, db DOUBLE,
  dt DATE, dtm DATETIME(6), tm TIME, ts TIMESTAMP(6) NULL,
  vc VARCHAR(100), tx TEXT, bl BLOB, vb VARBINARY(64), b BOOL
) DEFAULT CHARSET=utf8mb4`

const serverView = `SELECT id, i, bi, ubi, ti, CAST(d AS CHAR), f, db, CAST(dt AS CHAR), CAST(dtm AS CHAR),
  CAST(tm AS CHAR), CAST(ts AS CHAR), HEX(vc), HEX(tx), HEX(bl), HEX(vb), b FROM %s ORDER BY id`

func run(host, port string, interpolate bool) {
	mode := fmt.Sprintf("interpolateParams=%v", interpolate)
	cfg := mysql.NewConfig()
	cfg.User = "root"
	cfg.Net = "tcp"
	cfg.Addr = host + ":" + port
	cfg.ParseTime = true
	cfg.Loc = utc
	cfg.InterpolateParams = interpolate
	cfg.Params = map[string]string{"time_zone": "'+00:00'"}
	cfg.Collation = "utf8mb4_general_ci"
	db, err := sql.Open("mysql", cfg.FormatDSN())
	check(err, mode+": open")
	defer db.Close()
	ctx := context.Background()
	// one connection, so session state (the database, transactions) is predictable
	conn, err := db.Conn(ctx)
	check(err, mode+": connect")
	defer conn.Close()
	check(conn.PingContext(ctx), mode+": ping")

	dbname := "go_drv_" + map[bool]string{true: "interp", false: "prep"}[interpolate]
	_, err = conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+dbname)
	check(err, mode+": drop database")
	_, err = conn.ExecContext(ctx, "CREATE DATABASE "+dbname)
	check(err, mode+": create database")
	_, err = conn.ExecContext(ctx, "USE "+dbname)
	check(err, mode+": use")
	_, err = conn.ExecContext(ctx, fmt.Sprintf(ddl, "t"))
	check(err, mode+": create table")

	// DML with parameters of every common type
	ins := "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	res, err := conn.ExecContext(ctx, ins, 1, int32(math.MinInt32), int64(math.MinInt64), uint64(math.MaxUint64),
		int8(-128), "-99999999999999.999999", float32(1.5), -1234.5678,
		time.Date(2024, 2, 29, 0, 0, 0, 0, utc), time.Date(2024, 2, 29, 23, 59, 58, 123456000, utc), "13:45:30",
		time.Date(2001, 2, 3, 4, 5, 6, 789012000, utc), vcText, txText, blob, varbin, true)
	check(err, mode+": insert row 1")
	if n, _ := res.RowsAffected(); n != 1 {
		fail("%s: insert row 1 affected %d rows", mode, n)
	}
	_, err = conn.ExecContext(ctx, ins, 2, int32(math.MaxInt32), int64(math.MaxInt64), uint64(0), int8(127),
		"0.000001", float32(-0.25), 0.1, time.Date(1000, 1, 1, 0, 0, 0, 0, utc),
		time.Date(9999, 12, 31, 23, 59, 59, 999999000, utc), "-838:59:59",
		time.Date(2038, 1, 19, 3, 14, 7, 500000000, utc), "", "", []byte{}, []byte{}, false)
	check(err, mode+": insert row 2")
	_, err = conn.ExecContext(ctx, ins, 3, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil)
	check(err, mode+": insert row 3 (NULLs)")

	// what the server stored, via SQL functions
	rows, err := conn.QueryContext(ctx, fmt.Sprintf(serverView, "t"))
	check(err, mode+": server view")
	want := expectedServerView()
	n := 0
	for rows.Next() {
		vals := make([]sql.NullString, 17)
		ptrs := make([]any, 17)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		check(rows.Scan(ptrs...), mode+": scan server view")
		for i, v := range vals {
			got := "NULL"
			if v.Valid {
				got = v.String
			}
			if got != want[n][i] {
				fail("%s: stored row %d column %d: got %q, want %q", mode, n+1, i, got, want[n][i])
			}
		}
		n++
	}
	check(rows.Err(), mode+": server view rows")
	if n != 3 {
		fail("%s: server view returned %d rows", mode, n)
	}

	// typed read-back (binary protocol when not interpolating: WHERE id > ? has a parameter)
	rows, err = conn.QueryContext(ctx, "SELECT id, i, bi, ubi, ti, d, f, db, dt, dtm, tm, ts, vc, tx, bl, vb, b FROM t WHERE id > ? ORDER BY id", 0)
	check(err, mode+": typed select")
	type rec struct {
		id          int64
		i           sql.NullInt32
		bi          sql.NullInt64
		ubi         *uint64
		ti          sql.NullInt16
		d           sql.NullString
		f           sql.NullFloat64
		dbl         sql.NullFloat64
		dt, dtm, ts sql.NullTime
		tm, vc, tx  sql.NullString
		bl, vb      []byte
		b           sql.NullBool
	}
	var got []rec
	for rows.Next() {
		var r rec
		check(rows.Scan(&r.id, &r.i, &r.bi, &r.ubi, &r.ti, &r.d, &r.f, &r.dbl, &r.dt, &r.dtm, &r.tm, &r.ts, &r.vc, &r.tx, &r.bl, &r.vb, &r.b), mode+": typed scan")
		got = append(got, r)
	}
	check(rows.Err(), mode+": typed rows")
	if len(got) != 3 {
		fail("%s: typed select returned %d rows", mode, len(got))
	}
	r := got[0]
	if !r.i.Valid || r.i.Int32 != math.MinInt32 || r.bi.Int64 != math.MinInt64 || r.ubi == nil || *r.ubi != math.MaxUint64 || r.ti.Int16 != -128 {
		fail("%s: row 1 integers: %+v %+v %v %+v", mode, r.i, r.bi, r.ubi, r.ti)
	}
	if r.d.String != "-99999999999999.999999" || r.f.Float64 != 1.5 || r.dbl.Float64 != -1234.5678 {
		fail("%s: row 1 numerics: %q %v %v", mode, r.d.String, r.f.Float64, r.dbl.Float64)
	}
	if !r.dt.Time.Equal(time.Date(2024, 2, 29, 0, 0, 0, 0, utc)) || !r.dtm.Time.Equal(time.Date(2024, 2, 29, 23, 59, 58, 123456000, utc)) ||
		!r.ts.Time.Equal(time.Date(2001, 2, 3, 4, 5, 6, 789012000, utc)) || r.tm.String != "13:45:30" {
		fail("%s: row 1 temporals: %v %v %q %v", mode, r.dt.Time, r.dtm.Time, r.tm.String, r.ts.Time)
	}
	if r.vc.String != vcText || r.tx.String != txText || !bytes.Equal(r.bl, blob) || !bytes.Equal(r.vb, varbin) || !r.b.Valid || !r.b.Bool {
		fail("%s: row 1 strings/bytes/bool: %q %q % x % x %+v", mode, r.vc.String, r.tx.String, r.bl, r.vb, r.b)
	}
	r = got[1]
	if r.i.Int32 != math.MaxInt32 || r.bi.Int64 != math.MaxInt64 || r.ubi == nil || *r.ubi != 0 || r.ti.Int16 != 127 ||
		r.d.String != "0.000001" || r.f.Float64 != -0.25 || r.dbl.Float64 != 0.1 {
		fail("%s: row 2 numbers: %+v", mode, r)
	}
	if !r.dt.Time.Equal(time.Date(1000, 1, 1, 0, 0, 0, 0, utc)) || !r.dtm.Time.Equal(time.Date(9999, 12, 31, 23, 59, 59, 999999000, utc)) ||
		!r.ts.Time.Equal(time.Date(2038, 1, 19, 3, 14, 7, 500000000, utc)) || r.tm.String != "-838:59:59" {
		fail("%s: row 2 temporals: %v %v %q %v", mode, r.dt.Time, r.dtm.Time, r.tm.String, r.ts.Time)
	}
	if !r.vc.Valid || r.vc.String != "" || !r.tx.Valid || r.tx.String != "" || r.bl == nil || len(r.bl) != 0 || r.vb == nil || len(r.vb) != 0 || !r.b.Valid || r.b.Bool {
		fail("%s: row 2 empty values: %+v", mode, r)
	}
	r = got[2]
	if r.i.Valid || r.bi.Valid || r.ubi != nil || r.ti.Valid || r.d.Valid || r.f.Valid || r.dbl.Valid || r.dt.Valid || r.dtm.Valid ||
		r.tm.Valid || r.ts.Valid || r.vc.Valid || r.tx.Valid || r.bl != nil || r.vb != nil || r.b.Valid {
		fail("%s: row 3 should be all NULL: %+v", mode, r)
	}

	// parameters echoed back by SELECT ? (the server infers the parameter types)
	var e1 int64
	var e2 string
	var e3 []byte
	var e4 sql.NullString
	var e5 float64
	check(conn.QueryRowContext(ctx, "SELECT ?, ?, ?, ?, ?", int64(-42), "😀 ünï", []byte{0, 255, 0}, nil, 2.5).Scan(&e1, &e2, &e3, &e4, &e5), mode+": SELECT ?")
	if e1 != -42 || e2 != "😀 ünï" || !bytes.Equal(e3, []byte{0, 255, 0}) || e4.Valid || e5 != 2.5 {
		fail("%s: SELECT ? echoed %v %q % x %v %v", mode, e1, e2, e3, e4, e5)
	}
	// lookups by each parameter type
	var id int
	check(conn.QueryRowContext(ctx, "SELECT id FROM t WHERE vc = ? AND bl = ? AND ubi = ? AND dtm = ? AND d = ?",
		vcText, blob, uint64(math.MaxUint64), time.Date(2024, 2, 29, 23, 59, 58, 123456000, utc), "-99999999999999.999999").Scan(&id), mode+": lookup by params")
	if id != 1 {
		fail("%s: lookup by params found id %d", mode, id)
	}
	var cnt int
	check(conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM t WHERE vc IS NULL AND b IS NULL").Scan(&cnt), mode+": count nulls")
	if cnt != 1 {
		fail("%s: NULL row count %d", mode, cnt)
	}

	// UPDATE / DELETE with parameters
	res, err = conn.ExecContext(ctx, "UPDATE t SET vc = ?, bi = bi - ? WHERE id = ?", "ünï 😀", int64(1), 2)
	check(err, mode+": update")
	if n, _ := res.RowsAffected(); n != 1 {
		fail("%s: update affected %d", mode, n)
	}
	var vc string
	var bi int64
	check(conn.QueryRowContext(ctx, "SELECT vc, bi FROM t WHERE id = ?", 2).Scan(&vc, &bi), mode+": read update")
	if vc != "ünï 😀" || bi != math.MaxInt64-1 {
		fail("%s: after update: %q %d", mode, vc, bi)
	}

	// transactions: rollback then commit
	_, err = conn.ExecContext(ctx, "CREATE TABLE acct (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(20))")
	check(err, mode+": create acct")
	tx, err := conn.BeginTx(ctx, nil)
	check(err, mode+": begin")
	_, err = tx.ExecContext(ctx, "INSERT INTO acct (v) VALUES (?)", "rolled back")
	check(err, mode+": insert in tx")
	check(tx.Rollback(), mode+": rollback")
	check(conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM acct").Scan(&cnt), mode+": count after rollback")
	if cnt != 0 {
		fail("%s: %d rows after rollback", mode, cnt)
	}
	tx, err = conn.BeginTx(ctx, nil)
	check(err, mode+": begin 2")
	res, err = tx.ExecContext(ctx, "INSERT INTO acct (v) VALUES (?), (?)", "a", "b")
	check(err, mode+": insert in tx 2")
	if last, _ := res.LastInsertId(); last < 1 {
		fail("%s: LastInsertId %d", mode, last)
	}
	check(tx.Commit(), mode+": commit")
	check(conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM acct").Scan(&cnt), mode+": count after commit")
	if cnt != 2 {
		fail("%s: %d rows after commit", mode, cnt)
	}

	// error codes
	_, err = conn.ExecContext(ctx, "INSERT INTO t (id) VALUES (?)", 1)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1062 || string(me.SQLState[:]) != "23000" {
		fail("%s: duplicate key: want 1062/23000, got %v", mode, err)
	}
	_, err = conn.QueryContext(ctx, "SELECT * FROM no_such_table WHERE id = ?", 1)
	if !errors.As(err, &me) || me.Number != 1146 || string(me.SQLState[:]) != "42S02" {
		fail("%s: missing table: want 1146/42S02, got %v", mode, err)
	}
	// the connection is still usable after errors
	check(conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM t WHERE id <> ?", 0).Scan(&cnt), mode+": after errors")
	if cnt != 3 {
		fail("%s: %d rows after errors", mode, cnt)
	}
	_, err = conn.ExecContext(ctx, "DROP DATABASE "+dbname)
	check(err, mode+": drop database")
	fmt.Printf("go-sql-driver/mysql %s: ok\n", mode)
}

func main() {
	host := env("STRATA_HOST", "127.0.0.1")
	port := env("STRATA_PORT", "3306")
	if len(os.Args) > 2 {
		host, port = os.Args[1], os.Args[2]
	}
	run(host, port, true)
	run(host, port, false)
	fmt.Println("go driver checks passed")
}
