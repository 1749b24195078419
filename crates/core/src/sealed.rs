//! Reading a sealed transcript: [`check`] is the one reader of the chain that
//! `verify`, `head`, `verify --head`, `verify --signature`, `seal --append` and
//! `sign` all use; the last four build on an intact chain and its head.

use std::convert::Infallible;
use std::io::Read;

use crate::chain::{self, GENESIS, Sealer, UnsealedLink, Verdict, Verifier};
use crate::pipeline::{self, Stop};
use crate::transcript::{CanonicalRecordRef, ReadError, for_each_record, parse_link};

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

/// Seals the transcript read from `reader` (spec section 6): hands each link, sealed,
/// to `sink`, in order. A placed record's index, as written, is the decimal form of
/// its place, so the links are made on the parsing threads; only the chain's hashing
/// is left to the walk in input order. `sink` gets nothing once an input error is
/// met, so a caller that holds the links back until the end writes all or nothing.
///
/// ```
/// let transcript = "{\"index\": 0, \"tool\": \"search\", \"args\": {\"q\": \"x\"}, \"response\": {}}\n";
/// let mut sealed = Vec::new();
/// toolreplay_core::sealed::seal(transcript.as_bytes(), |link| {
///     sealed.extend_from_slice(link.as_ref());
///     Ok::<(), std::convert::Infallible>(())
/// })
/// .map_err(toolreplay_core::pipeline::Stop::into_read_error)?;
/// let checked = toolreplay_core::sealed::check(&sealed[..], None)?;
/// assert_eq!(checked.head().map(|head| head.links), Some(1));
/// # Ok::<(), toolreplay_core::transcript::ReadError>(())
/// ```
pub fn seal<E: Send>(
    reader: impl Read + Send,
    mut sink: impl FnMut(UnsealedLink) -> Result<(), E> + Send,
) -> Result<(), Stop<E>> {
    let mut sealer = Sealer::new();
    let make = |record: CanonicalRecordRef<'_>| {
        UnsealedLink::new(record.index, record.tool, record.args, record.response)
    };
    for_each_record(reader, make, |_, _, _, mut link| {
        sealer.seal_link(&mut link);
        sink(link)
    })
}

/// Checks the sealed transcript read from `reader` as `verify` does, reading it whole
/// (so an input error anywhere is reported even after a broken link), and notes where
/// the chain's digest was `look_for`. Each link's digest is computed on the parsing
/// threads as the link states it; the walk in order only compares.
///
/// ```
/// use toolreplay_core::chain::Verdict;
///
/// let sealed = "{\"args\":{},\"digest\":\"0\",\"index\":0,\"prev\":\"0\",\"response\":{},\"tool\":\"t\"}\n";
/// let checked = toolreplay_core::sealed::check(sealed.as_bytes(), None)?;
/// assert!(matches!(checked.verdict, Verdict::Broken { position: 0, .. }));
/// # Ok::<(), toolreplay_core::transcript::ReadError>(())
/// ```
pub fn check(reader: impl Read + Send, look_for: Option<&str>) -> Result<Checked, ReadError> {
    let mut verifier = Verifier::new();
    let mut found_at = look_for.filter(|digest| *digest == GENESIS).map(|_| 0);
    let mut seen = 0u64;
    let parse = |line, text: &str| {
        let link = parse_link(line, text)?;
        let stated = chain::stated_digest(&link);
        Ok((link, stated))
    };
    pipeline::run(reader, parse, |line, (link, stated)| {
        verifier.check_hashed(line, &link, Some(&stated));
        seen += 1;
        if found_at.is_none() && look_for == Some(link.digest.as_str()) {
            found_at = Some(seen);
        }
        Ok::<(), Infallible>(())
    })
    .map_err(|stop| match stop {
        Stop::Read(err) => err,
        Stop::Consume(never) => match never {},
    })?;
    let verdict = verifier.finish();
    if !matches!(verdict, Verdict::Intact { .. }) {
        found_at = None;
    }
    Ok(Checked { verdict, found_at })
}
