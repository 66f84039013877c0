#!/usr/bin/env bash
# Runs Django's own test suite (runtests.py from the Django 6.1.x sdist on PyPI, MySQL backend via
# mysqlclient, no shim) against a fresh Strata server, or with --mariadb against a throwaway local
# MariaDB, one runtests.py per label, and writes a per-label table with the grouped top errors.
#   tests/django/run.sh [--mariadb] [label ...]   labels default to the 40 of issue 42's Must show
# Environment:
#   STRATA_BIN              server binary (default $CARGO_TARGET_DIR/release/strata, else
#                           ~/.cache/strata-target/release/strata)
#   STRATA_DJANGO_HOME      venv and sdist cache (default ~/.cache/strata-django)
#   STRATA_DJANGO_PYTHON    a Python >= 3.12 (Django 6.1 needs it); found on PATH or in pyenv otherwise
#   STRATA_DJANGO_TIMEOUT   seconds per label (default 900)
#   STRATA_DJANGO_VERBOSITY runtests.py -v (default 1; 2 adds the skipped tests by reason)
#   STRATA_DJANGO_OUT       report and logs folder (default $CARGO_TARGET_DIR, else ./target):
#                           django.md and django-logs/<label>.log (django-mariadb.md and
#                           django-logs-mariadb/ with --mariadb)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$(pwd)"
TARGET="${CARGO_TARGET_DIR:-$HOME/.cache/strata-target}"
BIN="${STRATA_BIN:-$TARGET/release/strata}"
HOME_DIR="${STRATA_DJANGO_HOME:-$HOME/.cache/strata-django}"
TIMEOUT="${STRATA_DJANGO_TIMEOUT:-900}"
VERBOSITY="${STRATA_DJANGO_VERBOSITY:-1}"
OUT="${STRATA_DJANGO_OUT:-${CARGO_TARGET_DIR:-$ROOT/target}}"
# Test requirements beyond mysqlclient: tblib (tracebacks), PyYAML (serializers, timezones, fixtures),
# Pillow (model_fields' ImageField tests); the rest of tests/requirements/py3.txt is not needed by
# these labels (their tests skip without it).
REQS=(mysqlclient PyYAML Pillow tblib)

MODE=strata
if [ "${1:-}" = "--mariadb" ]; then MODE=mariadb; shift; fi
if [ $# -eq 0 ]; then
  set -- basic queries lookup aggregation expressions expressions_window annotations model_fields \
    transactions select_for_update update delete bulk_create get_or_create ordering dates datetimes \
    db_functions migrations schema backends inspectdb introspection indexes constraints \
    custom_lookups foreign_object many_to_one many_to_many m2m_through prefetch_related \
    select_related fixtures serializers model_inheritance raw_query null_queries or_lookups \
    timezones generic_relations
fi

# --- a Python >= 3.12 and the cached venv with the Django sdist ----------------------------------
find_python() {
  local c
  for c in "${STRATA_DJANGO_PYTHON:-}" python3.14 python3.13 python3.12 python3 \
           "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python3; do
    [ -n "$c" ] || continue
    command -v "$c" >/dev/null 2>&1 || [ -x "$c" ] || continue
    "$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && { echo "$c"; return; }
  done
  echo "run.sh: Django 6.1 needs Python >= 3.12; set STRATA_DJANGO_PYTHON" >&2
  exit 1
}
VENV="$HOME_DIR/venv"
if [ ! -x "$VENV/bin/python" ]; then
  PY="$(find_python)"
  echo "run.sh: creating $VENV with $PY" >&2
  rm -rf "$VENV" && "$PY" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)
SDIST="$(ls -1 "$HOME_DIR"/sdist/django-6.1.*.tar.gz 2>/dev/null | sort -V | tail -n1 || true)"
if [ -z "$SDIST" ] || [ "${STRATA_DJANGO_REFRESH:-0}" = 1 ]; then
  mkdir -p "$HOME_DIR/sdist"
  "${PIP[@]}" download --no-binary :all: --no-deps "django>=6.1,<6.2" -d "$HOME_DIR/sdist" >&2
  SDIST="$(ls -1 "$HOME_DIR"/sdist/django-6.1.*.tar.gz | sort -V | tail -n1)"
fi
VER="$(basename "$SDIST" .tar.gz)"            # django-6.1.N
SRC="$HOME_DIR/$VER"
if [ ! -f "$SRC/tests/runtests.py" ]; then
  rm -rf "$SRC.tmp" && mkdir -p "$SRC.tmp"
  tar xzf "$SDIST" -C "$SRC.tmp"
  rm -rf "$SRC" && mv "$SRC.tmp/$VER" "$SRC" && rm -rf "$SRC.tmp"
fi
if [ "$("$VENV/bin/python" -c 'import django; print(django.get_version())' 2>/dev/null)" != "${VER#django-}" ] ||
   ! "$VENV/bin/python" -c 'import MySQLdb, yaml, PIL, tblib' 2>/dev/null; then
  echo "run.sh: installing $VER and ${REQS[*]} into $VENV" >&2
  "${PIP[@]}" install "$SDIST" "${REQS[@]}" >&2
fi

# --- a fresh server on a free port ---------------------------------------------------------------
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 300); do
    kill -0 "$SERVER" 2>/dev/null || { echo "run.sh: server exited:" >&2; tail -n 30 "$TMP/server.log" >&2; exit 1; }
    (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.2
  done
  echo "run.sh: server did not start on port $1" >&2; tail -n 30 "$TMP/server.log" >&2; exit 1
}
TMP="$(mktemp -d)"
SERVER=""
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
PORT="$(free_port)"
if [ "$MODE" = strata ]; then
  [ -x "$BIN" ] || { echo "run.sh: no server binary at $BIN (./x django builds it)" >&2; exit 1; }
  "$BIN" serve --port "$PORT" --datadir "$TMP/data" --socket "$TMP/strata.sock" \
    --innodb-flush-log-at-trx-commit 2 >"$TMP/server.log" 2>&1 &
  SERVER=$!
  wait_port "$PORT"
  MD="$OUT/django.md"; LOGS="$OUT/django-logs"
else
  command -v mariadbd >/dev/null || PATH="$PATH:/usr/sbin"
  command -v mariadbd >/dev/null || { echo "run.sh: mariadbd missing (Debian: mariadb-server)" >&2; exit 1; }
  mariadb-install-db --no-defaults --datadir="$TMP/data" --user="$(id -un)" \
    --auth-root-authentication-method=normal >"$TMP/install.log" 2>&1 ||
    { cat "$TMP/install.log" >&2; exit 1; }
  mariadbd --no-defaults --datadir="$TMP/data" --port="$PORT" --socket="$TMP/maria.sock" \
    --bind-address=127.0.0.1 --user="$(id -un)" --innodb-flush-log-at-trx-commit=2 \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
    >"$TMP/server.log" 2>&1 &
  SERVER=$!
  wait_port "$PORT"
  # the root of mariadb-install-db is root@localhost; Django connects over TCP from 127.0.0.1
  mariadb --no-defaults -uroot --socket="$TMP/maria.sock" -e \
    "CREATE USER IF NOT EXISTS root@'127.0.0.1'; GRANT ALL ON *.* TO root@'127.0.0.1' WITH GRANT OPTION"
  # time zone tables, so that the CONVERT_TZ tests run rather than skip (MySQL's CI loads them too)
  if command -v mariadb-tzinfo-to-sql >/dev/null && [ -d /usr/share/zoneinfo ]; then
    mariadb-tzinfo-to-sql /usr/share/zoneinfo 2>/dev/null |
      mariadb --no-defaults -uroot --socket="$TMP/maria.sock" mysql || true
  fi
  MD="$OUT/django-mariadb.md"; LOGS="$OUT/django-logs-mariadb"
fi

# --- settings module, the label loop and the report ----------------------------------------------
mkdir -p "$TMP/settings"
cat >"$TMP/settings/strata_django_settings.py" <<EOF
def _db(test_name):
    return {
        "ENGINE": "django.db.backends.mysql",
        "HOST": "127.0.0.1",
        "PORT": $PORT,
        "USER": "root",
        "PASSWORD": "",
        "NAME": "django",
        "TEST": {"NAME": test_name},
    }

DATABASES = {"default": _db("test_django_default"), "other": _db("test_django_other")}
SECRET_KEY = "django_tests_secret_key"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
USE_TZ = False
EOF
mkdir -p "$LOGS"
PYTHONPATH="$TMP/settings" "$VENV/bin/python" "$ROOT/tests/django/labels.py" \
  --python "$VENV/bin/python" --tests "$SRC/tests" --settings strata_django_settings \
  --server "$MODE" --port "$PORT" --timeout "$TIMEOUT" --verbosity "$VERBOSITY" --logs "$LOGS" \
  --md "$MD" --django "${VER#django-}" -- "$@"
echo "run.sh: per-label table: $MD; runtests output: $LOGS/"
