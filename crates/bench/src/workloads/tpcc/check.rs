//! TPC-C's consistency conditions 1–4 (clause 3.3.2): read with five aggregate queries, then
//! evaluated here per warehouse and district.
//!
//! 1. W_YTD = sum(D_YTD) of the warehouse's districts;
//! 2. D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) per district;
//! 3. max(NO_O_ID) - min(NO_O_ID) + 1 = the district's rows in NEW-ORDER;
//! 4. sum(O_OL_CNT) = the district's rows in ORDER-LINE.

use std::collections::BTreeMap;

use anyhow::{anyhow, Context, Result};
use mysql::prelude::Queryable;
use mysql::Conn;

use super::random::{money, parse_cents, DISTRICTS};

/// The queries, in the order [`gather`] runs them.
pub const QUERIES: [&str; 5] = [
    "SELECT w_id, w_ytd FROM warehouse",
    "SELECT d_w_id, d_id, d_ytd, d_next_o_id FROM district",
    "SELECT o_w_id, o_d_id, MAX(o_id), SUM(o_ol_cnt) FROM orders GROUP BY o_w_id, o_d_id",
    "SELECT no_w_id, no_d_id, MAX(no_o_id), MIN(no_o_id), COUNT(*) FROM new_order \
     GROUP BY no_w_id, no_d_id",
    "SELECT ol_w_id, ol_d_id, COUNT(*) FROM order_line GROUP BY ol_w_id, ol_d_id",
];

/// A district: (warehouse, district).
pub type Key = (u32, u32);

/// The numbers the conditions compare (money in cents).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    /// W_YTD per warehouse.
    pub w_ytd: BTreeMap<u32, i64>,
    /// (D_YTD, D_NEXT_O_ID) per district.
    pub districts: BTreeMap<Key, (i64, i64)>,
    /// (max(O_ID), sum(O_OL_CNT)) per district.
    pub orders: BTreeMap<Key, (i64, i64)>,
    /// (max(NO_O_ID), min(NO_O_ID), count) per district with new orders.
    pub new_orders: BTreeMap<Key, (i64, i64, i64)>,
    /// ORDER-LINE rows per district.
    pub order_lines: BTreeMap<Key, i64>,
}

/// An integer result, also when the server gives a SUM as a decimal with zero places.
fn int(s: &str) -> Result<i64> {
    let t = s.trim();
    let t = match t.split_once('.') {
        Some((i, f)) if f.bytes().all(|b| b == b'0') => i,
        _ => t,
    };
    t.parse().map_err(|_| anyhow!("not an integer: '{s}'"))
}

fn cents(s: &str) -> Result<i64> {
    parse_cents(s).ok_or_else(|| anyhow!("not an amount with two places: '{s}'"))
}

/// Reads the facts with [`QUERIES`].
///
/// # Errors
/// When a query fails or returns something that is not a number.
pub fn gather(conn: &mut Conn) -> Result<Facts> {
    let mut f = Facts::default();
    let rows = |conn: &mut Conn, q: &str| -> Result<Vec<Vec<String>>> {
        let rows: Vec<mysql::Row> = conn.query(q).with_context(|| format!("`{q}`"))?;
        rows.into_iter()
            .map(|r| {
                (0..r.len())
                    .map(|i| {
                        r.get_opt::<Option<String>, usize>(i)
                            .and_then(|v| v.ok())
                            .flatten()
                            .ok_or_else(|| anyhow!("`{q}`: NULL or unreadable column {i}"))
                    })
                    .collect()
            })
            .collect()
    };
    let key = |r: &[String]| -> Result<Key> { Ok((int(&r[0])? as u32, int(&r[1])? as u32)) };
    for r in rows(conn, QUERIES[0])? {
        f.w_ytd.insert(int(&r[0])? as u32, cents(&r[1])?);
    }
    for r in rows(conn, QUERIES[1])? {
        f.districts.insert(key(&r)?, (cents(&r[2])?, int(&r[3])?));
    }
    for r in rows(conn, QUERIES[2])? {
        f.orders.insert(key(&r)?, (int(&r[2])?, int(&r[3])?));
    }
    for r in rows(conn, QUERIES[3])? {
        f.new_orders
            .insert(key(&r)?, (int(&r[2])?, int(&r[3])?, int(&r[4])?));
    }
    for r in rows(conn, QUERIES[4])? {
        f.order_lines.insert(key(&r)?, int(&r[2])?);
    }
    Ok(f)
}

/// The verdict on one condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    /// 1–4.
    pub number: u8,
    /// The condition as an equation.
    pub title: &'static str,
    /// Warehouses or districts checked.
    pub checked: usize,
    /// What the check counted ("warehouses", "districts").
    pub unit: &'static str,
    /// One line per warehouse or district where it does not hold.
    pub violations: Vec<String>,
}

impl Condition {
    /// Whether it held everywhere.
    pub fn passed(&self) -> bool {
        self.violations.is_empty()
    }

    /// "warehouses" or "warehouse" as the count asks.
    fn unit_for(&self, n: usize) -> &str {
        if n == 1 {
            self.unit.strip_suffix('s').unwrap_or(self.unit)
        } else {
            self.unit
        }
    }

    /// "100 districts", or the first violations.
    pub fn detail(&self) -> String {
        if self.passed() {
            return format!("{} {}", self.checked, self.unit_for(self.checked));
        }
        let mut s = format!(
            "{} of {} {}: ",
            self.violations.len(),
            self.checked,
            self.unit_for(self.checked)
        );
        s.push_str(
            &self
                .violations
                .iter()
                .take(5)
                .cloned()
                .collect::<Vec<_>>()
                .join("; "),
        );
        if self.violations.len() > 5 {
            s.push_str(&format!("; and {} more", self.violations.len() - 5));
        }
        s
    }
}

fn fmt_opt(v: Option<i64>) -> String {
    v.map_or("none".into(), |v| v.to_string())
}

/// Evaluates conditions 1–4 for a database of `warehouses` warehouses.
pub fn evaluate(f: &Facts, warehouses: u32) -> Vec<Condition> {
    let mut c1 = Condition {
        number: 1,
        title: "W_YTD = sum(D_YTD)",
        checked: 0,
        unit: "warehouses",
        violations: vec![],
    };
    let mut c2 = Condition {
        number: 2,
        title: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
        checked: 0,
        unit: "districts",
        violations: vec![],
    };
    let mut c3 = Condition {
        number: 3,
        title: "max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW-ORDER",
        checked: 0,
        unit: "districts",
        violations: vec![],
    };
    let mut c4 = Condition {
        number: 4,
        title: "sum(O_OL_CNT) = rows in ORDER-LINE",
        checked: 0,
        unit: "districts",
        violations: vec![],
    };
    for w in 1..=warehouses {
        c1.checked += 1;
        let d_sum: i64 = (1..=DISTRICTS)
            .filter_map(|d| f.districts.get(&(w, d)).map(|x| x.0))
            .sum();
        match f.w_ytd.get(&w) {
            None => c1.violations.push(format!("warehouse {w} missing")),
            Some(&y) if y != d_sum => c1.violations.push(format!(
                "warehouse {w}: W_YTD {} ≠ sum(D_YTD) {}",
                money(y),
                money(d_sum)
            )),
            Some(_) => {}
        }
        for d in 1..=DISTRICTS {
            let k = (w, d);
            let max_o = f.orders.get(&k).map(|o| o.0);
            let no = f.new_orders.get(&k).copied();
            c2.checked += 1;
            match f.districts.get(&k) {
                None => c2.violations.push(format!("district {w}/{d} missing")),
                Some(&(_, next)) => {
                    let max_no = no.map(|n| n.0);
                    // A district whose new orders were all delivered has no max(NO_O_ID).
                    if max_o != Some(next - 1) || max_no.is_some_and(|m| m != next - 1) {
                        c2.violations.push(format!(
                            "district {w}/{d}: D_NEXT_O_ID - 1 = {}, max(O_ID) = {}, \
                             max(NO_O_ID) = {}",
                            next - 1,
                            fmt_opt(max_o),
                            fmt_opt(max_no)
                        ));
                    }
                }
            }
            c3.checked += 1;
            if let Some((max, min, count)) = no {
                if max - min + 1 != count {
                    c3.violations.push(format!(
                        "district {w}/{d}: max - min + 1 = {} ≠ {count} rows",
                        max - min + 1
                    ));
                }
            }
            c4.checked += 1;
            let ol_cnt = f.orders.get(&k).map_or(0, |o| o.1);
            let lines = f.order_lines.get(&k).copied().unwrap_or(0);
            if ol_cnt != lines {
                c4.violations.push(format!(
                    "district {w}/{d}: sum(O_OL_CNT) = {ol_cnt} ≠ {lines} rows"
                ));
            }
        }
    }
    vec![c1, c2, c3, c4]
}

/// Gathers the facts and evaluates the conditions.
///
/// # Errors
/// When a query fails.
pub fn check(conn: &mut Conn, warehouses: u32) -> Result<Vec<Condition>> {
    Ok(evaluate(&gather(conn)?, warehouses))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The facts of a freshly loaded database of `w` warehouses.
    fn loaded(w: u32) -> Facts {
        let mut f = Facts::default();
        for w in 1..=w {
            f.w_ytd.insert(w, 30_000_000);
            for d in 1..=10 {
                f.districts.insert((w, d), (3_000_000, 3001));
                f.orders.insert((w, d), (3000, 30_000));
                f.new_orders.insert((w, d), (3000, 2101, 900));
                f.order_lines.insert((w, d), 30_000);
            }
        }
        f
    }

    #[test]
    fn a_loaded_database_passes() {
        let c = evaluate(&loaded(2), 2);
        assert_eq!(c.len(), 4);
        assert!(c.iter().all(Condition::passed), "{c:?}");
        assert_eq!(c[0].detail(), "2 warehouses");
        assert_eq!(c[3].detail(), "20 districts");
        assert_eq!(evaluate(&loaded(1), 1)[0].detail(), "1 warehouse");
    }

    #[test]
    fn each_condition_catches_its_violation() {
        let mut f = loaded(2);
        f.w_ytd.insert(2, 30_000_001);
        let c = evaluate(&f, 2);
        assert!(!c[0].passed() && c[1].passed());
        assert!(
            c[0].detail()
                .contains("W_YTD 300000.01 ≠ sum(D_YTD) 300000.00"),
            "{}",
            c[0].detail()
        );

        let mut f = loaded(1);
        f.districts.insert((1, 3), (3_000_000, 3005));
        let c = evaluate(&f, 1);
        assert!(!c[1].passed() && c[0].passed());
        assert!(c[1].violations[0].contains("district 1/3"));

        let mut f = loaded(1);
        f.new_orders.insert((1, 4), (3000, 2101, 899)); // a hole
        let c = evaluate(&f, 1);
        assert!(!c[2].passed() && c[1].passed());

        let mut f = loaded(1);
        f.order_lines.insert((1, 5), 29_999);
        let c = evaluate(&f, 1);
        assert!(!c[3].passed());
        assert!(c[3].detail().starts_with("1 of 10 districts: district 1/5"));

        // Missing rows are violations, not passes.
        let mut f = loaded(1);
        f.districts.remove(&(1, 10));
        let c = evaluate(&f, 1);
        assert!(!c[1].passed() && !c[0].passed());
        assert!(!evaluate(&Facts::default(), 1)[0].passed());
    }

    #[test]
    fn delivered_out_districts_and_money_sums() {
        let mut f = loaded(1);
        f.new_orders.remove(&(1, 1)); // every new order delivered: no max(NO_O_ID)
        f.w_ytd.insert(1, 30_000_000 + 12_345);
        f.districts.insert((1, 2), (3_000_000 + 12_345, 3001));
        let c = evaluate(&f, 1);
        assert!(c.iter().all(Condition::passed), "{c:?}");
        let mut f = loaded(1);
        f.new_orders.insert((1, 1), (3001, 2101, 901)); // a new order beyond D_NEXT_O_ID
        assert!(!evaluate(&f, 1)[1].passed());
        let many = Condition {
            number: 4,
            title: "t",
            checked: 10,
            unit: "districts",
            violations: (0..7).map(|i| format!("v{i}")).collect(),
        };
        assert_eq!(
            many.detail(),
            "7 of 10 districts: v0; v1; v2; v3; v4; and 2 more"
        );
    }

    #[test]
    fn numbers_from_the_server() {
        assert_eq!(int("30000").unwrap(), 30000);
        assert_eq!(int("30000.000").unwrap(), 30000);
        assert!(int("1.5").is_err());
        assert_eq!(cents("300000.00").unwrap(), 30_000_000);
        assert!(cents("x").is_err());
        assert!(QUERIES.iter().all(|q| q.starts_with("SELECT ")));
    }
}
