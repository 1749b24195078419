//! The audits of ToolReplay as a library: readers and bytes in, typed values out,
//! typed errors. It knows nothing of the terminal: no arguments, no printing, no exit
//! statuses, no prompts; the `toolreplay` binary adds those, and the names of files.
//!
//! A transcript is JSON Lines, one record a line:
//! `{"index": N, "tool": "...", "args": {...}, "response": {...}}` (the
//! specification's section 1). Every audit streams it, parsing lines on a few
//! threads ([`pipeline`]) and taking records in order:
//!
//! ```
//! use toolreplay_core::{Scope, chain::Verdict, pipeline::Threads, replay, sealed};
//!
//! let transcript = "\
//! {\"index\": 0, \"tool\": \"read_file\", \"args\": {\"path\": \"a.md\"}, \"response\": {\"text\": \"A\"}}
//! {\"index\": 1, \"tool\": \"read_file\", \"args\": {\"path\": \"a.md\"}, \"response\": {\"text\": \"A\"}}
//! {\"index\": 2, \"tool\": \"send_email\", \"args\": {\"to\": \"x\"}, \"response\": {}}
//! ";
//!
//! // Replay: identical calls with different answers, repeats with nothing changed.
//! let report = replay::audit(transcript.as_bytes(), ["send_email"], Threads::default())?;
//! assert_eq!(report.calls, 3);
//! assert_eq!(report.findings.to_vec()?[0].kind.name(), "redundant-call");
//!
//! // Scope: calls outside the declared tools (and, with a policy, its rules).
//! let scope = Scope::parse(br#"{"agent": "docs", "allowed_tools": ["read_file"]}"#)?;
//! let report = scope.audit(transcript.as_bytes(), Threads::default())?;
//! let findings = report.findings.to_vec()?;
//! assert_eq!((findings[0].index, findings[0].kind.name()), (2, "permission-overreach"));
//!
//! // Seal: a SHA-256 chain, one link a record, handed over a block of lines at a time;
//! // verify: the first broken link.
//! let mut sealed_bytes = Vec::new();
//! sealed::seal(transcript.as_bytes(), Threads::default(), |lines| {
//!     sealed_bytes.extend_from_slice(lines.as_ref());
//!     Ok::<(), std::convert::Infallible>(())
//! })
//! .map_err(toolreplay_core::pipeline::Stop::into_read_error)?;
//! let checked = sealed::check(&sealed_bytes[..], None, Threads::default())?;
//! assert!(matches!(checked.verdict, Verdict::Intact { links: 3, .. }));
//!
//! let tampered = String::from_utf8(sealed_bytes)?.replace("\"to\":\"x\"", "\"to\":\"y\"");
//! let checked = sealed::check(tampered.as_bytes(), None, Threads::default())?;
//! assert!(matches!(checked.verdict, Verdict::Broken { position: 2, .. }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What each module owns
//!
//! - Reading: [`json`] (the strict parser, trees and canonical writing),
//!   [`canonical`] (the canonical encoding of spec section 2), [`transcript`]
//!   (records and links, line by line, and [`transcript::for_each_record`]),
//!   [`pipeline`] (parallel parsing in order), [`error`] (where an input is wrong).
//! - Audits: [`replay`], [`scope`] (the declared tools, and one call at a time in
//!   [`scope::Session`]), [`policy`] (argument rules, budgets, flows and the
//!   response detectors), [`finding`] (findings as data, and their words),
//!   [`fingerprint`], [`diff`] (two runs compared).
//! - The chain: [`chain`] (links and their digests), [`sealed`] (sealing a
//!   transcript, and the one reader of sealed transcripts), [`head`] (head
//!   statements and pinned heads), [`sign`], [`sshsig`] and [`allowed_signers`]
//!   (SSH signatures as `ssh-keygen -Y verify` judges them).
//! - Agents' logs: [`import`].
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod allowed_signers;
pub mod canonical;
pub mod chain;
pub mod diff;
pub mod error;
pub mod finding;
pub mod fingerprint;
pub mod graph;
pub mod head;
pub mod import;
pub mod json;
mod lines;
pub mod live;
pub mod pipeline;
pub mod policy;
pub mod replay;
mod scan;
pub mod scope;
pub mod sealed;
pub mod sign;
pub mod sshsig;
pub mod suggest;
pub mod transcript;

pub use chain::{Sealer, Verdict, Verifier};
pub use error::{LineError, ReadError};
pub use finding::{Finding, FindingKind};
pub use replay::{Replay, ReplayReport};
pub use scope::{Scope, ScopeReport, Session};
pub use sealed::{Checked, Head};
