//! Per-session status counters (SHOW STATUS): the `Com_*` statement counters MySQL 8.4 lists
//! and the other session-scoped counters, as tables of names; the counts live in [`Counters`].

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

/// Defines a counter enum and the table of its status-variable names (one line per counter).
macro_rules! counter_table {
    ($(#[$m:meta])* $name:ident, $names:ident { $($v:ident => $s:literal,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[allow(missing_docs)]
        pub enum $name { $($v,)* }

        /// The status-variable name of each counter, in declaration order.
        pub const $names: &[&str] = &[$($s,)*];

        impl $name {
            /// How many there are.
            pub const COUNT: usize = $names.len();
            /// Every counter, in declaration order (`ALL[c as usize] == c`).
            pub const ALL: &'static [$name] = &[$($name::$v,)*];
            /// The status-variable name.
            pub fn name(self) -> &'static str {
                $names[self as usize]
            }
        }
    };
}

counter_table! {
    /// A statement kind, counted as MySQL's `Com_*` status variable of that name. MySQL lists
    /// every one even when Strata never runs that kind of statement (it stays 0).
    Com, COM_NAMES {
        AdminCommands => "Com_admin_commands",
        AssignToKeycache => "Com_assign_to_keycache",
        AlterDb => "Com_alter_db",
        AlterEvent => "Com_alter_event",
        AlterFunction => "Com_alter_function",
        AlterInstance => "Com_alter_instance",
        AlterProcedure => "Com_alter_procedure",
        AlterResourceGroup => "Com_alter_resource_group",
        AlterServer => "Com_alter_server",
        AlterTable => "Com_alter_table",
        AlterTablespace => "Com_alter_tablespace",
        AlterUser => "Com_alter_user",
        AlterUserDefaultRole => "Com_alter_user_default_role",
        Analyze => "Com_analyze",
        Begin => "Com_begin",
        Binlog => "Com_binlog",
        CallProcedure => "Com_call_procedure",
        ChangeDb => "Com_change_db",
        ChangeReplicationSource => "Com_change_replication_source",
        ChangeReplFilter => "Com_change_repl_filter",
        Check => "Com_check",
        Checksum => "Com_checksum",
        Clone => "Com_clone",
        Commit => "Com_commit",
        CreateDb => "Com_create_db",
        CreateEvent => "Com_create_event",
        CreateFunction => "Com_create_function",
        CreateIndex => "Com_create_index",
        CreateProcedure => "Com_create_procedure",
        CreateResourceGroup => "Com_create_resource_group",
        CreateRole => "Com_create_role",
        CreateServer => "Com_create_server",
        CreateSpatialReferenceSystem => "Com_create_spatial_reference_system",
        CreateTable => "Com_create_table",
        CreateTrigger => "Com_create_trigger",
        CreateUdf => "Com_create_udf",
        CreateUser => "Com_create_user",
        CreateView => "Com_create_view",
        DeallocSql => "Com_dealloc_sql",
        Delete => "Com_delete",
        DeleteMulti => "Com_delete_multi",
        Do => "Com_do",
        DropDb => "Com_drop_db",
        DropEvent => "Com_drop_event",
        DropFunction => "Com_drop_function",
        DropIndex => "Com_drop_index",
        DropProcedure => "Com_drop_procedure",
        DropResourceGroup => "Com_drop_resource_group",
        DropRole => "Com_drop_role",
        DropServer => "Com_drop_server",
        DropSpatialReferenceSystem => "Com_drop_spatial_reference_system",
        DropTable => "Com_drop_table",
        DropTrigger => "Com_drop_trigger",
        DropUser => "Com_drop_user",
        DropView => "Com_drop_view",
        EmptyQuery => "Com_empty_query",
        ExecuteSql => "Com_execute_sql",
        ExplainOther => "Com_explain_other",
        Flush => "Com_flush",
        GetDiagnostics => "Com_get_diagnostics",
        Grant => "Com_grant",
        GrantRoles => "Com_grant_roles",
        GroupReplicationStart => "Com_group_replication_start",
        GroupReplicationStop => "Com_group_replication_stop",
        HaClose => "Com_ha_close",
        HaOpen => "Com_ha_open",
        HaRead => "Com_ha_read",
        Help => "Com_help",
        Import => "Com_import",
        Insert => "Com_insert",
        InsertSelect => "Com_insert_select",
        InstallComponent => "Com_install_component",
        InstallPlugin => "Com_install_plugin",
        Kill => "Com_kill",
        Load => "Com_load",
        LockInstance => "Com_lock_instance",
        LockTables => "Com_lock_tables",
        Optimize => "Com_optimize",
        PreloadKeys => "Com_preload_keys",
        PrepareSql => "Com_prepare_sql",
        Purge => "Com_purge",
        PurgeBeforeDate => "Com_purge_before_date",
        ReleaseSavepoint => "Com_release_savepoint",
        RenameTable => "Com_rename_table",
        RenameUser => "Com_rename_user",
        Repair => "Com_repair",
        Replace => "Com_replace",
        ReplaceSelect => "Com_replace_select",
        ReplicaStart => "Com_replica_start",
        ReplicaStop => "Com_replica_stop",
        Reset => "Com_reset",
        Resignal => "Com_resignal",
        Restart => "Com_restart",
        Revoke => "Com_revoke",
        RevokeAll => "Com_revoke_all",
        RevokeRoles => "Com_revoke_roles",
        Rollback => "Com_rollback",
        RollbackToSavepoint => "Com_rollback_to_savepoint",
        Savepoint => "Com_savepoint",
        Select => "Com_select",
        SetOption => "Com_set_option",
        SetPassword => "Com_set_password",
        SetResourceGroup => "Com_set_resource_group",
        SetRole => "Com_set_role",
        Signal => "Com_signal",
        ShowBinaryLogStatus => "Com_show_binary_log_status",
        ShowBinlogEvents => "Com_show_binlog_events",
        ShowBinlogs => "Com_show_binlogs",
        ShowCharsets => "Com_show_charsets",
        ShowCollations => "Com_show_collations",
        ShowCreateDb => "Com_show_create_db",
        ShowCreateEvent => "Com_show_create_event",
        ShowCreateFunc => "Com_show_create_func",
        ShowCreateProc => "Com_show_create_proc",
        ShowCreateTable => "Com_show_create_table",
        ShowCreateTrigger => "Com_show_create_trigger",
        ShowCreateUser => "Com_show_create_user",
        ShowDatabases => "Com_show_databases",
        ShowEngineLogs => "Com_show_engine_logs",
        ShowEngineMutex => "Com_show_engine_mutex",
        ShowEngineStatus => "Com_show_engine_status",
        ShowErrors => "Com_show_errors",
        ShowEvents => "Com_show_events",
        ShowFields => "Com_show_fields",
        ShowFunctionCode => "Com_show_function_code",
        ShowFunctionStatus => "Com_show_function_status",
        ShowGrants => "Com_show_grants",
        ShowKeys => "Com_show_keys",
        ShowOpenTables => "Com_show_open_tables",
        ShowPlugins => "Com_show_plugins",
        ShowPrivileges => "Com_show_privileges",
        ShowProcedureCode => "Com_show_procedure_code",
        ShowProcedureStatus => "Com_show_procedure_status",
        ShowProcesslist => "Com_show_processlist",
        ShowProfile => "Com_show_profile",
        ShowProfiles => "Com_show_profiles",
        ShowRelaylogEvents => "Com_show_relaylog_events",
        ShowReplicaStatus => "Com_show_replica_status",
        ShowReplicas => "Com_show_replicas",
        ShowStatus => "Com_show_status",
        ShowStorageEngines => "Com_show_storage_engines",
        ShowTableStatus => "Com_show_table_status",
        ShowTables => "Com_show_tables",
        ShowTriggers => "Com_show_triggers",
        ShowVariables => "Com_show_variables",
        ShowWarnings => "Com_show_warnings",
        Shutdown => "Com_shutdown",
        StmtClose => "Com_stmt_close",
        StmtExecute => "Com_stmt_execute",
        StmtFetch => "Com_stmt_fetch",
        StmtPrepare => "Com_stmt_prepare",
        StmtReprepare => "Com_stmt_reprepare",
        StmtReset => "Com_stmt_reset",
        StmtSendLongData => "Com_stmt_send_long_data",
        Truncate => "Com_truncate",
        UninstallComponent => "Com_uninstall_component",
        UninstallPlugin => "Com_uninstall_plugin",
        UnlockInstance => "Com_unlock_instance",
        UnlockTables => "Com_unlock_tables",
        Update => "Com_update",
        UpdateMulti => "Com_update_multi",
        XaCommit => "Com_xa_commit",
        XaEnd => "Com_xa_end",
        XaPrepare => "Com_xa_prepare",
        XaRecover => "Com_xa_recover",
        XaRollback => "Com_xa_rollback",
        XaStart => "Com_xa_start",
    }
}

counter_table! {
    /// The other session-scoped counters (each also summed over all sessions for GLOBAL).
    Ctr, CTR_NAMES {
        BytesReceived => "Bytes_received",
        BytesSent => "Bytes_sent",
        Questions => "Questions",
        Queries => "Queries",
        SlowQueries => "Slow_queries",
        SelectRange => "Select_range",
        SelectScan => "Select_scan",
        HandlerWrite => "Handler_write",
        HandlerUpdate => "Handler_update",
        HandlerDelete => "Handler_delete",
        HandlerCommit => "Handler_commit",
        HandlerRollback => "Handler_rollback",
    }
}

/// Status variables MySQL 8.4 has that Strata cannot measure (no such mechanism: a key cache,
/// query cache, binary log, InnoDB's own structures, …): listed at 0 so tools find them. Named
/// in docs/compatibility.md.
pub const ALWAYS_ZERO: &[&str] = &[
    "Binlog_cache_disk_use",
    "Binlog_cache_use",
    "Binlog_stmt_cache_disk_use",
    "Binlog_stmt_cache_use",
    "Delayed_errors",
    "Delayed_insert_threads",
    "Delayed_writes",
    "Handler_discover",
    "Handler_external_lock",
    "Handler_mrr_init",
    "Handler_prepare",
    "Handler_read_rnd",
    "Handler_read_rnd_deleted",
    "Handler_savepoint",
    "Handler_savepoint_rollback",
    "Innodb_buffer_pool_pages_dirty",
    "Innodb_buffer_pool_pages_flushed",
    "Innodb_buffer_pool_pages_misc",
    "Innodb_buffer_pool_read_ahead",
    "Innodb_buffer_pool_read_ahead_evicted",
    "Innodb_buffer_pool_wait_free",
    "Innodb_buffer_pool_write_requests",
    "Innodb_data_pending_fsyncs",
    "Innodb_data_pending_reads",
    "Innodb_data_pending_writes",
    "Innodb_log_waits",
    "Innodb_os_log_pending_fsyncs",
    "Innodb_os_log_pending_writes",
    "Innodb_row_lock_current_waits",
    "Innodb_row_lock_time",
    "Innodb_row_lock_time_avg",
    "Innodb_row_lock_time_max",
    "Innodb_row_lock_waits",
    "Key_blocks_not_flushed",
    "Key_blocks_unused",
    "Key_blocks_used",
    "Key_read_requests",
    "Key_reads",
    "Key_write_requests",
    "Key_writes",
    "Not_flushed_delayed_rows",
    "Open_files",
    "Open_streams",
    "Open_table_definitions",
    "Open_tables",
    "Opened_files",
    "Opened_table_definitions",
    "Opened_tables",
    "Prepared_stmt_count",
    "Select_full_join",
    "Select_full_range_join",
    "Select_range_check",
    "Sort_range",
    "Sort_scan",
    "Table_locks_waited",
    "Table_open_cache_hits",
    "Table_open_cache_misses",
    "Table_open_cache_overflows",
    "Tc_log_max_pages_used",
    "Tc_log_page_size",
    "Tc_log_page_waits",
];

/// One session's counters ([`Com`] and [`Ctr`]). Written only by the owning session (no
/// atomic read-modify-write, no contended cache line); SHOW GLOBAL STATUS adds up the live
/// sessions' and the closed ones' (see `Instance::counters_closed`).
///
/// It also carries the session's performance_schema statement events ([`Counters::ps`]): they
/// are per thread, shared with the process list like the counters, and neither added up nor
/// reset by FLUSH STATUS.
#[derive(Debug)]
pub struct Counters {
    com: [AtomicU64; Com::COUNT],
    ctr: [AtomicU64; Ctr::COUNT],
    /// The thread's statement events (performance_schema) and open-transaction facts.
    pub ps: crate::runtime::perfschema::ThreadStatements,
}

impl Default for Counters {
    fn default() -> Self {
        Counters {
            com: std::array::from_fn(|_| AtomicU64::new(0)),
            ctr: std::array::from_fn(|_| AtomicU64::new(0)),
            ps: Default::default(),
        }
    }
}

fn add_own(c: &AtomicU64, n: u64) {
    if n > 0 {
        c.store(c.load(Relaxed).wrapping_add(n), Relaxed);
    }
}

impl Counters {
    /// Counts one statement of kind `c` (owning session only).
    #[inline]
    pub fn com(&self, c: Com) {
        add_own(&self.com[c as usize], 1);
    }

    /// Adds `n` to counter `c` (owning session only).
    #[inline]
    pub fn add(&self, c: Ctr, n: u64) {
        add_own(&self.ctr[c as usize], n);
    }

    /// The value of `c`.
    pub fn get(&self, c: Ctr) -> u64 {
        self.ctr[c as usize].load(Relaxed)
    }

    /// The value of `c`.
    pub fn get_com(&self, c: Com) -> u64 {
        self.com[c as usize].load(Relaxed)
    }

    /// Adds `other`'s counts (atomically: a closed-sessions total is shared).
    pub fn absorb(&self, other: &Counters) {
        let pairs = self.com.iter().zip(&other.com);
        for (mine, theirs) in pairs.chain(self.ctr.iter().zip(&other.ctr)) {
            mine.fetch_add(theirs.load(Relaxed), Relaxed);
        }
    }

    /// Zero (FLUSH STATUS).
    pub fn reset(&self) {
        for c in self.com.iter().chain(&self.ctr) {
            c.store(0, Relaxed);
        }
    }

    /// Every counter as (status name, value), `Com_*` first.
    pub fn values(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        let com = COM_NAMES.iter().zip(&self.com);
        let ctr = CTR_NAMES.iter().zip(&self.ctr);
        com.chain(ctr).map(|(n, v)| (*n, v.load(Relaxed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_mysql_shaped() {
        let mut all: Vec<&str> = COM_NAMES.iter().chain(CTR_NAMES).copied().collect();
        all.extend(ALWAYS_ZERO);
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "a status name is listed twice");
        assert!(COM_NAMES.iter().all(|c| c.starts_with("Com_")));
        assert_eq!(Com::Select.name(), "Com_select");
        assert_eq!(Ctr::BytesSent.name(), "Bytes_sent");
    }

    #[test]
    fn count_absorb_reset() {
        let (a, total) = (Counters::default(), Counters::default());
        a.com(Com::Select);
        a.com(Com::Select);
        a.add(Ctr::BytesSent, 10);
        total.absorb(&a);
        a.reset();
        assert_eq!(a.get_com(Com::Select), 0);
        assert_eq!(total.get_com(Com::Select), 2);
        assert_eq!(total.get(Ctr::BytesSent), 10);
    }
}
