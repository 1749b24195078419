//! The agent's own log held against a sealed live session (`toolreplay reconcile`,
//! docs/live.md, "Reconcile").
//!
//! A live session seals what the hook saw: `tool` is the hook's tool name as it
//! came, `args` the hook's tool input, `response` the hook's tool response (or the
//! guard's own words for a call that did not simply finish). The agent's log, read
//! by the importer of its format, holds the agent's own naming and the result as the
//! log keeps it, often the text the model saw. [`reconcile_calls`] holds the two
//! lists of calls against each other:
//!
//! 1. **Keys.** Each call on both sides is projected to a key (a tool name and
//!    arguments) by the [`ReconcileAgent`]'s projection: for most agents the name and
//!    the arguments as they are; for Codex, a shell call of any name (`Bash`,
//!    `shell`, `local_shell`, `exec_command`, `shell_command`, ...) is the key
//!    `shell` with its command line as one string (an argument vector `["bash",
//!    "-lc", S]` is `S`; any other vector is joined with the shell's quoting) and
//!    nothing else (`workdir`, timeouts are dropped), a patch (`apply_patch` with
//!    `command`, `input` or `patch`) is `apply_patch` with the patch, and a leading
//!    `mcp__` of a tool name is dropped; for Copilot, arguments held as JSON text in
//!    a lone `toolArgs` member are that text's object.
//! 2. **Alignment.** The two sequences of keys are aligned by a shortest edit script
//!    (Myers' O(ND) algorithm in linear space, after the common prefix and suffix are
//!    taken off), so that one call missing in the middle is that one call. Each
//!    stretch between two matched calls that differs in more than
//!    [`MAX_ALIGNED_EDITS`] places is not aligned further: its calls are reported
//!    unmatched ([`ReconcileReport::unaligned`] says so). Memory is linear in the
//!    number of calls; time is O((N+M)·D) with D bounded so.
//! 3. **Differences.** Between two matched calls, a sealed record and a log call to
//!    the same tool (by key name) that are not matched are paired, in order, as
//!    [`LogDifferenceKind::ArgumentsDiffer`]; the rest are
//!    [`LogDifferenceKind::NotLogged`] (sealed, the log lacks it) and
//!    [`LogDifferenceKind::NotSealed`] (in the log, the seal lacks it: a hook that
//!    did not fire). Each matched pair's responses are compared through the agent's
//!    response projection: [`LogDifferenceKind::ResponseDiffers`] or
//!    [`LogDifferenceKind::ResponseNotComparable`], which counts as a difference
//!    too: what cannot be compared cannot be vouched for.
//!
//! # The records the guard writes that are not calls the log knows
//!
//! - `denied` (`{"toolreplay": {"outcome": "denied", ...}}`): the call never ran. A
//!   denied record is matched when the log has the call (Claude Code logs a denied
//!   call with an error result); then the log must show an error or no result, and
//!   a result is [`LogDifferenceKind::ResponseDiffers`]. A denied record the log does
//!   not have is no difference; it is counted
//!   ([`ReconcileReport::denied_not_logged`]).
//! - `timed-out` and `cancelled` (the proxy's): the call's result never reached the
//!   agent: compared as `denied`, but a record the log lacks is a difference.
//! - `no_result`: the call ran (or not) without an after-call event; the log must
//!   show no result or an error; a log with a result is a difference (the
//!   after-call hook did not fire). The guard's `no_result` of a call whose input
//!   another hook changed before it ran (its reason begins `another hook changed its
//!   input`) never ran as decided: the call as it ran is its own record; the log
//!   lacking it is no difference ([`ReconcileReport::replaced_not_logged`]).
//! - `unguarded`: the call was seen only after it ran: its inner `response` is
//!   compared.
//! - `late` (`{"toolreplay": {"of": M, "outcome": "late", "response": R}}`): the
//!   result of the call sealed `no_result` at M. The two records are one call of the
//!   log: the record M takes the response R, and the late record is not a call of
//!   its own (a late record whose M is not a `no_result` record of the same tool and
//!   arguments stands alone, with R).
//! - `unrecordable`: the result could not be held: the response is
//!   [`LogDifferenceKind::ResponseNotComparable`].
//! - Any other outcome is not comparable.
//!
//! A `"subagent": ID` member of a response (the importer adds it to a Claude Code
//! subagent's calls; a front end may add it to the hook's response) is taken off both
//! sides before the responses are compared; when both sides have one, they must be
//! the same.
//!
//! # Responses
//!
//! Equal canonical encodings are the same response. Otherwise the log's response
//! gives a text: its `content` when a string, the `text` of its text blocks joined
//! by newlines when a list, or the `text`, `output`, `llmContent` or
//! `textResultForLlm` member of an object (a string that is JSON text of an object
//! with an `output` string is that output, as older Codex rollouts wrote it). The
//! sealed response in the hook's shape gives the fragments the model must have seen,
//! each of which must be in the log's text (line ends `\r\n` read as `\n`, each
//! fragment trimmed of surrounding white space):
//!
//! | agent | sealed response | fragments |
//! | --- | --- | --- |
//! | claude-code | `{stdout, stderr, ...}` (Bash; the log may show it as an error, a command that exited with another status than 0) | `stdout`, `stderr` |
//! | claude-code | `{type: "text", file: {content, ...}}` (Read) | `content`, against the log's text with each line's number (`   12→`, `   12\t`) taken off |
//! | claude-code | `{filenames: [...]}` without `content` (Glob, Grep) | each file name, or `No files found` |
//! | claude-code | `{content: "..."}` with other members (Grep) or `{content: [...]}` (Task) | the content's text |
//! | claude-code | `{filePath, ...}` (Write, Edit, MultiEdit) | `filePath` |
//! | claude-code | `{result: "..."}` (WebFetch) | `result` |
//! | codex, gemini, copilot, cursor | `{content: S}` (a value the hook gave that is not an object) | the text of S |
//! | gemini | `{llmContent, ...}` | the text of `llmContent` |
//! | copilot | `{textResultForLlm, resultType}` | `textResultForLlm`; `resultType` `failure` or `denied` is an error |
//! | codex, gemini, copilot, cursor | another object with `output`, `content` or `text` | its text |
//!
//! A sealed response in the log's own shape (`{"content": ...}`, maybe with
//! `"is_error": true`: a sealed import, or a Claude Code tool whose hook response is
//! not an object) must be equal for `claude-code` and `exact`; for the other agents
//! its text must be in the log's text. A sealed error (`{"error": E, "is_error":
//! true}`) needs a log error whose text holds E's `message` (or E, a string; a
//! leading `Error: ` taken off); two errors worded differently are not comparable.
//! Containment catches a result edited in the log, and one cut; it does not catch
//! text added around what the tool gave (the log's text holds more than the
//! result: reminders, exit codes, line numbers).

use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};

use sha2::{Digest, Sha256};

use crate::canonical;
use crate::finding::quote_name;
use crate::json::{self, Value, member};
use crate::transcript::Record;

/// The most places a stretch between two matched calls may differ in and still be
/// aligned call by call (see the module docs).
pub const MAX_ALIGNED_EDITS: usize = 4_000;

/// Whose projection holds the two sides against each other: the agent the session
/// and the log are of.
///
/// ```
/// use toolreplay_core::{ImportFormat, ReconcileAgent};
///
/// assert_eq!(ReconcileAgent::parse("codex"), Some(ReconcileAgent::Codex));
/// assert_eq!(ReconcileAgent::for_format(ImportFormat::ClaudeCode), ReconcileAgent::ClaudeCode);
/// assert_eq!(ReconcileAgent::for_format(ImportFormat::Mcp).name(), "exact");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ReconcileAgent {
    /// Claude Code: hook and log name tools alike; responses are structured in the
    /// hook, text in the log.
    ClaudeCode,
    /// Codex CLI: the hooks' `Bash` and `apply_patch` against the rollout's shell
    /// and patch calls.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// Cursor (its log keeps no results).
    Cursor,
    /// GitHub Copilot CLI.
    Copilot,
    /// No projection: names, arguments and responses compared as they are.
    Exact,
}

impl ReconcileAgent {
    /// Every agent, in the order of this enum.
    pub const ALL: [ReconcileAgent; 6] = [
        ReconcileAgent::ClaudeCode,
        ReconcileAgent::Codex,
        ReconcileAgent::Gemini,
        ReconcileAgent::Cursor,
        ReconcileAgent::Copilot,
        ReconcileAgent::Exact,
    ];

    /// The agent's name, as `--agent` takes it.
    pub fn name(self) -> &'static str {
        match self {
            ReconcileAgent::ClaudeCode => "claude-code",
            ReconcileAgent::Codex => "codex",
            ReconcileAgent::Gemini => "gemini",
            ReconcileAgent::Cursor => "cursor",
            ReconcileAgent::Copilot => "copilot",
            ReconcileAgent::Exact => "exact",
        }
    }

    /// The agent named `name`.
    pub fn parse(name: &str) -> Option<ReconcileAgent> {
        Self::ALL.into_iter().find(|agent| agent.name() == name)
    }

    /// The agent whose log `format` is; [`ReconcileAgent::Exact`] for the formats
    /// that are no agent's log.
    pub fn for_format(format: crate::import::Format) -> ReconcileAgent {
        use crate::import::Format;
        match format {
            Format::ClaudeCode => ReconcileAgent::ClaudeCode,
            Format::Codex => ReconcileAgent::Codex,
            Format::Gemini => ReconcileAgent::Gemini,
            Format::Cursor => ReconcileAgent::Cursor,
            Format::Copilot => ReconcileAgent::Copilot,
            _ => ReconcileAgent::Exact,
        }
    }
}

/// What kind of difference a [`LogDifference`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogDifferenceKind {
    /// A sealed call the log lacks (a call the log lost, or cut).
    NotLogged,
    /// A call of the log the seal lacks (a hook that did not fire, or a call added
    /// to the log).
    NotSealed,
    /// A sealed call and a call of the log to the same tool, in the same place, with
    /// other arguments.
    ArgumentsDiffer,
    /// The same call, with another response.
    ResponseDiffers,
    /// The same call, whose responses cannot be held against each other: no
    /// difference; found only in [`ReconcileReport::not_comparable`].
    ResponseNotComparable,
}

impl LogDifferenceKind {
    /// The kind's name, as reports write it.
    pub fn name(self) -> &'static str {
        match self {
            LogDifferenceKind::NotLogged => "not-logged",
            LogDifferenceKind::NotSealed => "not-sealed",
            LogDifferenceKind::ArgumentsDiffer => "arguments-differ",
            LogDifferenceKind::ResponseDiffers => "response-differs",
            LogDifferenceKind::ResponseNotComparable => "response-not-comparable",
        }
    }
}

/// One difference between the seal and the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogDifference {
    /// What differs.
    pub kind: LogDifferenceKind,
    /// The sealed record's index; `None` for a call the seal lacks.
    pub sealed: Option<u64>,
    /// The log call's index (0-based, in call order, as `import` numbers the
    /// records); `None` for a call the log lacks.
    pub log: Option<u64>,
    /// For a call one side lacks, where it would be on that side: the index of the
    /// call it would come before there (the other side's count when at the end).
    pub at: Option<u64>,
    /// The tool, as the sealed record names it (the log's name for a call the seal
    /// lacks).
    pub tool: String,
    /// What differs, in words.
    pub detail: String,
}

impl LogDifference {
    /// The difference's message, as the text report writes it after
    /// `sealed S, log L: KIND: `.
    pub fn message(&self) -> String {
        format!("tool {}: {}", quote_name(&self.tool), self.detail)
    }
}

/// What [`reconcile_calls`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReconcileReport {
    /// The projection used.
    pub agent: ReconcileAgent,
    /// The sealed records.
    pub sealed: u64,
    /// The calls of the log.
    pub logged: u64,
    /// The calls matched on both sides (by tool and arguments).
    pub matched: u64,
    /// The denied records the log does not have (no difference: they never ran).
    pub denied_not_logged: u64,
    /// The records of calls whose input another hook changed before they ran
    /// (sealed `no_result`; the call as it ran is a record of its own) that the log
    /// does not have: no difference.
    pub replaced_not_logged: u64,
    /// Late records taken as the result of their `no_result` record.
    pub late_merged: u64,
    /// The matched calls whose result the log's format does not keep (Cursor's
    /// transcripts): their results are not compared, and no difference.
    pub results_not_kept: u64,
    /// Whether some stretch differed in more than [`MAX_ALIGNED_EDITS`] places and
    /// was not aligned call by call.
    pub unaligned: bool,
    /// The differences, in the order of the calls (never of the kind
    /// [`LogDifferenceKind::ResponseNotComparable`]).
    pub differences: Vec<LogDifference>,
    /// The matched calls whose responses could not be held against each other
    /// (each of the kind [`LogDifferenceKind::ResponseNotComparable`]), in the
    /// order of the calls: no difference, and not vouched for.
    pub not_comparable: Vec<LogDifference>,
}

/// What a [`ReconcileReport`] concludes, as `reconcile` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReconcileResult {
    /// No difference, and every matched result compared (or not kept by the log).
    Same,
    /// At least one difference.
    Differ,
    /// No difference, but some matched call's results could not be held against
    /// each other: the log is not vouched for.
    NotComparable,
}

impl ReconcileResult {
    /// The result's name, as reports write it.
    pub fn name(self) -> &'static str {
        match self {
            ReconcileResult::Same => "same",
            ReconcileResult::Differ => "differ",
            ReconcileResult::NotComparable => "not-comparable",
        }
    }
}

impl ReconcileReport {
    /// Whether the seal and the log agree and all of it was compared: no
    /// difference, and no result that could not be compared.
    pub fn same(&self) -> bool {
        self.result() == ReconcileResult::Same
    }

    /// What the report concludes: a difference makes it
    /// [`ReconcileResult::Differ`] whatever else it holds.
    ///
    /// ```
    /// use toolreplay_core::{ReconcileAgent, ReconcileResult, Record, parse_json, reconcile_calls};
    ///
    /// let call = |response: &str| Record {
    ///     index: 0,
    ///     tool: "TodoWrite".to_owned(),
    ///     args: parse_json(r#"{"todos": []}"#).unwrap(),
    ///     response: parse_json(response).unwrap(),
    /// };
    /// // No rule holds TodoWrite's hook response against the log's text.
    /// let sealed = [call(r#"{"oldTodos": [], "newTodos": []}"#)];
    /// let log = [call(r#"{"content": "Todos have been modified successfully"}"#)];
    /// let report = reconcile_calls(&sealed, &log, ReconcileAgent::ClaudeCode);
    /// assert!(report.differences.is_empty());
    /// assert_eq!(report.not_comparable.len(), 1);
    /// assert_eq!(report.result(), ReconcileResult::NotComparable);
    /// assert!(!report.same());
    /// ```
    pub fn result(&self) -> ReconcileResult {
        if !self.differences.is_empty() {
            ReconcileResult::Differ
        } else if !self.not_comparable.is_empty() {
            ReconcileResult::NotComparable
        } else {
            ReconcileResult::Same
        }
    }
}

/// Holds the agent's log `log` (its calls as `import` reads them, indices in call
/// order) against the sealed session's records `sealed`, through `agent`'s
/// projection. Pure: the chain is verified, and the log read, by the caller.
///
/// ```
/// use toolreplay_core::{LogDifferenceKind, ReconcileAgent, Record, parse_json, reconcile_calls};
///
/// let call = |index, command: &str, response: &str| Record {
///     index,
///     tool: "Bash".to_owned(),
///     args: parse_json(&format!(r#"{{"command": "{command}"}}"#)).unwrap(),
///     response: parse_json(response).unwrap(),
/// };
/// // What the hook saw: Bash's structured response.
/// let sealed = [
///     call(0, "ls", r#"{"stdout": "a.rs", "stderr": "", "interrupted": false, "isImage": false}"#),
///     call(1, "pwd", r#"{"stdout": "/src", "stderr": "", "interrupted": false, "isImage": false}"#),
/// ];
/// // What the log kept: the text the model saw; the second call is missing.
/// let log = [call(0, "ls", r#"{"content": "a.rs"}"#)];
/// let report = reconcile_calls(&sealed, &log, ReconcileAgent::ClaudeCode);
/// assert_eq!(report.differences.len(), 1);
/// assert_eq!(report.differences[0].kind, LogDifferenceKind::NotLogged);
/// assert_eq!((report.differences[0].sealed, report.differences[0].log), (Some(1), None));
/// ```
pub fn reconcile_calls(
    sealed: &[Record],
    log: &[Record],
    agent: ReconcileAgent,
) -> ReconcileReport {
    let (entries, late_merged) = sealed_entries(sealed);
    let seal_keys: Vec<Key> = entries
        .iter()
        .map(|entry| Key::of(agent, &entry.record.tool, &entry.record.args))
        .collect();
    let log_keys: Vec<Key> = log
        .iter()
        .map(|call| Key::of(agent, &call.tool, &call.args))
        .collect();
    let seal_digests: Vec<[u8; 32]> = seal_keys.iter().map(|k| k.digest).collect();
    let log_digests: Vec<[u8; 32]> = log_keys.iter().map(|k| k.digest).collect();
    let (pairs, unaligned) = align(&seal_digests, &log_digests, MAX_ALIGNED_EDITS);

    let mut report = ReconcileReport {
        agent,
        sealed: sealed.len() as u64,
        logged: log.len() as u64,
        matched: pairs.len() as u64,
        denied_not_logged: 0,
        replaced_not_logged: 0,
        late_merged,
        results_not_kept: 0,
        unaligned,
        differences: Vec::new(),
        not_comparable: Vec::new(),
    };
    let (mut i, mut j) = (0, 0);
    let end = (entries.len(), log.len());
    for &(a, b) in pairs.iter().chain(std::iter::once(&end)) {
        // The index of the sealed record after the stretch, where a call the seal
        // lacks would be.
        let next_sealed = entries
            .get(a)
            .map_or(sealed.len() as u64, |e| e.record.index);
        gap(
            (&entries[i..a], i),
            (&log[j..b], j),
            (&seal_keys, &log_keys),
            next_sealed,
            &mut report,
        );
        if (a, b) == end {
            break;
        }
        let entry = &entries[a];
        match compare(agent, &entry.response, &log[b].response) {
            Compared::Same => {}
            Compared::NotKept => report.results_not_kept += 1,
            Compared::Differs(detail) => report.differences.push(LogDifference {
                kind: LogDifferenceKind::ResponseDiffers,
                sealed: Some(entry.record.index),
                log: Some(b as u64),
                at: None,
                tool: entry.record.tool.clone(),
                detail,
            }),
            Compared::NotComparable(detail) => report.not_comparable.push(LogDifference {
                kind: LogDifferenceKind::ResponseNotComparable,
                sealed: Some(entry.record.index),
                log: Some(b as u64),
                at: None,
                tool: entry.record.tool.clone(),
                detail,
            }),
        }
        (i, j) = (a + 1, b + 1);
    }
    report
}

/// A sealed record as it is held against the log: a late result merged into its
/// `no_result` record, an unguarded call's inner response.
#[derive(Debug)]
struct Entry<'a> {
    record: &'a Record,
    response: Cow<'a, Value>,
    /// A denied call: no difference when the log lacks it.
    denied: bool,
    /// A call whose input another hook changed before it ran, sealed `no_result`
    /// (the call as it ran is a record of its own): no difference when the log
    /// lacks it.
    replaced: bool,
}

/// The outcome a guard wrote in `response`, and the object it is in.
fn outcome(response: &Value) -> Option<(&str, &[(String, Value)])> {
    let Value::Object(members) = response else {
        return None;
    };
    let Some(Value::Object(inner)) = member(members, "toolreplay") else {
        return None;
    };
    match member(inner, "outcome") {
        Some(Value::Str(outcome)) => Some((outcome, inner)),
        _ => None,
    }
}

fn is_no_result(response: &Value) -> bool {
    matches!(response, Value::Object(m) if member(m, "no_result") == Some(&Value::Bool(true)))
}

/// Whether `response` is the guard's `no_result` of a call whose input another hook
/// changed before it ran (`"reason": "another hook changed its input ..."`).
fn is_replaced(response: &Value) -> bool {
    is_no_result(response)
        && matches!(response, Value::Object(m)
            if matches!(member(m, "reason"), Some(Value::Str(r)) if r.starts_with(REPLACED)))
}

/// How the guard's reason for a call whose input another hook changed begins.
const REPLACED: &str = "another hook changed its input";

/// The response a late or unguarded record holds, unwrapped.
fn inner_response(response: &Value) -> Cow<'_, Value> {
    match outcome(response) {
        Some(("late" | "unguarded", inner)) => match member(inner, "response") {
            Some(inner) => inner_response(inner),
            None => Cow::Borrowed(response),
        },
        _ => Cow::Borrowed(response),
    }
}

/// The sealed records as they are held against the log, and how many late records
/// were merged into their `no_result` record.
fn sealed_entries(sealed: &[Record]) -> (Vec<Entry<'_>>, u64) {
    // The late record of each `no_result` record it completes, by position.
    let mut late_of: Vec<Option<usize>> = vec![None; sealed.len()];
    let mut merged = vec![false; sealed.len()];
    let mut count = 0;
    for (at, record) in sealed.iter().enumerate() {
        if let Some(("late", inner)) = outcome(&record.response)
            && let Some(Value::Int(of)) = member(inner, "of")
            && let Ok(of) = of.parse::<usize>()
            && of < at
            && late_of[of].is_none()
            && is_no_result(&sealed[of].response)
            && sealed[of].tool == record.tool
            && sealed[of].args == record.args
        {
            late_of[of] = Some(at);
            merged[at] = true;
            count += 1;
        }
    }
    let entries = sealed
        .iter()
        .enumerate()
        .filter(|(at, _)| !merged[*at])
        .map(|(at, record)| {
            let response = match late_of[at] {
                Some(late) => inner_response(&sealed[late].response),
                None => inner_response(&record.response),
            };
            Entry {
                record,
                denied: matches!(outcome(&record.response), Some(("denied", _))),
                replaced: is_replaced(&record.response),
                response,
            }
        })
        .collect();
    (entries, count)
}

/// A call's projected key: its name, and the digest of name and arguments.
#[derive(Debug)]
struct Key {
    name: String,
    digest: [u8; 32],
}

impl Key {
    fn of(agent: ReconcileAgent, tool: &str, args: &Value) -> Key {
        let (name, args) = project_call(agent, tool, args);
        let mut hasher = Sha256::new();
        hasher.update(name.as_bytes());
        hasher.update([0]);
        hasher.update(canonical::encode(args.as_ref()));
        Key {
            name,
            digest: hasher.finalize().into(),
        }
    }
}

/// The names Codex's shell calls go by, in its hooks and its rollouts.
const CODEX_SHELLS: [&str; 7] = [
    "Bash",
    "shell",
    "local_shell",
    "container.exec",
    "exec_command",
    "shell_command",
    "unified_exec",
];

/// The comparable name and arguments of a call (see the module docs).
fn project_call<'a>(
    agent: ReconcileAgent,
    tool: &str,
    args: &'a Value,
) -> (String, Cow<'a, Value>) {
    let members = match args {
        Value::Object(members) => members.as_slice(),
        _ => &[],
    };
    let string = |key: &str| match member(members, key) {
        Some(Value::Str(s)) => Some(s.as_str()),
        _ => None,
    };
    match agent {
        ReconcileAgent::Codex => {
            if CODEX_SHELLS.contains(&tool) {
                let command = string("command").map(str::to_owned).or_else(|| {
                    string("cmd")
                        .map(str::to_owned)
                        .or_else(|| match member(members, "command") {
                            Some(Value::Array(words)) => command_line(words),
                            _ => None,
                        })
                });
                if let Some(command) = command {
                    return (
                        "shell".to_owned(),
                        Cow::Owned(Value::object([("command", Value::Str(command))])),
                    );
                }
            }
            if tool == "apply_patch"
                && let Some(patch) = string("command")
                    .or_else(|| string("input"))
                    .or_else(|| string("patch"))
            {
                return (
                    "apply_patch".to_owned(),
                    Cow::Owned(Value::object([("patch", Value::Str(patch.to_owned()))])),
                );
            }
            let name = tool.strip_prefix("mcp__").unwrap_or(tool);
            (name.to_owned(), Cow::Borrowed(args))
        }
        ReconcileAgent::Copilot => {
            if let [(key, Value::Str(text))] = members
                && key == "toolArgs"
                && let Ok(parsed @ Value::Object(_)) = json::parse(text)
            {
                return (tool.to_owned(), Cow::Owned(parsed));
            }
            (tool.to_owned(), Cow::Borrowed(args))
        }
        _ => (tool.to_owned(), Cow::Borrowed(args)),
    }
}

/// The command line of an argument vector: `S` of `["bash", "-lc", S]` (any of
/// `bash`, `sh`, `zsh`, by name or path, with `-c` or `-lc`), otherwise the words
/// joined by spaces, each quoted as the shell would need.
fn command_line(words: &[Value]) -> Option<String> {
    let words: Vec<&str> = words
        .iter()
        .map(|w| match w {
            Value::Str(s) => Some(s.as_str()),
            _ => None,
        })
        .collect::<Option<_>>()?;
    if let [shell, flag, script] = words.as_slice() {
        let name = shell.rsplit('/').next().unwrap_or(shell);
        if matches!(name, "bash" | "sh" | "zsh") && matches!(*flag, "-c" | "-lc") {
            return Some((*script).to_owned());
        }
    }
    let quoted: Vec<String> = words
        .iter()
        .map(|word| {
            let plain = !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./-_".contains(c));
            if plain {
                (*word).to_owned()
            } else {
                format!("'{}'", word.replace('\'', r"'\''"))
            }
        })
        .collect();
    Some(quoted.join(" "))
}

/// Reports the calls of one stretch between two matched calls (or an end): pairs
/// of the same tool as arguments that differ, the rest as calls one side lacks.
fn gap(
    (seal, seal_from): (&[Entry<'_>], usize),
    (log, log_from): (&[Record], usize),
    (seal_keys, log_keys): (&[Key], &[Key]),
    next_sealed: u64,
    report: &mut ReconcileReport,
) {
    // Pair in order: each sealed call (but a denied or replaced one) with the first
    // log call of its name after the last paired one. The log calls of each name are
    // queued in order and each looked at once: linear in the stretch, however long.
    let mut by_name: BTreeMap<&str, VecDeque<usize>> = BTreeMap::new();
    for l in 0..log.len() {
        by_name
            .entry(log_keys[log_from + l].name.as_str())
            .or_default()
            .push_back(l);
    }
    let mut paired: Vec<Option<usize>> = vec![None; seal.len()];
    let mut next = 0;
    for (s, entry) in seal.iter().enumerate() {
        if entry.denied || entry.replaced {
            continue;
        }
        let Some(queue) = by_name.get_mut(seal_keys[seal_from + s].name.as_str()) else {
            continue;
        };
        while queue.front().is_some_and(|&l| l < next) {
            queue.pop_front();
        }
        if let Some(found) = queue.pop_front() {
            paired[s] = Some(found);
            next = found + 1;
        }
    }
    let mut l = 0;
    for (s, entry) in seal.iter().enumerate() {
        let index = entry.record.index;
        let until = paired[s].unwrap_or(l);
        // The log calls before this sealed call's pair.
        if paired[s].is_some() {
            while l < until {
                report
                    .differences
                    .push(not_sealed(&log[l], log_from + l, index));
                l += 1;
            }
        }
        match paired[s] {
            Some(found) => {
                report.differences.push(LogDifference {
                    kind: LogDifferenceKind::ArgumentsDiffer,
                    sealed: Some(index),
                    log: Some((log_from + found) as u64),
                    at: None,
                    tool: entry.record.tool.clone(),
                    detail: "the log has other arguments for this call".to_owned(),
                });
                l = found + 1;
            }
            None if entry.denied => report.denied_not_logged += 1,
            None if entry.replaced => report.replaced_not_logged += 1,
            None => report.differences.push(LogDifference {
                kind: LogDifferenceKind::NotLogged,
                sealed: Some(index),
                log: None,
                at: Some((log_from + l) as u64),
                tool: entry.record.tool.clone(),
                detail: format!(
                    "sealed, and the log lacks it{}",
                    lacked_why(&entry.response)
                ),
            }),
        }
    }
    while l < log.len() {
        report
            .differences
            .push(not_sealed(&log[l], log_from + l, next_sealed));
        l += 1;
    }
}

/// Why a sealed call the log lacks may be missing, for the words of the report.
fn lacked_why(response: &Value) -> &'static str {
    match outcome(response) {
        Some(("timed-out", _)) => " (it timed out)",
        Some(("cancelled", _)) => " (it was cancelled)",
        _ if is_no_result(response) => " (it has no result)",
        _ => "",
    }
}

fn not_sealed(call: &Record, log_index: usize, before: u64) -> LogDifference {
    LogDifference {
        kind: LogDifferenceKind::NotSealed,
        sealed: None,
        log: Some(log_index as u64),
        at: Some(before),
        tool: call.tool.clone(),
        detail: "in the log, and the seal lacks it (its hook did not fire, or the call was added to the log)".to_owned(),
    }
}

/// How two responses compare.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Compared {
    Same,
    Differs(String),
    NotComparable(String),
    /// The log's format keeps no results at all (Cursor's): nothing to hold the
    /// sealed result against, and nothing in the log that could differ from it.
    NotKept,
}

/// What the log's response says.
#[derive(Debug)]
enum Logged {
    NoResult,
    Error(Option<String>),
    Result(Option<String>),
}

fn logged(response: &Value) -> Logged {
    let Value::Object(members) = response else {
        return Logged::Result(None);
    };
    if member(members, "no_result") == Some(&Value::Bool(true)) {
        return Logged::NoResult;
    }
    let text = match member(members, "content") {
        Some(content) => text_of(content),
        None => member(members, "error").and_then(text_of),
    };
    if member(members, "is_error") == Some(&Value::Bool(true)) {
        Logged::Error(text)
    } else {
        Logged::Result(text)
    }
}

/// The text of a value, as the module docs say.
fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::Str(s) => {
            if s.starts_with('{')
                && let Ok(Value::Object(members)) = json::parse(s)
                && let Some(Value::Str(output)) = member(&members, "output")
            {
                return Some(output.clone());
            }
            Some(s.clone())
        }
        Value::Array(items) => {
            let texts: Vec<String> = items.iter().filter_map(text_of).collect();
            if texts.is_empty() && !items.is_empty() {
                return None;
            }
            Some(texts.join("\n"))
        }
        Value::Object(members) => [
            "text",
            "output",
            "llmContent",
            "textResultForLlm",
            "message",
            "content",
        ]
        .iter()
        .find_map(|key| member(members, key).and_then(text_of)),
        _ => None,
    }
}

/// Takes a `"subagent"` member off a response object.
fn without_subagent(response: &Value) -> (Cow<'_, Value>, Option<&Value>) {
    match response {
        Value::Object(members) if member(members, "subagent").is_some() => {
            let kept = members
                .iter()
                .filter(|(key, _)| key != "subagent")
                .cloned()
                .collect();
            (Cow::Owned(Value::Object(kept)), member(members, "subagent"))
        }
        other => (Cow::Borrowed(other), None),
    }
}

/// Whether `response` is in the log's own shape: `{"content": ...}` with at most
/// `"is_error"` besides (or `{}`).
fn log_shaped(response: &Value) -> bool {
    matches!(response, Value::Object(members)
        if members.iter().all(|(key, _)| key == "content" || key == "is_error"))
}

/// Compares the sealed response `sealed` of a call with the log's `log`.
fn compare(agent: ReconcileAgent, sealed: &Value, log: &Value) -> Compared {
    let (sealed, sealed_agent) = without_subagent(sealed);
    let (log, log_agent) = without_subagent(log);
    if let (Some(a), Some(b)) = (sealed_agent, log_agent)
        && a != b
    {
        return Compared::Differs("the log names another subagent".to_owned());
    }
    if canonical::encode(sealed.as_ref()) == canonical::encode(log.as_ref()) {
        return Compared::Same;
    }
    let logged = logged(&log);
    if let Some((outcome, _)) = outcome(&sealed) {
        return match outcome {
            "denied" | "timed-out" | "cancelled" => match logged {
                Logged::NoResult | Logged::Error(_) => Compared::Same,
                Logged::Result(_) => Compared::Differs(format!(
                    "the call was sealed {outcome} and never gave its result, and the log shows a result"
                )),
            },
            "unrecordable" => {
                Compared::NotComparable("the sealed result could not be recorded".to_owned())
            }
            other => Compared::NotComparable(format!(
                "the sealed outcome {} is not one a log can show",
                quote_name(other)
            )),
        };
    }
    if is_no_result(&sealed) {
        return match logged {
            Logged::NoResult | Logged::Error(_) => Compared::Same,
            Logged::Result(_) => Compared::Differs(
                "the seal has no result for this call, and the log has one (its after-call hook did not fire, or the result was added to the log)".to_owned(),
            ),
        };
    }
    let Value::Object(members) = sealed.as_ref() else {
        return Compared::NotComparable("the sealed response is not an object".to_owned());
    };
    let sealed_error = member(members, "is_error") == Some(&Value::Bool(true));
    if sealed_error && let Some(error) = member(members, "error") {
        // Claude Code's and Cursor's `message`, Gemini CLI's whole response
        // (`error`, else the text the model saw), Copilot CLI's text.
        let message = match error {
            Value::Object(e) => ["message", "error", "llmContent"]
                .into_iter()
                .find_map(|key| member(e, key).and_then(text_of)),
            other => text_of(other),
        };
        return match logged {
            Logged::Error(text) => match (message, text) {
                (Some(message), Some(text))
                    if contains(&text, message.trim().trim_start_matches("Error: "), false) =>
                {
                    Compared::Same
                }
                _ => Compared::NotComparable(
                    "the call failed on both sides, and the log words the error otherwise"
                        .to_owned(),
                ),
            },
            Logged::NoResult => {
                Compared::Differs("the call failed, and the log has no result".to_owned())
            }
            Logged::Result(_) => {
                Compared::Differs("the call failed, and the log shows a result".to_owned())
            }
        };
    }
    if log_shaped(&sealed) {
        if matches!(agent, ReconcileAgent::ClaudeCode | ReconcileAgent::Exact) {
            return Compared::Differs("the log's result is not the sealed one".to_owned());
        }
        let text = member(members, "content").and_then(text_of);
        return match (logged, text) {
            (Logged::NoResult, _) if agent == ReconcileAgent::Cursor => Compared::NotKept,
            (Logged::Result(Some(log)), Some(text)) if !sealed_error => {
                contained(&log, &[text], false)
            }
            (Logged::Error(Some(log)), Some(text)) if sealed_error => {
                contained(&log, &[text], false)
            }
            _ => Compared::Differs("the log's result is not the sealed one".to_owned()),
        };
    }
    // The hook's own shape.
    let Some((fragments, numbered, failed)) = fragments(agent, members) else {
        return Compared::NotComparable(format!(
            "no projection of this tool's sealed result for {} (docs/live.md, \"Reconcile\")",
            agent.name()
        ));
    };
    match logged {
        Logged::NoResult if agent == ReconcileAgent::Cursor => Compared::NotKept,
        Logged::NoResult => Compared::Differs("the log has no result for this call".to_owned()),
        // A command that exits with another status than 0 is an error in Claude
        // Code's log, with its output, and its hook may still give the output as a
        // result: held by its output alone.
        Logged::Error(Some(text))
            if agent == ReconcileAgent::ClaudeCode && member(members, "stdout").is_some() =>
        {
            contained(&text, &fragments, numbered)
        }
        Logged::Error(_) if !failed => {
            Compared::Differs("the call failed in the log, and the seal has its result".to_owned())
        }
        Logged::Result(_) if failed => {
            Compared::Differs("the call failed in the seal, and the log shows a result".to_owned())
        }
        Logged::Error(None) | Logged::Result(None) => {
            Compared::NotComparable("the log's result has no text to compare".to_owned())
        }
        Logged::Error(Some(text)) | Logged::Result(Some(text)) => {
            contained(&text, &fragments, numbered)
        }
    }
}

/// The fragments of a sealed response in the hook's shape that the log's text must
/// hold, whether the log numbers its lines (Claude Code's Read), and whether the
/// response is a failure; `None` when the agent has no projection for it.
fn fragments(
    agent: ReconcileAgent,
    members: &[(String, Value)],
) -> Option<(Vec<String>, bool, bool)> {
    let string = |key: &str| match member(members, key) {
        Some(Value::Str(s)) => Some(s.clone()),
        _ => None,
    };
    match agent {
        ReconcileAgent::ClaudeCode => {
            if let Some(stdout) = string("stdout") {
                let mut out = vec![stdout];
                out.extend(string("stderr"));
                return Some((out, false, false));
            }
            if string("type").as_deref() == Some("text")
                && let Some(Value::Object(file)) = member(members, "file")
                && let Some(Value::Str(content)) = member(file, "content")
            {
                return Some((vec![content.clone()], true, false));
            }
            if let Some(content) = member(members, "content") {
                return text_of(content).map(|text| (vec![text], false, false));
            }
            if let Some(Value::Array(names)) = member(members, "filenames") {
                let names: Vec<String> = names.iter().filter_map(text_of).collect();
                if names.is_empty() {
                    return Some((vec!["No files found".to_owned()], false, false));
                }
                return Some((names, false, false));
            }
            if let Some(path) = string("filePath") {
                return Some((vec![path], false, false));
            }
            string("result").map(|result| (vec![result], false, false))
        }
        ReconcileAgent::Copilot => {
            let failed = matches!(string("resultType").as_deref(), Some("failure" | "denied"));
            if let Some(text) = string("textResultForLlm") {
                return Some((vec![text], false, failed));
            }
            text_of(&Value::Object(members.to_vec())).map(|text| (vec![text], false, failed))
        }
        ReconcileAgent::Gemini => {
            let failed = matches!(member(members, "error"), Some(e) if *e != Value::Null);
            if let Some(content) = member(members, "llmContent") {
                return text_of(content).map(|text| (vec![text], false, failed));
            }
            text_of(&Value::Object(members.to_vec())).map(|text| (vec![text], false, failed))
        }
        ReconcileAgent::Codex | ReconcileAgent::Cursor => {
            if let Some(stdout) = string("stdout") {
                let mut out = vec![stdout];
                out.extend(string("stderr"));
                return Some((out, false, false));
            }
            ["output", "content", "text"]
                .iter()
                .find_map(|key| member(members, key).and_then(text_of))
                .map(|text| (vec![text], false, false))
        }
        ReconcileAgent::Exact => None,
    }
}

/// Whether every fragment (trimmed) is in `text` (line ends made LF; with
/// `numbered`, each line's number taken off first).
fn contained(text: &str, fragments: &[String], numbered: bool) -> Compared {
    if fragments
        .iter()
        .all(|fragment| contains(text, fragment.trim(), numbered))
    {
        Compared::Same
    } else {
        Compared::Differs("the log's result does not hold the sealed result".to_owned())
    }
}

fn contains(text: &str, fragment: &str, numbered: bool) -> bool {
    let fragment = fragment.replace("\r\n", "\n");
    let mut text = text.replace("\r\n", "\n");
    if numbered {
        text = text
            .split('\n')
            .map(strip_line_number)
            .collect::<Vec<_>>()
            .join("\n");
    }
    text.contains(&fragment)
}

/// A line of `cat -n` (Claude Code's Read) without its number: `   12→x` and
/// `   12\tx` are `x`.
fn strip_line_number(line: &str) -> &str {
    let rest = line.trim_start_matches(' ');
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return line;
    }
    let rest = &rest[digits..];
    rest.strip_prefix('→')
        .or_else(|| rest.strip_prefix('\t'))
        .unwrap_or(line)
}

/// Aligns `a` and `b`: the pairs of positions matched, in order, and whether some
/// stretch was left unaligned for differing in more than `max_edits` places.
pub(crate) fn align<T: PartialEq>(
    a: &[T],
    b: &[T],
    max_edits: usize,
) -> (Vec<(usize, usize)>, bool) {
    let half = max_edits / 2 + 1;
    let mut aligner = Aligner {
        a,
        b,
        forward: vec![0; 2 * half + 3],
        backward: vec![0; 2 * half + 3],
        half,
        pairs: Vec::new(),
        unaligned: false,
    };
    // An explicit stack of work, so no input is deep enough to overflow. Each stretch is taken apart in order: its prefix matches, its middle split in
    // two, its suffix matches after both halves.
    enum Work {
        Stretch(usize, usize, usize, usize),
        Suffix(usize, usize, usize),
    }
    let mut work = vec![Work::Stretch(0, a.len(), 0, b.len())];
    while let Some(item) = work.pop() {
        match item {
            Work::Suffix(x, y, n) => aligner.pairs.extend((0..n).map(|k| (x + k, y + k))),
            Work::Stretch(mut a_lo, mut a_hi, mut b_lo, mut b_hi) => {
                while a_lo < a_hi && b_lo < b_hi && a[a_lo] == b[b_lo] {
                    aligner.pairs.push((a_lo, b_lo));
                    a_lo += 1;
                    b_lo += 1;
                }
                let mut suffix = 0;
                while a_hi > a_lo && b_hi > b_lo && a[a_hi - 1] == b[b_hi - 1] {
                    a_hi -= 1;
                    b_hi -= 1;
                    suffix += 1;
                }
                work.push(Work::Suffix(a_hi, b_hi, suffix));
                if a_lo == a_hi || b_lo == b_hi {
                    continue;
                }
                match aligner.middle_snake(a_lo, a_hi, b_lo, b_hi) {
                    Some((x, y)) if (x, y) != (a_lo, b_lo) && (x, y) != (a_hi, b_hi) => {
                        work.push(Work::Stretch(x, a_hi, y, b_hi));
                        work.push(Work::Stretch(a_lo, x, b_lo, y));
                    }
                    _ => aligner.unaligned = true,
                }
            }
        }
    }
    (aligner.pairs, aligner.unaligned)
}

struct Aligner<'a, T> {
    a: &'a [T],
    b: &'a [T],
    forward: Vec<isize>,
    backward: Vec<isize>,
    half: usize,
    pairs: Vec<(usize, usize)>,
    unaligned: bool,
}

impl<T: PartialEq> Aligner<'_, T> {
    /// The start of the middle snake of `a[a_lo..a_hi]` against `b[b_lo..b_hi]`
    /// (both not empty, no common prefix or suffix), or `None` when the edit
    /// distance is more than twice the half bound.
    fn middle_snake(
        &mut self,
        a_lo: usize,
        a_hi: usize,
        b_lo: usize,
        b_hi: usize,
    ) -> Option<(usize, usize)> {
        let (a, b) = (&self.a[a_lo..a_hi], &self.b[b_lo..b_hi]);
        let n = a.len() as isize;
        let m = b.len() as isize;
        let delta = n - m;
        let odd = delta & 1 == 1;
        let offset = self.half as isize + 1;
        let vf = &mut self.forward;
        let vb = &mut self.backward;
        let at = |k: isize| (k + offset) as usize;
        vf[at(1)] = 0;
        vb[at(1)] = 0;
        let d_max = ((n + m + 1) / 2 + 1).min(self.half as isize);
        for d in 0..d_max {
            let mut k = d;
            while k >= -d {
                let mut x = if k == -d || (k != d && vf[at(k - 1)] < vf[at(k + 1)]) {
                    vf[at(k + 1)]
                } else {
                    vf[at(k - 1)] + 1
                };
                let mut y = x - k;
                let (x0, y0) = (x, y);
                while x < n && y < m && a[x as usize] == b[y as usize] {
                    x += 1;
                    y += 1;
                }
                vf[at(k)] = x;
                if odd && (k - delta).abs() < d && vf[at(k)] + vb[at(-(k - delta))] >= n {
                    return Some((a_lo + x0 as usize, b_lo + y0 as usize));
                }
                k -= 2;
            }
            let mut k = d;
            while k >= -d {
                let mut x = if k == -d || (k != d && vb[at(k - 1)] < vb[at(k + 1)]) {
                    vb[at(k + 1)]
                } else {
                    vb[at(k - 1)] + 1
                };
                let mut y = x - k;
                while x < n && y < m && a[(n - x - 1) as usize] == b[(m - y - 1) as usize] {
                    x += 1;
                    y += 1;
                }
                vb[at(k)] = x;
                if !odd && (k - delta).abs() <= d && vb[at(k)] + vf[at(-(k - delta))] >= n {
                    return Some((a_lo + (n - x) as usize, b_lo + (m - y) as usize));
                }
                k -= 2;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The length of a longest common subsequence, by the quadratic table.
    fn lcs(a: &[u8], b: &[u8]) -> usize {
        let mut table = vec![vec![0; b.len() + 1]; a.len() + 1];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                table[i][j] = if a[i] == b[j] {
                    table[i + 1][j + 1] + 1
                } else {
                    table[i + 1][j].max(table[i][j + 1])
                };
            }
        }
        table[0][0]
    }

    fn check(a: &[u8], b: &[u8]) {
        let (pairs, unaligned) = align(a, b, 10_000);
        assert!(!unaligned);
        for pair in pairs.windows(2) {
            assert!(
                pair[0].0 < pair[1].0 && pair[0].1 < pair[1].1,
                "{a:?} {b:?} {pairs:?}"
            );
        }
        for &(i, j) in &pairs {
            assert_eq!(a[i], b[j]);
        }
        assert_eq!(pairs.len(), lcs(a, b), "{a:?} {b:?} {pairs:?}");
    }

    #[test]
    fn alignment_is_a_longest_common_subsequence() {
        // A small deterministic generator: every pair of short sequences over a
        // small alphabet, and longer pseudo-random ones.
        let mut seed = 0x2545_f491_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..3_000 {
            let n = (next() % 12) as usize;
            let m = (next() % 12) as usize;
            let alphabet = 1 + next() % 4;
            let a: Vec<u8> = (0..n).map(|_| (next() % alphabet) as u8).collect();
            let b: Vec<u8> = (0..m).map(|_| (next() % alphabet) as u8).collect();
            check(&a, &b);
        }
        for _ in 0..50 {
            let a: Vec<u8> = (0..200).map(|_| (next() % 6) as u8).collect();
            let mut b = a.clone();
            for _ in 0..(next() % 20) {
                let at = (next() as usize) % (b.len() + 1);
                if next() % 2 == 0 && at < b.len() {
                    b.remove(at);
                } else {
                    b.insert(at, (next() % 6) as u8);
                }
            }
            check(&a, &b);
        }
    }

    fn record(index: u64, tool: &str, args: &str, response: &str) -> Record {
        Record {
            index,
            tool: tool.to_owned(),
            args: json::parse(args).unwrap(),
            response: json::parse(response).unwrap(),
        }
    }

    fn calls(n: u64) -> Vec<Record> {
        (0..n)
            .map(|i| {
                record(
                    i,
                    "read",
                    &format!(r#"{{"path": "f{i}"}}"#),
                    r#"{"content": "x"}"#,
                )
            })
            .collect()
    }

    #[test]
    fn one_call_missing_in_the_middle_of_many_is_one_difference() {
        let sealed = calls(100_000);
        let mut log = sealed.clone();
        log.remove(50_000);
        let report = reconcile_calls(&sealed, &log, ReconcileAgent::Exact);
        assert_eq!(report.matched, 99_999);
        assert_eq!(report.differences.len(), 1);
        let difference = &report.differences[0];
        assert_eq!(difference.kind, LogDifferenceKind::NotLogged);
        assert_eq!(
            (difference.sealed, difference.log, difference.at),
            (Some(50_000), None, Some(50_000))
        );
    }

    #[test]
    fn one_call_added_and_one_edited_are_one_difference_each() {
        let sealed = calls(1_000);
        let mut log = sealed.clone();
        log.insert(10, record(0, "send", "{}", "{}"));
        log[501].args = json::parse(r#"{"path": "other"}"#).unwrap();
        log[800].response = json::parse(r#"{"content": "y"}"#).unwrap();
        let report = reconcile_calls(&sealed, &log, ReconcileAgent::Exact);
        let found: Vec<_> = report
            .differences
            .iter()
            .map(|d| (d.kind, d.sealed, d.log))
            .collect();
        assert_eq!(
            found,
            [
                (LogDifferenceKind::NotSealed, None, Some(10)),
                (LogDifferenceKind::ArgumentsDiffer, Some(500), Some(501)),
                (LogDifferenceKind::ResponseDiffers, Some(799), Some(800)),
            ]
        );
    }

    #[test]
    fn a_long_unaligned_stretch_is_paired_in_linear_time() {
        // Every call differs in its arguments: nothing aligns, and each pair of the
        // same tool is one difference.
        let sealed = calls(50_000);
        let log: Vec<Record> = (0..50_000)
            .map(|i| record(i, "read", &format!(r#"{{"path": "g{i}"}}"#), "{}"))
            .collect();
        let report = reconcile_calls(&sealed, &log, ReconcileAgent::Exact);
        assert!(report.unaligned);
        assert_eq!(report.differences.len(), 50_000);
        assert!(
            report
                .differences
                .iter()
                .all(|d| d.kind == LogDifferenceKind::ArgumentsDiffer && d.sealed == d.log)
        );
    }

    #[test]
    fn a_stretch_past_the_bound_is_left_unaligned() {
        let a: Vec<u32> = (0..3_000).collect();
        let b: Vec<u32> = (10_000..13_000).collect();
        let (pairs, unaligned) = align(&a, &b, 100);
        assert!(pairs.is_empty() && unaligned);
    }

    /// Cursor's transcripts keep no result: whatever shape the sealed result has
    /// (a hook's object, or a string kept under `content`), a matched call is
    /// counted as not kept, never a difference; a result the log does show is
    /// still compared.
    #[test]
    fn cursors_unkept_results_are_no_difference() {
        let agent = ReconcileAgent::Cursor;
        let none = json::parse(r#"{"no_result": true}"#).unwrap();
        for sealed in [
            r#"{"content": "{\"output\": \"a.txt\", \"exitCode\": 0}"}"#,
            r#"{"output": "a.txt", "exitCode": 0}"#,
        ] {
            let sealed = json::parse(sealed).unwrap();
            assert_eq!(compare(agent, &sealed, &none), Compared::NotKept);
            assert!(matches!(
                compare(ReconcileAgent::Codex, &sealed, &none),
                Compared::Differs(_)
            ));
        }
        let shown = json::parse(r#"{"content": "b.txt"}"#).unwrap();
        let sealed = json::parse(r#"{"content": "a.txt"}"#).unwrap();
        assert!(matches!(
            compare(agent, &sealed, &shown),
            Compared::Differs(_)
        ));
    }

    #[test]
    fn a_result_not_comparable_is_its_own_category_not_a_difference() {
        let todo = |index| {
            record(
                index,
                "TodoWrite",
                r#"{"todos": []}"#,
                r#"{"oldTodos": [], "newTodos": []}"#,
            )
        };
        let bash = |index, stdout: &str| {
            record(
                index,
                "Bash",
                r#"{"command": "ls"}"#,
                &format!(r#"{{"stdout": "{stdout}", "stderr": ""}}"#),
            )
        };
        let logged_todo = record(
            1,
            "TodoWrite",
            r#"{"todos": []}"#,
            r#"{"content": "Todos have been modified successfully"}"#,
        );
        let logged_bash = |index, text: &str| {
            record(
                index,
                "Bash",
                r#"{"command": "ls"}"#,
                &format!(r#"{{"content": "{text}"}}"#),
            )
        };
        let sealed = [bash(0, "a.rs"), todo(1)];
        let log = [logged_bash(0, "a.rs"), logged_todo.clone()];
        let report = reconcile_calls(&sealed, &log, ReconcileAgent::ClaudeCode);
        assert_eq!(report.differences, []);
        assert_eq!(
            report.not_comparable,
            [LogDifference {
                kind: LogDifferenceKind::ResponseNotComparable,
                sealed: Some(1),
                log: Some(1),
                at: None,
                tool: "TodoWrite".to_owned(),
                detail: report.not_comparable[0].detail.clone(),
            }]
        );
        assert_eq!(report.result(), ReconcileResult::NotComparable);
        assert!(!report.same());

        // A difference besides: the report differs, and still lists the other apart.
        let log = [logged_bash(0, "b.rs"), logged_todo];
        let report = reconcile_calls(&sealed, &log, ReconcileAgent::ClaudeCode);
        let kinds: Vec<_> = report.differences.iter().map(|d| d.kind).collect();
        assert_eq!(kinds, [LogDifferenceKind::ResponseDiffers]);
        assert_eq!(report.not_comparable.len(), 1);
        assert_eq!(report.result(), ReconcileResult::Differ);

        // Every result compared and equal: the same.
        let report = reconcile_calls(&sealed[..1], &log[..0], ReconcileAgent::ClaudeCode);
        assert_eq!(report.result(), ReconcileResult::Differ);
        let same = reconcile_calls(
            &sealed[..1],
            &[logged_bash(0, "a.rs")],
            ReconcileAgent::ClaudeCode,
        );
        assert_eq!(same.result(), ReconcileResult::Same);
        assert!(same.same());
        assert_eq!(
            [
                ReconcileResult::Same,
                ReconcileResult::Differ,
                ReconcileResult::NotComparable
            ]
            .map(ReconcileResult::name),
            ["same", "differ", "not-comparable"]
        );
    }

    #[test]
    fn claude_code_hook_responses_project_onto_the_log() {
        let agent = ReconcileAgent::ClaudeCode;
        let read =
            json::parse(r#"{"type": "text", "file": {"filePath": "/a", "content": "x\ny"}}"#)
                .unwrap();
        let log = json::parse(
            r#"{"content": "     1→x\n     2→y\n\n<system-reminder>r</system-reminder>"}"#,
        )
        .unwrap();
        assert_eq!(compare(agent, &read, &log), Compared::Same);
        let edited = json::parse(r#"{"content": "     1→x\n     2→z"}"#).unwrap();
        assert!(matches!(
            compare(agent, &read, &edited),
            Compared::Differs(_)
        ));
        let todo = json::parse(r#"{"oldTodos": [], "newTodos": []}"#).unwrap();
        assert!(matches!(
            compare(agent, &todo, &log),
            Compared::NotComparable(_)
        ));
        let denied =
            json::parse(r#"{"toolreplay": {"outcome": "denied", "findings": []}}"#).unwrap();
        let error = json::parse(r#"{"content": "blocked", "is_error": true}"#).unwrap();
        assert_eq!(compare(agent, &denied, &error), Compared::Same);
        assert!(matches!(
            compare(agent, &denied, &log),
            Compared::Differs(_)
        ));
    }

    #[test]
    fn a_call_another_hook_changed_is_the_call_as_it_ran() {
        let sealed = [
            record(
                0,
                "Bash",
                r#"{"command": "a"}"#,
                r#"{"no_result": true, "reason": "another hook changed its input before it ran; the call as it ran is index 1"}"#,
            ),
            record(
                1,
                "Bash",
                r#"{"command": "b"}"#,
                r#"{"stdout": "B", "stderr": ""}"#,
            ),
        ];
        let log = [record(
            0,
            "Bash",
            r#"{"command": "b"}"#,
            r#"{"content": "B"}"#,
        )];
        let report = reconcile_calls(&sealed, &log, ReconcileAgent::ClaudeCode);
        assert!(report.same(), "{report:?}");
        assert_eq!(report.replaced_not_logged, 1);
    }

    #[test]
    fn codex_shell_calls_share_a_key() {
        let hook = Key::of(
            ReconcileAgent::Codex,
            "Bash",
            &json::parse(r#"{"command": "ls -la"}"#).unwrap(),
        );
        let shell = Key::of(
            ReconcileAgent::Codex,
            "shell",
            &json::parse(r#"{"command": ["bash", "-lc", "ls -la"], "workdir": "/w"}"#).unwrap(),
        );
        let exec = Key::of(
            ReconcileAgent::Codex,
            "exec_command",
            &json::parse(r#"{"cmd": "ls -la"}"#).unwrap(),
        );
        let argv = Key::of(
            ReconcileAgent::Codex,
            "shell",
            &json::parse(r#"{"command": ["ls", "-la"]}"#).unwrap(),
        );
        assert_eq!(hook.digest, shell.digest);
        assert_eq!(hook.digest, exec.digest);
        assert_eq!(hook.digest, argv.digest);
        let patch = Key::of(
            ReconcileAgent::Codex,
            "apply_patch",
            &json::parse(r#"{"command": "P"}"#).unwrap(),
        );
        let custom = Key::of(
            ReconcileAgent::Codex,
            "apply_patch",
            &json::parse(r#"{"input": "P"}"#).unwrap(),
        );
        assert_eq!(patch.digest, custom.digest);
    }

    #[test]
    fn a_late_result_is_its_no_result_record() {
        let sealed = [
            record(
                0,
                "Bash",
                r#"{"command": "a"}"#,
                r#"{"no_result": true, "reason": "r"}"#,
            ),
            record(
                1,
                "Bash",
                r#"{"command": "b"}"#,
                r#"{"stdout": "B", "stderr": ""}"#,
            ),
            record(
                2,
                "Bash",
                r#"{"command": "a"}"#,
                r#"{"toolreplay": {"of": 0, "outcome": "late", "response": {"stdout": "A", "stderr": ""}}}"#,
            ),
        ];
        let log = [
            record(0, "Bash", r#"{"command": "a"}"#, r#"{"content": "A"}"#),
            record(1, "Bash", r#"{"command": "b"}"#, r#"{"content": "B"}"#),
        ];
        let report = reconcile_calls(&sealed, &log, ReconcileAgent::ClaudeCode);
        assert!(report.same(), "{report:?}");
        assert_eq!(report.late_merged, 1);
    }
}
