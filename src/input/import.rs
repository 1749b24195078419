//! Importing an agent's log into a transcript, for `toolreplay import` and `--from`:
//! the log is read whole, imported by [`toolreplay_core::import_log`], and its notes and
//! warnings are told on stderr.

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

use toolreplay_core::{
    Beside, CallMeta, ImportError, ImportFormat as Format, ImportSource as Source, Imported,
    MAX_IMPORT_BYTES, Message, ToolResults, import_log_beside as import_beside,
    import_summary as summary, write_imported_record as write_record,
};

use crate::error::Error;

/// How to import: the format to read, and whether warnings are errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ImportOptions {
    /// The format (`--from`).
    pub source: Source,
    /// Whether a warning is an error (`--strict`).
    pub strict: bool,
}

impl ImportOptions {
    /// Whether the input may be read as a sealed transcript: `--from sealed`, or
    /// `--from auto`, which recognises one.
    pub(crate) fn may_be_sealed(self) -> bool {
        self.source
            .format()
            .is_none_or(|format| format.name() == "sealed")
    }
}

/// An imported transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ImportedTranscript {
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
pub(crate) struct Tally {
    /// The format the input was read as, once it was read.
    pub format: Option<Format>,
    /// The warnings told.
    pub warnings: usize,
    /// The subagent logs read with a Claude Code session.
    pub subagents: usize,
}

/// Imports the log at `path` (`-`: standard input) into a transcript; writes the
/// notes and warnings to `diagnostics`. With `strict`, any warning is an error, after
/// the warnings are written.
pub(crate) fn import_transcript(
    path: &Path,
    options: ImportOptions,
    diagnostics: &mut dyn Write,
) -> Result<ImportedTranscript, Error> {
    import_counted(path, options, diagnostics, &mut Tally::default())
}

/// [`import_transcript`], telling in `tally` what was read.
pub(crate) fn import_counted(
    path: &Path,
    options: ImportOptions,
    diagnostics: &mut dyn Write,
    tally: &mut Tally,
) -> Result<ImportedTranscript, Error> {
    let name = super::display(path);
    let bytes = super::read_whole(
        path,
        MAX_IMPORT_BYTES,
        &format!("{} GiB, the most an import reads", MAX_IMPORT_BYTES >> 30),
    )?;
    let subagents = super::subagents::beside(path, options.source)?;
    let logs = subagents.logs();
    let tool_results = super::subagents::tool_results(path);
    let beside = Beside {
        subagents: &logs,
        tool_results: tool_results.as_ref().map(|files| files as &ToolResults<'_>),
    };
    let mut imported = import_beside(&bytes, options.source, beside).map_err(|err| match err {
        ImportError::Input(err) => Error::Input {
            path: name.clone(),
            line: err.line,
            message: err.message,
        },
        other => Error::Invalid {
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
