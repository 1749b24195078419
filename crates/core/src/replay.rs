//! The replay audit (spec section 3): non-determinism, redundant calls, divergence.

use std::collections::{BTreeSet, HashMap};

use sha2::{Digest, Sha256};

use crate::finding::{FindingKind, Findings};

/// The tools whose calls change state unless told otherwise.
pub const DEFAULT_MUTATING_TOOLS: [&str; 5] = [
    "write_file",
    "delete_file",
    "create_file",
    "move_file",
    "run_command",
];

/// The state-changing tools of the agents whose logs `import` reads, by agent: what
/// [`Options::agent`] adds to the mutating set. They are one set, a union by name:
/// no name here is a read-only tool of another agent. A tool whose calls may change
/// anything (a shell, a subagent, an editor that can also view) counts as changing
/// state, so that a repeat after it is never reported redundant.
pub const AGENT_MUTATING_TOOLS: &[(&str, &[&str])] = &[
    (
        "Claude Code",
        &[
            "Bash",
            "Edit",
            "KillBash",
            "KillShell",
            "MultiEdit",
            "NotebookEdit",
            "Task",
            "TodoWrite",
            "Write",
        ],
    ),
    (
        "Codex",
        &[
            "apply_patch",
            "exec_command",
            "local_shell",
            "shell",
            "shell_command",
            "update_plan",
            "write_stdin",
        ],
    ),
    (
        "Gemini CLI",
        &["replace", "run_shell_command", "save_memory", "write_file"],
    ),
    (
        "GitHub Copilot CLI",
        &[
            "bash",
            "create",
            "edit",
            "stop_bash",
            "str_replace_editor",
            "write_bash",
        ],
    ),
    (
        "Cursor",
        &[
            "Shell",
            "delete_file",
            "edit_file",
            "run_terminal_cmd",
            "search_replace",
            "write",
        ],
    ),
    (
        "OpenHands and SWE-agent",
        &[
            "edit",
            "execute_bash",
            "execute_ipython_cell",
            "str_replace_editor",
        ],
    ),
    (
        "MCP filesystem server",
        &["create_directory", "edit_file", "move_file", "write_file"],
    ),
];

/// The tools of those agents whose answers are expected to vary from one identical
/// call to the next, whatever happened between: they poll a running process or read
/// the web. [`Options::agent`] exempts them from non-determinism and redundant-call.
pub const AGENT_VOLATILE_TOOLS: &[(&str, &[&str])] = &[
    (
        "Claude Code",
        &["BashOutput", "TaskOutput", "WebFetch", "WebSearch"],
    ),
    ("Codex", &["web_search"]),
    ("Gemini CLI", &["google_web_search", "web_fetch"]),
    ("GitHub Copilot CLI", &["read_bash"]),
    ("Cursor", &["web_search"]),
];

/// How a replay judges calls: the specification's rules ([`Options::default`]), or
/// those of a recorded agent session ([`Options::agent`]), with more tools named.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Tools whose calls change state, besides [`DEFAULT_MUTATING_TOOLS`].
    pub mutating: BTreeSet<String>,
    /// Tools whose answers are expected to vary (they poll or read the web): never a
    /// non-determinism finding, and asking again is never redundant.
    pub volatile: BTreeSet<String>,
    /// Compare an identical call's response only with that of the identical call made
    /// in the same state, since the last state-changing call: a `Read` that answers
    /// differently after an `Edit` is expected. Without it (the specification's
    /// rule), the first occurrence's response is the reference whatever changed.
    pub since_state_change: bool,
}

impl Options {
    /// The options for a recorded agent session: the mutating and volatile tools of
    /// [`AGENT_MUTATING_TOOLS`] and [`AGENT_VOLATILE_TOOLS`], and responses compared
    /// since the last state change.
    pub fn agent() -> Self {
        let names = |table: &[(&str, &[&str])]| {
            table
                .iter()
                .flat_map(|(_, tools)| tools.iter().map(|&t| t.to_owned()))
                .collect()
        };
        Options {
            mutating: names(AGENT_MUTATING_TOOLS),
            volatile: names(AGENT_VOLATILE_TOOLS),
            since_state_change: true,
        }
    }
}

/// What replay found.
#[derive(Debug, PartialEq, Eq)]
pub struct ReplayReport {
    /// How many calls the transcript holds.
    pub calls: u64,
    /// The index of the first non-determinism finding.
    pub divergence: Option<u64>,
    /// The findings, by index, then kind: kept compactly, in a temporary file past
    /// a few MiB.
    pub findings: Findings,
}

/// The replay audit of the transcript read from `reader`: `extra_mutating` names the
/// tools whose calls change state besides [`DEFAULT_MUTATING_TOOLS`]. Fingerprints
/// are computed on the parsing threads; only the bookkeeping is sequential.
///
/// ```
/// let transcript = "\
/// {\"index\": 0, \"tool\": \"search\", \"args\": {\"q\": \"x\"}, \"response\": {\"hits\": 1}}
/// {\"index\": 1, \"tool\": \"search\", \"args\": {\"q\": \"x\"}, \"response\": {\"hits\": 2}}
/// ";
/// let report = toolreplay_core::replay::audit(transcript.as_bytes(), Vec::<String>::new())?;
/// assert_eq!((report.calls, report.divergence), (2, Some(1)));
/// assert_eq!(report.findings.to_vec()?[0].kind.name(), "non-determinism");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn audit<I, S>(
    reader: impl std::io::Read + Send,
    extra_mutating: I,
) -> Result<ReplayReport, crate::transcript::ReadError>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    audit_with(
        reader,
        &Options {
            mutating: extra_mutating.into_iter().map(Into::into).collect(),
            ..Options::default()
        },
    )
}

/// The replay audit of the transcript read from `reader`, judged as `options` say.
pub fn audit_with(
    reader: impl std::io::Read + Send,
    options: &Options,
) -> Result<ReplayReport, crate::transcript::ReadError> {
    let mut replay = Replay::with_options(options.clone());
    crate::transcript::for_each_record(
        reader,
        |record| fingerprints(record.tool, record.args, record.response),
        |line, index, tool, (call, response)| {
            replay.observe_fingerprints(line, index, tool, call, response);
            Ok::<(), std::convert::Infallible>(())
        },
    )
    .map_err(crate::pipeline::Stop::into_read_error)?;
    Ok(replay.finish())
}

/// A SHA-256 digest standing for a call or a response.
pub type Fingerprint = [u8; 32];

/// The fingerprints of a call (its tool and canonical arguments) and of its canonical
/// response. Two calls are identical exactly when their call fingerprints are equal
/// (up to SHA-256 collisions).
pub fn fingerprints(tool: &str, args: &[u8], response: &[u8]) -> (Fingerprint, Fingerprint) {
    (
        crate::fingerprint::call_canonical(tool, args),
        Sha256::digest(response).into(),
    )
}

/// A call's fingerprint as the key of the table of distinct calls: compared whole,
/// hashed by its first eight bytes (with the table's random keys, as any key), which
/// SHA-256 spreads as evenly as all 32 would be.
#[derive(Debug, PartialEq, Eq)]
struct CallKey(Fingerprint);

impl std::hash::Hash for CallKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let [a, b, c, d, e, f, g, h, ..] = self.0;
        state.write_u64(u64::from_le_bytes([a, b, c, d, e, f, g, h]));
    }
}

/// What is remembered of each distinct call: fixed-size, whatever the call holds.
#[derive(Debug)]
struct Seen {
    /// The call whose response later identical calls are compared with: the first
    /// occurrence, or with [`Options::since_state_change`] the first in its state.
    first_index: u64,
    first_response: Fingerprint,
    /// The state epoch just before that call ran.
    first_epoch: u64,
    last_index: u64,
    /// The state epoch just before the most recent identical call ran.
    epoch_before_last: u64,
}

/// Walks the records of a transcript in order.
#[derive(Debug)]
pub struct Replay {
    mutating: BTreeSet<String>,
    volatile: BTreeSet<String>,
    since_state_change: bool,
    seen: HashMap<CallKey, Seen>,
    epoch: u64,
    calls: u64,
    divergence: Option<u64>,
    findings: Findings,
}

impl Replay {
    /// A replay whose state-changing tools are the default set plus `extra_mutating`.
    pub fn new<I, S>(extra_mutating: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Replay::with_options(Options {
            mutating: extra_mutating.into_iter().map(Into::into).collect(),
            ..Options::default()
        })
    }

    /// A replay judging calls as `options` say.
    pub fn with_options(options: Options) -> Self {
        let mut mutating: BTreeSet<String> = DEFAULT_MUTATING_TOOLS
            .iter()
            .map(|&s| s.to_owned())
            .collect();
        mutating.extend(options.mutating);
        Replay {
            mutating,
            volatile: options.volatile,
            since_state_change: options.since_state_change,
            seen: HashMap::new(),
            epoch: 0,
            calls: 0,
            divergence: None,
            findings: Findings::new(),
        }
    }

    /// Takes the next call by its line, index, tool and [`fingerprints`], which can
    /// be computed ahead, on another thread.
    pub fn observe_fingerprints(
        &mut self,
        line: u64,
        index: u64,
        tool: &str,
        call: Fingerprint,
        response: Fingerprint,
    ) {
        let epoch = self.epoch;
        match self.seen.get_mut(&CallKey(call)) {
            Some(seen) => {
                if self.since_state_change && seen.first_epoch != epoch {
                    seen.first_index = index;
                    seen.first_response = response;
                    seen.first_epoch = epoch;
                } else if seen.first_response != response && !self.volatile.contains(tool) {
                    let kind = FindingKind::NonDeterminism {
                        first: seen.first_index,
                    };
                    self.findings.push_call(index, line, &call, tool, &kind);
                    self.divergence.get_or_insert(index);
                }
                if seen.epoch_before_last == epoch && !self.volatile.contains(tool) {
                    let kind = FindingKind::RedundantCall {
                        previous: seen.last_index,
                    };
                    self.findings.push_call(index, line, &call, tool, &kind);
                }
                seen.last_index = index;
                seen.epoch_before_last = epoch;
            }
            None => {
                self.seen.insert(
                    CallKey(call),
                    Seen {
                        first_index: index,
                        first_response: response,
                        first_epoch: epoch,
                        last_index: index,
                        epoch_before_last: epoch,
                    },
                );
            }
        }
        if self.mutating.contains(tool) {
            self.epoch += 1;
        }
        self.calls += 1;
    }

    /// The report on the records seen.
    pub fn finish(self) -> ReplayReport {
        // Findings are made in index order, and for one index non-determinism before
        // redundant-call, which is the order of their kind names.
        ReplayReport {
            calls: self.calls,
            divergence: self.divergence,
            findings: self.findings,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUN: &str = "\
{\"index\": 0, \"tool\": \"Read\", \"args\": {\"p\": \"a\"}, \"response\": {\"t\": \"1\"}}
{\"index\": 1, \"tool\": \"Edit\", \"args\": {\"p\": \"a\"}, \"response\": {}}
{\"index\": 2, \"tool\": \"Read\", \"args\": {\"p\": \"a\"}, \"response\": {\"t\": \"2\"}}
{\"index\": 3, \"tool\": \"Read\", \"args\": {\"p\": \"a\"}, \"response\": {\"t\": \"3\"}}
{\"index\": 4, \"tool\": \"BashOutput\", \"args\": {\"id\": \"1\"}, \"response\": {\"o\": \"x\"}}
{\"index\": 5, \"tool\": \"BashOutput\", \"args\": {\"id\": \"1\"}, \"response\": {\"o\": \"y\"}}
";

    fn kinds(options: &Options) -> Vec<(u64, FindingKind)> {
        audit_with(RUN.as_bytes(), options)
            .unwrap()
            .findings
            .to_vec()
            .unwrap()
            .into_iter()
            .map(|f| (f.index, f.kind))
            .collect()
    }

    #[test]
    fn the_specification_compares_with_the_first_call_whatever_changed() {
        use FindingKind::*;
        assert_eq!(
            kinds(&Options::default()),
            [
                (2, NonDeterminism { first: 0 }),
                (2, RedundantCall { previous: 0 }),
                (3, NonDeterminism { first: 0 }),
                (3, RedundantCall { previous: 2 }),
                (5, NonDeterminism { first: 4 }),
                (5, RedundantCall { previous: 4 }),
            ]
        );
    }

    #[test]
    fn an_agent_session_compares_since_the_last_state_change_and_spares_volatile_tools() {
        use FindingKind::*;
        // The Read after the Edit is expected to differ; the next one, in the same
        // state, is not. BashOutput polls: asking again is neither redundant nor a
        // sign of non-determinism.
        assert_eq!(
            kinds(&Options::agent()),
            [
                (3, NonDeterminism { first: 2 }),
                (3, RedundantCall { previous: 2 }),
            ]
        );
    }

    #[test]
    fn agent_tables_have_no_name_both_mutating_and_volatile() {
        let options = Options::agent();
        assert!(options.mutating.is_disjoint(&options.volatile));
    }
}
