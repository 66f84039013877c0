//! `mysql.innodb_table_stats` and `mysql.innodb_index_stats`, InnoDB's persistent statistics
//! tables, filled from Strata's own: the row estimate and each index's approximate size (in
//! 16 KiB pages, as InnoDB counts), and the distinct key prefixes ANALYZE TABLE stored
//! (`n_diff_pfxNN`, present once the table was analyzed). Read-only here; Vitess' schema
//! engine reads them for its table and index size metrics.

use std::sync::Arc;

use common::{Collation, DataType, Result, Value};
use storage::catalog::{ColumnDef, TableDef};
use storage::engine::KvEngine;
use storage::Storage;

/// InnoDB's page size: sizes are reported in pages.
const PAGE: u64 = 16384;

fn column(name: &str, ty: DataType) -> ColumnDef {
    ColumnDef::plain(name, ty, false)
}

fn varchar(name: &str, len: u32) -> ColumnDef {
    column(
        name,
        DataType::VarChar {
            len,
            collation: Collation::Utf8mb4Bin,
        },
    )
}

fn ubig(name: &str) -> ColumnDef {
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

/// True for the two tables (lower-case names).
pub fn is_table(name: &str) -> bool {
    matches!(name, "innodb_table_stats" | "innodb_index_stats")
}

/// The columns of `mysql.<name>` (lower-case name), if it is one of the two.
pub fn columns(name: &str) -> Option<Vec<ColumnDef>> {
    let ts = || column("last_update", DataType::Timestamp { fsp: 0 });
    Some(match name {
        "innodb_table_stats" => vec![
            varchar("database_name", 64),
            varchar("table_name", 199),
            ts(),
            ubig("n_rows"),
            ubig("clustered_index_size"),
            ubig("sum_of_other_index_sizes"),
        ],
        "innodb_index_stats" => {
            let mut c = vec![
                varchar("database_name", 64),
                varchar("table_name", 199),
                varchar("index_name", 64),
                ts(),
                varchar("stat_name", 64),
                ubig("stat_value"),
            ];
            let mut sample = ubig("sample_size");
            sample.nullable = true;
            c.push(sample);
            c.push(varchar("stat_description", 1024));
            c
        }
        _ => return None,
    })
}

fn pages(bytes: u64) -> u64 {
    bytes.div_ceil(PAGE).max(1)
}

/// The rows of `mysql.<name>` over `tables` (the base tables the session sees); `now` is the
/// `last_update` value.
///
/// # Errors
/// Engine I/O errors.
pub fn rows<E: KvEngine>(
    st: &Storage<E>,
    name: &str,
    tables: &[Arc<TableDef>],
    now: Value,
) -> Result<Vec<Vec<Value>>> {
    let s = |v: &str| Value::Str(v.to_string());
    let mut out = Vec::new();
    for t in tables
        .iter()
        .filter(|t| t.options.view.is_none() && !t.temporary)
    {
        let sizes = st.index_sizes(t);
        if name == "innodb_table_stats" {
            let (rows, _, _) = st.table_stats(t)?;
            let other: u64 = sizes.iter().skip(1).map(|b| pages(*b)).sum();
            out.push(vec![
                s(&t.db),
                s(&t.name),
                now.clone(),
                Value::UInt(rows),
                Value::UInt(pages(sizes.first().copied().unwrap_or(0))),
                Value::UInt(other),
            ]);
            continue;
        }
        let stats = st.index_statistics(t)?.filter(|x| x.version == t.version);
        for (no, idx) in t.indexes.iter().enumerate() {
            let index_name = if t.hidden_pk && no == 0 {
                "GEN_CLUST_INDEX".to_string()
            } else {
                idx.name.clone()
            };
            let mut stat = |stat: String, value: u64, sample: Value, desc: String| {
                out.push(vec![
                    s(&t.db),
                    s(&t.name),
                    s(&index_name),
                    now.clone(),
                    Value::Str(stat),
                    Value::UInt(value),
                    sample,
                    Value::Str(desc),
                ]);
            };
            if let Some(card) = stats.as_ref().and_then(|x| x.cardinality.get(no)) {
                for (k, n) in card.iter().enumerate() {
                    let cols: Vec<&str> = idx.columns
                        [..=k.min(idx.columns.len().saturating_sub(1))]
                        .iter()
                        .filter_map(|c| t.columns.get(c.col).map(|c| c.name.as_str()))
                        .collect();
                    stat(
                        format!("n_diff_pfx{:02}", k + 1),
                        *n,
                        Value::UInt(stats.as_ref().map_or(0, |x| x.rows)),
                        cols.join(","),
                    );
                }
            }
            let p = pages(sizes.get(no).copied().unwrap_or(0));
            stat(
                "n_leaf_pages".into(),
                p,
                Value::Null,
                "Number of leaf pages in the index".into(),
            );
            stat(
                "size".into(),
                p,
                Value::Null,
                "Number of pages in the index".into(),
            );
        }
    }
    Ok(out)
}
