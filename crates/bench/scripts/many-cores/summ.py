import sys, re, collections
def blocks(fn):
    for b in open(fn).read().split('\n\n'):
        ls = [l for l in b.split('\n') if l.strip()]
        if not ls or not re.match(r'\s*\S+\s+\d+/\d+', ls[0]): continue
        comm = ls[0].split()[0]
        fr = [(m.group(1), 'kernel' in m.group(2)) for m in (re.match(r'\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$', l) for l in ls[1:]) if m]
        yield comm, fr
for d, tps in [(a.split('=')[0], float(a.split('=')[1])) for a in sys.argv[1:]]:
    n = 0; c = collections.Counter()
    for comm, fr in blocks(d + '/dwarf-script.txt'):
        if comm == 'swapper': c['idle'] += 1; continue
        n += 1
        names = [f for f, k in fr]
        idx = [i for i, f in enumerate(names) if re.search(r'MdlManager::(acquire|release_all)$', f)]
        if idx:
            i = idx[0]; inner = names[:i]; c['mdl'] += 1
            if any('lock_slow' in f and 'unlock' not in f for f in inner): c['mdl_wait'] += 1
            elif any('futex' in f for f in inner) or any('unlock_slow' in f for f in inner): c['mdl_wake'] += 1
            else:
                c['mdl_cs'] += 1
                if any('State::blockers' in f for f in inner): c['blockers'] += 1
        if any('set_process' in f for f in names): c['procs'] += 1
        if any(re.search('GetSnapshotImpl|ReleaseSnapshot', f) for f in names): c['snap'] += 1
        if fr and fr[0][1]: c['kern'] += 1
        if any(f in ('schedule', '__schedule') for f in names): c['sched'] += 1
    cs = collections.Counter(); m = 0
    for comm, fr in blocks(d + '/cs-script.txt'):
        if comm == 'swapper': continue
        m += 1; names = [f for f, k in fr]
        kern = [f for f, k in fr if k]
        if any(re.search(r'MdlManager::(acquire|release_all)$', f) for f in names):
            if '__x64_sys_futex' in kern and any('lock_slow' in f and 'unlock' not in f for f in names): cs['mdl_futex'] += 1
            elif '__x64_sys_sched_yield' in kern: cs['mdl_yield'] += 1
            else: cs['mdl_other'] += 1
        elif '__x64_sys_ppoll' in kern or '__x64_sys_epoll_pwait' in kern: cs['client_wait'] += 1
        else: cs['other'] += 1
    sec = n and (1/99)  # one sample = 1/99 s of CPU
    us = lambda k: c[k] / 99 / 4 / tps * 1e6
    print(f"{d}: tps~{tps:,.0f} samples {n} (+{c['idle']} idle) | MDL {100*c['mdl']/n:.1f}% = wait {100*c['mdl_wait']/n:.1f} + wake {100*c['mdl_wake']/n:.1f} + in-CS {100*c['mdl_cs']/n:.1f} (blockers {100*c['blockers']/n:.1f}) | "
          f"in-CS {us('mdl_cs'):.2f} us/q, blockers {us('blockers'):.2f} us/q | set_process {100*c['procs']/n:.1f}% rocksdb snapshot {100*c['snap']/n:.1f}% kernel-leaf {100*c['kern']/n:.0f}%")
    print(f"    cs samples {m}: " + ", ".join(f"{k} {100*v/m:.1f}%" for k, v in cs.most_common()))
