//! TLS for client connections: the server's certificate (given, or generated once into the data
//! directory like MySQL's `auto_generate_certs`), the rustls configuration, and the
//! connection-level facts the server reports (`Ssl_version`, `Ssl_cipher`, a verified client
//! certificate for `REQUIRE X509`).
//!
//! rustls (pure Rust, ring provider) does the protocol; what is written here is only what MySQL
//! specifies around it: the file layout (`ca.pem`, `server-cert.pem`, `server-key.pem`,
//! `client-cert.pem`, `client-key.pem`), OpenSSL-style cipher names, and the certificate's
//! validity dates for `Ssl_server_not_before/after`.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig, ServerConnection, StreamOwned};

/// Where the server's certificate comes from (`--ssl-cert`, `--ssl-key`, `--ssl-ca`).
#[derive(Debug, Clone, Default)]
pub struct TlsOptions {
    /// PEM certificate chain of the server.
    pub cert: Option<PathBuf>,
    /// PEM private key of the server.
    pub key: Option<PathBuf>,
    /// PEM CA certificate(s) that client certificates must chain to (`REQUIRE X509`).
    pub ca: Option<PathBuf>,
}

/// The loaded TLS setup of a running server.
#[derive(Debug)]
pub struct TlsSetup {
    /// The rustls configuration every TLS connection uses.
    pub config: Arc<ServerConfig>,
    /// The certificate file in use (`ssl_cert`).
    pub cert_path: PathBuf,
    /// The key file in use (`ssl_key`).
    pub key_path: PathBuf,
    /// The CA file in use (`ssl_ca`), if client certificates can be verified.
    pub ca_path: Option<PathBuf>,
    /// `Ssl_server_not_before`, e.g. `Nov 22 01:02:03 2026 GMT`.
    pub not_before: String,
    /// `Ssl_server_not_after`.
    pub not_after: String,
}

/// What a connection negotiated (for `SHOW STATUS LIKE 'Ssl_%'`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsSession {
    /// `Ssl_version`: `TLSv1.2` or `TLSv1.3`.
    pub version: String,
    /// `Ssl_cipher`, in OpenSSL's naming as MySQL reports it.
    pub cipher: String,
    /// The client presented a certificate that chains to `ssl_ca`.
    pub client_cert_verified: bool,
}

/// Server-wide TLS handshake counters.
#[derive(Debug, Default)]
pub struct TlsCounters {
    /// `Ssl_accepts`: TLS handshakes begun.
    pub accepts: std::sync::atomic::AtomicU64,
    /// `Ssl_finished_accepts`: TLS handshakes completed.
    pub finished_accepts: std::sync::atomic::AtomicU64,
}

/// File names of the generated certificates, as MySQL names them.
const CA: &str = "ca.pem";
const CA_KEY: &str = "ca-key.pem";
const SERVER_CERT: &str = "server-cert.pem";
const SERVER_KEY: &str = "server-key.pem";
const CLIENT_CERT: &str = "client-cert.pem";
const CLIENT_KEY: &str = "client-key.pem";

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
}

impl TlsSetup {
    /// Loads the configured certificate; without `--ssl-cert`/`--ssl-key`, uses the certificates
    /// in `datadir`, generating a CA, a server and a client certificate there the first time.
    pub fn load(opts: &TlsOptions, datadir: &Path) -> io::Result<TlsSetup> {
        let (cert_path, key_path, ca_path) = match (&opts.cert, &opts.key) {
            (Some(c), Some(k)) => (c.clone(), k.clone(), opts.ca.clone()),
            (None, None) => {
                if !datadir.join(SERVER_CERT).exists() || !datadir.join(SERVER_KEY).exists() {
                    generate_certificates(datadir)?;
                    tracing::info!(
                        "generated a self-signed CA, server and client certificate in {}",
                        datadir.display()
                    );
                }
                let ca = opts.ca.clone().or_else(|| {
                    let p = datadir.join(CA);
                    p.exists().then_some(p)
                });
                (datadir.join(SERVER_CERT), datadir.join(SERVER_KEY), ca)
            }
            _ => {
                return Err(invalid(
                    "--ssl-cert and --ssl-key must be given together".into(),
                ))
            }
        };
        let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&cert_path)
            .and_then(|it| it.collect::<Result<_, _>>())
            .map_err(|e| invalid(format!("{}: {e}", cert_path.display())))?;
        let Some(first) = chain.first() else {
            return Err(invalid(format!(
                "{}: no certificate found",
                cert_path.display()
            )));
        };
        let (not_before, not_after) = validity(first).unwrap_or_default();
        let key = PrivateKeyDer::from_pem_file(&key_path)
            .map_err(|e| invalid(format!("{}: {e}", key_path.display())))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ServerConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
            .map_err(|e| invalid(e.to_string()))?;
        let builder = match &ca_path {
            Some(ca) => {
                let mut roots = RootCertStore::empty();
                for c in CertificateDer::pem_file_iter(ca)
                    .map_err(|e| invalid(format!("{}: {e}", ca.display())))?
                {
                    let c = c.map_err(|e| invalid(format!("{}: {e}", ca.display())))?;
                    roots
                        .add(c)
                        .map_err(|e| invalid(format!("{}: {e}", ca.display())))?;
                }
                // Client certificates are optional for the handshake (only `REQUIRE X509`
                // accounts need one) but verified against the CA whenever presented.
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                        .allow_unauthenticated()
                        .build()
                        .map_err(|e| invalid(format!("{}: {e}", ca.display())))?;
                builder.with_client_cert_verifier(verifier)
            }
            None => builder.with_no_client_auth(),
        };
        let config = builder
            .with_single_cert(chain, key)
            .map_err(|e| invalid(format!("{}: {e}", cert_path.display())))?;
        Ok(TlsSetup {
            config: Arc::new(config),
            cert_path,
            key_path,
            ca_path,
            not_before,
            not_after,
        })
    }
}

/// Writes a CA and a server and a client certificate signed by it into `dir` (the private keys
/// readable by the owner only).
fn generate_certificates(dir: &Path) -> io::Result<()> {
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
        KeyUsagePurpose,
    };
    let err = |e: rcgen::Error| invalid(format!("certificate generation: {e}"));
    use chrono::Datelike;
    // valid from today (00:00 UTC) for ten years, like MySQL's auto-generated certificates
    let today = chrono::Utc::now().date_naive();
    let (y, m, d) = (today.year(), today.month() as u8, today.day().min(28) as u8);
    let params = |cn: &str, sans: Vec<String>| -> io::Result<CertificateParams> {
        let mut p = CertificateParams::new(sans).map_err(err)?;
        p.distinguished_name.push(DnType::CommonName, cn);
        p.not_before = rcgen::date_time_ymd(y, m, d);
        p.not_after = rcgen::date_time_ymd(y + 10, m, d);
        Ok(p)
    };
    let ca_key = KeyPair::generate().map_err(err)?;
    let mut ca_params = params("Strata_Auto_Generated_CA_Certificate", vec![])?;
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca = ca_params.self_signed(&ca_key).map_err(err)?;
    let server_key = KeyPair::generate().map_err(err)?;
    let mut sp = params(
        "Strata_Auto_Generated_Server_Certificate",
        vec!["localhost".into(), "127.0.0.1".into()],
    )?;
    sp.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let server = sp.signed_by(&server_key, &ca, &ca_key).map_err(err)?;
    let client_key = KeyPair::generate().map_err(err)?;
    let mut cp = params("Strata_Auto_Generated_Client_Certificate", vec![])?;
    cp.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    let client = cp.signed_by(&client_key, &ca, &ca_key).map_err(err)?;
    std::fs::create_dir_all(dir)?;
    write_file(&dir.join(CA), &ca.pem(), false)?;
    write_file(&dir.join(CA_KEY), &ca_key.serialize_pem(), true)?;
    write_file(&dir.join(CLIENT_CERT), &client.pem(), false)?;
    write_file(&dir.join(CLIENT_KEY), &client_key.serialize_pem(), true)?;
    // the server key/cert last: their presence marks a complete set
    write_file(&dir.join(SERVER_KEY), &server_key.serialize_pem(), true)?;
    write_file(&dir.join(SERVER_CERT), &server.pem(), false)
}

fn write_file(path: &Path, text: &str, private: bool) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(if private { 0o600 } else { 0o644 })
        .open(path)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()
}

/// The validity dates of a DER certificate in MySQL's `Ssl_server_not_*` form
/// (`Nov 22 00:00:00 2026 GMT`). A small hand-walk of the DER structure (Certificate →
/// tbsCertificate → validity) so as not to pull in an X.509 parser for two dates.
fn validity(cert: &CertificateDer<'_>) -> Option<(String, String)> {
    fn tlv(b: &[u8]) -> Option<(u8, &[u8], &[u8])> {
        let tag = *b.first()?;
        let first = *b.get(1)? as usize;
        let (len, hdr) = if first < 0x80 {
            (first, 2)
        } else {
            let n = first & 0x7f;
            if n == 0 || n > 4 {
                return None;
            }
            let mut l = 0usize;
            for i in 0..n {
                l = (l << 8) | *b.get(2 + i)? as usize;
            }
            (l, 2 + n)
        };
        let body = b.get(hdr..hdr + len)?;
        Some((tag, body, &b[hdr + len..]))
    }
    let (_, cert_body, _) = tlv(cert.as_ref())?;
    let (_, mut tbs, _) = tlv(cert_body)?;
    // [0] version (optional), serialNumber, signature, issuer, then validity
    let (tag, _, rest) = tlv(tbs)?;
    if tag == 0xa0 {
        tbs = rest;
        tbs = tlv(tbs)?.2; // serial
    } else {
        tbs = rest; // that was the serial
    }
    tbs = tlv(tbs)?.2; // signature algorithm
    tbs = tlv(tbs)?.2; // issuer
    let (_, validity, _) = tlv(tbs)?;
    let (t1, nb, rest) = tlv(validity)?;
    let (t2, na, _) = tlv(rest)?;
    Some((asn1_time(t1, nb)?, asn1_time(t2, na)?))
}

/// UTCTime (`YYMMDDHHMMSSZ`) or GeneralizedTime (`YYYYMMDDHHMMSSZ`) → `Mon DD HH:MM:SS YYYY GMT`.
fn asn1_time(tag: u8, b: &[u8]) -> Option<String> {
    let s = std::str::from_utf8(b).ok()?;
    let full = match tag {
        0x17 => {
            let yy: u32 = s.get(0..2)?.parse().ok()?;
            format!("{}{}", if yy >= 50 { 19 } else { 20 }, s)
        }
        0x18 => s.to_string(),
        _ => return None,
    };
    let t = chrono::NaiveDateTime::parse_from_str(full.get(0..14)?, "%Y%m%d%H%M%S").ok()?;
    Some(t.format("%b %e %H:%M:%S %Y GMT").to_string())
}

/// The TLS stream of a connection that switched to TLS after its SSLRequest.
pub type TlsStream<S> = StreamOwned<ServerConnection, S>;

/// Runs the server side of the TLS handshake on `sock` (blocking, within the socket's
/// timeouts). On failure the plain socket is handed back with the error.
pub fn accept<S: Read + Write>(
    config: &Arc<ServerConfig>,
    sock: S,
) -> Result<TlsStream<S>, (S, io::Error)> {
    let conn = match ServerConnection::new(config.clone()) {
        Ok(c) => c,
        Err(e) => return Err((sock, io::Error::other(e))),
    };
    let mut s = StreamOwned::new(conn, sock);
    while s.conn.is_handshaking() {
        if let Err(e) = s.conn.complete_io(&mut s.sock) {
            return Err((s.sock, e));
        }
    }
    Ok(s)
}

/// True when decrypted input is already buffered (so the socket may not become readable again
/// even though a command is waiting).
pub fn has_buffered_input<S: Read + Write>(s: &mut TlsStream<S>) -> bool {
    s.conn
        .process_new_packets()
        .map(|st| st.plaintext_bytes_to_read() > 0)
        .unwrap_or(false)
}

/// What `s` negotiated.
pub fn session<S: Read + Write>(s: &TlsStream<S>) -> TlsSession {
    let version = match s.conn.protocol_version() {
        Some(rustls::ProtocolVersion::TLSv1_3) => "TLSv1.3",
        Some(rustls::ProtocolVersion::TLSv1_2) => "TLSv1.2",
        _ => "",
    };
    let cipher = s
        .conn
        .negotiated_cipher_suite()
        .map(|c| openssl_cipher_name(&format!("{:?}", c.suite())))
        .unwrap_or_default();
    TlsSession {
        version: version.into(),
        cipher,
        client_cert_verified: s.conn.peer_certificates().is_some_and(|c| !c.is_empty()),
    }
}

/// rustls' IANA suite names → OpenSSL's names, which MySQL reports in `Ssl_cipher`.
fn openssl_cipher_name(iana: &str) -> String {
    if let Some(rest) = iana.strip_prefix("TLS13_") {
        return format!("TLS_{rest}");
    }
    let Some(rest) = iana.strip_prefix("TLS_") else {
        return iana.to_string();
    };
    // TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 → ECDHE-RSA-AES128-GCM-SHA256
    let rest = rest
        .replace("_WITH_", "_")
        .replace("AES_128", "AES128")
        .replace("AES_256", "AES256")
        .replace("CHACHA20_POLY1305_SHA256", "CHACHA20-POLY1305");
    rest.replace('_', "-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cipher_names_follow_openssl() {
        assert_eq!(
            openssl_cipher_name("TLS13_AES_256_GCM_SHA384"),
            "TLS_AES_256_GCM_SHA384"
        );
        assert_eq!(
            openssl_cipher_name("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"),
            "ECDHE-RSA-AES128-GCM-SHA256"
        );
        assert_eq!(
            openssl_cipher_name("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"),
            "ECDHE-ECDSA-CHACHA20-POLY1305"
        );
    }

    #[test]
    fn generates_once_and_loads_with_dates() {
        let dir = tempfile::tempdir().unwrap();
        let a = TlsSetup::load(&TlsOptions::default(), dir.path()).unwrap();
        let cert = std::fs::read(dir.path().join(SERVER_CERT)).unwrap();
        assert!(a.ca_path.is_some());
        assert!(a.not_before.ends_with(" GMT"), "{}", a.not_before);
        let year: i32 = a.not_after[a.not_after.len() - 8..a.not_after.len() - 4]
            .parse()
            .unwrap();
        let year0: i32 = a.not_before[a.not_before.len() - 8..a.not_before.len() - 4]
            .parse()
            .unwrap();
        assert_eq!(year - year0, 10);
        // a second start reuses the files
        let _b = TlsSetup::load(&TlsOptions::default(), dir.path()).unwrap();
        assert_eq!(cert, std::fs::read(dir.path().join(SERVER_CERT)).unwrap());
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join(SERVER_KEY))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "private key readable by others");
    }

    #[test]
    fn bad_files_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let bogus = dir.path().join("x.pem");
        std::fs::write(&bogus, "not a certificate").unwrap();
        let opts = TlsOptions {
            cert: Some(bogus.clone()),
            key: Some(bogus.clone()),
            ca: None,
        };
        let e = TlsSetup::load(&opts, dir.path()).unwrap_err();
        assert!(e.to_string().contains("x.pem"), "{e}");
        let half = TlsOptions {
            cert: Some(bogus),
            ..Default::default()
        };
        assert!(TlsSetup::load(&half, dir.path()).is_err());
    }

    #[test]
    fn handshake_over_a_socket_pair() {
        let dir = tempfile::tempdir().unwrap();
        let setup = TlsSetup::load(&TlsOptions::default(), dir.path()).unwrap();
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        let ca = CertificateDer::from_pem_file(dir.path().join(CA)).unwrap();
        let client = std::thread::spawn(move || {
            let mut roots = RootCertStore::empty();
            roots.add(ca).unwrap();
            let cfg = rustls::ClientConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
            let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
            let conn = rustls::ClientConnection::new(Arc::new(cfg), name).unwrap();
            let mut s = StreamOwned::new(conn, b);
            s.write_all(b"ping").unwrap();
            let mut buf = [0u8; 4];
            s.read_exact(&mut buf).unwrap();
            buf
        });
        let mut s = accept(&setup.config, a).map_err(|(_, e)| e).unwrap();
        let mut buf = [0u8; 4];
        s.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"ping");
        s.write_all(b"pong").unwrap();
        assert_eq!(&client.join().unwrap(), b"pong");
        let info = session(&s);
        assert_eq!(info.version, "TLSv1.3");
        assert!(info.cipher.starts_with("TLS_"), "{}", info.cipher);
        assert!(!info.client_cert_verified);
    }
}
