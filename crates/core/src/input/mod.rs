//! Inputs read from files, the one way for the binary and the Python package: how an
//! input is named in messages ([`display`]), the words of an I/O error
//! ([`describe_io`]), a file opened or read whole within a limit, the format `--from`
//! names ([`source_named`]), an agent's log imported with what lies beside it (a
//! Claude Code session's subagent logs and its tool-results folder), a live
//! session's context file, and the error of each ([`InputError`]).
//!
//! Nothing here knows the terminal: standard input (`-`) is only named here, read
//! by the caller, and what an import tells goes to the writer the caller gives.

mod context;
mod import;
mod subagents;

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::error::ReadError;
use crate::import::{Format, Source};

pub use context::{
    ClaimsInput, claims_input, context_messages, context_path, imported_messages, no_messages,
    read_context, session_contexts,
};
pub use import::{ImportOptions, ImportedTranscript, Tally, import_bytes, import_file};
pub use subagents::{
    Found, reads_beside, session_of, session_of_result, subagents_beside, tool_results,
};

/// The path that stands for standard input.
pub const STDIN: &str = "-";

/// How standard input is named in error messages and reports.
pub const STDIN_NAME: &str = "<stdin>";

/// Whether `path` stands for standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == STDIN
}

/// The name of an input in messages and reports: the path as given, or `<stdin>`
/// for `-`. A character that would change how a message reads on a terminal is
/// written as an escape `\uXXXX`, so that a name can neither split an error into
/// several lines nor reorder or hide what follows it: controls (C0, DEL, C1, among
/// them newline and ESC), the line and paragraph separators, and the invisible
/// formatting characters that steer bidirectional text or take no width (U+061C,
/// U+200B to U+200F, U+202A to U+202E, U+2060 to U+2069, U+FEFF). Every other
/// character, a backslash too, is written as it is; bytes that are not UTF-8 as
/// U+FFFD.
pub fn display(path: &Path) -> String {
    if is_stdin(path) {
        return STDIN_NAME.to_owned();
    }
    let text = path.to_string_lossy();
    if !text.chars().any(needs_escape) {
        return text.into_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `c` is written as an escape in a name.
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2069}'
                | '\u{feff}'
        )
}

/// An I/O error's message without the trailing `(os error N)`, starting lowercase.
pub fn describe_io(err: &io::Error) -> String {
    let text = err.to_string();
    match text.find(" (os error ") {
        Some(at) => {
            let mut text = text[..at].to_owned();
            // OS messages start with a capital letter; messages here are lowercase.
            if let Some(first) = text.get(..1) {
                let lower = first.to_lowercase();
                text.replace_range(..1, &lower);
            }
            text
        }
        None => text,
    }
}

/// An input that could not be read or is not what it must be, in the words the
/// command line gives after `error: `.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The input is not valid: its name, its 1-based physical line, and what is wrong.
    #[error("{path}:{line}: {message}")]
    Input {
        /// The input as named in messages.
        path: String,
        /// The 1-based physical line.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// A file could not be opened or read.
    #[error("{path}: {}", describe_io(.source))]
    Read {
        /// The input as named in messages.
        path: String,
        /// Why.
        source: io::Error,
    },
    /// A file was read but is not what it must be.
    #[error("{path}: {message}")]
    Invalid {
        /// The input as named in messages.
        path: String,
        /// What is wrong.
        message: String,
    },
}

impl InputError {
    /// The error of an input at `path` that could not be read or parsed.
    pub fn reading(path: &Path, err: ReadError) -> InputError {
        InputError::named(display(path), err)
    }

    /// [`InputError::reading`], for an input named `name` in messages.
    pub fn named(name: String, err: ReadError) -> InputError {
        match err {
            ReadError::Io(source) => InputError::Read { path: name, source },
            ReadError::Input(err) => InputError::Input {
                path: name,
                line: err.line,
                message: err.message,
            },
        }
    }

    /// The error of a line of a file read as a transcript, with the hint of
    /// [`with_format_hint`] when the file's bytes, which `bytes` reads (only then),
    /// are a log an import recognises; any other error as it is.
    ///
    /// ```
    /// use toolreplay_core::input::InputError;
    ///
    /// let err = InputError::Input {
    ///     path: "t.jsonl".to_owned(),
    ///     line: 1,
    ///     message: "missing field \"tool\"".to_owned(),
    /// };
    /// let hinted = err.with_format_hint(|| None);
    /// assert_eq!(hinted.to_string(), "t.jsonl:1: missing field \"tool\"");
    /// ```
    pub fn with_format_hint(self, bytes: impl FnOnce() -> Option<Vec<u8>>) -> InputError {
        match self {
            InputError::Input {
                path,
                line,
                message,
            } => {
                let message = bytes()
                    .and_then(|bytes| with_format_hint(&message, &bytes))
                    .unwrap_or(message);
                InputError::Input {
                    path,
                    line,
                    message,
                }
            }
            other => other,
        }
    }

    /// The error of reading a file as a sealed transcript, with the hint to seal it
    /// when it was never sealed (its first record has no `prev`); any other error as
    /// it is.
    ///
    /// ```
    /// use toolreplay_core::input::InputError;
    ///
    /// let err = InputError::Input {
    ///     path: "t.jsonl".to_owned(),
    ///     line: 1,
    ///     message: "missing field \"prev\"".to_owned(),
    /// };
    /// assert_eq!(
    ///     err.with_unsealed_hint().to_string(),
    ///     "t.jsonl:1: missing field \"prev\": not a sealed transcript; \
    ///      seal it first (toolreplay seal t.jsonl -o sealed.jsonl)"
    /// );
    /// ```
    pub fn with_unsealed_hint(self) -> InputError {
        match self {
            InputError::Input {
                path,
                line,
                message,
            } if line == 1 && message == "missing field \"prev\"" => InputError::Input {
                message: format!(
                    "{message}: not a sealed transcript; seal it first (toolreplay seal {path} -o sealed.jsonl)"
                ),
                path,
                line,
            },
            other => other,
        }
    }
}

/// Opens the file at `path` for reading (a directory is an error); with its length
/// when it is a regular file.
pub fn open_file(path: &Path) -> Result<(File, Option<u64>), InputError> {
    let read_error = |source| InputError::Read {
        path: display(path),
        source,
    };
    let file = File::open(path).map_err(read_error)?;
    let meta = file.metadata().map_err(read_error)?;
    if meta.is_dir() {
        return Err(read_error(io::Error::from(io::ErrorKind::IsADirectory)));
    }
    Ok((file, meta.is_file().then_some(meta.len())))
}

/// Reads `reader`, the input at `path`, whole up to one byte more than `max`: more
/// than `max` bytes read means it is larger.
pub fn read_up_to(reader: impl Read, path: &Path, max: u64) -> Result<Vec<u8>, InputError> {
    let mut bytes = Vec::new();
    reader
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| InputError::Read {
            path: display(path),
            source,
        })?;
    Ok(bytes)
}

/// Reads `reader`, the input at `path`, whole, up to `max` bytes; `what` says in the
/// error what such an input may not exceed ("larger than {what}").
pub fn read_limited(
    reader: impl Read,
    path: &Path,
    max: u64,
    what: &str,
) -> Result<Vec<u8>, InputError> {
    let bytes = read_up_to(reader, path, max)?;
    if bytes.len() as u64 > max {
        return Err(InputError::Invalid {
            path: display(path),
            message: format!("larger than {what}"),
        });
    }
    Ok(bytes)
}

/// [`read_limited`] of the file at `path`.
pub fn read_file(path: &Path, max: u64, what: &str) -> Result<Vec<u8>, InputError> {
    read_limited(open_file(path)?.0, path, max, what)
}

/// Reads a small document whole (a scope or roles file) from `reader`, the input at
/// `path`, up to `max` bytes: a larger one is an input error on line 1,
/// `{what} larger than N MiB`. Hands the bytes to `parse`, whose error (a 1-based
/// line and a message) is placed in the file.
pub fn read_document<T>(
    reader: impl Read,
    path: &Path,
    (max, what): (u64, &str),
    parse: impl FnOnce(&[u8]) -> Result<T, (u64, String)>,
) -> Result<T, InputError> {
    let bytes = read_up_to(reader, path, max)?;
    let input_error = |line: u64, message: String| InputError::Input {
        path: display(path),
        line,
        message,
    };
    if bytes.len() as u64 > max {
        return Err(input_error(
            1,
            format!("{what} larger than {} MiB", max >> 20),
        ));
    }
    parse(&bytes).map_err(|(line, message)| input_error(line, message))
}

/// The largest scope file read, in bytes.
pub const MAX_SCOPE_BYTES: u64 = 16 << 20;

/// A scope file read: the scope, and the SHA-256 of the file's bytes in hex (what a
/// live session records of the policy that decided it).
#[derive(Debug)]
pub struct ScopeFile {
    /// The scope and its policy.
    pub scope: crate::scope::Scope,
    /// SHA-256 of the file's bytes, in hex.
    pub digest: String,
}

/// Reads and parses the scope file `reader`, the input at `path`, up to
/// [`MAX_SCOPE_BYTES`]; an error is placed in the file. When its bytes still have
/// the digest `checked` (read without error before), their globs and command
/// patterns are compiled when a call needs them rather than checked now
/// ([`crate::scope::Scope::reparse`]).
pub fn read_scope(
    reader: impl Read,
    path: &Path,
    checked: Option<&str>,
) -> Result<ScopeFile, InputError> {
    use sha2::{Digest, Sha256};
    let mut digest = String::new();
    let scope = read_document(reader, path, (MAX_SCOPE_BYTES, "scope file"), |bytes| {
        digest = hex::encode(Sha256::digest(bytes));
        let parsed = if checked == Some(digest.as_str()) {
            crate::scope::Scope::reparse(bytes)
        } else {
            crate::scope::Scope::parse(bytes)
        };
        parsed.map_err(|err| (err.line as u64, err.to_string()))
    })?;
    Ok(ScopeFile { scope, digest })
}

/// The error of the scope file at `path` when a tool its policy names looks
/// misspelt ([`crate::scope::Scope::misspelt_tool`]) and the audit's `findings` show
/// it was not called either: `tools: X is not in allowed_tools nor called: did you
/// mean Y?`. The findings are read back only when a tool would be misspelt were it
/// not called; an error reading them back is the I/O error.
pub fn misspelt_tool(
    scope: &crate::scope::Scope,
    findings: &crate::finding::Findings,
    path: &Path,
) -> io::Result<Option<InputError>> {
    let mut outside = std::collections::HashSet::new();
    if scope.misspelt_tool(|_| false).is_some() {
        for finding in findings.iter() {
            outside.insert(finding?.tool);
        }
    }
    Ok(scope
        .misspelt_tool(|tool| outside.contains(tool))
        .map(|(tool, near)| InputError::Invalid {
            path: display(path),
            message: format!(
                "tools: {} is not in allowed_tools nor called: did you mean {}?",
                crate::finding::quote_name(tool),
                crate::finding::quote_name(near)
            ),
        }))
}

/// The format `--from NAME` reads: `auto`, or a format's name.
pub fn source_named(name: &str) -> Option<Source> {
    if name == "auto" {
        return Some(Source::Auto);
    }
    Format::ALL
        .into_iter()
        .find(|format| format.name() == name)
        .map(Source::Named)
}

/// Every name [`source_named`] knows: `auto`, then the formats' names.
pub fn source_names() -> Vec<&'static str> {
    std::iter::once("auto")
        .chain(Format::ALL.into_iter().map(Format::name))
        .collect()
}

/// The hint added to the input error `message` of a file that failed as a
/// transcript, whose `bytes` an import with `--from auto` would read as a log: the
/// message with the `--from` to add, or `None` when no format recognises it.
pub fn with_format_hint(message: &str, bytes: &[u8]) -> Option<String> {
    let format = crate::import::import(bytes, Source::Auto)
        .ok()?
        .format
        .name();
    Some(if format == "sealed" {
        format!(
            "{message}; this is a sealed transcript: add --from sealed to audit it (its chain is checked as it is read)"
        )
    } else {
        format!(
            "{message}; this looks like an agent's log ({format}), not a transcript: add --from {format}"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::{display, read_file, source_named};
    use std::path::Path;

    #[test]
    fn names_are_one_line_that_reads_as_it_is() {
        assert_eq!(display(Path::new("runs/a b.jsonl")), "runs/a b.jsonl");
        assert_eq!(display(Path::new("-")), "<stdin>");
        assert_eq!(display(Path::new("a\nb")), "a\\u000ab");
        assert_eq!(display(Path::new("a\x1b[31mb")), "a\\u001b[31mb");
        assert_eq!(display(Path::new("x\u{202e}lmth.exe")), "x\\u202elmth.exe");
        assert_eq!(display(Path::new("zero\u{200b}width")), "zero\\u200bwidth");
        assert_eq!(display(Path::new("back\\slash é")), "back\\slash é");
    }

    #[test]
    fn errors_are_worded_as_the_command_line_words_them() {
        let Ok(dir) = tempfile::tempdir() else {
            panic!("no temporary folder")
        };
        let missing = dir.path().join("nope.jsonl");
        let err = read_file(&missing, 10, "ten bytes")
            .map(|_| ())
            .map_err(|e| e.to_string());
        assert_eq!(
            err,
            Err(format!("{}: no such file or directory", missing.display()))
        );
        let err = read_file(dir.path(), 10, "ten bytes")
            .map(|_| ())
            .map_err(|e| e.to_string());
        assert_eq!(
            err,
            Err(format!("{}: is a directory", dir.path().display()))
        );
        let big = dir.path().join("big");
        assert!(std::fs::write(&big, [b'x'; 11]).is_ok());
        let err = read_file(&big, 10, "ten bytes")
            .map(|_| ())
            .map_err(|e| e.to_string());
        assert_eq!(
            err,
            Err(format!("{}: larger than ten bytes", big.display()))
        );
        assert!(matches!(
            read_file(&big, 11, "x").as_deref(),
            Ok(b"xxxxxxxxxxx")
        ));
    }

    #[test]
    fn from_names_auto_and_every_format() {
        assert_eq!(source_named("auto"), Some(crate::import::Source::Auto));
        assert_eq!(
            source_named("claude-code")
                .and_then(|s| s.format())
                .map(|f| f.name()),
            Some("claude-code")
        );
        assert_eq!(source_named("Claude-Code"), None);
        assert_eq!(super::source_names().first(), Some(&"auto"));
    }
}
