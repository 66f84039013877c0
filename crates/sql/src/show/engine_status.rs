//! SHOW ENGINE INNODB STATUS in InnoDB's monitor layout (one row Type / Name / Status; the
//! sections tools parse: BACKGROUND THREAD, SEMAPHORES, LATEST DETECTED DEADLOCK,
//! TRANSACTIONS, FILE I/O, INSERT BUFFER AND ADAPTIVE HASH INDEX, LOG, BUFFER POOL AND
//! MEMORY, ROW OPERATIONS), filled from what Strata has: the lock manager's last deadlock and
//! waiting requests, the sessions' open transactions, the block cache counters that feed
//! `Innodb_buffer_pool_*`, the row counters that feed `Innodb_rows_*`. What InnoDB has and
//! Strata does not (latches, an insert buffer, a redo log position, page flushing) prints as
//! 0. SHOW ENGINE ROCKSDB STATUS is RocksDB's own statistics text, from the server.

use std::fmt::Write;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Instant, SystemTime};

use common::Result;
use rustc_hash::FxHashMap;
use storage::engine::KvEngine;
use storage::txn::lock::{DeadlockReport, LockWait, Mode, OwnerInfo};
use storage::Storage;

use crate::runtime::perfschema::{PerfSchema, ThreadView};

/// What the monitor reads besides the storage.
pub struct MonitorInput<'a> {
    /// The sessions, in id order.
    pub threads: &'a [ThreadView],
    /// The instance's performance_schema (it keeps the previous printout's counters).
    pub perf: &'a PerfSchema,
    /// Status variables the server reports (`Innodb_buffer_pool_*`, `Rocksdb_*`).
    pub server_status: &'a [(String, String)],
    /// `Innodb_rows_inserted`, `_updated`, `_deleted`, `_read`.
    pub rows: [u64; 4],
    /// Seconds since the server started.
    pub uptime: u64,
}

/// Where a lock key's index is: (database, table, index name, table id).
type IndexNames = FxHashMap<u32, (String, String, String, u64)>;

fn index_names<E: KvEngine>(st: &Storage<E>) -> Result<IndexNames> {
    let mut m = FxHashMap::default();
    for db in st.list_databases()? {
        for t in st.list_tables(&db.name)? {
            if let Some(def) = st.get_table(&db.name, &t)? {
                for ix in &def.indexes {
                    m.insert(ix.id, (db.name.clone(), t.clone(), ix.name.clone(), def.id));
                }
            }
        }
    }
    Ok(m)
}

/// `YYYY-MM-DD HH:MM:SS` of a wall-clock time (UTC, the server's time zone).
fn stamp(t: SystemTime) -> String {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    chrono::DateTime::from_timestamp(secs, 0)
        .map(|d| d.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_default()
}

fn section(out: &mut String, name: &str) {
    let dashes = "-".repeat(name.len());
    let _ = write!(out, "{dashes}\n{name}\n{dashes}\n");
}

/// InnoDB's lock line and record of a row lock on `key` held or requested by `txn`.
fn lock_text(names: &IndexNames, key: &[u8], mode: Mode, txn: u64, waiting: bool) -> String {
    let index_id = key
        .get(..4)
        .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let (db, table, index, table_id) = names.get(&index_id).cloned().unwrap_or_else(|| {
        (
            "unknown".into(),
            format!("index_{index_id}"),
            format!("index_{index_id}"),
            0,
        )
    });
    let mode = match mode {
        Mode::Exclusive => "lock_mode X",
        Mode::Shared => "lock mode S",
    };
    let field = key.get(4..).unwrap_or_default();
    let hex: String = field.iter().map(|b| format!("{b:02x}")).collect();
    let asc: String = field
        .iter()
        .map(|b| {
            if (0x20..0x7f).contains(b) {
                *b as char
            } else {
                '.'
            }
        })
        .collect();
    format!(
        "RECORD LOCKS space id {table_id} page no {index_id} n bits 0 index {index} of table `{db}`.`{table}` trx id {txn} {mode} locks rec but not gap{}\n\
         Record lock, heap no 2 PHYSICAL RECORD: n_fields 1; compact format; info bits 0\n 0: len {}; hex {hex}; asc {asc};;\n",
        if waiting { " waiting" } else { "" },
        field.len()
    )
}

/// InnoDB's `MySQL thread id …` line of a session.
fn thread_line(o: &OwnerInfo, state: &str) -> String {
    let (host, ip) = crate::runtime::querylog::host_and_ip(&o.host);
    let mut line = format!(
        "MySQL thread id {}, OS thread handle {}, query id {}",
        o.thread_id, o.thread_id, o.query_id
    );
    for part in [host, ip, o.user.as_str(), state] {
        if !part.is_empty() {
            line.push(' ');
            line.push_str(part);
        }
    }
    line
}

fn deadlock_section(out: &mut String, d: &DeadlockReport, names: &IndexNames) {
    section(out, "LATEST DETECTED DEADLOCK");
    let _ = writeln!(out, "{} 0x{:x}", stamp(d.at), 0x7f00_0000_0000u64);
    for (i, t) in d.txns.iter().enumerate() {
        let n = i + 1;
        let o = t.owner.clone().unwrap_or_default();
        let _ = writeln!(out, "*** ({n}) TRANSACTION:");
        let _ = writeln!(
            out,
            "TRANSACTION {}, ACTIVE {} sec starting index read",
            t.txn,
            o.active_secs.max(t.waited.as_secs())
        );
        let _ = writeln!(out, "mysql tables in use 1, locked 1");
        let locks = o.row_locks.max(1);
        let _ = writeln!(
            out,
            "LOCK WAIT {} lock struct(s), heap size 1136, {locks} row lock(s)",
            locks + 1
        );
        let _ = writeln!(out, "{}", thread_line(&o, "updating"));
        let _ = writeln!(out, "{}\n", o.statement.trim());
        let _ = writeln!(out, "*** ({n}) HOLDS THE LOCK(S):");
        let _ = writeln!(
            out,
            "{}\n",
            lock_text(names, &t.holds.0, t.holds.1, t.txn, false)
        );
        let _ = writeln!(out, "*** ({n}) WAITING FOR THIS LOCK TO BE GRANTED:");
        let _ = writeln!(
            out,
            "{}",
            lock_text(names, &t.waits_for.0, t.waits_for.1, t.txn, true)
        );
    }
    let _ = writeln!(out, "*** WE ROLL BACK TRANSACTION ({})", d.victim + 1);
}

fn transactions_section(
    out: &mut String,
    cx: &MonitorInput<'_>,
    waits: &[LockWait],
    deadlock: Option<&DeadlockReport>,
    names: &IndexNames,
) {
    section(out, "TRANSACTIONS");
    let max_id = cx
        .threads
        .iter()
        .map(|t| t.stmts.ps.trx_id.load(Relaxed))
        .chain(waits.iter().map(|w| w.txn))
        .chain(deadlock.iter().flat_map(|d| d.txns.iter().map(|t| t.txn)))
        .max()
        .unwrap_or(0);
    let _ = writeln!(out, "Trx id counter {}", max_id + 1);
    let _ = writeln!(
        out,
        "Purge done for trx's n:o < {} undo n:o < 0 state: running but idle",
        max_id + 1
    );
    let _ = writeln!(out, "History list length 0");
    let _ = writeln!(out, "LIST OF TRANSACTIONS FOR EACH SESSION:");
    let now_ms = crate::runtime::perfschema::unix_ms(SystemTime::now());
    for t in cx.threads {
        let ps = &t.stmts.ps;
        let wait = waits.iter().find(|w| w.thread_id == t.id);
        let trx = ps.trx_id.load(Relaxed);
        let running = t.command != "Sleep";
        let id = wait.map_or(trx, |w| w.txn);
        if id == 0 {
            let _ = writeln!(
                out,
                "---TRANSACTION {}, not started\n0 lock(s), heap size 1128, 0 row lock(s)",
                421_500_000_000_000u64 + t.id
            );
            continue;
        }
        let secs = if trx == id {
            now_ms.saturating_sub(ps.trx_started_ms.load(Relaxed)) / 1000
        } else {
            t.since.elapsed().as_secs()
        };
        let state = match (wait.is_some(), running) {
            (true, _) => " starting index read",
            (false, true) => " fetching rows",
            _ => "",
        };
        let _ = writeln!(out, "---TRANSACTION {id}, ACTIVE {secs} sec{state}");
        if running {
            let _ = writeln!(out, "mysql tables in use 1, locked 1");
        }
        let locks = if trx == id {
            ps.trx_locks.load(Relaxed)
        } else {
            0
        };
        let _ = writeln!(
            out,
            "{}{} lock struct(s), heap size 1136, {locks} row lock(s)",
            if wait.is_some() { "LOCK WAIT " } else { "" },
            locks + u64::from(wait.is_some()) + 1
        );
        let owner = OwnerInfo {
            thread_id: t.id,
            query_id: t.query_id,
            user: t.user.clone(),
            host: t.host.clone(),
            ..Default::default()
        };
        let _ = writeln!(
            out,
            "{}",
            thread_line(&owner, if running { t.state } else { "" })
        );
        if running {
            if let Some(info) = &t.info {
                let _ = writeln!(out, "{info}");
            }
        }
        if let Some(w) = wait {
            let _ = writeln!(
                out,
                "------- TRX HAS BEEN WAITING {} SEC FOR THIS LOCK TO BE GRANTED:",
                w.waited.as_secs()
            );
            out.push_str(&lock_text(names, &w.key, w.mode, w.txn, true));
            let _ = writeln!(out, "\n------------------");
        }
    }
}

/// The status variable `name` the server reports, as a number (0 when absent).
fn status_num(cx: &MonitorInput<'_>, name: &str) -> u64 {
    cx.server_status
        .iter()
        .find(|(k, _)| k == name)
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0)
}

/// The text of SHOW ENGINE INNODB STATUS.
pub fn innodb_status<E: KvEngine>(st: &Storage<E>, cx: &MonitorInput<'_>) -> Result<String> {
    let locks = st.locks();
    let deadlock = locks.last_deadlock();
    let waits = locks.waiting();
    let names = if deadlock.is_some() || !waits.is_empty() {
        index_names(st)?
    } else {
        IndexNames::default()
    };
    // this printout's counters, and the previous one's for the per-second averages
    let bp_reads = status_num(cx, "Innodb_buffer_pool_reads");
    let bp_requests = status_num(cx, "Innodb_buffer_pool_read_requests");
    let current = vec![
        cx.rows[0],
        cx.rows[1],
        cx.rows[2],
        cx.rows[3],
        bp_reads,
        bp_requests,
    ];
    let now = Instant::now();
    let (secs, before) = {
        let mut m = cx.perf.monitor.lock();
        let prev = m.replace((now, current.clone()));
        match prev {
            Some((at, v)) => (now.duration_since(at).as_secs_f64(), v),
            None => (cx.uptime as f64, vec![0; current.len()]),
        }
    };
    let secs = secs.max(1.0);
    let rate = |i: usize| current[i].saturating_sub(before[i]) as f64 / secs;

    let mut out = String::new();
    let _ = write!(
        out,
        "\n=====================================\n{} 0x{:x} INNODB MONITOR OUTPUT\n=====================================\n",
        stamp(SystemTime::now()),
        0x7f00_0000_0000u64
    );
    let _ = writeln!(
        out,
        "Per second averages calculated from the last {} seconds",
        secs.round() as u64
    );
    section(&mut out, "BACKGROUND THREAD");
    let _ = writeln!(
        out,
        "srv_master_thread loops: 0 srv_active, 0 srv_shutdown, {} srv_idle\nsrv_master_thread log flush and writes: {}",
        cx.uptime, cx.uptime
    );
    section(&mut out, "SEMAPHORES");
    let ls = locks.stats();
    let _ = write!(
        out,
        "OS WAIT ARRAY INFO: reservation count {w}\nOS WAIT ARRAY INFO: signal count {w}\n\
         RW-shared spins 0, rounds 0, OS waits 0\nRW-excl spins 0, rounds 0, OS waits 0\n\
         RW-sx spins 0, rounds 0, OS waits 0\n\
         Spin rounds per wait: 0.00 RW-shared, 0.00 RW-excl, 0.00 RW-sx\n",
        w = ls.waits
    );
    if let Some(d) = &deadlock {
        deadlock_section(&mut out, d, &names);
    }
    transactions_section(&mut out, cx, &waits, deadlock.as_deref(), &names);
    section(&mut out, "FILE I/O");
    let _ = write!(
        out,
        "I/O thread 0 state: waiting for completed aio requests (insert buffer thread)\n\
         I/O thread 1 state: waiting for completed aio requests (read thread)\n\
         I/O thread 2 state: waiting for completed aio requests (write thread)\n\
         Pending normal aio reads: [0, 0, 0, 0] , aio writes: [0, 0, 0, 0] ,\n \
         ibuf aio reads:, log i/o's:, sync i/o's:\n\
         Pending flushes (fsync) log: 0; buffer pool: 0\n\
         {bp_reads} OS file reads, 0 OS file writes, 0 OS fsyncs\n\
         {:.2} reads/s, {} avg bytes/read, 0.00 writes/s, 0.00 fsyncs/s\n",
        rate(4),
        status_num(cx, "Innodb_page_size")
    );
    section(&mut out, "INSERT BUFFER AND ADAPTIVE HASH INDEX");
    out.push_str(
        "Ibuf: size 1, free list len 0, seg size 2, 0 merges\nmerged operations:\n \
         insert 0, delete mark 0, delete 0\ndiscarded operations:\n \
         insert 0, delete mark 0, delete 0\n0.00 hash searches/s, 0.00 non-hash searches/s\n",
    );
    section(&mut out, "LOG");
    let lsn = status_num(cx, "Rocksdb_bytes_written");
    let _ = write!(
        out,
        "Log sequence number          {lsn}\nLog buffer assigned up to    {lsn}\n\
         Log buffer completed up to   {lsn}\nLog written up to            {lsn}\n\
         Log flushed up to            {lsn}\nAdded dirty pages up to      {lsn}\n\
         Pages flushed up to          {lsn}\nLast checkpoint at           {lsn}\n\
         Log minimum file id is       0\nLog maximum file id is       0\n\
         0 log i/o's done, 0.00 log i/o's/second\n"
    );
    section(&mut out, "BUFFER POOL AND MEMORY");
    let total = status_num(cx, "Innodb_buffer_pool_pages_total");
    let data = status_num(cx, "Innodb_buffer_pool_pages_data");
    let free = status_num(cx, "Innodb_buffer_pool_pages_free");
    let page = status_num(cx, "Innodb_page_size");
    let gets = current[5].saturating_sub(before[5]);
    let misses = current[4].saturating_sub(before[4]);
    let hit = match (misses.min(gets) * 1000).checked_div(gets) {
        None => "No buffer pool page gets since the last printout".to_string(),
        Some(per_mille) => format!(
            "Buffer pool hit rate {} / 1000, young-making rate 0 / 1000 not 0 / 1000",
            1000 - per_mille
        ),
    };
    let _ = write!(
        out,
        "Total large memory allocated {}\nDictionary memory allocated 0\n\
         Buffer pool size   {total}\nFree buffers       {free}\nDatabase pages     {data}\n\
         Old database pages 0\nModified db pages  0\nPending reads      0\n\
         Pending writes: LRU 0, flush list 0, single page 0\n\
         Pages made young 0, not young 0\n0.00 youngs/s, 0.00 non-youngs/s\n\
         Pages read {bp_reads}, created 0, written 0\n{:.2} reads/s, 0.00 creates/s, 0.00 writes/s\n\
         {hit}\nPages read ahead 0.00/s, evicted without access 0.00/s, Random read ahead 0.00/s\n\
         LRU len: {data}, unzip_LRU len: 0\nI/O sum[0]:cur[0], unzip sum[0]:cur[0]\n",
        total * page,
        rate(4)
    );
    section(&mut out, "ROW OPERATIONS");
    let inside = cx.threads.iter().filter(|t| t.command != "Sleep").count();
    let views = cx
        .threads
        .iter()
        .filter(|t| t.stmts.ps.trx_id.load(Relaxed) != 0)
        .count();
    let _ = write!(
        out,
        "{inside} queries inside InnoDB, 0 queries in queue\n{views} read views open inside InnoDB\n\
         Process ID={}, Main thread ID=0 , state: sleeping\n\
         Number of rows inserted {}, updated {}, deleted {}, read {}\n\
         {:.2} inserts/s, {:.2} updates/s, {:.2} deletes/s, {:.2} reads/s\n\
         Number of system rows inserted 0, updated 0, deleted 0, read 0\n\
         0.00 inserts/s, 0.00 updates/s, 0.00 deletes/s, 0.00 reads/s\n",
        std::process::id(),
        cx.rows[0],
        cx.rows[1],
        cx.rows[2],
        cx.rows[3],
        rate(0),
        rate(1),
        rate(2),
        rate(3),
    );
    out.push_str(
        "----------------------------\nEND OF INNODB MONITOR OUTPUT\n============================\n",
    );
    Ok(out)
}
