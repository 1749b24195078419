//! ToolReplay audits the recorded tool calls of an AI agent without calling any tool.
//!
//! The modules follow the specification: [`transcript`] reads JSON Lines strictly
//! through the [`json`] parser, [`canonical`] is the canonical encoding, [`replay`]
//! and [`scope`] are the audits, [`chain`] is the SHA-256 hash chain, [`report`]
//! renders the text reports, and [`commands`] ties them to files. [`input`] opens
//! files and standard input (with a [`progress`] indicator on a terminal),
//! [`format`](mod@format) renders reports as text, JSON or SARIF, [`color`] colours text
//! reports, [`diff`] compares two runs, [`fingerprint`] names a call whatever its
//! position, and [`shell`] generates completions and the man page.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod canonical;
pub mod chain;
pub mod color;
pub mod commands;
pub mod diff;
pub mod error;
pub mod fingerprint;
pub mod format;
pub mod input;
pub mod json;
pub mod progress;
pub mod replay;
pub mod report;
pub mod scope;
pub mod shell;
pub mod spool;
pub mod transcript;

pub use error::Error;
