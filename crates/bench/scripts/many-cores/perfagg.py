import sys, re, collections
# perf script output: header line "comm pid/tid [cpu] event:" then frames "\t addr sym (dso)"
fn = sys.argv[1]; depth = int(sys.argv[2]) if len(sys.argv) > 2 else 6
mode = sys.argv[3] if len(sys.argv) > 3 else 'user'
txt = open(fn).read().split('\n\n')
c = collections.Counter(); comms = collections.Counter(); n = 0; leaf = collections.Counter()
SKIP = ('syscall', '[unknown]')
for blk in txt:
    lines = [l for l in blk.split('\n') if l.strip()]
    if not lines: continue
    h = lines[0]
    m = re.match(r'\s*(\S+)\s+(\d+)/(\d+)', h)
    if not m: continue
    comm = re.sub(r'\d+', 'N', m.group(1)); comms[comm] += 1
    frames = []
    for l in lines[1:]:
        mm = re.match(r'\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$', l)
        if not mm: continue
        sym, dso = mm.group(1), mm.group(2)
        sym = re.sub(r'\+0x[0-9a-f]+$', '', sym)
        frames.append((sym, dso))
    n += 1
    if not frames: continue
    leaf[(frames[0][0] + ' [' + frames[0][1].split('/')[-1] + ']')] += 1
    if mode == 'user':
        fr = [s for s, d in frames if 'kernel' not in d and s not in SKIP]
        kern = [s for s, d in frames if 'kernel' in d]
        k = (kern[0] if kern else '-')
        # kernel entry point: the syscall or irq that led to the switch
        ent = [s for s in kern if s.startswith('__x64_sys_') or s.startswith('irqentry') or 'exit_to_user' in s or s.startswith('asm_')]
        key = (ent[0] if ent else (kern[-1] if kern else '-')) + ' | ' + ' < '.join(x.replace('sql::','').replace('protocol::','') for x in fr[:depth])
    else:
        key = ' < '.join(s for s, d in frames[:depth])
    c[(comm, key)] += 1
print(f"{fn}: {n} samples; comms: {comms.most_common(8)}")
for (cm, k), v in c.most_common(int(sys.argv[4]) if len(sys.argv) > 4 else 25):
    print(f"{v:6d} {100*v/n:5.1f}% {cm:10s} {k}")
