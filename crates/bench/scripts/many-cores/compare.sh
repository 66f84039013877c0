#!/usr/bin/env bash
# Issue 40 before/after on the lent 16-core machine: sysbench oltp_point_select (and
# oltp_read_write) against two strata builds, server on SRV cores, sysbench on CLI cores, both
# thread handlings, same data directory, one binary after the other. Run from the repository
# root with carry [".dev"]: reads .dev/pack.tar.xz (pack.sh NEW_BINARY .dev/pack.tar.xz BASE_BINARY).
# Writes $OUT/tps.tsv and $OUT/compare.log. MARIA=1 adds MariaDB's pool at the same points;
# BUILDS / MODES narrow what runs. A build may be NAME=BINARY[,VAR=VALUE...]: that binary, started
# with those environment variables, reported as NAME (variants of one build side by side).
# The server's context switches per transaction (all its threads, from /proc) go in cs_per_txn.
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
O=${OUT:-/tmp/out}; mkdir -p $O; exec > >(tee $O/compare.log) 2>&1
BUDGET=${BUDGET:-420}; SRV=${SRV:-0-7}; CLI=${CLI:-8-15}; TIME=${TIME:-8}
THREADS=${THREADS:-"16 128 1024 4096"}; RWTHREADS=${RWTHREADS:-"16 128"}; MODES=${MODES:-"pool-of-threads one-thread-per-connection"}
X=/tmp/x; rm -rf $X; mkdir -p $X && tar xJf .dev/pack.tar.xz -C $X
export LD_LIBRARY_PATH=$X/lib MARIADB_PLUGIN_DIR=$X/plugin
mkdir -p /usr/share/sysbench && cp $X/lua/*.lua /usr/share/sysbench/
ulimit -n 200000
sysctl -qw net.core.somaxconn=65535 net.ipv4.ip_local_port_range="1024 65000" net.ipv4.tcp_tw_reuse=1 2>/dev/null
echo "cores: $(nproc)  $(grep -m1 'model name' /proc/cpuinfo)"
OUTF=$O/tps.tsv; printf 'build\tmode\tworkload\tthreads\ttps\tp95_ms\tsrv_cpu_s\tcs_per_txn\terr\n' > $OUTF
SBA="--mysql-host=127.0.0.1 --mysql-user=root --mysql-db=sbtest --tables=4 --table-size=100000 --rand-type=uniform"
wait_up() { for _ in $(seq 1 120); do $X/mariadb -h127.0.0.1 -P$1 -uroot -e 'select 1' >/dev/null 2>&1 && return 0; sleep 0.5; done; echo "port $1 not up"; return 1; }
cpu_of() { awk '{print $14+$15}' /proc/$1/stat; }
cs_of() { cat /proc/$1/task/*/status 2>/dev/null | awk '/^(non)?voluntary_ctxt_switches/{s+=$2}END{print s+0}'; }
point() { # build mode workload threads pid
  local c0 c1 s0 s1 out tps p95 err tk
  c0=$(cpu_of $5); s0=$(cs_of $5)
  out=$(taskset -c $CLI $X/sysbench $3 $SBA --mysql-port=3400 --threads=$4 --time=$TIME --report-interval=0 run 2>&1)
  c1=$(cpu_of $5); s1=$(cs_of $5); tk=$(getconf CLK_TCK)
  tps=$(echo "$out" | awk '/transactions:/{gsub("\\(","",$3); print $3}')
  p95=$(echo "$out" | awk '/95th percentile:/{print $3}')
  err=$(echo "$out" | grep -m1 "FATAL" | cut -c1-100)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${tps:-0}" "${p95:-}" \
    "$(awk -v a=$c0 -v b=$c1 -v k=$tk 'BEGIN{printf "%.1f",(b-a)/k}')" \
    "$(awk -v a=$s0 -v b=$s1 -v t=${tps:-0} -v d=$TIME 'BEGIN{if (t>0) printf "%.2f",(b-a)/(t*d)}')" "$err" | tee -a $OUTF
}
stop_pid() { kill $1 2>/dev/null; for _ in $(seq 1 40); do kill -0 $1 2>/dev/null || break; sleep 0.25; done
  kill -0 $1 2>/dev/null && kill -9 $1; wait $1 2>/dev/null; }
up() { # build mode (build: NAME or NAME=BINARY[,VAR=VALUE...])
  local bin=${1#*=} envs=()
  [ "$bin" = "$1" ] || { IFS=, read -ra envs <<< "$bin"; bin=${envs[0]}; envs=("${envs[@]:1}"); }
  env "${envs[@]}" taskset -c $SRV $X/$bin serve --port 3400 --datadir /tmp/sd --max-connections 6000 \
    --thread-handling $2 --thread-pool-size 8 --back-log 8192 >>/tmp/strata.log 2>&1 &
  SPID=$!; wait_up 3400
}
rm -rf /tmp/sd
ALL=${BUILDS:-strata-base strata}; up ${ALL%% *} pool-of-threads
$X/mariadb -h127.0.0.1 -P3400 -uroot -e 'create database if not exists sbtest'
taskset -c $CLI $X/sysbench oltp_point_select $SBA --mysql-port=3400 --threads=8 prepare > /tmp/prep.log 2>&1 || { echo "prepare failed"; tail /tmp/prep.log; }
stop_pid $SPID; echo "prepared at $(el)s"
for mode in $MODES; do
  for b in ${BUILDS:-strata-base strata}; do
    [ $(el) -lt $BUDGET ] || { echo "budget spent at $(el)s"; break 2; }
    up $b $mode; echo "$b $mode up at $(el)s"
    for t in $THREADS; do point ${b%%=*} $mode oltp_point_select $t $SPID; done
    if [ $mode = pool-of-threads ]; then for t in $RWTHREADS; do point ${b%%=*} $mode oltp_read_write $t $SPID; done; fi
    stop_pid $SPID
  done
done
# MariaDB's pool on the same machine (MARIA=1), for the ratio
if [ "${MARIA:-0}" = 1 ] && [ -x $X/mariadbd ]; then
  rm -rf /tmp/md; cp -a $X/mdata /tmp/md
  taskset -c $SRV $X/mariadbd --no-defaults --datadir=/tmp/md --port=3400 --socket=/tmp/md.sock \
    --bind-address=127.0.0.1 --user=root --lc-messages-dir=$X/share --character-sets-dir=$X/share/charsets \
    --max-connections=6000 --max-prepared-stmt-count=1048576 --back-log=8192 --thread-handling=pool-of-threads \
    --thread-pool-size=8 --innodb-buffer-pool-size=1G --innodb-log-file-size=32M --skip-name-resolve >/tmp/maria.log 2>&1 &
  MPID=$!; wait_up 3400 && {
    $X/mariadb -h127.0.0.1 -P3400 -uroot -e 'create database if not exists sbtest'
    taskset -c $CLI $X/sysbench oltp_point_select $SBA --mysql-port=3400 --threads=8 prepare >/dev/null 2>&1
    for t in $THREADS; do point mariadb pool-of-threads oltp_point_select $t $MPID; done
    for t in $RWTHREADS; do point mariadb pool-of-threads oltp_read_write $t $MPID; done; }
  stop_pid $MPID
fi
cp /tmp/strata.log $O/ 2>/dev/null
echo "done at $(el)s"
