//! A strict JSON parser: into a tree, or straight into the canonical encoding.
//!
//! It accepts exactly the JSON of RFC 8259 and adds the rules of the transcript format
//! (spec section 1): duplicate keys at any depth, `NaN`/`Infinity`, numbers that
//! overflow a 64-bit float, lone UTF-16 surrogate escapes and nesting deeper than
//! [`MAX_DEPTH`] levels are all rejected. Integers are kept as their exact decimal
//! digits, so no precision is lost, and object members are kept sorted by key.
//!
//! By concern:
//!
//! - `reader`: the syntax both ways of parsing share: the cursor over the text,
//!   whitespace, literals, strings, numbers, the nesting depth, the errors, and the
//!   object and array loops, each written once.
//! - `value`: the tree, [`Value`], and its canonical encoding.
//! - `tree`: parsing into a tree, [`parse`] and [`parse_located`].
//! - `canonical_check`: checking that bytes already are a canonical encoding, so
//!   that a sealed line written by `seal` is used as it stands.
//! - `lazy`: a text checked once with the checks of [`parse`] and read lazily,
//!   [`Raw`]: objects and arrays opened one level at a time, values written in
//!   canonical form from their text; how imports read agents' logs.
//! - `record`: reading an ordinary transcript record line without allocating, its
//!   keys recognised by their bytes; any other line is left to `canonical_writer`.
//! - `canonical_writer`: writing the canonical encoding straight from the text,
//!   without building a tree, with exactly the checks and errors of [`parse`]: how a
//!   transcript line's `args` and `response` are read.
//!
//! This module builds on [`crate::canonical`], the rules of the encoding; that module
//! knows nothing of this one.

mod canonical_check;
mod canonical_writer;
mod lazy;
mod reader;
mod record;
mod tree;
mod value;

pub(crate) use canonical_check::{
    canonical_integer_len, canonical_string_len, canonical_value_len,
};
#[cfg(feature = "testing")]
pub(crate) use canonical_writer::Field;
#[cfg(any(test, feature = "testing"))]
pub use canonical_writer::canonicalize;
pub(crate) use canonical_writer::with_scratch;
#[cfg(not(feature = "testing"))]
pub(crate) use canonical_writer::{Field, FieldValue, parse_fields_in};
#[cfg(feature = "testing")]
pub use canonical_writer::{FieldValue, ObjectError, parse_fields_in};
pub(crate) use lazy::{Raw, RawItems, RawMembers, raw_member};
pub(crate) use record::{Object, read_record, with_record_scratch};
pub use tree::parse;
pub(crate) use tree::parse_located;
pub(crate) use value::JsonType;
pub use value::{Value, member};

/// The deepest nesting of objects and arrays accepted; the outermost value is level 1.
pub(crate) const MAX_DEPTH: usize = 128;

/// Why a JSON text was rejected, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}{}", at_column(.column))]
pub struct ParseError {
    /// What is wrong, as a lowercase phrase.
    pub message: String,
    /// 1-based line of the parsed text where the problem was found.
    pub line: usize,
    /// 1-based byte column on that line, where a column helps the reader (it does not
    /// for a duplicate key, which the message names).
    pub column: Option<usize>,
}

/// What follows an error's message: its column, when it has one.
fn at_column(column: &Option<usize>) -> String {
    column.map_or_else(String::new, |column| format!(" at column {column}"))
}

/// Decodes the bytes of a whole JSON file: a UTF-8 byte-order mark at the very start is
/// skipped, and bytes that are not valid UTF-8 are an error. Positions in later
/// errors are relative to the returned text.
pub fn decode_document(bytes: &[u8]) -> Result<&str, ParseError> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(body).map_err(|err| {
        let before = &body[..err.valid_up_to()];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        ParseError {
            message: format!("invalid UTF-8: byte 0x{:02x}", body[err.valid_up_to()]),
            line: before.iter().filter(|&&b| b == b'\n').count() + 1,
            column: Some(before.len() - line_start + 1),
        }
    })
}

/// A key shown in a message: its canonical encoding, cut short when long, so the
/// message stays one printable line.
pub(crate) fn quoted_key(key: &str) -> String {
    const LIMIT: usize = 80;
    let mut out = Vec::new();
    if key.chars().count() > LIMIT {
        let cut: String = key.chars().take(LIMIT).collect();
        crate::canonical::write_str(&cut, &mut out);
        out.pop();
        out.extend_from_slice(b"...\"");
    } else {
        crate::canonical::write_str(key, &mut out);
    }
    String::from_utf8_lossy(&out).into_owned()
}
