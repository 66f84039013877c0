//! DDL: translating CREATE TABLE into a catalog definition (MySQL column types, defaults,
//! keys, table options) and running CREATE/DROP DATABASE, CREATE/DROP TABLE, CREATE/DROP INDEX
//! and TRUNCATE through the storage catalog. ALTER TABLE and RENAME TABLE live in
//! [`crate::alter`], which shares the column and key mapping here ([`column_spec`],
//! [`map_type`], [`index_column`]).

use crate::ddl::functional::{index_base_name, key_part};
use crate::runtime::mdl::MdlMode;
use common::types::LobSize;
use common::{codes, Collation, DataType, Error, Result, Value};
use sqlparser::ast::{self, ColumnOption, Statement, TableConstraint};
use storage::catalog::{
    ColumnDef, ForeignKeyDef, IndexColumn, IndexDef, IndexKind, TableDef, TableOptions,
};
use storage::engine::KvEngine;

use crate::session::session::Output;
use crate::session::session::Session;

/// Maximum identifier length.
const MAX_IDENT: usize = 64;

pub(crate) use crate::parse::obj_parts;

/// Splits `[db.]name` using the session's current database.
pub fn qualify<E: KvEngine>(s: &Session<E>, n: &ast::ObjectName) -> Result<(String, String)> {
    crate::parse::qualify_in(s.db.as_deref(), n)
}

/// 1166 `Incorrect column name` for an empty name or one ending with a space; 1059 if too long.
/// Qualifies every name of a list with the current database.
pub(crate) fn qualify_all<E: KvEngine>(
    s: &Session<E>,
    names: &[ast::ObjectName],
) -> Result<Vec<(String, String)>> {
    names.iter().map(|n| qualify(s, n)).collect()
}

pub(crate) fn check_column_name(name: &str) -> Result<()> {
    check_ident(name, "column").map_err(|e| {
        if e.code == codes::ER_TOO_LONG_IDENT {
            e
        } else {
            Error::new(
                codes::ER_WRONG_COLUMN_NAME,
                format!("Incorrect column name '{name}'"),
            )
        }
    })
}

/// Checks a database/table name: 1102/1103 empty or ending with a space, 1059 too long.
pub(crate) fn check_ident(name: &str, what: &str) -> Result<()> {
    if name.is_empty() || name.ends_with(' ') {
        let code = if what == "database" {
            codes::ER_WRONG_DB_NAME
        } else {
            codes::ER_WRONG_TABLE_NAME
        };
        return Err(Error::new(code, format!("Incorrect {what} name '{name}'")));
    }
    if name.chars().count() > MAX_IDENT {
        return Err(Error::new(
            codes::ER_TOO_LONG_IDENT,
            format!("Identifier name '{name}' is too long"),
        ));
    }
    Ok(())
}

/// Runs a DDL statement.
pub fn execute<E: KvEngine>(s: &mut Session<E>, stmt: &Statement) -> Result<Output> {
    match stmt {
        Statement::CreateDatabase {
            db_name,
            if_not_exists,
            default_collation,
            default_charset,
            ..
        } => {
            let name = obj_parts(db_name).join(".");
            let coll = collation_of(default_charset.as_deref(), default_collation.as_deref())?;
            create_database(s, &name, *if_not_exists, coll.unwrap_or_default())
        }
        Statement::CreateSchema {
            schema_name,
            if_not_exists,
            ..
        } => {
            let name = schema_name.to_string().trim_matches('`').to_string();
            create_database(s, &name, *if_not_exists, Collation::default())
        }
        Statement::CreateTable(ct) => create_table(s, ct),
        Statement::CreateIndex(ci) => {
            let kind = if ci.unique {
                IndexKind::Unique
            } else {
                IndexKind::Normal
            };
            let ix = crate::parse::alter::IndexSpec {
                name: ci
                    .name
                    .as_ref()
                    .map(|n| n.to_string().trim_matches('`').to_string()),
                kind,
                columns: ci.columns.iter().map(|c| c.column.clone()).collect(),
                comment: String::new(),
            };
            crate::ddl::alter::execute(
                s,
                &crate::parse::alter::AlterStmt {
                    table: ci.table_name.clone(),
                    ops: vec![crate::parse::alter::AlterOp::AddIndex(ix)],
                },
            )
        }
        Statement::Drop {
            object_type,
            if_exists,
            names,
            table,
            temporary,
            ..
        } => match object_type {
            ast::ObjectType::View => crate::ddl::view::drop(s, names, *if_exists),
            ast::ObjectType::Table => drop_tables(s, names, *if_exists, *temporary),
            ast::ObjectType::Database | ast::ObjectType::Schema => {
                let name = obj_parts(&names[0]).join(".");
                if crate::runtime::schemas::is_system_db(&name) {
                    return Err(Error::new(
                        codes::ER_DBACCESS_DENIED_ERROR,
                        format!(
                            "Access denied for user '{}'@'{}' to database '{name}'",
                            s.user, s.host
                        ),
                    ));
                }
                if s.storage().get_database(&name)?.is_none() {
                    let e = Error::new(
                        codes::ER_DB_DROP_EXISTS,
                        format!("Can't drop database '{name}'; database doesn't exist"),
                    );
                    return note_if(s, *if_exists, e, 0);
                }
                let tables: Vec<(String, String)> = s
                    .storage()
                    .list_tables(&name)?
                    .into_iter()
                    .map(|t| (name.clone(), t))
                    .collect();
                s.mdl_lock_all(&tables, MdlMode::Exclusive)?;
                let n = tables.len();
                s.storage().drop_database(&name)?;
                if s.db.as_deref() == Some(name.as_str()) {
                    s.db = None;
                }
                Ok(Output::ok(n as u64))
            }
            ast::ObjectType::Index => {
                let tbl = table.as_ref().ok_or_else(|| Error::parse("DROP INDEX"))?;
                let iname = obj_parts(&names[0]).pop().unwrap_or_default();
                crate::ddl::alter::execute(
                    s,
                    &crate::parse::alter::AlterStmt {
                        table: tbl.clone(),
                        ops: vec![crate::parse::alter::AlterOp::DropIndex(iname)],
                    },
                )
            }
            other => Err(Error::not_supported(format!("DROP {other}"))),
        },
        Statement::Truncate(tr) => {
            for t in &tr.table_names {
                let (db, name) = qualify(s, &t.name)?;
                // performance_schema's statement tables: TRUNCATE resets them, as MySQL
                if db.eq_ignore_ascii_case("performance_schema") {
                    s.inst
                        .globals
                        .perf()
                        .truncate(&name)
                        .ok_or_else(|| Error::no_such_table(&db, &name))?;
                    continue;
                }
                // (a TEMPORARY table of the session first)
                let name = s.table_key(&db, &name).to_string();
                s.mdl_lock(&db, &name, MdlMode::Exclusive)?;
                if s.storage().get_table(&db, &name)?.is_none() {
                    return Err(Error::no_such_table(&db, &name));
                }
                crate::ddl::foreign_key::check_truncate(s, &db, &name)?;
                s.storage().truncate_table(&db, &name)?;
            }
            Ok(Output::ok(0))
        }
        Statement::RenameTable(list) => crate::ddl::alter::rename_tables(s, list),
        Statement::AlterTable(at) => crate::ddl::alter::execute_ast(s, at),
        other => Err(Error::not_supported(other.to_string())),
    }
}

/// `IF [NOT] EXISTS` semantics: with the clause the error becomes a Note and the statement
/// succeeds with `affected` rows; without it the error is returned.
fn note_if<E: KvEngine>(
    s: &mut Session<E>,
    clause: bool,
    e: Error,
    affected: u64,
) -> Result<Output> {
    if !clause {
        return Err(e);
    }
    s.warnings.push(common::Warning::note(e.code, e.msg));
    Ok(Output::ok(affected))
}

/// CREATE DATABASE / CREATE SCHEMA.
fn create_database<E: KvEngine>(
    s: &mut Session<E>,
    name: &str,
    if_not_exists: bool,
    collation: Collation,
) -> Result<Output> {
    check_ident(name, "database")?;
    if crate::runtime::schemas::is_system_db(name) || s.storage().get_database(name)?.is_some() {
        let e = Error::new(
            codes::ER_DB_CREATE_EXISTS,
            format!("Can't create database '{name}'; database exists"),
        );
        return note_if(s, if_not_exists, e, 1);
    }
    s.storage().create_database(storage::catalog::DatabaseDef {
        name: name.to_string(),
        collation,
    })?;
    Ok(Output::ok(1))
}

pub(crate) fn check_index_cols(columns: &[ColumnDef], cols: &[IndexColumn]) -> Result<()> {
    for ic in cols {
        let c = &columns[ic.col];
        if c.ty.is_lob() && ic.prefix_len.is_none() {
            return Err(Error::new(
                codes::ER_BLOB_KEY_WITHOUT_LENGTH,
                format!(
                    "BLOB/TEXT column '{}' used in key specification without a key length",
                    c.name
                ),
            ));
        }
    }
    Ok(())
}

/// Parses an index column: `col`, `col(10)`, `col DESC`.
pub(crate) fn index_column(columns: &[ColumnDef], c: &ast::OrderByExpr) -> Result<IndexColumn> {
    let desc = matches!(c.options.sort, Some(ast::OrderBySort::Desc));
    let (name, prefix) = match &c.expr {
        ast::Expr::Identifier(id) => (id.value.clone(), None),
        ast::Expr::Function(f) => {
            let n = f.name.to_string().trim_matches('`').to_string();
            let len = match &f.args {
                ast::FunctionArguments::List(l) => l.args.first().map(|a| a.to_string()),
                _ => None,
            };
            (n, len.and_then(|l| l.parse::<u32>().ok()))
        }
        other => return Err(Error::not_supported(format!("functional index on {other}"))),
    };
    let col = columns
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case(&name))
        .ok_or_else(|| {
            Error::new(
                codes::ER_KEY_COLUMN_DOES_NOT_EXITS,
                format!("Key column '{name}' doesn't exist in table"),
            )
        })?;
    Ok(IndexColumn {
        col,
        prefix_len: prefix,
        desc,
    })
}

/// Resolves CHARACTER SET / COLLATE names to a collation.
pub fn collation_of(charset: Option<&str>, collation: Option<&str>) -> Result<Option<Collation>> {
    if let Some(c) = collation {
        let c = c.trim_matches(|ch| ch == '\'' || ch == '"' || ch == '`');
        return Collation::from_name(c).map(Some).ok_or_else(|| {
            Error::new(
                codes::ER_UNKNOWN_COLLATION,
                format!("Unknown collation: '{c}'"),
            )
        });
    }
    if let Some(cs) = charset {
        let cs = cs.trim_matches(|ch| ch == '\'' || ch == '"' || ch == '`');
        return Collation::default_for_charset(cs).map(Some).ok_or_else(|| {
            Error::new(
                codes::ER_UNKNOWN_CHARACTER_SET,
                format!("Unknown character set: '{cs}'"),
            )
        });
    }
    Ok(None)
}

fn num_args(s: &str) -> Vec<u32> {
    match (s.find('('), s.rfind(')')) {
        (Some(a), Some(b)) if a < b => s[a + 1..b]
            .split(',')
            .filter_map(|x| x.trim().parse().ok())
            .collect(),
        _ => vec![],
    }
}

/// Maps a sqlparser column type to a Strata [`DataType`].
pub fn map_type(dt: &ast::DataType, coll: Collation, col: &str) -> Result<DataType> {
    let text = dt.to_string().to_ascii_uppercase();
    let unsigned = text.contains("UNSIGNED");
    let zerofill = text.contains("ZEROFILL");
    let base: String = text
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let args = num_args(&text);
    let width = args.first().map(|w| *w as u8);
    let int = |bytes| DataType::Int {
        bytes,
        unsigned,
        width,
        zerofill,
    };
    let len_or = |d: u32| args.first().copied().unwrap_or(d);
    Ok(match base.as_str() {
        "TINYINT" | "INT1" => int(1),
        "BOOL" | "BOOLEAN" => DataType::Int {
            bytes: 1,
            unsigned: false,
            width: Some(1),
            zerofill: false,
        },
        "SMALLINT" | "INT2" => int(2),
        "MEDIUMINT" | "INT3" => int(3),
        "INT" | "INTEGER" | "INT4" => int(4),
        "BIGINT" | "INT8" => int(8),
        "SERIAL" => DataType::Int {
            bytes: 8,
            unsigned: true,
            width: None,
            zerofill: false,
        },
        "DECIMAL" | "NUMERIC" | "DEC" | "FIXED" => {
            let p = args.first().copied().unwrap_or(10);
            let sc = args.get(1).copied().unwrap_or(0);
            if p > 65 {
                return Err(Error::new(
                    codes::ER_TOO_BIG_PRECISION,
                    format!("Too-big precision {p} specified for '{col}'. Maximum is 65."),
                ));
            }
            if sc > 30 {
                return Err(Error::new(
                    codes::ER_TOO_BIG_SCALE,
                    format!("Too big scale {sc} specified for column '{col}'. Maximum is 30."),
                ));
            }
            if sc > p {
                return Err(Error::new(codes::ER_M_BIGGER_THAN_D, format!("For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '{col}').")));
            }
            DataType::Decimal {
                precision: p as u8,
                scale: sc as u8,
                unsigned,
            }
        }
        "FLOAT" => match args.as_slice() {
            [p] if *p > 24 => DataType::Double { md: None, unsigned },
            [m, d] => DataType::Float {
                md: Some((*m as u8, *d as u8)),
                unsigned,
            },
            _ => DataType::Float { md: None, unsigned },
        },
        "DOUBLE" | "REAL" | "FLOAT8" => match args.as_slice() {
            [m, d] => DataType::Double {
                md: Some((*m as u8, *d as u8)),
                unsigned,
            },
            _ => DataType::Double { md: None, unsigned },
        },
        "FLOAT4" => DataType::Float { md: None, unsigned },
        "CHAR" | "CHARACTER" | "NCHAR" => {
            let l = len_or(1);
            if l > 255 {
                return Err(Error::new(codes::ER_TOO_BIG_FIELDLENGTH, format!("Column length too big for column '{col}' (max = 255); use BLOB or TEXT instead")));
            }
            if coll == Collation::Binary {
                DataType::Binary { len: l }
            } else {
                DataType::Char {
                    len: l,
                    collation: coll,
                }
            }
        }
        "VARCHAR" | "NVARCHAR" | "CHARACTER VARYING" => {
            let l = args.first().copied().ok_or_else(|| Error::parse(&text))?;
            if l > 65535 {
                return Err(Error::new(codes::ER_TOO_BIG_FIELDLENGTH, format!("Column length too big for column '{col}' (max = 16383); use BLOB or TEXT instead")));
            }
            if coll == Collation::Binary {
                DataType::VarBinary { len: l }
            } else {
                DataType::VarChar {
                    len: l,
                    collation: coll,
                }
            }
        }
        "TINYTEXT" => DataType::Text {
            size: LobSize::Tiny,
            collation: coll,
        },
        "TEXT" => DataType::Text {
            size: LobSize::Normal,
            collation: coll,
        },
        "MEDIUMTEXT" | "LONG" => DataType::Text {
            size: LobSize::Medium,
            collation: coll,
        },
        "LONGTEXT" => DataType::Text {
            size: LobSize::Long,
            collation: coll,
        },
        "BINARY" => DataType::Binary { len: len_or(1) },
        "VARBINARY" => DataType::VarBinary {
            len: args.first().copied().ok_or_else(|| Error::parse(&text))?,
        },
        "TINYBLOB" => DataType::Blob {
            size: LobSize::Tiny,
        },
        "BLOB" | "BYTEA" => DataType::Blob {
            size: LobSize::Normal,
        },
        "MEDIUMBLOB" => DataType::Blob {
            size: LobSize::Medium,
        },
        "LONGBLOB" => DataType::Blob {
            size: LobSize::Long,
        },
        "DATE" => DataType::Date,
        "TIME" => DataType::Time {
            fsp: fsp(&args, col)?,
        },
        "DATETIME" => DataType::DateTime {
            fsp: fsp(&args, col)?,
        },
        "TIMESTAMP" => DataType::Timestamp {
            fsp: fsp(&args, col)?,
        },
        "YEAR" => DataType::Year,
        "BIT" => DataType::Bit {
            len: len_or(1).clamp(1, 64) as u8,
        },
        "JSON" => DataType::Json,
        "ENUM" | "SET" => {
            let values: Vec<String> = match dt {
                ast::DataType::Enum(members, _) => members
                    .iter()
                    .map(|m| match m {
                        ast::EnumMember::Name(n) => n.clone(),
                        ast::EnumMember::NamedValue(n, _) => n.clone(),
                    })
                    .collect(),
                ast::DataType::Set(v) => v.clone(),
                _ => return Err(Error::parse(&text)),
            };
            let mut seen: Vec<String> = Vec::new();
            for v in &values {
                if seen.iter().any(|x| common::collation::eq(coll, x, v)) {
                    return Err(Error::new(
                        codes::ER_DUPLICATED_VALUE_IN_TYPE,
                        format!("Column '{col}' has duplicated value '{v}' in {base}"),
                    ));
                }
                seen.push(v.clone());
            }
            if base == "ENUM" {
                DataType::Enum {
                    values,
                    collation: coll,
                }
            } else {
                DataType::Set {
                    values,
                    collation: coll,
                }
            }
        }
        _ => return Err(Error::parse(text.to_string())),
    })
}

fn fsp(args: &[u32], col: &str) -> Result<u8> {
    let f = args.first().copied().unwrap_or(0);
    if f > 6 {
        return Err(Error::new(
            codes::ER_TOO_BIG_PRECISION,
            format!("Too-big precision {f} specified for '{col}'. Maximum is 6."),
        ));
    }
    Ok(f as u8)
}

/// DROP [TEMPORARY] TABLE: each name is the session's TEMPORARY table of that name if it has
/// one, else (without TEMPORARY) the base table; all must exist (1051) unless IF EXISTS.
fn drop_tables<E: KvEngine>(
    s: &mut Session<E>,
    names: &[ast::ObjectName],
    if_exists: bool,
    temporary: bool,
) -> Result<Output> {
    let mut missing = Vec::new();
    let mut temps = Vec::new();
    let mut bases = Vec::new();
    for (db, t) in qualify_all(s, names)? {
        if s.temp.lookup(&db, &t).is_some() {
            temps.push((db, t));
        } else if temporary {
            missing.push(format!("{db}.{t}"));
        } else {
            bases.push((db, t));
        }
    }
    s.mdl_lock_all(&bases, MdlMode::Exclusive)?;
    let mut targets = Vec::new();
    for (db, t) in bases {
        if s.storage()
            .get_table(&db, &t)?
            .is_some_and(|d| d.options.view.is_none())
        {
            targets.push((db, t));
        } else {
            missing.push(format!("{db}.{t}"));
        }
    }
    if !missing.is_empty() && !if_exists {
        return Err(Error::new(
            codes::ER_BAD_TABLE_ERROR,
            format!("Unknown table '{}'", missing.join(",")),
        ));
    }
    crate::ddl::foreign_key::check_drop(s, &targets)?;
    for (db, t) in temps {
        if let Some(internal) = s.temp.remove(&db, &t) {
            s.storage().drop_table(&db, &internal)?;
        }
    }
    drop_found(s, targets, missing, if_exists)
}

/// Drops `targets` (tables or views); `missing` names are error 1051 unless IF EXISTS, in
/// which case each becomes a note.
pub(crate) fn drop_found<E: KvEngine>(
    s: &mut Session<E>,
    targets: Vec<(String, String)>,
    missing: Vec<String>,
    if_exists: bool,
) -> Result<Output> {
    if !missing.is_empty() && !if_exists {
        return Err(Error::new(
            codes::ER_BAD_TABLE_ERROR,
            format!("Unknown table '{}'", missing.join(",")),
        ));
    }
    for (db, t) in targets {
        s.storage().drop_table(&db, &t)?;
    }
    for m in missing {
        s.warnings.push(common::Warning::note(
            codes::ER_BAD_TABLE_ERROR,
            format!("Unknown table '{m}'"),
        ));
    }
    Ok(Output::ok(0))
}

/// CREATE [TEMPORARY] TABLE new LIKE old: the same columns, indexes, CHECK constraints (under
/// generated names, as MySQL gives them) and options, no rows. `old` may be a TEMPORARY table.
fn create_table_like<E: KvEngine>(
    s: &mut Session<E>,
    db: &str,
    name: &str,
    src: &ast::ObjectName,
    temporary: bool,
) -> Result<Output> {
    let (sdb, sname) = qualify(s, src)?;
    s.mdl_lock(&sdb, s.table_key(&sdb, &sname), MdlMode::SharedRead)?;
    let t = s
        .table_def(&sdb, &sname)?
        .ok_or_else(|| Error::no_such_table(&sdb, &sname))?;
    if t.options.view.is_some() || t.id == 0 {
        return Err(Error::new(
            codes::ER_WRONG_OBJECT,
            format!("'{sdb}.{sname}' is not BASE TABLE"),
        ));
    }
    let mut def = (*t).clone();
    def.id = 0;
    def.db = db.to_string();
    def.name = name.to_string();
    def.version = 1;
    def.options.auto_increment = 1;
    if def.hidden_pk {
        def.indexes.remove(0);
    }
    for idx in def.indexes.iter_mut() {
        idx.id = 0;
    }
    def.checks = crate::ddl::check::renamed_for_like(&def.checks, name)?;
    if !temporary {
        crate::ddl::check::check_unique_names(s.storage(), db, name, &def.checks)?;
    }
    store_new_table(s, def, temporary)?;
    Ok(Output::ok(0))
}

/// CREATE TABLE ... [AS] SELECT: columns from the explicit definitions plus the select list
/// (a select column keeps its source column's type), then the rows through INSERT ... SELECT.
/// On failure the new table is dropped again, so the statement is all or nothing.
fn create_table_select<E: KvEngine>(
    s: &mut Session<E>,
    ct: &ast::CreateTable,
    db: &str,
    name: &str,
    q: &ast::Query,
) -> Result<Output> {
    let sql = q.to_string();
    let planned = crate::bind::query::plan(s, q, &sql)?;
    let types = crate::ddl::view::output_column_types(&planned);
    let explicit = !ct.columns.is_empty() || !ct.constraints.is_empty();
    if explicit {
        let mut base = ct.clone();
        base.query = None;
        create_table(s, &base)?;
    }
    let mut new_cols = Vec::new();
    let existing = if explicit {
        s.table_def(db, name)?
    } else {
        None
    };
    for (c, ty) in planned.columns().iter().zip(types) {
        if existing
            .as_ref()
            .is_some_and(|t| t.column_index(&c.name).is_some())
            || new_cols
                .iter()
                .any(|x: &ColumnDef| x.name.eq_ignore_ascii_case(&c.name))
        {
            if !explicit {
                return Err(Error::new(
                    codes::ER_DUP_FIELDNAME,
                    format!("Duplicate column name '{}'", c.name),
                ));
            }
            continue;
        }
        new_cols.push(ColumnDef {
            name: c.name.clone(),
            ty,
            nullable: c.flags & common::types::column_flags::NOT_NULL == 0,
            default: None,
            auto_increment: false,
            on_update: None,
            comment: String::new(),
            instant_default: None,
            generated: None,
        });
    }
    match existing {
        Some(t) => {
            let mut def = (*t).clone();
            def.name = s.table_key(db, name).to_string();
            def.columns.extend(new_cols);
            s.storage().alter_table(def)?;
        }
        None => {
            let def = TableDef {
                foreign_keys: Vec::new(),
                checks: Vec::new(),
                temporary: false,
                partitioning: None,
                leaf: None,
                part_select: None,
                id: 0,
                db: db.to_string(),
                name: name.to_string(),
                columns: new_cols,
                indexes: vec![],
                hidden_pk: true,
                version: 1,
                options: TableOptions::default(),
            };
            store_new_table(s, def, ct.temporary)?;
        }
    }
    let cols: Vec<String> = planned
        .columns()
        .iter()
        .map(|c| format!("`{}`", c.name.replace('`', "``")))
        .collect();
    let insert_sql = format!(
        "INSERT INTO `{}`.`{}` ({}) {}",
        db.replace('`', "``"),
        name.replace('`', "``"),
        cols.join(", "),
        sql
    );
    let result = (|| {
        let parsed = crate::parse::parser::parse(&insert_sql)?;
        match parsed.into_iter().next().map(|p| p.stmt) {
            Some(crate::parse::parser::Stmt::Ast(ast::Statement::Insert(ins))) => {
                crate::dml::single::insert(s, &ins, &[])
            }
            _ => Err(Error::internal(
                "CREATE TABLE ... SELECT: bad generated INSERT",
            )),
        }
    })();
    match result {
        Ok(out) => Ok(out),
        Err(e) => {
            drop_new_table(s, db, name);
            Err(e)
        }
    }
}

fn create_table<E: KvEngine>(s: &mut Session<E>, ct: &ast::CreateTable) -> Result<Output> {
    create_table_with(s, ct, None)
}

/// CREATE TABLE, with the partition clause parsed apart (`CREATE TABLE … PARTITION BY …`).
pub(crate) fn create_table_with<E: KvEngine>(
    s: &mut Session<E>,
    ct: &ast::CreateTable,
    part: Option<&crate::parse::partition::PartSpec>,
) -> Result<Output> {
    let (db, name) = qualify(s, &ct.name)?;
    check_ident(&name, "table")?;
    if !s.db_exists(&db)? {
        return Err(Error::bad_db(&db));
    }
    if crate::runtime::schemas::is_system_db(&db) {
        return Err(Error::new(
            codes::ER_DBACCESS_DENIED_ERROR,
            format!(
                "Access denied for user '{}'@'{}' to database '{db}'",
                s.user, s.host
            ),
        ));
    }
    if ct.temporary {
        // a temporary table may shadow a base table, not another temporary one
        if part.is_some() {
            return Err(Error::new(
                codes::ER_PARTITION_NO_TEMPORARY,
                "Cannot create temporary table with partitions",
            ));
        }
        if s.temp.lookup(&db, &name).is_some() {
            return note_if(s, ct.if_not_exists, Error::table_exists(&name), 0);
        }
    } else {
        s.mdl_lock(&db, &name, MdlMode::Exclusive)?;
        if s.storage().get_table(&db, &name)?.is_some() {
            return note_if(s, ct.if_not_exists, Error::table_exists(&name), 0);
        }
    }
    if let Some(like) = &ct.like {
        let (ast::CreateTableLikeKind::Parenthesized(l) | ast::CreateTableLikeKind::Plain(l)) =
            like;
        return create_table_like(s, &db, &name, &l.name, ct.temporary);
    }
    if let Some(q) = &ct.query {
        return create_table_select(s, ct, &db, &name, q);
    }
    // table options
    let mut opts = TableOptions::default();
    let mut table_charset: Option<String> = None;
    let mut table_coll: Option<String> = None;
    let list = match &ct.table_options {
        ast::CreateTableOptions::Plain(l)
        | ast::CreateTableOptions::With(l)
        | ast::CreateTableOptions::Options(l) => l.clone(),
        _ => vec![],
    };
    for o in &list {
        match o {
            ast::SqlOption::KeyValue { key, value } => {
                let k = key.value.to_ascii_uppercase();
                let v = value
                    .to_string()
                    .trim_matches('\'')
                    .trim_matches('"')
                    .to_string();
                match k.as_str() {
                    "ENGINE" => opts.engine = canonical_engine(&v),
                    "AUTO_INCREMENT" => opts.auto_increment = v.parse().unwrap_or(1),
                    "DEFAULT CHARSET" | "CHARSET" | "CHARACTER SET" | "DEFAULT CHARACTER SET" => {
                        table_charset = Some(v)
                    }
                    "COLLATE" | "DEFAULT COLLATE" => table_coll = Some(v),
                    "COMMENT" => opts.comment = v,
                    "KEY_BLOCK_SIZE" | "COMPRESSION" => {
                        crate::parse::storage_options::set_table_option(&mut opts, &k, &v, &name)?;
                    }
                    _ => opts.extra.push((k, v)),
                }
            }
            ast::SqlOption::NamedParenthesizedList(l)
                if l.key.value.eq_ignore_ascii_case("ENGINE") =>
            {
                opts.engine =
                    canonical_engine(&l.name.as_ref().map(|n| n.value.clone()).unwrap_or_default());
            }
            ast::SqlOption::Comment(c) => {
                opts.comment = match c {
                    ast::CommentDef::WithEq(s) | ast::CommentDef::WithoutEq(s) => s.clone(),
                };
            }
            _ => {}
        }
    }
    if opts.engine.is_empty() {
        opts.engine = "InnoDB".into();
    }
    let db_coll = s
        .storage()
        .get_database(&db)?
        .map(|d| d.collation)
        .unwrap_or_default();
    let tcoll = collation_of(table_charset.as_deref(), table_coll.as_deref())?.unwrap_or(db_coll);
    opts.collation = tcoll;
    if ct.columns.is_empty() {
        return Err(Error::new(
            codes::ER_TABLE_MUST_HAVE_COLUMNS,
            "A table must have at least 1 column",
        ));
    }
    let mut columns: Vec<ColumnDef> = Vec::new();
    let mut pk: Option<Vec<IndexColumn>> = None;
    let mut indexes: Vec<IndexDef> = Vec::new();
    let mut col_uniques: Vec<usize> = Vec::new();
    let mut foreign_keys: Vec<ForeignKeyDef> = Vec::new();
    // (FOREIGN KEY columns, the name its implicit index would get)
    let mut fk_keys: Vec<(Vec<usize>, String)> = Vec::new();
    for (ci, c) in ct.columns.iter().enumerate() {
        let cname = c.name.value.clone();
        if columns.iter().any(|x| x.name.eq_ignore_ascii_case(&cname)) {
            return Err(Error::new(
                codes::ER_DUP_FIELDNAME,
                format!("Duplicate column name '{cname}'"),
            ));
        }
        let spec = column_spec(
            &cname,
            &c.data_type,
            c.options.iter().map(|o| &o.option),
            tcoll,
        )?;
        if spec.primary_key {
            if pk.is_some() {
                return Err(Error::new(
                    codes::ER_MULTIPLE_PRI_KEY,
                    "Multiple primary key defined",
                ));
            }
            pk = Some(vec![IndexColumn {
                col: ci,
                prefix_len: None,
                desc: false,
            }]);
        }
        if spec.unique {
            col_uniques.push(ci);
        }
        columns.push(spec.col);
    }
    for con in &ct.constraints {
        match con {
            TableConstraint::PrimaryKey(p) => {
                if pk.is_some() {
                    return Err(Error::new(
                        codes::ER_MULTIPLE_PRI_KEY,
                        "Multiple primary key defined",
                    ));
                }
                let mut cols = Vec::new();
                for (k, c) in p.columns.iter().enumerate() {
                    cols.push(key_part(&mut columns, &c.column, None, k, true, &*s)?);
                }
                pk = Some(cols);
            }
            TableConstraint::Unique(u) => {
                let name = u
                    .index_name
                    .as_ref()
                    .or(u.name.as_ref())
                    .map(|n| n.value.clone());
                let mut cols = Vec::new();
                for (k, c) in u.columns.iter().enumerate() {
                    cols.push(key_part(
                        &mut columns,
                        &c.column,
                        name.as_deref(),
                        k,
                        false,
                        &*s,
                    )?);
                }
                indexes.push(IndexDef {
                    id: 0,
                    name: name.unwrap_or_default(),
                    kind: IndexKind::Unique,
                    columns: cols,
                    comment: String::new(),
                    options: Default::default(),
                });
            }
            TableConstraint::Index(ix) => {
                let mut cols = Vec::new();
                let ixname = ix.name.as_ref().map(|n| n.value.as_str());
                for (k, c) in ix.columns.iter().enumerate() {
                    cols.push(key_part(&mut columns, &c.column, ixname, k, false, &*s)?);
                }
                indexes.push(IndexDef {
                    id: 0,
                    name: ix
                        .name
                        .as_ref()
                        .map(|n| n.value.clone())
                        .unwrap_or_default(),
                    kind: IndexKind::Normal,
                    columns: cols,
                    comment: String::new(),
                    options: Default::default(),
                });
            }
            TableConstraint::ForeignKey(fk) => {
                let def = foreign_key(s, &db, &name, &columns, fk, &foreign_keys)?;
                let cols = def
                    .columns
                    .iter()
                    .map(|c| columns.iter().position(|x| x.name.eq_ignore_ascii_case(c)))
                    .collect::<Option<Vec<usize>>>()
                    .unwrap_or_default();
                let ixname = fk
                    .name
                    .as_ref()
                    .or(fk.index_name.as_ref())
                    .map(|n| n.value.clone())
                    .unwrap_or_default();
                fk_keys.push((cols, ixname));
                foreign_keys.push(def);
            }
            TableConstraint::Check(_) => {
                // built below, with the column constraints, in statement order
            }
            other => return Err(Error::not_supported(format!("{other}"))),
        }
    }
    for ci in col_uniques {
        indexes.push(IndexDef {
            id: 0,
            name: String::new(),
            kind: IndexKind::Unique,
            columns: vec![IndexColumn {
                col: ci,
                prefix_len: None,
                desc: false,
            }],
            comment: String::new(),
            options: Default::default(),
        });
    }
    // a FOREIGN KEY needs an index starting with its columns; MySQL creates one when no key has
    // them as its leading columns
    for (cols, ixname) in fk_keys {
        let leads = |ic: &[IndexColumn]| {
            ic.len() >= cols.len()
                && ic
                    .iter()
                    .zip(&cols)
                    .all(|(a, b)| a.col == *b && a.prefix_len.is_none())
        };
        if cols.is_empty()
            || pk.as_deref().is_some_and(leads)
            || indexes.iter().any(|ix| leads(&ix.columns))
        {
            continue;
        }
        indexes.push(IndexDef {
            id: 0,
            name: ixname,
            kind: IndexKind::Normal,
            columns: cols
                .iter()
                .map(|&col| IndexColumn {
                    col,
                    prefix_len: None,
                    desc: false,
                })
                .collect(),
            comment: String::new(),
            options: Default::default(),
        });
    }
    // name unnamed indexes after their first column, as MySQL does
    let mut named: Vec<String> = vec!["PRIMARY".into()];
    for ix in indexes.iter_mut() {
        if ix.name.is_empty() {
            let base = index_base_name(&columns[ix.columns[0].col]).to_string();
            let mut n = base.clone();
            let mut k = 2;
            while named.iter().any(|x| x.eq_ignore_ascii_case(&n)) {
                n = format!("{base}_{k}");
                k += 1;
            }
            ix.name = n;
        } else if named.iter().any(|x| x.eq_ignore_ascii_case(&ix.name)) {
            return Err(Error::new(
                codes::ER_DUP_KEYNAME,
                format!("Duplicate key name '{}'", ix.name),
            ));
        }
        named.push(ix.name.clone());
    }
    let hidden_pk = pk.is_none();
    if let Some(p) = &pk {
        for ic in p {
            let c = &mut columns[ic.col];
            if c.nullable {
                // PRIMARY KEY columns are implicitly NOT NULL
                c.nullable = false;
            }
        }
        check_index_cols(&columns, p)?;
    }
    for ix in &indexes {
        check_index_cols(&columns, &ix.columns)?;
    }
    // AUTO_INCREMENT must be the first column of some key
    let keys_first: Vec<usize> = pk
        .iter()
        .map(|p| p[0].col)
        .chain(indexes.iter().map(|i| i.columns[0].col))
        .collect();
    let ai: Vec<usize> = columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.auto_increment)
        .map(|(i, _)| i)
        .collect();
    if ai.len() > 1 || ai.first().is_some_and(|c| !keys_first.contains(c)) {
        return Err(Error::new(codes::ER_WRONG_AUTO_KEY, "Incorrect table definition; there can be only one auto column and it must be defined as a key"));
    }
    for &a in &ai {
        columns[a].nullable = false;
    }
    sort_keys(&mut indexes, &columns);
    let mut all = Vec::new();
    all.push(IndexDef {
        id: 0,
        name: "PRIMARY".into(),
        kind: IndexKind::Primary,
        columns: pk.unwrap_or_default(),
        comment: String::new(),
        options: Default::default(),
    });
    all.extend(indexes);
    if all.len() > 64 {
        return Err(Error::new(
            codes::ER_TOO_MANY_KEYS,
            "Too many keys specified; max 64 keys allowed",
        ));
    }
    let mut def = TableDef {
        foreign_keys,
        checks: Vec::new(),
        temporary: false,
        partitioning: None,
        part_select: None,
        leaf: None,
        id: 0,
        db: db.clone(),
        name: name.clone(),
        columns,
        indexes: all,
        hidden_pk,
        version: 1,
        options: opts,
    }
    .normalized();
    crate::ddl::generated::validate(&def, s)?;
    def.checks = crate::ddl::check::build(&def, crate::ddl::check::create_specs(ct), s, false)?;
    if !ct.temporary {
        crate::ddl::check::check_unique_names(s.storage(), &db, &name, &def.checks)?;
    }
    if let Some(spec) = part {
        if ct.query.is_some() || ct.like.is_some() {
            return Err(Error::not_supported(
                "PARTITION BY with CREATE TABLE ... SELECT / LIKE",
            ));
        }
        def.partitioning = Some(std::sync::Arc::new(crate::catalog::partition::build(
            s, &def, spec,
        )?));
    }
    crate::ddl::foreign_key::validate(s, &def, None)?;
    store_new_table(s, def, ct.temporary)?;
    Ok(Output::ok(0))
}

/// Creates the table `def` (named `def.db`.`def.name`): a base table, or with `temporary` this
/// session's TEMPORARY table of that name, stored under an internal name
/// ([`crate::catalog::temporary`]).
///
/// # Errors
/// The storage's (1049, 1050).
pub(crate) fn store_new_table<E: KvEngine>(
    s: &mut Session<E>,
    mut def: TableDef,
    temporary: bool,
) -> Result<()> {
    def.temporary = temporary;
    if !temporary {
        s.storage().create_table(def)?;
        return Ok(());
    }
    let (db, name) = (def.db.clone(), std::mem::take(&mut def.name));
    let mut internal = s.temp.next_internal(s.conn_id);
    // (a table of an earlier session with this connection id that could not be dropped)
    while s.storage().get_table(&db, &internal)?.is_some() {
        internal = s.temp.next_internal(s.conn_id);
    }
    def.name = internal.clone();
    s.storage().create_table(def)?;
    s.temp.insert(&db, &name, internal);
    Ok(())
}

/// Drops the table a failed CREATE TABLE … SELECT created (its TEMPORARY table first).
fn drop_new_table<E: KvEngine>(s: &mut Session<E>, db: &str, name: &str) {
    let r = match s.temp.remove(db, name) {
        Some(internal) => s.storage().drop_table(db, &internal),
        None => s.storage().drop_table(db, name),
    };
    if let Err(e) = r {
        tracing::warn!(db, table = name, error = %e.msg, "cannot drop the table of a failed CREATE TABLE … SELECT");
    }
}

/// A FOREIGN KEY clause of table `db.table` (whose columns are `columns`) as a catalog
/// constraint. The referencing columns must exist (1072) and match the referenced ones in number
/// (1239); the name is the given one or MySQL's generated `<table>_ibfk_<n>`, unique within
/// the table (1826). With `foreign_key_checks` on, as in MySQL, the referenced table must exist
/// (1824) and have the referenced columns (3734); a table may reference itself. Constraints
/// are kept for SHOW CREATE TABLE and INFORMATION_SCHEMA and are not enforced on data.
pub(crate) fn foreign_key<E: KvEngine>(
    s: &Session<E>,
    db: &str,
    table: &str,
    columns: &[ColumnDef],
    fk: &ast::ForeignKeyConstraint,
    existing: &[ForeignKeyDef],
) -> Result<ForeignKeyDef> {
    let find = |cols: &[ColumnDef], n: &str| {
        cols.iter()
            .find(|c| c.name.eq_ignore_ascii_case(n))
            .map(|c| c.name.clone())
    };
    let mut own = Vec::new();
    for c in &fk.columns {
        own.push(find(columns, &c.value).ok_or_else(|| {
            Error::new(
                codes::ER_KEY_COLUMN_DOES_NOT_EXITS,
                format!("Key column '{}' doesn't exist in table", c.value),
            )
        })?);
    }
    let (ref_db, ref_table) = {
        let parts = obj_parts(&fk.foreign_table);
        match parts.as_slice() {
            [t] => (db.to_string(), t.clone()),
            [d, t] => (d.clone(), t.clone()),
            _ => return Err(Error::parse(fk.foreign_table.to_string())),
        }
    };
    let name = match &fk.name {
        Some(n) => {
            check_ident(&n.value, "constraint")?;
            n.value.clone()
        }
        None => {
            // one past the highest `<table>_ibfk_<n>` in use, as MySQL numbers them
            let prefix = format!("{table}_ibfk_");
            let n = existing
                .iter()
                .filter_map(|f| f.name.strip_prefix(&prefix)?.parse::<u64>().ok())
                .max()
                .unwrap_or(0);
            format!("{prefix}{}", n + 1)
        }
    };
    if existing.iter().any(|f| f.name.eq_ignore_ascii_case(&name)) {
        return Err(Error::new(
            codes::ER_FK_DUP_NAME,
            format!("Duplicate foreign key constraint name '{name}'"),
        ));
    }
    if fk.referred_columns.len() != own.len() {
        return Err(Error::new(
            codes::ER_WRONG_FK_DEF,
            format!("Incorrect foreign key definition for '{name}': Key reference and table reference don't match"),
        ));
    }
    let mut ref_columns: Vec<String> = fk
        .referred_columns
        .iter()
        .map(|c| c.value.clone())
        .collect();
    if s.var("foreign_key_checks") != Some(Value::Int(0)) {
        let self_ref = ref_db.eq_ignore_ascii_case(db) && ref_table.eq_ignore_ascii_case(table);
        let parent_cols = if self_ref {
            columns.to_vec()
        } else {
            match s.storage().get_table(&ref_db, &ref_table)? {
                Some(t) if t.options.view.is_none() => t.columns.clone(),
                _ => {
                    return Err(Error::new(
                        codes::ER_FK_CANNOT_OPEN_PARENT,
                        format!("Failed to open the referenced table '{ref_table}'"),
                    ))
                }
            }
        };
        for c in ref_columns.iter_mut() {
            *c = find(&parent_cols, c).ok_or_else(|| {
                Error::new(
                    codes::ER_FK_NO_COLUMN_PARENT,
                    format!("Failed to add the foreign key constraint. Missing column '{c}' for constraint '{name}' in the referenced table '{ref_table}'"),
                )
            })?;
        }
    }
    let action =
        |a: &Option<ast::ReferentialAction>| a.as_ref().map(|a| a.to_string()).unwrap_or_default();
    Ok(ForeignKeyDef {
        name,
        columns: own,
        ref_db,
        ref_table,
        ref_columns,
        on_delete: action(&fk.on_delete),
        on_update: action(&fk.on_update),
    })
}

/// A column definition as written in CREATE TABLE or ALTER TABLE ADD/MODIFY/CHANGE.
pub(crate) struct ColumnSpec {
    /// The catalog column.
    pub col: ColumnDef,
    /// A column-level `PRIMARY KEY`.
    pub primary_key: bool,
    /// A column-level `UNIQUE [KEY]`.
    pub unique: bool,
}

/// Maps a column definition (name, type, options) to a catalog column: collation (column
/// CHARACTER SET/COLLATE, else `table_coll`), type, NULL/NOT NULL, DEFAULT (validated), ON
/// UPDATE, COMMENT, AUTO_INCREMENT, and the column-level PRIMARY KEY / UNIQUE flags.
///
/// # Errors
/// 1166 bad column name, 1059 name too long, 1063 AUTO_INCREMENT on a non-numeric type, 1067
/// invalid default, type errors from [`map_type`], unsupported options.
pub(crate) fn column_spec<'a>(
    cname: &str,
    data_type: &ast::DataType,
    options: impl Iterator<Item = &'a ColumnOption> + Clone,
    table_coll: Collation,
) -> Result<ColumnSpec> {
    check_column_name(cname)?;
    let mut cs = None;
    let mut cl = None;
    for o in options.clone() {
        match o {
            ColumnOption::CharacterSet(n) => cs = Some(n.to_string()),
            ColumnOption::Collation(n) => cl = Some(n.to_string()),
            _ => {}
        }
    }
    let text = data_type.to_string().to_ascii_uppercase();
    let is_binary_kw = text.ends_with(" BINARY");
    let mut coll = collation_of(cs.as_deref(), cl.as_deref())?.unwrap_or(table_coll);
    if is_binary_kw {
        coll = match coll.charset() {
            "latin1" => Collation::Latin1Bin,
            _ => Collation::Utf8mb4Bin,
        };
    }
    let ty = map_type(data_type, coll, cname)?;
    let mut col = ColumnDef {
        name: cname.to_string(),
        ty,
        nullable: true,
        default: None,
        auto_increment: false,
        on_update: None,
        comment: String::new(),
        instant_default: None,
        generated: None,
    };
    let mut primary_key = false;
    let mut unique = false;
    for o in options {
        match o {
            ColumnOption::Null => {}
            ColumnOption::NotNull => col.nullable = false,
            ColumnOption::Default(e) => col.default = Some(default_text(e)),
            ColumnOption::OnUpdate(e) => col.on_update = Some(e.to_string()),
            ColumnOption::Comment(t) => col.comment = t.clone(),
            ColumnOption::PrimaryKey(_) => {
                if primary_key {
                    return Err(Error::new(
                        codes::ER_MULTIPLE_PRI_KEY,
                        "Multiple primary key defined",
                    ));
                }
                primary_key = true;
            }
            ColumnOption::Unique(_) => unique = true,
            ColumnOption::DialectSpecific(toks) => {
                let t: String = toks
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
                    .to_ascii_uppercase();
                if t.contains("AUTO_INCREMENT") {
                    col.auto_increment = true;
                }
            }
            ColumnOption::CharacterSet(_) | ColumnOption::Collation(_) => {}
            ColumnOption::Check(_) => {}
            ColumnOption::Generated { .. } => {
                col.generated = crate::ddl::generated::declared(o)?;
            }
            other => return Err(Error::not_supported(format!("column option {other}"))),
        }
    }
    crate::ddl::generated::check_options(&col)?;
    if col.auto_increment
        && !matches!(
            col.ty,
            DataType::Int { .. } | DataType::Float { .. } | DataType::Double { .. }
        )
    {
        return Err(Error::new(
            codes::ER_WRONG_FIELD_SPEC,
            format!("Incorrect column specifier for column '{cname}'"),
        ));
    }
    if let Some(d) = &col.default {
        validate_default(&col, d)?;
    }
    Ok(ColumnSpec {
        col,
        primary_key,
        unique,
    })
}

/// Orders secondary indexes as MySQL does (sql_table.cc `sort_keys`): unique before
/// non-unique; among unique ones those without nullable key parts first, then those without
/// prefix parts; otherwise the given order (the sort is stable).
pub(crate) fn sort_keys(indexes: &mut [IndexDef], columns: &[ColumnDef]) {
    indexes.sort_by_key(|d| {
        let unique = d.kind != IndexKind::Normal;
        let nullable = d.columns.iter().any(|c| columns[c.col].nullable);
        let partial = d.columns.iter().any(|c| c.prefix_len.is_some());
        (!unique, unique && nullable, unique && partial)
    });
}

/// Engine names as MySQL prints them. Every table is stored in Strata's LSM engine; the name
/// given is kept so SHOW CREATE TABLE and dumps round-trip.
pub(crate) fn canonical_engine(name: &str) -> String {
    match name.to_ascii_lowercase().as_str() {
        "innodb" => "InnoDB".into(),
        "rocksdb" => "ROCKSDB".into(),
        "myisam" => "MyISAM".into(),
        "memory" | "heap" => "MEMORY".into(),
        "aria" => "Aria".into(),
        _ => name.to_string(),
    }
}

/// DEFAULT clause text as stored: literals keep MySQL quoting, CURRENT_TIMESTAMP forms normalised.
pub(crate) fn default_text(e: &ast::Expr) -> String {
    match e {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
            }
            other => other.to_string(),
        },
        other => other.to_string(),
    }
}

pub(crate) fn validate_default(col: &ColumnDef, d: &str) -> Result<()> {
    let up = d.to_ascii_uppercase();
    let is_now = up.starts_with("CURRENT_TIMESTAMP")
        || up.starts_with("NOW(")
        || up.starts_with("LOCALTIMESTAMP")
        || up.starts_with("LOCALTIME");
    if is_now
        && !matches!(
            col.ty,
            DataType::DateTime { .. } | DataType::Timestamp { .. }
        )
    {
        return Err(Error::new(
            codes::ER_INVALID_DEFAULT,
            format!("Invalid default value for '{}'", col.name),
        ));
    }
    if up == "NULL" && !col.nullable {
        return Err(Error::new(
            codes::ER_INVALID_DEFAULT,
            format!("Invalid default value for '{}'", col.name),
        ));
    }
    if col.auto_increment && up != "NULL" {
        return Err(Error::new(
            codes::ER_INVALID_DEFAULT,
            format!("Invalid default value for '{}'", col.name),
        ));
    }
    // literal defaults must convert to the column type
    if !is_now
        && up != "NULL"
        && (d.starts_with('\'')
            || d.chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit() || c == '-'))
    {
        let lit = if let Some(inner) = d.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')) {
            Value::Str(inner.replace("''", "'"))
        } else {
            crate::bind::expr::number_literal(d).unwrap_or(Value::Str(d.to_string()))
        };
        let mut w = Vec::new();
        // zero dates are accepted in defaults as MySQL does when NO_ZERO_DATE isn't strict for DDL
        if func::store::store(lit, &col.ty, true, &col.name, 1, &mut w).is_err() {
            return Err(Error::new(
                codes::ER_INVALID_DEFAULT,
                format!("Invalid default value for '{}'", col.name),
            ));
        }
    }
    Ok(())
}
