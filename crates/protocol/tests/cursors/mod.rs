//! Server-side cursors over the wire: COM_STMT_EXECUTE with CURSOR_TYPE_READ_ONLY, then
//! COM_STMT_FETCH in chunks; the status flags of each EOF, and what closes a cursor.

use common::types::field_type as ft;
use protocol::status;

use super::{err_code, native};
use crate::support::{Client, ConnectOpts, Resp, TestServer};

const READ_ONLY: u8 = 1;

fn int(n: i64) -> Vec<(u8, bool, Option<Vec<u8>>)> {
    vec![(ft::LONGLONG, false, Some(n.to_le_bytes().to_vec()))]
}

fn connect(srv: &TestServer, deprecate_eof: bool) -> Client {
    Client::connect(
        srv.port(),
        &ConnectOpts {
            deprecate_eof,
            ..native("root", "")
        },
    )
    .unwrap()
}

/// Prepares `sql` and executes it with a cursor and the parameter `n`; returns the statement
/// id and the column definitions (the reply must open a cursor).
fn open(c: &mut Client, sql: &str, n: i64) -> (u32, Vec<(String, u8)>) {
    let (id, _, _) = c.prepare(sql).unwrap();
    c.send_execute(id, &int(n), true, READ_ONLY);
    match c.cursor_response() {
        Resp::Rows {
            cols, rows, status, ..
        } => {
            assert!(rows.is_empty());
            assert_eq!(status & status::CURSOR_EXISTS, status::CURSOR_EXISTS);
            assert_eq!(status & status::LAST_ROW_SENT, 0);
            (id, cols)
        }
        other => panic!("{sql}: expected an open cursor, got {other:?}"),
    }
}

/// The values of a fetch's rows and its EOF's status.
fn fetch(c: &mut Client, id: u32, n: u32, cols: &[(String, u8)]) -> (Vec<i64>, u16) {
    match c.fetch(id, n, cols) {
        Resp::Rows { rows, status, .. } => {
            let values = rows
                .iter()
                .map(|r| i64::from_le_bytes(r[0].clone().unwrap().try_into().unwrap()))
                .collect();
            (values, status)
        }
        other => panic!("expected rows, got {other:?}"),
    }
}

const MORE: u16 = status::AUTOCOMMIT | status::CURSOR_EXISTS;
const LAST: u16 = status::AUTOCOMMIT | status::LAST_ROW_SENT;

#[test]
fn fetch_in_chunks_with_classic_and_deprecated_eof() {
    let srv = TestServer::start(10);
    for deprecate_eof in [false, true] {
        let mut c = connect(&srv, deprecate_eof);
        // a result returned whole, and one streamed to the connection's row sink
        for (sql, warnings) in [("SELECT seq ?", 1), ("SELECT stream ?", 2)] {
            let (id, _, _) = c.prepare(sql).unwrap();
            c.send_execute(id, &int(5), true, READ_ONLY);
            let cols = match c.cursor_response() {
                Resp::Rows {
                    cols,
                    rows,
                    status,
                    warnings: w,
                } => {
                    assert!(rows.is_empty(), "{sql}: no rows before a fetch");
                    assert_eq!(status, MORE, "{sql}");
                    assert_eq!(w, warnings, "{sql}: the statement's warnings");
                    cols
                }
                other => panic!("{sql}: {other:?}"),
            };
            assert_eq!(cols, vec![("i".to_string(), ft::LONGLONG)]);
            assert_eq!(fetch(&mut c, id, 2, &cols), (vec![1, 2], MORE), "{sql}");
            assert_eq!(fetch(&mut c, id, 2, &cols), (vec![3, 4], MORE), "{sql}");
            // fewer rows than asked: the last ones, and the cursor closes
            assert_eq!(fetch(&mut c, id, 2, &cols), (vec![5], LAST), "{sql}");
            let e = c.fetch(id, 1, &cols);
            assert_eq!(err_code(&e), 1421, "{sql}: closed after its last row");
            match e {
                Resp::Err { msg, state, .. } => {
                    assert_eq!(msg, format!("The statement ({id}) has no open cursor."));
                    assert_eq!(state, "HY000");
                }
                _ => unreachable!(),
            }
        }
        let mut one = |sql| c.query(sql);
        assert!(matches!(one("SELECT 5"), Resp::Rows { .. }), "usable after");
    }
}

#[test]
fn last_row_sent_only_when_a_fetch_runs_out() {
    let srv = TestServer::start(10);
    let mut c = connect(&srv, true);
    // exactly the remaining rows: the cursor stays open, the next fetch sends none
    let (id, cols) = open(&mut c, "SELECT seq ?", 4);
    assert_eq!(fetch(&mut c, id, 2, &cols), (vec![1, 2], MORE));
    assert_eq!(fetch(&mut c, id, 2, &cols), (vec![3, 4], MORE));
    assert_eq!(fetch(&mut c, id, 2, &cols), (vec![], LAST));
    // an empty result opens a cursor too (MySQL materialises it all the same)
    let (id, cols) = open(&mut c, "SELECT seq ?", 0);
    assert_eq!(
        fetch(&mut c, id, 0, &cols),
        (vec![], MORE),
        "zero rows asked"
    );
    assert_eq!(fetch(&mut c, id, 10, &cols), (vec![], LAST));
    // everything at once (libmysql's mysql_stmt_store_result asks for 2^32 - 1 rows)
    let (id, cols) = open(&mut c, "SELECT stream ?", 1000);
    let (rows, st) = fetch(&mut c, id, u32::MAX, &cols);
    assert_eq!((rows.len(), rows[999], st), (1000, 1000, LAST));
}

#[test]
fn close_reset_reexecute_and_reset_connection_end_cursors() {
    let srv = TestServer::start(10);
    let mut c = connect(&srv, false);
    // two cursors at once, read in turns
    let (a, cols) = open(&mut c, "SELECT seq ?", 3);
    let (b, _) = open(&mut c, "SELECT stream ?", 3);
    assert_eq!(fetch(&mut c, a, 1, &cols), (vec![1], MORE));
    assert_eq!(fetch(&mut c, b, 2, &cols), (vec![1, 2], MORE));
    assert_eq!(fetch(&mut c, a, 1, &cols), (vec![2], MORE));
    // a new execution starts over
    c.send_execute(b, &int(2), true, READ_ONLY);
    assert!(matches!(
        c.cursor_response(),
        Resp::Rows { status: MORE, .. }
    ));
    assert_eq!(fetch(&mut c, b, 5, &cols), (vec![1, 2], LAST));
    // an execution without a cursor closes the open one and sends its rows directly
    let (d, cols) = open(&mut c, "SELECT seq ?", 3);
    c.send_execute(d, &int(2), true, 0);
    match c.response(true) {
        Resp::Rows { rows, status, .. } => {
            assert_eq!(rows.len(), 2);
            assert_eq!(status & status::CURSOR_EXISTS, 0);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(err_code(&c.fetch(d, 1, &cols)), 1421);
    // COM_STMT_RESET closes the cursor and answers OK
    c.send(0x1A, &a.to_le_bytes());
    assert!(matches!(c.response(false), Resp::Ok { .. }));
    assert_eq!(err_code(&c.fetch(a, 1, &cols)), 1421);
    // COM_STMT_CLOSE forgets the statement: an unknown statement, as MySQL 8.4 says it
    let (e, cols) = open(&mut c, "SELECT seq ?", 3);
    c.send(0x19, &e.to_le_bytes());
    match c.fetch(e, 1, &cols) {
        Resp::Err { code, msg, .. } => {
            assert_eq!(code, 1243);
            assert_eq!(
                msg,
                format!("Unknown prepared statement handler ({e}) given to mysql_stmt_precheck")
            );
        }
        other => panic!("{other:?}"),
    }
    // COM_RESET_CONNECTION closes every statement and its cursor
    let (f, cols) = open(&mut c, "SELECT seq ?", 3);
    c.send(0x1F, &[]);
    assert!(matches!(c.response(false), Resp::Ok { .. }));
    assert_eq!(err_code(&c.fetch(f, 1, &cols)), 1243);
}

#[test]
fn cursor_flag_without_a_result_set_or_with_an_error() {
    let srv = TestServer::start(10);
    let mut c = connect(&srv, true);
    // no result set: the usual OK, no cursor
    let (id, _, _) = c.prepare("INSERT INTO t VALUES (?)").unwrap();
    c.send_execute(id, &int(1), true, READ_ONLY);
    match c.cursor_response() {
        Resp::Ok {
            affected, status, ..
        } => {
            assert_eq!(affected, 1);
            assert_eq!(status & status::CURSOR_EXISTS, 0);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(err_code(&c.fetch(id, 1, &[])), 1421);
    // an error after rows were produced: only the error reaches the client, no cursor
    let (id, _, _) = c.prepare("SELECT stream fail ?").unwrap();
    c.send_execute(id, &int(3), true, READ_ONLY);
    assert_eq!(err_code(&c.cursor_response()), 1105);
    assert_eq!(err_code(&c.fetch(id, 1, &[])), 1421);
    // FOR_UPDATE (2) and SCROLLABLE (4) alone open no cursor, as in MySQL; with READ_ONLY they do
    let (id, _, _) = c.prepare("SELECT seq ?").unwrap();
    for flags in [2, 4] {
        c.send_execute(id, &int(2), true, flags);
        match c.response(true) {
            Resp::Rows { rows, status, .. } => {
                assert_eq!((rows.len(), status & status::CURSOR_EXISTS), (2, 0))
            }
            other => panic!("flags {flags}: {other:?}"),
        }
    }
    c.send_execute(id, &int(2), true, READ_ONLY | 2 | 4);
    assert!(matches!(
        c.cursor_response(),
        Resp::Rows { status: MORE, .. }
    ));
    // unknown statement
    assert_eq!(err_code(&c.fetch(9999, 1, &[])), 1243);
    // a truncated COM_STMT_FETCH is malformed: 1835 and the connection closes
    c.send(0x1C, &id.to_le_bytes());
    assert_eq!(err_code(&c.response(false)), 1835);
}
