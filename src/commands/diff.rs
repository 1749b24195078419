//! `toolreplay diff A B [--from F]`: where two runs first differ, call by call (the
//! comparison is [`toolreplay_core::diff`]).

use std::path::Path;

use toolreplay_core::diff::{DiffError, Difference, Side};

use crate::error::Error;
use crate::input::{self, ImportOptions, Transcript};
use crate::output::{Outcome, Status};
use crate::render::{color::Paint, text};

/// `toolreplay diff A B`: exit 0 when the runs are the same, 1 when they differ.
/// Either may be `-`, not both; with `--from`, both are imported, and calls are
/// placed on their lines in the inputs.
pub fn run(
    a: &Path,
    b: &Path,
    from: Option<ImportOptions>,
    paint: Paint,
) -> Result<Outcome, Error> {
    input::not_both_stdin((a, "A"), (b, "B"))?;
    let mut left = Transcript::open(a, from)?;
    let mut right = Transcript::open(b, from)?;
    let mut report = toolreplay_core::diff::compare(left.buffered(), right.buffered()).map_err(
        |err: DiffError| {
            let path = match err.side {
                Side::A => a,
                Side::B => b,
            };
            Error::reading(path, err.error)
        },
    )?;
    match &mut report.first {
        Some(Difference::Call { index, a, b, .. }) => {
            a.line = left.line(*index, a.line);
            b.line = right.line(*index, b.line);
        }
        Some(Difference::Ended {
            index, a_ended, at, ..
        }) => {
            let other = if *a_ended { &right } else { &left };
            at.line = other.line(*index, at.line);
        }
        None => {}
    }
    Ok(Outcome::text(
        text::diff(&report, paint),
        Status::clean_if(report.first.is_none()),
    ))
}
