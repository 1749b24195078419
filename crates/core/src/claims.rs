//! The claims layer (docs/graph.md, "The claims layer"): each sentence of an agent's
//! final answer that holds a checkable atom, held against the calls.
//!
//! The input is the calls, in order, and the conversation: each user prompt and each
//! answer of the agent, placed after the index of the last call before it
//! ([`Message`]). A turn starts at a prompt and ends at the next; its final answer is
//! its last answer. Every rule here is deterministic and documented in
//! docs/graph.md with the words it matches:
//!
//! - **Sentences.** An answer is read line by line; fenced code blocks are skipped; a
//!   line's list, heading and quote markers are dropped; a sentence ends at `.`, `!`
//!   or `?` followed by white space or the end of the line, outside a code span.
//! - **Atoms.** Code spans (a URL, a command when its first word is a known
//!   command, a path, or else code), quoted strings, URLs, paths, numbers, and
//!   stated outcomes of tests or builds ("all tests pass", "42 passed", "the build
//!   succeeds"). A sentence with a change word ("updated", "fixed", ...) says that
//!   its paths changed.
//! - **Evidence** (`supports`, each with its rule): `path-produced`, `path-used`,
//!   `command-run`, `url-fetched`, `text-appears`, `outcome-run`; calls up to the
//!   answer count, an outcome's run only within the answer's turn.
//! - **Verdicts.** `contradicted` when an atom is (a stated outcome the last
//!   matching run of the turn did not have, or no such run after the turn's last
//!   change; a path said changed that no call changed); else `unsupported` when an
//!   atom has no evidence; else `supported`.
//!
//! Time and memory: the messages are held; each call's arguments and response are
//! read once, searched for every text atom at once with one automaton, and
//! dropped. A test or build run's response is searched for its summary lines with
//! one pass of a set of expressions.

use std::collections::HashMap;
use std::io::BufRead;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, MatchKind};
use regex::{Regex, RegexSet};
use serde::Serialize;

use crate::chain::Verifier;
use crate::error::ReadError;
use crate::graph::{Action, ArtifactKind, Roles, artifact_name, strings};
use crate::json::{self, Value};
use crate::lines::Lines;
use crate::policy::paths::{Normalised, normalise};
use crate::transcript::{parse_canonical_record, parse_link};

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageKind {
    /// The user's prompt: it starts a turn.
    Prompt,
    /// The agent's answer: the last one of a turn is its final answer.
    Answer,
}

/// A message of the conversation, placed among the calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// A prompt or an answer.
    pub kind: MessageKind,
    /// The index of the last call before it, `None` before any.
    pub after: Option<u64>,
    /// The digest of that call's link, when the source names it (a live session's
    /// context file): the message then belongs to a sealed session whose link
    /// `after` has this digest, which [`check_claims`] and the graph check.
    pub after_digest: Option<String>,
    /// Its text.
    pub text: String,
}

/// The first message of `messages` that names a digest its link does not have:
/// `digest_at(i)` is the digest of link `i`, `None` when there is no such link. The
/// words of the error that says the messages are not the session's.
pub(crate) fn misplaced_message(
    messages: &[Message],
    digest_at: impl Fn(u64) -> Option<String>,
) -> Option<(u64, String)> {
    messages.iter().find_map(|message| {
        let (Some(index), Some(named)) = (message.after, &message.after_digest) else {
            return None;
        };
        let kind = match message.kind {
            MessageKind::Prompt => "prompt",
            MessageKind::Answer => "answer",
        };
        match digest_at(index) {
            Some(digest) if digest == *named => None,
            Some(digest) => Some((index, format!(
                "the context file's {kind} after link {index} names its digest {named}, but that link's digest is {digest}: the context file is not this session's"
            ))),
            None => Some((index, format!(
                "the context file's {kind} after link {index} names a sealed link the input does not have: the context file is not this session's"
            ))),
        }
    })
}

impl Message {
    /// A prompt after the call at `after`.
    pub fn prompt(after: Option<u64>, text: &str) -> Message {
        Message {
            kind: MessageKind::Prompt,
            after,
            after_digest: None,
            text: text.to_owned(),
        }
    }

    /// An answer after the call at `after`.
    pub fn answer(after: Option<u64>, text: &str) -> Message {
        Message {
            kind: MessageKind::Answer,
            after,
            after_digest: None,
            text: text.to_owned(),
        }
    }
}

/// A turn: a prompt (none for calls before the first prompt) and its calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Turn {
    /// Its number, from 0.
    pub number: usize,
    /// The prompt's text, if the turn has one.
    pub prompt: Option<String>,
    /// The first call of the turn: the one after the prompt's `after`.
    pub first_call: u64,
    /// The first call of the next turn, `None` for the last turn: the turn's calls
    /// are those from `first_call` up to it.
    pub end_call: Option<u64>,
    /// The final answer's `after`, when the turn has an answer; `None` for an
    /// answer before any call.
    pub answer_after: Option<u64>,
    /// Whether the turn has an answer.
    pub answered: bool,
}

impl Turn {
    fn holds(&self, index: u64) -> bool {
        index >= self.first_call && self.end_call.is_none_or(|end| index < end)
    }
}

/// What an atom is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AtomKind {
    /// A file path.
    Path,
    /// A command line (a code span whose first word is a known command).
    Command,
    /// A URL.
    Url,
    /// A number.
    Number,
    /// A code span.
    Code,
    /// A quoted string.
    Quoted,
    /// A stated outcome of tests or a build.
    Outcome,
}

/// A stated outcome of tests or a build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "stated", rename_all = "snake_case")]
pub enum Outcome {
    /// The tests pass.
    TestsPass,
    /// This many tests passed.
    Passed {
        /// How many.
        count: u64,
    },
    /// This many tests failed.
    Failed {
        /// How many.
        count: u64,
    },
    /// The build succeeds.
    BuildSucceeds,
}

/// What the evidence says of an atom.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AtomStatus {
    /// A call holds it.
    Supported,
    /// The evidence says otherwise.
    Contradicted,
    /// Nothing holds it.
    Unsupported,
}

/// A `supports` edge: the call that holds an atom, and the rule that says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Support {
    /// The call's index.
    pub call: u64,
    /// The rule.
    pub rule: &'static str,
}

/// A checkable piece of a sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Atom {
    /// What it is.
    pub kind: AtomKind,
    /// Its text as the sentence has it (a path normalised).
    pub text: String,
    /// For a path: whether the sentence says it changed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub changed: bool,
    /// For an outcome: what it states.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// What the evidence says.
    pub status: AtomStatus,
    /// The evidence that holds it: the latest call before the answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub support: Option<Support>,
    /// Why it is contradicted, naming the call when one says otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The call that says otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub against: Option<u64>,
}

/// A claim's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ClaimVerdict {
    /// Every atom has evidence.
    Supported,
    /// The evidence says otherwise of an atom.
    Contradicted,
    /// An atom has no evidence.
    Unsupported,
}

impl ClaimVerdict {
    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            ClaimVerdict::Supported => "supported",
            ClaimVerdict::Contradicted => "contradicted",
            ClaimVerdict::Unsupported => "unsupported",
        }
    }
}

/// A sentence of a final answer holding at least one atom.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Claim {
    /// The turn whose final answer says it.
    pub turn: usize,
    /// The sentence.
    pub text: String,
    /// Its atoms, in the order the rules take them.
    pub atoms: Vec<Atom>,
    /// The verdict.
    pub verdict: ClaimVerdict,
}

/// How many claims have each verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ClaimCounts {
    /// Supported.
    pub supported: u64,
    /// Contradicted.
    pub contradicted: u64,
    /// Unsupported.
    pub unsupported: u64,
}

/// The claims of a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClaimsReport {
    /// How many calls were read.
    pub calls: u64,
    /// The turns.
    pub turns: Vec<Turn>,
    /// The claims, in order.
    pub claims: Vec<Claim>,
    /// The counts of verdicts.
    pub counts: ClaimCounts,
}

/// The turns of `messages`, in order, with each turn's final answer: a turn for
/// each prompt, and one before the first prompt when an answer comes before it.
pub fn turns_of(messages: &[Message]) -> (Vec<Turn>, Vec<Option<&str>>) {
    let mut turns: Vec<Turn> = Vec::new();
    let mut answers: Vec<Option<&str>> = Vec::new();
    for message in messages {
        match message.kind {
            MessageKind::Prompt => {
                let start = message.after.map_or(0, |a| a + 1);
                if let Some(last) = turns.last_mut() {
                    last.end_call = Some(start);
                }
                turns.push(Turn {
                    number: turns.len(),
                    prompt: Some(message.text.clone()),
                    first_call: start,
                    end_call: None,
                    answer_after: None,
                    answered: false,
                });
                answers.push(None);
            }
            MessageKind::Answer => {
                if turns.is_empty() {
                    turns.push(Turn {
                        number: 0,
                        prompt: None,
                        first_call: 0,
                        end_call: None,
                        answer_after: None,
                        answered: false,
                    });
                    answers.push(None);
                }
                let last = turns.len() - 1;
                turns[last].answer_after = message.after;
                turns[last].answered = true;
                answers[last] = Some(message.text.as_str());
            }
        }
    }
    (turns, answers)
}

// ---------------------------------------------------------------------------
// Sentences and atoms.

/// The words that make a sentence say its paths changed.
pub const CHANGE_WORDS: &[&str] = &[
    "added",
    "changed",
    "created",
    "deleted",
    "edited",
    "fixed",
    "implemented",
    "modified",
    "moved",
    "refactored",
    "removed",
    "renamed",
    "rewrote",
    "updated",
    "wrote",
];

/// The words that make a sentence hold no stated success (it negates it).
pub const NEGATION_WORDS: &[&str] = &["not", "never", "cannot", "no longer", "n't"];

/// The first words that make a code span a command.
pub const COMMAND_WORDS: &[&str] = &[
    "bash",
    "bun",
    "bundle",
    "cargo",
    "cat",
    "cd",
    "cmake",
    "ctest",
    "curl",
    "deno",
    "docker",
    "dotnet",
    "echo",
    "find",
    "git",
    "go",
    "gradle",
    "./gradlew",
    "gradlew",
    "grep",
    "jest",
    "just",
    "ls",
    "make",
    "mix",
    "mvn",
    "./mvnw",
    "node",
    "npm",
    "npx",
    "pip",
    "pnpm",
    "poetry",
    "pytest",
    "python",
    "python3",
    "rake",
    "rg",
    "rspec",
    "ruby",
    "rustc",
    "sed",
    "sh",
    "tox",
    "tsc",
    "uv",
    "vitest",
    "yarn",
];

/// The extensions that make a word a file's name.
pub const PATH_EXTENSIONS: &[&str] = &[
    "c", "cc", "cfg", "cjs", "conf", "cpp", "cs", "css", "csv", "ex", "exs", "go", "gradle", "h",
    "hpp", "html", "ini", "java", "js", "json", "jsonl", "jsx", "kt", "kts", "lock", "lua", "md",
    "mjs", "mod", "php", "proto", "py", "rb", "rs", "scala", "sh", "sql", "sum", "svelte", "swift",
    "toml", "ts", "tsx", "txt", "vue", "xml", "yaml", "yml",
];

/// The names without an extension that are files' names.
pub const PATH_NAMES: &[&str] = &[
    "Dockerfile",
    "Gemfile",
    "Justfile",
    "Makefile",
    "Rakefile",
    "LICENSE",
];

/// The names of products written like files (`Next.js`): in prose, outside a code
/// span, such a word is no path (compared without case).
pub const PRODUCT_NAMES: &[&str] = &[
    "Angular.js",
    "Backbone.js",
    "Chart.js",
    "D3.js",
    "Ember.js",
    "Express.js",
    "Ext.js",
    "Knockout.js",
    "Nest.js",
    "Next.js",
    "Node.js",
    "Nuxt.js",
    "React.js",
    "Solid.js",
    "Three.js",
    "Vue.js",
];

/// A phrase stating an outcome, and the outcome it states given its number.
type Phrase = (Regex, fn(Option<u64>) -> Option<Outcome>);

static OUTCOME_PHRASES: LazyLock<[Phrase; 5]> = LazyLock::new(|| {
    let re = |text: &str| Regex::new(text).expect("a valid expression");
    [
        (
            re(
                r"(?i)\b(\d+)\s+(?:(?:unit|integration)\s+)?(?:tests?\s+)?(?:still\s+|now\s+)?(?:failed|failing|fail|failures?)\b",
            ),
            |n| match n {
                Some(0) => Some(Outcome::TestsPass),
                Some(count) => Some(Outcome::Failed { count }),
                None => None,
            },
        ),
        (
            re(
                r"(?i)\b(\d+)\s+(?:(?:unit|integration)\s+)?(?:tests?\s+)?(?:now\s+)?(?:passed|passing|pass|succeeded)\b",
            ),
            |n| n.map(|count| Outcome::Passed { count }),
        ),
        (
            re(
                r"(?i)\b(?:tests?|test\s+suite|specs?)\s+(?:now\s+|all\s+|still\s+)?(?:pass(?:es|ed)?|succeed(?:s|ed)?|(?:are|is)\s+(?:now\s+|all\s+)?(?:passing|green))\b",
            ),
            |_| Some(Outcome::TestsPass),
        ),
        (re(r"(?i)\bno\s+(?:test\s+)?failures\b"), |_| {
            Some(Outcome::TestsPass)
        }),
        (
            re(
                r"(?i)\b(?:(?:build|compilation)\s+(?:now\s+)?(?:succeeds|succeeded|passes|passed|is\s+(?:green|clean|successful|passing))|builds?\s+(?:cleanly|successfully|without\s+errors)|compiles?\s+(?:cleanly|successfully|without\s+errors)|(?:it|everything|the\s+code|the\s+project)\s+(?:now\s+)?compiles|no\s+(?:compile|compilation|build)\s+errors)\b",
            ),
            |_| Some(Outcome::BuildSucceeds),
        ),
    ]
});

static CODE_SPAN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"`([^`]+)`").expect("valid"));
static QUOTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#""([^"\n]+)"|“([^”\n]+)”"#).expect("valid"));
static URL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"\bhttps?://[^\s<>()\[\]"'`]+"#).expect("valid"));
static NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d+(?:[.,]\d+)*%?$").expect("valid"));
static MARKER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:#+\s+|>\s*|[-*+]\s+|\d+[.)]\s+)*(?:\[[ xX]\]\s+)?").expect("valid")
});

/// A line that is only an emphasised label (`**Flight Option 1:**`,
/// `**Changes**:`): it names what follows and claims nothing.
static LABEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:\*\*[^*]+:\*\*|\*\*[^*]+\*\*:|__[^_]+:__|__[^_]+__:)\s*$").expect("valid")
});

/// The sentences of an answer (see the module's rules).
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let rest = &line[MARKER.find(line).map_or(0, |m| m.end())..];
        if LABEL.is_match(rest) {
            continue;
        }
        let mut in_code = false;
        let mut start = 0;
        let bytes = rest.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'`' => in_code = !in_code,
                b'.' | b'!' | b'?'
                    if !in_code && bytes.get(i + 1).is_none_or(u8::is_ascii_whitespace) =>
                {
                    let sentence = rest[start..=i].trim();
                    if !sentence.is_empty() {
                        out.push(sentence.to_owned());
                    }
                    start = i + 1;
                }
                _ => {}
            }
        }
        let sentence = rest[start..].trim();
        if !sentence.is_empty() {
            out.push(sentence.to_owned());
        }
    }
    out
}

/// Whether `word` names a file (see the module's rules).
fn is_path(word: &str) -> bool {
    if word.len() < 2
        || word.contains("://")
        || !word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/~+@".contains(c))
    {
        return false;
    }
    let last = word.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    if PATH_NAMES.contains(&last) {
        return true;
    }
    if let Some((stem, ext)) = last.rsplit_once('.')
        && !stem.is_empty()
        && !stem.chars().all(|c| c == '.')
        && PATH_EXTENSIONS.contains(&ext)
    {
        return true;
    }
    word.contains('/')
        && word.chars().any(|c| c.is_ascii_alphanumeric())
        && (["/", "./", "../", "~/"].iter().any(|p| word.starts_with(p)) || word.ends_with('/'))
}

/// A path as atoms and artifacts are compared: normalised, without `./` or a
/// trailing `/`.
fn path_key(raw: &str) -> String {
    let text = match normalise(raw.trim_end_matches('/')) {
        Normalised::Path(path) => path,
        Normalised::Escapes => raw.to_owned(),
    };
    text.trim_start_matches("./").to_owned()
}

/// Whether two paths name one file: equal, or one ends with the other at a `/`.
fn same_path(a: &str, b: &str) -> bool {
    let ends = |long: &str, short: &str| {
        long.len() > short.len()
            && long.ends_with(short)
            && long.as_bytes()[long.len() - short.len() - 1] == b'/'
    };
    a == b || ends(a, b) || ends(b, a)
}

fn has_word(lower: &str, word: &str) -> bool {
    if word == "n't" {
        return lower.contains("n't");
    }
    lower.match_indices(word).any(|(at, _)| {
        let before = lower[..at].chars().next_back();
        let after = lower[at + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

fn new_atom(kind: AtomKind, text: String) -> Atom {
    Atom {
        kind,
        text,
        changed: false,
        outcome: None,
        status: AtomStatus::Unsupported,
        support: None,
        reason: None,
        against: None,
    }
}

/// The atoms of a sentence (see the module's rules), in order: code spans, quoted
/// strings, URLs, paths and numbers as they come, then stated outcomes. Each atom
/// once.
pub fn atoms(sentence: &str) -> Vec<Atom> {
    let mut atoms: Vec<Atom> = Vec::new();
    let mut masked = sentence.as_bytes().to_vec();
    let mask = |masked: &mut Vec<u8>, start: usize, end: usize| {
        masked[start..end].fill(b' ');
    };
    let push = |atoms: &mut Vec<Atom>, atom: Atom| {
        if !atoms
            .iter()
            .any(|a| a.kind == atom.kind && a.text == atom.text)
        {
            atoms.push(atom);
        }
    };
    for caps in CODE_SPAN.captures_iter(sentence) {
        let whole = caps.get(0).expect("a match");
        let content = caps[1].trim();
        mask(&mut masked, whole.start(), whole.end());
        if content.is_empty() {
            continue;
        }
        let first = content.split_whitespace().next().unwrap_or("");
        let kind = if URL.is_match(content) && !content.contains(' ') {
            AtomKind::Url
        } else if COMMAND_WORDS.contains(&first) {
            AtomKind::Command
        } else if is_path(content) {
            AtomKind::Path
        } else if NUMBER.is_match(content) {
            AtomKind::Number
        } else {
            AtomKind::Code
        };
        let text = if kind == AtomKind::Path {
            path_key(content)
        } else {
            content.to_owned()
        };
        push(&mut atoms, new_atom(kind, text));
    }
    let text = String::from_utf8(masked.clone()).unwrap_or_default();
    for caps in QUOTED.captures_iter(&text) {
        let whole = caps.get(0).expect("a match");
        let content = caps
            .get(1)
            .or_else(|| caps.get(2))
            .map_or("", |m| m.as_str());
        mask(&mut masked, whole.start(), whole.end());
        if !content.trim().is_empty() {
            push(&mut atoms, new_atom(AtomKind::Quoted, content.to_owned()));
        }
    }
    let text = String::from_utf8(masked.clone()).unwrap_or_default();
    for m in URL.find_iter(&text) {
        let url = m.as_str().trim_end_matches(['.', ',', ';', ':', '!', '?']);
        mask(&mut masked, m.start(), m.end());
        push(&mut atoms, new_atom(AtomKind::Url, url.to_owned()));
    }
    let text = String::from_utf8(masked).unwrap_or_default();
    // Outcomes first, so that their numbers are theirs.
    let lower = sentence.to_lowercase();
    let negated = NEGATION_WORDS.iter().any(|w| has_word(&lower, w));
    let mut outcomes: Vec<(usize, usize, Outcome)> = Vec::new();
    for (re, make) in OUTCOME_PHRASES.iter() {
        for caps in re.captures_iter(&text) {
            let whole = caps.get(0).expect("a match");
            if outcomes
                .iter()
                .any(|(s, e, _)| whole.start() < *e && *s < whole.end())
            {
                continue;
            }
            let n = caps.get(1).and_then(|m| m.as_str().parse::<u64>().ok());
            let Some(outcome) = make(n) else { continue };
            let success = !matches!(outcome, Outcome::Failed { .. });
            if success && negated {
                continue;
            }
            outcomes.push((whole.start(), whole.end(), outcome));
        }
    }
    let mut offset = 0;
    let mut words = Vec::new();
    for raw in text.split(' ') {
        let start = offset;
        offset += raw.len() + 1;
        if outcomes.iter().any(|(s, e, _)| start >= *s && start < *e) {
            continue;
        }
        // Markdown's emphasis (`**7091239**`) is no part of a word.
        let word = raw
            .trim_start_matches(['(', '[', '{', '\'', '"', '$', '€', '£', '*'])
            .trim_end_matches([')', ']', '}', '\'', '"', ',', ';', ':', '!', '?', '.', '*']);
        if !word.is_empty() {
            words.push((word, raw.ends_with(',')));
        }
    }
    let mut year_taken = false;
    for (i, &(word, _)) in words.iter().enumerate() {
        if std::mem::take(&mut year_taken) {
            continue;
        }
        let product = PRODUCT_NAMES.iter().any(|p| p.eq_ignore_ascii_case(word));
        if is_path(word) && !product {
            push(&mut atoms, new_atom(AtomKind::Path, path_key(word)));
        } else if NUMBER.is_match(word) {
            // A month's name and a day (and a year after a `,`) is a date.
            let month = i.checked_sub(1).map_or("", |p| words[p].0);
            let text = if month_number(month).is_some() && day_of(word).is_some() {
                match words.get(i + 1) {
                    Some(&(year, _)) if words[i].1 && year_of(year).is_some() => {
                        year_taken = true;
                        format!("{month} {word}, {year}")
                    }
                    _ => format!("{month} {word}"),
                }
            } else {
                word.to_owned()
            };
            push(&mut atoms, new_atom(AtomKind::Number, text));
        }
    }
    outcomes.sort_by_key(|(start, _, _)| *start);
    for (start, end, outcome) in outcomes {
        let mut atom = new_atom(AtomKind::Outcome, sentence[start..end].trim().to_owned());
        atom.outcome = Some(outcome);
        push(&mut atoms, atom);
    }
    if CHANGE_WORDS.iter().any(|w| has_word(&lower, w)) {
        for atom in &mut atoms {
            if atom.kind == AtomKind::Path {
                atom.changed = true;
            }
        }
    }
    atoms
}

// ---------------------------------------------------------------------------
// Runs: what a test or build command's response says.

/// What kind of check a command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    Test,
    Build,
}

static TEST_COMMAND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:cargo\s+(?:\+\S+\s+)?(?:test|nextest)|pytest|py\.test|python3?\s+-m\s+(?:pytest|unittest)|go\s+test|jest|vitest|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test|mix\s+test|mvn\w*\b.*\b(?:test|verify|install)|gradle\w*\b.*\b(?:test|check|build)|make\b.*\b(?:test|check)|ctest|tox|rspec|phpunit)\b",
    )
    .expect("valid")
});
static BUILD_COMMAND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?:cargo\s+(?:build|check|clippy)|go\s+(?:build|vet)|(?:npm|pnpm|yarn|bun)\s+run\s+build|tsc|mvn\w*|gradle\w*|make|mix\s+compile|dotnet\s+build|cmake\s+--build|ninja)\b",
    )
    .expect("valid")
});

/// The summary lines and failure signs runs print (docs/graph.md lists them).
const RUN_LINES: [&str; 13] = [
    // 0 cargo test
    r"(?m)test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed",
    // 1 pytest, jest, vitest, gradle: a summary line's counts
    r"(?m)^(?:=+ .*\bin \d[\d.]*m?s\b.*|\d+ (?:passed|failed)\b.*\bin \d[\d.]*m?s\b.*|\s*Tests:?\s.*\b\d+ (?:passed|failed)\b.*|.*\d+ tests? completed.*)$",
    // 2 mix test
    r"(?m)\b(\d+) tests?, (\d+) failures?\b",
    // 3 maven
    r"(?m)Tests run: (\d+), Failures: (\d+), Errors: (\d+)",
    // 4 go test failures
    r"(?m)^(?:--- FAIL|FAIL\b)",
    // 5 FAILED as a word (cargo, pytest, gradle's BUILD FAILED)
    r"\bFAILED\b",
    // 6 maven, gradle
    r"\bBUILD FAILURE\b",
    // 7 make
    r"(?m)^make(?:\[\d+\])?: \*\*\*",
    // 8 npm
    r"(?m)^npm (?:ERR!|error)",
    // 9 compilers and tools: an error line
    r"(?m)^(?:error(?:\[E\d+\])?:|Error:|\[ERROR\]|ERROR\b)|could not compile",
    // 10 an exit code in the text
    r"(?i)\bexit(?:ed with)? (?:code|status)[: ]\s*(-?\d+)",
    // 11 successes
    r"\bBUILD SUCCESS(?:FUL)?\b|(?m)^(?:ok\s|PASS$)",
    // 12 counts on a summary line (used on the lines of 1)
    r"(\d+) (passed|failed|errors?)\b",
];

static RUN_SET: LazyLock<RegexSet> =
    LazyLock::new(|| RegexSet::new(&RUN_LINES[..12]).expect("valid"));
static RUN_RES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    RUN_LINES
        .iter()
        .map(|text| Regex::new(text).expect("valid"))
        .collect()
});

/// What a run's response says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct RunOutcome {
    passed: Option<u64>,
    failed: u64,
    /// The first sign of failure, in words.
    failure: Option<String>,
    /// Whether it says anything of the tests.
    counted: bool,
    /// Whether the log holds no result of the run (`{"no_result": true}`, a call
    /// the agent's log never recorded the output of, or an interrupted one): it then
    /// supports and contradicts no stated outcome.
    unrecorded: bool,
}

impl RunOutcome {
    fn failed(&self) -> bool {
        self.failed > 0 || self.failure.is_some()
    }
}

/// The members of a response that hold an exit code, and that say it failed.
const EXIT_MEMBERS: &[&str] = &[
    "exit_code",
    "exitCode",
    "returncode",
    "return_code",
    "exit_status",
];
const ERROR_MEMBERS: &[&str] = &["is_error", "isError"];

fn run_outcome(response: &Value, text: &str) -> RunOutcome {
    let mut out = RunOutcome::default();
    let fail = |out: &mut RunOutcome, why: String| {
        if out.failure.is_none() {
            out.failure = Some(why);
        }
    };
    if let Value::Object(members) = response {
        for (key, value) in members {
            match value {
                Value::Int(n) if EXIT_MEMBERS.contains(&key.as_str()) && &**n != "0" => {
                    fail(&mut out, format!("exit code {n}"));
                }
                Value::Bool(true) if ERROR_MEMBERS.contains(&key.as_str()) => {
                    fail(&mut out, format!("{key}: true"));
                }
                Value::Bool(true) if key == "no_result" => out.unrecorded = true,
                _ => {}
            }
        }
    }
    let matched = RUN_SET.matches(text);
    let res = &*RUN_RES;
    let add = |slot: &mut Option<u64>, n: u64| *slot = Some(slot.unwrap_or(0) + n);
    let num = |m: Option<regex::Match>| m.and_then(|m| m.as_str().parse::<u64>().ok()).unwrap_or(0);
    if matched.matched(0) {
        for caps in res[0].captures_iter(text) {
            add(&mut out.passed, num(caps.get(1)));
            out.failed += num(caps.get(2));
            out.counted = true;
        }
    }
    if matched.matched(1) {
        for line in res[1].find_iter(text) {
            for caps in res[12].captures_iter(line.as_str()) {
                let n = num(caps.get(1));
                match &caps[2] {
                    "passed" => add(&mut out.passed, n),
                    _ => out.failed += n,
                }
                out.counted = true;
            }
        }
    }
    if matched.matched(2) {
        for caps in res[2].captures_iter(text) {
            let (tests, failures) = (num(caps.get(1)), num(caps.get(2)));
            add(&mut out.passed, tests.saturating_sub(failures));
            out.failed += failures;
            out.counted = true;
        }
    }
    if matched.matched(3)
        && let Some(caps) = res[3].captures_iter(text).last()
    {
        // Maven's last line is the total.
        let (run, failures, errors) = (num(caps.get(1)), num(caps.get(2)), num(caps.get(3)));
        out.passed = Some(run.saturating_sub(failures + errors));
        out.failed = failures + errors;
        out.counted = true;
    }
    let signs: [(usize, &str); 6] = [
        (4, "--- FAIL"),
        (5, "FAILED"),
        (6, "BUILD FAILURE"),
        (7, "make: ***"),
        (8, "npm error"),
        (9, "an error line"),
    ];
    if out.failed > 0 {
        let why = format!("{} failed", out.failed);
        fail(&mut out, why);
    }
    for (i, words) in signs {
        if matched.matched(i) {
            fail(&mut out, words.to_owned());
        }
    }
    if matched.matched(10) {
        for caps in res[10].captures_iter(text) {
            if &caps[1] != "0" {
                fail(&mut out, format!("exit code {}", &caps[1]));
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------
// The checker.

/// Which claim and atom.
type AtomAt = (usize, usize);

/// What a turn's calls did, up to its final answer.
#[derive(Debug, Clone, Default)]
struct TurnState {
    last_change: Option<u64>,
    last_test: Option<(u64, RunOutcome)>,
    last_build: Option<(u64, RunOutcome)>,
}

/// The claims of a session, checked call by call: [`Claims::new`] takes the
/// messages and roles, [`Claims::observe`] each call in order, [`Claims::finish`]
/// gives the [`ClaimsReport`].
///
/// ```
/// use toolreplay_core::{ClaimVerdict, Claims, Message, Roles};
///
/// let messages = [
///     Message::prompt(None, "Fix the parser."),
///     Message::answer(Some(1), "I updated `src/parse.rs`. All tests pass."),
/// ];
/// let roles = Roles::builtin();
/// let mut claims = Claims::new(&messages, &roles);
/// claims.observe(0, "Edit", br#"{"file_path":"src/parse.rs"}"#, b"{}");
/// claims.observe(1, "Bash", br#"{"command":"cargo test"}"#,
///     br#"{"stdout":"test result: FAILED. 3 passed; 1 failed; 0 ignored"}"#);
/// let report = claims.finish();
/// let verdicts: Vec<_> = report.claims.iter().map(|c| c.verdict).collect();
/// assert_eq!(verdicts, [ClaimVerdict::Supported, ClaimVerdict::Contradicted]);
/// ```
pub struct Claims<'r> {
    roles: &'r Roles,
    turns: Vec<Turn>,
    state: Vec<TurnState>,
    claims: Vec<Claim>,
    /// The bound of each claim: the calls up to its answer's `after`.
    bounds: Vec<Option<u64>>,
    /// The automaton of the text atoms, and the atoms of each pattern.
    texts: Option<AhoCorasick>,
    text_atoms: Vec<Vec<AtomAt>>,
    /// How each text pattern must stand in a call's text.
    text_numbers: Vec<Match>,
    /// Path atoms by their last segment.
    paths: HashMap<String, Vec<AtomAt>>,
    commands: Vec<AtomAt>,
    urls: Vec<AtomAt>,
    /// Path atoms said changed that a failed call would have produced: the last
    /// such call before the answer.
    refused: HashMap<AtomAt, u64>,
    calls: u64,
    turn_at: usize,
    seen: Vec<bool>,
}

impl<'r> Claims<'r> {
    /// The claims of the final answers of `messages`, to be checked with `roles`.
    pub fn new(messages: &[Message], roles: &'r Roles) -> Claims<'r> {
        let (turns, answers) = turns_of(messages);
        let mut claims = Vec::new();
        let mut bounds = Vec::new();
        for (turn, answer) in turns.iter().zip(&answers) {
            let Some(answer) = answer else { continue };
            for sentence in sentences(answer) {
                let atoms = atoms(&sentence);
                if atoms.is_empty() {
                    continue;
                }
                claims.push(Claim {
                    turn: turn.number,
                    text: sentence,
                    atoms,
                    verdict: ClaimVerdict::Unsupported,
                });
                bounds.push(turn.answer_after);
            }
        }
        let mut patterns: Vec<String> = Vec::new();
        let mut by_pattern: HashMap<(String, Match), usize> = HashMap::new();
        let mut text_atoms: Vec<Vec<AtomAt>> = Vec::new();
        let mut text_numbers = Vec::new();
        let mut paths: HashMap<String, Vec<AtomAt>> = HashMap::new();
        let (mut commands, mut urls) = (Vec::new(), Vec::new());
        for (c, claim) in claims.iter().enumerate() {
            for (a, atom) in claim.atoms.iter().enumerate() {
                match atom.kind {
                    AtomKind::Number | AtomKind::Code | AtomKind::Quoted => {
                        for searched in searched_texts(atom) {
                            let p = *by_pattern.entry(searched.clone()).or_insert_with(|| {
                                patterns.push(searched.0);
                                text_atoms.push(Vec::new());
                                text_numbers.push(searched.1);
                                patterns.len() - 1
                            });
                            text_atoms[p].push((c, a));
                        }
                    }
                    AtomKind::Path => {
                        let last = atom.text.rsplit('/').next().unwrap_or("").to_owned();
                        paths.entry(last).or_default().push((c, a));
                    }
                    AtomKind::Command => commands.push((c, a)),
                    AtomKind::Url => urls.push((c, a)),
                    AtomKind::Outcome => {}
                }
            }
        }
        let texts = if patterns.is_empty() {
            None
        } else {
            AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(&patterns)
                .ok()
        };
        let state = vec![TurnState::default(); turns.len()];
        let seen = vec![false; patterns.len()];
        Claims {
            roles,
            turns,
            state,
            claims,
            bounds,
            texts,
            text_atoms,
            text_numbers,
            paths,
            commands,
            urls,
            refused: HashMap::new(),
            calls: 0,
            turn_at: 0,
            seen,
        }
    }

    /// Whether there are no messages' turns at all.
    pub fn has_turns(&self) -> bool {
        !self.turns.is_empty()
    }

    fn support(&mut self, (c, a): AtomAt, index: u64, rule: &'static str) {
        if self.bounds[c].is_some_and(|bound| index <= bound) {
            self.claims[c].atoms[a].support = Some(Support { call: index, rule });
        }
    }

    /// Takes the next call: its index, tool, and the canonical encodings of its
    /// arguments and response (what cannot be parsed holds nothing).
    pub fn observe(&mut self, index: u64, tool: &str, args: &[u8], response: &[u8]) {
        self.calls += 1;
        let parse = |bytes: &[u8]| {
            std::str::from_utf8(bytes)
                .ok()
                .and_then(|text| json::parse(text).ok())
                .unwrap_or(Value::Null)
        };
        let args = parse(args);
        let response = parse(response);
        while self.turn_at + 1 < self.turns.len() && !self.turns[self.turn_at].holds(index) {
            self.turn_at += 1;
        }
        let turn = self
            .turns
            .get(self.turn_at)
            .filter(|turn| turn.holds(index))
            .filter(|turn| turn.answer_after.is_some_and(|after| index <= after))
            .map(|turn| turn.number);
        let mut text = String::new();
        collect_text(&args, &mut text);
        text.push('\n');
        collect_text(&response, &mut text);
        self.texts_in(index, &text);
        let Some(role) = self.roles.get(tool) else {
            return;
        };
        let root = self.roles.root.clone();
        let named = |arguments: &[crate::graph::Argument]| -> Vec<String> {
            arguments
                .iter()
                .filter_map(|argument| argument.find(&args))
                .flat_map(|value| strings(role.kind, value))
                .collect()
        };
        let used = named(&role.uses);
        // A call whose response says it failed (`is_error`/`isError` true: a write
        // refused, an edit whose text was not found) produced nothing and changed
        // nothing.
        let failed = refused(&response);
        let mut produced = named(&role.produces);
        for argument in &role.patch {
            if let Some(Value::Str(patch)) = argument.find(&args) {
                produced.extend(
                    crate::graph::roles::patch_files(patch)
                        .into_iter()
                        .map(str::to_owned),
                );
            }
        }
        match role.kind {
            ArtifactKind::File => {
                for (raw, rule) in used
                    .iter()
                    .map(|r| (r, "path-used"))
                    .chain(produced.iter().map(|r| (r, "path-produced")))
                {
                    let name = path_key(&artifact_name(ArtifactKind::File, raw, root.as_deref()));
                    let last = name.rsplit('/').next().unwrap_or("");
                    for at in self.paths.get(last).cloned().unwrap_or_default() {
                        let atom = &self.claims[at.0].atoms[at.1];
                        if !same_path(&atom.text, &name) {
                            continue;
                        }
                        if atom.changed && rule != "path-produced" {
                            continue;
                        }
                        if failed && rule == "path-produced" {
                            if self.bounds[at.0].is_some_and(|bound| index <= bound) {
                                self.refused.insert(at, index);
                            }
                            continue;
                        }
                        self.support(at, index, rule);
                    }
                }
            }
            ArtifactKind::Url => {
                for url in &used {
                    for at in self.urls.clone() {
                        let atom = &self.claims[at.0].atoms[at.1].text;
                        if url.trim_end_matches('/') == atom.trim_end_matches('/') {
                            self.support(at, index, "url-fetched");
                        }
                    }
                }
            }
            ArtifactKind::Command => {
                for command in &used {
                    for at in self.commands.clone() {
                        if command.contains(self.claims[at.0].atoms[at.1].text.as_str()) {
                            self.support(at, index, "command-run");
                        }
                    }
                    for at in self.urls.clone() {
                        if command.contains(self.claims[at.0].atoms[at.1].text.as_str()) {
                            self.support(at, index, "url-fetched");
                        }
                    }
                }
            }
        }
        let Some(turn) = turn else { return };
        if role.action == Action::Change && !failed {
            self.state[turn].last_change = Some(index);
        }
        if role.action == Action::Execute {
            let command = used.join(" ");
            let check = if TEST_COMMAND.is_match(&command) {
                Some(Check::Test)
            } else if BUILD_COMMAND.is_match(&command) {
                Some(Check::Build)
            } else {
                None
            };
            if let Some(check) = check {
                let mut response_text = String::new();
                collect_text(&response, &mut response_text);
                let outcome = run_outcome(&response, &response_text);
                let state = &mut self.state[turn];
                if check == Check::Test {
                    state.last_test = Some((index, outcome.clone()));
                }
                state.last_build = Some((index, outcome));
            }
        }
    }

    /// Finds the text atoms in a call's text.
    fn texts_in(&mut self, index: u64, text: &str) {
        let Some(automaton) = &self.texts else { return };
        self.seen.fill(false);
        let bytes = text.as_bytes();
        let mut found = Vec::new();
        for m in automaton.find_overlapping_iter(text) {
            let p = m.pattern().as_usize();
            if self.seen[p] {
                continue;
            }
            let digit_at = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
            if self.text_numbers[p] == Match::Date && digit_at(m.end()) {
                continue;
            }
            if self.text_numbers[p] == Match::Whole {
                let before = m.start().checked_sub(1);
                // Joined to a digit by `.` or `,` (another number), or, for a number
                // of one or two digits, by `:`, `-` or `/` (a part of a time
                // `12:27:05` or of a date `2024-05-27`; a port `127.0.0.1:8080`
                // stays a number).
                let part = m.end() - m.start() <= 2;
                let joiner =
                    |c: u8| matches!(c, b'.' | b',') || (part && matches!(c, b':' | b'-' | b'/'));
                let joined_before = before.is_some_and(|b| {
                    digit_at(b) || (joiner(bytes[b]) && b.checked_sub(1).is_some_and(digit_at))
                });
                // `55.0` is the number 55 (a calculator's or a JSON float's way to
                // write it); `55.5` and `1.0.3` are other numbers.
                let zeros = bytes.get(m.end()) == Some(&b'.') && digit_at(m.end() + 1) && {
                    let end = (m.end() + 1..)
                        .find(|&i| bytes.get(i) != Some(&b'0'))
                        .unwrap_or(bytes.len());
                    let more = matches!(bytes.get(end), Some(b'.' | b',')) && digit_at(end + 1);
                    !(digit_at(end) || more)
                };
                let joined_after = !zeros
                    && (digit_at(m.end())
                        || (bytes.get(m.end()).is_some_and(|&c| joiner(c))
                            && digit_at(m.end() + 1)));
                if joined_before || joined_after {
                    continue;
                }
            }
            self.seen[p] = true;
            found.push(p);
        }
        for p in found {
            for at in self.text_atoms[p].clone() {
                self.support(at, index, "text-appears");
            }
        }
    }

    /// The report: each atom's status, each claim's verdict.
    pub fn finish(mut self) -> ClaimsReport {
        let mut counts = ClaimCounts::default();
        for (c, claim) in self.claims.iter_mut().enumerate() {
            let state = &self.state[claim.turn];
            for (a, atom) in claim.atoms.iter_mut().enumerate() {
                judge(atom, state, self.refused.get(&(c, a)).copied());
            }
            claim.verdict = if claim
                .atoms
                .iter()
                .any(|a| a.status == AtomStatus::Contradicted)
            {
                counts.contradicted += 1;
                ClaimVerdict::Contradicted
            } else if claim
                .atoms
                .iter()
                .any(|a| a.status == AtomStatus::Unsupported)
            {
                counts.unsupported += 1;
                ClaimVerdict::Unsupported
            } else {
                counts.supported += 1;
                ClaimVerdict::Supported
            };
        }
        ClaimsReport {
            calls: self.calls,
            turns: self.turns,
            claims: self.claims,
            counts,
        }
    }
}

/// Whether a call's response says it failed: a member `is_error` or `isError` true.
fn refused(response: &Value) -> bool {
    match response {
        Value::Object(members) => members.iter().any(|(key, value)| {
            ERROR_MEMBERS.contains(&key.as_str()) && matches!(value, Value::Bool(true))
        }),
        _ => false,
    }
}

/// An atom's status from its evidence and its turn's runs; `refused`, for a path
/// said changed, the last failed call that would have changed it.
fn judge(atom: &mut Atom, state: &TurnState, refused: Option<u64>) {
    if let Some(outcome) = atom.outcome {
        let run = match outcome {
            Outcome::BuildSucceeds => &state.last_build,
            _ => &state.last_test,
        };
        let what = if outcome == Outcome::BuildSucceeds {
            "build or test"
        } else {
            "test"
        };
        let Some((call, run)) = run else {
            atom.status = AtomStatus::Contradicted;
            atom.reason = Some(format!("no {what} run in this turn"));
            return;
        };
        if run.unrecorded {
            atom.status = AtomStatus::Unsupported;
            atom.reason = Some(format!(
                "the last {what} run (#{call}) has no result recorded"
            ));
            return;
        }
        if let Some(change) = state.last_change.filter(|change| change > call) {
            atom.status = AtomStatus::Contradicted;
            atom.reason = Some(format!(
                "no {what} run after the last change (#{change}); the last run is #{call}"
            ));
            atom.against = Some(*call);
            return;
        }
        let contradiction = match outcome {
            Outcome::TestsPass | Outcome::BuildSucceeds => run.failure.clone(),
            Outcome::Passed { count } => {
                if let Some(why) = run.failure.clone() {
                    Some(why)
                } else {
                    run.passed
                        .filter(|passed| *passed != count)
                        .map(|passed| format!("{passed} passed"))
                }
            }
            Outcome::Failed { count } => {
                if !run.failed() {
                    Some("the run passed".to_owned())
                } else if run.counted && run.failed != count {
                    Some(format!("{} failed", run.failed))
                } else {
                    None
                }
            }
        };
        match contradiction {
            Some(why) => {
                atom.status = AtomStatus::Contradicted;
                atom.reason = Some(format!("the last {what} run (#{call}) says {why}"));
                atom.against = Some(*call);
            }
            None => {
                let counted = !matches!(outcome, Outcome::Passed { .. }) || run.passed.is_some();
                if counted {
                    atom.status = AtomStatus::Supported;
                    atom.support = Some(Support {
                        call: *call,
                        rule: "outcome-run",
                    });
                } else {
                    atom.status = AtomStatus::Unsupported;
                    atom.reason = Some(format!("the last {what} run (#{call}) gives no count"));
                }
            }
        }
        return;
    }
    if atom.support.is_some() {
        atom.status = AtomStatus::Supported;
    } else if atom.kind == AtomKind::Path && atom.changed {
        atom.status = AtomStatus::Contradicted;
        atom.reason = Some(match refused {
            Some(call) => format!("no call changed it: the call that would have (#{call}) failed"),
            None => "no call changed it".to_owned(),
        });
        atom.against = refused;
    } else {
        atom.status = AtomStatus::Unsupported;
        atom.reason = Some(
            match atom.kind {
                AtomKind::Path => "no call used or changed it",
                AtomKind::Command => "no call ran it",
                AtomKind::Url => "no call fetched it",
                _ => "no call's arguments or response hold it",
            }
            .to_owned(),
        );
    }
}

/// A function named with its arity (`Tmux.launch/3`, Elixir's and Erlang's way to
/// name one), as a code span.
static ARITY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([A-Za-z_][A-Za-z0-9_.]*[A-Za-z0-9_!?])/\d+$").expect("valid"));

/// How a text searched for an atom must stand in a call's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Match {
    /// Anywhere (code, quoted strings).
    Text,
    /// A number, whole: no digit, nor `.` or `,` and a digit (nor `:`, `-` or `/`
    /// and a digit, for one or two digits), on either side (but for decimals of
    /// zeros after it).
    Whole,
    /// A date's `-MM-DD`: no digit after it.
    Date,
}

/// The months, as a date names them (`May 27`, `Sep 3`), and their numbers.
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The number of the month `word` names: its name or its first three letters
/// (`Sept` too), capitalised, a `.` after it aside.
fn month_number(word: &str) -> Option<usize> {
    let word = word.trim_end_matches('.');
    if word.len() < 3 || !word.starts_with(|c: char| c.is_ascii_uppercase()) {
        return None;
    }
    MONTHS
        .iter()
        .position(|month| {
            *month == word
                || (word.len() == 3 && month.starts_with(word))
                || (word == "Sept" && *month == "September")
        })
        .map(|i| i + 1)
}

/// The day a word is, when it is one (1 to 31, one or two digits).
fn day_of(word: &str) -> Option<u32> {
    (word.len() <= 2 && word.bytes().all(|b| b.is_ascii_digit()))
        .then(|| word.parse().ok())
        .flatten()
        .filter(|day| (1..=31).contains(day))
}

/// The year a word is, when it is one (four digits).
fn year_of(word: &str) -> Option<u32> {
    (word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit()))
        .then(|| word.parse().ok())
        .flatten()
}

/// A number written with thousands separators (`10,519`).
static THOUSANDS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d{1,3}(?:,\d{3})+(?:\.\d+)?%?$").expect("valid"));

/// The texts searched for a text atom in the calls, and how each must stand: its
/// own; for a code span naming a function with its arity, its name (the code defines
/// and calls `launch(a, b, c)`, and never writes `launch/3`); for a number with
/// thousands separators, it without them too (`10,519` is a call's `10519`); for a
/// date `May 27`, it as written and as an ISO date's `-05-27`.
fn searched_texts(atom: &Atom) -> Vec<(String, Match)> {
    match atom.kind {
        AtomKind::Code => {
            if let Some(name) = ARITY.captures(&atom.text).and_then(|c| c.get(1)) {
                return vec![(name.as_str().to_owned(), Match::Text)];
            }
        }
        AtomKind::Number => {
            if let Some((month, rest)) = atom.text.split_once(' ')
                && let Some(month) = month_number(month)
            {
                let (day, year) = match rest.split_once(", ") {
                    Some((day, year)) => (day, year_of(year)),
                    None => (rest, None),
                };
                if let Some(day) = day_of(day) {
                    let iso = match year {
                        Some(year) => format!("{year}-{month:02}-{day:02}"),
                        None => format!("-{month:02}-{day:02}"),
                    };
                    return vec![(atom.text.clone(), Match::Whole), (iso, Match::Date)];
                }
            }
            let mut texts = vec![(atom.text.clone(), Match::Whole)];
            if THOUSANDS.is_match(&atom.text) {
                texts.push((atom.text.replace(',', ""), Match::Whole));
            }
            return texts;
        }
        _ => {}
    }
    vec![(atom.text.clone(), Match::Text)]
}

/// Appends every string and number of `value` to `out`, each on its own line.
fn collect_text(value: &Value, out: &mut String) {
    match value {
        Value::Str(text) => {
            out.push_str(text);
            out.push('\n');
        }
        Value::Int(n) => {
            out.push_str(n);
            out.push('\n');
        }
        Value::Float(f) => {
            out.push_str(&f.to_string());
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|item| collect_text(item, out)),
        Value::Object(members) => members.iter().for_each(|(_, v)| collect_text(v, out)),
        Value::Null | Value::Bool(_) => {}
    }
}

/// Checks the claims of `messages` against the transcript or sealed transcript read
/// from `reader` (told apart as `diff` tells them), streaming: memory is that of the
/// messages and of one record at a time. A sealed input's chain is checked too; its
/// verdict is returned beside the report.
pub fn check_claims(
    reader: impl BufRead,
    messages: &[Message],
    roles: &Roles,
) -> Result<(ClaimsReport, Option<crate::chain::Verdict>), ReadError> {
    let mut claims = Claims::new(messages, roles);
    let mut lines = Lines::new(reader);
    let mut sealed: Option<Verifier> = None;
    let mut first = true;
    let mut index = 0u64;
    // The digests of the links the messages name (one per message at most).
    let named: std::collections::BTreeSet<u64> = messages
        .iter()
        .filter(|m| m.after_digest.is_some())
        .filter_map(|m| m.after)
        .collect();
    let mut digests = std::collections::BTreeMap::new();
    let mut last_line = 0;
    while let Some((line, text)) = lines.next_line()? {
        if first {
            first = false;
            if crate::diff::is_sealed_line(text) {
                sealed = Some(Verifier::new());
            }
        }
        match &mut sealed {
            Some(verifier) => {
                let link = parse_link(line, text)?;
                verifier.check(line, &link);
                if named.contains(&index) {
                    digests.insert(index, (line, link.digest.clone()));
                }
                claims.observe(index, &link.tool, &link.args, &link.response);
            }
            None => {
                let record = parse_canonical_record(line, text, index)?;
                claims.observe(index, &record.tool, &record.args, &record.response);
            }
        }
        last_line = line;
        index += 1;
    }
    // A message that names a digest belongs to a sealed session that has that link
    // (a plain transcript has none to hold it against).
    if let Some((index, message)) =
        misplaced_message(messages, |i| digests.get(&i).map(|(_, d)| d.clone()))
    {
        let line = digests.get(&index).map_or(last_line + 1, |(line, _)| *line);
        return Err(ReadError::Input(crate::error::LineError::new(
            line, message,
        )));
    }
    Ok((claims.finish(), sealed.map(Verifier::finish)))
}

#[cfg(test)]
mod tests;
