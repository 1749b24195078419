//! Many-bytes-at-a-time scanning for the two hot loops: finding the end of a plain run
//! inside a JSON string, and the end of a run the canonical encoding copies as is.
//!
//! Each function checks sixteen bytes at once with SSE2 on x86-64 (through
//! `safe_arch`, which keeps this crate free of `unsafe`), then eight at once with the
//! classic "has a byte less than n / equal to c" bit tricks on a `u64`, then finishes
//! byte by byte.

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

/// The index of the first byte of `bytes` for which `wide` (on sixteen bytes), `hits`
/// (on whole words) or `stop` (on the last few bytes) says so, or the length when
/// there is none.
#[inline]
fn first(
    bytes: &[u8],
    wide: impl Fn(&[u8]) -> u32,
    hits: impl Fn(u64) -> u64,
    stop: impl Fn(u8) -> bool,
) -> usize {
    let mut i = 0;
    for chunk in bytes.chunks_exact(16) {
        let mask = wide(chunk);
        if mask != 0 {
            return i + mask.trailing_zeros() as usize;
        }
        i += 16;
    }
    for chunk in bytes[i..].chunks_exact(8) {
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
pub(crate) fn string_run(bytes: &[u8]) -> usize {
    first(
        bytes,
        wide::string_stops,
        |w| bytes_equal(w, b'"') | bytes_equal(w, b'\\') | control_bytes(w),
        string_stop,
    )
}

/// Whether a JSON string cannot hold `b` as is.
fn string_stop(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// Whether the canonical encoding does not copy `b` as is.
fn canonical_stop(b: u8) -> bool {
    !(0x20..0x7f).contains(&b) || b == b'"' || b == b'\\'
}

/// The length of the prefix of `bytes` that the canonical encoding copies as is:
/// printable ASCII (U+0020..U+007E) other than `"` and `\`.
#[inline]
pub(crate) fn canonical_run(bytes: &[u8]) -> usize {
    first(
        bytes,
        wide::canonical_stops,
        |w| {
            (w & HIGHS)
                | bytes_equal(w, 0x7f)
                | bytes_equal(w, b'"')
                | bytes_equal(w, b'\\')
                | control_bytes(w)
        },
        canonical_stop,
    )
}

/// SSE2 (part of every x86-64 CPU): sixteen bytes at once.
#[cfg(target_arch = "x86_64")]
mod wide {
    use safe_arch::{
        bitor_m128i, cmp_eq_mask_i8_m128i, cmp_gt_mask_i8_m128i, load_unaligned_m128i, m128i,
        move_mask_i8_m128i, set_splat_i8_m128i,
    };

    #[inline(always)]
    fn load(chunk: &[u8]) -> m128i {
        let mut bytes = [0; 16];
        bytes.copy_from_slice(chunk);
        load_unaligned_m128i(&bytes)
    }

    #[inline(always)]
    fn equal(v: m128i, b: u8) -> m128i {
        cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(b as i8))
    }

    /// Bits set at the bytes of a sixteen-byte chunk that the canonical encoding does
    /// not copy as is.
    #[inline(always)]
    pub(crate) fn canonical_stops(chunk: &[u8]) -> u32 {
        let v = load(chunk);
        // As signed bytes, printable ASCII and DEL are exactly those above 0x1f.
        let printable = cmp_gt_mask_i8_m128i(v, set_splat_i8_m128i(0x1f));
        let special = bitor_m128i(bitor_m128i(equal(v, 0x7f), equal(v, b'"')), equal(v, b'\\'));
        (!move_mask_i8_m128i(printable) | move_mask_i8_m128i(special)) as u32 & 0xFFFF
    }

    /// Bits set at the bytes of a sixteen-byte chunk that a JSON string does not hold
    /// as is.
    #[inline(always)]
    pub(crate) fn string_stops(chunk: &[u8]) -> u32 {
        let v = load(chunk);
        // As signed bytes, control characters are those in 0..0x20.
        let control = cmp_gt_mask_i8_m128i(set_splat_i8_m128i(0x20), v);
        let negative = cmp_gt_mask_i8_m128i(set_splat_i8_m128i(0), v);
        let special = bitor_m128i(equal(v, b'"'), equal(v, b'\\'));
        ((move_mask_i8_m128i(control) & !move_mask_i8_m128i(negative))
            | move_mask_i8_m128i(special)) as u32
            & 0xFFFF
    }
}

/// Elsewhere: sixteen bytes one at a time.
#[cfg(not(target_arch = "x86_64"))]
mod wide {
    fn stops(chunk: &[u8], stop: impl Fn(u8) -> bool) -> u32 {
        (chunk.iter().enumerate()).fold(0, |mask, (i, &b)| mask | u32::from(stop(b)) << i)
    }

    pub fn canonical_stops(chunk: &[u8]) -> u32 {
        stops(chunk, super::canonical_stop)
    }

    pub fn string_stops(chunk: &[u8]) -> u32 {
        stops(chunk, super::string_stop)
    }
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
        const LEN: usize = 44;
        for special in 0..=255u8 {
            // Sixteen-byte steps cover 0..32, a word 32..40, single bytes the rest.
            for at in 0..LEN {
                let mut bytes = vec![b'a'; LEN];
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
                    let mut bytes = vec![b'a'; LEN];
                    bytes[at] = special;
                    if at + 1 < bytes.len() {
                        bytes[at + 1] = second;
                    }
                    assert_eq!(string_run(&bytes), string_run_slow(&bytes));
                    assert_eq!(canonical_run(&bytes), canonical_run_slow(&bytes));
                }
                // Neighbours that could disturb the bit tricks: high bytes, 0x20, 0x21.
                for neighbour in [0x80u8, 0xff, 0x20, 0x21, 0x7e, 0x1f, 0x5b, 0x5d] {
                    let mut bytes = vec![neighbour; LEN];
                    bytes[at] = special;
                    assert_eq!(string_run(&bytes), string_run_slow(&bytes));
                    assert_eq!(canonical_run(&bytes), canonical_run_slow(&bytes));
                }
            }
        }
    }
}
