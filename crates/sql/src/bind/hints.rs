//! Index hints (`USE | FORCE | IGNORE {INDEX | KEY} [FOR {JOIN | ORDER BY | GROUP BY}] (…)`)
//! of one base table, resolved to [`IndexHints`] as MySQL 8.4 does: the hints of each scope
//! add up, FORCE is USE that makes a table scan the last resort, IGNORE wins over both, an
//! unknown index name is 1176 and USE mixed with FORCE is 1221.

use common::{codes, Error, Result};
use sqlparser::ast::{TableIndexHintForClause, TableIndexHintType, TableIndexHints};
use storage::catalog::TableDef;

use crate::ir::block::IndexHints;

/// The index hints written after table `t` (named `alias` in messages).
///
/// # Errors
/// 1176 for an index `t` does not have, 1221 when USE and FORCE are mixed, 1064 for an empty
/// FORCE or IGNORE list.
pub fn bind_index_hints(
    t: &TableDef,
    alias: &str,
    hints: &[TableIndexHints],
) -> Result<IndexHints> {
    if hints.is_empty() {
        return Ok(IndexHints::NONE);
    }
    // [scope][USE, FORCE, IGNORE] masks; scopes JOIN, ORDER BY, GROUP BY
    let mut masks = [[0u64; 3]; 3];
    let mut empty_use = [false; 3];
    for h in hints {
        let kind = match h.hint_type {
            TableIndexHintType::Use => 0,
            TableIndexHintType::Force => 1,
            TableIndexHintType::Ignore => 2,
        };
        let scopes: &[usize] = match h.for_clause {
            None => &[0, 1, 2],
            Some(TableIndexHintForClause::Join) => &[0],
            Some(TableIndexHintForClause::OrderBy) => &[1],
            Some(TableIndexHintForClause::GroupBy) => &[2],
        };
        if h.index_names.is_empty() {
            if kind != 0 {
                return Err(Error::parse(")"));
            }
            for &sc in scopes {
                empty_use[sc] = true;
            }
            continue;
        }
        for name in &h.index_names {
            let ino = index_number(t, &name.value).ok_or_else(|| {
                Error::new(
                    codes::ER_KEY_DOES_NOT_EXITS,
                    format!("Key '{}' doesn't exist in table '{alias}'", name.value),
                )
            })?;
            for &sc in scopes {
                masks[sc][kind] |= 1 << ino;
            }
        }
    }
    let any = |kind: usize| masks.iter().any(|m| m[kind] != 0);
    let force = any(1);
    if force && (any(0) || empty_use.iter().any(|e| *e)) {
        return Err(Error::new(
            codes::ER_WRONG_USAGE,
            "Incorrect usage of USE INDEX and FORCE INDEX",
        ));
    }
    let allowed = |sc: usize| {
        let used = masks[sc][0] | masks[sc][1];
        let base = if used != 0 || empty_use[sc] {
            used
        } else {
            u64::MAX
        };
        base & !masks[sc][2]
    };
    Ok(IndexHints {
        rows: allowed(0),
        order: allowed(1),
        force,
    })
}

/// The number of the index named `name` (case-insensitive; `PRIMARY` for the primary key,
/// which a table without one does not have).
fn index_number(t: &TableDef, name: &str) -> Option<usize> {
    t.indexes
        .iter()
        .enumerate()
        .filter(|(i, _)| !(t.hidden_pk && *i == 0))
        .find(|(_, ix)| ix.name.eq_ignore_ascii_case(name))
        .map(|(i, _)| i)
}
