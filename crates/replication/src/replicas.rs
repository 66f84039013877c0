//! The replicas a source knows of: those registered with COM_REGISTER_SLAVE (SHOW REPLICAS),
//! and the binlog dumps running, so that a replica reconnecting with the same `server_id`
//! ends its previous (zombie) dump, as MySQL's `kill_zombie_dump_threads` does.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

/// One registered replica: a row of SHOW REPLICAS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaInfo {
    /// The replica's `server_id` (`Server_Id`).
    pub server_id: u32,
    /// The host it reported (`report_host`; `Host`).
    pub host: String,
    /// The port it reported (`report_port`; `Port`).
    pub port: u16,
    /// The source's `server_id` as the replica sees it (`Source_Id`): the replica's value, or
    /// this server's when it sent 0.
    pub source_id: u32,
    /// The replica's `@replica_uuid` / `@slave_uuid` (`Replica_UUID`), empty if not set.
    pub uuid: String,
    /// The connection that registered it: the entry goes when that connection ends.
    pub conn_id: u32,
}

struct Dump {
    server_id: u32,
    conn_id: u32,
    stop: Arc<AtomicBool>,
}

/// The registry (one per server; thread-safe).
#[derive(Default)]
pub struct Replicas {
    registered: Mutex<Vec<ReplicaInfo>>,
    dumps: Mutex<Vec<Dump>>,
}

impl Replicas {
    /// COM_REGISTER_SLAVE: adds `r`, replacing an entry with the same `server_id`.
    pub fn register(&self, r: ReplicaInfo) {
        let mut v = self.registered.lock();
        v.retain(|x| x.server_id != r.server_id && x.conn_id != r.conn_id);
        v.push(r);
    }

    /// The registered replicas, by `server_id`.
    pub fn list(&self) -> Vec<ReplicaInfo> {
        let mut v = self.registered.lock().clone();
        v.sort_by_key(|r| r.server_id);
        v
    }

    /// A binlog dump starts on `conn_id` for a replica with `server_id`: a running dump of
    /// the same `server_id` (not 0, which `mysqlbinlog` uses) is told to stop. Returns the
    /// new dump's stop flag.
    pub fn start_dump(&self, server_id: u32, conn_id: u32) -> Arc<AtomicBool> {
        let stop = Arc::new(AtomicBool::new(false));
        let mut v = self.dumps.lock();
        if server_id != 0 {
            for d in v.iter().filter(|d| d.server_id == server_id) {
                d.stop.store(true, Ordering::Relaxed);
            }
            v.retain(|d| d.server_id != server_id);
        }
        v.push(Dump {
            server_id,
            conn_id,
            stop: stop.clone(),
        });
        stop
    }

    /// The connection `conn_id` ended: its registration and its dump go.
    pub fn connection_ended(&self, conn_id: u32) {
        self.registered.lock().retain(|r| r.conn_id != conn_id);
        self.dumps.lock().retain(|d| d.conn_id != conn_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(server_id: u32, conn_id: u32) -> ReplicaInfo {
        ReplicaInfo {
            server_id,
            host: "h".into(),
            port: 3306,
            source_id: 1,
            uuid: String::new(),
            conn_id,
        }
    }

    #[test]
    fn register_replaces_same_server_id_and_ends_with_the_connection() {
        let r = Replicas::default();
        r.register(info(7, 1));
        r.register(info(3, 2));
        r.register(info(7, 4));
        let l = r.list();
        assert_eq!(
            l.iter()
                .map(|x| (x.server_id, x.conn_id))
                .collect::<Vec<_>>(),
            [(3, 2), (7, 4)]
        );
        r.connection_ended(4);
        assert_eq!(r.list().len(), 1);
    }

    #[test]
    fn a_second_dump_of_a_server_id_stops_the_first() {
        let r = Replicas::default();
        let a = r.start_dump(5, 1);
        let zero1 = r.start_dump(0, 2);
        let zero2 = r.start_dump(0, 3);
        assert!(!a.load(Ordering::Relaxed));
        let b = r.start_dump(5, 4);
        assert!(a.load(Ordering::Relaxed));
        assert!(!b.load(Ordering::Relaxed));
        assert!(!zero1.load(Ordering::Relaxed) && !zero2.load(Ordering::Relaxed));
        r.connection_ended(4);
        let c = r.start_dump(5, 6);
        assert!(!b.load(Ordering::Relaxed) && !c.load(Ordering::Relaxed));
    }
}
