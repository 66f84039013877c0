//! What the replica's threads report ([`ReplicaState`]) and SHOW REPLICA STATUS made of it:
//! MySQL 8.4's columns in its order ([`status_fields`]), with the pre-8.0.22 names SHOW SLAVE
//! STATUS uses ([`legacy_name`]).

use std::time::{SystemTime, UNIX_EPOCH};

use binlog::GtidSet;

use super::config::SourceConfig;

/// Whether the receiver runs (`Replica_IO_Running`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IoRunning {
    /// Not running.
    #[default]
    No,
    /// Started, not connected (connecting or reconnecting).
    Connecting,
    /// Connected and reading events.
    Yes,
}

/// An error a thread stopped or retried with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadError {
    /// MySQL error number (0: none).
    pub errno: u32,
    /// Message.
    pub msg: String,
    /// When (`YYMMDD hh:mm:ss`, the server's local time as MySQL shows it; here UTC).
    pub at: String,
}

impl ThreadError {
    /// An error of now.
    pub fn now(errno: u32, msg: impl Into<String>) -> Self {
        ThreadError {
            errno,
            msg: msg.into(),
            at: timestamp_text(now_secs()),
        }
    }
}

/// The state the threads keep up to date.
#[derive(Debug, Clone, Default)]
pub struct ReplicaState {
    /// Receiver running.
    pub io: IoRunning,
    /// `Replica_IO_State`.
    pub io_state: String,
    /// Applier running.
    pub sql: bool,
    /// `Replica_SQL_Running_State`.
    pub sql_state: String,
    /// `Last_IO_Errno` / `Last_IO_Error`.
    pub io_error: ThreadError,
    /// `Last_SQL_Errno` / `Last_SQL_Error`.
    pub sql_error: ThreadError,
    /// The source's binlog file the receiver reads (`Source_Log_File`).
    pub source_log_file: String,
    /// Its position (`Read_Source_Log_Pos`).
    pub read_pos: u64,
    /// The source file of the last transaction applied (`Relay_Source_Log_File`).
    pub exec_file: String,
    /// Its end position (`Exec_Source_Log_Pos`).
    pub exec_pos: u64,
    /// GTIDs received (`Retrieved_Gtid_Set`) since the receiver started in this process.
    pub retrieved: GtidSet,
    /// The source's `server_id` and `server_uuid`.
    pub source_server_id: u32,
    /// The source's `server_uuid`.
    pub source_uuid: String,
    /// The source's clock minus this server's, in seconds (measured at connect).
    pub clock_diff: i64,
    /// The commit time (seconds since the epoch, the source's clock) of the transaction the
    /// applier is applying, or of the oldest one waiting; `None` when it waits for events.
    pub behind_since: Option<u64>,
    /// Bytes of events waiting in the queue between the threads (`Relay_Log_Space`).
    pub queued_bytes: u64,
}

/// Seconds since the epoch.
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `YYMMDD hh:mm:ss` of a time in seconds since the epoch (UTC).
pub fn timestamp_text(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let r = secs % 86_400;
    let (y, m, d) = super::sqltext::civil_from_days(days);
    format!(
        "{:02}{m:02}{d:02} {:02}:{:02}:{:02}",
        y % 100,
        r / 3600,
        r / 60 % 60,
        r % 60
    )
}

impl ReplicaState {
    /// `Seconds_Behind_Source`: NULL unless both threads run and the receiver is connected;
    /// 0 when the applier waits for events; else how long ago (on the source's clock) the
    /// transaction being applied committed on the source.
    pub fn seconds_behind(&self, now: u64) -> Option<u64> {
        if self.io != IoRunning::Yes || !self.sql {
            return None;
        }
        Some(self.behind_since.map_or(0, |t| {
            let source_now = now as i64 + self.clock_diff;
            source_now.saturating_sub(t as i64).max(0) as u64
        }))
    }
}

/// One value of SHOW REPLICA STATUS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field {
    /// Text.
    Text(String),
    /// An unsigned integer.
    Int(u64),
    /// NULL.
    Null,
}

/// MySQL 8.4's name → the pre-8.0.22 name SHOW SLAVE STATUS shows.
pub fn legacy_name(name: &str) -> String {
    match name {
        "Source_public_key_path" => "Master_public_key_path".into(),
        "Get_Source_public_key" => "Get_master_public_key".into(),
        n => n.replace("Source", "Master").replace("Replica", "Slave"),
    }
}

/// The row of SHOW REPLICA STATUS: (column name, value), in MySQL 8.4's order.
pub fn status_fields(
    cfg: &SourceConfig,
    st: &ReplicaState,
    executed: &GtidSet,
    info_file: &str,
    now: u64,
) -> Vec<(&'static str, Field)> {
    use Field::{Int, Null, Text};
    let t = |s: &str| Text(s.to_string());
    let yes_no = |b: bool| t(if b { "Yes" } else { "No" });
    let io_running = match st.io {
        IoRunning::No => "No",
        IoRunning::Connecting => "Connecting",
        IoRunning::Yes => "Yes",
    };
    let gtids = |g: &GtidSet| Text(g.format_with(",\n"));
    vec![
        ("Replica_IO_State", t(&st.io_state)),
        ("Source_Host", t(&cfg.host)),
        ("Source_User", t(&cfg.user)),
        ("Source_Port", Int(u64::from(cfg.port))),
        ("Connect_Retry", Int(u64::from(cfg.connect_retry))),
        ("Source_Log_File", t(&st.source_log_file)),
        ("Read_Source_Log_Pos", Int(st.read_pos)),
        // no relay log: events wait in memory between the threads
        ("Relay_Log_File", t("")),
        ("Relay_Log_Pos", Int(0)),
        ("Relay_Source_Log_File", t(&st.exec_file)),
        ("Replica_IO_Running", t(io_running)),
        ("Replica_SQL_Running", yes_no(st.sql)),
        ("Replicate_Do_DB", t("")),
        ("Replicate_Ignore_DB", t("")),
        ("Replicate_Do_Table", t("")),
        ("Replicate_Ignore_Table", t("")),
        ("Replicate_Wild_Do_Table", t("")),
        ("Replicate_Wild_Ignore_Table", t("")),
        ("Last_Errno", Int(u64::from(st.sql_error.errno))),
        ("Last_Error", t(&st.sql_error.msg)),
        ("Skip_Counter", Int(0)),
        ("Exec_Source_Log_Pos", Int(st.exec_pos)),
        ("Relay_Log_Space", Int(st.queued_bytes)),
        ("Until_Condition", t("None")),
        ("Until_Log_File", t("")),
        ("Until_Log_Pos", Int(0)),
        ("Source_SSL_Allowed", t("No")),
        ("Source_SSL_CA_File", t("")),
        ("Source_SSL_CA_Path", t("")),
        ("Source_SSL_Cert", t("")),
        ("Source_SSL_Cipher", t("")),
        ("Source_SSL_Key", t("")),
        (
            "Seconds_Behind_Source",
            st.seconds_behind(now).map_or(Null, Int),
        ),
        ("Source_SSL_Verify_Server_Cert", t("No")),
        ("Last_IO_Errno", Int(u64::from(st.io_error.errno))),
        ("Last_IO_Error", t(&st.io_error.msg)),
        ("Last_SQL_Errno", Int(u64::from(st.sql_error.errno))),
        ("Last_SQL_Error", t(&st.sql_error.msg)),
        ("Replicate_Ignore_Server_Ids", t("")),
        ("Source_Server_Id", Int(u64::from(st.source_server_id))),
        ("Source_UUID", t(&st.source_uuid)),
        ("Source_Info_File", t(info_file)),
        ("SQL_Delay", Int(0)),
        ("SQL_Remaining_Delay", Null),
        ("Replica_SQL_Running_State", t(&st.sql_state)),
        ("Source_Retry_Count", Int(cfg.retry_count)),
        ("Source_Bind", t("")),
        ("Last_IO_Error_Timestamp", t(&st.io_error.at)),
        ("Last_SQL_Error_Timestamp", t(&st.sql_error.at)),
        ("Source_SSL_Crl", t("")),
        ("Source_SSL_Crlpath", t("")),
        ("Retrieved_Gtid_Set", gtids(&st.retrieved)),
        ("Executed_Gtid_Set", gtids(executed)),
        ("Auto_Position", Int(u64::from(cfg.auto_position))),
        ("Replicate_Rewrite_DB", t("")),
        ("Channel_Name", t("")),
        ("Source_TLS_Version", t("")),
        ("Source_public_key_path", t("")),
        ("Get_Source_public_key", Int(u64::from(cfg.get_public_key))),
        ("Network_Namespace", t("")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_in_mysql_order_with_legacy_names() {
        let cfg = SourceConfig {
            host: "h".into(),
            ..SourceConfig::default()
        };
        let st = ReplicaState::default();
        let f = status_fields(&cfg, &st, &GtidSet::new(), "f", 0);
        assert_eq!(f.len(), 60);
        assert_eq!(f[0].0, "Replica_IO_State");
        assert_eq!(f[10].0, "Replica_IO_Running");
        assert_eq!(f[32], ("Seconds_Behind_Source", Field::Null));
        assert_eq!(f[53].0, "Auto_Position");
        assert_eq!(
            legacy_name("Seconds_Behind_Source"),
            "Seconds_Behind_Master"
        );
        assert_eq!(legacy_name("Replica_IO_Running"), "Slave_IO_Running");
        assert_eq!(legacy_name("Source_Host"), "Master_Host");
        assert_eq!(
            legacy_name("Get_Source_public_key"),
            "Get_master_public_key"
        );
        assert_eq!(legacy_name("Last_SQL_Error"), "Last_SQL_Error");
    }

    #[test]
    fn seconds_behind_is_null_unless_both_threads_run() {
        let mut st = ReplicaState {
            io: IoRunning::Yes,
            sql: true,
            ..ReplicaState::default()
        };
        assert_eq!(st.seconds_behind(100), Some(0));
        st.behind_since = Some(90);
        assert_eq!(st.seconds_behind(100), Some(10));
        st.clock_diff = -5;
        assert_eq!(st.seconds_behind(100), Some(5));
        st.behind_since = Some(200);
        assert_eq!(st.seconds_behind(100), Some(0));
        st.io = IoRunning::Connecting;
        assert_eq!(st.seconds_behind(100), None);
        st.io = IoRunning::Yes;
        st.sql = false;
        assert_eq!(st.seconds_behind(100), None);
        assert_eq!(timestamp_text(1_709_211_909), "240229 13:05:09");
    }
}
