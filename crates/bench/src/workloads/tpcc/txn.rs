//! The five transactions (clauses 2.4–2.8) as a terminal runs them: inputs drawn as the spec
//! says, then the statements of [`super::stmts`] as server-side prepared statements inside one
//! explicit transaction each.

use anyhow::{anyhow, bail, Context, Result};
use mysql::prelude::{FromRow, Queryable};
use mysql::{Conn, Row, Value};
use rand::Rng;

use super::random::{last_name, money, parse_cents, NuRandC, TxnType, DISTRICTS, ITEMS};
use super::stmts::{QRef, Stmts};

/// How a customer is picked: by id, or by last name (the middle one of those with that name,
/// ordered by first name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CustomerKey {
    /// C_ID.
    Id(u32),
    /// C_LAST.
    Last(String),
}

impl CustomerKey {
    /// 60 % by last name (NURand(255, 0, 999)), 40 % by id (NURand(1023, 1, 3000)).
    pub fn draw<R: Rng>(rng: &mut R, c: &NuRandC) -> CustomerKey {
        if rng.gen_range(1..=100) <= 60 {
            CustomerKey::Last(last_name(c.last_name_number(rng)))
        } else {
            CustomerKey::Id(c.customer_id(rng))
        }
    }
}

/// The index of the customer the spec picks among `n` with the same last name (sorted by
/// first name): position ⌈n / 2⌉, counted from 1.
pub fn middle_index(n: usize) -> Option<usize> {
    (n > 0).then(|| n.div_ceil(2) - 1)
}

/// One order line of a New-Order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    /// Item id (ITEMS + 1 = the unused item that rolls the transaction back).
    pub item: u32,
    /// Supplying warehouse.
    pub supply_w: u32,
    /// Quantity 1–10.
    pub qty: u32,
}

/// The inputs of one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// New-Order.
    NewOrder {
        /// Home warehouse.
        w: u32,
        /// District.
        d: u32,
        /// Customer.
        c: u32,
        /// 5–15 lines, ordered by item id (the unused item last).
        lines: Vec<Line>,
    },
    /// Payment.
    Payment {
        /// Home warehouse.
        w: u32,
        /// District.
        d: u32,
        /// The customer's warehouse (another one 15 % of the time).
        c_w: u32,
        /// The customer's district.
        c_d: u32,
        /// The customer.
        customer: CustomerKey,
        /// Amount in cents (1.00–5000.00).
        cents: u32,
    },
    /// Order-Status.
    OrderStatus {
        /// Warehouse.
        w: u32,
        /// District.
        d: u32,
        /// The customer.
        customer: CustomerKey,
    },
    /// Delivery.
    Delivery {
        /// Warehouse.
        w: u32,
        /// Carrier 1–10.
        carrier: u32,
    },
    /// Stock-Level.
    StockLevel {
        /// Warehouse.
        w: u32,
        /// District.
        d: u32,
        /// Quantity threshold 10–20.
        threshold: u32,
    },
}

/// A warehouse other than `w` (uniform), or `w` when there is only one.
fn other_warehouse<R: Rng>(rng: &mut R, w: u32, warehouses: u32) -> u32 {
    if warehouses < 2 {
        return w;
    }
    let o = rng.gen_range(1..warehouses);
    if o >= w {
        o + 1
    } else {
        o
    }
}

impl Input {
    /// Draws the inputs of a transaction of type `t` for a database of `warehouses`
    /// warehouses. The home warehouse is drawn uniformly for every transaction (terminals are
    /// not bound to a warehouse).
    pub fn draw<R: Rng>(t: TxnType, rng: &mut R, warehouses: u32, c: &NuRandC) -> Input {
        let w = rng.gen_range(1..=warehouses);
        let d = rng.gen_range(1..=DISTRICTS);
        match t {
            TxnType::NewOrder => {
                let n = rng.gen_range(5..=15);
                let rollback = rng.gen_range(1..=100) == 1;
                let mut lines: Vec<Line> = (0..n)
                    .map(|i| {
                        let item = if rollback && i == n - 1 {
                            ITEMS + 1
                        } else {
                            c.item_id(rng)
                        };
                        let supply_w = if rng.gen_range(1..=100) == 1 {
                            other_warehouse(rng, w, warehouses)
                        } else {
                            w
                        };
                        Line {
                            item,
                            supply_w,
                            qty: rng.gen_range(1..=10),
                        }
                    })
                    .collect();
                // A fixed order of the stock rows locked makes deadlocks between New-Orders
                // rare; the unused item (the largest id) stays last.
                lines.sort_by_key(|l| (l.item, l.supply_w));
                Input::NewOrder {
                    w,
                    d,
                    c: c.customer_id(rng),
                    lines,
                }
            }
            TxnType::Payment => {
                let (c_w, c_d) = if rng.gen_range(1..=100) <= 85 || warehouses < 2 {
                    (w, d)
                } else {
                    (
                        other_warehouse(rng, w, warehouses),
                        rng.gen_range(1..=DISTRICTS),
                    )
                };
                Input::Payment {
                    w,
                    d,
                    c_w,
                    c_d,
                    customer: CustomerKey::draw(rng, c),
                    cents: rng.gen_range(100..=500_000),
                }
            }
            TxnType::OrderStatus => Input::OrderStatus {
                w,
                d,
                customer: CustomerKey::draw(rng, c),
            },
            TxnType::Delivery => Input::Delivery {
                w,
                carrier: rng.gen_range(1..=10),
            },
            TxnType::StockLevel => Input::StockLevel {
                w,
                d,
                threshold: rng.gen_range(10..=20),
            },
        }
    }
}

/// How a transaction ended without an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Done {
    /// Committed.
    Committed,
    /// Rolled back on purpose (New-Order with the unused item).
    RolledBack,
}

/// A conflict the transaction detected itself (a Delivery whose new order another Delivery
/// took): rolled back and retried like a deadlock.
#[derive(Debug)]
pub struct Conflict(pub String);

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Conflict {}

/// Positional parameters.
fn p<const N: usize>(v: [Value; N]) -> Vec<Value> {
    Vec::from(v)
}

/// One terminal: a connection with the statements prepared.
pub struct Terminal<'c> {
    conn: &'c mut Conn,
    s: Stmts,
}

/// What a transaction reports besides committing: Delivery's districts without a new order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extra {
    /// Districts a Delivery found no new order in.
    pub skipped_districts: u32,
}

impl<'c> Terminal<'c> {
    /// Prepares the statements on `conn` (connected to the TPC-C database).
    pub fn new(conn: &'c mut Conn) -> Result<Terminal<'c>> {
        let s = Stmts::prepare(conn)?;
        Ok(Terminal { conn, s })
    }

    fn first<T: FromRow>(&mut self, q: &QRef, params: Vec<Value>) -> Result<Option<T>> {
        let q = q.get(&self.s);
        self.conn
            .exec_first(&q.st, params)
            .with_context(|| format!("`{}`", q.sql))
    }

    fn all<T: FromRow>(&mut self, q: &QRef, params: Vec<Value>) -> Result<Vec<T>> {
        let q = q.get(&self.s);
        self.conn
            .exec(&q.st, params)
            .with_context(|| format!("`{}`", q.sql))
    }

    /// Runs a statement; returns the rows it affected.
    fn run(&mut self, q: &QRef, params: Vec<Value>) -> Result<u64> {
        let q = q.get(&self.s);
        self.conn
            .exec_drop(&q.st, params)
            .with_context(|| format!("`{}`", q.sql))?;
        Ok(self.conn.affected_rows())
    }

    fn text(&mut self, sql: &str) -> Result<()> {
        self.conn
            .query_drop(sql)
            .with_context(|| format!("`{sql}`"))
    }

    /// Runs one transaction with `now` (`YYYY-MM-DD HH:MM:SS`) as its date. On an error the
    /// transaction is rolled back and the error returned (the caller retries deadlocks, lock
    /// wait timeouts and [`Conflict`]s).
    pub fn execute(&mut self, input: &Input, now: &str) -> Result<(Done, Extra)> {
        self.text("START TRANSACTION")?;
        let r = match input {
            Input::NewOrder { w, d, c, lines } => self.new_order(*w, *d, *c, lines, now),
            Input::Payment {
                w,
                d,
                c_w,
                c_d,
                customer,
                cents,
            } => self.payment(*w, *d, *c_w, *c_d, customer, *cents, now),
            Input::OrderStatus { w, d, customer } => self.order_status(*w, *d, customer),
            Input::Delivery { w, carrier } => self.delivery(*w, *carrier, now),
            Input::StockLevel { w, d, threshold } => self.stock_level(*w, *d, *threshold),
        };
        match r {
            Ok((Done::Committed, extra)) => {
                self.text("COMMIT")?;
                Ok((Done::Committed, extra))
            }
            Ok((Done::RolledBack, extra)) => {
                self.text("ROLLBACK")?;
                Ok((Done::RolledBack, extra))
            }
            Err(e) => {
                // The server may have rolled back already (deadlock); a failed ROLLBACK on a
                // broken connection surfaces with the next statement.
                let _ = self.conn.query_drop("ROLLBACK");
                Err(e)
            }
        }
    }

    fn new_order(
        &mut self,
        w: u32,
        d: u32,
        c: u32,
        lines: &[Line],
        now: &str,
    ) -> Result<(Done, Extra)> {
        let _tax: Option<String> = self.first(&QRef::NoW, p([w.into()]))?;
        let (_d_tax, o_id): (String, u32) = self
            .first(&QRef::NoD, p([w.into(), d.into()]))?
            .ok_or_else(|| anyhow!("district ({w}, {d}) not found"))?;
        self.run(&QRef::NoDUpd, p([w.into(), d.into()]))?;
        let _cust: (String, String, String) = self
            .first(&QRef::NoC, p([w.into(), d.into(), c.into()]))?
            .ok_or_else(|| anyhow!("customer ({w}, {d}, {c}) not found"))?;
        let all_local = u32::from(lines.iter().all(|l| l.supply_w == w));
        self.run(
            &QRef::NoOIns,
            p([
                o_id.into(),
                d.into(),
                w.into(),
                c.into(),
                now.into(),
                (lines.len() as u32).into(),
                all_local.into(),
            ]),
        )?;
        self.run(&QRef::NoNoIns, p([o_id.into(), d.into(), w.into()]))?;
        for (n, l) in lines.iter().enumerate() {
            let item: Option<(String, String, String)> =
                self.first(&QRef::NoI, p([l.item.into()]))?;
            let Some((price, _name, _data)) = item else {
                // The unused item: the spec's 1 % of New-Orders that roll back.
                return Ok((Done::RolledBack, Extra::default()));
            };
            let price = parse_cents(&price).ok_or_else(|| anyhow!("bad i_price {price}"))?;
            let (qty, _s_data, dist): (i64, String, String) = self
                .first(
                    &QRef::NoS(d as usize - 1),
                    p([l.supply_w.into(), l.item.into()]),
                )?
                .ok_or_else(|| anyhow!("stock ({}, {}) not found", l.supply_w, l.item))?;
            let q = i64::from(l.qty);
            let new_qty = if qty - q >= 10 { qty - q } else { qty - q + 91 };
            let remote = u32::from(l.supply_w != w);
            self.run(
                &QRef::NoSUpd,
                p([
                    new_qty.into(),
                    l.qty.into(),
                    remote.into(),
                    l.supply_w.into(),
                    l.item.into(),
                ]),
            )?;
            self.run(
                &QRef::NoOlIns,
                p([
                    o_id.into(),
                    d.into(),
                    w.into(),
                    (n as u32 + 1).into(),
                    l.item.into(),
                    l.supply_w.into(),
                    l.qty.into(),
                    money(q * price).into(),
                    dist.into(),
                ]),
            )?;
        }
        Ok((Done::Committed, Extra::default()))
    }

    /// The id of the customer `key` names in district (w, d).
    fn customer_id(&mut self, w: u32, d: u32, key: &CustomerKey) -> Result<u32> {
        match key {
            CustomerKey::Id(c) => Ok(*c),
            CustomerKey::Last(name) => {
                let ids: Vec<u32> = self.all(
                    &QRef::CByLast,
                    p([w.into(), d.into(), name.as_str().into()]),
                )?;
                let i = middle_index(ids.len())
                    .ok_or_else(|| anyhow!("no customer named {name} in district ({w}, {d})"))?;
                Ok(ids[i])
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn payment(
        &mut self,
        w: u32,
        d: u32,
        c_w: u32,
        c_d: u32,
        key: &CustomerKey,
        cents: u32,
        now: &str,
    ) -> Result<(Done, Extra)> {
        let amount = money(i64::from(cents));
        self.run(&QRef::PWUpd, p([amount.as_str().into(), w.into()]))?;
        let wh: Row = self
            .first(&QRef::PW, p([w.into()]))?
            .ok_or_else(|| anyhow!("warehouse {w} not found"))?;
        self.run(
            &QRef::PDUpd,
            p([amount.as_str().into(), w.into(), d.into()]),
        )?;
        let di: Row = self
            .first(&QRef::PD, p([w.into(), d.into()]))?
            .ok_or_else(|| anyhow!("district ({w}, {d}) not found"))?;
        let c = self.customer_id(c_w, c_d, key)?;
        let cust: Row = self
            .first(&QRef::PC, p([c_w.into(), c_d.into(), c.into()]))?
            .ok_or_else(|| anyhow!("customer ({c_w}, {c_d}, {c}) not found"))?;
        let credit: String = cust.get(10).unwrap_or_default();
        if credit == "BC" {
            let old: String = cust.get(14).unwrap_or_default();
            let mut data = format!("{c} {c_d} {c_w} {d} {w} {amount} {old}");
            data.truncate(500);
            self.run(
                &QRef::PCUpdBc,
                p([
                    amount.as_str().into(),
                    amount.as_str().into(),
                    data.into(),
                    c_w.into(),
                    c_d.into(),
                    c.into(),
                ]),
            )?;
        } else {
            self.run(
                &QRef::PCUpd,
                p([
                    amount.as_str().into(),
                    amount.as_str().into(),
                    c_w.into(),
                    c_d.into(),
                    c.into(),
                ]),
            )?;
        }
        let w_name: String = wh.get(0).unwrap_or_default();
        let d_name: String = di.get(0).unwrap_or_default();
        self.run(
            &QRef::PHIns,
            p([
                c.into(),
                c_d.into(),
                c_w.into(),
                d.into(),
                w.into(),
                now.into(),
                amount.as_str().into(),
                format!("{w_name}    {d_name}").into(),
            ]),
        )?;
        Ok((Done::Committed, Extra::default()))
    }

    fn order_status(&mut self, w: u32, d: u32, key: &CustomerKey) -> Result<(Done, Extra)> {
        let c = self.customer_id(w, d, key)?;
        let _cust: Row = self
            .first(&QRef::OsC, p([w.into(), d.into(), c.into()]))?
            .ok_or_else(|| anyhow!("customer ({w}, {d}, {c}) not found"))?;
        let order: Option<Row> = self.first(&QRef::OsO, p([w.into(), d.into(), c.into()]))?;
        // Every customer has an order from the load on.
        let order = order.ok_or_else(|| anyhow!("customer ({w}, {d}, {c}) has no order"))?;
        let o_id: u32 = order.get(0).ok_or_else(|| anyhow!("order without an id"))?;
        let lines: Vec<Row> = self.all(&QRef::OsOl, p([w.into(), d.into(), o_id.into()]))?;
        if lines.is_empty() {
            bail!("order ({w}, {d}, {o_id}) has no order lines");
        }
        Ok((Done::Committed, Extra::default()))
    }

    fn delivery(&mut self, w: u32, carrier: u32, now: &str) -> Result<(Done, Extra)> {
        let mut extra = Extra::default();
        for d in 1..=DISTRICTS {
            let no: Option<u32> = self.first(&QRef::DNo, p([w.into(), d.into()]))?;
            let Some(o_id) = no else {
                extra.skipped_districts += 1;
                continue;
            };
            let key = || p([w.into(), d.into(), o_id.into()]);
            if self.run(&QRef::DNoDel, key())? != 1 {
                // Another Delivery took this order after our read: start again.
                return Err(anyhow::Error::new(Conflict(format!(
                    "new order ({w}, {d}, {o_id}) was already delivered"
                ))));
            }
            let c: u32 = self
                .first(&QRef::DO, key())?
                .ok_or_else(|| anyhow!("order ({w}, {d}, {o_id}) not found"))?;
            self.run(
                &QRef::DOUpd,
                p([carrier.into(), w.into(), d.into(), o_id.into()]),
            )?;
            self.run(
                &QRef::DOlUpd,
                p([now.into(), w.into(), d.into(), o_id.into()]),
            )?;
            let total: Option<Option<String>> = self.first(&QRef::DOlSum, key())?;
            let total = total.flatten().unwrap_or_else(|| "0".into());
            self.run(
                &QRef::DCUpd,
                p([total.into(), w.into(), d.into(), c.into()]),
            )?;
        }
        Ok((Done::Committed, extra))
    }

    fn stock_level(&mut self, w: u32, d: u32, threshold: u32) -> Result<(Done, Extra)> {
        let next: u32 = self
            .first(&QRef::SlD, p([w.into(), d.into()]))?
            .ok_or_else(|| anyhow!("district ({w}, {d}) not found"))?;
        let _low: Option<i64> = self.first(
            &QRef::SlCount,
            p([
                w.into(),
                d.into(),
                next.into(),
                next.saturating_sub(20).into(),
                w.into(),
                threshold.into(),
            ]),
        )?;
        Ok((Done::Committed, Extra::default()))
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn middle_customer_by_last_name() {
        assert_eq!(middle_index(0), None);
        assert_eq!(middle_index(1), Some(0));
        assert_eq!(middle_index(2), Some(0));
        assert_eq!(middle_index(3), Some(1));
        assert_eq!(middle_index(4), Some(1));
        assert_eq!(middle_index(5), Some(2));
    }

    #[test]
    fn other_warehouses_differ() {
        let mut rng = StdRng::seed_from_u64(2);
        assert_eq!(other_warehouse(&mut rng, 1, 1), 1);
        for _ in 0..1000 {
            let o = other_warehouse(&mut rng, 3, 5);
            assert!(o != 3 && (1..=5).contains(&o));
        }
    }

    #[test]
    fn inputs_follow_the_spec() {
        let mut rng = StdRng::seed_from_u64(9);
        let c = NuRandC::for_load(&mut rng);
        let (mut rollbacks, mut new_orders, mut remote_lines, mut lines_total) = (0, 0, 0, 0);
        let (mut by_name, mut payments, mut remote_payments) = (0, 0, 0);
        for _ in 0..20_000 {
            match Input::draw(TxnType::NewOrder, &mut rng, 4, &c) {
                Input::NewOrder { w, d, c, lines } => {
                    new_orders += 1;
                    assert!((1..=4).contains(&w) && (1..=10).contains(&d));
                    assert!((1..=3000).contains(&c));
                    assert!((5..=15).contains(&lines.len()));
                    assert!(lines.windows(2).all(|p| p[0].item <= p[1].item));
                    let unused = lines.iter().filter(|l| l.item == ITEMS + 1).count();
                    assert!(unused <= 1);
                    if unused == 1 {
                        assert_eq!(lines.last().unwrap().item, ITEMS + 1);
                        rollbacks += 1;
                    }
                    lines_total += lines.len();
                    remote_lines += lines.iter().filter(|l| l.supply_w != w).count();
                    assert!(lines.iter().all(|l| (1..=10).contains(&l.qty)));
                }
                other => panic!("{other:?}"),
            }
            match Input::draw(TxnType::Payment, &mut rng, 4, &c) {
                Input::Payment {
                    w,
                    c_w,
                    customer,
                    cents,
                    ..
                } => {
                    payments += 1;
                    remote_payments += usize::from(c_w != w);
                    by_name += usize::from(matches!(customer, CustomerKey::Last(_)));
                    assert!((100..=500_000).contains(&cents));
                }
                other => panic!("{other:?}"),
            }
        }
        let pct = |n: usize, of: usize| 100.0 * n as f64 / of as f64;
        assert!(
            (0.7..1.3).contains(&pct(rollbacks, new_orders)),
            "{rollbacks}"
        );
        assert!((0.8..1.2).contains(&pct(remote_lines, lines_total)));
        assert!((58.0..62.0).contains(&pct(by_name, payments)), "{by_name}");
        assert!((14.0..16.0).contains(&pct(remote_payments, payments)));
        // With one warehouse everything is local.
        for _ in 0..200 {
            if let Input::Payment { w, c_w, .. } = Input::draw(TxnType::Payment, &mut rng, 1, &c) {
                assert_eq!(w, c_w);
            }
        }
        match Input::draw(TxnType::StockLevel, &mut rng, 2, &c) {
            Input::StockLevel { threshold, .. } => assert!((10..=20).contains(&threshold)),
            other => panic!("{other:?}"),
        }
    }
}
