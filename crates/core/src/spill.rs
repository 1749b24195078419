//! Bytes held in memory while few, in an anonymous temporary file beyond that: the
//! one spill buffer of ToolReplay, under an audit's findings ([`crate::Findings`])
//! and the binary's held-back output, so that memory does not grow with either.

use std::fs::File;
use std::io::{self, Read, Write as _};

/// Bytes written at the end and read back from any offset: the last ones in memory
/// (at most `limit` of them before they move on), the earlier ones in an anonymous
/// temporary file made when they first outgrow memory.
///
/// ```
/// use toolreplay_core::Spill;
///
/// let mut spill = Spill::new(4);
/// spill.write(b"held ")?;
/// spill.write(b"back")?;
/// let mut read = Vec::new();
/// std::io::Read::read_to_end(&mut spill.reader(), &mut read)?;
/// assert_eq!(read, b"held back");
/// assert_eq!(spill.len(), 9);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Spill {
    /// The bytes not yet in the file (all of them while there is no file).
    pending: Vec<u8>,
    /// The temporary file, once the bytes outgrew memory.
    file: Option<File>,
    /// How many bytes the file holds.
    file_len: u64,
    /// How many pending bytes move to the file.
    limit: usize,
}

impl Spill {
    /// No bytes; more than `limit` of them in memory move to a temporary file.
    pub fn new(limit: usize) -> Spill {
        Spill {
            pending: Vec::new(),
            file: None,
            file_len: 0,
            limit,
        }
    }

    /// How many bytes were written.
    pub fn len(&self) -> u64 {
        self.file_len + self.pending.len() as u64
    }

    /// Whether none were.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends `bytes`.
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.append(|pending| pending.extend_from_slice(bytes))
    }

    /// Appends what `write` writes at the end of the bytes in memory, then moves them
    /// to the file when they are past the limit.
    #[inline]
    pub fn append(&mut self, write: impl FnOnce(&mut Vec<u8>)) -> io::Result<()> {
        write(&mut self.pending);
        if self.pending.len() >= self.limit {
            self.spill()?;
        }
        Ok(())
    }

    /// Readies bytes only kept to be read later (one file's report among many): more
    /// than `keep` of them in memory go to the file, and the memory kept for more is
    /// given back, so that many spills held at once stay small.
    pub fn park(&mut self, keep: usize) -> io::Result<()> {
        if self.pending.len() > keep {
            self.spill()?;
        }
        self.pending.shrink_to_fit();
        Ok(())
    }

    /// Forgets the bytes held in memory (after a failure to move them on).
    pub fn drop_pending(&mut self) {
        self.pending = Vec::new();
    }

    /// Moves the pending bytes to the file, made on first use.
    fn spill(&mut self) -> io::Result<()> {
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(tempfile::tempfile()?),
        };
        file.write_all(&self.pending)?;
        self.file_len += self.pending.len() as u64;
        self.pending.clear();
        Ok(())
    }

    /// Whether some of the bytes are in the temporary file (for tests).
    #[cfg(test)]
    pub(crate) fn is_in_file(&self) -> bool {
        self.file.is_some()
    }

    /// The bytes held in memory (for tests).
    #[cfg(test)]
    pub(crate) fn memory(&mut self) -> &mut Vec<u8> {
        &mut self.pending
    }

    /// The bytes from the start, in order.
    pub fn reader(&self) -> SpillReader<'_> {
        SpillReader { spill: self, at: 0 }
    }
}

/// The bytes of a [`Spill`], read from its start: those of its file, then those in
/// memory.
#[derive(Debug)]
pub struct SpillReader<'a> {
    spill: &'a Spill,
    at: u64,
}

impl Read for SpillReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let spill = self.spill;
        if self.at < spill.file_len {
            let Some(file) = &spill.file else {
                return Err(io::ErrorKind::UnexpectedEof.into());
            };
            let left = usize::try_from(spill.file_len - self.at).unwrap_or(usize::MAX);
            let want = buf.len().min(left);
            let n = read_at(file, &mut buf[..want], self.at)?;
            if n == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            self.at += n as u64;
            return Ok(n);
        }
        let start = usize::try_from(self.at - spill.file_len).unwrap_or(usize::MAX);
        let rest = spill.pending.get(start..).unwrap_or_default();
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n as u64;
        Ok(n)
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, at)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, at)
}

#[cfg(not(any(unix, windows)))]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    use std::io::Seek as _;
    let mut file = file;
    file.seek(io::SeekFrom::Start(at))?;
    file.read(buf)
}

#[cfg(test)]
mod tests {
    use super::Spill;
    use std::io::Read as _;

    #[test]
    fn bytes_read_back_whole_across_memory_and_file() {
        let text: Vec<u8> = (0..10_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        let mut spill = Spill::new(1000);
        for piece in text.chunks(333) {
            spill.write(piece).expect("written");
        }
        assert!(spill.file.is_some(), "past the limit: in a file");
        assert!(spill.pending.len() < 1000);
        let mut read = Vec::new();
        spill.reader().read_to_end(&mut read).expect("read");
        assert_eq!(read, text);
        spill.park(0).expect("parked");
        assert!(spill.pending.is_empty() && spill.pending.capacity() == 0);
        let mut again = Vec::new();
        spill.reader().read_to_end(&mut again).expect("read again");
        assert_eq!(again, text);
    }
}
