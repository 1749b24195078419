//! Signing the head statement with an SSH key, and checking such a signature, in
//! OpenSSH's SSHSIG format (`PROTOCOL.sshsig`), as `ssh-keygen -Y sign` and
//! `ssh-keygen -Y verify -n toolreplay` do: namespace `toolreplay`, SHA-512 as the
//! message hash when signing (SHA-256 and SHA-512 both accepted when checking),
//! ed25519 keys.
//!
//! # What is accepted and refused
//!
//! A signature is judged as `ssh-keygen -Y verify` of OpenSSH 9.2 judges it; the
//! table of `crates/core/tests/ssh_keygen.rs` checks every rule against the real
//! ssh-keygen, both ways.
//!
//! - The file is read exactly as ssh-keygen reads it ([`crate::sshsig`]): it must
//!   start with the line `-----BEGIN SSH SIGNATURE-----` ended by LF (no CR LF, no
//!   byte-order mark, no text or whitespace before it); the base64 text runs to the
//!   first LF followed by `-----END SSH SIGNATURE-----`, with whitespace (CR LF line
//!   ends too) skipped inside it; whatever follows the end marker is ignored.
//! - The blob is decoded with exact lengths: the `SSHSIG` preamble, version 0 or 1,
//!   the public key blob (type `ssh-ed25519`, or OpenSSH's short name `ed25519` in any
//!   case, then exactly 32 bytes, then nothing), the namespace, the reserved field,
//!   the hash algorithm (`sha256` or `sha512` exactly), and the signature blob (type
//!   exactly `ssh-ed25519`, the key's, then exactly 64 bytes, then nothing), with
//!   nothing after it. A length prefix larger than what follows, or bytes left over in
//!   any of these, is refused. The namespace, hash algorithm and both types are C
//!   strings to OpenSSH: a NUL byte in them is refused, except as their last byte,
//!   which is dropped.
//! - The namespace must be `toolreplay`.
//! - The signature is verified over the data ssh-keygen rebuilds: the namespace
//!   `toolreplay`, an empty reserved field (whatever the signature's holds: a
//!   signature made over a non-empty reserved field does not verify, one made over an
//!   empty field verifies whatever the field holds), the hash algorithm, and the hash
//!   of the statement.
//! - The key must then be allowed for the identity and the namespace, at the current
//!   time, by a line of the allowed signers file ([`crate::allowed_signers`]); an
//!   invalid line is skipped, as ssh-keygen skips it, and is reported only when no
//!   line allows the key.
//!
//! # Refused on purpose where ssh-keygen accepts
//!
//! - Keys other than plain ed25519 (RSA, ECDSA, security keys, certificates).
//! - ed25519 signatures that only a lax verifier takes: this crate verifies with
//!   `verify_strict` (an S of L or more, as in a signature changed from a valid one by
//!   adding L, small-order keys and non-canonical points are refused), where OpenSSH
//!   checks only the top three bits of S.
//! - Allowed signers files that are not UTF-8, and `valid-after`/`valid-before` times
//!   in local time (see [`crate::allowed_signers`]). (A signature file is text here:
//!   the command line reads one that is not UTF-8 with its invalid bytes replaced,
//!   which changes no decision, as such bytes are either after the end line or make
//!   the signature invalid either way.)

use ssh_key::public::{Ed25519PublicKey, KeyData};
use ssh_key::{Algorithm, HashAlg, LineEnding, PrivateKey};

use crate::allowed_signers::{self, Allows, LineError};
use crate::sshsig;

/// The SSHSIG namespace of ToolReplay signatures.
pub const NAMESPACE: &str = "toolreplay";

/// Why a private key cannot sign.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The text is a public key.
    #[error("a public key; give the private key")]
    PublicKey,
    /// The text is no OpenSSH private key.
    #[error("not an OpenSSH private key")]
    NotAKey,
    /// The key is encrypted and was not decrypted.
    #[error("the key is encrypted")]
    Encrypted,
    /// The passphrase does not decrypt the key.
    #[error("wrong passphrase")]
    WrongPassphrase,
    /// The key is of another algorithm than ssh-ed25519.
    #[error("{0} keys are not supported, only ssh-ed25519")]
    Unsupported(String),
    /// Signing failed.
    #[error("cannot sign: {0}")]
    Sign(String),
}

/// An OpenSSH private key.
#[derive(Debug, Clone)]
pub struct Key(PrivateKey);

impl Key {
    /// Parses the OpenSSH private key `text`. An encrypted key must be decrypted with
    /// [`Key::decrypt`] before it signs.
    pub fn parse(text: &str) -> Result<Key, KeyError> {
        PrivateKey::from_openssh(text.trim_start())
            .map(Key)
            .map_err(|_| {
                if is_public_key(text) {
                    KeyError::PublicKey
                } else {
                    KeyError::NotAKey
                }
            })
    }

    /// Whether the key must be decrypted before it can sign.
    pub fn is_encrypted(&self) -> bool {
        self.0.is_encrypted()
    }

    /// The key decrypted with `passphrase`.
    pub fn decrypt(&self, passphrase: &[u8]) -> Result<Key, KeyError> {
        self.0
            .decrypt(passphrase)
            .map(Key)
            .map_err(|_| KeyError::WrongPassphrase)
    }

    /// The OpenSSH private key.
    pub(crate) fn private(&self) -> &PrivateKey {
        &self.0
    }

    /// The key, checked to be a decrypted ssh-ed25519 key.
    pub fn usable(self) -> Result<Key, KeyError> {
        if self.0.is_encrypted() {
            return Err(KeyError::Encrypted);
        }
        if self.0.algorithm() != Algorithm::Ed25519 {
            return Err(KeyError::Unsupported(self.0.algorithm().to_string()));
        }
        Ok(self)
    }
}

fn is_public_key(text: &str) -> bool {
    let text = text.trim_start();
    ["ssh-", "ecdsa-", "sk-"]
        .iter()
        .any(|prefix| text.starts_with(prefix))
}

/// The armored SSHSIG signature of `message` by `key`, namespace `toolreplay`,
/// SHA-512, ending with LF.
pub fn sign(key: &Key, message: &[u8]) -> Result<String, KeyError> {
    let key = key.clone().usable()?;
    let signature = key
        .0
        .sign(NAMESPACE, HashAlg::Sha512, message)
        .map_err(|err| KeyError::Sign(err.to_string()))?;
    let mut armored = signature
        .to_pem(LineEnding::LF)
        .map_err(|err| KeyError::Sign(err.to_string()))?;
    if !armored.ends_with('\n') {
        armored.push('\n');
    }
    Ok(armored)
}

/// Why a signature could not be checked at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// The signature file is not an armored SSH signature.
    #[error("not an SSH signature")]
    NotASignature,
    /// The signature file is an SSH signature ssh-keygen refuses to read.
    #[error("invalid SSH signature: {0}")]
    Invalid(String),
    /// The signature is made with another algorithm than ssh-ed25519.
    #[error("{0} signatures are not supported, only ssh-ed25519")]
    Unsupported(String),
    /// No line of the allowed signers file allows the signature, and a line that may
    /// name the identity is invalid (the first such line).
    #[error(transparent)]
    Signers(#[from] LineError),
}

impl From<sshsig::DecodeError> for SignatureError {
    fn from(err: sshsig::DecodeError) -> SignatureError {
        match err {
            sshsig::DecodeError::Base64 | sshsig::DecodeError::Magic => {
                SignatureError::NotASignature
            }
            other => SignatureError::Invalid(other.to_string()),
        }
    }
}

impl From<sshsig::KeyError> for SignatureError {
    fn from(err: sshsig::KeyError) -> SignatureError {
        match err {
            sshsig::KeyError::Unsupported(name) => SignatureError::Unsupported(name),
            sshsig::KeyError::Decode(err) => SignatureError::Invalid(err.to_string()),
            other => SignatureError::Invalid(other.to_string()),
        }
    }
}

/// Why a good signature is not trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Untrusted {
    /// No line of the allowed signers file names the identity.
    NoKeyFor,
    /// The lines naming the identity do not hold the signing key.
    KeyNotAllowed,
    /// The signing key is allowed for the identity, but not for the namespace.
    NamespaceNotAllowed,
    /// The signing key is allowed for the identity and the namespace, but not at this
    /// time (`valid-after`, `valid-before`).
    NotValidNow,
}

/// The verdict on a signature of a head statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignatureVerdict {
    /// The signature signs the statement and its key is allowed for the identity.
    Good {
        /// The SHA-256 fingerprint of the signing key.
        fingerprint: String,
    },
    /// The signature was made for another namespace.
    WrongNamespace {
        /// The namespace it was made for.
        namespace: String,
    },
    /// The signature does not sign the statement.
    DoesNotSign,
    /// The signature signs the statement, but its key is not trusted.
    Untrusted {
        /// Why.
        why: Untrusted,
        /// The SHA-256 fingerprint of the signing key.
        fingerprint: String,
    },
}

impl SignatureVerdict {
    /// Whether the signature is good and trusted.
    pub fn is_good(&self) -> bool {
        matches!(self, SignatureVerdict::Good { .. })
    }
}

/// Checks the armored signature `armored` of `message` (the head statement), as
/// `ssh-keygen -Y verify -n toolreplay -I identity -f signers` does, at the current
/// time. See `check_at`.
pub fn check(
    armored: &str,
    signers: &str,
    identity: &str,
    message: &[u8],
) -> Result<SignatureVerdict, SignatureError> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    check_at(armored, signers, identity, message, now)
}

/// Checks the armored signature `armored` of `message` at `now` (seconds since the
/// Unix epoch): the signature is read exactly as ssh-keygen reads it (see
/// [`crate::sshsig`]; an unreadable one is an error), then its namespace, then the
/// signature itself over the data ssh-keygen rebuilds (an empty reserved field,
/// whatever the signature holds), then the lines of the allowed signers file `signers`
/// for `identity` (see [`crate::allowed_signers`]): the first line that allows the key
/// for the namespace at `now` makes it good. When none does, the first invalid line
/// that may name the identity is the error; without one, the verdict says why the key
/// is not trusted.
pub(crate) fn check_at(
    armored: &str,
    signers: &str,
    identity: &str,
    message: &[u8],
    now: u64,
) -> Result<SignatureVerdict, SignatureError> {
    let signature = sshsig::Signature::from_armored(armored.as_bytes())?;
    let ed25519 = sshsig::Ed25519::from_signature(&signature)?;
    if signature.namespace() != NAMESPACE.as_bytes() {
        return Ok(SignatureVerdict::WrongNamespace {
            namespace: String::from_utf8_lossy(signature.namespace()).into_owned(),
        });
    }
    let strict = ed25519_dalek::VerifyingKey::from_bytes(&ed25519.key).and_then(|key| {
        key.verify_strict(
            &sshsig::signed_data(NAMESPACE.as_bytes(), ed25519.hash, message),
            &ed25519_dalek::Signature::from_bytes(&ed25519.signature),
        )
    });
    if strict.is_err() {
        return Ok(SignatureVerdict::DoesNotSign);
    }

    let fingerprint = ssh_key::PublicKey::from(KeyData::Ed25519(Ed25519PublicKey(ed25519.key)))
        .fingerprint(HashAlg::Sha256)
        .to_string();
    let mut first_error = None;
    // How far the best line came: 0 names the identity, 1 holds the key, 2 also
    // allows the namespace.
    let mut furthest = None;
    for line in allowed_signers::entries_for(signers, identity) {
        let entry = match line {
            Ok(entry) => entry,
            Err(err) => {
                first_error.get_or_insert(err);
                continue;
            }
        };
        let reached = match entry.allows(&ed25519.key, NAMESPACE, now) {
            Allows::Yes => return Ok(SignatureVerdict::Good { fingerprint }),
            Allows::OtherKey => 0,
            Allows::OtherNamespace => 1,
            Allows::NotNow => 2,
        };
        furthest = furthest.max(Some(reached));
    }
    if let Some(err) = first_error {
        return Err(SignatureError::Signers(err));
    }
    let why = match furthest {
        None => Untrusted::NoKeyFor,
        Some(0) => Untrusted::KeyNotAllowed,
        Some(1) => Untrusted::NamespaceNotAllowed,
        Some(_) => Untrusted::NotValidNow,
    };
    Ok(SignatureVerdict::Untrusted { why, fingerprint })
}
