//! End-to-end tests over real sockets with a minimal Rust client: authentication paths, text and
//! binary result sets, prepared statements, long data, cursors, odd and malformed packets,
//! limits.

mod cursors;
mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::time::Duration;

use common::types::field_type as ft;
use protocol::packet::{put_lenenc_bytes, PacketIo};
use protocol::status;
use support::{Client, ConnectOpts, Resp, TestServer};

fn text_rows(r: &Resp) -> Vec<Vec<Option<String>>> {
    match r {
        Resp::Rows { rows, .. } => rows
            .iter()
            .map(|row| {
                row.iter()
                    .map(|v| v.as_ref().map(|b| String::from_utf8_lossy(b).into_owned()))
                    .collect()
            })
            .collect(),
        other => panic!("expected rows, got {other:?}"),
    }
}

fn err_code(r: &Resp) -> u16 {
    match r {
        Resp::Err { code, .. } => *code,
        other => panic!("expected an error, got {other:?}"),
    }
}

fn native(user: &'static str, password: &'static str) -> ConnectOpts<'static> {
    ConnectOpts {
        user,
        password,
        ..Default::default()
    }
}

fn sha(user: &'static str, password: &'static str) -> ConnectOpts<'static> {
    ConnectOpts {
        user,
        password,
        plugin: "caching_sha2_password",
        ..Default::default()
    }
}

#[test]
fn native_auth_and_text_queries() {
    let srv = TestServer::start(10);
    for deprecate_eof in [false, true] {
        let mut c = Client::connect(
            srv.port(),
            &ConnectOpts {
                deprecate_eof,
                ..native("native", "npw")
            },
        )
        .unwrap();
        assert_eq!(
            text_rows(&c.query("SELECT 1")),
            vec![vec![Some("1".to_string())]]
        );
        assert_eq!(
            text_rows(&c.query("SELECT NULL, 'x', 1.5")),
            vec![vec![None, Some("x".to_string()), Some("1.5".to_string())]]
        );
        match c.query("SELECT empty") {
            Resp::Rows {
                rows,
                warnings,
                status: st,
                ..
            } => {
                assert!(rows.is_empty());
                assert_eq!(warnings, 1);
                assert_eq!(st & status::AUTOCOMMIT, status::AUTOCOMMIT);
            }
            other => panic!("{other:?}"),
        }
        match c.query("SELECT bad") {
            Resp::Err { code, state, msg } => {
                assert_eq!((code, state.as_str()), (1054, "42S22"));
                assert_eq!(msg, "Unknown column 'bad' in 'field list'");
            }
            other => panic!("{other:?}"),
        }
        match c.query("INSERT") {
            Resp::Ok {
                affected,
                insert_id,
                warnings,
                info,
                ..
            } => {
                assert_eq!((affected, insert_id, warnings), (3, 42, 1));
                assert_eq!(info, b"Records: 3");
            }
            other => panic!("{other:?}"),
        }
        // Transaction status flags come from the session.
        assert!(
            matches!(c.query("BEGIN"), Resp::Ok { status: s, .. } if s & status::IN_TRANS != 0)
        );
        assert!(
            matches!(c.query("COMMIT"), Resp::Ok { status: s, .. } if s & status::IN_TRANS == 0)
        );
    }
}

#[test]
fn multi_statements_and_results() {
    let srv = TestServer::start(10);
    let mut c = Client::connect(srv.port(), &native("root", "")).unwrap();
    c.send(0x03, b"SELECT 1; INSERT; SELECT 2; SELECT bad; SELECT 3");
    let r1 = c.response(false);
    assert!(matches!(r1, Resp::Rows { status: s, .. } if s & status::MORE_RESULTS_EXISTS != 0));
    assert!(
        matches!(c.response(false), Resp::Ok { status: s, affected: 3, .. } if s & status::MORE_RESULTS_EXISTS != 0)
    );
    let r3 = c.response(false);
    assert_eq!(text_rows(&r3), vec![vec![Some("2".to_string())]]);
    assert_eq!(err_code(&c.response(false)), 1054);
    // Nothing follows the error: the next command gets the next answer.
    assert_eq!(
        text_rows(&c.query("SELECT 4")),
        vec![vec![Some("4".to_string())]]
    );
    // COM_SET_OPTION turns multi statements off; the session then gets the whole text.
    c.send(0x1B, &1u16.to_le_bytes());
    assert_eq!(
        c.read().unwrap()[0],
        0xFE,
        "EOF reply without DEPRECATE_EOF"
    );
    assert_eq!(err_code(&c.query("SELECT 1; SELECT 2")), 1064);
    c.send(0x1B, &0u16.to_le_bytes());
    assert_eq!(c.read().unwrap()[0], 0xFE);
    c.send(0x03, b"SELECT 1; SELECT 2");
    assert!(matches!(c.response(false), Resp::Rows { .. }));
    assert!(
        matches!(c.response(false), Resp::Rows { status: s, .. } if s & status::MORE_RESULTS_EXISTS == 0)
    );
}

#[test]
fn wrong_password_unknown_user_locked_and_bad_db() {
    let srv = TestServer::start(10);
    match Client::connect(srv.port(), &native("native", "nope")) {
        Err(Resp::Err { code, state, msg }) => {
            assert_eq!((code, state.as_str()), (1045, "28000"));
            assert_eq!(
                msg,
                "Access denied for user 'native'@'127.0.0.1' (using password: YES)"
            );
        }
        other => panic!("{:?}", other.err()),
    }
    match Client::connect(srv.port(), &native("native", "")) {
        Err(Resp::Err { msg, .. }) => assert!(msg.ends_with("(using password: NO)"), "{msg}"),
        other => panic!("{:?}", other.err()),
    }
    assert_eq!(
        err_code(
            &Client::connect(srv.port(), &native("ghost", "x"))
                .err()
                .unwrap()
        ),
        1045
    );
    assert_eq!(
        err_code(
            &Client::connect(srv.port(), &sha("sha", "wrong"))
                .err()
                .unwrap()
        ),
        1045
    );
    assert_eq!(
        err_code(
            &Client::connect(srv.port(), &sha("shanopw", "something"))
                .err()
                .unwrap()
        ),
        1045
    );
    match Client::connect(srv.port(), &native("locked", "lpw")) {
        Err(Resp::Err { code, msg, .. }) => {
            assert_eq!(code, 3118);
            assert!(msg.contains("Account is locked"), "{msg}");
        }
        other => panic!("{:?}", other.err()),
    }
    let r = Client::connect(
        srv.port(),
        &ConnectOpts {
            db: Some("nodb"),
            ..native("root", "")
        },
    );
    assert_eq!(err_code(&r.err().unwrap()), 1049);
    // Connection info reaches the backend.
    let c = Client::connect(
        srv.port(),
        &ConnectOpts {
            db: Some("test"),
            ..native("root", "")
        },
    )
    .unwrap();
    drop(c);
    let opened = srv.backend.opened.lock().unwrap().clone();
    let info = opened
        .iter()
        .find(|i| i.db.as_deref() == Some("test"))
        .unwrap();
    assert_eq!(
        (info.user.as_str(), info.host.as_str(), info.collation_id),
        ("root", "127.0.0.1", 45)
    );
    assert!(info
        .attrs
        .contains(&("_client_name".to_string(), "strata-test".to_string())));
    assert!(info.conn_id >= 1);
}

#[test]
fn auth_switch_between_plugins() {
    let srv = TestServer::start(10);
    // The client starts with caching_sha2 but the account is native: AuthSwitchRequest.
    let mut c = Client::connect(srv.port(), &sha("native", "npw")).unwrap();
    assert_eq!(
        text_rows(&c.query("SELECT 7")),
        vec![vec![Some("7".to_string())]]
    );
    // The other way round.
    let mut c = Client::connect(srv.port(), &native("sha", "spw")).unwrap();
    assert_eq!(
        text_rows(&c.query("SELECT 8")),
        vec![vec![Some("8".to_string())]]
    );
    // Empty password accounts with either plugin.
    Client::connect(srv.port(), &sha("shanopw", "")).unwrap();
    Client::connect(srv.port(), &sha("root", "")).unwrap();
}

#[test]
fn caching_sha2_full_then_fast_auth() {
    let srv = TestServer::start(10);
    let c = Client::connect(srv.port(), &sha("sha", "spw")).unwrap();
    assert_eq!(
        c.fast_auth,
        Some(false),
        "first login: full authentication with RSA"
    );
    drop(c);
    let mut c = Client::connect(srv.port(), &sha("sha", "spw")).unwrap();
    assert_eq!(c.fast_auth, Some(true), "second login: from the cache");
    assert_eq!(
        text_rows(&c.query("SELECT 1")),
        vec![vec![Some("1".to_string())]]
    );
    // A wrong password after caching still fails (falls back to full auth, then denies).
    assert_eq!(
        err_code(
            &Client::connect(srv.port(), &sha("sha", "spx"))
                .err()
                .unwrap()
        ),
        1045
    );
}

#[test]
fn caching_sha2_cleartext_over_unix_socket_only() {
    let srv = TestServer::start(10);
    // Over the unix socket the password is sent in clear after 0x01 0x04.
    let s = UnixStream::connect(&srv.socket).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut io = PacketIo::new(s);
    let hs = io.read_packet(1 << 20).unwrap();
    assert_eq!(hs[0], 10);
    let caps = protocol::handshake::caps::SERVER & !protocol::handshake::caps::CONNECT_WITH_DB;
    let mut p = caps.to_le_bytes().to_vec();
    p.extend_from_slice(&(1u32 << 24).to_le_bytes());
    p.push(255);
    p.extend_from_slice(&[0; 23]);
    p.extend_from_slice(b"sha\0");
    // Deliberately a wrong fast-auth scramble so the server asks for the full password.
    put_lenenc_bytes(&mut p, &[7u8; 32]);
    p.extend_from_slice(b"caching_sha2_password\0");
    put_lenenc_bytes(&mut p, b"");
    io.write_packet(&p).unwrap();
    io.flush().unwrap();
    assert_eq!(io.read_packet(1 << 20).unwrap(), vec![0x01, 0x04]);
    io.write_packet(b"spw\0").unwrap();
    io.flush().unwrap();
    assert_eq!(
        io.read_packet(1 << 20).unwrap()[0],
        0x00,
        "OK after cleartext over the socket"
    );
    assert_eq!(
        srv.backend.opened.lock().unwrap().last().unwrap().host,
        "localhost"
    );

    // Over TCP a cleartext password is refused.
    let s = TcpStream::connect(("127.0.0.1", srv.port())).unwrap();
    let mut io = PacketIo::new(s);
    io.read_packet(1 << 20).unwrap();
    // The same response (a wrong fast-auth scramble) forces the full-auth path.
    io.write_packet(&p).unwrap();
    io.flush().unwrap();
    assert_eq!(io.read_packet(1 << 20).unwrap(), vec![0x01, 0x04]);
    io.write_packet(b"spw\0").unwrap();
    io.flush().unwrap();
    let e = io.read_packet(1 << 20).unwrap();
    assert_eq!(e[0], 0xFF);
    assert_eq!(u16::from_le_bytes([e[1], e[2]]), 1045);
}

fn lenenc(b: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    put_lenenc_bytes(&mut v, b);
    v
}

#[test]
fn prepared_statements_binary_protocol() {
    let srv = TestServer::start(10);
    for deprecate_eof in [false, true] {
        let mut c = Client::connect(
            srv.port(),
            &ConnectOpts {
                deprecate_eof,
                ..native("root", "")
            },
        )
        .unwrap();
        let (id, ncols, nparams) = c.prepare("SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?").unwrap();
        assert_eq!((ncols, nparams), (9, 9));
        let params = vec![
            (ft::LONGLONG, false, Some((-5i64).to_le_bytes().to_vec())),
            (ft::LONGLONG, true, Some(u64::MAX.to_le_bytes().to_vec())),
            (ft::VAR_STRING, false, Some(lenenc("héllo".as_bytes()))),
            (ft::BLOB, false, Some(lenenc(&[0, 255, 1]))),
            (ft::DOUBLE, false, Some(2.5f64.to_le_bytes().to_vec())),
            (
                ft::DATETIME,
                false,
                Some(vec![7, 0xE8, 0x07, 2, 29, 13, 14, 15]),
            ),
            (ft::TIME, false, Some(vec![8, 1, 0, 0, 0, 0, 1, 2, 3])),
            (ft::NEWDECIMAL, false, Some(lenenc(b"-12.50"))),
            (ft::LONG, false, None),
        ];
        match c.execute(id, &params, true) {
            Resp::Rows { cols, rows, .. } => {
                let types: Vec<u8> = cols.iter().map(|c| c.1).collect();
                assert_eq!(
                    types,
                    vec![
                        ft::LONGLONG,
                        ft::LONGLONG,
                        ft::VAR_STRING,
                        ft::BLOB,
                        ft::DOUBLE,
                        ft::DATETIME,
                        ft::TIME,
                        ft::NEWDECIMAL,
                        ft::NULL
                    ]
                );
                let row = &rows[0];
                assert_eq!(row[0].as_deref(), Some(&(-5i64).to_le_bytes()[..]));
                assert_eq!(row[1].as_deref(), Some(&u64::MAX.to_le_bytes()[..]));
                assert_eq!(row[2].as_deref(), Some("héllo".as_bytes()));
                assert_eq!(row[3].as_deref(), Some(&[0u8, 255, 1][..]));
                assert_eq!(row[4].as_deref(), Some(&2.5f64.to_le_bytes()[..]));
                assert_eq!(
                    row[5].as_deref(),
                    Some(&[7u8, 0xE8, 0x07, 2, 29, 13, 14, 15][..])
                );
                assert_eq!(row[6].as_deref(), Some(&[8u8, 1, 0, 0, 0, 0, 1, 2, 3][..]));
                assert_eq!(row[7].as_deref(), Some(&b"-12.50"[..]));
                assert_eq!(row[8], None);
            }
            other => panic!("{other:?}"),
        }
        // Re-execute without re-binding types: the server remembers them.
        let again: Vec<_> = params.iter().map(|(t, u, v)| (*t, *u, v.clone())).collect();
        assert!(matches!(c.execute(id, &again, false), Resp::Rows { .. }));

        // Long data replaces a parameter's value.
        let (id2, _, n) = c.prepare("SELECT ?, ?").unwrap();
        assert_eq!(n, 2);
        for chunk in [&b"abc"[..], &b"def"[..]] {
            let mut b = id2.to_le_bytes().to_vec();
            b.extend_from_slice(&1u16.to_le_bytes());
            b.extend_from_slice(chunk);
            c.send(0x18, &b);
        }
        match c.execute(
            id2,
            &[
                (ft::LONG, false, Some(9i32.to_le_bytes().to_vec())),
                (ft::STRING, false, Some(Vec::new())),
            ],
            true,
        ) {
            Resp::Rows { rows, .. } => assert_eq!(rows[0][1].as_deref(), Some(&b"abcdef"[..])),
            other => panic!("{other:?}"),
        }
        // COM_STMT_RESET clears pending long data.
        let mut b = id2.to_le_bytes().to_vec();
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(b"zzz");
        c.send(0x18, &b);
        c.send(0x1A, &id2.to_le_bytes());
        assert!(matches!(c.response(false), Resp::Ok { .. }));
        match c.execute(
            id2,
            &[
                (ft::LONG, false, Some(1i32.to_le_bytes().to_vec())),
                (ft::STRING, false, Some(lenenc(b"q"))),
            ],
            true,
        ) {
            Resp::Rows { rows, .. } => {
                assert_eq!(rows[0][0].as_deref(), Some(&1i64.to_le_bytes()[..]))
            }
            other => panic!("{other:?}"),
        }

        // Statements without parameters, OK results, errors, fetch, close.
        let (id3, _, _) = c.prepare("INSERT INTO t VALUES (?)").unwrap();
        assert!(matches!(
            c.execute(id3, &[(ft::NULL, false, None)], true),
            Resp::Ok { affected: 1, .. }
        ));
        assert_eq!(err_code(&c.prepare("SELECT bad").err().unwrap()), 1054);
        c.send(0x1C, &{
            let mut b = id3.to_le_bytes().to_vec();
            b.extend_from_slice(&1u32.to_le_bytes());
            b
        });
        assert_eq!(err_code(&c.response(false)), 1421);
        c.send(0x19, &id3.to_le_bytes());
        assert_eq!(
            err_code(&c.execute(id3, &[(ft::NULL, false, None)], true)),
            1243
        );
        assert_eq!(
            text_rows(&c.query("SELECT 5")),
            vec![vec![Some("5".to_string())]],
            "no reply to COM_STMT_CLOSE"
        );
    }
}

#[test]
fn other_commands() {
    let srv = TestServer::start(10);
    let mut c = Client::connect(srv.port(), &native("root", "")).unwrap();
    c.send(0x0E, b"");
    assert!(matches!(c.response(false), Resp::Ok { .. }), "ping");
    c.send(0x09, b"");
    assert_eq!(
        c.read().unwrap(),
        b"Uptime: 1  Threads: 1  Questions: 0".to_vec(),
        "statistics: raw string"
    );
    c.send(0x02, b"test");
    assert!(matches!(c.response(false), Resp::Ok { .. }));
    assert_eq!(
        text_rows(&c.query("SELECT DATABASE()")),
        vec![vec![Some("test".to_string())]]
    );
    c.send(0x02, b"nodb");
    assert_eq!(err_code(&c.response(false)), 1049);
    // COM_FIELD_LIST: column definitions (with a NULL default) then EOF.
    c.send(0x04, b"t\0");
    for _ in 0..2 {
        let d = c.read().unwrap();
        assert_eq!(&d[..4], b"\x03def");
        assert_eq!(d.last(), Some(&0xFB));
    }
    assert_eq!(c.read().unwrap()[0], 0xFE);
    c.send(0x04, b"nosuch\0");
    assert_eq!(err_code(&c.response(false)), 1146);
    c.send(0x0C, &5u32.to_le_bytes());
    assert!(matches!(c.response(false), Resp::Ok { .. }), "kill");
    c.send(0x0C, &999u32.to_le_bytes());
    assert_eq!(err_code(&c.response(false)), 1094);
    c.send(0x1F, b"");
    assert!(
        matches!(c.response(false), Resp::Ok { .. }),
        "reset connection"
    );
    c.send(0x08, b"");
    assert_eq!(
        err_code(&c.response(false)),
        1047,
        "COM_SHUTDOWN is unknown"
    );
    c.send(0x03, b"");
    assert_eq!(err_code(&c.response(false)), 1065, "Query was empty");
    // COM_CHANGE_USER to a caching_sha2 account: auth switch with a fresh nonce.
    let mut b = b"sha\0".to_vec();
    b.push(0);
    b.extend_from_slice(b"chdb\0");
    b.extend_from_slice(&45u16.to_le_bytes());
    b.extend_from_slice(b"caching_sha2_password\0");
    c.send(0x11, &b);
    let sw = c.read().unwrap();
    assert_eq!(sw[0], 0xFE);
    assert!(sw.starts_with(b"\xFEcaching_sha2_password\0"));
    let nonce = sw[23..43].to_vec();
    assert_ne!(nonce, c.scramble, "fresh nonce");
    c.io.write_packet(&protocol::auth::caching_sha2_scramble(b"spw", &nonce))
        .unwrap();
    c.io.flush().unwrap();
    let mut p = c.read().unwrap();
    if p == [0x01, 0x04] {
        c.io.write_packet(&[0x02]).unwrap();
        c.io.flush().unwrap();
        let pem = c.read().unwrap();
        use rsa::pkcs8::DecodePublicKey;
        let key = rsa::RsaPublicKey::from_public_key_pem(std::str::from_utf8(&pem[1..]).unwrap())
            .unwrap();
        let mut plain = b"spw\0".to_vec();
        for (i, x) in plain.iter_mut().enumerate() {
            *x ^= nonce[i % 20];
        }
        let enc = key
            .encrypt(
                &mut rand::thread_rng(),
                rsa::Oaep::new::<sha1::Sha1>(),
                &plain,
            )
            .unwrap();
        c.io.write_packet(&enc).unwrap();
        c.io.flush().unwrap();
        p = c.read().unwrap();
    } else if p == [0x01, 0x03] {
        p = c.read().unwrap();
    }
    assert_eq!(p[0], 0x00, "{p:?}");
    assert_eq!(
        text_rows(&c.query("SELECT USER()")),
        vec![vec![Some("sha@127.0.0.1".to_string())]]
    );
    assert_eq!(
        text_rows(&c.query("SELECT DATABASE()")),
        vec![vec![Some("chdb".to_string())]]
    );
    // A failed change user closes the connection.
    let mut b = b"native\0".to_vec();
    b.push(0);
    b.push(0);
    c.send(0x11, &b);
    let sw = c.read().unwrap();
    assert_eq!(sw[0], 0xFE);
    c.io.write_packet(&[1u8; 20]).unwrap();
    c.io.flush().unwrap();
    assert_eq!(err_code(&c.response(false)), 1045);
    assert!(c.read().is_err(), "closed after a failed change user");
    // COM_QUIT closes without a reply.
    let mut c = Client::connect(srv.port(), &native("root", "")).unwrap();
    c.send(0x01, b"");
    assert!(c.read().is_err());
}

#[test]
fn malformed_packets_close_the_connection_only() {
    let srv = TestServer::start(10);
    let mut c = Client::connect(srv.port(), &native("root", "")).unwrap();
    let (id, _, _) = c.prepare("SELECT ?, ?").unwrap();
    // Truncated COM_STMT_EXECUTE: no parameter block.
    let mut b = id.to_le_bytes().to_vec();
    b.push(0);
    c.send(0x17, &b);
    match c.response(false) {
        Resp::Err { code, msg, .. } => {
            assert_eq!(code, 1835);
            assert_eq!(msg, "Malformed communication packet");
        }
        other => panic!("{other:?}"),
    }
    assert!(c.read().is_err(), "connection closed");
    // A short COM_PROCESS_KILL and an empty packet too.
    for bad in [&[0x0Cu8, 1][..], &[][..]] {
        let mut c = Client::connect(srv.port(), &native("root", "")).unwrap();
        c.io.set_seq(0);
        c.io.write_packet(bad).unwrap();
        c.io.flush().unwrap();
        assert_eq!(err_code(&c.response(false)), 1835);
    }
    // Garbage instead of a handshake response.
    let mut s = TcpStream::connect(("127.0.0.1", srv.port())).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut io = PacketIo::new(s.try_clone().unwrap());
    io.read_packet(1 << 20).unwrap();
    io.write_packet(&[1, 2, 3]).unwrap();
    io.flush().unwrap();
    let e = io.read_packet(1 << 20).unwrap();
    assert_eq!(u16::from_le_bytes([e[1], e[2]]), 1043);
    let mut rest = Vec::new();
    assert_eq!(s.read_to_end(&mut rest).map(|_| rest.len()).unwrap_or(0), 0);
    // The server still serves new connections.
    let mut c = Client::connect(srv.port(), &native("root", "")).unwrap();
    assert_eq!(
        text_rows(&c.query("SELECT 1")),
        vec![vec![Some("1".to_string())]]
    );
}

#[test]
fn packet_too_large() {
    let srv = TestServer::start(10);
    let mut c = Client::connect(srv.port(), &native("root", "")).unwrap();
    // The session's max_allowed_packet is 1 MiB.
    let big = vec![b'x'; (1 << 20) + 10];
    c.send(0x03, &big);
    match c.response(false) {
        Resp::Err { code, msg, .. } => {
            assert_eq!(code, 1153);
            assert_eq!(msg, "Got a packet bigger than 'max_allowed_packet' bytes");
        }
        other => panic!("{other:?}"),
    }
    assert!(c.read().is_err(), "closed");
    // A packet just under the limit is fine.
    let mut c = Client::connect(srv.port(), &native("root", "")).unwrap();
    let mut q = b"SELECT 1 ".to_vec();
    q.resize((1 << 20) - 1, b' ');
    c.send(0x03, &q);
    assert!(matches!(c.response(false), Resp::Rows { .. }));
}

#[test]
fn too_many_connections_and_ids() {
    let srv = TestServer::start(2);
    let a = Client::connect(srv.port(), &native("root", "")).unwrap();
    let b = Client::connect(srv.port(), &native("root", "")).unwrap();
    match Client::connect(srv.port(), &native("root", "")) {
        Err(Resp::Err { code, msg, .. }) => {
            assert_eq!(code, 1040);
            assert_eq!(msg, "Too many connections");
        }
        other => panic!("{:?}", other.err()),
    }
    drop(a);
    // Wait for the server to notice the close.
    let registry = srv.handle.registry();
    for _ in 0..200 {
        if registry.count() < 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut c = Client::connect(srv.port(), &native("root", "")).unwrap();
    assert!(matches!(c.query("SELECT 1"), Resp::Rows { .. }));
    drop(b);
    // Ids increase from 1.
    let ids: Vec<u32> = srv
        .backend
        .opened
        .lock()
        .unwrap()
        .iter()
        .map(|i| i.conn_id)
        .collect();
    assert_eq!(ids, vec![1, 2, 4]);
}

#[test]
fn kill_through_registry_and_shutdown() {
    let srv = TestServer::start(10);
    let mut c = Client::connect(srv.port(), &native("root", "")).unwrap();
    let id = srv.backend.opened.lock().unwrap().last().unwrap().conn_id;
    assert!(srv.handle.registry().kill(id));
    assert!(c.read().is_err());
    for _ in 0..200 {
        if srv.backend.closed.lock().unwrap().contains(&id) {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        srv.backend.closed.lock().unwrap().contains(&id),
        "connection_closed called"
    );
    // Binding the same port again fails cleanly.
    let cfg = protocol::ListenerConfig {
        bind_address: "127.0.0.1".into(),
        port: srv.port(),
        socket: None,
        max_connections: 1,
        server_version: "x".into(),
        key_dir: support::key_dir(),
        max_allowed_packet: 1024,
        ..Default::default()
    };
    assert!(protocol::start(cfg, support::FakeBackend::new()).is_err());
    let mut idle = Client::connect(srv.port(), &native("root", "")).unwrap();
    srv.handle.shutdown();
    assert!(idle.read().is_err(), "connections closed at shutdown");
    assert!(
        TcpStream::connect(("127.0.0.1", srv.port()))
            .map(|mut s| {
                let mut b = [0u8; 1];
                s.set_read_timeout(Some(Duration::from_secs(2))).ok();
                s.write_all(b"x").ok();
                s.read(&mut b).unwrap_or(0)
            })
            .unwrap_or(0)
            == 0
    );
    assert!(!srv.socket.exists(), "socket file removed");
}

#[test]
fn one_thread_per_connection_mode() {
    let srv = TestServer::start_with(2, protocol::ThreadHandling::OneThreadPerConnection);
    let mut a = Client::connect(srv.port(), &native("root", "")).unwrap();
    let _b = Client::connect(srv.port(), &native("native", "npw")).unwrap();
    assert_eq!(
        text_rows(&a.query("SELECT 1")),
        vec![vec![Some("1".to_string())]]
    );
    // The extra (administrator) slot refuses a non-administrator after authentication; beyond
    // it, 1040 comes before the handshake.
    let third = Client::connect(srv.port(), &native("root", ""));
    assert_eq!(third.err().map(|e| err_code(&e)), Some(1040));
    assert!(srv.handle.registry().pool_snapshot().is_none());
    assert!(srv.handle.registry().counters().threads_created >= 2);
}

#[test]
fn pool_snapshot_counts_connections_and_work() {
    let srv = TestServer::start(10);
    let mut clients: Vec<Client> = (0..4)
        .map(|_| Client::connect(srv.port(), &native("root", "")).unwrap())
        .collect();
    for c in &mut clients {
        assert!(matches!(c.query("SELECT 1"), Resp::Rows { .. }));
    }
    let snap = srv.handle.registry().pool_snapshot().expect("pool mode");
    assert_eq!(snap.groups.len(), 2);
    // Round-robin: two connections per group; each ran its authentication and one statement on
    // a worker (the greeting comes from the accept thread).
    for g in &snap.groups {
        assert_eq!(g.connection_count, 2, "{g:?}");
        assert_eq!(g.stats.queries_executed, 2 * 2, "{g:?}");
        assert!(g.thread_count >= 1);
    }
    // Once idle, a worker of each group polls the group's sockets.
    let mut listeners = 0;
    for _ in 0..200 {
        let snap = srv.handle.registry().pool_snapshot().unwrap();
        listeners = snap
            .threads
            .iter()
            .filter(|t| t.state == "listener")
            .count();
        if listeners == 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(listeners, 2);
    drop(clients);
}
