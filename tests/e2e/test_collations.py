"""Language collations over the wire (issue 42): Django's generated column with
utf8mb4_esperanto_ci (1273 before), tailored ORDER BY results, unique keys under
utf8mb4_swedish_ci / latin1_general_cs, the collation id in the column metadata, and 1273 for
a name Strata does not implement."""
import pymysql
import pytest


def rows(c, sql, args=None):
    cur = c.cursor()
    cur.execute(sql, args)
    return [tuple(r) for r in cur.fetchall()]


def test_django_esperanto_generated_column(db):
    c, _ = db
    cur = c.cursor()
    cur.execute(
        "CREATE TABLE model_fields_generatedmodel (id INT AUTO_INCREMENT PRIMARY KEY, "
        "name VARCHAR(10) NOT NULL, lower_name varchar(11) COLLATE utf8mb4_esperanto_ci "
        "GENERATED ALWAYS AS (LOWER(name)) STORED)")
    cur.executemany("INSERT INTO model_fields_generatedmodel (name) VALUES (%s)",
                    [("ĈIO",), ("Dio",), ("Cio",), ("Ĝis",), ("Gis",)])
    assert rows(c, "SELECT lower_name FROM model_fields_generatedmodel ORDER BY lower_name") == [
        ("cio",), ("ĉio",), ("dio",), ("gis",), ("ĝis",)]
    cur.execute("SELECT lower_name FROM model_fields_generatedmodel LIMIT 1")
    assert cur.description[0][0] == "lower_name"
    create = rows(c, "SHOW CREATE TABLE model_fields_generatedmodel")[0][1]
    assert "COLLATE utf8mb4_esperanto_ci" in create, create


def test_swedish_order_and_unique(db):
    c, _ = db
    cur = c.cursor()
    cur.execute("CREATE TABLE t (w VARCHAR(10) COLLATE utf8mb4_swedish_ci, UNIQUE KEY (w))")
    cur.executemany("INSERT INTO t VALUES (%s)", [("ö",), ("a",), ("ä",), ("z",), ("å",)])
    assert [r[0] for r in rows(c, "SELECT w FROM t ORDER BY w")] == ["a", "z", "å", "ä", "ö"]
    with pytest.raises(pymysql.err.IntegrityError) as e:
        cur.execute("INSERT INTO t VALUES ('Å')")
    assert e.value.args[0] == 1062
    assert rows(c, "SELECT COUNT(*) FROM t WHERE w = 'A '") == [(1,)]
    # expression COLLATE reorders a default-collation column
    cur.execute("CREATE TABLE d (w VARCHAR(10))")
    cur.executemany("INSERT INTO d VALUES (%s)", [("ö",), ("o",), ("p",)])
    assert [r[0] for r in rows(c, "SELECT w FROM d ORDER BY w COLLATE utf8mb4_swedish_ci")] == [
        "o", "p", "ö"]
    # (under the default utf8mb4_0900_ai_ci ö = o, so only p's place is fixed)
    assert [r[0] for r in rows(c, "SELECT w FROM d ORDER BY w")][2] == "p"


def test_latin1_general_cs_and_metadata(db):
    c, _ = db
    cur = c.cursor()
    cur.execute("CREATE TABLE t (w VARCHAR(10) CHARACTER SET latin1 COLLATE latin1_general_cs, "
                "UNIQUE KEY (w))")
    cur.executemany("INSERT INTO t VALUES (%s)", [("abc",), ("ABC",)])
    assert rows(c, "SELECT COUNT(*) FROM t WHERE w = 'Abc'") == [(0,)]
    assert [r[0] for r in rows(c, "SELECT w FROM t ORDER BY w")] == ["ABC", "abc"]
    with pytest.raises(pymysql.err.IntegrityError):
        cur.execute("INSERT INTO t VALUES ('abc ')")  # PAD SPACE
    # a utf8mb4 column's definition carries its own collation id (MySQL does the same when
    # the column's character set is the result character set)
    cur.execute("CREATE TABLE s (w VARCHAR(10) COLLATE utf8mb4_swedish_ci)")
    cur.execute("SELECT w FROM s")
    assert cur._result.fields[0].charsetnr == 232


def test_unknown_collation_is_1273(db):
    c, _ = db
    with pytest.raises(pymysql.err.OperationalError) as e:
        c.cursor().execute("CREATE TABLE t (w VARCHAR(10) COLLATE utf8mb4_hu_0900_ai_ci)")
    assert e.value.args[0] == 1273
    names = [r[0] for r in rows(c, "SHOW COLLATION LIKE 'utf8mb4_%swedish%'")]
    assert names == ["utf8mb4_swedish_ci"]
