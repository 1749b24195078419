//! The commands that go beyond the chain: `head`, `sign`, and `verify` with a pinned
//! head or a signature.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::{IsTerminal as _, Read as _, Write as _};
use std::path::{Path, PathBuf};

use toolreplay_core::chain::Verdict;
use toolreplay_core::finding::quote_name;
use toolreplay_core::head::{self, HeadVerdict, Pin};
use toolreplay_core::sealed::{self, Checked, Head};
use toolreplay_core::sign::{self, Key, KeyError, SignatureVerdict, Untrusted};

use crate::atomic::AtomicFile;
use crate::commands::{Outcome, Output, Status};
use crate::error::Error;
use crate::input::{self, display as shown};
use crate::render;

/// The environment variable that holds the passphrase of an encrypted key.
pub const PASSPHRASE_VAR: &str = "TOOLREPLAY_KEY_PASSPHRASE";

/// The largest key, signature or allowed signers file read, in bytes.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// Checks the sealed transcript at `path` as `verify` does, noting where the chain's
/// digest was `look_for`.
pub fn check(path: &Path, look_for: Option<&str>) -> Result<Checked, Error> {
    sealed::check_reader(input::open(path)?, look_for).map_err(|err| Error::reading(path, err))
}

/// The head of the chain, or the refusal to go on with a broken one: the `verify`
/// report followed by `refused: {path}: the chain is broken; {what}`.
pub fn head_or_refuse(checked: &Checked, path: &Path, what: &str) -> Result<Head, Error> {
    checked.head().ok_or_else(|| Error::Refused {
        report: render::render_verify(&checked.verdict),
        refused: format!("{}: the chain is broken; {what}", shown(path)),
    })
}

/// `toolreplay head SEALED`: the statement of the head of an intact chain.
pub fn head(path: &Path) -> Result<Outcome, Error> {
    let head = head_or_refuse(&check(path, None)?, path, "it has no head")?;
    Ok(Outcome {
        output: Output::Text(head::statement(&head)),
        status: Status::Clean,
    })
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

/// What `verify` checks beyond the chain.
#[derive(Debug, Default)]
pub struct Checks<'a> {
    /// `--head`: a pinned head, as a digest or a file.
    pub head: Option<&'a str>,
    /// `--signature`, `--allowed-signers` and `--identity`.
    pub signature: Option<SignatureCheck<'a>>,
}

/// The pinned head named by `--head`: the argument itself when it is a digest (64
/// lowercase hex digits), otherwise a file holding a statement or a digest.
pub fn read_pin(arg: &str) -> Result<Pin, Error> {
    if head::is_digest(arg) {
        return Ok(Pin::Digest(arg.to_owned()));
    }
    let path = Path::new(arg);
    let mut bytes = Vec::new();
    input::open(path)?
        .take(head::MAX_HEAD_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| Error::Read {
            path: shown(path),
            source,
        })?;
    head::parse_pin(&bytes).map_err(|err| Error::Input {
        path: shown(path),
        line: err.line,
        message: err.message,
    })
}

/// `toolreplay verify SEALED [--head FILE_OR_DIGEST]`: the chain, then the head
/// against the pinned one. Without checks this is exactly `verify`.
pub fn verify(path: &Path, checks: &Checks) -> Result<Outcome, Error> {
    let pin = checks.head.map(read_pin).transpose()?;
    let checked = check(path, pin.as_ref().map(Pin::digest))?;
    let mut text = render::render_verify(&checked.verdict);
    let Verdict::Intact { links, head } = &checked.verdict else {
        return Ok(Outcome {
            output: Output::Text(text),
            status: Status::Findings,
        });
    };
    let head = Head {
        links: *links,
        digest: head.clone(),
    };
    let mut good = true;
    if let Some(pin) = &pin {
        let verdict = head::compare(pin, &head, checked.found_at);
        good &= verdict.matches();
        text.push_str(&render_head(verdict, pin, &head));
    }
    if let Some(signature) = &checks.signature {
        let verdict = check_signature(signature, head::statement(&head).as_bytes())?;
        good &= verdict.is_good();
        text.push_str(&render_signature(&verdict, signature));
    }
    Ok(Outcome {
        output: Output::Text(text),
        status: if good {
            Status::Clean
        } else {
            Status::Findings
        },
    })
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "link" } else { "links" }
}

/// The lines of `verify --head`, each ending with LF.
pub fn render_head(verdict: HeadVerdict, pin: &Pin, head: &Head) -> String {
    let mut out = String::new();
    match verdict {
        HeadVerdict::Matches => {
            out.push_str("head: matches\n");
            return out;
        }
        HeadVerdict::Extended { extra } => {
            let _ = writeln!(
                out,
                "head: differs: extended, {extra} {} after the pinned head",
                plural(extra)
            );
        }
        HeadVerdict::Truncated => {
            let links = match pin {
                Pin::Statement(pinned) => pinned.links,
                Pin::Digest(_) => 0,
            };
            let _ = writeln!(
                out,
                "head: differs: truncated or re-sealed, {} {} where the pinned head has {links}",
                head.links,
                plural(head.links)
            );
        }
        HeadVerdict::NotInChain => out.push_str(
            "head: differs: re-sealed or truncated, the pinned head is not in this chain\n",
        ),
    }
    let _ = match pin {
        Pin::Statement(pinned) => writeln!(
            out,
            "pinned: {} {}, {}",
            pinned.links,
            plural(pinned.links),
            pinned.digest
        ),
        Pin::Digest(digest) => writeln!(out, "pinned: {digest}"),
    };
    let _ = writeln!(
        out,
        "found: {} {}, {}",
        head.links,
        plural(head.links),
        head.digest
    );
    out
}

/// The line of `verify --signature`, ending with LF.
pub fn render_signature(verdict: &SignatureVerdict, check: &SignatureCheck) -> String {
    let identity = quote_name(check.identity);
    let allowed = shown(check.allowed_signers);
    match verdict {
        SignatureVerdict::Good { fingerprint } => {
            format!("signature: good: {identity} with ED25519 key {fingerprint}\n")
        }
        SignatureVerdict::WrongNamespace { namespace } => format!(
            "signature: bad: made for namespace {}, not {}\n",
            quote_name(namespace),
            quote_name(sign::NAMESPACE)
        ),
        SignatureVerdict::DoesNotSign => {
            "signature: bad: it does not sign the head of this chain\n".to_owned()
        }
        SignatureVerdict::Untrusted { why, fingerprint } => {
            let why = match why {
                Untrusted::NoKeyFor => format!("no key for {identity} in {allowed}"),
                Untrusted::KeyNotAllowed => format!(
                    "the signing key {fingerprint} is not allowed for {identity} in {allowed}"
                ),
                Untrusted::NamespaceNotAllowed => format!(
                    "the key of {identity} is not allowed for namespace {} in {allowed}",
                    quote_name(sign::NAMESPACE)
                ),
                Untrusted::NotValidNow => format!(
                    "the key of {identity} is not valid at this time (valid-after, valid-before) in {allowed}"
                ),
            };
            format!("signature: not trusted: {why}\n")
        }
    }
}

/// Reads a small text file whole.
fn read_text(path: &Path) -> Result<String, Error> {
    String::from_utf8(read_bytes(path)?).map_err(|_| invalid(path, "not valid UTF-8"))
}

/// Reads a small file whole.
fn read_bytes(path: &Path) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::new();
    input::open(path)?
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| Error::Read {
            path: shown(path),
            source,
        })?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(invalid(path, "larger than 1 MiB"));
    }
    Ok(bytes)
}

fn invalid(path: &Path, message: impl Into<String>) -> Error {
    Error::Invalid {
        path: shown(path),
        message: message.into(),
    }
}

/// Checks the signature of `message` (the head statement) named by `check`.
pub fn check_signature(check: &SignatureCheck, message: &[u8]) -> Result<SignatureVerdict, Error> {
    // Bytes that are not UTF-8 can only be after the end line, where ssh-keygen
    // ignores them, or where they make the signature invalid either way.
    let armored = String::from_utf8_lossy(&read_bytes(check.signature)?).into_owned();
    let signers = read_text(check.allowed_signers)?;
    sign::check(&armored, &signers, check.identity, message).map_err(|err| match err {
        sign::SignatureError::Signers(err) => Error::Input {
            path: shown(check.allowed_signers),
            line: err.line,
            message: err.message,
        },
        other => invalid(check.signature, other.to_string()),
    })
}

/// Reads the OpenSSH private key at `path`, decrypting it with the passphrase from
/// `TOOLREPLAY_KEY_PASSPHRASE` or, when that is not set and stdin is a terminal, one
/// asked for on the terminal.
pub fn read_key(path: &Path) -> Result<Key, Error> {
    let text = read_text(path)?;
    let key_error = |err: KeyError| invalid(path, err.to_string());
    let key = Key::parse(&text).map_err(key_error)?;
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
        key.decrypt(passphrase.as_bytes()).map_err(key_error)?
    } else {
        key
    };
    key.usable().map_err(key_error)
}

/// The signature file of `sealed`: its path with `.sig` appended.
pub fn signature_path(sealed: &Path) -> PathBuf {
    let mut name = OsString::from(sealed.as_os_str());
    name.push(".sig");
    PathBuf::from(name)
}

/// `toolreplay sign SEALED --key KEY`: checks the chain, then writes the SSHSIG
/// signature of its head statement to `SEALED.sig`, atomically.
pub fn sign(path: &Path, key_path: &Path) -> Result<Outcome, Error> {
    if input::is_stdin(path) {
        return Err(Error::Usage(
            "sign writes SEALED.sig beside the sealed transcript, so SEALED must be a file, not -"
                .to_owned(),
        ));
    }
    let head = head_or_refuse(&check(path, None)?, path, "nothing was signed")?;
    let key = read_key(key_path)?;
    let armored = sign::sign(&key, head::statement(&head).as_bytes())
        .map_err(|err| invalid(key_path, err.to_string()))?;
    let target = signature_path(path);
    let write_error = |source| Error::Write {
        target: shown(&target),
        source,
    };
    let mut file = AtomicFile::new(&target).map_err(write_error)?;
    file.file()
        .write_all(armored.as_bytes())
        .map_err(write_error)?;
    file.commit().map_err(write_error)?;
    Ok(Outcome {
        output: Output::Nothing,
        status: Status::Clean,
    })
}
