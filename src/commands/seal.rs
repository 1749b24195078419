//! `toolreplay seal FILE [-o OUT]` and `toolreplay seal --append SEALED NEW`: every
//! link is made the same way, its line laid out with the record's canonical fields
//! and a blank digest and `prev` that the chain's [`Sealer`] fills in, in order
//! ([`toolreplay_core::seal`] writes a block of such lines at a time; `--append` makes an
//! [`UnsealedLink`] per record, since its indices are known only in order).
//!
//! `seal` sends the sealed transcript to stdout only once the whole input has been
//! read without error; to `OUT` it is written to a temporary file beside it, by a
//! writer thread (with `O_DIRECT` where the file system takes it, see
//! [`crate::output::batch`]), and renamed over it at the end.
//!
//! `--append` grows a sealed transcript, one call or many at a time, into exactly the
//! file that sealing the whole transcript gives. SEALED is copied into a temporary
//! file beside it and the copy is verified, so what was checked is what is kept; a
//! broken chain is refused. NEW's records are sealed after SEALED's head as links
//! continuing its indices, and the temporary file is flushed to disk and renamed over
//! SEALED (over the file it points to, if it is a symbolic link). On any error SEALED
//! is left as it was. A torn last line of SEALED (not a link: a writer stopped part
//! way through an append) is cut off the copy, with a note on stderr; a broken link
//! anywhere else is refused. NEW's indices may be numbered from 0 (a transcript of the new
//! calls alone) or continue SEALED's (the new calls cut out of the whole transcript);
//! the first record decides which, and every later one must follow it. Either way the
//! links carry the continued indices. An exclusive lock on `SEALED.lock` (the one
//! live sessions take) is held from reading SEALED to the rename, so concurrent
//! appends, and a guard writing the same session, never lose a link.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use toolreplay_core::input::InputError;
use toolreplay_core::{
    CanonicalRecordRef, LineError, ReadError, UnplacedRecord, parse_unplaced_with,
};
use toolreplay_core::{SealBuffers as Buffers, check_sealed, seal_reusing};
use toolreplay_core::{Sealer, UnsealedLink};
use toolreplay_core::{Stop, Threads, run_pipeline};

use crate::error::Error;
use crate::input::{self, ImportOptions, Transcript, display as shown};
use crate::live::lock::Lock;
use crate::live::{beside, cut_torn_tail};
use crate::output::atomic::AtomicFile;
use crate::output::batch::{self, WriterStopped};
use crate::output::spool::Spool;
use crate::printer::{Printer, Status};

/// `toolreplay seal FILE [--output OUT]`: the sealed transcript to `printer` once
/// the whole input is sealed, or to OUT.
pub(super) fn seal(
    file: &Path,
    from: Option<ImportOptions>,
    output: Option<&Path>,
    threads: Threads,
    printer: &mut Printer,
) -> Result<Status, Error> {
    let mut transcript = Transcript::open(file, from, &mut io::stderr())?;
    let reader = transcript.reader();
    let stopped = |stop| super::stopped(&transcript.path, stop);
    match output {
        None => {
            let mut spool = Spool::new();
            let buffers = Buffers::new();
            seal_reusing(reader, threads, &buffers, |lines| {
                spool.write(lines.as_ref()).map_err(Error::temporary)?;
                buffers.give_back(lines);
                Ok(())
            })
            .map_err(stopped)?;
            printer.copy(spool)?;
            Ok(Status::Clean)
        }
        Some(target) => {
            let write_error = |source| Error::writing(target, source);
            let mut file = AtomicFile::new(target).map_err(write_error)?;
            // The temporary file is only written here, so it may be written with
            // O_DIRECT; a target that is not a regular file is written as usual.
            let direct = file.is_atomic();
            // Each block's buffer, once written, is used again for a later block.
            let buffers = Buffers::new();
            let recycle = |lines| buffers.give_back(lines);
            let (sealed, written) =
                batch::write_on_thread(file.file(), direct, recycle, |pieces| {
                    seal_reusing(reader, threads, &buffers, |lines| pieces.send(lines))
                });
            // An error writing comes first: it was met on lines before any error of
            // the input, which the writer thread had not reached yet.
            written.map_err(write_error)?;
            sealed.map_err(|stop| match stop {
                Stop::Read(err) => stopped(Stop::Read(err)),
                // The writer stops only with an error, given above.
                Stop::Consume(WriterStopped) => write_error(io::ErrorKind::BrokenPipe.into()),
            })?;
            file.commit().map_err(write_error)?;
            Ok(Status::Clean)
        }
    }
}

/// `toolreplay seal --append SEALED NEW [--from F]`: NEW is opened (imported) once
/// SEALED has been checked.
pub(super) fn append(
    sealed_path: &Path,
    new_path: &Path,
    from: Option<ImportOptions>,
    threads: Threads,
) -> Result<Status, Error> {
    if input::is_stdin(sealed_path) {
        return Err(Error::Usage(
            "--append rewrites SEALED in place, so SEALED must be a file, not -".to_owned(),
        ));
    }
    let write_error = |source| Error::writing(sealed_path, source);
    // A SEALED that cannot be read is the same error as ever, before anything else.
    drop(input::open_raw(sealed_path)?);
    // Through a symbolic link, the file it points to is the one replaced.
    let mut temp = AtomicFile::new(sealed_path).map_err(write_error)?;
    if !temp.is_atomic() {
        return Err(Error::Usage(
            "--append rewrites SEALED in place, so SEALED must be a regular file".to_owned(),
        ));
    }
    // One writer at a time, as live sessions write: the lock is held from reading the
    // head to the rename, so a concurrent append or guard sees the new head.
    let _lock = Lock::take(&beside(temp.target(), ".lock"))?;
    // Opened under the lock: a writer that held it before has renamed its file in.
    let mut source = input::open(sealed_path)?;
    let mut last = copy(sealed_path, &mut source, temp.file())?;
    drop(source);
    // A writer stopped part way through an append left a torn last line: it goes.
    if let Some(start) = cut_torn_tail(sealed_path, temp.file(), false)? {
        last = (start > 0).then_some(b'\n');
    }

    let mut copy = temp.reopen().map_err(write_error)?;
    copy.seek(SeekFrom::Start(0)).map_err(write_error)?;
    let checked =
        check_sealed(copy, None, threads).map_err(|err| Error::reading(sealed_path, err))?;
    let head = super::head::or_refuse(&checked, sealed_path, "nothing was appended")?;

    let mut new = Transcript::open(new_path, from, &mut std::io::stderr())?;
    let mut writer = BufWriter::with_capacity(1 << 20, temp.file());
    if last.is_some_and(|byte| byte != b'\n') {
        writer.write_all(b"\n").map_err(write_error)?;
    }
    let mut sealer = Sealer::after(&head.digest);
    let mut first_index = None;
    let mut count = 0u64;
    // The index of each link is its place after SEALED's, known only in order; so the
    // parsing threads keep the record's canonical fields, and the link is made here.
    let keep = |record: CanonicalRecordRef<'_>| (record.args.to_vec(), record.response.to_vec());
    let parse = |line, text: &str| parse_unplaced_with(line, text, keep);
    let new_name = new.path.clone();
    run_pipeline(
        new.reader(),
        threads,
        parse,
        |_, record: UnplacedRecord<(Vec<u8>, Vec<u8>)>| {
            let placed = match first_index {
                Some(first) => record.place(first + count).map(|_| ()),
                None => first_place(&record, head.links).map(|first| {
                    first_index = Some(first);
                }),
            };
            placed.map_err(|err| Error::reading(&new_name, ReadError::Input(err)))?;
            let (args, response) = &record.value;
            let index = (head.links + count).to_string();
            let mut link = UnsealedLink::new(&index, &record.tool, args, response);
            sealer.seal_link(&mut link);
            writer.write_all(link.as_ref()).map_err(write_error)?;
            count += 1;
            Ok(())
        },
    )
    .map_err(|stop| super::stopped(&new_name, stop))?;
    writer.flush().map_err(write_error)?;
    drop(writer);
    temp.commit().map_err(write_error)?;
    Ok(Status::Clean)
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
                return Err(Error::Input(InputError::Read {
                    path: shown(path),
                    source,
                }));
            }
        };
        last = Some(buf[n - 1]);
        target.write_all(&buf[..n]).map_err(|source| Error::Write {
            target: shown(path),
            source,
        })?;
    }
}

/// Places NEW's first record, numbered either from 0 or from `links` (SEALED's link
/// count); gives the index it was numbered from.
fn first_place<T>(record: &UnplacedRecord<T>, links: u64) -> Result<u64, LineError> {
    let at_zero = match record.place(0) {
        Ok(_) => return Ok(0),
        Err(err) if links == 0 => return Err(err),
        Err(err) => err,
    };
    match record.place(links) {
        Ok(_) => Ok(links),
        Err(_) => Err(LineError {
            line: at_zero.line,
            message: format!("{} or {links}", at_zero.message),
        }),
    }
}
