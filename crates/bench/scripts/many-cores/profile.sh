#!/usr/bin/env bash
# Issue 40 profile run: sysbench oltp_point_select, server on SRV cores, sysbench on CLI cores;
# strata tpc + pool at THREADS, a profiled steady-state window at PT threads for each mode,
# optional MariaDB tpc. Everything lands in $OUT (tps.tsv, log, prof.tar.xz).
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
O=${OUT:-/tmp/out}; mkdir -p $O; P=/tmp/prof; rm -rf $P; mkdir -p $P
BUDGET=${BUDGET:-360}; SRV=${SRV:-0-7}; CLI=${CLI:-8-15}; TIME=${TIME:-6}
THREADS=${THREADS:-"16 128 1024 4096"}; PT=${PT:-1024}; MTHREADS=${MTHREADS:-"16 1024"}
GDB=${GDB:-1}; MARIA=${MARIA:-1}; NCPU_SRV=${NCPU_SRV:-8}
X=/tmp/x; rm -rf $X; mkdir -p $X && tar xJf .dev/pack.tar.xz -C $X
mkdir -p /tmp/pf && tar xJf .dev/perf.tar.xz -C /tmp/pf
PERF() { LD_LIBRARY_PATH=/tmp/pf/lib /tmp/pf/perf "$@"; }
export LD_LIBRARY_PATH=$X/lib MARIADB_PLUGIN_DIR=$X/plugin
mkdir -p /usr/share/sysbench && cp $X/lua/*.lua /usr/share/sysbench/
ulimit -n 200000
sysctl -qw net.core.somaxconn=65535 net.ipv4.ip_local_port_range="1024 65000" net.ipv4.tcp_tw_reuse=1 2>/dev/null
uname -a; echo "cores: $(nproc)  kernel $(uname -r)  $(grep -m1 'model name' /proc/cpuinfo)"
echo "perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null) kptr=$(cat /proc/sys/kernel/kptr_restrict 2>/dev/null)"
# which perf mode works
PM=none
if PERF record -a -C 0 -o /tmp/t.data -- sleep 0.2 >/tmp/t.log 2>&1; then PM=a
elif PERF record -o /tmp/t.data -- sleep 0.2 >>/tmp/t.log 2>&1; then PM=p; fi
echo "perf mode: $PM"; tail -3 /tmp/t.log
CUDAGDB=${CUDAGDB:-$(command -v cuda-gdb || ls /usr/local/cuda/bin/cuda-gdb 2>/dev/null | head -1)}; echo "cuda-gdb: ${CUDAGDB:-none}"
TOP=$(command -v top); echo "top: ${TOP:-none}"
OUTF=$O/tps.tsv; printf 'mode\tthreads\ttps\tp95_ms\tsrv_cpu_s\tsrv_us_per_q\tsys_ctxt_per_s\terr\n' > $OUTF
SB="$X/sysbench oltp_point_select --mysql-host=127.0.0.1 --mysql-user=root --mysql-db=sbtest --tables=4 --table-size=100000 --rand-type=uniform"
wait_up() { for _ in $(seq 1 120); do $X/mariadb -h127.0.0.1 -P$1 -uroot -e 'select 1' >/dev/null 2>&1 && return 0; sleep 0.5; done; echo "port $1 not up"; return 1; }
cpu_of() { awk '{print $14+$15}' /proc/$1/stat; }
ctxt() { awk '/^ctxt/{print $2}' /proc/stat; }
point() { # mode port pid threads
  local mode=$1 port=$2 pid=$3 t=$4 c0 c1 x0 x1 s0 s1
  c0=$(cpu_of $pid); x0=$(ctxt); s0=$(date +%s.%N)
  out=$(taskset -c $CLI $SB --mysql-port=$port --threads=$t --time=$TIME --report-interval=0 run 2>&1)
  c1=$(cpu_of $pid); x1=$(ctxt); s1=$(date +%s.%N)
  tps=$(echo "$out" | awk '/transactions:/{gsub("\\(","",$3); print $3}')
  q=$(echo "$out" | awk '/queries:/{print $2; exit}')
  p95=$(echo "$out" | awk '/95th percentile:/{print $3}')
  err=$(echo "$out" | grep -m1 "FATAL" | cut -c1-120)
  tk=$(getconf CLK_TCK)
  cs=$(awk -v a=$c0 -v b=$c1 -v k=$tk 'BEGIN{printf "%.1f",(b-a)/k}')
  us=$(awk -v a=$c0 -v b=$c1 -v k=$tk -v q=${q:-0} 'BEGIN{if(q>0)printf "%.1f",(b-a)/k*1e6/q; else print "-"}')
  xs=$(awk -v a=$x0 -v b=$x1 -v s=$s0 -v e=$s1 'BEGIN{printf "%.0f",(b-a)/(e-s)}')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$t" "${tps:-0}" "${p95:-}" "$cs" "$us" "$xs" "$err" | tee -a "$OUTF"
  echo "$out" | grep -E "min:|avg:|max:|events/s|total time|ignored errors" | sed "s/^/  [$mode $t] /" >> $P/sb-details.txt
}
profile() { # mode port pid threads
  local mode=$1 port=$2 pid=$3 t=$4 d=$P/$1
  mkdir -p $d; echo "== profile $mode $t threads at $(el)s"
  taskset -c $CLI $SB --mysql-port=$port --threads=$t --time=120 --report-interval=1 run > $d/sb.txt 2>&1 &
  local sbp=$!
  for _ in $(seq 1 150); do grep -q "Threads started" $d/sb.txt && break; sleep 0.2; done
  sleep 3
  cat /proc/loadavg > $d/loadavg0.txt; grep -E '^(ctxt|procs_running|procs_blocked|cpu )' /proc/stat > $d/stat0.txt
  python3 .dev/procsample.py $pid snap > $d/snap0.tsv; date +%s.%N > $d/snap0.time
  python3 .dev/procsample.py $pid sample 12 0.25 > $d/tasks.tsv
  python3 .dev/procsample.py $pid snap > $d/snap1.tsv; date +%s.%N > $d/snap1.time
  cat /proc/loadavg > $d/loadavg1.txt; grep -E '^(ctxt|procs_running|procs_blocked|cpu )' /proc/stat > $d/stat1.txt
  grep -E 'Threads|ctxt' /proc/$pid/status > $d/status.txt
  [ -n "$TOP" ] && timeout 20 $TOP -H -b -n1 -w 200 -p $pid 2>&1 | head -70 > $d/top.txt
  if [ $PM != none ]; then
    local tgt="-a -C $SRV"; [ $PM = p ] && tgt="-p $pid"
    timeout 30 bash -c "LD_LIBRARY_PATH=/tmp/pf/lib /tmp/pf/perf record $tgt -F 999 -o $d/flat.data -- sleep 4" > $d/perf-flat.log 2>&1
    timeout 30 bash -c "LD_LIBRARY_PATH=/tmp/pf/lib /tmp/pf/perf record $tgt -F 99 --call-graph dwarf,8192 -o $d/dwarf.data -- sleep 4" > $d/perf-dwarf.log 2>&1
    timeout 30 bash -c "LD_LIBRARY_PATH=/tmp/pf/lib /tmp/pf/perf record $tgt -e context-switches -c ${CSC:-300} --call-graph dwarf,8192 -o $d/cs.data -- sleep 3" > $d/perf-cs.log 2>&1
  fi
  if [ "$GDB" = 1 ] && [ -n "$CUDAGDB" ] && [ $(el) -lt $BUDGET ]; then
    local g0=$(date +%s)
    timeout ${GDBT:-60} $CUDAGDB -p $pid -batch -ex 'set pagination off' -ex 'thread apply all bt 14' > $d/gdb1.txt 2>&1
    echo "gdb snapshot 1: rc $? in $(( $(date +%s) - g0 ))s, $(grep -c '^Thread' $d/gdb1.txt) threads"
    if [ $(( $(date +%s) - g0 )) -lt 15 ] && [ $(el) -lt $BUDGET ]; then
      sleep 1; timeout 30 $CUDAGDB -p $pid -batch -ex 'set pagination off' -ex 'thread apply all bt 14' > $d/gdb2.txt 2>&1
      echo "gdb snapshot 2: rc $?"
    fi
  fi
  kill $sbp 2>/dev/null; wait $sbp 2>/dev/null
  grep -E '^\[' $d/sb.txt | tail -40 > $d/sb-intervals.txt; rm -f $d/sb.txt
  echo "== profile $mode done at $(el)s"
}
stop_pid() { kill -CONT $1 2>/dev/null; kill $1 2>/dev/null
  for _ in $(seq 1 40); do kill -0 $1 2>/dev/null || break; sleep 0.25; done
  kill -0 $1 2>/dev/null && { echo "pid $1 still alive, SIGKILL"; kill -9 $1; }; wait $1 2>/dev/null; }
strata_up() { # handling
  taskset -c $SRV $X/strata serve --port 3400 --datadir /tmp/sd --max-connections 6000 \
    --thread-handling $1 --thread-pool-size 8 --back-log 8192 >>/tmp/strata.log 2>&1 &
  SPID=$!; wait_up 3400
}
rm -rf /tmp/sd
# strata thread-per-connection
strata_up one-thread-per-connection; echo "strata tpc pid $SPID up at $(el)s"
$X/mariadb -h127.0.0.1 -P3400 -uroot -e 'create database if not exists sbtest'
taskset -c $CLI $SB --mysql-port=3400 --threads=8 prepare > /tmp/prep.log 2>&1 || { echo "prepare failed"; tail /tmp/prep.log; }
echo "prepared at $(el)s"
for t in $THREADS; do point strata-tpc 3400 $SPID $t; done
for pt in $PT; do GDB=0 profile strata-tpc-$pt 3400 $SPID $pt; done
stop_pid $SPID
# strata pool, same data
[ -n "${POOLTHREADS:-}" ] && { THREADS=$POOLTHREADS; strata_up pool-of-threads; echo "strata pool pid $SPID up at $(el)s"
for t in $THREADS; do point strata-pool 3400 $SPID $t; done
stop_pid $SPID; }
# optional MariaDB tpc reference on the same machine
if [ "$MARIA" = 1 ] && [ $(el) -lt $(( BUDGET - 90 )) ] && [ -x $X/mariadbd ]; then
  rm -rf /tmp/md; cp -a $X/mdata /tmp/md
  taskset -c $SRV $X/mariadbd --no-defaults --datadir=/tmp/md --port=3401 --socket=/tmp/md.sock \
    --bind-address=127.0.0.1 --user=root --lc-messages-dir=$X/share --character-sets-dir=$X/share/charsets \
    --max-connections=6000 --max-prepared-stmt-count=1048576 --back-log=8192 --thread-handling=one-thread-per-connection \
    --innodb-buffer-pool-size=1G --innodb-log-file-size=32M --skip-name-resolve >/tmp/maria.log 2>&1 &
  MPID=$!; wait_up 3401 && {
    $X/mariadb -h127.0.0.1 -P3401 -uroot -e 'create database if not exists sbtest'
    taskset -c $CLI $SB --mysql-port=3401 --threads=8 prepare >/dev/null 2>&1
    for t in $MTHREADS; do point maria-tpc 3401 $MPID $t; done; }
  stop_pid $MPID
else echo "maria skipped at $(el)s"; fi
# perf post-processing on the device (kernel symbols are here)
echo "== perf script at $(el)s"
for m in $(ls $P); do
  d=$P/$m; [ -d $d ] || continue
  [ -f $d/flat.data ] && timeout 40 bash -c "LD_LIBRARY_PATH=/tmp/pf/lib /tmp/pf/perf report -i $d/flat.data --stdio --no-children --sort dso,sym 2>/dev/null | head -150" > $d/flat-report.txt
  for k in cs dwarf; do
    [ -f $d/$k.data ] || continue
    [ $(el) -lt $(( BUDGET + 40 )) ] || { echo "skip script $m $k"; continue; }
    timeout 60 bash -c "LD_LIBRARY_PATH=/tmp/pf/lib /tmp/pf/perf script -i $d/$k.data --no-inline -F comm,pid,tid,cpu,event,ip,sym,dso 2>/dev/null" > $d/$k-script.txt
    echo "$m $k script rc $? lines $(wc -l < $d/$k-script.txt) at $(el)s"
  done
  rm -f $d/*.data
done
cp /tmp/strata.log /tmp/maria.log $P/ 2>/dev/null
tar cf - -C $P . | xz -T0 -6 > $O/prof.tar.xz; ls -la $O
echo "done at $(el)s"
