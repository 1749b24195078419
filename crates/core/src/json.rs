//! A strict JSON value parser.
//!
//! It accepts exactly the JSON of RFC 8259 and adds the rules of the transcript format
//! (spec section 1): duplicate keys at any depth, `NaN`/`Infinity`, numbers that
//! overflow a 64-bit float, lone UTF-16 surrogate escapes and nesting deeper than
//! [`MAX_DEPTH`] levels are all rejected. Integers are kept as their exact decimal
//! digits, so no precision is lost, and object members are kept sorted by key.

use std::fmt;

use crate::canonical;

/// The deepest nesting of objects and arrays accepted; the outermost value is level 1.
pub const MAX_DEPTH: usize = 128;

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
    /// The kind of the value.
    pub fn kind(&self) -> Kind {
        match self {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Bool,
            Value::Int(_) => Kind::Int,
            Value::Float(_) => Kind::Float,
            Value::Str(s) => Kind::Str {
                empty: s.is_empty(),
            },
            Value::Array(_) => Kind::Array,
            Value::Object(_) => Kind::Object,
        }
    }

    /// The JSON type of the value with its article ("an object", "a string"), and
    /// "an empty string" for one.
    pub fn described(&self) -> &'static str {
        self.kind().described()
    }
}

/// The member `key` of an object's `members` (sorted by key, as [`parse`] gives
/// them).
pub fn member<'v>(members: &'v [(String, Value)], key: &str) -> Option<&'v Value> {
    members
        .binary_search_by(|(k, _)| k.as_bytes().cmp(key.as_bytes()))
        .ok()
        .map(|i| &members[i].1)
}

/// The kind of a JSON value, as far as messages and field checks need it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
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

impl Kind {
    /// The kind with its article ("an object", "a string"), and "an empty string".
    pub fn described(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool => "a boolean",
            Kind::Int => "an integer",
            Kind::Float => "a float",
            Kind::Str { empty: true } => "an empty string",
            Kind::Str { empty: false } => "a string",
            Kind::Array => "an array",
            Kind::Object => "an object",
        }
    }
}

/// Why a JSON text was rejected, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong, as a lowercase phrase.
    pub message: String,
    /// 1-based line of the parsed text where the problem was found.
    pub line: usize,
    /// 1-based byte column on that line, where a column helps the reader (it does not
    /// for a duplicate key, which the message names).
    pub column: Option<usize>,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        match self.column {
            Some(column) => write!(f, " at column {column}"),
            None => Ok(()),
        }
    }
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

/// Parses `text` as exactly one JSON value, surrounded by optional whitespace.
///
/// Error offsets are byte offsets into `text`; messages of syntax errors end with the
/// 1-based column of the offending byte on its line.
pub fn parse(text: &str) -> Result<Value, ParseError> {
    Parser::new(text, false).document()
}

/// Parses `text` like [`parse`], and when the value is an object, also gives the
/// 1-based line of each member's key, in the order of the members; when it is an
/// array, the 1-based line where each element starts.
pub fn parse_located(text: &str) -> Result<(Value, Vec<usize>), ParseError> {
    let mut parser = Parser::new(text, true);
    let value = parser.document()?;
    // One walk over the text, however many offsets there are.
    let mut order: Vec<usize> = (0..parser.top_offsets.len()).collect();
    order.sort_by_key(|&i| parser.top_offsets[i]);
    let mut lines = vec![0; order.len()];
    let (mut line, mut counted) = (1, 0);
    for i in order {
        let offset = parser.top_offsets[i];
        line += text.as_bytes()[counted..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted = offset;
        lines[i] = line;
    }
    Ok((value, lines))
}

/// Writes the canonical encoding of the JSON text `text` to `out`, straight from the
/// text, with exactly the checks and errors of [`parse`]; returns the value's kind.
///
/// `canonicalize(t)` equals `canonical::encode(&parse(t)?)`, without building the value.
pub fn canonicalize(text: &str, out: &mut Vec<u8>) -> Result<Kind, ParseError> {
    let mut parser = Parser::new(text, false);
    parser.skip_ws();
    let kind = parser.canon_value(out)?;
    parser.end()?;
    Ok(kind)
}

thread_local! {
    /// Where [`parse_fields`] writes canonical values before copying them out.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The largest scratch buffer kept between lines; a larger one (after a huge line) is
/// given back.
const SCRATCH_KEPT: usize = 4 << 20;

/// A member of a top-level object, as [`parse_fields`] gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The decoded key.
    pub key: String,
    /// The value.
    pub value: FieldValue,
}

/// The value of a [`Field`].
#[derive(Debug, Clone, PartialEq)]
pub enum FieldValue {
    /// Parsed into a tree.
    Tree(Value),
    /// Written in canonical form, with its kind.
    Canonical(Vec<u8>, Kind),
    /// Written in canonical form into the buffer given to [`parse_fields_in`], at
    /// this range, with its kind.
    Written(std::ops::Range<usize>, Kind),
}

impl FieldValue {
    /// The kind of the value.
    pub fn kind(&self) -> Kind {
        match self {
            FieldValue::Tree(value) => value.kind(),
            FieldValue::Canonical(_, kind) | FieldValue::Written(_, kind) => *kind,
        }
    }
}

/// Runs `f` with a buffer kept by the thread, emptied first: for
/// [`parse_fields_in`], so that canonical values need no allocation of their own.
pub fn with_scratch<R>(f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
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
/// the members named in `canonical` are written in canonical form, the others parsed
/// into trees. The checks and errors are exactly those of [`parse`]. When the text is
/// valid JSON but not an object, gives the kind it is instead.
pub fn parse_fields(
    text: &str,
    canonical: &[&str],
) -> Result<Result<Vec<Field>, Kind>, ParseError> {
    with_scratch(|scratch| {
        let fields = match parse_fields_in(text, canonical, scratch)? {
            Ok(fields) => fields,
            Err(kind) => return Ok(Err(kind)),
        };
        // Each value copied out at its exact size: one small allocation each.
        Ok(Ok(fields
            .into_iter()
            .map(|Field { key, value }| Field {
                key,
                value: match value {
                    FieldValue::Written(range, kind) => {
                        FieldValue::Canonical(scratch[range].to_vec(), kind)
                    }
                    other => other,
                },
            })
            .collect()))
    })
}

/// [`parse_fields`], writing the canonical members one after another into `out` and
/// giving them as [`FieldValue::Written`] ranges of it.
pub fn parse_fields_in(
    text: &str,
    canonical: &[&str],
    out: &mut Vec<u8>,
) -> Result<Result<Vec<Field>, Kind>, ParseError> {
    let mut parser = Parser::new(text, false);
    parser.skip_ws();
    if parser.peek() != Some(b'{') {
        let kind = parser.canon_value(&mut Vec::new())?;
        parser.end()?;
        return Ok(Err(kind));
    }
    parser.enter()?;
    let mut fields: Vec<(Field, usize)> = Vec::new();
    parser.skip_ws();
    if parser.peek() == Some(b'}') {
        parser.pos += 1;
    } else {
        loop {
            parser.skip_ws();
            if parser.peek() != Some(b'"') {
                return Err(parser.syntax("expected a string key"));
            }
            let offset = parser.pos;
            let key = parser.string()?;
            parser.skip_ws();
            if parser.peek() != Some(b':') {
                return Err(parser.syntax("expected `:`"));
            }
            parser.pos += 1;
            parser.skip_ws();
            let value = if canonical.contains(&key.as_str()) {
                let start = out.len();
                let kind = parser.canon_value(out)?;
                FieldValue::Written(start..out.len(), kind)
            } else {
                FieldValue::Tree(parser.value()?)
            };
            fields.push((Field { key, value }, offset));
            parser.skip_ws();
            match parser.peek() {
                Some(b',') => parser.pos += 1,
                Some(b'}') => {
                    parser.pos += 1;
                    break;
                }
                _ => return Err(parser.syntax("expected `,` or `}`")),
            }
        }
    }
    // Stable sort, so of two equal keys the first written comes first.
    fields.sort_by(|a, b| a.0.key.as_bytes().cmp(b.0.key.as_bytes()));
    if let Some(pair) = fields.windows(2).find(|w| w[0].0.key == w[1].0.key) {
        let mut err = parser.error_at(
            pair[1].1,
            format!("duplicate key {}", quoted_key(&pair[1].0.key)),
        );
        err.column = None;
        return Err(err);
    }
    parser.end()?;
    Ok(Ok(fields.into_iter().map(|(field, _)| field).collect()))
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    /// Whether to keep `top_offsets`.
    locate: bool,
    /// The key offsets of the outermost object's members, in the members' order.
    top_offsets: Vec<usize>,
    /// Decoded keys of the objects being canonicalized, innermost last.
    keys: String,
    /// Members of the objects being canonicalized, innermost last.
    members: Vec<Member>,
    /// The members of an object written out of order, sorted: indexes into `members`.
    order: Vec<usize>,
    /// The members of an object written out of order, but its largest, while it
    /// moves into place.
    spare: Vec<u8>,
}

/// A number as read: an integer's digits, or a float.
enum Number<'a> {
    Int(&'a str),
    Float(f64),
    /// A float written exactly as the canonical encoding writes it.
    Repr(&'a str),
}

/// A member of an object written in canonical form: where its key is, where the key
/// was in the input, and where `"key":value` is in the output.
#[derive(Debug, Clone)]
struct Member {
    key: Key,
    /// The key's first eight bytes, as [`prefix`] gives them.
    prefix: u64,
    offset: usize,
    segment: std::ops::Range<usize>,
}

/// Where the decoded form of a key is.
#[derive(Debug, Clone)]
enum Key {
    /// In the input text, as it is: printable ASCII with no escape.
    Text(std::ops::Range<usize>),
    /// In `Parser::keys`, decoded.
    Decoded(std::ops::Range<usize>),
}

impl Key {
    /// The decoded key, from the input `text` or the parser's `keys`.
    fn decoded<'k>(&self, text: &'k str, keys: &'k str) -> &'k str {
        match self {
            Key::Text(range) => &text[range.clone()],
            Key::Decoded(range) => &keys[range.clone()],
        }
    }
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, locate: bool) -> Self {
        Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            depth: 0,
            locate,
            top_offsets: Vec::new(),
            keys: String::new(),
            members: Vec::new(),
            order: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// Exactly one value, with optional whitespace around it.
    fn document(&mut self) -> Result<Value, ParseError> {
        self.skip_ws();
        let value = self.value()?;
        self.end()?;
        Ok(value)
    }

    /// Nothing but whitespace after the value.
    fn end(&mut self) -> Result<(), ParseError> {
        self.skip_ws();
        if self.pos < self.bytes.len() {
            return Err(self.syntax("unexpected characters after the JSON value"));
        }
        Ok(())
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// An error found at byte `offset`.
    fn error_at(&self, offset: usize, message: String) -> ParseError {
        let before = &self.bytes[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        ParseError {
            message,
            line,
            column: Some(offset - line_start + 1),
        }
    }

    /// A syntax error at the current position: what was expected and what was found.
    fn syntax(&self, expected: &str) -> ParseError {
        let found = match self.text[self.pos..].chars().next() {
            None => "end of input".to_owned(),
            Some(c) => Quoted(c).to_string(),
        };
        self.error_at(self.pos, format!("invalid JSON: {expected}, found {found}"))
    }

    fn value(&mut self) -> Result<Value, ParseError> {
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => Ok(Value::Str(self.string()?)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'N') if self.bytes[self.pos..].starts_with(b"NaN") => {
                Err(self.not_json(self.pos, "NaN"))
            }
            Some(b'I') if self.bytes[self.pos..].starts_with(b"Infinity") => {
                Err(self.not_json(self.pos, "Infinity"))
            }
            _ => Err(self.syntax("expected a JSON value")),
        }
    }

    fn not_json(&self, offset: usize, token: &str) -> ParseError {
        self.error_at(
            offset,
            format!("invalid JSON: {token} is not a JSON number"),
        )
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, ParseError> {
        let rest = &self.bytes[self.pos..];
        let matched = rest
            .iter()
            .zip(word.as_bytes())
            .take_while(|(a, b)| a == b)
            .count();
        if matched == word.len() {
            self.pos += word.len();
            Ok(value)
        } else {
            self.pos += matched;
            Err(self.syntax(&format!("expected `{word}`")))
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error_at(
                self.pos,
                format!("nesting deeper than {MAX_DEPTH} levels of objects and arrays"),
            ));
        }
        self.pos += 1;
        Ok(())
    }

    fn array(&mut self) -> Result<Value, ParseError> {
        self.enter()?;
        let outermost = self.depth == 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_ws();
            if outermost && self.locate {
                self.top_offsets.push(self.pos);
            }
            items.push(self.value()?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.syntax("expected `,` or `]`")),
            }
        }
    }

    fn object(&mut self) -> Result<Value, ParseError> {
        self.enter()?;
        let outermost = self.depth == 1;
        // Each member with the offset of its key, for errors.
        let mut members: Vec<(String, Value, usize)> = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Value::Object(Vec::new()));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.syntax("expected a string key"));
            }
            let key_offset = self.pos;
            let key = self.string()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.syntax("expected `:`"));
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value()?;
            members.push((key, value, key_offset));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    self.depth -= 1;
                    break;
                }
                _ => return Err(self.syntax("expected `,` or `}`")),
            }
        }
        // Stable sort, so of two equal keys the first written comes first.
        members.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        if let Some(pair) = members.windows(2).find(|w| w[0].0 == w[1].0) {
            // Placed on the line of the second occurrence, which the message names.
            let mut err = self.error_at(
                pair[1].2,
                format!("duplicate key {}", quoted_key(&pair[1].0)),
            );
            err.column = None;
            return Err(err);
        }
        if outermost && self.locate {
            self.top_offsets = members.iter().map(|m| m.2).collect();
        }
        Ok(Value::Object(
            members
                .into_iter()
                .map(|(key, value, _)| (key, value))
                .collect(),
        ))
    }

    fn string(&mut self) -> Result<String, ParseError> {
        let mut out = String::new();
        self.string_into(&mut out)?;
        Ok(out)
    }

    /// Decodes the string at the current position, appending it to `out`.
    fn string_into(&mut self, out: &mut String) -> Result<(), ParseError> {
        debug_assert_eq!(self.peek(), Some(b'"'));
        self.pos += 1;
        loop {
            let run_start = self.pos;
            self.pos += crate::scan::string_run(&self.bytes[self.pos..]);
            // The run ends at an ASCII byte or at the end, so it is a whole str slice.
            out.push_str(&self.text[run_start..self.pos]);
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => out.push(self.escape()?),
                Some(_) => {
                    return Err(self.syntax("control character in string (must be escaped)"));
                }
                None => return Err(self.syntax("unterminated string")),
            }
        }
    }

    /// Decodes the escape at the current position (a `\`), returning its character.
    fn escape(&mut self) -> Result<char, ParseError> {
        let escape_start = self.pos;
        self.pos += 1;
        let c = match self.peek() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.pos += 1;
                return self.unicode_escape(escape_start);
            }
            _ => return Err(self.syntax("invalid escape in string")),
        };
        self.pos += 1;
        Ok(c)
    }

    /// Writes the string at the current position in canonical form, straight from
    /// its text, and tells whether it was empty.
    fn canon_string(&mut self, out: &mut Vec<u8>) -> Result<bool, ParseError> {
        debug_assert_eq!(self.peek(), Some(b'"'));
        self.pos += 1;
        let start = self.pos;
        // The text from `kept` on is already canonical, to be copied in one go.
        let mut kept = start;
        out.push(b'"');
        loop {
            // Printable ASCII other than `"` and `\` is copied as it is.
            self.pos += crate::scan::canonical_run(&self.bytes[self.pos..]);
            match self.peek() {
                Some(b'"') => {
                    out.extend_from_slice(&self.bytes[kept..self.pos]);
                    self.pos += 1;
                    out.push(b'"');
                    return Ok(self.pos - 1 == start);
                }
                Some(b'\\') => match self.bytes.get(self.pos + 1) {
                    // Short escapes are already canonical, but `\/`, which is `/`.
                    Some(b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't') => self.pos += 2,
                    Some(b'/') => {
                        out.extend_from_slice(&self.bytes[kept..self.pos]);
                        out.push(b'/');
                        self.pos += 2;
                        kept = self.pos;
                    }
                    _ => match self.canonical_escape_len() {
                        0 => {
                            out.extend_from_slice(&self.bytes[kept..self.pos]);
                            let c = self.escape()?;
                            canonical::write_char(c, out);
                            kept = self.pos;
                        }
                        canonical => self.pos += canonical,
                    },
                },
                Some(0..0x20) => {
                    return Err(self.syntax("control character in string (must be escaped)"));
                }
                Some(_) => {
                    // DEL or a non-ASCII character: written as its escape.
                    out.extend_from_slice(&self.bytes[kept..self.pos]);
                    let c = self.text[self.pos..].chars().next().unwrap_or('\0');
                    canonical::write_char(c, out);
                    self.pos += c.len_utf8();
                    kept = self.pos;
                }
                None => return Err(self.syntax("unterminated string")),
            }
        }
    }

    /// The length of the `\uXXXX` escape (or surrogate pair of them) at the current
    /// position when it is already exactly what the canonical encoding writes, so it
    /// can be copied; 0 otherwise.
    fn canonical_escape_len(&self) -> usize {
        let unit = |at: usize| -> Option<u32> {
            let digits = self.bytes.get(at..at + 6)?;
            if digits[0] != b'\\' || digits[1] != b'u' {
                return None;
            }
            digits[2..].iter().try_fold(0, |code, &b| match b {
                b'0'..=b'9' => Some(code * 16 + u32::from(b - b'0')),
                b'a'..=b'f' => Some(code * 16 + u32::from(b - b'a' + 10)),
                _ => None,
            })
        };
        match unit(self.pos) {
            Some(0x08 | 0x09 | 0x0a | 0x0c | 0x0d) => 0,
            Some(code) if code < 0x20 => 6,
            Some(0xD800..=0xDBFF) => match unit(self.pos + 6) {
                Some(0xDC00..=0xDFFF) => 12,
                _ => 0,
            },
            Some(0xDC00..=0xDFFF) => 0,
            Some(code) if code >= 0x7f => 6,
            _ => 0,
        }
    }

    /// Writes the value at the current position in canonical form, straight from its
    /// text, with exactly the checks and errors of [`Parser::value`].
    fn canon_value(&mut self, out: &mut Vec<u8>) -> Result<Kind, ParseError> {
        match self.peek() {
            Some(b'{') => self.canon_object(out),
            Some(b'[') => self.canon_array(out),
            Some(b'"') => self.canon_string(out).map(|empty| Kind::Str { empty }),
            Some(b'-' | b'0'..=b'9') => match self.scan_number()? {
                Number::Int(digits) => {
                    out.extend_from_slice(digits.as_bytes());
                    Ok(Kind::Int)
                }
                Number::Repr(text) => {
                    out.extend_from_slice(text.as_bytes());
                    Ok(Kind::Float)
                }
                Number::Float(x) => {
                    canonical::write_float(x, out);
                    Ok(Kind::Float)
                }
            },
            _ => {
                let value = self.value()?;
                canonical::write_value(&value, out);
                Ok(value.kind())
            }
        }
    }

    fn canon_array(&mut self, out: &mut Vec<u8>) -> Result<Kind, ParseError> {
        self.enter()?;
        out.push(b'[');
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.depth -= 1;
            out.push(b']');
            return Ok(Kind::Array);
        }
        loop {
            self.skip_ws();
            self.canon_value(out)?;
            self.skip_ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    out.push(b',');
                }
                Some(b']') => {
                    self.pos += 1;
                    self.depth -= 1;
                    out.push(b']');
                    return Ok(Kind::Array);
                }
                _ => return Err(self.syntax("expected `,` or `]`")),
            }
        }
    }

    fn canon_object(&mut self, out: &mut Vec<u8>) -> Result<Kind, ParseError> {
        self.enter()?;
        let object_start = out.len();
        out.push(b'{');
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.depth -= 1;
            out.push(b'}');
            return Ok(Kind::Object);
        }
        let keys_mark = self.keys.len();
        let members_mark = self.members.len();
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.syntax("expected a string key"));
            }
            let offset = self.pos;
            let key = self.key()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.syntax("expected `:`"));
            }
            self.pos += 1;
            self.skip_ws();
            let segment_start = out.len();
            match &key {
                // Printable ASCII with no escape is its own canonical form.
                Key::Text(range) => out.extend_from_slice(&self.bytes[range.start - 1..=range.end]),
                Key::Decoded(range) => canonical::write_str(&self.keys[range.clone()], out),
            }
            out.push(b':');
            self.canon_value(out)?;
            let prefix = prefix(key.decoded(self.text, &self.keys).as_bytes());
            self.members.push(Member {
                key,
                prefix,
                offset,
                segment: segment_start..out.len(),
            });
            self.skip_ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    out.push(b',');
                }
                Some(b'}') => {
                    self.pos += 1;
                    self.depth -= 1;
                    out.push(b'}');
                    break;
                }
                _ => return Err(self.syntax("expected `,` or `}`")),
            }
        }
        let members = &self.members[members_mark..];
        let key = |m: &Member| m.key.decoded(self.text, &self.keys);
        // Keys compare as their UTF-8 bytes do; their first eight bytes mostly decide.
        let compare = |a: &Member, b: &Member| {
            (a.prefix.cmp(&b.prefix)).then_with(|| key(a).as_bytes().cmp(key(b).as_bytes()))
        };
        if !members.windows(2).all(|w| compare(&w[0], &w[1]).is_lt()) {
            // Stable sort, so of two equal keys the first written comes first.
            let mut order = std::mem::take(&mut self.order);
            order.clear();
            order.extend(0..members.len());
            order.sort_by(|&a, &b| compare(&members[a], &members[b]));
            if let Some(pair) = order
                .windows(2)
                .find(|w| compare(&members[w[0]], &members[w[1]]).is_eq())
            {
                let second = &members[pair[1]];
                let mut err = self.error_at(
                    second.offset,
                    format!("duplicate key {}", quoted_key(key(second))),
                );
                err.column = None;
                return Err(err);
            }
            reorder(out, object_start, members, &order, &mut self.spare);
            self.order = order;
        }
        self.members.truncate(members_mark);
        self.keys.truncate(keys_mark);
        Ok(Kind::Object)
    }

    /// Reads the key at the current position (a `"`): where it is in the text when it
    /// is printable ASCII with no escape, else decoded into `keys`.
    fn key(&mut self) -> Result<Key, ParseError> {
        let start = self.pos + 1;
        let end = start + crate::scan::canonical_run(&self.bytes[start..]);
        if self.bytes.get(end) == Some(&b'"') {
            self.pos = end + 1;
            return Ok(Key::Text(start..end));
        }
        let key_start = self.keys.len();
        let mut keys = std::mem::take(&mut self.keys);
        let decoded = self.string_into(&mut keys);
        self.keys = keys;
        decoded?;
        Ok(Key::Decoded(key_start..self.keys.len()))
    }

    /// Reads the four hex digits after `\u` (and a low surrogate escape after a high
    /// one), returning the character.
    fn unicode_escape(&mut self, escape_start: usize) -> Result<char, ParseError> {
        let first = self.hex4()?;
        let code = match first {
            0xD800..=0xDBFF => {
                if self.bytes[self.pos..].starts_with(b"\\u") {
                    let save = self.pos;
                    self.pos += 2;
                    let second = self.hex4()?;
                    if (0xDC00..=0xDFFF).contains(&second) {
                        0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    } else {
                        self.pos = save;
                        return Err(self.lone_surrogate(escape_start, first));
                    }
                } else {
                    return Err(self.lone_surrogate(escape_start, first));
                }
            }
            0xDC00..=0xDFFF => return Err(self.lone_surrogate(escape_start, first)),
            c => c,
        };
        // Every value reached here is a Unicode scalar value.
        char::from_u32(code).ok_or_else(|| self.lone_surrogate(escape_start, first))
    }

    fn lone_surrogate(&self, offset: usize, unit: u32) -> ParseError {
        self.error_at(
            offset,
            format!("invalid JSON: lone UTF-16 surrogate \\u{unit:04x} in string"),
        )
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let mut code = 0;
        for _ in 0..4 {
            let digit = match self.peek() {
                Some(b @ b'0'..=b'9') => b - b'0',
                Some(b @ b'a'..=b'f') => b - b'a' + 10,
                Some(b @ b'A'..=b'F') => b - b'A' + 10,
                _ => return Err(self.syntax("expected 4 hex digits after `\\u`")),
            };
            code = code * 16 + u32::from(digit);
            self.pos += 1;
        }
        Ok(code)
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        match self.scan_number()? {
            Number::Int(digits) => Ok(Value::Int(digits.into())),
            Number::Float(x) => Ok(Value::Float(x)),
            Number::Repr(text) => self.float(start, text).map(Value::Float),
        }
    }

    /// Reads the number at the current position: an integer's normalised digits (as
    /// they are in the text), a float written exactly as its canonical form as its
    /// text, unread, or another float's value.
    fn scan_number(&mut self) -> Result<Number<'a>, ParseError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
            if self.bytes[self.pos..].starts_with(b"Infinity") {
                return Err(self.not_json(start, "-Infinity"));
            }
        }
        match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.syntax(
                        "leading zeros are not allowed, expected `.`, `e` or the end of the number",
                    ));
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.syntax("expected a digit")),
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            integer = false;
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.syntax("expected a digit after `.`"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            integer = false;
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.syntax("expected a digit in the exponent"));
            }
        }
        let text = &self.text[start..self.pos];
        if integer {
            return Ok(Number::Int(if text == "-0" { "0" } else { text }));
        }
        if canonical::is_float_repr(text) {
            return Ok(Number::Repr(text));
        }
        self.float(start, text).map(Number::Float)
    }

    /// The value of the float `text`, written at `start`.
    fn float(&self, start: usize, text: &str) -> Result<f64, ParseError> {
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => {
                // The number is ASCII, so any byte index is a char boundary.
                let shown = if text.len() > 40 {
                    format!("{}...", &text[..40])
                } else {
                    text.to_owned()
                };
                Err(self.error_at(
                    start,
                    format!("number too large for a 64-bit float: {shown}"),
                ))
            }
        }
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
    let largest = (0..order.len())
        .max_by_key(|&i| members[order[i]].segment.len())
        .unwrap_or(0);
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

/// A character shown in a message: printable ASCII in backquotes, anything else as
/// its code point.
struct Quoted(char);

impl fmt::Display for Quoted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            c @ ' '..='~' => write!(f, "`{c}`"),
            c => write!(f, "U+{:04X}", u32::from(c)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
