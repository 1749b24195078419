//! Output held back until a command has finished: in memory while small, in an
//! anonymous temporary file beyond that, so memory stays bounded.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};

/// How much output is kept in memory before it moves to a temporary file.
pub(crate) const MEMORY_LIMIT: usize = 8 << 20;

/// How much of a parked spool ([`Spool::park`]) stays in memory.
pub(crate) const PARKED_LIMIT: usize = 64 << 10;

/// The buffer of writes to a spool's temporary file.
const WRITE_BUFFER: usize = 64 << 10;

/// Bytes written now and read back later.
#[derive(Debug, Default)]
pub(crate) struct Spool {
    memory: Vec<u8>,
    file: Option<BufWriter<File>>,
}

impl Spool {
    /// An empty spool.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// A spool holding `text`.
    #[cfg(test)]
    pub(crate) fn from_text(text: String) -> Self {
        Spool {
            memory: text.into_bytes(),
            file: None,
        }
    }

    /// Appends `bytes`.
    pub(crate) fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.file.is_none() && self.memory.len() + bytes.len() > MEMORY_LIMIT {
            self.spill()?;
        }
        match &mut self.file {
            Some(file) => file.write_all(bytes),
            None => {
                self.memory.extend_from_slice(bytes);
                Ok(())
            }
        }
    }

    /// Moves what is in memory to a temporary file, made now.
    fn spill(&mut self) -> io::Result<()> {
        let mut file = BufWriter::with_capacity(WRITE_BUFFER, tempfile::tempfile()?);
        file.write_all(&self.memory)?;
        self.memory = Vec::new();
        self.file = Some(file);
        Ok(())
    }

    /// Readies a spool that is only kept to be read later (one file's report among
    /// many): more than [`PARKED_LIMIT`] in memory goes to the temporary file, the
    /// file's buffer is flushed, and memory kept for more is given back, so that
    /// many spools held at once stay small.
    pub(crate) fn park(&mut self) -> io::Result<()> {
        if self.file.is_none() && self.memory.len() > PARKED_LIMIT {
            self.spill()?;
        }
        if let Some(file) = &mut self.file {
            file.flush()?;
        }
        self.memory.shrink_to_fit();
        Ok(())
    }

    /// Copies everything written, in order, to `out`. Errors of the spool itself and
    /// errors writing `out` are told apart.
    pub(crate) fn copy_to(self, out: &mut dyn Write) -> Result<(), SpoolError> {
        match self.file {
            None => out.write_all(&self.memory).map_err(SpoolError::Write),
            Some(file) => {
                let mut file = file
                    .into_inner()
                    .map_err(|e| SpoolError::Spool(e.into_error()))?;
                file.seek(SeekFrom::Start(0)).map_err(SpoolError::Spool)?;
                let mut buf = vec![0; 1 << 20];
                loop {
                    let n = match file.read(&mut buf) {
                        Ok(0) => return Ok(()),
                        Ok(n) => n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => return Err(SpoolError::Spool(e)),
                    };
                    out.write_all(&buf[..n]).map_err(SpoolError::Write)?;
                }
            }
        }
    }
}

impl Spool {
    /// Everything written, to be read back in order, buffered.
    pub(crate) fn into_reader(self) -> io::Result<SpoolReader> {
        match self.file {
            None => Ok(SpoolReader::Memory(io::Cursor::new(self.memory))),
            Some(file) => {
                let mut file = file.into_inner().map_err(|e| e.into_error())?;
                file.seek(SeekFrom::Start(0))?;
                Ok(SpoolReader::File(io::BufReader::with_capacity(
                    1 << 16,
                    file,
                )))
            }
        }
    }
}

/// A spool being read back.
#[derive(Debug)]
pub(crate) enum SpoolReader {
    /// Held in memory.
    Memory(io::Cursor<Vec<u8>>),
    /// Held in its temporary file.
    File(io::BufReader<File>),
}

impl Read for SpoolReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            SpoolReader::Memory(r) => r.read(buf),
            SpoolReader::File(r) => r.read(buf),
        }
    }
}

impl io::BufRead for SpoolReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            SpoolReader::Memory(r) => r.fill_buf(),
            SpoolReader::File(r) => r.fill_buf(),
        }
    }

    fn consume(&mut self, amount: usize) {
        match self {
            SpoolReader::Memory(r) => r.consume(amount),
            SpoolReader::File(r) => r.consume(amount),
        }
    }
}

/// A spool is written like a file.
impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Spool::write(self, buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Why a spool could not be copied out.
#[derive(Debug)]
pub(crate) enum SpoolError {
    /// The temporary file failed.
    Spool(io::Error),
    /// The destination failed.
    Write(io::Error),
}

#[cfg(test)]
mod tests {
    use super::{PARKED_LIMIT, Spool};

    fn read_back(spool: Spool) -> Vec<u8> {
        let mut out = Vec::new();
        assert!(spool.copy_to(&mut out).is_ok());
        out
    }

    #[test]
    fn a_parked_spool_keeps_little_memory_and_reads_back_whole() {
        let mut small = Spool::new();
        small.write(b"a short report\n").expect("written");
        small.park().expect("parked");
        assert!(small.file.is_none(), "small: kept in memory");
        assert_eq!(read_back(small), b"a short report\n");

        let text: Vec<u8> = (0..PARKED_LIMIT * 3)
            .map(|i| b'a' + (i % 26) as u8)
            .collect();
        let mut large = Spool::new();
        large.write(&text[..PARKED_LIMIT * 2]).expect("written");
        assert!(large.file.is_none(), "under the memory limit until parked");
        large.park().expect("parked");
        assert!(large.file.is_some(), "parked past its limit: in a file");
        assert!(large.memory.capacity() == 0);
        large
            .write(&text[PARKED_LIMIT * 2..])
            .expect("written after parking");
        assert_eq!(read_back(large), text);
    }
}
