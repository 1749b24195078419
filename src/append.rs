//! `toolreplay seal --append SEALED NEW`: grow a sealed transcript, one call or many
//! at a time, into exactly the file that sealing the whole transcript gives.
//!
//! SEALED is copied into a temporary file beside it and the copy is verified, so what
//! was checked is what is kept; a broken chain is refused. NEW's records are sealed
//! after SEALED's head as links continuing its indices, and the temporary file is
//! flushed to disk and renamed over SEALED (over the file it points to, if it is a
//! symbolic link). On any error SEALED is left as it was.
//!
//! NEW's indices may be numbered from 0 (a transcript of the new calls alone) or
//! continue SEALED's (the new calls cut out of the whole transcript); the first record
//! decides which, and every later one must follow it. Either way the links carry the
//! continued indices.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use crate::atomic::AtomicFile;
use crate::commands::{Outcome, Output, Status};
use crate::error::Error;
use crate::input::display as shown;
use toolreplay_core::chain::Sealer;
use toolreplay_core::sealed;
use toolreplay_core::transcript::{LineError, Lines, Record, parse_record};

/// `toolreplay seal --append SEALED NEW`.
pub fn append(sealed_path: &Path, new_path: &Path) -> Result<Outcome, Error> {
    append_from(sealed_path, new_path, || crate::input::open(new_path))
}

/// [`append`] with NEW's transcript read from what `open_new` gives (named
/// `new_path` in errors), opened once SEALED has been checked.
pub fn append_from(
    sealed_path: &Path,
    new_path: &Path,
    open_new: impl FnOnce() -> Result<Box<dyn BufRead + Send>, Error>,
) -> Result<Outcome, Error> {
    if crate::input::is_stdin(sealed_path) {
        return Err(Error::Usage(
            "--append rewrites SEALED in place, so SEALED must be a file, not -".to_owned(),
        ));
    }
    let write_error = |source| Error::Write {
        target: shown(sealed_path),
        source,
    };
    let mut source = crate::input::open(sealed_path)?;
    // Through a symbolic link, the file it points to is the one replaced.
    let target = std::fs::canonicalize(sealed_path).map_err(|source| Error::Read {
        path: shown(sealed_path),
        source,
    })?;
    let mut temp = AtomicFile::new(&target).map_err(write_error)?;
    let last = copy(sealed_path, &mut source, temp.file())?;
    drop(source);

    let mut copy = temp.reopen().map_err(write_error)?;
    copy.seek(SeekFrom::Start(0)).map_err(write_error)?;
    let checked = sealed::check_reader(BufReader::new(copy), None)
        .map_err(|err| Error::reading(sealed_path, err))?;
    let head = crate::trust::head_or_refuse(&checked, sealed_path, "nothing was appended")?;

    let mut writer = BufWriter::with_capacity(1 << 20, temp.file());
    if last.is_some_and(|byte| byte != b'\n') {
        writer.write_all(b"\n").map_err(write_error)?;
    }
    let mut sealer = Sealer::after(&head.digest);
    let mut lines = Lines::new(open_new()?);
    let mut first_index = None;
    let mut count = 0u64;
    let mut line_out = Vec::new();
    while let Some((line, text)) = lines
        .next_line()
        .map_err(|err| Error::reading(new_path, err))?
    {
        let parsed = match first_index {
            Some(first) => parse_record(line, text, first + count),
            None => first_record(line, text, head.links).map(|(record, first)| {
                first_index = Some(first);
                record
            }),
        };
        let mut record: Record = parsed.map_err(|err| Error::Input {
            path: shown(new_path),
            line: err.line,
            message: err.message,
        })?;
        record.index = head.links + count;
        line_out.clear();
        sealer.seal(&record, &mut line_out);
        writer.write_all(&line_out).map_err(write_error)?;
        count += 1;
    }
    writer.flush().map_err(write_error)?;
    drop(writer);
    temp.commit().map_err(write_error)?;
    Ok(Outcome {
        output: Output::Nothing,
        status: Status::Clean,
    })
}

/// Copies `source` (read from `path`) to `target`; returns the last byte copied.
fn copy(path: &Path, source: &mut impl Read, target: &mut File) -> Result<Option<u8>, Error> {
    let mut buf = vec![0; 1 << 16];
    let mut last = None;
    loop {
        let n = match source.read(&mut buf) {
            Ok(0) => return Ok(last),
            Ok(n) => n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(source) => {
                return Err(Error::Read {
                    path: shown(path),
                    source,
                });
            }
        };
        last = Some(buf[n - 1]);
        target.write_all(&buf[..n]).map_err(|source| Error::Write {
            target: shown(path),
            source,
        })?;
    }
}

/// Parses NEW's first record, numbered either from 0 or from `links` (SEALED's link
/// count); returns it and the index it was numbered from.
fn first_record(line: u64, text: &str, links: u64) -> Result<(Record, u64), LineError> {
    let at_zero = match parse_record(line, text, 0) {
        Ok(record) => return Ok((record, 0)),
        Err(err) if links == 0 => return Err(err),
        Err(err) => err,
    };
    match parse_record(line, text, links) {
        Ok(record) => Ok((record, links)),
        // The same error either way: it is not about the index.
        Err(at_links) if at_links.message == at_zero.message => Err(at_zero),
        Err(_) => Err(LineError {
            line,
            message: format!("{} or {links}", at_zero.message),
        }),
    }
}
