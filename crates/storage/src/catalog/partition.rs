//! Partitioning metadata of a table ([`Partitioning`]) and its leaves.
//!
//! A partitioned table stores every partition (or subpartition, when the table is
//! subpartitioned) as a **leaf** with its own index ids, one per index of the table
//! (ARCHITECTURE §7). Leaves are numbered in definition order: partition 0's subpartitions
//! first. A leaf is read and written through a *leaf view* of the table definition
//! ([`TableDef::leaf_def`]): the same definition with the leaf's index ids, so every row and key
//! operation of the storage layer works on a leaf unchanged. Which leaf a row belongs to is
//! decided by the SQL layer (it evaluates the partitioning expression); the storage layer only
//! needs the ids: DROP/TRUNCATE cover every leaf, AUTO_INCREMENT and hidden row ids are
//! initialised from the maximum over all leaves.
//!
//! Partition values are kept as evaluated constants ([`PartValue`]): `VALUES LESS THAN
//! (TO_DAYS('2004-01-01'))` is stored as `731946`, which is also how MySQL prints it.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::TableDef;

/// PARTITION BY / SUBPARTITION BY method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PartMethod {
    /// RANGE (expr) or RANGE COLUMNS (cols).
    Range,
    /// LIST (expr) or LIST COLUMNS (cols).
    List,
    /// [LINEAR] HASH (expr).
    Hash,
    /// [LINEAR] KEY (cols).
    Key,
}

/// A partitioning function: method and what it is computed from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartFunc {
    /// The method.
    pub method: PartMethod,
    /// LINEAR HASH / LINEAR KEY.
    #[serde(default)]
    pub linear: bool,
    /// RANGE COLUMNS / LIST COLUMNS.
    #[serde(default)]
    pub columns_form: bool,
    /// The expression text of RANGE / LIST / HASH, as MySQL prints it; empty otherwise.
    #[serde(default)]
    pub expr: String,
    /// The columns of KEY and of the COLUMNS forms (`KEY ()` is resolved to the primary key).
    #[serde(default)]
    pub columns: Vec<String>,
    /// `KEY ALGORITHM = 1 | 2`, when given.
    #[serde(default)]
    pub algorithm: Option<u8>,
}

/// One constant of a partition definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum PartValue {
    /// NULL (LIST only).
    Null,
    /// MAXVALUE (RANGE only).
    MaxValue,
    /// A signed integer.
    Int(i64),
    /// An unsigned integer above `i64::MAX`.
    UInt(u64),
    /// A string, date or time constant of a COLUMNS partition, as text in the column's type.
    Str(String),
}

/// The values clause of a partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum PartValues {
    /// HASH / KEY partitions have none.
    None,
    /// `VALUES LESS THAN (v, …)`: one value per column (one for the expression forms).
    LessThan(Vec<PartValue>),
    /// `VALUES IN (…)`: each entry is one tuple (one value for the expression forms).
    In(Vec<Vec<PartValue>>),
}

/// A subpartition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubpartitionDef {
    /// Name.
    pub name: String,
    /// COMMENT.
    #[serde(default)]
    pub comment: String,
    /// Index ids of this leaf, parallel to [`TableDef::indexes`].
    pub index_ids: Vec<u32>,
}

/// A partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionDef {
    /// Name.
    pub name: String,
    /// VALUES clause.
    pub values: PartValues,
    /// COMMENT.
    #[serde(default)]
    pub comment: String,
    /// Index ids of this leaf (parallel to [`TableDef::indexes`]); empty when subpartitioned.
    #[serde(default)]
    pub index_ids: Vec<u32>,
    /// Subpartitions (each a leaf).
    #[serde(default)]
    pub subpartitions: Vec<SubpartitionDef>,
}

/// How a table is partitioned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Partitioning {
    /// PARTITION BY.
    pub func: PartFunc,
    /// SUBPARTITION BY.
    #[serde(default)]
    pub sub: Option<PartFunc>,
    /// The partitions were given as `PARTITIONS n` (names p0, p1, … generated): SHOW CREATE
    /// TABLE prints `PARTITIONS n` instead of the list.
    #[serde(default)]
    pub by_count: bool,
    /// Likewise for `SUBPARTITIONS n`.
    #[serde(default)]
    pub sub_by_count: bool,
    /// The partitions, in definition order.
    pub partitions: Vec<PartitionDef>,
}

/// One leaf (partition or subpartition) of a partitioned table.
#[derive(Debug, Clone, Copy)]
pub struct Leaf<'a> {
    /// Position of its partition.
    pub part: usize,
    /// Position of the subpartition within the partition, if subpartitioned.
    pub sub: Option<usize>,
    /// Index ids.
    pub ids: &'a [u32],
}

impl Partitioning {
    /// Subpartitions per partition (1 when not subpartitioned).
    pub fn subs_per_part(&self) -> usize {
        if self.sub.is_some() {
            self.partitions
                .first()
                .map_or(1, |p| p.subpartitions.len().max(1))
        } else {
            1
        }
    }

    /// The leaves, in order.
    pub fn leaves(&self) -> Vec<Leaf<'_>> {
        let mut out = Vec::new();
        for (pi, p) in self.partitions.iter().enumerate() {
            if p.subpartitions.is_empty() {
                out.push(Leaf {
                    part: pi,
                    sub: None,
                    ids: &p.index_ids,
                });
            } else {
                for (si, s) in p.subpartitions.iter().enumerate() {
                    out.push(Leaf {
                        part: pi,
                        sub: Some(si),
                        ids: &s.index_ids,
                    });
                }
            }
        }
        out
    }

    /// Number of leaves.
    pub fn leaf_count(&self) -> usize {
        self.partitions
            .iter()
            .map(|p| p.subpartitions.len().max(1))
            .sum()
    }

    /// The leaf number of partition `part`, subpartition `sub`.
    pub fn leaf_no(&self, part: usize, sub: usize) -> usize {
        self.partitions[..part]
            .iter()
            .map(|p| p.subpartitions.len().max(1))
            .sum::<usize>()
            + sub
    }

    /// The leaf numbers of partition `part`.
    pub fn leaves_of(&self, part: usize) -> std::ops::Range<usize> {
        let first = self.leaf_no(part, 0);
        first..first + self.partitions[part].subpartitions.len().max(1)
    }

    /// Every index id of every leaf.
    pub fn all_ids(&self) -> Vec<u32> {
        self.leaves()
            .iter()
            .flat_map(|l| l.ids.iter().copied())
            .collect()
    }

    /// `p0` or, for a subpartition, `p0_sp0` (EXPLAIN's spelling).
    pub fn leaf_name(&self, leaf: &Leaf<'_>) -> String {
        let p = &self.partitions[leaf.part];
        match leaf.sub {
            Some(s) => format!("{}_{}", p.name, p.subpartitions[s].name),
            None => p.name.clone(),
        }
    }

    /// Mutable access to the index ids of every leaf, in leaf order.
    pub fn leaf_ids_mut(&mut self) -> Vec<&mut Vec<u32>> {
        let mut out = Vec::new();
        for p in self.partitions.iter_mut() {
            if p.subpartitions.is_empty() {
                out.push(&mut p.index_ids);
            } else {
                for s in p.subpartitions.iter_mut() {
                    out.push(&mut s.index_ids);
                }
            }
        }
        out
    }
}

impl TableDef {
    /// The leaf view of leaf `leaf` of a partitioned table: this definition with the leaf's
    /// index ids. Returns a plain clone for an unpartitioned table.
    pub fn leaf_def(&self, leaf: usize) -> TableDef {
        let mut d = self.clone();
        if let Some(p) = &self.partitioning {
            if let Some(l) = p.leaves().get(leaf) {
                for (idx, id) in d.indexes.iter_mut().zip(l.ids.iter()) {
                    idx.id = *id;
                }
                d.leaf = Some(leaf as u32);
            }
        }
        d
    }

    /// The index ids of index `no` in every leaf (just the index's own id when unpartitioned).
    pub fn index_ids_all_leaves(&self, no: usize) -> Vec<u32> {
        match &self.partitioning {
            Some(p) => p
                .leaves()
                .iter()
                .filter_map(|l| l.ids.get(no).copied())
                .collect(),
            None => self.indexes.get(no).map(|i| vec![i.id]).unwrap_or_default(),
        }
    }

    /// Every index id the table's data lives under (all leaves of a partitioned table).
    pub fn all_index_ids(&self) -> Vec<u32> {
        match &self.partitioning {
            Some(p) => p.all_ids(),
            None => self.indexes.iter().map(|i| i.id).collect(),
        }
    }

    /// Sets the top-level index ids of a partitioned table to its first leaf's (so code that is
    /// not partition-aware still addresses real data); no-op otherwise.
    pub fn sync_top_ids(&mut self) {
        let first: Option<Vec<u32>> = self
            .partitioning
            .as_ref()
            .and_then(|p| p.leaves().first().map(|l| l.ids.to_vec()));
        if let Some(ids) = first {
            for (idx, id) in self.indexes.iter_mut().zip(ids) {
                idx.id = id;
            }
        }
    }
}

/// Shared handle type of the partitioning of a [`TableDef`].
pub type PartitioningRef = Arc<Partitioning>;
