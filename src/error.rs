//! The one error of the binary: every command, the guard and the proxy stop with an
//! [`Error`], which knows its one-line message and its exit status. Most are one
//! `error: ...` line and exit 2; a broken chain that a command would build on is its
//! report and exit 1 ([`Error::Refused`]). The guard and the proxy tell the agent or
//! the MCP client what their protocols require, and use the same errors for it.

use std::io;
use std::path::Path;

use toolreplay_core::ReadError;
use toolreplay_core::Verdict;
use toolreplay_core::input::InputError;
use toolreplay_core::quote_name;

use crate::naming::display;
use crate::render::color::Paint;

/// An error that stops a command; shown as one `error: ...` line.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// An input that could not be read or is not what it must be: a line of it, the
    /// file, or what was read of it.
    #[error(transparent)]
    Input(#[from] InputError),
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
    /// A sealed transcript stayed locked by another writer for `seconds`.
    #[error("{path}: the session is locked by another process for more than {seconds} seconds")]
    Locked {
        /// The lock file, as named in messages.
        path: String,
        /// How long it was waited for.
        seconds: u64,
    },
    /// A file could not be made, moved or changed: what was being done (with the
    /// path), and why.
    #[error("cannot {what}: {}", describe_io(.source))]
    Io {
        /// What was being done, with the path.
        what: String,
        /// Why.
        source: io::Error,
    },
    /// A session file's chain is broken at a link.
    #[error(
        "{path}: the chain is broken at link {position} (line {line}, tool {}): its {field} does not check out",
        quote_name(.tool)
    )]
    Broken {
        /// The session file.
        path: String,
        /// The 0-based position of the first broken link.
        position: u64,
        /// Its 1-based line.
        line: u64,
        /// Its tool.
        tool: String,
        /// The field that does not check out: `prev` or `digest`.
        field: &'static str,
    },
    /// An agent's hook event is not what its protocol says.
    #[error("malformed hook event: {0}")]
    Event(String),
    /// The policy file of the guard could not be read or used.
    #[error("policy {0}")]
    Policy(Box<Error>),
    /// The live engine refused what it was asked (a call completed twice).
    #[error("{0}")]
    Live(#[from] toolreplay_core::LiveError),
    /// A live session cannot go on: every later call is refused, for this reason.
    #[error("{0}")]
    Unrecorded(String),
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
    /// A command failed in a way it should not be able to: one of its threads
    /// panicked.
    #[error("{0}")]
    Internal(&'static str),
}

impl Error {
    /// The error of a temporary file that output was held back in.
    pub(crate) fn temporary(source: io::Error) -> Error {
        Error::Write {
            target: "a temporary file".to_owned(),
            source,
        }
    }

    /// The error of writing to the file at `path`.
    pub(crate) fn writing(path: &Path, source: io::Error) -> Error {
        Error::Write {
            target: display(path),
            source,
        }
    }

    /// The error of an input at `path` that could not be read or parsed.
    pub(crate) fn reading(path: &Path, err: ReadError) -> Error {
        InputError::reading(path, err).into()
    }

    /// The exit status of a command this stopped: 1 for a refused broken chain
    /// (the audit found it), 2 for everything else (the command could not run).
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            Error::Refused { .. } => 1,
            _ => 2,
        }
    }

    /// Tells what stopped the command on stderr: its report for a refused broken
    /// chain, else one `error: ...` line.
    pub(crate) fn tell(&self, out: &mut dyn io::Write) {
        // If stderr is gone there is nobody left to tell.
        let _ = match self {
            Error::Refused { .. } => writeln!(out, "{self}"),
            _ => writeln!(out, "error: {self}"),
        };
    }
}

pub(crate) use toolreplay_core::input::describe_io;
