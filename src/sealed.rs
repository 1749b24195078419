//! Checking a sealed transcript before building on it: `head`, `verify --head`,
//! `verify --signature`, `seal --append` and `sign` all start from an intact chain
//! and its head.

use std::io::BufRead;
use std::path::Path;

use crate::chain::{GENESIS, Verdict, Verifier};
use crate::error::Error;
use crate::report;
use crate::transcript::{Links, ReadError};

/// The head of an intact chain: how many links it has and the last digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// How many links the chain has.
    pub links: u64,
    /// The digest of the last link (64 zeros for an empty chain).
    pub digest: String,
}

/// What checking a sealed transcript found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The verdict on the chain, as `verify` gives it.
    pub verdict: Verdict,
    /// When the chain is intact and `look_for` was given: after how many links the
    /// chain's digest was `look_for` (0 for the zeros before the first link).
    pub found_at: Option<u64>,
}

impl Checked {
    /// The head of the chain, or the refusal to go on with a broken one: the `verify`
    /// report followed by `refused: {path}: {what}`.
    pub fn head_or_refuse(&self, path: &Path, what: &str) -> Result<Head, Error> {
        match &self.verdict {
            Verdict::Intact { links, head } => Ok(Head {
                links: *links,
                digest: head.clone(),
            }),
            broken @ Verdict::Broken { .. } => Err(Error::Refused {
                report: report::render_verify(broken),
                refused: format!(
                    "{}: the chain is broken; {what}",
                    crate::input::display(path)
                ),
            }),
        }
    }
}

/// Opens an input for reading: a file, or standard input for `-`.
pub fn open(path: &Path) -> Result<Box<dyn BufRead + Send>, Error> {
    crate::input::open(path)
}

/// The error of a line of `path` that could not be read.
pub fn read_error(path: &Path, err: ReadError) -> Error {
    Error::reading(path, err)
}

/// Checks the sealed transcript read from `reader` (named `path` in errors) as
/// `verify` does, reading it whole, and notes where the chain's digest was
/// `look_for`.
pub fn check_reader(
    path: &Path,
    reader: impl BufRead,
    look_for: Option<&str>,
) -> Result<Checked, Error> {
    let mut verifier = Verifier::new();
    let mut found_at = look_for.filter(|digest| *digest == GENESIS).map(|_| 0);
    let mut seen = 0u64;
    for item in Links::new(reader) {
        let (line, link) = item.map_err(|err| read_error(path, err))?;
        verifier.check(line, &link);
        seen += 1;
        if found_at.is_none() && look_for == Some(link.digest.as_str()) {
            found_at = Some(seen);
        }
    }
    let verdict = verifier.finish();
    if !matches!(verdict, Verdict::Intact { .. }) {
        found_at = None;
    }
    Ok(Checked { verdict, found_at })
}

/// Checks the sealed transcript at `path`; see [`check_reader`].
pub fn check(path: &Path, look_for: Option<&str>) -> Result<Checked, Error> {
    check_reader(path, open(path)?, look_for)
}
