//! ToolReplay audits the recorded tool calls of an AI agent without calling any tool.
//!
//! The modules follow the specification: [`transcript`] reads JSON Lines strictly
//! through the [`json`] parser, [`canonical`] is the canonical encoding, [`replay`]
//! and [`scope`] are the audits ([`policy`] holds the optional rules of a scope
//! file), [`chain`] is the SHA-256 hash chain, [`report`]
//! renders the text reports, and [`commands`] ties them to files. [`input`] opens
//! files and standard input (with a [`progress`] indicator on a terminal),
//! [`format`](mod@format) renders reports as text, JSON or SARIF, [`color`] colours text
//! reports, [`diff`] compares two runs, [`fingerprint`] names a call whatever its
//! position, and [`shell`] generates completions and the man page.
//!
//! Beyond the chain, [`sealed`] checks a sealed transcript before anything builds on
//! it, [`head`] is the signed statement of its head and pinned heads, and [`trust`]
//! holds the commands that use them; [`append`] grows a sealed transcript; [`sign`]
//! signs and checks head statements in OpenSSH's SSHSIG format, with
//! [`allowed_signers`] read as ssh-keygen reads it.
//!
//! [`import`](mod@import) reads the logs agents write (Claude Code sessions, OpenAI and
//! Anthropic conversations, MCP JSON-RPC logs) into transcripts.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod allowed_signers;
pub mod append;
pub mod atomic;
pub mod batch;
pub mod canonical;
pub mod chain;
pub mod color;
pub mod commands;
pub mod diff;
pub mod error;
pub mod fingerprint;
pub mod format;
pub mod head;
pub mod import;
pub mod input;
pub mod json;
pub mod pipeline;
pub mod policy;
pub mod progress;
pub mod replay;
pub mod report;
mod scan;
pub mod scope;
pub mod sealed;
pub mod shell;
pub mod sign;
pub mod spool;
pub mod transcript;
pub mod trust;

pub use error::Error;
