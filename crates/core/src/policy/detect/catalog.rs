//! Every detector a policy can use, compiled once: the built-ins, then the user's;
//! and the confirmation of a candidate match with a detector's full pattern and
//! check.
//!
//! A built-in's full pattern is compiled when a candidate first needs it: most
//! responses never get past the first pass, and a process that checks one call (a
//! guard's hook event) would otherwise spend most of its time compiling patterns it
//! does not use. A user's pattern is compiled at once, as its errors are the
//! policy's.

use std::sync::OnceLock;

use regex::{Regex, RegexBuilder};

use super::check::{Check, MIN_ASSIGNED, high_entropy};
use super::{BUILTINS, DFA_SIZE_LIMIT, Group, KEY_WORDS, MAX_PATTERN_BYTES, PATTERN_SIZE_LIMIT};

/// The group of a built-in's pattern that its check reads, rather than the match.
const VALUE_GROUP: &str = "(?P<v>";

/// The value of a member that may be a secret assigned to a secret-like name.
const ASSIGNED_VALUE: &str = r"^[A-Za-z0-9_+/=.~-]+$";

/// One detector, compiled.
#[derive(Debug)]
struct Detector {
    name: String,
    /// What the scanner's combined pass looks for: the built-ins' prefilter, the
    /// whole pattern of a user detector.
    prefilter: String,
    regex: Pattern,
    /// For a user detector, its pattern on bytes: on a UTF-8 text it matches where
    /// `regex` does, and reads the text without converting it to `str` first.
    bytes: Option<regex::bytes::Regex>,
    check: Option<Check>,
    /// Whether the check reads the group `v` of a match rather than the match:
    /// otherwise matches are found without their groups, which costs less.
    checks_group: bool,
    min_len: usize,
}

/// A pattern compiled now (a user's) or when first needed (a built-in's).
#[derive(Debug)]
enum Pattern {
    /// Compiled already.
    Compiled(Regex),
    /// A built-in's, compiled when first needed.
    Later {
        pattern: &'static str,
        compiled: OnceLock<Option<Regex>>,
    },
}

impl Pattern {
    /// A built-in's pattern, compiled when first needed.
    fn later(pattern: &'static str) -> Pattern {
        Pattern::Later {
            pattern,
            compiled: OnceLock::new(),
        }
    }

    /// The compiled pattern; `None` only if a built-in's did not compile, which
    /// `builtins_compile` rules out. The callers then take the pattern as matching:
    /// a detector that cannot be evaluated reports, never passes.
    fn get(&self) -> Option<&Regex> {
        match self {
            Pattern::Compiled(regex) => Some(regex),
            Pattern::Later { pattern, compiled } => {
                compiled.get_or_init(|| Regex::new(pattern).ok()).as_ref()
            }
        }
    }
}

/// Every detector a policy can use, compiled once: the built-ins, then the user's.
#[derive(Debug)]
pub(crate) struct Catalog {
    detectors: Vec<Detector>,
    assignment: Option<usize>,
    key_words: Pattern,
    assigned_value: Pattern,
}

impl Catalog {
    /// The built-ins and the user detectors `custom` (name, pattern). The error is
    /// the index in `custom` of the first bad detector and what is wrong with it.
    pub(crate) fn new(custom: &[(String, String)]) -> Result<Catalog, (usize, String)> {
        let mut detectors = Vec::with_capacity(BUILTINS.len() + custom.len());
        for builtin in BUILTINS {
            detectors.push(Detector {
                name: builtin.name.to_owned(),
                prefilter: builtin.prefilter.to_owned(),
                regex: Pattern::later(builtin.pattern),
                bytes: None,
                check: builtin.check,
                checks_group: builtin.pattern.contains(VALUE_GROUP),
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
            let bytes = regex::bytes::RegexBuilder::new(pattern)
                .size_limit(PATTERN_SIZE_LIMIT)
                .dfa_size_limit(DFA_SIZE_LIMIT)
                .build()
                .ok();
            detectors.push(Detector {
                name: name.clone(),
                prefilter: pattern.clone(),
                regex: Pattern::Compiled(regex),
                bytes,
                check: None,
                checks_group: false,
                min_len: 1,
            });
        }
        let assignment = detectors
            .iter()
            .position(|d| d.name == "high-entropy-assignment");
        Ok(Catalog {
            detectors,
            assignment,
            key_words: Pattern::later(KEY_WORDS),
            assigned_value: Pattern::later(ASSIGNED_VALUE),
        })
    }

    /// The names of the detectors, built-ins first.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.detectors.iter().map(|d| d.name.as_str())
    }

    /// The index of the detector named `name`.
    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        self.detectors.iter().position(|d| d.name == name)
    }

    /// The indices of the built-in detectors of `group`.
    pub(crate) fn group(&self, group: Group) -> Vec<usize> {
        BUILTINS
            .iter()
            .enumerate()
            .filter(|(_, b)| b.group == group)
            .map(|(i, _)| i)
            .collect()
    }

    /// The name of detector `index`.
    pub(crate) fn name(&self, index: usize) -> &str {
        &self.detectors[index].name
    }

    /// What the scanner's combined pass looks for in detector `index`: a built-in's
    /// prefilter, the whole pattern of a user detector.
    pub(super) fn prefilter(&self, index: usize) -> &str {
        &self.detectors[index].prefilter
    }

    /// The shortest text detector `index` can match, in bytes.
    pub(super) fn min_len(&self, index: usize) -> usize {
        self.detectors[index].min_len
    }

    /// Whether detector `index` checks what its pattern matched.
    pub(super) fn has_check(&self, index: usize) -> bool {
        self.detectors[index].check.is_some()
    }

    /// The index of `high-entropy-assignment`, whose matches are also looked for in
    /// the members of objects, name and value apart.
    pub(super) fn assignment(&self) -> Option<usize> {
        self.assignment
    }

    /// Whether detector `index`, whose prefilter matched somewhere in `text`,
    /// matches there and its check holds on a match.
    pub(super) fn confirm(&self, index: usize, text: &str) -> bool {
        let detector = &self.detectors[index];
        let Some(regex) = detector.regex.get() else {
            return true;
        };
        let Some(check) = detector.check else {
            return regex.is_match(text);
        };
        if !detector.checks_group {
            return regex
                .find_iter(text)
                .any(|m| check(text, m.start(), m.end()));
        }
        regex.captures_iter(text).any(|caps| {
            let m = caps.name("v").unwrap_or_else(|| caps.get_match());
            check(text, m.start(), m.end())
        })
    }

    /// [`Catalog::confirm`] of a detector without a check (a user's) on `text`, all
    /// ASCII: read as bytes, without a conversion to `str`.
    pub(super) fn confirm_ascii(&self, index: usize, text: &[u8]) -> bool {
        let detector = &self.detectors[index];
        match &detector.bytes {
            Some(bytes) if detector.check.is_none() => bytes.is_match(text),
            _ => std::str::from_utf8(text).is_ok_and(|text| self.confirm(index, text)),
        }
    }

    /// Whether detector `index` matches in `text` where it starts in `start..end`, a
    /// run no match of it crosses, and its check holds on a match: the matches that
    /// start there are those of the whole text, each found from the run's start with
    /// the text before it as context, and the byte after it when it is part of a word.
    pub(super) fn confirm_within(
        &self,
        index: usize,
        text: &str,
        start: usize,
        end: usize,
    ) -> bool {
        let detector = &self.detectors[index];
        let Some(regex) = detector.regex.get() else {
            return true;
        };
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
        let next = |at: usize| {
            if detector.checks_group {
                let caps = regex.captures_at(hay, at)?;
                let whole = caps.get_match();
                Some((whole, caps.name("v").unwrap_or(whole)))
            } else {
                let whole = regex.find_at(hay, at)?;
                Some((whole, whole))
            }
        };
        while let Some((whole, m)) = next(at) {
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

    /// Whether `text` holds a name secrets are assigned to (as in `api_key = "..."`).
    pub(super) fn has_key_word(&self, text: &str) -> bool {
        self.key_words.get().is_none_or(|r| r.is_match(text))
    }

    /// Whether the string `value` of the member named `key` is a high-entropy secret
    /// assigned to a secret-like name.
    pub(super) fn assigned(&self, key: &str, value: &str) -> bool {
        value.len() >= MIN_ASSIGNED
            && (self.assigned_value.get()).is_none_or(|r| r.is_match(value))
            && self.has_key_word(key)
            && high_entropy(value, 0, value.len())
    }
}

/// A regex error on one line: its last line, without the `error: ` of syntax errors.
pub(super) fn regex_error(err: &regex::Error) -> String {
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

#[cfg(test)]
mod tests {
    use super::super::BUILTINS;
    use super::super::fixtures::text;
    use super::Catalog;
    use proptest::prelude::*;

    /// Whether each built-in's prefilter matches `text` wherever its pattern and
    /// check do: what the prefilter rules out, the detector never finds.
    fn assert_prefilters_hold(text: &str) {
        static PREFILTERS: std::sync::LazyLock<(Catalog, Vec<regex::Regex>)> =
            std::sync::LazyLock::new(|| {
                let regexes = BUILTINS
                    .iter()
                    .map(|b| regex::Regex::new(b.prefilter).unwrap())
                    .collect();
                (Catalog::new(&[]).unwrap(), regexes)
            });
        let (catalog, regexes) = &*PREFILTERS;
        for (i, builtin) in BUILTINS.iter().enumerate() {
            if catalog.confirm(i, text) {
                assert!(regexes[i].is_match(text), "{} in {text:?}", builtin.name);
            }
        }
    }

    #[test]
    fn prefilters_hold_wherever_patterns_do() {
        for text in [
            "call +44 20 7946 0958 now",
            "+1 (415) 555-2671",
            "+1-415-555-2671",
            "+12 345 678",
            "+1234567890",
            "(415) 555-2671",
            "mail ana.b+x@mail.example.org.",
            "a@b-c.d-e.fg",
            "x%y@1.2.3.com",
            "4111 1111 1111 1111",
            "5555-5555-5555-4444",
            "378282246310005",
            "xoxb-1234567890-abcdef",
            "hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX",
            "hooks.slack.com/workflows/AAAAAAAAAAAAAAAAAAAAAAAAAAA",
        ] {
            assert_prefilters_hold(text);
        }
        let catalog = Catalog::new(&[]).unwrap();
        let phone = catalog.find("phone-number").unwrap();
        let email = catalog.find("email-address").unwrap();
        assert!(catalog.confirm(phone, "call +44 20 7946 0958 now"));
        assert!(catalog.confirm(email, "mail ana.b+x@mail.example.org."));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn prefilters_match_wherever_patterns_do(text in text()) {
            assert_prefilters_hold(&text);
        }
    }

    #[test]
    fn builtins_compile() {
        for builtin in BUILTINS {
            let regex = regex::Regex::new(builtin.pattern).expect(builtin.name);
            let group = regex.capture_names().any(|name| name == Some("v"));
            assert_eq!(
                builtin.pattern.contains(super::VALUE_GROUP),
                group,
                "{}",
                builtin.name
            );
        }
        let catalog = Catalog::new(&[]).unwrap();
        for pattern in [&catalog.key_words, &catalog.assigned_value] {
            assert!(pattern.get().is_some(), "{pattern:?}");
        }
        for (i, detector) in catalog.detectors.iter().enumerate() {
            assert!(detector.regex.get().is_some(), "{}", catalog.name(i));
        }
    }

    #[test]
    fn bad_user_patterns_are_named() {
        let custom = |p: &str| Catalog::new(&[("x".to_owned(), p.to_owned())]).unwrap_err();
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
