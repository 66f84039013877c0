//! Account management statements: CREATE / ALTER / DROP / RENAME USER, SET PASSWORD, GRANT and
//! REVOKE, parsed by [`crate::parse::acl`] and applied here to the account cache and store
//! ([`crate::acl::accounts::Acl`]). Who may run them is decided by [`crate::acl::check`] before
//! execution.

use common::{codes, Error, Level, Result, Warning};
use storage::catalog::acl::{AccountChange, AccountDef, ColumnPriv, DbPriv, TablePriv};
use storage::engine::KvEngine;

use crate::acl::accounts::quoted;
use crate::acl::accounts::PLUGINS;
use crate::parse::acl::privs;
use crate::parse::acl::AclStmt;
use crate::parse::acl::AuthSpec;
use crate::parse::acl::PrivItem;
use crate::parse::acl::PrivLevel;
use crate::parse::acl::UserSpec;
use crate::session::session::Output;
use crate::session::session::Session;

// ---- execution ----

/// (user, host) of an account named in a statement, with CURRENT_USER resolved to the
/// session's account.
pub fn resolve_user<E: KvEngine>(sess: &Session<E>, user: &UserSpec) -> (String, String) {
    match user {
        UserSpec::Named(u, h) => (u.clone(), h.clone()),
        UserSpec::Current => (sess.user.clone(), sess.account_host.clone()),
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
                let (user, host) = resolve_user(sess, u);
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
                targets.push((resolve_user(sess, u), a.clone()));
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
            let names: Vec<(String, String)> =
                users.iter().map(|u| resolve_user(sess, u)).collect();
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
                .map(|(a, b)| (resolve_user(sess, a), resolve_user(sess, b)))
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
            let (u, h) = resolve_user(sess, user.as_ref().unwrap_or(&UserSpec::Current));
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
            let names: Vec<(String, String)> =
                users.iter().map(|u| resolve_user(sess, u)).collect();
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
            let names: Vec<(String, String)> =
                users.iter().map(|u| resolve_user(sess, u)).collect();
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
            let names: Vec<(String, String)> =
                users.iter().map(|u| resolve_user(sess, u)).collect();
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
