//! Response detectors: secrets and personal data in the strings of a response.
//!
//! The built-in detectors follow the well-known patterns of established secret
//! scanners, each written here as a regular expression for the linear-time `regex`
//! engine, some followed by a check of what matched (Luhn for card numbers, Shannon
//! entropy for assignments, digit counts for phone numbers). A scanner combines cheap
//! prefilters of the detectors chosen for a tool (a literal prefix and little more,
//! each matching wherever its detector can) into one `RegexSet`, so a string is read
//! once whatever their number, and only the detectors whose prefilter matched read it
//! again with their full pattern and check. Before that, a first pass over all the
//! strings of a response at once rules most responses out: it looks for the
//! built-ins' prefilters without a regex (byte loops, `memchr` and one search of
//! their literals), and runs regexes only for the user's detectors. It reads the
//! response's canonical JSON as it is first, which needs no decoding, whenever every
//! user pattern only matches printable ASCII (see `plain_ascii`); only a response
//! it cannot rule out has its strings decoded and joined for the exact pass.

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
    /// How the first pass over a response looks for `prefilter`, without a regex.
    quick: Quick,
}

/// What follows a literal in a prefilter: the text after the literal's match, and
/// the literal.
type Rest = fn(Cursor<'_>, &str) -> bool;

/// Reads a text from a position on, byte by byte: the joined strings as they are,
/// or the canonical JSON of a response decoded on the fly, where the string read
/// ends at its closing quote as a joined string ends at its NUL byte. A `\u`
/// escape (a control or non-ASCII character) reads as a NUL byte: no class a
/// prefilter looks for after a literal holds either.
#[derive(Debug, Clone, Copy)]
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    escaped: bool,
}

impl Cursor<'_> {
    /// Reads the next byte when it is one of `class`.
    fn eat(&mut self, class: impl Fn(u8) -> bool) -> bool {
        let mut next = *self;
        let eaten = next.next().is_some_and(class);
        if eaten {
            *self = next;
        }
        eaten
    }
}

impl Iterator for Cursor<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.pos)?;
        if !self.escaped || !matches!(b, b'"' | b'\\') {
            self.pos += 1;
            return Some(b);
        }
        if b == b'"' {
            return None;
        }
        let escape = *self.bytes.get(self.pos + 1)?;
        self.pos += 2;
        Some(match escape {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'u' => {
                self.pos += 4;
                0
            }
            other => other,
        })
    }
}

/// How the first pass looks for a built-in's prefilter: each kind costs far less
/// than a regex reading every byte, and says "maybe" wherever the prefilter matches.
#[derive(Debug, Clone, Copy)]
enum Quick {
    /// The prefilter starts with one of `words` (ASCII case ignored when `fold`,
    /// exact otherwise), and `rest` holds after it: what the literal search finds.
    Words {
        words: &'static [&'static str],
        fold: bool,
        rest: Rest,
    },
    /// `[A-Za-z0-9._%+-]@[A-Za-z0-9]`: around each `@`.
    Email,
    /// `[0-9](?:[ -]?[0-9]){12}`: in the runs of digits and separators.
    Card,
    /// `\+[1-9]` after each `+`, and the rest in the runs of digits and separators.
    Phone,
}

/// Literals of [`KEY_WORDS`] such that wherever a name of it matches, one of them
/// ends where the name does (`client_secret` ends with `secret`), so the
/// assignment's prefilter holds after it.
const KEY_WORD_LITERALS: &[&str] = &[
    "api_key",
    "api-key",
    "apikey",
    "secret",
    "token",
    "password",
    "passwd",
    "pwd",
    "access_key",
    "access-key",
    "accesskey",
    "credential",
];

/// Whether the byte at `at` of `hay` is one of `class`.
fn byte_in(hay: &[u8], at: usize, class: fn(u8) -> bool) -> bool {
    hay.get(at).is_some_and(|&b| class(b))
}

fn no_rest(_: Cursor<'_>, _: &str) -> bool {
    true
}

fn upper_or_base32(b: u8) -> bool {
    b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b)
}

/// `[A-Z2-7]`, after `[A-Z0-9]` when the literal is `A3T`.
fn aws_rest(mut rest: Cursor<'_>, word: &str) -> bool {
    (word != "A3T" || rest.eat(|b| b.is_ascii_uppercase() || b.is_ascii_digit()))
        && rest.eat(upper_or_base32)
}

fn blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `[ \t]`.
fn blank_rest(mut rest: Cursor<'_>, _: &str) -> bool {
    rest.eat(blank)
}

/// `[A-Za-z0-9]` after `gh?_`, nothing after `github_pat_`.
fn github_rest(mut rest: Cursor<'_>, word: &str) -> bool {
    word == "github_pat_" || rest.eat(|b| b.is_ascii_alphanumeric())
}

fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// `[0-9A-Za-z_-]`.
fn google_rest(mut rest: Cursor<'_>, _: &str) -> bool {
    rest.eat(name_byte)
}

fn value_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'/' | b'=' | b'.' | b'~' | b'-')
}

fn quote(b: u8) -> bool {
    b == b'"' || b == b'\''
}

/// `[A-Za-z0-9_-]{0,16}["']?[ \t]*(?::|=|:=|=>)[ \t]*["']?[A-Za-z0-9_+/=.~-]{16}`.
/// Each optional or repeated part is followed by a byte it cannot take, so one
/// reading decides, but for the operator: `:` and `=` may be followed by `=` and
/// `>`, and both readings are tried.
fn assignment_rest(mut rest: Cursor<'_>, _: &str) -> bool {
    let mut name = 0;
    while rest.eat(name_byte) {
        name += 1;
        if name > 16 {
            return false;
        }
    }
    rest.eat(quote);
    while rest.eat(blank) {}
    let op = rest.next();
    if !matches!(op, Some(b':' | b'=')) {
        return false;
    }
    let value = |mut rest: Cursor<'_>| {
        while rest.eat(blank) {}
        rest.eat(quote);
        (0..16).all(|_| rest.eat(value_byte))
    };
    value(rest)
        || matches!(
            (op, rest.next()),
            (Some(b':'), Some(b'=')) | (Some(b'='), Some(b'>'))
        ) && value(rest)
}

/// Whether a byte may be part of a digit-led prefilter's match: digits, spaces,
/// `)`, `.` and `-`.
const RUN_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = b'0';
    while b <= b'9' {
        table[b as usize] = true;
        b += 1;
    }
    table[b' ' as usize] = true;
    table[b')' as usize] = true;
    table[b'.' as usize] = true;
    table[b'-' as usize] = true;
    table
};

/// Calls `run` on each maximal run of [`RUN_BYTES`] of `hay` at least `min` long
/// (its start and end), until it returns true; gives whether it did. Only every
/// `min`th byte is read outside such runs: each run that long holds one of them.
fn runs(hay: &[u8], min: usize, mut run: impl FnMut(usize, usize) -> bool) -> bool {
    let min = min.max(1);
    let in_run = |at: usize| hay.get(at).is_some_and(|&b| RUN_BYTES[usize::from(b)]);
    let mut probe = min - 1;
    while probe < hay.len() {
        if !in_run(probe) {
            probe += min;
            continue;
        }
        let mut start = probe;
        while let Some(prev) = start.checked_sub(1)
            && in_run(prev)
        {
            start = prev;
        }
        // A run `min` long from `start` holds `last`; when it does not, the next
        // long run starts after `last`, and holds `last + min`.
        let last = start + min - 1;
        if !in_run(last) {
            probe = last + min;
            continue;
        }
        let mut end = probe + 1;
        while in_run(end) {
            end += 1;
        }
        if end - start >= min && run(start, end) {
            return true;
        }
        // `end` is not in a run: the next long run holds `end + min`.
        probe = end + min;
    }
    false
}

/// Whether the card prefilter `[0-9](?:[ -]?[0-9]){12}` matches in `run`.
fn card_prefilter(run: &[u8]) -> bool {
    let mut digits = 0;
    let mut separated = false;
    for &b in run {
        match b {
            b'0'..=b'9' => {
                digits += 1;
                if digits >= 13 {
                    return true;
                }
                separated = false;
            }
            b' ' | b'-' if digits > 0 && !separated => separated = true,
            _ => {
                digits = 0;
                separated = false;
            }
        }
    }
    false
}

/// Whether the second branch of the phone prefilter,
/// `\(?[2-9][0-9]{2}\)?[ .-]?[2-9][0-9]{2}[ .-][0-9]{4}`, matches in `run`: its
/// optional `\(` changes nothing to where it matches, and each other optional part
/// is followed by a byte it cannot take.
fn phone_prefilter(run: &[u8]) -> bool {
    let digit = |at: usize| byte_in(run, at, |b| b.is_ascii_digit());
    let lead = |at: usize| byte_in(run, at, |b| (b'2'..=b'9').contains(&b));
    let separator = |at: usize| byte_in(run, at, |b| matches!(b, b' ' | b'.' | b'-'));
    (0..run.len()).any(|start| {
        if !(lead(start) && digit(start + 1) && digit(start + 2)) {
            return false;
        }
        let mut at = start + 3;
        if byte_in(run, at, |b| b == b')') {
            at += 1;
        }
        if separator(at) {
            at += 1;
        }
        lead(at)
            && digit(at + 1)
            && digit(at + 2)
            && separator(at + 3)
            && (at + 4..at + 8).all(digit)
    })
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
        quick: Quick::Words {
            words: &["A3T", "AKIA", "ASIA", "ABIA", "ACCA"],
            fold: false,
            rest: aws_rest,
        },
    },
    Builtin {
        name: "bearer-token",
        prefilter: r"(?i-u:bearer)[ \t]",
        group: Group::Secrets,
        pattern: r"(?-u:\b)(?i-u:bearer)[ \t]+(?P<v>[A-Za-z0-9._~+/-]{20,}=*)",
        check: Some(has_digit_and_letter_check),
        min_len: 27,
        quick: Quick::Words {
            words: &["bearer"],
            fold: true,
            rest: blank_rest,
        },
    },
    Builtin {
        name: "email-address",
        prefilter: r"[A-Za-z0-9._%+-]@[A-Za-z0-9]",
        group: Group::PersonalData,
        pattern: r"[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?-u:\b)",
        check: Some(email_check),
        min_len: 6,
        quick: Quick::Email,
    },
    Builtin {
        name: "github-token",
        prefilter: r"gh[pousr]_[A-Za-z0-9]|github_pat_",
        group: Group::Secrets,
        pattern: r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{82})(?-u:\b)",
        check: None,
        min_len: 40,
        quick: Quick::Words {
            words: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
            fold: false,
            rest: github_rest,
        },
    },
    Builtin {
        name: "gitlab-token",
        prefilter: r"glpat-",
        group: Group::Secrets,
        pattern: r"(?-u:\b)glpat-[A-Za-z0-9_-]{20}",
        check: None,
        min_len: 26,
        quick: Quick::Words {
            words: &["glpat-"],
            fold: false,
            rest: no_rest,
        },
    },
    Builtin {
        name: "google-api-key",
        prefilter: r"AIza[0-9A-Za-z_-]",
        group: Group::Secrets,
        pattern: r"(?-u:\b)AIza[0-9A-Za-z_-]{35}",
        check: None,
        min_len: 39,
        quick: Quick::Words {
            words: &["AIza"],
            fold: false,
            rest: google_rest,
        },
    },
    Builtin {
        name: "high-entropy-assignment",
        prefilter: r#"(?i-u:api[_-]?key|apikey|secret|token|passw(?:or)?d|pwd|access[_-]?key|client[_-]?secret|auth[_-]?token|credential)[A-Za-z0-9_-]{0,16}["']?[ \t]*(?::|=|:=|=>)[ \t]*["']?[A-Za-z0-9_+/=.~-]{16}"#,
        group: Group::Secrets,
        pattern: r#"(?i-u:api[_-]?key|apikey|secret|token|passw(?:or)?d|pwd|access[_-]?key|client[_-]?secret|auth[_-]?token|credential)[A-Za-z0-9_-]{0,16}["']?[ \t]*(?::|=|:=|=>)[ \t]*["']?(?P<v>[A-Za-z0-9_+/=.~-]{16,})"#,
        check: Some(high_entropy),
        min_len: 20,
        quick: Quick::Words {
            words: KEY_WORD_LITERALS,
            fold: true,
            rest: assignment_rest,
        },
    },
    Builtin {
        name: "payment-card",
        prefilter: r"[0-9](?:[ -]?[0-9]){12}",
        group: Group::PersonalData,
        pattern: r"(?-u:\b)(?:[0-9][ -]?){12,18}[0-9](?-u:\b)",
        check: Some(card_check),
        min_len: 13,
        quick: Quick::Card,
    },
    Builtin {
        name: "phone-number",
        prefilter: r"\+[1-9]|\(?[2-9][0-9]{2}\)?[ .-]?[2-9][0-9]{2}[ .-][0-9]{4}",
        group: Group::PersonalData,
        pattern: r"\+[1-9][0-9]{0,3}(?:[ .-]?\(?[0-9]{1,4}\)?){1,5}[ .-]?[0-9]{2,6}(?-u:\b)|\(?[2-9][0-9]{2}\)?[ .-]?[2-9][0-9]{2}[ .-][0-9]{4}(?-u:\b)",
        check: Some(phone_check),
        min_len: 9,
        quick: Quick::Phone,
    },
    Builtin {
        name: "private-key",
        prefilter: r"-----BEGIN",
        group: Group::Secrets,
        pattern: r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----",
        check: None,
        min_len: 31,
        quick: Quick::Words {
            words: &["-----BEGIN"],
            fold: false,
            rest: no_rest,
        },
    },
    Builtin {
        name: "slack-token",
        prefilter: r"xox[abposr]-|hooks\.slack\.com/(?:services|workflows)/",
        group: Group::Secrets,
        pattern: r"(?-u:\b)xox[abposr]-[A-Za-z0-9-]{10,}|hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/]{20,}",
        check: None,
        min_len: 15,
        quick: Quick::Words {
            words: &[
                "xoxa-",
                "xoxb-",
                "xoxp-",
                "xoxo-",
                "xoxs-",
                "xoxr-",
                "hooks.slack.com/services/",
                "hooks.slack.com/workflows/",
            ],
            fold: false,
            rest: no_rest,
        },
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
        let first = self.first_pass(&members)?;
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
        let canonical_first = joinable
            && members
                .iter()
                .all(|&i| i < BUILTINS.len() || plain_ascii(&self.detectors[i].prefilter));
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

    /// Whether detector `index` matches in `text` where it starts in `start..end`, a
    /// run no match of it crosses, and its check holds on a match: the matches that
    /// start there are those of the whole text, each found from the run's start with
    /// the text before it as context, and the byte after it when it is part of a word.
    fn confirm_within(&self, index: usize, text: &str, start: usize, end: usize) -> bool {
        let detector = &self.detectors[index];
        let word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
        let limit = if text.as_bytes().get(end).is_some_and(word) {
            end + 1
        } else {
            end
        };
        let Some(hay) = text.get(..limit) else {
            return self.confirm(index, text);
        };
        let mut at = start;
        while let Some(caps) = detector.regex.captures_at(hay, at) {
            let Some(whole) = caps.get(0) else {
                break;
            };
            let m = caps.name("v").unwrap_or(whole);
            if detector
                .check
                .is_none_or(|check| check(hay, m.start(), m.end()))
            {
                return true;
            }
            if whole.end() <= at {
                return self.confirm(index, text);
            }
            at = whole.end();
        }
        false
    }

    /// The first pass of a scanner for the detectors `members`.
    fn first_pass(&self, members: &[usize]) -> Result<FirstPass, String> {
        let mut first = FirstPass::default();
        let mut words: Vec<(String, Vec<Word>)> = Vec::new();
        let mut joined = Vec::new();
        for &index in members {
            let Some(builtin) = BUILTINS.get(index) else {
                if has_literal(&self.detectors[index].prefilter) {
                    first.user_alone.push(index);
                } else {
                    joined.push(index);
                }
                continue;
            };
            match builtin.quick {
                Quick::Words {
                    words: literals,
                    fold,
                    rest,
                } => {
                    for &literal in literals {
                        let word = Word {
                            detector: index,
                            literal,
                            fold,
                            rest,
                        };
                        let lower = literal.to_ascii_lowercase();
                        match words.iter_mut().find(|(w, _)| *w == lower) {
                            Some((_, owners)) => owners.push(word),
                            None => words.push((lower, vec![word])),
                        }
                    }
                }
                Quick::Email => first.email = Some(index),
                Quick::Card => first.card = Some(index),
                Quick::Phone => first.phone = Some(index),
            }
        }
        if !words.is_empty() {
            let searcher = aho_corasick::AhoCorasick::builder()
                .match_kind(aho_corasick::MatchKind::LeftmostFirst)
                .build(words.iter().map(|(w, _)| w))
                .map_err(|err| one_line(&err.to_string()))?;
            first.words = Some(searcher);
            first.owners = words.into_iter().map(|(_, owners)| owners).collect();
        }
        if !joined.is_empty() {
            let regex = regex_automata::meta::Regex::builder()
                .configure(
                    regex_automata::meta::Config::new()
                        .auto_prefilter(false)
                        .nfa_size_limit(Some(SET_SIZE_LIMIT))
                        .hybrid_cache_capacity(DFA_SIZE_LIMIT),
                )
                .build_many(
                    &joined
                        .iter()
                        .map(|&i| self.detectors[i].prefilter.as_str())
                        .collect::<Vec<_>>(),
                )
                .map_err(|err| one_line(&err.to_string()))?;
            first.user_joined = Some((regex, joined));
        }
        Ok(first)
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
    /// The same prefilters, for the first pass over the joined strings.
    first: FirstPass,
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
    canonical_first: bool,
}

/// A literal of a built-in's prefilter, for the literal search of a first pass.
#[derive(Debug, Clone, Copy)]
struct Word {
    detector: usize,
    literal: &'static str,
    /// Whether ASCII case is ignored, as the search does: otherwise the literal is
    /// compared again.
    fold: bool,
    rest: Rest,
}

/// The first pass over the joined strings of a response, by kind of prefilter,
/// each cheaper than a regex reading every byte: byte loops and `memchr` for the
/// built-ins led by a digit or around an `@`, one search of all the literals the
/// other built-ins' prefilters start with (lower-cased, in a lower-cased copy of
/// the text, so that the search can skip ahead) with the rest of the prefilter
/// checked where a literal is found, and regexes for the user's detectors: alone
/// those with a literal their regex looks for first, in one lazy DFA the others,
/// without the literal search the `regex` crate would put before it, which costs
/// more than it saves when no literal stands out.
#[derive(Debug, Default)]
struct FirstPass {
    words: Option<aho_corasick::AhoCorasick>,
    /// By literal of `words`: the built-ins' literals that lower-case to it.
    owners: Vec<Vec<Word>>,
    email: Option<usize>,
    card: Option<usize>,
    phone: Option<usize>,
    user_alone: Vec<usize>,
    /// The lazy DFA, and the detector of each of its patterns.
    user_joined: Option<(regex_automata::meta::Regex, Vec<usize>)>,
}

/// Whether every match of `pattern` is printable ASCII but `"` and `\`, with no
/// anchor or word boundary: then wherever it matches in a string, it matches in
/// the string's canonical JSON, which writes such text as it is.
fn plain_ascii(pattern: &str) -> bool {
    use regex_syntax::hir::{Class, HirKind};
    let Ok(hir) = regex_syntax::parse(pattern) else {
        return false;
    };
    if !hir.properties().look_set().is_empty() {
        return false;
    }
    let plain = |start: u32, end: u32| {
        start >= 0x20
            && end <= 0x7e
            && ![u32::from(b'"'), u32::from(b'\\')]
                .iter()
                .any(|b| (start..=end).contains(b))
    };
    let mut stack = vec![&hir];
    while let Some(hir) = stack.pop() {
        let holds = match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => true,
            HirKind::Literal(literal) => literal.0.iter().all(|&b| plain(b.into(), b.into())),
            HirKind::Class(Class::Unicode(class)) => class
                .ranges()
                .iter()
                .all(|r| plain(r.start().into(), r.end().into())),
            HirKind::Class(Class::Bytes(class)) => class
                .ranges()
                .iter()
                .all(|r| plain(r.start().into(), r.end().into())),
            HirKind::Repetition(repetition) => {
                stack.push(&repetition.sub);
                true
            }
            HirKind::Capture(capture) => {
                stack.push(&capture.sub);
                true
            }
            HirKind::Concat(all) | HirKind::Alternation(all) => {
                stack.extend(all.iter());
                true
            }
        };
        if !holds {
            return false;
        }
    }
    true
}

/// Whether the `regex` crate looks for a literal before it runs `pattern` alone: one
/// of a few of at least three bytes that every match starts or ends with.
fn has_literal(pattern: &str) -> bool {
    use regex_syntax::hir::literal::{ExtractKind, Extractor, Seq};
    let Ok(hir) = regex_syntax::parse(pattern) else {
        return false;
    };
    let good = |mut seq: Seq| {
        seq.dedup();
        seq.literals()
            .is_some_and(|l| !l.is_empty() && l.len() <= 64 && l.iter().all(|l| l.len() >= 3))
    };
    let mut prefixes = Extractor::new().kind(ExtractKind::Prefix).extract(&hir);
    prefixes.optimize_for_prefix_by_preference();
    let mut suffixes = Extractor::new().kind(ExtractKind::Suffix).extract(&hir);
    suffixes.optimize_for_suffix_by_preference();
    good(prefixes) || good(suffixes)
}

/// What text a first pass reads.
#[derive(Debug, Clone, Copy)]
enum Form {
    /// The joined strings of a response, each followed by a NUL byte.
    Joined,
    /// A response's canonical JSON as it is. Every built-in prefilter that matches
    /// in its joined strings matches in it too: what the prefilters look for is
    /// printable ASCII, which canonical JSON writes as it is but for `"`, `\` and
    /// tab, which follow literals and are read decoded. The keys are not apart, so
    /// the literal of a name of secrets in a key says "maybe" for `assignment`.
    Canonical { assignment: Option<usize> },
}

/// Where the last string a literal was found in ends, and whether it is a key.
#[derive(Debug, Default)]
struct KeyEnd {
    end: usize,
    key: bool,
}

impl KeyEnd {
    /// Whether the position `at` of the canonical JSON `text`, inside a string, is
    /// in a key. Positions come in increasing order, so each string is read once.
    fn in_key(&mut self, text: &[u8], at: usize) -> bool {
        if at < self.end {
            return self.key;
        }
        // The string ends at the first quote after `at` with an even number of
        // backslashes before it; escaped quotes are rarer than other escapes.
        let mut pos = at;
        while let Some(found) = text.get(pos..).and_then(|rest| memchr::memchr(b'"', rest)) {
            let quote = pos + found;
            let backslashes = text[..quote]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count();
            if backslashes % 2 == 0 {
                *self = KeyEnd {
                    end: quote,
                    key: text.get(quote + 1) == Some(&b':'),
                };
                return self.key;
            }
            pos = quote + 1;
        }
        *self = KeyEnd {
            end: text.len(),
            key: false,
        };
        false
    }
}

impl FirstPass {
    /// Runs the built-ins' checks over `text`, and `lower`, its ASCII lower-cased
    /// copy: calls `found` with each built-in whose prefilter may match, once, but
    /// for the card, with each run of digits and separators where its prefilter
    /// may match; stops when `found` returns true, and gives whether it did.
    fn builtins(
        &self,
        text: &[u8],
        lower: &[u8],
        form: Form,
        found: &mut impl FnMut(usize, usize, usize) -> bool,
    ) -> bool {
        let mut phone_found = false;
        if self.card.is_some() || self.phone.is_some() {
            let min = if self.phone.is_some() { 11 } else { 13 };
            let hit = runs(text, min, |start, end| {
                let run = text.get(start..end).unwrap_or_default();
                if let Some(card) = self.card
                    && card_prefilter(run)
                    && found(card, start, end)
                {
                    return true;
                }
                if let Some(phone) = self.phone
                    && !phone_found
                    && phone_prefilter(run)
                {
                    phone_found = true;
                    return found(phone, start, end);
                }
                false
            });
            if hit {
                return true;
            }
        }
        if let Some(phone) = self.phone
            && !phone_found
            && memchr::memchr_iter(b'+', text)
                .any(|at| byte_in(text, at + 1, |b| (b'1'..=b'9').contains(&b)))
            && found(phone, 0, text.len())
        {
            return true;
        }
        if let Some(email) = self.email
            && memchr::memchr_iter(b'@', text).any(|at| {
                at.checked_sub(1).is_some_and(|prev| {
                    byte_in(text, prev, |b| {
                        b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'%' | b'+' | b'-')
                    })
                }) && byte_in(text, at + 1, |b| b.is_ascii_alphanumeric())
            })
            && found(email, 0, text.len())
        {
            return true;
        }
        let Some(words) = &self.words else {
            return false;
        };
        // Every literal's every occurrence: no literal starts another, so the
        // leftmost match at each start is the only one there.
        let mut done: Vec<usize> = Vec::new();
        let mut key_end = KeyEnd::default();
        let mut from = 0;
        while let Some(m) = words.find(aho_corasick::Input::new(lower).span(from..lower.len())) {
            from = m.start() + 1;
            for word in self
                .owners
                .get(m.pattern().as_usize())
                .into_iter()
                .flatten()
            {
                if done.contains(&word.detector)
                    || !word.fold && text.get(m.range()) != Some(word.literal.as_bytes())
                {
                    continue;
                }
                let rest = Cursor {
                    bytes: text,
                    pos: m.end(),
                    escaped: matches!(form, Form::Canonical { .. }),
                };
                let holds = (word.rest)(rest, word.literal)
                    || matches!(form, Form::Canonical { assignment: Some(a) } if a == word.detector)
                        && key_end.in_key(text, m.start());
                if !holds {
                    continue;
                }
                done.push(word.detector);
                if found(word.detector, 0, text.len()) {
                    return true;
                }
            }
            if from >= lower.len() {
                break;
            }
        }
        false
    }
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
        self.walk(library, canonical)
    }

    /// Every hit in `canonical`, string by string, without a first pass.
    fn walk(&self, library: &Library, canonical: &[u8]) -> Vec<Hit> {
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
    /// joined into one text (each followed by a NUL byte) that the first pass reads
    /// for the prefilters, and the keys into another that the names of assignments
    /// are looked for in; where a prefilter matches, its detector's full pattern and
    /// check read the joined text (for the card, only the run it matched in). Most
    /// responses hold no hit, and for them this is all the work.
    fn may_match(&self, library: &Library, canonical: &[u8]) -> bool {
        JOINED.with(|joined| {
            let mut joined = joined.borrow_mut();
            let (text, keys, lower) = &mut *joined;
            if self.canonical_first && !self.canonical_may_match(library, canonical, lower) {
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
                && std::str::from_utf8(keys).map_or(true, |k| library.key_words.is_match(k))
                || self.first_pass(library, text, lower);
            if text.capacity() > JOINED_KEPT {
                *text = Vec::new();
            }
            if lower.capacity() > JOINED_KEPT {
                *lower = Vec::new();
            }
            hit
        })
    }

    /// Whether the first pass over the canonical JSON itself (see [`Form`]) may
    /// find a prefilter: when it does not, no string holds a hit, and none has to be
    /// decoded. `lower` is room for a copy.
    fn canonical_may_match(
        &self,
        library: &Library,
        canonical: &[u8],
        lower: &mut Vec<u8>,
    ) -> bool {
        let first = &self.first;
        lower.clear();
        if first.words.is_some() {
            lower.extend_from_slice(canonical);
            lower.make_ascii_lowercase();
        }
        let form = Form::Canonical {
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
                .is_none_or(|run| library.confirm_within(detector, run, start - from, end - from))
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
            .any(|&detector| library.confirm(detector, text))
            || first
                .user_joined
                .as_ref()
                .is_some_and(|(regex, _)| regex.is_match(canonical))
    }

    /// Whether a detector whose prefilter the first pass finds in `joined` (strings
    /// each followed by a NUL byte) matches there with its full pattern and check.
    /// No built-in pattern matches across a NUL byte, and a user pattern that does
    /// only costs a walk that finds nothing. `lower` is room for a copy.
    fn first_pass(&self, library: &Library, joined: &[u8], lower: &mut Vec<u8>) -> bool {
        let first = &self.first;
        lower.clear();
        if first.words.is_some() {
            lower.extend_from_slice(joined);
            lower.make_ascii_lowercase();
        }
        // The text is only needed, and checked, once a prefilter matches.
        let mut text = None;
        let mut text = || *text.get_or_insert_with(|| std::str::from_utf8(joined).ok());
        let builtin = first.builtins(joined, lower, Form::Joined, &mut |detector, start, end| {
            let Some(text) = text() else {
                return true;
            };
            if first.card == Some(detector) {
                library.confirm_within(detector, text, start, end)
            } else {
                library.confirm(detector, text)
            }
        });
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
            .any(|&detector| library.confirm(detector, text))
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
            .any(|slot| library.confirm(detectors[slot.as_usize()], text))
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
    use super::{
        BUILTINS, Form, KeyEnd, Library, Scanner, entropy, has_literal, luhn, plain_ascii,
    };
    use crate::json;
    use proptest::prelude::*;

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

    /// The built-ins the first pass of `scanner` says may match in `text`.
    fn first_pass_says(scanner: &Scanner, text: &[u8]) -> Vec<usize> {
        let lower = text.to_ascii_lowercase();
        let mut said = Vec::new();
        scanner
            .first
            .builtins(text, &lower, Form::Joined, &mut |detector, start, end| {
                assert!(start <= end && end <= text.len());
                if !said.contains(&detector) {
                    said.push(detector);
                }
                false
            });
        said.sort_unstable();
        said
    }

    /// A scanner for all the built-ins and one for each, and their prefilter regexes.
    struct Prefilters {
        all: Scanner,
        each: Vec<Scanner>,
        regexes: Vec<regex::bytes::Regex>,
    }

    static PREFILTERS: std::sync::LazyLock<Prefilters> = std::sync::LazyLock::new(|| {
        let library = Library::new(&[]).unwrap();
        let all: Vec<usize> = (0..BUILTINS.len()).collect();
        Prefilters {
            all: library.scanner(&all).unwrap(),
            each: all
                .iter()
                .map(|&i| library.scanner(&[i]).unwrap())
                .collect(),
            regexes: BUILTINS
                .iter()
                .map(|b| regex::bytes::Regex::new(b.prefilter).unwrap())
                .collect(),
        }
    });

    /// The first pass of a scanner for all the built-ins, and of one for each alone,
    /// says "maybe" for exactly the built-ins whose prefilter regex matches `text`.
    fn assert_first_pass_is_prefilters(text: &[u8]) {
        let prefilters = &*PREFILTERS;
        let said: Vec<usize> = (0..BUILTINS.len())
            .filter(|&i| prefilters.regexes[i].is_match(text))
            .collect();
        assert_eq!(
            first_pass_says(&prefilters.all, text),
            said,
            "{:?}",
            String::from_utf8_lossy(text)
        );
        for (i, scanner) in prefilters.each.iter().enumerate() {
            assert_eq!(
                first_pass_says(scanner, text),
                said.iter().copied().filter(|&s| s == i).collect::<Vec<_>>(),
                "{} in {:?}",
                BUILTINS[i].name,
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn first_pass_is_the_prefilters() {
        let long = "7".repeat(40);
        let texts: Vec<String> = vec![
            String::new(),
            "AKIAQ".into(),
            "AKIA".into(),
            "AKIAq".into(),
            "akiaQ".into(),
            "xA3TZ2\0".into(),
            "A3T9Z".into(),
            "A3T9z".into(),
            "A3T".into(),
            "ASIAB ABIA7 ACCA1".into(),
            "bearer ".into(),
            "BeArEr\t".into(),
            "bearer".into(),
            "bearer\0 ".into(),
            "a@b".into(),
            "@b".into(),
            "a@".into(),
            "é@b".into(),
            "%@9".into(),
            "a@-".into(),
            "ghp_x".into(),
            "ghp_".into(),
            "ghp__".into(),
            "GHP_x".into(),
            "github_pat_".into(),
            "GITHUB_PAT_".into(),
            "glpat-".into(),
            "GLPAT-".into(),
            "AIza-".into(),
            "AIza".into(),
            "aiza0".into(),
            "-----BEGIN".into(),
            "----BEGIN".into(),
            "-----begin".into(),
            "xoxb-".into(),
            "xoxc-".into(),
            "XOXB-".into(),
            "hooks.slack.com/services/".into(),
            "hooks.slack.com/workflows/".into(),
            "hooks.slack.com/service/".into(),
            "HOOKS.SLACK.COM/SERVICES/".into(),
            "api_key = 'abcdefghijklmnop'".into(),
            "API-KEY=abcdefghijklmnop".into(),
            "Client_Secret_abcdefghijklmnop: \"0123456789abcdef".into(),
            "token_abcdefghijklmnopq: 0123456789abcdef".into(),
            "token_abcdefghijklmnop: 0123456789abcdef".into(),
            "tokentoken:=0123456789abcdef".into(),
            "token:=0123456789abcde".into(),
            "token:=>0123456789abcdef".into(),
            "token=>0123456789abcdef".into(),
            "token=>\t\"0123456789abcdef".into(),
            "token =  0123456789abcde".into(),
            "token \" = x123456789abcdef".into(),
            "secretoken: 0123456789abcdef".into(),
            "passwd:0123456789abcdef".into(),
            "PassWord:0123456789abcdef".into(),
            "pwd\t=\t0123456789abcdef".into(),
            "credential=0123456789abcdef".into(),
            "accesskey=0123456789abcdef".into(),
            "access key=0123456789abcdef".into(),
            "apikey=0123456789abcde\0f".into(),
            "4111 1111 1111 1".into(),
            "4111 1111 1111 ".into(),
            "4111  1111 1111 1".into(),
            "4111-1111-1111-1".into(),
            "4111-1111 1111\x001".into(),
            "-4111111111111".into(),
            "x411111111111".into(),
            "123456789012 3".into(),
            "1 2 3 4 5 6 7 8 9 0 1 2 3".into(),
            "1 2 3 4 5 6 7 8 9 0 1 2 .3".into(),
            long.clone(),
            format!("{long} x {long}"),
            "+1".into(),
            "+0".into(),
            "a+".into(),
            "(415) 555-2671".into(),
            "415) 555-2671".into(),
            "415555-2671".into(),
            "415)555.267".into(),
            "115 555 2671".into(),
            "415 155 2671".into(),
            "415 555 267 1".into(),
            "415)).555-2671".into(),
            "4155552671".into(),
            "x415.555.2671x".into(),
            "é415-555-2671é".into(),
            "2024-06-08T21:00:54.589Z 1234567890123".into(),
            "                                 ".into(),
            " 415 555 2671 ".into(),
            "\x00415 555 2671\x00".into(),
        ];
        for text in &texts {
            assert_first_pass_is_prefilters(text.as_bytes());
            let padded = format!("{} {text} {}", "z".repeat(30), "y".repeat(30));
            assert_first_pass_is_prefilters(padded.as_bytes());
        }
        assert_first_pass_is_prefilters(b"\xff4111 1111 1111 1\xfe");
    }

    #[test]
    fn literals_do_not_start_one_another() {
        let mut words = Vec::new();
        for builtin in BUILTINS {
            if let super::Quick::Words {
                words: literals, ..
            } = builtin.quick
            {
                words.extend(literals.iter().map(|w| w.to_ascii_lowercase()));
            }
        }
        for a in &words {
            for b in &words {
                assert!(a == b || !b.starts_with(a.as_str()), "{a} starts {b}");
            }
        }
    }

    #[test]
    fn user_patterns_with_a_literal_run_alone() {
        assert!(has_literal("TICKET-[0-9]{6}"));
        assert!(has_literal(r"[a-z0-9-]+\.corp\.internal"));
        assert!(!has_literal("[0-9]{3}z"));
        assert!(!has_literal("(?i)x"));
        let library = Library::new(&[
            ("ticket".to_owned(), "TICKET-[0-9]{6}".to_owned()),
            ("short".to_owned(), "[0-9]{3}z".to_owned()),
            ("host".to_owned(), r"[a-z0-9-]+\.corp\.internal".to_owned()),
        ])
        .unwrap();
        let chosen: Vec<usize> = ["ticket", "short", "host"]
            .iter()
            .map(|n| library.find(n).unwrap())
            .collect();
        let scanner = library.scanner(&chosen).unwrap();
        assert_eq!(scanner.first.user_alone.len(), 2);
        for (response, name) in [
            (r#"{"a": "TICKET-123456"}"#, Some("ticket")),
            (r#"{"a": ["x", "a 123z"]}"#, Some("short")),
            (r#"{"a": "db-1.corp.internal"}"#, Some("host")),
            (r#"{"a": "TICKET-12345 123 z .corp.internal"}"#, None),
        ] {
            let canonical = crate::canonical::encode(&json::parse(response).unwrap());
            let names: Vec<&str> = scanner
                .scan(&library, &canonical)
                .iter()
                .map(|h| library.name(h.detector))
                .collect();
            assert_eq!(names, name.into_iter().collect::<Vec<_>>(), "{response}");
        }
    }

    #[test]
    fn only_plain_ascii_user_patterns_allow_the_canonical_first_pass() {
        for plain in [
            "TICKET-[0-9]{6}",
            r"[a-z0-9-]+\.corp\.internal",
            "a|b*",
            "(x)(?:y)?",
        ] {
            assert!(plain_ascii(plain), "{plain}");
        }
        for not in [
            r"\bword",
            "^x",
            "x$",
            "(?i)k",
            "[^a]",
            ".",
            "a\"",
            r"a\\",
            "\t",
            "é",
            "(?-u:[\\x00-\\x7f])",
            "(",
        ] {
            assert!(!plain_ascii(not), "{not}");
        }
        assert!(USERS.1.canonical_first);
        let library = Library::new(&[("word".to_owned(), r"\bsecretword".to_owned())]).unwrap();
        let all: Vec<usize> = (0..BUILTINS.len() + 1).collect();
        assert!(!library.scanner(&all).unwrap().canonical_first);
    }

    /// Escaped text after a literal, and names of secrets in keys, are read in the
    /// canonical JSON as in the decoded strings.
    #[test]
    fn the_canonical_first_pass_reads_escapes_and_keys() {
        let (library, scanner) = &*USERS;
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
            let hits = scanner.walk(library, &canonical);
            assert_eq!(!hits.is_empty(), hit, "{response}");
            assert_eq!(scanner.scan(library, &canonical), hits, "{response}");
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

    /// Pieces of text near the built-ins' prefilters and patterns.
    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                "AKIA",
                "A3T",
                "ASIA",
                "ABIA",
                "ACCA",
                "IOSFODNN7EXAMPLE",
                "bearer",
                "BeArEr",
                "ghp_",
                "gho_",
                "github_pat_",
                "glpat-",
                "AIza",
                "-----BEGIN",
                " PRIVATE KEY-----",
                "xoxb-",
                "xoxr-",
                "hooks.slack.com/",
                "services/",
                "workflows/",
                "api_key",
                "API-KEY",
                "apikey",
                "secret",
                "client_secret",
                "Token",
                "auth-token",
                "password",
                "PASSWD",
                "pwd",
                "access_key",
                "credential",
                "4111",
                "1111 ",
                "5555-",
                "(415) ",
                "555-",
                "2671",
                "+44 ",
                "+1",
                "q8Zr2Lw9Xv4Tn7Bk",
                "abcdefgh12345678",
                "0123456789",
                " = ",
                ":=",
                "=>",
                ": ",
                "\"",
                "'",
                "@",
                "ana@example.com",
                "\u{0}",
                "é",
                "\u{212a}",
                "\\n",
                "TICKET-",
                ".corp.internal",
            ])
            .prop_map(str::to_owned),
            "[0-9 ().+@:=_'\"\t\n-]{1,4}",
            "[a-zA-Z0-9]{1,3}",
        ]
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(piece(), 0..24).prop_map(|p| p.concat())
    }

    /// All the detectors, with user ones with and without a literal.
    static USERS: std::sync::LazyLock<(Library, Scanner)> = std::sync::LazyLock::new(|| {
        let library = Library::new(&[
            ("ticket".to_owned(), "TICKET-[0-9]{4}".to_owned()),
            ("host".to_owned(), r"[a-z0-9-]+\.corp\.internal".to_owned()),
            ("digits".to_owned(), "[0-9]{3}[a-z]".to_owned()),
        ])
        .unwrap();
        let all: Vec<usize> = (0..BUILTINS.len() + 3).collect();
        let scanner = library.scanner(&all).unwrap();
        (library, scanner)
    });

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn first_pass_matches_the_prefilter_regexes(text in text()) {
            assert_first_pass_is_prefilters(text.as_bytes());
        }

        #[test]
        fn first_pass_never_loses_a_hit(strings in prop::collection::vec(text(), 1..4)) {
            let (library, scanner) = &*USERS;
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
            let hits = scanner.walk(library, &canonical);
            prop_assert_eq!(scanner.scan(library, &canonical), hits.clone());
            if !hits.is_empty() {
                prop_assert!(scanner.may_match(library, &canonical));
            }
        }
    }
}
