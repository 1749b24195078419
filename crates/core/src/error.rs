//! The errors of reading: what is wrong, and where (a 1-based line), without knowing
//! the input's name; the caller adds the path.

use std::io;

/// An input error: what is wrong, on which 1-based physical line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct LineError {
    /// The 1-based physical line number.
    pub line: u64,
    /// What is wrong there.
    pub message: String,
}

impl LineError {
    /// The error `message` on line `line`.
    pub fn new(line: u64, message: impl Into<String>) -> LineError {
        LineError {
            line,
            message: message.into(),
        }
    }
}

/// Why an input could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The bytes could not be read at all.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The bytes were read but are not valid.
    #[error(transparent)]
    Input(#[from] LineError),
}
