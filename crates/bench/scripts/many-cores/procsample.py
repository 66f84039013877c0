#!/usr/bin/env python3
"""Cheap /proc sampling of one process's threads.
  procsample.py PID snap            -> per-task TSV: tid comm state cpu utime stime vcs nvcs run_ns wait_ns slices
  procsample.py PID sample N DT     -> N samples DT s apart: sample tid comm state wchan syscall_nr arg0
"""
import os, sys, time
pid = sys.argv[1]; mode = sys.argv[2]
base = f"/proc/{pid}/task"
def rd(p):
    try:
        with open(p) as f: return f.read()
    except Exception: return ""
def stat(t):
    s = rd(f"{base}/{t}/stat")
    if not s: return None
    r = s.rfind(")"); comm = s[s.find("(")+1:r].replace(" ", "_").replace("\t", "_")
    f = s[r+2:].split()
    return comm, f[0], f[36] if len(f) > 36 else "?", f[11], f[12]
if mode == "snap":
    print("tid\tcomm\tstate\tcpu\tutime\tstime\tvcs\tnvcs\trun_ns\twait_ns\tslices")
    for t in os.listdir(base):
        st = stat(t)
        if not st: continue
        vcs = nvcs = "?"
        for line in rd(f"{base}/{t}/status").splitlines():
            if line.startswith("voluntary_ctxt_switches"): vcs = line.split()[1]
            elif line.startswith("nonvoluntary_ctxt_switches"): nvcs = line.split()[1]
        ss = (rd(f"{base}/{t}/schedstat").split() + ["?"] * 3)[:3]
        print("\t".join([t, st[0], st[1], st[2], st[3], st[4], vcs, nvcs] + ss))
else:
    n = int(sys.argv[3]); dt = float(sys.argv[4])
    print("sample\ttid\tcomm\tstate\twchan\tsyscall\targ0")
    for i in range(n):
        t0 = time.time()
        for t in os.listdir(base):
            st = stat(t)
            if not st: continue
            w = rd(f"{base}/{t}/wchan").strip() or "-"
            sc = rd(f"{base}/{t}/syscall").split()
            nr = sc[0] if sc else "?"; a0 = sc[1] if len(sc) > 1 else "-"
            print(f"{i}\t{t}\t{st[0]}\t{st[1]}\t{w}\t{nr}\t{a0}")
        sys.stdout.flush()
        rest = dt - (time.time() - t0)
        if rest > 0: time.sleep(rest)
