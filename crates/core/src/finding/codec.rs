//! The compact binary encoding of findings in their store, and its reading back.

use super::{
    ArgumentViolation, Budget, BudgetExceeded, CommandProblem, Finding, FindingKind, FlowViolation,
    PathProblem, SensitiveResponse, UrlProblem,
};
use crate::graph::PolicyRole;

fn put_u64(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn put_str(out: &mut Vec<u8>, text: &str) {
    put_u64(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

fn put_usize(out: &mut Vec<u8>, value: usize) {
    put_u64(out, value as u64);
}

/// Writes `finding` as bytes that [`decode`] reads back.
pub(super) fn encode(finding: &Finding, out: &mut Vec<u8>) {
    encode_call(
        finding.index,
        finding.line,
        &finding.call,
        &finding.tool,
        out,
    );
    encode_kind(&finding.kind, out);
}

/// Writes what a finding says of its call, as [`encode`] does.
pub(super) fn encode_call(index: u64, line: u64, call: &[u8; 32], tool: &str, out: &mut Vec<u8>) {
    put_u64(out, index);
    put_u64(out, line);
    out.extend_from_slice(call);
    put_str(out, tool);
}

/// Writes a finding's kind, as [`encode`] does after its call.
pub(super) fn encode_kind(kind: &FindingKind, out: &mut Vec<u8>) {
    match kind {
        FindingKind::NonDeterminism { first } => {
            out.push(0);
            put_u64(out, *first);
        }
        FindingKind::RedundantCall { previous } => {
            out.push(1);
            put_u64(out, *previous);
        }
        FindingKind::PermissionOverreach => out.push(2),
        FindingKind::ArgumentViolation(violation) => {
            out.push(3);
            encode_argument_violation(violation, out);
        }
        FindingKind::BudgetExceeded(BudgetExceeded {
            budget,
            call,
            limit,
        }) => {
            out.push(4);
            match budget {
                Budget::Total => out.push(0),
                Budget::PerTool => out.push(1),
                Budget::PerRole(role) => {
                    out.push(2);
                    out.push(role_tag(*role));
                }
            }
            put_u64(out, *call);
            put_u64(out, *limit);
        }
        FindingKind::SensitiveResponse(SensitiveResponse::Match {
            pointer,
            in_key,
            detector,
        }) => {
            out.push(5);
            out.push(0);
            put_str(out, pointer);
            out.push(u8::from(*in_key));
            put_str(out, detector);
        }
        FindingKind::SensitiveResponse(SensitiveResponse::Unscannable { reason }) => {
            out.push(5);
            out.push(1);
            put_str(out, reason);
        }
        FindingKind::FlowViolation(FlowViolation {
            flow,
            source,
            source_tool,
        }) => {
            out.push(6);
            put_str(out, flow);
            put_u64(out, *source);
            put_str(out, source_tool);
        }
    }
}

/// Writes an argument violation, as [`encode_kind`] does after its tag.
fn encode_argument_violation(violation: &ArgumentViolation, out: &mut Vec<u8>) {
    match violation {
        ArgumentViolation::Unreadable { reason } => {
            out.push(0);
            put_str(out, reason);
        }
        ArgumentViolation::Schema { argument, keyword } => {
            out.push(1);
            put_str(out, argument);
            put_str(out, keyword);
        }
        ArgumentViolation::SchemaCannotEvaluate { argument } => {
            out.push(2);
            put_str(out, argument);
        }
        ArgumentViolation::Path {
            rule,
            argument,
            problem,
        } => {
            out.push(3);
            put_usize(out, *rule);
            put_str(out, argument);
            encode_path_problem(problem, out);
        }
        ArgumentViolation::Url {
            rule,
            argument,
            problem,
        } => {
            out.push(4);
            put_usize(out, *rule);
            put_str(out, argument);
            encode_url_problem(problem, out);
        }
        ArgumentViolation::Command {
            rule,
            argument,
            problem,
        } => {
            out.push(5);
            put_usize(out, *rule);
            put_str(out, argument);
            encode_command_problem(problem, out);
        }
        ArgumentViolation::ByRole { role, violation } => {
            out.push(6);
            out.push(role_tag(*role));
            encode_argument_violation(violation, out);
        }
    }
}

/// A role as one byte: its position in [`PolicyRole::ALL`].
fn role_tag(role: PolicyRole) -> u8 {
    PolicyRole::ALL.iter().position(|r| *r == role).unwrap_or(0) as u8
}

/// The role of the byte `tag`.
fn get_role(input: &mut &[u8]) -> Decoded<PolicyRole> {
    PolicyRole::ALL
        .get(usize::from(get_u8(input)?))
        .copied()
        .ok_or(Short::Corrupt)
}

fn put_opt_str(out: &mut Vec<u8>, text: Option<&str>) {
    match text {
        None => out.push(0),
        Some(text) => {
            out.push(1);
            put_str(out, text);
        }
    }
}

/// Writes the problem of a command rule, as [`encode_argument_violation`] does last.
fn encode_command_problem(problem: &CommandProblem, out: &mut Vec<u8>) {
    match problem {
        CommandProblem::NotAString => out.push(0),
        CommandProblem::TooLong { limit } => {
            out.push(1);
            put_u64(out, *limit);
        }
        CommandProblem::Unparseable { reason } => {
            out.push(2);
            put_str(out, reason);
        }
        CommandProblem::TooDeep { limit } => {
            out.push(3);
            put_u64(out, *limit);
        }
        CommandProblem::UnknownProgram { command } => {
            out.push(4);
            put_str(out, command);
        }
        CommandProblem::Denied {
            command,
            within,
            pattern,
        } => {
            out.push(5);
            put_str(out, command);
            put_opt_str(out, within.as_deref());
            put_str(out, pattern);
        }
        CommandProblem::NotAllowed { command, within } => {
            out.push(6);
            put_str(out, command);
            put_opt_str(out, within.as_deref());
        }
        CommandProblem::Protected { path, glob } => {
            out.push(7);
            put_str(out, path);
            put_str(out, glob);
        }
    }
}

/// Writes the problem of a path rule, as [`encode_argument_violation`] does last.
fn encode_path_problem(problem: &PathProblem, out: &mut Vec<u8>) {
    match problem {
        PathProblem::NotAString => out.push(0),
        PathProblem::Nul => out.push(1),
        PathProblem::EscapesRoot => out.push(2),
        PathProblem::OutsideRoot { path, root } => {
            out.push(3);
            put_str(out, path);
            put_str(out, root);
        }
        PathProblem::Denied { path, glob } => {
            out.push(4);
            put_str(out, path);
            put_str(out, glob);
        }
        PathProblem::NotAllowed { path } => {
            out.push(5);
            put_str(out, path);
        }
        PathProblem::Unplaced { path, why } => {
            out.push(6);
            put_str(out, path);
            put_str(out, why);
        }
    }
}

/// Writes the problem of a URL rule, as [`encode_argument_violation`] does last.
fn encode_url_problem(problem: &UrlProblem, out: &mut Vec<u8>) {
    match problem {
        UrlProblem::NotAString => out.push(0),
        UrlProblem::Invalid => out.push(1),
        UrlProblem::Scheme { scheme } => {
            out.push(2);
            put_str(out, scheme);
        }
        UrlProblem::NoHost => out.push(3),
        UrlProblem::HostUnreadable { host } => {
            out.push(4);
            put_str(out, host);
        }
        UrlProblem::HostAmbiguous { whatwg, rfc } => {
            out.push(5);
            put_str(out, whatwg);
            match rfc {
                Some(rfc) => {
                    out.push(1);
                    put_str(out, rfc);
                }
                None => out.push(0),
            }
        }
        UrlProblem::Denied { host, pattern } => {
            out.push(6);
            put_str(out, host);
            put_str(out, pattern);
        }
        UrlProblem::NotAllowed { host } => {
            out.push(7);
            put_str(out, host);
        }
    }
}

pub(super) fn corrupt() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        "the temporary file of findings does not read back",
    )
}

/// Why a finding could not be read from the bytes at hand.
#[derive(Debug)]
pub(super) enum Short {
    /// The bytes end inside the finding: more are needed.
    Incomplete,
    /// They are not a finding written by [`encode`].
    Corrupt,
}

pub(super) type Decoded<T> = Result<T, Short>;

fn get_u8(input: &mut &[u8]) -> Decoded<u8> {
    let (&byte, rest) = input.split_first().ok_or(Short::Incomplete)?;
    *input = rest;
    Ok(byte)
}

fn get_bytes<'a>(input: &mut &'a [u8], len: usize) -> Decoded<&'a [u8]> {
    if input.len() < len {
        return Err(Short::Incomplete);
    }
    let (bytes, rest) = input.split_at(len);
    *input = rest;
    Ok(bytes)
}

fn get_u64(input: &mut &[u8]) -> Decoded<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = get_u8(input)?;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(Short::Corrupt)
}

fn get_usize(input: &mut &[u8]) -> Decoded<usize> {
    usize::try_from(get_u64(input)?).map_err(|_| Short::Corrupt)
}

fn get_text<'a>(input: &mut &'a [u8]) -> Decoded<&'a str> {
    let len = get_usize(input)?;
    let bytes = get_bytes(input, len)?;
    std::str::from_utf8(bytes).map_err(|_| Short::Corrupt)
}

fn get_str(input: &mut &[u8]) -> Decoded<Box<str>> {
    get_text(input).map(Box::from)
}

/// Reads back a finding written by [`encode`] into `finding`, whose tool keeps its
/// room from one finding to the next. Nothing of `finding` changes unless the whole
/// finding is read.
pub(super) fn decode_into(input: &mut &[u8], finding: &mut Finding) -> Decoded<()> {
    let index = get_u64(input)?;
    let line = get_u64(input)?;
    let call = get_bytes(input, 32)?;
    let tool = get_text(input)?;
    let kind = match get_u8(input)? {
        0 => FindingKind::NonDeterminism {
            first: get_u64(input)?,
        },
        1 => FindingKind::RedundantCall {
            previous: get_u64(input)?,
        },
        2 => FindingKind::PermissionOverreach,
        3 => FindingKind::ArgumentViolation(decode_argument_violation(input)?),
        4 => {
            let budget = match get_u8(input)? {
                0 => Budget::Total,
                1 => Budget::PerTool,
                2 => Budget::PerRole(get_role(input)?),
                _ => return Err(Short::Corrupt),
            };
            FindingKind::BudgetExceeded(BudgetExceeded {
                budget,
                call: get_u64(input)?,
                limit: get_u64(input)?,
            })
        }
        5 => FindingKind::SensitiveResponse(match get_u8(input)? {
            0 => SensitiveResponse::Match {
                pointer: get_str(input)?,
                in_key: match get_u8(input)? {
                    0 => false,
                    1 => true,
                    _ => return Err(Short::Corrupt),
                },
                detector: get_str(input)?,
            },
            1 => SensitiveResponse::Unscannable {
                reason: get_str(input)?,
            },
            _ => return Err(Short::Corrupt),
        }),
        6 => FindingKind::FlowViolation(FlowViolation {
            flow: get_str(input)?,
            source: get_u64(input)?,
            source_tool: get_str(input)?,
        }),
        _ => return Err(Short::Corrupt),
    };
    finding.index = index;
    finding.line = line;
    finding.call.copy_from_slice(call);
    finding.tool.clear();
    finding.tool.push_str(tool);
    finding.kind = kind;
    Ok(())
}

/// Reads back an argument violation written by [`encode_argument_violation`].
fn decode_argument_violation(input: &mut &[u8]) -> Decoded<ArgumentViolation> {
    Ok(match get_u8(input)? {
        0 => ArgumentViolation::Unreadable {
            reason: get_str(input)?,
        },
        1 => ArgumentViolation::Schema {
            argument: get_str(input)?,
            keyword: get_str(input)?,
        },
        2 => ArgumentViolation::SchemaCannotEvaluate {
            argument: get_str(input)?,
        },
        3 => {
            let rule = get_usize(input)?;
            let argument = get_str(input)?;
            let problem = decode_path_problem(input)?;
            ArgumentViolation::Path {
                rule,
                argument,
                problem,
            }
        }
        4 => {
            let rule = get_usize(input)?;
            let argument = get_str(input)?;
            let problem = decode_url_problem(input)?;
            ArgumentViolation::Url {
                rule,
                argument,
                problem,
            }
        }
        5 => {
            let rule = get_usize(input)?;
            let argument = get_str(input)?;
            let problem = decode_command_problem(input)?;
            ArgumentViolation::Command {
                rule,
                argument,
                problem,
            }
        }
        6 => {
            let role = get_role(input)?;
            let violation = Box::new(decode_argument_violation(input)?);
            ArgumentViolation::ByRole { role, violation }
        }
        _ => return Err(Short::Corrupt),
    })
}

fn get_opt_str(input: &mut &[u8]) -> Decoded<Option<Box<str>>> {
    Ok(match get_u8(input)? {
        0 => None,
        1 => Some(get_str(input)?),
        _ => return Err(Short::Corrupt),
    })
}

/// Reads back the problem of a command rule written by [`encode_command_problem`].
fn decode_command_problem(input: &mut &[u8]) -> Decoded<CommandProblem> {
    Ok(match get_u8(input)? {
        0 => CommandProblem::NotAString,
        1 => CommandProblem::TooLong {
            limit: get_u64(input)?,
        },
        2 => CommandProblem::Unparseable {
            reason: get_str(input)?,
        },
        3 => CommandProblem::TooDeep {
            limit: get_u64(input)?,
        },
        4 => CommandProblem::UnknownProgram {
            command: get_str(input)?,
        },
        5 => {
            let command = get_str(input)?;
            let within = get_opt_str(input)?;
            let pattern = get_str(input)?;
            CommandProblem::Denied {
                command,
                within,
                pattern,
            }
        }
        6 => {
            let command = get_str(input)?;
            let within = get_opt_str(input)?;
            CommandProblem::NotAllowed { command, within }
        }
        7 => CommandProblem::Protected {
            path: get_str(input)?,
            glob: get_str(input)?,
        },
        _ => return Err(Short::Corrupt),
    })
}

/// Reads back the problem of a path rule written by [`encode_path_problem`].
fn decode_path_problem(input: &mut &[u8]) -> Decoded<PathProblem> {
    Ok(match get_u8(input)? {
        0 => PathProblem::NotAString,
        1 => PathProblem::Nul,
        2 => PathProblem::EscapesRoot,
        3 => PathProblem::OutsideRoot {
            path: get_str(input)?,
            root: get_str(input)?,
        },
        4 => PathProblem::Denied {
            path: get_str(input)?,
            glob: get_str(input)?,
        },
        5 => PathProblem::NotAllowed {
            path: get_str(input)?,
        },
        6 => PathProblem::Unplaced {
            path: get_str(input)?,
            why: get_str(input)?,
        },
        _ => return Err(Short::Corrupt),
    })
}

/// Reads back the problem of a URL rule written by [`encode_url_problem`].
fn decode_url_problem(input: &mut &[u8]) -> Decoded<UrlProblem> {
    Ok(match get_u8(input)? {
        0 => UrlProblem::NotAString,
        1 => UrlProblem::Invalid,
        2 => UrlProblem::Scheme {
            scheme: get_str(input)?,
        },
        3 => UrlProblem::NoHost,
        4 => UrlProblem::HostUnreadable {
            host: get_str(input)?,
        },
        5 => {
            let whatwg = get_str(input)?;
            let rfc = match get_u8(input)? {
                0 => None,
                1 => Some(get_str(input)?),
                _ => return Err(Short::Corrupt),
            };
            UrlProblem::HostAmbiguous { whatwg, rfc }
        }
        6 => UrlProblem::Denied {
            host: get_str(input)?,
            pattern: get_str(input)?,
        },
        7 => UrlProblem::NotAllowed {
            host: get_str(input)?,
        },
        _ => return Err(Short::Corrupt),
    })
}
