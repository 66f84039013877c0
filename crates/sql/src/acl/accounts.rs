//! Access control: the in-memory account and grant cache ([`Acl`], loaded from and written
//! through to the storage account store `storage::catalog::acl`), MySQL's host matching and
//! account ordering, the static privileges, privilege queries for a session, `SHOW GRANTS`
//! and the read-only `mysql` grant tables. The static privileges themselves are named in
//! [`crate::parse::acl`], with the syntax of CREATE USER, GRANT, …; their execution is in
//! [`crate::acl::stmt`], the per-statement privilege check in [`crate::acl::check`].

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use common::{codes, DataType, Error, Result, Value};
use parking_lot::{Mutex, RwLock};
use storage::catalog::acl::{AccountChange, AccountDef};
use storage::catalog::ColumnDef;
use storage::engine::KvEngine;
use storage::Storage;

use crate::parse::acl::PRIVS;
use crate::session::session::Session;

/// The static privilege bits, defined with the statement syntax that names them (kept here for
/// the users outside this stage).
pub use crate::parse::acl::privs;

/// Names of the privileges in `bits`, in MySQL's order (GRANT OPTION excluded).
pub fn priv_names(bits: u64) -> Vec<&'static str> {
    PRIVS
        .iter()
        .filter(|p| p.bit != privs::GRANT && bits & p.bit != 0)
        .map(|p| p.name)
        .collect()
}

/// The name of the first privilege of `bits` (for "X command denied").
pub fn first_priv_name(bits: u64) -> &'static str {
    PRIVS
        .iter()
        .find(|p| bits & p.bit != 0)
        .map(|p| p.name)
        .unwrap_or("USAGE")
}

/// Plugin names accepted by `IDENTIFIED WITH`.
pub const PLUGINS: &[&str] = &["caching_sha2_password", "mysql_native_password"];

/// Turns a password into the stored credential of a plugin: `(plugin, password) → hash`.
/// Installed by the server (the hash formats live with the wire protocol's authentication).
pub type PasswordHasher = Box<dyn Fn(&str, &str) -> String + Send + Sync>;

/// Matches a MySQL host or database pattern: `%` any sequence, `_` one character, `\` escapes
/// the next character; ASCII case-insensitive when `ci`.
pub fn wild_match(pattern: &str, s: &str, ci: bool) -> bool {
    fn go(p: &[char], h: &[char], ci: bool) -> bool {
        match p.first() {
            None => h.is_empty(),
            Some('%') => (0..=h.len()).any(|i| go(&p[1..], &h[i..], ci)),
            Some('_') => !h.is_empty() && go(&p[1..], &h[1..], ci),
            Some('\\') if p.len() > 1 => {
                h.first().is_some_and(|x| eq_char(*x, p[1], ci)) && go(&p[2..], &h[1..], ci)
            }
            Some(c) => h.first().is_some_and(|x| eq_char(*x, *c, ci)) && go(&p[1..], &h[1..], ci),
        }
    }
    fn eq_char(a: char, b: char, ci: bool) -> bool {
        if ci {
            a.eq_ignore_ascii_case(&b)
        } else {
            a == b
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let h: Vec<char> = s.chars().collect();
    go(&p, &h, ci)
}

fn has_wildcard(p: &str) -> bool {
    p.contains(['%', '_'])
}

/// True if `client` is the local machine: the unix socket (`localhost`) or a loopback address.
pub fn is_local(client: &str) -> bool {
    client.eq_ignore_ascii_case("localhost")
        || client
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback() || ip.to_string() == "::ffff:127.0.0.1")
}

/// `ip/netmask` (`10.0.0.0/255.255.255.0`) or `ip/prefix` (`10.0.0.0/24`) against an IPv4 client.
fn netmask_match(pattern: &str, client: &str) -> Option<bool> {
    let (net, mask) = pattern.split_once('/')?;
    let net: std::net::Ipv4Addr = net.parse().ok()?;
    let mask: u32 = match mask.parse::<std::net::Ipv4Addr>() {
        Ok(m) => u32::from(m),
        Err(_) => {
            let bits: u32 = mask.parse().ok().filter(|b| *b <= 32)?;
            if bits == 0 {
                0
            } else {
                u32::MAX << (32 - bits)
            }
        }
    };
    let ip: std::net::Ipv4Addr = client.parse().ok()?;
    Some(u32::from(ip) & mask == u32::from(net) & mask)
}

/// True if account host pattern `pattern` admits a client connecting from `client` (`localhost`
/// for the unix socket, else the peer IP). `localhost` admits the unix socket and loopback
/// addresses, as a server that resolves 127.0.0.1 to `localhost` does.
pub fn host_matches(pattern: &str, client: &str) -> bool {
    if pattern.eq_ignore_ascii_case("localhost") {
        return is_local(client);
    }
    if let Some(m) = netmask_match(pattern, client) {
        return m;
    }
    wild_match(pattern, client, true)
}

/// MySQL's ordering of accounts for matching: more specific hosts first (literal hosts, then
/// patterns by how late their first wildcard comes, `%` last), then named users before the
/// anonymous user.
fn host_rank(host: &str) -> (u8, usize) {
    if host.is_empty() || host == "%" {
        (0, 0)
    } else if host.contains('/') {
        (2, host.len())
    } else if let Some(p) = host.find(['%', '_']) {
        (1, p)
    } else {
        (3, host.len())
    }
}

fn sort_accounts(v: &mut [AccountDef]) {
    v.sort_by(|a, b| {
        host_rank(&b.host)
            .cmp(&host_rank(&a.host))
            .then_with(|| a.user.is_empty().cmp(&b.user.is_empty()))
            .then_with(|| (&a.user, &a.host).cmp(&(&b.user, &b.host)))
    });
}

/// `'user'@'host'` as MySQL quotes it in messages.
pub fn quoted(user: &str, host: &str) -> String {
    format!("'{user}'@'{host}'")
}

/// The account cache: every account with its grants, in matching order, written through to
/// the storage account store. Changes are serialised by [`Acl::change`].
pub struct Acl {
    accounts: RwLock<Arc<Vec<AccountDef>>>,
    /// Bumped by every change of `accounts` (sessions cache what they derive from them).
    generation: AtomicU64,
    write: Mutex<()>,
    skip_grant_tables: AtomicBool,
    hasher: RwLock<Option<PasswordHasher>>,
}

impl Default for Acl {
    fn default() -> Self {
        Acl {
            accounts: RwLock::new(Arc::new(Vec::new())),
            generation: AtomicU64::new(0),
            write: Mutex::new(()),
            skip_grant_tables: AtomicBool::new(false),
            hasher: RwLock::new(None),
        }
    }
}

/// The account a fresh data directory starts with: `root`@`localhost`, no password, every
/// privilege WITH GRANT OPTION.
pub fn initial_root() -> AccountDef {
    AccountDef {
        user: "root".into(),
        host: "localhost".into(),
        plugin: "caching_sha2_password".into(),
        auth_string: String::new(),
        locked: false,
        ssl_type: String::new(),
        global: privs::ALL_GLOBAL | privs::GRANT,
        dbs: vec![],
        tables: vec![],
    }
}

impl Acl {
    /// Loads the accounts from storage; a data directory without an account store gets
    /// [`initial_root`] (returns true then).
    ///
    /// # Errors
    /// A storage error.
    pub fn load<E: KvEngine>(&self, storage: &Storage<E>) -> Result<bool> {
        let mut created = false;
        if !storage.accounts_initialised()? {
            storage.write_accounts(&AccountChange {
                delete: vec![],
                put: vec![initial_root()],
            })?;
            created = true;
        }
        let mut v = storage.list_accounts()?;
        sort_accounts(&mut v);
        self.publish(v);
        Ok(created)
    }

    /// Installs the password hasher (see [`PasswordHasher`]).
    pub fn set_hasher(&self, h: PasswordHasher) {
        *self.hasher.write() = Some(h);
    }

    /// The stored credential for `password` under `plugin`.
    ///
    /// # Errors
    /// An internal error if no hasher was installed.
    pub fn hash(&self, plugin: &str, password: &str) -> Result<String> {
        if password.is_empty() {
            return Ok(String::new());
        }
        match self.hasher.read().as_ref() {
            Some(h) => Ok(h(plugin, password)),
            None => Err(Error::internal("no password hasher installed")),
        }
    }

    /// `--skip-grant-tables`: every local login is accepted and everything is allowed.
    pub fn set_skip_grant_tables(&self, on: bool) {
        self.skip_grant_tables.store(on, Ordering::SeqCst);
    }

    /// Replaces the account list (sorted) and moves the generation on.
    fn publish(&self, accounts: Vec<AccountDef>) {
        let mut a = self.accounts.write();
        *a = Arc::new(accounts);
        self.generation.fetch_add(1, Ordering::Release);
    }

    /// Changes with every change of the accounts.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// True under `--skip-grant-tables`.
    pub fn skip_grant_tables(&self) -> bool {
        self.skip_grant_tables.load(Ordering::Relaxed)
    }

    /// A snapshot of all accounts, in matching order.
    pub fn snapshot(&self) -> Arc<Vec<AccountDef>> {
        self.accounts.read().clone()
    }

    /// The account `user` connecting from `client` authenticates as: the first account in
    /// MySQL's order whose host pattern admits `client` and whose user is `user` or anonymous.
    pub fn match_login(&self, user: &str, client: &str) -> Option<AccountDef> {
        self.accounts
            .read()
            .iter()
            .find(|a| (a.user == user || a.user.is_empty()) && host_matches(&a.host, client))
            .cloned()
    }

    /// True if `user`@`host` exists and has every global privilege WITH GRANT OPTION (or under
    /// `--skip-grant-tables`): the per-statement fast path, without copying the account.
    pub fn is_superuser(&self, user: &str, host: &str) -> bool {
        const EVERYTHING: u64 = privs::ALL_GLOBAL | privs::GRANT;
        self.skip_grant_tables()
            || self.accounts.read().iter().any(|a| {
                a.user == user
                    && a.host.eq_ignore_ascii_case(host)
                    && a.global & EVERYTHING == EVERYTHING
            })
    }

    /// The account named exactly `user`@`host`.
    pub fn get(&self, user: &str, host: &str) -> Option<AccountDef> {
        self.accounts
            .read()
            .iter()
            .find(|a| a.user == user && a.host.eq_ignore_ascii_case(host))
            .cloned()
    }

    /// Runs `f` on a copy of the account list under the change lock; the accounts it returns
    /// as changed are written to storage in one batch, then the cache is replaced.
    ///
    /// `f` returns the change plus a value passed back to the caller.
    ///
    /// # Errors
    /// `f`'s error (nothing changes) or a storage error.
    pub fn change<E: KvEngine, R>(
        &self,
        storage: &Storage<E>,
        f: impl FnOnce(&mut Vec<AccountDef>) -> Result<(AccountChange, R)>,
    ) -> Result<R> {
        let _g = self.write.lock();
        let mut list: Vec<AccountDef> = self.accounts.read().as_ref().clone();
        let (change, r) = f(&mut list)?;
        if !change.delete.is_empty() || !change.put.is_empty() {
            storage.write_accounts(&change)?;
        }
        sort_accounts(&mut list);
        self.publish(list);
        Ok(r)
    }
}

/// A session's effective privileges: a snapshot of its account (or everything under
/// `--skip-grant-tables`).
#[derive(Debug, Clone)]
pub struct Privs {
    acct: Option<AccountDef>,
    all: bool,
}

impl Privs {
    /// Everything allowed (skip-grant-tables).
    pub fn all() -> Privs {
        Privs {
            acct: None,
            all: true,
        }
    }

    /// The privileges of `acct` (none if the account no longer exists).
    pub fn of(acct: Option<AccountDef>) -> Privs {
        Privs { acct, all: false }
    }

    /// True if every check passes (skip-grant-tables, or all global privileges WITH GRANT
    /// OPTION, as root has).
    pub fn is_all(&self) -> bool {
        const EVERYTHING: u64 = privs::ALL_GLOBAL | privs::GRANT;
        self.all
            || self
                .acct
                .as_ref()
                .is_some_and(|a| a.global & EVERYTHING == EVERYTHING)
    }

    /// Global privileges.
    pub fn global(&self) -> u64 {
        if self.all {
            return u64::MAX;
        }
        self.acct.as_ref().map_or(0, |a| a.global)
    }

    /// Global plus database-level privileges on `db` (the most specific matching db grant).
    pub fn db(&self, db: &str) -> u64 {
        let Some(a) = &self.acct else {
            return self.global();
        };
        let exact = a.dbs.iter().find(|d| d.db == db);
        let d = exact.or_else(|| {
            a.dbs
                .iter()
                .filter(|d| has_wildcard(&d.db))
                .find(|d| wild_match(&d.db, db, false))
        });
        a.global | d.map_or(0, |d| d.privs)
    }

    /// Global, database and table privileges on `db.table`.
    pub fn table(&self, db: &str, table: &str) -> u64 {
        let Some(a) = &self.acct else {
            return self.global();
        };
        self.db(db)
            | a.tables
                .iter()
                .find(|t| t.db == db && t.table.eq_ignore_ascii_case(table))
                .map_or(0, |t| t.privs)
    }

    /// Column-level privileges on `db.table.column` (not including table-level ones).
    pub fn column(&self, db: &str, table: &str, column: &str) -> u64 {
        let Some(a) = &self.acct else {
            return self.global();
        };
        a.tables
            .iter()
            .find(|t| t.db == db && t.table.eq_ignore_ascii_case(table))
            .and_then(|t| {
                t.columns
                    .iter()
                    .find(|c| c.column.eq_ignore_ascii_case(column))
            })
            .map_or(0, |c| c.privs)
    }

    /// The union of the column privileges on any column of `db.table`.
    pub fn any_column(&self, db: &str, table: &str) -> u64 {
        let Some(a) = &self.acct else {
            return self.global();
        };
        a.tables
            .iter()
            .find(|t| t.db == db && t.table.eq_ignore_ascii_case(table))
            .map_or(0, |t| t.columns.iter().fold(0, |acc, c| acc | c.privs))
    }

    /// True if the user has any privilege in `db` (database, table or column level), which
    /// makes the database visible (SHOW DATABASES, USE).
    pub fn sees_db(&self, db: &str) -> bool {
        if self.all || is_public_db(db) {
            return true;
        }
        let Some(a) = &self.acct else {
            return false;
        };
        self.db(db) & !privs::GRANT & privs::ALL_DB != 0
            || a.global & privs::SHOW_DB != 0
            || a.tables.iter().any(|t| t.db == db)
    }

    /// True if `db.table` is visible (any privilege on it or its columns).
    pub fn sees_table(&self, db: &str, table: &str) -> bool {
        if self.all || is_public_db(db) {
            return true;
        }
        self.table(db, table) & privs::ALL_TABLE != 0 || self.any_column(db, table) != 0
    }
}

/// Schemas everyone may read (their contents are filtered per user).
pub fn is_public_db(db: &str) -> bool {
    db.eq_ignore_ascii_case("information_schema") || db.eq_ignore_ascii_case("performance_schema")
}

impl<E: KvEngine> Session<E> {
    /// Whether the session's account holds every global privilege (checked for every
    /// statement: the answer is kept until the accounts change).
    pub fn is_superuser(&self) -> bool {
        let acl = &self.inst.acl;
        if acl.skip_grant_tables() {
            return true;
        }
        let g = acl.generation();
        if let Some((cg, user, host, v)) = &*self.superuser.borrow() {
            if *cg == g && *user == self.user && *host == self.account_host {
                return *v;
            }
        }
        let v = acl.is_superuser(&self.user, &self.account_host);
        *self.superuser.borrow_mut() = Some((g, self.user.clone(), self.account_host.clone(), v));
        v
    }

    /// The session's current privileges.
    pub fn privs(&self) -> Privs {
        let acl = &self.inst.acl;
        if acl.skip_grant_tables() {
            return Privs::all();
        }
        let a = acl
            .get(&self.user, &self.account_host)
            .or_else(|| acl.get("", &self.account_host));
        Privs::of(a)
    }

    /// `'user'@'host'` of the session for messages (the login user and the client host).
    pub fn user_at(&self) -> String {
        quoted(&self.user, &self.host)
    }
}

/// 1227 `Access denied; you need (at least one of) the X privilege(s) for this operation`.
pub fn need_privilege(what: &str) -> Error {
    Error::new(
        codes::ER_SPECIFIC_ACCESS_DENIED_ERROR,
        format!(
            "Access denied; you need (at least one of) the {what} privilege(s) for this operation"
        ),
    )
}

/// 1044 `Access denied for user 'u'@'h' to database 'db'`.
pub fn db_denied<E: KvEngine>(sess: &Session<E>, db: &str) -> Error {
    Error::new(
        codes::ER_DBACCESS_DENIED_ERROR,
        format!(
            "Access denied for user {} to database '{db}'",
            sess.user_at()
        ),
    )
}

/// 1142 `X command denied to user 'u'@'h' for table 't'`.
pub fn table_denied<E: KvEngine>(sess: &Session<E>, what: &str, table: &str) -> Error {
    Error::new(
        codes::ER_TABLEACCESS_DENIED_ERROR,
        format!(
            "{what} command denied to user {} for table '{table}'",
            sess.user_at()
        ),
    )
}

/// Fails with 1227 unless the session has one of the global privileges in `bits`.
///
/// # Errors
/// 1227 naming `what`.
pub fn require_global<E: KvEngine>(sess: &Session<E>, bits: u64, what: &str) -> Result<()> {
    if sess.privs().global() & bits != 0 {
        Ok(())
    } else {
        Err(need_privilege(what))
    }
}

// ---- SHOW GRANTS ----

fn bq(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

/// The lines of `SHOW GRANTS FOR user@host` in MySQL 8's shape.
pub fn grant_lines(a: &AccountDef) -> Vec<String> {
    let to = format!("{}@{}", bq(&a.user), bq(&a.host));
    let with = |bits: u64| {
        if bits & privs::GRANT != 0 {
            " WITH GRANT OPTION"
        } else {
            ""
        }
    };
    let mut out = Vec::new();
    let g = priv_names(a.global);
    let g = if g.is_empty() {
        "USAGE".to_string()
    } else {
        g.join(", ")
    };
    out.push(format!("GRANT {g} ON *.* TO {to}{}", with(a.global)));
    for d in &a.dbs {
        let p = if d.privs & privs::ALL_DB == privs::ALL_DB {
            "ALL PRIVILEGES".to_string()
        } else {
            let n = priv_names(d.privs);
            if n.is_empty() {
                "USAGE".into()
            } else {
                n.join(", ")
            }
        };
        out.push(format!(
            "GRANT {p} ON {}.* TO {to}{}",
            bq(&d.db),
            with(d.privs)
        ));
    }
    for t in &a.tables {
        let colbits = t.columns.iter().fold(0, |acc, c| acc | c.privs);
        let p = if t.privs & privs::ALL_TABLE == privs::ALL_TABLE && colbits == 0 {
            "ALL PRIVILEGES".to_string()
        } else {
            let mut parts = Vec::new();
            for pn in PRIVS {
                if pn.bit == privs::GRANT {
                    continue;
                }
                if t.privs & pn.bit != 0 {
                    parts.push(pn.name.to_string());
                }
                if colbits & pn.bit != 0 {
                    let cols: Vec<String> = t
                        .columns
                        .iter()
                        .filter(|c| c.privs & pn.bit != 0)
                        .map(|c| bq(&c.column))
                        .collect();
                    parts.push(format!("{} ({})", pn.name, cols.join(", ")));
                }
            }
            if parts.is_empty() {
                "USAGE".into()
            } else {
                parts.join(", ")
            }
        };
        out.push(format!(
            "GRANT {p} ON {}.{} TO {to}{}",
            bq(&t.db),
            bq(&t.table),
            with(t.privs)
        ));
    }
    out
}

/// `SHOW GRANTS [FOR user]` (tokens after GRANTS): (user, host, lines).
///
/// # Errors
/// 1141 for an unknown account, 1064 for a malformed name.
pub fn show_grants<E: KvEngine>(
    sess: &Session<E>,
    toks: &[sqlparser::tokenizer::Token],
) -> Result<(String, String, Vec<String>)> {
    use sqlparser::tokenizer::Token;
    let (user, host) = match toks.first() {
        None => (sess.user.clone(), sess.account_host.clone()),
        Some(Token::Word(w)) if w.value.eq_ignore_ascii_case("FOR") => {
            let mut t = vec![Token::make_keyword("DROP"), Token::make_keyword("USER")];
            t.extend_from_slice(&toks[1..]);
            match crate::parse::acl::parse(&t) {
                Some(Ok(crate::parse::acl::AclStmt::DropUser { users, .. }))
                    if users.len() == 1 =>
                {
                    crate::acl::stmt::resolve_user(sess, &users[0])
                }
                Some(Err(e)) => return Err(e),
                _ => return Err(Error::parse("FOR")),
            }
        }
        Some(other) => return Err(Error::parse(other.to_string())),
    };
    let a = sess.inst.acl.get(&user, &host).ok_or_else(|| {
        Error::new(
            codes::ER_NONEXISTING_GRANT,
            format!("There is no such grant defined for user '{user}' on host '{host}'"),
        )
    })?;
    Ok((a.user.clone(), a.host.clone(), grant_lines(&a)))
}

// ---- the mysql schema ----

/// The read-only grant tables of the `mysql` schema.
pub const MYSQL_TABLES: &[&str] = &["columns_priv", "db", "tables_priv", "user"];

const DB_PRIV_COLUMNS: &[u64] = &[
    privs::SELECT,
    privs::INSERT,
    privs::UPDATE,
    privs::DELETE,
    privs::CREATE,
    privs::DROP,
    privs::GRANT,
    privs::REFERENCES,
    privs::INDEX,
    privs::ALTER,
    privs::CREATE_TMP,
    privs::LOCK_TABLES,
    privs::CREATE_VIEW,
    privs::SHOW_VIEW,
    privs::CREATE_ROUTINE,
    privs::ALTER_ROUTINE,
    privs::EXECUTE,
    privs::EVENT,
    privs::TRIGGER,
];

fn col(name: &str, ty: DataType) -> ColumnDef {
    ColumnDef::plain(name, ty, false)
}

fn vchar(name: &str, len: u32) -> ColumnDef {
    col(
        name,
        DataType::VarChar {
            len,
            collation: common::Collation::default(),
        },
    )
}

fn uint(name: &str) -> ColumnDef {
    col(
        name,
        DataType::Int {
            bytes: 4,
            unsigned: true,
            width: None,
            zerofill: false,
        },
    )
}

fn priv_col_name(bit: u64) -> &'static str {
    PRIVS.iter().find(|p| p.bit == bit).map_or("", |p| p.column)
}

/// Columns of `mysql.<name>` (lower-case name), if it is one of [`MYSQL_TABLES`].
pub fn mysql_columns(name: &str) -> Option<Vec<ColumnDef>> {
    let yn = |n: &str| vchar(n, 1);
    Some(match name {
        "user" => {
            let mut v = vec![vchar("Host", 255), vchar("User", 32)];
            for p in PRIVS
                .iter()
                .filter(|p| p.bit != privs::CREATE_ROLE && p.bit != privs::DROP_ROLE)
            {
                v.push(yn(p.column));
            }
            v.extend([
                vchar("ssl_type", 9),
                vchar("ssl_cipher", 255),
                vchar("x509_issuer", 255),
                vchar("x509_subject", 255),
                uint("max_questions"),
                uint("max_updates"),
                uint("max_connections"),
                uint("max_user_connections"),
                vchar("plugin", 64),
                vchar("authentication_string", 255),
                yn("password_expired"),
                yn("account_locked"),
                yn("Create_role_priv"),
                yn("Drop_role_priv"),
            ]);
            v
        }
        "db" => {
            let mut v = vec![vchar("Host", 255), vchar("Db", 64), vchar("User", 32)];
            for b in DB_PRIV_COLUMNS {
                v.push(yn(priv_col_name(*b)));
            }
            v
        }
        "tables_priv" => vec![
            vchar("Host", 255),
            vchar("Db", 64),
            vchar("User", 32),
            vchar("Table_name", 64),
            vchar("Grantor", 288),
            vchar("Table_priv", 255),
            vchar("Column_priv", 64),
        ],
        "columns_priv" => vec![
            vchar("Host", 255),
            vchar("Db", 64),
            vchar("User", 32),
            vchar("Table_name", 64),
            vchar("Column_name", 64),
            vchar("Column_priv", 64),
        ],
        _ => return None,
    })
}

fn set_text(bits: u64, allowed: u64) -> String {
    PRIVS
        .iter()
        .filter(|p| bits & allowed & p.bit != 0)
        .map(|p| match p.bit {
            privs::GRANT => "Grant".to_string(),
            _ => {
                // MySQL's SET members: 'Select', 'Create View', ...
                p.name
                    .split(' ')
                    .map(|w| {
                        let lw = w.to_ascii_lowercase();
                        let mut c = lw.chars();
                        c.next()
                            .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                            .unwrap_or_default()
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Rows of `mysql.<name>` from the account cache.
pub fn mysql_rows(acl: &Acl, name: &str) -> Vec<Vec<Value>> {
    let s = |v: &str| Value::Str(v.to_string());
    let yn = |b: bool| s(if b { "Y" } else { "N" });
    let mut rows = Vec::new();
    let mut accts: Vec<AccountDef> = acl.snapshot().as_ref().clone();
    accts.sort_by(|a, b| (&a.host, &a.user).cmp(&(&b.host, &b.user)));
    for a in &accts {
        match name {
            "user" => {
                let mut r = vec![s(&a.host), s(&a.user)];
                for p in PRIVS
                    .iter()
                    .filter(|p| p.bit != privs::CREATE_ROLE && p.bit != privs::DROP_ROLE)
                {
                    r.push(yn(a.global & p.bit != 0));
                }
                r.extend([
                    s(&a.ssl_type),
                    s(""),
                    s(""),
                    s(""),
                    Value::UInt(0),
                    Value::UInt(0),
                    Value::UInt(0),
                    Value::UInt(0),
                    s(&a.plugin),
                    s(&a.auth_string),
                    yn(false),
                    yn(a.locked),
                    yn(a.global & privs::CREATE_ROLE != 0),
                    yn(a.global & privs::DROP_ROLE != 0),
                ]);
                rows.push(r);
            }
            "db" => {
                for d in &a.dbs {
                    let mut r = vec![s(&a.host), s(&d.db), s(&a.user)];
                    for b in DB_PRIV_COLUMNS {
                        r.push(yn(d.privs & b != 0));
                    }
                    rows.push(r);
                }
            }
            "tables_priv" => {
                for t in &a.tables {
                    let colbits = t.columns.iter().fold(0, |acc, c| acc | c.privs);
                    rows.push(vec![
                        s(&a.host),
                        s(&t.db),
                        s(&a.user),
                        s(&t.table),
                        s(""),
                        s(&set_text(t.privs, privs::ALL_TABLE | privs::GRANT)),
                        s(&set_text(colbits, privs::ALL_COLUMN)),
                    ]);
                }
            }
            "columns_priv" => {
                for t in &a.tables {
                    for c in &t.columns {
                        rows.push(vec![
                            s(&a.host),
                            s(&t.db),
                            s(&a.user),
                            s(&t.table),
                            s(&c.column),
                            s(&set_text(c.privs, privs::ALL_COLUMN)),
                        ]);
                    }
                }
            }
            _ => {}
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(user: &str, host: &str) -> AccountDef {
        AccountDef {
            user: user.into(),
            host: host.into(),
            plugin: "mysql_native_password".into(),
            auth_string: String::new(),
            locked: false,
            ssl_type: String::new(),
            global: 0,
            dbs: vec![],
            tables: vec![],
        }
    }

    #[test]
    fn host_patterns() {
        assert!(host_matches("%", "10.0.0.1"));
        assert!(host_matches("192.168.1.%", "192.168.1.7"));
        assert!(!host_matches("192.168.1.%", "192.168.2.7"));
        assert!(host_matches("10.0.0._", "10.0.0.5"));
        assert!(!host_matches("10.0.0._", "10.0.0.55"));
        assert!(host_matches("localhost", "localhost"));
        assert!(host_matches("localhost", "127.0.0.1"));
        assert!(host_matches("localhost", "::1"));
        assert!(!host_matches("localhost", "10.0.0.1"));
        assert!(host_matches("10.1.0.0/255.255.0.0", "10.1.2.3"));
        assert!(host_matches("10.1.0.0/16", "10.1.2.3"));
        assert!(!host_matches("10.1.0.0/16", "10.2.2.3"));
        assert!(wild_match("db\\_1", "db_1", false));
        assert!(!wild_match("db\\_1", "dbx1", false));
        assert!(wild_match("db_1", "dbx1", false));
    }

    #[test]
    fn most_specific_account_first() {
        let acl = Acl::default();
        let mut v = vec![
            a("bob", "%"),
            a("bob", "127.0.0.%"),
            a("bob", "127.0.0.1"),
            a("bob", "127.%"),
        ];
        sort_accounts(&mut v);
        *acl.accounts.write() = Arc::new(v.clone());
        assert_eq!(
            acl.match_login("bob", "127.0.0.1").unwrap().host,
            "127.0.0.1"
        );
        assert_eq!(
            acl.match_login("bob", "127.0.0.9").unwrap().host,
            "127.0.0.%"
        );
        assert_eq!(acl.match_login("bob", "127.1.0.9").unwrap().host, "127.%");
        assert_eq!(acl.match_login("bob", "10.1.0.9").unwrap().host, "%");
        v.push(a("", "localhost"));
        sort_accounts(&mut v);
        *acl.accounts.write() = Arc::new(v);
        // the anonymous ''@localhost shadows 'bob'@'%' on the unix socket (MySQL's rule)
        let m = acl.match_login("bob", "localhost").unwrap();
        assert_eq!((m.user.as_str(), m.host.as_str()), ("", "localhost"));
        assert!(acl.match_login("carol", "10.0.0.1").is_none());
    }

    #[test]
    fn grant_lines_shape() {
        let mut x = a("u", "%");
        assert_eq!(grant_lines(&x), vec!["GRANT USAGE ON *.* TO `u`@`%`"]);
        x.global = privs::SELECT | privs::PROCESS | privs::GRANT;
        x.dbs.push(storage::catalog::acl::DbPriv {
            db: "d".into(),
            privs: privs::ALL_DB,
        });
        x.tables.push(storage::catalog::acl::TablePriv {
            db: "d".into(),
            table: "t".into(),
            privs: privs::INSERT,
            columns: vec![storage::catalog::acl::ColumnPriv {
                column: "c".into(),
                privs: privs::SELECT,
            }],
        });
        assert_eq!(
            grant_lines(&x),
            vec![
                "GRANT SELECT, PROCESS ON *.* TO `u`@`%` WITH GRANT OPTION",
                "GRANT ALL PRIVILEGES ON `d`.* TO `u`@`%`",
                "GRANT SELECT (`c`), INSERT ON `d`.`t` TO `u`@`%`",
            ]
        );
    }
}
