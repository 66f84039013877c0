//! Row operations of a [`Txn`] on a table: point gets, scans, insert/update/delete with unique
//! checks under locks, and read-free maintenance of non-unique secondary indexes.
//!
//! Locking: writes lock the row's handle and every unique value they add or remove
//! (`index_id ‖ enc(unique columns)`) exclusively, then check existence against the LATEST
//! committed data plus own writes (never the snapshot); a primary key above every key written
//! so far needs no check (`Storage::pk_claim_above`). Non-unique index entries are blind
//! puts/deletes.

use std::ops::Bound;

use common::{Result, Value};

use super::iter::{IndexRange, RowIter};
use super::Txn;
use crate::catalog::{IndexKind, TableDef};
use crate::codec::key::{self, Handle};
use crate::codec::row::{decode_row, encode_row};
use crate::engine::{Cf, KvEngine, KvSnapshot};

/// A row with its handle, as returned by reads and scans.
pub type KeyedRow = (Handle, Vec<Value>);

/// Row locking of a read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LockMode {
    /// Consistent (snapshot) read, no lock.
    #[default]
    None,
    /// `FOR SHARE` / `LOCK IN SHARE MODE`: shared lock, latest committed version.
    Shared,
    /// `FOR UPDATE` (and the reads of UPDATE/DELETE): exclusive lock, latest committed version.
    Exclusive,
}

/// Result of [`Txn::insert`].
#[derive(Debug, Clone, PartialEq)]
pub enum InsertOutcome {
    /// The row was written; its handle.
    Inserted(Handle),
    /// Nothing was written: index `index_no` (0 = primary) already holds the row `row` with
    /// handle `handle` with the same key.
    Duplicate {
        /// Position of the violated index in [`TableDef::indexes`].
        index_no: usize,
        /// Handle of the existing row.
        handle: Handle,
        /// The existing row.
        row: Vec<Value>,
    },
}

/// Result of [`Txn::update`].
#[derive(Debug, Clone, PartialEq)]
pub enum UpdateOutcome {
    /// The row was rewritten; its (possibly new) handle.
    Updated(Handle),
    /// Nothing was written: the new values collide with an existing row.
    Duplicate {
        /// Position of the violated index in [`TableDef::indexes`].
        index_no: usize,
        /// Handle of the existing row.
        handle: Handle,
        /// The existing row.
        row: Vec<Value>,
    },
}

impl<E: KvEngine> Txn<E> {
    /// Locks the row `h` in `lock`'s mode; false when the transaction's SKIP LOCKED policy
    /// leaves a busy row out.
    fn lock_row(&self, h: &[u8], lock: LockMode) -> Result<bool> {
        match self.lock_key(h, lock == LockMode::Exclusive) {
            Ok(()) => Ok(true),
            Err(e) if super::lock::is_skipped(&e) => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn read_row(&mut self, t: &TableDef, h: &[u8], lock: LockMode) -> Result<Option<Vec<Value>>> {
        let v = match lock {
            LockMode::None => self.kv_get(Cf::Data, h)?,
            LockMode::Shared | LockMode::Exclusive => {
                if !self.lock_row(h, lock)? {
                    return Ok(None);
                }
                self.kv_get_latest(Cf::Data, h)?
            }
        };
        v.map(|v| decode_row(t, &v)).transpose()
    }

    /// Point read by primary key values (all pk columns; for a hidden-pk table, the row id).
    ///
    /// `LockMode::None` reads the snapshot; `Shared`/`Exclusive` lock the key and read the
    /// latest committed version (a "current read"). Own writes are always visible.
    ///
    /// # Errors
    /// Lock errors (1205/1213/1317), a bad key value, I/O errors.
    pub fn get_by_pk(
        &mut self,
        t: &TableDef,
        pk: &[Value],
        lock: LockMode,
    ) -> Result<Option<(Handle, Vec<Value>)>> {
        let h = self.pk_handle(t, pk)?;
        Ok(self.read_row(t, &h, lock)?.map(|r| (h, r)))
    }

    fn pk_handle(&self, t: &TableDef, pk: &[Value]) -> Result<Handle> {
        let idx = t
            .indexes
            .first()
            .ok_or_else(|| common::Error::internal("table without primary index"))?;
        let need = idx.columns.len().max(1);
        if pk.len() != need {
            return Err(common::Error::internal(format!(
                "{} primary key values given, {need} needed",
                pk.len()
            )));
        }
        key::encode_index_prefix(t, idx, pk)
    }

    /// Point read by handle; see [`Txn::get_by_pk`] for `lock`.
    ///
    /// # Errors
    /// Lock errors, I/O errors.
    pub fn get_by_handle(
        &mut self,
        t: &TableDef,
        h: &Handle,
        lock: LockMode,
    ) -> Result<Option<Vec<Value>>> {
        self.read_row(t, h, lock)
    }

    /// Batched point reads by primary key (engine multi-get); results in input order.
    ///
    /// # Errors
    /// Lock errors, a bad key value, I/O errors.
    pub fn multi_get_by_pk(
        &mut self,
        t: &TableDef,
        pks: &[Vec<Value>],
        lock: LockMode,
    ) -> Result<Vec<Option<KeyedRow>>> {
        let handles = pks
            .iter()
            .map(|pk| self.pk_handle(t, pk))
            .collect::<Result<Vec<_>>>()?;
        let mut skipped = vec![false; handles.len()];
        if lock != LockMode::None {
            for (i, h) in handles.iter().enumerate() {
                skipped[i] = !self.lock_row(h, lock)?;
            }
        }
        let mut vals: Vec<Option<Vec<u8>>> = vec![None; handles.len()];
        let mut miss_i = Vec::new();
        let mut miss = Vec::new();
        for (i, h) in handles.iter().enumerate() {
            if skipped[i] {
                continue;
            }
            match self.writes.data.get(h) {
                Some(v) => vals[i] = v.clone(),
                None => {
                    miss_i.push(i);
                    miss.push(h.clone());
                }
            }
        }
        if !miss.is_empty() {
            let got = if lock == LockMode::None {
                self.snap().multi_get(Cf::Data, &miss)?
            } else {
                self.st.engine().multi_get(Cf::Data, &miss)?
            };
            for (i, v) in miss_i.into_iter().zip(got) {
                vals[i] = v;
            }
        }
        handles
            .into_iter()
            .zip(vals)
            .map(|(h, v)| v.map(|v| decode_row(t, &v).map(|r| (h, r))).transpose())
            .collect()
    }

    /// A lazy scan of index `index_no` over `range` (see [`IndexRange`]), descending when
    /// `reverse`. Locking scans lock each row's handle as they reach it and return the latest
    /// committed row (no gap locks: phantoms are possible in locking reads).
    ///
    /// # Errors
    /// A bad bound value.
    pub fn scan(
        &mut self,
        t: &TableDef,
        index_no: usize,
        range: IndexRange,
        reverse: bool,
        lock: LockMode,
    ) -> Result<RowIter<E>> {
        RowIter::new(self, t, index_no, &range, reverse, lock)
    }

    /// A consistent full scan in primary key order.
    ///
    /// # Errors
    /// See [`Txn::scan`].
    pub fn scan_all(&mut self, t: &TableDef) -> Result<RowIter<E>> {
        self.scan(t, 0, IndexRange::all(), false, LockMode::None)
    }

    /// The first entry of the key range `[prefix, succ(prefix))` in the latest committed data plus
    /// own writes whose handle is not `exclude`; returns that entry's row handle.
    fn find_unique_conflict(
        &self,
        t: &TableDef,
        index_no: usize,
        prefix: &[u8],
        exclude: Option<&[u8]>,
    ) -> Result<Option<Handle>> {
        let upper = key::prefix_successor(prefix);
        let own_hi = match &upper {
            Some(u) => Bound::Excluded(u.clone()),
            None => Bound::Unbounded,
        };
        for (k, v) in self
            .writes
            .data
            .range((Bound::Included(prefix.to_vec()), own_hi))
        {
            if v.is_some() {
                let h = key::handle_from_index_key(t, index_no, k)?;
                if exclude != Some(h.as_slice()) {
                    return Ok(Some(h));
                }
            }
        }
        let mut it = self
            .st
            .engine()
            .iter(Cf::Data, prefix, upper.as_deref(), false);
        while it.valid() {
            let k = it.key();
            if self.writes.data.get(k).is_none() {
                let h = key::handle_from_index_key(t, index_no, k)?;
                if exclude != Some(h.as_slice()) {
                    return Ok(Some(h));
                }
            }
            it.next();
        }
        it.status()?;
        Ok(None)
    }

    fn latest_row(&self, t: &TableDef, h: &[u8]) -> Result<Option<Vec<Value>>> {
        self.kv_get_latest(Cf::Data, h)?
            .map(|v| decode_row(t, &v))
            .transpose()
    }

    /// The row that already holds primary-key handle `h`, which this transaction is about to
    /// write under its exclusive lock. No read when `h` is above every handle written so far
    /// (see `Storage::pk_claim_above`).
    fn pk_taken(&self, t: &TableDef, h: &[u8]) -> Result<Option<Vec<Value>>> {
        if self.st.pk_claim_above(t, h)? {
            return Ok(None);
        }
        self.latest_row(t, h)
    }

    /// Checks the unique secondary indexes for `row` (handle `h`); locks each unique value.
    /// `old` = the row's previous values for updates (unchanged unique values are skipped,
    /// removed ones are locked too).
    fn check_uniques(
        &self,
        t: &TableDef,
        row: &[Value],
        h: &[u8],
        old: Option<&[Value]>,
    ) -> Result<Option<(usize, Handle, Vec<Value>)>> {
        for (i, idx) in t.indexes.iter().enumerate().skip(1) {
            if idx.kind != IndexKind::Unique {
                continue;
            }
            let new_k = key::unique_key(t, i, row)?;
            let old_k = match old {
                Some(o) => key::unique_key(t, i, o)?,
                None => None,
            };
            if let Some(ok) = &old_k {
                if Some(ok) != new_k.as_ref() {
                    self.lock_key(ok, true)?;
                }
            }
            let Some(nk) = new_k else { continue };
            if old_k.as_ref() == Some(&nk) {
                continue;
            }
            self.lock_key(&nk, true)?;
            if let Some(h2) = self.find_unique_conflict(t, i, &nk, old.map(|_| h))? {
                if let Some(r) = self.latest_row(t, &h2)? {
                    return Ok(Some((i, h2, r)));
                }
            }
        }
        Ok(None)
    }

    /// Inserts `row` (one value per column, already converted to the column types).
    ///
    /// Locks the primary key and each unique value, checks them against the latest committed
    /// data and own writes, and returns [`InsertOutcome::Duplicate`] without writing if one is
    /// taken. Unique indexes ignore rows with a NULL in any of their columns.
    ///
    /// # Errors
    /// Lock errors (1205/1213/1317), a value that cannot be stored, I/O errors.
    pub fn insert(&mut self, t: &TableDef, row: &[Value]) -> Result<InsertOutcome> {
        let value = encode_row(t, row)?;
        let h = if t.hidden_pk {
            let id = self.st.next_row_id(t)?;
            key::hidden_handle(t, id)
        } else {
            let h = key::encode_pk(t, row)?;
            self.lock_key(&h, true)?;
            if let Some(existing) = self.pk_taken(t, &h)? {
                return Ok(InsertOutcome::Duplicate {
                    index_no: 0,
                    handle: h,
                    row: existing,
                });
            }
            h
        };
        if let Some((index_no, handle, row)) = self.check_uniques(t, row, &h, None)? {
            return Ok(InsertOutcome::Duplicate {
                index_no,
                handle,
                row,
            });
        }
        let mut keys = Vec::with_capacity(t.indexes.len().saturating_sub(1));
        for i in 1..t.indexes.len() {
            keys.push(key::encode_index_key(t, i, row, &h)?);
        }
        self.kv_put(Cf::Data, h.clone(), value);
        for k in keys {
            self.kv_put(Cf::Data, k, Vec::new());
        }
        self.log_change(t, None, Some(row));
        Ok(InsertOutcome::Inserted(h))
    }

    /// Replaces the row `old` (handle `h`, as read by the caller) with `new`.
    ///
    /// Only index entries whose key changes are rewritten; a changed primary key moves the row
    /// (delete + insert under the new handle, all index entries rewritten). Returns
    /// [`UpdateOutcome::Duplicate`] without writing if a new primary/unique value is taken.
    ///
    /// # Errors
    /// Lock errors, a value that cannot be stored, I/O errors.
    pub fn update(
        &mut self,
        t: &TableDef,
        h: &Handle,
        old: &[Value],
        new: &[Value],
    ) -> Result<UpdateOutcome> {
        let value = encode_row(t, new)?;
        self.lock_key(h, true)?;
        let new_h = if t.hidden_pk {
            h.clone()
        } else {
            key::encode_pk(t, new)?
        };
        let moved = new_h != *h;
        if moved {
            self.lock_key(&new_h, true)?;
            if let Some(existing) = self.pk_taken(t, &new_h)? {
                return Ok(UpdateOutcome::Duplicate {
                    index_no: 0,
                    handle: new_h,
                    row: existing,
                });
            }
        }
        if let Some((index_no, handle, row)) = self.check_uniques(t, new, h, Some(old))? {
            return Ok(UpdateOutcome::Duplicate {
                index_no,
                handle,
                row,
            });
        }
        let mut ops: Vec<(Vec<u8>, Option<Vec<u8>>)> = Vec::new();
        for i in 1..t.indexes.len() {
            let ok = key::encode_index_key(t, i, old, h)?;
            let nk = key::encode_index_key(t, i, new, &new_h)?;
            if ok != nk {
                ops.push((ok, None));
                ops.push((nk, Some(Vec::new())));
            }
        }
        if moved {
            self.kv_delete(Cf::Data, h.clone());
        }
        self.kv_put(Cf::Data, new_h.clone(), value);
        for (k, v) in ops {
            match v {
                Some(v) => self.kv_put(Cf::Data, k, v),
                None => self.kv_delete(Cf::Data, k),
            }
        }
        self.log_change(t, Some(old), Some(new));
        Ok(UpdateOutcome::Updated(new_h))
    }

    /// Deletes the row `old` with handle `h` (secondary entries are blind deletes).
    ///
    /// # Errors
    /// Lock errors, I/O errors.
    pub fn delete(&mut self, t: &TableDef, h: &Handle, old: &[Value]) -> Result<()> {
        self.lock_key(h, true)?;
        for (i, idx) in t.indexes.iter().enumerate().skip(1) {
            if idx.kind == IndexKind::Unique {
                if let Some(k) = key::unique_key(t, i, old)? {
                    self.lock_key(&k, true)?;
                }
            }
        }
        let mut keys = Vec::new();
        for i in 1..t.indexes.len() {
            keys.push(key::encode_index_key(t, i, old, h)?);
        }
        self.kv_delete(Cf::Data, h.clone());
        for k in keys {
            self.kv_delete(Cf::Data, k);
        }
        self.log_change(t, Some(old), None);
        Ok(())
    }
}
