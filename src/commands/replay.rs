//! `toolreplay replay FILE [--mutating-tool NAME]... [--format F] [--from F]`.

use toolreplay_core::replay::{self, ReplayReport};

use crate::error::Error;
use crate::input::Transcript;
use crate::output::{Outcome, Status};
use crate::render::{self, Format, color::Paint};

/// The replay audit of `transcript`, with findings on the lines of the input.
pub fn report(
    transcript: &mut Transcript,
    mutating_tools: &[String],
) -> Result<ReplayReport, Error> {
    let mut report = replay::audit(transcript.reader(), mutating_tools)
        .map_err(|err| Error::reading(&transcript.path, err))?;
    transcript.place(&mut report.findings);
    Ok(report)
}

/// `toolreplay replay`: exit 0 without findings, 1 with.
pub fn run(
    mut transcript: Transcript,
    mutating_tools: &[String],
    format: Format,
    paint: Paint,
) -> Result<Outcome, Error> {
    let report = report(&mut transcript, mutating_tools)?;
    let text = render::replay(&report, &transcript.name(), format, paint);
    Ok(Outcome::text(
        text,
        Status::clean_if(report.findings.is_empty()),
    ))
}
