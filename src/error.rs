//! The errors that stop a command: one `error: ...` line and exit status 2, or, for a
//! broken chain that a command would build on, its report and exit status 1.

use std::io::{self, Write as _};
use std::process::ExitCode;

use toolreplay_core::Verdict;

use crate::render::color::Paint;

/// An error that stops a command; shown as one `error: ...` line.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input is not valid: the file, its 1-based physical line, and what is wrong.
    #[error("{path}:{line}: {message}")]
    Input {
        /// The path as given.
        path: String,
        /// The 1-based physical line.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// A file could not be opened or read.
    #[error("{path}: {}", describe_io(.source))]
    Read {
        /// The path as given.
        path: String,
        /// Why.
        source: io::Error,
    },
    /// A file was read but is not what it must be (a key, a signature, a pinned head).
    #[error("{path}: {message}")]
    Invalid {
        /// The path as given.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The sealed transcript's chain is broken, so the command will not go on: the
    /// `verify` report of the verdict, then what was refused. Exit status 1, not 2.
    #[error("{}refused: {path}: the chain is broken; {refused}", crate::render::text::verify(.verdict, Paint::PLAIN))]
    Refused {
        /// The verdict on the chain: broken.
        verdict: Box<Verdict>,
        /// The sealed transcript, as named in messages.
        path: String,
        /// What was not done.
        refused: &'static str,
    },
    /// A sealed transcript stayed locked by another writer.
    #[error("{0}")]
    Locked(String),
    /// The arguments cannot work together.
    #[error("{0}")]
    Usage(String),
    /// Output could not be written.
    #[error("cannot write {target}: {}", describe_io(.source))]
    Write {
        /// Where the output was going.
        target: String,
        /// Why.
        source: io::Error,
    },
}

impl Error {
    /// The error of a temporary file that output was held back in.
    pub fn temporary(source: io::Error) -> Error {
        Error::Write {
            target: "a temporary file".to_owned(),
            source,
        }
    }

    /// The error of writing to the file at `path`.
    pub fn writing(path: &std::path::Path, source: io::Error) -> Error {
        Error::Write {
            target: crate::naming::display(path),
            source,
        }
    }

    /// The error of an input at `path` that could not be read or parsed.
    pub fn reading(path: &std::path::Path, err: toolreplay_core::ReadError) -> Error {
        let path = crate::naming::display(path);
        match err {
            toolreplay_core::ReadError::Io(source) => Error::Read { path, source },
            toolreplay_core::ReadError::Input(err) => Error::Input {
                path,
                line: err.line,
                message: err.message,
            },
        }
    }
}

/// Tells what stopped the command on stderr, and gives its exit status.
pub fn report(err: &Error) -> ExitCode {
    // If stderr is gone there is nobody left to tell.
    let mut stderr = io::stderr().lock();
    if let Error::Refused { .. } = err {
        let _ = writeln!(stderr, "{err}");
        return ExitCode::from(1);
    }
    let _ = writeln!(stderr, "error: {err}");
    ExitCode::from(2)
}

/// An I/O error's message without the trailing `(os error N)`.
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
