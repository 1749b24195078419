//! Comparing two runs: where they first differ, call by call.
//!
//! Each input is a plain transcript or a sealed one, told apart per file by its first
//! non-blank line: a line with a `prev` or `digest` key makes the whole file a
//! sealed transcript (read with the strictness of `verify`), otherwise it is a plain
//! transcript (read with the strictness of `replay`, index order included). The
//! records are compared position by position through their canonical encoding:
//! tool name, `args` and `response`; a sealed link's `index`, `prev` and `digest`
//! are not compared (`verify` checks those), so a run compares equal to its sealed
//! form. Both inputs are read to the end, so an input error anywhere in either is
//! reported (exit 2) rather than a verdict on part of them; the error reported is
//! the first met reading both in step.

use std::io::BufRead;

use sha2::{Digest, Sha256};

use crate::json::{self, Value};
use crate::transcript::{self, Lines, ReadError};

/// What differs between two calls at the same position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Parts {
    /// The tool names differ.
    pub tool: bool,
    /// The canonical arguments differ.
    pub args: bool,
    /// The canonical responses differ.
    pub response: bool,
}

impl Parts {
    /// The names of the parts that differ, in the order `tool`, `args`, `response`.
    pub fn names(self) -> Vec<&'static str> {
        [
            (self.tool, "tool"),
            (self.args, "args"),
            (self.response, "response"),
        ]
        .into_iter()
        .filter_map(|(differs, name)| differs.then_some(name))
        .collect()
    }
}

/// Where a call is: its physical line and tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At {
    /// The 1-based physical line.
    pub line: u64,
    /// The tool name.
    pub tool: String,
}

/// The first difference of two runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Difference {
    /// Both runs have a call at `index`, and they differ in `parts`.
    Call {
        /// The position, 0-based.
        index: u64,
        /// What differs.
        parts: Parts,
        /// The call in A.
        a: At,
        /// The call in B.
        b: At,
    },
    /// One run ended at `index` while the other goes on with the call `at`.
    Ended {
        /// The position, 0-based: the number of calls of the shorter run.
        index: u64,
        /// Whether A is the run that ended (else B).
        a_ended: bool,
        /// The other run's call at `index`.
        at: At,
    },
}

/// The result of comparing two runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffReport {
    /// The number of calls in A.
    pub calls_a: u64,
    /// The number of calls in B.
    pub calls_b: u64,
    /// The first difference, if any.
    pub first: Option<Difference>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Plain,
    Sealed,
}

/// A call reduced to what is compared.
struct Call {
    at: At,
    args: [u8; 32],
    response: [u8; 32],
}

fn digest(canonical: &[u8]) -> [u8; 32] {
    Sha256::digest(canonical).into()
}

/// Which of the two runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The first run.
    A,
    /// The second run.
    B,
}

/// An input error in one of the runs.
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct DiffError {
    /// The run whose input is wrong.
    pub side: Side,
    /// What is wrong.
    #[source]
    pub error: ReadError,
}

/// The calls of one input, plain or sealed.
struct Calls {
    side: Side,
    lines: Lines<Box<dyn BufRead>>,
    kind: Option<Kind>,
    count: u64,
}

impl Calls {
    fn new(side: Side, reader: Box<dyn BufRead>) -> Self {
        Calls {
            side,
            lines: Lines::new(reader),
            kind: None,
            count: 0,
        }
    }

    fn error(&self, error: ReadError) -> DiffError {
        DiffError {
            side: self.side,
            error,
        }
    }

    fn next(&mut self) -> Result<Option<Call>, DiffError> {
        let parsed = match self.lines.next_line() {
            Ok(None) => return Ok(None),
            Err(err) => Err(err),
            Ok(Some((line, text))) => {
                let kind = *self.kind.get_or_insert_with(|| detect(text));
                match kind {
                    Kind::Plain => transcript::parse_canonical_record(line, text, self.count)
                        .map(|r| (line, r.tool, r.args, r.response)),
                    Kind::Sealed => transcript::parse_link(line, text)
                        .map(|l| (line, l.tool, l.args, l.response)),
                }
                .map_err(ReadError::Input)
            }
        };
        let (line, tool, args, response) = parsed.map_err(|err| self.error(err))?;
        self.count += 1;
        Ok(Some(Call {
            at: At { line, tool },
            args: digest(&args),
            response: digest(&response),
        }))
    }
}

/// Whether a first line is a sealed link: an object with a `prev` or `digest` key.
/// Anything else is read as a plain record, whose parser reports what is wrong.
fn detect(text: &str) -> Kind {
    if is_sealed_line(text) {
        Kind::Sealed
    } else {
        Kind::Plain
    }
}

/// Whether the first non-blank line of an input, `text`, makes it a sealed
/// transcript: an object with a `prev` or `digest` key.
pub(crate) fn is_sealed_line(text: &str) -> bool {
    matches!(json::parse(text), Ok(Value::Object(members)) if members.iter().any(|(k, _)| k == "prev" || k == "digest"))
}

/// Every difference of two runs, as [`compare_all`] gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllDifferences {
    /// The counts and the first difference.
    pub report: DiffReport,
    /// The differences in index order, at most the `max` asked for: each pair of
    /// calls that differ, then where one run ended, once.
    pub differences: Vec<Difference>,
    /// How many more differences there were past `max`.
    pub more: u64,
}

/// Compares the runs read from `a` and `b`, keeping up to `max` differences (memory
/// is bounded by `max`, whatever the runs' length).
pub fn compare_all(
    a: Box<dyn BufRead>,
    b: Box<dyn BufRead>,
    max: usize,
) -> Result<AllDifferences, DiffError> {
    let mut left = Calls::new(Side::A, a);
    let mut right = Calls::new(Side::B, b);
    let mut differences = Vec::new();
    let mut more = 0u64;
    let mut ended = false;
    let mut first = None;
    let mut index = 0u64;
    loop {
        let x = left.next()?;
        let y = right.next()?;
        let found = match (x, y) {
            (None, None) => break,
            (Some(x), Some(y)) => {
                let parts = Parts {
                    tool: x.at.tool != y.at.tool,
                    args: x.args != y.args,
                    response: x.response != y.response,
                };
                (parts != Parts::default()).then_some(Difference::Call {
                    index,
                    parts,
                    a: x.at,
                    b: y.at,
                })
            }
            (Some(x), None) => Some(Difference::Ended {
                index,
                a_ended: false,
                at: x.at,
            }),
            (None, Some(y)) => Some(Difference::Ended {
                index,
                a_ended: true,
                at: y.at,
            }),
        };
        if let Some(found) = found {
            let is_end = matches!(found, Difference::Ended { .. });
            if !(is_end && ended) {
                ended |= is_end;
                if first.is_none() {
                    first = Some(found.clone());
                }
                if differences.len() < max {
                    differences.push(found);
                } else {
                    more += 1;
                }
            }
        }
        index += 1;
    }
    Ok(AllDifferences {
        report: DiffReport {
            calls_a: left.count,
            calls_b: right.count,
            first,
        },
        differences,
        more,
    })
}

#[cfg(test)]
mod tests {
    use super::Parts;

    #[test]
    fn the_names_of_the_parts_that_differ_in_order() {
        let parts = Parts {
            tool: false,
            args: true,
            response: true,
        };
        assert_eq!(parts.names(), ["args", "response"]);
    }
}
