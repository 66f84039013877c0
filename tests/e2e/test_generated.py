"""Generated columns over the wire (issue 42): the usual way to index JSON through PyMySQL and
mysql-connector (values computed on write, the index used for reads, 3105 for a given value),
kept across a restart and a SIGKILL, and a `mariadb-dump` of such a table loading back into a
fresh Strata with the same rows and definition. mariadb-dump writes the generated columns'
values in its INSERTs (MariaDB ignores them with a warning; MySQL 8.4, and so Strata, refuses
them with 3105, as MySQL's own mysqldump leaves them out): `--insert-ignore` turns them into
warnings."""
import subprocess

import mysql.connector
import pymysql
import pytest

from conftest import Server


def rows(c, sql, args=None):
    cur = c.cursor()
    cur.execute(sql, args)
    return [tuple(r) for r in cur.fetchall()]


DDL = """CREATE TABLE people (
  id INT PRIMARY KEY,
  doc JSON,
  name VARCHAR(40) GENERATED ALWAYS AS (doc->>'$.name') VIRTUAL,
  age INT AS (doc->'$.age') STORED,
  KEY k_name (name),
  KEY k_age (age)
)"""


def test_json_index_through_drivers(server, db):
    c, name = db
    cur = c.cursor()
    cur.execute(DDL)
    docs = [(i, f'{{"name": "p{i}", "age": {20 + i % 50}}}') for i in range(1, 501)]
    cur.executemany("INSERT INTO people (id, doc) VALUES (%s, %s)", docs)
    c.commit()
    assert rows(c, "SELECT id, age FROM people WHERE name = 'p42'") == [(42, 62)]
    plan = rows(c, "EXPLAIN SELECT id FROM people WHERE name = 'p42'")
    assert plan[0][6] == "k_name", plan  # the index on the generated column is chosen
    assert rows(c, "SELECT COUNT(*) FROM people WHERE age = 21") == [(10,)]
    with pytest.raises(pymysql.err.OperationalError) as e:
        cur.execute("INSERT INTO people (id, doc, name) VALUES (1000, '{}', 'x')")
    assert e.value.args[0] == 3105
    # binary protocol (server-side prepared statements)
    m = mysql.connector.connect(host="127.0.0.1", port=server.port, user="root", database=name)
    try:
        mc = m.cursor(prepared=True)
        mc.execute("UPDATE people SET doc = JSON_SET(doc, '$.name', ?) WHERE id = ?", ("renamed", 7))
        m.commit()
        mc.execute("SELECT id, name, age FROM people WHERE name = ?", ("renamed",))
        assert [tuple(r) for r in mc.fetchall()] == [(7, "renamed", 27)]
        # the prepared cursor reports server errors without their number: check the text
        with pytest.raises(mysql.connector.Error, match="generated column 'age'"):
            mc.execute("UPDATE people SET age = ? WHERE id = ?", (1, 7))
    finally:
        m.close()


def test_kept_across_restart_and_kill():
    s = Server().start()
    try:
        c = s.connect()
        cur = c.cursor()
        cur.execute("CREATE DATABASE g")
        cur.execute("USE g")
        cur.execute(DDL)
        cur.execute("""INSERT INTO people (id, doc) VALUES (1, '{"name": "ann", "age": 30}')""")
        c.commit()
        s.stop()
        s.start()
        c = s.connect()
        assert rows(c, "SELECT id, name, age FROM g.people WHERE name = 'ann'") == [(1, "ann", 30)]
        c.cursor().execute("""INSERT INTO g.people (id, doc) VALUES (2, '{"name": "bo", "age": 5}')""")
        c.commit()
        s.kill()
        s.start()
        c = s.connect()
        assert rows(c, "SELECT id, name, age FROM g.people ORDER BY id") == [(1, "ann", 30), (2, "bo", 5)]
        create = rows(c, "SHOW CREATE TABLE g.people")[0][1]
        assert "`name` varchar(40) GENERATED ALWAYS AS (json_unquote(json_extract(`doc`,_utf8mb4'$.name'))) VIRTUAL" in create, create
    finally:
        s.stop()


def test_dump_round_trip(server, db):
    c, name = db
    cur = c.cursor()
    cur.execute(DDL)
    cur.execute("""INSERT INTO people (id, doc) VALUES (1, '{"name": "ann", "age": 30}'),
                   (2, '{"name": "bo"}')""")
    c.commit()
    before = rows(c, "SELECT * FROM people ORDER BY id")
    create = rows(c, "SHOW CREATE TABLE people")[0][1]
    def dump(*opts):
        d = subprocess.run(["mariadb-dump", "-h127.0.0.1", f"-P{server.port}", "-uroot", "--skip-ssl",
                            *opts, name], capture_output=True, timeout=120)
        assert d.returncode == 0, d.stderr.decode()
        return d.stdout

    fresh = Server().start()
    try:
        def load(sql):
            return subprocess.run(["mariadb", "-h127.0.0.1", f"-P{fresh.port}", "-uroot", "--skip-ssl", name],
                                  input=sql, capture_output=True, timeout=120)

        fresh.connect().cursor().execute(f"CREATE DATABASE {name}")
        plain = load(dump())
        assert plain.returncode != 0 and b"ERROR 3105" in plain.stderr, plain.stderr
        ok = load(dump("--insert-ignore"))
        assert ok.returncode == 0, ok.stderr.decode()
        f = fresh.connect(db=name)
        assert rows(f, "SELECT * FROM people ORDER BY id") == before
        assert rows(f, "SHOW CREATE TABLE people")[0][1] == create
    finally:
        fresh.stop()
