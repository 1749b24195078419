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
//! use toolreplay_core::{ReplayOptions, Scope, Stop, Threads, Verdict, audit_replay, check_sealed, seal};
//!
//! let transcript = "\
//! {\"index\": 0, \"tool\": \"read_file\", \"args\": {\"path\": \"a.md\"}, \"response\": {\"text\": \"A\"}}
//! {\"index\": 1, \"tool\": \"read_file\", \"args\": {\"path\": \"a.md\"}, \"response\": {\"text\": \"A\"}}
//! {\"index\": 2, \"tool\": \"send_email\", \"args\": {\"to\": \"x\"}, \"response\": {}}
//! ";
//!
//! // Replay: identical calls with different answers, repeats with nothing changed.
//! let options = ReplayOptions { mutating: ["send_email".to_owned()].into(), ..ReplayOptions::default() };
//! let report = audit_replay(transcript.as_bytes(), &options, Threads::default())?;
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
//! seal(transcript.as_bytes(), Threads::default(), |lines| {
//!     sealed_bytes.extend_from_slice(lines.as_ref());
//!     Ok::<(), std::convert::Infallible>(())
//! })
//! .map_err(Stop::into_read_error)?;
//! let checked = check_sealed(&sealed_bytes[..], None, Threads::default())?;
//! assert!(matches!(checked.verdict, Verdict::Intact { links: 3, .. }));
//!
//! let tampered = String::from_utf8(sealed_bytes)?.replace("\"to\":\"x\"", "\"to\":\"y\"");
//! let checked = check_sealed(tampered.as_bytes(), None, Threads::default())?;
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

mod allowed_signers;
mod canonical;
mod chain;
mod diff;
mod error;
mod finding;
mod fingerprint;
mod graph;
mod head;
mod import;
mod json;
mod lines;
mod live;
mod pipeline;
mod policy;
mod replay;
mod scan;
mod scope;
mod sealed;
mod sign;
mod sshsig;
mod suggest;
mod transcript;

pub use allowed_signers::{AllowedKey, entries_for as allowed_signers_for, match_pattern_list};
pub use canonical::encode as encode_canonical;
pub use chain::{BrokenField, GENESIS, Sealer, UnsealedLink, Verdict, Verifier, stated_digest};
pub use diff::{
    AllDifferences, At as DiffAt, DiffError, DiffReport, Difference, Side as DiffSide,
    compare_all as diff_all,
};
pub use error::{LineError, ReadError};
pub use finding::{
    Finding, FindingKind, Findings, SensitiveResponse, finding_message, push_u64, quote_name,
    shown_field, write_finding_message,
};
pub use graph::{
    Graph, Node as GraphNode, Roles, Transcript as GraphTranscript, build as build_graph,
    read as read_graph_transcript,
};
pub use head::{
    HeadVerdict, MAX_HEAD_BYTES, ORIGIN as HEAD_ORIGIN, Pin, compare as compare_head, is_digest,
    parse_pin, statement as head_statement,
};
pub use import::{
    Format as ImportFormat, ImportError, Imported, MAX_IMPORT_BYTES, Source as ImportSource,
    Subagent, import as import_log, import_with_subagents as import_log_with_subagents,
    summary as import_summary, write_record as write_imported_record,
    write_transcript as write_imported_transcript,
};
pub use json::{
    Value, decode_document as decode_json_document, member as json_member, parse as parse_json,
};
pub use lines::{Lines, line_text};
pub use live::{Live, LiveState, Outcome as LiveOutcome, Ready};
pub use pipeline::{MAX_THREADS, Stop, Threads, run as run_pipeline};
pub use policy::Policy;
pub use replay::{
    Options as ReplayOptions, Replay, ReplayReport, audit_with as audit_replay,
    fingerprints as replay_fingerprints,
};
pub use scope::Session;
pub use scope::{Scope, ScopeReport};
pub use sealed::{
    Buffers as SealBuffers, Checked, Head, check as check_sealed, seal, seal_reusing,
};
pub use sign::{
    Key as SigningKey, KeyError as SigningKeyError, NAMESPACE as SIGNATURE_NAMESPACE,
    SignatureError, SignatureVerdict, Untrusted, check as check_signature, sign as sign_message,
};
pub use sshsig::{
    BEGIN as SSHSIG_BEGIN, END as SSHSIG_END, Ed25519, Hash as SshsigHash,
    Signature as SshSignature, VERSION as SSHSIG_VERSION, armor as armor_sshsig, base64_decode,
    base64_encode, base64_encode_wrapped, dearmor as dearmor_sshsig, public_key as ssh_public_key,
    put_string as put_ssh_string,
};
pub use transcript::{
    CanonicalRecordRef, Links, Record, UnplacedRecord, for_each_record, parse_canonical_record,
    parse_link, parse_record, parse_unplaced_with,
};

// Test support for the integration tests and the fuzz targets (feature `testing`).
#[cfg(feature = "testing")]
pub use json::{FieldValue, ObjectError, canonicalize as canonicalize_json, parse_fields_in};
#[cfg(feature = "testing")]
pub use transcript::Records;
