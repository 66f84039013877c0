//! `performance_schema.replication_connection_configuration`: one row per replication channel
//! of a replica. Strata does not replicate from a source (no CHANGE REPLICATION SOURCE), so it
//! has no channel and the table is empty, as on a MySQL server that is not a replica; Vitess'
//! tablet manager reads it (GetFullStatus) to tell a replica from a primary.

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

/// Its rows: none (no replication channel).
pub fn rows() -> Vec<Vec<Value>> {
    Vec::new()
}
