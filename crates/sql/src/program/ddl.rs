//! CREATE / ALTER / DROP PROCEDURE and FUNCTION: MySQL's checks (the database, the name,
//! the body compiling, parameter and return types, `log_bin_trust_function_creators` with
//! the binary log on: 1418), then one dictionary write.

use common::{codes, Error, Result, Value, Warning};
use storage::catalog::routine::{RoutineDef, RoutineKind, RoutineParam};
use storage::engine::KvEngine;

use crate::parse::routine::{Characteristics, CreateRoutine};
use crate::session::session::{Output, Session};

/// The database a routine statement names: its own, or the current one (1046), which must
/// exist (1049).
pub(crate) fn routine_db<E: KvEngine>(s: &Session<E>, db: &Option<String>) -> Result<String> {
    let db = match db {
        Some(d) => d.clone(),
        None => s.db.clone().ok_or_else(Error::no_db)?,
    };
    if s.storage().get_database(&db)?.is_none() {
        return Err(Error::bad_db(&db));
    }
    Ok(db)
}

/// `YYYY-MM-DD hh:mm:ss` now, in the session's time zone.
fn now_text<E: KvEngine>(s: &Session<E>) -> String {
    let t = chrono::Utc::now() + chrono::Duration::seconds(i64::from(s.tz_offset_secs()));
    t.format("%Y-%m-%d %H:%M:%S").to_string()
}

fn text_var<E: KvEngine>(s: &Session<E>, name: &str) -> String {
    s.var(name).map(|v| v.to_string()).unwrap_or_default()
}

/// True when the binary log is on and `log_bin_trust_function_creators` is off: a function
/// must then declare DETERMINISTIC, NO SQL or READS SQL DATA (1418).
fn unsafe_for_binlog<E: KvEngine>(s: &Session<E>, ch: &Characteristics) -> bool {
    let log_on = s.inst.binlog.read().is_some();
    let trust = matches!(
        s.inst.globals.get("log_bin_trust_function_creators"),
        Some(Value::Int(1) | Value::UInt(1))
    );
    log_on
        && !trust
        && ch.deterministic != Some(true)
        && !matches!(ch.data_access, Some("NO SQL" | "READS SQL DATA"))
}

/// CREATE PROCEDURE / FUNCTION.
///
/// # Errors
/// 1046 / 1049 for the database, 1303 inside a routine, 1304 when it exists, 1418, a body
/// that does not compile, a bad parameter or return type.
pub fn create<E: KvEngine>(s: &mut Session<E>, c: &CreateRoutine) -> Result<Output> {
    if !s.programs.stack.is_empty() {
        return Err(Error::new(
            codes::ER_SP_NO_RECURSIVE_CREATE,
            format!(
                "Can't create a {} from within another stored routine",
                c.kind.name()
            ),
        ));
    }
    let db = routine_db(s, &c.db)?;
    let params: Vec<(String, String)> = c
        .params
        .iter()
        .map(|p| (p.name.clone(), p.ty.clone()))
        .collect();
    crate::parse::compound::compile(
        &c.body,
        &params,
        c.kind == RoutineKind::Function,
        s.parse_mode(),
    )?;
    for p in &c.params {
        crate::program::call::resolve_type(&p.ty, &p.name)?;
    }
    if let Some(r) = &c.returns {
        crate::program::call::resolve_type(r, "RETURNS")?;
    }
    if c.kind == RoutineKind::Function && unsafe_for_binlog(s, &c.chars) {
        return Err(Error::new(
            codes::ER_BINLOG_UNSAFE_ROUTINE,
            "This function has none of DETERMINISTIC, NO SQL, or READS SQL DATA in its declaration and binary logging is enabled (you *might* want to use the less safe log_bin_trust_function_creators variable)",
        ));
    }
    if s.storage().get_routine(&db, c.kind, &c.name)?.is_some() {
        let msg = format!("{} {} already exists", c.kind.name(), c.name);
        if c.if_not_exists {
            s.warnings
                .push(Warning::note(codes::ER_SP_ALREADY_EXISTS, msg));
            return Ok(Output::ok(0));
        }
        return Err(Error::new(codes::ER_SP_ALREADY_EXISTS, msg));
    }
    let (definer_user, definer_host) = c
        .definer
        .clone()
        .unwrap_or_else(|| (s.user.clone(), s.account_host.clone()));
    let db_collation = s
        .storage()
        .get_database(&db)?
        .map(|d| d.collation.name().to_string())
        .unwrap_or_default();
    let now = now_text(s);
    let def = RoutineDef {
        db: db.clone(),
        name: c.name.clone(),
        kind: c.kind,
        definer_user,
        definer_host,
        params: c
            .params
            .iter()
            .map(|p| RoutineParam {
                mode: p.mode.name().to_string(),
                name: p.name.clone(),
                ty: p.ty.clone(),
            })
            .collect(),
        param_list: c.param_list.clone(),
        returns: c.returns.clone(),
        body: c.body.clone(),
        deterministic: c.chars.deterministic.unwrap_or(false),
        data_access: c.chars.data_access.unwrap_or("CONTAINS SQL").to_string(),
        security: c.chars.security.unwrap_or("DEFINER").to_string(),
        comment: c.chars.comment.clone().unwrap_or_default(),
        sql_mode: s.sql_mode(),
        created: now.clone(),
        modified: now,
        charset_client: text_var(s, "character_set_client"),
        collation_connection: text_var(s, "collation_connection"),
        db_collation,
    };
    s.storage().put_routine(&def)?;
    s.inst.routines.forget(&db, Some(c.kind), &c.name);
    Ok(Output::ok(0))
}

fn does_not_exist(kind: RoutineKind, db: &str, name: &str) -> Error {
    Error::new(
        codes::ER_SP_DOES_NOT_EXIST,
        format!("{} {db}.{name} does not exist", kind.name()),
    )
}

/// ALTER PROCEDURE / FUNCTION name characteristics.
///
/// # Errors
/// 1305 when it does not exist.
pub fn alter<E: KvEngine>(
    s: &mut Session<E>,
    kind: RoutineKind,
    db: &Option<String>,
    name: &str,
    ch: &Characteristics,
) -> Result<Output> {
    let db = routine_db(s, db)?;
    let mut def = s
        .storage()
        .get_routine(&db, kind, name)?
        .ok_or_else(|| does_not_exist(kind, &db, name))?;
    if let Some(d) = ch.deterministic {
        def.deterministic = d;
    }
    if let Some(a) = ch.data_access {
        def.data_access = a.to_string();
    }
    if let Some(sec) = ch.security {
        def.security = sec.to_string();
    }
    if let Some(c) = &ch.comment {
        def.comment = c.clone();
    }
    def.modified = now_text(s);
    s.storage().put_routine(&def)?;
    s.inst.routines.forget(&db, Some(kind), name);
    Ok(Output::ok(0))
}

/// DROP PROCEDURE / FUNCTION [IF EXISTS].
///
/// # Errors
/// 1305 when it does not exist (a note with IF EXISTS).
pub fn drop<E: KvEngine>(
    s: &mut Session<E>,
    kind: RoutineKind,
    if_exists: bool,
    db: &Option<String>,
    name: &str,
) -> Result<Output> {
    let db = match routine_db(s, db) {
        Ok(d) => d,
        Err(e) if if_exists && e.code.num == codes::ER_BAD_DB_ERROR.num => {
            let d = db.clone().unwrap_or_default();
            let msg = does_not_exist(kind, &d, name).msg;
            s.warnings
                .push(Warning::note(codes::ER_SP_DOES_NOT_EXIST, msg));
            return Ok(Output::ok(0));
        }
        Err(e) => return Err(e),
    };
    if !s.storage().drop_routine(&db, kind, name)? {
        let e = does_not_exist(kind, &db, name);
        if if_exists {
            s.warnings
                .push(Warning::note(codes::ER_SP_DOES_NOT_EXIST, e.msg));
            return Ok(Output::ok(0));
        }
        return Err(e);
    }
    s.inst.routines.forget(&db, Some(kind), name);
    Ok(Output::ok(0))
}
