//! The account statements' syntax: CREATE / ALTER / DROP / RENAME USER, SET PASSWORD, GRANT
//! and REVOKE parsed from their tokens into an [`AclStmt`] (sqlparser does not know most of
//! MySQL's forms), and the static privileges ([`privs`], [`PRIVS`]) their privilege lists name.
//! Executed by `crate::acl::stmt`.
//!
//! May use: [`crate::runtime`] and the rest of this stage.

use common::{codes, Error, Result};
use sqlparser::tokenizer::Token;

/// The static privileges as bits of [`storage::catalog::acl::AccountDef::global`] and friends.
pub mod privs {
    /// SELECT
    pub const SELECT: u64 = 1 << 0;
    /// INSERT
    pub const INSERT: u64 = 1 << 1;
    /// UPDATE
    pub const UPDATE: u64 = 1 << 2;
    /// DELETE
    pub const DELETE: u64 = 1 << 3;
    /// CREATE
    pub const CREATE: u64 = 1 << 4;
    /// DROP
    pub const DROP: u64 = 1 << 5;
    /// RELOAD
    pub const RELOAD: u64 = 1 << 6;
    /// SHUTDOWN
    pub const SHUTDOWN: u64 = 1 << 7;
    /// PROCESS
    pub const PROCESS: u64 = 1 << 8;
    /// FILE
    pub const FILE: u64 = 1 << 9;
    /// GRANT OPTION
    pub const GRANT: u64 = 1 << 10;
    /// REFERENCES
    pub const REFERENCES: u64 = 1 << 11;
    /// INDEX
    pub const INDEX: u64 = 1 << 12;
    /// ALTER
    pub const ALTER: u64 = 1 << 13;
    /// SHOW DATABASES
    pub const SHOW_DB: u64 = 1 << 14;
    /// SUPER
    pub const SUPER: u64 = 1 << 15;
    /// CREATE TEMPORARY TABLES
    pub const CREATE_TMP: u64 = 1 << 16;
    /// LOCK TABLES
    pub const LOCK_TABLES: u64 = 1 << 17;
    /// EXECUTE
    pub const EXECUTE: u64 = 1 << 18;
    /// REPLICATION SLAVE
    pub const REPL_SLAVE: u64 = 1 << 19;
    /// REPLICATION CLIENT
    pub const REPL_CLIENT: u64 = 1 << 20;
    /// CREATE VIEW
    pub const CREATE_VIEW: u64 = 1 << 21;
    /// SHOW VIEW
    pub const SHOW_VIEW: u64 = 1 << 22;
    /// CREATE ROUTINE
    pub const CREATE_ROUTINE: u64 = 1 << 23;
    /// ALTER ROUTINE
    pub const ALTER_ROUTINE: u64 = 1 << 24;
    /// CREATE USER
    pub const CREATE_USER: u64 = 1 << 25;
    /// EVENT
    pub const EVENT: u64 = 1 << 26;
    /// TRIGGER
    pub const TRIGGER: u64 = 1 << 27;
    /// CREATE TABLESPACE
    pub const CREATE_TABLESPACE: u64 = 1 << 28;
    /// CREATE ROLE
    pub const CREATE_ROLE: u64 = 1 << 29;
    /// DROP ROLE
    pub const DROP_ROLE: u64 = 1 << 30;

    /// Every static privilege except GRANT OPTION (what `ALL` means at the global level).
    pub const ALL_GLOBAL: u64 = ((1 << 31) - 1) & !GRANT;
    /// Privileges grantable at the database level (`ALL` on `db.*`).
    pub const ALL_DB: u64 = SELECT
        | INSERT
        | UPDATE
        | DELETE
        | CREATE
        | DROP
        | REFERENCES
        | INDEX
        | ALTER
        | CREATE_TMP
        | LOCK_TABLES
        | EXECUTE
        | CREATE_VIEW
        | SHOW_VIEW
        | CREATE_ROUTINE
        | ALTER_ROUTINE
        | EVENT
        | TRIGGER;
    /// Privileges grantable at the table level (`ALL` on `db.t`).
    pub const ALL_TABLE: u64 = SELECT
        | INSERT
        | UPDATE
        | DELETE
        | CREATE
        | DROP
        | REFERENCES
        | INDEX
        | ALTER
        | CREATE_VIEW
        | SHOW_VIEW
        | TRIGGER;
    /// Privileges grantable on columns.
    pub const ALL_COLUMN: u64 = SELECT | INSERT | UPDATE | REFERENCES;
}

/// A static privilege: its bit, its name in GRANT statements and its `mysql.user` column.
#[derive(Debug, Clone, Copy)]
pub struct PrivName {
    /// The bit.
    pub bit: u64,
    /// Name as in `GRANT` / `SHOW GRANTS` (upper case).
    pub name: &'static str,
    /// `mysql.user` column (`Select_priv`).
    pub column: &'static str,
}

macro_rules! p {
    ($bit:ident, $name:literal, $col:literal) => {
        PrivName {
            bit: privs::$bit,
            name: $name,
            column: $col,
        }
    };
}

/// The static privileges in MySQL's order (the order of `SHOW GRANTS` and `mysql.user`).
pub const PRIVS: &[PrivName] = &[
    p!(SELECT, "SELECT", "Select_priv"),
    p!(INSERT, "INSERT", "Insert_priv"),
    p!(UPDATE, "UPDATE", "Update_priv"),
    p!(DELETE, "DELETE", "Delete_priv"),
    p!(CREATE, "CREATE", "Create_priv"),
    p!(DROP, "DROP", "Drop_priv"),
    p!(RELOAD, "RELOAD", "Reload_priv"),
    p!(SHUTDOWN, "SHUTDOWN", "Shutdown_priv"),
    p!(PROCESS, "PROCESS", "Process_priv"),
    p!(FILE, "FILE", "File_priv"),
    p!(GRANT, "GRANT OPTION", "Grant_priv"),
    p!(REFERENCES, "REFERENCES", "References_priv"),
    p!(INDEX, "INDEX", "Index_priv"),
    p!(ALTER, "ALTER", "Alter_priv"),
    p!(SHOW_DB, "SHOW DATABASES", "Show_db_priv"),
    p!(SUPER, "SUPER", "Super_priv"),
    p!(
        CREATE_TMP,
        "CREATE TEMPORARY TABLES",
        "Create_tmp_table_priv"
    ),
    p!(LOCK_TABLES, "LOCK TABLES", "Lock_tables_priv"),
    p!(EXECUTE, "EXECUTE", "Execute_priv"),
    p!(REPL_SLAVE, "REPLICATION SLAVE", "Repl_slave_priv"),
    p!(REPL_CLIENT, "REPLICATION CLIENT", "Repl_client_priv"),
    p!(CREATE_VIEW, "CREATE VIEW", "Create_view_priv"),
    p!(SHOW_VIEW, "SHOW VIEW", "Show_view_priv"),
    p!(CREATE_ROUTINE, "CREATE ROUTINE", "Create_routine_priv"),
    p!(ALTER_ROUTINE, "ALTER ROUTINE", "Alter_routine_priv"),
    p!(CREATE_USER, "CREATE USER", "Create_user_priv"),
    p!(EVENT, "EVENT", "Event_priv"),
    p!(TRIGGER, "TRIGGER", "Trigger_priv"),
    p!(
        CREATE_TABLESPACE,
        "CREATE TABLESPACE",
        "Create_tablespace_priv"
    ),
    p!(CREATE_ROLE, "CREATE ROLE", "Create_role_priv"),
    p!(DROP_ROLE, "DROP ROLE", "Drop_role_priv"),
];

/// An account named in a statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserSpec {
    /// `'user'@'host'` (host `%` when omitted).
    Named(String, String),
    /// `CURRENT_USER` / `CURRENT_USER()` / `USER()`.
    Current,
}

/// `IDENTIFIED [WITH plugin] [BY 'password' | AS 'hash']`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthSpec {
    /// Plugin name, if given.
    pub plugin: Option<String>,
    /// Cleartext password (`BY`).
    pub password: Option<String>,
    /// Stored credential as-is (`AS`).
    pub hash: Option<String>,
}

/// The object of GRANT/REVOKE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrivLevel {
    /// `*.*`
    Global,
    /// `db.*`, or `*` (the current database) when `None`.
    Db(Option<String>),
    /// `db.t`, or `t` in the current database.
    Table(Option<String>, String),
}

/// One item of a privilege list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrivItem {
    /// The privilege bit (0 for ALL, see `all`).
    pub bit: u64,
    /// `ALL [PRIVILEGES]`.
    pub all: bool,
    /// Column list (`SELECT (a, b)`), empty for a table/db/global privilege.
    pub columns: Vec<String>,
}

/// A parsed account management statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AclStmt {
    /// CREATE USER.
    CreateUser {
        /// IF NOT EXISTS
        if_not_exists: bool,
        /// Accounts with their authentication.
        users: Vec<(UserSpec, Option<AuthSpec>)>,
        /// ACCOUNT LOCK (Some(true)) / UNLOCK (Some(false)).
        lock: Option<bool>,
        /// REQUIRE NONE / SSL / X509 as `mysql.user.ssl_type` (`""`, `"ANY"`, `"X509"`).
        require: Option<String>,
    },
    /// ALTER USER.
    AlterUser {
        /// IF EXISTS
        if_exists: bool,
        /// Accounts with their new authentication.
        users: Vec<(UserSpec, Option<AuthSpec>)>,
        /// ACCOUNT LOCK / UNLOCK.
        lock: Option<bool>,
        /// REQUIRE NONE / SSL / X509.
        require: Option<String>,
    },
    /// DROP USER.
    DropUser {
        /// IF EXISTS
        if_exists: bool,
        /// Accounts.
        users: Vec<UserSpec>,
    },
    /// RENAME USER a TO b, ...
    RenameUser(Vec<(UserSpec, UserSpec)>),
    /// SET PASSWORD [FOR user] = 'pw'.
    SetPassword {
        /// The account (None = the current user).
        user: Option<UserSpec>,
        /// The new password.
        password: String,
    },
    /// GRANT privs ON level TO users [WITH GRANT OPTION].
    Grant {
        /// Privileges.
        privs: Vec<PrivItem>,
        /// Object.
        level: PrivLevel,
        /// Grantees.
        users: Vec<UserSpec>,
        /// WITH GRANT OPTION.
        grant_option: bool,
    },
    /// REVOKE privs ON level FROM users.
    Revoke {
        /// Privileges.
        privs: Vec<PrivItem>,
        /// Object.
        level: PrivLevel,
        /// Accounts.
        users: Vec<UserSpec>,
    },
    /// `REVOKE ALL [PRIVILEGES], GRANT OPTION FROM users`.
    RevokeAll(Vec<UserSpec>),
}

// ---- parsing ----

struct P<'a> {
    t: &'a [Token],
    i: usize,
}

fn bad(t: &[Token], i: usize) -> Error {
    Error::parse(
        t.iter()
            .skip(i)
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(" "),
    )
}

impl<'a> P<'a> {
    fn peek(&self) -> Option<&'a Token> {
        self.t.get(self.i)
    }
    fn kw_at(&self, i: usize) -> Option<String> {
        match self.t.get(i) {
            Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
            _ => None,
        }
    }
    fn is(&self, kw: &str) -> bool {
        self.kw_at(self.i).as_deref() == Some(kw)
    }
    fn eat(&mut self, kw: &str) -> bool {
        if self.is(kw) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn eat_seq(&mut self, kws: &[&str]) -> bool {
        if kws
            .iter()
            .enumerate()
            .all(|(k, w)| self.kw_at(self.i + k).as_deref() == Some(*w))
        {
            self.i += kws.len();
            true
        } else {
            false
        }
    }
    fn eat_tok(&mut self, t: &Token) -> bool {
        if self.peek() == Some(t) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn err(&self) -> Error {
        bad(self.t, self.i)
    }
    fn expect(&mut self, kw: &str) -> Result<()> {
        if self.eat(kw) {
            Ok(())
        } else {
            Err(self.err())
        }
    }
    fn done(&self) -> bool {
        self.i >= self.t.len()
    }
    fn string(&mut self) -> Result<String> {
        match self.peek() {
            Some(Token::SingleQuotedString(s)) | Some(Token::DoubleQuotedString(s)) => {
                self.i += 1;
                Ok(s.clone())
            }
            _ => Err(self.err()),
        }
    }
    /// An identifier or a string (user and host names, plugin names).
    fn name(&mut self) -> Result<String> {
        match self.peek() {
            Some(Token::SingleQuotedString(s)) | Some(Token::DoubleQuotedString(s)) => {
                self.i += 1;
                Ok(s.clone())
            }
            Some(Token::Word(w)) => {
                self.i += 1;
                Ok(w.value.clone())
            }
            _ => Err(self.err()),
        }
    }
    fn ident(&mut self) -> Result<String> {
        match self.peek() {
            Some(Token::Word(w)) => {
                self.i += 1;
                Ok(w.value.clone())
            }
            _ => Err(self.err()),
        }
    }

    /// `'u'@'h'`, `u@h`, `u`, `CURRENT_USER[()]`.
    fn user(&mut self) -> Result<UserSpec> {
        if self.is("CURRENT_USER") || self.is("USER") {
            let is_user_fn = self.is("USER");
            self.i += 1;
            if self.eat_tok(&Token::LParen) {
                if !self.eat_tok(&Token::RParen) {
                    return Err(self.err());
                }
            } else if is_user_fn {
                return Err(self.err());
            }
            return Ok(UserSpec::Current);
        }
        let (user, mut host) = match self.peek() {
            Some(Token::Word(w)) if w.quote_style.is_none() && w.value.contains('@') => {
                self.i += 1;
                let (u, h) = w.value.split_once('@').unwrap_or((&w.value, ""));
                (u.to_string(), (!h.is_empty()).then(|| h.to_string()))
            }
            _ => (self.name()?, None),
        };
        if host.is_none() {
            match self.peek() {
                Some(Token::AtSign) => {
                    self.i += 1;
                    host = Some(self.name()?);
                }
                Some(Token::Word(w)) if w.quote_style.is_none() && w.value.starts_with('@') => {
                    self.i += 1;
                    host = Some(w.value[1..].to_string());
                }
                _ => {
                    // `bob@'%'` arrives as the word `bob@` and a string: handled above
                    // (empty host part), so the string follows here
                    if let Some(Token::SingleQuotedString(_)) = self.peek() {
                        if self
                            .t
                            .get(self.i.wrapping_sub(1))
                            .is_some_and(|t| matches!(t, Token::Word(w) if w.value.ends_with('@')))
                        {
                            host = Some(self.string()?);
                        }
                    }
                }
            }
        }
        let host = host.unwrap_or_else(|| "%".into()).to_ascii_lowercase();
        if user.chars().count() > 32 {
            return Err(Error::new(
                codes::ER_WRONG_STRING_LENGTH,
                format!("String '{user}' is too long for user name (should be no longer than 32)"),
            ));
        }
        if host.chars().count() > 255 {
            return Err(Error::new(
                codes::ER_WRONG_STRING_LENGTH,
                format!("String '{host}' is too long for host name (should be no longer than 255)"),
            ));
        }
        Ok(UserSpec::Named(user, host))
    }

    fn users(&mut self) -> Result<Vec<UserSpec>> {
        let mut v = vec![self.user()?];
        while self.eat_tok(&Token::Comma) {
            v.push(self.user()?);
        }
        Ok(v)
    }

    fn auth(&mut self) -> Result<Option<AuthSpec>> {
        if !self.eat("IDENTIFIED") {
            return Ok(None);
        }
        let mut a = AuthSpec::default();
        if self.eat("WITH") {
            a.plugin = Some(self.name()?.to_ascii_lowercase());
            if self.eat("BY") {
                a.password = Some(self.string()?);
            } else if self.eat("AS") {
                a.hash = Some(self.string()?);
            }
        } else {
            self.expect("BY")?;
            if self.is("RANDOM") {
                return Err(Error::not_supported("IDENTIFIED BY RANDOM PASSWORD"));
            }
            a.password = Some(self.string()?);
        }
        Ok(Some(a))
    }

    fn users_with_auth(&mut self) -> Result<Vec<(UserSpec, Option<AuthSpec>)>> {
        let mut v = Vec::new();
        loop {
            let u = self.user()?;
            let a = self.auth()?;
            v.push((u, a));
            if !self.eat_tok(&Token::Comma) {
                return Ok(v);
            }
        }
    }

    /// Trailing account options: ACCOUNT LOCK/UNLOCK; REQUIRE NONE and the password/resource
    /// options MySQL accepts are consumed (accepted, not enforced — see docs/compatibility.md).
    fn account_options(&mut self) -> Result<(Option<bool>, Option<String>)> {
        let mut lock = None;
        let mut require = None;
        while !self.done() {
            if self.eat_seq(&["ACCOUNT", "LOCK"]) {
                lock = Some(true);
            } else if self.eat_seq(&["ACCOUNT", "UNLOCK"]) {
                lock = Some(false);
            } else if self.eat_seq(&["REQUIRE", "NONE"]) {
                require = Some(String::new());
            } else if self.eat_seq(&["REQUIRE", "SSL"]) {
                require = Some("ANY".into());
            } else if self.eat_seq(&["REQUIRE", "X509"]) {
                require = Some("X509".into());
            } else if self.is("REQUIRE") {
                return Err(Error::not_supported(
                    "REQUIRE ISSUER/SUBJECT/CIPHER (only NONE, SSL and X509)",
                ));
            } else if self.eat("WITH") {
                // WITH MAX_QUERIES_PER_HOUR n ...
                while matches!(self.kw_at(self.i).as_deref(), Some(k) if k.starts_with("MAX_")) {
                    self.i += 1;
                    if !matches!(self.peek(), Some(Token::Number(..))) {
                        return Err(self.err());
                    }
                    self.i += 1;
                }
            } else if self.eat("PASSWORD") {
                // PASSWORD EXPIRE [DEFAULT|NEVER|INTERVAL n DAY] / HISTORY / REUSE INTERVAL ...
                while !self.done() && !self.is("ACCOUNT") && !self.is("PASSWORD") {
                    self.i += 1;
                }
            } else {
                return Err(self.err());
            }
        }
        Ok((lock, require))
    }

    fn priv_item(&mut self) -> Result<PrivItem> {
        if self.eat("ALL") {
            self.eat("PRIVILEGES");
            return Ok(PrivItem {
                bit: 0,
                all: true,
                columns: vec![],
            });
        }
        if self.eat("USAGE") {
            return Ok(PrivItem {
                bit: 0,
                all: false,
                columns: vec![],
            });
        }
        // longest privilege name first (CREATE TEMPORARY TABLES before CREATE)
        let mut best: Option<(usize, u64)> = None;
        for p in PRIVS {
            let words: Vec<&str> = p.name.split(' ').collect();
            if words
                .iter()
                .enumerate()
                .all(|(k, w)| self.kw_at(self.i + k).as_deref() == Some(*w))
                && best.is_none_or(|(n, _)| words.len() > n)
            {
                best = Some((words.len(), p.bit));
            }
        }
        let Some((n, bit)) = best else {
            return Err(self.err());
        };
        self.i += n;
        let mut columns = Vec::new();
        if self.eat_tok(&Token::LParen) {
            loop {
                columns.push(self.ident()?);
                if self.eat_tok(&Token::RParen) {
                    break;
                }
                if !self.eat_tok(&Token::Comma) {
                    return Err(self.err());
                }
            }
        }
        Ok(PrivItem {
            bit,
            all: false,
            columns,
        })
    }

    fn priv_list(&mut self) -> Result<Vec<PrivItem>> {
        let mut v = vec![self.priv_item()?];
        while self.eat_tok(&Token::Comma) {
            v.push(self.priv_item()?);
        }
        Ok(v)
    }

    fn level(&mut self) -> Result<PrivLevel> {
        self.eat("TABLE");
        if self.eat_tok(&Token::Mul) {
            if self.eat_tok(&Token::Period) {
                if self.eat_tok(&Token::Mul) {
                    return Ok(PrivLevel::Global);
                }
                return Err(self.err());
            }
            return Ok(PrivLevel::Db(None));
        }
        let first = self.ident()?;
        if self.eat_tok(&Token::Period) {
            if self.eat_tok(&Token::Mul) {
                return Ok(PrivLevel::Db(Some(first)));
            }
            let t = self.ident()?;
            return Ok(PrivLevel::Table(Some(first), t));
        }
        Ok(PrivLevel::Table(None, first))
    }
}

/// Parses an account management statement from its non-whitespace tokens; `None` if the
/// tokens are not one.
pub fn parse(toks: &[Token]) -> Option<Result<AclStmt>> {
    let mut p = P { t: toks, i: 0 };
    let first = p.kw_at(0)?;
    let second = p.kw_at(1);
    let r = match (first.as_str(), second.as_deref()) {
        ("CREATE", Some("USER")) => {
            p.i = 2;
            (|| {
                let if_not_exists = p.eat_seq(&["IF", "NOT", "EXISTS"]);
                let users = p.users_with_auth()?;
                if p.eat_seq(&["DEFAULT", "ROLE"]) {
                    return Err(Error::not_supported("DEFAULT ROLE (roles)"));
                }
                let (lock, require) = p.account_options()?;
                Ok(AclStmt::CreateUser {
                    if_not_exists,
                    users,
                    lock,
                    require,
                })
            })()
        }
        ("ALTER", Some("USER")) => {
            p.i = 2;
            (|| {
                let if_exists = p.eat_seq(&["IF", "EXISTS"]);
                let users = p.users_with_auth()?;
                let (lock, require) = p.account_options()?;
                Ok(AclStmt::AlterUser {
                    if_exists,
                    users,
                    lock,
                    require,
                })
            })()
        }
        ("DROP", Some("USER")) => {
            p.i = 2;
            (|| {
                let if_exists = p.eat_seq(&["IF", "EXISTS"]);
                let users = p.users()?;
                Ok(AclStmt::DropUser { if_exists, users })
            })()
        }
        ("RENAME", Some("USER")) => {
            p.i = 2;
            (|| {
                let mut v = Vec::new();
                loop {
                    let a = p.user()?;
                    p.expect("TO")?;
                    let b = p.user()?;
                    v.push((a, b));
                    if !p.eat_tok(&Token::Comma) {
                        break;
                    }
                }
                Ok(AclStmt::RenameUser(v))
            })()
        }
        ("SET", Some("PASSWORD")) => {
            p.i = 2;
            (|| {
                let user = if p.eat("FOR") { Some(p.user()?) } else { None };
                if !p.eat_tok(&Token::Eq) && !p.eat("TO") {
                    return Err(p.err());
                }
                if p.is("RANDOM") {
                    return Err(Error::not_supported("SET PASSWORD TO RANDOM"));
                }
                let password = p.string()?;
                Ok(AclStmt::SetPassword { user, password })
            })()
        }
        ("GRANT", _) => {
            p.i = 1;
            let has_on = (1..toks.len()).any(|i| p.kw_at(i).as_deref() == Some("ON"));
            (|| {
                if !has_on {
                    return Err(Error::not_supported("GRANT role (roles)"));
                }
                let privs = p.priv_list()?;
                if !p.eat("ON") {
                    return Err(Error::not_supported("GRANT role (roles)"));
                }
                let level = p.level()?;
                p.expect("TO")?;
                let users = p.users()?;
                let grant_option = p.eat_seq(&["WITH", "GRANT", "OPTION"]);
                Ok(AclStmt::Grant {
                    privs,
                    level,
                    users,
                    grant_option,
                })
            })()
        }
        ("REVOKE", _) => {
            p.i = 1;
            (|| {
                let save = p.i;
                if p.eat("ALL") {
                    p.eat("PRIVILEGES");
                    if p.eat_tok(&Token::Comma) && p.eat_seq(&["GRANT", "OPTION"]) && p.eat("FROM")
                    {
                        return Ok(AclStmt::RevokeAll(p.users()?));
                    }
                    p.i = save;
                }
                if !(1..toks.len()).any(|i| p.kw_at(i).as_deref() == Some("ON")) {
                    return Err(Error::not_supported("REVOKE role (roles)"));
                }
                let privs = p.priv_list()?;
                p.expect("ON")?;
                let level = p.level()?;
                p.expect("FROM")?;
                let users = p.users()?;
                Ok(AclStmt::Revoke {
                    privs,
                    level,
                    users,
                })
            })()
        }
        _ => return None,
    };
    Some(r.and_then(|s| if p.done() { Ok(s) } else { Err(p.err()) }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parser::tokenize;

    fn toks(sql: &str) -> Vec<Token> {
        tokenize(sql)
            .unwrap()
            .0
            .into_iter()
            .map(|t| t.token)
            .filter(|t| !matches!(t, Token::Whitespace(_)))
            .collect()
    }

    fn p(sql: &str) -> AclStmt {
        parse(&toks(sql)).unwrap().unwrap()
    }

    fn named(u: &str, h: &str) -> UserSpec {
        UserSpec::Named(u.into(), h.into())
    }

    #[test]
    fn user_name_forms() {
        for (sql, u, h) in [
            ("DROP USER 'bob'@'localhost'", "bob", "localhost"),
            ("DROP USER bob@localhost", "bob", "localhost"),
            ("DROP USER bob", "bob", "%"),
            ("DROP USER `bob`@`10.0.0.%`", "bob", "10.0.0.%"),
            ("DROP USER 'bob'@LOCALHOST", "bob", "localhost"),
            ("DROP USER bob@'%'", "bob", "%"),
            ("DROP USER \"bob\"@\"h\"", "bob", "h"),
        ] {
            assert_eq!(
                p(sql),
                AclStmt::DropUser {
                    if_exists: false,
                    users: vec![named(u, h)]
                },
                "{sql}"
            );
        }
    }

    #[test]
    fn create_alter_forms() {
        assert_eq!(
            p("CREATE USER IF NOT EXISTS 'a'@'%' IDENTIFIED WITH mysql_native_password BY 'pw', b IDENTIFIED BY 'x' ACCOUNT LOCK"),
            AclStmt::CreateUser {
                if_not_exists: true,
                users: vec![
                    (
                        named("a", "%"),
                        Some(AuthSpec {
                            plugin: Some("mysql_native_password".into()),
                            password: Some("pw".into()),
                            hash: None
                        })
                    ),
                    (
                        named("b", "%"),
                        Some(AuthSpec {
                            plugin: None,
                            password: Some("x".into()),
                            hash: None
                        })
                    ),
                ],
                lock: Some(true),
                require: None,
            }
        );
        assert!(matches!(
            p("ALTER USER CURRENT_USER() IDENTIFIED BY 'n'"),
            AclStmt::AlterUser { users, .. } if users[0].0 == UserSpec::Current
        ));
        assert!(matches!(
            p("ALTER USER u REQUIRE X509 ACCOUNT LOCK"),
            AclStmt::AlterUser { require: Some(r), lock: Some(true), .. } if r == "X509"
        ));
        assert!(matches!(
            p("CREATE USER u REQUIRE SSL"),
            AclStmt::CreateUser { require: Some(r), .. } if r == "ANY"
        ));
        assert!(matches!(
            p("ALTER USER u REQUIRE NONE"),
            AclStmt::AlterUser { require: Some(r), .. } if r.is_empty()
        ));
        assert_eq!(
            parse(&toks("CREATE USER u REQUIRE SUBJECT 'x'"))
                .unwrap()
                .unwrap_err()
                .code
                .num,
            1235
        );
        assert!(matches!(
            p("ALTER USER u ACCOUNT UNLOCK"),
            AclStmt::AlterUser {
                lock: Some(false),
                ..
            }
        ));
        assert!(matches!(
            p("SET PASSWORD FOR 'u'@'h' = 'x'"),
            AclStmt::SetPassword { user: Some(_), .. }
        ));
        assert!(matches!(
            p("RENAME USER a TO b, 'c'@'h' TO 'd'@'h'"),
            AclStmt::RenameUser(v) if v.len() == 2
        ));
    }

    #[test]
    fn grant_forms() {
        match p("GRANT SELECT (a, b), INSERT, CREATE TEMPORARY TABLES ON db.t TO u@'%', v WITH GRANT OPTION") {
            AclStmt::Grant {
                privs,
                level,
                users,
                grant_option,
            } => {
                assert_eq!(privs[0].columns, vec!["a", "b"]);
                assert_eq!(privs[2].bit, privs::CREATE_TMP);
                assert_eq!(level, PrivLevel::Table(Some("db".into()), "t".into()));
                assert_eq!(users.len(), 2);
                assert!(grant_option);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            p("GRANT ALL ON *.* TO u"),
            AclStmt::Grant {
                level: PrivLevel::Global,
                ..
            }
        ));
        assert!(matches!(
            p("GRANT ALL PRIVILEGES ON d.* TO u"),
            AclStmt::Grant {
                level: PrivLevel::Db(Some(_)),
                ..
            }
        ));
        assert!(matches!(
            p("GRANT SELECT ON * TO u"),
            AclStmt::Grant {
                level: PrivLevel::Db(None),
                ..
            }
        ));
        assert!(matches!(
            p("REVOKE ALL PRIVILEGES, GRANT OPTION FROM u"),
            AclStmt::RevokeAll(_)
        ));
        assert!(matches!(
            p("REVOKE ALL ON d.* FROM u"),
            AclStmt::Revoke { .. }
        ));
        assert!(parse(&toks("GRANT FOO ON *.* TO u")).unwrap().is_err());
        assert!(parse(&toks("SELECT 1")).is_none());
    }
}
