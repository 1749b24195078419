//! Importing an agent's log into a transcript, for `toolreplay import` and `--from`:
//! the log is read whole (standard input too, with the progress indicator), imported
//! by the core's [`toolreplay_core::input::import_bytes`] with what lies beside it,
//! and its notes and warnings are told on stderr.

use std::io::Write;
use std::path::Path;

use toolreplay_core::MAX_IMPORT_BYTES;
use toolreplay_core::input::{ImportedTranscript, import_bytes};

use crate::error::Error;

pub(crate) use toolreplay_core::input::{ImportOptions, Tally};

/// Imports the log at `path` (`-`: standard input) into a transcript; writes the
/// notes and warnings to `diagnostics`. With `strict`, any warning is an error, after
/// the warnings are written.
pub(crate) fn import_transcript(
    path: &Path,
    options: ImportOptions,
    diagnostics: &mut dyn Write,
) -> Result<ImportedTranscript, Error> {
    import_counted(path, options, diagnostics, &mut Tally::default())
}

/// [`import_transcript`], telling in `tally` what was read.
pub(crate) fn import_counted(
    path: &Path,
    options: ImportOptions,
    diagnostics: &mut dyn Write,
    tally: &mut Tally,
) -> Result<ImportedTranscript, Error> {
    let bytes = super::read_whole(
        path,
        MAX_IMPORT_BYTES,
        &format!("{} GiB, the most an import reads", MAX_IMPORT_BYTES >> 30),
    )?;
    Ok(import_bytes(
        bytes,
        Some(path),
        options,
        diagnostics,
        tally,
    )?)
}
