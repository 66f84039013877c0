//! INSERT (VALUES, SET, SELECT; IGNORE; ON DUPLICATE KEY UPDATE), REPLACE, UPDATE and DELETE
//! with MySQL's conversions, defaults, AUTO_INCREMENT, warnings and affected-row counts.

use std::sync::Arc;

use common::{codes, DataType, Error, Result, Value, Warning};
use sqlparser::ast;
use storage::catalog::{ColumnDef, TableDef};
use storage::engine::KvEngine;
use storage::txn::{InsertOutcome, LockMode, UpdateOutcome};

use crate::bind::expr::Binder;
use crate::bind::select::resolve_table;
use crate::bind::select::table_scope;
use crate::exec::fetch::fetch_planned;
use crate::exec::fetch::Scan;
use crate::ir::block::IndexHints;
use crate::ir::expr::EvalCtx;
use crate::ir::expr::Expr;
use crate::ir::scope::Scope;
use crate::ir::scope::ScopeCol;
use crate::session::session::Output;
use crate::session::session::Session;

/// Parses and binds a column's DEFAULT clause text.
pub fn default_expr<E: KvEngine>(s: &Session<E>, col: &ColumnDef) -> Result<Option<Expr>> {
    let Some(text) = &col.default else {
        return Ok(None);
    };
    let dialect = crate::parse::dialect::StrataDialect::default();
    let e = sqlparser::parser::Parser::new(&dialect)
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| Error::internal(format!("stored default '{text}' does not parse: {e}")))?;
    let scope = Scope::default();
    Ok(Some(Binder::new(&scope, s, "field list").bind(&e)?))
}

/// The value MySQL uses for a NOT NULL column without a default in non-strict mode.
pub fn implicit_default(ty: &DataType) -> Value {
    match ty {
        DataType::Int { .. } | DataType::Year | DataType::Bit { .. } => Value::Int(0),
        DataType::Decimal { .. } => Value::Decimal(common::Decimal::zero()),
        DataType::Float { .. } => Value::Float(0.0),
        DataType::Double { .. } => Value::Double(0.0),
        DataType::Date => Value::Date(Default::default()),
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } => {
            Value::DateTime(Default::default(), *fsp)
        }
        DataType::Time { fsp } => Value::Time(Default::default(), *fsp),
        DataType::Binary { len } => Value::Bytes(vec![0; *len as usize]),
        DataType::VarBinary { .. } | DataType::Blob { .. } => Value::Bytes(vec![]),
        DataType::Enum { values, .. } => Value::Str(values.first().cloned().unwrap_or_default()),
        _ => Value::Str(String::new()),
    }
}

/// Per-statement cache of bound column defaults, each parsed and bound on first use (an
/// INSERT that names every column parses none).
struct Defaults {
    exprs: Vec<Option<Option<Expr>>>,
}

impl Defaults {
    fn new(t: &TableDef) -> Self {
        Defaults {
            exprs: vec![None; t.columns.len()],
        }
    }

    /// The bound DEFAULT of column `ci` of `t` (None: the column has no DEFAULT clause).
    fn get<E: KvEngine>(
        &mut self,
        s: &Session<E>,
        t: &TableDef,
        ci: usize,
    ) -> Result<Option<&Expr>> {
        let slot = &mut self.exprs[ci];
        if slot.is_none() {
            *slot = Some(default_expr(s, &t.columns[ci])?);
        }
        Ok(slot.as_ref().and_then(|e| e.as_ref()))
    }
}

/// Completes the explicitly given values of a new row: defaults for the other columns, the
/// default (NOW()) for a NOT NULL TIMESTAMP given NULL, AUTO_INCREMENT values. Shared by INSERT
/// and LOAD DATA.
pub(crate) struct RowFiller {
    defaults: Defaults,
    strict: bool,
    no_auto_on_zero: bool,
    autoinc_col: Option<usize>,
    /// The first AUTO_INCREMENT value generated.
    pub first_id: Option<u64>,
    /// The last explicit AUTO_INCREMENT value given.
    pub explicit_id: Option<u64>,
    /// The table's generated columns, computed last.
    generated: crate::dml::generated::RowGenerated,
    /// INSERT IGNORE: a value given for a generated column is a warning, not an error.
    ignore: bool,
}

impl RowFiller {
    /// A filler for rows of `t` (`strict`: a missing value without default is an error;
    /// `ignore`: the statement's IGNORE).
    pub fn new<E: KvEngine>(
        s: &Session<E>,
        t: &TableDef,
        strict: bool,
        ignore: bool,
    ) -> Result<Self> {
        Ok(RowFiller {
            generated: crate::dml::generated::RowGenerated::bind(s, t)?,
            ignore,
            defaults: Defaults::new(t),
            strict,
            no_auto_on_zero: s.mode("NO_AUTO_VALUE_ON_ZERO"),
            autoinc_col: t.columns.iter().position(|c| c.auto_increment),
            first_id: None,
            explicit_id: None,
        })
    }

    /// The full row from `row` (`None` = not given; values already converted to the column
    /// types).
    pub fn fill<E: KvEngine>(
        &mut self,
        s: &mut Session<E>,
        t: &TableDef,
        row: Vec<Option<Value>>,
        row_no: u64,
        ctx: &mut EvalCtx<'_>,
    ) -> Result<Vec<Value>> {
        let defaults = &mut self.defaults;
        let strict = self.strict;
        let mut full = Vec::with_capacity(t.columns.len());
        for (ci, v) in row.into_iter().enumerate() {
            let c = &t.columns[ci];
            if c.generated.is_some() {
                if v.is_some() {
                    crate::dml::generated::may_assign(t, ci, self.ignore, ctx)?;
                }
                full.push(Value::Null); // computed below
                continue;
            }
            let v = match v {
                Some(v) => v,
                None => match defaults.get(s, t, ci)? {
                    Some(d) => {
                        let dv = d.eval(&[], ctx)?;
                        if dv.is_null() {
                            Value::Null
                        } else {
                            func::store::store(dv, &c.ty, false, &c.name, row_no, ctx.warnings)?
                        }
                    }
                    None if c.nullable || c.auto_increment => Value::Null,
                    // an ENUM NOT NULL without DEFAULT defaults to its first member (MySQL)
                    None if matches!(c.ty, DataType::Enum { .. }) => implicit_default(&c.ty),
                    None => {
                        if strict {
                            return Err(Error::new(
                                codes::ER_NO_DEFAULT_FOR_FIELD,
                                format!("Field '{}' doesn't have a default value", c.name),
                            ));
                        }
                        ctx.warnings.push(Warning::warn(
                            codes::ER_NO_DEFAULT_FOR_FIELD,
                            format!("Field '{}' doesn't have a default value", c.name),
                        ));
                        implicit_default(&c.ty)
                    }
                },
            };
            full.push(v);
        }
        // TIMESTAMP NOT NULL given NULL → now
        for (ci, c) in t.columns.iter().enumerate() {
            if full[ci].is_null() && !c.nullable && !c.auto_increment && c.generated.is_none() {
                if let Some(d) = defaults.get(s, t, ci)? {
                    let dv = d.eval(&[], ctx)?;
                    full[ci] = func::store::store(dv, &c.ty, false, &c.name, row_no, ctx.warnings)?;
                }
            }
        }
        if let Some(ai) = self.autoinc_col {
            let is_zero =
                matches!(full[ai], Value::Int(0) | Value::UInt(0)) && !self.no_auto_on_zero;
            if full[ai].is_null() || is_zero {
                let id = s.storage().autoinc_next(t, 1)?;
                full[ai] = func::store::store(
                    Value::UInt(id),
                    &t.columns[ai].ty,
                    true,
                    &t.columns[ai].name,
                    row_no,
                    ctx.warnings,
                )?;
                self.first_id.get_or_insert(id);
            } else {
                let v = func::convert::to_u64(&full[ai], ctx.warnings).unwrap_or(0);
                if v > 0 {
                    s.storage().autoinc_observe(t, v)?;
                    self.explicit_id = Some(v);
                }
            }
        }
        self.generated.compute(t, &mut full, strict, row_no, ctx)?;
        Ok(full)
    }

    /// Recomputes the generated columns of `row` after it changed (ON DUPLICATE KEY UPDATE).
    pub fn regenerate(
        &self,
        t: &TableDef,
        row: &mut [Value],
        row_no: u64,
        ctx: &mut EvalCtx<'_>,
    ) -> Result<()> {
        self.generated.compute(t, row, self.strict, row_no, ctx)
    }
}

/// Converts `v` for column `ci`, applying NOT NULL rules.
pub(crate) fn convert_col(
    t: &TableDef,
    ci: usize,
    v: Value,
    strict: bool,
    row_no: u64,
    single_row: bool,
    ctx: &mut EvalCtx<'_>,
) -> Result<Value> {
    let c = &t.columns[ci];
    if v.is_null() {
        if c.nullable || c.auto_increment {
            return Ok(Value::Null);
        }
        if matches!(c.ty, DataType::Timestamp { .. })
            && c.default
                .as_deref()
                .is_some_and(|d| d.to_ascii_uppercase().starts_with("CURRENT_TIMESTAMP"))
        {
            // explicit NULL into a NOT NULL TIMESTAMP with a CURRENT_TIMESTAMP default
            return Ok(Value::Null);
        }
        if strict || single_row {
            return Err(Error::bad_null(&c.name));
        }
        ctx.warnings.push(Warning::warn(
            codes::ER_BAD_NULL_ERROR,
            format!("Column '{}' cannot be null", c.name),
        ));
        return Ok(implicit_default(&c.ty));
    }
    let stored = func::store::store(v, &c.ty, strict, &c.name, row_no, ctx.warnings)?;
    check_zero_date(c, stored, strict, row_no, ctx)
}

/// sql_mode NO_ZERO_DATE / NO_ZERO_IN_DATE for a value stored into a temporal column: an error
/// (1292) in strict mode; otherwise a warning, and a date with a zero part becomes the zero
/// date, as MySQL does.
fn check_zero_date(
    c: &ColumnDef,
    v: Value,
    strict: bool,
    row_no: u64,
    ctx: &mut EvalCtx<'_>,
) -> Result<Value> {
    let (d, kind) = match &v {
        Value::Date(d) => (d, "date"),
        Value::DateTime(d, _) => (d, "datetime"),
        _ => return Ok(v),
    };
    let zero = d.year == 0 && d.month == 0 && d.day == 0;
    let zero_part = !zero && (d.month == 0 || d.day == 0);
    let bad = (zero && ctx.no_zero_date) || (zero_part && ctx.no_zero_in_date);
    if !bad {
        return Ok(v);
    }
    let text = v.to_string();
    let msg = format!(
        "Incorrect {kind} value: '{text}' for column '{}' at row {row_no}",
        c.name
    );
    if strict {
        return Err(Error::new(codes::ER_TRUNCATED_WRONG_VALUE, msg));
    }
    ctx.warnings
        .push(Warning::warn(codes::ER_TRUNCATED_WRONG_VALUE, msg));
    Ok(if zero_part {
        match v {
            Value::Date(_) => Value::Date(common::time::DateTime::default()),
            Value::DateTime(_, fsp) => Value::DateTime(common::time::DateTime::default(), fsp),
            other => other,
        }
    } else {
        v
    })
}

pub(crate) fn dup_error(t: &TableDef, index_no: usize, row: &[Value]) -> Error {
    let idx = &t.indexes[index_no];
    let vals: Vec<String> = idx
        .columns
        .iter()
        .map(|ic| {
            let v = &row[ic.col];
            let s = v.to_string();
            match ic.prefix_len {
                Some(n) => s.chars().take(n as usize).collect(),
                None => s,
            }
        })
        .collect();
    Error::dup_entry(&vals.join("-"), &format!("{}.{}", t.name, idx.name))
}

fn table_name(ins: &ast::Insert) -> Result<ast::ObjectName> {
    match &ins.table {
        ast::TableObject::TableName(n) => Ok(n.clone()),
        other => Err(Error::not_supported(other.to_string())),
    }
}

fn col_index(t: &TableDef, name: &str, clause: &str) -> Result<usize> {
    t.columns
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| Error::bad_field(name, clause))
}

fn is_default_kw(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Identifier(id) if id.quote_style.is_none() && id.value.eq_ignore_ascii_case("DEFAULT"))
}

/// Scope for ON DUPLICATE KEY UPDATE: existing row columns, then the new row's under a hidden
/// qualifier that `VALUES(col)` resolves to.
fn upsert_scope(t: &TableDef) -> Scope {
    let mut scope = table_scope(t, None);
    let n = scope.cols.len();
    for i in 0..n {
        let c = scope.cols[i].clone();
        scope.cols.push(ScopeCol {
            table: crate::ir::scope::VALUES_QUALIFIER.to_string(),
            ..c
        });
    }
    scope
}

/// INSERT / REPLACE.
pub fn insert<E: KvEngine>(
    s: &mut Session<E>,
    ins: &ast::Insert,
    params: &[Value],
) -> Result<Output> {
    if selects(ins) {
        // binds its target per execution; the SELECT's plan is the one the cache keeps
        return insert_checked(s, ins, params, None);
    }
    // a prepared INSERT … VALUES / SET into a table keeps its bound form; one into a view is
    // rewritten at each execution
    let plan = s.prepared_plan(|s| {
        if crate::ddl::view::target_view(s, &table_name(ins)?)?.is_some() {
            return Ok(None);
        }
        bind_insert(s, ins).map(Some)
    })?;
    match plan {
        Some(p) => run_insert(s, &p, &None, params),
        None => insert_checked(s, ins, params, None),
    }
}

/// Whether the rows of an INSERT come from a query (INSERT … SELECT / TABLE).
fn selects(ins: &ast::Insert) -> bool {
    ins.assignments.is_empty()
        && ins
            .source
            .as_ref()
            .is_some_and(|q| !matches!(q.body.as_ref(), ast::SetExpr::Values(_)))
}

/// The CHECK OPTION condition of the views a write goes through, bound over table `t`.
fn bind_view_check<'c, E: KvEngine>(
    s: &Session<E>,
    t: &TableDef,
    check: Option<&'c crate::ddl::view::ViewCheck>,
) -> Result<Option<(Expr, &'c crate::ddl::view::ViewCheck)>> {
    let Some(c) = check else { return Ok(None) };
    let Some(cond) = c.condition() else {
        return Ok(None);
    };
    let scope = table_scope(t, None);
    Ok(Some((
        Binder::new(&scope, s, "where clause").bind(&cond)?,
        c,
    )))
}

/// Whether `row` meets the CHECK OPTION condition: Ok(true) to write it; with IGNORE a failure
/// is warning 1369 and Ok(false), else error 1369.
fn view_check_passes<E: KvEngine>(
    s: &mut Session<E>,
    check: &Option<(Expr, &crate::ddl::view::ViewCheck)>,
    row: &[Value],
    ignore: bool,
    ctx: &mut crate::ir::expr::EvalCtx<'_>,
) -> Result<bool> {
    let Some((cond, c)) = check else {
        return Ok(true);
    };
    if crate::exec::query::eval_bool(s, cond, row, ctx)? {
        return Ok(true);
    }
    if ignore {
        ctx.warnings
            .push(Warning::warn(codes::ER_VIEW_CHECK_FAILED, c.failed().msg));
        return Ok(false);
    }
    Err(c.failed())
}

fn insert_checked<E: KvEngine>(
    s: &mut Session<E>,
    ins: &ast::Insert,
    params: &[Value],
    check: Option<crate::ddl::view::ViewCheck>,
) -> Result<Output> {
    if let Some(v) = crate::ddl::view::target_view(s, &table_name(ins)?)? {
        let (rewritten, check) = crate::ddl::view::rewrite_insert(s, &v, ins, check)?;
        return insert_checked(s, &rewritten, params, check);
    }
    let plan = bind_insert(s, ins)?;
    let view_check = bind_view_check(s, &plan.t, check.as_ref())?;
    run_insert(s, &plan, &view_check, params)
}

/// Where the rows of an INSERT come from.
enum InsertSrc {
    /// VALUES rows or the SET list, bound (`None`: DEFAULT).
    Exprs(Vec<Vec<Option<Expr>>>),
    /// A query, run at each execution.
    Query(Box<ast::Query>),
}

/// An INSERT / REPLACE with its target resolved and its values and ON DUPLICATE KEY UPDATE
/// assignments bound: what a prepared INSERT … VALUES keeps between executions.
pub(crate) struct InsertPlan {
    t: Arc<TableDef>,
    ignore: bool,
    replace: bool,
    /// The table's column of each given value.
    targets: Vec<usize>,
    src: InsertSrc,
    upsert: Option<Vec<(usize, Expr)>>,
}

fn bind_insert<E: KvEngine>(s: &Session<E>, ins: &ast::Insert) -> Result<InsertPlan> {
    let t = resolve_table(s, &table_name(ins)?)?;
    not_a_view(&t, "INSERT")?;
    // INSERT INTO t PARTITION (p0, …)
    let t = match &ins.partitioned {
        Some(list) if !list.is_empty() => {
            let names: Vec<String> = list
                .iter()
                .map(|e| match e {
                    ast::Expr::Identifier(i) => Ok(i.value.clone()),
                    other => Err(Error::parse(other.to_string())),
                })
                .collect::<Result<_>>()?;
            Arc::new(crate::catalog::partition::select_partitions(&t, &names)?)
        }
        _ => t,
    };
    let ignore = ins.ignore;
    let replace = ins.replace_into;
    // target columns
    let targets: Vec<usize> = if !ins.assignments.is_empty() {
        let mut v = Vec::new();
        for a in &ins.assignments {
            match &a.target {
                ast::AssignmentTarget::ColumnName(n) => {
                    v.push(col_index(&t, &last_ident(n), "field list")?)
                }
                _ => return Err(Error::not_supported("tuple assignment")),
            }
        }
        v
    } else if ins.columns.is_empty() {
        // every column but the hidden ones of functional key parts
        (0..t.columns.len())
            .filter(|&i| !t.columns[i].is_hidden())
            .collect()
    } else {
        let mut v = Vec::new();
        for c in &ins.columns {
            let name = c.to_string();
            let i = col_index(&t, name.trim_matches('`'), "field list")?;
            if v.contains(&i) {
                return Err(Error::new(
                    codes::ER_FIELD_SPECIFIED_TWICE,
                    format!("Column '{}' specified twice", t.columns[i].name),
                ));
            }
            v.push(i);
        }
        v
    };
    // source rows: bound value expressions, or a query
    let src = if !ins.assignments.is_empty() {
        let mut b = Vec::with_capacity(ins.assignments.len());
        for a in &ins.assignments {
            b.push(bind_value(s, &a.value)?);
        }
        InsertSrc::Exprs(vec![b])
    } else {
        let q = ins.source.as_ref().ok_or_else(|| Error::parse("INSERT"))?;
        match q.body.as_ref() {
            ast::SetExpr::Values(v) => {
                let mut bound_rows: Vec<Vec<Option<Expr>>> = Vec::with_capacity(v.rows.len());
                for r in &v.rows {
                    if r.len() != targets.len() && !(r.is_empty() && ins.columns.is_empty()) {
                        return Err(Error::new(
                            codes::ER_WRONG_VALUE_COUNT_ON_ROW,
                            format!(
                                "Column count doesn't match value count at row {}",
                                bound_rows.len() + 1
                            ),
                        ));
                    }
                    let mut b = Vec::with_capacity(r.len());
                    for e in r.iter() {
                        b.push(bind_value(s, e)?);
                    }
                    bound_rows.push(b);
                }
                InsertSrc::Exprs(bound_rows)
            }
            _ => InsertSrc::Query(q.clone()),
        }
    };
    // ON DUPLICATE KEY UPDATE assignments
    let upsert: Option<Vec<(usize, Expr)>> = match &ins.on {
        Some(ast::OnInsert::DuplicateKeyUpdate(assigns)) => {
            let scope = upsert_scope(&t);
            let mut list = Vec::new();
            for a in assigns {
                let ci = match &a.target {
                    ast::AssignmentTarget::ColumnName(n) => {
                        col_index(&t, &last_ident(n), "field list")?
                    }
                    _ => return Err(Error::not_supported("tuple assignment")),
                };
                let e = match &ins.insert_alias {
                    Some(al) => {
                        let v = crate::dml::row_alias::rewrite(&a.value, al, &t, &targets)?;
                        Binder::new(&scope, s, "field list").bind(&v)?
                    }
                    None => Binder::new(&scope, s, "field list").bind(&a.value)?,
                };
                list.push((ci, e));
            }
            Some(list)
        }
        Some(other) => return Err(Error::not_supported(other.to_string())),
        None => None,
    };
    Ok(InsertPlan {
        t,
        ignore,
        replace,
        targets,
        src,
        upsert,
    })
}

/// A VALUES / SET expression, bound (`None`: the DEFAULT keyword).
fn bind_value<E: KvEngine>(s: &Session<E>, e: &ast::Expr) -> Result<Option<Expr>> {
    if is_default_kw(e) {
        return Ok(None);
    }
    Ok(Some(
        Binder::new(&Scope::default(), s, "field list").bind(e)?,
    ))
}

fn run_insert<E: KvEngine>(
    s: &mut Session<E>,
    plan: &InsertPlan,
    view_check: &Option<(Expr, &crate::ddl::view::ViewCheck)>,
    params: &[Value],
) -> Result<Output> {
    let InsertPlan {
        t,
        ignore,
        replace,
        targets,
        src,
        upsert,
    } = plan;
    let (ignore, replace) = (*ignore, *replace);
    let strict = s.strict() && !ignore;
    let (bound_rows, src_rows): (&[Vec<Option<Expr>>], Vec<Vec<Value>>) = match src {
        InsertSrc::Exprs(rows) => (rows, Vec::new()),
        InsertSrc::Query(q) => match crate::exec::select::execute(s, q, params, &q.to_string())? {
            Output::Rows { rows, .. } => {
                if rows.first().is_some_and(|r| r.len() != targets.len()) {
                    return Err(Error::new(
                        codes::ER_WRONG_VALUE_COUNT_ON_ROW,
                        "Column count doesn't match value count at row 1",
                    ));
                }
                (&[], rows)
            }
            _ => return Err(Error::internal("INSERT ... SELECT produced no rows")),
        },
    };
    let is_select = matches!(src, InsertSrc::Query(_));
    let nrows = if is_select {
        src_rows.len()
    } else {
        bound_rows.len()
    };
    let found_rows = s.client_found_rows;
    let strict_div = strict && s.mode("ERROR_FOR_DIVISION_BY_ZERO");
    let single_row = nrows == 1 && !is_select;
    let autoinc_col = t.columns.iter().position(|c| c.auto_increment);
    let mut filler = RowFiller::new(s, t, strict, ignore)?;
    let checks = crate::dml::check::RowChecks::bind(&*s, t)?;
    let mut skipped = 0usize;
    let (affected, first_id, dups, explicit_id) = s.with_ctx(params, strict_div, |s, ctx| {
        let mut affected = 0u64;
        let mut dups = 0u64;
        for ri in 0..nrows {
            let row_no = ri as u64 + 1;
            let mut row: Vec<Option<Value>> = vec![None; t.columns.len()];
            for (k, &ci) in targets.iter().enumerate() {
                let v = if is_select {
                    Some(src_rows[ri][k].clone())
                } else {
                    match bound_rows[ri].get(k).and_then(|e| e.as_ref()) {
                        Some(e) => Some(crate::exec::query::eval(s, e, &[], ctx)?),
                        None => None,
                    }
                };
                if let Some(v) = v {
                    row[ci] = Some(convert_col(t, ci, v, strict, row_no, single_row, ctx)?);
                }
            }
            let full = filler.fill(s, t, row, row_no, ctx)?;
            if !view_check_passes(s, view_check, &full, ignore, ctx)?
                || !checks.passes(&full, ignore, ctx)?
            {
                // skipped rows don't count as records (as MySQL)
                skipped += 1;
                continue;
            }
            // write, handling duplicates
            let mut attempts = 0;
            loop {
                attempts += 1;
                if attempts > 64 {
                    return Err(Error::internal("REPLACE did not converge"));
                }
                let outcome = crate::catalog::partition::insert(s, t, &full, ctx)?;
                match outcome {
                    InsertOutcome::Inserted(h) => {
                        if crate::dml::foreign_key::check_inserted(s, t, &h, &full, ignore, ctx)? {
                            affected += 1;
                        } else {
                            skipped += 1;
                        }
                        break;
                    }
                    InsertOutcome::Duplicate {
                        index_no,
                        handle,
                        row: existing,
                    } => {
                        if replace {
                            crate::dml::foreign_key::delete(s, t, &handle, &existing, false, ctx)?;
                            affected += 1;
                            continue;
                        }
                        if let Some(assigns) = upsert {
                            let mut env_row = existing.clone();
                            env_row.extend(full.iter().cloned());
                            let mut new = existing.clone();
                            for (ci, e) in assigns {
                                if !crate::dml::generated::may_assign(t, *ci, ignore, ctx)? {
                                    continue;
                                }
                                let v = e.eval(&env_row, ctx)?;
                                let v = convert_col(t, *ci, v, strict, row_no, true, ctx)?;
                                new[*ci] = v.clone();
                                env_row[*ci] = v;
                            }
                            apply_on_update(t, &existing, &mut new, assigns, ctx)?;
                            filler.regenerate(t, &mut new, row_no, ctx)?;
                            if !view_check_passes(s, view_check, &new, ignore, ctx)?
                                || !checks.passes(&new, ignore, ctx)?
                            {
                                break;
                            }
                            if rows_equal(&existing, &new) {
                                if found_rows {
                                    affected += 1;
                                }
                            } else {
                                match crate::dml::foreign_key::update(
                                    s, t, &handle, &existing, &new, ignore, ctx,
                                )? {
                                    Some(UpdateOutcome::Updated(_)) => affected += 2,
                                    Some(UpdateOutcome::Duplicate { index_no, .. }) => {
                                        return Err(dup_error(t, index_no, &new))
                                    }
                                    None => break,
                                }
                            }
                            if let Some(ai) = autoinc_col {
                                if filler.first_id.is_none() {
                                    if let Some(v) =
                                        func::convert::to_u64(&existing[ai], ctx.warnings)
                                    {
                                        filler.explicit_id = Some(v);
                                    }
                                }
                            }
                            break;
                        }
                        if ignore {
                            dups += 1;
                            let e = dup_error(t, index_no, &full);
                            ctx.warnings.push(Warning::warn(codes::ER_DUP_ENTRY, e.msg));
                            break;
                        }
                        return Err(dup_error(t, index_no, &full));
                    }
                }
            }
        }
        Ok((affected, filler.first_id, dups, filler.explicit_id))
    })?;
    if let Some(id) = first_id {
        s.last_insert_id = id;
    }
    let info = if nrows > 1 || is_select {
        format!(
            "Records: {}  Duplicates: {dups}  Warnings: {}",
            nrows - skipped,
            s.warnings.len()
        )
    } else {
        String::new()
    };
    Ok(Output::Ok {
        affected,
        last_insert_id: first_id.or(explicit_id).unwrap_or(0),
        info,
    })
}

fn last_ident(n: &ast::ObjectName) -> String {
    n.0.last()
        .map(|p| p.to_string().trim_matches('`').to_string())
        .unwrap_or_default()
}

/// Whether an UPDATE leaves a row as it was: every value the same, binary-exact (a change of
/// letter case or of a DECIMAL's printed scale is a change).
pub(crate) fn rows_equal(a: &[Value], b: &[Value]) -> bool {
    a.iter().zip(b).all(|(x, y)| match (x, y) {
        (Value::Null, Value::Null) => true,
        (Value::Null, _) | (_, Value::Null) => false,
        // the common kinds directly, without formatting both values
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Bytes(x), Value::Bytes(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::UInt(x), Value::UInt(y)) => x == y,
        _ => {
            func::compare::compare(x, y, common::Collation::Binary)
                == Some(std::cmp::Ordering::Equal)
                && x.to_string() == y.to_string()
        }
    })
}

/// Sets ON UPDATE CURRENT_TIMESTAMP columns when a row changes and they weren't assigned.
fn apply_on_update(
    t: &TableDef,
    old: &[Value],
    new: &mut [Value],
    assigned: &[(usize, Expr)],
    ctx: &mut EvalCtx<'_>,
) -> Result<()> {
    if !t.columns.iter().any(|c| c.on_update.is_some()) || rows_equal(old, new) {
        return Ok(());
    }
    for (ci, c) in t.columns.iter().enumerate() {
        if c.on_update.is_some() && !assigned.iter().any(|(a, _)| *a == ci) {
            let now = func::scalar::call("NOW", &[Value::Int(6)], ctx.fnctx, ctx.warnings)?;
            new[ci] = func::store::store(now, &c.ty, false, &c.name, 1, ctx.warnings)?;
        }
    }
    Ok(())
}

/// Rows of `t` matching a WHERE that may contain subqueries, locked for writing: uncorrelated
/// subqueries run first, correlated conjuncts are checked per row after the keyed read.
fn fetch_where<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    hints: &IndexHints,
    filter: Option<&Expr>,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<(Vec<u8>, Vec<Value>)>> {
    let scan = Scan::locking(LockMode::Exclusive);
    let Some(f) = filter else {
        return fetch_planned(s, t, hints, None, ctx, &scan);
    };
    if !f.has_subquery() {
        return fetch_planned(s, t, hints, Some(f), ctx, &scan);
    }
    let f = crate::exec::query::resolve(s, f, None, ctx)?;
    let (plain, correlated): (Vec<&Expr>, Vec<&Expr>) = crate::ir::expr::conjuncts(&f)
        .into_iter()
        .partition(|c| !c.has_subquery());
    let plain = plain
        .into_iter()
        .cloned()
        .reduce(|a, b| Expr::And(Box::new(a), Box::new(b)));
    let rows = fetch_planned(s, t, hints, plain.as_ref(), ctx, &scan)?;
    let mut out = Vec::with_capacity(rows.len());
    'rows: for (h, r) in rows {
        for c in &correlated {
            if !crate::exec::query::eval_bool(s, c, &r, ctx)? {
                continue 'rows;
            }
        }
        out.push((h, r));
    }
    Ok(out)
}

/// Error 1288 when a write names a view.
fn not_a_view(t: &TableDef, what: &str) -> Result<()> {
    if t.options.view.is_some() {
        return Err(crate::ddl::view::not_updatable(t, what));
    }
    Ok(())
}

/// The one table an UPDATE or DELETE changes, its alias and its index hints.
fn single_table<E: KvEngine>(
    s: &Session<E>,
    twj: &ast::TableWithJoins,
) -> Result<(Arc<TableDef>, Option<String>, IndexHints)> {
    if !twj.joins.is_empty() {
        return Err(Error::not_supported("multi-table UPDATE/DELETE"));
    }
    match &twj.relation {
        ast::TableFactor::Table {
            name,
            alias,
            partitions,
            index_hints,
            ..
        } => {
            let t = resolve_table(s, name)?;
            let t = if partitions.is_empty() {
                t
            } else {
                let names: Vec<String> = partitions.iter().map(|p| p.value.clone()).collect();
                Arc::new(crate::catalog::partition::select_partitions(&t, &names)?)
            };
            let alias = alias.as_ref().map(|a| a.name.value.clone());
            let shown = alias.clone().unwrap_or_else(|| t.name.clone());
            let hints = crate::bind::hints::bind_index_hints(&t, &shown, index_hints)?;
            Ok((t, alias, hints))
        }
        _ => Err(Error::not_supported("derived tables")),
    }
}

/// ORDER BY expressions, each with its direction (true: DESC).
type SortKeys = Vec<(Expr, bool)>;

/// Binds ORDER BY and LIMIT of single-table UPDATE/DELETE.
fn order_limit<E: KvEngine>(
    s: &Session<E>,
    scope: &Scope,
    order_by: &[ast::OrderByExpr],
    limit: &Option<ast::Expr>,
) -> Result<(SortKeys, Option<Expr>)> {
    let mut order = Vec::new();
    for o in order_by {
        let e = Binder {
            scope,
            env: s,
            aggs: None,
            clause: "order clause",
            agg_base: 0,
            aliases: None,
        }
        .bind(&o.expr)?;
        order.push((e, matches!(o.options.sort, Some(ast::OrderBySort::Desc))));
    }
    let limit = match limit {
        Some(l) => Some(Binder::new(&Scope::default(), s, "limit").bind(l)?),
        None => None,
    };
    Ok((order, limit))
}

fn sort_and_limit(
    rows: &mut Vec<(Vec<u8>, Vec<Value>)>,
    order: &[(Expr, bool)],
    limit: &Option<Expr>,
    ctx: &mut EvalCtx<'_>,
) -> Result<()> {
    if !order.is_empty() {
        let mut keyed = Vec::with_capacity(rows.len());
        for (h, r) in rows.drain(..) {
            let mut k = Vec::new();
            for (e, _) in order {
                k.push(e.eval(&r, ctx)?);
            }
            keyed.push((k, h, r));
        }
        let coll = ctx.fnctx.collation;
        let desc: Vec<bool> = order.iter().map(|(_, d)| *d).collect();
        keyed.sort_by(|a, b| crate::exec::sort::compare_sort_keys(&a.0, &b.0, &desc, coll));
        rows.extend(keyed.into_iter().map(|(_, h, r)| (h, r)));
    }
    if let Some(l) = limit {
        let v = l.eval(&[], ctx)?;
        let n = func::convert::to_u64(&v, ctx.warnings).unwrap_or(0) as usize;
        rows.truncate(n);
    }
    Ok(())
}

/// UPDATE (single table).
pub fn update<E: KvEngine>(
    s: &mut Session<E>,
    u: &ast::Update,
    params: &[Value],
) -> Result<Output> {
    if !u.table.joins.is_empty() || u.from.is_some() {
        let mut tables = vec![u.table.clone()];
        match &u.from {
            Some(ast::UpdateTableFromKind::BeforeSet(more))
            | Some(ast::UpdateTableFromKind::AfterSet(more)) => tables.extend(more.iter().cloned()),
            None => {}
        }
        return crate::dml::multi::update(s, u, &tables, params);
    }
    // a prepared UPDATE of a table keeps its bound form (one of a view is rewritten each time)
    let plan = s.prepared_plan(|s| {
        if is_view_target(s, &u.table)? {
            return Ok(None);
        }
        bind_update(s, u).map(Some)
    })?;
    match plan {
        Some(p) => run_update(s, &p, &None, params),
        None => update_checked(s, u, params, None),
    }
}

/// Whether the table an UPDATE or DELETE names is a view.
pub(crate) fn is_view_target<E: KvEngine>(
    s: &Session<E>,
    twj: &ast::TableWithJoins,
) -> Result<bool> {
    match &twj.relation {
        ast::TableFactor::Table { name, .. } => {
            Ok(crate::ddl::view::target_view(s, name)?.is_some())
        }
        _ => Ok(false),
    }
}

fn update_checked<E: KvEngine>(
    s: &mut Session<E>,
    u: &ast::Update,
    params: &[Value],
    check: Option<crate::ddl::view::ViewCheck>,
) -> Result<Output> {
    if let ast::TableFactor::Table { name, .. } = &u.table.relation {
        if let Some(v) = crate::ddl::view::target_view(s, name)? {
            let (rewritten, check) = crate::ddl::view::rewrite_update(s, &v, u, check)?;
            return update_checked(s, &rewritten, params, check);
        }
    }
    let plan = bind_update(s, u)?;
    let view_check = bind_view_check(s, &plan.t, check.as_ref())?;
    run_update(s, &plan, &view_check, params)
}

/// A single-table UPDATE with its names resolved and expressions bound: what a prepared
/// UPDATE keeps between executions (parameters stay placeholders).
pub(crate) struct UpdatePlan {
    pub(crate) t: Arc<TableDef>,
    pub(crate) hints: IndexHints,
    ignore: bool,
    pub(crate) filter: Option<Expr>,
    assigns: Vec<(usize, Expr)>,
    order: SortKeys,
    limit: Option<Expr>,
}

pub(crate) fn bind_update<E: KvEngine>(s: &Session<E>, u: &ast::Update) -> Result<UpdatePlan> {
    let (t, alias, hints) = single_table(s, &u.table)?;
    not_a_view(&t, "UPDATE")?;
    let scope = table_scope(&t, alias.as_deref());
    let filter = match &u.selection {
        Some(w) => Some(Binder::new(&scope, s, "where clause").bind(w)?),
        None => None,
    };
    let mut assigns: Vec<(usize, Expr)> = Vec::new();
    for a in &u.assignments {
        let ci = match &a.target {
            ast::AssignmentTarget::ColumnName(n) => {
                let parts: Vec<String> =
                    n.0.iter()
                        .map(|p| p.to_string().trim_matches('`').to_string())
                        .collect();
                scope.resolve(&parts, "field list")?
            }
            _ => return Err(Error::not_supported("tuple assignment")),
        };
        if t.columns[ci].generated.is_some() && is_default_kw(&a.value) {
            continue; // SET g = DEFAULT: g is recomputed anyway
        }
        let e = Binder::new(&scope, s, "field list").bind(&a.value)?;
        assigns.push((ci, e));
    }
    let (order, limit) = order_limit(s, &scope, &u.order_by, &u.limit)?;
    Ok(UpdatePlan {
        t,
        hints,
        ignore: matches!(u.or, Some(ast::SqliteOnConflict::Ignore)),
        filter,
        assigns,
        order,
        limit,
    })
}

fn run_update<E: KvEngine>(
    s: &mut Session<E>,
    plan: &UpdatePlan,
    view_check: &Option<(Expr, &crate::ddl::view::ViewCheck)>,
    params: &[Value],
) -> Result<Output> {
    let UpdatePlan {
        t,
        hints,
        ignore,
        filter,
        assigns,
        order,
        limit,
    } = plan;
    let ignore = *ignore;
    if s.var("sql_safe_updates") == Some(Value::Int(1)) && filter.is_none() && limit.is_none() {
        return Err(Error::new(codes::ER_UNKNOWN_ERROR, "You are using safe update mode and you tried to update a table without a WHERE that uses a KEY column."));
    }
    let strict = s.strict() && !ignore;
    let strict_div = strict && s.mode("ERROR_FOR_DIVISION_BY_ZERO");
    let found_rows = s.client_found_rows;
    let checks = crate::dml::check::RowChecks::bind(&*s, t)?;
    let generated = crate::dml::generated::RowGenerated::bind(&*s, t)?;
    let (matched, changed) = s.with_ctx(params, strict_div, |s, ctx| {
        ctx.strict_cmp = strict;
        let mut rows = fetch_where(s, t, hints, filter.as_ref(), ctx)?;
        ctx.strict_cmp = false;
        sort_and_limit(&mut rows, order, limit, ctx)?;
        let mut changed = 0u64;
        let mut matched = rows.len() as u64;
        for (ri, (h, old)) in rows.into_iter().enumerate() {
            let mut new = old.clone();
            for (ci, e) in assigns {
                if !crate::dml::generated::may_assign(t, *ci, ignore, ctx)? {
                    continue;
                }
                let v = crate::exec::query::eval(s, e, &new, ctx)?;
                // single-table UPDATE: later assignments see earlier ones
                new[*ci] = convert_col(t, *ci, v, strict, ri as u64 + 1, true, ctx)?;
            }
            apply_on_update(t, &old, &mut new, assigns, ctx)?;
            generated.compute(t, &mut new, strict, ri as u64 + 1, ctx)?;
            if rows_equal(&old, &new) {
                continue;
            }
            if !view_check_passes(s, view_check, &new, ignore, ctx)?
                || !checks.passes(&new, ignore, ctx)?
            {
                // a row skipped by IGNORE doesn't count as matched (as MySQL)
                matched -= 1;
                continue;
            }
            match crate::dml::foreign_key::update(s, t, &h, &old, &new, ignore, ctx)? {
                Some(UpdateOutcome::Updated(_)) => changed += 1,
                Some(UpdateOutcome::Duplicate { index_no, .. }) => {
                    return Err(dup_error(t, index_no, &new))
                }
                None => {
                    // skipped by IGNORE (a foreign key fails), as a CHECK failure is
                    matched -= 1;
                    continue;
                }
            }
            if let Some(ai) = t.columns.iter().position(|c| c.auto_increment) {
                if let Some(v) = func::convert::to_u64(&new[ai], ctx.warnings) {
                    s.storage().autoinc_observe(t, v)?;
                }
            }
        }
        Ok((matched, changed))
    })?;
    let info = format!(
        "Rows matched: {matched}  Changed: {changed}  Warnings: {}",
        s.warnings.len()
    );
    Ok(Output::Ok {
        affected: if found_rows { matched } else { changed },
        last_insert_id: 0,
        info,
    })
}

/// DELETE (single table).
pub fn delete<E: KvEngine>(
    s: &mut Session<E>,
    d: &ast::Delete,
    params: &[Value],
) -> Result<Output> {
    let from = match &d.from {
        ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => f,
    };
    if let Some(using) = &d.using {
        // DELETE FROM t1, t2 USING <join>
        let targets: Vec<ast::ObjectName> = from
            .iter()
            .filter_map(|t| match &t.relation {
                ast::TableFactor::Table { name, .. } => Some(name.clone()),
                _ => None,
            })
            .collect();
        return crate::dml::multi::delete(s, &targets, using, d.selection.as_ref(), params);
    }
    if !d.tables.is_empty() {
        // DELETE t1, t2 FROM <join>
        return crate::dml::multi::delete(s, &d.tables, from, d.selection.as_ref(), params);
    }
    if from.len() != 1 || !from[0].joins.is_empty() {
        return Err(Error::not_supported(
            "DELETE FROM a join without naming the target tables",
        ));
    }
    // a prepared DELETE from a table keeps its bound form (one from a view is rewritten)
    let plan = s.prepared_plan(|s| {
        if is_view_target(s, &from[0])? {
            return Ok(None);
        }
        bind_delete(s, d, &from[0]).map(Some)
    })?;
    let Some(plan) = plan else {
        let ast::TableFactor::Table { name, .. } = &from[0].relation else {
            return Err(Error::internal("a view target that is not a name"));
        };
        let v = crate::ddl::view::target_view(s, name)?
            .ok_or_else(|| Error::internal("a view target that is not a view"))?;
        let rewritten = crate::ddl::view::rewrite_delete(s, &v, d)?;
        return delete(s, &rewritten, params);
    };
    let DeletePlan {
        t,
        filter,
        order,
        limit,
    } = &*plan;
    let strict = s.strict();
    let affected = s.with_ctx(params, false, |s, ctx| {
        ctx.strict_cmp = strict;
        let mut rows = fetch_where(s, t, &IndexHints::NONE, filter.as_ref(), ctx)?;
        ctx.strict_cmp = false;
        sort_and_limit(&mut rows, order, limit, ctx)?;
        let n = rows.len() as u64;
        for (h, old) in rows {
            crate::dml::foreign_key::delete(s, t, &h, &old, false, ctx)?;
        }
        Ok(n)
    })?;
    Ok(Output::ok(affected))
}

/// A single-table DELETE, bound: what a prepared DELETE keeps between executions.
pub(crate) struct DeletePlan {
    pub(crate) t: Arc<TableDef>,
    pub(crate) filter: Option<Expr>,
    order: SortKeys,
    limit: Option<Expr>,
}

pub(crate) fn bind_delete<E: KvEngine>(
    s: &Session<E>,
    d: &ast::Delete,
    target: &ast::TableWithJoins,
) -> Result<DeletePlan> {
    if let ast::TableFactor::Table { index_hints, .. } = &target.relation {
        if !index_hints.is_empty() {
            // MySQL's single-table DELETE has no index hints in its grammar
            let near: Vec<String> = index_hints.iter().map(|h| h.to_string()).collect();
            return Err(Error::parse(near.join(" ")));
        }
    }
    let (t, alias, _) = single_table(s, target)?;
    not_a_view(&t, "DELETE")?;
    let scope = table_scope(&t, alias.as_deref());
    let filter = match &d.selection {
        Some(w) => Some(Binder::new(&scope, s, "where clause").bind(w)?),
        None => None,
    };
    let (order, limit) = order_limit(s, &scope, &d.order_by, &d.limit)?;
    Ok(DeletePlan {
        t,
        filter,
        order,
        limit,
    })
}

#[cfg(test)]
mod tests {
    use super::rows_equal;
    use common::{Decimal, Value};

    #[test]
    fn rows_equal_is_binary_exact() {
        let s = |x: &str| Value::Str(x.to_string());
        let d = |x: &str| Value::Decimal(x.parse::<Decimal>().unwrap());
        assert!(rows_equal(
            &[Value::Int(1), s("abc"), Value::Null, Value::Bytes(vec![1])],
            &[Value::Int(1), s("abc"), Value::Null, Value::Bytes(vec![1])]
        ));
        // letter case, NULL against a value, and a DECIMAL's printed scale are changes
        assert!(!rows_equal(&[s("abc")], &[s("ABC")]));
        assert!(!rows_equal(&[Value::Null], &[Value::Int(0)]));
        assert!(!rows_equal(&[d("1.0")], &[d("1.00")]));
        assert!(rows_equal(&[d("1.50")], &[d("1.50")]));
        // the same number in the two integer kinds is no change
        assert!(rows_equal(&[Value::Int(5)], &[Value::UInt(5)]));
        assert!(!rows_equal(&[Value::UInt(5)], &[Value::UInt(6)]));
    }
}
