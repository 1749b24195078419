//! The audits of ToolReplay as a library: readers and bytes in, typed values out,
//! typed errors. It knows nothing of the terminal: no arguments, no printing, no exit
//! statuses, no prompts; the `toolreplay` binary adds those, and the names of files.
//!
//! A transcript is JSON Lines, one record a line:
//! `{"index": N, "tool": "...", "args": {...}, "response": {...}}` (the
//! specification's section 1). Every audit streams it, parsing lines on a few
//! threads, as many as the [`Threads`] it is given, and taking records in order.
//!
//! # The interface
//!
//! Every item is at the crate root. The entry points, what each takes and gives:
//!
//! 1. **Replay**: [`audit_replay`] takes a reader of a transcript, [`ReplayOptions`]
//!    and [`Threads`], and gives a [`ReplayReport`] (calls, divergence, findings:
//!    `non-determinism`, `redundant-call`). [`Replay`] takes one call at a time
//!    (its fingerprints, [`replay_fingerprints`], computed ahead where it suits).
//! 2. **Scope**: [`Scope::parse`] takes the bytes of a scope file and gives a
//!    [`Scope`] (with its [`Policy`], if any); [`Scope::audit`] takes a reader and
//!    [`Threads`] and gives a [`ScopeReport`] (`permission-overreach` and the policy's
//!    findings). [`Session`] decides one call at a time, before it runs.
//! 3. **Findings**: [`Finding`] (index, tool, line, call digest, [`FindingKind`]);
//!    [`Findings`], a report's store of them; [`finding_message`] and
//!    [`write_finding_message`] give a finding's words; [`quote_name`],
//!    [`shown_field`] and [`push_u64`] write names, fields and numbers as reports do.
//! 4. **Seal and verify**: [`seal`] (and [`seal_reusing`] with [`SealBuffers`])
//!    takes a reader of a transcript, [`Threads`] and a sink, and hands the sink
//!    blocks of sealed lines; [`check_sealed`] takes a reader of a sealed transcript,
//!    a digest to look for and [`Threads`], and gives [`Checked`]: a [`Verdict`]
//!    (intact with its [`Head`], or broken at a link, [`BrokenField`]). [`Sealer`],
//!    [`UnsealedLink`], [`Verifier`], [`stated_digest`] and [`GENESIS`] are the chain
//!    one link at a time.
//! 5. **Heads**: [`head_statement`] takes a [`Head`] and gives its statement;
//!    [`parse_pin`] takes a statement or a digest and gives a [`Pin`];
//!    [`compare_head`] takes a pin, a head and where the pinned digest was found,
//!    and gives a [`HeadVerdict`]. [`is_digest`], [`MAX_HEAD_BYTES`] and
//!    [`HEAD_ORIGIN`] go with them.
//! 6. **Signatures**: [`sign_message`] takes a [`SigningKey`] and a message and gives
//!    an armored SSH signature; [`check_signature`] takes it, an allowed signers file
//!    and an identity, and gives a [`SignatureVerdict`] ([`Untrusted`] says why not)
//!    or a [`SignatureError`], as `ssh-keygen -Y verify` judges them. Below them, the
//!    SSHSIG format ([`SshSignature`], [`armor_sshsig`], [`dearmor_sshsig`],
//!    [`ssh_public_key`], [`base64_encode`]) and the allowed signers file
//!    ([`allowed_signers_for`], [`match_pattern_list`]). Attestations:
//!    [`attestation_statement`] takes the sealed file's name and SHA-256 and a
//!    [`SessionPredicate`] and gives an in-toto statement; [`sign_attestation`]
//!    signs it in a DSSE envelope; [`check_attestation`] takes the envelope, an
//!    allowed signers file, an identity (or none), the file's SHA-256 and its
//!    verified [`Head`], and gives an [`AttestationVerdict`] (doctest on the
//!    `attest` module's items: [`dsse_pae`]).
//! 7. **Imports**: [`import_log`] (and [`import_log_beside`], given what is found
//!    beside a session: its subagents' logs and its results kept in files, see
//!    [`Beside`]) takes the bytes of an agent's log and an [`ImportSource`], and gives
//!    [`Imported`] (the format, the calls, the warnings, the conversation) or an
//!    [`ImportError`]; [`write_imported_transcript`] writes the calls as a transcript.
//! 8. **Diff**: [`diff_all`] takes two readers of runs and how many differences to
//!    keep, and gives [`AllDifferences`] (a [`DiffReport`] and each [`Difference`])
//!    or a [`DiffError`] naming the [`DiffSide`].
//! 9. **Graph**: [`read_graph_transcript`] takes a reader of a transcript, plain or
//!    sealed, and gives a [`GraphTranscript`]; [`build_graph`] takes it, [`Roles`] and
//!    a [`Scope`], if any, and gives the evidence [`Graph`].
//! 10. **Live session**: [`Live`] takes a [`Scope`], decides each call as it is made
//!     and seals it once its [`LiveOutcome`] is known, in order ([`Ready`] lines);
//!     [`LiveState`] is what a short-lived process keeps between calls;
//!     [`Reconcile`] rebuilds a session from its sealed links and carries a saved
//!     state's pending calls over ([`Reconciled`] says how).
//! 11. **Reconcile**: [`reconcile_calls`] takes a sealed session's records, the
//!     calls of the agent's own log (as [`import_log`] reads them) and a
//!     [`ReconcileAgent`] (the projection that makes the hook's and the log's forms
//!     comparable), aligns them and gives a [`ReconcileReport`]: each
//!     [`LogDifference`] ([`LogDifferenceKind`]) with both sides' index. Its doctest
//!     is on the function.
//! 12. **JSON and the canonical encoding**: [`parse_json`] takes a JSON text and
//!     gives a [`Value`] (strictly: duplicate keys, lone surrogates and too deep
//!     nesting are errors); [`encode_canonical`] gives its canonical encoding (spec
//!     section 2); [`json_member`] and [`decode_json_document`] go with them.
//! 13. **Reading**: [`for_each_record`] takes a reader, [`Threads`], a function made
//!     on the parsing threads and a visitor, and visits every record in order;
//!     [`parse_record`], [`parse_canonical_record`], [`parse_unplaced_with`] and
//!     [`parse_link`] read one line; [`Links`] and [`Lines`] read line by line;
//!     [`run_pipeline`] runs any line parser on [`Threads`] in order. Errors are
//!     [`ReadError`] and [`LineError`] (what is wrong on which line); a pipeline
//!     stops with [`Stop`].
//! 14. **Held-back bytes**: [`Spill`] keeps bytes in memory up to a limit and in an
//!     anonymous temporary file beyond it, read back in order by [`SpillReader`]:
//!     the store of [`Findings`], and the binary's held-back output (its doctest is
//!     on the type).
//! 15. **OpenTelemetry**: [`export_otlp`] takes a [`GraphTranscript`], a
//!     [`Scope`], if any, and [`OtlpOptions`], and gives the OTLP/JSON request of one
//!     `execute_tool` span per record; [`OtlpSpans`] makes the same spans one record at
//!     a time and [`otlp_request`] wraps them (docs/otel.md).
//! 16. **Claims**: [`Claims`] takes a conversation's [`Message`]s (each prompt and
//!     answer placed after a call's index: a live session's context file gives them,
//!     [`ContextFile::messages`], and an import of an agent's log,
//!     [`Imported::messages`]) and [`Roles`], then each call in order, and gives a
//!     [`ClaimsReport`]: each [`Claim`] of a turn's final answer, its atoms
//!     ([`ClaimAtom`]) with their evidence ([`ClaimSupport`]) and its
//!     [`ClaimVerdict`]; [`check_claims`] streams a transcript or sealed transcript
//!     through it. The rules and word lists are documented on the `claims` module's
//!     items and in docs/graph.md (doctest on [`Claims`]).
//! 17. **JSON reports**: [`write_replay_json`], [`write_scope_json`],
//!     [`verify_json`] ([`VerifyJsonChecks`]) and [`claims_json`] take an audit's
//!     report and the input's name and give the `--format json` report, the same
//!     bytes in every front end ([`JsonConfiguration`] names a configuration file
//!     that set some inputs); [`json_document`], [`pretty_json_into`] and
//!     [`write_json_document_with_array`] ([`JsonPlaceholder`]) write documents as
//!     they do (doctests on the `report` module and [`verify_json`]).
//!
//! ## 1. Replay
//!
//! ```
//! use toolreplay_core::{ReplayOptions, Threads, audit_replay};
//!
//! let transcript = "\
//! {\"index\": 0, \"tool\": \"read_file\", \"args\": {\"path\": \"a.md\"}, \"response\": {\"text\": \"A\"}}
//! {\"index\": 1, \"tool\": \"read_file\", \"args\": {\"path\": \"a.md\"}, \"response\": {\"text\": \"B\"}}
//! ";
//! let report = audit_replay(transcript.as_bytes(), &ReplayOptions::default(), Threads::default())?;
//! assert_eq!((report.calls, report.divergence), (2, Some(1)));
//! let kinds: Vec<_> = report.findings.iter().map(|f| f.map(|f| f.kind.name())).collect::<Result<_, _>>()?;
//! assert_eq!(kinds, ["non-determinism", "redundant-call"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## 2. Scope
//!
//! ```
//! use toolreplay_core::{Scope, Threads, finding_message};
//!
//! let scope = Scope::parse(br#"{"agent": "docs", "allowed_tools": ["read_file"]}"#)?;
//! let transcript = "{\"index\": 0, \"tool\": \"send_email\", \"args\": {}, \"response\": {}}\n";
//! let report = scope.audit(transcript.as_bytes(), Threads::default())?;
//! let findings = report.findings.to_vec()?;
//! assert_eq!(
//!     finding_message(&findings[0], &report.agent),
//!     "tool 'send_email' is not in the declared scope for agent 'docs'"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! One call at a time, before it runs, with [`Session`]:
//!
//! ```
//! use toolreplay_core::{Scope, Session, parse_json};
//!
//! let scope = Scope::parse(br#"{"agent": "docs", "allowed_tools": ["read_file"]}"#)?;
//! let mut session = Session::new(&scope);
//! assert!(session.decide("read_file", &parse_json("{}")?).is_allowed());
//! assert!(!session.decide("send_email", &parse_json("{}")?).is_allowed());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## 3. Findings
//!
//! ```
//! use toolreplay_core::{Finding, FindingKind, Findings, finding_message, quote_name};
//!
//! let mut findings = Findings::new();
//! findings.push(&Finding {
//!     index: 3,
//!     tool: "run".to_owned(),
//!     kind: FindingKind::PermissionOverreach,
//!     line: 4,
//!     call: [0; 32],
//! });
//! let back = findings.to_vec()?;
//! assert_eq!(finding_message(&back[0], "bot"), "tool 'run' is not in the declared scope for agent 'bot'");
//! assert_eq!(quote_name("a'b"), r"'a\'b'");
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! ## 4. Seal and verify
//!
//! ```
//! use toolreplay_core::{Stop, Threads, Verdict, check_sealed, seal};
//!
//! let transcript = "\
//! {\"index\": 0, \"tool\": \"search\", \"args\": {\"q\": \"x\"}, \"response\": {}}
//! {\"index\": 1, \"tool\": \"send_email\", \"args\": {\"to\": \"x\"}, \"response\": {}}
//! ";
//! let mut sealed = Vec::new();
//! seal(transcript.as_bytes(), Threads::default(), |lines| {
//!     sealed.extend_from_slice(lines.as_ref());
//!     Ok::<(), std::convert::Infallible>(())
//! })
//! .map_err(Stop::into_read_error)?;
//! let checked = check_sealed(&sealed[..], None, Threads::default())?;
//! assert!(matches!(checked.verdict, Verdict::Intact { links: 2, .. }));
//!
//! let tampered = String::from_utf8(sealed)?.replace("\"to\":\"x\"", "\"to\":\"y\"");
//! let checked = check_sealed(tampered.as_bytes(), None, Threads::default())?;
//! assert!(matches!(checked.verdict, Verdict::Broken { position: 1, .. }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## 5. Heads
//!
//! ```
//! use toolreplay_core::{Head, HeadVerdict, compare_head, head_statement, parse_pin};
//!
//! let head = Head { links: 2, digest: "ab".repeat(32) };
//! let statement = head_statement(&head);
//! let pin = parse_pin(statement.as_bytes())?;
//! assert_eq!(compare_head(&pin, &head, Some(2)), HeadVerdict::Matches);
//! # Ok::<(), toolreplay_core::LineError>(())
//! ```
//!
//! ## 6. Signatures
//!
//! ```
//! use ssh_key::{LineEnding, PrivateKey, private::Ed25519Keypair};
//! use toolreplay_core::{SignatureVerdict, SigningKey, check_signature, sign_message};
//!
//! let private = PrivateKey::from(Ed25519Keypair::from_seed(&[7; 32]));
//! let key = SigningKey::parse(&private.to_openssh(LineEnding::LF)?)?;
//! let statement = b"toolreplay head\n1\n...\n";
//! let armored = sign_message(&key, statement)?;
//!
//! let signers = format!("ana@example.com {}\n", private.public_key().to_openssh()?);
//! let verdict = check_signature(&armored, &signers, "ana@example.com", statement)?;
//! assert!(matches!(verdict, SignatureVerdict::Good { .. }));
//! let verdict = check_signature(&armored, &signers, "ana@example.com", b"another statement")?;
//! assert_eq!(verdict, SignatureVerdict::DoesNotSign);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## 7. Imports
//!
//! ```
//! use toolreplay_core::{ImportFormat, ImportSource, import_log, write_imported_transcript};
//!
//! let log = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":1}}}
//! {"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
//! let imported = import_log(log, ImportSource::Auto)?;
//! assert_eq!((imported.format, imported.detected), (ImportFormat::Mcp, true));
//! let mut transcript = Vec::new();
//! write_imported_transcript(&imported.calls, &mut transcript);
//! assert_eq!(
//!     String::from_utf8(transcript)?,
//!     "{\"index\":0,\"tool\":\"echo\",\"args\":{\"x\":1},\"response\":{\"content\":[]}}\n"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## 8. Diff
//!
//! ```
//! use std::io::BufRead;
//! use toolreplay_core::diff_all;
//!
//! let a = "{\"index\": 0, \"tool\": \"search\", \"args\": {\"q\": 1}, \"response\": {}}\n";
//! let b = "{\"index\": 0, \"tool\": \"search\", \"args\": {\"q\": 2}, \"response\": {}}\n";
//! let reader = |text: &'static str| -> Box<dyn BufRead> { Box::new(text.as_bytes()) };
//! let all = diff_all(reader(a), reader(b), 10)?;
//! assert_eq!((all.report.calls_a, all.report.calls_b, all.differences.len()), (1, 1, 1));
//! # Ok::<(), toolreplay_core::DiffError>(())
//! ```
//!
//! ## 9. Graph
//!
//! ```
//! use toolreplay_core::{ReplayOptions, Roles, build_graph, read_graph_transcript};
//!
//! let transcript = "\
//! {\"index\": 0, \"tool\": \"Read\", \"args\": {\"file_path\": \"/src/a.rs\"}, \"response\": {}}
//! {\"index\": 1, \"tool\": \"Edit\", \"args\": {\"file_path\": \"/src/a.rs\"}, \"response\": {}}
//! ";
//! let transcript = read_graph_transcript(transcript.as_bytes())?;
//! let graph = build_graph(&transcript, &Roles::builtin(), None, &ReplayOptions::default())?;
//! assert_eq!(graph.summary.calls, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## 10. Live session
//!
//! ```
//! use toolreplay_core::{Live, LiveOutcome, Scope, parse_json};
//!
//! let scope = Scope::parse(br#"{"agent": "coder", "allowed_tools": ["Read"]}"#)?;
//! let mut live = Live::new(&scope);
//! let (decision, _) = live.decide(Some("toolu_1"), "Read", &parse_json("{}")?);
//! assert!(decision.is_allowed());
//! let (_, ready) = live.complete(decision.index, LiveOutcome::Response(parse_json("{}")?)).expect("pending");
//! assert_eq!(ready.links, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## 12. JSON and the canonical encoding
//!
//! ```
//! use toolreplay_core::{encode_canonical, parse_json};
//!
//! let value = parse_json(r#"{"b": 1.0, "a": "é"}"#)?;
//! assert_eq!(encode_canonical(&value), br#"{"a":"\u00e9","b":1.0}"#);
//! assert!(parse_json(r#"{"a": 1, "a": 2}"#).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## 13. Reading
//!
//! ```
//! use toolreplay_core::{Stop, Threads, for_each_record};
//!
//! let transcript = "{\"index\": 0, \"tool\": \"search\", \"args\": {\"q\": 1}, \"response\": {}}\n";
//! let mut seen = Vec::new();
//! for_each_record(
//!     transcript.as_bytes(),
//!     Threads::new(2),
//!     |record| record.args.len(),
//!     |line, index, tool, args_len| {
//!         seen.push((line, index, tool.to_owned(), args_len));
//!         Ok::<(), std::convert::Infallible>(())
//!     },
//! )
//! .map_err(Stop::into_read_error)?;
//! assert_eq!(seen, [(1, 0, "search".to_owned(), 7)]);
//! # Ok::<(), toolreplay_core::ReadError>(())
//! ```
//!
//! # The modules, in layers
//!
//! Private; each uses only those listed before it. `error`, `scan`, `suggest`,
//! `spill` (bytes in memory, then in a temporary file) and `lines` (the lines of an
//! input); `canonical` and `json/` (parsing and writing
//! JSON); `fingerprint`; `pipeline` (parsing on a few threads, in order);
//! `transcript` (records and links); `finding/` (the types, their words, the store and
//! its codec); `chain` and `sealed`; `head`, `sshsig`, `allowed_signers`, `sign` and `attest`;
//! `policy/`, `scope/` (with its `Session`) and `replay`; `diff`, `import/`, `live`,
//! `reconcile`, `graph/` and `claims` (which `context` and `graph/` read); `otlp`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod allowed_signers;
mod attest;
mod call_ids;
mod canonical;
mod chain;
// Public, and exported only with the `testing` feature: its `atoms` and `sentences`.
#[cfg_attr(not(feature = "testing"), allow(unreachable_pub))]
mod claims;
mod context;
mod diff;
mod error;
mod finding;
mod fingerprint;
mod graph;
mod head;
mod import;
pub mod input;
mod json;
mod lines;
mod live;
mod otlp;
mod percent;
mod pipeline;
mod policy;
mod reconcile;
mod replay;
mod report;
mod scan;
mod scope;
mod sealed;
mod sign;
mod spill;
// Public, and exported only with the `testing` feature: its building blocks.
#[cfg_attr(not(feature = "testing"), allow(unreachable_pub))]
mod sshsig;
mod suggest;
mod transcript;

// The public interface: what the binary, the tests, the benchmarks and the fuzz
// targets use, one path an item (see the crate docs above).
pub use allowed_signers::{AllowedKey, entries_for as allowed_signers_for, match_pattern_list};
pub use attest::{
    AttestationError, AttestationVerdict, Envelope as DsseEnvelope,
    EnvelopeSignature as DsseSignature, FindingCounts, PAYLOAD_TYPE as DSSE_PAYLOAD_TYPE,
    PREDICATE_TYPE as ATTESTATION_PREDICATE_TYPE, STATEMENT_TYPE as IN_TOTO_STATEMENT_TYPE,
    ScopeSummary, SessionPredicate, check as check_attestation, key_id as ssh_key_id,
    pae as dsse_pae, sign as sign_attestation, statement as attestation_statement,
};
pub use call_ids::{call_ids_line, parse_call_ids_line, read_call_ids};
pub use canonical::encode as encode_canonical;
pub use chain::{BrokenField, GENESIS, Sealer, UnsealedLink, Verdict, Verifier, stated_digest};
pub use claims::{
    Atom as ClaimAtom, AtomKind as ClaimAtomKind, AtomStatus as ClaimAtomStatus, CHANGE_WORDS,
    COMMAND_WORDS, Claim, ClaimCounts, ClaimVerdict, Claims, ClaimsReport, Message, MessageKind,
    NEGATION_WORDS, Outcome as StatedOutcome, PATH_EXTENSIONS, PATH_NAMES, PRODUCT_NAMES,
    Support as ClaimSupport, Turn, check_claims, turns_of,
};
pub use context::{
    ANSWER_TOOL, CONTEXT_TOOL, ContextFile, ContextRecord, Contexts, PROMPT_TOOL, RECONCILE_TOOL,
    context_after, read_context_file,
};
pub use diff::{
    AllDifferences, At as DiffAt, DiffError, DiffReport, Difference, Side as DiffSide,
    compare_all as diff_all,
};
pub use error::{LineError, ReadError};
pub use finding::{
    ArgumentViolation, Budget, Finding, FindingKind, Findings, SensitiveResponse, finding_message,
    push_u64, quote_name, shown_field, write_finding_message,
};
pub use graph::{
    Action as RoleAction, Argument as RoleArgument, ArtifactKind, ClaimNode as GraphClaimNode,
    Graph, Node as GraphNode, PolicyRole, RequestNode as GraphRequestNode, Role, Roles,
    Transcript as GraphTranscript, build as build_graph, is_mcp_tool, policy_roles_of,
    read as read_graph_transcript,
};
pub use head::{
    HeadVerdict, MAX_HEAD_BYTES, ORIGIN as HEAD_ORIGIN, Pin, compare as compare_head, is_digest,
    parse_pin, statement as head_statement,
};
pub use import::{
    Beside, CallMeta, Format as ImportFormat, ImportError, Imported, MAX_IMPORT_BYTES,
    Source as ImportSource, Subagent, ToolResults, detect_format, import as import_log,
    import_beside as import_log_beside, summary as import_summary,
    write_record as write_imported_record, write_transcript as write_imported_transcript,
};
pub use json::{
    Value, decode_document as decode_json_document, member as json_member, parse as parse_json,
};
pub use lines::{Lines, line_text};
pub use live::{
    ENDED_KEPT, Live, LiveError, LiveState, Outcome as LiveOutcome, Ready, Reconcile, Reconciled,
};
pub use otlp::{
    OTLP_SCOPE_NAME, OtlpError, OtlpEvent, OtlpOptions, OtlpRecord, OtlpSpans, SPAN_NANOS,
    export as export_otlp, otlp_protobuf, otlp_request,
};
pub use percent::percent_decode;
pub use pipeline::{MAX_THREADS, Stop, Threads, run as run_pipeline};
pub use policy::{DANGEROUS_COMMANDS, PathContext, Policy};
pub use reconcile::{
    LogDifference, LogDifferenceKind, MAX_ALIGNED_EDITS, ReconcileAgent, ReconcileReport,
    ReconcileResult, reconcile_calls,
};
pub use replay::{
    Options as ReplayOptions, Replay, ReplayReport, audit_with as audit_replay,
    fingerprints as replay_fingerprints,
};
pub use report::{
    AttestationJsonCheck, HeadJsonCheck, JSON_FORMAT_VERSION, JSON_PLACEHOLDER, JsonConfiguration,
    JsonPlaceholder, SignatureJsonCheck, VerifyJsonChecks, attestation_verdict_ids, claims_json,
    json_document, pretty_json_into, signature_verdict_ids, verify_json,
    write_json_document_with_array, write_replay_json, write_scope_json,
};
pub use scope::{Scope, ScopeReport, Session};
pub use sealed::{
    Buffers as SealBuffers, Checked, Head, check as check_sealed, seal, seal_reusing,
};
pub use sign::{
    Key as SigningKey, KeyError as SigningKeyError, NAMESPACE as SIGNATURE_NAMESPACE,
    SignatureError, SignatureVerdict, Untrusted, check as check_signature, sign as sign_message,
};
pub use spill::{Spill, SpillReader};
pub use sshsig::{
    Signature as SshSignature, armor as armor_sshsig, base64_encode, dearmor as dearmor_sshsig,
    public_key as ssh_public_key,
};
pub use transcript::{
    CanonicalRecordRef, Link, Links, Record, UnplacedRecord, for_each_record,
    parse_canonical_record, parse_link, parse_record, parse_unplaced_with,
};

// Test support for the integration tests and the fuzz targets (feature `testing`):
// the building blocks they check one by one, which the interface above does not
// need.
#[cfg(feature = "testing")]
pub use claims::{atoms as claim_atoms, sentences as claim_sentences};
#[cfg(feature = "testing")]
pub use json::{FieldValue, ObjectError, canonicalize as canonicalize_json, parse_fields_in};
#[cfg(feature = "testing")]
pub use sshsig::{
    BEGIN as SSHSIG_BEGIN, END as SSHSIG_END, Ed25519, Hash as SshsigHash,
    VERSION as SSHSIG_VERSION, base64_decode, base64_encode_wrapped, put_string as put_ssh_string,
};
#[cfg(feature = "testing")]
pub use transcript::Records;
