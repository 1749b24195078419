//! A live session's context file, `S.context.jsonl` beside its calls' file
//! `S.jsonl`: a sealed transcript (the same links, so `verify` covers it) whose
//! records say where the calls ran, what the user asked and what the agent answered
//! (docs/live.md, "The session's context").
//!
//! | `tool` | `args` | `response` |
//! | --- | --- | --- |
//! | `"context"` | `{"agent", "cwd", "from", "home", "policy_digest"}` | `{}` |
//! | `"prompt"` | `{"after"}` | `{"decision", "findings"?, "text"}` |
//! | `"answer"` | `{"after"}` | `{"text"}` |
//! | `"reconcile"` | `{"after", "log"}` | `reconcile --format json`'s report of the agent's log against the session, or `{"error"}` when the log could not be read |
//!
//! A `context` record holds from the call whose index is `from` on, until the next
//! one; `cwd` and `home` are `null` when not known. `after` is `{"index": N,
//! "digest": D}`, the last call sealed before the record, or `null` before any.
//! The directory the session started in is the `cwd` of its first `context` record.

use std::io::BufRead;

use crate::error::{LineError, ReadError};
use crate::json::{self, Value, member};
use crate::policy::PathContext;
use crate::transcript::Links;

/// The `tool` of a context record.
pub const CONTEXT_TOOL: &str = "context";
/// The `tool` of a prompt record.
pub const PROMPT_TOOL: &str = "prompt";
/// The `tool` of an answer record.
pub const ANSWER_TOOL: &str = "answer";
/// The `tool` of a reconcile record: the agent's own log held against the session
/// at its end.
pub const RECONCILE_TOOL: &str = "reconcile";

/// Where a session's calls ran, call by call: a [`PathContext`] from an index on.
///
/// ```
/// use toolreplay_core::{Contexts, PathContext};
///
/// let mut contexts = Contexts::default();
/// let at = |cwd: &str| PathContext { cwd: Some(cwd.to_owned()), ..PathContext::default() };
/// contexts.push(0, at("/p"));
/// contexts.push(5, at("/p/src"));
/// assert_eq!(contexts.at(4).cwd.as_deref(), Some("/p"));
/// assert_eq!(contexts.at(5).cwd.as_deref(), Some("/p/src"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Contexts {
    /// From which index on each context holds, in order.
    changes: Vec<(u64, PathContext)>,
    /// Returned before the first change.
    none: PathContext,
}

impl Contexts {
    /// Says that `context` holds from the call at `from` on. A change for an index
    /// before the last one's replaces what was said from there.
    pub fn push(&mut self, from: u64, context: PathContext) {
        while self.changes.last().is_some_and(|(at, _)| *at >= from) {
            self.changes.pop();
        }
        self.changes.push((from, context));
    }

    /// The context of the call at `index`: nothing known before the first change.
    pub fn at(&self, index: u64) -> &PathContext {
        let after = self.changes.partition_point(|(from, _)| *from <= index);
        match after.checked_sub(1) {
            Some(i) => &self.changes[i].1,
            None => &self.none,
        }
    }

    /// Whether nothing was said.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Where the calls of an imported log ran, as the log says (`meta`, each call's
    /// in call order; Claude Code's entries carry their `cwd`): each call's working
    /// directory is its `cwd`, and the directory the session started in (a relative
    /// root's start) the first one said. `None` when the log says none, so that the
    /// caller says what it knows otherwise. Nothing is known of a call the log gives
    /// no directory for, nor of the home directory.
    ///
    /// ```
    /// use toolreplay_core::{CallMeta, Contexts};
    ///
    /// let at = |cwd: Option<&str>| CallMeta { cwd: cwd.map(str::to_owned), ..CallMeta::default() };
    /// assert_eq!(Contexts::of_calls(&[at(None)]), None);
    /// let contexts = Contexts::of_calls(&[at(Some("/p")), at(Some("/p")), at(Some("/p/src"))]).unwrap();
    /// assert_eq!(contexts.at(1).cwd.as_deref(), Some("/p"));
    /// assert_eq!(contexts.at(2).cwd.as_deref(), Some("/p/src"));
    /// assert_eq!(contexts.at(2).project.as_deref(), Some("/p"));
    /// assert_eq!(contexts.at(2).home, None);
    /// ```
    pub fn of_calls(meta: &[crate::import::CallMeta]) -> Option<Contexts> {
        let project = meta.iter().find_map(|call| call.cwd.clone())?;
        let mut contexts = Contexts::default();
        let mut last: Option<&Option<String>> = None;
        for (index, call) in meta.iter().enumerate() {
            if last == Some(&call.cwd) {
                continue;
            }
            last = Some(&call.cwd);
            contexts.push(
                index as u64,
                PathContext {
                    cwd: call.cwd.clone(),
                    home: None,
                    project: Some(project.clone()),
                },
            );
        }
        Some(contexts)
    }
}

/// What a `context` record says.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ContextRecord {
    /// The agent whose hooks ran the session (`claude-code`).
    pub agent: String,
    /// The working directory of the calls, when known.
    pub cwd: Option<String>,
    /// The home directory, when known.
    pub home: Option<String>,
    /// SHA-256 of the scope file the calls were decided by, in hex.
    pub policy_digest: String,
}

impl ContextRecord {
    /// The record's `args`, holding from the call at `from` on.
    pub fn args(&self, from: u64) -> Value {
        let text = |s: &Option<String>| s.clone().map_or(Value::Null, Value::Str);
        Value::object([
            ("agent", Value::Str(self.agent.clone())),
            ("cwd", text(&self.cwd)),
            ("from", Value::Int(from.to_string().into())),
            ("home", text(&self.home)),
            ("policy_digest", Value::Str(self.policy_digest.clone())),
        ])
    }
}

/// The `after` of a prompt or answer record: the last call sealed before it
/// (`sealed` calls, the last one's digest `head`), or `null` before any.
pub fn context_after(sealed: u64, head: &str) -> Value {
    match sealed.checked_sub(1) {
        None => Value::object([("after", Value::Null)]),
        Some(index) => Value::object([(
            "after",
            Value::object([
                ("digest", Value::Str(head.to_owned())),
                ("index", Value::Int(index.to_string().into())),
            ]),
        )]),
    }
}

/// What a context file says, as read by [`read_context_file`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextFile {
    /// Where the calls ran, from its `context` records.
    pub contexts: Contexts,
    /// The `context` records, in order.
    pub records: Vec<ContextRecord>,
    /// How many prompts it holds, and how many of them were blocked.
    pub prompts: (u64, u64),
    /// How many answers it holds.
    pub answers: u64,
    /// How many reconcile records it holds.
    pub reconciles: u64,
    /// Its prompts and answers, in order, each placed after the call its `after`
    /// names: the conversation the claims layer reads (a blocked prompt too).
    pub messages: Vec<crate::claims::Message>,
}

/// Reads the context file of a session from `reader` (its links, not their seal:
/// `verify` checks that). A record of another shape is an input error naming its
/// line.
pub fn read_context_file(reader: impl BufRead) -> Result<ContextFile, ReadError> {
    let mut file = ContextFile::default();
    let mut project: Option<String> = None;
    for item in Links::new(reader) {
        let (line, link) = item?;
        let bad = |message: String| ReadError::Input(LineError::new(line, message));
        let read = |bytes: &[u8]| {
            json::decode_document(bytes)
                .and_then(json::parse)
                .map_err(|err| bad(err.to_string()))
        };
        let args = read(&link.args)?;
        let response = read(&link.response)?;
        let (Value::Object(args), Value::Object(response)) = (args, response) else {
            return Err(bad("args and response must be objects".to_owned()));
        };
        match link.tool.as_str() {
            CONTEXT_TOOL => {
                let text = |key: &str| -> Result<Option<String>, ReadError> {
                    match member(&args, key) {
                        None | Some(Value::Null) => Ok(None),
                        Some(Value::Str(s)) => Ok(Some(s.clone())),
                        Some(other) => Err(bad(format!(
                            "context: \"{key}\" must be a string or null, found {}",
                            other.described()
                        ))),
                    }
                };
                let from = match member(&args, "from") {
                    Some(Value::Int(n)) => n.parse::<u64>().ok(),
                    _ => None,
                }
                .ok_or_else(|| bad("context: \"from\" must be an index".to_owned()))?;
                let record = ContextRecord {
                    agent: text("agent")?.unwrap_or_default(),
                    cwd: text("cwd")?,
                    home: text("home")?,
                    policy_digest: text("policy_digest")?.unwrap_or_default(),
                };
                if file.records.is_empty() {
                    project.clone_from(&record.cwd);
                }
                file.contexts.push(
                    from,
                    PathContext {
                        cwd: record.cwd.clone(),
                        home: record.home.clone(),
                        project: project.clone(),
                    },
                );
                file.records.push(record);
            }
            PROMPT_TOOL | ANSWER_TOOL => {
                let (after, after_digest) = match member(&args, "after") {
                    None | Some(Value::Null) => (None, None),
                    Some(Value::Object(after)) => {
                        match (member(after, "index"), member(after, "digest")) {
                            (Some(Value::Int(n)), Some(Value::Str(digest))) => n
                                .parse::<u64>()
                                .ok()
                                .map(|n| (Some(n), Some(digest.clone()))),
                            _ => None,
                        }
                        .ok_or_else(|| {
                            bad(format!(
                                "{}: \"after\" must hold an index and a digest",
                                link.tool
                            ))
                        })?
                    }
                    Some(other) => {
                        return Err(bad(format!(
                            "{}: \"after\" must be an object or null, found {}",
                            link.tool,
                            other.described()
                        )));
                    }
                };
                let text = match member(&response, "text") {
                    Some(Value::Str(text)) => text.clone(),
                    _ => String::new(),
                };
                let kind = if link.tool == PROMPT_TOOL {
                    crate::claims::MessageKind::Prompt
                } else {
                    crate::claims::MessageKind::Answer
                };
                file.messages.push(crate::claims::Message {
                    kind,
                    after,
                    after_digest,
                    text,
                });
                if kind == crate::claims::MessageKind::Answer {
                    file.answers += 1;
                    continue;
                }
                file.prompts.0 += 1;
                if matches!(member(&response, "decision"), Some(Value::Str(d)) if d == "blocked") {
                    file.prompts.1 += 1;
                }
            }
            RECONCILE_TOOL => file.reconciles += 1,
            other => {
                return Err(bad(format!(
                    "{} is not a record of a context file (context, prompt, answer or reconcile)",
                    crate::finding::quote_name(other)
                )));
            }
        }
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical;
    use crate::chain::{Sealer, UnsealedLink};

    fn sealed(records: &[(&str, Value, Value)]) -> Vec<u8> {
        let mut sealer = Sealer::after(crate::chain::GENESIS);
        let mut out = Vec::new();
        for (i, (tool, args, response)) in records.iter().enumerate() {
            let mut link = UnsealedLink::new(
                &i.to_string(),
                tool,
                &canonical::encode(args),
                &canonical::encode(response),
            );
            sealer.seal_link(&mut link);
            out.extend_from_slice(link.as_ref());
        }
        out
    }

    #[test]
    fn contexts_are_read_by_index_and_the_first_cwd_is_the_start() {
        let first = ContextRecord {
            agent: "claude-code".into(),
            cwd: Some("/p".into()),
            home: Some("/home/dev".into()),
            policy_digest: "ab".into(),
        };
        let second = ContextRecord {
            cwd: Some("/p/src".into()),
            ..first.clone()
        };
        let bytes = sealed(&[
            ("context", first.args(0), Value::object([])),
            (
                "prompt",
                context_after(0, crate::chain::GENESIS),
                Value::object([
                    ("decision", Value::Str("blocked".into())),
                    ("text", Value::Str("x".into())),
                ]),
            ),
            ("context", second.args(3), Value::object([])),
            (
                "answer",
                context_after(3, "cd"),
                Value::object([("text", Value::Str("done".into()))]),
            ),
        ]);
        let file = read_context_file(&bytes[..]).expect("a context file");
        assert_eq!(file.records, [first, second]);
        assert_eq!(file.prompts, (1, 1));
        assert_eq!(file.answers, 1);
        assert_eq!(
            file.messages,
            [
                crate::claims::Message::prompt(None, "x"),
                crate::claims::Message {
                    after_digest: Some("cd".into()),
                    ..crate::claims::Message::answer(Some(2), "done")
                },
            ]
        );
        assert_eq!(file.contexts.at(2).cwd.as_deref(), Some("/p"));
        assert_eq!(file.contexts.at(3).cwd.as_deref(), Some("/p/src"));
        assert_eq!(file.contexts.at(3).project.as_deref(), Some("/p"));
    }

    #[test]
    fn a_record_of_another_kind_is_an_error() {
        let bytes = sealed(&[("read_file", Value::object([]), Value::object([]))]);
        let err = read_context_file(&bytes[..]).expect_err("not a context file");
        assert_eq!(
            err.to_string(),
            "line 1: 'read_file' is not a record of a context file (context, prompt, answer or reconcile)"
        );
    }
}
