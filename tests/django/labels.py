"""Runs Django's runtests.py once per label against a running server (see run.sh), parses each
run's summary and tracebacks, and writes a markdown report: per-label counts, totals, and the
failures/errors grouped by the first line of their exception, with one example test each."""
import argparse
import collections
import datetime
import os
import re
import signal
import subprocess
import sys
import time

SEP = "=" * 70
DASH = "-" * 70


def parse(out):
    """Returns (counts dict, list of (kind, test, exception line)); counts has 'ran' None when
    runtests.py ended without a unittest summary."""
    counts = {"found": None, "ran": None, "failures": 0, "errors": 0, "skipped": 0, "unexpected": 0, "ok": False}
    m = re.findall(r"^Found (\d+) test", out, re.M)
    if m:
        counts["found"] = int(m[0])
    m = re.findall(r"^Ran (\d+) tests? in ([\d.]+)s$", out, re.M)
    if m:
        counts["ran"] = int(m[-1][0])
    m = re.findall(r"^(OK|FAILED)(?: \((.*)\))?$", out, re.M)
    if m:
        status, detail = m[-1]
        counts["ok"] = status == "OK"
        for k, v in re.findall(r"([a-z ]+)=(\d+)", detail or ""):
            k = k.strip()
            if k in ("failures", "errors", "skipped"):
                counts[k] = int(v)
            elif k == "unexpected successes":
                counts["unexpected"] = int(v)
    skips = re.findall(r" \.\.\. skipped ['\"](.*)['\"]$", out, re.M)
    problems = []
    for block in out.split(SEP)[1:]:
        lines = block.strip("\n").split("\n")
        head = re.match(r"^(ERROR|FAIL|UNEXPECTED SUCCESS): (.*)$", lines[0]) if lines else None
        if not head:
            continue
        problems.append((head.group(1), head.group(2).strip(), exception_line(lines[1:])))
    counts["skip_reasons"] = skips
    return counts, problems


def exception_line(lines):
    """The first line of the last exception of a traceback: the first unindented line after the
    last 'Traceback (most recent call last):'."""
    start = 0
    for i, l in enumerate(lines):
        if l.startswith("Traceback (most recent call last):"):
            start = i + 1
    for l in lines[start:]:
        if l and not l.startswith(" ") and l != DASH and not l.startswith("Ran "):
            return l.strip()
    return "(no traceback)"


def crash_line(out):
    """For a run without a summary (setup failed): the last exception line of the output."""
    lines = out.rstrip("\n").split("\n")
    if any(l.startswith("Traceback (most recent call last):") for l in lines):
        return exception_line(lines)
    return lines[-1].strip() if lines else "(no output)"


def normalise(line):
    """The grouping key: quoted names and values in server messages become '…' (except the
    start of the text after 'near' in a 1064), so that one cause over many tables is one group."""
    m = re.match(r"^([\w.]+): \((\d+), ['\"](.*)['\"]\)$", line)
    if m:
        cls, num, msg = m.groups()
        if num == "1064":
            n = re.search(r"near '(.{0,40})", msg)
            msg = "You have an error in your SQL syntax; near '%s…'" % (n.group(1) if n else "")
        elif not re.search(r"'[^']*\s[^']*'", msg):  # names only, no SQL text quoted
            msg = re.sub(r"'[^']*'", "'…'", msg)
            msg = re.sub(r"`[^`]*`", "`…`", msg)
        return ("%s: (%s, %s)" % (cls.split(".")[-1], num, msg))[:240]
    return line[:160]


def run_one(cmd, a, log):
    """Runs one label's runtests.py into log; returns (seconds, timed out), also kept in log.secs."""
    t0 = time.time()
    with open(log, "w") as f:
        p = subprocess.Popen(cmd, cwd=a.tests, stdout=f, stderr=subprocess.STDOUT,
                             env=dict(os.environ, PYTHONUNBUFFERED="1"), start_new_session=True)
        try:
            p.wait(timeout=a.timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            timed_out = True
    secs = time.time() - t0
    with open(log + ".secs", "w") as f:
        f.write("%.1f %d\n" % (secs, timed_out))
    return secs, timed_out


def read_secs(log):
    try:
        secs, timed_out = open(log + ".secs").read().split()
        return float(secs), timed_out == "1"
    except (OSError, ValueError):
        return 0.0, False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default="")
    ap.add_argument("--tests", default="")
    ap.add_argument("--settings", default="")
    ap.add_argument("--server", default="strata")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--verbosity", default="1",
                    help="runtests.py -v; 2 also lists each skipped test with its reason")
    ap.add_argument("--logs", required=True)
    ap.add_argument("--md", required=True)
    ap.add_argument("--django", default="")
    ap.add_argument("--reparse", action="store_true",
                    help="write the report from the logs of an earlier run; run nothing")
    ap.add_argument("labels", nargs="+")
    a = ap.parse_args()

    vfile = os.path.join(a.logs, "server-version")
    if a.reparse:
        version = open(vfile).read().strip() if os.path.exists(vfile) else "?"
    else:
        try:
            import MySQLdb
            c = MySQLdb.connect(host="127.0.0.1", port=a.port, user="root", passwd="")
            cur = c.cursor()
            cur.execute("SELECT VERSION()")
            version = cur.fetchone()[0]
            c.close()
        except Exception as e:  # the runs below will show the same problem in detail
            version = "connect failed: %s" % e
        with open(vfile, "w") as f:
            f.write(version + "\n")
    commit = ""
    try:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        pass

    rows, groups, skips = [], collections.OrderedDict(), collections.Counter()
    for label in a.labels:
        log = os.path.join(a.logs, label + ".log")
        cmd = [a.python, "runtests.py", "--settings=" + a.settings, "--parallel=1", "-v", a.verbosity,
               "--noinput", label]
        if a.reparse:
            secs, timed_out = read_secs(log)
        else:
            secs, timed_out = run_one(cmd, a, log)
        out = open(log, errors="replace").read()
        counts, problems = parse(out)
        note = ""
        if timed_out:
            note = "timed out after %d s" % a.timeout
        elif counts["ran"] is None:
            note = "no tests ran: " + crash_line(out)[:200]
            groups.setdefault(normalise(crash_line(out)), []).append(("CRASH", label))
        skips.update(counts["skip_reasons"])
        for kind, test, exc in problems:
            groups.setdefault(normalise(exc), []).append((kind, test))
        rows.append((label, counts, secs, note))
        print("%-20s ran=%s failures=%d errors=%d skipped=%d %.0fs %s" % (
            label, counts["ran"], counts["failures"], counts["errors"], counts["skipped"], secs,
            note), flush=True)

    tot = collections.Counter()
    md = ["# Django %s test suite against %s" % (a.django, a.server), "",
          "%s; server version `%s`%s; `runtests.py --parallel=1 -v %s <label>`, one run per label, "
          "timeout %d s." % (datetime.date.today().isoformat(), version,
                             "; Strata commit `%s`" % commit if a.server == "strata" and commit else "",
                             a.verbosity, a.timeout), "",
          "| label | found | tests | failures | errors | skipped | seconds | note |",
          "|---|---:|---:|---:|---:|---:|---:|---|"]
    for label, c, secs, note in rows:
        ran = "-" if c["ran"] is None else str(c["ran"])
        fails = c["failures"] + c["unexpected"]
        found = "-" if c["found"] is None else str(c["found"])
        md.append("| %s | %s | %s | %d | %d | %d | %.0f | %s |" % (
            label, found, ran, fails, c["errors"], c["skipped"], secs, note.replace("|", "\\|")))
        tot["found"] += c["found"] or 0
        tot["ran"] += c["ran"] or 0
        tot["failures"] += fails
        tot["errors"] += c["errors"]
        tot["skipped"] += c["skipped"]
        tot["secs"] += secs
        tot["clean"] += 1 if c["ok"] else 0
    md.append("| **total** (%d labels, %d OK) | %d | %d | %d | %d | %d | %.0f | |" % (
        len(rows), tot["clean"], tot["found"], tot["ran"], tot["failures"], tot["errors"], tot["skipped"],
        tot["secs"]))
    md += ["", "Failures and errors grouped by the first line of the exception (server messages "
           "with quoted names folded). 'found' is what runtests.py collected, 'tests' what "
           "unittest ran (whole skipped classes and subtests make them differ). An ERROR in setUpClass counts once but stops a whole class; "
           "CRASH is a label whose run ended before any test (e.g. its test database could not "
           "be built).", "",
           "| count | exception | example |", "|---:|---|---|"]
    for key, items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        kind, test = items[0]
        md.append("| %d | `%s` | %s %s |" % (len(items), key.replace("|", "\\|").replace("`", "'"),
                                            kind, test.replace("|", "\\|")))
    if skips:
        md += ["", "Skipped tests by reason (a reason naming a feature flag on a MySQL 8.4 server is "
               "a missing feature; the vendor-specific ones are not):", "",
               "| count | reason |", "|---:|---|"]
        for reason, n in skips.most_common():
            md.append("| %d | %s |" % (n, reason.replace("|", "\\|")[:200]))
    os.makedirs(os.path.dirname(os.path.abspath(a.md)), exist_ok=True)
    with open(a.md, "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md[6 + len(rows):7 + len(rows)]))


if __name__ == "__main__":
    sys.exit(main())
