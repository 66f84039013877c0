#!/usr/bin/env python3
"""Runs selected MariaDB mysql-test files (Debian packages mariadb-test / mariadb-test-data)
against a running Strata with `mariadb-test`, and reports pass / fail / skip per file with the
reason for each failure (the first failing statement or the first differing result line).

    run.py --port 3306 [--suite /usr/share/mysql/mysql-test] [--md out.md] [main/alias ...]

Without test names the files listed in selected.txt (next to this script) are run. Each file
gets a fresh `test` database. Exit status: 0 when every file in --expect-pass passed.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = "/usr/share/mysql/mysql-test"


def selected():
    out = []
    with open(os.path.join(HERE, "selected.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                out.append(line)
    return out


def sql(args, stmt):
    subprocess.run(["mariadb", "-h", args.host, "-P", str(args.port), "-u", args.user,
                    "--skip-ssl", "-e", stmt], check=True, capture_output=True, timeout=60)


def reason_of(output):
    """One line saying why mariadb-test failed."""
    m = re.search(r"At line (\d+): (.*)", output)
    if m:
        return f"line {m.group(1)}: {m.group(2).strip()}"[:240]
    if "Result content mismatch" in output or "\n@@" in output:
        lines = output.splitlines()
        for i, line in enumerate(lines):
            if line.startswith("-") and not line.startswith("---"):
                got = next((l[1:] for l in lines[i + 1:]
                            if l.startswith("+") and not l.startswith("+++")), "")
                show = lambda t: t.strip().replace("\t", " \\t ")[:100]
                return f"result differs: expected `{show(line[1:])}`, got `{show(got)}`"
        return "result differs"
    tail = [l for l in output.strip().splitlines() if l.strip()]
    return (tail[-1] if tail else "failed")[:240]


def run_one(args, name, tmp):
    test = os.path.join(args.suite, name + ".test")
    result = os.path.join(args.suite, name + ".result")
    if not os.path.exists(test):
        return "missing", f"{test} not found"
    sql(args, "DROP DATABASE IF EXISTS test")
    sql(args, "CREATE DATABASE test")
    if args.sql_mode is not None:
        # the files' results assume the server defaults of mysql-test-run (MariaDB's)
        sql(args, f"SET GLOBAL sql_mode = '{args.sql_mode}'")
    vardir = os.path.join(tmp, "var")
    os.makedirs(os.path.join(vardir, "tmp"), exist_ok=True)
    env = dict(os.environ, MYSQLTEST_VARDIR=vardir, MYSQL_TEST_DIR=args.suite,
               MYSQL_TMP_DIR=os.path.join(vardir, "tmp"))
    cmd = ["mariadb-test", f"--host={args.host}", f"--port={args.port}", f"--user={args.user}",
           "--database=test", f"--test-file={test}", f"--result-file={result}",
           f"--tmpdir={os.path.join(vardir, 'tmp')}", f"--logdir={vardir}",
           f"--basedir={args.suite}", "--silent", "--max-connect-retries=2"]
    try:
        p = subprocess.run(cmd, cwd=args.suite, env=env, capture_output=True, text=True,
                           errors="replace", timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return "fail", f"timed out after {args.timeout}s"
    out = (p.stdout or "") + (p.stderr or "")
    if p.returncode == 0:
        return "pass", ""
    if p.returncode == 62 or "not supported by this installation" in out:
        m = re.search(r"reason: (.*)", out) or re.search(r"(?i)skipped[:\s]*(.*)", out)
        return "skip", (m.group(1).strip() if m else "skipped")[:240]
    return "fail", reason_of(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=3306)
    ap.add_argument("--user", default="root")
    ap.add_argument("--suite", default=SUITE)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--md", help="write a markdown table here")
    ap.add_argument("--sql-mode", default="STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION",
                    help="global sql_mode set before each file (MariaDB's default)")
    ap.add_argument("--expect-pass", nargs="*", default=[],
                    help="exit non-zero unless these files pass")
    ap.add_argument("tests", nargs="*")
    args = ap.parse_args()
    names = args.tests or selected()
    rows = []
    saved = subprocess.run(["mariadb", "-h", args.host, "-P", str(args.port), "-u", args.user,
                            "--skip-ssl", "-N", "-e", "SELECT @@GLOBAL.sql_mode"],
                           check=True, capture_output=True, text=True, timeout=60).stdout.strip()
    try:
        with tempfile.TemporaryDirectory(prefix="strata-mysqltest-") as tmp:
            for n in names:
                status, why = run_one(args, n, tmp)
                rows.append((n, status, why))
                print(f"{n:40} {status:5} {why}", flush=True)
    finally:
        sql(args, f"SET GLOBAL sql_mode = '{saved}'")
        sql(args, "DROP DATABASE IF EXISTS test")
    passed = sum(1 for r in rows if r[1] == "pass")
    print(f"{passed}/{len(rows)} passed")
    if args.md:
        with open(args.md, "w", encoding="utf-8") as f:
            f.write("| mysql-test file | result | reason |\n|---|---|---|\n")
            for n, st, why in rows:
                cell = why.replace("|", "\\|")
                f.write(f"| {n} | {st} | {cell} |\n")
    bad = [n for n in args.expect_pass if not any(r[0] == n and r[1] == "pass" for r in rows)]
    if bad:
        print("expected to pass but did not: " + ", ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
