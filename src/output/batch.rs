//! Writing a long output to a file on a thread of its own, through one buffer.
//!
//! [`write_on_thread`] hands the pieces a producer makes to a writer thread over a
//! bounded channel, so the producer's work goes on while the file is written and
//! only a few pieces wait at a time. The writer ([`FileWriter`]) gathers the pieces
//! in a buffer of [`CHUNK_BYTES`] and writes it whole.
//!
//! On Linux, a regular file is written with `O_DIRECT` where the file system allows
//! it: each full buffer goes from memory to the disk without passing through the
//! page cache, which saves the kernel a copy of the whole output and the pages to
//! hold it. The buffer is aligned to [`ALIGN`] bytes, so every write is too; the last
//! stretch, shorter than that, is written after `O_DIRECT` is turned off again.
//! Wherever `O_DIRECT` is refused (the flag cannot be set, or a write gives `EINVAL`,
//! as on tmpfs or some FUSE and overlay file systems) the writer goes on with
//! ordinary writes from where it was, silently: the bytes written are the same
//! either way. Written the ordinary way, the kernel is asked to start writing each
//! stretch of [`WRITEBACK_BYTES`] to disk as soon as it is written, so that the
//! final flush to disk (see [`crate::output::atomic::AtomicFile::commit`]) does not
//! have the whole file left to write while nothing else happens, and to drop the
//! pages of what is on disk already.

use std::fs::File;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

/// How many bytes the writer gathers before it writes them: a multiple of [`ALIGN`].
pub(crate) const CHUNK_BYTES: usize = 4 << 20;

/// The alignment of memory, file offset and length that `O_DIRECT` asks for (the
/// page size and the largest usual logical block size).
pub(crate) const ALIGN: usize = 4096;

/// How many written bytes are handed to the kernel's write-back at a time, when the
/// file is written the ordinary way.
pub(crate) const WRITEBACK_BYTES: u64 = 32 << 20;

/// How many pieces may wait for the writer thread: enough for a few milliseconds of
/// a disk that is slow to answer, while the memory they hold stays small.
const QUEUE: usize = 8;

/// Writes bytes to a file from its current position (its start), a buffer at a
/// time; see the module documentation.
#[derive(Debug)]
pub(crate) struct FileWriter<'f> {
    file: &'f File,
    /// [`CHUNK_BYTES`] and [`ALIGN`] more, so that an aligned buffer fits in it.
    buffer: Vec<u8>,
    /// Where the aligned buffer starts in `buffer`.
    at: usize,
    /// How many bytes of the aligned buffer are filled.
    filled: usize,
    /// Whether the file is being written with `O_DIRECT`.
    direct: bool,
    written: u64,
    written_back: u64,
}

impl<'f> FileWriter<'f> {
    /// A writer to `file`, with `O_DIRECT` when `direct` is asked and the file system
    /// takes it (`file` should then be a regular file that is only written here).
    pub(crate) fn new(file: &'f File, direct: bool) -> Self {
        let buffer = vec![0; CHUNK_BYTES + ALIGN];
        let at = buffer.as_ptr().align_offset(ALIGN);
        let (at, direct) = if at < ALIGN {
            (at, direct && set_direct(file, true).is_ok())
        } else {
            (0, false)
        };
        FileWriter {
            file,
            buffer,
            at,
            filled: 0,
            direct,
            written: 0,
            written_back: 0,
        }
    }

    /// Whether the file is (still) being written with `O_DIRECT`.
    #[cfg(test)]
    fn is_direct(&self) -> bool {
        self.direct
    }

    /// Appends `bytes`; they are written once a buffer is full, or by [`Self::finish`].
    pub(crate) fn write(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            let n = (CHUNK_BYTES - self.filled).min(bytes.len());
            let to = self.at + self.filled;
            self.buffer[to..to + n].copy_from_slice(&bytes[..n]);
            self.filled += n;
            bytes = &bytes[n..];
            if self.filled == CHUNK_BYTES {
                self.write_out(CHUNK_BYTES)?;
            }
        }
        Ok(())
    }

    /// Writes everything appended and not written yet, and leaves the file without
    /// `O_DIRECT`.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        if self.direct {
            let aligned = self.filled / ALIGN * ALIGN;
            if aligned > 0 {
                self.write_out(aligned)?;
            }
            if self.direct {
                self.direct = false;
                set_direct(self.file, false)?;
            }
        }
        if self.filled > 0 {
            self.write_out(self.filled)?;
        }
        Ok(())
    }

    /// Writes the first `len` bytes of the buffer, and keeps the rest at its start.
    fn write_out(&mut self, len: usize) -> io::Result<()> {
        let mut done = 0;
        while done < len {
            let piece = &self.buffer[self.at + done..self.at + len];
            match (&*self.file).write(piece) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    done += n;
                    if self.direct && done % ALIGN != 0 {
                        // A short write leaves the rest unaligned.
                        self.direct = false;
                        set_direct(self.file, false)?;
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) if self.direct && is_refused(&err) => {
                    // Refused as it is direct, not written: written again as usual.
                    self.direct = false;
                    set_direct(self.file, false)?;
                }
                Err(err) => return Err(err),
            }
        }
        let rest = self.filled - len;
        self.buffer
            .copy_within(self.at + len..self.at + self.filled, self.at);
        self.filled = rest;
        self.written += len as u64;
        if !self.direct && self.written - self.written_back >= WRITEBACK_BYTES {
            // The advice also covers the two stretches before, whose write-back was
            // started earlier and is likely done: their pages, clean by now, are
            // dropped and reused for what comes next, instead of fresh memory.
            let from = self.written_back.saturating_sub(2 * WRITEBACK_BYTES);
            start_writeback(self.file, from, self.written - from);
            self.written_back = self.written;
        }
        Ok(())
    }
}

/// Whether `err` is a write's refusal of `O_DIRECT` (nothing was written).
fn is_refused(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::InvalidInput
}

/// Sets or clears `O_DIRECT` on `file`.
#[cfg(target_os = "linux")]
fn set_direct(file: &File, on: bool) -> io::Result<()> {
    use rustix::fs::OFlags;
    let mut flags = rustix::fs::fcntl_getfl(file)?;
    flags.set(OFlags::DIRECT, on);
    rustix::fs::fcntl_setfl(file, flags)?;
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn set_direct(_file: &File, on: bool) -> io::Result<()> {
    if on {
        Err(io::ErrorKind::Unsupported.into())
    } else {
        Ok(())
    }
}

/// Asks the kernel to start writing `len` bytes of `file` from `offset` to disk, and
/// not to wait for it. This is advice only: whether it is taken changes nothing but
/// when the data reaches the disk, so an error is ignored.
#[cfg(target_os = "linux")]
fn start_writeback(file: &File, offset: u64, len: u64) {
    // POSIX_FADV_DONTNEED starts the write-back of the range's dirty pages without
    // waiting, and lets the kernel drop its clean ones: the output is not read again.
    if let Some(len) = std::num::NonZeroU64::new(len) {
        let _ = rustix::fs::fadvise(file, offset, Some(len), rustix::fs::Advice::DontNeed);
    }
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_file: &File, _offset: u64, _len: u64) {}

/// The writer thread has stopped, on an error that [`write_on_thread`] gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WriterStopped;

/// Hands pieces of output to the writer thread (or, without one, writes them).
#[derive(Debug)]
pub(crate) struct Pieces<'f, T> {
    to: To<'f, T>,
}

#[derive(Debug)]
enum To<'f, T> {
    Thread(mpsc::SyncSender<T>),
    Here {
        writer: Box<FileWriter<'f>>,
        error: Option<io::Error>,
    },
}

impl<T: AsRef<[u8]>> Pieces<'_, T> {
    /// Queues `piece` for writing; waits while the queue is full.
    pub(crate) fn send(&mut self, piece: T) -> Result<(), WriterStopped> {
        match &mut self.to {
            To::Thread(sender) => sender.send(piece).map_err(|_| WriterStopped),
            To::Here { writer, error } => match writer.write(piece.as_ref()) {
                Ok(()) => Ok(()),
                Err(err) => {
                    *error = Some(err);
                    Err(WriterStopped)
                }
            },
        }
    }
}

/// Runs `produce` on this thread while a thread of its own writes, in order, the
/// pieces it sends to `file` with a [`FileWriter`] (`direct` as there), and hands
/// each piece written to `recycle`. Once
/// `produce` succeeds, everything is written; when it fails, what is still waiting
/// is not. Gives what `produce` gave and how the writing went: its first error, if
/// any (the pieces before it written, none after it).
pub(crate) fn write_on_thread<T, R, E>(
    file: &File,
    direct: bool,
    recycle: impl Fn(T) + Sync,
    produce: impl FnOnce(&mut Pieces<'_, T>) -> Result<R, E>,
) -> (Result<R, E>, io::Result<()>)
where
    T: AsRef<[u8]> + Send,
{
    let (sender, receiver) = mpsc::sync_channel::<T>(QUEUE);
    let failed = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("toolreplay-write".to_owned())
            .spawn_scoped(scope, || {
                let mut writer = FileWriter::new(file, direct);
                for piece in receiver {
                    if failed.load(Ordering::Relaxed) {
                        return Ok(());
                    }
                    writer.write(piece.as_ref())?;
                    recycle(piece);
                }
                if failed.load(Ordering::Relaxed) {
                    return Ok(());
                }
                writer.finish()
            });
        let Ok(thread) = spawned else {
            // No thread to write on: each piece is written as it is sent.
            let mut pieces = Pieces {
                to: To::Here {
                    writer: Box::new(FileWriter::new(file, direct)),
                    error: None,
                },
            };
            let produced = produce(&mut pieces);
            let written = match pieces.to {
                To::Here {
                    error: Some(err), ..
                } => Err(err),
                To::Here { mut writer, .. } if produced.is_ok() => writer.finish(),
                _ => Ok(()),
            };
            return (produced, written);
        };
        let mut pieces = Pieces {
            to: To::Thread(sender),
        };
        let produced = produce(&mut pieces);
        if produced.is_err() {
            failed.store(true, Ordering::Relaxed);
        }
        drop(pieces);
        let written = match thread.join() {
            Ok(written) => written,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        (produced, written)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek, SeekFrom};

    fn read_back(file: &mut File) -> Vec<u8> {
        let mut back = Vec::new();
        file.seek(SeekFrom::Start(0)).unwrap();
        file.read_to_end(&mut back).unwrap();
        back
    }

    /// Bytes that tell their places apart.
    fn bytes(len: usize, seed: usize) -> Vec<u8> {
        (0..len)
            .map(|i| ((i * 31 + seed * 7) % 251) as u8)
            .collect()
    }

    /// A new, empty file to write and read back, in a folder removed when the first
    /// value is dropped.
    fn new_file() -> (tempfile::TempDir, File) {
        let dir = tempfile::tempdir().unwrap();
        let file = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(dir.path().join("out"))
            .unwrap();
        (dir, file)
    }

    /// Writes `pieces` to a new file, directly if `direct` and allowed; gives what
    /// the file holds and whether it was still written directly before the end.
    fn write_pieces(pieces: &[Vec<u8>], direct: bool) -> (Vec<u8>, bool) {
        let (_dir, mut file) = new_file();
        let mut writer = FileWriter::new(&file, direct);
        for piece in pieces {
            writer.write(piece).unwrap();
        }
        let was_direct = writer.is_direct();
        writer.finish().unwrap();
        assert!(!writer.is_direct());
        drop(writer);
        (read_back(&mut file), was_direct)
    }

    /// Totals that are and are not multiples of the alignment or of the buffer,
    /// tiny and empty ones, and pieces larger than the buffer, come back exactly,
    /// written directly or not.
    #[test]
    fn writes_every_byte_in_order_directly_or_not() {
        let totals: Vec<Vec<Vec<u8>>> = vec![
            vec![],
            vec![Vec::new()],
            vec![bytes(1, 0)],
            vec![bytes(ALIGN, 1)],
            vec![bytes(ALIGN - 1, 2), bytes(1, 3), bytes(ALIGN + 1, 4)],
            vec![bytes(CHUNK_BYTES, 5)],
            vec![
                bytes(CHUNK_BYTES - 10, 6),
                bytes(20, 7),
                Vec::new(),
                bytes(5, 8),
            ],
            vec![bytes(3 * CHUNK_BYTES + 4 * ALIGN, 9)],
            vec![bytes(2 * CHUNK_BYTES + 12_345, 10), bytes(777, 11)],
            (0..3000).map(|i| bytes((i * 7919) % 5000, i)).collect(),
        ];
        for pieces in &totals {
            let expected = pieces.concat();
            for direct in [true, false] {
                let (back, was_direct) = write_pieces(pieces, direct);
                assert_eq!(back.len(), expected.len(), "direct {direct}");
                assert!(back == expected, "direct {direct}, {} bytes", back.len());
                if !direct {
                    assert!(!was_direct);
                }
            }
        }
    }

    /// A direct write that the kernel refuses (here made from memory out of
    /// alignment) is written again the ordinary way, from where the writer was.
    #[test]
    fn a_refused_direct_write_is_written_the_ordinary_way() {
        let (_dir, mut file) = new_file();
        let pieces = [bytes(CHUNK_BYTES, 1), bytes(CHUNK_BYTES + 5, 2)];
        let mut writer = FileWriter::new(&file, true);
        writer.write(&pieces[0]).unwrap();
        // The next buffer starts a byte past an aligned address.
        writer.at += 1;
        writer.write(&pieces[1]).unwrap();
        assert!(!writer.is_direct());
        writer.finish().unwrap();
        drop(writer);
        assert!(read_back(&mut file) == pieces.concat());
    }

    /// Written the ordinary way, the writer hands stretches to the write-back.
    #[test]
    fn starts_write_back_when_not_direct() {
        let mut file = tempfile::tempfile().unwrap();
        let big = bytes(WRITEBACK_BYTES as usize + 3, 1);
        let mut writer = FileWriter::new(&file, false);
        writer.write(&big).unwrap();
        writer.finish().unwrap();
        assert_eq!(writer.written, big.len() as u64);
        assert!(writer.written_back >= WRITEBACK_BYTES);
        drop(writer);
        assert!(read_back(&mut file) == big);
    }

    /// A file that cannot be written gives the error of the write, at the end or
    /// once a buffer is full.
    #[test]
    fn gives_the_error_of_a_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("read-only");
        std::fs::write(&path, b"").unwrap();
        let file = File::open(&path).unwrap();
        for direct in [true, false] {
            let mut writer = FileWriter::new(&file, direct);
            writer.write(b"abc").unwrap();
            assert!(writer.finish().is_err());
            let mut writer = FileWriter::new(&file, direct);
            assert!(writer.write(&bytes(CHUNK_BYTES + 1, 0)).is_err());
        }
        assert_eq!(std::fs::read(&path).unwrap(), b"");
    }

    /// The writer thread writes what is sent, in order, once the producer succeeds;
    /// nothing waiting once it fails; and stops the producer when a write fails.
    #[test]
    fn writes_on_a_thread_of_its_own() {
        let pieces: Vec<Vec<u8>> = (0..200).map(|i| bytes(50_000 + i * 13, i)).collect();
        let mut file = tempfile::tempfile().unwrap();
        let recycled = std::sync::Mutex::new(Vec::new());
        let recycle = |piece: Vec<u8>| recycled.lock().unwrap().push(piece);
        let (produced, written) = write_on_thread(&file, true, recycle, |sink| {
            for piece in &pieces {
                sink.send(piece.clone())?;
            }
            Ok::<_, WriterStopped>(7)
        });
        assert_eq!(produced, Ok(7));
        assert!(written.is_ok());
        assert!(read_back(&mut file) == pieces.concat());
        // Every piece is handed back once written, in order.
        assert!(recycled.into_inner().unwrap() == pieces);

        let file = tempfile::tempfile().unwrap();
        let (produced, written) = write_on_thread(&file, true, drop, |sink| {
            sink.send(b"never".to_vec()).map_err(|_| "stopped")?;
            Err::<(), _>("input error")
        });
        assert_eq!(produced, Err("input error"));
        assert!(written.is_ok());

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("read-only");
        std::fs::write(&path, b"").unwrap();
        let file = File::open(&path).unwrap();
        let (produced, written) = write_on_thread(&file, true, drop, |sink| {
            for piece in &pieces {
                sink.send(piece.clone())?;
            }
            Ok(())
        });
        assert_eq!(produced, Err(WriterStopped));
        assert!(written.is_err());
    }
}
