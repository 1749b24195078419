//! What a log says of a call besides its record: its id, its times and the
//! directory it was made in ([`CallMeta`]), read where the format writes them. The
//! transcript `import` writes holds none of it; `export --format otlp --from FORMAT`
//! writes the id and times in the spans, and path rules read a call's paths from its
//! directory.

/// What a log says of a call besides its record, where the format writes it: its
/// id and its times. The transcript holds none of it; `export --format otlp` writes
/// it in the call's span.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallMeta {
    /// The log's id of the call (a `tool_use` id, a `call_id`, a JSON-RPC id as its
    /// string or its integer's digits).
    pub id: Option<String>,
    /// When the call was made, in nanoseconds since the Unix epoch.
    pub start: Option<u64>,
    /// When its result was written, in nanoseconds since the Unix epoch.
    pub end: Option<u64>,
    /// The call is an MCP `tools/call` read from a JSON-RPC log.
    pub mcp: bool,
    /// For an MCP JSON-RPC log: the request's id, as [`CallMeta::id`].
    pub jsonrpc_id: Option<String>,
    /// For an MCP JSON-RPC log: the protocol version the server's `initialize` result
    /// gave before the call.
    pub protocol_version: Option<String>,
    /// The working directory the call was made in, as the log says (a Claude Code
    /// entry's `cwd`): relative paths of the call are the agent's from there.
    pub cwd: Option<String>,
}

/// The time of an RFC 3339 timestamp (`2025-09-01T10:00:01.5Z`, or with an offset
/// `+02:00`), in nanoseconds since the Unix epoch; `None` for anything else (a time
/// without an offset says no instant), or a time before the epoch.
pub(crate) fn rfc3339_nanos(text: &str) -> Option<u64> {
    let b = text.as_bytes();
    let digits = |from: usize, n: usize| -> Option<u64> {
        let part = b.get(from..from + n)?;
        part.iter().try_fold(0u64, |acc, &d| {
            d.is_ascii_digit().then(|| acc * 10 + u64::from(d - b'0'))
        })
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (year, month, day) = (digits(0, 4)?, digits(5, 2)?, digits(8, 2)?);
    let (hour, minute, second) = (digits(11, 2)?, digits(14, 2)?, digits(17, 2)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    if second > 60 {
        return None;
    }
    let mut at = 19;
    let mut nanos = 0u64;
    if b.get(at) == Some(&b'.') {
        at += 1;
        let mut scale = 100_000_000u64;
        let start = at;
        while let Some(d) = b.get(at).filter(|d| d.is_ascii_digit()) {
            nanos += u64::from(d - b'0') * scale;
            scale /= 10;
            at += 1;
        }
        if at == start {
            return None;
        }
    }
    let offset: i64 = match b.get(at) {
        Some(b'Z' | b'z') if at + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if at + 6 == b.len() && b[at + 3] == b':' => {
            let (h, m) = (digits(at + 1, 2)?, digits(at + 4, 2)?);
            if h > 23 || m > 59 {
                return None;
            }
            let minutes = i64::try_from(h * 60 + m).ok()?;
            if *sign == b'+' { minutes } else { -minutes }
        }
        _ => return None,
    };
    // Days from the civil date (Howard Hinnant's algorithm), March-based years.
    let (y, m) = if month <= 2 {
        (i64::try_from(year).ok()? - 1, month + 9)
    } else {
        (i64::try_from(year).ok()?, month - 3)
    };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = i64::try_from((153 * m + 2) / 5 + day - 1).ok()?;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let seconds =
        days * 86_400 + i64::try_from(hour * 3600 + minute * 60 + second).ok()? - offset * 60;
    let seconds = u64::try_from(seconds).ok()?;
    seconds.checked_mul(1_000_000_000)?.checked_add(nanos)
}

/// The time of a JSON number of seconds since the Unix epoch (`1735689600.001`), in
/// nanoseconds, read from its decimal digits exactly (to the nanosecond); `None` for
/// a negative number, an exponent, or a time past the year 2554.
pub(crate) fn epoch_seconds_nanos(text: &str) -> Option<u64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || whole.len() > 11 || !all_digits(whole) || !all_digits(fraction) {
        return None;
    }
    let seconds: u64 = whole.parse().ok()?;
    let mut nanos = 0u64;
    let mut scale = 100_000_000u64;
    for digit in fraction.bytes().take(9) {
        nanos += u64::from(digit - b'0') * scale;
        scale /= 10;
    }
    seconds.checked_mul(1_000_000_000)?.checked_add(nanos)
}

#[cfg(test)]
mod tests {
    use super::{epoch_seconds_nanos, rfc3339_nanos};

    #[test]
    fn rfc3339_times_are_read_to_the_nanosecond() {
        assert_eq!(rfc3339_nanos("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            rfc3339_nanos("2025-09-01T10:00:03Z"),
            Some(1_756_720_803_000_000_000)
        );
        assert_eq!(
            rfc3339_nanos("2025-09-01T10:00:06.5Z"),
            Some(1_756_720_806_500_000_000)
        );
        assert_eq!(
            rfc3339_nanos("2025-09-01T12:00:03.123456789+02:00"),
            Some(1_756_720_803_123_456_789)
        );
        assert_eq!(
            rfc3339_nanos("2024-02-29T23:59:59.000001-00:30"),
            Some(1_709_252_999_000_001_000)
        );
        // Digits past the nanosecond are dropped.
        assert_eq!(
            rfc3339_nanos("2025-09-01T10:00:03.0000000019Z"),
            Some(1_756_720_803_000_000_001)
        );
    }

    #[test]
    fn what_is_not_an_instant_has_no_time() {
        for text in [
            "",
            "2025-05-01T10:00:00",
            "2025-13-01T10:00:00Z",
            "2025-05-01T24:00:00Z",
            "2025-05-01T10:00:00.Z",
            "2025-05-01T10:00:00Zjunk",
            "1969-12-31T23:59:59Z",
            "2025-05-01T10:00:00+0200",
            "2025-05-0１T10:00:00Z",
            "yesterday",
        ] {
            assert_eq!(rfc3339_nanos(text), None, "{text}");
        }
    }

    #[test]
    fn epoch_seconds_are_read_from_their_digits() {
        assert_eq!(
            epoch_seconds_nanos("1735689600.001"),
            Some(1_735_689_600_001_000_000)
        );
        assert_eq!(
            epoch_seconds_nanos("1735689600"),
            Some(1_735_689_600_000_000_000)
        );
        for text in ["-1", "1e9", ".5", "1.5.5", "99999999999999", ""] {
            assert_eq!(epoch_seconds_nanos(text), None, "{text}");
        }
    }
}
