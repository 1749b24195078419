//! `toolreplay replay FILE [--mutating-tool NAME]... [--volatile-tool NAME]...
//! [--rules R] [--format F] [--from F]`.

use toolreplay_core::{ReplayOptions as Options, ReplayReport, audit_replay};

use crate::cli::{BaselineArgs, Rules};
use crate::error::Error;
use crate::input::Transcript;
use std::path::Path;

use super::many::{Done, Report};
use crate::input::ImportOptions;
use crate::output::Status;
use crate::render::{self, Format, color::Paint};

/// The tools and rules a replay judges calls by, as the command line and the
/// configuration name them.
#[derive(Debug, Clone, Default)]
pub struct Judging {
    /// `--mutating-tool`.
    pub mutating: Vec<String>,
    /// `--volatile-tool`.
    pub volatile: Vec<String>,
    /// `--rules`; by default, agent for an imported log and spec otherwise.
    pub rules: Option<Rules>,
}

impl Judging {
    /// The core's options for `transcript`.
    pub fn options(&self, transcript: &Transcript) -> Options {
        let rules = self.rules.unwrap_or(if transcript.imported() {
            Rules::Agent
        } else {
            Rules::Spec
        });
        let mut options = match rules {
            Rules::Spec => Options::default(),
            Rules::Agent => Options::agent(),
        };
        options.mutating.extend(self.mutating.iter().cloned());
        options.volatile.extend(self.volatile.iter().cloned());
        options
    }
}

/// The replay audit of `transcript`, with findings on the lines of the input.
pub fn report(transcript: &mut Transcript, judging: &Judging) -> Result<ReplayReport, Error> {
    let options = judging.options(transcript);
    let mut report = audit_replay(transcript.reader(), &options, crate::threads_given())
        .map_err(|err| transcript.reading_error(err))?;
    transcript
        .place(&mut report.findings)
        .map_err(Error::temporary)?;
    Ok(report)
}

/// The replay of the transcript at `path` (imported as `from` says), reported in
/// `format` with the baseline applied.
pub fn audit_one(
    path: &Path,
    from: Option<ImportOptions>,
    judging: &Judging,
    format: Format,
    baseline: &BaselineArgs,
    paint: Paint,
    diagnostics: &mut dyn std::io::Write,
) -> Result<Done, Error> {
    let mut transcript = Transcript::open(path, from, diagnostics)?;
    let mut report = report(&mut transcript, judging)?;
    let written = super::baseline(baseline, &mut report.findings)?;
    // The report goes out as the findings are read back: if they could not be kept,
    // it fails now, before any of it is written.
    report.findings.kept().map_err(Error::temporary)?;
    let status = Status::clean_if(written || report.findings.is_empty());
    let name = transcript.name();
    Ok(Done {
        report: Report::Later(Box::new(move |out| {
            render::replay(&report, &name, format, paint, out)?;
            Ok(report.findings)
        })),
        status,
    })
}
