//! `toolreplay replay FILE... [--mutating-tool NAME]... [--volatile-tool NAME]...
//! [--rules R] [--format F] [--from F]`.

use std::io::Write;
use std::path::Path;

use toolreplay_core::{Threads, audit_replay};

use super::many::{self, Audited};
use crate::error::Error;
use crate::input::{ImportOptions, Transcript};
use crate::printer::{Printer, Status};
use crate::render;
use crate::settings::{Inputs, Judging, Reporting};

/// `toolreplay replay`: exit 0 with no findings, 1 with some.
pub(super) fn run(
    inputs: &Inputs,
    from: Option<ImportOptions>,
    judging: &Judging,
    reporting: &Reporting,
    threads: Threads,
    printer: &mut Printer,
) -> Result<Status, Error> {
    printer.set_format(reporting.format.value);
    many::audit_files(
        "replay",
        inputs,
        from,
        (reporting.summary, reporting.configuration.as_ref()),
        printer,
        |path, printer, told| audit_one(path, from, (judging, reporting), threads, printer, told),
    )
}

/// The replay of the transcript at `path` (imported as `from` says, its notes to
/// `told`), reported to `printer` with the baseline applied.
fn audit_one(
    path: &Path,
    from: Option<ImportOptions>,
    (judging, reporting): (&Judging, &Reporting),
    threads: Threads,
    printer: &mut Printer,
    told: &mut dyn Write,
) -> Result<Audited, Error> {
    let mut transcript = Transcript::open(path, from, told)?;
    let options = judging.options(transcript.imported());
    let mut report = audit_replay(transcript.reader(), &options, threads)
        .map_err(|err| transcript.reading_error(err))?;
    transcript
        .place(&mut report.findings)
        .map_err(Error::temporary)?;
    let written = super::baseline(&reporting.baseline, &mut report.findings)?;
    // The report goes out as the findings are read back: if they could not be kept,
    // it fails now, before any of it is written.
    report.findings.kept().map_err(Error::temporary)?;
    let status = Status::clean_if(written || report.findings.is_empty());
    let (format, paint, name) = (printer.format(), printer.paint(), transcript.name());
    let configuration = reporting.configuration.as_ref();
    printer.report(|out| render::replay(&report, &name, (format, paint), configuration, out))?;
    Ok(Audited {
        findings: report.findings,
        status,
    })
}
