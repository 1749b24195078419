//! Inspect AI `.eval` logs: a zip archive holding `header.json`, `summaries.json`
//! and one `samples/ID_epoch_N.json` per sample, each a sample object with its
//! `messages`.
//!
//! The samples are read in the order the archive lists them (the order Inspect AI
//! wrote them), each sample's messages as in [`super::openai`] (Inspect AI's calls,
//! `{"id", "function": "NAME", "arguments": {...}}`): one transcript for the whole
//! log, as for a `.json` log. A call's line is the line of its message in its sample
//! file, and a warning names the sample file. Only stored and deflated entries are
//! read; the archive's other files are not read. The entries read are decompressed
//! up to [`super::MAX_IMPORT_BYTES`] in all, so a small archive cannot make the
//! import hold more than a large input would. An archive without a `header.json` or
//! any `samples/*.json` is not an Inspect AI log, and an error.

use std::io::{Cursor, Read};

use crate::transcript::LineError;

use super::{Call, Document, Format, ImportError, MAX_IMPORT_BYTES, Pairing, Warning};

/// The conversation read beside the calls.
type Said = Vec<(usize, crate::claims::MessageKind, String)>;

fn error(message: String) -> ImportError {
    ImportError::Eval(message)
}

/// The calls and warnings of the `.eval` log `bytes`, and its samples'
/// conversation (read as in [`super::openai`], the samples one after another).
pub(crate) fn read(bytes: &[u8]) -> Result<(Vec<Call>, Vec<Warning>, Said), ImportError> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|err| error(format!("not a readable zip archive: {err}")))?;
    let mut pairing = Pairing::new(false);
    let (mut header, mut samples, mut total) = (false, 0usize, 0u64);
    for i in 0..archive.len() {
        let mut file = archive
            .by_index(i)
            .map_err(|err| error(format!("entry {i} of the zip archive: {err}")))?;
        let name = file
            .name()
            .map_err(|err| error(format!("entry {i} of the zip archive: {err}")))?
            .into_owned();
        if name == "header.json" {
            header = true;
        }
        if !(name.starts_with("samples/") && name.ends_with(".json")) {
            continue;
        }
        samples += 1;
        let mut text = Vec::new();
        (&mut file)
            .take(MAX_IMPORT_BYTES - total + 1)
            .read_to_end(&mut text)
            .map_err(|err| error(format!("{name} in the zip archive: {err}")))?;
        total += text.len() as u64;
        if total > MAX_IMPORT_BYTES {
            return Err(error(format!(
                "its samples hold more than {} GiB, the most an import reads",
                MAX_IMPORT_BYTES >> 30
            )));
        }
        let in_sample = |err: ImportError| match err {
            ImportError::Input(LineError { line, message }) => {
                error(format!("{name}, line {line}: {message}"))
            }
            other => error(format!("{name}: {other}")),
        };
        let document = Document::whole(&text).map_err(in_sample)?;
        let Document::Object(raw, members) = document else {
            return Err(error(format!("{name}: not a sample object")));
        };
        let before = pairing.warnings_len();
        let items = super::detect::document_items(Format::Openai, raw, members);
        super::openai::read(Box::new(items.into_iter().map(Ok)), &mut pairing)
            .map_err(|err| in_sample(ImportError::Input(err)))?;
        pairing.name_warnings(before, &name);
    }
    if !header && samples == 0 {
        return Err(error(
            "a zip archive, but not an Inspect AI .eval log: no header.json and no samples/*.json"
                .to_owned(),
        ));
    }
    let said = std::mem::take(&mut pairing.said);
    let (calls, mut warnings) = pairing.finish();
    warnings.sort_by_key(|w| w.line);
    Ok((
        calls.into_iter().map(|(_, call)| call).collect(),
        warnings,
        said,
    ))
}
