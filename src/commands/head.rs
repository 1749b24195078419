//! `toolreplay head SEALED`: the statement of the head of an intact chain, the
//! message to pin or sign.

use std::io::Read;
use std::path::Path;
use std::sync::{Arc, Mutex};

use sha2::{Digest as _, Sha256};

use toolreplay_core::{Checked, Head, Threads, check_sealed, head_statement};

use crate::error::Error;
use crate::input;
use crate::printer::{Printer, Status};

/// Checks the sealed transcript at `path` as `verify` does, noting where the chain's
/// digest was `look_for`.
pub(super) fn check(
    path: &Path,
    look_for: Option<&str>,
    threads: Threads,
) -> Result<Checked, Error> {
    check_sealed(input::open_raw(path)?, look_for, threads)
        .map_err(|err| unsealed_hint(Error::reading(path, err)))
}

/// [`check`], and the SHA-256 of the bytes read (in hex), which are the whole file
/// when the chain is intact.
pub(super) fn check_hashed(
    path: &Path,
    look_for: Option<&str>,
    threads: Threads,
) -> Result<(Checked, String), Error> {
    let hasher = Arc::new(Mutex::new(Sha256::new()));
    let reader = Hashing {
        inner: input::open_raw(path)?,
        hasher: Arc::clone(&hasher),
    };
    let checked = check_sealed(reader, look_for, threads)
        .map_err(|err| unsealed_hint(Error::reading(path, err)))?;
    let digest = hasher
        .lock()
        .map(|hasher| hex::encode(hasher.clone().finalize()))
        .unwrap_or_default();
    Ok((checked, digest))
}

/// A reader that hashes what it reads.
struct Hashing {
    inner: Box<dyn Read + Send>,
    hasher: Arc<Mutex<Sha256>>,
}

impl Read for Hashing {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Ok(mut hasher) = self.hasher.lock() {
            hasher.update(&buf[..n]);
        }
        Ok(n)
    }
}

/// The head of the chain, or the refusal to go on with a broken one: the `verify`
/// report followed by `refused: {path}: the chain is broken; {refused}`.
pub(super) fn or_refuse(
    checked: &Checked,
    path: &Path,
    refused: &'static str,
) -> Result<Head, Error> {
    checked.head().ok_or_else(|| Error::Refused {
        verdict: Box::new(checked.verdict.clone()),
        path: input::display(path),
        refused,
    })
}

/// `toolreplay head SEALED`.
pub(super) fn run(path: &Path, threads: Threads, printer: &mut Printer) -> Result<Status, Error> {
    let head = or_refuse(&check(path, None, threads)?, path, "it has no head")?;
    printer.print(&head_statement(&head))?;
    Ok(Status::Clean)
}

/// A sealed transcript's error, with a hint when the input looks like a transcript
/// that was never sealed (its first record has no `prev`).
pub(super) fn unsealed_hint(err: Error) -> Error {
    match err {
        Error::Input(err) => Error::Input(err.with_unsealed_hint()),
        other => other,
    }
}
