//! Parsing a JSON text into a [`Value`] tree.

use super::ParseError;
use super::reader::{Literal, Members, Number, Reader};
use super::value::Value;

/// Parses `text` as exactly one JSON value, surrounded by optional whitespace.
///
/// Error offsets are byte offsets into `text`; messages of syntax errors end with the
/// 1-based column of the offending byte on its line.
pub fn parse(text: &str) -> Result<Value, ParseError> {
    let mut reader = Reader::new(text);
    reader.skip_ws();
    let value = value(&mut reader)?;
    reader.end()?;
    Ok(value)
}

/// Parses `text` like [`parse`], and when the value is an object, also gives the
/// 1-based line of each member's key, in the order of the members; when it is an
/// array, the 1-based line where each element starts.
pub fn parse_located(text: &str) -> Result<(Value, Vec<usize>), ParseError> {
    let mut reader = Reader::new(text);
    reader.skip_ws();
    let (value, offsets) = match reader.peek() {
        Some(b'{') => {
            let mut members = TreeMembers::default();
            reader.object(&mut members)?;
            let members = members.sorted(&reader)?;
            let offsets = members.iter().map(|m| m.2).collect();
            (object(members), offsets)
        }
        Some(b'[') => {
            let (mut items, mut offsets) = (Vec::new(), Vec::new());
            reader.array(|reader, _| {
                offsets.push(reader.pos);
                items.push(value(reader)?);
                Ok(())
            })?;
            (Value::Array(items), offsets)
        }
        _ => (value(&mut reader)?, Vec::new()),
    };
    reader.end()?;
    // One walk over the text, however many offsets there are.
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&i| offsets[i]);
    let mut lines = vec![0; order.len()];
    let (mut line, mut counted) = (1, 0);
    for i in order {
        let offset = offsets[i];
        line += text.as_bytes()[counted..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted = offset;
        lines[i] = line;
    }
    Ok((value, lines))
}

/// Reads the value at the current position into a tree.
pub(super) fn value(reader: &mut Reader<'_>) -> Result<Value, ParseError> {
    match reader.peek() {
        Some(b'{') => {
            let mut members = TreeMembers::default();
            reader.object(&mut members)?;
            Ok(object(members.sorted(reader)?))
        }
        Some(b'[') => {
            let mut items = Vec::new();
            reader.array(|reader, _| {
                items.push(value(reader)?);
                Ok(())
            })?;
            Ok(Value::Array(items))
        }
        Some(b'"') => Ok(Value::Str(reader.string()?)),
        Some(b'-' | b'0'..=b'9') => match reader.number()? {
            Number::Int(digits) => Ok(Value::Int(digits.into())),
            Number::Fraction { start, text } => reader.float(start, text).map(Value::Float),
        },
        _ => Ok(match reader.literal()? {
            Literal::Null => Value::Null,
            Literal::True => Value::Bool(true),
            Literal::False => Value::Bool(false),
        }),
    }
}

/// The members of an object as read, each with the offset of its key, for errors.
#[derive(Default)]
struct TreeMembers(Vec<(String, Value, usize)>);

impl TreeMembers {
    /// The members sorted by key; a key written twice is an error.
    fn sorted(mut self, reader: &Reader<'_>) -> Result<Vec<(String, Value, usize)>, ParseError> {
        reader.sort_members(&mut self.0, |m| &m.0, |m| m.2)?;
        Ok(self.0)
    }
}

impl<'a> Members<'a> for TreeMembers {
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
        self.0.push((key, value(reader)?, offset));
        Ok(())
    }
}

/// The object of `members`, sorted, without their offsets.
fn object(members: Vec<(String, Value, usize)>) -> Value {
    Value::Object(
        members
            .into_iter()
            .map(|(key, value, _)| (key, value))
            .collect(),
    )
}

/// Where the parts of a value parsed by [`parse_with_lines`] start: for an array,
/// the 1-based line of each element with its own parts; for an object, the parts of
/// each member, in the order of the value's (sorted) members. Below the depth asked
/// for, and for scalars, nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Lines {
    /// Nothing recorded.
    #[default]
    Leaf,
    /// Each element's line and parts.
    Array(Vec<(usize, Lines)>),
    /// Each member's parts.
    Object(Vec<Lines>),
}

impl Lines {
    /// The parts of the member at position `at` of an object.
    pub fn member(&self, at: usize) -> &Lines {
        match self {
            Lines::Object(members) => members.get(at).unwrap_or(&Lines::Leaf),
            _ => &Lines::Leaf,
        }
    }

    /// The line and parts of the element at position `at` of an array.
    pub fn element(&self, at: usize) -> Option<&(usize, Lines)> {
        match self {
            Lines::Array(elements) => elements.get(at),
            _ => None,
        }
    }
}

/// Parses `text` like [`parse`], and records where the elements of its arrays start,
/// down to `depth` levels of objects and arrays (see [`Lines`]).
pub fn parse_with_lines(text: &str, depth: usize) -> Result<(Value, Lines), ParseError> {
    let mut reader = Reader::new(text);
    reader.skip_ws();
    let (value, offsets) = value_offsets(&mut reader, depth)?;
    reader.end()?;
    let newlines: Vec<usize> = text
        .bytes()
        .enumerate()
        .filter(|(_, b)| *b == b'\n')
        .map(|(at, _)| at)
        .collect();
    Ok((value, to_lines(offsets, &newlines)))
}

/// [`Lines`] with byte offsets where lines will be.
fn to_lines(offsets: Lines, newlines: &[usize]) -> Lines {
    match offsets {
        Lines::Leaf => Lines::Leaf,
        Lines::Array(elements) => Lines::Array(
            elements
                .into_iter()
                .map(|(offset, parts)| {
                    (
                        newlines.partition_point(|&at| at < offset) + 1,
                        to_lines(parts, newlines),
                    )
                })
                .collect(),
        ),
        Lines::Object(members) => Lines::Object(
            members
                .into_iter()
                .map(|parts| to_lines(parts, newlines))
                .collect(),
        ),
    }
}

/// Reads the value at the current position into a tree, with the byte offsets of its
/// arrays' elements down to `depth` levels.
fn value_offsets(reader: &mut Reader<'_>, depth: usize) -> Result<(Value, Lines), ParseError> {
    if depth == 0 {
        return Ok((value(reader)?, Lines::Leaf));
    }
    match reader.peek() {
        Some(b'{') => {
            let mut members = OffsetMembers {
                members: Vec::new(),
                depth: depth - 1,
            };
            reader.object(&mut members)?;
            let mut members = members.members;
            reader.sort_members(&mut members, |m| &m.0, |m| m.2)?;
            let mut values = Vec::with_capacity(members.len());
            let mut parts = Vec::with_capacity(members.len());
            for (key, value, _, lines) in members {
                values.push((key, value));
                parts.push(lines);
            }
            Ok((Value::Object(values), Lines::Object(parts)))
        }
        Some(b'[') => {
            let (mut items, mut parts) = (Vec::new(), Vec::new());
            reader.array(|reader, _| {
                let offset = reader.pos;
                let (item, lines) = value_offsets(reader, depth - 1)?;
                items.push(item);
                parts.push((offset, lines));
                Ok(())
            })?;
            Ok((Value::Array(items), Lines::Array(parts)))
        }
        _ => Ok((value(reader)?, Lines::Leaf)),
    }
}

/// The members of an object as read, each with the offset of its key and the offsets
/// of its parts.
struct OffsetMembers {
    members: Vec<(String, Value, usize, Lines)>,
    depth: usize,
}

impl<'a> Members<'a> for OffsetMembers {
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
        let (value, lines) = value_offsets(reader, self.depth)?;
        self.members.push((key, value, offset, lines));
        Ok(())
    }
}
