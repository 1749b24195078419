//! Reading an ordinary transcript record line fast: its four members recognised by
//! the bytes of their keys, `index` and `tool` borrowed from the text, `args` and
//! `response` written in canonical form into the caller's buffer, and nothing
//! allocated per line (what is kept is reused from line to line).
//!
//! It only ever reads a line that [`super::parse_fields_in`] reads the same way:
//! anything it does not expect (a key with an escape, an unknown or repeated key, a
//! value of the wrong type, any error) makes it give up, and the caller reads the
//! line the ordinary way, which gives the error, if any, exactly as before.

use std::cell::RefCell;
use std::ops::Range;

use super::ParseError;
use super::canonical_writer::CanonicalWriter;
use super::reader::{Members, Number, Reader};

/// What reading records keeps from line to line on one thread.
#[derive(Default)]
pub(crate) struct RecordScratch {
    writer: CanonicalWriter,
    /// The tool's name, when it had to be decoded from escapes.
    tool: String,
}

/// The most room kept between lines; more (after a huge line) is given back.
const KEPT: usize = 4 << 20;

thread_local! {
    /// What [`with_record_scratch`] lends.
    static RECORD: RefCell<(RecordScratch, Vec<u8>)> = RefCell::default();
}

/// Runs `f` with what reading records keeps on this thread and a buffer, emptied
/// first, for the canonical objects.
pub(crate) fn with_record_scratch<R>(f: impl FnOnce(&mut RecordScratch, &mut Vec<u8>) -> R) -> R {
    RECORD.with(|kept| match kept.try_borrow_mut() {
        Ok(mut kept) => {
            let (scratch, out) = &mut *kept;
            out.clear();
            let result = f(scratch, out);
            if out.capacity() > KEPT {
                *out = Vec::new();
            }
            result
        }
        // Already in use further up this thread's stack: room of its own.
        Err(_) => f(&mut RecordScratch::default(), &mut Vec::new()),
    })
}

/// Which of a record's two objects is about to be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Object {
    Args,
    Response,
}

/// What the members read so far say, when one of the two objects is about to be
/// written: a caller can write something into the buffer first.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Before<'a> {
    /// The object about to be written.
    pub object: Object,
    /// The index's digits, when it came earlier in the line.
    pub index: Option<&'a str>,
    /// Whether the other object was written already.
    pub other_written: bool,
}

/// A record read by [`read_record`].
#[derive(Debug, Clone)]
pub(crate) struct RecordFields<'a> {
    /// The index's digits as written, a `-0` as `0`.
    pub index: &'a str,
    /// The tool's name, decoded; never empty.
    pub tool: &'a str,
    /// Whether the tool's name, as written, is its own canonical form (printable
    /// ASCII, no escape).
    pub tool_plain: bool,
    /// Where the canonical arguments are in the buffer.
    pub args: Range<usize>,
    /// Where the canonical response is in the buffer.
    pub response: Range<usize>,
}

/// Reads `text` as a transcript record: one object of exactly the members `args`,
/// `index`, `response` and `tool`, with their types, each key written without an
/// escape. The two objects are written in canonical form after what `out` holds,
/// each after what `before` writes there just before it. `None` when the text is
/// anything else: then `out` may hold more than it did, and the line is to be read
/// the ordinary way.
pub(crate) fn read_record<'a>(
    text: &'a str,
    scratch: &'a mut RecordScratch,
    out: &mut Vec<u8>,
    before: impl FnMut(Before<'a>, &mut Vec<u8>),
) -> Option<RecordFields<'a>> {
    let mut reader = Reader::new(text);
    reader.skip_ws();
    if reader.peek() != Some(b'{') {
        return None;
    }
    let RecordScratch {
        writer,
        tool: tool_text,
    } = scratch;
    let mut fields = RecordReader {
        writer: &mut *writer,
        tool_text: &mut *tool_text,
        out,
        before,
        index: None,
        tool: None,
        args: None,
        response: None,
    };
    let read = reader.object(&mut fields).and_then(|()| reader.end());
    let RecordReader {
        index,
        tool,
        args,
        response,
        ..
    } = fields;
    writer.shed(KEPT);
    read.ok()?;
    let (tool, tool_plain) = match tool? {
        Tool::Text(range) => {
            let plain = crate::scan::canonical_run(&text.as_bytes()[range.clone()]) == range.len();
            (&text[range], plain)
        }
        Tool::Decoded => (&**tool_text, false),
    };
    Some(RecordFields {
        index: index?,
        tool,
        tool_plain,
        args: args?,
        response: response?,
    })
}

/// One of the four keys of a record.
enum Key {
    Args,
    Index,
    Response,
    Tool,
}

/// Where the tool's name is.
enum Tool {
    /// In the text, as it is.
    Text(Range<usize>),
    /// In [`RecordScratch::tool`], decoded.
    Decoded,
}

/// The members of a record as [`read_record`] reads them.
struct RecordReader<'a, 'o, F> {
    writer: &'o mut CanonicalWriter,
    tool_text: &'o mut String,
    out: &'o mut Vec<u8>,
    before: F,
    index: Option<&'a str>,
    tool: Option<Tool>,
    args: Option<Range<usize>>,
    response: Option<Range<usize>>,
}

/// Giving up on the line: the ordinary reader says why. Never shown.
fn give_up() -> ParseError {
    ParseError {
        message: String::new(),
        line: 0,
        column: None,
    }
}

impl<'a, 'o, F: FnMut(Before<'a>, &mut Vec<u8>)> RecordReader<'a, 'o, F> {
    /// Writes the object at the reader's position, after what `before` writes.
    fn object(
        &mut self,
        reader: &mut Reader<'a>,
        object: Object,
    ) -> Result<Range<usize>, ParseError> {
        let (this, other) = match object {
            Object::Args => (&self.args, &self.response),
            Object::Response => (&self.response, &self.args),
        };
        if this.is_some() || reader.peek() != Some(b'{') {
            return Err(give_up());
        }
        let before = Before {
            object,
            index: self.index,
            other_written: other.is_some(),
        };
        (self.before)(before, self.out);
        let start = self.out.len();
        self.writer.value(reader, self.out)?;
        Ok(start..self.out.len())
    }
}

impl<'a, 'o, F: FnMut(Before<'a>, &mut Vec<u8>)> Members<'a> for RecordReader<'a, 'o, F> {
    type Key = Key;

    #[inline]
    fn key(&mut self, reader: &mut Reader<'a>) -> Result<Key, ParseError> {
        let start = reader.pos + 1;
        let end = start + crate::scan::canonical_run(&reader.bytes[start..]);
        if reader.bytes.get(end) != Some(&b'"') {
            return Err(give_up());
        }
        reader.pos = end + 1;
        match &reader.bytes[start..end] {
            b"args" => Ok(Key::Args),
            b"index" => Ok(Key::Index),
            b"response" => Ok(Key::Response),
            b"tool" => Ok(Key::Tool),
            _ => Err(give_up()),
        }
    }

    fn value(&mut self, reader: &mut Reader<'a>, key: Key, _: usize) -> Result<(), ParseError> {
        match key {
            Key::Args => self.args = Some(self.object(reader, Object::Args)?),
            Key::Response => self.response = Some(self.object(reader, Object::Response)?),
            Key::Index => match (self.index, reader.peek()) {
                (None, Some(b'-' | b'0'..=b'9')) => match reader.number()? {
                    Number::Int(digits) => self.index = Some(digits),
                    Number::Fraction { .. } => return Err(give_up()),
                },
                _ => return Err(give_up()),
            },
            Key::Tool => {
                if self.tool.is_some() || reader.peek() != Some(b'"') {
                    return Err(give_up());
                }
                let start = reader.pos + 1;
                let end = start + crate::scan::string_run(&reader.bytes[start..]);
                let tool = if reader.bytes.get(end) == Some(&b'"') {
                    reader.pos = end + 1;
                    (end > start).then_some(Tool::Text(start..end))
                } else {
                    self.tool_text.clear();
                    reader.string_into(self.tool_text)?;
                    (!self.tool_text.is_empty()).then_some(Tool::Decoded)
                };
                self.tool = Some(tool.ok_or_else(give_up)?);
            }
        }
        Ok(())
    }
}
