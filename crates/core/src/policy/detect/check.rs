//! The checks of what a built-in detector's pattern matched: Luhn for card numbers,
//! Shannon entropy for assigned values, digit counts for phone numbers, and what
//! stands before an e-mail address.

/// The entropy in bits per character from which an assigned value is a secret.
const ENTROPY_THRESHOLD: f64 = 3.5;
/// The shortest assigned value considered, in characters.
pub(super) const MIN_ASSIGNED: usize = 16;

/// A check of a candidate match: the haystack, and the start and end of the match
/// (of its group `v` when it has one).
pub(super) type Check = fn(&str, usize, usize) -> bool;

/// Shannon entropy of `text`'s bytes, in bits per byte.
fn entropy(text: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in text.bytes() {
        counts[usize::from(b)] += 1;
    }
    let len = text.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / len;
            -p * p.log2()
        })
        .sum()
}

/// Whether the digits of `digits` pass the Luhn check.
fn luhn(digits: &[u8]) -> bool {
    let mut sum = 0u32;
    for (i, d) in digits.iter().rev().enumerate() {
        let mut v = u32::from(d - b'0');
        if i % 2 == 1 {
            v *= 2;
            if v > 9 {
                v -= 9;
            }
        }
        sum += v;
    }
    sum.is_multiple_of(10)
}

fn has_digit_and_letter(text: &str) -> bool {
    text.bytes().any(|b| b.is_ascii_digit()) && text.bytes().any(|b| b.is_ascii_alphabetic())
}

pub(super) fn high_entropy(hay: &str, start: usize, end: usize) -> bool {
    let value = &hay[start..end];
    value.len() >= MIN_ASSIGNED
        && has_digit_and_letter(value)
        && entropy(value) >= ENTROPY_THRESHOLD
}

pub(super) fn has_digit_and_letter_check(hay: &str, start: usize, end: usize) -> bool {
    has_digit_and_letter(&hay[start..end])
}

/// The byte before `start`, if any.
fn before(hay: &str, start: usize) -> Option<u8> {
    start.checked_sub(1).map(|i| hay.as_bytes()[i])
}

pub(super) fn email_check(hay: &str, start: usize, _end: usize) -> bool {
    // The local part must not start right after another `@` or a dot-atom continuing
    // it: the match already takes the longest local part, so only `@` is left.
    before(hay, start) != Some(b'@')
}

pub(super) fn card_check(hay: &str, start: usize, end: usize) -> bool {
    let text = &hay.as_bytes()[start..end];
    let digits: Vec<u8> = text.iter().copied().filter(u8::is_ascii_digit).collect();
    let separators: Vec<u8> = text
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_digit())
        .collect();
    if separators.windows(2).any(|w| w[0] != w[1]) || !(13..=19).contains(&digits.len()) {
        return false;
    }
    let prefix = |p: &[u8]| digits.starts_with(p);
    let issuer = prefix(b"4")
        || (b'1'..=b'5').any(|d| prefix(&[b'5', d]))
        || (b'2'..=b'7').any(|d| prefix(&[b'2', d]))
        || [b"34", b"37", b"30", b"36", b"38", b"35"]
            .iter()
            .any(|p| prefix(*p))
        || prefix(b"6");
    issuer && luhn(&digits)
}

pub(super) fn phone_check(hay: &str, start: usize, end: usize) -> bool {
    if before(hay, start).is_some_and(|b| {
        b.is_ascii_alphanumeric() || b == b'+' || b == b'(' && hay.as_bytes()[start] != b'('
    }) {
        return false;
    }
    let text = &hay[start..end];
    let open = text.bytes().filter(|&b| b == b'(').count();
    let close = text.bytes().filter(|&b| b == b')').count();
    if open != close || open > 1 {
        return false;
    }
    let digits = text.bytes().filter(u8::is_ascii_digit).count();
    if text.starts_with('+') {
        (8..=15).contains(&digits)
    } else {
        digits == 10
    }
}

#[cfg(test)]
mod tests {
    use super::{entropy, luhn};

    #[test]
    fn luhn_and_entropy() {
        assert!(luhn(b"4111111111111111"));
        assert!(!luhn(b"4111111111111112"));
        assert!(luhn(b"79927398713"));
        assert!(entropy("aaaaaaaa") < 0.01);
        assert!((entropy("abcd") - 2.0).abs() < 1e-9);
    }
}
