//! The detectors chosen for a tool, combined into one scanner, and the scan of a
//! response: the first pass rules most responses out; the strings of the others are
//! read one by one with the full patterns and checks.

use regex::{RegexSet, RegexSetBuilder};

use super::catalog::{Catalog, regex_error};
use super::prefilter::{FirstPass, FirstPassText, plain_ascii};
use super::{BUILTINS, DFA_SIZE_LIMIT, SET_SIZE_LIMIT};
use crate::policy::pointer::push_token;

/// Detectors chosen for a tool, combined into one pass over each string.
#[derive(Debug)]
pub struct Scanner {
    set: RegexSet,
    /// The same prefilters, for the first pass over the joined strings.
    pub(super) first: FirstPass,
    /// Detector indices by slot of `set`, in name order.
    members: Vec<usize>,
    min_len: usize,
    assignment: Option<usize>,
    /// Whether a first pass over all strings at once may rule a response out: not
    /// when a user pattern has anchors, which a joined text would change.
    joinable: bool,
    /// Whether a first pass over the canonical JSON may rule a response out before
    /// its strings are decoded: when it is joinable and every user pattern is
    /// [`plain_ascii`].
    pub(super) canonical_first: bool,
}

/// A detector that matched in a response: where, and which.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The JSON pointer of the string (RFC 6901), or of the object whose key it is.
    pub pointer: String,
    /// Whether the match is in a key of that object rather than in a string value.
    pub in_key: bool,
    /// The detector's index in the catalog.
    pub detector: usize,
}

impl Scanner {
    /// A scanner for the detectors `chosen` of `catalog` (indices; duplicates are
    /// ignored).
    pub fn new(catalog: &Catalog, chosen: &[usize]) -> Result<Scanner, String> {
        let mut members: Vec<usize> = chosen.to_vec();
        members.sort_by(|&a, &b| catalog.name(a).cmp(catalog.name(b)));
        members.dedup();
        let set = RegexSetBuilder::new(members.iter().map(|&i| catalog.prefilter(i)))
            .size_limit(SET_SIZE_LIMIT)
            .dfa_size_limit(DFA_SIZE_LIMIT)
            .build()
            .map_err(|err| regex_error(&err))?;
        let first = FirstPass::new(catalog, &members)?;
        let min_len = members
            .iter()
            .map(|&i| catalog.min_len(i))
            .min()
            .unwrap_or(usize::MAX);
        let assignment = catalog.assignment().filter(|a| members.contains(a));
        let joinable = members.iter().all(|&i| {
            let prefilter = catalog.prefilter(i);
            catalog.has_check(i)
                || !prefilter.contains(['^', '$'])
                    && !prefilter.contains("\\A")
                    && !prefilter.contains("\\z")
        });
        let canonical_first = joinable
            && members
                .iter()
                .all(|&i| i < BUILTINS.len() || plain_ascii(catalog.prefilter(i)));
        Ok(Scanner {
            set,
            first,
            members,
            min_len,
            assignment,
            joinable,
            canonical_first,
        })
    }

    /// The detectors that match `text`, in name order.
    fn scan_str(&self, catalog: &Catalog, text: &str, found: &mut Vec<usize>) {
        if text.len() < self.min_len {
            return;
        }
        for slot in self.set.matches(text).iter() {
            let detector = self.members[slot];
            if catalog.confirm(detector, text) {
                found.push(detector);
            }
        }
    }

    /// Every hit in the canonical encoding `canonical` of a value, in its order
    /// (members by key, each key before its value), and by detector name on one
    /// string. Text that is not a canonical encoding gives what it gives, without
    /// panicking.
    pub fn scan(&self, catalog: &Catalog, canonical: &[u8]) -> Vec<Hit> {
        if self.joinable && !self.may_match(catalog, canonical) {
            return Vec::new();
        }
        self.walk(catalog, canonical)
    }

    /// Every hit in `canonical`, string by string, without a first pass.
    fn walk(&self, catalog: &Catalog, canonical: &[u8]) -> Vec<Hit> {
        let mut walk = Walk {
            scanner: self,
            catalog,
            bytes: canonical,
            pos: 0,
            pointer: String::new(),
            found: Vec::new(),
            text: String::new(),
            hits: Vec::new(),
        };
        walk.value(None, 0);
        walk.hits
    }
}

impl Scanner {
    /// Whether any string of `canonical` may hold a hit: every string, decoded, is
    /// joined into one text (each followed by a NUL byte) that the first pass reads
    /// for the prefilters, and the keys into another that the names of assignments
    /// are looked for in; where a prefilter matches, its detector's full pattern and
    /// check read the joined text (for the card, only the run it matched in). Most
    /// responses hold no hit, and for them this is all the work.
    fn may_match(&self, catalog: &Catalog, canonical: &[u8]) -> bool {
        JOINED.with(|joined| {
            let mut joined = joined.borrow_mut();
            let (text, keys, lower) = &mut *joined;
            if self.canonical_first && !self.canonical_may_match(catalog, canonical, lower) {
                if lower.capacity() > JOINED_KEPT {
                    *lower = Vec::new();
                }
                return false;
            }
            text.clear();
            keys.clear();
            let mut pos = 0;
            while let Some(at) = memchr::memchr(b'"', &canonical[pos..]) {
                pos += at + 1;
                let start = text.len();
                decode_into(canonical, &mut pos, text);
                text.push(0);
                if canonical.get(pos) == Some(&b':') {
                    keys.extend_from_slice(&text[start..]);
                }
            }
            let hit = self.assignment.is_some()
                && std::str::from_utf8(keys).map_or(true, |k| catalog.has_key_word(k))
                || self.first_pass(catalog, text, lower);
            if text.capacity() > JOINED_KEPT {
                *text = Vec::new();
            }
            if lower.capacity() > JOINED_KEPT {
                *lower = Vec::new();
            }
            hit
        })
    }

    /// Whether the first pass over the canonical JSON itself (see [`FirstPassText`]) may
    /// find a prefilter: when it does not, no string holds a hit, and none has to be
    /// decoded. `lower` is room for a copy.
    fn canonical_may_match(
        &self,
        catalog: &Catalog,
        canonical: &[u8],
        lower: &mut Vec<u8>,
    ) -> bool {
        let first = &self.first;
        lower.clear();
        if first.searches_literals() {
            lower.extend_from_slice(canonical);
            lower.make_ascii_lowercase();
        }
        let form = FirstPassText::Canonical {
            assignment: self.assignment,
        };
        // A run of digits is the same in the canonical JSON as in its string, with
        // the same byte before it, unless an escape ends just before it: then the
        // card's pattern and check can be confirmed on it here.
        let mut found = |detector, start: usize, end: usize| {
            if first.card != Some(detector)
                || canonical
                    .get(start.saturating_sub(6)..start)
                    .is_none_or(|before| before.contains(&b'\\'))
            {
                return true;
            }
            let from = start.saturating_sub(1);
            let upto = canonical.len().min(end + 1);
            canonical
                .get(from..upto)
                .and_then(|run| std::str::from_utf8(run).ok())
                .is_none_or(|run| catalog.confirm_within(detector, run, start - from, end - from))
        };
        if first.builtins(canonical, lower, form, &mut found) {
            return true;
        }
        if first.user_alone.is_empty() && first.user_joined.is_none() {
            return false;
        }
        let Ok(text) = std::str::from_utf8(canonical) else {
            return true;
        };
        first
            .user_alone
            .iter()
            .any(|&detector| catalog.confirm(detector, text))
            || first
                .user_joined
                .as_ref()
                .is_some_and(|(regex, _)| regex.is_match(canonical))
    }

    /// Whether a detector whose prefilter the first pass finds in `joined` (strings
    /// each followed by a NUL byte) matches there with its full pattern and check.
    /// No built-in pattern matches across a NUL byte, and a user pattern that does
    /// only costs a walk that finds nothing. `lower` is room for a copy.
    fn first_pass(&self, catalog: &Catalog, joined: &[u8], lower: &mut Vec<u8>) -> bool {
        let first = &self.first;
        lower.clear();
        if first.searches_literals() {
            lower.extend_from_slice(joined);
            lower.make_ascii_lowercase();
        }
        // The text is only needed, and checked, once a prefilter matches.
        let mut text = None;
        let mut text = || *text.get_or_insert_with(|| std::str::from_utf8(joined).ok());
        let builtin = first.builtins(
            joined,
            lower,
            FirstPassText::Joined,
            &mut |detector, start, end| {
                let Some(text) = text() else {
                    return true;
                };
                if first.card == Some(detector) {
                    catalog.confirm_within(detector, text, start, end)
                } else {
                    catalog.confirm(detector, text)
                }
            },
        );
        if builtin {
            return true;
        }
        if first.user_alone.is_empty() && first.user_joined.is_none() {
            return false;
        }
        let Some(text) = text() else {
            return true;
        };
        if first
            .user_alone
            .iter()
            .any(|&detector| catalog.confirm(detector, text))
        {
            return true;
        }
        let Some((regex, detectors)) = &first.user_joined else {
            return false;
        };
        let input = regex_automata::Input::new(text);
        if !regex.is_match(input.clone()) {
            return false;
        }
        let mut slots = regex_automata::PatternSet::new(detectors.len());
        regex.which_overlapping_matches(&input, &mut slots);
        slots
            .iter()
            .any(|slot| catalog.confirm(detectors[slot.as_usize()], text))
    }
}

thread_local! {
    /// The joined strings and keys of [`Scanner::may_match`], and the lower-cased
    /// copy of the strings, kept between calls.
    static JOINED: std::cell::RefCell<(Vec<u8>, Vec<u8>, Vec<u8>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

/// The largest joined text kept between responses.
const JOINED_KEPT: usize = 4 << 20;

/// Decodes the string of canonical JSON `bytes` whose text starts at `pos` (after
/// its opening quote) onto `out`, and leaves `pos` after its closing quote.
fn decode_into(bytes: &[u8], pos: &mut usize, out: &mut Vec<u8>) {
    let mut high: Option<u16> = None;
    loop {
        let rest = &bytes[(*pos).min(bytes.len())..];
        let Some(at) = memchr::memchr2(b'"', b'\\', rest) else {
            out.extend_from_slice(rest);
            *pos = bytes.len();
            return;
        };
        out.extend_from_slice(&rest[..at]);
        *pos += at + 1;
        if rest[at] == b'"' {
            return;
        }
        let escape = bytes.get(*pos).copied();
        *pos += 1;
        let decoded = match escape {
            Some(b'u') => {
                let unit = bytes
                    .get(*pos..*pos + 4)
                    .and_then(|hex| std::str::from_utf8(hex).ok())
                    .and_then(|hex| u16::from_str_radix(hex, 16).ok())
                    .unwrap_or(0xfffd);
                *pos += 4;
                match (high.take(), unit) {
                    (None, 0xd800..=0xdbff) => {
                        high = Some(unit);
                        continue;
                    }
                    (Some(high), 0xdc00..=0xdfff) => char::from_u32(
                        0x10000 + ((u32::from(high) - 0xd800) << 10) + (u32::from(unit) - 0xdc00),
                    ),
                    (_, unit) => char::from_u32(u32::from(unit)),
                }
            }
            Some(b'n') => Some('\n'),
            Some(b'r') => Some('\r'),
            Some(b't') => Some('\t'),
            Some(b'b') => Some('\u{8}'),
            Some(b'f') => Some('\u{c}'),
            Some(other) => Some(char::from(other)),
            None => None,
        };
        let c = decoded.unwrap_or('\u{fffd}');
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }
}

/// A walk over a canonical encoding: only strings are decoded, into a kept buffer
/// unless they hold no escape, so no tree is built.
struct Walk<'a> {
    scanner: &'a Scanner,
    catalog: &'a Catalog,
    bytes: &'a [u8],
    pos: usize,
    /// The JSON pointer of the value being read.
    pointer: String,
    found: Vec<usize>,
    /// The decoded string value, when it held escapes.
    text: String,
    hits: Vec<Hit>,
}

impl Walk<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn value(&mut self, key: Option<&str>, depth: usize) {
        if depth > crate::json::MAX_DEPTH {
            self.pos = self.bytes.len();
            return;
        }
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                    return;
                }
                while self.peek() == Some(b'"') {
                    let mut name = String::new();
                    let borrowed = self.string(&mut name);
                    let name = match borrowed {
                        Some((start, end)) => std::str::from_utf8(&self.bytes[start..end])
                            .unwrap_or("")
                            .to_owned(),
                        None => name,
                    };
                    self.scan_str(&name, true, None);
                    self.pos += 1; // `:`
                    let len = self.pointer.len();
                    push_token(&mut self.pointer, &name);
                    self.value(Some(&name), depth + 1);
                    self.pointer.truncate(len);
                    if self.peek() == Some(b',') {
                        self.pos += 1;
                    }
                }
                self.pos += 1; // `}`
            }
            Some(b'[') => {
                self.pos += 1;
                let mut i = 0usize;
                while let Some(b) = self.peek()
                    && b != b']'
                {
                    let len = self.pointer.len();
                    self.pointer.push('/');
                    self.pointer.push_str(&i.to_string());
                    self.value(None, depth + 1);
                    self.pointer.truncate(len);
                    i += 1;
                    if self.peek() == Some(b',') {
                        self.pos += 1;
                    } else if self.peek() != Some(b']') {
                        self.pos = self.bytes.len();
                    }
                }
                self.pos += 1; // `]`
            }
            Some(b'"') => {
                let mut text = std::mem::take(&mut self.text);
                text.clear();
                match self.string(&mut text) {
                    Some((start, end)) => {
                        let bytes = self.bytes;
                        let raw = std::str::from_utf8(&bytes[start..end]).unwrap_or("");
                        self.scan_str(raw, false, key);
                    }
                    None => self.scan_str(&text, false, key),
                }
                self.text = text;
            }
            Some(_) => {
                // A number, `true`, `false` or `null`: up to the next delimiter.
                let rest = &self.bytes[self.pos..];
                self.pos += rest
                    .iter()
                    .position(|b| matches!(b, b',' | b']' | b'}'))
                    .unwrap_or(rest.len());
            }
            None => {}
        }
    }

    /// Reads the string at `pos`: gives its bytes' range when it holds no escape,
    /// otherwise decodes it into `out` and gives `None`.
    fn string(&mut self, out: &mut String) -> Option<(usize, usize)> {
        self.pos += 1;
        let start = self.pos;
        let rest = &self.bytes[start..];
        match memchr::memchr2(b'"', b'\\', rest) {
            Some(at) if rest[at] == b'"' => {
                self.pos = start + at + 1;
                return Some((start, start + at));
            }
            None => {
                self.pos = self.bytes.len();
                return Some((start, self.bytes.len()));
            }
            Some(_) => {}
        }
        let mut bytes = std::mem::take(out).into_bytes();
        bytes.clear();
        decode_into(self.bytes, &mut self.pos, &mut bytes);
        *out = String::from_utf8(bytes).unwrap_or_default();
        None
    }

    /// Scans one string: a key (reported at the pointer of its object) or a value
    /// (at its own pointer; `key` is the name of its member, if any).
    fn scan_str(&mut self, text: &str, in_key: bool, key: Option<&str>) {
        let (scanner, catalog) = (self.scanner, self.catalog);
        self.found.clear();
        scanner.scan_str(catalog, text, &mut self.found);
        if !in_key
            && let (Some(assignment), Some(key)) = (scanner.assignment, key)
            && !self.found.contains(&assignment)
            && catalog.assigned(key, text)
        {
            self.found.push(assignment);
            self.found
                .sort_by(|&a, &b| catalog.name(a).cmp(catalog.name(b)));
        }
        for &detector in &self.found {
            self.hits.push(Hit {
                pointer: self.pointer.clone(),
                in_key,
                detector,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{USERS, text};
    use super::super::prefilter::KeyEnd;
    use super::{Catalog, Scanner};
    use crate::json;
    use proptest::prelude::*;

    fn hits(names: &[&str], response: &str) -> Vec<(String, bool, String)> {
        let catalog = Catalog::new(&[("ticket".to_owned(), "TICKET-[0-9]{4}".to_owned())]).unwrap();
        let chosen: Vec<usize> = names.iter().map(|n| catalog.find(n).unwrap()).collect();
        let scanner = Scanner::new(&catalog, &chosen).unwrap();
        let canonical = crate::canonical::encode(&json::parse(response).unwrap());
        scanner
            .scan(&catalog, &canonical)
            .into_iter()
            .map(|h| (h.pointer, h.in_key, catalog.name(h.detector).to_owned()))
            .collect()
    }

    fn all() -> Vec<&'static str> {
        super::super::builtin_names().map(|(n, _)| n).collect()
    }

    fn found(response: &str) -> Vec<String> {
        hits(&all(), response).into_iter().map(|h| h.2).collect()
    }

    #[test]
    fn secrets_are_found_and_near_misses_are_not() {
        assert_eq!(
            found(r#"{"t": "key AKIAIOSFODNN7EXAMPLE here"}"#),
            ["aws-access-key-id"]
        );
        assert!(found(r#"{"t": "AKIAIOSFODNN7EXAMPL"}"#).is_empty());
        assert_eq!(
            found(r#"{"t": "-----BEGIN RSA PRIVATE KEY-----\nMII"}"#),
            ["private-key"]
        );
        assert!(found(r#"{"t": "-----BEGIN PUBLIC KEY-----"}"#).is_empty());
        let ghp = format!("ghp_{}", "a1B2".repeat(9));
        assert_eq!(found(&format!(r#"{{"t": "{ghp}"}}"#)), ["github-token"]);
        assert!(found(&format!(r#"{{"t": "{}"}}"#, &ghp[..39])).is_empty());
        assert_eq!(
            found(r#"{"t": "glpat-abcdefghij0123456789"}"#),
            ["gitlab-token"]
        );
        assert_eq!(found(r#"{"t": "xoxb-1234567890-abcdef"}"#), ["slack-token"]);
        assert_eq!(
            found(r#"{"t": "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc"}"#),
            ["bearer-token"]
        );
        assert!(found(r#"{"t": "the bearer of good news arrived yesterday"}"#).is_empty());
        assert_eq!(
            found(r#"{"t": "api_key = \"q8Zr2Lw9Xv4Tn7Bk1Ms5\""}"#),
            ["high-entropy-assignment"]
        );
        assert!(found(r#"{"t": "api_key = \"aaaaaaaaaaaaaaaaaaaa1\""}"#).is_empty());
        assert_eq!(
            hits(
                &["high-entropy-assignment"],
                r#"{"client_secret": "q8Zr2Lw9Xv4Tn7Bk1Ms5"}"#
            ),
            [(
                "/client_secret".to_owned(),
                false,
                "high-entropy-assignment".to_owned()
            )]
        );
        assert!(
            hits(
                &["high-entropy-assignment"],
                r#"{"name": "q8Zr2Lw9Xv4Tn7Bk1Ms5"}"#
            )
            .is_empty()
        );
    }

    #[test]
    fn personal_data_is_found_and_near_misses_are_not() {
        assert_eq!(
            found(r#"{"t": "mail ana.b+x@mail.example.org."}"#),
            ["email-address"]
        );
        for miss in [
            "user@localhost",
            "a@b.c",
            "@example.com",
            "x@@example",
            "v1.2@3",
        ] {
            assert!(found(&format!(r#"{{"t": "{miss}"}}"#)).is_empty(), "{miss}");
        }
        assert_eq!(
            found(r#"{"t": "card 4111 1111 1111 1111 ok"}"#),
            ["payment-card"]
        );
        assert_eq!(found(r#"{"t": "5555-5555-5555-4444"}"#), ["payment-card"]);
        assert!(found(r#"{"t": "card 4111 1111 1111 1112"}"#).is_empty());
        assert!(found(r#"{"t": "4111-1111 1111-1111"}"#).is_empty());
        assert!(found(r#"{"t": "id 1234567812345670"}"#).is_empty());
        assert_eq!(
            found(r#"{"t": "call +44 20 7946 0958 now"}"#),
            ["phone-number"]
        );
        assert_eq!(found(r#"{"t": "(415) 555-2671"}"#), ["phone-number"]);
        assert!(found(r#"{"t": "v+1.2.3 build 2024-06-12"}"#).is_empty());
        assert!(found(r#"{"t": "+12 34"}"#).is_empty());
    }

    #[test]
    fn keys_and_pointers() {
        assert_eq!(
            hits(
                &["email-address", "ticket"],
                r#"{"a/b": [{"ann@example.com": "TICKET-1234"}]}"#
            ),
            [
                ("/a~1b/0".to_owned(), true, "email-address".to_owned()),
                (
                    "/a~1b/0/ann@example.com".to_owned(),
                    false,
                    "ticket".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn escapes_are_decoded_before_matching() {
        // `\n` is a line break, not the letter n, so the key id starts a word.
        assert_eq!(
            found(r#"{"t": "x\nAKIAIOSFODNN7EXAMPLE \u00e9\ud83d\ude00"}"#),
            ["aws-access-key-id"]
        );
        assert_eq!(
            hits(
                &["email-address"],
                r#"{"k\"ey": ["caf\u00e9", "\"ana@example.com\""]}"#
            ),
            [("/k\"ey/1".to_owned(), false, "email-address".to_owned())]
        );
    }

    #[test]
    fn anchored_user_patterns_hold_on_every_string() {
        let catalog = Catalog::new(&[
            ("start".to_owned(), "^TICKET".to_owned()),
            ("end".to_owned(), "[0-9]$".to_owned()),
        ])
        .unwrap();
        let chosen = [catalog.find("start").unwrap(), catalog.find("end").unwrap()];
        let scanner = Scanner::new(&catalog, &chosen).unwrap();
        assert!(!scanner.joinable);
        let canonical =
            crate::canonical::encode(&json::parse(r#"{"a": "x", "b": "TICKET 7"}"#).unwrap());
        let names: Vec<&str> = scanner
            .scan(&catalog, &canonical)
            .iter()
            .map(|h| catalog.name(h.detector))
            .collect();
        assert_eq!(names, ["end", "start"]);
    }

    #[test]
    fn user_patterns_with_a_literal_run_alone() {
        let catalog = Catalog::new(&[
            ("ticket".to_owned(), "TICKET-[0-9]{6}".to_owned()),
            ("short".to_owned(), "[0-9]{3}z".to_owned()),
            ("host".to_owned(), r"[a-z0-9-]+\.corp\.internal".to_owned()),
        ])
        .unwrap();
        let chosen: Vec<usize> = ["ticket", "short", "host"]
            .iter()
            .map(|n| catalog.find(n).unwrap())
            .collect();
        let scanner = Scanner::new(&catalog, &chosen).unwrap();
        assert_eq!(scanner.first.user_alone.len(), 2);
        for (response, name) in [
            (r#"{"a": "TICKET-123456"}"#, Some("ticket")),
            (r#"{"a": ["x", "a 123z"]}"#, Some("short")),
            (r#"{"a": "db-1.corp.internal"}"#, Some("host")),
            (r#"{"a": "TICKET-12345 123 z .corp.internal"}"#, None),
        ] {
            let canonical = crate::canonical::encode(&json::parse(response).unwrap());
            let names: Vec<&str> = scanner
                .scan(&catalog, &canonical)
                .iter()
                .map(|h| catalog.name(h.detector))
                .collect();
            assert_eq!(names, name.into_iter().collect::<Vec<_>>(), "{response}");
        }
    }

    /// Escaped text after a literal, and names of secrets in keys, are read in the
    /// canonical JSON as in the decoded strings.
    #[test]
    fn the_canonical_first_pass_reads_escapes_and_keys() {
        let (catalog, scanner) = &*USERS;
        for (response, hit) in [
            (
                r#"{"a":"Authorization: Bearer\tq8Zr2Lw9Xv4Tn7Bk.abcdefghij"}"#,
                true,
            ),
            (r#"{"a":"token\": \"q8Zr2Lw9Xv4Tn7Bkq8Zr2Lw9"}"#, true),
            (
                r#"{"a":"x","client_secret":"q8Zr2Lw9Xv4Tn7Bkq8Zr2Lw9"}"#,
                true,
            ),
            (
                r#"{"a":"a \"quoted\" token","my\"token":"q8Zr2Lw9Xv4Tn7Bkq8Zr2Lw9"}"#,
                true,
            ),
            (r#"{"a\\":"token","b":"q8Zr2Lw9Xv4Tn7Bkq8Zr2Lw9"}"#, false),
            // A card number after an escape, or right after a letter.
            (r#"{"a":"line\n4111111111111111"}"#, true),
            (r#"{"a":"\u00e94111 1111 1111 1111"}"#, true),
            (r#"{"a":"\"4111-1111-1111-1111\""}"#, true),
            (r#"{"a":"x4111111111111111"}"#, false),
            (r#"{"a":"4111111111111112"}"#, false),
        ] {
            let canonical = crate::canonical::encode(&json::parse(response).unwrap());
            let hits = scanner.walk(catalog, &canonical);
            assert_eq!(!hits.is_empty(), hit, "{response}");
            assert_eq!(scanner.scan(catalog, &canonical), hits, "{response}");
        }
        let mut key_end = KeyEnd::default();
        let text = br#"{"a\"token\\":"token","b":"x\\\"token"}"#;
        let at = |from: usize| from + text[from..].windows(5).position(|w| w == b"token").unwrap();
        let first = at(0);
        let second = at(first + 1);
        let third = at(second + 1);
        assert!(key_end.in_key(text, first));
        assert!(!key_end.in_key(text, second));
        assert!(!key_end.in_key(text, third));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn first_pass_never_loses_a_hit(strings in prop::collection::vec(text(), 1..4)) {
            let (catalog, scanner) = &*USERS;
            // Members keyed by the strings too, one by a secret's name.
            let mut members: Vec<(String, json::Value)> = strings
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let key = if i == 1 { "api_key".to_owned() } else { s.clone() };
                    (key, json::Value::Str(s.clone()))
                })
                .collect();
            members.sort_by(|a, b| a.0.cmp(&b.0));
            members.dedup_by(|a, b| a.0 == b.0);
            let value = json::Value::Object(members);
            let canonical = crate::canonical::encode(&value);
            let hits = scanner.walk(catalog, &canonical);
            prop_assert_eq!(scanner.scan(catalog, &canonical), hits.clone());
            if !hits.is_empty() {
                prop_assert!(scanner.may_match(catalog, &canonical));
            }
        }
    }
}
