//! The replica's connection configuration (CHANGE REPLICATION SOURCE TO) and whether its
//! threads were running, kept in `replica_source.json` in the data directory so that it
//! survives a restart (MySQL keeps it in `mysql.slave_master_info`).

use std::path::{Path, PathBuf};

use common::{codes, Error, Result};
use serde_json::{json, Value as Json};

/// File name of the persisted configuration in the data directory.
pub const FILE_NAME: &str = "replica_source.json";

/// One option value of CHANGE REPLICATION SOURCE TO.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionValue {
    /// A string literal.
    Str(String),
    /// An unsigned integer literal.
    Int(u64),
}

/// The configuration of the (only, default) replication channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceConfig {
    /// `SOURCE_HOST` (empty: not configured).
    pub host: String,
    /// `SOURCE_PORT`.
    pub port: u16,
    /// `SOURCE_USER`.
    pub user: String,
    /// `SOURCE_PASSWORD` (kept in clear text, as MySQL's `mysql.slave_master_info`; the file
    /// is created readable by its owner only).
    pub password: String,
    /// `SOURCE_AUTO_POSITION`.
    pub auto_position: bool,
    /// `SOURCE_CONNECT_RETRY`: seconds between reconnection attempts.
    pub connect_retry: u32,
    /// `SOURCE_RETRY_COUNT`: reconnection attempts before the receiver gives up (0: forever).
    pub retry_count: u64,
    /// `GET_SOURCE_PUBLIC_KEY`.
    pub get_public_key: bool,
    /// The receiver (IO thread) was running: restarted at server start.
    pub io_running: bool,
    /// The applier (SQL thread) was running: restarted at server start.
    pub sql_running: bool,
}

impl Default for SourceConfig {
    fn default() -> Self {
        SourceConfig {
            host: String::new(),
            port: 3306,
            user: String::new(),
            password: String::new(),
            auto_position: false,
            connect_retry: 60,
            retry_count: 10,
            get_public_key: false,
            io_running: false,
            sql_running: false,
        }
    }
}

fn wrong_value(name: &str, v: &OptionValue) -> Error {
    let shown = match v {
        OptionValue::Str(s) => s.clone(),
        OptionValue::Int(n) => n.to_string(),
    };
    Error::new(
        codes::ER_WRONG_ARGUMENTS,
        format!("Incorrect arguments to {name} = {shown}"),
    )
}

fn not_supported(what: &str) -> Error {
    Error::new(
        codes::ER_NOT_SUPPORTED_YET,
        format!("This version of MySQL doesn't yet support '{what}'"),
    )
}

impl SourceConfig {
    /// A configuration that names a source.
    pub fn is_configured(&self) -> bool {
        !self.host.is_empty()
    }

    /// Applies one CHANGE REPLICATION SOURCE TO option, `name` in its `SOURCE_` spelling
    /// (the parser maps `MASTER_` names).
    ///
    /// # Errors
    /// 1210 for a value of the wrong kind or out of range; 1235 for a value this server
    /// cannot honour (`SOURCE_AUTO_POSITION = 0`, `SOURCE_SSL = 1`); 1064 for an unknown name.
    pub fn apply(&mut self, name: &str, v: &OptionValue) -> Result<()> {
        let int = |max: u64| match v {
            OptionValue::Int(n) if *n <= max => Ok(*n),
            _ => Err(wrong_value(name, v)),
        };
        let text = || match v {
            OptionValue::Str(s) => Ok(s.clone()),
            OptionValue::Int(_) => Err(Error::parse(name)),
        };
        match name {
            "SOURCE_HOST" => {
                let h = text()?;
                if h.len() > 255 {
                    return Err(wrong_value(name, v));
                }
                self.host = h;
            }
            "SOURCE_PORT" => self.port = int(65535)? as u16,
            "SOURCE_USER" => self.user = text()?,
            "SOURCE_PASSWORD" => self.password = text()?,
            "SOURCE_CONNECT_RETRY" => self.connect_retry = int(31_536_000)? as u32,
            "SOURCE_RETRY_COUNT" => self.retry_count = int(u64::MAX)?,
            "GET_SOURCE_PUBLIC_KEY" => self.get_public_key = int(1)? == 1,
            "SOURCE_AUTO_POSITION" => match int(1)? {
                1 => self.auto_position = true,
                _ => {
                    return Err(not_supported(
                        "SOURCE_AUTO_POSITION = 0 (replication by file and position; use GTID auto-positioning)",
                    ))
                }
            },
            "SOURCE_SSL" => {
                if int(1)? == 1 {
                    return Err(not_supported("SOURCE_SSL = 1 (TLS connections to the source)"));
                }
            }
            _ => return Err(Error::parse(name)),
        }
        Ok(())
    }

    /// The path of the persisted configuration in `datadir`.
    pub fn path(datadir: &Path) -> PathBuf {
        datadir.join(FILE_NAME)
    }

    fn to_json(&self) -> Json {
        json!({
            "host": self.host,
            "port": self.port,
            "user": self.user,
            "password": self.password,
            "auto_position": self.auto_position,
            "connect_retry": self.connect_retry,
            "retry_count": self.retry_count,
            "get_public_key": self.get_public_key,
            "io_running": self.io_running,
            "sql_running": self.sql_running,
        })
    }

    fn from_json(j: &Json) -> Option<SourceConfig> {
        let d = SourceConfig::default();
        let s = |k: &str| j.get(k).and_then(Json::as_str).map(str::to_string);
        let n = |k: &str| j.get(k).and_then(Json::as_u64);
        let b = |k: &str| j.get(k).and_then(Json::as_bool);
        Some(SourceConfig {
            host: s("host")?,
            port: n("port")
                .and_then(|p| u16::try_from(p).ok())
                .unwrap_or(d.port),
            user: s("user").unwrap_or_default(),
            password: s("password").unwrap_or_default(),
            auto_position: b("auto_position").unwrap_or(false),
            connect_retry: n("connect_retry")
                .and_then(|p| u32::try_from(p).ok())
                .unwrap_or(d.connect_retry),
            retry_count: n("retry_count").unwrap_or(d.retry_count),
            get_public_key: b("get_public_key").unwrap_or(false),
            io_running: b("io_running").unwrap_or(false),
            sql_running: b("sql_running").unwrap_or(false),
        })
    }

    /// Reads the configuration kept in `datadir`; `None` when there is none.
    ///
    /// # Errors
    /// An unreadable or corrupt file.
    pub fn load(datadir: &Path) -> Result<Option<SourceConfig>> {
        let p = Self::path(datadir);
        let text = match std::fs::read_to_string(&p) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::storage(format!("cannot read {}: {e}", p.display()))),
        };
        let j: Json = serde_json::from_str(&text)
            .map_err(|e| Error::storage(format!("corrupt {}: {e}", p.display())))?;
        Self::from_json(&j)
            .map(Some)
            .ok_or_else(|| Error::storage(format!("corrupt {}: no host", p.display())))
    }

    /// Writes the configuration into `datadir` (a temporary file renamed over the old one,
    /// fsynced), readable by the owner only.
    ///
    /// # Errors
    /// I/O errors.
    pub fn save(&self, datadir: &Path) -> Result<()> {
        use std::io::Write;
        let p = Self::path(datadir);
        let tmp = p.with_extension("json.tmp");
        let io = |e: std::io::Error| Error::storage(format!("cannot write {}: {e}", p.display()));
        {
            let mut o = std::fs::OpenOptions::new();
            o.write(true).create(true).truncate(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                o.mode(0o600);
            }
            let mut f = o.open(&tmp).map_err(io)?;
            f.write_all(self.to_json().to_string().as_bytes())
                .map_err(io)?;
            f.sync_all().map_err(io)?;
        }
        std::fs::rename(&tmp, &p).map_err(io)?;
        if let Ok(d) = std::fs::File::open(datadir) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    /// Deletes the configuration kept in `datadir` (RESET REPLICA ALL).
    ///
    /// # Errors
    /// I/O errors other than the file being absent.
    pub fn remove(datadir: &Path) -> Result<()> {
        let p = Self::path(datadir);
        match std::fs::remove_file(&p) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::storage(format!(
                "cannot delete {}: {e}",
                p.display()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_options_and_refuses_what_it_cannot_do() {
        let mut c = SourceConfig::default();
        c.apply("SOURCE_HOST", &OptionValue::Str("db1".into()))
            .unwrap();
        c.apply("SOURCE_PORT", &OptionValue::Int(3307)).unwrap();
        c.apply("SOURCE_AUTO_POSITION", &OptionValue::Int(1))
            .unwrap();
        c.apply("SOURCE_SSL", &OptionValue::Int(0)).unwrap();
        assert_eq!(
            (c.host.as_str(), c.port, c.auto_position),
            ("db1", 3307, true)
        );
        let e = c.apply("SOURCE_SSL", &OptionValue::Int(1)).unwrap_err();
        assert_eq!(e.code.num, 1235);
        let e = c
            .apply("SOURCE_AUTO_POSITION", &OptionValue::Int(0))
            .unwrap_err();
        assert_eq!(e.code.num, 1235);
        let e = c
            .apply("SOURCE_PORT", &OptionValue::Int(70000))
            .unwrap_err();
        assert_eq!(e.code.num, 1210);
        assert!(c
            .apply("SOURCE_PORT", &OptionValue::Str("x".into()))
            .is_err());
        assert!(c.apply("SOURCE_USER", &OptionValue::Int(1)).is_err());
    }

    #[test]
    fn survives_a_round_trip_through_the_data_directory() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(SourceConfig::load(dir.path()).unwrap(), None);
        let c = SourceConfig {
            host: "127.0.0.1".into(),
            port: 4000,
            user: "repl".into(),
            password: "p'w\"".into(),
            auto_position: true,
            connect_retry: 2,
            retry_count: 0,
            get_public_key: true,
            io_running: true,
            sql_running: false,
        };
        c.save(dir.path()).unwrap();
        assert_eq!(SourceConfig::load(dir.path()).unwrap(), Some(c));
        SourceConfig::remove(dir.path()).unwrap();
        assert_eq!(SourceConfig::load(dir.path()).unwrap(), None);
        std::fs::write(SourceConfig::path(dir.path()), "{").unwrap();
        assert!(SourceConfig::load(dir.path()).is_err());
    }
}
