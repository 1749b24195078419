//! The replay audit (spec section 3): non-determinism, redundant calls, divergence.

use std::collections::{BTreeSet, HashMap};

use sha2::{Digest, Sha256};

use crate::finding::{Finding, FindingKind};

/// The tools whose calls change state unless told otherwise.
pub const DEFAULT_MUTATING_TOOLS: [&str; 5] = [
    "write_file",
    "delete_file",
    "create_file",
    "move_file",
    "run_command",
];

/// What replay found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayReport {
    /// How many calls the transcript holds.
    pub calls: u64,
    /// The index of the first non-determinism finding.
    pub divergence: Option<u64>,
    /// The findings, by index, then kind.
    pub findings: Vec<Finding>,
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
/// assert_eq!(report.findings[0].kind.name(), "non-determinism");
/// # Ok::<(), toolreplay_core::transcript::ReadError>(())
/// ```
pub fn audit<I, S>(
    reader: impl std::io::Read + Send,
    extra_mutating: I,
) -> Result<ReplayReport, crate::transcript::ReadError>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let mut replay = Replay::new(extra_mutating);
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

/// What is remembered of each distinct call: fixed-size, whatever the call holds.
#[derive(Debug)]
struct Seen {
    first_index: u64,
    first_response: Fingerprint,
    last_index: u64,
    /// The state epoch just before the most recent identical call ran.
    epoch_before_last: u64,
}

/// Walks the records of a transcript in order.
#[derive(Debug)]
pub struct Replay {
    mutating: BTreeSet<String>,
    seen: HashMap<Fingerprint, Seen>,
    epoch: u64,
    calls: u64,
    divergence: Option<u64>,
    findings: Vec<Finding>,
}

impl Replay {
    /// A replay whose state-changing tools are the default set plus `extra_mutating`.
    pub fn new<I, S>(extra_mutating: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut mutating: BTreeSet<String> = DEFAULT_MUTATING_TOOLS
            .iter()
            .map(|&s| s.to_owned())
            .collect();
        mutating.extend(extra_mutating.into_iter().map(Into::into));
        Replay {
            mutating,
            seen: HashMap::new(),
            epoch: 0,
            calls: 0,
            divergence: None,
            findings: Vec::new(),
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
        match self.seen.get_mut(&call) {
            Some(seen) => {
                if seen.first_response != response {
                    self.findings.push(Finding {
                        index,
                        tool: tool.to_owned(),
                        kind: FindingKind::NonDeterminism {
                            first: seen.first_index,
                        },
                        line,
                        call,
                    });
                    self.divergence.get_or_insert(index);
                }
                if seen.epoch_before_last == epoch {
                    self.findings.push(Finding {
                        index,
                        tool: tool.to_owned(),
                        kind: FindingKind::RedundantCall {
                            previous: seen.last_index,
                        },
                        line,
                        call,
                    });
                }
                seen.last_index = index;
                seen.epoch_before_last = epoch;
            }
            None => {
                self.seen.insert(
                    call,
                    Seen {
                        first_index: index,
                        first_response: response,
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
