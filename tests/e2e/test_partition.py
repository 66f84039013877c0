"""Partitioning over the wire: every partition DDL statement survives a crash injected at each
step (after the new partitions' ids are logged, after rows are copied, after the new
definition is published) — after a restart the statement is fully undone or fully done, row
counts are exact and every row sits in its partition; and iibench's partitioned purchases
table from the reference notes loads through AUTO_INCREMENT, prunes and drops a partition."""
import pymysql
import pytest

from conftest import Server

RANGE_T = ("CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v INT, KEY kv (v)) PARTITION BY RANGE (id) "
           "(PARTITION p0 VALUES LESS THAN (100), PARTITION p1 VALUES LESS THAN (200), PARTITION p2 VALUES LESS THAN (300))")
HASH_T = "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v INT, KEY kv (v)) PARTITION BY HASH (id) PARTITIONS 4"
PLAIN_T = "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v INT, KEY kv (v))"
EX_T = "CREATE TABLE u (id INT NOT NULL PRIMARY KEY, v INT, KEY kv (v))"

# name: (setup, statement, partitions before, partitions after, rows before, rows after)
CASES = {
    "add_range": (RANGE_T, "ALTER TABLE t ADD PARTITION (PARTITION p3 VALUES LESS THAN (400))",
                  ["p0", "p1", "p2"], ["p0", "p1", "p2", "p3"], 300, 300),
    "drop": (RANGE_T, "ALTER TABLE t DROP PARTITION p0", ["p0", "p1", "p2"], ["p1", "p2"], 300, 200),
    "truncate": (RANGE_T, "ALTER TABLE t TRUNCATE PARTITION p1", ["p0", "p1", "p2"], ["p0", "p1", "p2"], 300, 200),
    "reorganize": (RANGE_T, "ALTER TABLE t REORGANIZE PARTITION p1, p2 INTO "
                   "(PARTITION q1 VALUES LESS THAN (250), PARTITION q2 VALUES LESS THAN (300))",
                   ["p0", "p1", "p2"], ["p0", "q1", "q2"], 300, 300),
    "coalesce": (HASH_T, "ALTER TABLE t COALESCE PARTITION 2", ["p0", "p1", "p2", "p3"], ["p0", "p1"], 300, 300),
    "add_hash": (HASH_T, "ALTER TABLE t ADD PARTITION PARTITIONS 2",
                 ["p0", "p1", "p2", "p3"], ["p0", "p1", "p2", "p3", "p4", "p5"], 300, 300),
    "exchange": (RANGE_T, "ALTER TABLE t EXCHANGE PARTITION p0 WITH TABLE u", ["p0", "p1", "p2"], ["p0", "p1", "p2"], 300, 210),
    "partition_by": (PLAIN_T, "ALTER TABLE t PARTITION BY HASH (id) PARTITIONS 3", [None], ["p0", "p1", "p2"], 300, 300),
    "remove": (RANGE_T, "ALTER TABLE t REMOVE PARTITIONING", ["p0", "p1", "p2"], [None], 300, 300),
}
POINTS = ["partition_after_prepare", "partition_after_copy", "partition_after_publish"]


@pytest.fixture(scope="module")
def srv():
    s = Server().start()
    yield s
    s.stop()


def partitions(cur):
    cur.execute("SELECT PARTITION_NAME FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() "
                "AND TABLE_NAME = 't' ORDER BY PARTITION_ORDINAL_POSITION")
    return [r[0] for r in cur.fetchall()]


@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_partition_ddl_crash(srv, case, point):
    setup, stmt, before, after, n_before, n_after = CASES[case]
    db = f"pc_{case}_{point[len('partition_after_'):]}"
    c = srv.connect()
    cur = c.cursor()
    cur.execute(f"CREATE DATABASE {db}")
    cur.execute(f"USE {db}")
    cur.execute(setup)
    cur.execute("INSERT INTO t VALUES " + ",".join(f"({i},{i % 7})" for i in range(300)))
    if case == "exchange":
        cur.execute(EX_T)
        cur.execute("INSERT INTO u VALUES " + ",".join(f"({i},{i % 7})" for i in range(10)))
    cur.execute("SET SESSION strata_crash_point = %s", (point,))
    crashed = False
    try:
        cur.execute(stmt)
    except pymysql.err.OperationalError:
        crashed = True
    if crashed:
        assert srv.proc.wait(timeout=30) is not None, "the statement failed without the injected crash"
        srv.proc.wait(timeout=30)
        srv.start(port=srv.port)
    c = srv.connect(db=db)
    cur = c.cursor()
    # published means done; anything earlier means undone (a step the statement never reaches
    # lets it finish normally)
    done = not crashed or point == "partition_after_publish"
    assert partitions(cur) == (after if done else before)
    cur.execute("SELECT COUNT(*), COALESCE(SUM(v), 0) FROM t")
    n, _ = cur.fetchone()
    assert n == (n_after if done else n_before)
    # the secondary index agrees with the rows
    cur.execute("SELECT COUNT(*) FROM t WHERE v IN (0, 1, 2, 3, 4, 5, 6)")
    assert cur.fetchone()[0] == n
    if partitions(cur) != [None]:
        cur.execute("ALTER TABLE t CHECK PARTITION ALL")
        assert [r[3] for r in cur.fetchall()] == ["OK"]
    # still writable and routed
    cur.execute("INSERT INTO t VALUES (299, 1) ON DUPLICATE KEY UPDATE v = 1")
    cur.execute("SELECT v FROM t WHERE id = 299")
    assert cur.fetchone()[0] == 1


PURCHASES = """CREATE TABLE `purchases_index` (
  `transactionid` int(11) NOT NULL AUTO_INCREMENT,
  `dateandtime` datetime DEFAULT NULL,
  `cashregisterid` int(11) NOT NULL,
  `customerid` int(11) NOT NULL,
  `productid` int(11) NOT NULL,
  `price` float NOT NULL,
  PRIMARY KEY (`transactionid`),
  KEY `marketsegment` (`price`,`customerid`),
  KEY `registersegment` (`cashregisterid`,`price`,`customerid`),
  KEY `pdc` (`price`,`dateandtime`,`customerid`)
) ENGINE=InnoDB AUTO_INCREMENT=11073789 DEFAULT CHARSET=latin1
/*!50100 PARTITION BY RANGE (transactionid)
(PARTITION p0 VALUES LESS THAN (100000000) ENGINE = InnoDB,
 PARTITION p1 VALUES LESS THAN (200000000) ENGINE = InnoDB,
 PARTITION p2 VALUES LESS THAN (300000000) ENGINE = InnoDB,
 PARTITION p3 VALUES LESS THAN (400000000) ENGINE = InnoDB,
 PARTITION p4 VALUES LESS THAN (500000000) ENGINE = InnoDB,
 PARTITION p5 VALUES LESS THAN (600000000) ENGINE = InnoDB,
 PARTITION p6 VALUES LESS THAN (700000000) ENGINE = InnoDB,
 PARTITION p7 VALUES LESS THAN (800000000) ENGINE = InnoDB,
 PARTITION p8 VALUES LESS THAN (900000000) ENGINE = InnoDB,
 PARTITION p9 VALUES LESS THAN (1000000000) ENGINE = InnoDB,
 PARTITION p10 VALUES LESS THAN MAXVALUE ENGINE = InnoDB) */"""


def test_iibench_partitioned_purchases(srv):
    c = srv.connect()
    cur = c.cursor()
    cur.execute("CREATE DATABASE iib")
    cur.execute("USE iib")
    cur.execute(PURCHASES)
    rows = ",".join(f"(NOW(), {i % 1000}, {i % 100000}, {i % 10000}, {(i % 500) / 10})" for i in range(2000))
    for _ in range(5):
        cur.execute("INSERT INTO purchases_index (dateandtime, cashregisterid, customerid, productid, price) VALUES " + rows)
    # explicit ids land in later partitions
    cur.execute("INSERT INTO purchases_index VALUES (150000000, NOW(), 1, 2, 3, 4.5), (950000000, NOW(), 1, 2, 3, 4.5)")
    cur.execute("SELECT MIN(transactionid), COUNT(*) FROM purchases_index")
    assert cur.fetchone() == (11073789, 10002)
    cur.execute("SELECT PARTITION_NAME, TABLE_ROWS FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = 'iib' "
                "AND TABLE_NAME = 'purchases_index' AND TABLE_ROWS > 0 ORDER BY PARTITION_ORDINAL_POSITION")
    assert [r[0] for r in cur.fetchall()] == ["p0", "p1", "p9"]
    cur.execute("EXPLAIN SELECT * FROM purchases_index WHERE transactionid BETWEEN 140000000 AND 210000000")
    assert cur.fetchone()[3] == "p1,p2"
    cur.execute("EXPLAIN SELECT * FROM purchases_index WHERE transactionid = 11073800")
    assert cur.fetchone()[3] == "p0"
    cur.execute("SELECT COUNT(*) FROM purchases_index WHERE price = 4.5 AND customerid = 2")
    assert cur.fetchone()[0] >= 2
    cur.execute("ALTER TABLE purchases_index DROP PARTITION p0")
    cur.execute("SELECT COUNT(*) FROM purchases_index")
    assert cur.fetchone()[0] == 2
    cur.execute("INSERT INTO purchases_index (dateandtime, cashregisterid, customerid, productid, price) VALUES (NOW(), 1, 1, 1, 1)")
    cur.execute("SELECT MAX(transactionid) FROM purchases_index")
    assert cur.fetchone()[0] == 950000001
