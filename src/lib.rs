//! ToolReplay audits the recorded tool calls of an AI agent without calling any tool.
//!
//! The modules follow the specification: [`transcript`] reads JSON Lines strictly
//! through the [`json`] parser, [`canonical`] is the canonical encoding, [`replay`]
//! and [`scope`] are the audits, [`chain`] is the SHA-256 hash chain, [`report`]
//! renders the text reports, and [`commands`] ties them to files.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod canonical;
pub mod chain;
pub mod commands;
pub mod error;
pub mod fingerprint;
pub mod json;
pub mod replay;
pub mod report;
pub mod scope;
pub mod spool;
pub mod transcript;

pub use error::Error;
