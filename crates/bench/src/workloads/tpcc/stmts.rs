//! The statements of the five transactions, prepared once per terminal. `SELECT … FOR UPDATE`
//! where a transaction reads a row it then updates (the district's next order id, the stock
//! rows, the paying customer, the oldest new order, the delivered order). Money is passed as
//! decimal strings and added with `CAST(? AS DECIMAL(12,2))`, so every engine does exact
//! decimal arithmetic.

use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use mysql::{Conn, Statement};

use super::random::DISTRICTS;

/// A prepared statement and its text (for error messages).
pub struct Q {
    /// The statement.
    pub st: Statement,
    /// Its text.
    pub sql: String,
}

/// Every statement of the five transactions, prepared on one connection.
pub struct Stmts {
    no_w: Q,
    no_d: Q,
    no_d_upd: Q,
    no_c: Q,
    no_o_ins: Q,
    no_no_ins: Q,
    no_i: Q,
    no_s: Vec<Q>,
    no_s_upd: Q,
    no_ol_ins: Q,
    p_w_upd: Q,
    p_w: Q,
    p_d_upd: Q,
    p_d: Q,
    c_by_last: Q,
    p_c: Q,
    p_c_upd: Q,
    p_c_upd_bc: Q,
    p_h_ins: Q,
    os_c: Q,
    os_o: Q,
    os_ol: Q,
    d_no: Q,
    d_no_del: Q,
    d_o: Q,
    d_o_upd: Q,
    d_ol_upd: Q,
    d_ol_sum: Q,
    d_c_upd: Q,
    sl_d: Q,
    sl_count: Q,
}

fn prep(conn: &mut Conn, sql: &str) -> Result<Q> {
    let st = conn
        .prep(sql)
        .with_context(|| format!("preparing `{sql}`"))?;
    Ok(Q {
        st,
        sql: sql.to_string(),
    })
}

impl Stmts {
    /// Prepares every statement on `c`.
    pub fn prepare(c: &mut Conn) -> Result<Stmts> {
        let customer_upd = "UPDATE customer SET c_balance = c_balance - CAST(? AS DECIMAL(12,2)), \
             c_ytd_payment = c_ytd_payment + CAST(? AS DECIMAL(12,2)), \
             c_payment_cnt = c_payment_cnt + 1";
        let mut no_s = Vec::new();
        for d in 1..=DISTRICTS {
            no_s.push(prep(
                c,
                &format!(
                    "SELECT s_quantity, s_data, s_dist_{d:02} FROM stock \
                     WHERE s_w_id = ? AND s_i_id = ? FOR UPDATE"
                ),
            )?);
        }
        Ok(Stmts {
            no_w: prep(c, "SELECT w_tax FROM warehouse WHERE w_id = ?")?,
            no_d: prep(
                c,
                "SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ? \
                 FOR UPDATE",
            )?,
            no_d_upd: prep(
                c,
                "UPDATE district SET d_next_o_id = d_next_o_id + 1 \
                 WHERE d_w_id = ? AND d_id = ?",
            )?,
            no_c: prep(
                c,
                "SELECT c_discount, c_last, c_credit FROM customer \
                 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
            )?,
            no_o_ins: prep(
                c,
                "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, \
                 o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)",
            )?,
            no_no_ins: prep(
                c,
                "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)",
            )?,
            no_i: prep(c, "SELECT i_price, i_name, i_data FROM item WHERE i_id = ?")?,
            no_s,
            no_s_upd: prep(
                c,
                "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, \
                 s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? \
                 WHERE s_w_id = ? AND s_i_id = ?",
            )?,
            no_ol_ins: prep(
                c,
                "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, \
                 ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) \
                 VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)",
            )?,
            p_w_upd: prep(
                c,
                "UPDATE warehouse SET w_ytd = w_ytd + CAST(? AS DECIMAL(12,2)) WHERE w_id = ?",
            )?,
            p_w: prep(
                c,
                "SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip \
                 FROM warehouse WHERE w_id = ?",
            )?,
            p_d_upd: prep(
                c,
                "UPDATE district SET d_ytd = d_ytd + CAST(? AS DECIMAL(12,2)) \
                 WHERE d_w_id = ? AND d_id = ?",
            )?,
            p_d: prep(
                c,
                "SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip \
                 FROM district WHERE d_w_id = ? AND d_id = ?",
            )?,
            c_by_last: prep(
                c,
                "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? \
                 ORDER BY c_first",
            )?,
            p_c: prep(
                c,
                "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, \
                 c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, \
                 c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE",
            )?,
            p_c_upd: prep(
                c,
                &format!("{customer_upd} WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
            )?,
            p_c_upd_bc: prep(
                c,
                &format!("{customer_upd}, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
            )?,
            p_h_ins: prep(
                c,
                "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, \
                 h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            )?,
            os_c: prep(
                c,
                "SELECT c_balance, c_first, c_middle, c_last FROM customer \
                 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
            )?,
            os_o: prep(
                c,
                "SELECT o_id, o_carrier_id, o_entry_d FROM orders \
                 WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1",
            )?,
            os_ol: prep(
                c,
                "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d \
                 FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
            )?,
            d_no: prep(
                c,
                "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? \
                 ORDER BY no_o_id LIMIT 1 FOR UPDATE",
            )?,
            d_no_del: prep(
                c,
                "DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?",
            )?,
            d_o: prep(
                c,
                "SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ? \
                 FOR UPDATE",
            )?,
            d_o_upd: prep(
                c,
                "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?",
            )?,
            d_ol_upd: prep(
                c,
                "UPDATE order_line SET ol_delivery_d = ? \
                 WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
            )?,
            d_ol_sum: prep(
                c,
                "SELECT SUM(ol_amount) FROM order_line \
                 WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
            )?,
            d_c_upd: prep(
                c,
                "UPDATE customer SET c_balance = c_balance + CAST(? AS DECIMAL(12,2)), \
                 c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
            )?,
            sl_d: prep(
                c,
                "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?",
            )?,
            sl_count: prep(
                c,
                "SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock \
                 WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? \
                 AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?",
            )?,
        })
    }
}

/// Names a statement of [`Stmts`] (so a helper can borrow the connection mutably while it
/// looks the statement up); each variant is its field in camel case.
pub enum QRef {
    NoW,
    NoD,
    NoDUpd,
    NoC,
    NoOIns,
    NoNoIns,
    NoI,
    NoS(usize),
    NoSUpd,
    NoOlIns,
    PWUpd,
    PW,
    PDUpd,
    PD,
    CByLast,
    PC,
    PCUpd,
    PCUpdBc,
    PHIns,
    OsC,
    OsO,
    OsOl,
    DNo,
    DNoDel,
    DO,
    DOUpd,
    DOlUpd,
    DOlSum,
    DCUpd,
    SlD,
    SlCount,
}

impl QRef {
    /// The statement.
    pub fn get<'a>(&self, s: &'a Stmts) -> &'a Q {
        match self {
            QRef::NoW => &s.no_w,
            QRef::NoD => &s.no_d,
            QRef::NoDUpd => &s.no_d_upd,
            QRef::NoC => &s.no_c,
            QRef::NoOIns => &s.no_o_ins,
            QRef::NoNoIns => &s.no_no_ins,
            QRef::NoI => &s.no_i,
            QRef::NoS(i) => &s.no_s[*i],
            QRef::NoSUpd => &s.no_s_upd,
            QRef::NoOlIns => &s.no_ol_ins,
            QRef::PWUpd => &s.p_w_upd,
            QRef::PW => &s.p_w,
            QRef::PDUpd => &s.p_d_upd,
            QRef::PD => &s.p_d,
            QRef::CByLast => &s.c_by_last,
            QRef::PC => &s.p_c,
            QRef::PCUpd => &s.p_c_upd,
            QRef::PCUpdBc => &s.p_c_upd_bc,
            QRef::PHIns => &s.p_h_ins,
            QRef::OsC => &s.os_c,
            QRef::OsO => &s.os_o,
            QRef::OsOl => &s.os_ol,
            QRef::DNo => &s.d_no,
            QRef::DNoDel => &s.d_no_del,
            QRef::DO => &s.d_o,
            QRef::DOUpd => &s.d_o_upd,
            QRef::DOlUpd => &s.d_ol_upd,
            QRef::DOlSum => &s.d_ol_sum,
            QRef::DCUpd => &s.d_c_upd,
            QRef::SlD => &s.sl_d,
            QRef::SlCount => &s.sl_count,
        }
    }
}
