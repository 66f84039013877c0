//! The data dictionary: definitions ([`TableDef`], [`ColumnDef`], [`IndexDef`],
//! [`DatabaseDef`]) serialised as JSON in [`Cf::Dict`](crate::engine::Cf::Dict), their key layout,
//! and the bounded definition cache. The DDL operations live in [`ddl`] on
//! [`Storage`](crate::Storage).
//!
//! Dictionary keys: `D/<db>` database, `T/<db>\0<table>` table, `S/<name>` counters,
//! `X/<index_id BE>` "drop ongoing" markers, `U/<user>\0<host>` accounts ([`acl`]),
//! `R/<db>\0<P|F><name>` stored routines ([`routine`]).

pub mod acl;
pub mod cache;
pub mod ddl;
pub mod foreign;
pub mod partition;
pub mod routine;

pub use partition::{
    Leaf, PartFunc, PartMethod, PartValue, PartValues, PartitionDef, Partitioning, SubpartitionDef,
};

use common::{Collation, DataType};
use serde::{Deserialize, Serialize};

/// A database (schema).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatabaseDef {
    /// Name, case-sensitive as given.
    pub name: String,
    /// Default collation for new tables.
    pub collation: Collation,
}

/// Kind of an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum IndexKind {
    /// The PRIMARY KEY (or the hidden row-id key of a table without one).
    Primary,
    /// A UNIQUE index.
    Unique,
    /// A non-unique index.
    Normal,
}

/// One column of an index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexColumn {
    /// Position of the column in [`TableDef::columns`].
    pub col: usize,
    /// `KEY(c(10))`: only the first N characters (bytes for binary strings) are indexed.
    pub prefix_len: Option<u32>,
    /// DESC key part.
    pub desc: bool,
}

/// An index of a table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexDef {
    /// The index id (key prefix); assigned by the catalog (0 in definitions given to DDL).
    pub id: u32,
    /// Name (`PRIMARY` for the primary key).
    pub name: String,
    /// Kind.
    pub kind: IndexKind,
    /// Key parts, in order. Empty for the hidden row-id key.
    pub columns: Vec<IndexColumn>,
    /// COMMENT '...'.
    #[serde(default)]
    pub comment: String,
    /// KEY_BLOCK_SIZE= and ENGINE_ATTRIBUTE= of the index (none: the table's storage options).
    #[serde(default, skip_serializing_if = "IndexOptions::is_empty")]
    pub options: IndexOptions,
}

/// The storage options of one index, over the table's ([`TableOptions::key_block_size`],
/// [`TableOptions::compression`]); see [`TableDef::index_class`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexOptions {
    /// `KEY_BLOCK_SIZE=n` of the index, in KiB (0: not given).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub key_block_size: u32,
    /// The codec (`none`, `lz4`, `zstd`) its ENGINE_ATTRIBUTE names ("": not given).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub compression: String,
    /// `ENGINE_ATTRIBUTE='…'` as given (a JSON object; "": not given), for SHOW CREATE TABLE.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub engine_attribute: String,
}

impl IndexOptions {
    /// True when no option is given.
    pub fn is_empty(&self) -> bool {
        *self == IndexOptions::default()
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl IndexDef {
    /// True for PRIMARY and UNIQUE indexes.
    pub fn is_unique(&self) -> bool {
        self.kind != IndexKind::Normal
    }
}

/// A column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnDef {
    /// Name.
    pub name: String,
    /// Declared type.
    pub ty: DataType,
    /// False for NOT NULL.
    pub nullable: bool,
    /// The DEFAULT clause as SQL text (`'abc'`, `0`, `NULL`, `CURRENT_TIMESTAMP`); `None` = no
    /// DEFAULT clause.
    pub default: Option<String>,
    /// AUTO_INCREMENT attribute.
    pub auto_increment: bool,
    /// ON UPDATE clause as SQL text (`CURRENT_TIMESTAMP`).
    pub on_update: Option<String>,
    /// COMMENT '...'.
    pub comment: String,
    /// For a column added without rewriting the rows (instant `ADD COLUMN`): the value, as a
    /// literal in DEFAULT-clause syntax (`'abc'`, `0`, `NULL`), that rows written before the
    /// column existed decode with. It is fixed when the column is added, so a later `SET DEFAULT`
    /// does not change those rows. `None`: such rows use the column's literal DEFAULT (and after
    /// a table rebuild every row stores the column, so it no longer matters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instant_default: Option<String>,
    /// `GENERATED ALWAYS AS (expr) VIRTUAL|STORED`: the value is computed from the row's other
    /// columns on every write (both kinds are kept in the row; see [`GeneratedDef`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated: Option<GeneratedDef>,
}

impl ColumnDef {
    /// Whether this is the hidden column of a functional key part (`INDEX ((expr))`), which
    /// `SELECT *`, an INSERT without a column list and the column listings leave out.
    pub fn is_hidden(&self) -> bool {
        self.generated.as_ref().is_some_and(|g| g.hidden)
    }

    /// A plain column `name` of type `ty`: no DEFAULT clause, not AUTO_INCREMENT, no comment
    /// (the definitions of system tables).
    pub fn plain(name: &str, ty: DataType, nullable: bool) -> Self {
        ColumnDef {
            name: name.into(),
            ty,
            nullable,
            default: None,
            auto_increment: false,
            on_update: None,
            comment: String::new(),
            instant_default: None,
            generated: None,
        }
    }
}

/// The expression of a generated column.
///
/// Both VIRTUAL and STORED columns are computed when a row is written and kept in the row:
/// their expressions are deterministic functions of the same row (the SQL layer refuses
/// anything else), so reading a kept value is the same as computing it at read time, and an
/// index on either kind is an ordinary index. `stored` only records what was declared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeneratedDef {
    /// The expression as SQL text that parses back to the same expression (sqlparser's
    /// rendering, as [`CheckDef::expr`]).
    pub expr: String,
    /// Declared STORED (else VIRTUAL).
    #[serde(default, skip_serializing_if = "is_false")]
    pub stored: bool,
    /// A hidden column made for a functional key part (`INDEX ((expr))`): not listed by
    /// `SELECT *`, SHOW COLUMNS or INFORMATION_SCHEMA.COLUMNS, and not nameable in statements.
    #[serde(default, skip_serializing_if = "is_false")]
    pub hidden: bool,
}

/// Table options.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableOptions {
    /// ENGINE= as given (e.g. `InnoDB`, `ROCKSDB`).
    #[serde(default)]
    pub engine: String,
    /// Default collation of the table.
    #[serde(default)]
    pub collation: Collation,
    /// COMMENT='...'.
    #[serde(default)]
    pub comment: String,
    /// AUTO_INCREMENT= start value (the counter starts at `max(this, max existing + 1)`).
    #[serde(default = "one")]
    pub auto_increment: u64,
    /// Other options as given (ROW_FORMAT, STATS_PERSISTENT, …; before storage classes, also
    /// KEY_BLOCK_SIZE and COMPRESSION, which had no effect and still have none).
    #[serde(default)]
    pub extra: Vec<(String, String)>,
    /// `KEY_BLOCK_SIZE=n` in KiB (0: not given): the data block size of the table's indexes.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub key_block_size: u32,
    /// `COMPRESSION='…'` in lower case (`none`, `lz4`, `zstd`; "": not given): the codec of
    /// the table's indexes.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub compression: String,
    /// For a view: its definition. A view is a catalog entry that never holds rows.
    #[serde(default)]
    pub view: Option<ViewDef>,
    /// When the definition was last created or changed (CREATE, ALTER, TRUNCATE), in seconds
    /// since the epoch: INFORMATION_SCHEMA.TABLES.CREATE_TIME, as MySQL's dictionary keeps it
    /// (Vitess notices an ALTER by it). 0 for tables written before it was kept.
    #[serde(default)]
    pub create_time: u64,
}

/// The definition of a view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ViewDef {
    /// The SELECT statement, as written.
    pub select: String,
    /// Explicit column names (`CREATE VIEW v (a, b) AS ...`), empty if none.
    pub column_names: Vec<String>,
    /// ALGORITHM (UNDEFINED / MERGE / TEMPTABLE).
    pub algorithm: String,
    /// SQL SECURITY (DEFINER / INVOKER).
    pub security: String,
    /// DEFINER account.
    pub definer: String,
    /// WITH CHECK OPTION: "", "CASCADED" or "LOCAL".
    pub check_option: String,
}

fn one() -> u64 {
    1
}

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions {
            engine: "InnoDB".into(),
            collation: Collation::default(),
            comment: String::new(),
            auto_increment: 1,
            extra: Vec::new(),
            key_block_size: 0,
            compression: String::new(),
            view: None,
            create_time: 0,
        }
    }
}

/// A FOREIGN KEY constraint of a table, by column names (as MySQL's data dictionary keeps them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ForeignKeyDef {
    /// Constraint name (given, or MySQL's generated `<table>_ibfk_<n>`).
    pub name: String,
    /// Referencing columns of this table.
    pub columns: Vec<String>,
    /// Database of the referenced table.
    pub ref_db: String,
    /// Referenced table.
    pub ref_table: String,
    /// Referenced columns.
    pub ref_columns: Vec<String>,
    /// ON DELETE action as written (`CASCADE`, `SET NULL`, `RESTRICT`, `NO ACTION`,
    /// `SET DEFAULT`); empty when not given.
    #[serde(default)]
    pub on_delete: String,
    /// ON UPDATE action as written; empty when not given.
    #[serde(default)]
    pub on_update: String,
}

/// A CHECK constraint of a table (MySQL 8.0.16+).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckDef {
    /// Constraint name (given, or MySQL's generated `<table>_chk_<n>`); unique within the
    /// database for base tables.
    pub name: String,
    /// The condition as SQL text that parses back to the same expression (sqlparser's
    /// rendering of the parsed condition, not MySQL's display form).
    pub expr: String,
    /// False for `NOT ENFORCED`: kept and shown, not checked.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enforced: bool,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Index statistics of a table as ANALYZE TABLE gathered them, kept in the dictionary so the
/// planner and SHOW INDEX see them after a restart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexStatistics {
    /// [`TableDef::version`] they were gathered for (a schema change makes them stale).
    pub version: u32,
    /// Rows counted (or estimated beyond the sample).
    pub rows: u64,
    /// Per index, per key-prefix length (1..=columns): distinct prefixes.
    pub cardinality: Vec<Vec<u64>>,
}

/// A table definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableDef {
    /// Table id; assigned by the catalog.
    pub id: u64,
    /// Database name.
    pub db: String,
    /// Table name.
    pub name: String,
    /// Columns, in order.
    pub columns: Vec<ColumnDef>,
    /// Indexes: `indexes[0]` is the PRIMARY KEY, or the hidden row-id key when `hidden_pk`.
    pub indexes: Vec<IndexDef>,
    /// True if the table has no primary key: rows are keyed by a hidden 8-byte row id.
    pub hidden_pk: bool,
    /// Schema version, incremented by every definition change; stored in each row.
    pub version: u32,
    /// Options.
    pub options: TableOptions,
    /// PARTITION BY, for a partitioned table (see [`partition`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitioning: Option<std::sync::Arc<Partitioning>>,
    /// FOREIGN KEY constraints as declared, enforced on writes by the SQL layer (its
    /// `dml::foreign_key`); the reverse side (who references a table) is [`foreign`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub foreign_keys: Vec<ForeignKeyDef>,
    /// CHECK constraints, in the order MySQL lists them (by name).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<CheckDef>,
    /// A session's TEMPORARY table (stored under an internal name, see the SQL layer's
    /// `catalog::temporary`); dropped at startup if one is left behind.
    #[serde(default, skip_serializing_if = "is_false")]
    pub temporary: bool,
    /// Set on a leaf view ([`TableDef::leaf_def`]): which leaf its index ids address.
    #[serde(skip)]
    pub leaf: Option<u32>,
    /// A statement's explicit partition selection (`t PARTITION (p0, p1)`): the leaves it may
    /// read and write. Never stored.
    #[serde(skip)]
    pub part_select: Option<std::sync::Arc<Vec<u32>>>,
}

/// Name of the hidden row-id index of tables without a primary key.
pub const HIDDEN_PK_NAME: &str = "$hidden_pk";

impl TableDef {
    /// Sets [`TableOptions::create_time`] to now (a definition being created or changed).
    pub fn stamp_create_time(&mut self) {
        self.options.create_time = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
    }

    /// The position of column `name` (exact, case-sensitive match first, then ASCII
    /// case-insensitive as MySQL column names are).
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.name == name)
            .or_else(|| {
                self.columns
                    .iter()
                    .position(|c| c.name.eq_ignore_ascii_case(name))
            })
    }

    /// The position of index `name` (ASCII case-insensitive).
    pub fn index_no(&self, name: &str) -> Option<usize> {
        self.indexes.iter().position(|i| {
            i.name.eq_ignore_ascii_case(name) && !(self.hidden_pk && i.name == HIDDEN_PK_NAME)
        })
    }

    /// The user-visible indexes with their positions (skips the hidden row-id key).
    pub fn visible_indexes(&self) -> impl Iterator<Item = (usize, &IndexDef)> {
        let skip = usize::from(self.hidden_pk);
        self.indexes.iter().enumerate().skip(skip)
    }

    /// The CHECK constraint named `name` (names compare case-insensitively, as MySQL's).
    pub fn check_no(&self, name: &str) -> Option<usize> {
        self.checks
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    }

    /// Renames the generated CHECK constraint names (`<old>_chk_<n>`) after the table's new
    /// name, as MySQL does when a table is renamed; given names stay.
    pub fn rename_generated_checks(&mut self, old: &str, new: &str) {
        let prefix = format!("{old}_chk_");
        for c in &mut self.checks {
            let generated = c
                .name
                .strip_prefix(&prefix)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            if generated {
                c.name = format!("{new}_chk_{}", &c.name[prefix.len()..]);
            }
        }
    }

    /// The storage class of index `no`: its own KEY_BLOCK_SIZE and codec, else the table's
    /// (values the SQL layer did not accept fall back to the default).
    pub fn index_class(&self, no: usize) -> crate::engine::StorageClass {
        use crate::engine::{Codec, StorageClass};
        let ix = self.indexes.get(no).map(|i| &i.options);
        let kb = match ix.map_or(0, |o| o.key_block_size) {
            0 => self.options.key_block_size,
            kb => kb,
        };
        let codec = match ix.map_or("", |o| o.compression.as_str()) {
            "" => self.options.compression.as_str(),
            c => c,
        };
        StorageClass {
            block_kb: u8::try_from(kb)
                .ok()
                .filter(|k| StorageClass::BLOCK_KB.contains(k))
                .unwrap_or(0),
            codec: Codec::from_name(codec).unwrap_or_default(),
        }
    }

    /// The AUTO_INCREMENT column, if any.
    pub fn autoinc_column(&self) -> Option<usize> {
        self.columns.iter().position(|c| c.auto_increment)
    }

    /// A definition with hidden-key normalisation applied: if `indexes[0]` is not a primary
    /// key, a hidden row-id key is inserted at position 0 (so user index positions shift by one).
    pub fn normalized(mut self) -> Self {
        let has_pk = self
            .indexes
            .first()
            .is_some_and(|i| i.kind == IndexKind::Primary);
        if let Some(p) = self
            .indexes
            .iter()
            .position(|i| i.kind == IndexKind::Primary)
        {
            if p != 0 {
                let pk = self.indexes.remove(p);
                self.indexes.insert(0, pk);
            }
        } else if !has_pk {
            self.indexes.insert(
                0,
                IndexDef {
                    id: 0,
                    name: HIDDEN_PK_NAME.into(),
                    kind: IndexKind::Primary,
                    columns: vec![],
                    comment: String::new(),
                    options: IndexOptions::default(),
                },
            );
        }
        self.hidden_pk = self.indexes.first().is_some_and(|i| i.columns.is_empty());
        self
    }
}

/// Dictionary key layout.
pub mod keys {
    /// Key of a database definition.
    pub fn db(name: &str) -> Vec<u8> {
        let mut k = b"D/".to_vec();
        k.extend_from_slice(name.as_bytes());
        k
    }
    /// Prefix of all database keys.
    pub const DB_PREFIX: &[u8] = b"D/";
    /// Key of a table definition.
    pub fn table(db: &str, name: &str) -> Vec<u8> {
        let mut k = table_prefix(db);
        k.extend_from_slice(name.as_bytes());
        k
    }
    /// Prefix of the table keys of `db`.
    pub fn table_prefix(db: &str) -> Vec<u8> {
        let mut k = b"T/".to_vec();
        k.extend_from_slice(db.as_bytes());
        k.push(0);
        k
    }
    /// Key of a counter.
    pub fn counter(name: &str) -> Vec<u8> {
        let mut k = b"S/".to_vec();
        k.extend_from_slice(name.as_bytes());
        k
    }
    /// Key of a drop-ongoing marker.
    pub fn drop_marker(index_id: u32) -> Vec<u8> {
        let mut k = b"X/".to_vec();
        k.extend_from_slice(&index_id.to_be_bytes());
        k
    }
    /// Prefix of all drop-ongoing markers.
    pub const DROP_PREFIX: &[u8] = b"X/";
    /// Key of the index statistics of the table with id `table_id`.
    pub fn index_stats(table_id: u64) -> Vec<u8> {
        let mut k = b"A/".to_vec();
        k.extend_from_slice(&table_id.to_be_bytes());
        k
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A nullable column without default.
    pub(crate) fn col(name: &str, ty: DataType) -> ColumnDef {
        ColumnDef::plain(name, ty, true)
    }

    #[test]
    fn normalisation_adds_hidden_pk() {
        let t = TableDef {
            foreign_keys: Vec::new(),
            checks: Vec::new(),
            temporary: false,
            id: 0,
            db: "d".into(),
            name: "t".into(),
            columns: vec![col("a", DataType::Date)],
            indexes: vec![IndexDef {
                id: 0,
                name: "k".into(),
                kind: IndexKind::Normal,
                columns: vec![IndexColumn {
                    col: 0,
                    prefix_len: None,
                    desc: false,
                }],
                comment: String::new(),
                options: IndexOptions::default(),
            }],
            hidden_pk: false,
            version: 0,
            options: TableOptions::default(),
            partitioning: None,
            leaf: None,
            part_select: None,
        }
        .normalized();
        assert!(t.hidden_pk);
        assert_eq!(t.indexes.len(), 2);
        assert_eq!(t.index_no("k"), Some(1));
        assert_eq!(t.visible_indexes().count(), 1);
        let json = serde_json::to_string(&t).unwrap();
        let back: TableDef = serde_json::from_str(&json).unwrap();
        assert_eq!(back, t);
        // no foreign keys: nothing stored, so definitions written before they existed still load
        assert!(!json.contains("foreign_keys"));
        // likewise without CHECK constraints or the temporary flag
        assert!(!json.contains("checks") && !json.contains("temporary"));
        let mut with_check = t.clone();
        with_check.checks.push(CheckDef {
            name: "t_chk_1".into(),
            expr: "a > 0".into(),
            enforced: false,
        });
        let json = serde_json::to_string(&with_check).unwrap();
        assert_eq!(serde_json::from_str::<TableDef>(&json).unwrap(), with_check);
        with_check.checks[0].enforced = true;
        with_check.rename_generated_checks("t", "u");
        assert_eq!(with_check.checks[0].name, "u_chk_1");
        assert!(!serde_json::to_string(&with_check)
            .unwrap()
            .contains("enforced"));
        let mut with_fk = t.clone();
        with_fk.foreign_keys.push(ForeignKeyDef {
            name: "t_ibfk_1".into(),
            columns: vec!["a".into()],
            ref_db: "d".into(),
            ref_table: "p".into(),
            ref_columns: vec!["id".into()],
            on_delete: "CASCADE".into(),
            on_update: String::new(),
        });
        let json = serde_json::to_string(&with_fk).unwrap();
        assert_eq!(serde_json::from_str::<TableDef>(&json).unwrap(), with_fk);
    }

    #[test]
    fn storage_options_are_optional_and_pick_the_class() {
        use crate::engine::{Codec, StorageClass};
        let mut t = TableDef {
            foreign_keys: Vec::new(),
            checks: Vec::new(),
            temporary: false,
            id: 1,
            db: "d".into(),
            name: "t".into(),
            columns: vec![col("a", DataType::Date)],
            indexes: vec![],
            hidden_pk: false,
            version: 1,
            options: TableOptions::default(),
            partitioning: None,
            leaf: None,
            part_select: None,
        }
        .normalized();
        t.indexes.push(IndexDef {
            id: 0,
            name: "k".into(),
            kind: IndexKind::Normal,
            columns: vec![],
            comment: String::new(),
            options: IndexOptions::default(),
        });
        // nothing given: nothing stored, so definitions written before the options load
        let json = serde_json::to_string(&t).unwrap();
        for field in ["key_block_size", "compression", "engine_attribute"] {
            assert!(!json.contains(field), "{field} in {json}");
        }
        let index = serde_json::to_value(&t.indexes[1]).unwrap();
        assert!(index.get("options").is_none(), "{index}");
        assert_eq!(serde_json::from_str::<TableDef>(&json).unwrap(), t);
        assert!(t.index_class(0).is_default() && t.index_class(1).is_default());
        t.options.key_block_size = 8;
        t.options.compression = "zstd".into();
        t.indexes[1].options = IndexOptions {
            key_block_size: 4,
            compression: "lz4".into(),
            engine_attribute: r#"{"compression":"lz4"}"#.into(),
        };
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(serde_json::from_str::<TableDef>(&json).unwrap(), t);
        let class = |block_kb, codec| StorageClass { block_kb, codec };
        assert_eq!(t.index_class(0), class(8, Codec::Zstd));
        assert_eq!(t.index_class(1), class(4, Codec::Lz4));
        t.indexes[1].options.compression.clear();
        assert_eq!(t.index_class(1), class(4, Codec::Zstd));
    }
}
