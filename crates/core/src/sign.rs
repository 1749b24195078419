//! Signing the head statement with an SSH key, and checking such a signature, in
//! OpenSSH's SSHSIG format (`PROTOCOL.sshsig`), as `ssh-keygen -Y sign` and
//! `ssh-keygen -Y verify` do: namespace `toolreplay`, SHA-512 as the message hash
//! when signing (SHA-256 and SHA-512 both accepted when checking), ed25519 keys.
//!
//! Signatures are checked with ed25519's strict verification (`verify_strict`: no
//! small-order keys, canonical encodings), over exactly the signed data of
//! `PROTOCOL.sshsig`, including the signature's reserved field.

use ssh_key::public::KeyData;
use ssh_key::{Algorithm, HashAlg, LineEnding, PrivateKey, SshSig};

use crate::allowed_signers::{self, LineError};

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
    /// The signature is made with another algorithm than ssh-ed25519.
    #[error("{0} signatures are not supported, only ssh-ed25519")]
    Unsupported(String),
    /// A line of the allowed signers file that applies to the identity is invalid.
    #[error(transparent)]
    Signers(#[from] LineError),
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

/// The data an SSHSIG signature signs (`PROTOCOL.sshsig`).
fn signed_data(namespace: &str, reserved: &[u8], hash_alg: HashAlg, message: &[u8]) -> Vec<u8> {
    fn string(out: &mut Vec<u8>, bytes: &[u8]) {
        let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(bytes);
    }
    let mut out = b"SSHSIG".to_vec();
    string(&mut out, namespace.as_bytes());
    string(&mut out, reserved);
    string(&mut out, hash_alg.as_str().as_bytes());
    string(&mut out, &hash_alg.digest(message));
    out
}

/// Checks the armored signature `armored` of `message` (the head statement):
/// namespace, then the signature itself, then whether the allowed signers file
/// `signers` allows its key for `identity` and the namespace. A signature that cannot
/// be read, or an invalid line of the file that applies to `identity`, is an error.
pub fn check(
    armored: &str,
    signers: &str,
    identity: &str,
    message: &[u8],
) -> Result<SignatureVerdict, SignatureError> {
    let signature = SshSig::from_pem(armored.trim()).map_err(|_| SignatureError::NotASignature)?;
    let entries = allowed_signers::entries_for(signers, identity)?;
    if signature.namespace() != NAMESPACE {
        return Ok(SignatureVerdict::WrongNamespace {
            namespace: signature.namespace().to_owned(),
        });
    }
    let KeyData::Ed25519(public) = signature.public_key() else {
        return Err(SignatureError::Unsupported(
            signature.algorithm().to_string(),
        ));
    };
    let strict = ed25519_dalek::VerifyingKey::from_bytes(&public.0).and_then(|key| {
        let sig = ed25519_dalek::Signature::from_slice(signature.signature_bytes())?;
        key.verify_strict(
            &signed_data(
                signature.namespace(),
                signature.reserved(),
                signature.hash_alg(),
                message,
            ),
            &sig,
        )
    });
    if strict.is_err() {
        return Ok(SignatureVerdict::DoesNotSign);
    }

    let fingerprint = ssh_key::PublicKey::from(signature.public_key().clone())
        .fingerprint(HashAlg::Sha256)
        .to_string();
    let untrusted = |why| {
        Ok(SignatureVerdict::Untrusted {
            why,
            fingerprint: fingerprint.clone(),
        })
    };
    if entries.is_empty() {
        return untrusted(Untrusted::NoKeyFor);
    }
    let with_key = entries
        .iter()
        .filter(|entry| !entry.cert_authority && entry.key.key_data() == signature.public_key());
    let mut any_key = false;
    let mut in_namespace = false;
    for entry in with_key {
        any_key = true;
        in_namespace |= entry.namespaces.as_deref().is_none_or(|namespaces| {
            allowed_signers::match_pattern_list(NAMESPACE, namespaces) == Some(true)
        });
    }
    if !any_key {
        return untrusted(Untrusted::KeyNotAllowed);
    }
    if !in_namespace {
        return untrusted(Untrusted::NamespaceNotAllowed);
    }
    Ok(SignatureVerdict::Good { fingerprint })
}
