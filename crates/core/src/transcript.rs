//! Reading transcripts and sealed transcripts: JSON Lines, strictly (spec sections 1
//! and 6).
//!
//! A line's `args` and `response` are written in canonical form straight from its
//! text ([`json`]'s canonical writer) into a buffer the thread keeps, and handed on
//! from there: [`parse_unplaced_with`] for the commands, which make what they need of
//! each record on the parsing threads ([`crate::pipeline`]), and [`parse_link`] for
//! sealed transcripts. [`parse_record`] gives a record as trees instead.

use std::io::BufRead;
use std::ops::Range;

use crate::json::{self, FieldValue, JsonType, Value};

pub(crate) use crate::error::{LineError, ReadError};
pub(crate) use crate::lines::{Lines, line_text};

/// One recorded tool call (spec section 1).
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The number of records before this one.
    pub index: u64,
    /// The name of the tool that was called; never empty.
    pub tool: String,
    /// The arguments of the call: always a [`Value::Object`].
    pub args: Value,
    /// The recorded response: always a [`Value::Object`].
    pub response: Value,
}

/// One recorded tool call with its arguments and response in canonical form: what the
/// audits and the chain work on, made straight from the line's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CanonicalRecord {
    /// The number of records before this one.
    pub index: u64,
    /// The name of the tool that was called; never empty.
    pub tool: String,
    /// The canonical encoding of the arguments, an object.
    pub args: Vec<u8>,
    /// The canonical encoding of the response, an object.
    pub response: Vec<u8>,
}

/// One link of a sealed transcript (spec section 6): a record plus `prev` and
/// `digest`, its arguments and response in canonical form. Its index is any integer,
/// as written: the chain checks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The index as written (decimal digits, maybe with a `-`; `-0` as `0`).
    pub index: Box<str>,
    /// The name of the tool; never empty.
    pub tool: String,
    /// The canonical encoding of the arguments, an object.
    pub args: Vec<u8>,
    /// The canonical encoding of the response, an object.
    pub response: Vec<u8>,
    /// The digest of the previous link, as written.
    pub prev: String,
    /// The digest of this link, as written.
    pub digest: String,
}

/// The fields of one line's object, taken out by name; anything not asked for is an
/// error.
struct Fields {
    line: u64,
    fields: Vec<json::Field>,
}

impl Fields {
    /// Parses the line, writing the fields named in `canonical` in canonical form into
    /// `scratch`; the others are parsed into trees.
    fn parse(
        line: u64,
        text: &str,
        known: &[&str],
        canonical: &[&str],
        scratch: &mut Vec<u8>,
    ) -> Result<Self, LineError> {
        let fields = json::parse_fields_in(text, canonical, scratch)
            .map_err(|err| LineError::new(line, err.to_string()))?;
        if let Some(field) = fields.iter().find(|f| !known.contains(&f.key.as_str())) {
            return Err(LineError::new(
                line,
                format!("unknown field {}", json::quoted_key(&field.key)),
            ));
        }
        Ok(Fields { line, fields })
    }

    fn take(&mut self, name: &str) -> Result<FieldValue, LineError> {
        match self.fields.iter().position(|f| f.key == name) {
            Some(i) => Ok(self.fields.swap_remove(i).value),
            None => Err(self.error(format!("missing field \"{name}\""))),
        }
    }

    fn error(&self, message: String) -> LineError {
        LineError::new(self.line, message)
    }

    fn wrong_type(&self, name: &str, wanted: &str, found: &FieldValue) -> LineError {
        self.error(format!(
            "field \"{name}\" must be {wanted}, found {}",
            found.json_type().described()
        ))
    }

    fn integer(&mut self, name: &str) -> Result<Box<str>, LineError> {
        match self.take(name)? {
            FieldValue::Tree(Value::Int(digits)) => Ok(digits),
            other => Err(self.wrong_type(name, "an integer", &other)),
        }
    }

    fn non_empty_string(&mut self, name: &str) -> Result<String, LineError> {
        match self.take(name)? {
            FieldValue::Tree(Value::Str(s)) if !s.is_empty() => Ok(s),
            other => Err(self.wrong_type(name, "a non-empty string", &other)),
        }
    }

    fn string(&mut self, name: &str) -> Result<String, LineError> {
        match self.take(name)? {
            FieldValue::Tree(Value::Str(s)) => Ok(s),
            other => Err(self.wrong_type(name, "a string", &other)),
        }
    }

    /// Where the object `name` was written in the scratch buffer.
    fn written_object(&mut self, name: &str) -> Result<Range<usize>, LineError> {
        match self.take(name)? {
            FieldValue::Written(range, JsonType::Object) => Ok(range),
            other => Err(self.wrong_type(name, "an object", &other)),
        }
    }

    /// The object `name`, parsed into a tree.
    fn tree_object(&mut self, name: &str) -> Result<Value, LineError> {
        match self.take(name)? {
            FieldValue::Tree(value @ Value::Object(_)) => Ok(value),
            other => Err(self.wrong_type(name, "an object", &other)),
        }
    }
}

/// The fields of a transcript record.
const RECORD_FIELDS: [&str; 4] = ["args", "index", "response", "tool"];
/// The fields of a transcript record kept in canonical form.
const CANONICAL_FIELDS: [&str; 2] = ["args", "response"];

/// An integer's digits cut short for a message.
fn shown_integer(digits: &str) -> String {
    if digits.len() > 40 {
        format!("{}...", &digits[..40])
    } else {
        digits.to_owned()
    }
}

/// The error of a record on line `line` whose index, as written, is not
/// `expected_index`.
fn check_place(line: u64, index: &str, expected_index: u64) -> Result<(), LineError> {
    if index.parse::<u64>().ok() == Some(expected_index) {
        return Ok(());
    }
    Err(out_of_order(line, index, expected_index))
}

/// The error of a record on line `line` whose index, written `index`, is not
/// `expected_index`.
pub(crate) fn out_of_order(line: u64, index: &str, expected_index: u64) -> LineError {
    LineError::new(
        line,
        format!(
            "index {} out of order, expected {expected_index}",
            shown_integer(index)
        ),
    )
}

/// Parses the transcript line `text` (physical line `line`), which must be the record
/// with index `expected_index`, keeping its arguments and response in canonical form.
pub fn parse_canonical_record(
    line: u64,
    text: &str,
    expected_index: u64,
) -> Result<CanonicalRecord, LineError> {
    let unplaced = parse_unplaced_with(line, text, |record| {
        (record.args.to_vec(), record.response.to_vec())
    })?;
    let index = unplaced.place(expected_index)?;
    let (args, response) = unplaced.value;
    Ok(CanonicalRecord {
        index,
        tool: unplaced.tool.as_str().to_owned(),
        args,
        response,
    })
}

/// A record parsed and checked in every way but one, whether its index is its place,
/// reduced to its tool and what [`parse_unplaced_with`] made of it. Lines can be
/// parsed like this in any order (on any thread), then placed in input order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnplacedRecord<T> {
    line: u64,
    index: WrittenIndex,
    /// The name of the tool that was called; never empty.
    pub tool: ToolName,
    /// What was made of the record.
    pub value: T,
}

impl<T> UnplacedRecord<T> {
    /// The record's index, when it is `expected_index`; otherwise the error its line
    /// gets.
    pub fn place(&self, expected_index: u64) -> Result<u64, LineError> {
        match &self.index {
            WrittenIndex::Fits(index) if *index == expected_index => Ok(expected_index),
            WrittenIndex::Fits(index) => {
                Err(out_of_order(self.line, &index.to_string(), expected_index))
            }
            WrittenIndex::Other(digits) => Err(out_of_order(self.line, digits, expected_index)),
        }
    }
}

/// A record's index as written: a number of 64 bits, or the digits of one that is
/// not (negative, or too large), kept for the error.
#[derive(Debug, Clone, PartialEq, Eq)]
enum WrittenIndex {
    Fits(u64),
    Other(Box<str>),
}

impl WrittenIndex {
    /// The index written as `digits` (decimal, maybe with a `-`).
    fn new(digits: &str) -> Self {
        match digits.parse::<u64>() {
            Ok(index) => WrittenIndex::Fits(index),
            Err(_) => WrittenIndex::Other(digits.into()),
        }
    }
}

/// The name of a tool, held in place when short (as almost every name is), so
/// that keeping it costs no allocation; it reads as a `str`.
#[derive(Clone, PartialEq, Eq)]
pub struct ToolName(NameRepr);

/// The longest name held in place.
const INLINE_NAME: usize = 30;

// Equal names are held the same way (the length decides), the bytes past a short
// name zero, so the derived equality is that of the names.
#[derive(Clone, PartialEq, Eq)]
enum NameRepr {
    /// The first `len` bytes are the name.
    Inline {
        len: u8,
        bytes: [u8; INLINE_NAME],
    },
    Heap(Box<str>),
}

impl ToolName {
    /// The name `name`.
    pub fn new(name: &str) -> Self {
        let len = name.len();
        if len <= INLINE_NAME {
            let mut bytes = [0; INLINE_NAME];
            bytes[..len].copy_from_slice(name.as_bytes());
            // At most 30, so it fits a byte.
            ToolName(NameRepr::Inline {
                len: len as u8,
                bytes,
            })
        } else {
            ToolName(NameRepr::Heap(name.into()))
        }
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            // Copied from a `str` whole, so always valid UTF-8.
            NameRepr::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default()
            }
            NameRepr::Heap(name) => name,
        }
    }
}

// Hashed as the `str` is, as `Borrow<str>` requires.
impl std::hash::Hash for ToolName {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl std::ops::Deref for ToolName {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for ToolName {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for ToolName {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for ToolName {
    fn from(name: &str) -> Self {
        ToolName::new(name)
    }
}

impl std::fmt::Debug for ToolName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for ToolName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for ToolName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ToolName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for ToolName {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

/// The fields of a record as [`parse_unplaced_with`] hands them over, its arguments
/// and response borrowed from the buffer they were written to in canonical form.
#[derive(Debug, Clone, Copy)]
pub struct CanonicalRecordRef<'a> {
    /// The index as written: decimal digits, and only once the record is placed the
    /// decimal form of its place.
    pub index: &'a str,
    /// The name of the tool that was called; never empty.
    pub tool: &'a str,
    /// The canonical encoding of the arguments, an object.
    pub args: &'a [u8],
    /// The canonical encoding of the response, an object.
    pub response: &'a [u8],
}

/// Parses the transcript line `text` (physical line `line`) with every check but the
/// index's place, which [`UnplacedRecord::place`] makes; hands the record's fields
/// to `make` straight from the buffer its canonical arguments and response were
/// written to, and keeps only what it makes of them: no copy of either is made for
/// the caller.
pub fn parse_unplaced_with<T>(
    line: u64,
    text: &str,
    make: impl FnOnce(CanonicalRecordRef<'_>) -> T,
) -> Result<UnplacedRecord<T>, LineError> {
    // An ordinary line is read without allocating; any other the ordinary way, which
    // gives the error if there is one.
    let fast = json::with_record_scratch(|scratch, out| {
        match json::read_record(text, scratch, out, |_, _| {}) {
            Some(fields) => Ok(UnplacedRecord {
                line,
                index: WrittenIndex::new(fields.index),
                tool: ToolName::new(fields.tool),
                value: make(CanonicalRecordRef {
                    index: fields.index,
                    tool: fields.tool,
                    args: &out[fields.args],
                    response: &out[fields.response],
                }),
            }),
            None => Err(make),
        }
    });
    match fast {
        Ok(unplaced) => Ok(unplaced),
        Err(make) => parse_unplaced_slowly(line, text, make),
    }
}

/// [`parse_unplaced_with`] on any line, through the line's fields by name.
fn parse_unplaced_slowly<T>(
    line: u64,
    text: &str,
    make: impl FnOnce(CanonicalRecordRef<'_>) -> T,
) -> Result<UnplacedRecord<T>, LineError> {
    json::with_scratch(|scratch| {
        let mut fields = Fields::parse(line, text, &RECORD_FIELDS, &CANONICAL_FIELDS, scratch)?;
        let index = fields.integer("index")?;
        let tool = fields.non_empty_string("tool")?;
        let args = fields.written_object("args")?;
        let response = fields.written_object("response")?;
        let value = make(CanonicalRecordRef {
            index: &index,
            tool: &tool,
            args: &scratch[args],
            response: &scratch[response],
        });
        Ok(UnplacedRecord {
            line,
            index: WrittenIndex::new(&index),
            tool: ToolName::new(&tool),
            value,
        })
    })
}

/// Parses the transcript line `text` (physical line `line`), which must be the record
/// with index `expected_index`, its arguments and response into trees.
pub fn parse_record(line: u64, text: &str, expected_index: u64) -> Result<Record, LineError> {
    // Nothing is written in canonical form, so no buffer is needed.
    let mut fields = Fields::parse(line, text, &RECORD_FIELDS, &[], &mut Vec::new())?;
    let index = fields.integer("index")?;
    let tool = fields.non_empty_string("tool")?;
    let args = fields.tree_object("args")?;
    let response = fields.tree_object("response")?;
    check_place(line, &index, expected_index)?;
    Ok(Record {
        index: expected_index,
        tool,
        args,
        response,
    })
}

/// Parses the sealed-transcript line `text` (physical line `line`).
pub fn parse_link(line: u64, text: &str) -> Result<Link, LineError> {
    json::with_scratch(|scratch| {
        let mut fields = Fields::parse(
            line,
            text,
            &["args", "digest", "index", "prev", "response", "tool"],
            &CANONICAL_FIELDS,
            scratch,
        )?;
        let index = fields.integer("index")?;
        let tool = fields.non_empty_string("tool")?;
        let args = fields.written_object("args")?;
        let response = fields.written_object("response")?;
        let prev = fields.string("prev")?;
        let digest = fields.string("digest")?;
        Ok(Link {
            index,
            tool,
            args: scratch[args].to_vec(),
            response: scratch[response].to_vec(),
            prev,
            digest,
        })
    })
}

/// A sealed line that is exactly the canonical encoding of its link, as `seal` writes
/// it, with a `prev` and a `digest` of 64 characters without escape and an index
/// that fits 64 bits: its parts, borrowed from the line. [`parse_link`] gives the
/// same link, its arguments and response as they are in the line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CanonicalLine<'a> {
    /// The index.
    pub index: u64,
    /// The digest of the previous link, as written.
    pub prev: &'a str,
    /// The digest of this link, as written.
    pub digest: &'a str,
    /// The canonical encoding of the link's four-field record, in three runs of the
    /// line: `{"args":A`, `,"index":I` and `,"response":R,"tool":T}`.
    pub record: [&'a [u8]; 3],
}

/// The parts of `bytes`, a sealed line without its LF, when it is exactly the
/// canonical encoding of a link (see [`CanonicalLine`]); `None` when it is not, or
/// the check cannot tell: then [`parse_link`] reads it, and gives the error if any.
/// Such a line is ASCII, so it needs no check of its UTF-8.
pub(crate) fn canonical_line(bytes: &[u8]) -> Option<CanonicalLine<'_>> {
    let mut at = 0;
    let expect = |at: &mut usize, literal: &[u8]| {
        let found = bytes.get(*at..*at + literal.len()) == Some(literal);
        *at += literal.len();
        found.then_some(())
    };
    // A string of 64 characters that are their own canonical form.
    let plain64 = |at: usize| {
        let inside = bytes.get(at + 1..at + 65)?;
        let quoted = bytes.get(at) == Some(&b'"') && bytes.get(at + 65) == Some(&b'"');
        if !quoted || crate::scan::canonical_run(inside) != 64 {
            return None;
        }
        std::str::from_utf8(inside).ok()
    };
    let object = |at: usize| match bytes.get(at) {
        Some(b'{') => json::canonical_value_len(&bytes[at..], 1),
        _ => None,
    };
    expect(&mut at, b"{\"args\":")?;
    at += object(at)?;
    let args_end = at;
    expect(&mut at, b",\"digest\":")?;
    let digest = plain64(at)?;
    at += 66;
    let index_start = at;
    expect(&mut at, b",\"index\":")?;
    let digits = &bytes[at..at + json::canonical_integer_len(&bytes[at..])?];
    let index = std::str::from_utf8(digits).ok()?.parse::<u64>().ok()?;
    at += digits.len();
    let index_end = at;
    expect(&mut at, b",\"prev\":")?;
    let prev = plain64(at)?;
    at += 66;
    let response_start = at;
    expect(&mut at, b",\"response\":")?;
    at += object(at)?;
    expect(&mut at, b",\"tool\":")?;
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    match json::canonical_string_len(&bytes[at..])? {
        // The tool must not be empty.
        (2, _) => return None,
        (len, _) => at += len,
    }
    expect(&mut at, b"}")?;
    if at != bytes.len() {
        return None;
    }
    Some(CanonicalLine {
        index,
        prev,
        digest,
        record: [
            &bytes[..args_end],
            &bytes[index_start..index_end],
            &bytes[response_start..],
        ],
    })
}

/// The records of a transcript, in order, each checked against its position: the
/// whole transcript as trees, for tests.
#[cfg(any(test, feature = "testing"))]
pub struct Records<R> {
    lines: Lines<R>,
    count: u64,
}

#[cfg(any(test, feature = "testing"))]
impl<R: BufRead> Records<R> {
    /// Reads records from `reader`.
    pub fn new(reader: R) -> Self {
        Records {
            lines: Lines::new(reader),
            count: 0,
        }
    }
}

#[cfg(any(test, feature = "testing"))]
impl<R: BufRead> Iterator for Records<R> {
    type Item = Result<(u64, Record), ReadError>;

    /// The next record with its physical line number.
    fn next(&mut self) -> Option<Self::Item> {
        let (line, text) = match self.lines.next_line() {
            Ok(Some(found)) => found,
            Ok(None) => return None,
            Err(err) => return Some(Err(err)),
        };
        let record = parse_record(line, text, self.count).map_err(ReadError::from);
        if record.is_ok() {
            self.count += 1;
        }
        Some(record.map(|r| (line, r)))
    }
}

/// The links of a sealed transcript, in order.
pub struct Links<R> {
    lines: Lines<R>,
}

impl<R: BufRead> Links<R> {
    /// Reads links from `reader`.
    pub fn new(reader: R) -> Self {
        Links {
            lines: Lines::new(reader),
        }
    }
}

impl<R: BufRead> Iterator for Links<R> {
    type Item = Result<(u64, Link), ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.lines.next_line() {
            Ok(Some((line, text))) => Some(
                parse_link(line, text)
                    .map(|link| (line, link))
                    .map_err(ReadError::from),
            ),
            Ok(None) => None,
            Err(err) => Some(Err(err)),
        }
    }
}

/// Reads the transcript from `reader` record by record, in parallel as lines are
/// parsed: hands each record's fields to `make` on the parsing threads, then what it
/// made to `visit` with the record's line, index and tool, in input order. Each
/// record's index must be its place. Stops at the first input error, or at the
/// first error of `visit`.
///
/// ```
/// use toolreplay_core::for_each_record;
///
/// let transcript = "{\"index\": 0, \"tool\": \"search\", \"args\": {\"q\": 1}, \"response\": {}}\n";
/// let mut tools = Vec::new();
/// for_each_record(
///     transcript.as_bytes(),
///     toolreplay_core::Threads::default(),
///     |record| record.args.len(),
///     |line, index, tool, args_len| {
///         tools.push((line, index, tool.to_owned(), args_len));
///         Ok::<(), std::convert::Infallible>(())
///     },
/// )
/// .map_err(toolreplay_core::Stop::into_read_error)?;
/// assert_eq!(tools, [(1, 0, "search".to_owned(), 7)]);
/// # Ok::<(), toolreplay_core::ReadError>(())
/// ```
pub fn for_each_record<T: Send, E: Send>(
    reader: impl std::io::Read + Send,
    threads: crate::pipeline::Threads,
    make: impl Fn(CanonicalRecordRef<'_>) -> T + Sync,
    mut visit: impl FnMut(u64, u64, &str, T) -> Result<(), E> + Send,
) -> Result<(), crate::pipeline::Stop<E>> {
    let mut count = 0;
    let parse = |line, text: &str| parse_unplaced_with(line, text, &make);
    crate::pipeline::run(
        reader,
        threads,
        parse,
        |line, unplaced: UnplacedRecord<T>| {
            let index = unplaced
                .place(count)
                .map_err(|err| crate::pipeline::Stop::Read(ReadError::Input(err)))?;
            count += 1;
            visit(line, index, &unplaced.tool, unplaced.value)
                .map_err(crate::pipeline::Stop::Consume)
        },
    )
    .map_err(crate::pipeline::Stop::flatten)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record's index (placed at 0), tool and canonical fields, or the error.
    type Read = Result<(u64, String, Vec<u8>, Vec<u8>), LineError>;

    /// The canonical fields of a record, kept.
    type Kept = UnplacedRecord<(Vec<u8>, Vec<u8>)>;

    /// What the two readers of a record make of a line.
    fn both(text: &str) -> [Read; 2] {
        let keep = |r: CanonicalRecordRef<'_>| (r.args.to_vec(), r.response.to_vec());
        let read = |unplaced: Result<Kept, LineError>| -> Read {
            let unplaced = unplaced?;
            let index = unplaced.place(0)?;
            let (args, response) = unplaced.value;
            Ok((index, unplaced.tool.to_string(), args, response))
        };
        [
            read(parse_unplaced_with(7, text, keep)),
            read(parse_unplaced_slowly(7, text, keep)),
        ]
    }

    /// Lines the fast reader gives up on, and lines it reads, are read exactly as
    /// the ordinary reader reads them: the same record or the same error, first
    /// error first.
    #[test]
    fn the_fast_reader_reads_as_the_ordinary_one() {
        let lines = [
            // Ordinary, and ordinary with other orders, spaces, escapes.
            r#"{"index": 0, "tool": "t", "args": {"b": 1, "a": [2.50, "\/"]}, "response": {}}"#,
            r#"  {"response":{"x":null},"args":{},"tool":"t","index":0}  "#,
            r#"{"index":-0,"tool":"caf\u00e9 \"q\"","args":{},"response":{}}"#,
            r#"{"index":0,"tool":"日本","args":{},"response":{}}"#,
            r#"{"\u0069ndex":0,"tool":"t","args":{},"response":{}}"#,
            r#"{"index":0,"tool":"a tool name longer than thirty bytes","args":{},"response":{}}"#,
            // Unknown, missing and repeated fields.
            r#"{"index":0,"tool":"t","args":{},"response":{},"extra":1}"#,
            r#"{"index":0,"tool":"t","args":{},"response":{},"extra":[1,}"#,
            r#"{"zz":1,"index":0,"tool":"t","args":{},"response":{},"aa":2}"#,
            r#"{"index":0,"tool":"t","args":{}}"#,
            r#"{"tool":"t","args":{},"response":{}}"#,
            r#"{}"#,
            r#"{"index":0,"index":0,"tool":"t","args":{},"response":{}}"#,
            r#"{"index":0,"tool":"t","args":{},"response":{},"args":{}}"#,
            r#"{"index":0,"tool":"t","tool":"u","args":{},"response":{}}"#,
            r#"{"index":0,"tool":"t","args":{"a":1,"a":2},"response":{},"args":1}"#,
            // Wrong types.
            r#"{"index":"0","tool":"t","args":{},"response":{}}"#,
            r#"{"index":0.5,"tool":"t","args":{},"response":{}}"#,
            r#"{"index":1e2,"tool":"t","args":{},"response":{}}"#,
            r#"{"index":0,"tool":"","args":{},"response":{}}"#,
            r#"{"index":0,"tool":7,"args":{},"response":{}}"#,
            r#"{"index":0,"tool":"t","args":[],"response":{}}"#,
            r#"{"index":0,"tool":"t","args":{},"response":null}"#,
            r#"{"index":[],"tool":"","args":1,"response":2}"#,
            // Out of order, negative, too large.
            r#"{"index":1,"tool":"t","args":{},"response":{}}"#,
            r#"{"index":-3,"tool":"t","args":{},"response":{}}"#,
            r#"{"index":123456789012345678901234567890123456789012345,"tool":"t","args":{},"response":{}}"#,
            // Not JSON, or not an object.
            r#"{"index":0,"tool":"t","args":{},"response":{}"#,
            r#"{"index":0,"tool":"t","args":{},"response":{}} x"#,
            r#"{"index":0,"tool":"t\u","args":{},"response":{}}"#,
            r#"{"index":01,"tool":"t","args":{},"response":{}}"#,
            r#"{"index":0,"tool":"t","args":{"a":NaN},"response":{}}"#,
            "{\"index\":0,\"tool\":\"t\u{1}\",\"args\":{},\"response\":{}}",
            r#"[1]"#,
            r#""record""#,
        ];
        for line in lines {
            let [fast, slow] = both(line);
            assert_eq!(fast, slow, "{line}");
        }
        // A few that must read, and what they read as.
        assert_eq!(
            both(lines[2])[0].as_ref().map(|r| r.1.as_str()),
            Ok("caf\u{e9} \"q\"")
        );
        assert_eq!(
            both(lines[0])[0].as_ref().map(|r| r.2.clone()),
            Ok(br#"{"a":[2.5,"/"],"b":1}"#.to_vec())
        );
    }

    /// Ordinary lines are read by the fast reader, not left to the ordinary one.
    #[test]
    fn ordinary_lines_are_read_fast() {
        let fast = |text: &str| {
            json::with_record_scratch(|scratch, out| {
                json::read_record(text, scratch, out, |_, _| {}).map(|fields| {
                    let args = String::from_utf8_lossy(&out[fields.args]).into_owned();
                    (fields.index.to_owned(), fields.tool.to_owned(), args)
                })
            })
        };
        let read = |index: &str, tool: &str, args: &str| {
            Some((index.to_owned(), tool.to_owned(), args.to_owned()))
        };
        assert_eq!(
            fast(r#"{"index": 3, "tool": "t", "args": {"b": 1, "a": 2}, "response": {}}"#),
            read("3", "t", r#"{"a":2,"b":1}"#)
        );
        assert_eq!(
            fast(r#"{"response":{},"tool":"caf\u00e9","args":{},"index":-0}"#),
            read("0", "caf\u{e9}", "{}")
        );
        assert_eq!(
            fast(r#"{"index":0,"tool":"t","args":{},"response":{},"x":1}"#),
            None
        );
        assert_eq!(
            fast(r#"{"\u0069ndex":0,"tool":"t","args":{},"response":{}}"#),
            None
        );
    }

    /// A tool's name reads back as it was made, short or long.
    #[test]
    fn tool_names_read_back() {
        for name in ["", "t", "caf\u{e9}", &"x".repeat(30), &"y".repeat(31)] {
            let tool = ToolName::new(name);
            assert_eq!(tool.as_str(), name);
            assert_eq!(tool, name.to_owned());
            assert_eq!(format!("{tool:?}"), format!("{name:?}"));
            let set: std::collections::HashSet<ToolName> = [tool.clone()].into();
            assert!(set.contains(name));
        }
    }
}
