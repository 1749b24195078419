//! `toolreplay scope FILE SCOPE [--format F] [--from F]`.

use std::path::Path;

use toolreplay_core::quote_name;
use toolreplay_core::{Scope, ScopeReport};

use super::many::{Done, Report};
use crate::cli::BaselineArgs;
use crate::error::Error;
use crate::input::{self, ImportOptions, Transcript};
use crate::output::Status;
use crate::render::{self, Format, color::Paint};

/// The largest scope file read, in bytes.
pub const MAX_SCOPE_BYTES: u64 = 16 << 20;

/// Reads and parses a scope file.
pub fn read_scope(path: &Path) -> Result<Scope, Error> {
    input::read_document(path, MAX_SCOPE_BYTES, "scope file", |bytes| {
        Scope::parse(bytes).map_err(|err| (err.line as u64, err.to_string()))
    })
}

/// The scope audit of `transcript` against `scope`, with findings on the lines of the
/// input.
pub fn report(transcript: &mut Transcript, scope: &Scope) -> Result<ScopeReport, Error> {
    let mut report = scope
        .audit(transcript.reader(), crate::threads_given())
        .map_err(|err| transcript.reading_error(err))?;
    transcript
        .place(&mut report.findings)
        .map_err(Error::temporary)?;
    Ok(report)
}

/// What each transcript's scope audit is judged by, and how it is reported.
pub struct Audit<'a> {
    /// The scope.
    pub scope: &'a Scope,
    /// Where it was read from.
    pub scope_path: &'a Path,
    /// How the transcripts are imported, if they are.
    pub from: Option<ImportOptions>,
    /// The report's format.
    pub format: Format,
    /// The baseline to apply.
    pub baseline: &'a BaselineArgs,
    /// The colours of a text report.
    pub paint: Paint,
}

/// The scope audit of the transcript at `path` as `audit` says (imported as its
/// `from` says, an import's notes and warnings to `diagnostics`), reported in its
/// format with the baseline applied.
pub fn audit_one(
    path: &Path,
    audit: &Audit<'_>,
    diagnostics: &mut dyn std::io::Write,
) -> Result<Done, Error> {
    let &Audit {
        scope,
        scope_path,
        from,
        format,
        baseline,
        paint,
    } = audit;
    let mut transcript = Transcript::open(path, from, diagnostics)?;
    let mut report = report(&mut transcript, scope)?;
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
    let written = super::baseline(baseline, &mut report.findings)?;
    // The report goes out as the findings are read back: if they could not be kept,
    // it fails now, before any of it is written.
    report.findings.kept().map_err(Error::temporary)?;
    let status = Status::clean_if(written || report.findings.is_empty());
    let (name, scope_name) = (transcript.name(), input::display(scope_path));
    Ok(Done {
        report: Report::Later(Box::new(move |out| {
            render::scope(&report, &name, &scope_name, format, paint, out)?;
            Ok(report.findings)
        })),
        status,
    })
}
