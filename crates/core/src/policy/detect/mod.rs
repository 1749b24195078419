//! Response detectors: secrets and personal data in the strings of a response.
//!
//! The built-in detectors follow the well-known patterns of established secret
//! scanners, each written here as a regular expression for the linear-time `regex`
//! engine, some followed by a check of what matched (Luhn for card numbers, Shannon
//! entropy for assignments, digit counts for phone numbers). A scanner looks for cheap
//! prefilters of the detectors chosen for a tool (a literal prefix and little more,
//! each matching wherever its detector can) in each string at once, by the first
//! pass below for the built-ins and one `RegexSet` of the user's detectors, and only
//! the detectors whose prefilter matched read it again with their full pattern and
//! check. Before that, a first pass over all the
//! strings of a response at once rules most responses out: it looks for the
//! built-ins' prefilters without a regex (byte loops, `memchr` and one search of
//! their literals), and runs regexes only for the user's detectors. It reads the
//! response's canonical JSON as it is first, which needs no decoding, whenever every
//! user pattern only matches printable ASCII (see `plain_ascii`); only a response
//! it cannot rule out is parsed, by the core's JSON parser, and has its strings
//! joined for the exact pass. A response that cannot be parsed cannot be scanned:
//! an error, never a scan that finds nothing.
//!
//! By concern:
//!
//! - this module: the table of built-in detectors (`BUILTINS`) and their groups;
//! - `check`: the checks of what a built-in's pattern matched;
//! - `prefilter`: the first pass over a whole response, and the search of each
//!   built-in's prefilter it is made of;
//! - `catalog`: every detector a policy can use, compiled, and the confirmation of a
//!   candidate match with a detector's full pattern;
//! - `scanner`: the detectors chosen for a tool, and the scan of a response.

mod catalog;
mod check;
mod prefilter;
mod scanner;
mod stream;

pub(crate) use catalog::Catalog;
pub(crate) use scanner::Scanner;

use check::{
    Check, card_check, email_check, has_digit_and_letter_check, high_entropy, phone_check,
};
use prefilter::{
    PrefilterSearch, anything_after, assignment_after, aws_after, blank_after, github_after,
    google_after, slack_after,
};

/// The longest user pattern accepted, in bytes.
pub(crate) const MAX_PATTERN_BYTES: usize = 4096;
/// The most user detectors a policy may declare.
pub(crate) const MAX_CUSTOM_DETECTORS: usize = 64;
/// The compiled-size limit of one user pattern, in bytes.
const PATTERN_SIZE_LIMIT: usize = 1 << 20;
/// The size limit of a compiled scanner (all its patterns), in bytes.
const SET_SIZE_LIMIT: usize = 16 << 20;
/// The lazy-DFA cache of one pattern or scanner, in bytes.
const DFA_SIZE_LIMIT: usize = 2 << 20;

/// Which family a built-in detector belongs to: each is also a name for them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Group {
    /// `secrets`.
    Secrets,
    /// `personal-data`.
    PersonalData,
}

impl Group {
    /// The group's name in a policy.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Group::Secrets => "secrets",
            Group::PersonalData => "personal-data",
        }
    }
}

/// A built-in detector.
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
    search: PrefilterSearch,
}

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
        search: PrefilterSearch::Literals {
            literals: &["A3T", "AKIA", "ASIA", "ABIA", "ACCA"],
            fold: false,
            after: aws_after,
        },
    },
    Builtin {
        name: "bearer-token",
        prefilter: r"(?i-u:bearer)[ \t]",
        group: Group::Secrets,
        pattern: r"(?-u:\b)(?i-u:bearer)[ \t]+(?P<v>[A-Za-z0-9._~+/-]{20,}=*)",
        check: Some(has_digit_and_letter_check),
        min_len: 27,
        search: PrefilterSearch::Literals {
            literals: &["bearer"],
            fold: true,
            after: blank_after,
        },
    },
    Builtin {
        name: "email-address",
        prefilter: r"[A-Za-z0-9._%+-]@[A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z]{2}",
        group: Group::PersonalData,
        pattern: r"[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?-u:\b)",
        check: Some(email_check),
        min_len: 6,
        search: PrefilterSearch::Email,
    },
    Builtin {
        name: "github-token",
        prefilter: r"gh[pousr]_[A-Za-z0-9]|github_pat_",
        group: Group::Secrets,
        pattern: r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{82})(?-u:\b)",
        check: None,
        min_len: 40,
        search: PrefilterSearch::Literals {
            literals: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
            fold: false,
            after: github_after,
        },
    },
    Builtin {
        name: "gitlab-token",
        prefilter: r"glpat-",
        group: Group::Secrets,
        pattern: r"(?-u:\b)glpat-[A-Za-z0-9_-]{20}",
        check: None,
        min_len: 26,
        search: PrefilterSearch::Literals {
            literals: &["glpat-"],
            fold: false,
            after: anything_after,
        },
    },
    Builtin {
        name: "google-api-key",
        prefilter: r"AIza[0-9A-Za-z_-]",
        group: Group::Secrets,
        pattern: r"(?-u:\b)AIza[0-9A-Za-z_-]{35}",
        check: None,
        min_len: 39,
        search: PrefilterSearch::Literals {
            literals: &["AIza"],
            fold: false,
            after: google_after,
        },
    },
    Builtin {
        name: "high-entropy-assignment",
        prefilter: r#"(?i-u:api[_-]?key|apikey|secret|token|passw(?:or)?d|pwd|access[_-]?key|client[_-]?secret|auth[_-]?token|credential)[A-Za-z0-9_-]{0,16}["']?[ \t]*(?::|=|:=|=>)[ \t]*["']?[A-Za-z0-9_+/=.~-]{16}"#,
        group: Group::Secrets,
        pattern: r#"(?i-u:api[_-]?key|apikey|secret|token|passw(?:or)?d|pwd|access[_-]?key|client[_-]?secret|auth[_-]?token|credential)[A-Za-z0-9_-]{0,16}["']?[ \t]*(?::|=|:=|=>)[ \t]*["']?(?P<v>[A-Za-z0-9_+/=.~-]{16,})"#,
        check: Some(high_entropy),
        min_len: 20,
        search: PrefilterSearch::Literals {
            literals: KEY_WORD_LITERALS,
            fold: true,
            after: assignment_after,
        },
    },
    Builtin {
        name: "payment-card",
        prefilter: r"[0-9](?:[ -]?[0-9]){12}",
        group: Group::PersonalData,
        pattern: r"(?-u:\b)(?:[0-9][ -]?){12,18}[0-9](?-u:\b)",
        check: Some(card_check),
        min_len: 13,
        search: PrefilterSearch::Card,
    },
    Builtin {
        name: "phone-number",
        prefilter: r"\+[1-9](?:[ .()-]*[0-9]){7}|\(?[2-9][0-9]{2}\)?[ .-]?[2-9][0-9]{2}[ .-][0-9]{4}",
        group: Group::PersonalData,
        pattern: r"\+[1-9][0-9]{0,3}(?:[ .-]?\(?[0-9]{1,4}\)?){1,5}[ .-]?[0-9]{2,6}(?-u:\b)|\(?[2-9][0-9]{2}\)?[ .-]?[2-9][0-9]{2}[ .-][0-9]{4}(?-u:\b)",
        check: Some(phone_check),
        min_len: 9,
        search: PrefilterSearch::Phone,
    },
    Builtin {
        name: "private-key",
        prefilter: r"-----BEGIN",
        group: Group::Secrets,
        pattern: r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----",
        check: None,
        min_len: 31,
        search: PrefilterSearch::Literals {
            literals: &["-----BEGIN"],
            fold: false,
            after: anything_after,
        },
    },
    Builtin {
        name: "slack-token",
        prefilter: r"xox[abposr]-|hooks\.slack\.com/(?:services|workflows)/",
        group: Group::Secrets,
        pattern: r"(?-u:\b)xox[abposr]-[A-Za-z0-9-]{10,}|hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/]{20,}",
        check: None,
        min_len: 15,
        search: PrefilterSearch::Literals {
            literals: &["xox", "hooks.slack.com/"],
            fold: false,
            after: slack_after,
        },
    },
];

/// The names of the built-in detectors, sorted.
pub(crate) fn builtin_names() -> impl Iterator<Item = (&'static str, Group)> {
    BUILTINS.iter().map(|b| (b.name, b.group))
}

#[cfg(test)]
mod fixtures {
    //! What the tests of several files of this module share.

    use proptest::prelude::*;

    use super::{BUILTINS, Catalog, Scanner};

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
                ".org",
                "b-c.io",
                "7946 0958",
                "(0) ",
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

    pub(super) fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(piece(), 0..24).prop_map(|p| p.concat())
    }

    /// All the detectors, with user ones with and without a literal.
    pub(super) static USERS: std::sync::LazyLock<(Catalog, Scanner)> =
        std::sync::LazyLock::new(|| {
            let catalog = Catalog::new(&[
                ("ticket".to_owned(), "TICKET-[0-9]{4}".to_owned()),
                ("host".to_owned(), r"[a-z0-9-]+\.corp\.internal".to_owned()),
                ("digits".to_owned(), "[0-9]{3}[a-z]".to_owned()),
            ])
            .unwrap();
            let all: Vec<usize> = (0..BUILTINS.len() + 3).collect();
            let scanner = Scanner::new(&catalog, &all).unwrap();
            (catalog, scanner)
        });
}
