//! The nine TPC-C tables (clause 1.3) with their primary keys and the two secondary indexes
//! the transactions need: customers by last name (Payment, Order-Status) and orders by
//! customer (Order-Status). No ENGINE clause: each server's default engine holds them (MyRocks
//! runs with `--default-storage-engine=ROCKSDB`). No foreign keys (MyRocks has none).

/// The tables, in creation order.
pub const TABLES: [&str; 9] = [
    "warehouse",
    "district",
    "customer",
    "history",
    "new_order",
    "orders",
    "order_line",
    "item",
    "stock",
];

/// `CREATE TABLE` text of every table, in [`TABLES`] order.
pub fn ddl() -> Vec<String> {
    let mut stock_dist = String::new();
    for d in 1..=10 {
        stock_dist.push_str(&format!("s_dist_{d:02} CHAR(24) NOT NULL, "));
    }
    vec![
        "CREATE TABLE warehouse (w_id INT NOT NULL, w_name VARCHAR(10) NOT NULL, \
         w_street_1 VARCHAR(20) NOT NULL, w_street_2 VARCHAR(20) NOT NULL, \
         w_city VARCHAR(20) NOT NULL, w_state CHAR(2) NOT NULL, w_zip CHAR(9) NOT NULL, \
         w_tax DECIMAL(4,4) NOT NULL, w_ytd DECIMAL(12,2) NOT NULL, PRIMARY KEY (w_id))"
            .to_string(),
        "CREATE TABLE district (d_id TINYINT NOT NULL, d_w_id INT NOT NULL, \
         d_name VARCHAR(10) NOT NULL, d_street_1 VARCHAR(20) NOT NULL, \
         d_street_2 VARCHAR(20) NOT NULL, d_city VARCHAR(20) NOT NULL, \
         d_state CHAR(2) NOT NULL, d_zip CHAR(9) NOT NULL, d_tax DECIMAL(4,4) NOT NULL, \
         d_ytd DECIMAL(12,2) NOT NULL, d_next_o_id INT NOT NULL, PRIMARY KEY (d_w_id, d_id))"
            .to_string(),
        "CREATE TABLE customer (c_id INT NOT NULL, c_d_id TINYINT NOT NULL, \
         c_w_id INT NOT NULL, c_first VARCHAR(16) NOT NULL, c_middle CHAR(2) NOT NULL, \
         c_last VARCHAR(16) NOT NULL, c_street_1 VARCHAR(20) NOT NULL, \
         c_street_2 VARCHAR(20) NOT NULL, c_city VARCHAR(20) NOT NULL, \
         c_state CHAR(2) NOT NULL, c_zip CHAR(9) NOT NULL, c_phone CHAR(16) NOT NULL, \
         c_since DATETIME NOT NULL, c_credit CHAR(2) NOT NULL, \
         c_credit_lim DECIMAL(12,2) NOT NULL, c_discount DECIMAL(4,4) NOT NULL, \
         c_balance DECIMAL(12,2) NOT NULL, c_ytd_payment DECIMAL(12,2) NOT NULL, \
         c_payment_cnt INT NOT NULL, c_delivery_cnt INT NOT NULL, \
         c_data VARCHAR(500) NOT NULL, PRIMARY KEY (c_w_id, c_d_id, c_id), \
         KEY idx_customer (c_w_id, c_d_id, c_last, c_first))"
            .to_string(),
        // The spec gives HISTORY no primary key; each engine adds its hidden row id.
        "CREATE TABLE history (h_c_id INT NOT NULL, h_c_d_id TINYINT NOT NULL, \
         h_c_w_id INT NOT NULL, h_d_id TINYINT NOT NULL, h_w_id INT NOT NULL, \
         h_date DATETIME NOT NULL, h_amount DECIMAL(6,2) NOT NULL, \
         h_data VARCHAR(24) NOT NULL)"
            .to_string(),
        "CREATE TABLE new_order (no_o_id INT NOT NULL, no_d_id TINYINT NOT NULL, \
         no_w_id INT NOT NULL, PRIMARY KEY (no_w_id, no_d_id, no_o_id))"
            .to_string(),
        "CREATE TABLE orders (o_id INT NOT NULL, o_d_id TINYINT NOT NULL, \
         o_w_id INT NOT NULL, o_c_id INT NOT NULL, o_entry_d DATETIME NOT NULL, \
         o_carrier_id TINYINT NULL, o_ol_cnt TINYINT NOT NULL, \
         o_all_local TINYINT NOT NULL, PRIMARY KEY (o_w_id, o_d_id, o_id), \
         KEY idx_orders (o_w_id, o_d_id, o_c_id, o_id))"
            .to_string(),
        "CREATE TABLE order_line (ol_o_id INT NOT NULL, ol_d_id TINYINT NOT NULL, \
         ol_w_id INT NOT NULL, ol_number TINYINT NOT NULL, ol_i_id INT NOT NULL, \
         ol_supply_w_id INT NOT NULL, ol_delivery_d DATETIME NULL, \
         ol_quantity TINYINT NOT NULL, ol_amount DECIMAL(6,2) NOT NULL, \
         ol_dist_info CHAR(24) NOT NULL, PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number))"
            .to_string(),
        "CREATE TABLE item (i_id INT NOT NULL, i_im_id INT NOT NULL, \
         i_name VARCHAR(24) NOT NULL, i_price DECIMAL(5,2) NOT NULL, \
         i_data VARCHAR(50) NOT NULL, PRIMARY KEY (i_id))"
            .to_string(),
        format!(
            "CREATE TABLE stock (s_i_id INT NOT NULL, s_w_id INT NOT NULL, \
             s_quantity SMALLINT NOT NULL, {stock_dist}s_ytd DECIMAL(8,0) NOT NULL, \
             s_order_cnt SMALLINT NOT NULL, s_remote_cnt SMALLINT NOT NULL, \
             s_data VARCHAR(50) NOT NULL, PRIMARY KEY (s_w_id, s_i_id))"
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_statement_per_table_with_its_keys() {
        let d = ddl();
        assert_eq!(d.len(), TABLES.len());
        for (sql, t) in d.iter().zip(TABLES) {
            assert!(sql.starts_with(&format!("CREATE TABLE {t} (")), "{sql}");
            assert_eq!(sql.matches('(').count(), sql.matches(')').count(), "{sql}");
            assert!(!sql.contains("ENGINE"), "{sql}");
            assert_eq!(sql.contains("PRIMARY KEY"), t != "history", "{sql}");
        }
        assert!(d[2].contains("KEY idx_customer (c_w_id, c_d_id, c_last, c_first)"));
        assert!(d[5].contains("KEY idx_orders (o_w_id, o_d_id, o_c_id, o_id)"));
        assert!(d[8].contains("s_dist_01 CHAR(24) NOT NULL, ") && d[8].contains("s_dist_10"));
    }
}
