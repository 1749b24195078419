//! This project's own transcripts, read with `--from transcript` and `--from sealed`
//! (and recognised by `--from auto`).
//!
//! A plain transcript is read with the transcript reader's strictness (spec section
//! 1): each record is a call, its `response` as written. A sealed transcript's chain is
//! checked as it is read, as `verify` does: when a link does not check out, the whole
//! input is an error ([`ImportError::BrokenChain`]) and nothing is imported, so an
//! audit of a sealed input never reads a tampered record. The records of an intact
//! chain are the calls, without `prev` and `digest`.

use std::io::Cursor;

use crate::chain::{BrokenField, Verdict, Verifier};
use crate::transcript::{self, Lines, Links, ReadError};

use super::{ImportError, Pairing};

fn input_error(err: ReadError) -> ImportError {
    match err {
        ReadError::Input(err) => ImportError::Input(err),
        ReadError::Io(err) => ImportError::Whole(err.to_string()),
    }
}

/// Reads a plain transcript into `pairing`.
pub(crate) fn read_transcript(bytes: &[u8], pairing: &mut Pairing) -> Result<(), ImportError> {
    let mut lines = Lines::new(Cursor::new(bytes));
    let mut count = 0;
    while let Some((line, text)) = lines.next_line().map_err(input_error)? {
        let record = transcript::parse_canonical_record(line, text, count)?;
        pairing.call_unpaired(line, record.tool, record.args, Some(record.response));
        count += 1;
    }
    Ok(())
}

/// Reads a sealed transcript into `pairing`, checking its chain.
pub(crate) fn read_sealed(bytes: &[u8], pairing: &mut Pairing) -> Result<(), ImportError> {
    let mut verifier = Verifier::new();
    for item in Links::new(Cursor::new(bytes)) {
        let (line, link) = item.map_err(input_error)?;
        verifier.check(line, &link);
        pairing.call_unpaired(line, link.tool, link.args, Some(link.response));
    }
    match verifier.finish() {
        Verdict::Intact { .. } => Ok(()),
        Verdict::Broken {
            position,
            field,
            line,
            ..
        } => Err(ImportError::BrokenChain {
            line,
            position,
            what: match field {
                BrokenField::Prev => "its prev is not the digest of the link before it",
                BrokenField::Digest => "its digest does not match its content",
            }
            .to_owned(),
        }),
    }
}
