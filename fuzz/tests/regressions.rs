//! Inputs that once crashed a fuzz target (or that guard a limit the targets found worth
//! keeping); each must now run cleanly.

#[test]
fn deep_operator_chains_and_nesting_do_not_overflow() {
    // a 100k-term sum: sqlparser builds it iteratively, but everything after recursed (found by
    // the over-the-wire tests; kept here so the parser entry stays covered)
    let sum = format!("SELECT {}", vec!["1"; 100_000].join("+"));
    strata_fuzz::sql_parser(sum.as_bytes());
    let parens = format!("SELECT {}1{}", "(".repeat(50_000), ")".repeat(50_000));
    strata_fuzz::sql_parser(parens.as_bytes());
    let subq = format!("SELECT {}1{}", "(SELECT ".repeat(5_000), ")".repeat(5_000));
    strata_fuzz::sql_parser(subq.as_bytes());
}

#[test]
fn a_stored_year_past_i64_is_corrupt_not_a_negative_year() {
    // found by the random driver in CI: a YEAR varint above i64::MAX decoded as a negative
    // year, which re-encoded as 0
    let input = [
        0x04, 0xff, 0xff, 0x48, 0x21, 0xff, 0xdf, 0xff, 0xdf, 0xff, 0xdf, 0xff, 0xdf, 0xff, 0xdf,
        0xff, 0xdf, 0xff, 0xdf, 0x7f, 0xff,
    ];
    strata_fuzz::codecs(&input);
}

#[test]
fn a_stored_time_past_its_range_is_corrupt() {
    // found by the random driver in CI: a TIME of i64::MIN microseconds decoded, then overflowed
    // when re-encoded
    let input = [
        0x02, 0xfb, 0xff, 0x3f, 0x29, 0xff, 0xa7, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ];
    strata_fuzz::codecs(&input);
}
