//! Scopes: the columns a binder can see at one point of a statement ([`Scope`]), each with
//! its table, name, type and row offset, and the CTEs in view.

use std::sync::Arc;

use common::{codes, DataType, Error, Result};
use func::types::ExprType;

/// One column visible to the binder.
#[derive(Debug, Clone)]
pub struct ScopeCol {
    /// Database of the table ("" for derived columns).
    pub db: String,
    /// Table name or alias.
    pub table: String,
    /// Underlying table name.
    pub org_table: String,
    /// Column name.
    pub name: String,
    /// Declared type (None for derived).
    pub ty: Option<DataType>,
    /// Nullable.
    pub nullable: bool,
    /// Extra column flags for metadata (PRI_KEY etc.).
    pub flags: u16,
    /// Static type of a derived column (a derived table's or view's output), when `ty` is None.
    pub ety: Option<ExprType>,
}

/// The columns an expression can refer to, with the row offsets they live at.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// Columns in row order.
    pub cols: Vec<ScopeCol>,
    /// The enclosing query block's scope, for correlated references from a subquery.
    pub outer: Option<Arc<Scope>>,
    /// Common table expressions visible here (WITH), innermost last.
    pub ctes: Vec<Arc<crate::ir::query::Cte>>,
    /// The column pairs an inner or left `JOIN … USING` / `NATURAL JOIN` made one: (the copy
    /// `*` shows, the copy it leaves out). MySQL's `*` lists the joined columns first.
    pub coalesced: Vec<(usize, usize)>,
}

impl Scope {
    /// The columns `*` expands to, in MySQL's order: the columns a USING / NATURAL join
    /// coalesced first (once each), then the others in row order.
    pub fn star_columns(&self, ncols: usize) -> Vec<usize> {
        if self.coalesced.is_empty() {
            return (0..ncols).collect();
        }
        // the coalesced columns in the order they have in the first table
        let mut out: Vec<usize> = self.coalesced.iter().map(|&(kept, _)| kept).collect();
        out.sort_unstable();
        out.dedup();
        for i in 0..ncols {
            if !out.contains(&i) && !self.coalesced.iter().any(|&(_, gone)| gone == i) {
                out.push(i);
            }
        }
        out
    }
}

impl Scope {
    /// Resolves `[db.][table.]name` to a row offset.
    pub fn resolve(&self, parts: &[String], clause: &str) -> Result<usize> {
        let (db, table, name) = match parts {
            [n] => (None, None, n),
            [t, n] => (None, Some(t), n),
            [d, t, n] => (Some(d), Some(t), n),
            _ => return Err(Error::bad_field(&parts.join("."), clause)),
        };
        let mut found = None;
        for (i, c) in self.cols.iter().enumerate() {
            if !c.name.eq_ignore_ascii_case(name) {
                continue;
            }
            // INFORMATION_SCHEMA / performance_schema names match in any letter case, as in
            // MySQL (`information_schema.columns.table_name`); other names are case-sensitive
            let any_case = crate::runtime::schemas::is_system_db(&c.db)
                && !c.db.eq_ignore_ascii_case("mysql")
                && !c.db.eq_ignore_ascii_case("sys");
            let same = |a: &str, b: &str| a == b || (any_case && a.eq_ignore_ascii_case(b));
            if let Some(t) = table {
                if !same(&c.table, t) {
                    continue;
                }
            } else if c.table == VALUES_QUALIFIER {
                // ON DUPLICATE KEY UPDATE: a bare name is the existing row's column; the
                // inserted row's copy is reached through VALUES(col) only
                continue;
            }
            if let Some(d) = db {
                if !same(&c.db, d) {
                    continue;
                }
            }
            if found.is_some() {
                return Err(Error::new(
                    codes::ER_NON_UNIQ_ERROR,
                    format!("Column '{name}' in {clause} is ambiguous"),
                ));
            }
            found = Some(i);
        }
        found.ok_or_else(|| Error::bad_field(&parts.join("."), clause))
    }
}

/// The hidden table qualifier under which `VALUES(col)` finds the row being inserted.
pub const VALUES_QUALIFIER: &str = "\u{0}values";
