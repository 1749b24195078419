//! `toolreplay replay FILE [--mutating-tool NAME]... [--format F] [--from F]`.

use toolreplay_core::replay::{Replay, ReplayReport, fingerprints};

use crate::error::Error;
use crate::input::Transcript;
use crate::output::{Outcome, Status};
use crate::render::{self, Format, color::Paint};

/// The replay audit of `transcript`, with findings on the lines of the input.
pub fn report(
    transcript: &mut Transcript,
    mutating_tools: &[String],
) -> Result<ReplayReport, Error> {
    let mut replay = Replay::new(mutating_tools.iter().cloned());
    // The fingerprints are computed on the parsing threads; only the bookkeeping is
    // sequential.
    super::for_each_made(
        transcript,
        |record| fingerprints(record.tool, record.args, record.response),
        |line, index, tool, (call, response)| {
            replay.observe_fingerprints(line, index, tool, call, response);
            Ok(())
        },
    )?;
    let mut report = replay.finish();
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
