//! The applier (MySQL's SQL thread): takes each queued transaction and applies it here as one
//! transaction: a DDL statement as it is, BEGIN … row events … XID as BEGIN, the rows'
//! statements ([`super::sqltext`]) and COMMIT, the source's GTID assigned to the commit so
//! that `gtid_executed` records it atomically with the rows. A transaction already executed
//! is skipped. An error rolls back, stops the applier and is shown in Last_SQL_Error; the
//! transaction stays queued, so START REPLICA retries it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use binlog::event::TableMapEvent;
use binlog::{Event, GtidSet};
use common::{codes, Error};

use super::queue::QueuedTrx;
use super::sqltext::{event_name, row_statements};
use super::status::ThreadError;
use super::{ApplyTarget, Shared};

const IDLE: &str = "Replica has read all relay log; waiting for more updates";

/// The applier thread's state.
pub struct Applier {
    /// Shared with the receiver and the statements.
    pub shared: Arc<Shared>,
    /// This server's `gtid_executed`.
    pub executed: Arc<dyn Fn() -> Option<GtidSet> + Send + Sync>,
    /// Set by STOP REPLICA.
    pub stop: Arc<AtomicBool>,
    /// The session the statements run in.
    pub target: Box<dyn ApplyTarget>,
}

/// An error applying a transaction: the number and Last_SQL_Error's text.
struct Failure {
    errno: u32,
    msg: String,
}

impl Applier {
    /// Runs until stopped or an error.
    pub fn run(mut self) {
        if let Err(e) = self.target.execute(None, "SET time_zone = '+00:00'") {
            self.fail(Failure {
                errno: u32::from(e.code.num),
                msg: e.msg,
            });
            return;
        }
        loop {
            if self.stop.load(Ordering::SeqCst) {
                break;
            }
            {
                let mut st = self.shared.state.lock();
                if self.shared.queue.is_empty() {
                    st.behind_since = None;
                    st.sql_state = IDLE.into();
                }
            }
            let Some(t) = self.shared.queue.front(Duration::from_millis(200)) else {
                continue;
            };
            if (self.executed)().is_some_and(|g| g.contains(&t.uuid, t.gno)) {
                self.shared.queue.pop_front();
                continue;
            }
            {
                let mut st = self.shared.state.lock();
                st.behind_since = Some(t.commit_secs);
                st.sql_state = "Applying batch of row changes".into();
            }
            match self.apply(&t) {
                Ok(()) => {
                    self.shared.queue.pop_front();
                    let mut st = self.shared.state.lock();
                    st.exec_file = t.end_file.clone();
                    st.exec_pos = t.end_pos;
                }
                Err(f) => {
                    self.fail(f);
                    return;
                }
            }
        }
        let mut st = self.shared.state.lock();
        st.sql = false;
        st.sql_state.clear();
        st.behind_since = None;
    }

    fn fail(&self, f: Failure) {
        tracing::error!(errno = f.errno, error = %f.msg, "replica: the applier stopped");
        let mut st = self.shared.state.lock();
        st.sql_error = ThreadError::now(f.errno, f.msg);
        st.sql = false;
        st.sql_state.clear();
        st.behind_since = None;
    }

    fn apply(&mut self, t: &QueuedTrx) -> Result<(), Failure> {
        self.target.assign_gtid(t.uuid, t.gno, t.original_micros);
        let r = self.apply_events(t);
        let end = self.target.finish_gtid(r.is_ok());
        if r.is_err() {
            let _ = self.target.execute(None, "ROLLBACK");
        }
        r?;
        end.map_err(|e| Failure {
            errno: u32::from(e.code.num),
            msg: e.msg,
        })
    }

    fn apply_events(&mut self, t: &QueuedTrx) -> Result<(), Failure> {
        let at = format!(
            "the event's source log {}, end_log_pos {}",
            t.end_file, t.end_pos
        );
        let mut maps: HashMap<u64, TableMapEvent> = HashMap::new();
        for ev in &t.events {
            match ev {
                Event::Query(q) => {
                    let text = q.query_text();
                    let db = (!q.schema.is_empty()).then_some(q.schema.as_str());
                    self.target.execute(db, &text).map_err(|e| Failure {
                        errno: u32::from(e.code.num),
                        msg: format!(
                            "Error '{}' on query. Default database: '{}'. Query: '{}'",
                            e.msg, q.schema, text
                        ),
                    })?;
                }
                Event::TableMap(tm) => {
                    maps.insert(tm.table_id, tm.clone());
                }
                Event::Rows(r) => {
                    let tm = maps.get(&r.table_id).ok_or_else(|| Failure {
                        errno: 1105,
                        msg: format!(
                            "a rows event for table id {} without its table map; {at}",
                            r.table_id
                        ),
                    })?;
                    let fail = |e: Error| Failure {
                        errno: u32::from(e.code.num),
                        msg: format!(
                            "Could not execute {} event on table {}.{}; {}, Error_code: {}; {at}",
                            event_name(r.kind),
                            tm.schema,
                            tm.table,
                            e.msg,
                            e.code.num
                        ),
                    };
                    let rows = r
                        .rows(&tm.columns)
                        .map_err(|e| fail(Error::new(codes::ER_UNKNOWN_ERROR, e.to_string())))?;
                    let cols = self.target.columns(&tm.schema, &tm.table).map_err(fail)?;
                    for s in row_statements(tm, r.kind, &rows, &cols).map_err(fail)? {
                        let n = self.target.execute(None, &s.sql).map_err(fail)?;
                        if s.one_row && n == 0 {
                            return Err(fail(Error::new(
                                codes::ER_KEY_NOT_FOUND,
                                format!("Can't find record in '{}'", tm.table),
                            )));
                        }
                    }
                }
                Event::Xid(_) => {
                    self.target.execute(None, "COMMIT").map_err(|e| Failure {
                        errno: u32::from(e.code.num),
                        msg: format!(
                            "Error in Xid_log_event: Commit could not be completed, '{}'",
                            e.msg
                        ),
                    })?;
                }
                _ => {}
            }
        }
        Ok(())
    }
}
