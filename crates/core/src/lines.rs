//! The lines of a JSON Lines input: their numbers, the byte-order mark, blank lines
//! and UTF-8; below the readers of records and links and the pipeline.

use std::io::BufRead;

use crate::error::{LineError, ReadError};

/// The non-blank lines of a JSON Lines input, with their physical line numbers.
///
/// A UTF-8 byte-order mark at the very start is skipped; a line holding only spaces,
/// tabs and CRs is skipped; every other line must be valid UTF-8.
pub struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    line: u64,
}

impl<R: BufRead> Lines<R> {
    /// Reads lines from `reader`.
    pub fn new(reader: R) -> Self {
        Lines {
            reader,
            buf: Vec::new(),
            line: 0,
        }
    }

    /// The next non-blank line and its 1-based number, or `None` at the end.
    pub fn next_line(&mut self) -> Result<Option<(u64, &str)>, ReadError> {
        loop {
            self.buf.clear();
            let read = self
                .reader
                .read_until(b'\n', &mut self.buf)
                .map_err(ReadError::Io)?;
            if read == 0 {
                return Ok(None);
            }
            self.line += 1;
            let bytes = self.buf.strip_suffix(b"\n").unwrap_or(&self.buf);
            if !is_blank(self.line, bytes) {
                break;
            }
        }
        let bytes = self.buf.strip_suffix(b"\n").unwrap_or(&self.buf);
        Ok(line_text(self.line, bytes)?.map(|text| (self.line, text)))
    }
}

/// The text of physical line `line` (its bytes without the LF), or `None` when it is
/// blank: only spaces, tabs and CRs. A byte-order mark is skipped on line 1; the text
/// must be valid UTF-8.
pub fn line_text(line: u64, bytes: &[u8]) -> Result<Option<&str>, LineError> {
    let bytes = without_bom(line, bytes);
    if is_blank(line, bytes) {
        return Ok(None);
    }
    // The fast check says only whether the bytes are valid; std says where not.
    if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
        return Ok(Some(text));
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(Some(text)),
        Err(err) => Err(LineError::new(
            line,
            format!(
                "invalid UTF-8: byte 0x{:02x} at column {}",
                bytes[err.valid_up_to()],
                err.valid_up_to() + 1
            ),
        )),
    }
}

/// The text of physical line `line`, already known to be UTF-8, as [`line_text`]
/// gives it: `None` when it is blank.
pub(crate) fn non_blank(line: u64, text: &str) -> Option<&str> {
    let text = match text.strip_prefix('\u{feff}') {
        Some(rest) if line == 1 => rest,
        _ => text,
    };
    (!is_blank(line, text.as_bytes())).then_some(text)
}

fn without_bom(line: u64, bytes: &[u8]) -> &[u8] {
    match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) if line == 1 => rest,
        _ => bytes,
    }
}

fn is_blank(line: u64, bytes: &[u8]) -> bool {
    without_bom(line, bytes)
        .iter()
        .all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}
