"""Status counters over a real server: SHOW GLOBAL / SESSION STATUS and performance_schema's
global_status / session_status list the counters MySQL 8.4 has (every Com_* even at 0), they
move under load, FLUSH STATUS resets the session's, and the operator tools that read them work:
Percona Toolkit's pt-mysql-summary and, where installed, Debian's prometheus-mysqld-exporter."""
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request

import pytest

from conftest import Server, free_port


@pytest.fixture(scope="module")
def srv():
    s = Server().start()
    yield s
    s.stop()


def status(c, scope="GLOBAL"):
    cur = c.cursor()
    cur.execute(f"SHOW {scope} STATUS")
    return {k: v for k, v in cur.fetchall()}


def num(st, name):
    return int(st[name])


# what dashboards and tools read (mysqld_exporter's "MySQL overview", pt-mysql-summary, PMM)
EXPECTED = [
    "Aborted_clients", "Aborted_connects", "Bytes_received", "Bytes_sent", "Com_begin",
    "Com_change_db", "Com_commit", "Com_create_table", "Com_delete", "Com_drop_table",
    "Com_insert", "Com_insert_select", "Com_replace", "Com_rollback", "Com_select",
    "Com_set_option", "Com_show_status", "Com_show_variables", "Com_stmt_close",
    "Com_stmt_execute", "Com_stmt_prepare", "Com_update", "Connections", "Created_tmp_disk_tables",
    "Created_tmp_files", "Created_tmp_tables", "Handler_commit", "Handler_delete",
    "Handler_read_first", "Handler_read_key", "Handler_read_next", "Handler_read_rnd_next",
    "Handler_rollback", "Handler_update", "Handler_write", "Innodb_buffer_pool_pages_data",
    "Innodb_buffer_pool_pages_free", "Innodb_buffer_pool_pages_total",
    "Innodb_buffer_pool_read_requests", "Innodb_buffer_pool_reads", "Innodb_page_size",
    "Innodb_rows_deleted", "Innodb_rows_inserted", "Innodb_rows_read", "Innodb_rows_updated",
    "Key_reads", "Max_used_connections", "Open_tables", "Opened_tables", "Prepared_stmt_count",
    "Queries", "Questions", "Rocksdb_block_cache_hit", "Rocksdb_block_cache_miss",
    "Rocksdb_bloom_filter_useful", "Rocksdb_compaction_pending", "Rocksdb_stall_micros",
    "Select_full_join", "Select_range", "Select_scan", "Slow_queries", "Sort_merge_passes",
    "Sort_range", "Sort_rows", "Sort_scan", "Strata_row_cache_hits", "Strata_row_cache_misses",
    "Table_open_cache_hits", "Table_open_cache_misses", "Table_open_cache_overflows",
    "Threads_cached", "Threads_connected", "Threads_created", "Threads_running", "Uptime",
    "Uptime_since_flush_status",
]


def test_counters_listed(srv):
    c = srv.connect()
    st = status(c)
    missing = [n for n in EXPECTED if n not in st]
    assert not missing, missing
    coms = [n for n in st if n.startswith("Com_")]
    assert len(coms) > 150, len(coms)
    # every value is a number (tools do arithmetic on them) except the few text ones
    text = {"Ssl_cipher", "Ssl_version", "Ssl_server_not_before", "Ssl_server_not_after"}
    bad = [k for k, v in st.items() if k not in text and not v.lstrip("-").isdigit()]
    assert not bad, bad
    # the same rows through performance_schema (information_schema's are gone in 8.4)
    cur = c.cursor()
    cur.execute("SELECT VARIABLE_VALUE FROM performance_schema.global_status "
                "WHERE VARIABLE_NAME = 'Com_select'")
    assert int(cur.fetchall()[0][0]) >= 0
    cur.execute("SELECT COUNT(*) FROM performance_schema.session_status "
                "WHERE VARIABLE_NAME LIKE 'Com\\_%'")
    assert cur.fetchall()[0][0] == len(coms)
    c.close()


def test_counters_move_under_load(srv):
    watch = srv.connect()
    before = status(watch)
    conns = [srv.connect() for _ in range(4)]
    cur = conns[0].cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS st_load")
    cur.execute("CREATE TABLE st_load.t (id INT PRIMARY KEY, v INT, s VARCHAR(100))")
    for i, c in enumerate(conns):
        k = c.cursor()
        k.execute("USE st_load")
        for j in range(50):
            n = i * 1000 + j
            k.execute("INSERT INTO t VALUES (%s, %s, %s)", (n, j, "x" * 50))
            k.execute("SELECT v, s FROM t WHERE id = %s", (n,))
            k.fetchall()
        k.execute("UPDATE t SET v = v + 1 WHERE id < %s", (i * 1000 + 10,))
        k.execute("SELECT COUNT(*) FROM t")
        k.fetchall()
        k.execute("BEGIN")
        k.execute("DELETE FROM t WHERE id = %s", (i * 1000,))
        k.execute("COMMIT")
    for c in conns:
        c.close()
    # a client that goes away without COM_QUIT counts in Aborted_clients
    gone = srv.connect()
    gone.cursor().execute("SELECT 1")
    gone._sock.shutdown(socket.SHUT_RDWR)
    gone._sock.close()
    deadline = time.time() + 10
    while num(status(watch), "Aborted_clients") == num(before, "Aborted_clients"):
        assert time.time() < deadline, "Aborted_clients did not move"
        time.sleep(0.1)
    after = status(watch)
    grew = lambda name, by=1: num(after, name) - num(before, name) >= by  # noqa: E731
    for name, by in [("Com_select", 204), ("Com_insert", 200), ("Com_update", 4),
                     ("Com_delete", 4), ("Com_begin", 4), ("Com_commit", 4),
                     ("Com_change_db", 4), ("Com_create_table", 1), ("Questions", 400),
                     ("Queries", 400), ("Bytes_received", 10000), ("Bytes_sent", 10000),
                     ("Connections", 5), ("Handler_write", 200), ("Innodb_rows_inserted", 200),
                     ("Innodb_rows_deleted", 4), ("Innodb_rows_updated", 4),
                     ("Innodb_rows_read", 200), ("Handler_read_key", 200), ("Select_scan", 1),
                     ("Handler_commit", 200), ("Aborted_clients", 1)]:
        assert grew(name, by), (name, before[name], after[name])
    assert num(after, "Max_used_connections") >= 5
    assert num(after, "Threads_connected") >= 1
    assert num(after, "Uptime") >= num(before, "Uptime")
    assert num(after, "Innodb_buffer_pool_pages_total") > 0
    assert num(after, "Innodb_buffer_pool_read_requests") >= num(before, "Innodb_buffer_pool_read_requests")
    watch.cursor().execute("DROP DATABASE st_load")
    watch.close()


def test_session_values_and_flush_status(srv):
    c = srv.connect()
    other = srv.connect()
    other.cursor().execute("SELECT 1")
    cur = c.cursor()
    cur.execute("FLUSH STATUS")
    s0 = status(c, "SESSION")
    assert num(s0, "Com_select") == 0
    for _ in range(3):
        cur.execute("SELECT 1")
        cur.fetchall()
    s1 = status(c, "SESSION")
    # the session's own: another connection's SELECT is not here
    assert num(s1, "Com_select") == 3
    assert num(s1, "Com_show_status") == 2
    assert num(s1, "Bytes_sent") > num(s0, "Bytes_sent")
    assert num(s1, "Bytes_received") > num(s0, "Bytes_received")
    g = status(c)
    assert num(g, "Com_select") >= 4
    cur.execute("FLUSH STATUS")
    s2 = status(c, "SESSION")
    assert num(s2, "Com_select") == 0
    assert num(s2, "Uptime_since_flush_status") <= 1
    assert num(status(c), "Com_select") >= 4, "FLUSH STATUS keeps the global sums"
    other.close()
    c.close()


def test_pt_mysql_summary(srv):
    tool = shutil.which("pt-mysql-summary")
    if not tool:
        pytest.skip("percona-toolkit is not installed (./x installs it)")
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run(
            [tool, "--sleep", "1", "--save-samples", tmp, "--",
             "-h127.0.0.1", f"-P{srv.port}", "-uroot", "--skip-ssl"],
            capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert "Status Counters (Wait 1 Seconds)" in p.stdout, p.stdout[-3000:]
    section = p.stdout.split("Status Counters (Wait 1 Seconds)", 1)[1]
    assert "Com_select" in section and "Bytes_sent" in section, section[:3000]
    assert "syntax error" not in p.stderr, p.stderr[-2000:]


def wait_http(url, deadline):
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return r.read().decode()
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"no answer from {url}")


def test_prometheus_mysqld_exporter(srv):
    tool = shutil.which("prometheus-mysqld-exporter")
    if not tool:
        pytest.skip("prometheus-mysqld-exporter is not installed (./x installs it)")
    port = free_port()
    # (0.14 refuses a my.cnf without a password: the DSN comes from the environment)
    env = dict(os.environ, DATA_SOURCE_NAME=f"root:@(127.0.0.1:{srv.port})/")
    proc = subprocess.Popen([tool, f"--web.listen-address=127.0.0.1:{port}"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{port}/metrics"
        first = wait_http(url, time.time() + 30)
        c = srv.connect()
        for _ in range(20):
            c.cursor().execute("SELECT 1")
        c.close()
        second = wait_http(url, time.time() + 30)
    finally:
        proc.terminate()
        errors = proc.communicate(timeout=10)[1]
    for text in (first, second):
        assert "mysql_up 1" in text
        assert "mysql_exporter_last_scrape_error 0" in text, errors[-3000:]
    series = [line for line in second.splitlines() if line.startswith("mysql_global_status_")]
    # before the counters were added the exporter found 39 of these
    assert len(series) > 200, len(series)

    def value(text, prefix):
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                   if line.startswith(prefix))
    cmd = 'mysql_global_status_commands_total{command="select"}'
    assert value(second, cmd) > value(first, cmd)
    assert value(second, "mysql_global_status_bytes_sent") > value(first, "mysql_global_status_bytes_sent")
