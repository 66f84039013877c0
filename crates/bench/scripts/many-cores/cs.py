import sys, re, collections
blks = open(sys.argv[1]).read().split('\n\n'); n = 0; c = collections.Counter(); tot=0
for b in blks:
    ls = [l for l in b.split('\n') if l.strip()]
    if not ls or not re.match(r'\s*\S+\s+\d+/\d+', ls[0]) or ls[0].lstrip().startswith('swapper'): continue
    tot += 1
    fr = [m.group(1) for m in (re.match(r'\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$', l) for l in ls[1:]) if m]
    idx = [i for i, f in enumerate(fr) if re.search(r'MdlManager::(acquire|release_all)$', f)]
    if not idx: continue
    i = idx[0]; n += 1
    callee = fr[i-1] if i > 0 else '(self)'
    inner = fr[:i]
    if any('lock_slow' in f and 'unlock' not in f for f in inner): cat = 'waiting: RawMutex::lock_slow (spin/park/futex)'
    elif any('unlock_slow' in f for f in inner): cat = 'releasing: RawMutex::unlock_slow (futex wake)'
    else: cat = 'inside critical section: ' + re.sub(r'<.*', '', callee)[:60]
    c[(fr[i].split('::')[-1], cat)] += 1
print(f"{sys.argv[1]}: {n} of {tot} samples in MDL")
for k, v in c.most_common(20): print(f"{v:5d} {100*v/tot:5.1f}%  {k[0]:12s} {k[1]}")
