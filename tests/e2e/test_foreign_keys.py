"""FOREIGN KEY constraints over the wire (issue 42): 1452 / 1451 through the driver, cascades
inside the statement's transaction (seen by another session only after COMMIT, undone by
ROLLBACK), the shared lock a child insert keeps on its parent row, and foreign_key_checks=0
for a bulk LOAD DATA followed by checks on again."""
import pymysql
import pytest


def rows(c, sql, args=None):
    cur = c.cursor()
    cur.execute(sql, args)
    return [tuple(r) for r in cur.fetchall()]


def setup_tables(c):
    cur = c.cursor()
    cur.execute("CREATE TABLE p (id INT PRIMARY KEY, name VARCHAR(20))")
    cur.execute(
        "CREATE TABLE ch (id INT PRIMARY KEY, pid INT,"
        " CONSTRAINT ch_p FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE ON UPDATE CASCADE)")
    cur.execute("INSERT INTO p VALUES (1, 'a'), (2, 'b')")
    cur.execute("INSERT INTO ch VALUES (10, 1), (11, 1), (20, 2)")


def test_errors_through_the_driver(server, db):
    c, name = db
    setup_tables(c)
    cur = c.cursor()
    with pytest.raises(pymysql.err.IntegrityError) as e:
        cur.execute("INSERT INTO ch VALUES (30, 3)")
    assert e.value.args == (
        1452,
        "Cannot add or update a child row: a foreign key constraint fails "
        f"(`{name}`.`ch`, CONSTRAINT `ch_p` FOREIGN KEY (`pid`) REFERENCES `p` (`id`) "
        "ON DELETE CASCADE ON UPDATE CASCADE)",
    )
    cur.execute("CREATE TABLE r (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id))")
    cur.execute("INSERT INTO r VALUES (1, 2)")
    with pytest.raises(pymysql.err.IntegrityError) as e:
        cur.execute("DELETE FROM p WHERE id = 2")
    assert e.value.args[0] == 1451
    assert e.value.args[1].startswith(
        f"Cannot delete or update a parent row: a foreign key constraint fails (`{name}`.`r`, "
        "CONSTRAINT `r_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `p` (`id`))")
    # the failed DELETE left the cascade to `ch` undone too
    assert rows(c, "SELECT id, pid FROM ch ORDER BY id") == [(10, 1), (11, 1), (20, 2)]


def test_cascade_visible_after_commit_and_undone_by_rollback(server, db):
    c, name = db
    setup_tables(c)
    a = server.connect(db=name, autocommit=False)
    b = server.connect(db=name)
    try:
        ca = a.cursor()
        ca.execute("DELETE FROM p WHERE id = 1")
        assert rows(a, "SELECT id FROM ch ORDER BY id") == [(20,)]
        # not committed: the other session still sees the children
        assert rows(b, "SELECT id FROM ch ORDER BY id") == [(10,), (11,), (20,)]
        a.commit()
        assert rows(b, "SELECT id FROM ch ORDER BY id") == [(20,)]
        ca.execute("UPDATE p SET id = 200 WHERE id = 2")
        assert rows(a, "SELECT id, pid FROM ch") == [(20, 200)]
        a.rollback()
        assert rows(a, "SELECT id, pid FROM ch") == [(20, 2)]
        assert rows(b, "SELECT id, pid FROM ch") == [(20, 2)]
        assert rows(b, "SELECT id FROM p") == [(2,)]
    finally:
        a.close()
        b.close()


def test_child_insert_locks_its_parent(server, db):
    c, name = db
    setup_tables(c)
    a = server.connect(db=name, autocommit=False)
    b = server.connect(db=name)
    try:
        a.cursor().execute("INSERT INTO ch VALUES (12, 2)")
        cb = b.cursor()
        cb.execute("SET SESSION innodb_lock_wait_timeout = 1")
        # the parent row is share-locked by `a` until it ends: deleting it waits, then times out
        with pytest.raises(pymysql.err.OperationalError) as e:
            cb.execute("DELETE FROM p WHERE id = 2")
        assert e.value.args[0] == 1205
        a.commit()
        cb.execute("DELETE FROM p WHERE id = 2")
        assert rows(b, "SELECT id FROM ch ORDER BY id") == [(10,), (11,)]
    finally:
        a.close()
        b.close()


def test_checks_off_for_a_load_then_on(server, db, tmp_path):
    c, name = db
    setup_tables(c)
    c.cursor().execute("SET GLOBAL local_infile = ON")
    f = tmp_path / "ch.tsv"
    f.write_bytes(b"30\t3\n31\t1\n")
    lc = server.connect(db=name, local_infile=True)
    try:
        cur = lc.cursor()
        cur.execute("SET foreign_key_checks = 0")
        assert cur.execute(f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE ch") == 2
        # with checks off, deleting a parent does not cascade either
        cur.execute("DELETE FROM p WHERE id = 2")
        assert rows(lc, "SELECT id, pid FROM ch ORDER BY id") == [
            (10, 1), (11, 1), (20, 2), (30, 3), (31, 1)]
        cur.execute("SET foreign_key_checks = 1")
        with pytest.raises(pymysql.err.IntegrityError) as e:
            cur.execute("INSERT INTO ch VALUES (32, 3)")
        assert e.value.args[0] == 1452
        # LOCAL implies IGNORE: the row without a parent is skipped with a warning
        f.write_bytes(b"40\t3\n41\t1\n")
        assert cur.execute(f"LOAD DATA LOCAL INFILE '{f}' INTO TABLE ch") == 1
        assert [w[1] for w in rows(lc, "SHOW WARNINGS")] == [1452]
        cur.execute("DELETE FROM p WHERE id = 1")
        # the cascade is back: every child of 1 went, the orphans stay
        assert rows(lc, "SELECT id, pid FROM ch ORDER BY id") == [(20, 2), (30, 3)]
    finally:
        lc.close()
