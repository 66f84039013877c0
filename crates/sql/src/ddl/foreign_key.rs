//! FOREIGN KEY rules of DDL statements (the clause itself is read by
//! `crate::ddl::table::foreign_key`): what MySQL 8.4 checks when a constraint is defined
//! ([`validate`]), DROP TABLE (3730) and TRUNCATE TABLE (1701) of a referenced table, dropping
//! the index a constraint needs (1553), and the children's side of ALTER TABLE renames
//! ([`follow_alter`]; RENAME TABLE is followed in the storage dictionary's rename itself).

use common::{codes, DataType, Error, Result};
use storage::catalog::{ForeignKeyDef, TableDef};
use storage::engine::KvEngine;

use crate::dml::foreign_key::{checks_on, index_on, unique_on};
use crate::session::session::Session;

/// Can a column of type `a` reference one of type `b`? As InnoDB: integers of the same size
/// and sign, DECIMALs of the same precision and scale, character strings (CHAR / VARCHAR, any
/// length) of the same character set, binary strings, and otherwise the same type.
pub fn compatible(a: &DataType, b: &DataType) -> bool {
    use DataType as T;
    match (a, b) {
        (
            T::Int {
                bytes: x,
                unsigned: u,
                ..
            },
            T::Int {
                bytes: y,
                unsigned: v,
                ..
            },
        ) => x == y && u == v,
        (
            T::Decimal {
                precision: p,
                scale: s,
                unsigned: u,
            },
            T::Decimal {
                precision: q,
                scale: t,
                unsigned: v,
            },
        ) => p == q && s == t && u == v,
        (T::Float { unsigned: u, .. }, T::Float { unsigned: v, .. })
        | (T::Double { unsigned: u, .. }, T::Double { unsigned: v, .. }) => u == v,
        (
            T::Char { collation: c, .. } | T::VarChar { collation: c, .. },
            T::Char { collation: d, .. } | T::VarChar { collation: d, .. },
        ) => c.charset() == d.charset(),
        (T::Binary { .. } | T::VarBinary { .. }, T::Binary { .. } | T::VarBinary { .. }) => true,
        (T::Time { fsp: x }, T::Time { fsp: y })
        | (T::DateTime { fsp: x }, T::DateTime { fsp: y })
        | (T::Timestamp { fsp: x }, T::Timestamp { fsp: y }) => x == y,
        (T::Date, T::Date) | (T::Year, T::Year) => true,
        (T::Bit { len: x }, T::Bit { len: y }) => x == y,
        (T::Enum { .. }, T::Enum { .. }) | (T::Set { .. }, T::Set { .. }) => a == b,
        _ => false,
    }
}

fn cannot_add() -> Error {
    Error::new(
        codes::ER_CANNOT_ADD_FOREIGN,
        "Cannot add foreign key constraint",
    )
}

fn on_partitioned() -> Error {
    Error::new(
        codes::ER_FOREIGN_KEY_ON_PARTITIONED,
        "Foreign keys are not yet supported in conjunction with partitioning",
    )
}

/// Checks the constraints of the table `t` (its definition as final, indexes included) whose
/// names are in `new` (all of them when `None`), as MySQL 8.4 does when they are defined:
/// SET DEFAULT is refused (1215, InnoDB has no such action), SET NULL needs nullable columns
/// (1830), no partitioning on either side (1506); with `foreign_key_checks` on, the
/// referenced columns must have compatible types (3780) and be the leading columns of an index
/// of the parent (1822) that is a PRIMARY KEY or UNIQUE key on exactly them (6125,
/// `restrict_fk_on_non_standard_key`). A missing parent table or column was refused when the
/// clause was read (1824, 3734).
///
/// # Errors
/// Those above; dictionary read errors.
pub fn validate<E: KvEngine>(s: &Session<E>, t: &TableDef, new: Option<&[String]>) -> Result<()> {
    for fk in &t.foreign_keys {
        if new.is_some_and(|n| !n.iter().any(|x| x.eq_ignore_ascii_case(&fk.name))) {
            continue;
        }
        validate_one(s, t, fk)?;
    }
    Ok(())
}

fn validate_one<E: KvEngine>(s: &Session<E>, t: &TableDef, fk: &ForeignKeyDef) -> Result<()> {
    for rule in [&fk.on_delete, &fk.on_update] {
        if rule.eq_ignore_ascii_case("SET DEFAULT") {
            return Err(cannot_add());
        }
    }
    let cols: Vec<usize> = fk
        .columns
        .iter()
        .map(|c| t.column_index(c).ok_or_else(cannot_add))
        .collect::<Result<_>>()?;
    for rule in [&fk.on_delete, &fk.on_update] {
        if !rule.eq_ignore_ascii_case("SET NULL") {
            continue;
        }
        if let Some(&c) = cols.iter().find(|&&c| !t.columns[c].nullable) {
            return Err(Error::new(
                codes::ER_FK_COLUMN_NOT_NULL,
                format!(
                    "Column '{}' cannot be NOT NULL: needed in a foreign key constraint '{}' SET NULL",
                    t.columns[c].name, fk.name
                ),
            ));
        }
    }
    if t.partitioning.is_some() {
        return Err(on_partitioned());
    }
    if !checks_on(s) {
        return Ok(());
    }
    let self_ref = fk.ref_db == t.db && fk.ref_table == t.name;
    let parent = if self_ref {
        std::sync::Arc::new(t.clone())
    } else {
        match s.storage().get_table(&fk.ref_db, &fk.ref_table)? {
            Some(p) => p,
            None => {
                return Err(Error::new(
                    codes::ER_FK_CANNOT_OPEN_PARENT,
                    format!("Failed to open the referenced table '{}'", fk.ref_table),
                ))
            }
        }
    };
    if parent.partitioning.is_some() {
        return Err(on_partitioned());
    }
    let pcols: Vec<usize> = fk
        .ref_columns
        .iter()
        .map(|c| parent.column_index(c).ok_or_else(cannot_add))
        .collect::<Result<_>>()?;
    for (k, (&c, &pc)) in cols.iter().zip(&pcols).enumerate() {
        if !compatible(&t.columns[c].ty, &parent.columns[pc].ty) {
            return Err(Error::new(
                codes::ER_FK_INCOMPATIBLE_COLUMNS,
                format!(
                    "Referencing column '{}' and referenced column '{}' in foreign key constraint '{}' are incompatible.",
                    fk.columns[k], fk.ref_columns[k], fk.name
                ),
            ));
        }
    }
    let Some(first) = index_on(&parent, &pcols) else {
        return Err(Error::new(
            codes::ER_FK_NO_INDEX_PARENT,
            format!(
                "Failed to add the foreign key constraint. Missing index for constraint '{}' in the referenced table '{}'",
                fk.name, fk.ref_table
            ),
        ));
    };
    let unique = (first..parent.indexes.len()).any(|i| {
        unique_on(&parent, i, pcols.len())
            && parent.indexes[i]
                .columns
                .iter()
                .zip(&pcols)
                .all(|(ic, &c)| ic.col == c && ic.prefix_len.is_none())
    });
    if !unique {
        return Err(Error::new(
            codes::ER_FK_NO_UNIQUE_INDEX_PARENT,
            format!(
                "Failed to add the foreign key constraint. Missing unique key for constraint '{}' in the referenced table '{}'",
                fk.name, fk.ref_table
            ),
        ));
    }
    Ok(())
}

/// DROP TABLE of `targets` (all base tables): with `foreign_key_checks` on, a table referenced
/// by a table that is not dropped too is refused (3730), as in MySQL.
///
/// # Errors
/// 3730; dictionary read errors.
pub fn check_drop<E: KvEngine>(s: &Session<E>, targets: &[(String, String)]) -> Result<()> {
    if !checks_on(s) {
        return Ok(());
    }
    for (db, t) in targets {
        for child in s.storage().referencing_tables(db, t)? {
            if targets
                .iter()
                .any(|(d, n)| *d == child.db && *n == child.name)
            {
                continue;
            }
            if let Some(fk) = child
                .foreign_keys
                .iter()
                .find(|f| storage::catalog::foreign::references(f, db, t))
            {
                return Err(Error::new(
                    codes::ER_FK_CANNOT_DROP_PARENT,
                    format!(
                        "Cannot drop table '{t}' referenced by a foreign key constraint '{}' on table '{}'.",
                        fk.name, child.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// TRUNCATE TABLE `db`.`t`: with `foreign_key_checks` on, refused (1701) while another table
/// references it (a constraint within the table itself does not count), as in MySQL.
///
/// # Errors
/// 1701; dictionary read errors.
pub fn check_truncate<E: KvEngine>(s: &Session<E>, db: &str, t: &str) -> Result<()> {
    if !checks_on(s) {
        return Ok(());
    }
    if let Some((child, fk)) = crate::dml::foreign_key::referenced_by_other(s, db, t)? {
        return Err(Error::new(
            codes::ER_TRUNCATE_ILLEGAL_FK,
            format!(
                "Cannot truncate a table referenced in a foreign key constraint (`{}`.`{}`, CONSTRAINT `{}`)",
                child.db, child.name, fk.name
            ),
        ));
    }
    Ok(())
}

/// ALTER TABLE turning `old` into `new`: every constraint of `new` still has an index of its
/// own columns; one that lost it to DROP INDEX is 1553 naming the dropped index.
///
/// # Errors
/// 1553.
pub fn check_indexes(old: &TableDef, new: &TableDef) -> Result<()> {
    for fk in &new.foreign_keys {
        let Some(cols) = fk
            .columns
            .iter()
            .map(|c| new.column_index(c))
            .collect::<Option<Vec<usize>>>()
        else {
            continue;
        };
        if cols.is_empty() || index_on(new, &cols).is_some() {
            continue;
        }
        let old_cols = fk
            .columns
            .iter()
            .map(|c| old.column_index(c))
            .collect::<Option<Vec<usize>>>();
        let name = old_cols
            .and_then(|oc| index_on(old, &oc))
            .map(|i| old.indexes[i].name.clone())
            .unwrap_or_default();
        return Err(Error::new(
            codes::ER_DROP_INDEX_FK,
            format!("Cannot drop index '{name}': needed in a foreign key constraint"),
        ));
    }
    Ok(())
}

/// The column renames of an ALTER TABLE: (old name, new name) for each kept column whose name
/// changed; `src` gives each final column's position in `old`.
pub fn column_renames(
    old: &TableDef,
    new: &TableDef,
    src: &[Option<usize>],
) -> Vec<(String, String)> {
    new.columns
        .iter()
        .zip(src)
        .filter_map(|(c, s)| {
            let o = &old.columns[(*s)?];
            (o.name != c.name).then(|| (o.name.clone(), c.name.clone()))
        })
        .collect()
}

/// After ALTER TABLE of `db`.`name` renamed columns (`renames`) and/or the table itself (to
/// `target`): the constraints of other tables that reference it follow, as MySQL's data
/// dictionary keeps them (a self-reference was followed by the ALTER itself).
///
/// # Errors
/// Dictionary errors.
pub fn follow_alter<E: KvEngine>(
    s: &Session<E>,
    db: &str,
    name: &str,
    renames: &[(String, String)],
    target: &(String, String),
) -> Result<()> {
    let moved = target.0 != db || target.1 != name;
    if renames.is_empty() && !moved {
        return Ok(());
    }
    for child in s.storage().referencing_tables(db, name)? {
        if child.db == db && child.name == name {
            continue;
        }
        let mut def = (*child).clone();
        for fk in def.foreign_keys.iter_mut() {
            if !storage::catalog::foreign::references(fk, db, name) {
                continue;
            }
            for c in fk.ref_columns.iter_mut() {
                if let Some((_, n)) = renames.iter().find(|(o, _)| o.eq_ignore_ascii_case(c)) {
                    *c = n.clone();
                }
            }
            if moved {
                fk.ref_db = target.0.clone();
                fk.ref_table = target.1.clone();
            }
        }
        if def.foreign_keys != child.foreign_keys {
            s.storage().alter_table(def)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use common::Collation;

    fn int(bytes: u8, unsigned: bool) -> DataType {
        DataType::Int {
            bytes,
            unsigned,
            width: None,
            zerofill: false,
        }
    }

    #[test]
    fn column_compatibility_as_innodb() {
        assert!(compatible(&int(4, false), &int(4, false)));
        // display width and ZEROFILL don't matter; size and sign do
        assert!(compatible(
            &DataType::Int {
                bytes: 4,
                unsigned: false,
                width: Some(11),
                zerofill: false
            },
            &int(4, false)
        ));
        assert!(!compatible(&int(4, false), &int(8, false)));
        assert!(!compatible(&int(4, true), &int(4, false)));
        let vc = |len| DataType::VarChar {
            len,
            collation: Collation::default(),
        };
        let ch = |len| DataType::Char {
            len,
            collation: Collation::default(),
        };
        assert!(compatible(&vc(10), &vc(255)));
        assert!(compatible(&ch(3), &vc(20)));
        assert!(!compatible(&vc(10), &int(4, false)));
        assert!(!compatible(&vc(10), &DataType::VarBinary { len: 10 }));
        assert!(compatible(
            &DataType::Binary { len: 4 },
            &DataType::VarBinary { len: 16 }
        ));
        assert!(!compatible(
            &DataType::DateTime { fsp: 0 },
            &DataType::Timestamp { fsp: 0 }
        ));
        assert!(compatible(&DataType::Date, &DataType::Date));
    }
}
