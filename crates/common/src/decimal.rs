//! [`Decimal`]: MySQL's exact DECIMAL value (up to 65 digits, scale up to 30).
//!
//! Hand-written over `num-bigint` rather than a decimal crate: MySQL's DECIMAL keeps an exact
//! value whose internal precision (nine-digit words for division, up to 81 digits for
//! intermediate results) differs from the scale it is *shown* with, and rounds half away from
//! zero; fixed-size decimal crates hold either too few digits (rust_decimal: 28) or apply
//! IEEE-style context rounding. A value here is `mant * 10^-scale` plus a display scale `frac`
//! (`frac <= scale`); printing rounds half-up to `frac` digits.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Add, Mul, Neg, Sub};
use std::str::FromStr;

use num_bigint::{BigInt, Sign};
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// The most digits a DECIMAL column or CAST target may have (`DECIMAL(65, D)`).
pub const MAX_PRECISION: u32 = 65;
/// The largest scale a DECIMAL column, CAST target or expression result may have.
pub const MAX_SCALE: u32 = 30;
/// Digits an intermediate result may hold (MySQL computes in nine words of nine digits).
pub const MAX_DIGITS: u32 = 81;
/// Digits per MySQL decimal word (division precision is counted in whole words).
const WORD: u32 = 9;

/// How [`Decimal::round_to`] treats dropped digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// Half away from zero (MySQL's ROUND for exact values and every implicit rounding).
    HalfUp,
    /// Toward zero (TRUNCATE).
    Truncate,
    /// Toward +infinity (CEIL).
    Ceiling,
    /// Toward -infinity (FLOOR).
    Floor,
}

/// An exact decimal number with MySQL semantics. Boxed so that `Value` stays small.
#[derive(Clone)]
pub struct Decimal(Box<Repr>);

#[derive(Clone)]
struct Repr {
    /// The exact value is `mant * 10^-scale`.
    mant: BigInt,
    /// Fractional digits held exactly.
    scale: u32,
    /// Fractional digits shown (`frac <= scale`).
    frac: u32,
}

fn pow10(n: u32) -> BigInt {
    BigInt::from(10u8).pow(n)
}

/// Number of decimal digits of `|m|` (0 for zero).
fn digit_count(m: &BigInt) -> u32 {
    if m.is_zero() {
        0
    } else {
        m.magnitude().to_str_radix(10).len() as u32
    }
}

/// Rescales `mant` (at `from` fractional digits) to `to` fractional digits, dropping digits per
/// `mode`; a negative `to` rounds to tens, hundreds, ... and returns the mantissa at scale 0.
fn rescale_mant(mant: &BigInt, from: u32, to: i64, mode: Rounding) -> BigInt {
    if to >= from as i64 {
        return mant * pow10((to - from as i64) as u32);
    }
    let k = (from as i64 - to) as u32;
    let div = pow10(k);
    let (mut q, r) = mant.div_rem(&div);
    if !r.is_zero() {
        let up = match mode {
            Rounding::Truncate => false,
            Rounding::HalfUp => r.magnitude() * 2u8 >= *div.magnitude(),
            Rounding::Ceiling => r.is_positive(),
            Rounding::Floor => r.is_negative(),
        };
        if up {
            if r.is_negative() {
                q -= 1;
            } else {
                q += 1;
            }
        }
    }
    if to < 0 {
        q * pow10((-to) as u32)
    } else {
        q
    }
}

impl Decimal {
    fn from_parts(mant: BigInt, scale: u32, frac: u32) -> Decimal {
        let (mant, scale) = if frac > scale {
            (mant * pow10(frac - scale), frac)
        } else {
            (mant, scale)
        };
        Decimal(Box::new(Repr { mant, scale, frac }))
    }

    /// Drops fractional digits (toward zero) so the value holds at most [`MAX_DIGITS`] digits
    /// (integer digits plus every fractional digit, leading zeros included); `None` when the
    /// integer part alone is longer (MySQL's E_DEC_OVERFLOW).
    fn bounded(self) -> Option<Decimal> {
        let int_digits = digit_count(&self.0.mant).saturating_sub(self.0.scale);
        if int_digits > MAX_DIGITS {
            return None;
        }
        if int_digits + self.0.scale <= MAX_DIGITS {
            return Some(self);
        }
        let keep = MAX_DIGITS - int_digits;
        let mant = rescale_mant(&self.0.mant, self.0.scale, keep as i64, Rounding::Truncate);
        Some(Decimal::from_parts(mant, keep, self.0.frac.min(keep)))
    }

    /// Zero with no fractional digits.
    pub fn zero() -> Decimal {
        Decimal::from_parts(BigInt::zero(), 0, 0)
    }

    /// One with no fractional digits.
    pub fn one() -> Decimal {
        Decimal::from_parts(BigInt::one(), 0, 0)
    }

    /// `m * 10^-scale`, shown with `scale` digits.
    pub fn new(m: i64, scale: u32) -> Decimal {
        Decimal::from_parts(BigInt::from(m), scale, scale)
    }

    /// `m * 10^-scale`, shown with `scale` digits.
    pub fn from_i128_with_scale(m: i128, scale: u32) -> Decimal {
        Decimal::from_parts(BigInt::from(m), scale, scale)
    }

    /// Builds a value from a sign, a string of ASCII digits and a decimal exponent: the value is
    /// `0.DIGITS * 10^exp`. The display scale is the number of fractional digits it implies.
    /// `None` for a non-digit character or more than [`MAX_DIGITS`] integer digits.
    pub fn from_digits(neg: bool, digits: &str, exp: i32) -> Option<Decimal> {
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n = digits.len() as i64;
        let mag = if digits.is_empty() {
            BigInt::zero()
        } else {
            BigInt::parse_bytes(digits.as_bytes(), 10)?
        };
        let mant = if neg { -mag } else { mag };
        let scale = n - exp as i64;
        let d = if scale >= 0 {
            Decimal::from_parts(mant, scale as u32, scale as u32)
        } else {
            if -scale > MAX_DIGITS as i64 + 1 && !mant.is_zero() {
                return None;
            }
            let s = (-scale).min(MAX_DIGITS as i64 + 1) as u32;
            Decimal::from_parts(mant * pow10(s), 0, 0)
        };
        d.bounded()
    }

    /// The sign, the digits of the mantissa without trailing zeros, and the exponent `e` such
    /// that the value is `0.DIGITS * 10^e`; empty digits for zero. Used by the key codec.
    pub fn to_digits(&self) -> (bool, String, i32) {
        let n = self.normalize();
        if n.is_zero() {
            return (false, String::new(), 0);
        }
        let digits = n.0.mant.magnitude().to_str_radix(10);
        let exp = digits.len() as i32 - n.0.scale as i32;
        (n.0.mant.is_negative(), digits, exp)
    }

    /// The exact mantissa as little-endian two's-complement bytes with the exact and display
    /// scales (the row codec's form); [`Decimal::from_raw`] inverts it.
    pub fn to_raw(&self) -> (Vec<u8>, u8, u8) {
        (
            self.0.mant.to_signed_bytes_le(),
            self.0.scale as u8,
            self.0.frac as u8,
        )
    }

    /// Inverse of [`Decimal::to_raw`].
    pub fn from_raw(bytes: &[u8], scale: u8, frac: u8) -> Decimal {
        Decimal::from_parts(
            BigInt::from_signed_bytes_le(bytes),
            scale as u32,
            (frac as u32).min(scale as u32),
        )
    }

    /// The display scale (fractional digits shown); the exact digits are [`Decimal::exact_scale`].
    #[allow(clippy::misnamed_getters)] // deliberately the shown scale, as MySQL's metadata
    pub fn scale(&self) -> u32 {
        self.0.frac
    }

    /// Fractional digits held exactly (at least [`Decimal::scale`]).
    pub fn exact_scale(&self) -> u32 {
        self.0.scale
    }

    /// Digits before the point of the value as shown (at least 1 for a value below one, as
    /// MySQL counts a literal's precision).
    pub fn int_digits(&self) -> u32 {
        let shown = self.shown_mant();
        digit_count(&shown).saturating_sub(self.0.frac)
    }

    /// Digits of the value as shown: integer digits plus the display scale (at least 1).
    pub fn precision(&self) -> u32 {
        (self.int_digits() + self.0.frac).max(1)
    }

    fn shown_mant(&self) -> BigInt {
        rescale_mant(
            &self.0.mant,
            self.0.scale,
            self.0.frac as i64,
            Rounding::HalfUp,
        )
    }

    /// True for zero (exactly).
    pub fn is_zero(&self) -> bool {
        self.0.mant.is_zero()
    }

    /// True for a value below zero.
    pub fn is_sign_negative(&self) -> bool {
        self.0.mant.is_negative()
    }

    /// The absolute value.
    pub fn abs(&self) -> Decimal {
        Decimal::from_parts(self.0.mant.abs(), self.0.scale, self.0.frac)
    }

    /// The value with trailing fractional zeros removed (display scale = remaining digits).
    pub fn normalize(&self) -> Decimal {
        let mut mant = self.0.mant.clone();
        let mut scale = self.0.scale;
        let ten = BigInt::from(10u8);
        while scale > 0 {
            let (q, r) = mant.div_rem(&ten);
            if !r.is_zero() {
                break;
            }
            mant = q;
            scale -= 1;
        }
        if mant.is_zero() {
            scale = 0;
        }
        Decimal::from_parts(mant, scale, scale)
    }

    /// Rounds (or pads) to `dp` fractional digits; a negative `dp` rounds to tens, hundreds...
    /// The result is shown with `max(dp, 0)` digits.
    pub fn round_to(&self, dp: i64, mode: Rounding) -> Decimal {
        let mant = rescale_mant(&self.0.mant, self.0.scale, dp, mode);
        let s = dp.max(0) as u32;
        Decimal::from_parts(mant, s, s)
    }

    /// Rounds half away from zero to `dp` fractional digits.
    pub fn round_dp(&self, dp: u32) -> Decimal {
        self.round_to(dp as i64, Rounding::HalfUp)
    }

    /// Rounds half-up to `scale` digits and shows that many (rust_decimal's `rescale`).
    pub fn rescale(&mut self, scale: u32) {
        *self = self.round_dp(scale);
    }

    /// The same exact value shown with `frac` fractional digits (no digits are dropped from the
    /// exact value; more are added when `frac` exceeds them).
    pub fn with_frac(&self, frac: u32) -> Decimal {
        Decimal::from_parts(self.0.mant.clone(), self.0.scale, frac)
    }

    /// The integer part (toward zero), shown without fraction.
    pub fn trunc(&self) -> Decimal {
        self.round_to(0, Rounding::Truncate)
    }

    /// The fractional part (`self - trunc(self)`), keeping the display scale.
    pub fn fract(&self) -> Decimal {
        let t = rescale_mant(&self.0.mant, self.0.scale, 0, Rounding::Truncate);
        let mant = &self.0.mant - t * pow10(self.0.scale);
        Decimal::from_parts(mant, self.0.scale, self.0.frac)
    }

    /// Rounds toward -infinity to an integer.
    pub fn floor(&self) -> Decimal {
        self.round_to(0, Rounding::Floor)
    }

    /// Rounds toward +infinity to an integer.
    pub fn ceil(&self) -> Decimal {
        self.round_to(0, Rounding::Ceiling)
    }

    fn aligned(&self, other: &Decimal) -> (BigInt, BigInt, u32) {
        let s = self.0.scale.max(other.0.scale);
        (
            &self.0.mant * pow10(s - self.0.scale),
            &other.0.mant * pow10(s - other.0.scale),
            s,
        )
    }

    /// `self + other` (scale = max of both); `None` past [`MAX_DIGITS`] integer digits.
    pub fn checked_add(&self, other: &Decimal) -> Option<Decimal> {
        let (a, b, s) = self.aligned(other);
        Decimal::from_parts(a + b, s, self.0.frac.max(other.0.frac)).bounded()
    }

    /// `self - other` (scale = max of both); `None` past [`MAX_DIGITS`] integer digits.
    pub fn checked_sub(&self, other: &Decimal) -> Option<Decimal> {
        let (a, b, s) = self.aligned(other);
        Decimal::from_parts(a - b, s, self.0.frac.max(other.0.frac)).bounded()
    }

    /// `self * other`, exact up to [`MAX_DIGITS`] digits, shown with the sum of the scales
    /// (at most [`MAX_SCALE`]); `None` past [`MAX_DIGITS`] integer digits.
    pub fn checked_mul(&self, other: &Decimal) -> Option<Decimal> {
        let frac = (self.0.frac + other.0.frac).min(MAX_SCALE);
        Decimal::from_parts(
            &self.0.mant * &other.0.mant,
            self.0.scale + other.0.scale,
            frac,
        )
        .bounded()
    }

    /// MySQL's `self / other`: the quotient truncated to whole nine-digit words covering the
    /// operands' scales plus `incr` (`div_precision_increment`), shown with
    /// `scale(self) + incr` digits (at most 30). `None` for a zero divisor or overflow.
    pub fn checked_div(&self, other: &Decimal, incr: u32) -> Option<Decimal> {
        if other.is_zero() {
            return None;
        }
        let round_up = |s: u32| s.div_ceil(WORD) * WORD;
        let (s1, s2) = (self.0.scale, other.0.scale);
        let (w1, w2) = (round_up(s1), round_up(s2));
        let incr_left = (incr as i64 - (w1 - s1) as i64 - (w2 - s2) as i64).max(0) as u32;
        let digits = round_up(w1 + w2 + incr_left);
        // q = a/b at `digits` fractional digits: (a * 10^(digits + s2 - s1)) / b, truncated.
        let shift = digits as i64 + s2 as i64 - s1 as i64;
        let (num, den) = if shift >= 0 {
            (&self.0.mant * pow10(shift as u32), other.0.mant.clone())
        } else {
            (self.0.mant.clone(), &other.0.mant * pow10((-shift) as u32))
        };
        let q = num / den;
        let frac = (self.0.frac + incr).min(MAX_SCALE);
        Decimal::from_parts(q, digits, frac.min(digits)).bounded()
    }

    /// MySQL's `self MOD other`: sign of the dividend, scale = max of both. `None` for a zero
    /// divisor.
    pub fn checked_rem(&self, other: &Decimal) -> Option<Decimal> {
        if other.is_zero() {
            return None;
        }
        let (a, b, s) = self.aligned(other);
        Some(Decimal::from_parts(a % b, s, self.0.frac.max(other.0.frac)))
    }

    /// `self DIV other`: the quotient truncated toward zero, as an integer decimal. `None` for a
    /// zero divisor.
    pub fn int_div(&self, other: &Decimal) -> Option<Decimal> {
        if other.is_zero() {
            return None;
        }
        let (a, b, _) = self.aligned(other);
        Some(Decimal::from_parts(a / b, 0, 0))
    }

    fn int_part(&self) -> BigInt {
        rescale_mant(&self.0.mant, self.0.scale, 0, Rounding::Truncate)
    }

    /// The integer part (toward zero) as i128; `None` out of range.
    pub fn to_i128(&self) -> Option<i128> {
        self.int_part().to_i128()
    }

    /// The integer part (toward zero) as i64; `None` out of range.
    pub fn to_i64(&self) -> Option<i64> {
        self.int_part().to_i64()
    }

    /// The integer part (toward zero) as u64; `None` out of range (or negative).
    pub fn to_u64(&self) -> Option<u64> {
        self.int_part().to_u64()
    }

    /// Rounded half-up to an integer, as i64; `None` out of range.
    pub fn round_i64(&self) -> Option<i64> {
        rescale_mant(&self.0.mant, self.0.scale, 0, Rounding::HalfUp).to_i64()
    }

    /// The nearest double (correctly rounded from the exact digits).
    pub fn to_f64(&self) -> f64 {
        self.exact_string().parse().unwrap_or(0.0)
    }

    /// The shortest decimal that reads back as `f` (as MySQL converts a double); `None` for
    /// NaN, infinity or a magnitude beyond [`MAX_DIGITS`] digits.
    pub fn from_f64(f: f64) -> Option<Decimal> {
        if !f.is_finite() {
            return None;
        }
        if f == 0.0 {
            return Some(Decimal::zero());
        }
        let s = format!("{f:e}");
        let d: Decimal = s.parse().ok()?;
        // Very small magnitudes keep at most MAX_SCALE digits.
        if d.0.scale > MAX_SCALE {
            return Some(d.round_dp(MAX_SCALE).normalize());
        }
        Some(d)
    }

    /// The exact value printed with all its held digits.
    pub fn exact_string(&self) -> String {
        fmt_mant(&self.0.mant, self.0.scale)
    }

    /// Fits the value to `DECIMAL(precision, scale)`: rounds half-up to `scale` digits and clips
    /// to the largest magnitude the type holds. Returns the value and whether it was clipped.
    pub fn fit(&self, precision: u32, scale: u32) -> (Decimal, bool) {
        let r = self.round_dp(scale);
        let int_digits = precision.saturating_sub(scale);
        if digit_count(&r.0.mant) > precision || (r.int_digits() > int_digits && !r.is_zero()) {
            let max = Decimal::max_for(precision, scale);
            return (if self.is_sign_negative() { -max } else { max }, true);
        }
        (r, false)
    }

    /// The largest value of `DECIMAL(precision, scale)` (all nines).
    pub fn max_for(precision: u32, scale: u32) -> Decimal {
        let m = pow10(precision) - 1;
        Decimal::from_parts(m, scale, scale)
    }
}

fn fmt_mant(mant: &BigInt, scale: u32) -> String {
    let digits = mant.magnitude().to_str_radix(10);
    let mut out = String::with_capacity(digits.len() + 3);
    // A zero shows no minus sign (MySQL prints -0.001 rounded to two places as 0.00).
    if mant.sign() == Sign::Minus {
        out.push('-');
    }
    let scale = scale as usize;
    if digits.len() <= scale {
        out.push('0');
        if scale > 0 {
            out.push('.');
            out.extend(std::iter::repeat_n('0', scale - digits.len()));
            out.push_str(&digits);
        }
    } else {
        let (i, f) = digits.split_at(digits.len() - scale);
        out.push_str(i);
        if scale > 0 {
            out.push('.');
            out.push_str(f);
        }
    }
    out
}

impl Default for Decimal {
    fn default() -> Self {
        Decimal::zero()
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&fmt_mant(&self.shown_mant(), self.0.frac))
    }
}

impl fmt::Debug for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.scale == self.0.frac {
            write!(f, "{self}")
        } else {
            write!(f, "{}(shown {})", self.exact_string(), self.0.frac)
        }
    }
}

impl PartialEq for Decimal {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Decimal {}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        if self.0.scale == other.0.scale {
            return self.0.mant.cmp(&other.0.mant);
        }
        let (a, b, _) = self.aligned(other);
        a.cmp(&b)
    }
}

impl Hash for Decimal {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.to_digits().hash(state);
    }
}

/// Error from parsing a decimal string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseDecimalError;

impl fmt::Display for ParseDecimalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid decimal")
    }
}

impl std::error::Error for ParseDecimalError {}

impl FromStr for Decimal {
    type Err = ParseDecimalError;

    /// Parses `[+-]digits[.digits][e[+-]digits]` (the whole string). Fractional digits past
    /// [`MAX_DIGITS`] total are dropped; more integer digits are an error.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let b = s.as_bytes();
        let mut i = 0;
        let neg = match b.first() {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let int_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let int_part = &s[int_start..i];
        let mut frac_part = "";
        if i < b.len() && b[i] == b'.' {
            i += 1;
            let fs = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            frac_part = &s[fs..i];
        }
        if int_part.is_empty() && frac_part.is_empty() {
            return Err(ParseDecimalError);
        }
        let mut exp: i64 = 0;
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            i += 1;
            let es = i;
            if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
                i += 1;
            }
            let ds = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if ds == i {
                return Err(ParseDecimalError);
            }
            exp = s[es..i].parse::<i64>().map_err(|_| ParseDecimalError)?;
        }
        if i != b.len() {
            return Err(ParseDecimalError);
        }
        let int_trim = int_part.trim_start_matches('0');
        let digits = format!("{int_trim}{frac_part}");
        let point = int_trim.len() as i64 + exp;
        if point > MAX_DIGITS as i64 + 1 && digits.bytes().any(|c| c != b'0') {
            return Err(ParseDecimalError);
        }
        let point = point.clamp(-(MAX_DIGITS as i64) * 4, MAX_DIGITS as i64 + 1) as i32;
        Decimal::from_digits(neg, &digits, point).ok_or(ParseDecimalError)
    }
}

impl From<i64> for Decimal {
    fn from(v: i64) -> Self {
        Decimal::from_parts(BigInt::from(v), 0, 0)
    }
}

impl From<u64> for Decimal {
    fn from(v: u64) -> Self {
        Decimal::from_parts(BigInt::from(v), 0, 0)
    }
}

impl From<i32> for Decimal {
    fn from(v: i32) -> Self {
        Decimal::from_parts(BigInt::from(v), 0, 0)
    }
}

impl From<u32> for Decimal {
    fn from(v: u32) -> Self {
        Decimal::from_parts(BigInt::from(v), 0, 0)
    }
}

impl From<i128> for Decimal {
    fn from(v: i128) -> Self {
        Decimal::from_parts(BigInt::from(v), 0, 0)
    }
}

impl Neg for Decimal {
    type Output = Decimal;
    fn neg(mut self) -> Decimal {
        self.0.mant = -std::mem::take(&mut self.0.mant);
        self
    }
}

impl Neg for &Decimal {
    type Output = Decimal;
    fn neg(self) -> Decimal {
        -(self.clone())
    }
}

/// Exact addition without the [`MAX_DIGITS`] bound (for internal sums of small values).
impl Add for Decimal {
    type Output = Decimal;
    fn add(self, rhs: Decimal) -> Decimal {
        let (a, b, s) = self.aligned(&rhs);
        Decimal::from_parts(a + b, s, self.0.frac.max(rhs.0.frac))
    }
}

/// Exact subtraction without the [`MAX_DIGITS`] bound.
impl Sub for Decimal {
    type Output = Decimal;
    fn sub(self, rhs: Decimal) -> Decimal {
        let (a, b, s) = self.aligned(&rhs);
        Decimal::from_parts(a - b, s, self.0.frac.max(rhs.0.frac))
    }
}

/// Exact multiplication without the [`MAX_DIGITS`] bound.
impl Mul for Decimal {
    type Output = Decimal;
    fn mul(self, rhs: Decimal) -> Decimal {
        let frac = (self.0.frac + rhs.0.frac).min(MAX_SCALE);
        Decimal::from_parts(&self.0.mant * &rhs.0.mant, self.0.scale + rhs.0.scale, frac)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn parse_and_print() {
        assert_eq!(d("10.50").to_string(), "10.50");
        assert_eq!(d("-0.5").to_string(), "-0.5");
        assert_eq!(d(".5").to_string(), "0.5");
        assert_eq!(d("007").to_string(), "7");
        assert_eq!(d("1.5e3").to_string(), "1500");
        assert_eq!(d("15e-3").to_string(), "0.015");
        assert_eq!(d("-0").to_string(), "0");
        let big = "12345678901234567890123456789012345678901234567890123456789012345";
        assert_eq!(d(big).to_string(), big);
        assert_eq!(d(big).precision(), 65);
        let frac30 = "0.123456789012345678901234567890";
        assert_eq!(d(frac30).to_string(), frac30);
        assert_eq!(d(frac30).scale(), 30);
        assert!("".parse::<Decimal>().is_err());
        assert!("1.2.3".parse::<Decimal>().is_err());
        assert!("abc".parse::<Decimal>().is_err());
        assert!(format!("1{}", "0".repeat(90)).parse::<Decimal>().is_err());
        // at most 81 digits counting leading fractional zeros: 1e-100 truncates to zero
        let tiny = d("1e-100");
        assert!(tiny.is_zero());
        assert_eq!(tiny.exact_scale(), 81);
        assert_eq!(d("1e-81").exact_string(), format!("0.{}1", "0".repeat(80)));
    }

    #[test]
    fn arithmetic() {
        assert_eq!(
            d("1.10").checked_add(&d("2.205")).unwrap().to_string(),
            "3.305"
        );
        assert_eq!(d("1").checked_sub(&d("2.50")).unwrap().to_string(), "-1.50");
        assert_eq!(
            d("1.5").checked_mul(&d("-2.25")).unwrap().to_string(),
            "-3.375"
        );
        let n65 = "9".repeat(65);
        let s = d(&n65).checked_add(&Decimal::one()).unwrap();
        assert_eq!(s.to_string(), format!("1{}", "0".repeat(65)));
        // 81 integer digits fit in an intermediate result, 82 don't.
        let n81 = d(&"9".repeat(81));
        assert!(n81.checked_add(&Decimal::one()).is_none());
        assert!(d(&n65).checked_mul(&d(&n65)).is_none());
        assert_eq!(d("7.5").checked_rem(&d("2")).unwrap().to_string(), "1.5");
        assert_eq!(d("-7.5").checked_rem(&d("2")).unwrap().to_string(), "-1.5");
        assert_eq!(d("-7.5").int_div(&d("2")).unwrap().to_string(), "-3");
        assert!(d("1").checked_rem(&Decimal::zero()).is_none());
    }

    #[test]
    fn division_keeps_word_precision() {
        let third = d("1").checked_div(&d("3"), 4).unwrap();
        assert_eq!(third.to_string(), "0.3333");
        assert_eq!(third.exact_string(), "0.333333333");
        let back = third.checked_mul(&d("3")).unwrap();
        assert_eq!(back.to_string(), "1.0000");
        assert_eq!(
            d("2").checked_div(&d("3"), 4).unwrap().to_string(),
            "0.6667"
        );
        assert_eq!(
            d("10").checked_div(&d("4"), 4).unwrap().to_string(),
            "2.5000"
        );
        assert_eq!(
            d("1.000000000000")
                .checked_div(&d("3"), 4)
                .unwrap()
                .exact_string(),
            "0.333333333333333333"
        );
        assert_eq!(
            d("120")
                .checked_div(&d("100000000000.00000"), 5)
                .unwrap()
                .exact_string(),
            "0.000000001200000000"
        );
        assert_eq!(d("1").checked_div(&d("3"), 0).unwrap().to_string(), "0");
        assert_eq!(
            d("1.5").checked_div(&d("7"), 10).unwrap().to_string(),
            "0.21428571429"
        );
        assert!(d("1").checked_div(&Decimal::zero(), 4).is_none());
        // the shown scale is capped at 30
        let x = d("0.123456789012345678901234567890")
            .checked_div(&d("1"), 4)
            .unwrap();
        assert_eq!(x.scale(), 30);
    }

    #[test]
    fn rounding_half_up() {
        assert_eq!(d("2.5").round_dp(0).to_string(), "3");
        assert_eq!(d("-2.5").round_dp(0).to_string(), "-3");
        assert_eq!(d("2.45").round_dp(1).to_string(), "2.5");
        assert_eq!(d("15.4").round_to(-1, Rounding::HalfUp).to_string(), "20");
        assert_eq!(
            d("5678.123451")
                .round_to(-3, Rounding::Truncate)
                .to_string(),
            "5000"
        );
        assert_eq!(d("-15.1").round_to(0, Rounding::Floor).to_string(), "-16");
        assert_eq!(d("-15.1").round_to(0, Rounding::Ceiling).to_string(), "-15");
        assert_eq!(d("0.999").round_dp(0).to_string(), "1");
        assert_eq!(d("1.2").round_dp(3).to_string(), "1.200");
        assert_eq!(d("-0.001").round_dp(2).to_string(), "0.00");
        assert_eq!(d("-1.25").trunc().to_string(), "-1");
        assert_eq!(d("-1.25").fract().to_string(), "-0.25");
    }

    #[test]
    fn fit_to_type() {
        assert_eq!(d("123.456").fit(5, 2), (d("123.46"), false));
        let (v, clipped) = d("1000").fit(5, 2);
        assert!(clipped);
        assert_eq!(v.to_string(), "999.99");
        let (v, clipped) = d("-1000").fit(5, 2);
        assert!(clipped);
        assert_eq!(v.to_string(), "-999.99");
        assert!(d("999.995").fit(5, 2).1);
        let big = format!("{}.{}", "9".repeat(35), "9".repeat(30));
        assert_eq!(d(&big).fit(65, 30), (d(&big), false));
        assert_eq!(Decimal::max_for(65, 30).to_string(), big);
    }

    #[test]
    fn compare_and_convert() {
        assert_eq!(d("1.50"), d("1.5"));
        assert!(d("-2") < d("-1.99"));
        assert!(d(&"9".repeat(65)) > d("1e63"));
        assert_eq!(d("0.1").to_f64(), 0.1);
        assert_eq!(Decimal::from_f64(0.1).unwrap().to_string(), "0.1");
        assert_eq!(
            Decimal::from_f64(1e20).unwrap().to_string(),
            "100000000000000000000"
        );
        assert_eq!(Decimal::from_f64(-2.5e-3).unwrap().to_string(), "-0.0025");
        assert!(Decimal::from_f64(f64::NAN).is_none());
        assert!(Decimal::from_f64(1e100).is_none());
        assert_eq!(d("-12.9").to_i64(), Some(-12));
        assert_eq!(d("-12.5").round_i64(), Some(-13));
        assert_eq!(d("18446744073709551616").to_u64(), None);
        let (raw, s, f) = d("-123.4500").to_raw();
        assert_eq!(Decimal::from_raw(&raw, s, f).to_string(), "-123.4500");
        let (neg, digits, exp) = d("-123.4500").to_digits();
        assert_eq!((neg, digits.as_str(), exp), (true, "12345", 3));
        assert_eq!(
            Decimal::from_digits(true, "12345", 3).unwrap(),
            d("-123.45")
        );
    }
}
