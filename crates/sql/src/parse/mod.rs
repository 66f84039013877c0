//! Stage 1, **parse**: SQL text → syntax trees. sqlparser with MySQL's extensions
//! ([`parser`], [`dialect`] rewrites) and the statement syntax sqlparser lacks: ALTER TABLE
//! ([`alter`]), the partitioning clause and partition operations ([`partition`]), the account
//! statements and the static privileges they name ([`acl`]), table maintenance statements
//! ([`maintenance`]), the binary log's FLUSH / PURGE / RESET ([`binlog`]), the replica's
//! CHANGE REPLICATION SOURCE / START / STOP / RESET REPLICA ([`replica`]) and LOAD DATA
//! ([`load`]); MySQL spellings sqlparser lacks, rewritten into ones it reads ([`mysql_forms`]);
//! the literal templates of repeated statement
//! texts ([`stmt_cache`]) and the fast path for bulk INSERT rows of one shape
//! ([`literal_rows`]); and back: expressions printed as MySQL prints a stored one ([`print`]).
//! Stored routines: their statements and the splitting rule for bodies ([`routine`]), and the
//! compound-statement language of bodies compiled to a [`compound::Program`] ([`compound`]).
//!
//! May use: [`crate::runtime`]. The syntax trees made here are executed by later stages
//! (`crate::ddl::alter`, `crate::catalog::partition`, `crate::acl::stmt`, …); nothing here
//! reaches into them.

pub mod acl;
pub mod alter;
pub mod binlog;
pub mod compound;
pub mod dialect;
pub mod literal_rows;
pub mod load;
pub mod maintenance;
pub mod mysql_forms;
pub mod parser;
pub mod partition;
pub mod print;
pub mod replica;
pub mod routine;
pub mod stmt_cache;
pub mod storage_options;

/// The text an expression of a definition (CHECK constraint, generated column) is kept as:
/// sqlparser's rendering, with the backslashes of string literals doubled, since MySQL's
/// dialect reads a backslash as an escape and the rendering writes the value's backslash as is
/// (`'a\b'` would come back as `'a<backspace>'`, a trailing one as an unterminated string).
pub fn stored_text(e: &sqlparser::ast::Expr) -> String {
    use sqlparser::ast::{Expr, Value};
    let mut e = e.clone();
    let _ = sqlparser::ast::visit_expressions_mut(&mut e, |x: &mut Expr| {
        if let Expr::Value(v) = x {
            match &mut v.value {
                Value::SingleQuotedString(s)
                | Value::DoubleQuotedString(s)
                | Value::NationalStringLiteral(s) => *s = s.replace('\\', "\\\\"),
                _ => {}
            }
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
    e.to_string()
}

/// Parses an expression kept as text in a definition (a CHECK constraint's condition); `what`
/// names it in the internal error a text that no longer parses gives.
///
/// # Errors
/// An internal error: the stored text is corrupt.
pub fn stored_expr(text: &str, what: &str) -> common::Result<sqlparser::ast::Expr> {
    let dialect = dialect::StrataDialect::default();
    sqlparser::parser::Parser::new(&dialect)
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| common::Error::internal(format!("stored {what} '{text}' does not parse: {e}")))
}

/// The parts of a dotted object name, backquotes removed.
pub fn obj_parts(n: &sqlparser::ast::ObjectName) -> Vec<String> {
    n.0.iter()
        .map(|p| p.to_string().trim_matches('`').to_string())
        .collect()
}

/// `[db.]name` as (database, name), an unqualified name in `current` (1046 without one).
pub fn qualify_in(
    current: Option<&str>,
    n: &sqlparser::ast::ObjectName,
) -> common::Result<(String, String)> {
    let parts = obj_parts(n);
    match parts.as_slice() {
        [t] => Ok((
            current.ok_or_else(common::Error::no_db)?.to_string(),
            t.clone(),
        )),
        [d, t] => Ok((d.clone(), t.clone())),
        _ => Err(common::Error::parse(n.to_string())),
    }
}
