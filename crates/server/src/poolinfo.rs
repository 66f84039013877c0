//! The thread pool's INFORMATION_SCHEMA tables (TP_THREAD_STATE, TP_THREAD_GROUP_STATE,
//! TP_THREAD_GROUP_STATS) and connection-handling status variables, read from the listener's
//! [`protocol::ConnectionRegistry`] and handed to the SQL layer as a [`sql::runtime::info::ServerInfo`].

use std::sync::Arc;

use common::wait::WaitType;
use common::Value;
use protocol::ConnectionRegistry;
use sql::runtime::info::{InfoTable, InfoType, ServerInfo};

const B: InfoType = InfoType::BigInt;

/// The TP_* tables. Column names follow MySQL Enterprise's thread pool; `STATE` and
/// `CONNECTION_ID` (TP_THREAD_STATE), `WAITING_THREAD_COUNT` (TP_THREAD_GROUP_STATE) and
/// `NET_WAITS` (TP_THREAD_GROUP_STATS) are Strata additions.
static TABLES: &[InfoTable] = &[
    InfoTable {
        name: "TP_THREAD_STATE",
        columns: &[
            ("TP_GROUP_ID", B),
            ("TP_THREAD_NUMBER", B),
            ("PROCESS_COUNT", B),
            ("WAIT_TYPE", InfoType::VarChar(32)),
            ("STATE", InfoType::VarChar(16)),
            ("CONNECTION_ID", B),
        ],
    },
    InfoTable {
        name: "TP_THREAD_GROUP_STATE",
        columns: &[
            ("TP_GROUP_ID", B),
            ("CONSUMER_THREADS", B),
            ("RESERVE_THREADS", B),
            ("CONNECTION_COUNT", B),
            ("QUEUED_QUERIES", B),
            ("QUEUED_TRANS", B),
            ("STALL_LIMIT", B),
            ("PRIO_KICKUP_TIMER", B),
            ("ALGORITHM", B),
            ("THREAD_COUNT", B),
            ("ACTIVE_THREAD_COUNT", B),
            ("STALLED_THREAD_COUNT", B),
            ("WAITING_THREAD_COUNT", B),
            ("WAITING_THREAD_NUMBER", B),
            ("OLDEST_QUEUED", B),
            ("MAX_THREAD_IDS_IN_GROUP", B),
        ],
    },
    InfoTable {
        name: "TP_THREAD_GROUP_STATS",
        columns: &[
            ("TP_GROUP_ID", B),
            ("CONNECTIONS_STARTED", B),
            ("CONNECTIONS_CLOSED", B),
            ("QUERIES_EXECUTED", B),
            ("QUERIES_QUEUED", B),
            ("THREADS_STARTED", B),
            ("PRIO_KICKUPS", B),
            ("STALLED_QUERIES_EXECUTED", B),
            ("BECOME_CONSUMER_THREAD", B),
            ("BECOME_RESERVE_THREAD", B),
            ("BECOME_WAITING_THREAD", B),
            ("WAKE_THREAD_STALL_CHECKER", B),
            ("SLEEP_WAITS", B),
            ("DISK_IO_WAITS", B),
            ("ROW_LOCK_WAITS", B),
            ("GLOBAL_LOCK_WAITS", B),
            ("META_DATA_LOCK_WAITS", B),
            ("TABLE_LOCK_WAITS", B),
            ("USER_LOCK_WAITS", B),
            ("BINLOG_WAITS", B),
            ("GROUP_COMMIT_WAITS", B),
            ("FSYNC_WAITS", B),
            ("NET_WAITS", B),
        ],
    },
];

/// Serves the TP_* tables and connection status from a listener's registry.
pub struct PoolInfo {
    /// The listener's registry.
    pub registry: Arc<ConnectionRegistry>,
    /// The TLS setup (certificate dates for `Ssl_server_not_before/after`), if enabled.
    pub tls: Option<Arc<protocol::tls::TlsSetup>>,
    /// The storage engine's row cache (`Strata_row_cache_*` status), if enabled.
    pub row_cache: Option<Arc<storage_rocks::rowcache::RowCache>>,
    /// The storage engine's range cache (`Strata_range_cache_*` status), if enabled.
    pub range_cache: Option<Arc<storage_rocks::rangecache::RangeCache>>,
    /// The storage engine's counters (`Strata_block_cache_*` status).
    pub engine_stats: storage_rocks::EngineStats,
}

/// RocksDB's own counters as `Rocksdb_*` status, and InnoDB's buffer pool status mapped to the
/// block cache: a page is a data block of `block_size` bytes, the pool's pages are the cache's
/// capacity in blocks, its data pages the bytes it holds in blocks, a read request a block
/// cache lookup and a read one that missed (docs/compatibility.md, "Status variables").
fn engine_status(stats: &storage_rocks::EngineStats) -> Vec<(&'static str, u64)> {
    let e = stats.counters();
    let bc = stats.block_cache();
    let size = stats.block_cache_size();
    let block = size.block_size.max(1);
    let total = size.capacity / block;
    let data = size.usage.div_ceil(block);
    vec![
        ("Rocksdb_block_cache_hit", bc.hits),
        ("Rocksdb_block_cache_miss", bc.misses),
        ("Rocksdb_block_cache_data_hit", bc.data_hits),
        ("Rocksdb_block_cache_data_miss", bc.data_misses),
        ("Rocksdb_block_cache_usage", size.usage),
        ("Rocksdb_bloom_filter_useful", e.bloom_useful),
        ("Rocksdb_stall_micros", e.stall_micros),
        ("Rocksdb_bytes_read", e.bytes_read),
        ("Rocksdb_bytes_written", e.bytes_written),
        ("Rocksdb_number_keys_read", e.keys_read),
        ("Rocksdb_number_keys_written", e.keys_written),
        ("Rocksdb_compact_read_bytes", e.compact_read_bytes),
        ("Rocksdb_compact_write_bytes", e.compact_write_bytes),
        ("Rocksdb_flush_write_bytes", e.flush_write_bytes),
        ("Rocksdb_compaction_pending", e.compaction_pending),
        (
            "Rocksdb_estimate_pending_compaction_bytes",
            e.pending_compaction_bytes,
        ),
        ("Innodb_page_size", block),
        ("Innodb_buffer_pool_pages_total", total),
        ("Innodb_buffer_pool_pages_data", data),
        ("Innodb_buffer_pool_pages_free", total.saturating_sub(data)),
        ("Innodb_buffer_pool_bytes_data", size.usage),
        ("Innodb_buffer_pool_read_requests", bc.hits + bc.misses),
        ("Innodb_buffer_pool_reads", bc.misses),
    ]
}

fn u(n: u64) -> Value {
    Value::UInt(n)
}

impl ServerInfo for PoolInfo {
    fn tables(&self) -> &'static [InfoTable] {
        TABLES
    }

    fn engine_status(&self, engine: &str) -> Option<Vec<(String, String, String)>> {
        (engine == "ROCKSDB").then(|| self.engine_stats.status_rows())
    }

    fn rows(&self, name: &str) -> Vec<Vec<Value>> {
        let Some(snap) = self.registry.pool_snapshot() else {
            return vec![];
        };
        match name {
            "TP_THREAD_STATE" => snap
                .threads
                .iter()
                .map(|t| {
                    vec![
                        u(t.group as u64),
                        u(t.thread_no),
                        u(t.process_count),
                        t.wait_type
                            .map(|w| Value::Str(w.name().into()))
                            .unwrap_or(Value::Null),
                        Value::Str(t.state.into()),
                        t.conn_id.map(|c| u(c as u64)).unwrap_or(Value::Null),
                    ]
                })
                .collect(),
            "TP_THREAD_GROUP_STATE" => snap
                .groups
                .iter()
                .map(|g| {
                    vec![
                        u(g.id as u64),
                        u(g.consumer_threads),
                        u(g.reserve_threads),
                        u(g.connection_count),
                        u(g.queued_queries),
                        u(g.queued_trans),
                        u(g.stall_limit),
                        u(g.prio_kickup_timer),
                        u(0),
                        u(g.thread_count),
                        u(g.active_thread_count),
                        u(g.stalled_thread_count),
                        u(g.waiting_thread_count),
                        u(g.waiting_thread_number),
                        u(g.oldest_queued),
                        u(g.max_thread_ids_in_group),
                    ]
                })
                .collect(),
            "TP_THREAD_GROUP_STATS" => snap
                .groups
                .iter()
                .map(|g| {
                    let s = &g.stats;
                    let mut row = vec![
                        u(g.id as u64),
                        u(s.connections_started),
                        u(s.connections_closed),
                        u(s.queries_executed),
                        u(s.queries_queued),
                        u(s.threads_started),
                        u(s.prio_kickups),
                        u(s.stalled_queries_executed),
                        u(s.become_consumer_thread),
                        u(s.become_reserve_thread),
                        u(s.become_waiting_thread),
                        u(s.wake_thread_stall_checker),
                    ];
                    row.extend(WaitType::ALL.iter().map(|w| u(s.waits[w.index()])));
                    row
                })
                .collect(),
            _ => vec![],
        }
    }

    fn status(&self) -> Vec<(String, String)> {
        let c = self.registry.counters();
        let cached = self
            .registry
            .pool_snapshot()
            .map(|s| {
                s.groups
                    .iter()
                    .map(|g| g.consumer_threads + g.reserve_threads)
                    .sum::<u64>()
            })
            .unwrap_or(0);
        let rc = self
            .row_cache
            .as_ref()
            .map(|r| r.stats())
            .unwrap_or_default();
        let gc = self
            .range_cache
            .as_ref()
            .map(|r| r.stats())
            .unwrap_or_default();
        let bc = self.engine_stats.block_cache();
        let counters = [
            ("Strata_row_cache_hits", rc.hits),
            ("Strata_row_cache_misses", rc.misses),
            ("Strata_row_cache_bytes", rc.bytes),
            ("Strata_range_cache_hits", gc.hits),
            ("Strata_range_cache_misses", gc.misses),
            ("Strata_range_cache_fills", gc.fills),
            ("Strata_range_cache_bytes", gc.bytes),
            ("Strata_block_cache_hits", bc.hits),
            ("Strata_block_cache_misses", bc.misses),
            ("Strata_block_cache_data_hits", bc.data_hits),
            ("Strata_block_cache_data_misses", bc.data_misses),
            ("Strata_block_cache_data_adds", bc.data_adds),
            ("Strata_block_cache_index_misses", bc.index_misses),
            ("Strata_block_cache_filter_misses", bc.filter_misses),
            ("Threads_created", c.threads_created),
            ("Threads_cached", cached),
            (
                "Connection_errors_max_connections",
                c.refused_max_connections,
            ),
            ("Ssl_accepts", c.ssl_accepts),
            ("Ssl_finished_accepts", c.ssl_finished_accepts),
        ];
        let mut out: Vec<(String, String)> = counters
            .into_iter()
            .chain(engine_status(&self.engine_stats))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        out.extend([
            (
                "Ssl_server_not_before".into(),
                self.tls
                    .as_ref()
                    .map(|t| t.not_before.clone())
                    .unwrap_or_default(),
            ),
            (
                "Ssl_server_not_after".into(),
                self.tls
                    .as_ref()
                    .map(|t| t.not_after.clone())
                    .unwrap_or_default(),
            ),
        ]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_columns_match_wait_types() {
        let stats = TABLES
            .iter()
            .find(|t| t.name == "TP_THREAD_GROUP_STATS")
            .unwrap();
        assert_eq!(stats.columns.len(), 12 + WaitType::ALL.len());
        assert_eq!(
            stats.columns[12 + WaitType::RowLock.index()].0,
            "ROW_LOCK_WAITS"
        );
        assert_eq!(stats.columns[12 + WaitType::Sync.index()].0, "FSYNC_WAITS");
    }
}
