//! `toolreplay claims FILE [--from FORMAT] [--roles R] [--format text|json]
//! [--fail-on unsupported]`: the claims layer of a session (docs/graph.md, "The
//! claims layer"): each sentence of the agent's final answers that holds a checkable
//! atom, held against the calls.
//!
//! The messages come from a live session's context file, `S.context.jsonl` beside
//! the sealed `S.jsonl` (the calls streamed, so memory is that of the messages), or
//! from an agent's log (`--from FORMAT`, or `--from auto` when no context file is
//! beside it): imported as `import` reads it, the prompts and the agent's texts read
//! in the same pass as the calls (docs/import.md, "The conversation").

use std::fmt::Write as _;
use std::path::Path;

use toolreplay_core::input::{ClaimsInput, context_messages, imported_messages};
use toolreplay_core::{ClaimAtomKind, ClaimAtomStatus, ClaimsReport, Roles, Verdict, check_claims};

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
    how: (ClaimsFormat, bool),
    printer: &mut Printer,
) -> Result<Status, Error> {
    let roles = match roles {
        Some(path) => super::graph::read_roles(path)?,
        None => Roles::builtin(),
    };
    match toolreplay_core::input::claims_input(path, from)? {
        ClaimsInput::Context(context) => sealed(path, &context, &roles, how, printer),
        ClaimsInput::Import(from) => imported(path, from, &roles, how, printer),
    }
}

/// A live session: the calls of the sealed transcript at `path`, streamed, and the
/// messages of its context file.
fn sealed(
    path: &Path,
    context: &Path,
    roles: &Roles,
    how: (ClaimsFormat, bool),
    printer: &mut Printer,
) -> Result<Status, Error> {
    let name = input::display(path);
    let messages = context_messages(path, context)?;
    let (report, chain) = check_claims(input::open(path)?, &messages, roles)
        .map_err(|err| Error::reading(path, err))?;
    if let Some(verdict @ Verdict::Broken { .. }) = chain {
        return Err(Error::Refused {
            verdict: Box::new(verdict),
            path: name,
            refused: "its claims are not checked",
        });
    }
    print(&report, &name, how, printer)
}

/// `claims --from FORMAT LOG`: the calls and the conversation imported as `import`
/// reads the log, in one pass.
fn imported(
    path: &Path,
    from: ImportOptions,
    roles: &Roles,
    how: (ClaimsFormat, bool),
    printer: &mut Printer,
) -> Result<Status, Error> {
    let name = input::display(path);
    let loaded = input::import_transcript(path, from, &mut std::io::stderr())?;
    imported_messages(path, &loaded)?;
    let (report, _) = check_claims(
        std::io::Cursor::new(&loaded.transcript),
        &loaded.messages,
        roles,
    )
    .map_err(|err| Error::reading(path, err))?;
    print(&report, &name, how, printer)
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
