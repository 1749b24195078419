//! `toolreplay scope FILE... SCOPE [--format F] [--from F]`.

use std::io::Write;
use std::path::Path;

use toolreplay_core::{Scope, Threads};

use super::many::{self, Audited};
use crate::error::Error;
use crate::input::{self, ImportOptions, Transcript};
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
    let sealed = from.is_some_and(ImportOptions::may_be_sealed);
    // Path rules read paths where the calls ran: as the log says, or as a live
    // session's context file does.
    let contexts = match transcript.log_contexts() {
        Some(contexts) => contexts,
        None => input::session_contexts(path, sealed, (scope_path, digest), told)?,
    };
    let mut report = scope
        .audit_in(transcript.reader(), threads, &contexts)
        .map_err(|err| transcript.reading_error(err))?;
    transcript
        .place(&mut report.findings)
        .map_err(Error::temporary)?;
    // The tools called outside allowed_tools, read back only when a tool the policy
    // names would be misspelt were it not called: none is, mostly.
    if let Some(err) = toolreplay_core::input::misspelt_tool(scope, &report.findings, scope_path)
        .map_err(Error::temporary)?
    {
        return Err(err.into());
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
