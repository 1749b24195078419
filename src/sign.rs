//! Signing the head statement with an SSH key, and checking such a signature, in
//! OpenSSH's SSHSIG format (`PROTOCOL.sshsig`), as `ssh-keygen -Y sign` and
//! `ssh-keygen -Y verify` do: namespace `toolreplay`, SHA-512 as the message hash
//! when signing (SHA-256 and SHA-512 both accepted when checking), ed25519 keys.
//!
//! Signatures are checked with ed25519's strict verification (`verify_strict`: no
//! small-order keys, canonical encodings), over exactly the signed data of
//! `PROTOCOL.sshsig`, including the signature's reserved field.

use std::io::{IsTerminal as _, Read as _};
use std::path::Path;

use ssh_key::public::KeyData;
use ssh_key::{Algorithm, HashAlg, LineEnding, PrivateKey, SshSig};

use crate::allowed_signers;
use crate::error::Error;
use crate::input::display as shown;
use crate::report::quote_name;
use crate::sealed;

/// The SSHSIG namespace of ToolReplay signatures.
pub const NAMESPACE: &str = "toolreplay";

/// The environment variable that holds the passphrase of an encrypted key.
pub const PASSPHRASE_VAR: &str = "TOOLREPLAY_KEY_PASSPHRASE";

/// The largest key, signature or allowed signers file read, in bytes.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// Reads a small text file whole.
fn read_text(path: &Path) -> Result<String, Error> {
    let mut bytes = Vec::new();
    sealed::open(path)?
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| Error::Read {
            path: shown(path),
            source,
        })?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(invalid(path, "larger than 1 MiB"));
    }
    String::from_utf8(bytes).map_err(|_| invalid(path, "not valid UTF-8"))
}

fn invalid(path: &Path, message: impl Into<String>) -> Error {
    Error::Invalid {
        path: shown(path),
        message: message.into(),
    }
}

/// Reads the OpenSSH private key at `path`, decrypting it with the passphrase from
/// `TOOLREPLAY_KEY_PASSPHRASE` or, when that is not set and stdin is a terminal, one
/// asked for on the terminal.
pub fn read_key(path: &Path) -> Result<PrivateKey, Error> {
    let text = read_text(path)?;
    let key = PrivateKey::from_openssh(text.trim_start()).map_err(|_| {
        if is_public_key(&text) {
            invalid(path, "a public key; give the private key")
        } else {
            invalid(path, "not an OpenSSH private key")
        }
    })?;
    let key = if key.is_encrypted() {
        let passphrase = match std::env::var(PASSPHRASE_VAR) {
            Ok(passphrase) => passphrase,
            Err(_) if std::io::stdin().is_terminal() => {
                rpassword::prompt_password(format!("Enter passphrase for {}: ", shown(path)))
                    .map_err(|source| Error::Read {
                        path: "the terminal".to_owned(),
                        source,
                    })?
            }
            Err(_) => {
                return Err(invalid(
                    path,
                    format!(
                        "the key is encrypted: set {PASSPHRASE_VAR} or run on a terminal to be asked for its passphrase"
                    ),
                ));
            }
        };
        key.decrypt(passphrase.as_bytes())
            .map_err(|_| invalid(path, "wrong passphrase"))?
    } else {
        key
    };
    if key.algorithm() != Algorithm::Ed25519 {
        return Err(invalid(
            path,
            format!(
                "{} keys are not supported, only ssh-ed25519",
                key.algorithm()
            ),
        ));
    }
    Ok(key)
}

fn is_public_key(text: &str) -> bool {
    let text = text.trim_start();
    ["ssh-", "ecdsa-", "sk-"]
        .iter()
        .any(|prefix| text.starts_with(prefix))
}

/// The armored SSHSIG signature of `message` by `key`, namespace `toolreplay`,
/// SHA-512, ending with LF.
pub fn sign(key: &PrivateKey, key_path: &Path, message: &[u8]) -> Result<String, Error> {
    let signature = key
        .sign(NAMESPACE, HashAlg::Sha512, message)
        .map_err(|err| invalid(key_path, format!("cannot sign: {err}")))?;
    let mut armored = signature
        .to_pem(LineEnding::LF)
        .map_err(|err| invalid(key_path, format!("cannot sign: {err}")))?;
    if !armored.ends_with('\n') {
        armored.push('\n');
    }
    Ok(armored)
}

/// What `verify --signature` is given.
#[derive(Debug, Clone, Copy)]
pub struct SignatureCheck<'a> {
    /// The armored SSHSIG signature.
    pub signature: &'a Path,
    /// The allowed signers file.
    pub allowed_signers: &'a Path,
    /// The principal the signer must be.
    pub identity: &'a str,
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

/// Checks the signature of `message` (the head statement): namespace, then the
/// signature itself, then whether the allowed signers file allows its key for the
/// identity and namespace. Returns whether it is good and the report line, ending
/// with LF. Files that cannot be read or are not what they must be are errors.
pub fn check(check: &SignatureCheck, message: &[u8]) -> Result<(bool, String), Error> {
    let armored = read_text(check.signature)?;
    let signature = SshSig::from_pem(armored.trim())
        .map_err(|_| invalid(check.signature, "not an SSH signature"))?;
    let signers = read_text(check.allowed_signers)?;
    let entries =
        allowed_signers::entries_for(&signers, check.identity).map_err(|(line, message)| {
            Error::Input {
                path: shown(check.allowed_signers),
                line,
                message,
            }
        })?;
    let bad = |why: String| Ok((false, format!("signature: bad: {why}\n")));
    let untrusted = |why: String| Ok((false, format!("signature: not trusted: {why}\n")));

    if signature.namespace() != NAMESPACE {
        return bad(format!(
            "made for namespace {}, not {}",
            quote_name(signature.namespace()),
            quote_name(NAMESPACE)
        ));
    }
    let KeyData::Ed25519(public) = signature.public_key() else {
        return Err(invalid(
            check.signature,
            format!(
                "{} signatures are not supported, only ssh-ed25519",
                signature.algorithm()
            ),
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
        return bad("it does not sign the head of this chain".to_owned());
    }

    let fingerprint =
        ssh_key::PublicKey::from(signature.public_key().clone()).fingerprint(HashAlg::Sha256);
    let identity = quote_name(check.identity);
    let allowed = shown(check.allowed_signers);
    if entries.is_empty() {
        return untrusted(format!("no key for {identity} in {allowed}"));
    }
    let with_key: Vec<_> = entries
        .iter()
        .filter(|entry| !entry.cert_authority && entry.key.key_data() == signature.public_key())
        .collect();
    if with_key.is_empty() {
        return untrusted(format!(
            "the signing key {fingerprint} is not allowed for {identity} in {allowed}"
        ));
    }
    let in_namespace = with_key.iter().any(|entry| {
        entry.namespaces.as_deref().is_none_or(|namespaces| {
            allowed_signers::match_pattern_list(NAMESPACE, namespaces) == Some(true)
        })
    });
    if !in_namespace {
        return untrusted(format!(
            "the key of {identity} is not allowed for namespace {} in {allowed}",
            quote_name(NAMESPACE)
        ));
    }
    Ok((
        true,
        format!("signature: good: {identity} with ED25519 key {fingerprint}\n"),
    ))
}
