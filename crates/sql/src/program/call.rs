//! Running a routine: CALL (arguments, OUT / INOUT parameters written back to the caller's
//! variables), a stored function's call from an expression, and what both share
//! ([`invoke`]): the argument count (1318), the recursion rules (functions never recurse:
//! 1424; procedures up to `max_sp_recursion_depth`: 1456), the routine's own sql_mode and
//! database, the definer's rights under SQL SECURITY DEFINER, and the values converted to the
//! declared types as a column stores them.

use std::sync::Arc;

use common::{codes, DataType, Error, Result, Value};
use sqlparser::ast;
use storage::catalog::routine::RoutineKind;
use storage::engine::KvEngine;

use crate::ir::routine::Routine;
use crate::parse::compound::Target;
use crate::program::interp::{self, Frame};
use crate::session::program::ActiveCall;
use crate::session::session::{Output, Session};

/// How deep routines may nest in one statement (MySQL stops at its thread stack: 1436).
const MAX_NESTING: usize = 64;

pub use crate::ddl::routine::resolve_type;

/// `v` stored into a variable of type `ty` (as INSERT stores into a column of that type).
pub(crate) fn store<E: KvEngine>(
    s: &mut Session<E>,
    v: Value,
    ty: &DataType,
    name: &str,
) -> Result<Value> {
    let strict = s.strict();
    func::store::store(v, ty, strict, name, 1, &mut s.warnings)
}

/// Evaluates an expression outside any row, with statement parameters `params`.
pub(crate) fn eval<E: KvEngine>(
    s: &mut Session<E>,
    e: &ast::Expr,
    params: &[Value],
) -> Result<Value> {
    let scope = crate::ir::scope::Scope::default();
    let bound = crate::bind::expr::Binder::new(&scope, &*s, "field list").bind(e)?;
    s.with_ctx(params, false, |s, ctx| {
        crate::exec::query::eval(s, &bound, &[], ctx)
    })
}

/// Stores `v` into `t`: a local variable of `frame`, or a user variable.
pub(crate) fn assign<E: KvEngine>(
    s: &mut Session<E>,
    frame: Option<&mut Frame<'_>>,
    t: &Target,
    v: Value,
) -> Result<()> {
    match (t, frame) {
        (Target::User(u), _) => {
            s.user_vars.insert(u.clone(), v);
            Ok(())
        }
        (Target::Local(k), Some(f)) => f.set(s, *k, v),
        (Target::Local(_), None) => Err(Error::internal("local variable outside a routine")),
    }
}

fn wrong_args(r: &Routine, got: usize) -> Error {
    Error::new(
        codes::ER_SP_WRONG_NO_OF_ARGS,
        format!(
            "Incorrect number of arguments for {} {}; expected {}, got {got}",
            r.def.kind.name(),
            r.qualified(),
            r.def.params.len()
        ),
    )
}

/// The CALL statement: runs procedure `[db.]name` with `args` (statement parameters
/// `params`), then writes OUT / INOUT parameters to the user variables passed for them.
///
/// # Errors
/// 1305, 1318, 1414 for an OUT argument that is not a variable, and the procedure's own.
pub fn call_statement<E: KvEngine>(
    s: &mut Session<E>,
    db: &Option<String>,
    name: &str,
    args: &[ast::Expr],
    params: &[Value],
) -> Result<Output> {
    let db = crate::program::ddl::routine_db(s, db)?;
    let r = s
        .routine(&db, RoutineKind::Procedure, name)?
        .ok_or_else(|| {
            Error::new(
                codes::ER_SP_DOES_NOT_EXIST,
                format!("PROCEDURE {db}.{name} does not exist"),
            )
        })?;
    if args.len() != r.def.params.len() {
        return Err(wrong_args(&r, args.len()));
    }
    let mut vals = Vec::with_capacity(args.len());
    let mut targets = Vec::with_capacity(args.len());
    for (k, (a, p)) in args.iter().zip(&r.def.params).enumerate() {
        let var = match a {
            ast::Expr::Identifier(id)
                if id.value.starts_with('@') && !id.value.starts_with("@@") =>
            {
                Some(Target::User(id.value[1..].trim_matches('`').to_lowercase()))
            }
            _ => None,
        };
        if p.mode != "IN" && var.is_none() {
            return Err(not_var_arg(k, &r));
        }
        vals.push(if p.mode == "OUT" {
            Value::Null
        } else {
            eval(s, a, params)?
        });
        targets.push(var);
    }
    let out = invoke(s, &r, vals)?;
    write_back(s, None, &r, &targets, out.params)?;
    Ok(Output::ok(0))
}

/// 1414 for OUT / INOUT argument `k` (0-based) of `r`.
pub(crate) fn not_var_arg(k: usize, r: &Routine) -> Error {
    Error::new(
        codes::ER_SP_NOT_VAR_ARG,
        format!(
            "OUT or INOUT argument {} for routine {} is not a variable or NEW pseudo-variable in BEFORE trigger",
            k + 1,
            r.qualified()
        ),
    )
}

/// Writes the OUT / INOUT parameters' final values to the caller's variables.
pub(crate) fn write_back<E: KvEngine>(
    s: &mut Session<E>,
    mut frame: Option<&mut Frame<'_>>,
    r: &Routine,
    targets: &[Option<Target>],
    finals: Vec<Value>,
) -> Result<()> {
    for ((p, t), v) in r.def.params.iter().zip(targets).zip(finals) {
        if p.mode == "IN" {
            continue;
        }
        if let Some(t) = t {
            assign(s, frame.as_deref_mut(), t, v)?;
        }
    }
    Ok(())
}

/// A stored function called from an expression (the executor's hook).
///
/// # Errors
/// The function's errors; 1321 when it ends without RETURN.
pub fn call_function<E: KvEngine>(
    s: &mut Session<E>,
    r: &Arc<Routine>,
    args: Vec<Value>,
) -> Result<Value> {
    if args.len() != r.def.params.len() {
        return Err(wrong_args(r, args.len()));
    }
    let out = invoke(s, r, args)?;
    out.ret.ok_or_else(|| {
        Error::new(
            codes::ER_SP_NORETURNEND,
            format!("FUNCTION {} ended without RETURN", r.def.name),
        )
    })
}

/// What a routine gave back.
pub(crate) struct Invocation {
    /// A function's RETURN value, converted to its RETURNS type.
    pub ret: Option<Value>,
    /// Every parameter's final value.
    pub params: Vec<Value>,
}

fn recursion_check<E: KvEngine>(s: &Session<E>, r: &Routine, key: &str) -> Result<()> {
    let stack = &s.programs.stack;
    if stack.len() >= MAX_NESTING {
        return Err(Error::new(
            codes::ER_STACK_OVERRUN_NEED_MORE,
            "Thread stack overrun: stored routines nested too deeply",
        ));
    }
    let same = stack
        .iter()
        .filter(|c| c.kind == r.def.kind && c.key == key)
        .count();
    match r.def.kind {
        RoutineKind::Function if same > 0 => Err(Error::new(
            codes::ER_SP_NO_RECURSION,
            "Recursive stored functions and triggers are not allowed.",
        )),
        RoutineKind::Procedure => {
            let limit = s.var_int("max_sp_recursion_depth", 0).max(0) as usize;
            if same > limit {
                return Err(Error::new(
                    codes::ER_SP_RECURSION_LIMIT,
                    format!(
                        "Recursive limit {limit} (as set by the max_sp_recursion_depth variable) was exceeded for routine {}",
                        r.def.name
                    ),
                ));
            }
            Ok(())
        }
        RoutineKind::Function => Ok(()),
    }
}

/// Runs routine `r` with argument values `args` (OUT parameters' ignored).
pub(crate) fn invoke<E: KvEngine>(
    s: &mut Session<E>,
    r: &Arc<Routine>,
    args: Vec<Value>,
) -> Result<Invocation> {
    let key = format!("{}.{}", r.def.db, r.def.name.to_lowercase());
    recursion_check(s, r, &key)?;
    let saved_mode = (s.sql_mode() != r.def.sql_mode).then(|| s.sql_mode());
    if saved_mode.is_some() {
        s.set_session_value("sql_mode", Value::Str(r.def.sql_mode.clone()))?;
    }
    let definer = r.def.security == "DEFINER";
    let saved_user = definer.then(|| {
        let u = std::mem::replace(&mut s.user, r.def.definer_user.clone());
        let h = std::mem::replace(&mut s.account_host, r.def.definer_host.clone());
        (u, h)
    });
    // a routine's statements run in its own database, as MySQL runs them
    let saved_db = std::mem::replace(&mut s.db, Some(r.def.db.clone()));
    s.programs.stack.push(ActiveCall {
        kind: r.def.kind,
        key,
    });
    let out = run_body(s, r, args);
    s.programs.stack.pop();
    s.db = saved_db;
    if let Some((u, h)) = saved_user {
        s.user = u;
        s.account_host = h;
    }
    if let Some(m) = saved_mode {
        s.set_session_value("sql_mode", Value::Str(m))?;
    }
    out
}

fn run_body<E: KvEngine>(
    s: &mut Session<E>,
    r: &Arc<Routine>,
    args: Vec<Value>,
) -> Result<Invocation> {
    let mut frame = Frame::new(r)?;
    for (k, v) in args.into_iter().enumerate() {
        if r.def.params[k].mode != "OUT" {
            frame.set(s, k, v)?;
        }
    }
    let ret = interp::run(s, &mut frame)?;
    let ret = match (ret, frame.return_type().cloned()) {
        (Some(v), Some(ty)) => Some(store(s, v, &ty, &r.def.name)?),
        (v, _) => v,
    };
    let n = r.def.params.len();
    Ok(Invocation {
        ret,
        params: frame.slots.into_iter().take(n).collect(),
    })
}
