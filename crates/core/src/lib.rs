//! The audits of ToolReplay as a library.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod allowed_signers;
pub mod canonical;
pub mod chain;
pub mod diff;
pub mod error;
pub mod finding;
pub mod fingerprint;
pub mod head;
pub mod import;
pub mod json;
pub mod live;
pub mod pipeline;
pub mod policy;
pub mod replay;
mod scan;
pub mod scope;
pub mod sealed;
pub mod sign;
pub mod sshsig;
pub mod transcript;
