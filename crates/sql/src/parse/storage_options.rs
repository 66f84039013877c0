//! The storage options of a table: `KEY_BLOCK_SIZE=n` (the data block size of its indexes, in
//! KiB) and `COMPRESSION='codec'` (`none`, `lz4`, `zstd`), checked and stored in
//! [`TableOptions`]. The storage engine keeps each (block size, codec) class apart (see
//! `storage::engine::StorageClass`).
//!
//! May use: nothing else of this crate.

use common::{codes, Error, Result};
use storage::catalog::TableOptions;
use storage::engine::{Codec, StorageClass};

/// MySQL's error for a table option the engine refuses (InnoDB in strict mode):
/// 1031 "Table storage engine for 't' doesn't have this option".
fn refused(table: &str) -> Error {
    Error::new(
        codes::ER_ILLEGAL_HA,
        format!("Table storage engine for '{table}' doesn't have this option"),
    )
}

/// The value of `KEY_BLOCK_SIZE=value` in KiB: 0 (the default) or one of 1, 2, 4, 8, 16 (as
/// MySQL) and 32, 64 (Strata's larger blocks).
///
/// # Errors
/// 1031 for any other value, as InnoDB in strict mode.
pub fn key_block_size(value: &str, table: &str) -> Result<u32> {
    let kb: u32 = value.trim().parse().map_err(|_| refused(table))?;
    let ok = kb == 0 || u8::try_from(kb).is_ok_and(|k| StorageClass::BLOCK_KB.contains(&k));
    if ok {
        Ok(kb)
    } else {
        Err(refused(table))
    }
}

/// The codec of `COMPRESSION='value'`, in lower case: `none`, `lz4` or `zstd` ("" for an
/// empty value: no option).
///
/// # Errors
/// 1031 for other algorithms (MySQL's `zlib` included: Strata's RocksDB has no zlib).
pub fn compression(value: &str, table: &str) -> Result<String> {
    if value.is_empty() {
        return Ok(String::new());
    }
    Codec::from_name(value)
        .map(|c| c.name().to_string())
        .ok_or_else(|| refused(table))
}

/// Applies `key=value` to `opts` when it is a storage option (`KEY_BLOCK_SIZE`,
/// `COMPRESSION`; `key` in upper case); false for other options.
///
/// # Errors
/// 1031 for a value the engine refuses.
pub fn set_table_option(
    opts: &mut TableOptions,
    key: &str,
    value: &str,
    table: &str,
) -> Result<bool> {
    match key {
        "KEY_BLOCK_SIZE" => opts.key_block_size = key_block_size(value, table)?,
        "COMPRESSION" => opts.compression = compression(value, table)?,
        _ => return Ok(false),
    }
    // an old definition may still carry the option among the unchecked ones
    opts.extra.retain(|(k, _)| k != key);
    Ok(true)
}

/// True when `new` stores the table's indexes in another class than `old` (the rows must be
/// rewritten: a copying ALTER).
pub fn class_changed(old: &TableOptions, new: &TableOptions) -> bool {
    old.key_block_size != new.key_block_size || old.compression != new.compression
}

/// The storage options as SHOW CREATE TABLE prints them among the table options:
/// ` KEY_BLOCK_SIZE=8 COMPRESSION='zstd'`.
pub fn show_create(opts: &TableOptions) -> String {
    let mut out = String::new();
    if opts.key_block_size != 0 {
        out.push_str(&format!(" KEY_BLOCK_SIZE={}", opts.key_block_size));
    }
    if !opts.compression.is_empty() {
        out.push_str(&format!(" COMPRESSION='{}'", opts.compression));
    }
    out
}

/// INFORMATION_SCHEMA.TABLES.CREATE_OPTIONS (and SHOW TABLE STATUS's Create_options) as
/// MySQL prints them: `KEY_BLOCK_SIZE=8 COMPRESSION="zstd"`, then `partitioned`.
pub fn create_options(opts: &TableOptions, partitioned: bool) -> String {
    let mut parts = Vec::new();
    if opts.key_block_size != 0 {
        parts.push(format!("KEY_BLOCK_SIZE={}", opts.key_block_size));
    }
    if !opts.compression.is_empty() {
        parts.push(format!("COMPRESSION=\"{}\"", opts.compression));
    }
    if partitioned {
        parts.push("partitioned".to_string());
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked() {
        for ok in ["0", "1", "2", "4", "8", "16", "32", "64"] {
            assert!(key_block_size(ok, "t").is_ok(), "{ok}");
        }
        for bad in ["3", "128", "-1", "x", "1.5"] {
            let e = key_block_size(bad, "t").unwrap_err();
            assert_eq!(e.code.num, 1031, "{bad}");
        }
        assert_eq!(compression("ZSTD", "t").unwrap(), "zstd");
        assert_eq!(compression("", "t").unwrap(), "");
        assert_eq!(compression("zlib", "t").unwrap_err().code.num, 1031);
        let mut o = TableOptions::default();
        o.extra.push(("KEY_BLOCK_SIZE".into(), "8".into()));
        assert!(set_table_option(&mut o, "KEY_BLOCK_SIZE", "8", "t").unwrap());
        assert!(set_table_option(&mut o, "COMPRESSION", "lz4", "t").unwrap());
        assert!(!set_table_option(&mut o, "ROW_FORMAT", "DYNAMIC", "t").unwrap());
        assert!(o.extra.is_empty());
        assert_eq!(show_create(&o), " KEY_BLOCK_SIZE=8 COMPRESSION='lz4'");
        assert_eq!(
            create_options(&o, true),
            "KEY_BLOCK_SIZE=8 COMPRESSION=\"lz4\" partitioned"
        );
        assert!(class_changed(&TableOptions::default(), &o));
    }
}
