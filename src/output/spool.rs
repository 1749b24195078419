//! Output held back until a command has finished, in the core's [`Spill`]: in memory
//! while small, in an anonymous temporary file beyond that, so memory stays bounded.

use std::io::{self, BufReader, Read, Write};

use toolreplay_core::{Spill, SpillReader};

/// How much output is kept in memory before it moves to a temporary file.
pub(crate) const MEMORY_LIMIT: usize = 8 << 20;

/// How much of a parked spool ([`Spool::park`]) stays in memory.
pub(crate) const PARKED_LIMIT: usize = 64 << 10;

/// Bytes written now and read back later.
#[derive(Debug)]
pub(crate) struct Spool(Spill);

impl Default for Spool {
    fn default() -> Self {
        Spool::new()
    }
}

impl Spool {
    /// An empty spool.
    pub(crate) fn new() -> Self {
        Spool(Spill::new(MEMORY_LIMIT))
    }

    /// A spool holding `text`.
    #[cfg(test)]
    pub(crate) fn from_text(text: String) -> Self {
        let mut spool = Spool::new();
        spool.0.append(|memory| *memory = text.into_bytes()).ok();
        spool
    }

    /// Appends `bytes`.
    pub(crate) fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.0.write(bytes)
    }

    /// Readies a spool that is only kept to be read later (one file's report among
    /// many): more than [`PARKED_LIMIT`] in memory goes to the temporary file, and
    /// memory kept for more is given back, so that many spools held at once stay
    /// small.
    pub(crate) fn park(&mut self) -> io::Result<()> {
        self.0.park(PARKED_LIMIT)
    }

    /// Copies everything written, in order, to `out`. Errors of the spool itself and
    /// errors writing `out` are told apart.
    pub(crate) fn copy_to(self, out: &mut dyn Write) -> Result<(), SpoolError> {
        let mut reader = self.0.reader();
        let mut buf = vec![0; 1 << 20];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(SpoolError::Spool(e)),
            };
            out.write_all(&buf[..n]).map_err(SpoolError::Write)?;
        }
    }

    /// Everything written, to be read back in order, buffered.
    pub(crate) fn reader(&self) -> BufReader<SpillReader<'_>> {
        BufReader::with_capacity(1 << 16, self.0.reader())
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
    fn a_parked_spool_reads_back_whole_and_takes_more_after() {
        let mut small = Spool::new();
        small.write(b"a short report\n").expect("written");
        small.park().expect("parked");
        assert_eq!(read_back(small), b"a short report\n");

        let text: Vec<u8> = (0..PARKED_LIMIT * 3)
            .map(|i| b'a' + (i % 26) as u8)
            .collect();
        let mut large = Spool::new();
        large.write(&text[..PARKED_LIMIT * 2]).expect("written");
        large.park().expect("parked");
        large
            .write(&text[PARKED_LIMIT * 2..])
            .expect("written after parking");
        assert_eq!(read_back(large), text);
    }
}
