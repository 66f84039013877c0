//! User accounts: a small JSON file in the data directory holding `'user'@'host'` entries
//! with their authentication plugin and stored credential (never the plain password). The full
//! grant system (CREATE USER, GRANT, the `mysql` schema) is a later issue.

use std::path::{Path, PathBuf};

use parking_lot::RwLock;
use protocol::{Account, AuthPlugin};
use serde::{Deserialize, Serialize};

/// One stored account.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredAccount {
    /// User name.
    pub user: String,
    /// Host pattern (`localhost`, `%`, an IP, with `%`/`_` wildcards).
    pub host: String,
    /// `mysql_native_password` or `caching_sha2_password`.
    pub plugin: String,
    /// Stored credential ("" = no password).
    pub auth_string: String,
    /// Locked accounts cannot log in.
    #[serde(default)]
    pub locked: bool,
}

/// The account store.
pub struct Accounts {
    path: PathBuf,
    list: RwLock<Vec<StoredAccount>>,
}

/// Matches a MySQL host pattern (`%` any sequence, `_` one character; case-insensitive).
pub fn host_matches(pattern: &str, host: &str) -> bool {
    fn go(p: &[char], h: &[char]) -> bool {
        match p.first() {
            None => h.is_empty(),
            Some('%') => (0..=h.len()).any(|i| go(&p[1..], &h[i..])),
            Some('_') => !h.is_empty() && go(&p[1..], &h[1..]),
            Some(c) => h.first().is_some_and(|x| x.eq_ignore_ascii_case(c)) && go(&p[1..], &h[1..]),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let h: Vec<char> = host.chars().collect();
    go(&p, &h)
}

impl Accounts {
    /// Loads the store, creating it with `root`@`localhost` (empty password) if missing.
    /// Returns the store and whether it was just created.
    pub fn open(datadir: &Path) -> std::io::Result<(Accounts, bool)> {
        let path = datadir.join("accounts.json");
        let mut created = false;
        let list = if path.exists() {
            let text = std::fs::read_to_string(&path)?;
            serde_json::from_str(&text).map_err(|e| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{}: {e}", path.display()),
                )
            })?
        } else {
            created = true;
            let l = vec![StoredAccount {
                user: "root".into(),
                host: "localhost".into(),
                plugin: "caching_sha2_password".into(),
                auth_string: String::new(),
                locked: false,
            }];
            let tmp = path.with_extension("json.tmp");
            std::fs::write(&tmp, serde_json::to_string_pretty(&l).unwrap_or_default())?;
            std::fs::rename(&tmp, &path)?;
            l
        };
        Ok((
            Accounts {
                path,
                list: RwLock::new(list),
            },
            created,
        ))
    }

    /// Finds the account for `user` connecting from `host`: exact host first, then the most
    /// specific pattern. Loopback addresses also match `localhost`, as a server with name
    /// resolution does.
    pub fn lookup(&self, user: &str, host: &str) -> Option<Account> {
        let list = self.list.read();
        let loopback =
            matches!(host, "127.0.0.1" | "::1" | "localhost") || host.starts_with("127.");
        let mut candidates: Vec<&StoredAccount> = list
            .iter()
            .filter(|a| a.user == user)
            .filter(|a| {
                host_matches(&a.host, host)
                    || (loopback && a.host.eq_ignore_ascii_case("localhost"))
            })
            .collect();
        // most specific first: no wildcards before wildcards, longer before shorter
        candidates.sort_by_key(|a| (a.host.contains(['%', '_']), std::cmp::Reverse(a.host.len())));
        candidates.first().map(|a| Account {
            user: a.user.clone(),
            host: a.host.clone(),
            plugin: if a.plugin == "mysql_native_password" {
                AuthPlugin::Native
            } else {
                AuthPlugin::CachingSha2
            },
            auth_string: a.auth_string.clone(),
            locked: a.locked,
        })
    }

    /// Where the store lives.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_patterns() {
        assert!(host_matches("%", "10.0.0.1"));
        assert!(host_matches("192.168.1.%", "192.168.1.7"));
        assert!(!host_matches("192.168.1.%", "192.168.2.7"));
        assert!(host_matches("h_st", "host"));
    }

    #[test]
    fn root_created_and_matches_loopback() {
        let d = tempfile::tempdir().unwrap();
        let (a, created) = Accounts::open(d.path()).unwrap();
        assert!(created);
        assert!(a.lookup("root", "127.0.0.1").is_some());
        assert!(a.lookup("root", "localhost").is_some());
        assert!(a.lookup("root", "10.1.1.1").is_none());
        assert!(a.lookup("bob", "localhost").is_none());
        let (_, created) = Accounts::open(d.path()).unwrap();
        assert!(!created);
    }
}
