//! The account store: `'user'@'host'` accounts with their credentials and privileges
//! ([`AccountDef`]), one JSON entry per account in [`Cf::Dict`](crate::engine::Cf::Dict) under
//! `U/<user>\0<host>`. Every change is one atomic, synced batch (like DDL), so an account and
//! all its grants change together or not at all, and a crash never leaves half a `RENAME USER`.
//!
//! Storage does not interpret privileges: they are bit sets whose meaning the SQL layer
//! (`sql::acl`) owns.

use common::{Error, Result};
use serde::{Deserialize, Serialize};

use crate::codec::key;
use crate::engine::{Cf, KvEngine, WriteBatch};
use crate::Storage;

/// Column privileges of one column ([`TablePriv::columns`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnPriv {
    /// Column name (matched case-insensitively).
    pub column: String,
    /// Privilege bits.
    pub privs: u64,
}

/// Privileges on one table (`GRANT … ON db.t`), with its column privileges.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TablePriv {
    /// Database name.
    pub db: String,
    /// Table name.
    pub table: String,
    /// Table-level privilege bits.
    pub privs: u64,
    /// Column-level grants (`GRANT SELECT (c) ON db.t`).
    #[serde(default)]
    pub columns: Vec<ColumnPriv>,
}

/// Privileges on one database or database pattern (`GRANT … ON db.*`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DbPriv {
    /// Database name; may hold `%`/`_` wildcards (`\_` for a literal underscore).
    pub db: String,
    /// Privilege bits.
    pub privs: u64,
}

/// One account: a `mysql.user` row plus its `mysql.db`, `mysql.tables_priv` and
/// `mysql.columns_priv` rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountDef {
    /// User name (case-sensitive; empty = the anonymous user).
    pub user: String,
    /// Host pattern (lower case).
    pub host: String,
    /// Authentication plugin name (`caching_sha2_password`, `mysql_native_password`).
    pub plugin: String,
    /// Stored credential: a password hash in the plugin's format, never the password
    /// (empty = no password).
    pub auth_string: String,
    /// `ACCOUNT LOCK`.
    #[serde(default)]
    pub locked: bool,
    /// `REQUIRE`: `""` (NONE), `"ANY"` (SSL) or `"X509"`, as `mysql.user.ssl_type`.
    #[serde(default)]
    pub ssl_type: String,
    /// Global (`*.*`) privilege bits.
    #[serde(default)]
    pub global: u64,
    /// Database-level grants.
    #[serde(default)]
    pub dbs: Vec<DbPriv>,
    /// Table- and column-level grants.
    #[serde(default)]
    pub tables: Vec<TablePriv>,
}

const ACCOUNT_PREFIX: &[u8] = b"U/";
const INIT_MARKER: &[u8] = b"S/acl_initialised";

fn account_key(user: &str, host: &str) -> Vec<u8> {
    let mut k = ACCOUNT_PREFIX.to_vec();
    k.extend_from_slice(user.as_bytes());
    k.push(0);
    k.extend_from_slice(host.as_bytes());
    k
}

/// One atomic change of the account store ([`Storage::write_accounts`]).
#[derive(Debug, Default, Clone)]
pub struct AccountChange {
    /// Accounts removed, by (user, host). Applied before `put`.
    pub delete: Vec<(String, String)>,
    /// Accounts written (created or replaced).
    pub put: Vec<AccountDef>,
}

impl<E: KvEngine> Storage<E> {
    /// True once the account store was initialised (by the first
    /// [`Storage::write_accounts`]); a fresh data directory has no accounts and no marker.
    ///
    /// # Errors
    /// An engine I/O error.
    pub fn accounts_initialised(&self) -> Result<bool> {
        Ok(self.engine().get(Cf::Dict, INIT_MARKER)?.is_some())
    }

    /// Every stored account, ordered by (user, host) bytes.
    ///
    /// # Errors
    /// An engine I/O error or a corrupt entry.
    pub fn list_accounts(&self) -> Result<Vec<AccountDef>> {
        let hi = key::prefix_successor(ACCOUNT_PREFIX);
        let mut it = self
            .engine()
            .iter(Cf::Dict, ACCOUNT_PREFIX, hi.as_deref(), false);
        let mut out = Vec::new();
        while it.valid() {
            out.push(
                serde_json::from_slice(it.value())
                    .map_err(|e| Error::internal(format!("corrupt account entry: {e}")))?,
            );
            it.next();
        }
        it.status()?;
        Ok(out)
    }

    /// Applies `change` as one synced batch and marks the store initialised. The caller (the
    /// SQL layer) serialises account changes and checks existence; this only writes.
    ///
    /// # Errors
    /// An engine I/O error (nothing was written).
    pub fn write_accounts(&self, change: &AccountChange) -> Result<()> {
        let _g = self.ddl_lock();
        let mut b = WriteBatch::new();
        for (u, h) in &change.delete {
            b.delete(Cf::Dict, account_key(u, h));
        }
        for a in &change.put {
            let v = serde_json::to_vec(a)
                .map_err(|e| Error::internal(format!("cannot serialise an account: {e}")))?;
            b.put(Cf::Dict, account_key(&a.user, &a.host), v);
        }
        b.put(Cf::Dict, INIT_MARKER.to_vec(), b"1".to_vec());
        self.engine().write(&b, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::MemEngine;
    use crate::StorageOptions;

    fn acct(user: &str, host: &str) -> AccountDef {
        AccountDef {
            user: user.into(),
            host: host.into(),
            plugin: "caching_sha2_password".into(),
            auth_string: String::new(),
            locked: false,
            ssl_type: String::new(),
            global: 1,
            dbs: vec![DbPriv {
                db: "d".into(),
                privs: 3,
            }],
            tables: vec![],
        }
    }

    #[test]
    fn accounts_round_trip_and_rename_atomically() {
        let st = Storage::open(MemEngine::new(), StorageOptions::default()).unwrap();
        assert!(!st.accounts_initialised().unwrap());
        assert!(st.list_accounts().unwrap().is_empty());
        st.write_accounts(&AccountChange {
            delete: vec![],
            put: vec![acct("root", "localhost"), acct("bob", "%")],
        })
        .unwrap();
        assert!(st.accounts_initialised().unwrap());
        let all = st.list_accounts().unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].user, "bob");
        // rename = delete + put in one batch
        st.write_accounts(&AccountChange {
            delete: vec![("bob".into(), "%".into())],
            put: vec![acct("robert", "%")],
        })
        .unwrap();
        let names: Vec<String> = st
            .list_accounts()
            .unwrap()
            .into_iter()
            .map(|a| a.user)
            .collect();
        assert_eq!(names, vec!["robert", "root"]);
    }
}
