"""Non-Python drivers against a real Strata server: MySQL Connector/J (Java), go-sql-driver/mysql
(Go), mysql2 (Node) and sqlx (Rust). Each driver has a small project under tests/drivers/<lang>/
whose program connects, creates tables, round-trips every common type through parameters (text and
binary protocol), runs transactions and checks error codes; it exits non-zero naming the first
mismatch. Dependencies come from Maven Central / the Go proxy / npm / crates.io on first use and are
cached afterwards (~/.m2, the Go module cache, ~/.npm, the cargo target dir)."""
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DRIVERS = os.path.join(ROOT, "tests", "drivers")
# generous: the first run downloads dependencies and compiles (sqlx in release mode takes minutes)
TIMEOUT = 1800


def need(*tools):
    """Skips when a toolchain is missing, unless STRATA_REQUIRE_CLIENTS=1 (CI), where it fails."""
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        msg = f"toolchain not installed: {', '.join(missing)}"
        if os.environ.get("STRATA_REQUIRE_CLIENTS") == "1":
            pytest.fail(msg)
        pytest.skip(msg)


def run(cmd, cwd, server, env=None, what=None):
    e = dict(os.environ, STRATA_HOST="127.0.0.1", STRATA_PORT=str(server.port))
    e.update(env or {})
    p = subprocess.run(cmd, cwd=cwd, env=e, capture_output=True, text=True, timeout=TIMEOUT)
    if p.returncode != 0:
        log = open(server.log, errors="replace").read()[-3000:]
        raise AssertionError(f"{what or cmd[0]} failed ({p.returncode})\n--- stdout\n{p.stdout[-6000:]}\n"
                             f"--- stderr\n{p.stderr[-6000:]}\n--- server log tail\n{log}")
    return p


def maven_cache_warm(project):
    """True when ~/.m2 already holds the connector and the plugins this pom uses (then -o)."""
    repo = os.path.expanduser("~/.m2/repository")
    pom = open(os.path.join(project, "pom.xml")).read()
    version = pom.split("<artifactId>mysql-connector-j</artifactId>")[1].split("<version>")[1].split("<")[0]
    return (os.path.isdir(os.path.join(repo, "com/mysql/mysql-connector-j", version))
            and os.path.isdir(os.path.join(repo, "org/codehaus/mojo/exec-maven-plugin")))


def test_connector_j(server):
    """Connector/J: client-side and server-side (useServerPrepStmts) prepared statements,
    rewriteBatchedStatements batches, DatabaseMetaData, transactions, error codes."""
    need("java", "mvn")
    project = os.path.join(DRIVERS, "java")
    cmd = ["mvn", "-B", "-q", "-Dstyle.color=never", "compile", "exec:java", f"-Dexec.args=127.0.0.1 {server.port}"]
    if maven_cache_warm(project):
        try:
            p = run(cmd[:1] + ["-o"] + cmd[1:], project, server, what="mvn -o")
        except AssertionError as e:
            # an incomplete offline cache: retry online; any other failure is real
            if "offline" not in str(e):
                raise
            p = run(cmd, project, server, what="mvn")
    else:
        p = run(cmd, project, server, what="mvn")
    assert "Connector/J checks passed" in p.stdout, p.stdout


def test_go_sql_driver(server):
    """go-sql-driver/mysql with interpolateParams=true (text) and false (binary protocol)."""
    need("go")
    p = run(["go", "run", "."], os.path.join(DRIVERS, "go"), server, env={"GOFLAGS": "-mod=readonly"})
    assert "go driver checks passed" in p.stdout, p.stdout


def test_node_mysql2(server):
    """mysql2: `query` (client-side interpolation) and prepared `execute`."""
    need("node", "npm")
    project = os.path.join(DRIVERS, "node")
    run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], project, server, what="npm ci")
    p = run(["node", "test.js"], project, server)
    assert "node driver checks passed" in p.stdout, p.stdout


def test_rust_sqlx(server):
    """sqlx (mysql, tokio): prepared statements with binds, query_as type checking, raw_sql text."""
    need("cargo")
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.expanduser("~/.cache/strata-target")
    p = run(["cargo", "run", "--release", "--locked", "--quiet"], os.path.join(DRIVERS, "rust"), server,
            env={"CARGO_TARGET_DIR": target}, what="cargo run (sqlx)")
    assert "sqlx checks passed" in p.stdout, p.stdout
