//! The tables that list loadable functions (`CREATE FUNCTION … SONAME`): `mysql.func` and
//! `performance_schema.user_defined_functions`. Strata loads no shared-library functions, so
//! both are empty; tools read them (Vitess' schema tracker joins the two).

use common::{Collation, DataType, Value};
use storage::catalog::ColumnDef;

fn column(name: &str, ty: DataType, nullable: bool) -> ColumnDef {
    ColumnDef::plain(name, ty, nullable)
}

fn varchar(name: &str, len: u32, nullable: bool) -> ColumnDef {
    column(
        name,
        DataType::VarChar {
            len,
            collation: Collation::Utf8mb4GeneralCi,
        },
        nullable,
    )
}

/// The columns of `mysql.func` (`mysql_table` true, lower-case name "func") or of
/// `performance_schema.user_defined_functions`; None for other names.
pub fn columns(mysql_table: bool, name: &str) -> Option<Vec<ColumnDef>> {
    let int = |n: &str, bytes: u8| {
        column(
            n,
            DataType::Int {
                bytes,
                unsigned: false,
                width: None,
                zerofill: false,
            },
            false,
        )
    };
    if mysql_table && name.eq_ignore_ascii_case("func") {
        Some(vec![
            varchar("name", 64, false),
            int("ret", 1),
            varchar("dl", 128, false),
            varchar("type", 9, false),
        ])
    } else if !mysql_table && name.eq_ignore_ascii_case("user_defined_functions") {
        Some(vec![
            varchar("UDF_NAME", 64, false),
            varchar("UDF_RETURN_TYPE", 20, false),
            varchar("UDF_TYPE", 20, false),
            varchar("UDF_LIBRARY", 1024, true),
            int("UDF_USAGE_COUNT", 8),
        ])
    } else {
        None
    }
}

/// The rows of either table: none, as no function is loaded.
pub fn rows() -> Vec<Vec<Value>> {
    Vec::new()
}
