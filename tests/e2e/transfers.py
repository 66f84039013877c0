"""Concurrent transfers between the rows of an account table, for the cache tests: writers
move amounts between two accounts per transaction while readers check what every snapshot sees.
"""
import random
import threading


def run_transfers(server, db, accounts, per_writer, reader, readers, writers=4, read_first=False):
    """Creates `acct` with `accounts` rows of 1000, runs `writers` connections of `per_writer`
    transfers each and the `reader(cursor, commit, total, rng_seed_or_arg)` loops given by
    `readers` (one thread per argument) until the writers are done. Asserts that no thread
    failed and that no transfer was lost; returns a cursor of `db`'s first connection."""
    a, name = db
    cur = a.cursor()
    opening = 1000
    cur.execute("CREATE TABLE acct (id INT PRIMARY KEY, bal INT NOT NULL, moves INT NOT NULL)")
    cur.execute("INSERT INTO acct VALUES " + ",".join(
        f"({i}, {opening}, 0)" for i in range(1, accounts + 1)))
    total = accounts * opening
    stop = threading.Event()
    errors, done = [], []

    def writer(seed):
        rng = random.Random(seed)
        c = server.connect(name, autocommit=False)
        w = c.cursor()
        n = 0
        try:
            for _ in range(per_writer):
                x, y = sorted(rng.sample(range(1, accounts + 1), 2))
                amt = rng.randint(1, 9)
                if read_first:
                    w.execute("SELECT bal FROM acct WHERE id = %s", (x,))
                w.execute("UPDATE acct SET bal = bal - %s, moves = moves + 1 WHERE id = %s", (amt, x))
                w.execute("UPDATE acct SET bal = bal + %s, moves = moves + 1 WHERE id = %s", (amt, y))
                c.commit()
                n += 1
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
        finally:
            done.append(n)
            c.close()

    def read_loop(arg):
        c = server.connect(name, autocommit=False)
        r = c.cursor()
        try:
            while not stop.is_set():
                reader(r, total, arg)
                c.commit()
        except Exception as e:  # noqa: BLE001
            errors.append(e)
        finally:
            c.close()

    ws = [threading.Thread(target=writer, args=(s,)) for s in range(writers)]
    rs = [threading.Thread(target=read_loop, args=(arg,)) for arg in readers]
    for t in ws + rs:
        t.start()
    for t in ws:
        t.join(300)
    stop.set()
    for t in rs:
        t.join(60)
    assert not errors, errors
    cur.execute("SELECT SUM(bal), SUM(moves) FROM acct WHERE id BETWEEN 1 AND %s", (accounts,))
    bal, moves = cur.fetchall()[0]
    assert (int(bal), int(moves)) == (total, 2 * sum(done))
    return cur
