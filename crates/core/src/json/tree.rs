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
pub(crate) fn parse_located(text: &str) -> Result<(Value, Vec<usize>), ParseError> {
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
