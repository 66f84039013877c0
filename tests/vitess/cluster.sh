#!/usr/bin/env bash
# A local Vitess cluster over Strata: etcd (topology), vtctld, vtgate, and per shard one Strata
# server with an unmanaged vttablet in front of it, keyspace `commerce` sharded by a hash vindex.
#
#   tests/vitess/cluster.sh up      start it (builds the Vitess binaries first when not cached)
#   tests/vitess/cluster.sh down    stop every process it started and remove its directory
#   tests/vitess/cluster.sh status  the processes and the vtgate address
#
# Settings (environment):
#   STRATA_VITESS_DIR     working directory (data, logs, pids)   [/tmp/strata-vitess]
#   STRATA_VITESS_PORT    first of the ports it uses (base .. base+10+10*shards) [15100]
#   STRATA_VITESS_SHARDS  number of shards: 1, 2, 4 or 8          [2]
#   STRATA_VITESS_VSCHEMA VSchema file applied to the keyspace    [tests/vitess/vschema.json]
#   STRATA_BIN            the strata binary                        [the cargo target's release build]
# vtgate serves the MySQL protocol on 127.0.0.1:<base+6> (no authentication), e.g.
#   mysql -h127.0.0.1 -P15106 -uroot commerce
# Vitess' servers refuse to run as root: under root they run as `nobody` (setpriv), with their
# binaries hard-linked into the working directory.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
DIR="${STRATA_VITESS_DIR:-/tmp/strata-vitess}"
BASE="${STRATA_VITESS_PORT:-15100}"
SHARDS="${STRATA_VITESS_SHARDS:-2}"
VSCHEMA="${STRATA_VITESS_VSCHEMA:-$HERE/vschema.json}"
STRATA_BIN="${STRATA_BIN:-${CARGO_TARGET_DIR:-$HOME/.cache/strata-target}/release/strata}"
KEYSPACE=commerce
CELL=test
ETCD_PORT=$BASE
VTCTLD_GRPC=$((BASE + 3))
VTGATE_MYSQL=$((BASE + 6))
TOPO=(--topo-implementation etcd2 --topo-global-server-address "127.0.0.1:$ETCD_PORT"
  --topo-global-root /vitess/global)
VT_USER=vt
VT_PASS=vt_pass

log() { echo "cluster.sh: $*" >&2; }
die() { log "$*"; exit 1; }

# How Vitess binaries run: as `nobody` when this script runs as root.
AS_USER=()
[ "$(id -u)" != 0 ] || AS_USER=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
export VTDATAROOT="$DIR/tmp" TMPDIR="$DIR/tmp"
vt() { local b="$1"; shift; "${AS_USER[@]}" "$DIR/bin/$b" "$@"; }

# Starts a background process with its output in $DIR/log/<name>.log and its pid in
# $DIR/pid/<name>.pid.
spawn() {
  local name="$1"; shift
  "$@" >"$DIR/log/$name.log" 2>&1 &
  echo $! >"$DIR/pid/$name.pid"
}

wait_port() {
  local port="$1" what="$2"
  for _ in $(seq 600); do
    (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    sleep 0.1
  done
  die "$what did not open port $port (logs in $DIR/log)"
}

wait_http() {
  local port="$1" what="$2"
  for _ in $(seq 600); do
    curl -sf "http://127.0.0.1:$port/debug/status" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  die "$what is not serving http://127.0.0.1:$port/debug/status (logs in $DIR/log)"
}

# The key ranges of n shards ("-80", "80-" for two).
shard_names() {
  local n="$1" i lo hi
  [ "$n" = 1 ] && { echo "0"; return; }
  for ((i = 0; i < n; i++)); do
    lo=""; hi=""
    [ "$i" -gt 0 ] && lo=$(printf '%02x' $((256 * i / n)))
    [ "$i" -lt $((n - 1)) ] && hi=$(printf '%02x' $((256 * (i + 1) / n)))
    echo "$lo-$hi"
  done
}

vtctl() { vt vtctldclient --server "127.0.0.1:$VTCTLD_GRPC" "$@"; }

install_bins() {
  local src
  src="$("$HERE/build.sh")"
  mkdir -p "$DIR/bin"
  for b in vtctld vtgate vttablet vtctldclient; do
    ln -f "$src/$b" "$DIR/bin/$b" 2>/dev/null || cp "$src/$b" "$DIR/bin/$b"
  done
}

start_strata() {
  local i="$1" port="$2"
  mkdir -p "$DIR/strata$i"
  spawn "strata$i" "$STRATA_BIN" serve --port "$port" --datadir "$DIR/strata$i/data" \
    --innodb-flush-log-at-trx-commit 2 --block-cache-size 64M
  wait_port "$port" "strata$i"
  # the account vttablet connects with (an unmanaged tablet needs a password)
  mariadb -h127.0.0.1 -P"$port" -uroot --skip-ssl -e "
    CREATE USER IF NOT EXISTS '$VT_USER'@'%' IDENTIFIED BY '$VT_PASS';
    GRANT ALL ON *.* TO '$VT_USER'@'%' WITH GRANT OPTION;
    CREATE DATABASE IF NOT EXISTS $KEYSPACE;"
}

start_tablet() {
  local i="$1" shard="$2" db_port="$3" http="$4" grpc="$5" uid alias users=()
  uid=$((100 + i))
  alias=$(printf '%s-%010d' "$CELL" "$uid")
  for u in app dba allprivs repl filtered appdebug; do
    users+=("--db-$u-user" "$VT_USER" "--db-$u-password" "$VT_PASS" "--db-$u-use-ssl=false")
  done
  spawn "vttablet$i" "${AS_USER[@]}" "$DIR/bin/vttablet" --config-file-not-found-handling=ignore "${TOPO[@]}" \
    --tablet-path "$alias" --tablet-hostname 127.0.0.1 \
    --init-keyspace "$KEYSPACE" --init-shard "$shard" --init-tablet-type replica \
    --unmanaged --db-host 127.0.0.1 --db-port "$db_port" --init-db-name-override "$KEYSPACE" \
    "${users[@]}" \
    --port "$http" --grpc-port "$grpc" \
    --service-map 'grpc-queryservice,grpc-tabletmanager,grpc-updatestream' \
    --health-check-interval 1s --queryserver-config-schema-reload-time 5s \
    --pid-file "$DIR/pid/vttablet$i.vtpid" --log-format text
  echo "$alias" >"$DIR/pid/vttablet$i.alias"
}

up() {
  [ -x "$STRATA_BIN" ] || die "no strata binary at $STRATA_BIN (set STRATA_BIN)"
  command -v etcd >/dev/null || die "etcd is missing (Debian: apt-get install etcd-server)"
  [ ! -e "$DIR/pid" ] || die "$DIR holds a cluster already: run '$0 down' first"
  install_bins
  mkdir -p "$DIR/log" "$DIR/pid" "$DIR/tmp"
  [ "$(id -u)" != 0 ] || chown 65534:65534 "$DIR" "$DIR/log" "$DIR/pid" "$DIR/tmp"
  log "etcd on 127.0.0.1:$ETCD_PORT"
  spawn etcd etcd --data-dir "$DIR/etcd" --name strata-vitess \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$((BASE + 1))" \
    --initial-advertise-peer-urls "http://127.0.0.1:$((BASE + 1))" \
    --initial-cluster "strata-vitess=http://127.0.0.1:$((BASE + 1))"
  wait_port "$ETCD_PORT" etcd
  vt vtctldclient --server internal "${TOPO[@]}" AddCellInfo --root "/vitess/$CELL" \
    --server-address "127.0.0.1:$ETCD_PORT" "$CELL" >/dev/null
  log "vtctld on 127.0.0.1:$((BASE + 2)) (grpc $VTCTLD_GRPC)"
  spawn vtctld "${AS_USER[@]}" "$DIR/bin/vtctld" --config-file-not-found-handling=ignore "${TOPO[@]}" \
    --service-map 'grpc-vtctl,grpc-vtctld' --port $((BASE + 2)) --grpc-port "$VTCTLD_GRPC" \
    --log-format text
  wait_http $((BASE + 2)) vtctld
  vtctl CreateKeyspace "$KEYSPACE" >/dev/null
  local i=0 shard
  for shard in $(shard_names "$SHARDS"); do
    local p=$((BASE + 10 + 10 * i))
    log "shard $shard: strata on 127.0.0.1:$p, vttablet on 127.0.0.1:$((p + 1))"
    start_strata "$i" "$p"
    start_tablet "$i" "$shard" "$p" $((p + 1)) $((p + 2))
    i=$((i + 1))
  done
  for ((i = 0; i < SHARDS; i++)); do
    local p=$((BASE + 10 + 10 * i))
    wait_http $((p + 1)) "vttablet$i"
    # an unmanaged tablet becomes its shard's primary by this announcement
    vtctl TabletExternallyReparented "$(cat "$DIR/pid/vttablet$i.alias")" >/dev/null
  done
  vtctl ApplyVSchema --vschema-file "$VSCHEMA" "$KEYSPACE" >/dev/null
  log "vtgate on 127.0.0.1:$VTGATE_MYSQL (MySQL protocol), http 127.0.0.1:$((BASE + 4))"
  spawn vtgate "${AS_USER[@]}" "$DIR/bin/vtgate" --config-file-not-found-handling=ignore "${TOPO[@]}" \
    --cell "$CELL" --cells-to-watch "$CELL" --tablet-types-to-wait PRIMARY \
    --port $((BASE + 4)) --grpc-port $((BASE + 5)) \
    --mysql-server-port "$VTGATE_MYSQL" --mysql-server-bind-address 127.0.0.1 \
    --mysql-auth-server-impl none --service-map 'grpc-vtgateservice' --log-format text
  wait_port "$VTGATE_MYSQL" vtgate
  wait_serving
  log "up: mysql -h127.0.0.1 -P$VTGATE_MYSQL -uroot $KEYSPACE"
}

# Waits until vtgate routes a query to every shard's primary.
wait_serving() {
  for _ in $(seq 300); do
    if mariadb -h127.0.0.1 -P"$VTGATE_MYSQL" -uroot --skip-ssl -N -e \
      "SHOW VITESS_TABLETS" 2>/dev/null | grep -c "PRIMARY.*SERVING" |
      grep -qx "$SHARDS"; then
      return 0
    fi
    sleep 0.2
  done
  die "vtgate does not see $SHARDS serving primaries (logs in $DIR/log)"
}

down() {
  [ -d "$DIR/pid" ] || { log "no cluster in $DIR"; rm -rf "$DIR"; return 0; }
  local f
  # vtgate first, etcd last
  for f in vtgate vttablet vtctld strata etcd; do
    for p in "$DIR"/pid/"$f"*.pid; do
      [ -f "$p" ] || continue
      kill "$(cat "$p")" 2>/dev/null || true
    done
    for p in "$DIR"/pid/"$f"*.pid; do
      [ -f "$p" ] || continue
      local pid; pid="$(cat "$p")"
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    done
  done
  rm -rf "$DIR"
  log "down"
}

status() {
  [ -d "$DIR/pid" ] || { echo "no cluster in $DIR"; return 1; }
  for p in "$DIR"/pid/*.pid; do
    local pid; pid="$(cat "$p")"
    if kill -0 "$pid" 2>/dev/null; then s=running; else s=stopped; fi
    echo "$(basename "$p" .pid) $pid $s"
  done
  echo "vtgate: 127.0.0.1:$VTGATE_MYSQL"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  *) echo "usage: $0 up | down | status" >&2; exit 2 ;;
esac
