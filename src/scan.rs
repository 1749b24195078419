//! Word-at-a-time byte scanning for the two hot loops: finding the end of a plain run
//! inside a JSON string, and the end of a run the canonical encoding copies as is.
//!
//! Each function checks eight bytes at once with the classic "has a byte less than n /
//! equal to c" bit tricks on a `u64`, then finishes byte by byte.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// High bits set at the bytes of `w` that are zero. The lowest set bit is exact; bits
/// above a zero byte may be set wrongly (a borrow), which never matters here, since
/// only the first hit is used.
#[inline]
fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & HIGHS
}

/// High bits set at the bytes of `w` equal to `b` (lowest exact, as [`zero_bytes`]).
#[inline]
fn bytes_equal(w: u64, b: u8) -> u64 {
    zero_bytes(w ^ (ONES * u64::from(b)))
}

/// High bits set at the bytes of `w` below 0x20 (lowest exact, as [`zero_bytes`]).
#[inline]
fn control_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES * 0x20) & !w & HIGHS
}

#[inline]
fn word(chunk: &[u8]) -> u64 {
    let mut bytes = [0; 8];
    bytes.copy_from_slice(chunk);
    u64::from_le_bytes(bytes)
}

/// The index of the first byte of `bytes` for which `hits` (on whole words) or `stop`
/// (on the last few bytes) says so, or the length when there is none.
#[inline]
fn first(bytes: &[u8], hits: impl Fn(u64) -> u64, stop: impl Fn(u8) -> bool) -> usize {
    let mut i = 0;
    for chunk in bytes.chunks_exact(8) {
        let mask = hits(word(chunk));
        if mask != 0 {
            // Little-endian: the lowest set bit is in the first matching byte.
            return i + (mask.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if stop(b) {
            break;
        }
        i += 1;
    }
    i
}

/// The length of the prefix of `bytes` that a JSON string holds as is: no `"`, no `\`,
/// no control character.
#[inline]
pub fn string_run(bytes: &[u8]) -> usize {
    first(
        bytes,
        |w| bytes_equal(w, b'"') | bytes_equal(w, b'\\') | control_bytes(w),
        |b| b == b'"' || b == b'\\' || b < 0x20,
    )
}

/// The length of the prefix of `bytes` that the canonical encoding copies as is:
/// printable ASCII (U+0020..U+007E) other than `"` and `\`.
#[inline]
pub fn canonical_run(bytes: &[u8]) -> usize {
    first(
        bytes,
        |w| {
            (w & HIGHS)
                | bytes_equal(w, 0x7f)
                | bytes_equal(w, b'"')
                | bytes_equal(w, b'\\')
                | control_bytes(w)
        },
        |b| !(0x20..0x7f).contains(&b) || b == b'"' || b == b'\\',
    )
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
                // A second special byte after the first must not move the answer.
                for second in [0u8, b'"', b'\\', 0x7f, 0x80, 0x1f] {
                    let mut bytes = vec![b'a'; 20];
                    bytes[at] = special;
                    if at + 1 < bytes.len() {
                        bytes[at + 1] = second;
                    }
                    assert_eq!(string_run(&bytes), string_run_slow(&bytes));
                    assert_eq!(canonical_run(&bytes), canonical_run_slow(&bytes));
                }
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
