//! The slow query log and the general query log (`slow_query_log`, `general_log` with
//! `log_output=FILE`): their files in MySQL 8.4's exact formats, switching files and
//! reopening them (`FLUSH LOGS`). What to log is decided where a statement starts and ends
//! (`dispatch::querylog`); this module formats and writes.
//!
//! Cost: whether a log is on is one relaxed atomic load ([`QueryLogs::slow_on`],
//! [`QueryLogs::general_on`]). An entry is formatted before the file's mutex is taken; under it
//! the entry is written and flushed (one `write` system call), as MySQL's `LOCK_log` does.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, SystemTime};

use common::{codes, Error, Result, Value};
use parking_lot::{Mutex, RwLock};

use crate::runtime::sysvars::{GlobalVars, VarDef};

/// [`QueryLogs::flags`] bits.
const SLOW: u8 = 1;
const GENERAL: u8 = 2;
const NOT_USING_INDEXES: u8 = 4;
const SLOW_ADMIN: u8 = 8;

/// The server facts the log headers and the default file names need (set once at startup).
#[derive(Debug, Clone, Default)]
pub struct LogSetup {
    /// The data directory: default files go there, relative names are resolved against it.
    pub datadir: PathBuf,
    /// The host name (`<hostname>-slow.log`, `<hostname>.log`).
    pub hostname: String,
    /// The program name the header starts with (see [`header_program`]).
    pub program: String,
    /// The server version (`@@version`).
    pub version: String,
    /// The version comment (`@@version_comment`).
    pub comment: String,
    /// The TCP port.
    pub port: u16,
    /// The unix socket path (empty without one).
    pub socket: String,
}

/// Which of the two logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Log {
    /// The slow query log.
    Slow,
    /// The general query log.
    General,
}

impl Log {
    fn on_var(self) -> &'static str {
        match self {
            Log::Slow => "slow_query_log",
            Log::General => "general_log",
        }
    }

    fn file_var(self) -> &'static str {
        match self {
            Log::Slow => "slow_query_log_file",
            Log::General => "general_log_file",
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            Log::Slow => "-slow.log",
            Log::General => ".log",
        }
    }
}

/// One open log file.
#[derive(Default)]
struct LogFile {
    /// Where it is open (None: closed).
    out: Option<BufWriter<File>>,
    path: PathBuf,
    /// The database of the last slow-log entry (`use db;` is written when it changes).
    last_db: String,
    /// A write failed (reported once until the file is opened again).
    failed: bool,
}

impl LogFile {
    fn write(&mut self, text: &str) {
        let Some(out) = self.out.as_mut() else {
            return;
        };
        let r = out.write_all(text.as_bytes()).and_then(|_| out.flush());
        if let Err(e) = r {
            if !std::mem::replace(&mut self.failed, true) {
                tracing::error!(file = %self.path.display(), error = %e, "cannot write to the query log");
            }
        }
    }

    fn close(&mut self) {
        if let Some(mut out) = self.out.take() {
            let _ = out.flush();
        }
    }
}

/// The instance's two query logs.
#[derive(Default)]
pub struct QueryLogs {
    /// What is on, read by every statement: [`SLOW`], [`GENERAL`] (logging to an open file),
    /// [`NOT_USING_INDEXES`], [`SLOW_ADMIN`].
    flags: AtomicU8,
    setup: RwLock<LogSetup>,
    slow: Mutex<LogFile>,
    general: Mutex<LogFile>,
    /// Serialises configuration changes (SET GLOBAL, FLUSH LOGS) against each other.
    config: Mutex<()>,
}

/// True for the system variables whose SET GLOBAL goes through [`QueryLogs::set_global`].
pub fn is_log_var(name: &str) -> bool {
    matches!(
        name,
        "slow_query_log"
            | "slow_query_log_file"
            | "general_log"
            | "general_log_file"
            | "log_output"
            | "log_queries_not_using_indexes"
            | "log_slow_admin_statements"
    )
}

fn global_bool(g: &GlobalVars, name: &str) -> bool {
    matches!(g.get(name), Some(Value::Int(i)) if i != 0)
}

fn global_text(g: &GlobalVars, name: &str) -> String {
    match g.get(name) {
        Some(Value::Null) | None => String::new(),
        Some(v) => v.to_string(),
    }
}

fn open_error(path: &Path, e: &std::io::Error) -> Error {
    Error::new(
        codes::ER_ERROR_ON_WRITE,
        format!(
            "Error writing file '{}' (errno: {} - {e})",
            path.display(),
            e.raw_os_error().unwrap_or(0)
        ),
    )
}

impl QueryLogs {
    /// True if the slow log writes entries (one relaxed load).
    #[inline]
    pub fn slow_on(&self) -> bool {
        self.flags.load(Ordering::Relaxed) & SLOW != 0
    }

    /// True if the general log writes entries (one relaxed load).
    #[inline]
    pub fn general_on(&self) -> bool {
        self.flags.load(Ordering::Relaxed) & GENERAL != 0
    }

    /// `log_queries_not_using_indexes`.
    #[inline]
    pub fn not_using_indexes(&self) -> bool {
        self.flags.load(Ordering::Relaxed) & NOT_USING_INDEXES != 0
    }

    /// `log_slow_admin_statements`.
    #[inline]
    pub fn slow_admin(&self) -> bool {
        self.flags.load(Ordering::Relaxed) & SLOW_ADMIN != 0
    }

    /// The default file of `log` (`<datadir>/<hostname>-slow.log`, `<datadir>/<hostname>.log`).
    pub fn default_path(&self, log: Log) -> PathBuf {
        let s = self.setup.read();
        let host = if s.hostname.is_empty() {
            "localhost"
        } else {
            &s.hostname
        };
        s.datadir.join(format!("{host}{}", log.suffix()))
    }

    /// A file name as the server opens it: relative names are inside the data directory.
    fn resolve(&self, name: &str) -> PathBuf {
        let p = Path::new(name);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.setup.read().datadir.join(p)
        }
    }

    fn file(&self, log: Log) -> &Mutex<LogFile> {
        match log {
            Log::Slow => &self.slow,
            Log::General => &self.general,
        }
    }

    /// Opens `path` for appending and writes the header MySQL writes at every open.
    fn open(&self, path: &Path) -> std::io::Result<BufWriter<File>> {
        if let Ok(m) = std::fs::metadata(path) {
            if !m.is_file() {
                return Err(std::io::Error::other("not a regular file"));
            }
        }
        let f = OpenOptions::new().create(true).append(true).open(path)?;
        let mut out = BufWriter::with_capacity(16 << 10, f);
        out.write_all(header(&self.setup.read()).as_bytes())?;
        out.flush()?;
        Ok(out)
    }

    /// Installs `out` (opened on `path`) as `log`'s file, closing the previous one.
    fn install(&self, log: Log, path: PathBuf, out: BufWriter<File>) {
        let mut f = self.file(log).lock();
        f.close();
        *f = LogFile {
            out: Some(out),
            path,
            last_db: String::new(),
            failed: false,
        };
    }

    /// Makes the flags and the open files agree with the global variables: a log that is on
    /// gets its file opened (if it is not open on that path already), one that is off closed.
    fn reconcile(&self, g: &GlobalVars) -> Result<()> {
        let mut first_err = None;
        for log in [Log::Slow, Log::General] {
            let on = global_bool(g, log.on_var());
            if on {
                let path = self.resolve(&global_text(g, log.file_var()));
                let open_there = {
                    let f = self.file(log).lock();
                    f.out.is_some() && f.path == path
                };
                if !open_there {
                    match self.open(&path) {
                        Ok(out) => self.install(log, path, out),
                        Err(e) => {
                            self.file(log).lock().close();
                            first_err.get_or_insert(open_error(&path, &e));
                        }
                    }
                }
            } else {
                self.file(log).lock().close();
            }
        }
        self.refresh_flags(g);
        first_err.map_or(Ok(()), Err)
    }

    /// Recomputes [`QueryLogs::flags`] from the variables and the open files.
    fn refresh_flags(&self, g: &GlobalVars) {
        let output = global_text(g, "log_output");
        let to_file = output.split(',').any(|o| o == "FILE") && !output.contains("NONE");
        let mut flags = 0;
        if to_file && global_bool(g, "slow_query_log") && self.slow.lock().out.is_some() {
            flags |= SLOW;
        }
        if to_file && global_bool(g, "general_log") && self.general.lock().out.is_some() {
            flags |= GENERAL;
        }
        if global_bool(g, "log_queries_not_using_indexes") {
            flags |= NOT_USING_INDEXES;
        }
        if global_bool(g, "log_slow_admin_statements") {
            flags |= SLOW_ADMIN;
        }
        self.flags.store(flags, Ordering::Relaxed);
    }

    /// At startup: records `setup`, gives `slow_query_log_file` / `general_log_file` their
    /// default names when none was configured, and opens the logs that are on. A log whose
    /// file cannot be opened is turned off (as MySQL does); the returned lines say why.
    pub fn start(&self, setup: LogSetup, g: &GlobalVars) -> Vec<String> {
        let _c = self.config.lock();
        *self.setup.write() = setup;
        for log in [Log::Slow, Log::General] {
            if global_text(g, log.file_var()).is_empty() {
                let p = self.default_path(log).display().to_string();
                g.set_internal(log.file_var(), Value::Str(p));
            }
        }
        let mut warnings = Vec::new();
        if let Err(e) = self.reconcile(g) {
            for log in [Log::Slow, Log::General] {
                if global_bool(g, log.on_var()) && self.file(log).lock().out.is_none() {
                    g.set_internal(log.on_var(), Value::Int(0));
                    warnings.push(format!(
                        "could not use {} for logging ({}); turning {} off",
                        global_text(g, log.file_var()),
                        e.msg,
                        log.on_var()
                    ));
                }
            }
            self.refresh_flags(g);
        }
        warnings
    }

    /// `SET GLOBAL` of one of the [`is_log_var`] variables: the value is checked, a file that
    /// must be opened is opened before the variable changes (a file that cannot be opened
    /// fails the statement with 1231 and changes nothing), then the variable is set and the
    /// logs follow it. `DEFAULT` for a file variable is its default name.
    pub fn set_global(&self, g: &GlobalVars, def: &VarDef, value: &Value) -> Result<()> {
        let _c = self.config.lock();
        let is_default = matches!(value, Value::Str(s) if s.eq_ignore_ascii_case("DEFAULT"));
        let log_of_file = match def.name {
            "slow_query_log_file" => Some(Log::Slow),
            "general_log_file" => Some(Log::General),
            _ => None,
        };
        let value = match (is_default, log_of_file) {
            (true, Some(log)) => Value::Str(self.default_path(log).display().to_string()),
            (true, None) => Value::Str(def.default.to_string()),
            (false, _) => value.clone(),
        };
        let v = crate::runtime::sysvars::normalise(def, &value)?;
        if let Some(log) = log_of_file {
            let name = v.to_string();
            let bad = || Error::wrong_value_for_var(def.name, &name);
            // MySQL refuses empty names and option-file extensions
            let lower = name.to_ascii_lowercase();
            if name.trim().is_empty() || lower.ends_with(".ini") || lower.ends_with(".cnf") {
                return Err(bad());
            }
            let path = self.resolve(&name);
            if global_bool(g, log.on_var()) {
                let out = self.open(&path).map_err(|e| {
                    tracing::warn!(file = %path.display(), error = %e, "cannot open the query log");
                    bad()
                })?;
                g.set(def.name, &v)?;
                self.install(log, path, out);
            } else {
                match path.parent() {
                    Some(dir) if dir.as_os_str().is_empty() || dir.is_dir() => {}
                    _ => return Err(bad()),
                }
                if path.exists() && !path.is_file() {
                    return Err(bad());
                }
                g.set(def.name, &v)?;
            }
            self.refresh_flags(g);
            return Ok(());
        }
        let before = g.get(def.name);
        g.set(def.name, &v)?;
        if let Err(e) = self.reconcile(g) {
            // the file of a log being turned on cannot be opened: the variable stays as it was
            if let Some(b) = before {
                g.set_internal(def.name, b);
            }
            self.refresh_flags(g);
            tracing::warn!(error = %e.msg, "cannot open the query log");
            return Err(Error::wrong_value_for_var(
                def.name,
                &value.to_string().to_ascii_uppercase(),
            ));
        }
        Ok(())
    }

    /// `FLUSH LOGS` / `FLUSH SLOW LOGS` / `FLUSH GENERAL LOGS`: closes the open files and
    /// opens them again by name, so a file renamed by logrotate is left alone and a new one
    /// begins (with a header).
    pub fn reopen(&self, g: &GlobalVars, slow: bool, general: bool) -> Result<()> {
        let _c = self.config.lock();
        let mut first_err = None;
        for (log, want) in [(Log::Slow, slow), (Log::General, general)] {
            if !want {
                continue;
            }
            let path = {
                let mut f = self.file(log).lock();
                if f.out.is_none() {
                    continue;
                }
                f.close();
                f.path.clone()
            };
            match self.open(&path) {
                Ok(out) => self.install(log, path, out),
                Err(e) => {
                    first_err.get_or_insert(open_error(&path, &e));
                }
            }
        }
        self.refresh_flags(g);
        first_err.map_or(Ok(()), Err)
    }

    /// Writes one general-log line: `command` (`Query`, `Connect`, `Init DB`, …) of
    /// connection `id` with its argument.
    pub fn general(&self, id: u32, command: &str, arg: &str) {
        if !self.general_on() {
            return;
        }
        let line = general_line(SystemTime::now(), id, command, arg);
        self.general.lock().write(&line);
    }

    /// Writes one slow-log entry.
    pub fn slow(&self, e: &SlowEntry<'_>) {
        if !self.slow_on() {
            return;
        }
        let mut entry = String::with_capacity(256 + e.text.len());
        slow_head(&mut entry, e, SystemTime::now());
        let mut f = self.slow.lock();
        slow_tail(&mut entry, e, &mut f.last_db);
        f.write(&entry);
    }
}

/// One slow-log entry (MySQL's `File_query_log::write_slow`).
#[derive(Debug, Clone)]
pub struct SlowEntry<'a> {
    /// Connection id.
    pub id: u32,
    /// The account's user name (`priv_user`) and the user name the client sent.
    pub user: &'a str,
    /// The client's host name (`localhost` for the socket and loopback, else empty: names
    /// are not resolved).
    pub host: &'a str,
    /// The client's IP address (empty for the unix socket).
    pub ip: &'a str,
    /// How long the statement ran.
    pub query_time: Duration,
    /// How long it waited for locks.
    pub lock_time: Duration,
    /// Rows sent to the client.
    pub rows_sent: u64,
    /// Rows read by the storage (see `dispatch::querylog`).
    pub rows_examined: u64,
    /// The current database.
    pub db: Option<&'a str>,
    /// When the statement started (`SET timestamp=`).
    pub start: SystemTime,
    /// The first AUTO_INCREMENT value the statement generated (`SET insert_id=`).
    pub insert_id: Option<u64>,
    /// An administrator command (COM_STMT_PREPARE …) rather than a statement:
    /// `# administrator command: Prepare;`.
    pub admin_command: bool,
    /// The statement text (parameters substituted for an execution of a prepared statement).
    pub text: &'a str,
}

/// The host and IP the logs show for a session's `host` (the peer IP, or `localhost` for the
/// unix socket): loopback addresses are `localhost` with their IP, other addresses have an
/// empty host (Strata does not resolve names, as MySQL with `skip_name_resolve`).
pub fn host_and_ip(host: &str) -> (&str, &str) {
    if host == "localhost" {
        return ("localhost", "");
    }
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) if ip.is_loopback() => ("localhost", host),
        Ok(_) => ("", host),
        Err(_) => (host, ""),
    }
}

/// The program name a log header begins with: the server's executable. Tools recognise the
/// header line by `mysqld, Version` (pt-query-digest's `SlowLogParser`; without it a header
/// in the middle of a file, after a restart or a reopen, is glued to the statement before
/// it), so an executable not named `…mysqld` is written as `<path> mysqld`.
pub fn header_program(exe: &Path) -> String {
    let p = exe.display().to_string();
    if p.ends_with("mysqld") {
        p
    } else {
        format!("{p} mysqld")
    }
}

/// The lines MySQL writes whenever it opens a query log file.
pub fn header(s: &LogSetup) -> String {
    format!(
        "{}, Version: {} ({}). started with:\nTcp port: {}  Unix socket: {}\nTime                 Id Command    Argument\n",
        s.program, s.version, s.comment, s.port, s.socket
    )
}

/// `t` as MySQL's log timestamps (`log_timestamps=UTC`): `2026-11-26T23:41:07.123456Z`.
pub fn iso8601(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t)
        .format("%Y-%m-%dT%H:%M:%S%.6fZ")
        .to_string()
}

/// One general-log line: `<time>\t<id, 5 wide> <command>\t<argument>\n`.
pub fn general_line(t: SystemTime, id: u32, command: &str, arg: &str) -> String {
    format!("{}\t{id:>5} {command}\t{arg}\n", iso8601(t))
}

fn seconds(d: Duration) -> String {
    let us = d.as_micros();
    format!("{}.{:06}", us / 1_000_000, us % 1_000_000)
}

/// The part of a slow-log entry that does not depend on the file: `# Time:`, `# User@Host:`,
/// `# Query_time:`.
fn slow_head(out: &mut String, e: &SlowEntry<'_>, now: SystemTime) {
    let _ = write!(
        out,
        "# Time: {}\n# User@Host: {}[{}] @ {} [{}]  Id: {:>5}\n# Query_time: {}  Lock_time: {} Rows_sent: {}  Rows_examined: {}\n",
        iso8601(now),
        e.user,
        e.user,
        e.host,
        e.ip,
        e.id,
        seconds(e.query_time),
        seconds(e.lock_time),
        e.rows_sent,
        e.rows_examined
    );
}

/// The rest: `use db;` when the database differs from the file's previous entry's, `SET
/// [insert_id=…,]timestamp=…;`, and the statement with `;`.
fn slow_tail(out: &mut String, e: &SlowEntry<'_>, last_db: &mut String) {
    if let Some(db) = e.db {
        if db != last_db.as_str() {
            let _ = writeln!(out, "use {db};");
            db.clone_into(last_db);
        }
    }
    out.push_str("SET ");
    if let Some(id) = e.insert_id {
        let _ = write!(out, "insert_id={id},");
    }
    let start = e
        .start
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let _ = writeln!(out, "timestamp={start};");
    if e.admin_command {
        out.push_str("# administrator command: ");
    }
    out.push_str(e.text);
    out.push_str(";\n");
}

/// Formats one whole slow-log entry as [`QueryLogs::slow`] writes it (`last_db`: the database
/// of the file's previous entry, updated).
pub fn slow_entry(e: &SlowEntry<'_>, now: SystemTime, last_db: &mut String) -> String {
    let mut s = String::new();
    slow_head(&mut s, e, now);
    slow_tail(&mut s, e, last_db);
    s
}

/// Walks `sql` and calls `f(i, byte)` for each byte outside string literals, quoted
/// identifiers and comments (`-- `, `#`, `/* */`; a `/*!` versioned comment is code).
fn top_level(sql: &str, backslash_escapes: bool, mut f: impl FnMut(usize, u8)) {
    let b = sql.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\'' | b'"' | b'`' => {
                let mut j = i + 1;
                while j < b.len() {
                    if b[j] == b'\\' && c != b'`' && backslash_escapes {
                        j += 2;
                        continue;
                    }
                    if b[j] == c {
                        if b.get(j + 1) == Some(&c) {
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    j += 1;
                }
                i = j + 1;
            }
            b'#' => {
                i = b[i..]
                    .iter()
                    .position(|&x| x == b'\n')
                    .map_or(b.len(), |p| i + p);
            }
            b'-' if b.get(i + 1) == Some(&b'-')
                && b.get(i + 2).is_none_or(|x| x.is_ascii_whitespace()) =>
            {
                i = b[i..]
                    .iter()
                    .position(|&x| x == b'\n')
                    .map_or(b.len(), |p| i + p);
            }
            b'/' if b.get(i + 1) == Some(&b'*') && b.get(i + 2) != Some(&b'!') => {
                i = sql[i + 2..].find("*/").map_or(b.len(), |p| i + 2 + p + 2);
            }
            _ => {
                f(i, c);
                i += 1;
            }
        }
    }
}

/// A statement's text as MySQL logs it: without leading and trailing white space and
/// trailing semicolons.
pub fn trim_statement(sql: &str) -> &str {
    sql.trim()
        .trim_end_matches(|c: char| c == ';' || c.is_whitespace())
}

/// The statements of a multi-statement text, each as [`trim_statement`] leaves it (empty ones
/// dropped): each is logged on its own, as MySQL logs them.
pub fn split_statements(sql: &str) -> Vec<&str> {
    let mut cuts = Vec::new();
    top_level(sql, true, |i, c| {
        if c == b';' {
            cuts.push(i);
        }
    });
    let mut out = Vec::new();
    let mut from = 0;
    for cut in cuts.into_iter().chain(std::iter::once(sql.len())) {
        let s = trim_statement(&sql[from..cut]);
        if !s.is_empty() {
            out.push(s);
        }
        from = (cut + 1).min(sql.len());
    }
    out
}

/// Appends `v` as an SQL literal (the form MySQL logs a prepared statement's parameter in).
pub fn push_literal(out: &mut String, v: &Value, backslash_escapes: bool) {
    let quoted = |out: &mut String, s: &str| {
        out.push('\'');
        for ch in s.chars() {
            match ch {
                '\'' if !backslash_escapes => out.push_str("''"),
                '\'' => out.push_str("\\'"),
                '\\' if backslash_escapes => out.push_str("\\\\"),
                '\0' if backslash_escapes => out.push_str("\\0"),
                '\n' if backslash_escapes => out.push_str("\\n"),
                '\r' if backslash_escapes => out.push_str("\\r"),
                '\u{1a}' if backslash_escapes => out.push_str("\\Z"),
                c => out.push(c),
            }
        }
        out.push('\'');
    };
    match v {
        Value::Null => out.push_str("NULL"),
        Value::Str(s) => quoted(out, s),
        Value::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => quoted(out, s),
            Err(_) => {
                out.push_str("X'");
                for x in b {
                    let _ = write!(out, "{x:02X}");
                }
                out.push('\'');
            }
        },
        Value::Date(_) | Value::DateTime(..) | Value::Time(..) => quoted(out, &v.to_string()),
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

/// A prepared statement's text with its `?` placeholders replaced by the parameters'
/// literals, as MySQL logs an execution (the general log's `Execute`, the slow log).
pub fn expand_params<'a>(sql: &'a str, params: &[Value], backslash_escapes: bool) -> Cow<'a, str> {
    let sql = trim_statement(sql);
    if params.is_empty() {
        return Cow::Borrowed(sql);
    }
    let mut marks = Vec::new();
    top_level(sql, backslash_escapes, |i, c| {
        if c == b'?' {
            marks.push(i);
        }
    });
    let mut out = String::with_capacity(sql.len() + 16 * marks.len());
    let mut from = 0;
    for (i, at) in marks.into_iter().enumerate() {
        let Some(v) = params.get(i) else { break };
        out.push_str(&sql[from..at]);
        push_literal(&mut out, v, backslash_escapes);
        from = at + 1;
    }
    out.push_str(&sql[from..]);
    Cow::Owned(out)
}

/// An account statement's text with its passwords replaced by `<secret>` (the string literal
/// after `BY`, `REPLACE`, or `=` of SET PASSWORD), as MySQL rewrites them for its logs.
pub fn redact_secrets(sql: &str) -> Cow<'_, str> {
    let b = sql.as_bytes();
    let set_password = sql
        .trim_start()
        .get(..12)
        .is_some_and(|p| p.eq_ignore_ascii_case("SET PASSWORD"));
    let mut out = String::with_capacity(sql.len());
    let mut redacted = false;
    let mut secret_next = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let end = match c {
            b'\'' | b'"' => {
                let end = literal_end(sql, i);
                if std::mem::take(&mut secret_next) {
                    out.push_str("<secret>");
                    redacted = true;
                    i = end;
                    continue;
                }
                end
            }
            b'`' => {
                secret_next = false;
                sql[i + 1..].find('`').map_or(b.len(), |p| i + p + 2)
            }
            c if c.is_ascii_alphanumeric() || c == b'_' => {
                let end = b[i..]
                    .iter()
                    .position(|x| !(x.is_ascii_alphanumeric() || *x == b'_'))
                    .map_or(b.len(), |p| i + p);
                let w = &sql[i..end];
                secret_next = w.eq_ignore_ascii_case("BY") || w.eq_ignore_ascii_case("REPLACE");
                end
            }
            c if c.is_ascii_whitespace() => i + 1,
            b'=' if set_password => {
                secret_next = true;
                i + 1
            }
            _ => {
                secret_next = false;
                // a whole UTF-8 character
                i + sql[i..].chars().next().map_or(1, char::len_utf8)
            }
        };
        out.push_str(&sql[i..end]);
        i = end;
    }
    if redacted {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(sql)
    }
}

/// The index just past the string literal starting at `s` (backslash escapes and doubled
/// quotes inside).
fn literal_end(sql: &str, s: usize) -> usize {
    let b = sql.as_bytes();
    let q = b[s];
    let mut j = s + 1;
    while j < b.len() {
        if b[j] == b'\\' {
            j += 2;
            continue;
        }
        if b[j] == q {
            if b.get(j + 1) == Some(&q) {
                j += 2;
                continue;
            }
            return j + 1;
        }
        j += 1;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: u64, micros: u32) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::new(secs, micros * 1000)
    }

    fn entry<'a>(text: &'a str, db: Option<&'a str>) -> SlowEntry<'a> {
        SlowEntry {
            id: 8,
            user: "root",
            host: "localhost",
            ip: "127.0.0.1",
            query_time: Duration::from_micros(123),
            lock_time: Duration::from_micros(10),
            rows_sent: 1,
            rows_examined: 1,
            db,
            start: at(1_764_200_467, 0),
            insert_id: None,
            admin_command: false,
            text,
        }
    }

    #[test]
    fn slow_entry_is_mysqls_format() {
        let mut last = String::new();
        let now = at(1_764_200_467, 123_456);
        let e = entry("SELECT * FROM t WHERE id = 5", Some("db1"));
        assert_eq!(
            slow_entry(&e, now, &mut last),
            "# Time: 2025-11-26T23:41:07.123456Z\n\
             # User@Host: root[root] @ localhost [127.0.0.1]  Id:     8\n\
             # Query_time: 0.000123  Lock_time: 0.000010 Rows_sent: 1  Rows_examined: 1\n\
             use db1;\n\
             SET timestamp=1764200467;\n\
             SELECT * FROM t WHERE id = 5;\n"
        );
        // same database: no `use`; another: `use` again; none: nothing, the last one kept
        let same = slow_entry(&e, now, &mut last);
        assert!(!same.contains("use "), "{same}");
        let other = slow_entry(&entry("SELECT 1", Some("db2")), now, &mut last);
        assert!(other.contains("\nuse db2;\nSET timestamp"), "{other}");
        let none = slow_entry(&entry("SELECT 1", None), now, &mut last);
        assert!(!none.contains("use "));
        assert_eq!(last, "db2");
    }

    #[test]
    fn slow_entry_insert_id_admin_and_long_times() {
        let mut last = "db".to_string();
        let mut e = entry("Prepare", Some("db"));
        e.admin_command = true;
        e.insert_id = Some(42);
        e.query_time = Duration::from_micros(12_345_678);
        e.id = 123_456;
        e.host = "";
        e.ip = "10.0.0.5";
        let s = slow_entry(&e, at(0, 0), &mut last);
        assert_eq!(
            s,
            "# Time: 1970-01-01T00:00:00.000000Z\n\
             # User@Host: root[root] @  [10.0.0.5]  Id: 123456\n\
             # Query_time: 12.345678  Lock_time: 0.000010 Rows_sent: 1  Rows_examined: 1\n\
             SET insert_id=42,timestamp=1764200467;\n\
             # administrator command: Prepare;\n"
        );
    }

    #[test]
    fn general_lines_and_header() {
        let t = at(1_764_200_467, 123_456);
        assert_eq!(
            general_line(t, 8, "Connect", "root@localhost on db using TCP/IP"),
            "2025-11-26T23:41:07.123456Z\t    8 Connect\troot@localhost on db using TCP/IP\n"
        );
        assert_eq!(
            general_line(t, 12, "Quit", ""),
            "2025-11-26T23:41:07.123456Z\t   12 Quit\t\n"
        );
        let setup = LogSetup {
            program: "/usr/sbin/mysqld".into(),
            version: "8.4.0".into(),
            comment: "MySQL Community Server - GPL".into(),
            port: 3306,
            socket: "/var/run/mysqld/mysqld.sock".into(),
            ..Default::default()
        };
        assert_eq!(
            header(&setup),
            "/usr/sbin/mysqld, Version: 8.4.0 (MySQL Community Server - GPL). started with:\n\
             Tcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock\n\
             Time                 Id Command    Argument\n"
        );
        assert_eq!(
            header_program(Path::new("/opt/strata/strata")),
            "/opt/strata/strata mysqld"
        );
        assert_eq!(
            header_program(Path::new("/usr/sbin/mysqld")),
            "/usr/sbin/mysqld"
        );
    }

    #[test]
    fn hosts_and_ips() {
        assert_eq!(host_and_ip("localhost"), ("localhost", ""));
        assert_eq!(host_and_ip("127.0.0.1"), ("localhost", "127.0.0.1"));
        assert_eq!(host_and_ip("::1"), ("localhost", "::1"));
        assert_eq!(host_and_ip("10.1.2.3"), ("", "10.1.2.3"));
    }

    #[test]
    fn statements_split_and_trimmed() {
        assert_eq!(trim_statement("  SELECT 1 ;; \n"), "SELECT 1");
        assert_eq!(
            split_statements("SELECT 1; SELECT ';' , `a;b` -- x;y\n ;/* ; */ SELECT 3;"),
            vec!["SELECT 1", "SELECT ';' , `a;b` -- x;y", "/* ; */ SELECT 3"]
        );
        assert_eq!(
            split_statements("SELECT 'it\\'s;'"),
            vec!["SELECT 'it\\'s;'"]
        );
    }

    #[test]
    fn parameters_expanded() {
        let params = [
            Value::Int(5),
            Value::Str("it's".into()),
            Value::Null,
            Value::Bytes(vec![0xff, 0]),
        ];
        assert_eq!(
            expand_params("SELECT ?, '?', ? /* ? */, `?`, ?, ? FROM t;", &params, true),
            "SELECT 5, '?', 'it\\'s' /* ? */, `?`, NULL, X'FF00' FROM t"
        );
        assert_eq!(
            expand_params("SELECT ?", &[Value::Str("a'b".into())], false),
            "SELECT 'a''b'"
        );
        // fewer values than marks: the rest stay as they are
        assert_eq!(
            expand_params("SELECT ?, ?", &[Value::Int(1)], true),
            "SELECT 1, ?"
        );
    }

    #[test]
    fn secrets_redacted() {
        assert_eq!(
            redact_secrets("CREATE USER 'u'@'%' IDENTIFIED BY 'pw' PASSWORD EXPIRE"),
            "CREATE USER 'u'@'%' IDENTIFIED BY <secret> PASSWORD EXPIRE"
        );
        assert_eq!(
            redact_secrets("ALTER USER u IDENTIFIED BY \"n'ew\" REPLACE 'old'"),
            "ALTER USER u IDENTIFIED BY <secret> REPLACE <secret>"
        );
        assert_eq!(
            redact_secrets("SET PASSWORD FOR 'u'@'h' = 'x'"),
            "SET PASSWORD FOR 'u'@'h' = <secret>"
        );
        assert_eq!(
            redact_secrets("GRANT SELECT ON db.* TO 'by'@'%'"),
            "GRANT SELECT ON db.* TO 'by'@'%'"
        );
    }

    #[test]
    fn log_output_values() {
        use crate::runtime::sysvars::{lookup, normalise};
        let def = lookup("log_output").unwrap();
        let n = |s: &str| normalise(def, &Value::Str(s.into()));
        assert_eq!(n("file").unwrap(), Value::Str("FILE".into()));
        assert_eq!(n("FILE,none").unwrap(), Value::Str("NONE,FILE".into()));
        assert_eq!(n("TABLE").unwrap_err().num(), 1235);
        assert_eq!(n("FILE,TABLE").unwrap_err().num(), 1235);
        assert_eq!(n("").unwrap_err().num(), 1231);
        assert_eq!(n("DISK").unwrap_err().num(), 1231);
        let lqt = lookup("long_query_time").unwrap();
        let d = |v: Value| normalise(lqt, &v).unwrap().to_string();
        assert_eq!(d(Value::Str("10".into())), "10.000000");
        assert_eq!(d(Value::Str("0.2".into())), "0.200000");
        assert_eq!(d(Value::Int(-1)), "0.000000");
        let g = GlobalVars::new(&[]).unwrap();
        assert_eq!(g.get("long_query_time").unwrap().to_string(), "10.000000");
    }

    #[test]
    fn files_open_switch_and_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let logs = QueryLogs::default();
        let g = GlobalVars::new(&[
            ("slow_query_log".into(), "ON".into()),
            ("general_log".into(), "ON".into()),
        ])
        .unwrap();
        let warnings = logs.start(
            LogSetup {
                datadir: dir.path().to_path_buf(),
                hostname: "h".into(),
                program: "/x/mysqld".into(),
                version: "8.4".into(),
                comment: "c".into(),
                port: 3306,
                socket: String::new(),
            },
            &g,
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        let slow = dir.path().join("h-slow.log");
        let general = dir.path().join("h.log");
        assert_eq!(
            g.get("slow_query_log_file").unwrap().to_string(),
            slow.display().to_string()
        );
        assert!(logs.slow_on() && logs.general_on());
        logs.general(3, "Query", "SELECT 1");
        logs.slow(&entry("SELECT 1", None));
        let text = std::fs::read_to_string(&general).unwrap();
        assert!(text.starts_with("/x/mysqld, Version: 8.4 (c). started with:\n"));
        assert!(text.ends_with("    3 Query\tSELECT 1\n"), "{text}");
        assert!(std::fs::read_to_string(&slow)
            .unwrap()
            .ends_with("SELECT 1;\n"));

        // logrotate: rename, then FLUSH LOGS starts a new file with a header
        let rotated = dir.path().join("h-slow.log.1");
        std::fs::rename(&slow, &rotated).unwrap();
        logs.reopen(&g, true, true).unwrap();
        logs.slow(&entry("SELECT 2", None));
        assert!(std::fs::read_to_string(&rotated)
            .unwrap()
            .ends_with("SELECT 1;\n"));
        let fresh = std::fs::read_to_string(&slow).unwrap();
        assert!(fresh.starts_with("/x/mysqld, Version"), "{fresh}");
        assert!(fresh.ends_with("SELECT 2;\n"));

        // another file at run time (relative: in the data directory); a bad one changes nothing
        let def = crate::runtime::sysvars::lookup("slow_query_log_file").unwrap();
        logs.set_global(&g, def, &Value::Str("other.log".into()))
            .unwrap();
        logs.slow(&entry("SELECT 3", None));
        assert!(std::fs::read_to_string(dir.path().join("other.log"))
            .unwrap()
            .ends_with("SELECT 3;\n"));
        let err = logs
            .set_global(&g, def, &Value::Str("/nonexistent/dir/x.log".into()))
            .unwrap_err();
        assert_eq!(err.num(), 1231);
        assert_eq!(
            g.get("slow_query_log_file").unwrap().to_string(),
            "other.log"
        );
        logs.set_global(&g, def, &Value::Str("DEFAULT".into()))
            .unwrap();
        assert_eq!(
            g.get("slow_query_log_file").unwrap().to_string(),
            slow.display().to_string()
        );

        // off: nothing is written; NONE: on but not written
        let on = crate::runtime::sysvars::lookup("general_log").unwrap();
        logs.set_global(&g, on, &Value::Str("OFF".into())).unwrap();
        assert!(!logs.general_on());
        let out = crate::runtime::sysvars::lookup("log_output").unwrap();
        logs.set_global(&g, out, &Value::Str("NONE".into()))
            .unwrap();
        assert!(!logs.slow_on());
        assert_eq!(
            logs.set_global(&g, out, &Value::Str("TABLE".into()))
                .unwrap_err()
                .num(),
            1235
        );
        logs.set_global(&g, out, &Value::Str("FILE".into()))
            .unwrap();
        assert!(logs.slow_on());
    }
}
