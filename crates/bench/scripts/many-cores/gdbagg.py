import sys, re, collections
for fn in sys.argv[1:]:
    txt = open(fn).read()
    threads = re.split(r'\n(?=Thread \d+ )', txt)
    c = collections.Counter(); n = 0
    for t in threads:
        if not t.startswith('Thread'): continue
        n += 1
        name = re.search(r'"([^"]*)"', t.split('\n')[0]); name = name.group(1) if name else '?'
        frames = re.findall(r'^#\d+\s+(?:0x[0-9a-f]+ in )?([^\s(]+)', t, re.M)
        # skip libc/syscall wrappers, keep up to 4 meaningful frames
        fr = [f for f in frames if f not in ('syscall', '??')]
        key = ' < '.join(f.replace('sql::','').replace('protocol::','') for f in fr[:4])
        kind = re.sub(r'\d+', 'N', name)
        c[(kind, key)] += 1
    print(f"== {fn}: {n} threads")
    for (k, s), v in c.most_common(25): print(f"{v:5d} {k:12s} {s}")
