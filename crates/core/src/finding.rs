//! Findings of the audits (spec sections 3 and 4) and the words that name them.

use std::fmt::Write as _;

/// What was found, with what the finding refers to.
///
/// The policy kinds carry their message's words after `tool 'NAME' `, made where
/// the finding is found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FindingKind {
    /// The response differs from that of the first identical call, at `first`.
    NonDeterminism {
        /// The index of the first identical call.
        first: u64,
    },
    /// The call repeats the identical call at `previous` with no state change between.
    RedundantCall {
        /// The index of the most recent identical call.
        previous: u64,
    },
    /// The tool is not in the declared scope.
    PermissionOverreach,
    /// An argument breaks a rule of the tool's policy.
    ArgumentViolation {
        /// The words after the tool's name.
        detail: Box<str>,
    },
    /// The call is past a call budget.
    BudgetExceeded {
        /// The words after the tool's name.
        detail: Box<str>,
    },
    /// A detector matched in the response.
    SensitiveResponse {
        /// The words after the tool's name.
        detail: Box<str>,
    },
    /// The call is a sink called after the source of a flow at `source`.
    FlowViolation {
        /// The index of the most recent call to a source of the flow.
        source: u64,
        /// The words after the tool's name.
        detail: Box<str>,
    },
}

impl FindingKind {
    /// The index the finding refers to besides its own: the first identical call
    /// for non-determinism, the most recent one for redundant-call, the most recent
    /// call to a source for flow-violation.
    pub fn related_index(&self) -> Option<u64> {
        match *self {
            FindingKind::NonDeterminism { first } => Some(first),
            FindingKind::RedundantCall { previous } => Some(previous),
            FindingKind::FlowViolation { source, .. } => Some(source),
            FindingKind::PermissionOverreach
            | FindingKind::ArgumentViolation { .. }
            | FindingKind::BudgetExceeded { .. }
            | FindingKind::SensitiveResponse { .. } => None,
        }
    }

    /// The kind's name as reports write it.
    pub fn name(&self) -> &'static str {
        match self {
            FindingKind::NonDeterminism { .. } => "non-determinism",
            FindingKind::RedundantCall { .. } => "redundant-call",
            FindingKind::PermissionOverreach => "permission-overreach",
            FindingKind::ArgumentViolation { .. } => "argument-violation",
            FindingKind::BudgetExceeded { .. } => "budget-exceeded",
            FindingKind::SensitiveResponse { .. } => "sensitive-response",
            FindingKind::FlowViolation { .. } => "flow-violation",
        }
    }
}

/// One finding of an audit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The index of the call it is about.
    pub index: u64,
    /// The tool that call named.
    pub tool: String,
    /// What was found.
    pub kind: FindingKind,
    /// The 1-based physical line of the call's record in the input.
    pub line: u64,
    /// What the call is, whatever its position: SHA-256 of the canonical tool name
    /// followed by the canonical arguments (see [`crate::fingerprint`]).
    pub call: [u8; 32],
}

/// A tool or agent name as reports write it: between single quotes, with `\`, `'`
/// and the characters that could break a line or hide escaped, so a finding is
/// always one line.
pub fn quote_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    out.push('\'');
    escape_into(name, &mut out);
    out.push('\'');
    out
}

/// Writes `text` with the escapes of [`quote_name`], without the quotes.
pub(crate) fn escape_into(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
}

/// A `prev` or `digest` field as found in a link: written as is when it is a plain
/// digest, with the escapes of [`quote_name`] otherwise, so the report keeps its lines.
pub fn shown_field(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(text, &mut out);
    out
}

/// What a finding says about its call, as the text report writes it after
/// `index N: KIND: ` (`agent` is used by permission-overreach only).
pub fn finding_message(finding: &Finding, agent: &str) -> String {
    let tool = quote_name(&finding.tool);
    match &finding.kind {
        FindingKind::NonDeterminism { first } => format!(
            "tool {tool} returned a different response than the identical call at index {first}"
        ),
        FindingKind::RedundantCall { previous } => format!(
            "tool {tool} repeats the identical call at index {previous} with no state change between them"
        ),
        FindingKind::PermissionOverreach => format!(
            "tool {tool} is not in the declared scope for agent {}",
            quote_name(agent)
        ),
        FindingKind::ArgumentViolation { detail }
        | FindingKind::BudgetExceeded { detail }
        | FindingKind::SensitiveResponse { detail }
        | FindingKind::FlowViolation { detail, .. } => format!("tool {tool} {detail}"),
    }
}

#[cfg(test)]
mod tests {
    use super::quote_name;

    #[test]
    fn names_are_quoted_on_one_line() {
        assert_eq!(quote_name("read_file"), "'read_file'");
        assert_eq!(quote_name("it's"), r"'it\'s'");
        assert_eq!(quote_name(r"a\b"), r"'a\\b'");
        assert_eq!(
            quote_name("a\nb\u{7f}\u{85}\u{2028}\u{2029}"),
            r"'a\u000ab\u007f\u0085\u2028\u2029'"
        );
        assert_eq!(quote_name("é😀\u{a0}"), "'é😀\u{a0}'");
    }
}
