//! Findings of the audits (spec sections 3 and 4) and the words that name them.

use std::fmt::Write as _;

/// What was found, with what the finding refers to: the kind, and the details of the
/// rule it breaks as data; [`finding_message`] writes them as words.
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
    ArgumentViolation(ArgumentViolation),
    /// The call is past a call budget.
    BudgetExceeded(BudgetExceeded),
    /// A detector matched in the response, or the response cannot be scanned.
    SensitiveResponse(SensitiveResponse),
    /// The call is a sink called after a call to a source of a flow.
    FlowViolation(FlowViolation),
}

/// How the arguments of a call break the rules of its tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgumentViolation {
    /// The arguments cannot be read as JSON, so that no rule can be evaluated: only
    /// from a caller that hands over something else than a canonical encoding.
    Unreadable {
        /// Why, as the parser says it.
        reason: Box<str>,
    },
    /// The arguments fail `args_schema`: the first failure in order of the failing
    /// argument's pointer, then the schema keyword's pointer.
    Schema {
        /// The JSON pointer of the failing argument; empty when the failure is about
        /// the arguments object itself.
        argument: Box<str>,
        /// The JSON pointer of the failing keyword in the schema.
        keyword: Box<str>,
    },
    /// `args_schema` cannot evaluate the arguments: an integer in them is beyond the
    /// range of a 64-bit float, which the validator reads numbers as.
    SchemaCannotEvaluate {
        /// The JSON pointer of the first such integer.
        argument: Box<str>,
    },
    /// An argument breaks the path rule `paths[rule]` of the tool.
    Path {
        /// The rule's position in the tool's `paths`.
        rule: usize,
        /// The JSON pointer of the argument.
        argument: Box<str>,
        /// What is wrong with it.
        problem: PathProblem,
    },
    /// An argument breaks the URL rule `urls[rule]` of the tool.
    Url {
        /// The rule's position in the tool's `urls`.
        rule: usize,
        /// The JSON pointer of the argument.
        argument: Box<str>,
        /// What is wrong with it.
        problem: UrlProblem,
    },
}

/// What is wrong with an argument of a path rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathProblem {
    /// It is not a string.
    NotAString,
    /// It holds a NUL character (as written, or percent-decoded), where the tools
    /// that receive it would end it.
    Nul,
    /// Its `..` climbs above where it starts.
    EscapesRoot,
    /// The normalised absolute `path` is outside the rule's `root`.
    OutsideRoot {
        /// The path, normalised.
        path: Box<str>,
        /// The rule's root.
        root: Box<str>,
    },
    /// The normalised `path` matches the deny glob `glob`.
    Denied {
        /// The path, normalised (relative to the root when inside it).
        path: Box<str>,
        /// The first deny glob it matches, as written.
        glob: Box<str>,
    },
    /// The normalised `path` matches no allow glob.
    NotAllowed {
        /// The path, normalised (relative to the root when inside it).
        path: Box<str>,
    },
}

/// What is wrong with an argument of a URL rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlProblem {
    /// It is not a string.
    NotAString,
    /// It is not a valid absolute URL.
    Invalid,
    /// Its scheme is not one of the rule's.
    Scheme {
        /// The scheme, lower-cased.
        scheme: Box<str>,
    },
    /// It has no host, and the rule has host lists.
    NoHost,
    /// Its host cannot be normalised (the host parser refuses it), and the rule has
    /// host lists.
    HostUnreadable {
        /// The host as written in the URL.
        host: Box<str>,
    },
    /// URL parsers disagree on its host, and the rule has host lists.
    HostAmbiguous {
        /// The host as the WHATWG URL parser reads it, normalised; empty for none.
        whatwg: Box<str>,
        /// The host as RFC 3986 reads it, normalised when it can be; empty for none;
        /// `None` when the authority has more than one `@`.
        rfc: Option<Box<str>>,
    },
    /// Its host matches a deny host.
    Denied {
        /// The host, normalised.
        host: Box<str>,
        /// The first deny host it matches, as written.
        pattern: Box<str>,
    },
    /// Its host matches no allow host.
    NotAllowed {
        /// The host, normalised.
        host: Box<str>,
    },
}

/// A call past a budget: the how-manieth call it is, and the budget it is over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetExceeded {
    /// Which budget.
    pub budget: Budget,
    /// The call's count: in all for the total, to its tool for a per-tool budget.
    pub call: u64,
    /// The most calls the budget allows.
    pub limit: u64,
}

/// A budget of a policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// `budgets.total`: every call counts.
    Total,
    /// `budgets.per_tool`: the calls to the finding's tool count.
    PerTool,
}

/// What a response holds that a detector looks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SensitiveResponse {
    /// The detector `detector` matched in a string of the response.
    Match {
        /// The JSON pointer of the string, or of the object whose key it is.
        pointer: Box<str>,
        /// Whether the string is a key of that object rather than a value.
        in_key: bool,
        /// The detector's name.
        detector: Box<str>,
    },
    /// The response cannot be read as JSON, so it cannot be shown free of what the
    /// detectors look for: only from a caller that hands over something else than a
    /// canonical encoding.
    Unscannable {
        /// Why, as the parser says it.
        reason: Box<str>,
    },
}

/// A sink of a flow called after a source of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowViolation {
    /// The flow's name.
    pub flow: Box<str>,
    /// The index of the most recent call to a source of the flow.
    pub source: u64,
    /// The tool that call named.
    pub source_tool: Box<str>,
}

impl FindingKind {
    /// The index the finding refers to besides its own: the first identical call
    /// for non-determinism, the most recent one for redundant-call, the most recent
    /// call to a source for flow-violation.
    pub fn related_index(&self) -> Option<u64> {
        match self {
            FindingKind::NonDeterminism { first } => Some(*first),
            FindingKind::RedundantCall { previous } => Some(*previous),
            FindingKind::FlowViolation(flow) => Some(flow.source),
            FindingKind::PermissionOverreach
            | FindingKind::ArgumentViolation(_)
            | FindingKind::BudgetExceeded(_)
            | FindingKind::SensitiveResponse(_) => None,
        }
    }

    /// The kind's name as reports write it.
    pub fn name(&self) -> &'static str {
        match self {
            FindingKind::NonDeterminism { .. } => "non-determinism",
            FindingKind::RedundantCall { .. } => "redundant-call",
            FindingKind::PermissionOverreach => "permission-overreach",
            FindingKind::ArgumentViolation(_) => "argument-violation",
            FindingKind::BudgetExceeded(_) => "budget-exceeded",
            FindingKind::SensitiveResponse(_) => "sensitive-response",
            FindingKind::FlowViolation(_) => "flow-violation",
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
/// always one line and shows what it names: the controls (C0, DEL, C1), the line
/// and paragraph separators, and the invisible format characters that reorder or
/// hide text (bidi embeddings, overrides, isolates and marks, zero-width spaces and
/// joiners, the byte order mark, the soft hyphen) are written `\uXXXX`.
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
            c if is_escaped(c) => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
}

/// Whether `c` is written `\uXXXX` by [`quote_name`]: a control, a line or
/// paragraph separator, or an invisible format character (Unicode category Cf
/// among the bidi and zero-width ones).
fn is_escaped(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{ad}'
            | '\u{61c}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
    )
}

/// A `prev` or `digest` field as found in a link: written as is when it is a plain
/// digest, with the escapes of [`quote_name`] otherwise, so the report keeps its lines.
pub fn shown_field(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(text, &mut out);
    out
}

/// What a finding says about its call, as the text report writes it after
/// `index N: KIND: ` (`agent` is used by permission-overreach only): every report
/// format writes these words, made here from the finding's data.
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
        FindingKind::ArgumentViolation(violation) => {
            format!("tool {tool} {}", argument_words(violation))
        }
        FindingKind::BudgetExceeded(BudgetExceeded {
            budget,
            call,
            limit,
        }) => match budget {
            Budget::Total => format!(
                "tool {tool} is call {call} in all, over the total budget of {limit} (budgets.total)"
            ),
            Budget::PerTool => format!(
                "tool {tool} is call {call} to this tool, over its budget of {limit} (budgets.per_tool)"
            ),
        },
        FindingKind::SensitiveResponse(SensitiveResponse::Match {
            pointer,
            in_key,
            detector,
        }) => {
            let (pointer, detector) = (quote_name(pointer), quote_name(detector));
            if *in_key {
                format!(
                    "tool {tool} response has a key in {pointer} that matches detector {detector}"
                )
            } else {
                format!("tool {tool} response field {pointer} matches detector {detector}")
            }
        }
        FindingKind::SensitiveResponse(SensitiveResponse::Unscannable { reason }) => {
            format!("tool {tool} response cannot be scanned: {reason}")
        }
        FindingKind::FlowViolation(FlowViolation {
            flow,
            source,
            source_tool,
        }) => format!(
            "tool {tool} is a sink called after the source {} at index {source} (flow {})",
            quote_name(source_tool),
            quote_name(flow)
        ),
    }
}

/// The words of an argument violation after the tool's name.
fn argument_words(violation: &ArgumentViolation) -> String {
    match violation {
        ArgumentViolation::Unreadable { reason } => {
            format!("arguments cannot be read: {reason}")
        }
        ArgumentViolation::Schema { argument, keyword } => {
            let what = if argument.is_empty() {
                "arguments fail".to_owned()
            } else {
                format!("argument {} fails", quote_name(argument))
            };
            format!("{what} args_schema at keyword {}", quote_name(keyword))
        }
        ArgumentViolation::SchemaCannotEvaluate { argument } => format!(
            "arguments cannot be evaluated against args_schema: argument {} is an integer beyond the range of a 64-bit float",
            quote_name(argument)
        ),
        ArgumentViolation::Path {
            rule,
            argument,
            problem,
        } => {
            let wrong = match problem {
                PathProblem::NotAString => "is not a string".to_owned(),
                PathProblem::Nul => "holds a NUL character".to_owned(),
                PathProblem::EscapesRoot => "escapes above its root".to_owned(),
                PathProblem::OutsideRoot { path, root } => format!(
                    "path {} is outside root {}",
                    quote_name(path),
                    quote_name(root)
                ),
                PathProblem::Denied { path, glob } => format!(
                    "path {} matches deny glob {}",
                    quote_name(path),
                    quote_name(glob)
                ),
                PathProblem::NotAllowed { path } => {
                    format!("path {} matches no allow glob", quote_name(path))
                }
            };
            format!("argument {} {wrong} (paths[{rule}])", quote_name(argument))
        }
        ArgumentViolation::Url {
            rule,
            argument,
            problem,
        } => {
            let wrong = match problem {
                UrlProblem::NotAString => "is not a string".to_owned(),
                UrlProblem::Invalid => "is not a valid URL".to_owned(),
                UrlProblem::Scheme { scheme } => {
                    format!("scheme {} is not allowed", quote_name(scheme))
                }
                UrlProblem::NoHost => "has no host".to_owned(),
                UrlProblem::HostUnreadable { host } => {
                    format!("host {} cannot be normalised", quote_name(host))
                }
                UrlProblem::HostAmbiguous { whatwg, rfc } => {
                    let reading = |host: &str| {
                        if host.is_empty() {
                            "no host".to_owned()
                        } else {
                            quote_name(host)
                        }
                    };
                    match rfc {
                        Some(rfc) => format!(
                            "host is ambiguous: {} to WHATWG URL parsers, {} to RFC 3986 parsers",
                            reading(whatwg),
                            reading(rfc)
                        ),
                        None => format!(
                            "host is ambiguous: {} to WHATWG URL parsers, and the authority has more than one '@'",
                            reading(whatwg)
                        ),
                    }
                }
                UrlProblem::Denied { host, pattern } => format!(
                    "host {} matches deny host {}",
                    quote_name(host),
                    quote_name(pattern)
                ),
                UrlProblem::NotAllowed { host } => {
                    format!("host {} matches no allow host", quote_name(host))
                }
            };
            format!("argument {} {wrong} (urls[{rule}])", quote_name(argument))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{
        ArgumentViolation, Finding, FindingKind, SensitiveResponse, finding_message, quote_name,
    };

    /// What only a caller that hands over something else than a canonical encoding
    /// can meet: the checks fail closed, and say why.
    #[test]
    fn what_cannot_be_read_is_said() {
        let finding = |kind| Finding {
            index: 0,
            tool: "t".to_owned(),
            kind,
            line: 1,
            call: [0; 32],
        };
        let unreadable = finding(FindingKind::ArgumentViolation(
            ArgumentViolation::Unreadable {
                reason: "invalid UTF-8: byte 0xff at column 1".into(),
            },
        ));
        assert_eq!(
            finding_message(&unreadable, "a"),
            "tool 't' arguments cannot be read: invalid UTF-8: byte 0xff at column 1"
        );
        let unscannable = finding(FindingKind::SensitiveResponse(
            SensitiveResponse::Unscannable {
                reason: "invalid JSON: unterminated string, found end of input at column 7".into(),
            },
        ));
        assert_eq!(
            finding_message(&unscannable, "a"),
            "tool 't' response cannot be scanned: invalid JSON: unterminated string, found end of input at column 7"
        );
    }

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

    /// Characters that reorder or hide text are shown as escapes, so a name reads as
    /// what it is: `evil\u{202e}txt.exe` cannot pass for `evilexe.txt`.
    #[test]
    fn bidi_and_zero_width_characters_are_escaped() {
        assert_eq!(
            quote_name("a\u{202e}b\u{2066}\u{2067}\u{2068}\u{2069}c"),
            r"'a\u202eb\u2066\u2067\u2068\u2069c'"
        );
        assert_eq!(
            quote_name("\u{200b}\u{200c}\u{200d}\u{200e}\u{200f}\u{61c}\u{feff}\u{ad}\u{2060}"),
            r"'\u200b\u200c\u200d\u200e\u200f\u061c\ufeff\u00ad\u2060'"
        );
        assert_eq!(quote_name("\u{1b}[31mred"), r"'\u001b[31mred'");
        // Visible characters around them are kept.
        assert_eq!(
            quote_name("\u{2010}\u{2030}\u{2070}"),
            "'\u{2010}\u{2030}\u{2070}'"
        );
    }
}
