//! The replica's statements: CHANGE REPLICATION SOURCE TO (and CHANGE MASTER TO),
//! START / STOP REPLICA [IO_THREAD | SQL_THREAD] (and … SLAVE), RESET REPLICA [ALL]. SHOW
//! REPLICA STATUS is read with the other SHOW statements. Options Strata cannot honour are
//! refused here (1235), never accepted and ignored.

use common::{codes, Error, Result};
use replication::replica::OptionValue;
use sqlparser::tokenizer::Token;

/// A parsed replica statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplicaStmt {
    /// CHANGE REPLICATION SOURCE TO: the options, names in their `SOURCE_` spelling.
    ChangeSource(Vec<(String, OptionValue)>),
    /// START REPLICA: which threads.
    Start {
        /// The receiver.
        io: bool,
        /// The applier.
        sql: bool,
    },
    /// STOP REPLICA: which threads.
    Stop {
        /// The receiver.
        io: bool,
        /// The applier.
        sql: bool,
    },
    /// RESET REPLICA [ALL].
    Reset {
        /// ALL: the source configuration too.
        all: bool,
    },
}

/// The options CHANGE REPLICATION SOURCE TO takes here.
const SUPPORTED: &[&str] = &[
    "SOURCE_HOST",
    "SOURCE_PORT",
    "SOURCE_USER",
    "SOURCE_PASSWORD",
    "SOURCE_AUTO_POSITION",
    "SOURCE_CONNECT_RETRY",
    "SOURCE_RETRY_COUNT",
    "SOURCE_SSL",
    "GET_SOURCE_PUBLIC_KEY",
];

/// MySQL 8.4's other options: refused with 1235.
const NOT_BUILT: &[&str] = &[
    "SOURCE_BIND",
    "SOURCE_LOG_FILE",
    "SOURCE_LOG_POS",
    "RELAY_LOG_FILE",
    "RELAY_LOG_POS",
    "SOURCE_DELAY",
    "SOURCE_HEARTBEAT_PERIOD",
    "SOURCE_COMPRESSION_ALGORITHMS",
    "SOURCE_ZSTD_COMPRESSION_LEVEL",
    "SOURCE_SSL_CA",
    "SOURCE_SSL_CAPATH",
    "SOURCE_SSL_CERT",
    "SOURCE_SSL_CRL",
    "SOURCE_SSL_CRLPATH",
    "SOURCE_SSL_KEY",
    "SOURCE_SSL_CIPHER",
    "SOURCE_SSL_VERIFY_SERVER_CERT",
    "SOURCE_TLS_VERSION",
    "SOURCE_TLS_CIPHERSUITES",
    "SOURCE_PUBLIC_KEY_PATH",
    "SOURCE_CONNECTION_AUTO_FAILOVER",
    "NETWORK_NAMESPACE",
    "PRIVILEGE_CHECKS_USER",
    "REQUIRE_ROW_FORMAT",
    "REQUIRE_TABLE_PRIMARY_KEY_CHECK",
    "ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS",
    "GTID_ONLY",
    "IGNORE_SERVER_IDS",
];

fn not_supported(what: &str) -> Error {
    Error::new(
        codes::ER_NOT_SUPPORTED_YET,
        format!("This version of MySQL doesn't yet support '{what}'"),
    )
}

/// An option's name in its `SOURCE_` spelling (`MASTER_HOST` → `SOURCE_HOST`).
fn canonical(name: &str) -> String {
    let up = name.to_ascii_uppercase();
    if let Some(rest) = up.strip_prefix("MASTER_") {
        return format!("SOURCE_{rest}");
    }
    if up == "GET_MASTER_PUBLIC_KEY" {
        return "GET_SOURCE_PUBLIC_KEY".into();
    }
    up
}

struct Cur<'a> {
    t: &'a [Token],
    i: usize,
}

impl Cur<'_> {
    fn word(&self) -> Option<String> {
        match self.t.get(self.i) {
            Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
            _ => None,
        }
    }

    fn eat(&mut self, w: &str) -> bool {
        if self.word().as_deref() == Some(w) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn err(&self) -> Error {
        Error::parse(
            self.t
                .get(self.i)
                .map(|t| t.to_string())
                .unwrap_or_default(),
        )
    }

    fn done(&self) -> bool {
        self.i >= self.t.len()
    }

    /// `[FOR CHANNEL 'name']` then the end; the channel must be the default one.
    fn channel_and_end(&mut self, change: bool) -> Result<()> {
        if self.eat("FOR") {
            if !self.eat("CHANNEL") {
                return Err(self.err());
            }
            let name = match self.t.get(self.i) {
                Some(Token::SingleQuotedString(s) | Token::DoubleQuotedString(s)) => s.clone(),
                Some(Token::Word(w)) => w.value.clone(),
                _ => return Err(self.err()),
            };
            self.i += 1;
            if !name.is_empty() {
                return Err(if change {
                    not_supported("multiple replication channels")
                } else {
                    Error::new(
                        codes::ER_REPLICA_CHANNEL_DOES_NOT_EXIST,
                        format!("Replication channel '{name}' does not exist."),
                    )
                });
            }
        }
        if self.done() {
            Ok(())
        } else {
            Err(self.err())
        }
    }

    /// `IO_THREAD | SQL_THREAD [, …]`: (io, sql), both when neither is named.
    fn threads(&mut self) -> Result<(bool, bool)> {
        let (mut io, mut sql) = (false, false);
        loop {
            if self.eat("IO_THREAD") {
                io = true;
            } else if self.eat("SQL_THREAD") {
                sql = true;
            } else {
                break;
            }
            if !matches!(self.t.get(self.i), Some(Token::Comma)) {
                break;
            }
            self.i += 1;
        }
        Ok(if io || sql { (io, sql) } else { (true, true) })
    }
}

fn change_options(c: &mut Cur<'_>) -> Result<Vec<(String, OptionValue)>> {
    let mut out = Vec::new();
    loop {
        let Some(raw) = c.word() else {
            return Err(c.err());
        };
        let name = canonical(&raw);
        if NOT_BUILT.contains(&name.as_str()) {
            return Err(not_supported(&format!(
                "CHANGE REPLICATION SOURCE TO {raw}"
            )));
        }
        if !SUPPORTED.contains(&name.as_str()) {
            return Err(c.err());
        }
        c.i += 1;
        if !matches!(c.t.get(c.i), Some(Token::Eq)) {
            return Err(c.err());
        }
        c.i += 1;
        let v = match c.t.get(c.i) {
            Some(Token::SingleQuotedString(s) | Token::DoubleQuotedString(s)) => {
                OptionValue::Str(s.clone())
            }
            Some(Token::Number(n, _)) => match n.parse::<u64>() {
                Ok(n) => OptionValue::Int(n),
                Err(_) => return Err(c.err()),
            },
            _ => return Err(c.err()),
        };
        c.i += 1;
        out.push((name, v));
        if matches!(c.t.get(c.i), Some(Token::Comma)) {
            c.i += 1;
            continue;
        }
        return Ok(out);
    }
}

/// Parses the tokens of a statement (whitespace removed); `None` when it is not one of these.
pub fn parse(plain: &[Token]) -> Option<Result<ReplicaStmt>> {
    let mut c = Cur { t: plain, i: 0 };
    let first = c.word()?;
    c.i = 1;
    match first.as_str() {
        "CHANGE" => {
            if c.eat("REPLICATION") {
                if c.eat("FILTER") {
                    return Some(Err(not_supported("CHANGE REPLICATION FILTER")));
                }
                if !c.eat("SOURCE") {
                    return Some(Err(c.err()));
                }
            } else if !c.eat("MASTER") {
                return None;
            }
            if !c.eat("TO") {
                return Some(Err(c.err()));
            }
            Some(change_options(&mut c).and_then(|opts| {
                c.channel_and_end(true)?;
                Ok(ReplicaStmt::ChangeSource(opts))
            }))
        }
        "START" | "STOP" => {
            if !(c.eat("REPLICA") || c.eat("SLAVE")) {
                return None;
            }
            Some(c.threads().and_then(|(io, sql)| {
                if first == "START" {
                    for w in ["UNTIL", "USER", "PASSWORD", "DEFAULT_AUTH", "PLUGIN_DIR"] {
                        if c.word().as_deref() == Some(w) {
                            return Err(not_supported(&format!("START REPLICA {w}")));
                        }
                    }
                }
                c.channel_and_end(false)?;
                Ok(if first == "START" {
                    ReplicaStmt::Start { io, sql }
                } else {
                    ReplicaStmt::Stop { io, sql }
                })
            }))
        }
        "RESET" => {
            if !(c.eat("REPLICA") || c.eat("SLAVE")) {
                return None;
            }
            let all = c.eat("ALL");
            Some(c.channel_and_end(false).map(|_| ReplicaStmt::Reset { all }))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(sql: &str) -> Option<Result<ReplicaStmt>> {
        let (t, _, _) = crate::parse::parser::tokenize(sql).unwrap();
        let plain: Vec<Token> = t
            .into_iter()
            .map(|t| t.token)
            .filter(|t| !matches!(t, Token::Whitespace(_)))
            .collect();
        parse(&plain)
    }

    #[test]
    fn change_source_in_both_spellings() {
        let want = ReplicaStmt::ChangeSource(vec![
            ("SOURCE_HOST".into(), OptionValue::Str("h".into())),
            ("SOURCE_PORT".into(), OptionValue::Int(3307)),
            ("SOURCE_AUTO_POSITION".into(), OptionValue::Int(1)),
        ]);
        assert_eq!(
            p("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', SOURCE_PORT=3307, SOURCE_AUTO_POSITION=1")
                .unwrap()
                .unwrap(),
            want
        );
        assert_eq!(
            p("change master to master_host='h', master_port=3307, master_auto_position=1 for channel ''")
                .unwrap()
                .unwrap(),
            want
        );
        let e = p("CHANGE REPLICATION SOURCE TO SOURCE_SSL_CA='/x'")
            .unwrap()
            .unwrap_err();
        assert_eq!(e.code.num, 1235);
        let e = p("CHANGE REPLICATION SOURCE TO SOURCE_BOGUS=1")
            .unwrap()
            .unwrap_err();
        assert_eq!(e.code.num, 1064);
        assert!(p("CHANGE REPLICATION SOURCE TO SOURCE_HOST=")
            .unwrap()
            .is_err());
        let e = p("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'c'")
            .unwrap()
            .unwrap_err();
        assert_eq!(e.code.num, 1235);
        assert!(p("CHANGE TABLE x").is_none());
    }

    #[test]
    fn start_stop_reset() {
        let s = |sql: &str| p(sql).unwrap().unwrap();
        assert_eq!(
            s("START REPLICA"),
            ReplicaStmt::Start {
                io: true,
                sql: true
            }
        );
        assert_eq!(
            s("start slave io_thread"),
            ReplicaStmt::Start {
                io: true,
                sql: false
            }
        );
        assert_eq!(
            s("STOP REPLICA SQL_THREAD, IO_THREAD FOR CHANNEL ''"),
            ReplicaStmt::Stop {
                io: true,
                sql: true
            }
        );
        assert_eq!(
            s("STOP SLAVE SQL_THREAD"),
            ReplicaStmt::Stop {
                io: false,
                sql: true
            }
        );
        assert_eq!(s("RESET REPLICA ALL"), ReplicaStmt::Reset { all: true });
        assert_eq!(s("RESET SLAVE"), ReplicaStmt::Reset { all: false });
        assert_eq!(
            p("START REPLICA UNTIL SQL_AFTER_GTIDS='x'")
                .unwrap()
                .unwrap_err()
                .code
                .num,
            1235
        );
        assert_eq!(
            p("STOP REPLICA FOR CHANNEL 'x'")
                .unwrap()
                .unwrap_err()
                .code
                .num,
            3074
        );
        assert!(p("START REPLICA now").unwrap().is_err());
        assert!(p("START TRANSACTION").is_none());
        assert!(p("RESET MASTER").is_none());
    }
}
