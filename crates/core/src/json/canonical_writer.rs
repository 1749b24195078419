//! Writing the canonical encoding straight from JSON text, without building a tree,
//! with exactly the checks and errors of [`super::parse`]: `canonicalize(t)` writes
//! `canonical::encode(&parse(t)?)`. This is how a transcript line's `args` and
//! `response` are read ([`parse_fields_in`]): the hot path of every command.

use std::cell::RefCell;
use std::ops::Range;

use super::ParseError;
use super::reader::{Literal, Members, Number, Reader};
use super::tree;
use super::value::{JsonType, Value};
use crate::canonical;

/// A member of a top-level object, as [`parse_fields_in`] gives it.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(not(feature = "testing"), allow(unreachable_pub))] // public with `testing`
pub struct Field {
    /// The decoded key.
    pub key: String,
    /// The value.
    pub value: FieldValue,
}

/// The value of a [`Field`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(not(feature = "testing"), allow(unreachable_pub))] // public with `testing`
pub enum FieldValue {
    /// Parsed into a tree.
    Tree(Value),
    /// Written in canonical form into the buffer given to [`parse_fields_in`], at
    /// this range, with its type.
    Written(Range<usize>, JsonType),
}

impl FieldValue {
    /// The JSON type of the value.
    #[cfg_attr(not(feature = "testing"), allow(unreachable_pub))] // public with `testing`
    pub fn json_type(&self) -> JsonType {
        match self {
            FieldValue::Tree(value) => value.json_type(),
            FieldValue::Written(_, json_type) => *json_type,
        }
    }
}

/// Why a text is not one JSON object.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[cfg_attr(not(feature = "testing"), allow(unreachable_pub))] // public with `testing`
pub enum ObjectError {
    /// It is not JSON.
    #[error(transparent)]
    Json(#[from] ParseError),
    /// It is JSON, of this other type.
    #[error("expected a JSON object, found {}", .0.described())]
    NotAnObject(JsonType),
}

thread_local! {
    /// The buffer [`with_scratch`] lends.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The largest scratch buffer kept between lines; a larger one (after a huge line) is
/// given back.
const SCRATCH_KEPT: usize = 4 << 20;

/// Runs `f` with a buffer kept by the thread, emptied first: for
/// [`parse_fields_in`], so that canonical values need no allocation of their own.
pub(crate) fn with_scratch<R>(f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
        Ok(mut scratch) => {
            scratch.clear();
            let result = f(&mut scratch);
            if scratch.capacity() > SCRATCH_KEPT {
                *scratch = Vec::new();
            }
            result
        }
        // Already in use further up this thread's stack: a buffer of its own.
        Err(_) => f(&mut Vec::new()),
    })
}

/// Parses `text`, which should hold one JSON object, into its members sorted by key;
/// the members named in `canonical` are written in canonical form one after another
/// into `out` (after what it holds) and given as [`FieldValue::Written`] ranges of
/// it, the others parsed into trees. The checks and errors are exactly those of
/// [`super::parse`]; when the text is valid JSON but not an object, the error says
/// which type it is instead.
#[cfg_attr(not(feature = "testing"), allow(unreachable_pub))] // public with `testing`
pub fn parse_fields_in(
    text: &str,
    canonical: &[&str],
    out: &mut Vec<u8>,
) -> Result<Vec<Field>, ObjectError> {
    let mut reader = Reader::new(text);
    let mut writer = CanonicalWriter::default();
    reader.skip_ws();
    if reader.peek() != Some(b'{') {
        let json_type = writer.value(&mut reader, &mut Vec::new())?;
        reader.end()?;
        return Err(ObjectError::NotAnObject(json_type));
    }
    let mut fields = FieldReader {
        canonical,
        out,
        writer,
        fields: Vec::new(),
    };
    reader.object(&mut fields)?;
    let mut fields = fields.fields;
    reader.sort_members(&mut fields, |(field, _)| &field.key, |&(_, offset)| offset)?;
    reader.end()?;
    Ok(fields.into_iter().map(|(field, _)| field).collect())
}

/// Writes the canonical encoding of the JSON text `text` to `out`, straight from the
/// text, with exactly the checks and errors of [`super::parse`]; returns the value's
/// type.
///
/// `canonicalize(t)` equals `canonical::encode(&parse(t)?)`, without building the
/// value.
#[cfg(any(test, feature = "testing"))]
pub fn canonicalize(text: &str, out: &mut Vec<u8>) -> Result<JsonType, ParseError> {
    let mut reader = Reader::new(text);
    reader.skip_ws();
    let json_type = CanonicalWriter::default().value(&mut reader, out)?;
    reader.end()?;
    Ok(json_type)
}

/// Writes the canonical encoding of the value at the reader's position to `out`, as
/// [`canonicalize`] does for a whole text; returns the value's type.
pub(super) fn write_canonical_text(
    reader: &mut Reader<'_>,
    out: &mut Vec<u8>,
) -> Result<JsonType, ParseError> {
    CanonicalWriter::default().value(reader, out)
}

/// The members of a top-level object as [`parse_fields_in`] reads them, each with the
/// offset of its key, for errors.
struct FieldReader<'c, 'o> {
    canonical: &'c [&'c str],
    out: &'o mut Vec<u8>,
    writer: CanonicalWriter,
    fields: Vec<(Field, usize)>,
}

impl<'a> Members<'a> for FieldReader<'_, '_> {
    type Key = String;

    fn key(&mut self, reader: &mut Reader<'a>) -> Result<String, ParseError> {
        reader.string()
    }

    fn value(
        &mut self,
        reader: &mut Reader<'a>,
        key: String,
        offset: usize,
    ) -> Result<(), ParseError> {
        let value = if self.canonical.contains(&key.as_str()) {
            let start = self.out.len();
            let json_type = self.writer.value(reader, self.out)?;
            FieldValue::Written(start..self.out.len(), json_type)
        } else {
            FieldValue::Tree(tree::value(reader)?)
        };
        self.fields.push((Field { key, value }, offset));
        Ok(())
    }
}

/// What writing objects in canonical form keeps, reused from object to object: the
/// members of the objects being written and their decoded keys, innermost last, and
/// the room to sort the members of one.
#[derive(Default)]
pub(super) struct CanonicalWriter {
    /// Decoded keys of the objects being written, innermost last.
    keys: String,
    /// Members of the objects being written, innermost last.
    members: Vec<Member>,
    /// The members of an object written out of order, sorted: indexes into `members`.
    order: Vec<usize>,
    /// The members of an object written out of order, but its largest, while it
    /// moves into place.
    spare: Vec<u8>,
}

/// A member of an object written in canonical form: where its key is, where the key
/// was in the input, and where `"key":value` is in the output.
#[derive(Debug, Clone)]
struct Member {
    key: Key,
    /// The key's first eight bytes, as [`prefix`] gives them.
    prefix: u64,
    offset: usize,
    segment: Range<usize>,
}

/// Where the decoded form of a key is.
#[derive(Debug, Clone)]
enum Key {
    /// In the input text, as it is: printable ASCII with no escape.
    Text(Range<usize>),
    /// In `CanonicalWriter::keys`, decoded.
    Decoded(Range<usize>),
}

impl Key {
    /// The decoded key, from the input `text` or the writer's `keys`.
    fn decoded<'k>(&self, text: &'k str, keys: &'k str) -> &'k str {
        match self {
            Key::Text(range) => &text[range.clone()],
            Key::Decoded(range) => &keys[range.clone()],
        }
    }
}

impl CanonicalWriter {
    /// Gives back the room kept between values once it grew past `limit` bytes (after
    /// a huge value), so that what a thread keeps stays bounded.
    pub(super) fn shed(&mut self, limit: usize) {
        let kept = self.keys.capacity()
            + self.spare.capacity()
            + (self.members.capacity() + self.order.capacity()) * std::mem::size_of::<Member>();
        if kept > limit {
            *self = CanonicalWriter::default();
        }
    }

    /// Writes the value at the current position in canonical form, straight from its
    /// text, with exactly the checks and errors of [`tree::value`].
    pub(super) fn value(
        &mut self,
        reader: &mut Reader<'_>,
        out: &mut Vec<u8>,
    ) -> Result<JsonType, ParseError> {
        match reader.peek() {
            Some(b'{') => self.object(reader, out),
            Some(b'[') => {
                out.push(b'[');
                reader.array(|reader, first| {
                    if !first {
                        out.push(b',');
                    }
                    self.value(reader, out).map(drop)
                })?;
                out.push(b']');
                Ok(JsonType::Array)
            }
            Some(b'"') => string(reader, out).map(|empty| JsonType::Str { empty }),
            Some(b'-' | b'0'..=b'9') => {
                match reader.number()? {
                    Number::Int(digits) => {
                        out.extend_from_slice(digits.as_bytes());
                        return Ok(JsonType::Int);
                    }
                    // Already as the encoding writes it: copied, not read.
                    Number::Fraction { text, .. } if canonical::is_float_repr(text) => {
                        out.extend_from_slice(text.as_bytes());
                    }
                    Number::Fraction { start, text } => {
                        canonical::write_float(reader.float(start, text)?, out);
                    }
                }
                Ok(JsonType::Float)
            }
            _ => {
                let (bytes, json_type): (&[u8], _) = match reader.literal()? {
                    Literal::Null => (b"null", JsonType::Null),
                    Literal::True => (b"true", JsonType::Bool),
                    Literal::False => (b"false", JsonType::Bool),
                };
                out.extend_from_slice(bytes);
                Ok(json_type)
            }
        }
    }

    /// Writes the object at the current position with its members sorted by key.
    fn object(
        &mut self,
        reader: &mut Reader<'_>,
        out: &mut Vec<u8>,
    ) -> Result<JsonType, ParseError> {
        let object_start = out.len();
        let keys_mark = self.keys.len();
        let members_mark = self.members.len();
        out.push(b'{');
        reader.object(&mut ObjectWriter {
            writer: self,
            out,
            members_mark,
        })?;
        out.push(b'}');
        self.sort(reader, out, object_start, members_mark)?;
        self.members.truncate(members_mark);
        self.keys.truncate(keys_mark);
        Ok(JsonType::Object)
    }

    /// Puts the members of the object just written at `object_start` (those of
    /// `members` from `members_mark` on) in order of their keys, unless they are; a
    /// key written twice is an error.
    fn sort(
        &mut self,
        reader: &Reader<'_>,
        out: &mut [u8],
        object_start: usize,
        members_mark: usize,
    ) -> Result<(), ParseError> {
        let members = &self.members[members_mark..];
        let keys = &self.keys;
        let key = |m: &Member| m.key.decoded(reader.text, keys);
        // Keys compare as their UTF-8 bytes do; their first eight bytes mostly decide.
        let compare = |a: &Member, b: &Member| {
            (a.prefix.cmp(&b.prefix)).then_with(|| key(a).as_bytes().cmp(key(b).as_bytes()))
        };
        if members.windows(2).all(|w| compare(&w[0], &w[1]).is_lt()) {
            return Ok(());
        }
        // Stable sort, so of two equal keys the first written comes first.
        let order = &mut self.order;
        order.clear();
        order.extend(0..members.len());
        order.sort_by(|&a, &b| compare(&members[a], &members[b]));
        if let Some(pair) = order
            .windows(2)
            .find(|w| compare(&members[w[0]], &members[w[1]]).is_eq())
        {
            let second = &members[pair[1]];
            return Err(reader.duplicate_key(second.offset, key(second)));
        }
        reorder(out, object_start, members, order, &mut self.spare);
        Ok(())
    }
}

/// The members of one object as [`CanonicalWriter::object`] writes them.
struct ObjectWriter<'w> {
    writer: &'w mut CanonicalWriter,
    out: &'w mut Vec<u8>,
    /// Where the object's members start in `writer.members`.
    members_mark: usize,
}

impl<'a> Members<'a> for ObjectWriter<'_> {
    type Key = Key;

    /// Reads the key at the current position (a `"`): where it is in the text when it
    /// is printable ASCII with no escape, else decoded into the writer's `keys`.
    // Inlined into the object loop, as if written there: a call per member costs.
    #[inline(always)]
    fn key(&mut self, reader: &mut Reader<'a>) -> Result<Key, ParseError> {
        let start = reader.pos + 1;
        let end = start + crate::scan::canonical_run(&reader.bytes[start..]);
        if reader.bytes.get(end) == Some(&b'"') {
            reader.pos = end + 1;
            return Ok(Key::Text(start..end));
        }
        let keys = &mut self.writer.keys;
        let key_start = keys.len();
        reader.string_into(keys)?;
        Ok(Key::Decoded(key_start..keys.len()))
    }

    /// Writes `"key":value`, after a comma unless it is the first member.
    #[inline(always)]
    fn value(
        &mut self,
        reader: &mut Reader<'a>,
        key: Key,
        offset: usize,
    ) -> Result<(), ParseError> {
        let out = &mut *self.out;
        if self.writer.members.len() > self.members_mark {
            out.push(b',');
        }
        let segment_start = out.len();
        match &key {
            // Printable ASCII with no escape is its own canonical form.
            Key::Text(range) => out.extend_from_slice(&reader.bytes[range.start - 1..=range.end]),
            Key::Decoded(range) => canonical::write_str(&self.writer.keys[range.clone()], out),
        }
        out.push(b':');
        self.writer.value(reader, out)?;
        let prefix = prefix(key.decoded(reader.text, &self.writer.keys).as_bytes());
        self.writer.members.push(Member {
            key,
            prefix,
            offset,
            segment: segment_start..out.len(),
        });
        Ok(())
    }
}

/// Writes the string at the current position in canonical form, straight from its
/// text, and tells whether it was empty.
fn string(reader: &mut Reader<'_>, out: &mut Vec<u8>) -> Result<bool, ParseError> {
    debug_assert_eq!(reader.peek(), Some(b'"'));
    reader.pos += 1;
    let start = reader.pos;
    // The text from `kept` on is already canonical, to be copied in one go.
    let mut kept = start;
    out.push(b'"');
    loop {
        // Printable ASCII other than `"` and `\` is copied as it is.
        reader.pos += crate::scan::canonical_run(&reader.bytes[reader.pos..]);
        match reader.peek() {
            Some(b'"') => {
                out.extend_from_slice(&reader.bytes[kept..reader.pos]);
                reader.pos += 1;
                out.push(b'"');
                return Ok(reader.pos - 1 == start);
            }
            Some(b'\\') => match reader.bytes.get(reader.pos + 1) {
                // Short escapes are already canonical, but `\/`, which is `/`.
                Some(b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't') => reader.pos += 2,
                Some(b'/') => {
                    out.extend_from_slice(&reader.bytes[kept..reader.pos]);
                    out.push(b'/');
                    reader.pos += 2;
                    kept = reader.pos;
                }
                _ => match canonical_escape_len(reader) {
                    0 => {
                        out.extend_from_slice(&reader.bytes[kept..reader.pos]);
                        let c = reader.escape()?;
                        canonical::write_char(c, out);
                        kept = reader.pos;
                    }
                    canonical => reader.pos += canonical,
                },
            },
            Some(0..0x20) => return Err(reader.control_character()),
            Some(_) => {
                // DEL or a non-ASCII character: written as its escape. The run ended
                // at a character boundary, before a byte, so there is a character.
                out.extend_from_slice(&reader.bytes[kept..reader.pos]);
                let c = reader.text[reader.pos..]
                    .chars()
                    .next()
                    .ok_or_else(|| reader.unterminated_string())?;
                canonical::write_char(c, out);
                reader.pos += c.len_utf8();
                kept = reader.pos;
            }
            None => return Err(reader.unterminated_string()),
        }
    }
}

/// The length of the `\uXXXX` escape (or surrogate pair of them) at the current
/// position when it is already exactly what the canonical encoding writes, so it
/// can be copied; 0 otherwise.
fn canonical_escape_len(reader: &Reader<'_>) -> usize {
    canonical_escape_len_at(reader.bytes, reader.pos)
}

/// The length of the `\uXXXX` escape (or surrogate pair of them) at `pos` in `bytes`
/// when it is exactly what the canonical encoding writes; 0 otherwise.
pub(super) fn canonical_escape_len_at(bytes: &[u8], pos: usize) -> usize {
    let unit = |at: usize| -> Option<u32> {
        let digits = bytes.get(at..at + 6)?;
        if digits[0] != b'\\' || digits[1] != b'u' {
            return None;
        }
        digits[2..].iter().try_fold(0, |code, &b| match b {
            b'0'..=b'9' => Some(code * 16 + u32::from(b - b'0')),
            b'a'..=b'f' => Some(code * 16 + u32::from(b - b'a' + 10)),
            _ => None,
        })
    };
    match unit(pos) {
        Some(0x08 | 0x09 | 0x0a | 0x0c | 0x0d) => 0,
        Some(code) if code < 0x20 => 6,
        Some(0xD800..=0xDBFF) => match unit(pos + 6) {
            Some(0xDC00..=0xDFFF) => 12,
            _ => 0,
        },
        Some(0xDC00..=0xDFFF) => 0,
        Some(code) if code >= 0x7f => 6,
        _ => 0,
    }
}

/// The first eight bytes of `key` (zeros after a shorter key) as a big-endian number:
/// two keys whose prefixes differ compare as their prefixes do.
fn prefix(key: &[u8]) -> u64 {
    let mut bytes = [0; 8];
    let n = key.len().min(8);
    bytes[..n].copy_from_slice(&key[..n]);
    u64::from_be_bytes(bytes)
}

/// Puts the members of the object written at `object_start` (its last bytes in `out`)
/// in `order`: every member's `"key":value` moves to its place, the largest once and
/// the others through `spare`. The object keeps its length.
fn reorder(
    out: &mut [u8],
    object_start: usize,
    members: &[Member],
    order: &[usize],
    spare: &mut Vec<u8>,
) {
    let Some(largest) = (0..order.len()).max_by_key(|&i| members[order[i]].segment.len()) else {
        // No member: nothing to move.
        return;
    };
    spare.clear();
    for (i, &member) in order.iter().enumerate() {
        if i != largest {
            spare.extend_from_slice(&out[members[member].segment.clone()]);
        }
    }
    // `{`, then the members before the largest, each with its comma.
    let before: usize = order[..largest]
        .iter()
        .map(|&m| members[m].segment.len() + 1)
        .sum();
    let largest_segment = members[order[largest]].segment.clone();
    out.copy_within(largest_segment, object_start + 1 + before);
    let mut at = object_start + 1;
    let mut from = 0;
    for (i, &member) in order.iter().enumerate() {
        if i > 0 {
            out[at] = b',';
            at += 1;
        }
        let len = members[member].segment.len();
        if i != largest {
            out[at..at + len].copy_from_slice(&spare[from..from + len]);
            from += len;
        }
        at += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical;
    use crate::json::{Value, parse};

    /// Keys that share their first eight bytes, or differ only past a NUL byte, are
    /// still sorted and told apart byte by byte.
    #[test]
    fn keys_sort_by_every_byte() {
        let keys = [
            "",
            "\\u0000",
            "a",
            "ab",
            "ab\\u0000",
            "ab\\u0000c",
            "abcdefgh",
            "abcdefgh\\u0000",
            "abcdefghi",
            "abcdefghj",
            "abcdefgi",
            "\\u00e9",
            "\\u00e9\\u00e9",
            "~",
            "\\u007f",
        ];
        let members: Vec<String> = keys.iter().map(|k| format!("\"{k}\":\"{k}\"")).collect();
        let sorted = canonical::encode(&parse(&format!("{{{}}}", members.join(","))).unwrap());
        // Every rotation and the reverse of the order above.
        for turn in 0..members.len() {
            for reverse in [false, true] {
                let mut order = members.clone();
                order.rotate_left(turn);
                if reverse {
                    order.reverse();
                }
                let mut out = Vec::new();
                canonicalize(&format!("{{{}}}", order.join(", ")), &mut out).unwrap();
                assert_eq!(
                    String::from_utf8_lossy(&out),
                    String::from_utf8_lossy(&sorted)
                );
            }
        }
        let written: Vec<String> = match parse(std::str::from_utf8(&sorted).unwrap()).unwrap() {
            Value::Object(members) => members.into_iter().map(|(k, _)| k).collect(),
            other => panic!("{other:?}"),
        };
        let mut by_bytes = written.clone();
        by_bytes.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        assert_eq!(written, by_bytes);
        assert_eq!(written.len(), keys.len());
    }

    /// Two keys equal in their first eight bytes and their length are not taken for
    /// one; two equal keys are, however each is written.
    #[test]
    fn only_equal_keys_are_duplicates() {
        let mut out = Vec::new();
        assert!(canonicalize(r#"{"abcdefgh1":1,"abcdefgh2":2,"abcdefgh0":0}"#, &mut out).is_ok());
        assert_eq!(out, br#"{"abcdefgh0":0,"abcdefgh1":1,"abcdefgh2":2}"#);
        for text in [
            r#"{"abcdefgh1":1,"z":0,"abcdefgh1":2}"#,
            r#"{"abcdefgh1":1,"z":0,"abcdefgh\u0031":2}"#,
            r#"{"abcdefgh\u0031":1,"z":0,"abcdefgh1":2}"#,
        ] {
            let err = canonicalize(text, &mut Vec::new()).unwrap_err();
            assert_eq!(err.to_string(), parse(text).unwrap_err().to_string());
            assert!(
                err.to_string().contains("duplicate key \"abcdefgh1\""),
                "{err}"
            );
        }
    }
}
