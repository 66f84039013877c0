//! DECIMAL in MySQL's packed binary form (`decimal2bin`): base-10^9 groups stored big-endian,
//! partial groups in the fewest bytes, negative values bit-inverted, the top bit flipped.

use crate::bytes::{put_uint_be, uint_be, Reader};
use crate::error::{BinlogError, Result};

/// Bytes needed for 0–9 leftover digits.
const DIG2BYTES: [usize; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
const DIGITS_PER_GROUP: usize = 9;

/// The stored size of DECIMAL(precision, scale).
pub fn decimal_size(precision: u8, scale: u8) -> usize {
    let (intg, frac) = (
        usize::from(precision - scale.min(precision)),
        usize::from(scale),
    );
    intg / 9 * 4 + DIG2BYTES[intg % 9] + frac / 9 * 4 + DIG2BYTES[frac % 9]
}

fn check_meta(precision: u8, scale: u8) -> Result<()> {
    if precision == 0 || precision > 65 || scale > 30 || scale > precision {
        return Err(BinlogError::corrupt(
            "DECIMAL metadata",
            format!("precision {precision} scale {scale}"),
        ));
    }
    Ok(())
}

/// Splits `digits` (exactly `n` long) into the stored group sizes: a leading partial group then
/// full groups for the integer part (`leading_partial`), full groups then a trailing partial
/// group for the fraction.
fn group_lens(n: usize, leading_partial: bool) -> Vec<usize> {
    let mut lens = vec![DIGITS_PER_GROUP; n / DIGITS_PER_GROUP];
    let rest = n % DIGITS_PER_GROUP;
    if rest > 0 {
        if leading_partial {
            lens.insert(0, rest);
        } else {
            lens.push(rest);
        }
    }
    lens
}

/// Appends the DECIMAL(precision, scale) encoding of `text` (e.g. `"-12.340"`, `"7"`, `".5"`).
///
/// # Errors
/// [`BinlogError::InvalidValue`] when the text is not a decimal number, has more integer digits
/// than `precision - scale`, or has non-zero digits beyond `scale`.
pub fn encode_decimal(text: &str, precision: u8, scale: u8, out: &mut Vec<u8>) -> Result<()> {
    check_meta(precision, scale).map_err(|e| BinlogError::invalid(e.to_string()))?;
    let bad = || {
        BinlogError::invalid(format!(
            "'{text}' does not fit DECIMAL({precision},{scale})"
        ))
    };
    let t = text.trim();
    let (negative, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (int_part, frac_part) = t.split_once('.').unwrap_or((t, ""));
    let all_digits = |s: &str| s.bytes().all(|c| c.is_ascii_digit());
    if (int_part.is_empty() && frac_part.is_empty())
        || !all_digits(int_part)
        || !all_digits(frac_part)
    {
        return Err(bad());
    }
    let (intg, frac) = (usize::from(precision - scale), usize::from(scale));
    let int_digits = int_part.trim_start_matches('0');
    if int_digits.len() > intg {
        return Err(bad());
    }
    let kept = &frac_part[..frac_part.len().min(frac)];
    if frac_part[kept.len()..].bytes().any(|c| c != b'0') {
        return Err(bad());
    }
    let digits = format!("{int_digits:0>intg$}{kept:0<frac$}");
    let negative = negative && digits.bytes().any(|c| c != b'0');
    let mask: u8 = if negative { 0xff } else { 0 };
    let start = out.len();
    let mut pos = 0;
    for len in group_lens(intg, true)
        .into_iter()
        .chain(group_lens(frac, false))
    {
        let value: u64 = digits[pos..pos + len].parse().map_err(|_| bad())?;
        pos += len;
        put_uint_be(out, value, DIG2BYTES[len]);
    }
    for b in &mut out[start..] {
        *b ^= mask;
    }
    if let Some(first) = out.get_mut(start) {
        *first ^= 0x80;
    }
    Ok(())
}

/// Reads a DECIMAL(precision, scale) and returns its text with exactly `scale` fractional
/// digits (`"-12.340"`, `"0.500"`, `"7"`).
///
/// # Errors
/// [`BinlogError::Truncated`] when the input is short, [`BinlogError::Corrupt`] for bad
/// metadata or a group out of range.
pub fn decode_decimal(r: &mut Reader<'_>, precision: u8, scale: u8) -> Result<String> {
    check_meta(precision, scale)?;
    let size = decimal_size(precision, scale);
    let mut buf = r.bytes(size, "DECIMAL value")?.to_vec();
    let negative = buf[0] & 0x80 == 0;
    buf[0] ^= 0x80;
    if negative {
        for b in &mut buf {
            *b ^= 0xff;
        }
    }
    let (intg, frac) = (usize::from(precision - scale), usize::from(scale));
    let mut pos = 0;
    let mut read_groups = |lens: Vec<usize>| -> Result<String> {
        let mut s = String::new();
        for len in lens {
            let n = DIG2BYTES[len];
            let v = uint_be(&buf[pos..pos + n]);
            pos += n;
            if v >= 10u64.pow(len as u32) {
                return Err(BinlogError::corrupt(
                    "DECIMAL value",
                    format!("group {v} too large"),
                ));
            }
            s.push_str(&format!("{v:0len$}"));
        }
        Ok(s)
    };
    let int_digits = read_groups(group_lens(intg, true))?;
    let frac_digits = read_groups(group_lens(frac, false))?;
    let int_trimmed = int_digits.trim_start_matches('0');
    let mut out = String::new();
    let is_zero = int_trimmed.is_empty() && frac_digits.bytes().all(|c| c == b'0');
    if negative && !is_zero {
        out.push('-');
    }
    out.push_str(if int_trimmed.is_empty() {
        "0"
    } else {
        int_trimmed
    });
    if frac > 0 {
        out.push('.');
        out.push_str(&frac_digits);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(text: &str, p: u8, s: u8) -> Vec<u8> {
        let mut out = Vec::new();
        encode_decimal(text, p, s, &mut out).unwrap();
        out
    }

    fn dec(bytes: &[u8], p: u8, s: u8) -> String {
        decode_decimal(&mut Reader::new(bytes), p, s).unwrap()
    }

    #[test]
    fn byte_exact_examples_from_mysql_decimal_c() {
        // The example in MySQL's strings/decimal.cc comment on decimal2bin.
        let pos = enc("1234567890.1234", 14, 4);
        assert_eq!(pos, [0x81, 0x0D, 0xFB, 0x38, 0xD2, 0x04, 0xD2]);
        let neg = enc("-1234567890.1234", 14, 4);
        assert_eq!(neg, [0x7E, 0xF2, 0x04, 0xC7, 0x2D, 0xFB, 0x2D]);
        assert_eq!(dec(&pos, 14, 4), "1234567890.1234");
        assert_eq!(dec(&neg, 14, 4), "-1234567890.1234");
    }

    #[test]
    fn small_values() {
        // DECIMAL(5,2): 3 integer digits in 2 bytes, 2 fraction digits in 1 byte.
        assert_eq!(decimal_size(5, 2), 3);
        assert_eq!(enc("1.50", 5, 2), [0x80, 0x01, 0x32]);
        assert_eq!(enc("-1.50", 5, 2), [0x7f, 0xfe, 0xcd]);
        assert_eq!(enc("0", 5, 2), [0x80, 0x00, 0x00]);
        assert_eq!(enc("-0.00", 5, 2), [0x80, 0x00, 0x00]);
    }

    #[test]
    fn round_trips() {
        let cases: &[(&str, u8, u8, &str)] = &[
            ("-12.34", 10, 3, "-12.340"),
            ("0.5", 4, 3, "0.500"),
            ("-0.001", 4, 3, "-0.001"),
            ("7", 3, 0, "7"),
            ("-999", 3, 0, "-999"),
            (".25", 2, 2, "0.25"),
            (
                "12345678901234567890123456789012345.123456789012345678901234567891",
                65,
                30,
                "12345678901234567890123456789012345.123456789012345678901234567891",
            ),
            (
                "-99999999999999999999999999999999999.999999999999999999999999999999",
                65,
                30,
                "-99999999999999999999999999999999999.999999999999999999999999999999",
            ),
            ("1.2300", 10, 2, "1.23"),
            ("0", 1, 0, "0"),
            ("00042.5", 6, 1, "42.5"),
        ];
        for &(text, p, s, want) in cases {
            let bytes = enc(text, p, s);
            assert_eq!(bytes.len(), decimal_size(p, s), "{text}");
            assert_eq!(dec(&bytes, p, s), want, "{text}");
        }
    }

    #[test]
    fn encode_rejects() {
        let mut out = Vec::new();
        for (text, p, s) in [
            ("1000", 5, 2),
            ("1.234", 5, 2),
            ("abc", 5, 2),
            ("", 5, 2),
            ("1.2.3", 5, 2),
            ("-", 5, 2),
        ] {
            assert!(encode_decimal(text, p, s, &mut out).is_err(), "{text}");
        }
        assert!(encode_decimal("1", 0, 0, &mut out).is_err());
        assert!(encode_decimal("1", 66, 0, &mut out).is_err());
    }

    #[test]
    fn decode_rejects_corrupt() {
        let good = enc("1234567890.1234", 14, 4);
        for n in 0..good.len() {
            assert!(decode_decimal(&mut Reader::new(&good[..n]), 14, 4).is_err());
        }
        // A 9-digit group of 0xffffffff is out of range.
        assert!(decode_decimal(
            &mut Reader::new(&[0x81, 0xff, 0xff, 0xff, 0xff, 0, 0]),
            14,
            4
        )
        .is_err());
        assert!(decode_decimal(&mut Reader::new(&good), 3, 5).is_err());
    }
}
