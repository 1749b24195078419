//! Word-at-a-time byte scanning for the two hot loops: finding the end of a plain run
//! inside a JSON string, and the end of a run the canonical encoding copies as is.
//!
//! Each function checks eight bytes at once with the classic "has a byte less than n /
//! equal to c" bit tricks on a `u64`, then finishes byte by byte.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether some byte of `w` is zero.
#[inline]
fn has_zero(w: u64) -> bool {
    w.wrapping_sub(ONES) & !w & HIGHS != 0
}

/// Whether some byte of `w` equals `b`.
#[inline]
fn has_byte(w: u64, b: u8) -> bool {
    has_zero(w ^ (ONES * u64::from(b)))
}

/// Whether some byte of `w` is below 0x20 (an ASCII control character).
#[inline]
fn has_control(w: u64) -> bool {
    // Valid for bytes below 0x80; bytes with the high bit set never look like a hit.
    w.wrapping_sub(ONES * 0x20) & !w & HIGHS != 0
}

#[inline]
fn word(chunk: &[u8]) -> u64 {
    let mut bytes = [0; 8];
    bytes.copy_from_slice(chunk);
    u64::from_le_bytes(bytes)
}

/// The length of the prefix of `bytes` that a JSON string holds as is: no `"`, no `\`,
/// no control character.
#[inline]
pub fn string_run(bytes: &[u8]) -> usize {
    let mut i = 0;
    for chunk in bytes.chunks_exact(8) {
        let w = word(chunk);
        if has_byte(w, b'"') || has_byte(w, b'\\') || has_control(w) {
            break;
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        i += 1;
    }
    i
}

/// The length of the prefix of `bytes` that the canonical encoding copies as is:
/// printable ASCII (U+0020..U+007E) other than `"` and `\`.
#[inline]
pub fn canonical_run(bytes: &[u8]) -> usize {
    let mut i = 0;
    for chunk in bytes.chunks_exact(8) {
        let w = word(chunk);
        if w & HIGHS != 0
            || has_byte(w, 0x7f)
            || has_byte(w, b'"')
            || has_byte(w, b'\\')
            || has_control(w)
        {
            break;
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if !(0x20..0x7f).contains(&b) || b == b'"' || b == b'\\' {
            break;
        }
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string_run_slow(bytes: &[u8]) -> usize {
        bytes
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            .unwrap_or(bytes.len())
    }

    fn canonical_run_slow(bytes: &[u8]) -> usize {
        bytes
            .iter()
            .position(|&b| !(0x20..0x7f).contains(&b) || b == b'"' || b == b'\\')
            .unwrap_or(bytes.len())
    }

    #[test]
    fn runs_stop_at_every_special_byte_in_every_position() {
        for special in 0..=255u8 {
            for at in 0..20 {
                let mut bytes = vec![b'a'; 20];
                bytes[at] = special;
                assert_eq!(
                    string_run(&bytes),
                    string_run_slow(&bytes),
                    "{special:#x} at {at}"
                );
                assert_eq!(
                    canonical_run(&bytes),
                    canonical_run_slow(&bytes),
                    "{special:#x} at {at}"
                );
                // Neighbours that could disturb the bit tricks: high bytes, 0x20, 0x21.
                for neighbour in [0x80u8, 0xff, 0x20, 0x21, 0x7e] {
                    let mut bytes = vec![neighbour; 20];
                    bytes[at] = special;
                    assert_eq!(string_run(&bytes), string_run_slow(&bytes));
                    assert_eq!(canonical_run(&bytes), canonical_run_slow(&bytes));
                }
            }
        }
    }
}
