//! Opening inputs: a file by path, or standard input for `-`, with a progress
//! indicator on a terminal for large inputs; and the transcript a command audits,
//! read as it is or imported from an agent's log with `--from` ([`Transcript`]).

mod import;
mod progress;
pub(crate) mod walk;

use std::io::{self, BufRead, BufReader, Cursor, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use toolreplay_core::input as core_input;
use toolreplay_core::{ContextFile, Contexts, Findings};

use crate::error::Error;
use progress::{Meter, Progress};

pub(crate) use crate::naming::{display, is_stdin};

const READ_BUFFER: usize = 256 << 10;
pub(crate) use import::{ImportOptions, Tally, import_counted, import_transcript};
pub(crate) use toolreplay_core::input::{ScopeFile, session_of, session_of_result};

/// Opens an input for streaming: standard input for `-`, else the file at `path`
/// (a directory is an error). When standard error is a terminal, reading shows a
/// progress indicator there once it has taken more than a second.
pub(crate) fn open(path: &Path) -> Result<Box<dyn BufRead + Send>, Error> {
    Ok(Box::new(BufReader::with_capacity(
        READ_BUFFER,
        open_raw(path)?,
    )))
}

/// [`open`] without a buffer, for readers that read large blocks themselves.
pub(crate) fn open_raw(path: &Path) -> Result<Box<dyn Read + Send>, Error> {
    let name = display(path);
    let (reader, total): (Box<dyn Read + Send>, Option<u64>) = if is_stdin(path) {
        (Box::new(io::stdin()), None)
    } else {
        let (file, total) = core_input::open_file(path)?;
        (Box::new(file), total)
    };
    if io::stderr().is_terminal() {
        let meter = Meter::new(name, total);
        Ok(Box::new(Progress::new(
            reader,
            meter,
            Box::new(io::stderr()),
        )))
    } else {
        Ok(reader)
    }
}

/// Reads the whole input at `path` (`-`: standard input), up to `max` bytes; `what`
/// says in the error what such an input may not exceed ("larger than {what}").
pub(crate) fn read_whole(path: &Path, max: u64, what: &str) -> Result<Vec<u8>, Error> {
    Ok(core_input::read_limited(open_raw(path)?, path, max, what)?)
}

/// Reads a small document whole (a scope or roles file), up to `max` bytes: a larger
/// one is an input error on line 1, `{what} larger than N MiB`. Hands the bytes to
/// `parse`, whose error (a 1-based line and a message) is placed in the file.
pub(crate) fn read_document<T>(
    path: &Path,
    max: u64,
    what: &str,
    parse: impl FnOnce(&[u8]) -> Result<T, (u64, String)>,
) -> Result<T, Error> {
    Ok(core_input::read_document(
        open_raw(path)?,
        path,
        (max, what),
        parse,
    )?)
}

/// Reads and parses the scope file at `path` (`-`: standard input), up to
/// the core's `MAX_SCOPE_BYTES`; an error is placed in the file.
pub(crate) fn read_scope(path: &Path) -> Result<ScopeFile, Error> {
    read_scope_checked(path, None)
}

/// [`read_scope`], for a file whose bytes of digest `checked` were read without
/// error before (see the core's [`core_input::read_scope`]).
pub(crate) fn read_scope_checked(path: &Path, checked: Option<&str>) -> Result<ScopeFile, Error> {
    Ok(core_input::read_scope(open_raw(path)?, path, checked)?)
}

/// The usage error when two inputs, named `a` and `b` in it, are both standard input.
pub(crate) fn not_both_stdin(a: (&Path, &str), b: (&Path, &str)) -> Result<(), Error> {
    if is_stdin(a.0) && is_stdin(b.0) {
        return Err(Error::Usage(format!(
            "{} and {} cannot both be standard input",
            a.1, b.1
        )));
    }
    Ok(())
}

/// The transcript a command reads: the file as it is, or the transcript imported from
/// an agent's log (`--from`), which is audited exactly as `import` would have written
/// it, with findings placed on the lines of the calls in the log.
pub(crate) struct Transcript {
    /// The input as the user named it.
    pub path: PathBuf,
    reader: Box<dyn Read + Send>,
    /// For an imported log, the line in it of each record's call.
    lines: Option<Vec<u64>>,
    /// For an imported log that says where its calls ran, where they ran.
    log_contexts: Option<Contexts>,
}

impl Transcript {
    /// The transcript at `path`, imported as `from` says when it is given; an import's
    /// notes and warnings go to `diagnostics` (stderr, or a file's share of it when
    /// several are audited at once).
    pub(crate) fn open(
        path: &Path,
        from: Option<ImportOptions>,
        diagnostics: &mut dyn Write,
    ) -> Result<Transcript, Error> {
        let (reader, lines, log_contexts): (Box<dyn Read + Send>, _, _) = match from {
            None => (open_raw(path)?, None, None),
            Some(options) => {
                let imported = import_transcript(path, options, diagnostics)?;
                (
                    Box::new(Cursor::new(imported.transcript)),
                    Some(imported.lines),
                    Contexts::of_calls(&imported.meta),
                )
            }
        };
        Ok(Transcript {
            path: path.to_owned(),
            reader,
            lines,
            log_contexts,
        })
    }

    /// Where the calls of an imported log ran, when the log says (Claude Code's
    /// `cwd`): path rules read the calls' paths there.
    pub(crate) fn log_contexts(&mut self) -> Option<Contexts> {
        self.log_contexts.take()
    }

    /// The error of reading this transcript: for a plain file that an import with
    /// `--from auto` would read as an agent's log, with a hint naming the format.
    pub(crate) fn reading_error(&self, err: toolreplay_core::ReadError) -> Error {
        let err = Error::reading(&self.path, err);
        if self.imported() || is_stdin(&self.path) {
            return err;
        }
        match err {
            Error::Input(err) => Error::Input(err.with_format_hint(|| {
                read_whole(&self.path, toolreplay_core::MAX_IMPORT_BYTES, "1 GiB").ok()
            })),
            other => other,
        }
    }

    /// Whether the transcript was imported from an agent's log.
    pub(crate) fn imported(&self) -> bool {
        self.lines.is_some()
    }

    /// The input's name in messages and reports.
    pub(crate) fn name(&self) -> String {
        display(&self.path)
    }

    /// The transcript's bytes, read once.
    pub(crate) fn reader(&mut self) -> Box<dyn Read + Send> {
        std::mem::replace(&mut self.reader, Box::new(io::empty()))
    }

    /// [`Transcript::reader`], buffered.
    pub(crate) fn buffered(&mut self) -> Box<dyn BufRead + Send> {
        Box::new(BufReader::with_capacity(READ_BUFFER, self.reader()))
    }

    /// The line in the input of the record with index `index`: `line` (its line in the
    /// transcript) unless the transcript was imported.
    pub(crate) fn line(&self, index: u64, line: u64) -> u64 {
        self.lines
            .as_ref()
            .and_then(|lines| lines.get(usize::try_from(index).ok()?))
            .copied()
            .unwrap_or(line)
    }

    /// Findings placed on the lines of their calls in the input.
    pub(crate) fn place(&self, findings: &mut Findings) -> io::Result<()> {
        if self.lines.is_some() {
            *findings = findings.rewrite(|mut finding| {
                finding.line = self.line(finding.index, finding.line);
                Some(finding)
            })?;
        }
        Ok(())
    }
}

/// Where the calls of the session at `path` (when `sealed`: read as a sealed
/// transcript) ran, from its context file
/// `S.context.jsonl` when it has one (a live session's), so that path rules read
/// paths as the live decisions did; otherwise the current directory as the start
/// that relative roots are read from. Said on `told`, with a policy other than the
/// one the session was decided by.
pub(crate) fn session_contexts(
    path: &Path,
    sealed: bool,
    (scope_path, digest): (&Path, &str),
    told: &mut dyn Write,
) -> Result<Contexts, Error> {
    Ok(core_input::session_contexts(
        path,
        sealed,
        (&display(scope_path), digest),
        told,
    )?)
}

/// Reads the live session's context file at `path` (see the core's
/// `read_context_file`); a record of another shape is an input error.
pub(crate) fn read_context(path: &Path) -> Result<ContextFile, Error> {
    Ok(core_input::read_context(path)?)
}
