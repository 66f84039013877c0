//! INFORMATION_SCHEMA.INNODB_TABLES and INNODB_TABLESPACES: InnoDB's view of the tables, as
//! MySQL 8.4 fills them with one file-per-table tablespace per table. Strata keeps every table
//! in one RocksDB, so each base table shows as its own tablespace numbered by its table id,
//! with the size estimated from its key ranges (DATA_LENGTH + INDEX_LENGTH of
//! INFORMATION_SCHEMA.TABLES). Vitess' schema reload joins the two on SPACE and matches names
//! `db/table` (InnoDB's file-name encoding in INNODB_TABLES).

use common::{Collation, DataType, Result, Value};
use storage::catalog::{ColumnDef, TableDef};

fn column(name: &str, ty: DataType) -> ColumnDef {
    ColumnDef::plain(name, ty, false)
}

fn varchar(name: &str, len: u32) -> ColumnDef {
    column(
        name,
        DataType::VarChar {
            len,
            collation: Collation::Utf8mb4GeneralCi,
        },
    )
}

fn int(name: &str, bytes: u8, unsigned: bool) -> ColumnDef {
    column(
        name,
        DataType::Int {
            bytes,
            unsigned,
            width: None,
            zerofill: false,
        },
    )
}

/// The columns of the INFORMATION_SCHEMA tables this module fills (upper-case name).
pub fn is_columns(table: &str) -> Option<Vec<ColumnDef>> {
    Some(match table {
        "INNODB_TABLES" => vec![
            int("TABLE_ID", 8, true),
            varchar("NAME", 655),
            int("FLAG", 4, false),
            int("N_COLS", 4, false),
            int("SPACE", 8, true),
            varchar("ROW_FORMAT", 12),
            int("ZIP_PAGE_SIZE", 4, true),
            varchar("SPACE_TYPE", 10),
            int("INSTANT_COLS", 4, false),
            int("TOTAL_ROW_VERSIONS", 4, false),
        ],
        "INNODB_TABLESPACES" => vec![
            int("SPACE", 4, true),
            varchar("NAME", 655),
            int("FLAG", 4, true),
            varchar("ROW_FORMAT", 22),
            int("PAGE_SIZE", 4, true),
            int("ZIP_PAGE_SIZE", 4, true),
            varchar("SPACE_TYPE", 10),
            int("FS_BLOCK_SIZE", 4, true),
            int("FILE_SIZE", 8, true),
            int("ALLOCATED_SIZE", 8, true),
            int("AUTOEXTEND_SIZE", 8, true),
            varchar("SERVER_VERSION", 10),
            int("SPACE_VERSION", 4, true),
            varchar("ENCRYPTION", 1),
            varchar("STATE", 10),
        ],
        _ => return None,
    })
}

/// InnoDB's file-name encoding of an identifier (`my-db` → `my@002ddb`): ASCII letters, digits
/// and `_` stay, every other character becomes `@` and its code point in four hex digits.
pub fn filename_encode(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' {
            out.push(ch);
        } else {
            out.push_str(&format!("@{:04x}", ch as u32));
        }
    }
    out
}

/// InnoDB's row-format flag bits of a DYNAMIC table (what MySQL 8.4 reports for one).
const DYNAMIC_TABLE_FLAG: i64 = 33;
/// Tablespace flags of a file-per-table DYNAMIC tablespace with 16 KiB pages.
const DYNAMIC_SPACE_FLAG: u64 = 16417;
/// InnoDB's page size (`innodb_page_size`).
const PAGE_SIZE: u64 = 16384;
/// Hidden columns InnoDB adds to every table (row id, transaction id, roll pointer).
const HIDDEN_COLS: i64 = 3;

/// The rows of `table` ("INNODB_TABLES" or "INNODB_TABLESPACES") over the base tables the
/// session sees; `size` gives a table's (data, index) bytes, `version` is the server version.
///
/// # Errors
/// What `size` returns.
pub fn rows(
    table: &str,
    tables: &[std::sync::Arc<TableDef>],
    version: &str,
    mut size: impl FnMut(&TableDef) -> Result<(u64, u64)>,
) -> Result<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    for t in tables
        .iter()
        .filter(|t| t.options.view.is_none() && !t.temporary)
    {
        let s = |v: &str| Value::Str(v.to_string());
        if table == "INNODB_TABLES" {
            let name = format!("{}/{}", filename_encode(&t.db), filename_encode(&t.name));
            out.push(vec![
                Value::UInt(t.id),
                Value::Str(name),
                Value::Int(DYNAMIC_TABLE_FLAG),
                Value::Int(t.columns.len() as i64 + HIDDEN_COLS),
                Value::UInt(t.id),
                s("Dynamic"),
                Value::UInt(0),
                s("Single"),
                Value::Int(0),
                Value::Int(0),
            ]);
        } else {
            let (data, index) = size(t)?;
            let bytes = data + index;
            out.push(vec![
                Value::UInt(t.id),
                Value::Str(format!("{}/{}", t.db, t.name)),
                Value::UInt(DYNAMIC_SPACE_FLAG),
                s("Dynamic"),
                Value::UInt(PAGE_SIZE),
                Value::UInt(0),
                s("Single"),
                Value::UInt(4096),
                Value::UInt(bytes),
                Value::UInt(bytes),
                Value::UInt(0),
                s(version),
                Value::UInt(1),
                s("N"),
                s("normal"),
            ]);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_names_as_innodb_does() {
        assert_eq!(filename_encode("my-db"), "my@002ddb");
        assert_eq!(filename_encode("t_1"), "t_1");
        assert_eq!(filename_encode("a b"), "a@0020b");
    }
}
