//! A JSON text checked once and read lazily: [`Raw`], a value's place in a text that
//! has been validated with exactly the checks and errors of [`super::parse`], opened
//! one level at a time ([`Raw::members`], [`Raw::items`]) and written in canonical
//! form straight from its text ([`Raw::write_canonical`]).
//!
//! This is how imports read agents' logs: a log's record keeps only the few members
//! its format's mapping looks at, each a place in the input, never a tree of the
//! arguments or results it carries; those are written to their canonical bytes when
//! needed. Memory is the input plus, per object or array opened, one entry per member
//! or element (for an object, its decoded key).

use std::borrow::Cow;

use super::ParseError;
use super::canonical_writer::write_canonical_text;
use super::reader::{Members, Number, Reader};
use super::value::{JsonType, Value};

/// A JSON value in a validated text: where it is in that text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Raw<'a> {
    /// The whole text the value is part of.
    doc: &'a str,
    /// The value's byte range in `doc`.
    start: usize,
    end: usize,
}

/// The members of an object, sorted by key (keys are unique), each with its value.
pub(crate) type RawMembers<'a> = Vec<(Cow<'a, str>, Raw<'a>)>;

impl<'a> Raw<'a> {
    /// Checks that `text` is exactly one JSON value, surrounded by optional
    /// whitespace, with the checks and errors of [`super::parse`], and gives the value.
    pub(crate) fn parse(text: &'a str) -> Result<Raw<'a>, ParseError> {
        let mut reader = Reader::new(text);
        reader.skip_ws();
        let start = reader.pos;
        check_value(&mut reader)?;
        let end = reader.pos;
        reader.end()?;
        Ok(Raw {
            doc: text,
            start,
            end,
        })
    }

    /// The value's text, as written.
    pub(crate) fn text(&self) -> &'a str {
        &self.doc[self.start..self.end]
    }

    /// The whole text the value was parsed from.
    pub(crate) fn doc(&self) -> &'a str {
        self.doc
    }

    /// The byte offset of the value in the text it was parsed from.
    pub(crate) fn offset(&self) -> usize {
        self.start
    }

    /// The JSON type of the value.
    pub(crate) fn json_type(&self) -> JsonType {
        match self.doc.as_bytes()[self.start] {
            b'{' => JsonType::Object,
            b'[' => JsonType::Array,
            b'"' => JsonType::Str {
                empty: self.end - self.start == 2,
            },
            b'n' => JsonType::Null,
            b't' | b'f' => JsonType::Bool,
            _ if self.text().bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) => JsonType::Float,
            _ => JsonType::Int,
        }
    }

    /// The JSON type of the value with its article, as [`Value::described`] says it.
    pub(crate) fn described(&self) -> &'static str {
        self.json_type().described()
    }

    /// Whether the value is `null`.
    pub(crate) fn is_null(&self) -> bool {
        self.json_type() == JsonType::Null
    }

    /// The value when it is `true` or `false`.
    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self.text() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }

    /// The decoded string, when the value is one: borrowed from the text when it has
    /// no escape.
    pub(crate) fn as_str(&self) -> Option<Cow<'a, str>> {
        if self.doc.as_bytes()[self.start] != b'"' {
            return None;
        }
        let inner = &self.doc[self.start + 1..self.end - 1];
        if memchr::memchr(b'\\', inner.as_bytes()).is_none() {
            return Some(Cow::Borrowed(inner));
        }
        let mut reader = self.reader();
        reader.string().ok().map(Cow::Owned)
    }

    /// The members of the value, sorted by key, when it is an object.
    pub(crate) fn members(&self) -> Option<RawMembers<'a>> {
        if self.doc.as_bytes()[self.start] != b'{' {
            return None;
        }
        let mut reader = self.reader();
        let mut members = Vec::new();
        reader.pos += 1;
        loop {
            reader.skip_ws();
            match reader.peek() {
                Some(b'"') => {}
                // `}`: the text is valid, so nothing else is here.
                _ => break,
            }
            let key = key(&mut reader)?;
            reader.skip_ws();
            reader.pos += 1; // `:`
            reader.skip_ws();
            let value = self.at(skip(&mut reader)?);
            members.push((key, value));
            reader.skip_ws();
            if reader.peek() == Some(b',') {
                reader.pos += 1;
            }
        }
        members.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        Some(members)
    }

    /// The elements of the value, in order, when it is an array.
    pub(crate) fn items(&self) -> Option<RawItems<'a>> {
        if self.doc.as_bytes()[self.start] != b'[' {
            return None;
        }
        Some(RawItems {
            raw: *self,
            pos: self.start + 1,
        })
    }

    /// The value as a tree.
    pub(crate) fn to_value(self) -> Result<Value, ParseError> {
        let mut reader = self.reader();
        super::tree::value(&mut reader)
    }

    /// Writes the value's canonical encoding to `out`, as
    /// `canonical::encode(&self.to_value()?)` would, without the tree.
    pub(crate) fn write_canonical(&self, out: &mut Vec<u8>) -> Result<JsonType, ParseError> {
        write_canonical_text(&mut self.reader(), out)
    }

    /// How deep the value nests: 0 for a scalar, 1 for `[]` or `{}`.
    pub(crate) fn depth(&self) -> usize {
        let bytes = self.text().as_bytes();
        let (mut depth, mut deepest, mut at) = (0usize, 0usize, 0);
        while at < bytes.len() {
            let next = memchr::memchr(b'"', &bytes[at..]).map_or(bytes.len(), |i| at + i);
            for &b in &bytes[at..next] {
                match b {
                    b'[' | b'{' => {
                        depth += 1;
                        deepest = deepest.max(depth);
                    }
                    b']' | b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            at = if next < bytes.len() {
                string_end(bytes, next)
            } else {
                next
            };
        }
        deepest
    }

    /// A reader at the value.
    fn reader(&self) -> Reader<'a> {
        let mut reader = Reader::new(self.doc);
        reader.pos = self.start;
        reader
    }

    /// The value at `range` of the same text.
    fn at(&self, (start, end): (usize, usize)) -> Raw<'a> {
        Raw {
            doc: self.doc,
            start,
            end,
        }
    }
}

/// The elements of an array, as [`Raw::items`] gives them.
#[derive(Debug, Clone)]
pub(crate) struct RawItems<'a> {
    raw: Raw<'a>,
    pos: usize,
}

impl<'a> Iterator for RawItems<'a> {
    type Item = Raw<'a>;

    fn next(&mut self) -> Option<Raw<'a>> {
        let mut reader = self.raw.reader();
        reader.pos = self.pos;
        reader.skip_ws();
        if matches!(reader.peek(), Some(b']') | None) {
            self.pos = reader.pos;
            return None;
        }
        let item = skip(&mut reader)?;
        reader.skip_ws();
        if reader.peek() == Some(b',') {
            reader.pos += 1;
        }
        self.pos = reader.pos;
        Some(self.raw.at(item))
    }
}

/// The byte after the string that starts (its `"`) at `at` of a valid text.
fn string_end(bytes: &[u8], at: usize) -> usize {
    let mut i = at + 1;
    while let Some(found) = memchr::memchr2(b'"', b'\\', &bytes[i..]) {
        i += found;
        if bytes[i] == b'\\' {
            i += 2;
        } else {
            return i + 1;
        }
    }
    bytes.len()
}

/// Skips the value at the reader's position in a valid text, giving its range.
fn skip(reader: &mut Reader<'_>) -> Option<(usize, usize)> {
    let start = reader.pos;
    let bytes = reader.bytes;
    match *bytes.get(start)? {
        b'"' => reader.pos = string_end(bytes, start),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = start;
            loop {
                let found = i + memchr::memchr3(b'"', b'}', b']', &bytes[i..])?;
                // Opening brackets before `found` start levels.
                depth += bytes[i..found]
                    .iter()
                    .filter(|&&b| b == b'{' || b == b'[')
                    .count();
                match bytes[found] {
                    b'"' => i = string_end(bytes, found),
                    _ => {
                        depth = depth.saturating_sub(1);
                        i = found + 1;
                        if depth == 0 {
                            break;
                        }
                    }
                }
            }
            reader.pos = i;
        }
        _ => {
            let len = bytes[start..]
                .iter()
                .position(|b| matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(bytes.len() - start);
            reader.pos = start + len;
        }
    }
    Some((start, reader.pos))
}

/// Reads the key at the reader's position (its `"`) of a valid text, decoded.
fn key<'a>(reader: &mut Reader<'a>) -> Option<Cow<'a, str>> {
    let start = reader.pos;
    let end = string_end(reader.bytes, start);
    let inner = &reader.text[start + 1..end - 1];
    if memchr::memchr(b'\\', inner.as_bytes()).is_none() {
        reader.pos = end;
        return Some(Cow::Borrowed(inner));
    }
    reader.string().ok().map(Cow::Owned)
}

/// Checks the value at the reader's position, with the checks and errors of
/// [`super::tree::value`], building nothing but each object's keys while it is read.
fn check_value(reader: &mut Reader<'_>) -> Result<(), ParseError> {
    match reader.peek() {
        Some(b'{') => {
            let mut keys = KeyChecker(Vec::new());
            reader.object(&mut keys)?;
            reader.sort_members(&mut keys.0, |m| &m.0, |m| m.1)
        }
        Some(b'[') => reader.array(|reader, _| check_value(reader)),
        Some(b'"') => check_string(reader),
        Some(b'-' | b'0'..=b'9') => match reader.number()? {
            Number::Int(_) => Ok(()),
            Number::Fraction { start, text } => reader.float(start, text).map(drop),
        },
        _ => reader.literal().map(drop),
    }
}

/// Checks the string at the reader's position, as [`Reader::string_into`] reads it.
fn check_string(reader: &mut Reader<'_>) -> Result<(), ParseError> {
    reader.pos += 1;
    loop {
        reader.pos += crate::scan::string_run(&reader.bytes[reader.pos..]);
        match reader.peek() {
            Some(b'"') => {
                reader.pos += 1;
                return Ok(());
            }
            Some(b'\\') => {
                reader.escape()?;
            }
            Some(_) => return Err(reader.control_character()),
            None => return Err(reader.unterminated_string()),
        }
    }
}

/// The keys of an object being checked, each with its offset, for the error of a
/// key written twice.
struct KeyChecker<'a>(Vec<(Cow<'a, str>, usize)>);

impl<'a> Members<'a> for KeyChecker<'a> {
    type Key = Cow<'a, str>;

    fn key(&mut self, reader: &mut Reader<'a>) -> Result<Cow<'a, str>, ParseError> {
        let start = reader.pos + 1;
        let end = start + crate::scan::canonical_run(&reader.bytes[start..]);
        if reader.bytes.get(end) == Some(&b'"') {
            reader.pos = end + 1;
            return Ok(Cow::Borrowed(&reader.text[start..end]));
        }
        reader.string().map(Cow::Owned)
    }

    fn value(
        &mut self,
        reader: &mut Reader<'a>,
        key: Cow<'a, str>,
        offset: usize,
    ) -> Result<(), ParseError> {
        check_value(reader)?;
        self.0.push((key, offset));
        Ok(())
    }
}

/// The member `key` of sorted `members`.
pub(crate) fn raw_member<'a>(members: &[(Cow<'a, str>, Raw<'a>)], key: &str) -> Option<Raw<'a>> {
    members
        .binary_search_by(|(k, _)| k.as_bytes().cmp(key.as_bytes()))
        .ok()
        .map(|i| members[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical;
    use crate::json::parse;

    const TEXTS: [&str; 12] = [
        r#"{"b":[1,2.5,{"x":"\u00e9\n"}],"a":null,"c":true,"\u0061b":"\"]}"}"#,
        r#"  [ ]  "#,
        r#"{}"#,
        r#""str\\\"ing""#,
        r#"-0"#,
        r#"1e5"#,
        r#"[[[[]]],{"k":[{}]}]"#,
        r#"{"a" : [ "]", "}" , "\\" ] , "z" : { "y" : [ 1 , 2 ] } }"#,
        r#"false"#,
        r#"{"é":1,"e":2}"#,
        r#"[1,"a",[2],{"b":3}]"#,
        "{\"a\":\"\\ud83d\\ude00\"}",
    ];

    #[test]
    fn reads_as_the_tree_does() {
        for text in TEXTS {
            let raw = Raw::parse(text).expect(text);
            let tree = parse(text).expect(text);
            assert_eq!(raw.json_type(), tree.json_type(), "{text}");
            assert_eq!(raw.to_value().unwrap(), tree, "{text}");
            let mut out = Vec::new();
            raw.write_canonical(&mut out).unwrap();
            assert_eq!(out, canonical::encode(&tree), "{text}");
            assert_eq!(raw.depth(), tree_depth(&tree), "{text}");
            match &tree {
                Value::Object(members) => {
                    let raws = raw.members().unwrap();
                    assert_eq!(raws.len(), members.len());
                    for ((k, v), (rk, rv)) in members.iter().zip(&raws) {
                        assert_eq!(k, rk);
                        assert_eq!(&rv.to_value().unwrap(), v);
                        assert_eq!(raw_member(&raws, k).unwrap().text(), rv.text());
                    }
                }
                Value::Array(items) => {
                    let raws: Vec<Raw<'_>> = raw.items().unwrap().collect();
                    assert_eq!(raws.len(), items.len(), "{text}");
                    for (item, raw) in items.iter().zip(raws) {
                        assert_eq!(&raw.to_value().unwrap(), item);
                    }
                }
                Value::Str(s) => assert_eq!(raw.as_str().unwrap(), *s),
                _ => {}
            }
        }
    }

    #[test]
    fn errors_are_those_of_the_tree() {
        let deep = format!("{}{}", "[".repeat(129), "]".repeat(129));
        let texts = [
            "",
            "{",
            r#"{"a":1,"a":2}"#,
            r#"{"a":1,"b":{"c":1,"c":2},"a":3}"#,
            r#"[1,]"#,
            r#""\ud800""#,
            "1e999",
            "NaN",
            "[01]",
            "\"a\u{1}\"",
            "{\"a\":1} x",
            deep.as_str(),
        ];
        for text in texts {
            assert_eq!(
                Raw::parse(text).map(|_| ()).unwrap_err(),
                parse(text).unwrap_err(),
                "{text}"
            );
        }
    }

    fn tree_depth(value: &Value) -> usize {
        match value {
            Value::Array(items) => 1 + items.iter().map(tree_depth).max().unwrap_or(0),
            Value::Object(members) => {
                1 + members
                    .iter()
                    .map(|(_, v)| tree_depth(v))
                    .max()
                    .unwrap_or(0)
            }
            _ => 0,
        }
    }
}
