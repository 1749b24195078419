//! `toolreplay diff A B [--from F]`: where two runs first differ, call by call (the
//! comparison is [`toolreplay_core::diff_all`]).

use std::path::Path;

use toolreplay_core::{DiffError, DiffSide as Side, Difference};

use crate::args::Format;
use crate::error::Error;
use crate::input::{self, ImportOptions, Transcript};
use crate::printer::{Printer, Status};
use crate::render::{json, text};

/// The most differences `--all` lists; more are counted.
const MAX_DIFFERENCES: usize = 100_000;

/// How `diff` reports.
#[derive(Debug, Clone, Copy)]
pub(super) struct Options {
    /// `--format`.
    pub(super) format: Format,
    /// `--all`: every difference, not only the first.
    pub(super) all: bool,
}

/// `toolreplay diff A B`: exit 0 when the runs are the same, 1 when they differ.
/// Either may be `-`, not both; with `--from`, both are imported, and calls are
/// placed on their lines in the inputs.
pub(super) fn run(
    a: &Path,
    b: &Path,
    from: Option<ImportOptions>,
    options: Options,
    printer: &mut Printer,
) -> Result<Status, Error> {
    if options.format == Format::Sarif {
        return Err(Error::Usage(
            "diff reports as text or json; SARIF is for findings (replay, scope, verify)"
                .to_owned(),
        ));
    }
    input::not_both_stdin((a, "A"), (b, "B"))?;
    let mut left = Transcript::open(a, from, &mut std::io::stderr())?;
    let mut right = Transcript::open(b, from, &mut std::io::stderr())?;
    let max = if options.all { MAX_DIFFERENCES } else { 1 };
    let mut all = toolreplay_core::diff_all(left.buffered(), right.buffered(), max).map_err(
        |err: DiffError| {
            let path = match err.side {
                Side::A => a,
                Side::B => b,
            };
            Error::reading(path, err.error)
        },
    )?;
    let place = |difference: &mut Difference| match difference {
        Difference::Call { index, a, b, .. } => {
            a.line = left.line(*index, a.line);
            b.line = right.line(*index, b.line);
        }
        Difference::Ended {
            index, a_ended, at, ..
        } => {
            let other = if *a_ended { &right } else { &left };
            at.line = other.line(*index, at.line);
        }
    };
    all.report.first.iter_mut().for_each(place);
    all.differences.iter_mut().for_each(place);
    let status = Status::clean_if(all.report.first.is_none());
    let shown = options.all.then_some(&all);
    let report = match options.format {
        Format::Json => json::diff(&all.report, shown, &input::display(a), &input::display(b)),
        _ => {
            let mut out = text::diff(&all.report, printer.paint());
            if let Some(all) = shown {
                text::all_differences(all, &mut out);
            }
            out
        }
    };
    printer.print(&report)?;
    Ok(status)
}
