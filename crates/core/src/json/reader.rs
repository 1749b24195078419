//! The syntax that parsing into a tree and canonical writing share: a cursor over the
//! text that reads whitespace, literals, strings, numbers and the punctuation of
//! objects and arrays, keeps the nesting depth, and makes every error with its place.
//! The object and array loops are here, once; what is done with each member or
//! element is up to the caller.

use std::fmt;

use super::{MAX_DEPTH, ParseError, quoted_key};

/// A cursor over a JSON text.
pub(super) struct Reader<'a> {
    pub(super) text: &'a str,
    pub(super) bytes: &'a [u8],
    /// The byte offset of the next byte to read.
    pub(super) pos: usize,
    /// How many objects and arrays the cursor is in.
    depth: usize,
}

/// One of the literal names of JSON.
pub(super) enum Literal {
    Null,
    True,
    False,
}

/// A number as read: an integer's normalised digits, or a number with a fraction or
/// an exponent as written, which its reader turns into a float or copies.
pub(super) enum Number<'a> {
    /// The digits, with a leading `-` when negative; `-0` as `0`.
    Int(&'a str),
    /// The number's text, at byte offset `start`.
    Fraction { start: usize, text: &'a str },
}

/// What the object loop of [`Reader::object`] does with each member: it reads the key
/// and the value, the loop the punctuation around them.
pub(super) trait Members<'a> {
    /// The key as the caller keeps it.
    type Key;
    /// Reads the key at the current position (its opening `"`).
    fn key(&mut self, reader: &mut Reader<'a>) -> Result<Self::Key, ParseError>;
    /// Reads the value at the current position, the member's key having been read at
    /// byte `offset`.
    fn value(
        &mut self,
        reader: &mut Reader<'a>,
        key: Self::Key,
        offset: usize,
    ) -> Result<(), ParseError>;
}

impl<'a> Reader<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Reader {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            depth: 0,
        }
    }

    /// Nothing but whitespace after the value.
    pub(super) fn end(&mut self) -> Result<(), ParseError> {
        self.skip_ws();
        if self.pos < self.bytes.len() {
            return Err(self.syntax("unexpected characters after the JSON value"));
        }
        Ok(())
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    pub(super) fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// An error found at byte `offset`.
    pub(super) fn error_at(&self, offset: usize, message: String) -> ParseError {
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
    pub(super) fn syntax(&self, expected: &str) -> ParseError {
        let found = match self.text[self.pos..].chars().next() {
            None => "end of input".to_owned(),
            Some(c) => Quoted(c).to_string(),
        };
        self.error_at(self.pos, format!("invalid JSON: {expected}, found {found}"))
    }

    /// The error of the key `key`, written at byte `offset`, written twice in one
    /// object: placed on the line of this second occurrence, which the message names.
    pub(super) fn duplicate_key(&self, offset: usize, key: &str) -> ParseError {
        let mut err = self.error_at(offset, format!("duplicate key {}", quoted_key(key)));
        err.column = None;
        err
    }

    /// Sorts the `members` of an object by key, stably, so that of two equal keys the
    /// first written comes first; the second is the error.
    pub(super) fn sort_members<M>(
        &self,
        members: &mut [M],
        key: impl Fn(&M) -> &str,
        offset: impl Fn(&M) -> usize,
    ) -> Result<(), ParseError> {
        members.sort_by(|a, b| key(a).as_bytes().cmp(key(b).as_bytes()));
        match members.windows(2).find(|w| key(&w[0]) == key(&w[1])) {
            Some(pair) => Err(self.duplicate_key(offset(&pair[1]), key(&pair[1]))),
            None => Ok(()),
        }
    }

    /// Reads the literal name at the current position; anything else there is the
    /// error of a missing value.
    pub(super) fn literal(&mut self) -> Result<Literal, ParseError> {
        match self.peek() {
            Some(b't') => self.word("true", Literal::True),
            Some(b'f') => self.word("false", Literal::False),
            Some(b'n') => self.word("null", Literal::Null),
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

    fn word(&mut self, word: &str, literal: Literal) -> Result<Literal, ParseError> {
        let rest = &self.bytes[self.pos..];
        let matched = rest
            .iter()
            .zip(word.as_bytes())
            .take_while(|(a, b)| a == b)
            .count();
        if matched == word.len() {
            self.pos += word.len();
            Ok(literal)
        } else {
            self.pos += matched;
            Err(self.syntax(&format!("expected `{word}`")))
        }
    }

    /// Steps into the object or array at the current position, one level deeper.
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

    /// Reads the object at the current position (its `{`) up to its `}`: for each
    /// member, the key with `members.key`, the `:`, and the value with
    /// `members.value`.
    pub(super) fn object<M: Members<'a>>(&mut self, members: &mut M) -> Result<(), ParseError> {
        self.enter()?;
        self.skip_ws();
        if self.peek() != Some(b'}') {
            loop {
                self.skip_ws();
                if self.peek() != Some(b'"') {
                    return Err(self.syntax("expected a string key"));
                }
                let offset = self.pos;
                let key = members.key(self)?;
                self.skip_ws();
                if self.peek() != Some(b':') {
                    return Err(self.syntax("expected `:`"));
                }
                self.pos += 1;
                self.skip_ws();
                members.value(self, key, offset)?;
                self.skip_ws();
                match self.peek() {
                    Some(b',') => self.pos += 1,
                    Some(b'}') => break,
                    _ => return Err(self.syntax("expected `,` or `}`")),
                }
            }
        }
        self.pos += 1;
        self.depth -= 1;
        Ok(())
    }

    /// Reads the array at the current position (its `[`) up to its `]`, each element
    /// with `element`, which is told whether it is the first.
    pub(super) fn array(
        &mut self,
        mut element: impl FnMut(&mut Self, bool) -> Result<(), ParseError>,
    ) -> Result<(), ParseError> {
        self.enter()?;
        self.skip_ws();
        if self.peek() != Some(b']') {
            let mut first = true;
            loop {
                self.skip_ws();
                element(self, first)?;
                first = false;
                self.skip_ws();
                match self.peek() {
                    Some(b',') => self.pos += 1,
                    Some(b']') => break,
                    _ => return Err(self.syntax("expected `,` or `]`")),
                }
            }
        }
        self.pos += 1;
        self.depth -= 1;
        Ok(())
    }

    /// Decodes the string at the current position (its opening `"`).
    pub(super) fn string(&mut self) -> Result<String, ParseError> {
        let mut out = String::new();
        self.string_into(&mut out)?;
        Ok(out)
    }

    /// Decodes the string at the current position, appending it to `out`.
    pub(super) fn string_into(&mut self, out: &mut String) -> Result<(), ParseError> {
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
                Some(_) => return Err(self.control_character()),
                None => return Err(self.unterminated_string()),
            }
        }
    }

    /// The error of a control character, at the current position, in a string.
    pub(super) fn control_character(&self) -> ParseError {
        self.syntax("control character in string (must be escaped)")
    }

    /// The error of a string that the text ends in.
    pub(super) fn unterminated_string(&self) -> ParseError {
        self.syntax("unterminated string")
    }

    /// Decodes the escape at the current position (a `\`), returning its character.
    pub(super) fn escape(&mut self) -> Result<char, ParseError> {
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

    /// Reads the number at the current position (a `-` or a digit).
    pub(super) fn number(&mut self) -> Result<Number<'a>, ParseError> {
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
        Ok(Number::Fraction { start, text })
    }

    /// The value of the float `text`, written at `start`.
    pub(super) fn float(&self, start: usize, text: &str) -> Result<f64, ParseError> {
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
