//! The canonical encoding (spec section 2): byte for byte what CPython writes with
//! `json.dumps(value, sort_keys=True, separators=(",", ":"))`.
//!
//! This module holds the rules for each piece (strings, floats) and the entry points
//! [`encode`] for anything that is [`Encode`]. It knows nothing of
//! parsing: [`crate::json`] builds on it, implementing [`Encode`] for its values and
//! writing canonical bytes straight from JSON text with these same rules.

use std::fmt::Write as _;

/// A value with a canonical encoding.
pub trait Encode {
    /// Appends the canonical encoding of `self` to `out`.
    fn write_canonical(&self, out: &mut Vec<u8>);
}

impl Encode for str {
    fn write_canonical(&self, out: &mut Vec<u8>) {
        write_str(self, out);
    }
}

/// The canonical encoding of `value`.
pub fn encode<T: Encode + ?Sized>(value: &T) -> Vec<u8> {
    let mut out = Vec::new();
    value.write_canonical(&mut out);
    out
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends a string in the canonical form: ASCII only, `\uXXXX` escapes in lowercase
/// hex, characters above U+FFFF as surrogate pairs.
pub(crate) fn write_str(s: &str, out: &mut Vec<u8>) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    write_str_body(s, out);
    out.push(b'"');
}

/// Appends the canonical form of one character, as inside a string.
pub(crate) fn write_char(c: char, out: &mut Vec<u8>) {
    match c {
        '"' => out.extend_from_slice(b"\\\""),
        '\\' => out.extend_from_slice(b"\\\\"),
        '\n' => out.extend_from_slice(b"\\n"),
        '\r' => out.extend_from_slice(b"\\r"),
        '\t' => out.extend_from_slice(b"\\t"),
        '\u{8}' => out.extend_from_slice(b"\\b"),
        '\u{c}' => out.extend_from_slice(b"\\f"),
        ' '..='~' => out.push(c as u8),
        _ => {
            let code = u32::from(c);
            if code > 0xFFFF {
                let v = code - 0x10000;
                push_u_escape(0xD800 + (v >> 10), out);
                push_u_escape(0xDC00 + (v & 0x3FF), out);
            } else {
                push_u_escape(code, out);
            }
        }
    }
}

/// Appends the canonical form of a string's characters, without the quotes.
fn write_str_body(s: &str, out: &mut Vec<u8>) {
    let bytes = s.as_bytes();
    let mut i = 0;
    loop {
        let run = crate::scan::canonical_run(&bytes[i..]);
        out.extend_from_slice(&bytes[i..i + run]);
        i += run;
        // The run ends at a character boundary: a special ASCII byte or a non-ASCII
        // character's first byte.
        let Some(c) = s[i..].chars().next() else {
            break;
        };
        write_char(c, out);
        i += c.len_utf8();
    }
}

fn push_u_escape(unit: u32, out: &mut Vec<u8>) {
    let hex = |shift: u32| HEX[((unit >> shift) & 0xF) as usize];
    out.extend_from_slice(&[b'\\', b'u', hex(12), hex(8), hex(4), hex(0)]);
}

/// Appends a float as Python's `repr(float)` writes it.
pub(crate) fn write_float(x: f64, out: &mut Vec<u8>) {
    // In the positional range Ryu writes exactly what Python's repr writes.
    if (1e-4..1e16).contains(&x.abs()) {
        let mut buffer = ryu::Buffer::new();
        let text = buffer.format_finite(x);
        if !text.contains('e') {
            out.extend_from_slice(text.as_bytes());
            return;
        }
    }
    let mut s = String::new();
    format_float(x, &mut s);
    out.extend_from_slice(s.as_bytes());
}

/// Whether `text`, a JSON number with a fraction, is exactly what [`write_float`]
/// writes for its value, so it can be copied without being read.
///
/// That is so when it is positional (`-?D.D`, no exponent), its value is at least
/// `1e-4` and below `1e16` in magnitude, it has at most 15 significant digits and its fraction ends in
/// a nonzero digit or is `0`. A decimal of at most 15 significant digits is the only
/// one of that length or shorter to round to its double (15 digits always survive a
/// round trip through a double), so it is the shortest that reads back, which is what
/// `repr` writes; the checks on the form make it written the same way.
pub(crate) fn is_float_repr(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text).as_bytes();
    let Some(point) = digits.iter().position(|&b| b == b'.') else {
        return false;
    };
    let (whole, fraction) = (&digits[..point], &digits[point + 1..]);
    let plain = |part: &[u8]| !part.is_empty() && part.iter().all(u8::is_ascii_digit);
    if !plain(whole) || !plain(fraction) || (whole.len() > 1 && whole[0] == b'0') {
        return false;
    }
    if whole.len() > 16 {
        // At least 1e16: written with an exponent.
        return false;
    }
    if fraction.len() > 1 && fraction.ends_with(b"0") {
        return false;
    }
    let significant = if whole == b"0" {
        // 0.000ddd: the value must be at least 1e-4, so at most three zeros lead.
        let zeros = fraction.iter().take_while(|&&b| b == b'0').count();
        if zeros == fraction.len() || zeros > 3 {
            return false;
        }
        fraction.len() - zeros
    } else if fraction == b"0" {
        whole.len() - whole.iter().rev().take_while(|&&b| b == b'0').count()
    } else {
        whole.len() + fraction.len()
    };
    significant <= 15
}

/// Python's `repr(float)` of a finite `x`: the shortest digits that read back to `x`,
/// positional when `1e-4 <= |x| < 1e16`, otherwise in exponent notation.
fn format_float(x: f64, out: &mut String) {
    if x.is_sign_negative() {
        out.push('-');
    }
    let x = x.abs();
    if x == 0.0 {
        out.push_str("0.0");
        return;
    }
    let (digits, exponent) = shortest_digits(x);
    let n = digits.len() as i32;
    if (-4..16).contains(&exponent) {
        if exponent >= 0 {
            let int_len = exponent + 1;
            if n <= int_len {
                out.push_str(&digits);
                out.extend(std::iter::repeat_n('0', (int_len - n) as usize));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len as usize]);
                out.push('.');
                out.push_str(&digits[int_len as usize..]);
            }
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exponent - 1) as usize));
            out.push_str(&digits);
        }
    } else {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(out, "e{sign}{:02}", exponent.abs());
    }
}

/// The shortest digits that read back to the positive `x`, and the decimal exponent
/// of the first: `x ~ d.ddd * 10^exponent`. Of two equally short candidates Ryu takes
/// the one nearer to `x`, and of two equally near the even one, as Python's `repr`
/// does.
fn shortest_digits(x: f64) -> (String, i32) {
    let mut buffer = ryu::Buffer::new();
    let text = buffer.format_finite(x);
    // Ryu writes `123.45`, `0.0001`, `1e16` or `1.5e-7`.
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
    // Ryu writes the exponent as a plain decimal integer.
    let parsed = exponent.parse::<i32>();
    debug_assert!(parsed.is_ok(), "Ryu wrote the exponent {exponent:?}");
    let exponent = parsed.unwrap_or(0);
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{whole}{fraction}");
    let significant = all.trim_start_matches('0');
    let leading_zeros = all.len() - significant.len();
    let digits = significant.trim_end_matches('0');
    let point = whole.len() as i32 - leading_zeros as i32;
    (digits.to_owned(), exponent + point - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(x: f64) -> String {
        let mut s = String::new();
        format_float(x, &mut s);
        s
    }

    #[test]
    fn floats_follow_python_repr() {
        let cases = [
            (100.0, "100.0"),
            (0.0001, "0.0001"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.5e-7, "1.5e-07"),
            (1e-5, "1e-05"),
            (2.5e300, "2.5e+300"),
            (5e-324, "5e-324"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (0.1, "0.1"),
            (-1.25, "-1.25"),
            (123456.789, "123456.789"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
        ];
        for (x, want) in cases {
            assert_eq!(float(x), want, "{x:?}");
        }
    }

    #[test]
    fn strings_escape_like_ensure_ascii() {
        assert_eq!(
            {
                let mut out = Vec::new();
                write_str("a\"\\/\n\r\t\u{8}\u{c}\u{1}\u{7f}é\u{2028}😀", &mut out);
                String::from_utf8(out).expect("ASCII")
            },
            r#""a\"\\/\n\r\t\b\f\u0001\u007f\u00e9\u2028\ud83d\ude00""#
        );
    }

    /// What `write_float` writes for the value of `text`.
    fn written(text: &str) -> String {
        let mut out = Vec::new();
        write_float(text.parse().expect("a number"), &mut out);
        String::from_utf8(out).expect("ASCII")
    }

    #[test]
    fn a_float_copied_as_written_is_its_canonical_form() {
        let copied = [
            "0.1",
            "-0.5",
            "5.0",
            "50.0",
            "100.0",
            "0.0001",
            "-0.0001",
            "0.001234",
            "123456.789",
            "999999999999999.0",
            "1.23456789012345",
            "0.000123456789012345",
            "603.689",
            "1000000000000000.0",
            "9999999999999990.0",
        ];
        for text in copied {
            assert!(is_float_repr(text), "{text}");
            assert_eq!(written(text), text);
        }
        // Read instead: an exponent, trailing zeros, too many digits, below 1e-4, zero.
        let read = [
            "1e5",
            "1.0e5",
            "1.50",
            "5.00",
            "1.234567890123456",
            "0.00001",
            "0.0",
            "-0.0",
            "0.00",
            "10000000000000000.0",
            "1.",
            ".5",
            "01.5",
            "1.5x",
            "",
        ];
        for text in read {
            assert!(!is_float_repr(text), "{text}");
        }
        // 16 digits, one past the limit, need not survive: the check must refuse them.
        assert_eq!(written("0.30000000000000004"), "0.30000000000000004");
        assert_ne!(written("9007199254740993.0"), "9007199254740993.0");
    }

    proptest::proptest! {
        #[test]
        fn every_float_copied_as_written_is_its_canonical_form(
            whole in 0u64..1_000_000_000_000_000_000,
            fraction in "[0-9]{1,17}",
            negative in proptest::bool::ANY,
            zeros in 0usize..6,
        ) {
            let whole = whole >> (whole % 64);
            let fraction = format!("{}{fraction}", "0".repeat(zeros));
            let text = format!("{}{whole}.{fraction}", if negative { "-" } else { "" });
            if is_float_repr(&text) {
                proptest::prop_assert_eq!(written(&text), text);
            }
        }
    }
}
