//! The initial population (clause 4.3.3.1): 100,000 items; per warehouse 100,000 stock rows
//! and 10 districts; per district 3,000 customers with one history row each, and 3,000 orders
//! (one per customer, in a random permutation) with 5–15 order lines each, of which the last
//! 900 are undelivered new orders. Loaded in jobs (item ranges, stock ranges, one warehouse, one
//! district's customers, one district's orders) that `--load-clients` connections take in turn,
//! each job in multi-row INSERTs with its own seeded generator, so the data does not depend on
//! which connection took which job.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use mysql::Conn;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use super::random::{
    astring, cents, data_with_original, last_name, money, nstring, nurand, rate, zip, NuRandC,
    CUSTOMERS, DISTRICTS, FIRST_NEW_ORDER, ITEMS, ORDERS,
};
use crate::client;
use crate::workloads::Ctx;

/// Items or stock rows per job.
const RANGE: u32 = 10_000;
/// Statements stop growing past this many bytes.
const MAX_STATEMENT_BYTES: usize = 256 << 10;

/// One piece of the load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Job {
    /// Items `first..=last`.
    Items { first: u32, last: u32 },
    /// A warehouse row and its 10 district rows.
    Warehouse(u32),
    /// Stock rows of warehouse `w` for items `first..=last`.
    Stock { w: u32, first: u32, last: u32 },
    /// The customers of a district and their history rows.
    Customers { w: u32, d: u32 },
    /// The orders of a district, their order lines and the new orders.
    Orders { w: u32, d: u32 },
}

/// The jobs that load `warehouses` warehouses, largest first.
pub fn jobs(warehouses: u32) -> Vec<Job> {
    let mut v = Vec::new();
    for w in 1..=warehouses {
        for d in 1..=DISTRICTS {
            v.push(Job::Orders { w, d });
        }
    }
    for w in 1..=warehouses {
        for d in 1..=DISTRICTS {
            v.push(Job::Customers { w, d });
        }
    }
    let ranges =
        || (0..ITEMS.div_ceil(RANGE)).map(|i| (i * RANGE + 1, ((i + 1) * RANGE).min(ITEMS)));
    for w in 1..=warehouses {
        v.extend(ranges().map(|(first, last)| Job::Stock { w, first, last }));
    }
    v.extend(ranges().map(|(first, last)| Job::Items { first, last }));
    v.extend((1..=warehouses).map(Job::Warehouse));
    v
}

/// Rows of every table for `warehouses` warehouses, not counting order lines (5–15 per order,
/// 10 on average): for the progress figures.
pub fn expected_rows(warehouses: u32) -> u64 {
    let w = u64::from(warehouses);
    let per_district = u64::from(CUSTOMERS * 2 + ORDERS + (ORDERS - FIRST_NEW_ORDER + 1));
    u64::from(ITEMS) + w * (1 + u64::from(ITEMS) + 10 + 10 * per_district)
}

/// Builds multi-row INSERT statements for one table and sends them when they are full.
struct Inserter {
    head: String,
    sql: String,
    rows: usize,
    max_rows: usize,
}

impl Inserter {
    fn new(table: &str, columns: &str, max_rows: usize) -> Inserter {
        let head = format!("INSERT INTO {table} ({columns}) VALUES ");
        Inserter {
            sql: head.clone(),
            head,
            rows: 0,
            max_rows,
        }
    }

    /// Adds a row (`values` without the parentheses); sends the statement when it is full.
    fn row(&mut self, conn: &mut Conn, values: &str, done: &AtomicU64) -> Result<()> {
        if self.rows > 0 {
            self.sql.push(',');
        }
        self.sql.push('(');
        self.sql.push_str(values);
        self.sql.push(')');
        self.rows += 1;
        if self.rows >= self.max_rows || self.sql.len() >= MAX_STATEMENT_BYTES {
            self.flush(conn, done)?;
        }
        Ok(())
    }

    /// Sends what is pending.
    fn flush(&mut self, conn: &mut Conn, done: &AtomicU64) -> Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        conn.query_drop(&self.sql).with_context(|| {
            let shown: String = self.sql.chars().take(300).collect();
            format!("loading: {shown}… ({} rows)", self.rows)
        })?;
        done.fetch_add(self.rows as u64, Ordering::Relaxed);
        self.sql.truncate(self.head.len());
        self.rows = 0;
        Ok(())
    }
}

/// What the load needs besides the connection.
#[derive(Debug, Clone)]
pub struct LoadSpec {
    /// Warehouses.
    pub warehouses: u32,
    /// The NURand constants of the load (C_LAST for the last names of customers past 1000).
    pub c: NuRandC,
    /// Seed of the job generators.
    pub seed: u64,
    /// The timestamp of the load (`YYYY-MM-DD HH:MM:SS`), for dates.
    pub now: String,
}

/// The address fields street 1, street 2, city, state and zip, as SQL literals.
fn address<R: Rng>(rng: &mut R) -> String {
    format!(
        "'{}','{}','{}','{}','{}'",
        astring(rng, 10, 20),
        astring(rng, 10, 20),
        astring(rng, 10, 20),
        astring(rng, 2, 2).to_ascii_uppercase(),
        zip(rng)
    )
}

/// The values of item `i`.
pub fn item_values<R: Rng>(rng: &mut R, i: u32) -> String {
    format!(
        "{i},{},'{}',{},'{}'",
        rng.gen_range(1..=10_000),
        astring(rng, 14, 24),
        money(i64::from(cents(rng, 100, 10_000))),
        data_with_original(rng)
    )
}

/// The values of the stock row of item `i` in warehouse `w`.
pub fn stock_values<R: Rng>(rng: &mut R, w: u32, i: u32) -> String {
    let mut s = format!("{i},{w},{}", rng.gen_range(10..=100));
    for _ in 0..10 {
        let _ = write!(s, ",'{}'", astring(rng, 24, 24));
    }
    let _ = write!(s, ",0,0,0,'{}'", data_with_original(rng));
    s
}

/// The values of customer `c` of district `d` in warehouse `w`: customers 1–1000 get the last
/// names of numbers 0–999 in order, the others NURand(255, 0, 999) with the load's C.
pub fn customer_values<R: Rng>(rng: &mut R, spec: &LoadSpec, w: u32, d: u32, c: u32) -> String {
    let last = if c <= 1000 {
        last_name(c - 1)
    } else {
        last_name(nurand(rng, 255, 0, 999, spec.c.c_last))
    };
    let credit = if rng.gen_range(0..10) == 0 {
        "BC"
    } else {
        "GC"
    };
    format!(
        "{c},{d},{w},'{}','OE','{last}',{},'{}','{}','{credit}',50000.00,{},-10.00,10.00,1,0,'{}'",
        astring(rng, 8, 16),
        address(rng),
        nstring(rng, 16, 16),
        spec.now,
        rate(rng, 5000),
        astring(rng, 300, 500)
    )
}

fn run_job(
    conn: &mut Conn,
    spec: &LoadSpec,
    job: Job,
    rng: &mut StdRng,
    done: &AtomicU64,
) -> Result<()> {
    match job {
        Job::Items { first, last } => {
            let mut ins = Inserter::new("item", "i_id, i_im_id, i_name, i_price, i_data", 1000);
            for i in first..=last {
                ins.row(conn, &item_values(rng, i), done)?;
            }
            ins.flush(conn, done)
        }
        Job::Stock { w, first, last } => {
            let mut cols = "s_i_id, s_w_id, s_quantity".to_string();
            for d in 1..=10 {
                let _ = write!(cols, ", s_dist_{d:02}");
            }
            cols.push_str(", s_ytd, s_order_cnt, s_remote_cnt, s_data");
            let mut ins = Inserter::new("stock", &cols, 1000);
            for i in first..=last {
                ins.row(conn, &stock_values(rng, w, i), done)?;
            }
            ins.flush(conn, done)
        }
        Job::Warehouse(w) => load_warehouse(conn, rng, w, done),
        Job::Customers { w, d } => load_customers(conn, spec, rng, w, d, done),
        Job::Orders { w, d } => load_orders(conn, spec, rng, w, d, done),
    }
}

fn load_warehouse(conn: &mut Conn, rng: &mut StdRng, w: u32, done: &AtomicU64) -> Result<()> {
    let mut ins = Inserter::new(
        "warehouse",
        "w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, w_tax, w_ytd",
        1,
    );
    let v = format!(
        "{w},'{}',{},{},300000.00",
        astring(rng, 6, 10),
        address(rng),
        rate(rng, 2000)
    );
    ins.row(conn, &v, done)?;
    let mut ins = Inserter::new(
        "district",
        "d_id, d_w_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip, d_tax, \
         d_ytd, d_next_o_id",
        DISTRICTS as usize,
    );
    for d in 1..=DISTRICTS {
        let v = format!(
            "{d},{w},'{}',{},{},30000.00,{}",
            astring(rng, 6, 10),
            address(rng),
            rate(rng, 2000),
            ORDERS + 1
        );
        ins.row(conn, &v, done)?;
    }
    ins.flush(conn, done)
}

fn load_customers(
    conn: &mut Conn,
    spec: &LoadSpec,
    rng: &mut StdRng,
    w: u32,
    d: u32,
    done: &AtomicU64,
) -> Result<()> {
    let mut cust = Inserter::new(
        "customer",
        "c_id, c_d_id, c_w_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, \
         c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, \
         c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data",
        500,
    );
    let mut hist = Inserter::new(
        "history",
        "h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data",
        1000,
    );
    for c in 1..=CUSTOMERS {
        cust.row(conn, &customer_values(rng, spec, w, d, c), done)?;
        let h = format!(
            "{c},{d},{w},{d},{w},'{}',10.00,'{}'",
            spec.now,
            astring(rng, 12, 24)
        );
        hist.row(conn, &h, done)?;
    }
    cust.flush(conn, done)?;
    hist.flush(conn, done)
}

fn load_orders(
    conn: &mut Conn,
    spec: &LoadSpec,
    rng: &mut StdRng,
    w: u32,
    d: u32,
    done: &AtomicU64,
) -> Result<()> {
    let mut customers: Vec<u32> = (1..=CUSTOMERS).collect();
    customers.shuffle(rng);
    let mut orders = Inserter::new(
        "orders",
        "o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local",
        1000,
    );
    let mut lines = Inserter::new(
        "order_line",
        "ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, \
         ol_quantity, ol_amount, ol_dist_info",
        2000,
    );
    let mut new_orders = Inserter::new("new_order", "no_o_id, no_d_id, no_w_id", 1000);
    let now = &spec.now;
    for o in 1..=ORDERS {
        let delivered = o < FIRST_NEW_ORDER;
        let carrier = if delivered {
            rng.gen_range(1..=10).to_string()
        } else {
            "NULL".into()
        };
        let ol_cnt = rng.gen_range(5..=15);
        let c = customers[(o - 1) as usize];
        let v = format!("{o},{d},{w},{c},'{now}',{carrier},{ol_cnt},1");
        orders.row(conn, &v, done)?;
        for n in 1..=ol_cnt {
            let (delivery, amount) = if delivered {
                (format!("'{now}'"), "0.00".to_string())
            } else {
                ("NULL".to_string(), money(i64::from(cents(rng, 1, 999_999))))
            };
            let v = format!(
                "{o},{d},{w},{n},{},{w},{delivery},5,{amount},'{}'",
                rng.gen_range(1..=ITEMS),
                astring(rng, 24, 24)
            );
            lines.row(conn, &v, done)?;
        }
        if !delivered {
            new_orders.row(conn, &format!("{o},{d},{w}"), done)?;
        }
    }
    orders.flush(conn, done)?;
    lines.flush(conn, done)?;
    new_orders.flush(conn, done)
}

/// What the load did.
#[derive(Debug, Clone, Copy)]
pub struct Loaded {
    /// Rows inserted, all tables.
    pub rows: u64,
    /// Wall time.
    pub took: Duration,
}

/// Loads the population into `db` (its tables must exist) with `ctx.params.load_clients`
/// connections.
pub fn load(ctx: &Ctx, db: &str, spec: &LoadSpec) -> Result<Loaded> {
    let jobs = jobs(spec.warehouses);
    let next = AtomicUsize::new(0);
    let done = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let pb = ctx.bar(jobs.len() as u64, "tpcc load (jobs)");
    let start = Instant::now();
    client::run_clients(
        ctx.target,
        Some(db),
        ctx.params.load_clients.max(1),
        &stop,
        |_, conn| loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            let i = next.fetch_add(1, Ordering::SeqCst);
            let Some(&job) = jobs.get(i) else {
                return Ok(());
            };
            let mut rng = StdRng::seed_from_u64(
                spec.seed
                    .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    .wrapping_add(i as u64),
            );
            run_job(conn, spec, job, &mut rng, &done)?;
            pb.inc(1);
        },
    )?;
    pb.finish_and_clear();
    Ok(Loaded {
        rows: done.load(Ordering::Relaxed),
        took: start.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_cover_every_row_once() {
        let j = jobs(2);
        assert_eq!(j.len(), 20 + 20 + 2 * 10 + 10 + 2);
        assert_eq!(j[0], Job::Orders { w: 1, d: 1 });
        let mut items = 0;
        let mut stock = [0u32; 3];
        for job in &j {
            match *job {
                Job::Items { first, last } => items += last - first + 1,
                Job::Stock { w, first, last } => stock[w as usize] += last - first + 1,
                _ => {}
            }
        }
        assert_eq!(items, ITEMS);
        assert_eq!(&stock[1..], &[ITEMS, ITEMS]);
        assert_eq!(
            expected_rows(1),
            100_000 + 1 + 100_000 + 10 + 10 * (6000 + 3000 + 900)
        );
    }

    #[test]
    fn row_values() {
        let mut rng = StdRng::seed_from_u64(5);
        let spec = LoadSpec {
            warehouses: 1,
            c: NuRandC {
                c_last: 100,
                c_id: 1,
                ol_i_id: 1,
            },
            seed: 1,
            now: "2026-01-01 00:00:00".into(),
        };
        let c = customer_values(&mut rng, &spec, 1, 2, 6);
        assert!(c.starts_with("6,2,1,'"), "{c}");
        assert!(c.contains(",'OE','BARBARESE',"), "{c}"); // customer 6: name number 5
        assert!(
            c.contains(",50000.00,0.") && c.contains(",-10.00,10.00,1,0,'"),
            "{c}"
        );
        assert_eq!(c.matches('\'').count(), 2 * 12, "{c}");
        let s = stock_values(&mut rng, 3, 42);
        assert!(s.starts_with("42,3,"));
        assert_eq!(s.split(',').count(), 3 + 10 + 4);
        let i = item_values(&mut rng, 9);
        assert!(i.starts_with("9,") && i.split(',').count() == 5, "{i}");
    }
}
