//! [`GtidSet`]: sets of `uuid:gno` transaction ids, with MySQL's text form and the binary form
//! of PREVIOUS_GTIDS events and COM_BINLOG_DUMP_GTID.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use super::Uuid;
use crate::bytes::{put_uint_le, Reader};
use crate::error::{BinlogError, Result};

/// The largest GNO MySQL accepts (`GNO_END - 1`, 2^63 - 2).
pub const MAX_GNO: u64 = i64::MAX as u64 - 1;

/// A set of GTIDs: for each source UUID, disjoint sorted intervals of transaction numbers.
///
/// Intervals are held as `start..end` with `end` exclusive, as the binary form stores them; the
/// text form prints them inclusive (`uuid:1-5:7`). GNOs are `1..=MAX_GNO`.
///
/// # Examples
/// ```
/// use binlog::{GtidSet, Uuid};
/// let mut s: GtidSet = "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:7".parse().unwrap();
/// let uuid = Uuid::parse("3e11fa47-71ca-11e1-9e33-c80aa9429562").unwrap();
/// s.add(uuid, 6);
/// assert!(s.contains(&uuid, 6));
/// assert_eq!(s.to_string(), "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-7");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GtidSet {
    sids: BTreeMap<Uuid, Vec<(u64, u64)>>,
}

impl GtidSet {
    /// The empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the set has no GTID.
    pub fn is_empty(&self) -> bool {
        self.sids.is_empty()
    }

    /// The source UUIDs present, in order.
    pub fn uuids(&self) -> impl Iterator<Item = Uuid> + '_ {
        self.sids.keys().copied()
    }

    /// The intervals of `uuid`, as `(first, last)` inclusive pairs.
    pub fn intervals(&self, uuid: &Uuid) -> Vec<(u64, u64)> {
        self.sids
            .get(uuid)
            .map(|v| v.iter().map(|&(s, e)| (s, e - 1)).collect())
            .unwrap_or_default()
    }

    /// The number of GTIDs in the set (saturating).
    pub fn count(&self) -> u64 {
        self.sids
            .values()
            .flatten()
            .fold(0u64, |acc, &(s, e)| acc.saturating_add(e - s))
    }

    /// Adds one GTID.
    pub fn add(&mut self, uuid: Uuid, gno: u64) {
        self.add_interval(uuid, gno, gno);
    }

    /// Adds `first..=last` for `uuid` (ignored when empty or containing 0).
    pub fn add_interval(&mut self, uuid: Uuid, first: u64, last: u64) {
        if first == 0 || last < first || last > MAX_GNO {
            return;
        }
        let ivs = self.sids.entry(uuid).or_default();
        let (mut s, mut e) = (first, last + 1);
        // Merge with every interval that overlaps or touches [s, e).
        let lo = ivs.partition_point(|&(_, ie)| ie < s);
        let mut hi = lo;
        while hi < ivs.len() && ivs[hi].0 <= e {
            s = s.min(ivs[hi].0);
            e = e.max(ivs[hi].1);
            hi += 1;
        }
        ivs.splice(lo..hi, [(s, e)]);
    }

    /// Whether the set contains `uuid:gno`.
    pub fn contains(&self, uuid: &Uuid, gno: u64) -> bool {
        self.sids.get(uuid).is_some_and(|ivs| {
            let i = ivs.partition_point(|&(_, e)| e <= gno);
            i < ivs.len() && ivs[i].0 <= gno
        })
    }

    /// Whether every GTID of `other` is in `self`.
    pub fn contains_set(&self, other: &GtidSet) -> bool {
        other.subtract(self).is_empty()
    }

    /// Adds every GTID of `other`.
    pub fn union_with(&mut self, other: &GtidSet) {
        for (uuid, ivs) in &other.sids {
            for &(s, e) in ivs {
                self.add_interval(*uuid, s, e - 1);
            }
        }
    }

    /// The GTIDs of `self` that are not in `other`.
    pub fn subtract(&self, other: &GtidSet) -> GtidSet {
        let mut out = GtidSet::new();
        for (uuid, ivs) in &self.sids {
            let Some(minus) = other.sids.get(uuid) else {
                out.sids.insert(*uuid, ivs.clone());
                continue;
            };
            let mut kept = Vec::new();
            for &(s, e) in ivs {
                let mut cur = s;
                for &(ms, me) in minus {
                    if me <= cur || ms >= e {
                        continue;
                    }
                    if ms > cur {
                        kept.push((cur, ms));
                    }
                    cur = cur.max(me);
                }
                if cur < e {
                    kept.push((cur, e));
                }
            }
            if !kept.is_empty() {
                out.sids.insert(*uuid, kept);
            }
        }
        out
    }

    /// Parses MySQL's text form: `uuid:1-5:7,uuid2:3` (whitespace and newlines around the
    /// separators allowed, the empty string is the empty set).
    ///
    /// # Errors
    /// [`BinlogError::InvalidValue`] for malformed text; [`BinlogError::Unsupported`] for tagged
    /// GTIDs (`uuid:tag:1-5`, MySQL 8.3+).
    pub fn parse(text: &str) -> Result<GtidSet> {
        let mut set = GtidSet::new();
        for part in text.split(',') {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let mut fields = part.split(':');
            let uuid = Uuid::parse(fields.next().unwrap_or("").trim())?;
            let mut any = false;
            for iv in fields {
                any = true;
                let iv = iv.trim();
                let (a, b) = iv.split_once('-').unwrap_or((iv, iv));
                let parse_gno = |t: &str| -> Result<u64> {
                    if t.trim()
                        .starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    {
                        return Err(BinlogError::Unsupported(format!("tagged GTID in '{part}'")));
                    }
                    t.trim()
                        .parse::<u64>()
                        .ok()
                        .filter(|&g| (1..=MAX_GNO).contains(&g))
                        .ok_or_else(|| BinlogError::invalid(format!("malformed GTID set '{text}'")))
                };
                let (first, last) = (parse_gno(a)?, parse_gno(b)?);
                if last < first {
                    return Err(BinlogError::invalid(format!("malformed GTID set '{text}'")));
                }
                set.add_interval(uuid, first, last);
            }
            if !any {
                return Err(BinlogError::invalid(format!("malformed GTID set '{text}'")));
            }
        }
        Ok(set)
    }

    /// The text form with `separator` between UUIDs. MySQL's `@@gtid_executed` and
    /// `SHOW BINARY LOG STATUS` use `",\n"` (what `Display` prints); `","` gives one line.
    pub fn format_with(&self, separator: &str) -> String {
        let mut out = String::new();
        for (i, (uuid, ivs)) in self.sids.iter().enumerate() {
            if i > 0 {
                out.push_str(separator);
            }
            out.push_str(&uuid.to_string());
            for &(s, e) in ivs {
                if e - 1 == s {
                    out.push_str(&format!(":{s}"));
                } else {
                    out.push_str(&format!(":{s}-{}", e - 1));
                }
            }
        }
        out
    }

    /// Appends the binary form used by PREVIOUS_GTIDS_LOG_EVENT and COM_BINLOG_DUMP_GTID:
    /// `n_sids:u64`, then per UUID `uuid[16] n_intervals:u64 (start:u64 end_exclusive:u64)*`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        put_uint_le(out, self.sids.len() as u64, 8);
        for (uuid, ivs) in &self.sids {
            out.extend_from_slice(uuid.as_bytes());
            put_uint_le(out, ivs.len() as u64, 8);
            for &(s, e) in ivs {
                put_uint_le(out, s, 8);
                put_uint_le(out, e, 8);
            }
        }
    }

    /// The encoded length of [`GtidSet::encode`].
    pub fn encoded_len(&self) -> usize {
        8 + self.sids.values().map(|v| 24 + 16 * v.len()).sum::<usize>()
    }

    /// Decodes the binary form of [`GtidSet::encode`] from the start of `r`.
    ///
    /// # Errors
    /// [`BinlogError::Truncated`] or [`BinlogError::Corrupt`] for malformed input;
    /// [`BinlogError::Unsupported`] for the tagged-GTID format of MySQL 8.3+.
    pub fn decode(r: &mut Reader<'_>) -> Result<GtidSet> {
        let n_sids = r.u64("GTID set")?;
        if n_sids >> 56 != 0 {
            return Err(BinlogError::Unsupported("tagged GTID set encoding".into()));
        }
        if n_sids > (r.remaining() / 24) as u64 {
            return Err(BinlogError::Truncated { what: "GTID set" });
        }
        let mut set = GtidSet::new();
        for _ in 0..n_sids {
            let mut uuid = [0u8; 16];
            uuid.copy_from_slice(r.bytes(16, "GTID set UUID")?);
            let n = r.u64("GTID set")?;
            if n > (r.remaining() / 16) as u64 {
                return Err(BinlogError::Truncated {
                    what: "GTID set intervals",
                });
            }
            for _ in 0..n {
                let (s, e) = (r.u64("GTID interval")?, r.u64("GTID interval")?);
                if s == 0 || e <= s || e - 1 > MAX_GNO {
                    return Err(BinlogError::corrupt(
                        "GTID set",
                        format!("bad interval {s}..{e}"),
                    ));
                }
                set.add_interval(Uuid(uuid), s, e - 1);
            }
        }
        Ok(set)
    }
}

impl fmt::Display for GtidSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.format_with(",\n"))
    }
}

impl FromStr for GtidSet {
    type Err = BinlogError;
    fn from_str(s: &str) -> Result<GtidSet> {
        GtidSet::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
    const B: &str = "8a94f357-aab4-11df-86ab-c80aa9429562";

    fn set(t: &str) -> GtidSet {
        GtidSet::parse(t).unwrap()
    }

    #[test]
    fn parse_format_round_trip() {
        let text = format!("{A}:1-5:7-9:11,{B}:1-3");
        let s = set(&text);
        assert_eq!(s.format_with(","), text);
        assert_eq!(s.to_string(), format!("{A}:1-5:7-9:11,\n{B}:1-3"));
        assert_eq!(set(&s.to_string()), s);
        assert_eq!(s.count(), 5 + 3 + 1 + 3);
        // Out-of-order, overlapping, whitespace, upper case: normalized.
        let messy = format!(" {B}:3:1-2 ,\n {}:7-9:1-5:4:11:10", A.to_uppercase());
        assert_eq!(
            set(&messy).format_with(","),
            format!("{A}:1-5:7-11,{B}:1-3")
        );
        assert!(set("").is_empty());
    }

    #[test]
    fn parse_errors() {
        for bad in [
            A.to_string(),
            format!("{A}:0"),
            format!("{A}:5-3"),
            format!("{A}:x"),
            format!("{A}:1-"),
            "nonsense:1".to_string(),
            format!("{A}:9223372036854775807"),
        ] {
            assert!(GtidSet::parse(&bad).is_err(), "{bad}");
        }
        assert!(matches!(
            GtidSet::parse(&format!("{A}:tag:1-5")),
            Err(BinlogError::Unsupported(_))
        ));
    }

    #[test]
    fn add_merges_neighbours() {
        let u = Uuid::parse(A).unwrap();
        let mut s = GtidSet::new();
        for g in [5, 3, 1, 2, 4, 10] {
            s.add(u, g);
        }
        assert_eq!(s.intervals(&u), vec![(1, 5), (10, 10)]);
        s.add_interval(u, 6, 9);
        assert_eq!(s.intervals(&u), vec![(1, 10)]);
        s.add(u, 0);
        assert_eq!(s.count(), 10);
    }

    #[test]
    fn contains_union_subtract() {
        let u = Uuid::parse(A).unwrap();
        let s = set(&format!("{A}:1-5:7-9,{B}:1-3"));
        assert!(s.contains(&u, 1) && s.contains(&u, 5) && s.contains(&u, 8));
        assert!(!s.contains(&u, 6) && !s.contains(&u, 10) && !s.contains(&u, 0));
        let mut t = set(&format!("{A}:6:10-12"));
        t.union_with(&s);
        assert_eq!(t.format_with(","), format!("{A}:1-12,{B}:1-3"));
        assert!(t.contains_set(&s) && !s.contains_set(&t));
        let d = t.subtract(&set(&format!("{A}:2-3:8:12-20,{B}:1-3")));
        assert_eq!(d.format_with(","), format!("{A}:1:4-7:9-11"));
        assert!(s.subtract(&s).is_empty());
        assert_eq!(s.subtract(&GtidSet::new()), s);
    }

    #[test]
    fn binary_round_trip_and_layout() {
        let s = set(&format!("{A}:1-5:7,{B}:1-3"));
        let mut out = Vec::new();
        s.encode(&mut out);
        assert_eq!(out.len(), s.encoded_len());
        assert_eq!(&out[..8], &2u64.to_le_bytes());
        assert_eq!(&out[8..24], Uuid::parse(A).unwrap().as_bytes());
        assert_eq!(&out[24..32], &2u64.to_le_bytes());
        assert_eq!(
            &out[32..48],
            &[1, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]
        );
        let back = GtidSet::decode(&mut Reader::new(&out)).unwrap();
        assert_eq!(back, s);
        let mut empty = Vec::new();
        GtidSet::new().encode(&mut empty);
        assert_eq!(empty, [0u8; 8]);
    }

    #[test]
    fn binary_decode_never_panics() {
        let s = set(&format!("{A}:1-5:7,{B}:1-3"));
        let mut out = Vec::new();
        s.encode(&mut out);
        for n in 0..out.len() {
            assert!(GtidSet::decode(&mut Reader::new(&out[..n])).is_err());
        }
        let mut bad = out.clone();
        bad[32] = 0; // interval start 0
        assert!(GtidSet::decode(&mut Reader::new(&bad)).is_err());
        let mut huge = out;
        huge[0..8].copy_from_slice(&u32::MAX.to_le_bytes().repeat(2));
        assert!(GtidSet::decode(&mut Reader::new(&huge)).is_err());
    }
}
