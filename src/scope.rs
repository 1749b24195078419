//! The scope audit (spec section 4): calls to tools outside the declared permissions.

use std::collections::HashSet;

use crate::canonical;
use crate::json::{self, ParseError, Value};
use crate::report::{Finding, FindingKind};
use crate::transcript::Record;

/// A declared scope: an agent and the tools it may call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// The agent's name; never empty.
    pub agent: String,
    /// The tools it may call, matched exactly.
    pub allowed_tools: Vec<String>,
}

impl Scope {
    /// Parses a scope file's bytes: one JSON object, which may span several lines,
    /// in UTF-8 (a byte-order mark at the start is skipped).
    ///
    /// Errors about the object's fields are placed on the line where the object starts.
    pub fn parse(bytes: &[u8]) -> Result<Scope, ParseError> {
        let text = json::decode_document(bytes)?;
        let (value, lines) = json::parse_located(text)?;
        // Errors about the object itself go on the line where it starts.
        let start = text
            .bytes()
            .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .unwrap_or(0);
        let object_line = text.as_bytes()[..start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        let error_on = |line: usize, message: String| ParseError {
            message,
            line,
            column: None,
        };
        let Value::Object(members) = value else {
            return Err(error_on(
                object_line,
                format!("expected a JSON object, found {}", value.described()),
            ));
        };
        let mut agent = None;
        let mut allowed_tools = None;
        for ((key, value), line) in members.into_iter().zip(lines) {
            let error = |message: String| error_on(line, message);
            match (key.as_str(), value) {
                ("agent", Value::Str(s)) if !s.is_empty() => agent = Some(s),
                ("agent", other) => {
                    return Err(error(format!(
                        "field \"agent\" must be a non-empty string, found {}",
                        other.described()
                    )));
                }
                ("allowed_tools", Value::Array(items)) => {
                    let mut tools = Vec::with_capacity(items.len());
                    for (i, item) in items.into_iter().enumerate() {
                        match item {
                            Value::Str(s) => tools.push(s),
                            other => {
                                return Err(error(format!(
                                    "field \"allowed_tools\" must hold only strings, found {} at position {i}",
                                    other.described()
                                )));
                            }
                        }
                    }
                    allowed_tools = Some(tools);
                }
                ("allowed_tools", other) => {
                    return Err(error(format!(
                        "field \"allowed_tools\" must be an array of strings, found {}",
                        other.described()
                    )));
                }
                (_, _) => return Err(error(format!("unknown field {}", json::quoted_key(&key)))),
            }
        }
        let missing = |name: &str| error_on(object_line, format!("missing field \"{name}\""));
        Ok(Scope {
            agent: agent.ok_or_else(|| missing("agent"))?,
            allowed_tools: allowed_tools.ok_or_else(|| missing("allowed_tools"))?,
        })
    }
}

/// What scope found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeReport {
    /// The agent the scope was declared for.
    pub agent: String,
    /// How many calls the transcript holds.
    pub calls: u64,
    /// The findings, by index.
    pub findings: Vec<Finding>,
}

/// Walks the records of a transcript against a scope.
#[derive(Debug)]
pub struct ScopeAudit {
    agent: String,
    allowed: HashSet<String>,
    calls: u64,
    findings: Vec<Finding>,
}

impl ScopeAudit {
    /// An audit against `scope`.
    pub fn new(scope: Scope) -> Self {
        ScopeAudit {
            agent: scope.agent,
            allowed: scope.allowed_tools.into_iter().collect(),
            calls: 0,
            findings: Vec::new(),
        }
    }

    /// Takes the next record, found on the 1-based physical line `line`.
    pub fn observe(&mut self, line: u64, record: &Record) {
        let args = canonical::encode(&record.args);
        self.observe_call(line, record.index, &record.tool, &args);
    }

    /// Takes the next call, by its line, index, tool name and canonical arguments.
    pub fn observe_call(&mut self, line: u64, index: u64, tool: &str, args: &[u8]) {
        if !self.allowed.contains(tool) {
            self.findings.push(Finding {
                index,
                tool: tool.to_owned(),
                kind: FindingKind::PermissionOverreach,
                line,
                call: crate::fingerprint::call_canonical(tool, args),
            });
        }
        self.calls += 1;
    }

    /// The report on the records seen.
    pub fn finish(self) -> ScopeReport {
        ScopeReport {
            agent: self.agent,
            calls: self.calls,
            findings: self.findings,
        }
    }
}
