//! The commands that read their input through an import: `toolreplay import`, and the
//! audits given `--from FORMAT` (`replay`, `scope`, `seal`, `seal --append`, `diff`),
//! which import the input in memory and audit the transcript exactly as `import`
//! would have written it, so `replay --from F x` is `import --from F x` then
//! `replay`.
//!
//! Notes and warnings go to the `diagnostics` writer (stderr), as
//! [`super::diagnostics`] renders them; errors name the user's input file.

use std::io::{self, BufRead, Cursor, Read, Write};
use std::path::Path;

use crate::atomic::AtomicFile;
use crate::commands::{self, Outcome, Output, Status};
use crate::error::Error;
use crate::format::{self, Format};
use crate::input;
use crate::spool::Spool;
use toolreplay_core::diff::Difference;
use toolreplay_core::finding::Finding;

use std::fmt::Write as _;
use toolreplay_core::import::{
    ImportError, Imported, MAX_IMPORT_BYTES, Source, import_with_subagents, summary,
    write_transcript,
};

/// How to import: the format to read, and whether warnings are errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// The format (`--from`).
    pub source: Source,
    /// Whether a warning is an error (`--strict`).
    pub strict: bool,
}

/// Reads the whole input at `path` (`-`: standard input), up to
/// [`MAX_IMPORT_BYTES`].
pub fn read_input(path: &Path) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::new();
    input::open_raw(path)?
        .take(MAX_IMPORT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| Error::Read {
            path: input::display(path),
            source,
        })?;
    if bytes.len() as u64 > MAX_IMPORT_BYTES {
        return Err(Error::Invalid {
            path: input::display(path),
            message: format!(
                "larger than {} GiB, the most an import reads",
                MAX_IMPORT_BYTES >> 30
            ),
        });
    }
    Ok(bytes)
}

/// An imported transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// The transcript's bytes, as `import` writes them.
    pub transcript: Vec<u8>,
    /// For each record, the line of its call in the input.
    pub lines: Vec<u64>,
}

impl Loaded {
    /// The line in the input of the call with index `index`; `fallback` (the line in
    /// the transcript) if there is none.
    fn line(&self, index: u64, fallback: u64) -> u64 {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.lines.get(i))
            .copied()
            .unwrap_or(fallback)
    }

    /// Findings placed on the lines of their calls in the input.
    fn place(&self, findings: &mut [Finding]) {
        for finding in findings {
            finding.line = self.line(finding.index, finding.line);
        }
    }

    /// The transcript to read, taken out.
    fn reader(&mut self) -> Box<dyn BufRead + Send> {
        Box::new(Cursor::new(std::mem::take(&mut self.transcript)))
    }
}

/// Imports the input at `path` into a transcript; writes the notes and warnings to
/// `diagnostics`. With `strict`, any warning is an error, after the warnings are
/// written.
pub fn load(path: &Path, options: Options, diagnostics: &mut dyn Write) -> Result<Loaded, Error> {
    let name = input::display(path);
    let bytes = read_input(path)?;
    let subagents = crate::subagents::beside(path, options.source)?;
    let imported = import_with_subagents(&bytes, options.source, &subagents.logs()).map_err(
        |err| match err {
            ImportError::Input(err) => Error::Input {
                path: name.clone(),
                line: err.line,
                message: err.message,
            },
            other => Error::Invalid {
                path: name.clone(),
                message: other.to_string(),
            },
        },
    )?;
    drop(bytes);
    let told = told(&imported, &name, options.strict);
    // If stderr is gone there is nobody left to tell.
    let _ = diagnostics.write_all(told.as_bytes());
    if options.strict
        && let Some(summary) = summary(&imported.warnings)
    {
        return Err(Error::Invalid {
            path: name,
            message: format!("{summary}; --strict allows none"),
        });
    }
    let mut transcript = Vec::new();
    write_transcript(&imported.calls, &mut transcript);
    Ok(Loaded {
        transcript,
        lines: imported.calls.iter().map(|call| call.line).collect(),
    })
}

/// `toolreplay import [--from FORMAT] INPUT [--output OUT] [--strict]`: the
/// transcript to stdout once the whole input is imported, or to `OUT` atomically.
pub fn import_command(
    path: &Path,
    options: Options,
    output: Option<&Path>,
    diagnostics: &mut dyn Write,
) -> Result<Outcome, Error> {
    let transcript = load(path, options, diagnostics)?.transcript;
    let output = match output {
        None => {
            let mut spool = Spool::new();
            spool.write(&transcript).map_err(|source| Error::Write {
                target: "a temporary file".to_owned(),
                source,
            })?;
            Output::Spooled(spool)
        }
        Some(target) => {
            let write_error = |source: io::Error| Error::Write {
                target: input::display(target),
                source,
            };
            let mut file = AtomicFile::new(target).map_err(write_error)?;
            file.file().write_all(&transcript).map_err(write_error)?;
            file.commit().map_err(write_error)?;
            Output::Nothing
        }
    };
    Ok(Outcome {
        output,
        status: Status::Clean,
    })
}

/// `toolreplay replay --from FORMAT FILE ...`
pub fn replay(
    path: &Path,
    options: Options,
    mutating_tools: &[String],
    report_format: Format,
    colored: bool,
    diagnostics: &mut dyn Write,
) -> Result<Outcome, Error> {
    let mut loaded = load(path, options, diagnostics)?;
    let mut report = commands::replay_report_from(path, loaded.reader(), mutating_tools)?;
    loaded.place(&mut report.findings);
    let text = format::render_replay(&report, &input::display(path), report_format, colored);
    Ok(Outcome {
        status: commands::status(report.findings.is_empty()),
        output: Output::Text(text),
    })
}

/// `toolreplay scope --from FORMAT FILE SCOPE ...`: SCOPE is read first, as without
/// `--from`.
pub fn scope(
    path: &Path,
    scope_path: &Path,
    options: Options,
    report_format: Format,
    colored: bool,
    diagnostics: &mut dyn Write,
) -> Result<Outcome, Error> {
    if input::is_stdin(path) && input::is_stdin(scope_path) {
        return Err(Error::Usage(
            "FILE and SCOPE cannot both be standard input".to_owned(),
        ));
    }
    let scope = commands::read_scope(scope_path)?;
    let mut loaded = load(path, options, diagnostics)?;
    let mut report = commands::scope_report_from(path, loaded.reader(), scope)?;
    loaded.place(&mut report.findings);
    let text = format::render_scope(
        &report,
        &input::display(path),
        &input::display(scope_path),
        report_format,
        colored,
    );
    Ok(Outcome {
        status: commands::status(report.findings.is_empty()),
        output: Output::Text(text),
    })
}

/// `toolreplay seal --from FORMAT FILE [-o OUT]`
pub fn seal(
    path: &Path,
    options: Options,
    output: Option<&Path>,
    diagnostics: &mut dyn Write,
) -> Result<Outcome, Error> {
    let mut loaded = load(path, options, diagnostics)?;
    commands::seal_from(path, loaded.reader(), output)
}

/// `toolreplay seal --from FORMAT --append SEALED NEW`: NEW is imported once SEALED
/// has been checked.
pub fn append(
    sealed: &Path,
    new: &Path,
    options: Options,
    diagnostics: &mut dyn Write,
) -> Result<Outcome, Error> {
    crate::append::append_from(
        sealed,
        new,
        || Ok(load(new, options, diagnostics)?.reader()),
    )
}

/// `toolreplay diff --from FORMAT A B`: both runs are imported.
pub fn diff(
    a: &Path,
    b: &Path,
    options: Options,
    colored: bool,
    diagnostics: &mut dyn Write,
) -> Result<Outcome, Error> {
    crate::diff::check_stdin(a, b)?;
    let mut left = load(a, options, diagnostics)?;
    let mut right = load(b, options, diagnostics)?;
    let mut report = toolreplay_core::diff::compare(left.reader(), right.reader())
        .map_err(|err| crate::diff::diff_error(a, b, err))?;
    // Calls are placed on their lines in the inputs.
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
    Ok(crate::diff::outcome(&report, colored))
}

/// What an import tells on stderr, each line ending with LF: with `--from auto`,
/// `note: NAME: detected format F`; then each warning as
/// `warning: NAME:LINE: message`; then, when there were warnings and `strict` is off,
/// the summary `warning: NAME: N warnings: ...`.
fn told(imported: &Imported, name: &str, strict: bool) -> String {
    let mut out = String::new();
    if imported.detected {
        let _ = writeln!(
            out,
            "note: {name}: detected format {}",
            imported.format.name()
        );
    }
    for warning in &imported.warnings {
        let _ = writeln!(out, "warning: {name}:{}: {}", warning.line, warning.message);
    }
    if !strict && let Some(summary) = summary(&imported.warnings) {
        let _ = writeln!(out, "warning: {name}: {summary}");
    }
    out
}
