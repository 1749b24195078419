//! The commands that go beyond the chain: `head`, `sign`, and `verify` with a pinned
//! head or a signature.

use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::atomic::AtomicFile;
use crate::chain::Verdict;
use crate::commands::{Outcome, Output, Status};
use crate::error::Error;
use crate::head::{self, Pin};
use crate::report;
use crate::sealed;
use crate::sign::{self, SignatureCheck};

/// `toolreplay head SEALED`: the statement of the head of an intact chain.
pub fn head(path: &Path) -> Result<Outcome, Error> {
    let head = sealed::check(path, None)?.head_or_refuse(path, "it has no head")?;
    Ok(Outcome {
        output: Output::Text(head::statement(&head)),
        status: Status::Clean,
    })
}

/// What `verify` checks beyond the chain.
#[derive(Debug, Default)]
pub struct Checks<'a> {
    /// `--head`: a pinned head, as a digest or a file.
    pub head: Option<&'a str>,
    /// `--signature`, `--allowed-signers` and `--identity`.
    pub signature: Option<SignatureCheck<'a>>,
}

/// `toolreplay verify SEALED [--head FILE_OR_DIGEST]`: the chain, then the head
/// against the pinned one. Without checks this is exactly `verify`.
pub fn verify(path: &Path, checks: &Checks) -> Result<Outcome, Error> {
    let pin = checks.head.map(head::read_pin).transpose()?;
    let checked = sealed::check(path, pin.as_ref().map(Pin::digest))?;
    let mut text = report::render_verify(&checked.verdict);
    let Verdict::Intact { links, head } = &checked.verdict else {
        return Ok(Outcome {
            output: Output::Text(text),
            status: Status::Findings,
        });
    };
    let head = sealed::Head {
        links: *links,
        digest: head.clone(),
    };
    let mut good = true;
    if let Some(pin) = &pin {
        let (matches, lines) = head::compare(pin, &head, checked.found_at);
        good &= matches;
        text.push_str(&lines);
    }
    if let Some(signature) = &checks.signature {
        let (good_signature, line) = sign::check(signature, head::statement(&head).as_bytes())?;
        good &= good_signature;
        text.push_str(&line);
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

/// The signature file of `sealed`: its path with `.sig` appended.
pub fn signature_path(sealed: &Path) -> PathBuf {
    let mut name = OsString::from(sealed.as_os_str());
    name.push(".sig");
    PathBuf::from(name)
}

/// `toolreplay sign SEALED --key KEY`: checks the chain, then writes the SSHSIG
/// signature of its head statement to `SEALED.sig`, atomically.
pub fn sign(path: &Path, key_path: &Path) -> Result<Outcome, Error> {
    if crate::input::is_stdin(path) {
        return Err(Error::Usage(
            "sign writes SEALED.sig beside the sealed transcript, so SEALED must be a file, not -"
                .to_owned(),
        ));
    }
    let head = sealed::check(path, None)?.head_or_refuse(path, "nothing was signed")?;
    let key = sign::read_key(key_path)?;
    let armored = sign::sign(&key, key_path, head::statement(&head).as_bytes())?;
    let target = signature_path(path);
    let write_error = |source| Error::Write {
        target: crate::input::display(&target),
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
