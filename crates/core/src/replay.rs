//! The replay audit (spec section 3): non-determinism, redundant calls, divergence.

use std::collections::{BTreeSet, HashMap};

use sha2::{Digest, Sha256};

use crate::finding::{FindingKind, Findings};

/// The tools whose calls change state unless told otherwise.
pub(crate) const DEFAULT_MUTATING_TOOLS: [&str; 5] = [
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
pub(crate) const AGENT_MUTATING_TOOLS: &[(&str, &[&str])] = &[
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
pub(crate) const AGENT_VOLATILE_TOOLS: &[(&str, &[&str])] = &[
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
    /// Tools whose calls change state, besides `DEFAULT_MUTATING_TOOLS`.
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
    /// `AGENT_MUTATING_TOOLS` and `AGENT_VOLATILE_TOOLS`, and responses compared
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

/// The replay audit of the transcript read from `reader`, judged as `options` say,
/// parsed on `threads`. Fingerprints are computed on the parsing threads; only the
/// bookkeeping is sequential.
///
/// ```
/// use toolreplay_core::{ReplayOptions, Threads, audit_replay};
///
/// let transcript = "\
/// {\"index\": 0, \"tool\": \"search\", \"args\": {\"q\": \"x\"}, \"response\": {\"hits\": 1}}
/// {\"index\": 1, \"tool\": \"search\", \"args\": {\"q\": \"x\"}, \"response\": {\"hits\": 2}}
/// ";
/// let report = audit_replay(transcript.as_bytes(), &ReplayOptions::default(), Threads::default())?;
/// assert_eq!((report.calls, report.divergence), (2, Some(1)));
/// assert_eq!(report.findings.to_vec()?[0].kind.name(), "non-determinism");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn audit_with(
    reader: impl std::io::Read + Send,
    options: &Options,
    threads: crate::pipeline::Threads,
) -> Result<ReplayReport, crate::transcript::ReadError> {
    let mut replay = Replay::with_options(options.clone());
    crate::transcript::for_each_record(
        reader,
        threads,
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
pub(crate) type Fingerprint = [u8; 32];

/// The fingerprints of a call (its tool and canonical arguments) and of its canonical
/// response. Two calls are identical exactly when their call fingerprints are equal
/// (up to SHA-256 collisions).
pub fn fingerprints(tool: &str, args: &[u8], response: &[u8]) -> (Fingerprint, Fingerprint) {
    (
        crate::fingerprint::call_canonical(tool, args),
        Sha256::digest(response).into(),
    )
}

/// What is remembered of each distinct call: 80 bytes, whatever the call holds. Its
/// place in [`Replay::seen`] is in the table [`Replay::numbers`] (4 bytes and the
/// table's control byte, over its load), so a distinct call costs under 100 bytes.
#[derive(Debug)]
struct Seen {
    call: Fingerprint,
    /// The response later identical calls are compared with: that of the first
    /// occurrence, or with [`Options::since_state_change`] of the first in its state.
    first_response: Fingerprint,
    /// The index of that call.
    first_index: u64,
    /// The index of the most recent identical call.
    last_index: u64,
}

/// How many distinct calls [`Replay::numbers`] can number: past them, calls are
/// kept in [`Replay::unnumbered`].
const NUMBERED: usize = u32::MAX as usize;

/// Walks the records of a transcript in order.
///
/// Whether the state changed between two calls is told by the index of the most
/// recent state-changing call: it changed since the call at index `i` exactly when
/// a state-changing call came at `i` or after.
#[derive(Debug)]
pub struct Replay {
    mutating: BTreeSet<String>,
    volatile: BTreeSet<String>,
    since_state_change: bool,
    /// The distinct calls, in the order they first came.
    seen: Vec<Seen>,
    /// The place in `seen` of each distinct call, found by its fingerprint.
    numbers: hashbrown::HashTable<u32>,
    /// The distinct calls past the first [`NUMBERED`]: none, unless the transcript
    /// has more than four thousand million of them.
    unnumbered: HashMap<Fingerprint, Seen>,
    /// How many calls `numbers` can number.
    numbered: usize,
    hasher: std::hash::RandomState,
    /// The index of the most recent state-changing call.
    last_change: Option<u64>,
    calls: u64,
    divergence: Option<u64>,
    findings: Findings,
    /// The kinds of the findings of the last call observed.
    recent: Vec<FindingKind>,
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
            seen: Vec::new(),
            numbers: hashbrown::HashTable::new(),
            unnumbered: HashMap::new(),
            numbered: NUMBERED,
            hasher: std::hash::RandomState::new(),
            last_change: None,
            calls: 0,
            divergence: None,
            findings: Findings::new(),
            recent: Vec::new(),
        }
    }

    /// The kinds of the findings at the last call observed, in report order.
    pub(crate) fn recent(&self) -> &[FindingKind] {
        &self.recent
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
        self.recent.clear();
        let last_change = self.last_change;
        let unchanged_since = |at: u64| last_change.is_none_or(|change| change < at);
        let found = seen_mut(
            &self.numbers,
            &mut self.seen,
            &mut self.unnumbered,
            &self.hasher,
            &call,
        );
        match found {
            Some(seen) => {
                if self.since_state_change && !unchanged_since(seen.first_index) {
                    seen.first_index = index;
                    seen.first_response = response;
                } else if seen.first_response != response && !self.volatile.contains(tool) {
                    let kind = FindingKind::NonDeterminism {
                        first: seen.first_index,
                    };
                    self.findings.push_call(index, line, &call, tool, &kind);
                    self.recent.push(kind);
                    self.divergence.get_or_insert(index);
                }
                if unchanged_since(seen.last_index) && !self.volatile.contains(tool) {
                    let kind = FindingKind::RedundantCall {
                        previous: seen.last_index,
                    };
                    self.findings.push_call(index, line, &call, tool, &kind);
                    self.recent.push(kind);
                }
                seen.last_index = index;
            }
            None => self.insert(Seen {
                call,
                first_response: response,
                first_index: index,
                last_index: index,
            }),
        }
        if self.mutating.contains(tool) {
            self.last_change = Some(index);
        }
        self.calls += 1;
    }

    /// Remembers a call that did not come before.
    fn insert(&mut self, seen: Seen) {
        let number = match u32::try_from(self.seen.len()) {
            Ok(number) if self.seen.len() < self.numbered => number,
            _ => {
                self.unnumbered.insert(seen.call, seen);
                return;
            }
        };
        let (hasher, all) = (&self.hasher, &self.seen);
        self.numbers
            .insert_unique(hash(hasher, &seen.call), number, |&n| {
                all.get(n as usize)
                    .map_or(0, |seen| hash(hasher, &seen.call))
            });
        self.seen.push(seen);
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

/// The hash of a call's fingerprint in [`Replay::numbers`]: that of its first eight
/// bytes, which SHA-256 spreads as evenly as all 32, with the table's random keys.
fn hash(hasher: &std::hash::RandomState, call: &Fingerprint) -> u64 {
    use std::hash::BuildHasher as _;
    let [a, b, c, d, e, f, g, h, ..] = *call;
    hasher.hash_one(u64::from_le_bytes([a, b, c, d, e, f, g, h]))
}

/// What is remembered of the call `call`, if it came before: in `seen` at the place
/// `numbers` gives, or else in `unnumbered`.
fn seen_mut<'a>(
    numbers: &hashbrown::HashTable<u32>,
    seen: &'a mut [Seen],
    unnumbered: &'a mut HashMap<Fingerprint, Seen>,
    hasher: &std::hash::RandomState,
    call: &Fingerprint,
) -> Option<&'a mut Seen> {
    let found = numbers.find(hash(hasher, call), |&n| {
        seen.get(n as usize).is_some_and(|seen| seen.call == *call)
    });
    match found {
        Some(&n) => seen.get_mut(n as usize),
        None => unnumbered.get_mut(call),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Finding;
    use proptest::prelude::*;

    /// Replay as the specification words it, with a state epoch kept per call: what
    /// the table of numbered calls and the index of the last state change must give.
    fn model(options: &Options, calls: &[(&str, Fingerprint, Fingerprint)]) -> Vec<Finding> {
        let mutating: BTreeSet<String> = DEFAULT_MUTATING_TOOLS
            .iter()
            .map(|&s| s.to_owned())
            .chain(options.mutating.iter().cloned())
            .collect();
        // call -> (first index, first response, epoch before it, last index, epoch before it)
        let mut seen: HashMap<Fingerprint, (u64, Fingerprint, u64, u64, u64)> = HashMap::new();
        let mut epoch = 0;
        let mut found = Vec::new();
        for (index, &(tool, call, response)) in (0u64..).zip(calls) {
            let finding = |kind| Finding {
                index,
                tool: tool.to_owned(),
                kind,
                line: index + 1,
                call,
            };
            let volatile = options.volatile.contains(tool);
            match seen.get_mut(&call) {
                Some(s) => {
                    if options.since_state_change && s.2 != epoch {
                        (s.0, s.1, s.2) = (index, response, epoch);
                    } else if s.1 != response && !volatile {
                        found.push(finding(FindingKind::NonDeterminism { first: s.0 }));
                    }
                    if s.4 == epoch && !volatile {
                        found.push(finding(FindingKind::RedundantCall { previous: s.3 }));
                    }
                    (s.3, s.4) = (index, epoch);
                }
                None => {
                    seen.insert(call, (index, response, epoch, index, epoch));
                }
            }
            if mutating.contains(tool) {
                epoch += 1;
            }
        }
        found
    }

    proptest! {
        /// On any run of calls, with either rules, and with the calls numbered or
        /// (past a small limit) kept apart, replay finds what the model finds.
        #[test]
        fn replay_finds_what_the_model_finds(
            picks in prop::collection::vec((0usize..5, 0u8..4, 0u8..3), 0..120),
            agent in any::<bool>(),
            numbered in prop::sample::select(vec![0usize, 1, 3, NUMBERED]),
        ) {
            const TOOLS: [&str; 5] = ["Read", "Edit", "BashOutput", "search", "write_file"];
            let calls: Vec<(&str, Fingerprint, Fingerprint)> = picks
                .iter()
                .map(|&(tool, args, response)| {
                    let tool = TOOLS[tool];
                    let call = crate::fingerprint::call_canonical(tool, &[b'0' + args]);
                    (tool, call, [response; 32])
                })
                .collect();
            let mut options = if agent { Options::agent() } else { Options::default() };
            options.mutating.insert("write_file".to_owned());
            let mut replay = Replay::with_options(options.clone());
            replay.numbered = numbered;
            for (index, &(tool, call, response)) in (0u64..).zip(&calls) {
                replay.observe_fingerprints(index + 1, index, tool, call, response);
            }
            let expected = model(&options, &calls);
            let report = replay.finish();
            prop_assert_eq!(
                report.divergence,
                expected.iter().find_map(|f| match f.kind {
                    FindingKind::NonDeterminism { .. } => Some(f.index),
                    _ => None,
                })
            );
            prop_assert_eq!(report.findings.to_vec().expect("read back"), expected);
        }
    }

    const RUN: &str = "\
{\"index\": 0, \"tool\": \"Read\", \"args\": {\"p\": \"a\"}, \"response\": {\"t\": \"1\"}}
{\"index\": 1, \"tool\": \"Edit\", \"args\": {\"p\": \"a\"}, \"response\": {}}
{\"index\": 2, \"tool\": \"Read\", \"args\": {\"p\": \"a\"}, \"response\": {\"t\": \"2\"}}
{\"index\": 3, \"tool\": \"Read\", \"args\": {\"p\": \"a\"}, \"response\": {\"t\": \"3\"}}
{\"index\": 4, \"tool\": \"BashOutput\", \"args\": {\"id\": \"1\"}, \"response\": {\"o\": \"x\"}}
{\"index\": 5, \"tool\": \"BashOutput\", \"args\": {\"id\": \"1\"}, \"response\": {\"o\": \"y\"}}
";

    fn kinds(options: &Options) -> Vec<(u64, FindingKind)> {
        audit_with(RUN.as_bytes(), options, crate::pipeline::Threads::default())
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
