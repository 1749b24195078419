//! Response detectors: secrets and personal data in the strings of a response.
//!
//! The built-in detectors follow the well-known patterns of established secret
//! scanners, each written here as a regular expression for the linear-time `regex`
//! engine, some followed by a check of what matched (Luhn for card numbers, Shannon
//! entropy for assignments, digit counts for phone numbers). A scanner combines cheap
//! prefilters of the detectors chosen for a tool (a literal prefix and little more,
//! each matching wherever its detector can) into one `RegexSet`, so a string is read
//! once whatever their number, and only the detectors whose prefilter matched read it
//! again with their full pattern and check.

use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};

use super::pointer::push_token;

/// The longest user pattern accepted, in bytes.
pub const MAX_PATTERN_BYTES: usize = 4096;
/// The most user detectors a policy may declare.
pub const MAX_CUSTOM_DETECTORS: usize = 64;
/// The compiled-size limit of one user pattern, in bytes.
const PATTERN_SIZE_LIMIT: usize = 1 << 20;
/// The size limit of a compiled scanner (all its patterns), in bytes.
const SET_SIZE_LIMIT: usize = 16 << 20;
/// The lazy-DFA cache of one pattern or scanner, in bytes.
const DFA_SIZE_LIMIT: usize = 2 << 20;
/// The entropy in bits per character from which an assigned value is a secret.
pub const ENTROPY_THRESHOLD: f64 = 3.5;
/// The shortest assigned value considered, in characters.
const MIN_ASSIGNED: usize = 16;

/// Which family a built-in detector belongs to: each is also a name for them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// `secrets`.
    Secrets,
    /// `personal-data`.
    PersonalData,
}

impl Group {
    /// The group's name in a policy.
    pub fn name(self) -> &'static str {
        match self {
            Group::Secrets => "secrets",
            Group::PersonalData => "personal-data",
        }
    }
}

/// A check of a candidate match: the haystack, and the start and end of the match
/// (of its group `v` when it has one).
type Check = fn(&str, usize, usize) -> bool;

struct Builtin {
    name: &'static str,
    group: Group,
    pattern: &'static str,
    /// A cheap pattern that matches wherever `pattern` does (and more): what the
    /// combined pass looks for, before `pattern` confirms.
    prefilter: &'static str,
    check: Option<Check>,
    /// The shortest text it can match, in bytes.
    min_len: usize,
}

/// The names a secret is assigned to (as in `api_key = "..."`), for keys of members.
const KEY_WORDS: &str = r"(?i-u:api[_-]?key|apikey|secret|token|passw(?:or)?d|pwd|access[_-]?key|client[_-]?secret|auth[_-]?token|credential)";

/// The built-in detectors, by name.
const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "aws-access-key-id",
        prefilter: r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]",
        group: Group::Secrets,
        pattern: r"(?-u:\b)(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?-u:\b)",
        check: None,
        min_len: 20,
    },
    Builtin {
        name: "bearer-token",
        prefilter: r"(?i-u:bearer)[ \t]",
        group: Group::Secrets,
        pattern: r"(?-u:\b)(?i-u:bearer)[ \t]+(?P<v>[A-Za-z0-9._~+/-]{20,}=*)",
        check: Some(has_digit_and_letter_check),
        min_len: 27,
    },
    Builtin {
        name: "email-address",
        prefilter: r"[A-Za-z0-9._%+-]@[A-Za-z0-9]",
        group: Group::PersonalData,
        pattern: r"[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?-u:\b)",
        check: Some(email_check),
        min_len: 6,
    },
    Builtin {
        name: "github-token",
        prefilter: r"gh[pousr]_[A-Za-z0-9]|github_pat_",
        group: Group::Secrets,
        pattern: r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{82})(?-u:\b)",
        check: None,
        min_len: 40,
    },
    Builtin {
        name: "gitlab-token",
        prefilter: r"glpat-",
        group: Group::Secrets,
        pattern: r"(?-u:\b)glpat-[A-Za-z0-9_-]{20}",
        check: None,
        min_len: 26,
    },
    Builtin {
        name: "google-api-key",
        prefilter: r"AIza[0-9A-Za-z_-]",
        group: Group::Secrets,
        pattern: r"(?-u:\b)AIza[0-9A-Za-z_-]{35}",
        check: None,
        min_len: 39,
    },
    Builtin {
        name: "high-entropy-assignment",
        prefilter: r#"(?i-u:api[_-]?key|apikey|secret|token|passw(?:or)?d|pwd|access[_-]?key|client[_-]?secret|auth[_-]?token|credential)[A-Za-z0-9_-]{0,16}["']?[ \t]*(?::|=|:=|=>)[ \t]*["']?[A-Za-z0-9_+/=.~-]{16}"#,
        group: Group::Secrets,
        pattern: r#"(?i-u:api[_-]?key|apikey|secret|token|passw(?:or)?d|pwd|access[_-]?key|client[_-]?secret|auth[_-]?token|credential)[A-Za-z0-9_-]{0,16}["']?[ \t]*(?::|=|:=|=>)[ \t]*["']?(?P<v>[A-Za-z0-9_+/=.~-]{16,})"#,
        check: Some(high_entropy),
        min_len: 20,
    },
    Builtin {
        name: "payment-card",
        prefilter: r"[0-9](?:[ -]?[0-9]){12}",
        group: Group::PersonalData,
        pattern: r"(?-u:\b)(?:[0-9][ -]?){12,18}[0-9](?-u:\b)",
        check: Some(card_check),
        min_len: 13,
    },
    Builtin {
        name: "phone-number",
        prefilter: r"\+[1-9]|\(?[2-9][0-9]{2}\)?[ .-]?[2-9][0-9]{2}[ .-][0-9]{4}",
        group: Group::PersonalData,
        pattern: r"\+[1-9][0-9]{0,3}(?:[ .-]?\(?[0-9]{1,4}\)?){1,5}[ .-]?[0-9]{2,6}(?-u:\b)|\(?[2-9][0-9]{2}\)?[ .-]?[2-9][0-9]{2}[ .-][0-9]{4}(?-u:\b)",
        check: Some(phone_check),
        min_len: 9,
    },
    Builtin {
        name: "private-key",
        prefilter: r"-----BEGIN",
        group: Group::Secrets,
        pattern: r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----",
        check: None,
        min_len: 31,
    },
    Builtin {
        name: "slack-token",
        prefilter: r"xox[abposr]-|hooks\.slack\.com/(?:services|workflows)/",
        group: Group::Secrets,
        pattern: r"(?-u:\b)xox[abposr]-[A-Za-z0-9-]{10,}|hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/]{20,}",
        check: None,
        min_len: 15,
    },
];

/// The names of the built-in detectors, sorted.
pub fn builtin_names() -> impl Iterator<Item = (&'static str, Group)> {
    BUILTINS.iter().map(|b| (b.name, b.group))
}

/// Shannon entropy of `text`'s bytes, in bits per byte.
pub fn entropy(text: &str) -> f64 {
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
pub fn luhn(digits: &[u8]) -> bool {
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

fn high_entropy(hay: &str, start: usize, end: usize) -> bool {
    let value = &hay[start..end];
    value.len() >= MIN_ASSIGNED
        && has_digit_and_letter(value)
        && entropy(value) >= ENTROPY_THRESHOLD
}

fn has_digit_and_letter_check(hay: &str, start: usize, end: usize) -> bool {
    has_digit_and_letter(&hay[start..end])
}

/// The byte before `start`, if any.
fn before(hay: &str, start: usize) -> Option<u8> {
    start.checked_sub(1).map(|i| hay.as_bytes()[i])
}

fn email_check(hay: &str, start: usize, _end: usize) -> bool {
    // The local part must not start right after another `@` or a dot-atom continuing
    // it: the match already takes the longest local part, so only `@` is left.
    before(hay, start) != Some(b'@')
}

fn card_check(hay: &str, start: usize, end: usize) -> bool {
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

fn phone_check(hay: &str, start: usize, end: usize) -> bool {
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

/// One detector, compiled.
#[derive(Debug)]
struct Detector {
    name: String,
    /// What the scanner's combined pass looks for: the built-ins' prefilter, the
    /// whole pattern of a user detector.
    prefilter: String,
    regex: Regex,
    check: Option<Check>,
    min_len: usize,
}

/// Every detector a policy can use, compiled once: the built-ins, then the user's.
#[derive(Debug)]
pub struct Library {
    detectors: Vec<Detector>,
    assignment: Option<usize>,
    key_words: Regex,
    assigned_value: Regex,
}

impl Library {
    /// The built-ins and the user detectors `custom` (name, pattern). The error is
    /// the index in `custom` of the first bad detector and what is wrong with it.
    pub fn new(custom: &[(String, String)]) -> Result<Library, (usize, String)> {
        let mut detectors = Vec::with_capacity(BUILTINS.len() + custom.len());
        for builtin in BUILTINS {
            let regex =
                Regex::new(builtin.pattern).map_err(|err| (usize::MAX, regex_error(&err)))?;
            detectors.push(Detector {
                name: builtin.name.to_owned(),
                prefilter: builtin.prefilter.to_owned(),
                regex,
                check: builtin.check,
                min_len: builtin.min_len,
            });
        }
        for (i, (name, pattern)) in custom.iter().enumerate() {
            if pattern.len() > MAX_PATTERN_BYTES {
                return Err((i, format!("pattern longer than {MAX_PATTERN_BYTES} bytes")));
            }
            let regex = RegexBuilder::new(pattern)
                .size_limit(PATTERN_SIZE_LIMIT)
                .dfa_size_limit(DFA_SIZE_LIMIT)
                .build()
                .map_err(|err| (i, format!("invalid regex: {}", regex_error(&err))))?;
            if regex.is_match("") {
                return Err((i, "pattern matches the empty string".to_owned()));
            }
            detectors.push(Detector {
                name: name.clone(),
                prefilter: pattern.clone(),
                regex,
                check: None,
                min_len: 1,
            });
        }
        let assignment = detectors
            .iter()
            .position(|d| d.name == "high-entropy-assignment");
        let key_words = Regex::new(KEY_WORDS).map_err(|err| (usize::MAX, regex_error(&err)))?;
        let assigned_value =
            Regex::new(r"^[A-Za-z0-9_+/=.~-]+$").map_err(|err| (usize::MAX, regex_error(&err)))?;
        Ok(Library {
            detectors,
            assignment,
            key_words,
            assigned_value,
        })
    }

    /// The index of the detector named `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.detectors.iter().position(|d| d.name == name)
    }

    /// The indices of the built-in detectors of `group`.
    pub fn group(&self, group: Group) -> Vec<usize> {
        BUILTINS
            .iter()
            .enumerate()
            .filter(|(_, b)| b.group == group)
            .map(|(i, _)| i)
            .collect()
    }

    /// The name of detector `index`.
    pub fn name(&self, index: usize) -> &str {
        &self.detectors[index].name
    }

    /// A scanner for the detectors `chosen` (indices; duplicates are ignored).
    pub fn scanner(&self, chosen: &[usize]) -> Result<Scanner, String> {
        let mut members: Vec<usize> = chosen.to_vec();
        members.sort_by(|&a, &b| self.detectors[a].name.cmp(&self.detectors[b].name));
        members.dedup();
        let set = RegexSetBuilder::new(members.iter().map(|&i| &self.detectors[i].prefilter))
            .size_limit(SET_SIZE_LIMIT)
            .dfa_size_limit(DFA_SIZE_LIMIT)
            .build()
            .map_err(|err| regex_error(&err))?;
        let joined = regex_automata::meta::Regex::builder()
            .configure(
                regex_automata::meta::Config::new()
                    .auto_prefilter(false)
                    .nfa_size_limit(Some(SET_SIZE_LIMIT))
                    .hybrid_cache_capacity(DFA_SIZE_LIMIT),
            )
            .build_many(
                &members
                    .iter()
                    .map(|&i| self.detectors[i].prefilter.as_str())
                    .collect::<Vec<_>>(),
            )
            .map_err(|err| one_line(&err.to_string()))?;
        let min_len = members
            .iter()
            .map(|&i| self.detectors[i].min_len)
            .min()
            .unwrap_or(usize::MAX);
        let assignment = self.assignment.filter(|a| members.contains(a));
        let joinable = members.iter().all(|&i| {
            let d = &self.detectors[i];
            d.check.is_some()
                || !d.prefilter.contains(['^', '$'])
                    && !d.prefilter.contains("\\A")
                    && !d.prefilter.contains("\\z")
        });
        Ok(Scanner {
            set,
            joined,
            members,
            min_len,
            assignment,
            joinable,
        })
    }

    /// Whether detector `index`, whose prefilter matched somewhere in `text`,
    /// matches there and its check holds on a match.
    fn confirm(&self, index: usize, text: &str) -> bool {
        let detector = &self.detectors[index];
        let Some(check) = detector.check else {
            return detector.regex.is_match(text);
        };
        detector.regex.captures_iter(text).any(|caps| {
            caps.name("v")
                .or_else(|| caps.get(0))
                .is_some_and(|m| check(text, m.start(), m.end()))
        })
    }

    /// Whether the string `value` of the member named `key` is a high-entropy secret
    /// assigned to a secret-like name.
    fn assigned(&self, key: &str, value: &str) -> bool {
        value.len() >= MIN_ASSIGNED
            && self.assigned_value.is_match(value)
            && self.key_words.is_match(key)
            && high_entropy(value, 0, value.len())
    }
}

/// `text` on one line.
fn one_line(text: &str) -> String {
    text.lines().map(str::trim).collect::<Vec<_>>().join(" ")
}

/// A regex error on one line: its last line, without the `error: ` of syntax errors.
fn regex_error(err: &regex::Error) -> String {
    match err {
        regex::Error::CompiledTooBig(limit) => {
            format!("compiled pattern exceeds the size limit of {limit} bytes")
        }
        other => {
            let text = other.to_string();
            let last = text
                .lines()
                .map(str::trim)
                .rfind(|l| !l.is_empty())
                .unwrap_or("");
            last.strip_prefix("error: ").unwrap_or(last).to_owned()
        }
    }
}

/// Detectors chosen for a tool, combined into one pass over each string.
#[derive(Debug)]
pub struct Scanner {
    set: RegexSet,
    /// The same prefilters for the first pass over the joined strings: a lazy DFA
    /// alone, without the literal search the `regex` crate would put before it,
    /// which costs more than it saves where words like "token" are common.
    joined: regex_automata::meta::Regex,
    /// Detector indices by slot of `set`, in name order.
    members: Vec<usize>,
    min_len: usize,
    assignment: Option<usize>,
    /// Whether a first pass over all strings at once may rule a response out: not
    /// when a user pattern has anchors, which a joined text would change.
    joinable: bool,
}

/// A detector that matched in a response: where, and which.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The JSON pointer of the string (RFC 6901), or of the object whose key it is.
    pub pointer: String,
    /// Whether the match is in a key of that object rather than in a string value.
    pub in_key: bool,
    /// The detector's index in the library.
    pub detector: usize,
}

impl Scanner {
    /// The detectors that match `text`, in name order.
    fn scan_str(&self, library: &Library, text: &str, found: &mut Vec<usize>) {
        if text.len() < self.min_len {
            return;
        }
        for slot in self.set.matches(text).iter() {
            let detector = self.members[slot];
            if library.confirm(detector, text) {
                found.push(detector);
            }
        }
    }

    /// Every hit in the canonical encoding `canonical` of a value, in its order
    /// (members by key, each key before its value), and by detector name on one
    /// string. Text that is not a canonical encoding gives what it gives, without
    /// panicking.
    pub fn scan(&self, library: &Library, canonical: &[u8]) -> Vec<Hit> {
        if self.joinable && !self.may_match(library, canonical) {
            return Vec::new();
        }
        let mut walk = Walk {
            scanner: self,
            library,
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
    /// joined into one text (each followed by a NUL byte) that the prefilters read
    /// in one pass, and the keys into another that the names of assignments are
    /// looked for in; where a prefilter matches, its detector's full pattern and
    /// check read the joined text. Most responses hold no hit, and for them this is
    /// all the work.
    fn may_match(&self, library: &Library, canonical: &[u8]) -> bool {
        JOINED.with(|joined| {
            let mut joined = joined.borrow_mut();
            let (text, keys) = &mut *joined;
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
                && std::str::from_utf8(keys).map_or(true, |k| library.key_words.is_match(k))
                || self.joined.is_match(text.as_slice()) && self.confirmed(library, text);
            if text.capacity() > JOINED_KEPT {
                *text = Vec::new();
            }
            hit
        })
    }
}

impl Scanner {
    /// Whether a detector whose prefilter matched in `joined` (strings each followed
    /// by a NUL byte) matches there with its full pattern and check. No built-in
    /// pattern matches across a NUL byte, and a user pattern that does only costs a
    /// walk that finds nothing.
    fn confirmed(&self, library: &Library, joined: &[u8]) -> bool {
        let Ok(text) = std::str::from_utf8(joined) else {
            return true;
        };
        let mut slots = regex_automata::PatternSet::new(self.members.len());
        self.joined
            .which_overlapping_matches(&regex_automata::Input::new(text), &mut slots);
        slots
            .iter()
            .any(|slot| library.confirm(self.members[slot.as_usize()], text))
    }
}

thread_local! {
    /// The joined strings and keys of [`Scanner::may_match`], kept between calls.
    static JOINED: std::cell::RefCell<(Vec<u8>, Vec<u8>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
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
    library: &'a Library,
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
        let (scanner, library) = (self.scanner, self.library);
        self.found.clear();
        scanner.scan_str(library, text, &mut self.found);
        if !in_key
            && let (Some(assignment), Some(key)) = (scanner.assignment, key)
            && !self.found.contains(&assignment)
            && library.assigned(key, text)
        {
            self.found.push(assignment);
            self.found
                .sort_by(|&a, &b| library.name(a).cmp(library.name(b)));
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
    use super::{Library, entropy, luhn};
    use crate::json;

    fn hits(names: &[&str], response: &str) -> Vec<(String, bool, String)> {
        let library = Library::new(&[("ticket".to_owned(), "TICKET-[0-9]{4}".to_owned())]).unwrap();
        let chosen: Vec<usize> = names.iter().map(|n| library.find(n).unwrap()).collect();
        let scanner = library.scanner(&chosen).unwrap();
        let canonical = crate::canonical::encode(&json::parse(response).unwrap());
        scanner
            .scan(&library, &canonical)
            .into_iter()
            .map(|h| (h.pointer, h.in_key, library.name(h.detector).to_owned()))
            .collect()
    }

    fn all() -> Vec<&'static str> {
        super::builtin_names().map(|(n, _)| n).collect()
    }

    fn found(response: &str) -> Vec<String> {
        hits(&all(), response).into_iter().map(|h| h.2).collect()
    }

    #[test]
    fn luhn_and_entropy() {
        assert!(luhn(b"4111111111111111"));
        assert!(!luhn(b"4111111111111112"));
        assert!(luhn(b"79927398713"));
        assert!(entropy("aaaaaaaa") < 0.01);
        assert!((entropy("abcd") - 2.0).abs() < 1e-9);
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
        let library = Library::new(&[
            ("start".to_owned(), "^TICKET".to_owned()),
            ("end".to_owned(), "[0-9]$".to_owned()),
        ])
        .unwrap();
        let chosen = [library.find("start").unwrap(), library.find("end").unwrap()];
        let scanner = library.scanner(&chosen).unwrap();
        assert!(!scanner.joinable);
        let canonical =
            crate::canonical::encode(&json::parse(r#"{"a": "x", "b": "TICKET 7"}"#).unwrap());
        let names: Vec<&str> = scanner
            .scan(&library, &canonical)
            .iter()
            .map(|h| library.name(h.detector))
            .collect();
        assert_eq!(names, ["end", "start"]);
    }

    #[test]
    fn bad_user_patterns_are_named() {
        let custom = |p: &str| Library::new(&[("x".to_owned(), p.to_owned())]).unwrap_err();
        assert_eq!(custom("a(").0, 0);
        assert!(
            custom("a(").1.starts_with("invalid regex: unclosed group"),
            "{}",
            custom("a(").1
        );
        assert!(custom("a*").1.contains("empty string"));
        assert!(custom("(?:a{1000}){1000}").1.contains("size limit"));
    }
}
