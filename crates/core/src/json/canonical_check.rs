//! Checking that bytes already are a canonical encoding, without writing anything:
//! [`canonical_value_len`] says how long the canonical value at the start of some
//! bytes is, when it is one. A value that passes is valid JSON within the limits of
//! [`super::parse`] (depth, duplicate keys, surrogates, float range) and is its own
//! canonical encoding, so it can be used as it stands; anything else is "cannot
//! tell", for the caller to parse the ordinary way, which then gives the exact error
//! or the encoding.

use super::MAX_DEPTH;
use super::canonical_writer::canonical_escape_len_at;
use crate::canonical;

/// The length of the canonical JSON value at the start of `bytes`, nested `depth`
/// levels deep already (so an object at the start is at level `depth + 1`), when
/// `canonical::encode(&parse(v)?)` is exactly those bytes; `None` when it is not so
/// or the check cannot tell.
pub(crate) fn canonical_value_len(bytes: &[u8], depth: usize) -> Option<usize> {
    let mut checker = Checker {
        bytes,
        pos: 0,
        first: Vec::new(),
        second: Vec::new(),
    };
    checker.value(depth)?;
    Some(checker.pos)
}

/// The length of the canonical string at the start of `bytes` (its quotes included)
/// and whether it holds an escape; `None` when it is not a canonical string.
pub(crate) fn canonical_string_len(bytes: &[u8]) -> Option<(usize, bool)> {
    let mut checker = Checker {
        bytes,
        pos: 0,
        first: Vec::new(),
        second: Vec::new(),
    };
    let escaped = checker.string()?;
    Some((checker.pos, escaped))
}

/// The length of the canonical integer at the start of `bytes`: `0`, or digits
/// without a leading zero, maybe after a `-`, but never `-0`.
pub(crate) fn canonical_integer_len(bytes: &[u8]) -> Option<usize> {
    let negative = usize::from(bytes.first() == Some(&b'-'));
    let digits = bytes[negative..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    match bytes.get(negative) {
        Some(b'0') if digits == 1 && negative == 0 => Some(1),
        Some(b'1'..=b'9') => Some(negative + digits),
        _ => None,
    }
}

struct Checker<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Room to decode two keys that hold escapes, to compare them.
    first: Vec<u8>,
    second: Vec<u8>,
}

impl Checker<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b'"' => self.string().map(drop),
            b'-' | b'0'..=b'9' => self.number(),
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'n' => self.word(b"null"),
            _ => None,
        }
    }

    fn word(&mut self, word: &[u8]) -> Option<()> {
        if self.bytes[self.pos..].starts_with(word) {
            self.pos += word.len();
            return Some(());
        }
        None
    }

    /// A canonical string (its quotes included); tells whether it holds an escape.
    fn string(&mut self) -> Option<bool> {
        debug_assert_eq!(self.peek(), Some(b'"'));
        self.pos += 1;
        let mut escaped = false;
        loop {
            self.pos += crate::scan::canonical_run(&self.bytes[self.pos..]);
            match self.peek()? {
                b'"' => {
                    self.pos += 1;
                    return Some(escaped);
                }
                b'\\' => {
                    escaped = true;
                    match self.bytes.get(self.pos + 1)? {
                        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => self.pos += 2,
                        b'u' => match unicode_escape_len(self.bytes, self.pos) {
                            0 => return None,
                            len => self.pos += len,
                        },
                        _ => return None,
                    }
                }
                // A control character, DEL or any non-ASCII byte: never canonical.
                _ => return None,
            }
        }
    }

    fn number(&mut self) -> Option<()> {
        let start = self.pos;
        let int_len = canonical_integer_len(&self.bytes[start..]);
        let mut end = start + usize::from(self.peek() == Some(b'-'));
        end += self.bytes[end..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let mut integer = true;
        if self.bytes.get(end) == Some(&b'.') {
            integer = false;
            end += 1;
            end += self.bytes[end..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
        }
        if let Some(b'e' | b'E') = self.bytes.get(end) {
            integer = false;
            end += 1;
            if let Some(b'+' | b'-') = self.bytes.get(end) {
                end += 1;
            }
            end += self.bytes[end..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
        }
        if integer {
            // Digits that canonical writes as they are: no `-0`, no leading zero.
            if int_len? != end - start {
                return None;
            }
            self.pos = end;
            return Some(());
        }
        // ASCII digits and signs, so this cannot fail.
        let text = std::str::from_utf8(&self.bytes[start..end]).ok()?;
        if !canonical::is_float_repr(text) {
            // The value written back must give exactly the text.
            let x = text.parse::<f64>().ok().filter(|x| x.is_finite())?;
            let mut written = Vec::with_capacity(32);
            canonical::write_float(x, &mut written);
            if written != text.as_bytes() {
                return None;
            }
        }
        self.pos = end;
        Some(())
    }

    fn array(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        if self.peek()? == b']' {
            self.pos += 1;
            return Some(());
        }
        loop {
            self.value(depth)?;
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn object(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        if self.peek()? == b'}' {
            self.pos += 1;
            return Some(());
        }
        // The previous key: where its text is, and whether it holds an escape.
        let mut previous: Option<(usize, usize, bool)> = None;
        loop {
            if self.peek()? != b'"' {
                return None;
            }
            let start = self.pos;
            let escaped = self.string()?;
            let key = (start + 1, self.pos - 1, escaped);
            if let Some(before) = previous
                && !self.in_order(before, key)
            {
                return None;
            }
            previous = Some(key);
            if self.peek()? != b':' {
                return None;
            }
            self.pos += 1;
            self.value(depth)?;
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// Whether the key `a` comes strictly before the key `b` (each the range of its
    /// text, inside the quotes, and whether it holds an escape), as decoded keys
    /// compare: by their UTF-8 bytes.
    fn in_order(&mut self, a: (usize, usize, bool), b: (usize, usize, bool)) -> bool {
        let (a_text, b_text) = (&self.bytes[a.0..a.1], &self.bytes[b.0..b.1]);
        if !a.2 && !b.2 {
            // Printable ASCII without an escape is its own decoded form.
            return a_text < b_text;
        }
        decode(a_text, &mut self.first);
        decode(b_text, &mut self.second);
        self.first < self.second
    }
}

/// The value of each byte as a lowercase hex digit, or 0xFF.
const HEX_VALUE: [u8; 256] = {
    let mut table = [0xFF; 256];
    let mut i = 0;
    while i < 16 {
        table[b"0123456789abcdef"[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// The code unit of the `\uXXXX` escape at `at` in `bytes`, in lowercase hex.
#[inline(always)]
fn unit(bytes: &[u8], at: usize) -> Option<u32> {
    let &[b'\\', b'u', a, b, c, d] = bytes.get(at..at + 6)? else {
        return None;
    };
    let digits = [a, b, c, d].map(|x| HEX_VALUE[usize::from(x)]);
    if digits.contains(&0xFF) {
        return None;
    }
    Some(digits.iter().fold(0, |code, &x| code << 4 | u32::from(x)))
}

/// The length of the `\uXXXX` escape (or surrogate pair) at `at` when it is what
/// the canonical encoding writes, as [`canonical_escape_len_at`] tells, by table.
#[inline(always)]
fn unicode_escape_len(bytes: &[u8], at: usize) -> usize {
    match unit(bytes, at) {
        Some(0x7f..=0xD7FF | 0xE000..=0xFFFF) => 6,
        Some(0xD800..=0xDBFF) => match unit(bytes, at + 6) {
            Some(0xDC00..=0xDFFF) => 12,
            _ => 0,
        },
        Some(_) => canonical_escape_len_at(bytes, at),
        None => 0,
    }
}

/// Decodes the text of a canonical string (inside its quotes, already checked) into
/// its UTF-8 bytes.
fn decode(text: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let hex = |digits: &[u8]| {
        digits.iter().fold(0u32, |code, &b| {
            code * 16
                + u32::from(match b {
                    b'0'..=b'9' => b - b'0',
                    _ => b - b'a' + 10,
                })
        })
    };
    let mut i = 0;
    while i < text.len() {
        if text[i] != b'\\' {
            out.push(text[i]);
            i += 1;
            continue;
        }
        let c = match text.get(i + 1) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            _ => {
                let unit = hex(text.get(i + 2..i + 6).unwrap_or_default());
                i += 6;
                let code = if (0xD800..0xDC00).contains(&unit) {
                    let low = hex(text.get(i + 2..i + 6).unwrap_or_default());
                    i += 6;
                    0x10000 + ((unit - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF)
                } else {
                    unit
                };
                let c = char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER);
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                continue;
            }
        };
        out.push(c as u8);
        i += 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;
    use proptest::prelude::*;

    /// Whether the checker's answer agrees with parsing and encoding: it accepts a
    /// text only when the text is its own canonical encoding.
    fn agrees(text: &str) {
        let canonical = parse(text).ok().map(|v| canonical::encode(&v));
        let is_canonical = canonical.as_deref() == Some(text.as_bytes());
        let checked = canonical_value_len(text.as_bytes(), 0) == Some(text.len());
        assert!(!checked || is_canonical, "accepted {text:?}");
    }

    #[test]
    fn accepts_canonical_values_and_nothing_else() {
        let accepted = [
            r#"{}"#,
            r#"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#,
            r#"{"":0,"\u0000":1,"a":-5,"b":0.5,"c":1e+16,"d":-0.0,"e":5e-324}"#,
            r#"{"\n":1,"~":3,"\u007f":4,"\u00e9":2,"\ud83d\ude00":5}"#,
            r#"["\"\\\b\f\n\r\t\u0001\u00e9\ud83d\ude00"]"#,
            r#"[1.5,100.0,0.0001,1000000000000000.0,1.5e-07,2.5e+300]"#,
        ];
        for text in accepted {
            agrees(text);
            assert_eq!(
                canonical_value_len(text.as_bytes(), 0),
                Some(text.len()),
                "{text}"
            );
        }
        let refused = [
            r#"{"b":1,"a":2}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"\u00e9":2,"~":3}"#,
            r#"{"\u00e9":2,"\n":1}"#,
            r#"{"a": 1}"#,
            r#"[-0]"#,
            r#"[01]"#,
            r#"[1.50]"#,
            r#"[1E+16]"#,
            r#"[1e16]"#,
            r#"[1e400]"#,
            r#"["\/"]"#,
            r#"["\u0041"]"#,
            r#"["\u00E9"]"#,
            r#"["\n\u000a"]"#,
            r#"["\ud800"]"#,
            r#"["\udc00\ud800"]"#,
            "[\"\u{e9}\"]",
            "[\"\u{7f}\"]",
            r#"[tru]"#,
            r#"[1,]"#,
            r#"{"a":1,}"#,
            r#"["unterminated"#,
        ];
        for text in refused {
            agrees(text);
            assert_ne!(
                canonical_value_len(text.as_bytes(), 0),
                Some(text.len()),
                "{text}"
            );
        }
    }

    #[test]
    fn depth_is_limited_as_parsing_limits_it() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let at_limit = deep(MAX_DEPTH);
        assert_eq!(
            canonical_value_len(at_limit.as_bytes(), 0),
            Some(at_limit.len())
        );
        assert_eq!(canonical_value_len(at_limit.as_bytes(), 1), None);
        assert_eq!(canonical_value_len(deep(MAX_DEPTH + 1).as_bytes(), 0), None);
    }

    /// Escapes and non-ASCII characters one after another, and after runs of every
    /// length around the scanner's chunks: the writer gives what parsing and encoding
    /// give, the checker accepts that and refuses each way it can be not canonical.
    #[test]
    fn escapes_in_a_row_at_every_position() {
        let pieces = [
            "\\n\\t\\\"\\\\",
            "\\u00e9\\u4e2d\\ud83d\\ude00\\u0001\\u007f",
            "\u{e9}\u{4e2d}\u{1f600}\u{7f}",
            "\\/\\u0041\\u00E9\\n",
        ];
        for run in 0..40 {
            for piece in pieces {
                for after in ["", "x", "\\n", "\u{e9}"] {
                    let text = format!("[\"{}{piece}{after}\"]", "a".repeat(run));
                    let encoded = canonical::encode(&parse(&text).unwrap());
                    let mut written = Vec::new();
                    crate::json::canonicalize(&text, &mut written).unwrap();
                    assert_eq!(written, encoded, "{text}");
                    assert_eq!(
                        canonical_value_len(&encoded, 0),
                        Some(encoded.len()),
                        "{text}"
                    );
                    agrees(&text);
                }
            }
            // Refused: a short escape of a control character written long, a lone
            // surrogate, uppercase hex, a raw control byte, a raw non-ASCII character.
            for bad in [
                "\\u000a", "\\ud800x", "\\u00E9", "\u{1}", "\u{e9}", "\\ude00",
            ] {
                let text = format!("[\"{}\\n{bad}\\n\"]", "a".repeat(run));
                assert_eq!(canonical_value_len(text.as_bytes(), 0), None, "{text}");
                agrees(&text);
            }
            // Bytes that are not UTF-8, or not all of a character, anywhere in a run.
            for bad in [
                &[0xC3u8][..],
                &[0xFF],
                &[0xE4, 0xB8],
                &[0xED, 0xA0, 0x80],
                &[0x80],
            ] {
                let mut bytes = format!("[\"{}", "a".repeat(run)).into_bytes();
                bytes.extend_from_slice(bad);
                bytes.extend_from_slice(b"\\n\"]");
                assert_eq!(canonical_value_len(&bytes, 0), None, "{bytes:?}");
            }
        }
    }

    /// The table's answer on every escape is that of the writer's own check.
    #[test]
    fn unicode_escapes_are_told_as_the_writer_tells_them() {
        for code in 0..=0xFFFFu32 {
            for next in [String::new(), "\\udc00".to_owned(), "\\ud800".to_owned()] {
                let text = format!("\\u{code:04x}{next}");
                let bytes = text.as_bytes();
                assert_eq!(
                    unicode_escape_len(bytes, 0),
                    canonical_escape_len_at(bytes, 0),
                    "{text}"
                );
            }
            let upper = format!("\\u{code:04X}");
            if upper.bytes().any(|b| b.is_ascii_uppercase() && b != b'U') {
                assert_eq!(unicode_escape_len(upper.as_bytes(), 0), 0, "{upper}");
            }
        }
    }

    proptest! {
        /// Over arbitrary JSON-ish text, and the canonical encodings of values, the
        /// checker accepts exactly the texts that are their own canonical encoding.
        #[test]
        fn agrees_with_parse_and_encode(text in r#"[\[\]{}",:a-c0-9.eE+\- \\u\x00-\x7f\u{e9}]{0,40}"#) {
            agrees(&text);
            if let Ok(value) = parse(&text) {
                let canonical = canonical::encode(&value);
                let len = canonical_value_len(&canonical, 0);
                prop_assert_eq!(len, Some(canonical.len()), "{}", String::from_utf8_lossy(&canonical));
            }
        }
    }
}
