"""SQLAlchemy 2.x against a real Strata, with PyMySQL and mysqlclient (MySQLdb) as the dialect
drivers: metadata.create_all, ORM CRUD through a Session, one-to-many relationships (joined and
selectin loading), transactions, reflection through inspect() and Table(autoload_with=...),
drop_all."""
import datetime
import decimal
import os

import pytest

REQUIRE = os.environ.get("STRATA_REQUIRE_CLIENTS") == "1"
try:
    import sqlalchemy as sa
    from sqlalchemy import orm
except ImportError:
    if REQUIRE:
        raise
    pytest.skip("SQLAlchemy not installed", allow_module_level=True)


class Base(orm.DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"
    id: orm.Mapped[int] = orm.mapped_column(sa.BigInteger, primary_key=True, autoincrement=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(50), unique=True)
    fullname: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    balance: orm.Mapped[decimal.Decimal] = orm.mapped_column(sa.Numeric(12, 2), default=decimal.Decimal("0"))
    score: orm.Mapped[float | None] = orm.mapped_column(sa.Float)
    active: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=True)
    avatar: orm.Mapped[bytes | None] = orm.mapped_column(sa.LargeBinary)
    born: orm.Mapped[datetime.date | None] = orm.mapped_column(sa.Date)
    created: orm.Mapped[datetime.datetime] = orm.mapped_column(
        sa.DateTime, server_default=sa.func.current_timestamp())
    prefs: orm.Mapped[dict | None] = orm.mapped_column(sa.JSON)
    addresses: orm.Mapped[list["Address"]] = orm.relationship(
        back_populates="user", cascade="all, delete-orphan", order_by="Address.id")
    __table_args__ = (sa.Index("ix_users_born_score", "born", "score"),
                      {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"})


class Address(Base):
    __tablename__ = "addresses"
    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    user_id: orm.Mapped[int] = orm.mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"), index=True)
    email: orm.Mapped[str] = orm.mapped_column(sa.String(100))
    kind: orm.Mapped[str] = orm.mapped_column(sa.Enum("home", "work", name="kind"), default="home")
    user: orm.Mapped[User] = orm.relationship(back_populates="addresses")
    __table_args__ = (sa.UniqueConstraint("user_id", "email", name="uq_user_email"),)


DIALECTS = ["pymysql", "mysqldb"]


@pytest.fixture(params=DIALECTS)
def engine(request, server, db):
    _, name = db
    if request.param == "mysqldb":
        # found, not imported: the library is loaded only in the test's own process
        import importlib.util
        if importlib.util.find_spec("MySQLdb") is None:
            if REQUIRE:
                raise ImportError("mysqlclient (MySQLdb) is not installed")
            pytest.skip("mysqlclient not installed")
    made = []

    def make():
        made.append(sa.create_engine(
            f"mysql+{request.param}://root:@127.0.0.1:{server.port}/{name}?charset=utf8mb4",
            echo=bool(os.environ.get("STRATA_SQL_ECHO"))))
        return made[-1]
    # the engine (and so the driver's C library) is created inside the test's own process
    yield make
    for eng in made:
        eng.dispose()


@pytest.mark.own_process
def test_create_all_crud_relationships(engine):
    engine = engine()
    Base.metadata.create_all(engine)
    emoji = "Zoë 😀 \U0001F9D1\u200D\U0001F680"
    blob = bytes(range(256))
    with orm.Session(engine) as s:
        alice = User(name="alice", fullname=emoji, balance=decimal.Decimal("-12.50"), score=1.5,
                     avatar=blob, born=datetime.date(1990, 5, 17), prefs={"theme": "dark", "n": [1, 2]},
                     addresses=[Address(email="a@home.example"), Address(email="a@work.example", kind="work")])
        bob = User(name="bob", active=False)
        s.add_all([alice, bob])
        s.commit()
        assert alice.id is not None and bob.id == alice.id + 1  # AUTO_INCREMENT ids come back
        assert {a.user_id for a in alice.addresses} == {alice.id}
    with orm.Session(engine) as s:
        a = s.scalars(sa.select(User).where(User.name == "alice")).one()
        assert a.fullname == emoji and a.avatar == blob and a.balance == decimal.Decimal("-12.50")
        assert a.score == 1.5 and a.active is True and a.born == datetime.date(1990, 5, 17)
        assert a.prefs == {"theme": "dark", "n": [1, 2]}
        assert isinstance(a.created, datetime.datetime)
        assert [x.email for x in a.addresses] == ["a@home.example", "a@work.example"]  # lazy load
        b = s.get(User, a.id + 1)
        assert b.name == "bob" and b.active is False and b.avatar is None and b.prefs is None
        assert b.addresses == []
        # joined eager loading (LEFT OUTER JOIN) and selectin loading (IN (...))
        users = s.scalars(sa.select(User).options(orm.joinedload(User.addresses)).order_by(User.id)).unique().all()
        assert [(u.name, len(u.addresses)) for u in users] == [("alice", 2), ("bob", 0)]
        s.expunge_all()
        users = s.scalars(sa.select(User).options(orm.selectinload(User.addresses)).order_by(User.id)).all()
        assert [(u.name, [x.kind for x in u.addresses]) for u in users] == [("alice", ["home", "work"]), ("bob", [])]
        # join + aggregate through the ORM
        rows = s.execute(sa.select(User.name, sa.func.count(Address.id)).outerjoin(User.addresses)
                         .group_by(User.name).order_by(User.name)).all()
        assert [tuple(r) for r in rows] == [("alice", 2), ("bob", 0)]
        # update through the unit of work and a bulk UPDATE
        a = users[0]
        a.balance += decimal.Decimal("100.25")
        a.addresses[0].email = "alice@home.example"
        s.commit()
        res = s.execute(sa.update(User).where(User.active.is_(False)).values(score=2.5))
        assert res.rowcount == 1
        s.commit()
        assert s.scalar(sa.select(User.balance).where(User.name == "alice")) == decimal.Decimal("87.75")
        # rollback discards pending changes
        a = s.scalars(sa.select(User).where(User.name == "alice")).one()
        a.fullname = "changed"
        s.add(User(name="carol"))
        s.flush()
        s.rollback()
        assert s.scalar(sa.select(User.fullname).where(User.name == "alice")) == emoji
        assert s.scalar(sa.select(sa.func.count()).select_from(User)) == 2
        # a duplicate surfaces as IntegrityError with MySQL's errno
        s.add(User(name="alice"))
        with pytest.raises(sa.exc.IntegrityError) as e:
            s.commit()
        assert e.value.orig.args[0] == 1062
        s.rollback()
        # delete with cascade on the ORM side (delete-orphan)
        a = s.scalars(sa.select(User).where(User.name == "alice")).one()
        s.delete(a)
        s.commit()
        assert s.scalar(sa.select(sa.func.count()).select_from(Address)) == 0
        assert s.scalars(sa.select(User.name)).all() == ["bob"]
    Base.metadata.drop_all(engine)
    assert sa.inspect(engine).get_table_names() == []


@pytest.mark.own_process
def test_reflection(engine):
    engine = engine()
    Base.metadata.create_all(engine)
    insp = sa.inspect(engine)
    assert sorted(insp.get_table_names()) == ["addresses", "users"]
    cols = {c["name"]: c for c in insp.get_columns("users")}
    assert list(cols) == ["id", "name", "fullname", "balance", "score", "active", "avatar", "born", "created", "prefs"]
    assert isinstance(cols["id"]["type"], sa.BIGINT) and cols["id"]["autoincrement"] is True
    assert cols["id"]["nullable"] is False
    assert isinstance(cols["name"]["type"], sa.VARCHAR) and cols["name"]["type"].length == 50
    assert isinstance(cols["fullname"]["type"], sa.TEXT)
    assert isinstance(cols["balance"]["type"], sa.Numeric)
    assert (cols["balance"]["type"].precision, cols["balance"]["type"].scale) == (12, 2)
    assert isinstance(cols["score"]["type"], sa.FLOAT)
    assert isinstance(cols["active"]["type"], sa.dialects.mysql.TINYINT)
    assert isinstance(cols["avatar"]["type"], sa.BLOB)
    assert isinstance(cols["born"]["type"], sa.DATE) and isinstance(cols["created"]["type"], sa.DATETIME)
    assert "current_timestamp" in str(cols["created"]["default"]).lower()
    assert isinstance(cols["prefs"]["type"], sa.JSON)
    assert cols["fullname"]["nullable"] is True
    acols = {c["name"]: c for c in insp.get_columns("addresses")}
    assert isinstance(acols["kind"]["type"], sa.Enum) and list(acols["kind"]["type"].enums) == ["home", "work"]
    assert insp.get_pk_constraint("users")["constrained_columns"] == ["id"]
    assert insp.get_pk_constraint("addresses")["constrained_columns"] == ["id"]
    idx = {i["name"]: i for i in insp.get_indexes("users")}
    assert idx["ix_users_born_score"]["column_names"] == ["born", "score"]
    assert idx["ix_users_born_score"]["unique"] is False
    assert idx["name"]["unique"] is True and idx["name"]["column_names"] == ["name"]
    uq = {u["name"]: u["column_names"] for u in insp.get_unique_constraints("addresses")}
    assert uq == {"uq_user_email": ["user_id", "email"]}
    aidx = {i["name"]: i["column_names"] for i in insp.get_indexes("addresses")}
    assert aidx["ix_addresses_user_id"] == ["user_id"]
    fks = insp.get_foreign_keys("addresses")
    assert len(fks) == 1
    fk = fks[0]
    assert fk["constrained_columns"] == ["user_id"] and fk["referred_table"] == "users"
    assert fk["referred_columns"] == ["id"] and fk["options"].get("ondelete") == "CASCADE"
    assert insp.get_foreign_keys("users") == []
    # Table(..., autoload_with=engine) builds a usable table from the reflected definition
    md = sa.MetaData()
    users = sa.Table("users", md, autoload_with=engine)
    addresses = sa.Table("addresses", md, autoload_with=engine)
    assert [c.name for c in users.primary_key] == ["id"]
    assert {(fk.parent.name, fk.column.table.name, fk.column.name) for fk in addresses.foreign_keys} == {
        ("user_id", "users", "id")}
    with engine.begin() as conn:
        uid = conn.execute(users.insert().values(name="reflected", balance=decimal.Decimal("1.10"), active=True,
                                                 prefs='{"a": 1}')).inserted_primary_key[0]
        conn.execute(addresses.insert(), [{"user_id": uid, "email": f"r{i}@example.com", "kind": "work"} for i in range(3)])
    with engine.connect() as conn:
        j = users.join(addresses, users.c.id == addresses.c.user_id)
        rows = conn.execute(sa.select(users.c.name, sa.func.count()).select_from(j).group_by(users.c.name)).all()
        assert [tuple(r) for r in rows] == [("reflected", 3)]
    # reflecting the whole schema at once
    md2 = sa.MetaData()
    md2.reflect(bind=engine)
    assert sorted(md2.tables) == ["addresses", "users"]
    Base.metadata.drop_all(engine)
    assert sa.inspect(engine).get_table_names() == []


@pytest.mark.own_process
def test_core_types_and_transactions(engine):
    engine = engine()
    md = sa.MetaData()
    t = sa.Table("core_t", md,
                 sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
                 sa.Column("big", sa.dialects.mysql.BIGINT(unsigned=True)),
                 sa.Column("ts", sa.dialects.mysql.DATETIME(fsp=6)),
                 sa.Column("tm", sa.Time),
                 sa.Column("vb", sa.dialects.mysql.VARBINARY(16)),
                 sa.Column("s", sa.Unicode(20)))
    md.create_all(engine)
    row = dict(id=1, big=18446744073709551615, ts=datetime.datetime(2024, 2, 29, 12, 0, 0, 123456),
               tm=datetime.time(23, 59, 58), vb=b"\x00\xff\x00", s="日本語😀")
    with engine.connect() as conn:
        conn.execute(t.insert(), row)
        conn.rollback()  # SQLAlchemy 2.x connections begin implicitly
        assert conn.execute(sa.select(sa.func.count()).select_from(t)).scalar() == 0
        conn.execute(t.insert(), [row, {k: None for k in row} | {"id": 2}, dict(row, id=3, vb=b"")])
        conn.commit()
    with engine.connect() as conn:
        got = conn.execute(sa.select(t).where(t.c.id == 1)).mappings().one()
        assert dict(got) == dict(row, tm=datetime.timedelta(hours=23, minutes=59, seconds=58)) or dict(got) == row
        assert conn.execute(sa.select(t.c.id).where(t.c.vb == b"\x00\xff\x00")).scalars().all() == [1]
        assert conn.execute(sa.select(t.c.id).where(t.c.s.is_(None))).scalars().all() == [2]
        with pytest.raises(sa.exc.ProgrammingError) as e:
            conn.execute(sa.text("SELECT * FROM no_such_table"))
        assert e.value.orig.args[0] == 1146
    md.drop_all(engine)
