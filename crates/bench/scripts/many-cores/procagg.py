import sys, collections, csv
d = sys.argv[1]
rows = list(csv.DictReader(open(f"{d}/tasks.tsv"), delimiter='\t'))
ns = len(set(r['sample'] for r in rows))
c = collections.Counter(); st = collections.Counter(); fut = collections.Counter()
SC = {'202':'futex','7':'poll','271':'ppoll','45':'recvfrom','44':'sendto','232':'epoll_wait','281':'epoll_pwait','24':'sched_yield','0':'read','1':'write','running':'running'}
for r in rows:
    if not (r['comm'].startswith('conn-') or r['comm'].startswith('tp')): continue
    st[r['state']] += 1
    c[(r['state'], r['wchan'], SC.get(r['syscall'], r['syscall']))] += 1
    if r['syscall'] == '202': fut[r['arg0']] += 1
tot = sum(st.values())
print(f"{d}: {ns} samples, {tot/ns:.0f} worker threads/sample; states: " + ", ".join(f"{k} {v/ns:.0f}" for k, v in st.most_common()))
for k, v in c.most_common(8): print(f"   {v/ns:7.1f} threads avg  state={k[0]} wchan={k[1]} syscall={k[2]}")
print("   futex addresses (avg threads each):", ", ".join(f"{a} {v/ns:.0f}" for a, v in fut.most_common(5)))
def snap(f):
    return {r['tid']: r for r in csv.DictReader(open(f), delimiter='\t')}
a, b = snap(f"{d}/snap0.tsv"), snap(f"{d}/snap1.tsv")
t0, t1 = float(open(f"{d}/snap0.time").read()), float(open(f"{d}/snap1.time").read()); dt = t1 - t0
S = collections.Counter()
for tid, rb in b.items():
    ra = a.get(tid)
    if not ra: continue
    for k in ('utime','stime','vcs','nvcs','run_ns','wait_ns','slices'):
        try: S[k] += int(rb[k]) - int(ra[k])
        except: pass
print(f"   over {dt:.2f}s: vol cs/s {S['vcs']/dt:,.0f}, invol cs/s {S['nvcs']/dt:,.0f}, cpu {S['run_ns']/1e9/dt:.2f} cores "
      f"(user {S['utime']/100/dt:.2f}, sys {S['stime']/100/dt:.2f}), runqueue wait {S['wait_ns']/1e9/dt:.1f} thread-s/s, "
      f"avg run slice {S['run_ns']/max(S['slices'],1)/1e3:.1f} us, avg rq wait per slice {S['wait_ns']/max(S['slices'],1)/1e3:.1f} us")
