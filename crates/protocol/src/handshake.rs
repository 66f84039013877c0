//! The connection phase: capability flags, the server's Initial Handshake (protocol v10), the
//! client's HandshakeResponse41, COM_CHANGE_USER's payload and AuthSwitchRequest.

use crate::packet::{put_nul_str, Malformed, PResult, Reader};

/// Client/server capability flags (`CLIENT_*`).
pub mod caps {
    /// New, more secure passwords (also marks a MySQL rather than MariaDB server).
    pub const LONG_PASSWORD: u32 = 1;
    /// Affected rows = found (matched) rows.
    pub const FOUND_ROWS: u32 = 1 << 1;
    /// All column flags.
    pub const LONG_FLAG: u32 = 1 << 2;
    /// A database name may be given in the handshake response.
    pub const CONNECT_WITH_DB: u32 = 1 << 3;
    /// Don't allow `db.table.column`.
    pub const NO_SCHEMA: u32 = 1 << 4;
    /// Compression protocol.
    pub const COMPRESS: u32 = 1 << 5;
    /// ODBC client.
    pub const ODBC: u32 = 1 << 6;
    /// LOAD DATA LOCAL.
    pub const LOCAL_FILES: u32 = 1 << 7;
    /// Ignore spaces before '('.
    pub const IGNORE_SPACE: u32 = 1 << 8;
    /// The 4.1 protocol.
    pub const PROTOCOL_41: u32 = 1 << 9;
    /// Interactive client (wait_timeout = interactive_timeout).
    pub const INTERACTIVE: u32 = 1 << 10;
    /// TLS.
    pub const SSL: u32 = 1 << 11;
    /// Don't issue SIGPIPE.
    pub const IGNORE_SIGPIPE: u32 = 1 << 12;
    /// Transaction status in status flags.
    pub const TRANSACTIONS: u32 = 1 << 13;
    /// Old 4.1 protocol flag.
    pub const RESERVED: u32 = 1 << 14;
    /// 4.1 authentication (length-prefixed auth response).
    pub const SECURE_CONNECTION: u32 = 1 << 15;
    /// Multiple statements per COM_QUERY.
    pub const MULTI_STATEMENTS: u32 = 1 << 16;
    /// Multiple result sets.
    pub const MULTI_RESULTS: u32 = 1 << 17;
    /// Multiple result sets from COM_STMT_EXECUTE.
    pub const PS_MULTI_RESULTS: u32 = 1 << 18;
    /// Pluggable authentication.
    pub const PLUGIN_AUTH: u32 = 1 << 19;
    /// Connection attributes.
    pub const CONNECT_ATTRS: u32 = 1 << 20;
    /// Length-encoded auth response.
    pub const PLUGIN_AUTH_LENENC_CLIENT_DATA: u32 = 1 << 21;
    /// Client can handle expired passwords.
    pub const CAN_HANDLE_EXPIRED_PASSWORDS: u32 = 1 << 22;
    /// Session state tracking in OK packets.
    pub const SESSION_TRACK: u32 = 1 << 23;
    /// OK packets replace EOF packets.
    pub const DEPRECATE_EOF: u32 = 1 << 24;
    /// Optional result set metadata.
    pub const OPTIONAL_RESULTSET_METADATA: u32 = 1 << 25;
    /// zstd compression.
    pub const ZSTD_COMPRESSION: u32 = 1 << 26;
    /// Query attributes.
    pub const QUERY_ATTRIBUTES: u32 = 1 << 27;

    /// What this server supports and advertises.
    pub const SERVER: u32 = LONG_PASSWORD
        | FOUND_ROWS
        | LONG_FLAG
        | CONNECT_WITH_DB
        | LOCAL_FILES
        | PROTOCOL_41
        | INTERACTIVE
        | IGNORE_SIGPIPE
        | TRANSACTIONS
        | RESERVED
        | SECURE_CONNECTION
        | MULTI_STATEMENTS
        | MULTI_RESULTS
        | PS_MULTI_RESULTS
        | PLUGIN_AUTH
        | CONNECT_ATTRS
        | PLUGIN_AUTH_LENENC_CLIENT_DATA
        | DEPRECATE_EOF;
}

/// The default collation advertised in the handshake: utf8mb4_0900_ai_ci.
pub const DEFAULT_COLLATION_ID: u8 = 255;

/// Builds the Initial Handshake packet (protocol version 10).
pub fn initial_handshake(
    server_version: &str,
    conn_id: u32,
    scramble: &[u8; 20],
    status: u16,
    auth_plugin: &str,
    capabilities: u32,
) -> Vec<u8> {
    let mut p = Vec::with_capacity(128);
    p.push(10);
    // The version string is NUL-terminated; strip any NUL the configuration might contain.
    let version: Vec<u8> = server_version.bytes().filter(|&b| b != 0).collect();
    put_nul_str(&mut p, &version);
    p.extend_from_slice(&conn_id.to_le_bytes());
    p.extend_from_slice(&scramble[..8]);
    p.push(0);
    p.extend_from_slice(&((capabilities & 0xFFFF) as u16).to_le_bytes());
    p.push(DEFAULT_COLLATION_ID);
    p.extend_from_slice(&status.to_le_bytes());
    p.extend_from_slice(&((capabilities >> 16) as u16).to_le_bytes());
    p.push(21); // length of the auth plugin data: 20 + NUL
    p.extend_from_slice(&[0u8; 10]);
    p.extend_from_slice(&scramble[8..]);
    p.push(0);
    put_nul_str(&mut p, auth_plugin.as_bytes());
    p
}

/// A parsed HandshakeResponse41 (or COM_CHANGE_USER, which carries the same information).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HandshakeResponse {
    /// The client's capability flags (not yet intersected with the server's).
    pub capabilities: u32,
    /// The client's max packet size.
    pub max_packet: u32,
    /// The requested collation id.
    pub collation_id: u16,
    /// The user name.
    pub user: String,
    /// The auth response computed by `plugin`.
    pub auth_response: Vec<u8>,
    /// The default database.
    pub db: Option<String>,
    /// The client's auth plugin name (empty if not sent).
    pub plugin: String,
    /// Connection attributes.
    pub attrs: Vec<(String, String)>,
}

/// True if the packet is an SSLRequest: the 32-byte prefix of a handshake response sent before
/// switching to TLS.
pub fn is_ssl_request(payload: &[u8]) -> bool {
    payload.len() == 32
        && u32::from_le_bytes([payload[0], payload[1], payload[2], payload[3]]) & caps::SSL != 0
}

fn string(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn parse_attrs(r: &mut Reader<'_>) -> PResult<Vec<(String, String)>> {
    let total = usize::try_from(r.lenenc_int()?).map_err(|_| Malformed)?;
    let mut a = Reader::new(r.bytes(total)?);
    let mut attrs = Vec::new();
    while !a.is_empty() {
        let k = a.lenenc_bytes()?;
        let v = a.lenenc_bytes()?;
        attrs.push((string(k), string(v)));
    }
    Ok(attrs)
}

/// Parses HandshakeResponse41. Only the 4.1 protocol is accepted (the caller checks
/// [`caps::PROTOCOL_41`] in the result and refuses older clients).
pub fn parse_handshake_response(payload: &[u8]) -> PResult<HandshakeResponse> {
    let mut r = Reader::new(payload);
    let capabilities = r.u32()?;
    let max_packet = r.u32()?;
    let collation_id = r.u8()? as u16;
    r.skip(23)?;
    let user = string(r.nul_bytes()?);
    let eff = capabilities & caps::SERVER;
    let auth_response = if eff & caps::PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
        r.lenenc_bytes()?.to_vec()
    } else if eff & caps::SECURE_CONNECTION != 0 {
        let n = r.u8()? as usize;
        r.bytes(n)?.to_vec()
    } else {
        r.nul_bytes()?.to_vec()
    };
    let mut db = None;
    if eff & caps::CONNECT_WITH_DB != 0 && !r.is_empty() {
        let d = r.nul_bytes_or_rest();
        if !d.is_empty() {
            db = Some(string(d));
        }
    }
    let mut plugin = String::new();
    if eff & caps::PLUGIN_AUTH != 0 && !r.is_empty() {
        plugin = string(r.nul_bytes_or_rest());
    }
    let mut attrs = Vec::new();
    if eff & caps::CONNECT_ATTRS != 0 && !r.is_empty() {
        attrs = parse_attrs(&mut r)?;
    }
    Ok(HandshakeResponse {
        capabilities,
        max_packet,
        collation_id,
        user,
        auth_response,
        db,
        plugin,
        attrs,
    })
}

/// Parses COM_CHANGE_USER's payload (after the command byte), given the negotiated capabilities.
pub fn parse_change_user(payload: &[u8], capabilities: u32) -> PResult<HandshakeResponse> {
    let mut r = Reader::new(payload);
    let user = string(r.nul_bytes()?);
    let auth_response = if capabilities & caps::SECURE_CONNECTION != 0 {
        let n = r.u8()? as usize;
        r.bytes(n)?.to_vec()
    } else {
        r.nul_bytes()?.to_vec()
    };
    let d = r.nul_bytes_or_rest();
    let db = if d.is_empty() { None } else { Some(string(d)) };
    let mut collation_id = 0;
    if r.remaining() >= 2 {
        collation_id = r.u16()?;
    }
    let mut plugin = String::new();
    if capabilities & caps::PLUGIN_AUTH != 0 && !r.is_empty() {
        plugin = string(r.nul_bytes_or_rest());
    }
    let mut attrs = Vec::new();
    if capabilities & caps::CONNECT_ATTRS != 0 && !r.is_empty() {
        attrs = parse_attrs(&mut r)?;
    }
    Ok(HandshakeResponse {
        capabilities,
        max_packet: 0,
        collation_id,
        user,
        auth_response,
        db,
        plugin,
        attrs,
    })
}

/// AuthSwitchRequest: 0xFE, plugin name, NUL, plugin data (the nonce), NUL.
pub fn auth_switch_request(plugin: &str, scramble: &[u8; 20]) -> Vec<u8> {
    let mut p = Vec::with_capacity(48);
    p.push(0xFE);
    put_nul_str(&mut p, plugin.as_bytes());
    put_nul_str(&mut p, scramble);
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{put_lenenc_bytes, put_lenenc_int};

    fn response(
        caps_: u32,
        auth: &[u8],
        db: Option<&str>,
        plugin: &str,
        attrs: &[(&str, &str)],
    ) -> Vec<u8> {
        let mut p = Vec::new();
        p.extend_from_slice(&caps_.to_le_bytes());
        p.extend_from_slice(&(1u32 << 24).to_le_bytes());
        p.push(45);
        p.extend_from_slice(&[0u8; 23]);
        put_nul_str(&mut p, b"root");
        if caps_ & caps::PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
            put_lenenc_bytes(&mut p, auth);
        } else {
            p.push(auth.len() as u8);
            p.extend_from_slice(auth);
        }
        if let Some(db) = db {
            put_nul_str(&mut p, db.as_bytes());
        }
        put_nul_str(&mut p, plugin.as_bytes());
        if caps_ & caps::CONNECT_ATTRS != 0 {
            let mut a = Vec::new();
            for (k, v) in attrs {
                put_lenenc_bytes(&mut a, k.as_bytes());
                put_lenenc_bytes(&mut a, v.as_bytes());
            }
            put_lenenc_int(&mut p, a.len() as u64);
            p.extend_from_slice(&a);
        }
        p
    }

    #[test]
    fn handshake_layout() {
        let s = *b"ABCDEFGHIJKLMNOPQRST";
        let p = initial_handshake(
            "8.4.7-Strata",
            7,
            &s,
            2,
            "caching_sha2_password",
            caps::SERVER,
        );
        let mut r = Reader::new(&p);
        assert_eq!(r.u8(), Ok(10));
        assert_eq!(r.nul_bytes(), Ok(&b"8.4.7-Strata"[..]));
        assert_eq!(r.u32(), Ok(7));
        assert_eq!(r.bytes(8), Ok(&b"ABCDEFGH"[..]));
        assert_eq!(r.u8(), Ok(0));
        let lo = r.u16().unwrap_or(0) as u32;
        assert_eq!(r.u8(), Ok(255));
        assert_eq!(r.u16(), Ok(2));
        let hi = r.u16().unwrap_or(0) as u32;
        let c = lo | hi << 16;
        assert_eq!(c, caps::SERVER);
        assert_eq!(c & caps::SSL, 0, "TLS not advertised");
        assert_ne!(c & caps::LOCAL_FILES, 0, "LOAD DATA LOCAL advertised");
        assert_eq!(r.u8(), Ok(21));
        r.skip(10).ok();
        assert_eq!(r.nul_bytes(), Ok(&b"IJKLMNOPQRST"[..]));
        assert_eq!(r.nul_bytes(), Ok(&b"caching_sha2_password"[..]));
        assert!(r.is_empty());
    }

    #[test]
    fn parse_response_variants() {
        let all = caps::SERVER;
        let p = response(
            all,
            &[1, 2, 3],
            Some("test"),
            "mysql_native_password",
            &[("_os", "Linux"), ("x", "")],
        );
        let h = parse_handshake_response(&p).ok().unwrap_or_default();
        assert_eq!(h.user, "root");
        assert_eq!(h.auth_response, vec![1, 2, 3]);
        assert_eq!(h.db.as_deref(), Some("test"));
        assert_eq!(h.plugin, "mysql_native_password");
        assert_eq!(h.collation_id, 45);
        assert_eq!(
            h.attrs,
            vec![("_os".into(), "Linux".into()), ("x".into(), String::new())]
        );

        let c = all
            & !caps::PLUGIN_AUTH_LENENC_CLIENT_DATA
            & !caps::CONNECT_WITH_DB
            & !caps::CONNECT_ATTRS;
        let p = response(c, &[9; 20], None, "caching_sha2_password", &[]);
        let h = parse_handshake_response(&p).ok().unwrap_or_default();
        assert_eq!(h.auth_response, vec![9; 20]);
        assert_eq!(h.db, None);
        assert_eq!(h.plugin, "caching_sha2_password");

        // Truncations never panic.
        let p = response(all, &[1, 2, 3], Some("test"), "p", &[("k", "v")]);
        for n in 0..p.len() {
            let _ = parse_handshake_response(&p[..n]);
        }
        assert_eq!(parse_handshake_response(&p[..20]), Err(Malformed));
    }

    #[test]
    fn change_user_payload() {
        let mut p = Vec::new();
        put_nul_str(&mut p, b"bob");
        p.push(3);
        p.extend_from_slice(b"xyz");
        put_nul_str(&mut p, b"db1");
        p.extend_from_slice(&33u16.to_le_bytes());
        put_nul_str(&mut p, b"mysql_native_password");
        let h = parse_change_user(&p, caps::SERVER & !caps::CONNECT_ATTRS)
            .ok()
            .unwrap_or_default();
        assert_eq!(
            (h.user.as_str(), h.auth_response.as_slice()),
            ("bob", &b"xyz"[..])
        );
        assert_eq!(h.db.as_deref(), Some("db1"));
        assert_eq!(h.collation_id, 33);
        assert_eq!(h.plugin, "mysql_native_password");
        assert!(parse_change_user(b"bob", caps::SERVER).is_err());
    }

    #[test]
    fn ssl_request_detection() {
        let mut p = (caps::SERVER | caps::SSL).to_le_bytes().to_vec();
        p.resize(32, 0);
        assert!(is_ssl_request(&p));
        p[1] &= !(caps::SSL >> 8) as u8;
        assert!(!is_ssl_request(&p));
    }
}
