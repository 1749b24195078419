//! `toolreplay diff A B`: where two runs first differ, call by call (the comparison
//! is [`toolreplay_core::diff`]).

use std::fmt::Write as _;
use std::path::Path;

use toolreplay_core::diff::{At, DiffError, DiffReport, Difference, Side};
use toolreplay_core::finding::quote_name;

use crate::commands::{self, Outcome, Output};
use crate::error::Error;
use crate::input;

/// Compares the runs at `a` and `b` (either may be `-`, not both).
pub fn compare(a: &Path, b: &Path) -> Result<DiffReport, Error> {
    check_stdin(a, b)?;
    toolreplay_core::diff::compare(input::open(a)?, input::open(b)?)
        .map_err(|err| diff_error(a, b, err))
}

/// The error of the input of `err`'s side.
pub fn diff_error(a: &Path, b: &Path, err: DiffError) -> Error {
    let path = match err.side {
        Side::A => a,
        Side::B => b,
    };
    Error::reading(path, err.error)
}

/// The usage error when `a` and `b` are both standard input.
pub fn check_stdin(a: &Path, b: &Path) -> Result<(), Error> {
    if input::is_stdin(a) && input::is_stdin(b) {
        return Err(Error::Usage(
            "A and B cannot both be standard input".to_owned(),
        ));
    }
    Ok(())
}

fn at_line(label: &str, at: &At, out: &mut String) {
    let _ = writeln!(
        out,
        "{label}: line {}: tool {}",
        at.line,
        quote_name(&at.tool)
    );
}

/// The text report of `diff`.
///
/// ```text
/// runs: differ
/// calls: 6 and 6
/// first difference: index 5
/// differs: response
/// a: line 6: tool 'search'
/// b: line 6: tool 'search'
/// ```
pub fn render(report: &DiffReport) -> String {
    let mut out = String::new();
    let Some(first) = &report.first else {
        let _ = write!(out, "runs: same\ncalls: {}\n", report.calls_a);
        return out;
    };
    let _ = writeln!(out, "runs: differ");
    let _ = writeln!(out, "calls: {} and {}", report.calls_a, report.calls_b);
    match first {
        Difference::Call { index, parts, a, b } => {
            let names: Vec<&str> = [
                (parts.tool, "tool"),
                (parts.args, "args"),
                (parts.response, "response"),
            ]
            .iter()
            .filter(|(differs, _)| *differs)
            .map(|(_, name)| *name)
            .collect();
            let _ = writeln!(out, "first difference: index {index}");
            let _ = writeln!(out, "differs: {}", names.join(", "));
            at_line("a", a, &mut out);
            at_line("b", b, &mut out);
        }
        Difference::Ended { index, a_ended, at } => {
            let (ended, other) = if *a_ended { ("a", "b") } else { ("b", "a") };
            let _ = writeln!(out, "first difference: index {index}");
            let _ = writeln!(out, "differs: {ended} ended");
            if *a_ended {
                let _ = writeln!(out, "a: ended after {index} calls");
                at_line(other, at, &mut out);
            } else {
                at_line(other, at, &mut out);
                let _ = writeln!(out, "b: ended after {index} calls");
            }
        }
    }
    out
}

/// `toolreplay diff A B`: exit 0 when the runs are the same, 1 when they differ.
pub fn diff(a: &Path, b: &Path, colored: bool) -> Result<Outcome, Error> {
    Ok(outcome(&compare(a, b)?, colored))
}

/// The outcome of a comparison: exit 0 when the runs are the same, 1 when they differ.
pub fn outcome(report: &DiffReport, colored: bool) -> Outcome {
    Outcome {
        status: commands::status(report.first.is_none()),
        output: Output::Text(crate::color::maybe(render(report), colored)),
    }
}
