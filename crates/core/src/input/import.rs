//! Importing an agent's log into a transcript, for `toolreplay import`, `--from` and
//! the Python package: the log read whole, imported with what lies beside it
//! ([`super::subagents`]), and its notes and warnings told to the writer given.

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

use super::subagents::{subagents_beside, tool_results};
use super::{InputError, display, is_stdin, open_file, read_limited};
use crate::claims::Message;
use crate::import::{
    Beside, CallMeta, Format, ImportError, Imported, MAX_IMPORT_BYTES, Source, ToolResults,
    import_beside, summary, write_record,
};

/// How to import: the format to read, and whether warnings are errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportOptions {
    /// The format (`--from`).
    pub source: Source,
    /// Whether a warning is an error (`--strict`).
    pub strict: bool,
}

impl ImportOptions {
    /// Whether the input may be read as a sealed transcript: `--from sealed`, or
    /// `--from auto`, which recognises one.
    pub fn may_be_sealed(self) -> bool {
        self.source
            .format()
            .is_none_or(|format| format.name() == "sealed")
    }
}

/// An imported transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedTranscript {
    /// The transcript's bytes, as `import` writes them.
    pub transcript: Vec<u8>,
    /// For each record, the line of its call in the input.
    pub lines: Vec<u64>,
    /// The format the input was read as.
    pub format: Format,
    /// The conversation beside the calls, where the format has it.
    pub messages: Vec<Message>,
    /// For each record, what the log says of its call besides (its id, its times).
    pub meta: Vec<CallMeta>,
}

/// What an import read, besides its transcript, for the report of several imports:
/// filled in as far as the import went (the warnings are counted even when
/// `--strict` makes them an error).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// The format the input was read as, once it was read.
    pub format: Option<Format>,
    /// The warnings told.
    pub warnings: usize,
    /// The subagent logs read with a Claude Code session.
    pub subagents: usize,
}

/// The words of the limit of an import, in its error.
fn most_read() -> String {
    format!("{} GiB, the most an import reads", MAX_IMPORT_BYTES >> 30)
}

/// Imports the log in the file at `path` into a transcript: [`import_bytes`] of the
/// file's bytes, read up to [`MAX_IMPORT_BYTES`].
pub fn import_file(
    path: &Path,
    options: ImportOptions,
    diagnostics: &mut dyn Write,
    tally: &mut Tally,
) -> Result<ImportedTranscript, InputError> {
    let bytes = read_limited(open_file(path)?.0, path, MAX_IMPORT_BYTES, &most_read())?;
    import_bytes(bytes, Some(path), options, diagnostics, tally)
}

/// Imports the log `bytes`, read from `path` (`-`: standard input; `None`: bytes
/// given in memory, named `<records>`), into a transcript, reading what lies beside
/// a file; writes the notes and warnings to `diagnostics` and tells in `tally` what
/// was read. With `strict`, any warning is an error, after the warnings are written.
/// Bytes larger than [`MAX_IMPORT_BYTES`] are an error.
pub fn import_bytes(
    bytes: Vec<u8>,
    path: Option<&Path>,
    options: ImportOptions,
    diagnostics: &mut dyn Write,
    tally: &mut Tally,
) -> Result<ImportedTranscript, InputError> {
    let name = path.map_or_else(|| "<records>".to_owned(), display);
    if bytes.len() as u64 > MAX_IMPORT_BYTES {
        return Err(InputError::Invalid {
            path: name,
            message: format!("larger than {}", most_read()),
        });
    }
    let file = path.filter(|path| !is_stdin(path));
    let subagents = match file {
        Some(path) => subagents_beside(path, options.source)?,
        None => super::Found::default(),
    };
    let logs = subagents.logs();
    let tool_results = file.and_then(tool_results);
    let beside = Beside {
        subagents: &logs,
        tool_results: tool_results.as_ref().map(|files| files as &ToolResults<'_>),
    };
    let mut imported = import_beside(&bytes, options.source, beside).map_err(|err| match err {
        ImportError::Input(err) => InputError::Input {
            path: name.clone(),
            line: err.line,
            message: err.message,
        },
        other => InputError::Invalid {
            path: name.clone(),
            message: other.to_string(),
        },
    })?;
    drop(bytes);
    *tally = Tally {
        format: Some(imported.format),
        warnings: imported.warnings.len(),
        subagents: if imported.format == Format::ClaudeCode {
            subagents.count()
        } else {
            0
        },
    };
    let told = told(&imported, &name, options.strict);
    // If the writer is gone there is nobody left to tell.
    let _ = diagnostics.write_all(told.as_bytes());
    if options.strict
        && let Some(summary) = summary(&imported.warnings)
    {
        return Err(InputError::Invalid {
            path: name,
            message: format!("{summary}; --strict allows none"),
        });
    }
    let lines = imported.calls.iter().map(|call| call.line).collect();
    let (format, messages) = (imported.format, imported.messages);
    let meta = imported
        .calls
        .iter_mut()
        .map(|call| std::mem::take(&mut call.meta))
        .collect();
    // Each call is dropped once written, so the calls and the transcript are not both
    // held whole.
    let mut transcript = Vec::new();
    for (index, call) in imported.calls.into_iter().enumerate() {
        write_record(index, &call, &mut transcript);
    }
    Ok(ImportedTranscript {
        transcript,
        lines,
        format,
        messages,
        meta,
    })
}

/// What an import tells, each line ending with LF: with `--from auto`,
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
