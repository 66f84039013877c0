//! A session as a replication source: COM_REGISTER_SLAVE and COM_BINLOG_DUMP /
//! COM_BINLOG_DUMP_GTID over the instance's [`replication::Replicas`] and binary log, with
//! what the replica declared in user variables (`@source_heartbeat_period`,
//! `@source_binlog_checksum`, `@replica_uuid`, and their `master`/`slave` names).

use std::time::Duration;

use common::{Result, Value};
use protocol::{BinlogDumpRequest, BinlogStream, DumpStep, ReplicaRegistration};
use replication::dump::{decode_gtid_set, fatal};
use replication::{BinlogDump, DumpRequest, ReplicaInfo};
use sql::acl::accounts::{privs, require_global};
use sql::bind::expr::BindEnv;
use storage::engine::KvEngine;

/// BINLOG_DUMP_NON_BLOCK.
const NON_BLOCK: u16 = 0x1;

/// The first of `names` set as a user variable.
fn user_var<E: KvEngine>(sess: &sql::Session<E>, names: &[&str]) -> Option<Value> {
    names
        .iter()
        .map(|n| sess.user_var(n))
        .find(|v| !matches!(v, Value::Null))
}

/// COM_REGISTER_SLAVE: needs REPLICATION SLAVE; the replica is listed by SHOW REPLICAS
/// until its connection ends.
///
/// # Errors
/// 1227 without the privilege.
pub fn register<E: KvEngine>(sess: &sql::Session<E>, r: ReplicaRegistration) -> Result<()> {
    require_global(sess, privs::REPL_SLAVE, "REPLICATION SLAVE")?;
    let own_id = match sess.inst.globals.get("server_id") {
        Some(Value::Int(n)) => u32::try_from(n).unwrap_or(0),
        Some(Value::UInt(n)) => u32::try_from(n).unwrap_or(0),
        _ => 0,
    };
    let uuid = user_var(sess, &["replica_uuid", "slave_uuid"])
        .map(|v| v.to_string())
        .unwrap_or_default();
    sess.inst.replicas.register(ReplicaInfo {
        server_id: r.server_id,
        host: r.host,
        port: r.port,
        source_id: if r.source_id == 0 {
            own_id
        } else {
            r.source_id
        },
        uuid,
        conn_id: sess.conn_id,
    });
    Ok(())
}

/// COM_BINLOG_DUMP / COM_BINLOG_DUMP_GTID: needs REPLICATION SLAVE and a binary log; the
/// dump is checked and positioned here, then streamed by the connection.
///
/// # Errors
/// 1227 without the privilege, 1236 for what the dump refuses (see
/// [`BinlogDump::start`]), 1772 for a malformed GTID set.
pub fn dump<E: KvEngine>(
    sess: &sql::Session<E>,
    req: BinlogDumpRequest,
) -> Result<Box<dyn BinlogStream>> {
    require_global(sess, privs::REPL_SLAVE, "REPLICATION SLAVE")?;
    let log = sess
        .inst
        .binlog
        .read()
        .clone()
        .ok_or_else(|| fatal("Binary log is not open"))?;
    let exclude = req.gtid_set.as_deref().map(decode_gtid_set).transpose()?;
    let nanos = match user_var(
        sess,
        &["source_heartbeat_period", "master_heartbeat_period"],
    ) {
        Some(Value::Int(n)) => n.max(0) as u64,
        Some(Value::UInt(n)) => n,
        Some(v) => v.to_string().trim().parse::<f64>().map_or(0, |f| f as u64),
        None => 0,
    };
    let checksum_aware =
        user_var(sess, &["source_binlog_checksum", "master_binlog_checksum"]).is_some();
    let gtid = exclude.is_some();
    let stop = sess.inst.replicas.start_dump(req.server_id, sess.conn_id);
    let dump = BinlogDump::start(
        log,
        DumpRequest {
            file: req.file,
            pos: req.pos,
            exclude,
            non_block: req.flags & NON_BLOCK != 0 || req.server_id == 0,
            heartbeat: (nanos > 0).then(|| Duration::from_nanos(nanos)),
            checksum_aware,
            stop,
        },
    )?;
    if let Some(p) = sess.inst.processes.lock().get(&sess.conn_id) {
        let mut now = p.now.lock();
        now.command = if gtid {
            "Binlog Dump GTID"
        } else {
            "Binlog Dump"
        };
        now.info = None;
    }
    Ok(Box::new(Stream(dump)))
}

/// A [`BinlogDump`] as the protocol drives it.
struct Stream<E: KvEngine>(BinlogDump<E>);

impl<E: KvEngine> BinlogStream for Stream<E> {
    fn next(&mut self, wait: Duration) -> Result<DumpStep> {
        Ok(match self.0.next(wait)? {
            replication::DumpStep::Event(e) => DumpStep::Event(e),
            replication::DumpStep::Idle => DumpStep::Idle,
            replication::DumpStep::End => DumpStep::End,
            replication::DumpStep::Stopped => DumpStep::Stopped,
        })
    }

    fn has_pending(&self) -> bool {
        self.0.has_pending()
    }
}
