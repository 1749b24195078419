//! Checking a sealed transcript before building on it: `head`, `verify --head`,
//! `verify --signature`, `seal --append` and `sign` all start from an intact chain
//! and its head.

use std::io::BufRead;

use crate::chain::{GENESIS, Verdict, Verifier};
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
    /// The head of the chain when it is intact.
    pub fn head(&self) -> Option<Head> {
        match &self.verdict {
            Verdict::Intact { links, head } => Some(Head {
                links: *links,
                digest: head.clone(),
            }),
            Verdict::Broken { .. } => None,
        }
    }
}

/// Checks the sealed transcript read from `reader` as
/// `verify` does, reading it whole, and notes where the chain's digest was
/// `look_for`.
pub fn check_reader(reader: impl BufRead, look_for: Option<&str>) -> Result<Checked, ReadError> {
    let mut verifier = Verifier::new();
    let mut found_at = look_for.filter(|digest| *digest == GENESIS).map(|_| 0);
    let mut seen = 0u64;
    for item in Links::new(reader) {
        let (line, link) = item?;
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
