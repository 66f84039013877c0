//! Account management statements: CREATE / ALTER / DROP / RENAME USER, SET PASSWORD, GRANT and
//! REVOKE — parsed from tokens here (sqlparser does not know most of MySQL's forms) and applied
//! to the account cache and store ([`crate::acl::accounts::Acl`]). Who may run them is decided by
//! [`crate::acl_check`] before execution.

use common::{codes, Error, Level, Result, Warning};
use sqlparser::tokenizer::Token;
use storage::catalog::acl::{AccountChange, AccountDef, ColumnPriv, DbPriv, TablePriv};
use storage::engine::KvEngine;

use crate::acl::accounts::privs;
use crate::acl::accounts::quoted;
use crate::acl::accounts::PLUGINS;
use crate::acl::accounts::PRIVS;
use crate::session::session::Output;
use crate::session::session::Session;

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
    /// REVOKE ALL [PRIVILEGES], GRANT OPTION FROM users.
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

// ---- execution ----

impl UserSpec {
    /// (user, host), with CURRENT_USER resolved to the session's account.
    pub fn resolve<E: KvEngine>(&self, sess: &Session<E>) -> (String, String) {
        match self {
            UserSpec::Named(u, h) => (u.clone(), h.clone()),
            UserSpec::Current => (sess.user.clone(), sess.account_host.clone()),
        }
    }
}

/// 1396 `Operation X failed for 'u'@'h',...`.
fn op_failed(op: &str, names: &[(String, String)]) -> Error {
    let list: Vec<String> = names.iter().map(|(u, h)| quoted(u, h)).collect();
    Error::new(
        codes::ER_CANNOT_USER,
        format!("Operation {op} failed for {}", list.join(",")),
    )
}

fn find(list: &[AccountDef], u: &str, h: &str) -> Option<usize> {
    list.iter()
        .position(|a| a.user == u && a.host.eq_ignore_ascii_case(h))
}

/// (plugin, stored credential) for an authentication clause.
fn credential<E: KvEngine>(
    sess: &Session<E>,
    a: &AuthSpec,
    current_plugin: Option<&str>,
) -> Result<(String, String)> {
    let plugin = a
        .plugin
        .clone()
        .or_else(|| current_plugin.map(str::to_string))
        .unwrap_or_else(|| "caching_sha2_password".into());
    if !PLUGINS.contains(&plugin.as_str()) {
        return Err(Error::new(
            codes::ER_PLUGIN_IS_NOT_LOADED,
            format!("Plugin '{plugin}' is not loaded"),
        ));
    }
    let auth = if let Some(h) = &a.hash {
        let ok = h.is_empty()
            || match plugin.as_str() {
                "mysql_native_password" => {
                    h.len() == 41
                        && h.starts_with('*')
                        && h[1..].chars().all(|c| c.is_ascii_hexdigit())
                }
                _ => h.starts_with("$A$") && h.len() == 70,
            };
        if !ok {
            return Err(Error::new(
                codes::ER_PASSWORD_NO_MATCH,
                "The password hash doesn't have the expected format.",
            ));
        }
        h.clone()
    } else if let Some(pw) = &a.password {
        sess.inst.acl.hash(&plugin, pw)?
    } else {
        String::new()
    };
    Ok((plugin, auth))
}

/// Note 3162 for each account an `IF EXISTS` statement skipped.
fn note_missing_users<E: KvEngine>(sess: &mut Session<E>, missing: Vec<(String, String)>) {
    for (u, h) in missing {
        note(
            sess,
            codes::ER_USER_DOES_NOT_EXIST,
            format!("Authorization ID {} does not exist.", quoted(&u, &h)),
        );
    }
}

fn note<E: KvEngine>(sess: &mut Session<E>, code: common::ErrorCode, msg: String) {
    sess.warnings.push(Warning {
        level: Level::Note,
        code: code.num,
        msg,
    });
}

/// Resolves `*` / `t` against the current database.
pub fn resolve_level<E: KvEngine>(sess: &Session<E>, level: &PrivLevel) -> Result<PrivLevel> {
    Ok(match level {
        PrivLevel::Global => PrivLevel::Global,
        PrivLevel::Db(None) => PrivLevel::Db(Some(sess.db.clone().ok_or_else(Error::no_db)?)),
        PrivLevel::Table(None, t) => {
            PrivLevel::Table(Some(sess.db.clone().ok_or_else(Error::no_db)?), t.clone())
        }
        other => other.clone(),
    })
}

/// The privilege bits of a list at a level (ALL expanded), plus the column grants; validates
/// which privileges the level allows (1221 / 1144).
pub fn level_bits(items: &[PrivItem], level: &PrivLevel) -> Result<(u64, Vec<(String, u64)>)> {
    let (all, allowed) = match level {
        PrivLevel::Global => (privs::ALL_GLOBAL, privs::ALL_GLOBAL | privs::GRANT),
        PrivLevel::Db(_) => (privs::ALL_DB, privs::ALL_DB | privs::GRANT),
        PrivLevel::Table(..) => (privs::ALL_TABLE, privs::ALL_TABLE | privs::GRANT),
    };
    let mut bits = 0;
    let mut cols: Vec<(String, u64)> = Vec::new();
    for it in items {
        if it.all {
            bits |= all;
            continue;
        }
        if !it.columns.is_empty() {
            if !matches!(level, PrivLevel::Table(..)) || it.bit & privs::ALL_COLUMN == 0 {
                return Err(illegal_grant());
            }
            for c in &it.columns {
                match cols.iter_mut().find(|(n, _)| n.eq_ignore_ascii_case(c)) {
                    Some((_, b)) => *b |= it.bit,
                    None => cols.push((c.clone(), it.bit)),
                }
            }
            continue;
        }
        if it.bit & !allowed != 0 {
            return Err(match level {
                PrivLevel::Db(_) => Error::new(
                    codes::ER_WRONG_USAGE,
                    "Incorrect usage of DB GRANT and GLOBAL PRIVILEGES",
                ),
                _ => illegal_grant(),
            });
        }
        bits |= it.bit;
    }
    Ok((bits, cols))
}

fn illegal_grant() -> Error {
    Error::new(
        codes::ER_ILLEGAL_GRANT_FOR_TABLE,
        "Illegal GRANT/REVOKE command; please consult the manual to see which privileges can be used",
    )
}

/// Runs an account management statement (privileges already checked).
pub fn execute<E: KvEngine>(sess: &mut Session<E>, stmt: &AclStmt) -> Result<Output> {
    // Under --skip-grant-tables account statements run (as in MySQL after FLUSH PRIVILEGES),
    // which is how a lost root password is reset.
    let storage = sess.storage().clone();
    match stmt {
        AclStmt::CreateUser {
            if_not_exists,
            users,
            lock,
            require,
        } => {
            let mut defs = Vec::new();
            for (u, a) in users {
                let (user, host) = u.resolve(sess);
                let (plugin, auth_string) =
                    credential(sess, a.as_ref().unwrap_or(&AuthSpec::default()), None)?;
                defs.push(AccountDef {
                    user,
                    host,
                    plugin,
                    auth_string,
                    locked: lock.unwrap_or(false),
                    ssl_type: require.clone().unwrap_or_default(),
                    global: 0,
                    dbs: vec![],
                    tables: vec![],
                });
            }
            let skipped = sess.inst.acl.change(&storage, |list| {
                let mut change = AccountChange::default();
                let mut failed = Vec::new();
                let mut skipped = Vec::new();
                for d in defs {
                    if find(list, &d.user, &d.host).is_some()
                        || change
                            .put
                            .iter()
                            .any(|x| x.user == d.user && x.host == d.host)
                    {
                        if *if_not_exists {
                            skipped.push((d.user.clone(), d.host.clone()));
                        } else {
                            failed.push((d.user.clone(), d.host.clone()));
                        }
                        continue;
                    }
                    change.put.push(d);
                }
                if !failed.is_empty() {
                    return Err(op_failed("CREATE USER", &failed));
                }
                list.extend(change.put.iter().cloned());
                Ok((change, skipped))
            })?;
            for (u, h) in skipped {
                note(
                    sess,
                    codes::ER_USER_ALREADY_EXISTS,
                    format!("Authorization ID {} already exists.", quoted(&u, &h)),
                );
            }
            Ok(Output::ok(0))
        }
        AclStmt::AlterUser {
            if_exists,
            users,
            lock,
            require,
        } => {
            let mut targets = Vec::new();
            for (u, a) in users {
                targets.push((u.resolve(sess), a.clone()));
            }
            // hash outside the lock (caching_sha2 hashing is deliberately slow)
            let mut creds = Vec::new();
            for ((user, host), a) in &targets {
                let cur = sess.inst.acl.get(user, host).map(|d| d.plugin);
                creds.push(match a {
                    Some(a) => Some(credential(sess, a, cur.as_deref())?),
                    None => None,
                });
            }
            let missing = sess.inst.acl.change(&storage, |list| {
                let mut change = AccountChange::default();
                let mut failed = Vec::new();
                for (((user, host), _), cred) in targets.iter().zip(creds) {
                    let Some(i) = find(list, user, host) else {
                        failed.push((user.clone(), host.clone()));
                        continue;
                    };
                    let a = &mut list[i];
                    if let Some((plugin, auth)) = cred {
                        a.plugin = plugin;
                        a.auth_string = auth;
                    }
                    if let Some(l) = lock {
                        a.locked = *l;
                    }
                    if let Some(r) = require {
                        a.ssl_type = r.clone();
                    }
                    change.put.push(a.clone());
                }
                if !failed.is_empty() && !*if_exists {
                    return Err(op_failed("ALTER USER", &failed));
                }
                Ok((change, failed))
            })?;
            note_missing_users(sess, missing);
            Ok(Output::ok(0))
        }
        AclStmt::DropUser { if_exists, users } => {
            let names: Vec<(String, String)> = users.iter().map(|u| u.resolve(sess)).collect();
            let missing = sess.inst.acl.change(&storage, |list| {
                let mut change = AccountChange::default();
                let mut failed = Vec::new();
                for (u, h) in &names {
                    match find(list, u, h) {
                        Some(i) => {
                            let a = list.remove(i);
                            change.delete.push((a.user, a.host));
                        }
                        None => failed.push((u.clone(), h.clone())),
                    }
                }
                if !failed.is_empty() && !*if_exists {
                    return Err(op_failed("DROP USER", &failed));
                }
                Ok((change, failed))
            })?;
            note_missing_users(sess, missing);
            Ok(Output::ok(0))
        }
        AclStmt::RenameUser(pairs) => {
            let pairs: Vec<((String, String), (String, String))> = pairs
                .iter()
                .map(|(a, b)| (a.resolve(sess), b.resolve(sess)))
                .collect();
            sess.inst.acl.change(&storage, |list| {
                let mut change = AccountChange::default();
                let mut failed = Vec::new();
                for ((u, h), (nu, nh)) in &pairs {
                    let Some(i) = find(list, u, h) else {
                        failed.push((u.clone(), h.clone()));
                        continue;
                    };
                    if find(list, nu, nh).is_some() {
                        failed.push((u.clone(), h.clone()));
                        continue;
                    }
                    let mut a = list.remove(i);
                    change.delete.push((a.user.clone(), a.host.clone()));
                    change
                        .put
                        .retain(|x| !(x.user == a.user && x.host == a.host));
                    a.user = nu.clone();
                    a.host = nh.clone();
                    change
                        .delete
                        .retain(|(du, dh)| !(du == &a.user && dh == &a.host));
                    change.put.push(a.clone());
                    list.push(a);
                }
                if !failed.is_empty() {
                    return Err(op_failed("RENAME USER", &failed));
                }
                Ok((change, ()))
            })?;
            Ok(Output::ok(0))
        }
        AclStmt::SetPassword { user, password } => {
            let (u, h) = user.as_ref().unwrap_or(&UserSpec::Current).resolve(sess);
            let Some(cur) = sess.inst.acl.get(&u, &h) else {
                return Err(Error::new(
                    codes::ER_PASSWORD_NO_MATCH,
                    "Can't find any matching row in the user table",
                ));
            };
            let auth = sess.inst.acl.hash(&cur.plugin, password)?;
            sess.inst.acl.change(&storage, |list| {
                let mut change = AccountChange::default();
                if let Some(i) = find(list, &u, &h) {
                    list[i].auth_string = auth;
                    change.put.push(list[i].clone());
                }
                Ok((change, ()))
            })?;
            Ok(Output::ok(0))
        }
        AclStmt::Grant {
            privs: items,
            level,
            users,
            grant_option,
        } => {
            let level = resolve_level(sess, level)?;
            let (mut bits, cols) = level_bits(items, &level)?;
            if *grant_option {
                bits |= privs::GRANT;
            }
            if let PrivLevel::Table(Some(db), t) = &level {
                let def = sess
                    .storage()
                    .get_table(db, t)?
                    .ok_or_else(|| Error::no_such_table(db, t))?;
                for (c, _) in &cols {
                    if def.column_index(c).is_none() {
                        return Err(Error::bad_field(c, t));
                    }
                }
            }
            let names: Vec<(String, String)> = users.iter().map(|u| u.resolve(sess)).collect();
            sess.inst.acl.change(&storage, |list| {
                let mut change = AccountChange::default();
                for (u, h) in &names {
                    let Some(i) = find(list, u, h) else {
                        return Err(Error::new(
                            codes::ER_CANT_CREATE_USER_WITH_GRANT,
                            "You are not allowed to create a user with GRANT",
                        ));
                    };
                    let a = &mut list[i];
                    grant_into(a, &level, bits, &cols);
                    change.put.push(a.clone());
                }
                Ok((change, ()))
            })?;
            Ok(Output::ok(0))
        }
        AclStmt::Revoke {
            privs: items,
            level,
            users,
        } => {
            let level = resolve_level(sess, level)?;
            let (bits, cols) = level_bits(items, &level)?;
            let names: Vec<(String, String)> = users.iter().map(|u| u.resolve(sess)).collect();
            sess.inst.acl.change(&storage, |list| {
                let mut change = AccountChange::default();
                for (u, h) in &names {
                    let Some(i) = find(list, u, h) else {
                        return Err(Error::new(
                            codes::ER_NONEXISTING_GRANT,
                            format!("There is no such grant defined for user '{u}' on host '{h}'"),
                        ));
                    };
                    let a = &mut list[i];
                    revoke_from(a, &level, bits, &cols)?;
                    change.put.push(a.clone());
                }
                Ok((change, ()))
            })?;
            Ok(Output::ok(0))
        }
        AclStmt::RevokeAll(users) => {
            let names: Vec<(String, String)> = users.iter().map(|u| u.resolve(sess)).collect();
            sess.inst.acl.change(&storage, |list| {
                let mut change = AccountChange::default();
                let mut failed = Vec::new();
                for (u, h) in &names {
                    let Some(i) = find(list, u, h) else {
                        failed.push((u.clone(), h.clone()));
                        continue;
                    };
                    let a = &mut list[i];
                    a.global = 0;
                    a.dbs.clear();
                    a.tables.clear();
                    change.put.push(a.clone());
                }
                if !failed.is_empty() {
                    return Err(op_failed("REVOKE", &failed));
                }
                Ok((change, ()))
            })?;
            Ok(Output::ok(0))
        }
    }
}

fn grant_into(a: &mut AccountDef, level: &PrivLevel, bits: u64, cols: &[(String, u64)]) {
    match level {
        PrivLevel::Global => a.global |= bits,
        PrivLevel::Db(Some(db)) => match a.dbs.iter_mut().find(|d| &d.db == db) {
            Some(d) => d.privs |= bits,
            None => a.dbs.push(DbPriv {
                db: db.clone(),
                privs: bits,
            }),
        },
        PrivLevel::Table(Some(db), t) => {
            let i = match a
                .tables
                .iter()
                .position(|x| &x.db == db && x.table.eq_ignore_ascii_case(t))
            {
                Some(i) => i,
                None => {
                    a.tables.push(TablePriv {
                        db: db.clone(),
                        table: t.clone(),
                        privs: 0,
                        columns: vec![],
                    });
                    a.tables.len() - 1
                }
            };
            let tp = &mut a.tables[i];
            tp.privs |= bits;
            for (c, b) in cols {
                match tp
                    .columns
                    .iter_mut()
                    .find(|x| x.column.eq_ignore_ascii_case(c))
                {
                    Some(x) => x.privs |= b,
                    None => tp.columns.push(ColumnPriv {
                        column: c.clone(),
                        privs: *b,
                    }),
                }
            }
        }
        _ => {}
    }
}

fn revoke_from(
    a: &mut AccountDef,
    level: &PrivLevel,
    bits: u64,
    cols: &[(String, u64)],
) -> Result<()> {
    let no_grant = || {
        Error::new(
            codes::ER_NONEXISTING_GRANT,
            format!(
                "There is no such grant defined for user '{}' on host '{}'",
                a.user, a.host
            ),
        )
    };
    match level {
        PrivLevel::Global => a.global &= !bits,
        PrivLevel::Db(Some(db)) => {
            let Some(i) = a.dbs.iter().position(|d| &d.db == db) else {
                return Err(no_grant());
            };
            a.dbs[i].privs &= !bits;
            if a.dbs[i].privs == 0 {
                a.dbs.remove(i);
            }
        }
        PrivLevel::Table(Some(db), t) => {
            let Some(i) = a
                .tables
                .iter()
                .position(|x| &x.db == db && x.table.eq_ignore_ascii_case(t))
            else {
                return Err(Error::new(
                    codes::ER_NONEXISTING_TABLE_GRANT,
                    format!(
                        "There is no such grant defined for user '{}' on host '{}' on table '{t}'",
                        a.user, a.host
                    ),
                ));
            };
            let tp = &mut a.tables[i];
            tp.privs &= !bits;
            // revoking a table privilege also revokes it from the columns (MySQL)
            for c in tp.columns.iter_mut() {
                c.privs &= !(bits & privs::ALL_COLUMN);
                if let Some((_, b)) = cols.iter().find(|(n, _)| n.eq_ignore_ascii_case(&c.column)) {
                    c.privs &= !b;
                }
            }
            tp.columns.retain(|c| c.privs != 0);
            if tp.privs == 0 && tp.columns.is_empty() {
                a.tables.remove(i);
            }
        }
        _ => {}
    }
    Ok(())
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

    #[test]
    fn level_validation() {
        let sel = |cols: Vec<&str>| PrivItem {
            bit: privs::SELECT,
            all: false,
            columns: cols.into_iter().map(String::from).collect(),
        };
        let sup = PrivItem {
            bit: privs::SUPER,
            all: false,
            columns: vec![],
        };
        let db = PrivLevel::Db(Some("d".into()));
        assert_eq!(
            level_bits(std::slice::from_ref(&sup), &db)
                .unwrap_err()
                .num(),
            1221
        );
        let t = PrivLevel::Table(Some("d".into()), "t".into());
        assert_eq!(level_bits(&[sup], &t).unwrap_err().num(), 1144);
        assert_eq!(level_bits(&[sel(vec!["a"])], &db).unwrap_err().num(), 1144);
        let (b, c) = level_bits(&[sel(vec!["a"])], &t).unwrap();
        assert_eq!((b, c), (0, vec![("a".to_string(), privs::SELECT)]));
    }
}
