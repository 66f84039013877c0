//! The interpreter of compiled bodies ([`crate::parse::compound::Node`]): a frame of local
//! variables, cursors and the handler scopes in force; control flow as [`Flow`] values; and
//! conditions. An error (or, when a handler wants it, a warning) raised where a statement or
//! expression runs goes to the innermost block that declares a matching handler (the most
//! specific one there): CONTINUE goes on after the failed statement, EXIT leaves that block;
//! the handler's own statement runs with only the outer blocks' handlers in force.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use common::{codes, DataType, Error, Level, Result, Value, Warning};
use storage::engine::KvEngine;

use crate::ir::routine::Routine;
use crate::parse::compound::{Assign, CondValue, Handler, Node, Program, SpExpr, SpSql};
use crate::program::call;
use crate::program::signal;
use crate::session::session::{Output, Session};

/// What a statement leaves the enclosing construct to do.
#[derive(Debug)]
pub enum Flow<'p> {
    /// Go on with the next statement.
    Next,
    /// LEAVE label.
    Leave(&'p str),
    /// ITERATE label.
    Iterate(&'p str),
    /// RETURN value.
    Return(Value),
    /// An EXIT handler ran: leave the block at this handler-scope depth.
    Exit(usize),
}

/// An open cursor: its rows and the next one's index.
struct Cursor {
    rows: Vec<Vec<Value>>,
    next: usize,
}

/// One running routine's state.
pub struct Frame<'p> {
    routine: &'p Arc<Routine>,
    prog: &'p Program,
    /// Local variables, parameters first.
    pub slots: Vec<Value>,
    types: Vec<DataType>,
    cursors: Vec<Option<Cursor>>,
    /// Handlers of the blocks entered, outermost first.
    scopes: Vec<&'p [Handler]>,
    /// The condition the running handler handles (for RESIGNAL).
    condition: Option<Error>,
}

/// The declared types of `r`'s variables, then a function's RETURNS type.
fn types_of(r: &Routine) -> Result<Vec<DataType>> {
    if let Some(t) = r.types.get() {
        return Ok(t.clone());
    }
    let mut t = Vec::with_capacity(r.program.vars.len() + 1);
    for v in &r.program.vars {
        t.push(call::resolve_type(&v.ty, &v.name)?);
    }
    if let Some(ret) = &r.def.returns {
        t.push(call::resolve_type(ret, &r.def.name)?);
    }
    let _ = r.types.set(t.clone());
    Ok(t)
}

impl<'p> Frame<'p> {
    /// A frame for a call of `r`, every variable NULL.
    ///
    /// # Errors
    /// A declared type that no longer resolves.
    pub fn new(r: &'p Arc<Routine>) -> Result<Frame<'p>> {
        let prog = &*r.program;
        Ok(Frame {
            routine: r,
            prog,
            slots: vec![Value::Null; prog.vars.len()],
            types: types_of(r)?,
            cursors: (0..prog.cursors.len()).map(|_| None).collect(),
            scopes: Vec::new(),
            condition: None,
        })
    }

    /// Stores `v` into variable `k`, converted to its declared type.
    ///
    /// # Errors
    /// A value the type refuses in strict mode.
    pub fn set<E: KvEngine>(&mut self, s: &mut Session<E>, k: usize, v: Value) -> Result<()> {
        let name = &self.prog.vars[k].name;
        self.slots[k] = call::store(s, v, &self.types[k], name)?;
        Ok(())
    }

    /// A function's RETURNS type.
    pub fn return_type(&self) -> Option<&DataType> {
        self.routine
            .def
            .returns
            .as_ref()
            .and_then(|_| self.types.last())
    }

    fn params(&self, slots: &[usize]) -> Vec<Value> {
        slots.iter().map(|k| self.slots[*k].clone()).collect()
    }

    fn eval<E: KvEngine>(&self, s: &mut Session<E>, e: &SpExpr) -> Result<Value> {
        call::eval(s, &e.expr, &self.params(&e.slots))
    }

    fn truth<E: KvEngine>(&self, s: &mut Session<E>, e: &SpExpr) -> Result<bool> {
        let v = self.eval(s, e)?;
        let mut w = Vec::new();
        let t = match v {
            Value::Null => false,
            Value::Int(i) => i != 0,
            Value::UInt(u) => u != 0,
            v => func::convert::to_bool(&v, &mut w) == Some(true),
        };
        s.warnings.extend(w);
        Ok(t)
    }

    /// The innermost scope with a handler for `num` / `sqlstate`, and its best handler.
    fn find(&self, num: u16, sqlstate: &str) -> Option<(usize, &'p Handler)> {
        for (depth, hs) in self.scopes.iter().enumerate().rev() {
            let best = hs
                .iter()
                .filter_map(|h| {
                    h.conds
                        .iter()
                        .filter_map(|c| signal::matches(c, num, sqlstate))
                        .max()
                        .map(|p| (p, h))
                })
                .max_by_key(|(p, _)| *p);
            if let Some((_, h)) = best {
                return Some((depth, h));
            }
        }
        None
    }
}

/// Runs the body of `f`'s routine; a function's RETURN value.
///
/// # Errors
/// A condition no handler handled.
pub fn run<E: KvEngine>(s: &mut Session<E>, f: &mut Frame<'_>) -> Result<Option<Value>> {
    let prog = f.prog;
    match exec(s, f, &prog.body)? {
        Flow::Return(v) => Ok(Some(v)),
        _ => Ok(None),
    }
}

fn exec_list<'p, E: KvEngine>(
    s: &mut Session<E>,
    f: &mut Frame<'p>,
    nodes: &'p [Node],
) -> Result<Flow<'p>> {
    for n in nodes {
        match exec(s, f, n)? {
            Flow::Next => {}
            other => return Ok(other),
        }
    }
    Ok(Flow::Next)
}

/// Runs a loop body once per turn until LEAVE (of this loop: done), ITERATE (of this loop:
/// next turn) or `more` says stop.
fn run_loop<'p, E: KvEngine>(
    s: &mut Session<E>,
    f: &mut Frame<'p>,
    label: &'p Option<String>,
    body: &'p [Node],
    mut before: impl FnMut(&mut Session<E>, &mut Frame<'p>) -> Result<Option<bool>>,
    mut after: impl FnMut(&mut Session<E>, &mut Frame<'p>) -> Result<Option<bool>>,
) -> Result<Flow<'p>> {
    let mine = |l: &str| label.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(l));
    loop {
        if s.killed.load(Ordering::Relaxed) {
            return Err(Error::interrupted());
        }
        match before(s, f) {
            Ok(Some(true)) => {}
            Ok(Some(false)) => return Ok(Flow::Next),
            Ok(None) => return Ok(Flow::Next),
            Err(e) => return handle(s, f, e),
        }
        match exec_list(s, f, body)? {
            Flow::Leave(l) if mine(l) => return Ok(Flow::Next),
            Flow::Iterate(l) if mine(l) => continue,
            Flow::Next => {}
            other => return Ok(other),
        }
        match after(s, f) {
            Ok(Some(true)) => {}
            Ok(_) => return Ok(Flow::Next),
            Err(e) => return handle(s, f, e),
        }
    }
}

fn exec<'p, E: KvEngine>(
    s: &mut Session<E>,
    f: &mut Frame<'p>,
    node: &'p Node,
) -> Result<Flow<'p>> {
    match node {
        Node::Block {
            label,
            handlers,
            cursors,
            body,
        } => {
            let depth = f.scopes.len();
            f.scopes.push(handlers);
            let r = exec_list(s, f, body);
            f.scopes.truncate(depth);
            for c in cursors {
                f.cursors[*c] = None;
            }
            match r? {
                Flow::Leave(l) if label.as_deref() == Some(l) => Ok(Flow::Next),
                Flow::Exit(d) if d == depth => Ok(Flow::Next),
                other => Ok(other),
            }
        }
        Node::If(branches, otherwise) => {
            for (cond, body) in branches {
                match f.truth(s, cond) {
                    Ok(true) => return exec_list(s, f, body),
                    Ok(false) => {}
                    Err(e) => return handle(s, f, e),
                }
            }
            match otherwise {
                Some(body) => exec_list(s, f, body),
                None => Ok(Flow::Next),
            }
        }
        Node::Case(operand, whens, otherwise) => match case_branch(s, f, operand, whens) {
            Ok(Some(k)) => exec_list(s, f, &whens[k].1),
            Ok(None) => match otherwise {
                Some(body) => exec_list(s, f, body),
                None => handle(
                    s,
                    f,
                    Error::new(
                        codes::ER_SP_CASE_NOT_FOUND,
                        "Case not found for CASE statement",
                    ),
                ),
            },
            Err(e) => handle(s, f, e),
        },
        Node::Loop(label, body) => run_loop(
            s,
            f,
            label,
            body,
            |_, _| Ok(Some(true)),
            |_, _| Ok(Some(true)),
        ),
        Node::While(label, cond, body) => run_loop(
            s,
            f,
            label,
            body,
            |s, f| f.truth(s, cond).map(Some),
            |_, _| Ok(Some(true)),
        ),
        Node::Repeat(label, body, until) => run_loop(
            s,
            f,
            label,
            body,
            |_, _| Ok(Some(true)),
            |s, f| f.truth(s, until).map(|t| Some(!t)),
        ),
        Node::Leave(l) => Ok(Flow::Leave(l)),
        Node::Iterate(l) => Ok(Flow::Iterate(l)),
        other => match simple(s, f, other) {
            Ok(flow) => Ok(flow),
            Err(e) => handle(s, f, e),
        },
    }
}

/// The index of the CASE branch that applies, if any.
fn case_branch<E: KvEngine>(
    s: &mut Session<E>,
    f: &mut Frame<'_>,
    operand: &Option<SpExpr>,
    whens: &[(SpExpr, Vec<Node>)],
) -> Result<Option<usize>> {
    let op = match operand {
        Some(o) => Some(f.eval(s, o)?),
        None => None,
    };
    for (k, (w, _)) in whens.iter().enumerate() {
        let hit = match &op {
            Some(o) => {
                let v = f.eval(s, w)?;
                func::compare::compare(o, &v, s.collation()) == Some(std::cmp::Ordering::Equal)
            }
            None => f.truth(s, w)?,
        };
        if hit {
            return Ok(Some(k));
        }
    }
    Ok(None)
}

/// The statements that raise conditions where they run.
fn simple<'p, E: KvEngine>(
    s: &mut Session<E>,
    f: &mut Frame<'p>,
    node: &'p Node,
) -> Result<Flow<'p>> {
    match node {
        Node::Declare(slots, default) => {
            let v = match default {
                Some(e) => f.eval(s, e)?,
                None => Value::Null,
            };
            for k in slots {
                f.set(s, *k, v.clone())?;
            }
        }
        Node::Set(assigns) => {
            for a in assigns {
                match a {
                    Assign::Var(t, e) => {
                        let v = f.eval(s, e)?;
                        call::assign(s, Some(f), t, v)?;
                    }
                    Assign::Sys(name, e) => {
                        let v = f.eval(s, e)?;
                        set_system(s, name, &v)?;
                    }
                }
            }
        }
        Node::Return(e) => {
            let v = f.eval(s, e)?;
            return Ok(Flow::Return(v));
        }
        Node::Open(c) => {
            if f.cursors[*c].is_some() {
                return Err(Error::new(
                    codes::ER_SP_CURSOR_ALREADY_OPEN,
                    "Cursor is already open",
                ));
            }
            let q = &f.prog.cursors[*c].1;
            let rows = match run_sql(s, f, q)? {
                Output::Rows { rows, .. } => rows,
                _ => Vec::new(),
            };
            f.cursors[*c] = Some(Cursor { rows, next: 0 });
        }
        Node::Fetch(c, into) => {
            let cur = f.cursors[*c].as_mut().ok_or_else(not_open)?;
            let Some(row) = cur.rows.get(cur.next).cloned() else {
                return Err(Error::new(
                    codes::ER_SP_FETCH_NO_DATA,
                    "No data - zero rows fetched, selected, or processed",
                ));
            };
            cur.next += 1;
            if row.len() != into.len() {
                return Err(Error::new(
                    codes::ER_SP_WRONG_NO_OF_FETCH_ARGS,
                    "Incorrect number of FETCH variables",
                ));
            }
            for (t, v) in into.iter().zip(row) {
                call::assign(s, Some(f), t, v)?;
            }
        }
        Node::Close(c) => {
            f.cursors[*c].take().ok_or_else(not_open)?;
        }
        Node::Signal(resignal, cond, items) => return signal_stmt(s, f, *resignal, cond, items),
        Node::Call {
            db,
            name,
            args,
            targets,
        } => call_in_body(s, f, db, name, args, targets)?,
        Node::Sql(sql) => return sql_stmt(s, f, sql),
        _ => return Err(Error::internal("compound statement run as a simple one")),
    }
    Ok(Flow::Next)
}

fn not_open() -> Error {
    Error::new(codes::ER_SP_CURSOR_NOT_OPEN, "Cursor is not open")
}

/// Runs `sql` with the frame's values for its placeholders.
fn run_sql<E: KvEngine>(s: &mut Session<E>, f: &Frame<'_>, sql: &SpSql) -> Result<Output> {
    let hooks = s
        .programs
        .hooks
        .ok_or_else(|| Error::internal("stored programs are not wired to this session"))?;
    (hooks.run_statement)(s, &sql.parsed, &f.params(&sql.slots))
}

fn sql_stmt<'p, E: KvEngine>(
    s: &mut Session<E>,
    f: &mut Frame<'p>,
    sql: &'p SpSql,
) -> Result<Flow<'p>> {
    let out = run_sql(s, f, sql)?;
    if !sql.into.is_empty() {
        let Output::Rows { rows, .. } = out else {
            return Err(Error::internal("SELECT … INTO without rows"));
        };
        if rows.len() > 1 {
            return Err(Error::new(
                codes::ER_TOO_MANY_ROWS,
                "Result consisted of more than one row",
            ));
        }
        match rows.into_iter().next() {
            None => s.warnings.push(Warning::warn(
                codes::ER_SP_FETCH_NO_DATA,
                "No data - zero rows fetched, selected, or processed",
            )),
            Some(row) if row.len() != sql.into.len() => {
                return Err(Error::new(
                    codes::ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT,
                    "The used SELECT statements have a different number of columns",
                ))
            }
            Some(row) => {
                for (t, v) in sql.into.iter().zip(row) {
                    call::assign(s, Some(f), t, v)?;
                }
            }
        }
    } else if matches!(out, Output::Rows { .. } | Output::RowsSent { .. }) {
        if s.programs.in_function() {
            return Err(Error::new(
                codes::ER_SP_BADSELECT,
                format!(
                    "PROCEDURE {} can't return a result set in the given context",
                    f.routine.def.name
                ),
            ));
        }
        s.programs.results.push(out);
    }
    warning_handlers(s, f)
}

/// A warning the last statement raised that a handler in force wants: handled as a
/// condition (the last such warning, as MySQL activates one handler per statement).
fn warning_handlers<'p, E: KvEngine>(s: &mut Session<E>, f: &mut Frame<'p>) -> Result<Flow<'p>> {
    if f.scopes.iter().all(|h| h.is_empty()) {
        return Ok(Flow::Next);
    }
    let hit = s.warnings.iter().rposition(|w| {
        w.level != Level::Error && {
            let e = signal::warning_error(w);
            f.find(e.code.num, e.code.sqlstate).is_some()
        }
    });
    match hit {
        Some(k) => {
            let w = s.warnings.remove(k);
            handle(s, f, signal::warning_error(&w))
        }
        None => Ok(Flow::Next),
    }
}

/// Hands condition `e` to the handler in force for it, or returns it.
fn handle<'p, E: KvEngine>(s: &mut Session<E>, f: &mut Frame<'p>, e: Error) -> Result<Flow<'p>> {
    // the failed statement's own entry: dropped when handled, and given again by the CALL
    // (or statement) the error ends otherwise
    s.warnings
        .retain(|w| !(w.level == Level::Error && w.code == e.code.num));
    if e.code.num == codes::ER_QUERY_INTERRUPTED.num || s.killed.load(Ordering::Relaxed) {
        return Err(e);
    }
    let Some((depth, h)) = f.find(e.code.num, e.code.sqlstate) else {
        return Err(e);
    };
    let outer = f.scopes.split_off(depth);
    let saved = f.condition.replace(e);
    let r = exec(s, f, &h.body);
    f.condition = saved;
    f.scopes.extend(outer);
    match r? {
        Flow::Next if h.cont => Ok(Flow::Next),
        Flow::Next => Ok(Flow::Exit(depth)),
        other => Ok(other),
    }
}

fn signal_stmt<'p, E: KvEngine>(
    s: &mut Session<E>,
    f: &mut Frame<'p>,
    resignal: bool,
    cond: &Option<CondValue>,
    items: &'p [(String, SpExpr)],
) -> Result<Flow<'p>> {
    let mut text = None;
    let mut errno = None;
    for (item, e) in items {
        let v = f.eval(s, e)?;
        match item.as_str() {
            "MESSAGE_TEXT" => text = Some(v.to_string()),
            "MYSQL_ERRNO" => errno = Some(signal::errno_value(&v)?),
            // the other items describe the condition for GET DIAGNOSTICS, which Strata
            // does not have: evaluated (their errors count) and not kept
            _ => {}
        }
    }
    let sqlstate = match cond {
        Some(CondValue::SqlState(st)) => Some(st.clone()),
        Some(_) => {
            return Err(Error::new(
                codes::ER_SIGNAL_BAD_CONDITION_TYPE,
                "SIGNAL/RESIGNAL can only use a CONDITION defined with SQLSTATE",
            ))
        }
        None => None,
    };
    let e = if resignal {
        let base = f
            .condition
            .as_ref()
            .map(|e| Error::new(e.code, e.msg.clone()))
            .ok_or_else(|| {
                Error::new(
                    codes::ER_RESIGNAL_WITHOUT_ACTIVE_HANDLER,
                    "RESIGNAL when handler not active",
                )
            })?;
        signal::resignal_error(&base, sqlstate.as_deref(), errno, text)
    } else {
        let st = sqlstate.unwrap_or_default();
        signal::signal_error(&st, errno, text)
    };
    if signal::is_warning(e.code.sqlstate) && f.find(e.code.num, e.code.sqlstate).is_none() {
        s.warnings.push(Warning {
            level: Level::Warning,
            code: e.code.num,
            msg: e.msg,
        });
        return Ok(Flow::Next);
    }
    if resignal {
        // RESIGNAL passes the condition on to the handlers outside the running one
        return Err(e);
    }
    Err(e)
}

/// CALL inside a body: arguments from the frame, OUT / INOUT written back to locals or user
/// variables.
fn call_in_body<E: KvEngine>(
    s: &mut Session<E>,
    f: &mut Frame<'_>,
    db: &Option<String>,
    name: &str,
    args: &[SpExpr],
    targets: &[Option<crate::parse::compound::Target>],
) -> Result<()> {
    let dbname = match db {
        Some(d) => d.clone(),
        None => f.routine.def.db.clone(),
    };
    let r = s
        .routine(
            &dbname,
            storage::catalog::routine::RoutineKind::Procedure,
            name,
        )?
        .ok_or_else(|| {
            Error::new(
                codes::ER_SP_DOES_NOT_EXIST,
                format!("PROCEDURE {dbname}.{name} does not exist"),
            )
        })?;
    if args.len() != r.def.params.len() {
        return Err(Error::new(
            codes::ER_SP_WRONG_NO_OF_ARGS,
            format!(
                "Incorrect number of arguments for PROCEDURE {}; expected {}, got {}",
                r.qualified(),
                r.def.params.len(),
                args.len()
            ),
        ));
    }
    let mut vals = Vec::with_capacity(args.len());
    for (k, (a, p)) in args.iter().zip(&r.def.params).enumerate() {
        if p.mode != "IN" && targets[k].is_none() {
            return Err(call::not_var_arg(k, &r));
        }
        vals.push(if p.mode == "OUT" {
            Value::Null
        } else {
            f.eval(s, a)?
        });
    }
    let out = call::invoke(s, &r, vals)?;
    call::write_back(s, Some(f), &r, targets, out.params)
}

/// `SET [scope] name = v` for a system variable, through the normal SET statement.
fn set_system<E: KvEngine>(s: &mut Session<E>, name: &str, v: &Value) -> Result<()> {
    let text = format!("SET {name} = {}", literal(v));
    let mut parsed = crate::parse::parser::parse_with(&text, s.parse_mode())?;
    let p = parsed.pop().ok_or_else(|| Error::parse(&text))?;
    let hooks = s
        .programs
        .hooks
        .ok_or_else(|| Error::internal("stored programs are not wired to this session"))?;
    (hooks.run_statement)(s, &p, &[])?;
    Ok(())
}

/// `v` as a SQL literal.
fn literal(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Float(_) | Value::Decimal(_) => {
            v.to_string()
        }
        Value::Bytes(b) => {
            let hex: String = b.iter().map(|x| format!("{x:02X}")).collect();
            format!("X'{hex}'")
        }
        other => format!(
            "'{}'",
            other.to_string().replace('\\', "\\\\").replace('\'', "''")
        ),
    }
}
