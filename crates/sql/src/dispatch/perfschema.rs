//! The statement boundary's side of performance_schema and of SHOW ENGINE INNODB STATUS: when
//! a statement ends ([`Session::stmt_end`] calls in here) its event goes to the thread's
//! history and its digest to the instance's summary (only with `performance_schema` on), and
//! the transaction left open is noted for the InnoDB monitor's TRANSACTIONS section. When a
//! statement starts, the thread's lock owner is set for the lock manager's deadlock report.
//!
//! The measurements are the ones the slow log takes ([`StmtClock`]): time, lock time, rows
//! examined as the session's `Handler_read_*` delta, plus `Select_scan` / `Select_range`.

use std::borrow::Cow;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, SystemTime};

use common::Result;
use storage::engine::KvEngine;
use storage::txn::lock::{LockOwner, OwnerInfo};

use crate::dispatch::querylog::{StmtClock, StmtKind};
use crate::runtime::digest::DigestOptions;
use crate::runtime::perfschema::{picos, unix_ms, StmtStats};
use crate::runtime::querylog::trim_statement;
use crate::runtime::status::{Com, COM_NAMES};
use crate::session::session::*;

/// The session a lock request is made for, as the lock manager's reports show it.
struct SessionOwner {
    id: u32,
    process: Weak<Process>,
}

impl LockOwner for SessionOwner {
    fn thread_id(&self) -> u64 {
        u64::from(self.id)
    }

    fn describe(&self, txn: u64) -> OwnerInfo {
        let mut info = OwnerInfo {
            thread_id: u64::from(self.id),
            ..Default::default()
        };
        let Some(p) = self.process.upgrade() else {
            return info;
        };
        let now = p.now.lock().clone();
        let ps = &p.counters.ps;
        info.query_id = p.counters.get(Ctr::Questions);
        info.user = p.user.clone();
        info.host = p.host.clone();
        info.db = now.db;
        info.statement = now.info.map(|i| i.to_string()).unwrap_or_default();
        if ps.trx_id.load(Relaxed) == txn {
            info.active_secs =
                unix_ms(SystemTime::now()).saturating_sub(ps.trx_started_ms.load(Relaxed)) / 1000;
            info.row_locks = ps.trx_locks.load(Relaxed);
        } else {
            info.active_secs = now.since.elapsed().as_secs();
        }
        info
    }
}

/// `statement/sql/<kind>`: the event name of a statement counted as `c`.
fn event_name(c: Com) -> &'static str {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        COM_NAMES
            .iter()
            .map(|n| &*Box::leak(format!("statement/sql/{}", &n[4..]).into_boxed_str()))
            .collect()
    });
    names[c as usize]
}

impl<E: KvEngine> Session<E> {
    /// Makes this session the calling thread's lock owner (see `storage::txn::lock`).
    pub(crate) fn enter_lock_owner(&self) {
        let owner = self.counters.ps.lock_owner.get_or_init(|| {
            Arc::new(SessionOwner {
                id: self.conn_id,
                process: Arc::downgrade(&self.process),
            })
        });
        storage::txn::lock::set_owner(owner);
    }

    /// Notes the transaction left open after a statement that started at `start` (for SHOW
    /// ENGINE INNODB STATUS): its id, when it began, the row locks it holds.
    pub(crate) fn note_transaction(&self, elapsed: Duration) {
        let ps = &self.counters.ps;
        match &self.txn {
            Some(t) => {
                let id = t.id();
                if ps.trx_id.load(Relaxed) != id {
                    ps.trx_id.store(id, Relaxed);
                    let began = SystemTime::now()
                        .checked_sub(elapsed)
                        .unwrap_or(SystemTime::UNIX_EPOCH);
                    ps.trx_started_ms.store(unix_ms(began), Relaxed);
                }
                ps.trx_locks.store(t.lock_count() as u64, Relaxed);
            }
            None => {
                if ps.trx_id.load(Relaxed) != 0 {
                    ps.trx_id.store(0, Relaxed);
                    ps.trx_locks.store(0, Relaxed);
                }
            }
        }
    }

    /// Records a finished statement in performance_schema: its digest in the summary, its
    /// event in the thread's history. `text` makes the statement's text (a text statement;
    /// a prepared one's comes from the statement); returns the text when it was made, for
    /// the slow log.
    pub(crate) fn ps_statement_end<'t, F: FnOnce() -> Cow<'t, str>>(
        &self,
        clock: &StmtClock,
        elapsed: Duration,
        r: &Result<Output>,
        kind: StmtKind<'_>,
        text: &mut Option<F>,
    ) -> Option<Cow<'t, str>> {
        let perf = self.inst.globals.perf();
        let hot = self.hot();
        let opts = DigestOptions {
            ansi_quotes: hot.ansi_quotes,
            no_backslash_escapes: hot.no_backslash_escapes,
            max_length: perf.max_digest_length(),
        };
        let ps = &self.counters.ps;
        let mut work = ps.work.lock();
        let work = &mut *work;
        let mut made = None;
        let mut known = None;
        let sql: &str = match clock
            .prepared
            .and_then(|id| Some((id, self.prepared.get(&id)?)))
        {
            Some((id, p)) => {
                known = work.prepared_digest(id, &p.parsed.sql, opts);
                trim_statement(&p.parsed.sql)
            }
            None => {
                let t = (text.take()?)();
                made = Some(t);
                let t: &str = made.as_deref().unwrap_or("");
                // the statements of one multi-statement text come with the same text
                let key = (
                    self.counters.get(Ctr::Questions),
                    t.as_ptr() as usize,
                    t.len(),
                );
                let last = work.last_text;
                let index = if (last.0, last.1, last.2) == key {
                    last.3 + 1
                } else {
                    0
                };
                work.last_text = (key.0, key.1, key.2, index);
                match work.normaliser.normalise(t, index, opts, &mut work.text) {
                    Some(n) => trim_statement(&t[n.stmt]),
                    None => {
                        work.normaliser.normalise(t, 0, opts, &mut work.text);
                        trim_statement(t)
                    }
                }
            }
        };
        let digest_text: &str = match &known {
            Some(k) => &k.text,
            None => &work.text,
        };
        // the measurements
        let (examined, no_index) = match clock.reads {
            Some(before) => {
                let now = crate::dispatch::com::reads_now(&self.handler);
                let d: [u64; 6] = std::array::from_fn(|i| now[i].saturating_sub(before[i]));
                // [first, key, last, next, prev, rnd_next]: a full scan, in index order or not
                (d.iter().sum::<u64>(), d[0] + d[2] + d[5] > 0)
            }
            None => (0, false),
        };
        let select_scan = self
            .counters
            .get(Ctr::SelectScan)
            .saturating_sub(clock.selects[0]);
        let select_range = self
            .counters
            .get(Ctr::SelectRange)
            .saturating_sub(clock.selects[1]);
        let (rows_sent, rows_affected) = match r {
            Ok(Output::Rows { rows, .. }) => (rows.len() as u64, 0),
            Ok(Output::RowsSent { rows }) => (*rows, 0),
            Ok(Output::Ok { affected, .. }) => (0, *affected),
            Err(_) => (0, 0),
        };
        let lock_us = common::wait::lock_wait_micros().saturating_sub(clock.lock_us);
        let stats = StmtStats {
            timer_wait: picos(elapsed),
            lock_time: picos(Duration::from_micros(lock_us)),
            errors: u64::from(r.is_err()),
            warnings: self
                .warnings
                .iter()
                .filter(|w| w.level != common::Level::Error)
                .count() as u64,
            rows_affected,
            rows_sent,
            rows_examined: examined,
            select_range,
            select_scan,
            no_index_used: u64::from(no_index || select_scan > 0),
        };
        let end = clock.start + elapsed;
        let schema = self.db.as_deref();
        let digest =
            if digest_text.is_empty() {
                None
            } else {
                perf.digests
                    .add(
                        schema,
                        digest_text,
                        known.as_ref(),
                        &stats,
                        sql,
                        perf.wall(end),
                    )
                    .or_else(|| {
                        Some(known.clone().unwrap_or_else(|| {
                            crate::runtime::perfschema::DigestId::new(digest_text)
                        }))
                    })
            };
        let name = kind
            .parsed()
            .and_then(|p| crate::dispatch::com::kinds(p).first().copied())
            .map_or("statement/sql/error", event_name);
        let error = r
            .as_ref()
            .err()
            .map(|e| (e.code.num, e.code.sqlstate, e.msg.as_str()));
        ps.record(
            name,
            perf.timer(clock.start),
            sql,
            digest,
            schema,
            error,
            &stats,
        );
        made
    }
}

#[cfg(test)]
mod tests {
    use storage::mem::MemEngine;

    use crate::session::session::test_support::{ok, rows, session};
    use crate::session::session::Session;

    fn digests(s: &mut Session<MemEngine>) -> Vec<Vec<String>> {
        rows(
            s,
            "SELECT SCHEMA_NAME, DIGEST_TEXT, COUNT_STAR, SUM_ROWS_SENT, SUM_ROWS_AFFECTED, \
             SUM_ERRORS, LENGTH(DIGEST), SUM_TIMER_WAIT > 0, QUERY_SAMPLE_TEXT \
             FROM performance_schema.events_statements_summary_by_digest \
             WHERE DIGEST_TEXT NOT LIKE '%performance_schema%' ORDER BY DIGEST_TEXT",
        )
    }

    #[test]
    fn statements_are_summarised_by_digest() {
        let mut s = session();
        ok(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, v INT)");
        ok(&mut s, "INSERT INTO t VALUES (1, 10), (2, 20)");
        for i in 1..=3 {
            rows(&mut s, &format!("SELECT v FROM t WHERE id = {i}"));
        }
        assert!(s.query("SELECT nope FROM t", false)[0].is_err());
        let d = digests(&mut s);
        let find = |text: &str| {
            d.iter()
                .find(|r| r[1] == text)
                .unwrap_or_else(|| panic!("{text} not in {d:?}"))
                .clone()
        };
        let sel = find("SELECT `v` FROM `t` WHERE `id` = ?");
        assert_eq!(sel[0], "d");
        assert_eq!(&sel[2..8], ["3", "2", "0", "0", "64", "1"]);
        let ins = find("INSERT INTO `t` VALUES (...) /* , ... */");
        assert_eq!(ins[4], "2");
        assert_eq!(ins[8], "INSERT INTO t VALUES (1, 10), (2, 20)");
        assert_eq!(find("SELECT `nope` FROM `t`")[5], "1");
        // TRUNCATE's reset (the statement itself needs a hook in ddl; the state is here)
        assert_eq!(
            s.inst
                .globals
                .perf()
                .truncate("events_statements_summary_by_digest"),
            Some(())
        );
        assert!(digests(&mut s).is_empty());
    }

    #[test]
    fn history_and_current_show_the_thread_statements() {
        let mut s = session();
        ok(&mut s, "CREATE TABLE t (id INT PRIMARY KEY)");
        ok(&mut s, "INSERT INTO t VALUES (1)");
        rows(&mut s, "SELECT * FROM t");
        let h = rows(
            &mut s,
            "SELECT THREAD_ID, EVENT_NAME, SQL_TEXT, DIGEST_TEXT, ROWS_SENT, ROWS_EXAMINED, \
             CURRENT_SCHEMA, END_EVENT_ID - EVENT_ID, NO_INDEX_USED \
             FROM performance_schema.events_statements_history ORDER BY EVENT_ID",
        );
        let n = h.len();
        assert!(n >= 3, "{h:?}");
        assert_eq!(
            h[n - 1],
            [
                "1",
                "statement/sql/select",
                "SELECT * FROM t",
                "SELECT * FROM `t`",
                "1",
                // the slow log's rows examined: every Handler_read_* (first row, then next)
                "2",
                "d",
                "1",
                "1"
            ]
        );
        assert_eq!(h[n - 2][1], "statement/sql/insert");
        // the current event of a thread running a statement is that statement
        let c = rows(
            &mut s,
            "SELECT SQL_TEXT, END_EVENT_ID IS NULL FROM performance_schema.events_statements_current",
        );
        assert_eq!(c.len(), 1);
        assert!(c[0][0].starts_with("SELECT SQL_TEXT"), "{c:?}");
        assert_eq!(c[0][1], "1");
        let t = rows(
            &mut s,
            "SELECT THREAD_ID, PROCESSLIST_ID, NAME, TYPE, PROCESSLIST_USER, PROCESSLIST_DB, \
             PROCESSLIST_COMMAND FROM performance_schema.threads",
        );
        assert_eq!(
            t,
            [[
                "1",
                "1",
                "thread/sql/one_connection",
                "FOREGROUND",
                "root",
                "d",
                "Query"
            ]]
        );
    }

    #[test]
    fn prepared_statements_and_multi_statement_texts() {
        let mut s = session();
        ok(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, v INT)");
        let (id, _, _) = s.prepare("SELECT v FROM t WHERE id = ?").unwrap();
        for i in 0..4 {
            s.execute(id, &[common::Value::Int(i)]).unwrap();
        }
        let r = s.query(
            "SELECT 1; UPDATE t SET v = 2 WHERE id = 7; SELECT 'x', 2",
            true,
        );
        assert!(r.iter().all(|r| r.is_ok()));
        let d = digests(&mut s);
        let count = |text: &str| {
            d.iter()
                .find(|r| r[1] == text)
                .map(|r| r[2].clone())
                .unwrap_or_else(|| panic!("{text} not in {d:?}"))
        };
        assert_eq!(count("SELECT `v` FROM `t` WHERE `id` = ?"), "4");
        assert_eq!(count("SELECT ?"), "1");
        assert_eq!(count("UPDATE `t` SET `v` = ? WHERE `id` = ?"), "1");
        assert_eq!(count("SELECT ?, ..."), "1");
    }

    #[test]
    fn performance_schema_off_collects_nothing() {
        use storage::StorageOptions;
        let storage =
            storage::Storage::open(storage::mem::MemEngine::new(), StorageOptions::default())
                .unwrap();
        let g = crate::runtime::sysvars::GlobalVars::new(&[(
            "performance_schema".into(),
            "OFF".into(),
        )])
        .unwrap();
        let inst = crate::session::session::Instance::new(storage, g);
        let mut s = Session::new(inst, 1, "root", "localhost", None).unwrap();
        rows(&mut s, "SELECT 1");
        assert!(s.inst.globals.perf().digests.is_empty());
        assert!(rows(
            &mut s,
            "SELECT * FROM performance_schema.events_statements_history"
        )
        .is_empty());
        assert_eq!(rows(&mut s, "SELECT @@performance_schema"), [["0"]]);
    }

    #[test]
    fn innodb_status_has_the_monitor_sections_and_the_last_deadlock() {
        let mut a = session();
        ok(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)");
        ok(&mut a, "INSERT INTO t VALUES (1, 0), (2, 0)");
        let mut b = Session::new(a.inst.clone(), 2, "root", "localhost", Some("d")).unwrap();
        ok(&mut a, "BEGIN");
        ok(&mut b, "BEGIN");
        ok(&mut a, "UPDATE t SET v = 1 WHERE id = 1");
        ok(&mut b, "UPDATE t SET v = 2 WHERE id = 2");
        let h = std::thread::spawn(move || {
            let r = b
                .query("UPDATE t SET v = 2 WHERE id = 1", false)
                .pop()
                .unwrap();
            let _ = b.query("ROLLBACK", false);
            r.map(|_| ()).map_err(|e| e.num())
        });
        // a's update waits until b's is waiting, then closes the cycle (or is the one waiting)
        while a.inst.storage.locks().waiting().is_empty() {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let ra = a
            .query("UPDATE t SET v = 1 WHERE id = 2", false)
            .pop()
            .unwrap();
        let rb = h.join().unwrap();
        assert!(
            matches!((&ra, &rb), (Err(e), Ok(())) if e.num() == 1213)
                || matches!((&ra, &rb), (Ok(_), Err(1213))),
            "{ra:?} {rb:?}"
        );
        let _ = a.query("ROLLBACK", false);
        let text = rows(&mut a, "SHOW ENGINE INNODB STATUS")
            .remove(0)
            .remove(2);
        for section in [
            "BACKGROUND THREAD",
            "SEMAPHORES",
            "LATEST DETECTED DEADLOCK",
            "TRANSACTIONS",
            "FILE I/O",
            "BUFFER POOL AND MEMORY",
            "ROW OPERATIONS",
            "END OF INNODB MONITOR OUTPUT",
        ] {
            assert!(
                text.contains(&format!("\n{section}\n")),
                "{section}: {text}"
            );
        }
        assert!(text.contains("UPDATE t SET v = 2 WHERE id = 1"), "{text}");
        assert!(text.contains("UPDATE t SET v = 1 WHERE id = 2"), "{text}");
        assert!(text.contains("*** WE ROLL BACK TRANSACTION (2)"), "{text}");
        assert!(
            text.contains("index PRIMARY of table `d`.`t` trx id"),
            "{text}"
        );
        assert!(
            text.contains("MySQL thread id 2, OS thread handle"),
            "{text}"
        );
        let mutex = s_rows(&mut a, "SHOW ENGINE INNODB MUTEX");
        assert!(mutex.is_empty());
    }

    fn s_rows(s: &mut Session<MemEngine>, sql: &str) -> Vec<Vec<String>> {
        rows(s, sql)
    }
}
