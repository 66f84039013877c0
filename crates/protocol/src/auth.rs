//! Authentication: the `mysql_native_password` and `caching_sha2_password` plugins.
//!
//! # Stored credential formats (`Account::auth_string`)
//!
//! * empty string: the account has no password; an empty auth response is accepted (with either
//!   plugin) and a non-empty one is refused.
//! * `mysql_native_password`: `"*"` followed by the 40 uppercase hex digits of
//!   `SHA1(SHA1(password))`, exactly as MySQL stores it (41 characters).
//! * `caching_sha2_password`: MySQL's own format, `$A$005$` + 20-character salt + the 43-character
//!   SHA-256-crypt digest (Drepper's algorithm, as used by glibc's `$5$`, with `005` meaning
//!   5 × 1000 rounds and a 20-byte salt). Salts generated here use the crypt base-64 alphabet;
//!   strings produced by MySQL (any salt bytes) verify too, as long as they are valid UTF-8.
//!
//! [`hash_password`] produces these strings (for `CREATE USER ... IDENTIFIED BY`).
//!
//! # Exchanges
//!
//! Native: the client sends `SHA1(pw) XOR SHA1(nonce ‖ SHA1(SHA1(pw)))`.
//! Caching SHA-2: the client sends `SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) ‖ nonce)`; the server
//! verifies it against an in-memory cache ([`AuthCache`]) of `SHA256(SHA256(pw))` filled by the
//! last full authentication. On a miss the server asks for the password itself: in clear over a
//! secure transport (unix socket), else RSA-OAEP encrypted with the key pair in [`RsaKeys`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use rand::Rng;
use rsa::pkcs1::{DecodeRsaPrivateKey, EncodeRsaPrivateKey};
use rsa::pkcs8::{DecodePrivateKey, EncodePublicKey, LineEnding};
use rsa::{Oaep, RsaPrivateKey, RsaPublicKey};
use sha1::Sha1;
use sha2::{Digest, Sha256};

use crate::backend::AuthPlugin;

/// Name of the native plugin on the wire.
pub const NATIVE_PLUGIN: &str = "mysql_native_password";
/// Name of the caching SHA-2 plugin on the wire.
pub const CACHING_SHA2_PLUGIN: &str = "caching_sha2_password";

/// Length of the per-connection nonce (scramble).
pub const SCRAMBLE_LEN: usize = 20;

/// Rounds (in thousands) used for new caching_sha2 credentials, as MySQL's default.
const SHA2_ROUNDS_THOUSANDS: u32 = 5;
/// Salt length of caching_sha2 credentials.
const SHA2_SALT_LEN: usize = 20;
/// Length of the SHA-256-crypt digest in base 64.
const SHA2_DIGEST_B64_LEN: usize = 43;

const CRYPT_B64: &[u8; 64] = b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

impl AuthPlugin {
    /// The plugin's name on the wire and in `mysql.user.plugin`.
    pub fn name(self) -> &'static str {
        match self {
            AuthPlugin::Native => NATIVE_PLUGIN,
            AuthPlugin::CachingSha2 => CACHING_SHA2_PLUGIN,
        }
    }

    /// Looks a plugin up by name.
    pub fn from_name(name: &str) -> Option<AuthPlugin> {
        match name {
            NATIVE_PLUGIN => Some(AuthPlugin::Native),
            CACHING_SHA2_PLUGIN => Some(AuthPlugin::CachingSha2),
            _ => None,
        }
    }
}

/// Produces the stored credential for `cleartext` under `plugin` (see the module docs).
/// An empty password gives an empty string.
pub fn hash_password(plugin: AuthPlugin, cleartext: &str) -> String {
    if cleartext.is_empty() {
        return String::new();
    }
    match plugin {
        AuthPlugin::Native => {
            let stage2 = Sha1::digest(Sha1::digest(cleartext.as_bytes()));
            let mut s = String::with_capacity(41);
            s.push('*');
            s.push_str(&hex_upper(&stage2));
            s
        }
        AuthPlugin::CachingSha2 => {
            let mut rng = rand::thread_rng();
            let salt: Vec<u8> = (0..SHA2_SALT_LEN)
                .map(|_| CRYPT_B64[rng.gen_range(0..64)])
                .collect();
            let digest = sha256_crypt(cleartext.as_bytes(), &salt, SHA2_ROUNDS_THOUSANDS * 1000);
            let mut s = format!("$A${SHA2_ROUNDS_THOUSANDS:03}$");
            s.push_str(&String::from_utf8_lossy(&salt));
            s.push_str(&digest);
            s
        }
    }
}

/// A fresh random nonce: printable ASCII, no NUL and no `$` (so it can be embedded anywhere).
pub fn new_scramble() -> [u8; SCRAMBLE_LEN] {
    let mut rng = rand::thread_rng();
    let mut s = [0u8; SCRAMBLE_LEN];
    for b in s.iter_mut() {
        // Printable range 0x21..=0x7E excluding '$'.
        loop {
            let c = rng.gen_range(0x21u8..=0x7E);
            if c != b'$' {
                *b = c;
                break;
            }
        }
    }
    s
}

fn hex_upper(b: &[u8]) -> String {
    const H: &[u8; 16] = b"0123456789ABCDEF";
    let mut s = String::with_capacity(b.len() * 2);
    for &x in b {
        s.push(H[(x >> 4) as usize] as char);
        s.push(H[(x & 15) as usize] as char);
    }
    s
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if b.len() & 1 != 0 {
        return None;
    }
    let val = |c: u8| -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    };
    b.chunks(2)
        .map(|p| Some(val(p[0])? << 4 | val(p[1])?))
        .collect()
}

/// Constant-time-ish comparison (no early exit on the first difference).
fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The nonce as clients hash it: its first 20 bytes (some clients send the trailing NUL too).
fn nonce20(nonce: &[u8]) -> &[u8] {
    &nonce[..nonce.len().min(SCRAMBLE_LEN)]
}

/// The client side of `mysql_native_password`: the 20-byte auth response for `password`.
pub fn native_scramble(password: &[u8], nonce: &[u8]) -> [u8; 20] {
    let stage1 = Sha1::digest(password);
    let stage2 = Sha1::digest(stage1);
    let mut h = Sha1::new();
    h.update(nonce20(nonce));
    h.update(stage2);
    let m = h.finalize();
    let mut out = [0u8; 20];
    for i in 0..20 {
        out[i] = stage1[i] ^ m[i];
    }
    out
}

/// Server side of `mysql_native_password`: checks `response` against a stored `*HEX` string.
pub fn native_verify(auth_string: &str, nonce: &[u8], response: &[u8]) -> bool {
    if auth_string.is_empty() {
        return response.is_empty();
    }
    let Some(stage2) = auth_string.strip_prefix('*').and_then(unhex) else {
        return false;
    };
    if stage2.len() != 20 || response.len() != 20 {
        return false;
    }
    let mut h = Sha1::new();
    h.update(nonce20(nonce));
    h.update(&stage2);
    let m = h.finalize();
    let stage1: Vec<u8> = response.iter().zip(m.iter()).map(|(a, b)| a ^ b).collect();
    ct_eq(&Sha1::digest(&stage1), &stage2)
}

/// The client side of `caching_sha2_password`'s fast path: the 32-byte scramble.
pub fn caching_sha2_scramble(password: &[u8], nonce: &[u8]) -> [u8; 32] {
    let stage1 = Sha256::digest(password);
    let stage2 = Sha256::digest(stage1);
    let mut h = Sha256::new();
    h.update(stage2);
    h.update(nonce20(nonce));
    let m = h.finalize();
    let mut out = [0u8; 32];
    for i in 0..32 {
        out[i] = stage1[i] ^ m[i];
    }
    out
}

/// `SHA256(SHA256(password))`, what the fast-auth cache holds.
pub fn sha2_stage2(password: &[u8]) -> [u8; 32] {
    Sha256::digest(Sha256::digest(password)).into()
}

/// Checks a fast-auth scramble against a cached `SHA256(SHA256(password))`.
pub fn caching_sha2_fast_verify(stage2: &[u8; 32], nonce: &[u8], response: &[u8]) -> bool {
    if response.len() != 32 {
        return false;
    }
    let mut h = Sha256::new();
    h.update(stage2);
    h.update(nonce20(nonce));
    let m = h.finalize();
    let stage1: Vec<u8> = response.iter().zip(m.iter()).map(|(a, b)| a ^ b).collect();
    ct_eq(&Sha256::digest(&stage1), stage2)
}

/// Checks a cleartext password against a stored credential of either plugin.
pub fn verify_cleartext(plugin: AuthPlugin, auth_string: &str, password: &[u8]) -> bool {
    if auth_string.is_empty() {
        return password.is_empty();
    }
    match plugin {
        AuthPlugin::Native => {
            let stage2 = Sha1::digest(Sha1::digest(password));
            let expect = format!("*{}", hex_upper(&stage2));
            ct_eq(expect.as_bytes(), auth_string.as_bytes())
        }
        AuthPlugin::CachingSha2 => {
            let Some((rounds, salt, digest)) = parse_sha2_auth_string(auth_string) else {
                return false;
            };
            ct_eq(sha256_crypt(password, salt, rounds).as_bytes(), digest)
        }
    }
}

/// Splits `$A$RRR$<salt20><digest43>` into (rounds, salt, digest).
fn parse_sha2_auth_string(s: &str) -> Option<(u32, &[u8], &[u8])> {
    let b = s.as_bytes();
    let rest = b.strip_prefix(b"$A$")?;
    if rest.len() != 4 + SHA2_SALT_LEN + SHA2_DIGEST_B64_LEN || rest[3] != b'$' {
        return None;
    }
    let rounds: u32 = std::str::from_utf8(&rest[..3]).ok()?.parse().ok()?;
    if rounds == 0 {
        return None;
    }
    let salt = &rest[4..4 + SHA2_SALT_LEN];
    let digest = &rest[4 + SHA2_SALT_LEN..];
    Some((rounds * 1000, salt, digest))
}

/// SHA-256-crypt (Ulrich Drepper's "Unix crypt using SHA-256"): the base-64 digest part only.
pub fn sha256_crypt(password: &[u8], salt: &[u8], rounds: u32) -> String {
    let pw = password;
    let b = {
        let mut h = Sha256::new();
        h.update(pw);
        h.update(salt);
        h.update(pw);
        h.finalize()
    };
    let mut a = {
        let mut h = Sha256::new();
        h.update(pw);
        h.update(salt);
        let mut cnt = pw.len();
        while cnt > 32 {
            h.update(b);
            cnt -= 32;
        }
        h.update(&b[..cnt]);
        let mut i = pw.len();
        while i > 0 {
            if i & 1 != 0 {
                h.update(b);
            } else {
                h.update(pw);
            }
            i >>= 1;
        }
        h.finalize()
    };
    let dp = {
        let mut h = Sha256::new();
        for _ in 0..pw.len() {
            h.update(pw);
        }
        h.finalize()
    };
    let p: Vec<u8> = (0..pw.len()).map(|i| dp[i % 32]).collect();
    let ds = {
        let mut h = Sha256::new();
        for _ in 0..16 + a[0] as usize {
            h.update(salt);
        }
        h.finalize()
    };
    let s: Vec<u8> = (0..salt.len()).map(|i| ds[i % 32]).collect();
    for r in 0..rounds {
        let mut h = Sha256::new();
        if r & 1 != 0 {
            h.update(&p);
        } else {
            h.update(a);
        }
        if r % 3 != 0 {
            h.update(&s);
        }
        if r % 7 != 0 {
            h.update(&p);
        }
        if r & 1 != 0 {
            h.update(a);
        } else {
            h.update(&p);
        }
        a = h.finalize();
    }
    let mut out = String::with_capacity(SHA2_DIGEST_B64_LEN);
    let mut put = |b2: u8, b1: u8, b0: u8, n: usize| {
        let mut w = (b2 as u32) << 16 | (b1 as u32) << 8 | b0 as u32;
        for _ in 0..n {
            out.push(CRYPT_B64[(w & 0x3f) as usize] as char);
            w >>= 6;
        }
    };
    const ORDER: [(usize, usize, usize); 10] = [
        (0, 10, 20),
        (21, 1, 11),
        (12, 22, 2),
        (3, 13, 23),
        (24, 4, 14),
        (15, 25, 5),
        (6, 16, 26),
        (27, 7, 17),
        (18, 28, 8),
        (9, 19, 29),
    ];
    for (i, j, k) in ORDER {
        put(a[i], a[j], a[k], 4);
    }
    put(0, a[31], a[30], 3);
    out
}

/// The server-side fast-auth cache of `caching_sha2_password`: `user@host` of the account →
/// `SHA256(SHA256(password))`, remembered after a successful full authentication.
///
/// Each entry also records the credential it was verified against, so an entry goes stale
/// by itself when the account's password changes (ALTER USER / SET PASSWORD).
#[derive(Default)]
pub struct AuthCache {
    map: RwLock<HashMap<String, (String, [u8; 32])>>,
}

impl AuthCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    fn key(user: &str, host: &str) -> String {
        format!("{user}@{host}")
    }

    /// The cached digest for the account, if it was cached under the same credential.
    pub fn get(&self, user: &str, host: &str, auth_string: &str) -> Option<[u8; 32]> {
        let map = self.map.read();
        match map.get(&Self::key(user, host)) {
            Some((cred, digest)) if cred == auth_string => Some(*digest),
            _ => None,
        }
    }

    /// Remembers a verified password.
    pub fn insert(&self, user: &str, host: &str, auth_string: &str, password: &[u8]) {
        self.map.write().insert(
            Self::key(user, host),
            (auth_string.to_string(), sha2_stage2(password)),
        );
    }

    /// Forgets one account (e.g. DROP USER).
    pub fn remove(&self, user: &str, host: &str) {
        self.map.write().remove(&Self::key(user, host));
    }

    /// Forgets everything (FLUSH PRIVILEGES).
    pub fn clear(&self) {
        self.map.write().clear();
    }
}

/// The server's RSA key pair for password exchange over unencrypted connections, loaded from
/// (or, on first need, generated into) `dir/private_key.pem` and `dir/public_key.pem`.
pub struct RsaKeys {
    dir: PathBuf,
    /// Modulus size of generated keys (2048; smaller in tests, where debug-build key generation
    /// is slow).
    bits: usize,
    keys: Mutex<Option<Arc<LoadedKeys>>>,
}

/// A loaded key pair and the public key's PEM text as sent to clients.
pub struct LoadedKeys {
    /// The private key.
    pub private: RsaPrivateKey,
    /// The public key as an SPKI PEM (`-----BEGIN PUBLIC KEY-----`).
    pub public_pem: String,
}

impl RsaKeys {
    /// Keys kept in `dir` (nothing is read until first use).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        RsaKeys {
            dir: dir.into(),
            bits: 2048,
            keys: Mutex::new(None),
        }
    }

    /// Loads the pair, generating and saving a 2048-bit pair if the directory has none.
    pub fn get(&self) -> std::io::Result<Arc<LoadedKeys>> {
        let mut g = self.keys.lock();
        if let Some(k) = g.as_ref() {
            return Ok(k.clone());
        }
        let k = Arc::new(load_or_create(&self.dir, self.bits)?);
        *g = Some(k.clone());
        Ok(k)
    }

    /// Decrypts a password sent RSA-OAEP(SHA-1) encrypted: the plaintext is
    /// `(password ‖ NUL) XOR nonce` (nonce repeated). Returns the password without the NUL.
    pub fn decrypt_password(&self, ciphertext: &[u8], nonce: &[u8]) -> Option<Vec<u8>> {
        let keys = self.get().ok()?;
        let plain = keys.private.decrypt(Oaep::new::<Sha1>(), ciphertext).ok()?;
        let nonce = nonce20(nonce);
        if nonce.is_empty() {
            return None;
        }
        let mut pw: Vec<u8> = plain
            .iter()
            .enumerate()
            .map(|(i, b)| b ^ nonce[i % nonce.len()])
            .collect();
        if pw.last() == Some(&0) {
            pw.pop();
        }
        Some(pw)
    }
}

fn io_err(e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

fn load_or_create(dir: &Path, bits: usize) -> std::io::Result<LoadedKeys> {
    let priv_path = dir.join("private_key.pem");
    let pub_path = dir.join("public_key.pem");
    if priv_path.exists() {
        let text = std::fs::read_to_string(&priv_path)?;
        let private = RsaPrivateKey::from_pkcs1_pem(&text)
            .or_else(|_| RsaPrivateKey::from_pkcs8_pem(&text))
            .map_err(|e| io_err(format!("{}: {e}", priv_path.display())))?;
        let public_pem = RsaPublicKey::from(&private)
            .to_public_key_pem(LineEnding::LF)
            .map_err(io_err)?;
        if !pub_path.exists() {
            std::fs::write(&pub_path, &public_pem)?;
        }
        return Ok(LoadedKeys {
            private,
            public_pem,
        });
    }
    std::fs::create_dir_all(dir)?;
    tracing::info!("generating RSA key pair in {}", dir.display());
    let private = RsaPrivateKey::new(&mut rand::thread_rng(), bits).map_err(io_err)?;
    let private_pem = private.to_pkcs1_pem(LineEnding::LF).map_err(io_err)?;
    let public_pem = RsaPublicKey::from(&private)
        .to_public_key_pem(LineEnding::LF)
        .map_err(io_err)?;
    write_private(&priv_path, private_pem.as_bytes())?;
    std::fs::write(&pub_path, &public_pem)?;
    Ok(LoadedKeys {
        private,
        public_pem,
    })
}

#[cfg(unix)]
fn write_private(path: &Path, data: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(data)
}

#[cfg(not(unix))]
fn write_private(path: &Path, data: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_hash_matches_mysql() {
        // SELECT PASSWORD('password') in MySQL 5.7.
        assert_eq!(
            hash_password(AuthPlugin::Native, "password"),
            "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19"
        );
        assert_eq!(hash_password(AuthPlugin::Native, ""), "");
    }

    #[test]
    fn native_scramble_roundtrip_and_vector() {
        let nonce = b"abcdefghijklmnopqrst";
        let resp = native_scramble(b"password", nonce);
        let stored = hash_password(AuthPlugin::Native, "password");
        assert!(native_verify(&stored, nonce, &resp));
        assert!(
            native_verify(&stored, b"abcdefghijklmnopqrst\0", &resp),
            "trailing NUL ignored"
        );
        assert!(!native_verify(
            &stored,
            nonce,
            &native_scramble(b"wrong", nonce)
        ));
        assert!(!native_verify(&stored, nonce, &resp[..19]));
        assert!(!native_verify(&stored, b"bbcdefghijklmnopqrst", &resp));
        assert!(native_verify("", nonce, b""));
        assert!(!native_verify("", nonce, &resp));
        assert!(!native_verify("*XYZ", nonce, &resp));
        // Independent check of the formula: SHA1(pw) XOR SHA1(nonce || SHA1(SHA1(pw))).
        let s1 = Sha1::digest(b"password");
        let mut h = Sha1::new();
        h.update(nonce);
        h.update(Sha1::digest(s1));
        let m = h.finalize();
        let expect: Vec<u8> = s1.iter().zip(m.iter()).map(|(a, b)| a ^ b).collect();
        assert_eq!(resp.to_vec(), expect);
    }

    #[test]
    fn sha256_crypt_reference_vectors() {
        // Vectors checked with `openssl passwd -5`.
        assert_eq!(
            sha256_crypt(b"Hello world!", b"saltstring", 5000),
            "5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5"
        );
        // A password longer than 32 bytes exercises the B-chunk loop.
        let long =
            b"a very much longer text to encrypt.  This one even stretches over morethan one line.";
        assert_eq!(
            sha256_crypt(long, b"anotherlongsalts", 1400),
            "Rx.j8H.h8HjEDGomFU8bDkXm3XIUnzyxf12oP84Bnq1"
        );
        assert_eq!(
            sha256_crypt(
                b"the minimum number is still observed",
                b"roundstoolow",
                1000
            ),
            "yfvwcWrQ8l/K0DAWyuPMDNHpIVlTQebY9l/gL972bIC"
        );
    }

    #[test]
    fn caching_sha2_credentials() {
        let stored = hash_password(AuthPlugin::CachingSha2, "secret");
        assert!(stored.starts_with("$A$005$"));
        assert_eq!(stored.len(), 7 + 20 + 43);
        assert!(verify_cleartext(
            AuthPlugin::CachingSha2,
            &stored,
            b"secret"
        ));
        assert!(!verify_cleartext(
            AuthPlugin::CachingSha2,
            &stored,
            b"Secret"
        ));
        assert!(!verify_cleartext(
            AuthPlugin::CachingSha2,
            "$A$005$short",
            b"secret"
        ));
        assert_ne!(
            stored,
            hash_password(AuthPlugin::CachingSha2, "secret"),
            "salted"
        );
        assert!(verify_cleartext(AuthPlugin::CachingSha2, "", b""));
        assert!(verify_cleartext(
            AuthPlugin::Native,
            &hash_password(AuthPlugin::Native, "x"),
            b"x"
        ));
    }

    #[test]
    fn caching_sha2_fast_path() {
        let nonce = new_scramble();
        assert!(nonce
            .iter()
            .all(|&b| b != 0 && b != b'$' && b.is_ascii_graphic()));
        let resp = caching_sha2_scramble(b"secret", &nonce);
        let stage2 = sha2_stage2(b"secret");
        assert!(caching_sha2_fast_verify(&stage2, &nonce, &resp));
        assert!(!caching_sha2_fast_verify(
            &stage2,
            &nonce,
            &caching_sha2_scramble(b"secreT", &nonce)
        ));
        assert!(!caching_sha2_fast_verify(&stage2, &nonce, &resp[..31]));

        let cache = AuthCache::new();
        cache.insert("u", "%", "cred1", b"secret");
        assert_eq!(cache.get("u", "%", "cred1"), Some(stage2));
        assert_eq!(
            cache.get("u", "%", "cred2"),
            None,
            "stale after a password change"
        );
        assert_eq!(cache.get("u", "localhost", "cred1"), None);
        cache.remove("u", "%");
        assert_eq!(cache.get("u", "%", "cred1"), None);
    }

    #[test]
    fn plugin_names() {
        assert_eq!(
            AuthPlugin::from_name("mysql_native_password"),
            Some(AuthPlugin::Native)
        );
        assert_eq!(
            AuthPlugin::from_name(AuthPlugin::CachingSha2.name()),
            Some(AuthPlugin::CachingSha2)
        );
        assert_eq!(AuthPlugin::from_name("sha256_password"), None);
    }

    #[test]
    fn rsa_keys_generated_persisted_and_decrypt() {
        use rsa::pkcs8::DecodePublicKey;
        let dir = tempfile::tempdir().unwrap();
        let keys = RsaKeys {
            bits: 1024,
            ..RsaKeys::new(dir.path().join("keys"))
        };
        let k = keys.get().unwrap();
        assert!(k.public_pem.starts_with("-----BEGIN PUBLIC KEY-----"));
        let text = std::fs::read_to_string(dir.path().join("keys/private_key.pem")).unwrap();
        assert!(text.starts_with("-----BEGIN RSA PRIVATE KEY-----"));
        // A second instance loads the same pair instead of generating one.
        let again = RsaKeys::new(dir.path().join("keys"));
        assert_eq!(again.get().unwrap().public_pem, k.public_pem);

        // What a client does: (password + NUL) XOR nonce, RSA-OAEP(SHA-1) with the public key.
        let nonce = new_scramble();
        let mut plain = b"s3cret pass".to_vec();
        plain.push(0);
        for (i, b) in plain.iter_mut().enumerate() {
            *b ^= nonce[i % nonce.len()];
        }
        let public = RsaPublicKey::from_public_key_pem(&k.public_pem).unwrap();
        let enc = public
            .encrypt(&mut rand::thread_rng(), Oaep::new::<Sha1>(), &plain)
            .unwrap();
        assert_eq!(
            again.decrypt_password(&enc, &nonce),
            Some(b"s3cret pass".to_vec())
        );
        assert_eq!(again.decrypt_password(&enc[1..], &nonce), None);
        assert_eq!(again.decrypt_password(b"garbage", &nonce), None);
    }
}
