//! `toolreplay claims FILE [--from sealed] [--roles R] [--format text|json]
//! [--fail-on unsupported]`: the claims layer of a session (docs/graph.md, "The
//! claims layer"): each sentence of the agent's final answers that holds a checkable
//! atom, held against the calls.
//!
//! The messages come from a live session's context file, `S.context.jsonl` beside
//! the sealed `S.jsonl` (the calls streamed, so memory is that of the messages), or
//! from a Claude Code session file (`--from claude-code`, read whole as `import`
//! reads it).

use std::fmt::Write as _;
use std::path::Path;

use toolreplay_core::{
    ClaimAtomKind, ClaimAtomStatus, ClaimsReport, ImportFormat, MAX_IMPORT_BYTES, Roles, Verdict,
    check_claims, claude_code_messages, place_messages,
};

use crate::args::ClaimsFormat;
use crate::error::Error;
use crate::input::{self, ImportOptions};
use crate::printer::{Printer, Status};

/// `toolreplay claims`: exit 0 when no claim is contradicted (nor, with `--fail-on
/// unsupported`, unsupported), 1 otherwise, 2 when the input holds no messages.
pub(super) fn run(
    path: &Path,
    from: Option<ImportOptions>,
    roles: Option<&Path>,
    (format, fail_on_unsupported): (ClaimsFormat, bool),
    printer: &mut Printer,
) -> Result<Status, Error> {
    let name = input::display(path);
    let roles = match roles {
        Some(path) => super::graph::read_roles(path)?,
        None => Roles::builtin(),
    };
    if let Some(from) = from
        && !from.may_be_sealed()
    {
        return claude_code(path, from, &roles, (format, fail_on_unsupported), printer);
    }
    let context = crate::live::context::context_path(path);
    if input::is_stdin(path) || !context.is_file() {
        return Err(no_messages(
            name,
            &format!(
                "no {} beside it: a plain transcript holds calls, not the prompts and answers \
                 claims are read from",
                input::display(&context)
            ),
        ));
    }
    let messages = input::read_context(&context)?.messages;
    if messages.is_empty() {
        return Err(no_messages(
            name,
            &format!("{} holds no prompt nor answer", input::display(&context)),
        ));
    }
    let (report, chain) = check_claims(input::open(path)?, &messages, &roles)
        .map_err(|err| Error::reading(path, err))?;
    if let Some(verdict @ Verdict::Broken { .. }) = chain {
        return Err(Error::Refused {
            verdict: Box::new(verdict),
            path: name,
            refused: "its claims are not checked",
        });
    }
    print(&report, &name, (format, fail_on_unsupported), printer)
}

/// The report printed, and its exit status.
fn print(
    report: &ClaimsReport,
    name: &str,
    (format, fail_on_unsupported): (ClaimsFormat, bool),
    printer: &mut Printer,
) -> Result<Status, Error> {
    printer.print(&match format {
        ClaimsFormat::Text => text(report, name),
        ClaimsFormat::Json => json(report, name),
    })?;
    let counts = report.counts;
    Ok(Status::clean_if(
        counts.contradicted == 0 && !(fail_on_unsupported && counts.unsupported > 0),
    ))
}

/// `claims --from claude-code LOG`: the calls imported as `import` reads them, the
/// prompts and the assistant's texts read from the same log and placed after the
/// last call on an earlier line.
fn claude_code(
    path: &Path,
    from: ImportOptions,
    roles: &Roles,
    how: (ClaimsFormat, bool),
    printer: &mut Printer,
) -> Result<Status, Error> {
    let name = input::display(path);
    if from.source.format() != Some(ImportFormat::ClaudeCode) || input::is_stdin(path) {
        return Err(Error::Invalid {
            path: name,
            message: "claims reads the prompts and answers of a live session (--from sealed) \
                      and of a Claude Code session file (--from claude-code, not standard \
                      input); the messages of other formats are not read yet"
                .to_owned(),
        });
    }
    let loaded = input::import_transcript(path, from, &mut std::io::stderr())?;
    let bytes = input::read_whole(path, MAX_IMPORT_BYTES, "Claude Code session")?;
    let messages = place_messages(claude_code_messages(&bytes), &loaded.lines);
    if messages.is_empty() {
        return Err(no_messages(name, "no user prompt nor assistant text in it"));
    }
    let (report, _) = check_claims(std::io::Cursor::new(&loaded.transcript), &messages, roles)
        .map_err(|err| Error::reading(path, err))?;
    print(&report, &name, how, printer)
}

fn no_messages(path: String, why: &str) -> Error {
    Error::Invalid {
        path,
        message: format!("holds no messages: {why}"),
    }
}

/// A count and its noun.
fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The text report: a summary line, then each turn's claims, each atom with its
/// evidence or why it has none.
fn text(report: &ClaimsReport, name: &str) -> String {
    let mut out = String::new();
    let c = report.counts;
    let _ = writeln!(
        out,
        "{name}: {} in {} ({} supported, {} contradicted, {} unsupported), {}",
        counted(report.claims.len(), "claim"),
        counted(report.turns.len(), "turn"),
        c.supported,
        c.contradicted,
        c.unsupported,
        counted(report.calls as usize, "call"),
    );
    for turn in &report.turns {
        let claims: Vec<_> = report
            .claims
            .iter()
            .filter(|claim| claim.turn == turn.number)
            .collect();
        if claims.is_empty() {
            continue;
        }
        let calls = match turn.end_call {
            Some(end) if end <= turn.first_call => "no calls".to_owned(),
            Some(end) => format!("calls #{}-#{}", turn.first_call, end - 1),
            None => format!("calls #{} on", turn.first_call),
        };
        let prompt = turn
            .prompt
            .as_deref()
            .map(|p| format!(": {}", one_line(p, 70)))
            .unwrap_or_default();
        let _ = writeln!(out, "\nturn {} ({calls}){prompt}", turn.number);
        for claim in claims {
            let _ = writeln!(
                out,
                "  {:<12} {}",
                claim.verdict.name(),
                one_line(&claim.text, 100)
            );
            for atom in &claim.atoms {
                let changed = if atom.changed { " (changed)" } else { "" };
                let what = match atom.status {
                    ClaimAtomStatus::Supported => atom.support.map_or(String::new(), |s| {
                        format!("supported by #{} ({})", s.call, s.rule)
                    }),
                    ClaimAtomStatus::Contradicted => {
                        format!("contradicted: {}", atom.reason.as_deref().unwrap_or(""))
                    }
                    ClaimAtomStatus::Unsupported => {
                        format!("unsupported: {}", atom.reason.as_deref().unwrap_or(""))
                    }
                };
                let _ = writeln!(
                    out,
                    "      {} {}{changed}: {what}",
                    kind_name(atom.kind),
                    one_line(&atom.text, 80)
                );
            }
        }
    }
    out
}

fn kind_name(kind: ClaimAtomKind) -> &'static str {
    match kind {
        ClaimAtomKind::Path => "path",
        ClaimAtomKind::Command => "command",
        ClaimAtomKind::Url => "url",
        ClaimAtomKind::Number => "number",
        ClaimAtomKind::Code => "code",
        ClaimAtomKind::Quoted => "quoted",
        ClaimAtomKind::Outcome => "outcome",
    }
}

/// `text` on one line, control characters shown as spaces, cut to `limit`
/// characters.
fn one_line(text: &str, limit: usize) -> String {
    let line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if line.chars().count() > limit {
        let cut: String = line.chars().take(limit).collect();
        format!("{cut}...")
    } else {
        line
    }
}

/// The JSON report, ending with LF: the core's, which every front end writes.
fn json(report: &ClaimsReport, name: &str) -> String {
    toolreplay_core::claims_json(report, name)
}
