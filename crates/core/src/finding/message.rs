//! The words of findings: names quoted as reports write them, and what a finding
//! says about its call.

use std::fmt::{self, Write as _};

use super::{
    ArgumentViolation, Budget, BudgetExceeded, CommandProblem, Finding, FindingKind, FlowViolation,
    PathProblem, SensitiveResponse, UrlProblem,
};

/// A tool or agent name as reports write it: between single quotes, with `\`, `'`
/// and the characters that could break a line or hide escaped, so a finding is
/// always one line and shows what it names: the controls (C0, DEL, C1), the line
/// and paragraph separators, and the invisible format characters that reorder or
/// hide text (bidi embeddings, overrides, isolates and marks, zero-width spaces and
/// joiners, the byte order mark, the soft hyphen) are written `\uXXXX`.
pub fn quote_name(name: &str) -> String {
    Quoted(name).to_string()
}

/// A name as [`quote_name`] writes it, as a [`fmt::Display`] that writes it where it
/// goes, without a string of its own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Quoted<'a>(pub &'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('\'')?;
        write_escaped(self.0, f)?;
        f.write_char('\'')
    }
}

/// Appends `name` as [`quote_name`] writes it.
fn push_quoted(name: &str, out: &mut String) {
    out.push('\'');
    escape_into(name, out);
    out.push('\'');
}

/// Appends `value` in decimal, as `{}` writes it.
pub fn push_u64(value: u64, out: &mut String) {
    out.push_str(itoa::Buffer::new().format(value));
}

/// Writes `text` with the escapes of [`quote_name`], without the quotes.
pub(crate) fn escape_into(text: &str, out: &mut String) {
    // Writing to a string cannot fail.
    let _ = write_escaped(text, out);
}

/// Writes `text` with the escapes of [`quote_name`] to `out`: the runs between
/// escapes in one go, and the whole text at once when nothing in it is escaped, as
/// in most names.
fn write_escaped(text: &str, out: &mut impl fmt::Write) -> fmt::Result {
    let plain = |b: u8| (0x20..0x7f).contains(&b) && b != b'\\' && b != b'\'';
    if text.bytes().all(plain) {
        return out.write_str(text);
    }
    let mut run = 0;
    for (at, c) in text.char_indices() {
        let escaped = c == '\\' || c == '\'' || is_escaped(c);
        if !escaped {
            continue;
        }
        out.write_str(&text[run..at])?;
        run = at + c.len_utf8();
        match c {
            '\\' => out.write_str("\\\\")?,
            '\'' => out.write_str("\\'")?,
            c => write!(out, "\\u{:04x}", u32::from(c))?,
        }
    }
    out.write_str(&text[run..])
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
    let mut out = String::new();
    write_finding_message(finding, agent, &mut out);
    out
}

/// Appends the words of [`finding_message`] to `out`, without a string of their own:
/// what a report of many findings writes them with.
pub fn write_finding_message(finding: &Finding, agent: &str, out: &mut String) {
    // Writing to a string cannot fail.
    let _ = message(finding, agent, out);
}

fn message(finding: &Finding, agent: &str, out: &mut String) -> fmt::Result {
    let tool = Quoted(&finding.tool);
    match &finding.kind {
        // The kinds of which there can be a finding on most calls, written piece by
        // piece: the same words as `write!` would give, in less time.
        FindingKind::NonDeterminism { first } => {
            out.push_str("tool ");
            push_quoted(&finding.tool, out);
            out.push_str(" returned a different response than the identical call at index ");
            push_u64(*first, out);
            Ok(())
        }
        FindingKind::RedundantCall { previous } => {
            out.push_str("tool ");
            push_quoted(&finding.tool, out);
            out.push_str(" repeats the identical call at index ");
            push_u64(*previous, out);
            out.push_str(" with no state change between them");
            Ok(())
        }
        FindingKind::PermissionOverreach => {
            out.push_str("tool ");
            push_quoted(&finding.tool, out);
            out.push_str(" is not in the declared scope for agent ");
            push_quoted(agent, out);
            Ok(())
        }
        FindingKind::ArgumentViolation(violation) => {
            out.push_str("tool ");
            push_quoted(&finding.tool, out);
            out.push(' ');
            argument_words(violation, out)
        }
        FindingKind::BudgetExceeded(BudgetExceeded {
            budget,
            call,
            limit,
        }) => {
            let (over, rule) = match budget {
                Budget::Total => (" in all, over the total budget of ", " (budgets.total)"),
                Budget::PerTool => (" to this tool, over its budget of ", " (budgets.per_tool)"),
                Budget::PerRole(role) => {
                    out.push_str("tool ");
                    push_quoted(&finding.tool, out);
                    out.push_str(" is call ");
                    push_u64(*call, out);
                    out.push_str(" to a tool of role ");
                    push_quoted(role.name(), out);
                    out.push_str(", over its budget of ");
                    push_u64(*limit, out);
                    out.push_str(" (budgets.per_tool['");
                    out.push_str(role.key());
                    out.push_str("'])");
                    return Ok(());
                }
            };
            out.push_str("tool ");
            push_quoted(&finding.tool, out);
            out.push_str(" is call ");
            push_u64(*call, out);
            out.push_str(over);
            push_u64(*limit, out);
            out.push_str(rule);
            Ok(())
        }
        FindingKind::SensitiveResponse(SensitiveResponse::Match {
            pointer,
            in_key,
            detector,
        }) => {
            let (place, matches) = if *in_key {
                (" response has a key in ", " that matches detector ")
            } else {
                (" response field ", " matches detector ")
            };
            out.push_str("tool ");
            push_quoted(&finding.tool, out);
            out.push_str(place);
            push_quoted(pointer, out);
            out.push_str(matches);
            push_quoted(detector, out);
            Ok(())
        }
        FindingKind::SensitiveResponse(SensitiveResponse::Unscannable { reason }) => {
            write!(out, "tool {tool} response cannot be scanned: {reason}")
        }
        FindingKind::FlowViolation(FlowViolation {
            flow,
            source,
            source_tool,
        }) => {
            out.push_str("tool ");
            push_quoted(&finding.tool, out);
            out.push_str(" is a sink called after the source ");
            push_quoted(source_tool, out);
            out.push_str(" at index ");
            push_u64(*source, out);
            out.push_str(" (flow ");
            push_quoted(flow, out);
            out.push(')');
            Ok(())
        }
    }
}

/// Writes the words of an argument violation after the tool's name.
fn argument_words(violation: &ArgumentViolation, out: &mut String) -> fmt::Result {
    argument_words_in(violation, "", out)
}

/// [`argument_words`], the rule named after `entry` (`tools['role:shell'].`, or
/// nothing for the tool's own rules).
fn argument_words_in(violation: &ArgumentViolation, entry: &str, out: &mut String) -> fmt::Result {
    match violation {
        ArgumentViolation::ByRole { role, violation } => {
            let entry = format!("tools['{}'].", role.key());
            argument_words_in(violation, &entry, out)
        }
        ArgumentViolation::Unreadable { reason } => {
            write!(out, "arguments cannot be read: {reason}")
        }
        ArgumentViolation::Schema { argument, keyword } => {
            if argument.is_empty() {
                out.push_str("arguments fail");
            } else {
                write!(out, "argument {} fails", Quoted(argument))?;
            }
            write!(out, " args_schema at keyword {}", Quoted(keyword))
        }
        ArgumentViolation::SchemaCannotEvaluate { argument } => write!(
            out,
            "arguments cannot be evaluated against args_schema: argument {} is an integer beyond the range of a 64-bit float",
            Quoted(argument)
        ),
        ArgumentViolation::Path {
            rule,
            argument,
            problem,
        } => {
            out.push_str("argument ");
            push_quoted(argument, out);
            out.push(' ');
            path_words(problem, out);
            out.push_str(" (");
            out.push_str(entry);
            out.push_str("paths[");
            push_u64(*rule as u64, out);
            out.push_str("])");
            Ok(())
        }
        ArgumentViolation::Url {
            rule,
            argument,
            problem,
        } => {
            write!(out, "argument {} ", Quoted(argument))?;
            url_words(problem, out)?;
            write!(out, " ({entry}urls[{rule}])")
        }
        ArgumentViolation::Command {
            rule,
            argument,
            problem,
        } => {
            write!(out, "argument {} ", Quoted(argument))?;
            command_words(problem, out)?;
            write!(out, " ({entry}commands[{rule}])")
        }
    }
}

/// Writes the words of the problem of a command rule.
fn command_words(problem: &CommandProblem, out: &mut String) -> fmt::Result {
    let within = |out: &mut String, within: &Option<Box<str>>| match within {
        Some(top) => write!(out, " (in {})", Quoted(top)),
        None => Ok(()),
    };
    match problem {
        CommandProblem::NotAString => out.push_str("is not a string"),
        CommandProblem::TooLong { limit } => write!(
            out,
            "is longer than {limit} bytes, too long to be parsed as a shell command"
        )?,
        CommandProblem::Unparseable { reason } => {
            out.push_str("cannot be parsed as a shell command: ");
            escape_into(reason, out);
        }
        CommandProblem::TooDeep { limit } => write!(out, "nests deeper than {limit} levels")?,
        CommandProblem::UnknownProgram { command } => write!(
            out,
            "runs {}, whose program is not known before it runs",
            Quoted(command)
        )?,
        CommandProblem::Denied {
            command,
            within: top,
            pattern,
        } => {
            write!(out, "runs {}", Quoted(command))?;
            within(out, top)?;
            write!(out, ", which matches deny pattern {}", Quoted(pattern))?;
        }
        CommandProblem::NotAllowed {
            command,
            within: top,
        } => {
            write!(out, "runs {}", Quoted(command))?;
            within(out, top)?;
            out.push_str(", which matches no allow pattern");
        }
        CommandProblem::Protected { path, glob } => write!(
            out,
            "names protected path {} (glob {})",
            Quoted(path),
            Quoted(glob)
        )?,
    }
    Ok(())
}

/// Writes the words of the problem of a path rule.
fn path_words(problem: &PathProblem, out: &mut String) {
    match problem {
        PathProblem::NotAString => out.push_str("is not a string"),
        PathProblem::Nul => out.push_str("holds a NUL character"),
        PathProblem::EscapesRoot => out.push_str("escapes above its root"),
        PathProblem::OutsideRoot { path, root } => {
            out.push_str("path ");
            push_quoted(path, out);
            out.push_str(" is outside root ");
            push_quoted(root, out);
        }
        PathProblem::Denied { path, glob } => {
            out.push_str("path ");
            push_quoted(path, out);
            out.push_str(" matches deny glob ");
            push_quoted(glob, out);
        }
        PathProblem::NotAllowed { path } => {
            out.push_str("path ");
            push_quoted(path, out);
            out.push_str(" matches no allow glob");
        }
        PathProblem::Unplaced { path, why } => {
            out.push_str("path ");
            push_quoted(path, out);
            out.push_str(" cannot be placed: ");
            out.push_str(why);
        }
    }
}

/// Writes the words of the problem of a URL rule.
fn url_words(problem: &UrlProblem, out: &mut String) -> fmt::Result {
    // An empty host reads as no host.
    let reading = |host: &str| -> String {
        if host.is_empty() {
            "no host".to_owned()
        } else {
            quote_name(host)
        }
    };
    match problem {
        UrlProblem::NotAString => out.push_str("is not a string"),
        UrlProblem::Invalid => out.push_str("is not a valid URL"),
        UrlProblem::Scheme { scheme } => write!(out, "scheme {} is not allowed", Quoted(scheme))?,
        UrlProblem::NoHost => out.push_str("has no host"),
        UrlProblem::HostUnreadable { host } => {
            write!(out, "host {} cannot be normalised", Quoted(host))?
        }
        UrlProblem::HostAmbiguous { whatwg, rfc } => match rfc {
            Some(rfc) => write!(
                out,
                "host is ambiguous: {} to WHATWG URL parsers, {} to RFC 3986 parsers",
                reading(whatwg),
                reading(rfc)
            )?,
            None => write!(
                out,
                "host is ambiguous: {} to WHATWG URL parsers, and the authority has more than one '@'",
                reading(whatwg)
            )?,
        },
        UrlProblem::Denied { host, pattern } => write!(
            out,
            "host {} matches deny host {}",
            Quoted(host),
            Quoted(pattern)
        )?,
        UrlProblem::NotAllowed { host } => {
            write!(out, "host {} matches no allow host", Quoted(host))?
        }
    }
    Ok(())
}
