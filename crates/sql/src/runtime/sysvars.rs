//! System variables: the registry of names, scopes and defaults, global values shared by the
//! instance, and session overrides. `SET`, `@@x` and `SHOW VARIABLES` go through here.

use std::collections::BTreeMap;
use std::sync::Arc;

use common::{codes, Error, Result, Value};
use parking_lot::RwLock;
use rustc_hash::FxHashMap;

/// Where a variable may be set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Only `SET GLOBAL`.
    Global,
    /// Only per session (e.g. `timestamp`, `last_insert_id`).
    Session,
    /// Both; sessions start from the global value.
    Both,
    /// Read-only everywhere.
    ReadOnly,
}

/// How a variable's values are checked and normalised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// ON/OFF, 1/0.
    Bool,
    /// Unsigned integer.
    Int,
    /// Free string.
    Str,
    /// sql_mode list.
    SqlMode,
    /// Isolation level name.
    Isolation,
    /// EXPLAIN's default format: TRADITIONAL, JSON or TREE (`explain_format`).
    ExplainFormat,
    /// A character set name.
    Charset,
    /// A collation name.
    Collation,
    /// A non-negative number of seconds with microseconds (`long_query_time`), held as a
    /// DECIMAL with 6 fractional digits.
    Double,
    /// `log_output`: a set of FILE, TABLE and NONE (TABLE is refused: not built).
    LogOutput,
}

/// One registered variable.
#[derive(Debug, Clone)]
pub struct VarDef {
    /// Lower-case name.
    pub name: &'static str,
    /// Scope.
    pub scope: Scope,
    /// Kind.
    pub kind: Kind,
    /// Default as text.
    pub default: &'static str,
}

macro_rules! vars {
    ($($name:literal $scope:ident $kind:ident $default:expr;)*) => {
        &[$(VarDef { name: $name, scope: Scope::$scope, kind: Kind::$kind, default: $default }),*]
    };
}

/// The default sql_mode of MySQL 8.4.
pub const DEFAULT_SQL_MODE: &str =
    "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION";

/// The server version string clients see.
pub const SERVER_VERSION: &str = concat!("8.4.7-Strata-", env!("CARGO_PKG_VERSION"));

/// Variables that describe the server build: read-only at run time and not settable at startup.
const IDENTITY: &[&str] = &[
    "version",
    "version_comment",
    "version_compile_machine",
    "version_compile_os",
    "protocol_version",
];

/// Every variable Strata knows.
pub static VARS: &[VarDef] = vars! {
    "auto_increment_increment" Both Int "1";
    "auto_increment_offset" Both Int "1";
    "autocommit" Both Bool "1";
    "authentication_policy" ReadOnly Str "*,,";
    "automatic_sp_privileges" Global Bool "1";
    "back_log" ReadOnly Int "4096";
    "basedir" ReadOnly Str "/";
    "big_tables" Both Bool "0";
    "binlog_checksum" ReadOnly Str "CRC32";
    "binlog_format" Both Str "ROW";
    "binlog_row_metadata" Global Str "MINIMAL";
    "binlog_row_image" ReadOnly Str "FULL";
    "block_encryption_mode" Both Str "aes-128-ecb";
    "bulk_insert_buffer_size" Both Int "8388608";
    "character_set_client" Both Charset "utf8mb4";
    "character_set_connection" Both Charset "utf8mb4";
    "character_set_database" Both Charset "utf8mb4";
    "character_set_filesystem" Both Charset "binary";
    "character_set_results" Both Charset "utf8mb4";
    "character_set_server" Both Charset "utf8mb4";
    "character_set_system" ReadOnly Str "utf8mb3";
    "collation_connection" Both Collation "utf8mb4_0900_ai_ci";
    "collation_database" Both Collation "utf8mb4_0900_ai_ci";
    "collation_server" Both Collation "utf8mb4_0900_ai_ci";
    "completion_type" Both Str "NO_CHAIN";
    "concurrent_insert" Global Str "AUTO";
    "connect_timeout" Global Int "10";
    "datadir" ReadOnly Str "";
    "default_storage_engine" Both Str "InnoDB";
    "default_tmp_storage_engine" Both Str "InnoDB";
    "default_week_format" Both Int "0";
    "cte_max_recursion_depth" Both Int "1000";
    "div_precision_increment" Both Int "4";
    "enforce_gtid_consistency" ReadOnly Str "ON";
    "explain_format" Both ExplainFormat "TRADITIONAL";
    "explicit_defaults_for_timestamp" Both Bool "1";
    "foreign_key_checks" Both Bool "1";
    "general_log" Global Bool "0";
    "general_log_file" Global Str "";
    "group_concat_max_len" Both Int "1024";
    "gtid_executed" ReadOnly Str "";
    "gtid_mode" ReadOnly Str "ON";
    "gtid_purged" ReadOnly Str "";
    "hostname" ReadOnly Str "localhost";
    "identity" Session Int "0";
    "init_connect" Global Str "";
    "innodb_buffer_pool_size" ReadOnly Int "268435456";
    "innodb_flush_log_at_trx_commit" Global Int "1";
    "innodb_lock_wait_timeout" Both Int "50";
    "innodb_page_size" ReadOnly Int "16384";
    "innodb_strict_mode" Both Bool "1";
    "interactive_timeout" Both Int "28800";
    "insert_id" Session Int "0";
    "join_buffer_size" Both Int "262144";
    "last_insert_id" Session Int "0";
    "license" ReadOnly Str "Apache-2.0";
    "local_infile" Global Bool "0";
    "lock_wait_timeout" Both Int "31536000";
    "log_bin" ReadOnly Bool "0";
    "log_replica_updates" ReadOnly Bool "1";
    "log_bin_basename" ReadOnly Str "";
    "log_bin_index" ReadOnly Str "";
    "log_bin_trust_function_creators" Global Bool "0";
    "log_output" Global LogOutput "FILE";
    "log_queries_not_using_indexes" Global Bool "0";
    "log_slow_admin_statements" Global Bool "0";
    "long_query_time" Both Double "10.000000";
    "lower_case_file_system" ReadOnly Bool "0";
    "lower_case_table_names" ReadOnly Int "0";
    "max_allowed_packet" Both Int "67108864";
    "max_binlog_size" ReadOnly Int "1073741824";
    "max_connections" Global Int "151";
    "max_digest_length" ReadOnly Int "1024";
    "max_execution_time" Both Int "0";
    "max_heap_table_size" Both Int "16777216";
    "max_session_mem_used" Both Int "1073741824";
    "max_sp_recursion_depth" Both Int "0";
    "max_join_size" Both Int "18446744073709551615";
    "max_sort_length" Both Int "1024";
    "max_user_connections" Both Int "0";
    "min_examined_row_limit" Both Int "0";
    "net_buffer_length" Both Int "16384";
    "net_read_timeout" Both Int "30";
    "net_retry_count" Both Int "10";
    "net_write_timeout" Both Int "60";
    "optimizer_switch" Both Str "index_merge=on,index_merge_union=on,index_merge_sort_union=on,index_merge_intersection=on,engine_condition_pushdown=on,index_condition_pushdown=on,mrr=on,mrr_cost_based=on,block_nested_loop=on,batched_key_access=off,materialization=on,semijoin=on,loosescan=on,firstmatch=on,duplicateweedout=on,subquery_materialization_cost_based=on,use_index_extensions=on,condition_fanout_filter=on,derived_merge=on,use_invisible_indexes=off,skip_scan=on,hash_join=on,subquery_to_derived=off,prefer_ordering_index=on,hypergraph_optimizer=off,derived_condition_pushdown=on";
    "old_passwords" Both Int "0";
    "performance_schema" ReadOnly Bool "1";
    "performance_schema_digests_size" ReadOnly Int "10000";
    "performance_schema_events_statements_history_long_size" ReadOnly Int "10000";
    "performance_schema_events_statements_history_size" ReadOnly Int "10";
    "performance_schema_max_digest_length" ReadOnly Int "1024";
    "performance_schema_max_sql_text_length" ReadOnly Int "1024";
    "port" ReadOnly Int "3306";
    "protocol_version" ReadOnly Int "10";
    "pseudo_thread_id" Session Int "0";
    "query_cache_size" Global Int "0";
    "query_cache_type" Both Str "OFF";
    "read_only" Global Bool "0";
    "require_secure_transport" Global Bool "0";
    "rocksdb_block_cache_size" ReadOnly Int "268435456";
    "rocksdb_write_buffer_size" ReadOnly Int "8388608";
    "secure_file_priv" ReadOnly Str "";
    "server_id" ReadOnly Int "1";
    "server_uuid" ReadOnly Str "";
    "super_read_only" Global Bool "0";
    "session_track_gtids" Both Str "OFF";
    "session_track_schema" Both Bool "1";
    "session_track_state_change" Both Bool "0";
    "session_track_system_variables" Both Str "time_zone,autocommit,character_set_client,character_set_results,character_set_connection";
    "session_track_transaction_info" Both Str "OFF";
    "skip_name_resolve" ReadOnly Bool "0";
    "slow_launch_time" Global Int "2";
    "slow_query_log" Global Bool "0";
    "slow_query_log_file" Global Str "";
    "socket" ReadOnly Str "";
    "sort_buffer_size" Both Int "262144";
    "ssl_ca" ReadOnly Str "";
    "ssl_cert" ReadOnly Str "";
    "ssl_cipher" ReadOnly Str "";
    "ssl_key" ReadOnly Str "";
    "sql_auto_is_null" Both Bool "0";
    "sql_big_selects" Both Bool "1";
    "sql_log_bin" Session Bool "1";
    "sync_binlog" ReadOnly Int "1";
    "sql_log_off" Both Bool "0";
    "sql_mode" Both SqlMode DEFAULT_SQL_MODE;
    "sql_notes" Both Bool "1";
    "sql_quote_show_create" Both Bool "1";
    "sql_safe_updates" Both Bool "0";
    "sql_select_limit" Both Int "18446744073709551615";
    "sql_warnings" Both Bool "0";
    "storage_engine" Both Str "InnoDB";
    "strata_crash_point" Session Str "";
    "strata_force_flush_memtable_now" Global Bool "0";
    "strata_row_cache_size" ReadOnly Int "67108864";
    "system_time_zone" ReadOnly Str "UTC";
    "table_definition_cache" Global Int "2000";
    "table_open_cache" Global Int "4000";
    "thread_handling" ReadOnly Str "pool-of-threads";
    "thread_pool_algorithm" ReadOnly Int "0";
    "thread_pool_high_priority_connection" Both Int "0";
    "thread_pool_max_threads" ReadOnly Int "100000";
    "thread_pool_max_unused_threads" Global Int "0";
    "thread_pool_oversubscribe" Global Int "3";
    "thread_pool_prio_kickup_timer" Global Int "1000";
    "thread_pool_size" ReadOnly Int "0";
    "thread_pool_stall_limit" Global Int "6";
    "thread_pool_stall_nice" Global Int "10";
    "time_zone" Both Str "SYSTEM";
    "timestamp" Session Str "0";
    "tls_version" ReadOnly Str "";
    "tmp_table_size" Both Int "16777216";
    "tmpdir" ReadOnly Str "";
    "transaction_isolation" Both Isolation "REPEATABLE-READ";
    "transaction_read_only" Both Bool "0";
    "tx_isolation" Both Isolation "REPEATABLE-READ";
    "tx_read_only" Both Bool "0";
    "unique_checks" Both Bool "1";
    "version" ReadOnly Str SERVER_VERSION;
    "version_comment" ReadOnly Str "Strata (MySQL-compatible, RocksDB storage)";
    "version_compile_machine" ReadOnly Str "x86_64";
    "version_compile_os" ReadOnly Str "Linux";
    "wait_timeout" Both Int "28800";
    "warning_count" Session Int "0";
    "error_count" Session Int "0";
};

/// Looks a variable definition up by (case-insensitive) name.
pub fn lookup(name: &str) -> Option<&'static VarDef> {
    // Every statement reads several variables (sql_mode, autocommit, timeouts…): a hashed index
    // instead of a scan of the whole registry, and no lower-casing copy for lower-case names.
    static INDEX: std::sync::OnceLock<FxHashMap<&'static str, &'static VarDef>> =
        std::sync::OnceLock::new();
    let index = INDEX.get_or_init(|| VARS.iter().map(|v| (v.name, v)).collect());
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        index.get(name.to_ascii_lowercase().as_str()).copied()
    } else {
        index.get(name).copied()
    }
}

/// Global values, shared by all sessions.
///
/// The values sit behind an `Arc` so that a session can keep a [`GlobalsSnapshot`] and read
/// them without taking the shared lock: every statement reads several variables, and eight
/// threads taking one read lock bounce its cache line between the cores (2.5 % of a point
/// select's CPU went to `get_def`). A change copies the map if snapshots still hold it.
#[derive(Debug)]
pub struct GlobalVars {
    values: RwLock<Arc<FxHashMap<&'static str, Value>>>,
    /// Bumped by every change (cached statement plans depend on variable values). Changed
    /// only under the write lock, so a snapshot's generation and values agree.
    generation: Generation,
    /// performance_schema's state, sized by its read-only variables at startup.
    perf: crate::runtime::perfschema::PerfSchema,
}

/// The generation counter on a cache line of its own: every session reads it for every
/// variable, and the lock beside it is written by each reader (measured: 0.8 % of a point
/// select's CPU in the load while they shared a line).
#[derive(Debug, Default)]
#[repr(align(128))]
struct Generation(std::sync::atomic::AtomicU64);

/// The global values as of one generation (see [`GlobalVars::snapshot`]). A session that
/// stays idle keeps its copy alive until its next statement.
#[derive(Debug, Clone)]
pub struct GlobalsSnapshot {
    generation: u64,
    values: Arc<FxHashMap<&'static str, Value>>,
}

impl GlobalsSnapshot {
    /// The generation the values belong to.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The value of a registered variable in this snapshot.
    pub fn get(&self, def: &VarDef) -> Option<&Value> {
        self.values.get(def.name)
    }
}

impl GlobalVars {
    /// Defaults, with `overrides` (from the command line / config file) applied.
    pub fn new(overrides: &[(String, String)]) -> Result<Self> {
        let mut values = FxHashMap::default();
        for v in VARS {
            values.insert(v.name, default_value(v));
        }
        for (k, val) in overrides {
            let def = lookup(k).ok_or_else(|| Error::unknown_sysvar(k))?;
            if IDENTITY.contains(&def.name) {
                // MySQL has no startup option for these: they describe the build.
                return Err(Error::new(
                    codes::ER_INCORRECT_GLOBAL_LOCAL_VAR,
                    format!("Variable '{}' is a read only variable: it reports the server build and cannot be set", def.name),
                ));
            }
            let v = normalise(def, &Value::Str(val.clone()))?;
            values.insert(def.name, v);
        }
        let num = |name: &str| match values.get(name) {
            Some(Value::Int(n)) => usize::try_from(*n).unwrap_or(0),
            Some(Value::UInt(n)) => usize::try_from(*n).unwrap_or(usize::MAX),
            _ => 0,
        };
        let perf = crate::runtime::perfschema::PerfSchema::new(
            num("performance_schema") != 0,
            num("performance_schema_digests_size"),
            num("max_digest_length").min(num("performance_schema_max_digest_length")),
        );
        Ok(GlobalVars {
            values: RwLock::new(Arc::new(values)),
            generation: Default::default(),
            perf,
        })
    }

    /// performance_schema's state (statement digests and events).
    #[inline]
    pub fn perf(&self) -> &crate::runtime::perfschema::PerfSchema {
        &self.perf
    }

    /// The global value of a variable.
    pub fn get(&self, name: &str) -> Option<Value> {
        self.get_def(lookup(name)?)
    }

    /// The global value of a registered variable.
    pub fn get_def(&self, def: &VarDef) -> Option<Value> {
        self.values.read().get(def.name).cloned()
    }

    /// Runs `f` on the global value of a registered variable without copying it.
    pub fn with_def<R>(&self, def: &VarDef, f: impl FnOnce(Option<&Value>) -> R) -> R {
        f(self.values.read().get(def.name))
    }

    /// `SET GLOBAL name = value`.
    pub fn set(&self, name: &str, value: &Value) -> Result<()> {
        let def = lookup(name).ok_or_else(|| Error::unknown_sysvar(name))?;
        match def.scope {
            Scope::ReadOnly => return Err(read_only_error(def.name)),
            Scope::Session => {
                return Err(Error::new(
                    codes::ER_LOCAL_VARIABLE,
                    format!(
                        "Variable '{}' is a SESSION variable and can't be used with SET GLOBAL",
                        def.name
                    ),
                ))
            }
            _ => {}
        }
        let v = normalise(def, value)?;
        self.insert(def.name, v);
        Ok(())
    }

    /// Sets a read-only variable at startup (datadir, port, socket...).
    pub fn set_internal(&self, name: &'static str, value: Value) {
        self.insert(name, value);
    }

    fn insert(&self, name: &'static str, value: Value) {
        let mut values = self.values.write();
        Arc::make_mut(&mut values).insert(name, value);
        self.generation
            .0
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    /// The current values and their generation, to read without the lock while
    /// [`generation`](Self::generation) stays the same.
    pub fn snapshot(&self) -> GlobalsSnapshot {
        let values = self.values.read();
        GlobalsSnapshot {
            generation: self.generation(),
            values: Arc::clone(&values),
        }
    }

    /// Changes with every SET GLOBAL.
    pub fn generation(&self) -> u64 {
        self.generation.0.load(std::sync::atomic::Ordering::Acquire)
    }

    /// All values, sorted by name.
    pub fn all(&self) -> BTreeMap<&'static str, Value> {
        self.values
            .read()
            .iter()
            .map(|(k, v)| (*k, v.clone()))
            .collect()
    }
}

/// Error for writing a read-only variable (1238).
pub fn read_only_error(name: &str) -> Error {
    Error::new(
        codes::ER_INCORRECT_GLOBAL_LOCAL_VAR,
        format!("Variable '{name}' is a read only variable"),
    )
}

/// Error for `SET SESSION` on a global-only variable (1229).
pub fn global_only_error(name: &str) -> Error {
    Error::new(
        codes::ER_GLOBAL_VARIABLE,
        format!("Variable '{name}' is a GLOBAL variable and should be set with SET GLOBAL"),
    )
}

fn default_value(v: &VarDef) -> Value {
    match v.kind {
        Kind::Bool | Kind::Int => match v.default.parse::<u64>() {
            Ok(n) if n <= i64::MAX as u64 => Value::Int(n as i64),
            Ok(n) => Value::UInt(n),
            Err(_) => Value::Str(v.default.to_string()),
        },
        Kind::Double => normalise(v, &Value::Str(v.default.to_string()))
            .unwrap_or_else(|_| Value::Str(v.default.to_string())),
        _ => Value::Str(v.default.to_string()),
    }
}

/// `(min, max, block size)` of the integer variables MySQL bounds: `SET` clamps a value
/// outside them and rounds one down to a multiple of the block size, as MySQL does (MySQL adds
/// warning 1292 "Truncated incorrect … value", which is not given here).
fn int_bounds(name: &str) -> Option<(u64, u64, u64)> {
    match name {
        // MySQL's maximum on 64-bit platforms
        "join_buffer_size" => Some((128, 18_446_744_073_709_547_520, 128)),
        "max_sp_recursion_depth" => Some((0, 255, 1)),
        _ => None,
    }
}

/// `v` (an Int or UInt) within `(min, max, block)`.
fn clamp_int(v: &Value, (min, max, block): (u64, u64, u64)) -> Value {
    let n = match v {
        Value::Int(i) => (*i).max(0) as u64,
        Value::UInt(u) => *u,
        _ => return v.clone(),
    };
    let n = (n.min(max) / block * block).max(min);
    match i64::try_from(n) {
        Ok(i) => Value::Int(i),
        Err(_) => Value::UInt(n),
    }
}

/// Checks and normalises a value for `def` (ON → 1, isolation names, sql_mode lists...).
pub fn normalise(def: &VarDef, value: &Value) -> Result<Value> {
    let text = match value {
        Value::Null => None,
        v => Some(v.to_string()),
    };
    let shown = text.clone().unwrap_or_else(|| "NULL".into());
    let bad = || Error::wrong_value_for_var(def.name, &shown);
    // the binary log writes row events only: STATEMENT / MIXED would be accepted and ignored
    if def.name == "binlog_format"
        && !text
            .as_deref()
            .is_some_and(|t| t.eq_ignore_ascii_case("ROW"))
    {
        return Err(bad());
    }
    if def.name == "binlog_row_metadata" {
        let t = text.as_deref().map(str::to_ascii_uppercase);
        return match t.as_deref() {
            Some(m @ ("MINIMAL" | "FULL")) => Ok(Value::Str(m.into())),
            _ => Err(bad()),
        };
    }
    Ok(match def.kind {
        Kind::Bool => {
            let t = text.ok_or_else(bad)?;
            match t.to_ascii_uppercase().as_str() {
                "1" | "ON" | "TRUE" => Value::Int(1),
                "0" | "OFF" | "FALSE" => Value::Int(0),
                _ => return Err(bad()),
            }
        }
        Kind::Int => {
            let t = text.ok_or_else(bad)?;
            let t = t.trim();
            let v = match t.parse::<i64>() {
                Ok(n) if n >= 0 => Value::Int(n),
                Ok(_) => Value::Int(0),
                Err(_) => match t.parse::<u64>() {
                    Ok(n) => Value::UInt(n),
                    Err(_) => match t.parse::<f64>() {
                        Ok(f) if f >= 0.0 => Value::Int(f as i64),
                        _ => {
                            return Err(Error::new(
                                codes::ER_WRONG_TYPE_FOR_VAR,
                                format!("Incorrect argument type to variable '{}'", def.name),
                            ))
                        }
                    },
                },
            };
            match int_bounds(def.name) {
                Some(b) => clamp_int(&v, b),
                None => v,
            }
        }
        Kind::Str => match text {
            Some(t) => Value::Str(t),
            None => Value::Str(String::new()),
        },
        Kind::SqlMode => Value::Str(normalise_sql_mode(text.as_deref().unwrap_or(""), def.name)?),
        Kind::ExplainFormat => {
            let t = text.ok_or_else(bad)?.to_ascii_uppercase();
            match t.as_str() {
                "TRADITIONAL" | "DEFAULT" => Value::Str("TRADITIONAL".into()),
                "JSON" | "TREE" => Value::Str(t),
                _ => return Err(bad()),
            }
        }
        Kind::Isolation => {
            let t = text.ok_or_else(bad)?.to_ascii_uppercase().replace(' ', "-");
            match t.as_str() {
                "REPEATABLE-READ" | "READ-COMMITTED" | "READ-UNCOMMITTED" | "SERIALIZABLE" => {
                    Value::Str(t)
                }
                _ => return Err(bad()),
            }
        }
        Kind::Charset => match text {
            None => Value::Null,
            Some(t) => {
                let l = t.to_ascii_lowercase();
                if common::Collation::default_for_charset(&l).is_none() {
                    return Err(Error::new(
                        codes::ER_UNKNOWN_CHARACTER_SET,
                        format!("Unknown character set: '{t}'"),
                    ));
                }
                Value::Str(if l == "utf8" { "utf8mb3".into() } else { l })
            }
        },
        Kind::Collation => {
            let t = text.ok_or_else(bad)?;
            common::Collation::from_name(&t).ok_or_else(|| {
                Error::new(
                    codes::ER_UNKNOWN_COLLATION,
                    format!("Unknown collation: '{t}'"),
                )
            })?;
            Value::Str(t.to_ascii_lowercase())
        }
        Kind::Double => {
            let t = text.ok_or_else(bad)?;
            let secs: f64 = t.trim().parse().map_err(|_| {
                Error::new(
                    codes::ER_WRONG_TYPE_FOR_VAR,
                    format!("Incorrect argument type to variable '{}'", def.name),
                )
            })?;
            // MySQL clamps to 0 .. one year (with a warning)
            let micros = (secs.clamp(0.0, 31_536_000.0) * 1e6).round() as i64;
            Value::Decimal(common::Decimal::new(micros, 6))
        }
        Kind::LogOutput => Value::Str(normalise_log_output(&text.ok_or_else(bad)?)?),
    })
}

const SQL_MODES: &[&str] = &[
    "REAL_AS_FLOAT",
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "NOT_USED",
    "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION",
    "NO_DIR_IN_CREATE",
    "ANSI",
    "NO_AUTO_VALUE_ON_ZERO",
    "NO_BACKSLASH_ESCAPES",
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE",
    "ALLOW_INVALID_DATES",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "TRADITIONAL",
    "HIGH_NOT_PRECEDENCE",
    "NO_ENGINE_SUBSTITUTION",
    "PAD_CHAR_TO_FULL_LENGTH",
    "TIME_TRUNCATE_FRACTIONAL",
    "NO_AUTO_CREATE_USER",
    "NO_FIELD_OPTIONS",
    "NO_KEY_OPTIONS",
    "NO_TABLE_OPTIONS",
    "MYSQL323",
    "MYSQL40",
    "DB2",
    "MSSQL",
    "ORACLE",
    "POSTGRESQL",
    "MAXDB",
];

/// Normalises a `log_output` value: a set of NONE, FILE and TABLE, printed in that order
/// (`file,none` → `NONE,FILE`, as MySQL shows it). TABLE (the `mysql.slow_log` and
/// `mysql.general_log` tables) is not built and is refused with 1235 rather than ignored.
pub fn normalise_log_output(s: &str) -> Result<String> {
    let mut set = [false; 2];
    for part in s.split(',').map(str::trim) {
        match part.to_ascii_uppercase().as_str() {
            "NONE" => set[0] = true,
            "FILE" => set[1] = true,
            "TABLE" => {
                return Err(Error::not_supported(
                    "log_output=TABLE (the mysql.slow_log and mysql.general_log tables); use FILE",
                ))
            }
            _ => return Err(Error::wrong_value_for_var("log_output", s)),
        }
    }
    let names: Vec<&str> = ["NONE", "FILE"]
        .iter()
        .zip(set)
        .filter(|(_, on)| *on)
        .map(|(n, _)| *n)
        .collect();
    Ok(names.join(","))
}

/// Normalises a sql_mode list: upper-case, known names only, combination modes expanded.
pub fn normalise_sql_mode(s: &str, var: &str) -> Result<String> {
    let mut out: Vec<&'static str> = Vec::new();
    let mut push = |m: &'static str| {
        if !out.contains(&m) {
            out.push(m)
        }
    };
    for part in s.split(',').map(|p| p.trim()).filter(|p| !p.is_empty()) {
        let up = part.to_ascii_uppercase();
        match up.as_str() {
            "ANSI" => {
                for m in [
                    "REAL_AS_FLOAT",
                    "PIPES_AS_CONCAT",
                    "ANSI_QUOTES",
                    "IGNORE_SPACE",
                    "ONLY_FULL_GROUP_BY",
                    "ANSI",
                ] {
                    push(m)
                }
            }
            "TRADITIONAL" => {
                for m in [
                    "STRICT_TRANS_TABLES",
                    "STRICT_ALL_TABLES",
                    "NO_ZERO_IN_DATE",
                    "NO_ZERO_DATE",
                    "ERROR_FOR_DIVISION_BY_ZERO",
                    "TRADITIONAL",
                    "NO_ENGINE_SUBSTITUTION",
                ] {
                    push(m)
                }
            }
            _ => match SQL_MODES.iter().find(|m| **m == up) {
                Some(m) => push(m),
                None => return Err(Error::wrong_value_for_var(var, part)),
            },
        }
    }
    // canonical order
    let mut ordered: Vec<&str> = SQL_MODES
        .iter()
        .copied()
        .filter(|m| out.contains(m))
        .collect();
    ordered.dedup();
    Ok(ordered.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_keeps_its_generation_values_and_a_change_makes_it_stale() {
        let g = GlobalVars::new(&[("max_connections".into(), "200".into())]).unwrap();
        let def = lookup("max_connections").unwrap();
        let before = g.snapshot();
        assert_eq!(before.generation(), g.generation());
        assert_eq!(before.get(def), Some(&Value::Int(200)));
        g.set("max_connections", &Value::Int(300)).unwrap();
        assert_ne!(before.generation(), g.generation());
        // the old snapshot is a copy: it still reads the old value
        assert_eq!(before.get(def), Some(&Value::Int(200)));
        let after = g.snapshot();
        assert_eq!(after.generation(), g.generation());
        assert_eq!(after.get(def), Some(&Value::Int(300)));
        assert_eq!(g.get_def(def), Some(Value::Int(300)));
    }

    #[test]
    fn sql_mode_normalised() {
        assert_eq!(
            normalise_sql_mode("strict_trans_tables, ansi_quotes", "sql_mode").unwrap(),
            "ANSI_QUOTES,STRICT_TRANS_TABLES"
        );
        assert!(normalise_sql_mode("BOGUS", "sql_mode").is_err());
        assert_eq!(normalise_sql_mode("", "sql_mode").unwrap(), "");
    }

    #[test]
    fn performance_schema_is_on_unless_turned_off_at_startup() {
        let g = GlobalVars::new(&[]).unwrap();
        assert!(g.perf().enabled());
        assert_eq!(g.perf().max_digest_length(), 1024);
        assert_eq!(
            g.get("performance_schema_digests_size"),
            Some(Value::Int(10000))
        );
        let g = GlobalVars::new(&[
            ("performance_schema".into(), "OFF".into()),
            ("performance_schema_max_digest_length".into(), "100".into()),
        ])
        .unwrap();
        assert!(!g.perf().enabled());
        assert_eq!(g.perf().max_digest_length(), 100);
        assert_eq!(
            g.set("performance_schema", &Value::Int(1))
                .unwrap_err()
                .num(),
            1238
        );
    }

    #[test]
    fn globals() {
        let g = GlobalVars::new(&[("max_connections".into(), "10".into())]).unwrap();
        assert_eq!(g.get("MAX_CONNECTIONS"), Some(Value::Int(10)));
        assert_eq!(g.set("version", &Value::Int(1)).unwrap_err().num(), 1238);
        g.set("autocommit", &Value::Str("OFF".into())).unwrap();
        assert_eq!(g.get("autocommit"), Some(Value::Int(0)));
    }
}
