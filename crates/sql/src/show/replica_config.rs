//! `performance_schema.replication_connection_configuration`: one row per replication channel
//! of a replica: the default channel's configuration once CHANGE REPLICATION SOURCE TO has set
//! it, no row otherwise (as on a MySQL server that is not a replica); Vitess' tablet manager
//! reads it (GetFullStatus) to tell a replica from a primary.

use common::{Collation, DataType, Value};
use storage::catalog::ColumnDef;

/// The table's name (lower case).
pub const TABLE: &str = "replication_connection_configuration";

fn column(name: &str, ty: DataType) -> ColumnDef {
    ColumnDef::plain(name, ty, false)
}

/// Its columns (MySQL 8.4's), for `name` equal (ignoring case) to [`TABLE`].
pub fn columns(name: &str) -> Option<Vec<ColumnDef>> {
    if !name.eq_ignore_ascii_case(TABLE) {
        return None;
    }
    let text = |n: &str| {
        column(
            n,
            DataType::VarChar {
                len: 255,
                collation: Collation::Utf8mb4GeneralCi,
            },
        )
    };
    let int = |n: &str| {
        column(
            n,
            DataType::Int {
                bytes: 4,
                unsigned: true,
                width: None,
                zerofill: false,
            },
        )
    };
    let mut c = vec![
        text("CHANNEL_NAME"),
        text("HOST"),
        int("PORT"),
        text("USER"),
    ];
    c.push(text("NETWORK_INTERFACE"));
    c.push(text("AUTO_POSITION"));
    for n in [
        "SSL_ALLOWED",
        "SSL_CA_FILE",
        "SSL_CA_PATH",
        "SSL_CERTIFICATE",
        "SSL_CIPHER",
        "SSL_KEY",
        "SSL_VERIFY_SERVER_CERTIFICATE",
        "SSL_CRL_FILE",
        "SSL_CRL_PATH",
    ] {
        c.push(text(n));
    }
    c.push(int("CONNECTION_RETRY_INTERVAL"));
    c.push(column(
        "CONNECTION_RETRY_COUNT",
        DataType::Int {
            bytes: 8,
            unsigned: true,
            width: None,
            zerofill: false,
        },
    ));
    c.push(column(
        "HEARTBEAT_INTERVAL",
        DataType::Decimal {
            precision: 11,
            scale: 3,
            unsigned: true,
        },
    ));
    for n in [
        "TLS_VERSION",
        "PUBLIC_KEY_PATH",
        "GET_PUBLIC_KEY",
        "NETWORK_NAMESPACE",
        "COMPRESSION_ALGORITHM",
    ] {
        c.push(text(n));
    }
    c.push(int("ZSTD_COMPRESSION_LEVEL"));
    c.push(text("TLS_CIPHERSUITES"));
    c.push(text("SOURCE_CONNECTION_AUTO_FAILOVER"));
    c.push(text("GTID_ONLY"));
    Some(c)
}

/// Its rows: the default channel's, if `cfg` (the replica's configuration) names a source.
pub fn rows(cfg: Option<replication::replica::SourceConfig>) -> Vec<Vec<Value>> {
    let Some(c) = cfg else {
        return Vec::new();
    };
    let s = |v: &str| Value::Str(v.to_string());
    let yes_no = |b: bool| s(if b { "YES" } else { "NO" });
    let heartbeat = replication::replica::receiver::HEARTBEAT
        .as_secs()
        .to_string()
        + ".000";
    let mut row = vec![
        s(""),
        s(&c.host),
        Value::UInt(u64::from(c.port)),
        s(&c.user),
        s(""),
        s(if c.auto_position { "1" } else { "0" }),
        s("NO"),
    ];
    row.extend(std::iter::repeat_with(|| s("")).take(5)); // SSL_CA_FILE … SSL_KEY
    row.push(s("NO")); // SSL_VERIFY_SERVER_CERTIFICATE
    row.extend([s(""), s("")]); // SSL_CRL_FILE, SSL_CRL_PATH
    row.push(Value::UInt(u64::from(c.connect_retry)));
    row.push(Value::UInt(c.retry_count));
    row.push(
        heartbeat
            .parse::<common::Decimal>()
            .map_or(Value::Null, Value::Decimal),
    );
    row.extend([
        s(""),
        s(""),
        yes_no(c.get_public_key),
        s(""),
        s("uncompressed"),
    ]);
    row.push(Value::UInt(3));
    row.extend([s(""), s("0"), s("0")]);
    vec![row]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configured_channel_fills_every_column() {
        assert!(rows(None).is_empty());
        let cfg = replication::replica::SourceConfig {
            host: "h".into(),
            auto_position: true,
            ..Default::default()
        };
        let r = rows(Some(cfg));
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].len(), columns(TABLE).unwrap().len());
        assert_eq!(r[0][1], Value::Str("h".into()));
        assert_eq!(r[0][5], Value::Str("1".into()));
    }
}
