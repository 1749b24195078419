//! Attestations of a sealed session: an [in-toto Statement v1] about the sealed file,
//! in a [DSSE] envelope signed with an SSH ed25519 or ECDSA P-256 key (a raw
//! signature over DSSE's pre-authentication encoding, not an SSHSIG: ed25519's 64
//! bytes, or ECDSA with SHA-256, DER-encoded, as securesystemslib's
//! `ecdsa-sha2-nistp256` scheme writes it), and their verification.
//!
//! The statement is the canonical JSON encoding (spec section 2: keys sorted, no
//! whitespace) of
//!
//! ```text
//! {"_type": "https://in-toto.io/Statement/v1",
//!  "subject": [{"name": NAME, "digest": {"sha256": HEX}}],
//!  "predicateType": "https://toolreplay.dev/attestation/session/v1",
//!  "predicate": {
//!    "chain": {"format": "toolreplay/sealed-transcript/v1", "head": HEX, "records": N},
//!    "policy": {"scope": HEX | null, "session": [HEX, ...]},
//!    "replay": {"divergence": N | null, "findings": N, "by_kind": {KIND: N}, "rules": "spec" | "agent"},
//!    "scope": null | {"agent": NAME, "by_kind": {KIND: N}, "findings": N, "verdict": "clean" | "findings"}}}
//! ```
//!
//! and the envelope is one line of canonical JSON:
//! `{"payload": BASE64, "payloadType": "application/vnd.in-toto+json",
//! "signatures": [{"keyid": "SHA256:...", "sig": BASE64}]}`, the key id being the
//! key's SHA-256 fingerprint as `ssh-keygen -l` prints it.
//!
//! [in-toto Statement v1]: https://github.com/in-toto/attestation/blob/main/spec/v1/statement.md
//! [DSSE]: https://github.com/secure-systems-lab/dsse/blob/master/protocol.md
//!
//! ```
//! use ssh_key::{LineEnding, PrivateKey, private::Ed25519Keypair};
//! use toolreplay_core::{
//!     AttestationVerdict, Head, SessionPredicate, SigningKey, attestation_statement,
//!     check_attestation, sign_attestation,
//! };
//!
//! let private = PrivateKey::from(Ed25519Keypair::from_seed(&[7; 32]));
//! let key = SigningKey::parse(&private.to_openssh(LineEnding::LF)?)?;
//! let head = Head { links: 2, digest: "ab".repeat(32) };
//! let file_sha256 = "cd".repeat(32);
//! let predicate = SessionPredicate::new(head.clone());
//! let statement = attestation_statement("run.sealed.jsonl", &file_sha256, &predicate);
//! let envelope = sign_attestation(&key, &statement)?;
//!
//! let signers = format!("ana@example.com {}\n", private.public_key().to_openssh()?);
//! let verdict = check_attestation(envelope.as_bytes(), &signers, Some("ana@example.com"), &file_sha256, &head)?;
//! assert!(verdict.is_good());
//! let other_file = "ef".repeat(32);
//! let verdict = check_attestation(envelope.as_bytes(), &signers, None, &other_file, &head)?;
//! assert!(!verdict.is_good());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;

use ed25519_dalek::Signer as _;
use ssh_key::HashAlg;
use ssh_key::private::EcdsaKeypair;
use ssh_key::public::{EcdsaPublicKey, Ed25519PublicKey, KeyData};

use crate::allowed_signers::{self, AllowedKey, Allows, LineError};
use crate::canonical;
use crate::finding::Findings;
use crate::head::{ORIGIN, is_digest};
use crate::json::{self, Value, member};
use crate::sealed::Head;
use crate::sign::{Key, KeyError, NAMESPACE, Untrusted};
use crate::sshsig::{base64_decode, base64_encode};

/// The `_type` of an in-toto Statement v1.
pub const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
/// The `predicateType` of a ToolReplay session attestation.
pub const PREDICATE_TYPE: &str = "https://toolreplay.dev/attestation/session/v1";
/// The DSSE `payloadType` of an in-toto statement.
pub const PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";

/// DSSE's pre-authentication encoding of `payload` of type `payload_type`, the bytes
/// that are signed: `DSSEv1 SP LEN(type) SP type SP LEN(body) SP body`, lengths in
/// ASCII decimal.
///
/// ```
/// use toolreplay_core::dsse_pae;
///
/// assert_eq!(dsse_pae("t", b"body"), b"DSSEv1 1 t 4 body");
/// ```
pub fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "DSSEv1 {} {payload_type} {} ",
        payload_type.len(),
        payload.len()
    )
    .into_bytes();
    out.extend_from_slice(payload);
    out
}

/// Findings counted by kind, by the kind's name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FindingCounts(pub BTreeMap<String, u64>);

impl FindingCounts {
    /// The counts of `findings`.
    pub fn of(findings: &Findings) -> std::io::Result<FindingCounts> {
        let mut counts = BTreeMap::new();
        for finding in findings.iter() {
            *counts.entry(finding?.kind.name().to_owned()).or_insert(0) += 1;
        }
        Ok(FindingCounts(counts))
    }

    /// How many findings in all.
    pub fn total(&self) -> u64 {
        self.0.values().sum()
    }

    fn by_kind(&self) -> Value {
        Value::Object(
            self.0
                .iter()
                .map(|(kind, n)| (kind.clone(), int(*n)))
                .collect(),
        )
    }
}

/// What a scope audit of the session found, for the predicate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeSummary {
    /// The agent the scope file declares.
    pub agent: String,
    /// SHA-256 of the scope file's bytes, in hex (as a live session records it).
    pub digest: String,
    /// The scope's findings.
    pub findings: FindingCounts,
}

/// The predicate of a session attestation: the chain, the policies and the audits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionPredicate {
    /// The verified chain's head: its record count and last digest.
    pub head: Head,
    /// The rules replay judged the calls by: `spec` or `agent`.
    pub rules: String,
    /// The replay's findings.
    pub replay: FindingCounts,
    /// The replay's divergence point, if any.
    pub divergence: Option<u64>,
    /// The policy digests the session's context file records, distinct, in order.
    pub session_policies: Vec<String>,
    /// The scope audit, with a scope file.
    pub scope: Option<ScopeSummary>,
}

impl SessionPredicate {
    /// The predicate of a chain ending at `head`, with no finding, replayed by the
    /// `spec` rules, no policy and no scope audit.
    pub fn new(head: Head) -> SessionPredicate {
        SessionPredicate {
            head,
            rules: "spec".to_owned(),
            replay: FindingCounts::default(),
            divergence: None,
            session_policies: Vec::new(),
            scope: None,
        }
    }

    fn to_value(&self) -> Value {
        let scope = self.scope.as_ref().map_or(Value::Null, |scope| {
            let verdict = if scope.findings.total() == 0 {
                "clean"
            } else {
                "findings"
            };
            Value::object([
                ("agent", Value::Str(scope.agent.clone())),
                ("by_kind", scope.findings.by_kind()),
                ("findings", int(scope.findings.total())),
                ("verdict", Value::Str(verdict.to_owned())),
            ])
        });
        Value::object([
            (
                "chain",
                Value::object([
                    ("format", Value::Str(ORIGIN.to_owned())),
                    ("head", Value::Str(self.head.digest.clone())),
                    ("records", int(self.head.links)),
                ]),
            ),
            (
                "policy",
                Value::object([
                    (
                        "scope",
                        self.scope
                            .as_ref()
                            .map_or(Value::Null, |s| Value::Str(s.digest.clone())),
                    ),
                    (
                        "session",
                        Value::Array(
                            self.session_policies
                                .iter()
                                .map(|d| Value::Str(d.clone()))
                                .collect(),
                        ),
                    ),
                ]),
            ),
            (
                "replay",
                Value::object([
                    ("by_kind", self.replay.by_kind()),
                    ("divergence", self.divergence.map_or(Value::Null, int)),
                    ("findings", int(self.replay.total())),
                    ("rules", Value::Str(self.rules.clone())),
                ]),
            ),
            ("scope", scope),
        ])
    }
}

fn int(n: u64) -> Value {
    Value::Int(n.to_string().into())
}

/// The statement (canonical JSON, no final LF) that the file named `name`, whose
/// bytes have the SHA-256 `sha256` (hex), is the session `predicate` describes.
pub fn statement(name: &str, sha256: &str, predicate: &SessionPredicate) -> Vec<u8> {
    let subject = Value::object([
        (
            "digest",
            Value::object([("sha256", Value::Str(sha256.to_owned()))]),
        ),
        ("name", Value::Str(name.to_owned())),
    ]);
    canonical::encode(&Value::object([
        ("_type", Value::Str(STATEMENT_TYPE.to_owned())),
        ("predicate", predicate.to_value()),
        ("predicateType", Value::Str(PREDICATE_TYPE.to_owned())),
        ("subject", Value::Array(vec![subject])),
    ]))
}

/// The key id of an ed25519 public key: its SHA-256 fingerprint as `ssh-keygen -l`
/// prints it (`SHA256:` and unpadded base64).
pub fn key_id(key: &[u8; 32]) -> String {
    fingerprint(KeyData::Ed25519(Ed25519PublicKey(*key)))
}

fn fingerprint(key: KeyData) -> String {
    ssh_key::PublicKey::from(key)
        .fingerprint(HashAlg::Sha256)
        .to_string()
}

/// The key id of a key an allowed signers line holds, as [`key_id`]; `None` for a
/// key that signs no attestation.
fn allowed_key_id(key: &AllowedKey) -> Option<String> {
    match key {
        AllowedKey::Ed25519(key) => Some(key_id(key)),
        AllowedKey::EcdsaP256(point) => EcdsaPublicKey::from_sec1_bytes(point)
            .ok()
            .map(|public| fingerprint(KeyData::Ecdsa(public))),
        AllowedKey::Other(_) => None,
    }
}

/// Whether `sig` is `key`'s signature of `signed`: ed25519 strictly, ECDSA P-256
/// with SHA-256 and a DER-encoded signature.
fn signature_verifies(key: &AllowedKey, signed: &[u8], sig: &[u8]) -> bool {
    match key {
        AllowedKey::Ed25519(key) => {
            let Ok(bytes) = <[u8; 64]>::try_from(sig) else {
                return false;
            };
            ed25519_dalek::VerifyingKey::from_bytes(key).is_ok_and(|key| {
                key.verify_strict(signed, &ed25519_dalek::Signature::from_bytes(&bytes))
                    .is_ok()
            })
        }
        AllowedKey::EcdsaP256(point) => {
            use p256::ecdsa::signature::Verifier as _;
            let (Ok(key), Ok(signature)) = (
                p256::ecdsa::VerifyingKey::from_sec1_bytes(point),
                p256::ecdsa::Signature::from_der(sig),
            ) else {
                return false;
            };
            key.verify(signed, &signature).is_ok()
        }
        AllowedKey::Other(_) => false,
    }
}

/// The DSSE envelope of `statement` signed by `key` (an ed25519 or ECDSA P-256
/// signature over the pre-authentication encoding), as one line of canonical JSON
/// ending with LF.
pub fn sign(key: &Key, statement: &[u8]) -> Result<String, KeyError> {
    let private = key.private();
    if private.is_encrypted() {
        return Err(KeyError::Encrypted);
    }
    let signed = pae(PAYLOAD_TYPE, statement);
    let (keyid, signature) = match private.key_data() {
        ssh_key::private::KeypairData::Ed25519(pair) => {
            let signing = ed25519_dalek::SigningKey::from_bytes(&pair.private.to_bytes());
            let signature = signing.sign(&signed);
            (key_id(&pair.public.0), signature.to_bytes().to_vec())
        }
        ssh_key::private::KeypairData::Ecdsa(EcdsaKeypair::NistP256 { public, private }) => {
            use p256::ecdsa::signature::Signer as _;
            let signing = p256::ecdsa::SigningKey::from_slice(private.as_slice())
                .map_err(|err| KeyError::Sign(err.to_string()))?;
            // RFC 6979: the same key and statement give the same signature.
            let signature: p256::ecdsa::Signature = signing.sign(&signed);
            let public = EcdsaPublicKey::NistP256(*public);
            (
                fingerprint(KeyData::Ecdsa(public)),
                signature.to_der().as_bytes().to_vec(),
            )
        }
        _ => {
            return Err(KeyError::Sign(format!(
                "{} keys are not supported, only ssh-ed25519 and ecdsa-sha2-nistp256",
                private.algorithm()
            )));
        }
    };
    let envelope = Value::object([
        ("payload", Value::Str(base64_encode(statement))),
        ("payloadType", Value::Str(PAYLOAD_TYPE.to_owned())),
        (
            "signatures",
            Value::Array(vec![Value::object([
                ("keyid", Value::Str(keyid)),
                ("sig", Value::Str(base64_encode(&signature))),
            ])]),
        ),
    ]);
    let mut line = String::from_utf8(canonical::encode(&envelope))
        .map_err(|err| KeyError::Sign(err.to_string()))?;
    line.push('\n');
    Ok(line)
}

/// Why an envelope could not be checked at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttestationError {
    /// The file is not a DSSE envelope as written here.
    #[error("not a DSSE envelope: {0}")]
    Envelope(String),
    /// No line of the allowed signers file allows a signature, and a line that may
    /// have is invalid (the first such line).
    #[error(transparent)]
    Signers(#[from] LineError),
}

/// A signature of an envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvelopeSignature {
    /// Its `keyid` (may be empty).
    pub keyid: String,
    /// The signature's bytes.
    pub sig: Vec<u8>,
}

/// A DSSE envelope, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    /// `payloadType`.
    pub payload_type: String,
    /// The payload's bytes.
    pub payload: Vec<u8>,
    /// The signatures.
    pub signatures: Vec<EnvelopeSignature>,
}

/// Standard base64 with padding, strictly: the one encoding of the bytes.
fn strict_base64(text: &str, what: &str) -> Result<Vec<u8>, AttestationError> {
    base64_decode(text.as_bytes())
        .filter(|bytes| base64_encode(bytes) == text)
        .ok_or_else(|| AttestationError::Envelope(format!("{what} is not base64")))
}

impl Envelope {
    /// Reads an envelope: one JSON object (strictly: no duplicate keys), whitespace
    /// around it allowed, with a string `payloadType`, a base64 `payload` and a
    /// non-empty array `signatures` of objects with a base64 `sig` and a string
    /// `keyid` (other members are ignored, as DSSE allows).
    pub fn parse(bytes: &[u8]) -> Result<Envelope, AttestationError> {
        let bad = |message: &str| AttestationError::Envelope(message.to_owned());
        let text = std::str::from_utf8(bytes).map_err(|_| bad("invalid UTF-8"))?;
        let value = json::parse(text.trim()).map_err(|err| bad(&err.to_string()))?;
        let Value::Object(members) = value else {
            return Err(bad("not a JSON object"));
        };
        let string = |members: &[(String, Value)], key: &str| match member(members, key) {
            Some(Value::Str(s)) => Ok(s.clone()),
            _ => Err(bad(&format!("no string \"{key}\""))),
        };
        let payload_type = string(&members, "payloadType")?;
        let payload = strict_base64(&string(&members, "payload")?, "the payload")?;
        let Some(Value::Array(items)) = member(&members, "signatures") else {
            return Err(bad("no array \"signatures\""));
        };
        if items.is_empty() {
            return Err(bad("no signature"));
        }
        let mut signatures = Vec::with_capacity(items.len());
        for item in items {
            let Value::Object(fields) = item else {
                return Err(bad("a signature is not an object"));
            };
            let keyid = match member(fields, "keyid") {
                None => String::new(),
                Some(Value::Str(s)) => s.clone(),
                Some(_) => return Err(bad("a \"keyid\" is not a string")),
            };
            let sig = strict_base64(&string(fields, "sig")?, "a signature")?;
            signatures.push(EnvelopeSignature { keyid, sig });
        }
        Ok(Envelope {
            payload_type,
            payload,
            signatures,
        })
    }
}

/// The verdict on an attestation of a sealed file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttestationVerdict {
    /// A key allowed in the allowed signers file signs the envelope, whose statement
    /// is about this file and this chain.
    Good {
        /// The key's SHA-256 fingerprint.
        fingerprint: String,
        /// The principals of the line that allows it.
        principals: String,
        /// The key's type as `ssh-keygen` names it: `ED25519` or `ECDSA`.
        key_type: &'static str,
    },
    /// The envelope's `payloadType` is not in-toto's.
    OtherPayloadType {
        /// The type found.
        found: String,
    },
    /// A key of the allowed signers file has a signature's key id, but the
    /// signature does not verify: the payload or the signature was changed.
    DoesNotVerify {
        /// The key id.
        keyid: String,
    },
    /// A key of the allowed signers file made a signature, but the signature's key
    /// id is not the key's fingerprint: the key id was changed.
    OtherKeyId {
        /// The key ids of the signatures.
        keyids: Vec<String>,
        /// The fingerprint of the key that made the signature.
        fingerprint: String,
    },
    /// No key of the allowed signers file made any of the signatures.
    UnknownKey {
        /// The key ids of the signatures.
        keyids: Vec<String>,
    },
    /// A key of the allowed signers file signs the envelope, but it is not trusted.
    Untrusted {
        /// Why.
        why: Untrusted,
        /// The key's SHA-256 fingerprint.
        fingerprint: String,
    },
    /// The signed payload is not a ToolReplay session statement.
    NotASessionStatement {
        /// What is wrong.
        why: String,
    },
    /// The statement's subject is another file.
    OtherSubject {
        /// The SHA-256 the statement attests.
        attested: String,
        /// The SHA-256 of the file.
        file: String,
    },
    /// The statement's predicate is about another head.
    OtherHead {
        /// The head the statement attests.
        attested: Head,
    },
}

impl AttestationVerdict {
    /// Whether the attestation is good and trusted.
    pub fn is_good(&self) -> bool {
        matches!(self, AttestationVerdict::Good { .. })
    }
}

/// Checks the envelope `envelope` against the allowed signers file `signers`, a
/// sealed file whose bytes have the SHA-256 `file_sha256` (hex), and its verified
/// chain's `head`, at the current time. See `check_at`.
pub fn check(
    envelope: &[u8],
    signers: &str,
    identity: Option<&str>,
    file_sha256: &str,
    head: &Head,
) -> Result<AttestationVerdict, AttestationError> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    check_at(envelope, signers, identity, (file_sha256, head), now)
}

/// Checks an envelope at `now` (seconds since the Unix epoch), in this order:
///
/// 1. it reads as an [`Envelope`] (else an error);
/// 2. its `payloadType` is `application/vnd.in-toto+json`;
/// 3. a signature verifies (ed25519, strictly, over the pre-authentication
///    encoding) with the key of a line of `signers` that allows it for the
///    namespace `toolreplay` at `now`, the signature's `keyid` being the key's
///    fingerprint: a line whose principals match `identity`, or
///    any line when `identity` is `None`. When none does, the verdict says whether a
///    key of such a line verifies a signature but is not allowed (for `identity`, the
///    namespace, now), or verifies it under another key id, or has a signature's key
///    id without verifying it, or whether no key of the file made any signature; an
///    invalid line is then the error;
/// 4. the payload is an in-toto Statement v1 of the predicate type
///    `https://toolreplay.dev/attestation/session/v1`;
/// 5. one of its subjects has the file's SHA-256;
/// 6. its predicate's `chain.records` and `chain.head` are the chain's.
pub(crate) fn check_at(
    envelope: &[u8],
    signers: &str,
    identity: Option<&str>,
    (file_sha256, head): (&str, &Head),
    now: u64,
) -> Result<AttestationVerdict, AttestationError> {
    let envelope = Envelope::parse(envelope)?;
    if envelope.payload_type != PAYLOAD_TYPE {
        return Ok(AttestationVerdict::OtherPayloadType {
            found: envelope.payload_type,
        });
    }
    let signed = pae(PAYLOAD_TYPE, &envelope.payload);
    let verifies_any = |key: &AllowedKey, by_id: bool| {
        let Some(id) = allowed_key_id(key) else {
            return false;
        };
        envelope.signatures.iter().any(|signature| {
            (!by_id || signature.keyid == id) && signature_verifies(key, &signed, &signature.sig)
        })
    };
    // A signature counts only under its own key id: the key id is not signed, and
    // a changed one must not pass unseen.
    let verifies = |key: &AllowedKey| verifies_any(key, true);

    let lines = match identity {
        Some(identity) => allowed_signers::entries_for(signers, identity),
        None => allowed_signers::all_entries(signers),
    };
    let mut first_error = None;
    // The best a line came to: (how far, its key's fingerprint); 0 holds a
    // signing key, 1 also allows the namespace.
    let mut furthest: Option<(u8, String)> = None;
    let mut good = None;
    for line in lines {
        let entry = match line {
            Ok(entry) => entry,
            Err(err) => {
                first_error.get_or_insert(err);
                continue;
            }
        };
        let key = entry.key.clone();
        let Some(id) = allowed_key_id(&key) else {
            continue;
        };
        if entry.cert_authority || !verifies(&key) {
            continue;
        }
        let reached = match entry.allows_key(&key, NAMESPACE, now) {
            Allows::Yes => {
                let key_type = match key {
                    AllowedKey::EcdsaP256(_) => "ECDSA",
                    _ => "ED25519",
                };
                good = Some((id, entry.principals, key_type));
                break;
            }
            Allows::OtherKey => continue,
            Allows::OtherNamespace => 0,
            Allows::NotNow => 1,
        };
        if furthest.as_ref().is_none_or(|(at, _)| reached > *at) {
            furthest = Some((reached, id));
        }
    }
    let Some((fingerprint, principals, key_type)) = good else {
        if let Some(err) = first_error {
            return Err(AttestationError::Signers(err));
        }
        return Ok(not_good(&envelope, signers, furthest, &verifies_any));
    };

    let statement = match read_statement(&envelope.payload) {
        Ok(statement) => statement,
        Err(why) => return Ok(AttestationVerdict::NotASessionStatement { why }),
    };
    if !statement
        .subjects
        .iter()
        .any(|digest| digest == file_sha256)
    {
        return Ok(AttestationVerdict::OtherSubject {
            attested: statement.subjects.first().cloned().unwrap_or_default(),
            file: file_sha256.to_owned(),
        });
    }
    if statement.head != *head {
        return Ok(AttestationVerdict::OtherHead {
            attested: statement.head,
        });
    }
    Ok(AttestationVerdict::Good {
        fingerprint,
        principals,
        key_type,
    })
}

/// Why no line allows a signature: a key that verifies but is not allowed, a key
/// with a signature's key id that does not verify, or no key at all.
fn not_good(
    envelope: &Envelope,
    signers: &str,
    furthest: Option<(u8, String)>,
    verifies: &dyn Fn(&AllowedKey, bool) -> bool,
) -> AttestationVerdict {
    if let Some((reached, fingerprint)) = furthest {
        let why = match reached {
            0 => Untrusted::NamespaceNotAllowed,
            _ => Untrusted::NotValidNow,
        };
        return AttestationVerdict::Untrusted { why, fingerprint };
    }
    let keys: Vec<(AllowedKey, String)> = allowed_signers::all_entries(signers)
        .into_iter()
        .filter_map(|line| {
            let key = line.ok()?.key;
            let id = allowed_key_id(&key)?;
            Some((key, id))
        })
        .collect();
    // A key of the file verifies a signature, but no line for the identity holds it.
    if let Some((_, id)) = keys.iter().find(|(key, _)| verifies(key, true)) {
        return AttestationVerdict::Untrusted {
            why: Untrusted::KeyNotAllowed,
            fingerprint: id.clone(),
        };
    }
    // A key of the file verifies a signature filed under another key id.
    if let Some((_, id)) = keys.iter().find(|(key, _)| verifies(key, false)) {
        return AttestationVerdict::OtherKeyId {
            keyids: envelope
                .signatures
                .iter()
                .map(|s| s.keyid.clone())
                .collect(),
            fingerprint: id.clone(),
        };
    }
    let ids: Vec<String> = keys.into_iter().map(|(_, id)| id).collect();
    for signature in &envelope.signatures {
        if ids.contains(&signature.keyid) {
            return AttestationVerdict::DoesNotVerify {
                keyid: signature.keyid.clone(),
            };
        }
    }
    AttestationVerdict::UnknownKey {
        keyids: envelope
            .signatures
            .iter()
            .map(|s| s.keyid.clone())
            .collect(),
    }
}

/// What the check reads of a statement.
struct Statement {
    /// The SHA-256 digests of its subjects.
    subjects: Vec<String>,
    /// The head of its predicate.
    head: Head,
}

fn read_statement(payload: &[u8]) -> Result<Statement, String> {
    let text = std::str::from_utf8(payload).map_err(|_| "invalid UTF-8".to_owned())?;
    let Value::Object(members) = json::parse(text).map_err(|err| err.to_string())? else {
        return Err("not a JSON object".to_owned());
    };
    let str_of = |members: &[(String, Value)], key: &str| match member(members, key) {
        Some(Value::Str(s)) => Some(s.clone()),
        _ => None,
    };
    if str_of(&members, "_type").as_deref() != Some(STATEMENT_TYPE) {
        return Err(format!("its \"_type\" is not {STATEMENT_TYPE}"));
    }
    match str_of(&members, "predicateType") {
        Some(found) if found == PREDICATE_TYPE => {}
        Some(found) => return Err(format!("its predicate type is {found}")),
        None => return Err("it has no \"predicateType\"".to_owned()),
    }
    let Some(Value::Array(subjects)) = member(&members, "subject") else {
        return Err("it has no \"subject\" array".to_owned());
    };
    let subjects: Vec<String> = subjects
        .iter()
        .filter_map(|subject| match subject {
            Value::Object(fields) => match member(fields, "digest") {
                Some(Value::Object(digest)) => str_of(digest, "sha256"),
                _ => None,
            },
            _ => None,
        })
        .collect();
    if subjects.is_empty() {
        return Err("no subject has a sha256 digest".to_owned());
    }
    let chain = match member(&members, "predicate") {
        Some(Value::Object(predicate)) => match member(predicate, "chain") {
            Some(Value::Object(chain)) => Some(chain),
            _ => None,
        },
        _ => None,
    }
    .ok_or_else(|| "its predicate has no \"chain\"".to_owned())?;
    let records = match member(chain, "records") {
        Some(Value::Int(n)) => n.parse::<u64>().ok(),
        _ => None,
    };
    let digest = str_of(chain, "head").filter(|d| is_digest(d));
    let (Some(links), Some(digest)) = (records, digest) else {
        return Err("its chain has no \"records\" or \"head\"".to_owned());
    };
    Ok(Statement {
        subjects,
        head: Head { links, digest },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssh_key::private::Ed25519Keypair;
    use ssh_key::{LineEnding, PrivateKey};

    fn key(seed: u8) -> (Key, String) {
        let private = PrivateKey::from(Ed25519Keypair::from_seed(&[seed; 32]));
        let text = private.to_openssh(LineEnding::LF).unwrap();
        let public = private.public_key().to_openssh().unwrap();
        (Key::parse(&text).unwrap(), public)
    }

    fn ed25519_key(seed: u8) -> [u8; 32] {
        Ed25519Keypair::from_seed(&[seed; 32]).public.0
    }

    fn head() -> Head {
        Head {
            links: 3,
            digest: "ab".repeat(32),
        }
    }

    fn envelope(seed: u8) -> String {
        let statement = statement("s.jsonl", &"cd".repeat(32), &SessionPredicate::new(head()));
        sign(&key(seed).0, &statement).unwrap()
    }

    fn verdict(envelope: &str, signers: &str) -> AttestationVerdict {
        check_at(
            envelope.as_bytes(),
            signers,
            Some("ana"),
            (&"cd".repeat(32), &head()),
            1_700_000_000,
        )
        .unwrap()
    }

    #[test]
    fn pae_is_dsse_v1() {
        assert_eq!(
            pae(PAYLOAD_TYPE, b"{}"),
            b"DSSEv1 28 application/vnd.in-toto+json 2 {}"
        );
        assert_eq!(pae("", b""), b"DSSEv1 0  0 ");
    }

    #[test]
    fn a_signed_envelope_verifies_and_changes_do_not() {
        let (_, ana) = key(1);
        let signers = format!("ana namespaces=\"toolreplay\" {ana}\n");
        let good = envelope(1);
        assert!(verdict(&good, &signers).is_good(), "{good}");
        // Another key, not listed.
        assert!(matches!(
            verdict(&envelope(2), &signers),
            AttestationVerdict::UnknownKey { .. }
        ));
        // A changed payload: the key id is listed, the signature fails.
        let envelope = Envelope::parse(good.as_bytes()).unwrap();
        let mut payload = envelope.payload.clone();
        payload[10] ^= 1;
        let changed = good.replace(&base64_encode(&envelope.payload), &base64_encode(&payload));
        assert!(matches!(
            verdict(&changed, &signers),
            AttestationVerdict::DoesNotVerify { .. }
        ));
        // A changed key id.
        let keyid = key_id(&ed25519_key(1));
        let changed = good.replace(&keyid, &keyid.replace("SHA256:", "SHA256:x"));
        assert!(matches!(
            verdict(&changed, &signers),
            AttestationVerdict::OtherKeyId { .. }
        ));
        // A namespace that is not toolreplay.
        let git = format!("ana namespaces=\"git\" {ana}\n");
        assert!(matches!(
            verdict(&good, &git),
            AttestationVerdict::Untrusted {
                why: Untrusted::NamespaceNotAllowed,
                ..
            }
        ));
        // Another principal.
        let bob = format!("bob {ana}\n");
        assert!(matches!(
            verdict(&good, &bob),
            AttestationVerdict::Untrusted {
                why: Untrusted::KeyNotAllowed,
                ..
            }
        ));
    }

    #[test]
    fn another_file_or_head_fails() {
        let (_, ana) = key(1);
        let signers = format!("ana {ana}\n");
        let good = envelope(1);
        let other = check_at(
            good.as_bytes(),
            &signers,
            None,
            (&"ef".repeat(32), &head()),
            0,
        )
        .unwrap();
        assert!(matches!(other, AttestationVerdict::OtherSubject { .. }));
        let shorter = Head { links: 2, ..head() };
        let other = check_at(
            good.as_bytes(),
            &signers,
            None,
            (&"cd".repeat(32), &shorter),
            0,
        )
        .unwrap();
        assert_eq!(other, AttestationVerdict::OtherHead { attested: head() });
    }

    #[test]
    fn envelopes_are_read_strictly() {
        let good = envelope(1);
        assert!(Envelope::parse(good.as_bytes()).is_ok());
        for bad in [
            "",
            "[]",
            "{\"payload\":\"e30=\",\"payloadType\":\"t\"}",
            "{\"payload\":\"e30\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"\"}]}",
            "{\"payload\":\"e30=\",\"payloadType\":\"t\",\"signatures\":[]}",
        ] {
            assert!(Envelope::parse(bad.as_bytes()).is_err(), "{bad}");
        }
    }
}
