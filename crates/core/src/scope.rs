//! The scope audit (spec section 4): calls to tools outside the declared permissions.

use std::collections::HashSet;

use crate::canonical;
use crate::finding::{Finding, FindingKind};
use crate::json::{self, ParseError, Value};
use crate::policy::{self, Policy, sequence::Sequence};
use crate::transcript::Record;

/// A declared scope: an agent, the tools it may call, and maybe policy rules.
#[derive(Debug)]
pub struct Scope {
    /// The agent's name; never empty.
    pub agent: String,
    /// The tools it may call, matched exactly.
    pub allowed_tools: Vec<String>,
    /// The policy rules, when the scope file has any.
    pub policy: Option<Policy>,
}

impl Scope {
    /// Parses a scope file's bytes: one JSON object, which may span several lines,
    /// in UTF-8 (a byte-order mark at the start is skipped).
    ///
    /// Errors about the object's fields are placed on the line where the object starts;
    /// errors in a policy rule on the line of the top-level field that holds it.
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
        // Without `policy_version` the file is in the format of the specification,
        // where policy fields are unknown fields like any other.
        let versioned = members.iter().any(|(key, _)| key == "policy_version");
        let mut policy_fields = Vec::new();
        let mut policy_lines = Vec::new();
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
                (name, value)
                    if name == "policy_version"
                        || (versioned && policy::RULE_FIELDS.contains(&name)) =>
                {
                    policy_lines.push((key.clone(), line));
                    policy_fields.push((key, value));
                }
                (_, _) => return Err(error(format!("unknown field {}", json::quoted_key(&key)))),
            }
        }
        let missing = |name: &str| error_on(object_line, format!("missing field \"{name}\""));
        let agent = agent.ok_or_else(|| missing("agent"))?;
        let allowed_tools = allowed_tools.ok_or_else(|| missing("allowed_tools"))?;
        let policy = Policy::parse(&policy_fields).map_err(|err| {
            let line = policy_lines
                .iter()
                .find(|(key, _)| *key == err.field)
                .map_or(object_line, |(_, line)| *line);
            error_on(line, err.message)
        })?;
        Ok(Scope {
            agent,
            allowed_tools,
            policy,
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
    /// Whether the scope had policy rules.
    pub policy: bool,
}

/// Walks the records of a transcript against a scope.
#[derive(Debug)]
pub struct ScopeAudit {
    agent: String,
    allowed: HashSet<String>,
    calls: u64,
    findings: Vec<Finding>,
    sequence: Option<Sequence>,
}

impl ScopeAudit {
    /// An audit against `scope`, with the budgets and flows of its policy.
    pub fn new(scope: Scope) -> Self {
        let sequence = scope.policy.as_ref().map(Policy::sequence);
        Self::build(scope, sequence)
    }

    /// An audit against `scope` with the walk `sequence` of its policy (whether or
    /// not `scope` still holds the policy).
    pub fn with_sequence(scope: Scope, sequence: Sequence) -> Self {
        Self::build(scope, Some(sequence))
    }

    fn build(scope: Scope, sequence: Option<Sequence>) -> Self {
        ScopeAudit {
            sequence,
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

    /// Takes the next call, with `found`, the findings of the policy on the call
    /// taken alone ([`Policy::check`]); adds the findings that depend on the order
    /// of the calls, and keeps them all sorted by kind name (stable, so the findings
    /// of one kind keep the order they were found in).
    pub fn observe_checked(
        &mut self,
        line: u64,
        index: u64,
        tool: &str,
        args: &[u8],
        mut found: Vec<FindingKind>,
    ) {
        if !self.allowed.contains(tool) {
            found.push(FindingKind::PermissionOverreach);
        }
        if let Some(sequence) = &mut self.sequence {
            sequence.observe(index, tool, &mut found);
        }
        self.calls += 1;
        if found.is_empty() {
            return;
        }
        found.sort_by_key(|kind| kind.name());
        let call = crate::fingerprint::call_canonical(tool, args);
        self.findings.extend(found.into_iter().map(|kind| Finding {
            index,
            tool: tool.to_owned(),
            kind,
            line,
            call,
        }));
    }

    /// The report on the records seen.
    pub fn finish(self) -> ScopeReport {
        ScopeReport {
            policy: self.sequence.is_some(),
            agent: self.agent,
            calls: self.calls,
            findings: self.findings,
        }
    }
}
