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
    // The mark is taken off once: a second one is the line's text.
    if blank(bytes) {
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
    (!blank(text.as_bytes())).then_some(text)
}

fn without_bom(line: u64, bytes: &[u8]) -> &[u8] {
    match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) if line == 1 => rest,
        _ => bytes,
    }
}

fn is_blank(line: u64, bytes: &[u8]) -> bool {
    blank(without_bom(line, bytes))
}

/// Whether `bytes` are only spaces, tabs and CRs.
fn blank(bytes: &[u8]) -> bool {
    bytes.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}

#[cfg(test)]
mod tests {
    use super::{Lines, line_text, non_blank};

    /// A byte-order mark is taken off line 1 once: a second one is text, so the
    /// line is not blank, and a reader of lines never takes it for the end.
    #[test]
    fn a_second_byte_order_mark_is_text() {
        const BOM: &str = "\u{feff}";
        assert_eq!(line_text(1, BOM.as_bytes()), Ok(None));
        assert_eq!(line_text(1, format!("{BOM} \t\r").as_bytes()), Ok(None));
        let twice = format!("{BOM}{BOM}");
        assert_eq!(line_text(1, twice.as_bytes()), Ok(Some(BOM)));
        assert_eq!(line_text(2, BOM.as_bytes()), Ok(Some(BOM)));
        // The same where a block of lines is already known to be UTF-8.
        assert_eq!(non_blank(1, BOM), None);
        assert_eq!(non_blank(1, &twice), Some(BOM));
        assert_eq!(non_blank(2, BOM), Some(BOM));
        let text = format!("{twice}\n{{}}\n");
        let mut lines = Lines::new(text.as_bytes());
        assert_eq!(lines.next_line().ok().flatten(), Some((1, BOM)));
        assert_eq!(lines.next_line().ok().flatten(), Some((2, "{}")));
        assert_eq!(lines.next_line().ok().flatten(), None);
    }
}
