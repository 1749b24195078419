//! `toolreplay scope FILE... SCOPE [--format F] [--from F]`.

use std::io::Write;
use std::path::Path;

use toolreplay_core::read_context_file;
use toolreplay_core::{Contexts, PathContext, Scope, Threads, quote_name};

use super::many::{self, Audited};
use crate::error::Error;
use crate::input::{self, ImportOptions, Transcript};
use crate::live::context::context_path;
use crate::printer::{Printer, Status};
use crate::render;
use crate::settings::{Inputs, Reporting};

/// `toolreplay scope`: exit 0 with no findings, 1 with some.
pub(super) fn run(
    inputs: &Inputs,
    scope_path: &Path,
    from: Option<ImportOptions>,
    reporting: &Reporting,
    threads: Threads,
    printer: &mut Printer,
) -> Result<Status, Error> {
    let input::ScopeFile { scope, digest } = input::read_scope(scope_path)?;
    printer.set_format(reporting.format.value);
    many::audit_files(
        "scope",
        inputs,
        from,
        (reporting.summary, reporting.configuration.as_ref()),
        printer,
        |path, printer, told| {
            let judged = (&scope, (scope_path, digest.as_str()), threads);
            audit_one(path, judged, from, reporting, printer, told)
        },
    )
}

/// Where the calls of the sealed session at `path` ran, from its context file
/// `S.context.jsonl` when it has one (a live session's), so that path rules read
/// paths as the live decisions did; otherwise the current directory as the start
/// that relative roots are read from. Said on `told`, with a policy other than the
/// one the session was decided by.
fn session_contexts(
    path: &Path,
    from: Option<ImportOptions>,
    (scope_path, digest): (&Path, &str),
    told: &mut dyn Write,
) -> Result<Contexts, Error> {
    let here = std::env::current_dir()
        .ok()
        .and_then(|dir| dir.to_str().map(str::to_owned));
    let mut contexts = Contexts::default();
    let sealed = from.is_some_and(|from| {
        from.source
            .format()
            .is_none_or(|format| format.name() == "sealed")
    });
    let file = context_path(path);
    if !sealed || input::is_stdin(path) || !file.is_file() {
        contexts.push(
            0,
            PathContext {
                project: here,
                ..PathContext::default()
            },
        );
        return Ok(contexts);
    }
    let reader = input::open(&file)?;
    let read = read_context_file(reader).map_err(|err| match Error::reading(&file, err) {
        Error::Input {
            path,
            line,
            message,
        } => Error::Input {
            path,
            line,
            message: format!("not a session's context file: {message}"),
        },
        other => other,
    })?;
    let name = input::display(path);
    let _ = writeln!(
        told,
        "note: {name}: paths are read where the session's calls ran, as {} records",
        input::display(&file)
    );
    if let Some(other) = read
        .records
        .iter()
        .map(|record| record.policy_digest.as_str())
        .find(|decided| *decided != digest)
    {
        let _ = writeln!(
            told,
            "note: {name}: the session was decided by another policy (sha256 {other}) than {} (sha256 {digest})",
            input::display(scope_path)
        );
    }
    Ok(read.contexts)
}

/// The scope audit of the transcript at `path` against `scope` (read from
/// `scope_path`; imported as `from` says, its notes to `told`), reported to `printer`
/// with the baseline applied.
fn audit_one(
    path: &Path,
    (scope, (scope_path, digest), threads): (&Scope, (&Path, &str), Threads),
    from: Option<ImportOptions>,
    reporting: &Reporting,
    printer: &mut Printer,
    told: &mut dyn Write,
) -> Result<Audited, Error> {
    let mut transcript = Transcript::open(path, from, told)?;
    let contexts = session_contexts(path, from, (scope_path, digest), told)?;
    let mut report = scope
        .audit_in(transcript.reader(), threads, &contexts)
        .map_err(|err| transcript.reading_error(err))?;
    transcript
        .place(&mut report.findings)
        .map_err(Error::temporary)?;
    // The tools called outside allowed_tools, read back only when a tool the policy
    // names would be misspelt were it not called: none is, mostly.
    let mut outside = std::collections::HashSet::new();
    if scope.misspelt_tool(|_| false).is_some() {
        for finding in report.findings.iter() {
            outside.insert(finding.map_err(Error::temporary)?.tool);
        }
    }
    let called = |tool: &str| outside.contains(tool);
    if let Some((tool, near)) = scope.misspelt_tool(called) {
        return Err(Error::Invalid {
            path: input::display(scope_path),
            message: format!(
                "tools: {} is not in allowed_tools nor called: did you mean {}?",
                quote_name(tool),
                quote_name(near)
            ),
        });
    }
    let written = super::baseline(&reporting.baseline, &mut report.findings)?;
    // The report goes out as the findings are read back: if they could not be kept,
    // it fails now, before any of it is written.
    report.findings.kept().map_err(Error::temporary)?;
    let status = Status::clean_if(written || report.findings.is_empty());
    let (name, scope_name) = (transcript.name(), input::display(scope_path));
    let (format, paint) = (printer.format(), printer.paint());
    let configuration = reporting.configuration.as_ref();
    printer.report(|out| {
        let names = (name.as_str(), scope_name.as_str());
        render::scope(&report, names, (format, paint), configuration, out)
    })?;
    Ok(Audited {
        findings: report.findings,
        status,
    })
}
