//! A live session's context file, `S.context.jsonl` beside `S.jsonl` (the core's
//! `context` module says what it holds): appended to under the session's lock, one
//! sealed link per record, flushed like the calls' file.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};
use toolreplay_core::input::InputError;
use toolreplay_core::{ContextRecord, GENESIS, Sealer, UnsealedLink, Value};
use toolreplay_core::{encode_canonical, parse_link};

use crate::error::Error;

/// The last context a session recorded, kept in its state so that an event tells
/// whether its context changed without reading the context file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LastContext {
    #[serde(flatten)]
    pub record: ContextRecord,
    /// The directory the session started in: the first context's `cwd`.
    pub project: Option<String>,
}

fn io_error(path: &Path, what: &str) -> impl FnOnce(std::io::Error) -> Error {
    let what = format!("{what} {}", crate::input::display(path));
    move |source| Error::Io { what, source }
}

/// The last context recorded in the context file at `path` (none when it is missing
/// or holds none), read whole: only when the state does not say.
pub(crate) fn last_context(path: &Path) -> Result<Option<LastContext>, Error> {
    if !path.exists() {
        return Ok(None);
    }
    let mut read = crate::input::read_context(path)?;
    let project = read.records.first().and_then(|r| r.cwd.clone());
    Ok(read
        .records
        .pop()
        .map(|record| LastContext { record, project }))
}

/// One record of a context file: its tool, arguments and response.
pub(crate) type ContextEntry = (&'static str, Value, Value);

/// The record saying that `context` holds from the call at `from` on.
pub(crate) fn context_entry(context: &LastContext, from: u64) -> ContextEntry {
    (
        toolreplay_core::CONTEXT_TOOL,
        context.record.args(from),
        Value::object([]),
    )
}

/// Appends `entries` to the context file at `path` (created when missing), after its
/// last link, flushed to stable storage when `durable`. The caller holds the
/// session's lock.
pub(crate) fn append(path: &Path, entries: &[ContextEntry], durable: bool) -> Result<(), Error> {
    if entries.is_empty() {
        return Ok(());
    }
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)
        .map_err(io_error(path, "open"))?;
    // What a writer killed part way left is cut off, as in the calls' file.
    super::cut_torn_tail(path, &mut file, durable)?;
    let size = file.metadata().map_err(io_error(path, "read"))?.len();
    let (next, head, lf) = tail(&mut file, path, size)?;
    let mut sealer = Sealer::after(&head);
    let mut bytes = Vec::new();
    if lf {
        bytes.push(b'\n');
    }
    for (i, (tool, args, response)) in entries.iter().enumerate() {
        let index = (next + i as u64).to_string();
        let mut link = UnsealedLink::new(
            &index,
            tool,
            &encode_canonical(args),
            &encode_canonical(response),
        );
        sealer.seal_link(&mut link);
        bytes.extend_from_slice(link.as_ref());
    }
    let written = file
        .write_all(&bytes)
        .and_then(|()| if durable { file.sync_data() } else { Ok(()) });
    if let Err(source) = written {
        let _ = file.set_len(size);
        return Err(io_error(path, "append to")(source));
    }
    Ok(())
}

/// The index of the next link of the file of `size` bytes, the digest of its last
/// link, and whether a LF must come first; read from its last line only.
fn tail(file: &mut File, path: &Path, size: u64) -> Result<(u64, String, bool), Error> {
    if size == 0 {
        return Ok((0, GENESIS.to_owned(), false));
    }
    let (_, mut line) = super::last_line(file, size).map_err(io_error(path, "read"))?;
    let lf = line.last() != Some(&b'\n');
    if !lf {
        line.pop();
    }
    let text = std::str::from_utf8(&line).ok();
    let link = text.and_then(|text| parse_link(1, text).ok());
    let Some(link) = link else {
        return Err(Error::Input(InputError::Invalid {
            path: crate::input::display(path),
            message: "its last line is not a link of a sealed transcript".to_owned(),
        }));
    };
    let next = link
        .index
        .parse::<u64>()
        .ok()
        .and_then(|i| i.checked_add(1))
        .ok_or_else(|| {
            Error::Input(InputError::Invalid {
                path: crate::input::display(path),
                message: format!("its last link has index {}", link.index),
            })
        })?;
    Ok((next, link.digest, lf))
}
