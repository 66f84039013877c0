//! How stored routines show: SHOW CREATE PROCEDURE / FUNCTION, SHOW PROCEDURE / FUNCTION
//! STATUS, and INFORMATION_SCHEMA.ROUTINES and PARAMETERS, from the dictionary's
//! definitions (the ones the session may see, chosen by [`crate::show::show`]).

use common::{ColumnMeta, DataType, Value};
use storage::catalog::routine::{RoutineDef, RoutineKind};
use storage::catalog::ColumnDef;

use crate::show::show::str_meta;

fn s(v: impl Into<String>) -> Value {
    Value::Str(v.into())
}

fn opt(v: Option<u64>) -> Value {
    v.map_or(Value::Null, Value::UInt)
}

/// `'user'@'host'` as MySQL prints a definer.
fn definer(d: &RoutineDef) -> String {
    format!("{}@{}", d.definer_user, d.definer_host)
}

/// A function's RETURNS type as MySQL prints it: lower case, with the character set of a
/// string type.
fn returns_text(ty: &str, db_collation: &str) -> String {
    let upper = ty.to_ascii_uppercase();
    let cut = [" CHARACTER SET ", " CHARSET ", " COLLATE "]
        .iter()
        .filter_map(|k| upper.find(k))
        .min()
        .unwrap_or(ty.len());
    let base = ty[..cut].to_lowercase();
    let stringy = [
        "char",
        "varchar",
        "text",
        "tinytext",
        "mediumtext",
        "longtext",
        "enum",
        "set",
    ]
    .iter()
    .any(|k| base.starts_with(k) && !base.starts_with("character"));
    let attrs = ty[cut..].trim();
    if !attrs.is_empty() {
        return format!("{base} {attrs}");
    }
    if stringy {
        let cs = db_collation.split('_').next().unwrap_or("utf8mb4");
        return format!("{base} CHARSET {cs}");
    }
    base
}

/// The text of SHOW CREATE PROCEDURE / FUNCTION.
pub fn create_text(d: &RoutineDef) -> String {
    let mut t = format!(
        "CREATE DEFINER=`{}`@`{}` {} `{}`({})",
        d.definer_user.replace('`', "``"),
        d.definer_host.replace('`', "``"),
        d.kind.name(),
        d.name.replace('`', "``"),
        d.param_list
    );
    if let Some(r) = &d.returns {
        t.push_str(" RETURNS ");
        t.push_str(&returns_text(r, &d.db_collation));
    }
    t.push('\n');
    if d.data_access != "CONTAINS SQL" {
        t.push_str(&format!("    {}\n", d.data_access));
    }
    if d.deterministic {
        t.push_str("    DETERMINISTIC\n");
    }
    if d.security == "INVOKER" {
        t.push_str("    SQL SECURITY INVOKER\n");
    }
    if !d.comment.is_empty() {
        t.push_str(&format!(
            "    COMMENT '{}'\n",
            d.comment.replace('\'', "''")
        ));
    }
    t.push_str(&d.body);
    t
}

/// The result of SHOW CREATE PROCEDURE / FUNCTION for `d`: columns and its one row.
pub fn show_create(d: &RoutineDef) -> (Vec<ColumnMeta>, Vec<Vec<Value>>) {
    let title = if d.kind == RoutineKind::Procedure {
        "Procedure"
    } else {
        "Function"
    };
    let columns = vec![
        str_meta(title, 64),
        str_meta("sql_mode", 1024),
        str_meta(&format!("Create {title}"), 65535),
        str_meta("character_set_client", 32),
        str_meta("collation_connection", 32),
        str_meta("Database Collation", 32),
    ];
    let row = vec![
        s(d.name.clone()),
        s(d.sql_mode.clone()),
        s(create_text(d)),
        s(d.charset_client.clone()),
        s(d.collation_connection.clone()),
        s(d.db_collation.clone()),
    ];
    (columns, vec![row])
}

/// The columns of SHOW PROCEDURE / FUNCTION STATUS.
pub fn status_columns() -> Vec<ColumnMeta> {
    [
        "Db",
        "Name",
        "Type",
        "Definer",
        "Modified",
        "Created",
        "Security_type",
        "Comment",
        "character_set_client",
        "collation_connection",
        "Database Collation",
    ]
    .iter()
    .map(|n| str_meta(n, 64))
    .collect()
}

/// The rows of SHOW PROCEDURE / FUNCTION STATUS for `defs` (in their order).
pub fn status_rows(defs: &[RoutineDef]) -> Vec<Vec<Value>> {
    defs.iter()
        .map(|d| {
            vec![
                s(d.db.clone()),
                s(d.name.clone()),
                s(d.kind.name()),
                s(definer(&d)),
                s(d.modified.clone()),
                s(d.created.clone()),
                s(d.security.clone()),
                s(d.comment.clone()),
                s(d.charset_client.clone()),
                s(d.collation_connection.clone()),
                s(d.db_collation.clone()),
            ]
        })
        .collect()
}

fn column(name: &str, ty: DataType) -> ColumnDef {
    ColumnDef::plain(name, ty, true)
}

fn vc(name: &str, len: u32) -> ColumnDef {
    column(
        name,
        DataType::VarChar {
            len,
            collation: common::Collation::Utf8mb4GeneralCi,
        },
    )
}

fn ui(name: &str) -> ColumnDef {
    column(
        name,
        DataType::Int {
            bytes: 8,
            unsigned: true,
            width: None,
            zerofill: false,
        },
    )
}

fn long_text(name: &str) -> ColumnDef {
    column(
        name,
        DataType::Text {
            size: common::types::LobSize::Long,
            collation: common::Collation::Utf8mb4GeneralCi,
        },
    )
}

/// The type columns both tables share: DATA_TYPE … COLLATION_NAME, DTD_IDENTIFIER.
fn type_columns() -> Vec<ColumnDef> {
    vec![
        long_text("DATA_TYPE"),
        ui("CHARACTER_MAXIMUM_LENGTH"),
        ui("CHARACTER_OCTET_LENGTH"),
        ui("NUMERIC_PRECISION"),
        ui("NUMERIC_SCALE"),
        ui("DATETIME_PRECISION"),
        vc("CHARACTER_SET_NAME", 64),
        vc("COLLATION_NAME", 64),
        long_text("DTD_IDENTIFIER"),
    ]
}

/// The columns of ROUTINES and PARAMETERS (upper-case name).
pub fn is_columns(table: &str) -> Option<Vec<ColumnDef>> {
    Some(match table {
        "ROUTINES" => {
            let mut v = vec![
                vc("SPECIFIC_NAME", 64),
                vc("ROUTINE_CATALOG", 64),
                vc("ROUTINE_SCHEMA", 64),
                vc("ROUTINE_NAME", 64),
                vc("ROUTINE_TYPE", 9),
            ];
            v.extend(type_columns());
            for (n, len) in [("ROUTINE_BODY", 8)] {
                v.push(vc(n, len));
            }
            v.push(long_text("ROUTINE_DEFINITION"));
            v.push(vc("EXTERNAL_NAME", 64));
            v.push(vc("EXTERNAL_LANGUAGE", 64));
            v.push(vc("PARAMETER_STYLE", 3));
            v.push(vc("IS_DETERMINISTIC", 3));
            v.push(vc("SQL_DATA_ACCESS", 17));
            v.push(vc("SQL_PATH", 64));
            v.push(vc("SECURITY_TYPE", 7));
            v.push(column("CREATED", DataType::Timestamp { fsp: 0 }));
            v.push(column("LAST_ALTERED", DataType::Timestamp { fsp: 0 }));
            v.push(vc("SQL_MODE", 520));
            v.push(long_text("ROUTINE_COMMENT"));
            v.push(vc("DEFINER", 288));
            v.push(vc("CHARACTER_SET_CLIENT", 64));
            v.push(vc("COLLATION_CONNECTION", 64));
            v.push(vc("DATABASE_COLLATION", 64));
            v
        }
        "PARAMETERS" => {
            let mut v = vec![
                vc("SPECIFIC_CATALOG", 64),
                vc("SPECIFIC_SCHEMA", 64),
                vc("SPECIFIC_NAME", 64),
                ui("ORDINAL_POSITION"),
                vc("PARAMETER_MODE", 5),
                vc("PARAMETER_NAME", 64),
            ];
            v.extend(type_columns());
            v.push(vc("ROUTINE_TYPE", 9));
            v
        }
        _ => return None,
    })
}

/// DATA_TYPE … DTD_IDENTIFIER of a declared type.
fn type_values(text: &str) -> Vec<Value> {
    let Ok(ty) = crate::ddl::routine::resolve_type(text, "") else {
        let mut v = vec![s(text.to_lowercase())];
        v.extend(std::iter::repeat_n(Value::Null, 7));
        v.push(s(text.to_lowercase()));
        return v;
    };
    let dtd = crate::show::show::type_text(&ty);
    let data_type: String = dtd
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    let (cl, ol) = match &ty {
        DataType::Char { len, collation } | DataType::VarChar { len, collation } => (
            Some(u64::from(*len)),
            Some(u64::from(*len) * collation.max_len() as u64),
        ),
        DataType::Binary { len } | DataType::VarBinary { len } => {
            (Some(u64::from(*len)), Some(u64::from(*len)))
        }
        DataType::Text { size, .. } => (Some(size.max_bytes()), Some(size.max_bytes())),
        DataType::Blob { size } => (Some(size.max_bytes()), Some(size.max_bytes())),
        _ => (None, None),
    };
    let (np, ns) = match &ty {
        DataType::Int {
            bytes, unsigned, ..
        } => (
            Some(match (bytes, unsigned) {
                (1, _) => 3,
                (2, _) => 5,
                (3, _) => 7,
                (4, _) => 10,
                (_, false) => 19,
                _ => 20,
            }),
            Some(0),
        ),
        DataType::Decimal {
            precision, scale, ..
        } => (Some(u64::from(*precision)), Some(u64::from(*scale))),
        DataType::Float { .. } => (Some(12), None),
        DataType::Double { .. } => (Some(22), None),
        _ => (None, None),
    };
    let dp = match &ty {
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } | DataType::Time { fsp } => {
            Some(u64::from(*fsp))
        }
        _ => None,
    };
    let is_str = ty.is_text() || matches!(ty, DataType::Enum { .. } | DataType::Set { .. });
    let (cs, coll) = if is_str {
        (s(ty.collation().charset()), s(ty.collation().name()))
    } else {
        (Value::Null, Value::Null)
    };
    vec![
        s(data_type),
        opt(cl),
        opt(ol),
        opt(np),
        opt(ns),
        opt(dp),
        cs,
        coll,
        s(dtd),
    ]
}

/// The rows of INFORMATION_SCHEMA.ROUTINES or PARAMETERS for `defs`.
pub fn rows(defs: &[RoutineDef], table: &str) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    for d in defs {
        if table == "ROUTINES" {
            let mut r = vec![
                s(d.name.clone()),
                s("def"),
                s(d.db.clone()),
                s(d.name.clone()),
                s(d.kind.name()),
            ];
            match &d.returns {
                Some(t) => r.extend(type_values(t)),
                None => {
                    r.push(s(""));
                    r.extend(std::iter::repeat_n(Value::Null, 8));
                }
            }
            r.extend([
                s("SQL"),
                s(d.body.clone()),
                Value::Null,
                s("SQL"),
                s("SQL"),
                s(if d.deterministic { "YES" } else { "NO" }),
                s(d.data_access.clone()),
                Value::Null,
                s(d.security.clone()),
                s(d.created.clone()),
                s(d.modified.clone()),
                s(d.sql_mode.clone()),
                s(d.comment.clone()),
                s(definer(&d)),
                s(d.charset_client.clone()),
                s(d.collation_connection.clone()),
                s(d.db_collation.clone()),
            ]);
            out.push(r);
            continue;
        }
        if let Some(t) = &d.returns {
            let mut r = vec![s("def"), s(d.db.clone()), s(d.name.clone()), Value::UInt(0)];
            r.extend([Value::Null, Value::Null]);
            r.extend(type_values(t));
            r.push(s(d.kind.name()));
            out.push(r);
        }
        for (k, p) in d.params.iter().enumerate() {
            let mut r = vec![
                s("def"),
                s(d.db.clone()),
                s(d.name.clone()),
                Value::UInt(k as u64 + 1),
                s(p.mode.clone()),
                s(p.name.clone()),
            ];
            r.extend(type_values(&p.ty));
            r.push(s(d.kind.name()));
            out.push(r);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_types_print_as_mysql_does() {
        assert_eq!(
            returns_text("BINARY(16)", "utf8mb4_0900_ai_ci"),
            "binary(16)"
        );
        assert_eq!(
            returns_text("VARCHAR(10)", "utf8mb4_0900_ai_ci"),
            "varchar(10) CHARSET utf8mb4"
        );
        assert_eq!(returns_text("INT", "latin1_swedish_ci"), "int");
    }
}
