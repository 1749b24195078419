//! `toolreplay verify SEALED [--head FILE_OR_DIGEST] [--signature SIG
//! --allowed-signers FILE --identity ID] [--format F]`: the chain, then the head
//! against the pinned one, then the signature of the head statement.

use std::path::Path;

use toolreplay_core::input::InputError;
use toolreplay_core::{
    AttestationError, AttestationVerdict, Head, MAX_HEAD_BYTES, Pin, SignatureError,
    SignatureVerdict, Threads, Verdict, check_attestation, check_signature as check_armored,
    compare_head, head_statement, is_digest, parse_pin,
};

use super::many::{self, Audited};
use crate::args::Format;
use crate::error::Error;
use crate::input::{self, display as shown};
use crate::printer::{Printer, Status};
use crate::render::{self, Asked, AttestationChecked, HeadCheck, SignatureChecked, VerifyReport};
use crate::settings::{AttestationCheck, Inputs, SignatureCheck};

use super::sign::{MAX_FILE_BYTES, MAX_FILE_WHAT};

/// What `verify` checks beyond the chain.
#[derive(Debug, Clone, Copy)]
struct Checks<'a> {
    /// `--head`: a pinned head, as a digest or a file.
    head: Option<&'a str>,
    /// `--signature`, `--allowed-signers` and `--identity`.
    signature: Option<&'a SignatureCheck>,
    /// `--attestation`, `--allowed-signers` and `--identity`.
    attestation: Option<&'a AttestationCheck>,
    /// The threads that read the chain.
    threads: Threads,
}

/// `toolreplay verify`: exit 0 when every chain is intact and every check asked for
/// holds, 1 otherwise.
pub(super) fn run(
    inputs: &Inputs,
    (head, signature, attestation): (
        Option<&str>,
        Option<&SignatureCheck>,
        Option<&AttestationCheck>,
    ),
    format: Format,
    threads: Threads,
    printer: &mut Printer,
) -> Result<Status, Error> {
    let checks = Checks {
        head,
        signature,
        attestation,
        threads,
    };
    printer.set_format(format);
    many::audit_files(
        "verify",
        inputs,
        None,
        (false, None),
        printer,
        |path, printer, _| audit_one(path, checks, printer),
    )
}

/// The pinned head named by `--head`: the argument itself when it is a digest (64
/// lowercase hex digits), otherwise a file holding a statement or a digest.
fn read_pin(arg: &str) -> Result<Pin, Error> {
    if is_digest(arg) {
        return Ok(Pin::Digest(arg.to_owned()));
    }
    let path = Path::new(arg);
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(input::open_raw(path)?, MAX_HEAD_BYTES + 1),
        &mut bytes,
    )
    .map_err(|source| {
        Error::Input(InputError::Read {
            path: shown(path),
            source,
        })
    })?;
    parse_pin(&bytes).map_err(|err| {
        Error::Input(InputError::Input {
            path: shown(path),
            line: err.line,
            message: err.message,
        })
    })
}

/// Checks the signature of `message` (the head statement) named by `check`.
fn check_signature(check: &SignatureCheck, message: &[u8]) -> Result<SignatureVerdict, Error> {
    // Bytes that are not UTF-8 can only be after the end line, where ssh-keygen
    // ignores them, or where they make the signature invalid either way.
    let armored = String::from_utf8_lossy(&input::read_whole(
        &check.signature,
        MAX_FILE_BYTES,
        MAX_FILE_WHAT,
    )?)
    .into_owned();
    let signers = super::read_text(&check.allowed_signers, MAX_FILE_BYTES, MAX_FILE_WHAT)?;
    check_armored(&armored, &signers, &check.identity, message).map_err(|err| match err {
        SignatureError::Signers(err) => Error::Input(InputError::Input {
            path: shown(&check.allowed_signers),
            line: err.line,
            message: err.message,
        }),
        other => Error::Input(InputError::Invalid {
            path: shown(&check.signature),
            message: other.to_string(),
        }),
    })
}

/// Checks the attestation named by `check` against the file whose bytes have the
/// SHA-256 `sha256` and whose chain ends at `head`.
fn check_attested(
    check: &AttestationCheck,
    sha256: &str,
    head: &Head,
) -> Result<AttestationVerdict, Error> {
    let envelope = input::read_whole(&check.attestation, MAX_FILE_BYTES, MAX_FILE_WHAT)?;
    let signers = super::read_text(&check.allowed_signers, MAX_FILE_BYTES, MAX_FILE_WHAT)?;
    check_attestation(&envelope, &signers, check.identity.as_deref(), sha256, head).map_err(|err| {
        match err {
            AttestationError::Signers(err) => Error::Input(InputError::Input {
                path: shown(&check.allowed_signers),
                line: err.line,
                message: err.message,
            }),
            other => Error::Input(InputError::Invalid {
                path: shown(&check.attestation),
                message: other.to_string(),
            }),
        }
    })
}

/// The verify report of the sealed transcript at `path`: the chain, and when it is
/// intact the checks asked for.
fn report(path: &Path, checks: Checks<'_>) -> Result<VerifyReport, Error> {
    let pin = checks.head.map(read_pin).transpose()?;
    let look_for = pin.as_ref().map(Pin::digest);
    // The file's own SHA-256 is a second pass of the hash over every byte, taken as
    // the file is read: only an attestation names it, so only then is it taken.
    let (checked, sha256) = match checks.attestation {
        Some(_) => {
            let (checked, sha256) = super::head::check_hashed(path, look_for, checks.threads)?;
            (checked, Some(sha256))
        }
        None => (super::head::check(path, look_for, checks.threads)?, None),
    };
    let mut report = VerifyReport {
        asked: Asked {
            head: pin.is_some(),
            signature: checks.signature.is_some(),
            attestation: checks.attestation.is_some(),
        },
        verdict: checked.verdict.clone(),
        head: None,
        signature: None,
        attestation: None,
    };
    let Verdict::Intact { links, head } = &checked.verdict else {
        return Ok(report);
    };
    let head = Head {
        links: *links,
        digest: head.clone(),
    };
    if let Some(pin) = pin {
        report.head = Some(HeadCheck {
            verdict: compare_head(&pin, &head, checked.found_at),
            pin,
            head: head.clone(),
        });
    }
    if let Some(check) = checks.signature {
        report.signature = Some(SignatureChecked {
            verdict: check_signature(check, head_statement(&head).as_bytes())?,
            identity: check.identity.clone(),
            allowed_signers: shown(&check.allowed_signers),
        });
    }
    if let (Some(check), Some(sha256)) = (checks.attestation, &sha256) {
        report.attestation = Some(AttestationChecked {
            verdict: check_attested(check, sha256, &head)?,
            identity: check.identity.clone(),
            allowed_signers: shown(&check.allowed_signers),
        });
    }
    Ok(report)
}

/// The verify report of the sealed transcript at `path`, to `printer`.
fn audit_one(path: &Path, checks: Checks<'_>, printer: &mut Printer) -> Result<Audited, Error> {
    let report = report(path, checks)?;
    printer.print(&render::verify(
        &report,
        &shown(path),
        printer.format(),
        printer.paint(),
    ))?;
    Ok(Audited {
        findings: toolreplay_core::Findings::new(),
        status: Status::clean_if(report.holds()),
    })
}
