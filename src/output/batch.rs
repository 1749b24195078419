//! Writing many owned lines to a file without copying them into a buffer first: they
//! are held until about [`BATCH_BYTES`] are pending, then written with one vectored
//! write. On Linux the kernel is also asked to start writing each stretch of
//! [`WRITEBACK_BYTES`] to disk as soon as it is written, so that the final flush to
//! disk (see [`crate::output::atomic::AtomicFile::commit`]) does not have the whole file
//! left to write while nothing else happens, and to drop the pages of what is on disk
//! already, so that the output is written through a few stretches of the page cache
//! used again and again rather than through fresh memory for all of it.

use std::fs::File;
use std::io::{self, IoSlice, Write};

/// How many bytes are held before they are written.
pub const BATCH_BYTES: usize = 1 << 20;

/// The most lines written by one call (the usual `IOV_MAX`).
const MAX_SLICES: usize = 1024;

/// How many written bytes are handed to the kernel's write-back at a time.
pub const WRITEBACK_BYTES: u64 = 32 << 20;

/// Owned pieces of output (`T`), written to `file` in order.
#[derive(Debug)]
pub struct BatchWriter<'f, T> {
    file: &'f File,
    pending: Vec<T>,
    pending_bytes: usize,
    written: u64,
    written_back: u64,
}

impl<'f, T: AsRef<[u8]>> BatchWriter<'f, T> {
    /// A writer that appends to `file` from its current position, which is its start.
    pub fn new(file: &'f File) -> Self {
        BatchWriter {
            file,
            pending: Vec::new(),
            pending_bytes: 0,
            written: 0,
            written_back: 0,
        }
    }

    /// Appends `piece`; it is written once enough is pending.
    pub fn push(&mut self, piece: T) -> io::Result<()> {
        self.pending_bytes += piece.as_ref().len();
        self.pending.push(piece);
        if self.pending_bytes >= BATCH_BYTES || self.pending.len() >= MAX_SLICES {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes everything pending.
    pub fn flush(&mut self) -> io::Result<()> {
        let mut slices: Vec<IoSlice<'_>> = self
            .pending
            .iter()
            .map(|p| IoSlice::new(p.as_ref()))
            .collect();
        let mut rest = slices.as_mut_slice();
        let mut left = self.pending_bytes;
        while left > 0 {
            match self.file.write_vectored(rest) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    left = left.saturating_sub(n);
                    IoSlice::advance_slices(&mut rest, n);
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err),
            }
        }
        drop(slices);
        self.written += self.pending_bytes as u64;
        self.pending.clear();
        self.pending_bytes = 0;
        if self.written - self.written_back >= WRITEBACK_BYTES {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek, SeekFrom};

    /// Pieces of every size, from empty to larger than a batch, come back in order,
    /// and write-back is started once enough was written.
    #[test]
    fn writes_every_piece_in_order() {
        let mut file = tempfile::tempfile().unwrap();
        let mut expected = Vec::new();
        {
            let mut writer = BatchWriter::new(&file);
            for i in 0..3000usize {
                let piece = vec![(i % 251) as u8; (i * 7919) % 5000];
                expected.extend_from_slice(&piece);
                writer.push(piece).unwrap();
            }
            // Larger than a batch and than a stretch of write-back.
            let big = vec![7u8; WRITEBACK_BYTES as usize + 3];
            expected.extend_from_slice(&big);
            writer.push(big).unwrap();
            writer.push(Vec::new()).unwrap();
            writer.flush().unwrap();
            assert_eq!(writer.written, expected.len() as u64);
            assert_eq!(writer.written_back, writer.written);
        }
        let mut back = Vec::new();
        file.seek(SeekFrom::Start(0)).unwrap();
        file.read_to_end(&mut back).unwrap();
        assert_eq!(back.len(), expected.len());
        assert!(back == expected);
    }
}
