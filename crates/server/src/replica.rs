//! The replica's wiring: the applier's session (an [`ApplyTarget`] over a SQL-layer session
//! whose commits carry the source's GTIDs into this server's binary log) and the
//! [`Replica`] installed into the instance at startup, its threads restarted if they were
//! running when the server stopped.

use std::path::Path;
use std::sync::Arc;

use common::{Error, Result};
use replication::replica::{ApplyTarget, Replica, ReplicaSetup, TableColumn};
use replication::{Binlog, Uuid};
use sql::{Instance, Output, Session};
use storage::engine::KvEngine;

/// The applier session's connection id: above any the listener hands out.
const APPLIER_CONN_ID: u32 = u32::MAX - 16;

/// A SQL-layer session the applier runs statements in.
struct SessionTarget<E: KvEngine> {
    sess: Session<E>,
    log: Option<Arc<Binlog<E>>>,
}

impl<E: KvEngine> ApplyTarget for SessionTarget<E> {
    fn assign_gtid(&mut self, uuid: Uuid, gno: u64, original_micros: u64) {
        if let Some(l) = &self.log {
            l.assign_gtid(self.sess.conn_id, uuid, gno, original_micros);
        }
    }

    fn finish_gtid(&mut self, applied: bool) -> Result<()> {
        let Some(l) = &self.log else { return Ok(()) };
        if applied {
            l.log_assigned_empty(self.sess.conn_id)
        } else {
            l.unassign_gtid(self.sess.conn_id);
            Ok(())
        }
    }

    fn execute(&mut self, db: Option<&str>, sql: &str) -> Result<u64> {
        if let Some(db) = db {
            if self.sess.db.as_deref() != Some(db) {
                self.sess.use_db(db)?;
            }
        }
        let mut outs = self.sess.query(sql, false);
        match outs.pop() {
            Some(Ok(Output::Ok { affected, .. })) => Ok(affected),
            Some(Ok(_)) | None => Ok(0),
            Some(Err(e)) => Err(e),
        }
    }

    fn columns(&mut self, db: &str, table: &str) -> Result<Vec<TableColumn>> {
        let t = self
            .sess
            .storage()
            .get_table(db, table)?
            .ok_or_else(|| Error::no_such_table(db, table))?;
        let key: Vec<usize> = if t.hidden_pk {
            Vec::new()
        } else {
            t.indexes
                .first()
                .map(|i| i.columns.iter().map(|c| c.col).collect())
                .unwrap_or_default()
        };
        Ok(t.columns
            .iter()
            .enumerate()
            .map(|(i, c)| TableColumn {
                name: c.name.clone(),
                key: key.contains(&i),
                generated: c.generated.is_some(),
            })
            .collect())
    }
}

/// Creates the instance's replica and installs it; the threads that were running when the
/// server stopped start again.
///
/// # Errors
/// A corrupt replica configuration file.
pub fn install<E: KvEngine>(
    inst: &Arc<Instance<E>>,
    datadir: &Path,
    server_uuid: Uuid,
    port: u16,
) -> std::result::Result<(), String> {
    let server_id = match inst.globals.get("server_id") {
        Some(common::Value::Int(n)) => u32::try_from(n).unwrap_or(1),
        Some(common::Value::UInt(n)) => u32::try_from(n).unwrap_or(1),
        _ => 1,
    };
    let weak = Arc::downgrade(inst);
    let gtids = weak.clone();
    let setup = ReplicaSetup {
        datadir: datadir.to_path_buf(),
        server_id,
        server_uuid,
        report_port: port,
        gtid_executed: Arc::new(move || {
            let inst = gtids.upgrade()?;
            let log = inst.binlog.read().clone()?;
            Some(log.gtid_executed())
        }),
        target: Arc::new(move || {
            let inst = weak
                .upgrade()
                .ok_or_else(|| Error::internal("the server is shutting down"))?;
            let mut sess = Session::new(inst.clone(), APPLIER_CONN_ID, "root", "localhost", None)?;
            // an UPDATE that changes nothing still found its row (not a missing row, 1032)
            sess.client_found_rows = true;
            // the replication applier writes while read_only / super_read_only are on (MySQL)
            sess.replication_applier = true;
            let log = inst.binlog.read().clone();
            Ok(Box::new(SessionTarget { sess, log }) as Box<dyn ApplyTarget>)
        }),
    };
    let r = Replica::open(setup)
        .map_err(|e| format!("cannot read the replica configuration: {}", e.msg))?;
    *inst.replica.write() = Some(r);
    Ok(())
}

/// Starts the replication threads that were running when the server stopped (once the
/// server listens).
pub fn start_at_boot<E: KvEngine>(inst: &Instance<E>) {
    if let Some(r) = inst.replica.read().clone() {
        r.start_at_boot();
    }
}
