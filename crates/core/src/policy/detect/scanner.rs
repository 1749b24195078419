//! The detectors chosen for a tool, combined into one scanner, and the scan of a
//! response: the first pass over its canonical JSON rules most responses out; the
//! others are parsed by the core's parser ([`crate::json::parse`]), a first pass
//! over their joined strings rules more out, and the strings of the rest are read
//! one by one with the full patterns and checks.

use std::fmt::Write as _;

use regex::{RegexSet, RegexSetBuilder};

use super::catalog::{Catalog, regex_error};
use super::prefilter::{FirstPass, FirstPassText, lower_copy, plain_ascii};
use super::stream::{self, Item};
use super::{BUILTINS, DFA_SIZE_LIMIT, SET_SIZE_LIMIT};
use crate::json::{self, ParseError, Value};
use crate::policy::pointer::push_token;

/// Detectors chosen for a tool, combined into one pass over each string.
#[derive(Debug)]
pub(crate) struct Scanner {
    /// The user's detectors among the members, in their order, when there are any.
    users: Option<RegexSet>,
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
pub(crate) struct Hit {
    /// The JSON pointer of the string (RFC 6901), or of the object whose key it is.
    pub pointer: String,
    /// Whether the match is in a key of that object rather than in a string value.
    pub in_key: bool,
    /// The detector's index in the catalog.
    pub detector: usize,
    /// For a match in a key, the key: the pointers of what it holds name it, and are
    /// shown without it ([`redact_secret_keys`]).
    pub key: Option<Box<str>>,
}

/// Takes the keys that detectors matched out of the pointers of every hit: a
/// pointer into the value of such a key shows `{detector}` in its place, so that no
/// finding's pointer prints what another finding flags.
fn redact_secret_keys(catalog: &Catalog, hits: &mut [Hit]) {
    let mut secrets: Vec<(String, String)> = hits
        .iter()
        .filter_map(|hit| {
            let key = hit.key.as_deref()?;
            let mut prefix = hit.pointer.clone();
            push_token(&mut prefix, key);
            let shown = format!("{}/{{{}}}", hit.pointer, catalog.name(hit.detector));
            Some((prefix, shown))
        })
        .collect();
    if secrets.is_empty() {
        return;
    }
    // Inner keys first: their replacement still holds an outer key, which is then
    // replaced in turn.
    secrets.sort_by_key(|(prefix, _)| std::cmp::Reverse(prefix.len()));
    for hit in hits.iter_mut() {
        for (prefix, shown) in &secrets {
            let inside = hit.pointer.strip_prefix(prefix.as_str());
            if let Some(rest) = inside.filter(|rest| rest.is_empty() || rest.starts_with('/')) {
                hit.pointer = format!("{shown}{rest}");
            }
        }
    }
}

/// The set of the prefilters of the detectors `members` of `catalog`, in their order.
fn prefilter_set(catalog: &Catalog, members: &[usize]) -> Result<RegexSet, String> {
    RegexSetBuilder::new(members.iter().map(|&i| catalog.prefilter(i)))
        .size_limit(SET_SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .build()
        .map_err(|err| regex_error(&err))
}

impl Scanner {
    /// A scanner for the detectors `chosen` of `catalog` (indices; duplicates are
    /// ignored).
    pub(crate) fn new(catalog: &Catalog, chosen: &[usize]) -> Result<Scanner, String> {
        let mut members: Vec<usize> = chosen.to_vec();
        members.sort_by(|&a, &b| catalog.name(a).cmp(catalog.name(b)));
        members.dedup();
        let user_members: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&i| i >= BUILTINS.len())
            .collect();
        let users = if user_members.is_empty() {
            None
        } else {
            // The prefilters of all the members in one set, built only to hold the
            // scanner to the size limit as a whole, as a policy's rule; no scan reads
            // it. The built-ins alone always fit (`builtins_fit_one_set`).
            prefilter_set(catalog, &members)?;
            let set = RegexSetBuilder::new(user_members.iter().map(|&i| catalog.prefilter(i)))
                .size_limit(SET_SIZE_LIMIT)
                .dfa_size_limit(DFA_SIZE_LIMIT)
                .build()
                .map_err(|err| regex_error(&err))?;
            Some(set)
        };
        const { assert!(BUILTINS.len() <= 64, "the built-ins found fit in a u64") };
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
            users,
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
        // The built-ins whose prefilter matches, as the first pass finds them (which
        // is exactly where their prefilter regexes match: its tests compare them),
        // at a fraction of the cost of the set's overlapping search; the set for the
        // user's detectors.
        let mut builtins = 0u64;
        LOWER.with(|lower| {
            let mut lower = lower.borrow_mut();
            lower.clear();
            if self.first.searches_literals() {
                lower_copy(text.as_bytes(), &mut lower);
            }
            self.first.builtins(
                text.as_bytes(),
                &lower,
                FirstPassText::Joined,
                &mut |detector, _, _| {
                    builtins |= 1 << detector;
                    false
                },
            );
            if lower.capacity() > JOINED_KEPT {
                *lower = Vec::new();
            }
        });
        let users = self.users.as_ref().map(|set| set.matches(text));
        let mut user = 0;
        for &detector in &self.members {
            let matched = if detector < BUILTINS.len() {
                builtins & 1 << detector != 0
            } else {
                user += 1;
                users.as_ref().is_some_and(|set| set.matched(user - 1))
            };
            if matched && catalog.confirm(detector, text) {
                found.push(detector);
            }
        }
    }

    /// Every hit in `canonical`, the canonical encoding of a value as this crate
    /// writes it, in its order (members by key, each key before its value), and by
    /// detector name on one string. The first pass reads `canonical` as it is; a
    /// value it cannot rule out is parsed, and the error is why `canonical` could not
    /// be: it is not the encoding of a value.
    pub(crate) fn scan(&self, catalog: &Catalog, canonical: &[u8]) -> Result<Vec<Hit>, ParseError> {
        JOINED.with(|joined| {
            let mut joined = joined.borrow_mut();
            let Joined { text, keys, lower } = &mut *joined;
            let ruled_out =
                self.canonical_first && !self.canonical_may_match(catalog, canonical, lower);
            let hits = if ruled_out {
                Ok(Vec::new())
            } else if let Some(hits) = self.scan_stream(catalog, canonical, text, keys, lower) {
                Ok(hits)
            } else {
                // Not the canonical encoding the stream reads: the parser says why,
                // or reads what the stream does not.
                parse(canonical).map(|value| {
                    if self.joinable && !self.joined_may_match(catalog, &value, text, keys, lower) {
                        Vec::new()
                    } else {
                        self.walk(catalog, &value)
                    }
                })
            };
            for kept in [text, keys] {
                if kept.capacity() > JOINED_KEPT {
                    *kept = String::new();
                }
            }
            if lower.capacity() > JOINED_KEPT {
                *lower = Vec::new();
            }
            hits
        })
    }

    /// What [`Scanner::scan`] finds past the canonical first pass, read from the
    /// canonical bytes without a tree (see [`super::stream`]): the joined strings
    /// for the second first pass when the scanner is joinable, then the walk.
    /// `None` when the bytes are not a canonical encoding the stream reads.
    fn scan_stream(
        &self,
        catalog: &Catalog,
        canonical: &[u8],
        text: &mut String,
        keys: &mut String,
        lower: &mut Vec<u8>,
    ) -> Option<Vec<Hit>> {
        if self.joinable {
            text.clear();
            keys.clear();
            stream::visit(canonical, |_, item| match item {
                Item::Key(key) => {
                    for joined in [&mut *text, &mut *keys] {
                        joined.push_str(key);
                        joined.push('\0');
                    }
                }
                Item::Str(s, _) | Item::Number(s) => {
                    text.push_str(s);
                    text.push('\0');
                }
            })?;
            let may = self.assignment.is_some() && catalog.has_key_word(keys)
                || self.first_pass(catalog, text, lower);
            if !may {
                return Some(Vec::new());
            }
        }
        let mut found = Vec::new();
        let mut hits = Vec::new();
        stream::visit(canonical, |pointer, item| {
            let (text, in_key, key) = match item {
                Item::Key(key) => (key, true, None),
                Item::Str(s, key) => (s, false, key),
                // A number is no secret assigned to its key.
                Item::Number(digits) => (digits, false, None),
            };
            scan_one(
                self, catalog, &mut found, &mut hits, pointer, text, in_key, key,
            );
        })?;
        redact_secret_keys(catalog, &mut hits);
        Some(hits)
    }

    /// Every hit in `value`, string by string, without a first pass.
    fn walk(&self, catalog: &Catalog, value: &Value) -> Vec<Hit> {
        let mut walk = Walk {
            scanner: self,
            catalog,
            pointer: String::new(),
            found: Vec::new(),
            hits: Vec::new(),
        };
        walk.value(value, None);
        redact_secret_keys(catalog, &mut walk.hits);
        walk.hits
    }
}

/// The value of the text `canonical`, read by the core's parser.
fn parse(canonical: &[u8]) -> Result<Value, ParseError> {
    let text = json::decode_document(canonical)?;
    json::parse(text)
}

impl Scanner {
    /// Whether any string of `value` may hold a hit: every string is joined into
    /// one text (each followed by a NUL byte) that the first pass reads for the
    /// prefilters, and the keys into another that the names of assignments are
    /// looked for in; where a prefilter matches, its detector's full pattern and
    /// check read the joined text (for the card, only the run it matched in). `text`,
    /// `keys` and `lower` are room for the joined texts and a lower-cased copy.
    fn joined_may_match(
        &self,
        catalog: &Catalog,
        value: &Value,
        text: &mut String,
        keys: &mut String,
        lower: &mut Vec<u8>,
    ) -> bool {
        text.clear();
        keys.clear();
        join_strings(value, text, keys);
        self.assignment.is_some() && catalog.has_key_word(keys)
            || self.first_pass(catalog, text, lower)
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
            lower_copy(canonical, lower);
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
        // A text all ASCII is UTF-8, and its lower-cased copy is all ASCII too: that
        // costs less to tell than whether a text is UTF-8.
        let ascii = if first.searches_literals() {
            lower.is_ascii()
        } else {
            canonical.is_ascii()
        };
        let user_alone = if ascii {
            first
                .user_alone
                .iter()
                .any(|&detector| catalog.confirm_ascii(detector, canonical))
        } else {
            let Ok(text) = std::str::from_utf8(canonical) else {
                return true;
            };
            first
                .user_alone
                .iter()
                .any(|&detector| catalog.confirm(detector, text))
        };
        user_alone
            || first
                .user_joined
                .as_ref()
                .is_some_and(|(regex, _)| regex.is_match(canonical))
    }

    /// Whether a detector whose prefilter the first pass finds in `joined` (strings
    /// each followed by a NUL byte) matches there with its full pattern and check.
    /// No built-in pattern matches across a NUL byte, and a user pattern that does
    /// only costs a walk that finds nothing. `lower` is room for a copy.
    fn first_pass(&self, catalog: &Catalog, joined: &str, lower: &mut Vec<u8>) -> bool {
        let first = &self.first;
        lower.clear();
        if first.searches_literals() {
            lower_copy(joined.as_bytes(), lower);
        }
        let text = joined;
        let builtin = first.builtins(
            joined.as_bytes(),
            lower,
            FirstPassText::Joined,
            &mut |detector, start, end| {
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

/// The texts [`Scanner::scan`] joins a response's strings into, kept between calls.
struct Joined {
    /// Every string, each followed by a NUL byte.
    text: String,
    /// Every key, each followed by a NUL byte.
    keys: String,
    /// Room for an ASCII lower-cased copy of the text a first pass reads.
    lower: Vec<u8>,
}

thread_local! {
    /// Room for the lower-cased copy of one string, for [`Scanner::scan_str`].
    static LOWER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    static JOINED: std::cell::RefCell<Joined> = const {
        std::cell::RefCell::new(Joined {
            text: String::new(),
            keys: String::new(),
            lower: Vec::new(),
        })
    };
}

/// The largest joined text kept between responses.
const JOINED_KEPT: usize = 4 << 20;

/// Appends every string of `value` to `text`, and every key to `keys` too, each
/// followed by a NUL byte, in the order of the value's canonical encoding.
fn join_strings(value: &Value, text: &mut String, keys: &mut String) {
    match value {
        Value::Object(members) => {
            for (key, value) in members {
                text.push_str(key);
                text.push('\0');
                keys.push_str(key);
                keys.push('\0');
                join_strings(value, text, keys);
            }
        }
        Value::Array(items) => {
            for item in items {
                join_strings(item, text, keys);
            }
        }
        Value::Str(s) => {
            text.push_str(s);
            text.push('\0');
        }
        Value::Int(_) | Value::Float(_) => {
            number_text(value, |digits| text.push_str(digits));
            text.push('\0');
        }
        Value::Null | Value::Bool(_) => {}
    }
}

/// Calls `with` with the canonical text of the number `value` (its digits as the
/// canonical encoding writes them), which the detectors read as they read a string:
/// `{"card": 4111111111111111}` holds a card number as `{"card": "4111..."}` does.
fn number_text<R>(value: &Value, with: impl FnOnce(&str) -> R) -> R {
    match value {
        Value::Int(digits) => with(digits),
        other => {
            let encoded = crate::canonical::encode(other);
            with(std::str::from_utf8(&encoded).unwrap_or_default())
        }
    }
}

/// A walk over the strings of a value, which keeps the JSON pointer of where it is.
struct Walk<'a> {
    scanner: &'a Scanner,
    catalog: &'a Catalog,
    /// The JSON pointer of the value being read.
    pointer: String,
    found: Vec<usize>,
    hits: Vec<Hit>,
}

impl Walk<'_> {
    /// Scans the strings of `value`, the value of the member named `key`, if any.
    /// The recursion is as deep as the value, which its parser bounds.
    fn value(&mut self, value: &Value, key: Option<&str>) {
        match value {
            Value::Object(members) => {
                for (name, member) in members {
                    self.scan_str(name, true, None);
                    let len = self.pointer.len();
                    push_token(&mut self.pointer, name);
                    self.value(member, Some(name));
                    self.pointer.truncate(len);
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let len = self.pointer.len();
                    // Writing to a `String` cannot fail.
                    let _ = write!(self.pointer, "/{i}");
                    self.value(item, None);
                    self.pointer.truncate(len);
                }
            }
            Value::Str(text) => self.scan_str(text, false, key),
            // A number is no secret assigned to its key: its digits are read by the
            // patterns only.
            Value::Int(_) | Value::Float(_) => {
                number_text(value, |digits| self.scan_str(digits, false, None));
            }
            Value::Null | Value::Bool(_) => {}
        }
    }

    /// Scans one string: a key (reported at the pointer of its object) or a value
    /// (at its own pointer; `key` is the name of its member, if any).
    fn scan_str(&mut self, text: &str, in_key: bool, key: Option<&str>) {
        scan_one(
            self.scanner,
            self.catalog,
            &mut self.found,
            &mut self.hits,
            &self.pointer,
            text,
            in_key,
            key,
        );
    }
}

/// Adds the hits in one string at `pointer` to `hits`: a key (`pointer` is that of
/// its object) or a value (`key` is the name of its member, if any). `found` is room
/// for the detectors found.
#[allow(clippy::too_many_arguments)]
fn scan_one(
    scanner: &Scanner,
    catalog: &Catalog,
    found: &mut Vec<usize>,
    hits: &mut Vec<Hit>,
    pointer: &str,
    text: &str,
    in_key: bool,
    key: Option<&str>,
) {
    found.clear();
    scanner.scan_str(catalog, text, found);
    if !in_key
        && let (Some(assignment), Some(key)) = (scanner.assignment, key)
        && !found.contains(&assignment)
        && catalog.assigned(key, text)
    {
        found.push(assignment);
        found.sort_by(|&a, &b| catalog.name(a).cmp(catalog.name(b)));
    }
    for &detector in found.iter() {
        hits.push(Hit {
            pointer: pointer.to_owned(),
            in_key,
            detector,
            key: in_key.then(|| text.into()),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{USERS, text};
    use super::super::prefilter::KeyEnd;
    use super::{Catalog, Scanner};
    use crate::json;
    use proptest::prelude::*;

    /// The names of the detectors `scanner` finds in the canonical form of `response`.
    fn hit_names<'c>(scanner: &Scanner, catalog: &'c Catalog, response: &str) -> Vec<&'c str> {
        let canonical = crate::canonical::encode(&json::parse(response).unwrap());
        scanner
            .scan(catalog, &canonical)
            .unwrap()
            .iter()
            .map(|h| catalog.name(h.detector))
            .collect()
    }

    #[test]
    fn a_key_a_detector_matches_is_never_shown_in_a_pointer() {
        let response = r#"{"AKIAIOSFODNN7EXAMPLE": {"mail": "ann@example.com", "inner": {"AKIAIOSFODNN7EXAMPLF": {"x": "bob@example.com"}}}, "plain": "cat@example.com"}"#;
        let found = hits(&["aws-access-key-id", "email-address"], response);
        assert_eq!(
            found,
            [
                ("".to_owned(), true, "aws-access-key-id".to_owned()),
                (
                    "/{aws-access-key-id}/inner".to_owned(),
                    true,
                    "aws-access-key-id".to_owned()
                ),
                (
                    "/{aws-access-key-id}/inner/{aws-access-key-id}/x".to_owned(),
                    false,
                    "email-address".to_owned()
                ),
                (
                    "/{aws-access-key-id}/mail".to_owned(),
                    false,
                    "email-address".to_owned()
                ),
                ("/plain".to_owned(), false, "email-address".to_owned()),
            ]
        );
    }

    fn hits(names: &[&str], response: &str) -> Vec<(String, bool, String)> {
        let catalog = Catalog::new(&[("ticket".to_owned(), "TICKET-[0-9]{4}".to_owned())]).unwrap();
        let chosen: Vec<usize> = names.iter().map(|n| catalog.find(n).unwrap()).collect();
        let scanner = Scanner::new(&catalog, &chosen).unwrap();
        let canonical = crate::canonical::encode(&json::parse(response).unwrap());
        scanner
            .scan(&catalog, &canonical)
            .unwrap()
            .into_iter()
            .map(|h| (h.pointer, h.in_key, catalog.name(h.detector).to_owned()))
            .collect()
    }

    /// Whether the first pass over `canonical` as it is, and the one over its joined
    /// strings, say a hit may be there.
    fn first_passes(catalog: &Catalog, scanner: &Scanner, canonical: &[u8]) -> (bool, bool) {
        let (mut text, mut keys, mut lower) = (String::new(), String::new(), Vec::new());
        let value = super::parse(canonical).unwrap();
        (
            scanner.canonical_may_match(catalog, canonical, &mut lower),
            scanner.joined_may_match(catalog, &value, &mut text, &mut keys, &mut lower),
        )
    }

    fn all() -> Vec<&'static str> {
        super::super::builtin_names().map(|(n, _)| n).collect()
    }

    fn found(response: &str) -> Vec<String> {
        hits(&all(), response).into_iter().map(|h| h.2).collect()
    }

    #[test]
    fn builtins_fit_one_set() {
        let catalog = Catalog::new(&[]).unwrap();
        let builtins: Vec<usize> = (0..super::BUILTINS.len()).collect();
        assert!(super::prefilter_set(&catalog, &builtins).is_ok());
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

    /// Numbers are read as their canonical digits, as strings are, at their own
    /// pointer.
    #[test]
    fn numbers_are_scanned_as_their_digits() {
        let card = |pointer: &str| (pointer.to_owned(), false, "payment-card".to_owned());
        assert_eq!(
            hits(&all(), r#"{"card": 4111111111111111}"#),
            [card("/card")]
        );
        assert_eq!(
            hits(
                &all(),
                r#"{"a": [1, -378282246310005], "b": 4111111111111112}"#
            ),
            [card("/a/1")]
        );
        assert_eq!(
            hits(
                &["phone-number", "ticket"],
                r#"{"n": 4155552671.5, "t": 12}"#
            ),
            []
        );
        // A float is read as the canonical encoding writes it.
        assert_eq!(hits(&all(), r#"{"n": 4.111111111111111e15}"#), [card("/n")]);
        assert_eq!(hits(&all(), r#"{"n": 4.111111111111111e16}"#), []);
        assert_eq!(hits(&all(), r#"{"password": 1.2345678901234567e+89}"#), []);
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
                    "/a~1b/0/{email-address}".to_owned(),
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
        assert_eq!(
            hit_names(&scanner, &catalog, r#"{"a": "x", "b": "TICKET 7"}"#),
            ["end", "start"]
        );
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
            assert_eq!(
                hit_names(&scanner, &catalog, response),
                name.into_iter().collect::<Vec<_>>(),
                "{response}"
            );
        }
    }

    /// What the first pass cannot rule out is read by the core's parser: text that is
    /// not JSON is an error, never a scan that finds nothing.
    #[test]
    fn what_is_not_json_cannot_be_scanned() {
        let (catalog, scanner) = &*USERS;
        let anchored = Catalog::new(&[("start".to_owned(), "^x".to_owned())]).unwrap();
        let bounded = Scanner::new(&anchored, &[anchored.find("start").unwrap()]).unwrap();
        let cut = br#"{"a":"AKIAIOSFODNN7EXAMPLE"#;
        let error = |scanner: &Scanner, catalog: &Catalog, bytes: &[u8]| {
            scanner.scan(catalog, bytes).map_err(|err| err.to_string())
        };
        assert_eq!(
            error(scanner, catalog, cut),
            Err("invalid JSON: unterminated string, found end of input at column 27".to_owned())
        );
        assert_eq!(
            error(&bounded, &anchored, b"\xff"),
            Err("invalid UTF-8: byte 0xff at column 1".to_owned())
        );
        assert_eq!(
            error(&bounded, &anchored, b"{\"a\": \xff}"),
            Err("invalid UTF-8: byte 0xff at column 7".to_owned())
        );
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
            let value = json::parse(response).unwrap();
            let canonical = crate::canonical::encode(&value);
            let hits = scanner.walk(catalog, &value);
            assert_eq!(!hits.is_empty(), hit, "{response}");
            assert_eq!(scanner.scan(catalog, &canonical), Ok(hits), "{response}");
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

    /// What [`Scanner::scan_str`] finds in `text`: the members whose prefilter the
    /// set of all of them matches, in its order, confirmed.
    fn by_the_set(catalog: &Catalog, scanner: &Scanner, text: &str) -> Vec<usize> {
        if text.len() < scanner.min_len {
            return Vec::new();
        }
        thread_local! {
            static SETS: std::cell::RefCell<std::collections::HashMap<Vec<usize>, regex::RegexSet>> =
                Default::default();
        }
        let slots = SETS.with_borrow_mut(|sets| {
            let set = sets
                .entry(scanner.members.clone())
                .or_insert_with(|| super::prefilter_set(catalog, &scanner.members).unwrap());
            set.matches(text)
        });
        slots
            .iter()
            .map(|slot| scanner.members[slot])
            .filter(|&detector| catalog.confirm(detector, text))
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// One string is read for the members' prefilters by the first pass and the
        /// set of the user's: what is found is what the set of all of them finds,
        /// for a scanner of every detector and one of each.
        #[test]
        fn a_string_is_scanned_as_the_set_of_prefilters_says(text in text()) {
            let (catalog, scanner) = &*USERS;
            let mut found = Vec::new();
            scanner.scan_str(catalog, &text, &mut found);
            prop_assert_eq!(&found, &by_the_set(catalog, scanner, &text));
            for detector in 0..catalog.names().count() {
                let alone = Scanner::new(catalog, &[detector]).unwrap();
                found.clear();
                alone.scan_str(catalog, &text, &mut found);
                prop_assert_eq!(&found, &by_the_set(catalog, &alone, &text));
            }
        }

        #[test]
        fn first_pass_never_loses_a_hit(strings in prop::collection::vec(text(), 1..4)) {
            let (catalog, scanner) = &*USERS;
            // Members keyed by the strings too, one by a secret's name.
            let value = json::Value::object(strings.iter().enumerate().map(|(i, s)| {
                let key = if i == 1 { "api_key" } else { s.as_str() };
                (key, json::Value::Str(s.clone()))
            }));
            let canonical = crate::canonical::encode(&value);
            let hits = scanner.walk(catalog, &value);
            prop_assert_eq!(scanner.scan(catalog, &canonical), Ok(hits.clone()));
            if !hits.is_empty() {
                prop_assert_eq!(first_passes(catalog, scanner, &canonical), (true, true));
            }
        }

        /// Numbers, read as their canonical digits, lose no hit either: integers of
        /// card lengths (valid or not) and floats, beside a string.
        #[test]
        fn first_pass_never_loses_a_hit_in_a_number(
            ints in prop::collection::vec("-?(4111111111111111|378282246310005|[1-9][0-9]{0,19})", 0..4),
            floats in prop::collection::vec(any::<f64>().prop_filter("finite", |x| x.is_finite()), 0..3),
            string in text(),
        ) {
            let (catalog, scanner) = &*USERS;
            let mut items: Vec<json::Value> =
                ints.into_iter().map(|d| json::Value::Int(d.into())).collect();
            items.extend(floats.into_iter().map(json::Value::Float));
            let value = json::Value::Object(vec![
                ("n".to_owned(), json::Value::Array(items)),
                ("password".to_owned(), json::Value::Float(1.2345678901234567e89)),
                ("s".to_owned(), json::Value::Str(string)),
            ]);
            let canonical = crate::canonical::encode(&value);
            let hits = scanner.walk(catalog, &value);
            prop_assert_eq!(scanner.scan(catalog, &canonical), Ok(hits.clone()));
            if !hits.is_empty() {
                prop_assert_eq!(first_passes(catalog, scanner, &canonical), (true, true));
            }
        }
    }
}
