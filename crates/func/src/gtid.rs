//! GTID set arithmetic for GTID_SUBSET and GTID_SUBTRACT.
//!
//! A GTID set is `uuid:interval[:interval...][,uuid:...]` with intervals `n` or `n-m`
//! (1 ≤ n ≤ m < 2^63). Sets print as MySQL prints them: UUIDs in ascending order, lower case,
//! merged intervals, entries separated by ",\n".

use std::collections::BTreeMap;

/// A GTID set: UUID → sorted, disjoint, non-adjacent closed intervals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GtidSet(BTreeMap<String, Vec<(u64, u64)>>);

fn norm_uuid(s: &str) -> Option<String> {
    let t = s.trim();
    let hex: String = t.chars().filter(|c| *c != '-').collect();
    if hex.len() != 32 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    if t.len() == 36 {
        let b = t.as_bytes();
        if b[8] != b'-' || b[13] != b'-' || b[18] != b'-' || b[23] != b'-' {
            return None;
        }
    } else if t.len() != 32 {
        return None;
    }
    let h = hex.to_ascii_lowercase();
    Some(format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    ))
}

fn add(iv: &mut Vec<(u64, u64)>, lo: u64, hi: u64) {
    iv.push((lo, hi));
    iv.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(iv.len());
    for &(a, b) in iv.iter() {
        match merged.last_mut() {
            Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    *iv = merged;
}

impl GtidSet {
    /// Parses a GTID set; `None` if malformed.
    pub fn parse(s: &str) -> Option<GtidSet> {
        let mut set = GtidSet::default();
        let t = s.trim();
        if t.is_empty() {
            return Some(set);
        }
        for entry in t.split(',') {
            let entry = entry.trim();
            if entry.is_empty() {
                continue;
            }
            let mut parts = entry.split(':');
            let uuid = norm_uuid(parts.next()?)?;
            let iv = set.0.entry(uuid).or_default();
            let mut any = false;
            for p in parts {
                let p = p.trim();
                let (lo, hi) = match p.split_once('-') {
                    Some((a, b)) => (a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?),
                    None => {
                        let v = p.parse::<u64>().ok()?;
                        (v, v)
                    }
                };
                if lo == 0 || hi < lo || hi >= i64::MAX as u64 {
                    return None;
                }
                add(iv, lo, hi);
                any = true;
            }
            if !any {
                return None;
            }
        }
        Some(set)
    }

    /// True if every GTID of `self` is in `other`.
    pub fn is_subset(&self, other: &GtidSet) -> bool {
        self.0.iter().all(|(u, ivs)| {
            let Some(o) = other.0.get(u) else {
                return ivs.is_empty();
            };
            ivs.iter()
                .all(|&(a, b)| o.iter().any(|&(c, d)| c <= a && b <= d))
        })
    }

    /// The GTIDs of `self` that are not in `other`.
    pub fn subtract(&self, other: &GtidSet) -> GtidSet {
        let mut out = GtidSet::default();
        for (u, ivs) in &self.0 {
            let mut rest = ivs.clone();
            if let Some(o) = other.0.get(u) {
                for &(c, d) in o {
                    let mut next = Vec::new();
                    for &(a, b) in &rest {
                        if d < a || c > b {
                            next.push((a, b));
                            continue;
                        }
                        if a < c {
                            next.push((a, c - 1));
                        }
                        if b > d {
                            next.push((d + 1, b));
                        }
                    }
                    rest = next;
                }
            }
            if !rest.is_empty() {
                out.0.insert(u.clone(), rest);
            }
        }
        out
    }
}

impl std::fmt::Display for GtidSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        for (u, ivs) in &self.0 {
            if ivs.is_empty() {
                continue;
            }
            if !first {
                f.write_str(",\n")?;
            }
            first = false;
            f.write_str(u)?;
            for (a, b) in ivs {
                if a == b {
                    write!(f, ":{a}")?;
                } else {
                    write!(f, ":{a}-{b}")?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const U: &str = "3E11FA47-71CA-11E1-9E33-C80AA9429562";

    #[test]
    fn subset_and_subtract() {
        let a = GtidSet::parse(&format!("{U}:23")).unwrap();
        let b = GtidSet::parse(&format!("{U}:21-57")).unwrap();
        assert!(a.is_subset(&b));
        assert!(!b.is_subset(&a));
        let c = GtidSet::parse(&format!("{U}:21-57")).unwrap();
        let d = GtidSet::parse(&format!("{U}:20-25")).unwrap();
        assert_eq!(
            c.subtract(&d).to_string(),
            "3e11fa47-71ca-11e1-9e33-c80aa9429562:26-57"
        );
        let e = GtidSet::parse(&format!("{U}:1-3:4-6:9")).unwrap();
        assert_eq!(e.to_string(), "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-6:9");
        assert!(GtidSet::parse("x:1").is_none());
        assert!(GtidSet::parse(&format!("{U}:0")).is_none());
        assert!(GtidSet::parse("").unwrap().is_subset(&a));
    }
}
