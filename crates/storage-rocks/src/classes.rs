//! Storage classes ([`StorageClass`]: `KEY_BLOCK_SIZE` × `COMPRESSION`) as column families.
//!
//! Every class but the default lives in a column family of its own, named after it
//! (`data_b8k_zstd`, `data_b4k`, `data_lz4`) and created the first time an index of that class
//! is declared ([`Db::set_index_class`]); the default class is the `default` column family, so
//! data directories written before classes existed open unchanged. Each class family has the
//! tuning of the default one (bloom filters, partitioned index, the shared block cache) with its
//! own block size and compression. [`Db`] owns the database and the handles of the families
//! created at run time, and routes a [`Cf::Data`] key to its family by the index id the key
//! starts with; the map from index id to class is filled by the catalog.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use common::{Error, Result};
use librocksdb_sys as ffi;
use parking_lot::{Mutex, RwLock};
use rocksdb::{AsColumnFamilyRef, AsRawPtr, DBCompressionType, Options, DB};
use storage::engine::{Cf, Codec, StorageClass};

/// Name of the dictionary column family.
pub const DICT_CF: &str = "dict";

/// The codecs in slot order.
const CODECS: [Codec; 4] = [Codec::Default, Codec::None, Codec::Lz4, Codec::Zstd];

/// Number of classes: the default block size and the 7 of [`StorageClass::BLOCK_KB`], times
/// the 4 codecs.
const SLOTS: usize = 8 * CODECS.len();

/// The dense number of `class` (0 for the default class).
fn slot(class: StorageClass) -> Option<usize> {
    let b = match class.block_kb {
        0 => 0,
        kb => 1 + StorageClass::BLOCK_KB.iter().position(|&k| k == kb)?,
    };
    let c = CODECS.iter().position(|&c| c == class.codec)?;
    Some(b * CODECS.len() + c)
}

/// The class of slot `n`.
fn class_of(n: usize) -> StorageClass {
    let (b, c) = (n / CODECS.len(), n % CODECS.len());
    StorageClass {
        block_kb: if b == 0 {
            0
        } else {
            StorageClass::BLOCK_KB[b - 1]
        },
        codec: CODECS[c],
    }
}

/// The column family name of a non-default class: `data`, `_b<kb>k` unless the block size is
/// the default, `_<codec>` unless the codec is.
pub fn cf_name(class: StorageClass) -> String {
    let mut s = "data".to_string();
    if class.block_kb != 0 {
        s.push_str(&format!("_b{}k", class.block_kb));
    }
    if class.codec != Codec::Default {
        s.push('_');
        s.push_str(class.codec.name());
    }
    s
}

/// The class of a column family named by [`cf_name`] (`None` for other names).
pub fn class_of_name(name: &str) -> Option<StorageClass> {
    (1..SLOTS).map(class_of).find(|c| cf_name(*c) == name)
}

/// Sets the compression of `class` on `o` (the default: LZ4, ZSTD at the bottommost level).
pub(crate) fn set_codec(o: &mut Options, codec: Codec) {
    let (upper, bottom) = match codec {
        Codec::Default => (DBCompressionType::Lz4, DBCompressionType::Zstd),
        Codec::None => (DBCompressionType::None, DBCompressionType::None),
        Codec::Lz4 => (DBCompressionType::Lz4, DBCompressionType::Lz4),
        Codec::Zstd => (DBCompressionType::Zstd, DBCompressionType::Zstd),
    };
    o.set_compression_type(upper);
    o.set_bottommost_compression_type(bottom);
}

/// A column family handle borrowed from a [`Db`] (the default and dictionary families are
/// owned by the `DB`, the class families by the [`Db`]); valid while the `Db` lives.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cfh<'a> {
    ptr: *mut ffi::rocksdb_column_family_handle_t,
    _db: PhantomData<&'a DB>,
}

// SAFETY: RocksDB's column family handles are thread-safe (the crate marks its own
// `ColumnFamily` Send + Sync); the pointer is only passed to RocksDB.
unsafe impl Send for Cfh<'_> {}
// SAFETY: as above.
unsafe impl Sync for Cfh<'_> {}

impl AsColumnFamilyRef for Cfh<'_> {
    fn inner(&self) -> *mut ffi::rocksdb_column_family_handle_t {
        self.ptr
    }
}

/// A column family created at run time: its handle is destroyed when dropped.
struct OwnedCf(*mut ffi::rocksdb_column_family_handle_t);

// SAFETY: see `Cfh`.
unsafe impl Send for OwnedCf {}
// SAFETY: see `Cfh`.
unsafe impl Sync for OwnedCf {}

impl Drop for OwnedCf {
    fn drop(&mut self) {
        // SAFETY: the handle came from rocksdb_create_column_family and is destroyed once,
        // before the database closes (field order of `Db`).
        unsafe { ffi::rocksdb_column_family_handle_destroy(self.0) }
    }
}

/// The database with its storage classes.
pub struct Db {
    // Field order matters: the run-time handles are destroyed before the database closes,
    // and the options they were created with outlive it.
    owned: Mutex<Vec<OwnedCf>>,
    inner: DB,
    options: Mutex<Vec<Options>>,
    /// The handle of each class's column family once it exists (slot 0: `default`).
    slots: [OnceLock<usize>; SLOTS],
    dict: usize,
    /// Index id → slot, for the indexes of a non-default class.
    by_index: RwLock<HashMap<u32, usize>>,
    /// Some index has a non-default class (else every data key is in `default`).
    any: AtomicBool,
    /// Makes the options of a new class family.
    make: Box<dyn Fn(StorageClass) -> Options + Send + Sync>,
}

impl Deref for Db {
    type Target = DB;
    fn deref(&self) -> &DB {
        &self.inner
    }
}

impl Db {
    /// Wraps a database opened with the `default`, `dict` and existing class families.
    ///
    /// # Errors
    /// A family is missing (internal error).
    pub(crate) fn new(
        inner: DB,
        make: Box<dyn Fn(StorageClass) -> Options + Send + Sync>,
    ) -> Result<Self> {
        let raw = |name: &str| {
            inner
                .cf_handle(name)
                .map(|h| h.inner() as usize)
                .ok_or_else(|| Error::internal(format!("column family {name} missing")))
        };
        let dict = raw(DICT_CF)?;
        let slots: [OnceLock<usize>; SLOTS] = std::array::from_fn(|_| OnceLock::new());
        let _ = slots[0].set(raw(rocksdb::DEFAULT_COLUMN_FAMILY_NAME)?);
        for (n, s) in slots.iter().enumerate().skip(1) {
            if let Some(h) = inner.cf_handle(&cf_name(class_of(n))) {
                let _ = s.set(h.inner() as usize);
            }
        }
        Ok(Db {
            owned: Mutex::new(Vec::new()),
            inner,
            options: Mutex::new(Vec::new()),
            slots,
            dict,
            by_index: RwLock::new(HashMap::new()),
            any: AtomicBool::new(false),
            make,
        })
    }

    fn cfh(&self, raw: usize) -> Cfh<'_> {
        Cfh {
            ptr: raw as *mut ffi::rocksdb_column_family_handle_t,
            _db: PhantomData,
        }
    }

    /// The family of `cf` for keys outside any class (`Cf::Data`: the `default` family).
    pub(crate) fn handle(&self, cf: Cf) -> Cfh<'_> {
        match cf {
            Cf::Dict => self.cfh(self.dict),
            Cf::Data => self
                .slot_handle(0)
                .expect("the default family is set at open"),
        }
    }

    fn slot_handle(&self, n: usize) -> Option<Cfh<'_>> {
        self.slots[n].get().map(|&r| self.cfh(r))
    }

    /// The family holding `key` of `cf`: for `Cf::Data`, the class family of the index the
    /// key starts with.
    pub(crate) fn route(&self, cf: Cf, key: &[u8]) -> Cfh<'_> {
        if cf == Cf::Dict || !self.any.load(Ordering::Acquire) {
            return self.handle(cf);
        }
        let Some(id) = key
            .get(..4)
            .map(|p| u32::from_be_bytes([p[0], p[1], p[2], p[3]]))
        else {
            return self.handle(cf);
        };
        let n = self.by_index.read().get(&id).copied();
        n.and_then(|n| self.slot_handle(n))
            .unwrap_or_else(|| self.handle(cf))
    }

    /// The family of index `index_id`'s entries and the options of its class (for files
    /// written outside the database: a bulk load's SST files).
    pub(crate) fn index_family(&self, index_id: u32) -> (Cfh<'_>, Options) {
        let n = self.by_index.read().get(&index_id).copied().unwrap_or(0);
        match self.slot_handle(n) {
            Some(h) => (h, (self.make)(class_of(n))),
            None => (self.handle(Cf::Data), (self.make)(StorageClass::default())),
        }
    }

    /// Every family of `cf`: for `Cf::Data`, `default` and each class family that exists.
    pub(crate) fn all(&self, cf: Cf) -> Vec<Cfh<'_>> {
        match cf {
            Cf::Dict => vec![self.handle(cf)],
            Cf::Data => (0..SLOTS).filter_map(|n| self.slot_handle(n)).collect(),
        }
    }

    /// Every family with its name (`default`, `dict`, the class families).
    pub(crate) fn named(&self) -> Vec<(String, Cfh<'_>)> {
        let mut out = vec![(DICT_CF.to_string(), self.handle(Cf::Dict))];
        for n in 0..SLOTS {
            if let Some(h) = self.slot_handle(n) {
                let name = match n {
                    0 => rocksdb::DEFAULT_COLUMN_FAMILY_NAME.to_string(),
                    _ => cf_name(class_of(n)),
                };
                out.push((name, h));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// See [`storage::engine::KvEngine::set_index_class`]; creates the class's family when it
    /// does not exist yet.
    pub(crate) fn set_index_class(&self, index_id: u32, class: StorageClass) -> Result<()> {
        let n =
            slot(class).ok_or_else(|| Error::internal(format!("no storage class {class:?}")))?;
        if let Some(&had) = self.by_index.read().get(&index_id) {
            if had == n {
                return Ok(());
            }
            return Err(Error::internal(format!(
                "index {index_id} is stored as {:?}, not {class:?}",
                class_of(had)
            )));
        }
        if n == 0 {
            return Ok(());
        }
        if self.slots[n].get().is_none() {
            let mut owned = self.owned.lock();
            if self.slots[n].get().is_none() {
                let opts = (self.make)(class);
                let h = self.create_cf(&cf_name(class), &opts)?;
                owned.push(OwnedCf(h));
                self.options.lock().push(opts);
                let _ = self.slots[n].set(h as usize);
                tracing::info!("created column family {}", cf_name(class));
            }
        }
        if let Some(h) = self.slot_handle(n) {
            crate::hotversions::configure(&self.inner, &h);
        }
        self.by_index.write().insert(index_id, n);
        self.any.store(true, Ordering::Release);
        Ok(())
    }

    /// Creates a column family through the C API (the crate's `create_cf` needs `&mut DB`,
    /// and the database is shared).
    fn create_cf(
        &self,
        name: &str,
        opts: &Options,
    ) -> Result<*mut ffi::rocksdb_column_family_handle_t> {
        let cname = std::ffi::CString::new(name)
            .map_err(|_| Error::internal("column family name with a NUL"))?;
        let mut err: *mut std::ffi::c_char = std::ptr::null_mut();
        // SAFETY: the database, options and name are valid for the call; RocksDB copies the
        // options. On error it may still return a handle, which is then destroyed here, and
        // the message is freed with rocksdb_free.
        unsafe {
            let h = ffi::rocksdb_create_column_family(
                self.inner.as_raw_ptr(),
                opts.as_raw_ptr(),
                cname.as_ptr(),
                &mut err,
            );
            if !err.is_null() {
                let msg = std::ffi::CStr::from_ptr(err).to_string_lossy().into_owned();
                ffi::rocksdb_free(err as *mut std::ffi::c_void);
                if !h.is_null() {
                    ffi::rocksdb_column_family_handle_destroy(h);
                }
                return Err(Error::storage(format!(
                    "cannot create column family {name}: {msg}"
                )));
            }
            if h.is_null() {
                return Err(Error::storage(format!(
                    "cannot create column family {name}"
                )));
            }
            Ok(h)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_round_trip() {
        assert_eq!(slot(StorageClass::default()), Some(0));
        for n in 1..SLOTS {
            let c = class_of(n);
            assert_eq!(slot(c), Some(n));
            assert_eq!(class_of_name(&cf_name(c)), Some(c));
        }
        let c = StorageClass {
            block_kb: 8,
            codec: Codec::Zstd,
        };
        assert_eq!(cf_name(c), "data_b8k_zstd");
        assert_eq!(class_of_name("default"), None);
        assert_eq!(class_of_name("dict"), None);
        assert_eq!(
            slot(StorageClass {
                block_kb: 3,
                codec: Codec::Lz4
            }),
            None
        );
    }
}
