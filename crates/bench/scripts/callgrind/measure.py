#!/usr/bin/env python3
# Instructions per statement in the server (callgrind, all threads), for comparing two builds:
#   python measure.py select NAME STRATA_BINARY PORT   -> Ir per prepared (binary) and text point select
#   python measure.py insert NAME STRATA_BINARY PORT   -> Ir per 100-row iibench-style INSERT
# Needs valgrind, PyMySQL and mysql-connector (the e2e venv). Background RocksDB work (flushes,
# compactions) is counted too: repeat a pair before trusting a difference of a few percent.
import subprocess, sys, time, os, glob, pymysql, mysql.connector, socket
mode, which, binp, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
d = f"/tmp/cgdata-{which}"; subprocess.run(["rm", "-rf", d])
out = f"/tmp/cg-{which}"
subprocess.run(f"rm -f {out}*", shell=True)
p = subprocess.Popen(["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
                      binp, "serve", "--port", str(port), "--datadir", d, "--innodb-flush-log-at-trx-commit", "2"],
                     stdout=open(f"/tmp/cg-{which}.log", "w"), stderr=subprocess.STDOUT)
for _ in range(600):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close(); break
    except OSError:
        time.sleep(0.5)
c = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", autocommit=True)
cur = c.cursor()
cur.execute("CREATE DATABASE cg"); cur.execute("USE cg")
cur.execute("CREATE TABLE t (id INT PRIMARY KEY, k INT, c CHAR(120), pad CHAR(60))")
cur.execute("INSERT INTO t VALUES " + ",".join(f"({i},{i},'{'x'*100}','{'y'*50}')" for i in range(1000)))
m = mysql.connector.connect(host="127.0.0.1", port=port, user="root", password="", database="cg", use_pure=True)
pc = m.cursor(prepared=True)
N = 2000
for i in range(50):  # warm up
    pc.execute("SELECT c FROM t WHERE id = ?", (i,)); pc.fetchall()
    cur.execute(f"SELECT c FROM t WHERE id = {i}"); cur.fetchall()
ctl = lambda *a: subprocess.run(["callgrind_control", *a, str(p.pid)], capture_output=True)
if mode == "select":
    per = N
    ctl("-i", "on")
    for i in range(N):
        pc.execute("SELECT c FROM t WHERE id = ?", (i % 1000,)); pc.fetchall()
    ctl("-d", "binary")
    for i in range(N):
        cur.execute(f"SELECT c FROM t WHERE id = {i % 1000}"); cur.fetchall()
    ctl("-d", "text")
else:
    import random
    rnd = random.Random(7)
    cur.execute("CREATE TABLE pur (id BIGINT AUTO_INCREMENT PRIMARY KEY, dateandtime DATETIME, cashregisterid INT, customerid INT, productid INT, price FLOAT, KEY k1 (price, customerid), KEY k2 (cashregisterid, price, customerid), KEY k3 (price, dateandtime, customerid))")
    stmts = ["INSERT INTO pur (dateandtime, cashregisterid, customerid, productid, price) VALUES " + ",".join(f"('2026-11-26 10:00:00',{rnd.randrange(1000)},{rnd.randrange(100000)},{rnd.randrange(10000)},{rnd.random()*500:.2f})" for _ in range(100)) for _ in range(N // 20)]
    per = len(stmts)
    ctl("-i", "on")
    for st in stmts:
        cur.execute(st)
    ctl("-d", "insert100")
ctl("-i", "off")
p.terminate(); p.wait(timeout=120)
for f in sorted(glob.glob(out + "*")):
    tot = None
    for line in open(f):
        if line.startswith("summary:") or line.startswith("totals:"):
            tot = int(line.split()[1])
    desc = [l for l in open(f) if l.startswith("desc: Trigger")]
    print(which, os.path.basename(f), desc[0].strip() if desc else "", "Ir per statement:", (tot or 0) // per)
