//! The store of an audit's findings: encoded in a [`Spill`], in memory and then in
//! an anonymous temporary file.

use super::codec::{Short, corrupt, decode_into, encode, encode_call, encode_kind};
use super::{Finding, FindingKind};
use crate::spill::{Spill, SpillReader};

/// The findings of an audit, in the order they were made, kept in a compact binary
/// encoding: in memory up to [`Findings::MEMORY_BYTES`], then in an anonymous
/// temporary file, so that the memory of an audit does not grow with its findings.
/// They are read back in order by [`Findings::iter`], as often as needed.
///
/// A failure to write the temporary file is kept, and given by every later read:
/// findings are never dropped in silence.
#[derive(Debug)]
pub struct Findings {
    /// The encoded findings.
    bytes: Spill,
    /// How many findings were pushed.
    len: u64,
    /// The first write error, if any.
    error: Option<std::io::ErrorKind>,
}

impl Findings {
    /// How many encoded bytes are kept in memory before they move to a file.
    pub const MEMORY_BYTES: usize = 4 << 20;

    /// No findings.
    pub fn new() -> Self {
        Findings {
            bytes: Spill::new(Self::MEMORY_BYTES),
            len: 0,
            error: None,
        }
    }

    /// The findings of `found`, in order.
    pub fn from_vec(found: Vec<Finding>) -> Self {
        let mut findings = Findings::new();
        for finding in found {
            findings.push(&finding);
        }
        findings
    }

    /// How many findings there are.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds `finding` after the others.
    pub fn push(&mut self, finding: &Finding) {
        self.push_with(|pending| encode(finding, pending));
    }

    /// Adds the finding of kind `kind` on the call of `tool` at `index`, on line
    /// `line`, whose fingerprint is `call`, after the others: as [`Findings::push`]
    /// does with that [`Finding`], without making it.
    pub fn push_call(
        &mut self,
        index: u64,
        line: u64,
        call: &[u8; 32],
        tool: &str,
        kind: &FindingKind,
    ) {
        self.push_with(|pending| {
            encode_call(index, line, call, tool, pending);
            encode_kind(kind, pending);
        });
    }

    /// Adds the finding that `encode` writes.
    fn push_with(&mut self, encode: impl FnOnce(&mut Vec<u8>)) {
        self.len += 1;
        if self.error.is_some() {
            return;
        }
        if let Err(err) = self.bytes.append(encode) {
            self.error = Some(err.kind());
            self.bytes.drop_pending();
        }
    }

    /// How many encoded bytes [`Findings::park`] leaves in memory.
    pub const PARKED_BYTES: usize = 64 << 10;

    /// Readies findings that are only kept to be read later (one file's among many):
    /// more than [`Findings::PARKED_BYTES`] of them go to the temporary file, and the
    /// memory kept for more is given back, so that many sets of findings held at
    /// once stay small.
    pub fn park(&mut self) {
        if self.error.is_none()
            && let Err(err) = self.bytes.park(Self::PARKED_BYTES)
        {
            self.error = Some(err.kind());
            self.bytes.drop_pending();
        }
    }

    /// The error that kept findings out of their temporary file, if one did: then
    /// every read of them fails, and a report of them can fail before it starts.
    ///
    /// ```
    /// use toolreplay_core::{Finding, FindingKind, Findings};
    ///
    /// let mut findings = Findings::new();
    /// findings.push(&Finding {
    ///     index: 1,
    ///     tool: "search".to_owned(),
    ///     kind: FindingKind::RedundantCall { previous: 0 },
    ///     line: 2,
    ///     call: [0; 32],
    /// });
    /// assert!(findings.kept().is_ok());
    /// ```
    pub fn kept(&self) -> std::io::Result<()> {
        self.error.map_or(Ok(()), |kind| Err(unkept(kind)))
    }

    /// The findings in order; an error (the temporary file failed) ends them.
    pub fn iter(&self) -> FindingsIter<'_> {
        FindingsIter {
            source: self.bytes.reader(),
            buffer: Vec::new(),
            start: 0,
            source_ended: false,
            left: self.len,
            failed: self.error.is_some(),
            error: self.error,
        }
    }

    /// Hands each finding to `each`, in order, as [`Findings::iter`] reads them, but
    /// each read into the same [`Finding`], so that reading many findings does not
    /// allocate a tool name for each. The first error, of reading or of `each`, ends
    /// it.
    ///
    /// ```
    /// use toolreplay_core::{Finding, FindingKind, Findings};
    ///
    /// let finding = |index, tool: &str| Finding {
    ///     index,
    ///     tool: tool.to_owned(),
    ///     kind: FindingKind::RedundantCall { previous: 0 },
    ///     line: index + 1,
    ///     call: [0; 32],
    /// };
    /// let findings = Findings::from_vec(vec![finding(1, "search"), finding(2, "fetch")]);
    /// let mut read = Vec::new();
    /// findings.read_each(|f| {
    ///     read.push(f.clone());
    ///     Ok(())
    /// })?;
    /// assert_eq!(read, [finding(1, "search"), finding(2, "fetch")]);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn read_each(
        &self,
        mut each: impl FnMut(&Finding) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut findings = self.iter();
        let mut finding = blank();
        while let Some(read) = findings.next_into(&mut finding) {
            read?;
            each(&finding)?;
        }
        Ok(())
    }

    /// The findings in a vector, read back whole.
    pub fn to_vec(&self) -> std::io::Result<Vec<Finding>> {
        self.iter().collect()
    }

    /// The findings that `keep` returns, each changed as it says, in order: how
    /// findings are moved to other lines or filtered once made.
    pub fn rewrite(
        &self,
        mut keep: impl FnMut(Finding) -> Option<Finding>,
    ) -> std::io::Result<Findings> {
        let mut out = Findings::new();
        for finding in self.iter() {
            if let Some(finding) = keep(finding?) {
                out.push(&finding);
            }
        }
        match out.error {
            Some(kind) => Err(kind.into()),
            None => Ok(out),
        }
    }
}

/// Two stores are equal when they read back the same findings; one that does not
/// read back is equal to none.
impl PartialEq for Findings {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len
            && self.iter().zip(other.iter()).all(|pair| match pair {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            })
    }
}

impl Eq for Findings {}

impl Default for Findings {
    fn default() -> Self {
        Findings::new()
    }
}

/// The findings of a [`Findings`], in order.
pub struct FindingsIter<'a> {
    source: SpillReader<'a>,
    /// Bytes read from the source; those from `start` on are not decoded yet.
    buffer: Vec<u8>,
    start: usize,
    /// Whether the source has given all its bytes.
    source_ended: bool,
    left: u64,
    failed: bool,
    error: Option<std::io::ErrorKind>,
}

/// How many bytes [`FindingsIter`] reads at a time.
const READ_BYTES: usize = 1 << 16;

impl FindingsIter<'_> {
    /// Reads more bytes after those not decoded yet (at least [`READ_BYTES`] more,
    /// however long the finding they end in).
    fn refill(&mut self) -> std::io::Result<()> {
        use std::io::Read as _;
        self.buffer.drain(..self.start);
        self.start = 0;
        let kept = self.buffer.len();
        self.buffer.resize(kept + READ_BYTES, 0);
        let read = loop {
            match self.source.read(&mut self.buffer[kept..]) {
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        let n = read.inspect_err(|_| self.buffer.truncate(kept))?;
        self.buffer.truncate(kept + n);
        self.source_ended = n == 0;
        Ok(())
    }
}

impl FindingsIter<'_> {
    /// Reads the next finding into `finding` (none left: `None`), as [`Iterator::next`]
    /// gives it, but keeping the room of `finding`'s tool.
    fn next_into(&mut self, finding: &mut Finding) -> Option<std::io::Result<()>> {
        if self.failed {
            self.failed = false;
            self.left = 0;
            return Some(Err(unkept(self.error.unwrap_or(std::io::ErrorKind::Other))));
        }
        if self.left == 0 {
            return None;
        }
        loop {
            let mut input = &self.buffer[self.start..];
            let short = match decode_into(&mut input, finding) {
                Ok(()) => {
                    self.start = self.buffer.len() - input.len();
                    self.left -= 1;
                    return Some(Ok(()));
                }
                Err(short) => short,
            };
            let failure = match short {
                Short::Incomplete if !self.source_ended => match self.refill() {
                    Ok(()) => continue,
                    Err(err) => err,
                },
                Short::Incomplete => std::io::ErrorKind::UnexpectedEof.into(),
                Short::Corrupt => corrupt(),
            };
            self.left = 0;
            return Some(Err(failure));
        }
    }
}

impl Iterator for FindingsIter<'_> {
    type Item = std::io::Result<Finding>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut finding = blank();
        self.next_into(&mut finding)
            .map(|read| read.map(|()| finding))
    }
}

/// A finding to read others into.
fn blank() -> Finding {
    Finding {
        index: 0,
        tool: String::new(),
        kind: FindingKind::PermissionOverreach,
        line: 0,
        call: [0; 32],
    }
}

/// The error of findings that could not be kept in their temporary file.
fn unkept(kind: std::io::ErrorKind) -> std::io::Error {
    std::io::Error::new(kind, "the findings could not be kept in a temporary file")
}

// The store is tested with the codec and the words, by what it reads back and its
// private state.
#[cfg(test)]
#[path = "tests.rs"]
mod tests;
