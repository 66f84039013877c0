# Instructions per statement in the server (callgrind, all threads), for comparing two builds:
#   python point_select.py NAME STRATA_BINARY PORT   -> Ir per prepared (binary) and text point select
# Needs valgrind, PyMySQL and mysql-connector (the e2e venv). Background RocksDB work is counted too:
# repeat a pair before trusting a difference of a few percent.
import subprocess, sys, time, os, glob, pymysql, mysql.connector, socket
which, binp, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
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
ctl("-i", "on")
for i in range(N):
    pc.execute("SELECT c FROM t WHERE id = ?", (i % 1000,)); pc.fetchall()
ctl("-d", "binary")
for i in range(N):
    cur.execute(f"SELECT c FROM t WHERE id = {i % 1000}"); cur.fetchall()
ctl("-d", "text")
ctl("-i", "off")
p.terminate(); p.wait(timeout=120)
for f in sorted(glob.glob(out + "*")):
    tot = None
    for line in open(f):
        if line.startswith("summary:") or line.startswith("totals:"):
            tot = int(line.split()[1])
    desc = [l for l in open(f) if l.startswith("desc: Trigger")]
    print(which, os.path.basename(f), desc[0].strip() if desc else "", "Ir per query:", (tot or 0) // N)
