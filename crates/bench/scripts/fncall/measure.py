"""Server CPU of a function-heavy aggregate (six built-in functions per row over 200,000 rows),
two server binaries alternately, five runs each per round, two rounds:

    python crates/bench/scripts/fncall/measure.py BEFORE_BIN AFTER_BIN

Prints each run's wall time and the server's CPU seconds (utime + stime from /proc), then the
medians. Used for the bind-time function resolution (docs/benchmarks/2026-11-26-engine-pipeline.md)."""
import os
import socket
import subprocess
import sys
import tempfile
import time

import pymysql

def free_port():
    s = socket.socket(); s.bind(('127.0.0.1', 0)); p = s.getsockname()[1]; s.close(); return p
def cpu(pid):
    f = open(f'/proc/{pid}/stat').read().split(')')[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf('SC_CLK_TCK')
Q = ("SELECT SUM(LENGTH(UPPER(CONCAT(pad, 'x')))), MAX(ABS(k - 5)), SUM(CHAR_LENGTH(LOWER(pad))), "
     "SUM(IF(k > 3, ROUND(k / 3), 0)), MAX(SUBSTRING(pad, 3, 4)), SUM(COALESCE(NULLIF(k, 2), 1)) FROM t")
def run(binary, rounds):
    d = tempfile.mkdtemp(prefix='fnb-'); port = free_port()
    p = subprocess.Popen([binary, '--datadir', d, '--port', str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            c = pymysql.connect(host='127.0.0.1', port=port, user='root', autocommit=True); break
        except Exception: time.sleep(0.1)
    cur = c.cursor(); cur.execute('CREATE DATABASE b'); cur.execute('USE b')
    cur.execute('CREATE TABLE t (id INT PRIMARY KEY, k INT, pad VARCHAR(60))')
    for f in range(0, 200000, 2000):
        cur.execute('INSERT INTO t VALUES ' + ','.join(f"({i},{i%97},'{i:08d}abcdefghijklmnopqrstuvwxyz')" for i in range(f, f+2000)))
    cur.execute(Q); want = cur.fetchall()
    out = []
    for _ in range(rounds):
        c0 = cpu(p.pid); t0 = time.time(); cur.execute(Q); cur.fetchall(); out.append((time.time() - t0, cpu(p.pid) - c0))
    p.terminate(); p.wait()
    return want, out
res = {}
for rnd in range(2):
    for name, b in [('before', sys.argv[1]), ('after', sys.argv[2])]:
        want, out = run(b, 5)
        res.setdefault(name, []).extend(out)
        print(name, want, ' '.join(f'{w:.3f}s/{c:.2f}cpu' for w, c in out), flush=True)
for k, v in res.items():
    ws = sorted(w for w, _ in v)
    cs = sorted(c for _, c in v)
    print(k, 'median wall', round(ws[len(ws) // 2], 3), 'median server cpu', round(cs[len(cs) // 2], 3))
