//! The tree a JSON text is parsed into, and its canonical encoding.

use crate::canonical::{self, Encode};

/// A parsed JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number written without `.`, `e` or `E`: its exact decimal digits, with a
    /// leading `-` when negative. `-0` is stored as `0`.
    Int(Box<str>),
    /// Any other number, as the nearest 64-bit float (always finite).
    Float(f64),
    /// A string, with its escapes decoded.
    Str(String),
    /// An array.
    Array(Vec<Value>),
    /// An object: members sorted by key in byte order (which is Unicode code point
    /// order), keys unique.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The object of `members`, sorted by key as an object's members are; of a key
    /// given twice, the first is kept.
    ///
    /// ```
    /// use toolreplay_core::Value;
    ///
    /// let value = Value::object([("b", Value::Null), ("a", Value::Bool(true))]);
    /// let members = [("a".to_owned(), Value::Bool(true)), ("b".to_owned(), Value::Null)];
    /// assert_eq!(value, Value::Object(members.to_vec()));
    /// ```
    pub fn object<'k>(members: impl IntoIterator<Item = (&'k str, Value)>) -> Value {
        let mut members: Vec<(String, Value)> = members
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect();
        members.sort_by(|a, b| a.0.cmp(&b.0));
        members.dedup_by(|later, first| later.0 == first.0);
        Value::Object(members)
    }

    /// The JSON type of the value.
    pub fn json_type(&self) -> JsonType {
        match self {
            Value::Null => JsonType::Null,
            Value::Bool(_) => JsonType::Bool,
            Value::Int(_) => JsonType::Int,
            Value::Float(_) => JsonType::Float,
            Value::Str(s) => JsonType::Str {
                empty: s.is_empty(),
            },
            Value::Array(_) => JsonType::Array,
            Value::Object(_) => JsonType::Object,
        }
    }

    /// The JSON type of the value with its article ("an object", "a string"), and
    /// "an empty string" for one.
    pub fn described(&self) -> &'static str {
        self.json_type().described()
    }
}

impl Encode for Value {
    fn write_canonical(&self, out: &mut Vec<u8>) {
        match self {
            Value::Null => out.extend_from_slice(b"null"),
            Value::Bool(true) => out.extend_from_slice(b"true"),
            Value::Bool(false) => out.extend_from_slice(b"false"),
            Value::Int(digits) => out.extend_from_slice(digits.as_bytes()),
            Value::Float(x) => canonical::write_float(*x, out),
            Value::Str(s) => canonical::write_str(s, out),
            Value::Array(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    item.write_canonical(out);
                }
                out.push(b']');
            }
            Value::Object(members) => {
                // Members are kept sorted by key, as the encoding wants them.
                out.push(b'{');
                for (i, (key, item)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    canonical::write_str(key, out);
                    out.push(b':');
                    item.write_canonical(out);
                }
                out.push(b'}');
            }
        }
    }
}

/// The member `key` of an object's `members` (sorted by key, as [`super::parse`]
/// gives them).
pub fn member<'v>(members: &'v [(String, Value)], key: &str) -> Option<&'v Value> {
    members
        .binary_search_by(|(k, _)| k.as_bytes().cmp(key.as_bytes()))
        .ok()
        .map(|i| &members[i].1)
}

/// The type of a JSON value, as far as messages and field checks need it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonType {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// A number without fraction or exponent.
    Int,
    /// Any other number.
    Float,
    /// A string, and whether it is empty.
    Str {
        /// Whether the string is `""`.
        empty: bool,
    },
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonType {
    /// The type with its article ("an object", "a string"), and "an empty string".
    pub fn described(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Bool => "a boolean",
            JsonType::Int => "an integer",
            JsonType::Float => "a float",
            JsonType::Str { empty: true } => "an empty string",
            JsonType::Str { empty: false } => "a string",
            JsonType::Array => "an array",
            JsonType::Object => "an object",
        }
    }
}
