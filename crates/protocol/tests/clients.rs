//! Real clients against a server on the fake backend: the `mariadb` command-line client (TCP and
//! unix socket) and PyMySQL (native and caching_sha2 with RSA over TCP, cleartext over the
//! socket). A missing client skips its test with a note, or fails when
//! `STRATA_REQUIRE_CLIENTS=1`.

mod support;

use std::process::{Command, Output};

use support::TestServer;

fn require(what: &str, available: bool) -> bool {
    if available {
        return true;
    }
    if std::env::var("STRATA_REQUIRE_CLIENTS").as_deref() == Ok("1") {
        panic!("{what} is not installed but STRATA_REQUIRE_CLIENTS=1");
    }
    eprintln!(
        "note: skipping: {what} is not installed (set STRATA_REQUIRE_CLIENTS=1 to make this fail)"
    );
    false
}

fn mariadb_available() -> bool {
    Command::new("mariadb")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn pymysql_available() -> bool {
    Command::new("python3")
        .args(["-c", "import pymysql, cryptography"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn mariadb(args: &[&str]) -> Output {
    let mut c = Command::new("mariadb");
    c.arg("--no-defaults")
        .args(["--connect-timeout=20", "-N", "-B"])
        .args(args);
    c.output().expect("run mariadb")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn mariadb_cli_over_tcp_and_socket() {
    if !require("the mariadb client", mariadb_available()) {
        return;
    }
    let srv = TestServer::start(20);
    let port = srv.port().to_string();
    let sock = srv.socket.to_string_lossy().into_owned();
    let tcp = ["-h127.0.0.1", "-P", port.as_str(), "--protocol=tcp"];
    let socket = ["--protocol=socket", "-S", sock.as_str()];

    // The socket goes first: Debian's libmariadb (GnuTLS build) sends the caching_sha2 password
    // in clear instead of RSA-encrypting it, which the server (like MySQL) refuses over TCP; a
    // login over the socket fills the fast-auth cache, so later TCP logins take the fast path.
    for (transport, base) in [("socket", &socket[..]), ("tcp", &tcp[..])] {
        let run = |extra: &[&str]| {
            let mut a: Vec<&str> = base.to_vec();
            a.extend_from_slice(extra);
            mariadb(&a)
        };
        let o = run(&["-uroot", "-e", "SELECT 1"]);
        assert!(o.status.success(), "{transport}: {}", stderr(&o));
        assert_eq!(stdout(&o), "1\n", "{transport}");

        let o = run(&["-uroot", "-e", "SELECT 1; SELECT 2; SELECT NULL, 'x', 1.5"]);
        assert_eq!(
            stdout(&o),
            "1\n2\nNULL\tx\t1.5\n",
            "{transport}: {}",
            stderr(&o)
        );

        let o = run(&["-unative", "-pnpw", "-e", "SELECT USER()"]);
        assert!(o.status.success(), "{transport}: {}", stderr(&o));
        let host = if transport == "tcp" {
            "127.0.0.1"
        } else {
            "localhost"
        };
        assert_eq!(stdout(&o), format!("native@{host}\n"));

        // caching_sha2_password through the client's plugin (cleartext full authentication over
        // the socket, then the fast path), twice.
        for _ in 0..2 {
            let o = run(&["-usha", "-pspw", "-e", "SELECT 3"]);
            assert!(
                o.status.success(),
                "{transport} caching_sha2: {}",
                stderr(&o)
            );
            assert_eq!(stdout(&o), "3\n");
        }

        let o = run(&["-unative", "-pwrong", "-e", "SELECT 1"]);
        assert!(!o.status.success());
        assert!(
            stderr(&o).contains(&format!(
                "ERROR 1045 (28000): Access denied for user 'native'@'{host}' (using password: YES)"
            )),
            "{transport}: {}",
            stderr(&o)
        );

        let o = run(&["-uroot", "-e", "SELECT bad"]);
        assert!(!o.status.success());
        assert!(
            stderr(&o)
                .contains("ERROR 1054 (42S22) at line 1: Unknown column 'bad' in 'field list'"),
            "{}",
            stderr(&o)
        );

        let o = run(&["-uroot", "-Dtest", "-e", "SELECT DATABASE()"]);
        assert_eq!(stdout(&o), "test\n", "{}", stderr(&o));
        let o = run(&["-uroot", "-Dnodb", "-e", "SELECT 1"]);
        assert!(
            stderr(&o).contains("ERROR 1049 (42000): Unknown database 'nodb'"),
            "{}",
            stderr(&o)
        );
    }

    // Statements fed on stdin (batch mode), as scripts do.
    let mut c = Command::new("mariadb");
    c.arg("--no-defaults")
        .args(["-N", "-B", "-h127.0.0.1", "-P", port.as_str(), "-uroot"]);
    c.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().expect("spawn mariadb");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(b"SELECT 5;\nINSERT;\nSELECT 6;\n")
            .expect("write stdin");
    }
    let o = child.wait_with_output().expect("wait mariadb");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "5\n6\n");

    // mariadb-admin ping/status use COM_PING and COM_STATISTICS.
    if let Ok(o) = Command::new("mariadb-admin")
        .args([
            "--no-defaults",
            "-h127.0.0.1",
            "-P",
            port.as_str(),
            "-uroot",
            "status",
        ])
        .output()
    {
        if o.status.success() || !stderr(&o).is_empty() {
            assert!(
                stdout(&o).contains("Uptime: 1"),
                "{} {}",
                stdout(&o),
                stderr(&o)
            );
        }
    }
}

const PY_SCRIPT: &str = r#"
import sys, pymysql
from pymysql.constants import CLIENT
port = int(sys.argv[1]); sock = sys.argv[2]
out = []

def connect(**kw):
    return pymysql.connect(autocommit=None, connect_timeout=20, **kw)

# native over TCP
c = connect(host="127.0.0.1", port=port, user="native", password="npw")
cur = c.cursor()
cur.execute("SELECT 1"); out.append(("native", cur.fetchall()))
cur.execute("SELECT NULL, 'x', 1.5"); out.append(("row", cur.fetchall()))
cur.execute("INSERT"); out.append(("insert", cur.rowcount, cur.lastrowid))
try:
    cur.execute("SELECT bad")
except pymysql.MySQLError as e:
    out.append(("err", e.args[0]))
c.ping()
c.select_db("test")
cur.execute("SELECT DATABASE()"); out.append(("db", cur.fetchall()))
c.close()

# caching_sha2 over TCP: full auth with the server's RSA key, then the fast path
for i in range(2):
    c = connect(host="127.0.0.1", port=port, user="sha", password="spw")
    cur = c.cursor(); cur.execute("SELECT USER()"); out.append(("sha-tcp", cur.fetchall()))
    c.close()

# caching_sha2 over the unix socket (cleartext after perform-full-authentication)
c = connect(unix_socket=sock, user="sha", password="spw")
cur = c.cursor(); cur.execute("SELECT USER()"); out.append(("sha-sock", cur.fetchall()))
c.close()

# multi statements
c = connect(host="127.0.0.1", port=port, user="root", password="", client_flag=CLIENT.MULTI_STATEMENTS)
cur = c.cursor(); cur.execute("SELECT 1; SELECT 2")
res = [cur.fetchall()]
while cur.nextset():
    res.append(cur.fetchall())
out.append(("multi", res))
c.close()

for user, pw in (("native", "bad"), ("sha", "bad")):
    try:
        connect(host="127.0.0.1", port=port, user=user, password=pw)
    except pymysql.MySQLError as e:
        out.append(("denied", user, e.args[0]))

for o in out:
    print(repr(o))
"#;

#[test]
fn pymysql_native_and_caching_sha2() {
    if !require(
        "python3 with pymysql and cryptography (pip install pymysql cryptography)",
        pymysql_available(),
    ) {
        return;
    }
    let srv = TestServer::start(20);
    let o = Command::new("python3")
        .args([
            "-c",
            PY_SCRIPT,
            &srv.port().to_string(),
            &srv.socket.to_string_lossy(),
        ])
        .output()
        .expect("run python3");
    assert!(
        o.status.success(),
        "pymysql script failed:\n{}\n{}",
        stdout(&o),
        stderr(&o)
    );
    let expect = "\
('native', ((1,),))
('row', ((None, 'x', Decimal('1.5')),))
('insert', 3, 42)
('err', 1054)
('db', (('test',),))
('sha-tcp', (('sha@127.0.0.1',),))
('sha-tcp', (('sha@127.0.0.1',),))
('sha-sock', (('sha@localhost',),))
('multi', [((1,),), ((2,),)])
('denied', 'native', 1045)
('denied', 'sha', 1045)
";
    assert_eq!(stdout(&o), expect, "stderr: {}", stderr(&o));
}
