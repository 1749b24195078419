//! Reading one hook event from stdin: at most [`MAX_EVENT_BYTES`], with a result too
//! large to hold, or that a record cannot hold, read as `null` in its place and said
//! so. Which member is the result is the agent's ([`super::agents::Agent`]); the
//! rest of the event is read as any JSON document.

use std::io::{self, Read};

use toolreplay_core::{Value, decode_json_document, parse_json};

use crate::error::Error;

/// The largest hook event read, in bytes.
pub(super) const MAX_EVENT_BYTES: u64 = 256 << 20;

/// An event object as read: its members, and why its result (the member
/// `response_key`) cannot be held in a record, when it cannot.
pub(super) struct Raw {
    pub members: Vec<(String, Value)>,
    /// Why the result cannot be held in a record, when it cannot.
    pub unrecordable: Option<String>,
    /// Whether that is because it is larger than the largest event read.
    pub oversized: bool,
}

/// Reads one event from `input`, whose result is the top-level member
/// `response_key`.
pub(super) fn read(input: impl Read, response_key: &'static str) -> Result<Raw, Error> {
    let read = read_capped(input, MAX_EVENT_BYTES, response_key).map_err(|source| Error::Io {
        what: "read the hook event".to_owned(),
        source,
    })?;
    let Some((bytes, oversized)) = read else {
        return Err(Error::Event(format!(
            "larger than {} MiB",
            MAX_EVENT_BYTES >> 20
        )));
    };
    let text = decode_json_document(&bytes).map_err(|err| Error::Event(err.message))?;
    let (mut members, mut unrecordable) = match parse_json(text.trim_end()) {
        Ok(Value::Object(members)) => (members, None),
        Ok(value) => {
            return Err(Error::Event(format!(
                "expected a JSON object, found {}",
                value.described()
            )));
        }
        Err(err) => match without_response(text, response_key) {
            // A result that a record cannot hold is still a call that ran.
            Some(members) => (members, Some(err.message)),
            None => return Err(Error::Event(err.message)),
        },
    };
    if oversized {
        // Read as `null` in its place: the result itself was never held.
        members.retain(|(key, _)| key != response_key);
        unrecordable = Some(format!("larger than {} MiB", MAX_EVENT_BYTES >> 20));
    }
    Ok(Raw {
        members,
        unrecordable,
        oversized,
    })
}

/// Reads an event of at most `limit` bytes from `input`; an event larger than that
/// whose only part past the limit is its top-level result (`response_key`) is read with
/// `null` in place of that value, whose bytes are only scanned for their end, never
/// held (`true` says so). Holds at most `limit` bytes and a read buffer; `None` for
/// an event larger than `limit` otherwise.
fn read_capped(
    mut input: impl Read,
    limit: u64,
    response_key: &'static str,
) -> io::Result<Option<(Vec<u8>, bool)>> {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut chunk = vec![0u8; 1 << 16];
    let mut buf: Vec<u8> = Vec::new();
    let mut split = Splitter::new(response_key);
    // Where the response starts in `buf`, while it is being read.
    let mut response_at = None;
    let mut skipping = false;
    let mut oversized = false;
    loop {
        let n = match input.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        // The part of the chunk from `kept` on is kept.
        let mut kept = if skipping { n } else { 0 };
        let mut i = 0;
        while i < n {
            if split.in_string() {
                // Inside a string only a quote or a backslash matters.
                match chunk[i..n].iter().position(|&b| b == b'"' || b == b'\\') {
                    Some(at) => i += at,
                    None => break,
                }
            }
            match split.feed(chunk[i]) {
                Some(Step::ResponseStarts) => response_at = Some(buf.len() + (i - kept)),
                Some(Step::ResponseEnds) => {
                    if !skipping {
                        buf.extend_from_slice(&chunk[kept..i]);
                        skipping = buf.len() > limit;
                    }
                    if skipping {
                        // The response alone is what makes the event too large.
                        if let Some(at) = response_at {
                            buf.truncate(at);
                        }
                        buf.extend_from_slice(b"null");
                        skipping = false;
                        oversized = true;
                    }
                    kept = i;
                    response_at = None;
                }
                None => {}
            }
            i += 1;
        }
        if kept < n {
            let more = n - kept;
            if buf.len() + more > buf.capacity() {
                // Grown by at most what the limit needs, never to twice the limit.
                let want = (buf.capacity() * 2).clamp(1 << 16, limit.saturating_add(chunk.len()));
                buf.reserve_exact(want.max(buf.len() + more) - buf.len());
            }
            buf.extend_from_slice(&chunk[kept..n]);
        }
        if buf.len() > limit {
            match response_at {
                Some(at) if !skipping => {
                    buf.truncate(at);
                    skipping = true;
                }
                _ => return Ok(None),
            }
        }
    }
    if skipping {
        // The response never ended: what was read is not JSON, refused whole.
        return Ok(None);
    }
    Ok(Some((buf, oversized)))
}

/// What [`Splitter::feed`] saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// The byte fed starts the value of the event's top-level result.
    ResponseStarts,
    /// The byte fed (a `,` or the closing `}`) ends it.
    ResponseEnds,
}

/// Where [`Splitter`] is in an event object.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Place {
    /// Before the object.
    #[default]
    Start,
    /// Before a member's key (or the end of the object).
    BeforeKey,
    /// In a key.
    Key,
    /// After a key, before its colon.
    AfterKey,
    /// Before a member's value.
    BeforeValue,
    /// In a member's value.
    Value,
    /// After the object.
    Done,
    /// Not an object this splitter follows: the parser says why.
    Lost,
}

/// Follows an event object byte by byte, without holding it, to find the extent of
/// its top-level result's value at any depth and size: the one splitter for
/// a result too large to read and one the parser refuses.
#[derive(Debug)]
struct Splitter {
    /// The result's key.
    response: &'static str,
    place: Place,
    key: Vec<u8>,
    is_response: bool,
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl Splitter {
    fn new(response: &'static str) -> Splitter {
        Splitter {
            response,
            place: Place::default(),
            key: Vec::new(),
            is_response: false,
            depth: 0,
            in_string: false,
            escaped: false,
        }
    }

    /// Whether the next byte is inside a string of a value, where only a quote or a
    /// backslash matters.
    fn in_string(&self) -> bool {
        self.in_string && !self.escaped && self.place == Place::Value
    }

    fn feed(&mut self, b: u8) -> Option<Step> {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.place == Place::Key {
                    self.place = Place::AfterKey;
                }
            }
            if self.place == Place::Key && self.key.len() <= self.response.len() {
                self.key.push(b);
            }
            return None;
        }
        let space = matches!(b, b' ' | b'\t' | b'\n' | b'\r');
        match self.place {
            Place::Start if space || matches!(b, 0xEF | 0xBB | 0xBF) => {}
            Place::Start if b == b'{' => self.place = Place::BeforeKey,
            Place::BeforeKey if space => {}
            Place::BeforeKey if b == b'"' => {
                self.key.clear();
                self.in_string = true;
                self.place = Place::Key;
            }
            Place::BeforeKey if b == b'}' => self.place = Place::Done,
            Place::AfterKey if space => {}
            Place::AfterKey if b == b':' => self.place = Place::BeforeValue,
            Place::BeforeValue if space => {}
            Place::BeforeValue => {
                self.is_response = self.key == self.response.as_bytes();
                self.place = Place::Value;
                self.depth = 0;
                self.value(b);
                return self.is_response.then_some(Step::ResponseStarts);
            }
            Place::Value => return self.value(b),
            Place::Done if space => {}
            _ => self.place = Place::Lost,
        }
        None
    }

    /// A byte of a member's value, not in a string.
    fn value(&mut self, b: u8) -> Option<Step> {
        match b {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' if self.depth > 0 => self.depth -= 1,
            b'}' | b',' if self.depth == 0 => {
                self.place = if b == b',' {
                    Place::BeforeKey
                } else {
                    Place::Done
                };
                return self.is_response.then_some(Step::ResponseEnds);
            }
            b']' => self.place = Place::Lost,
            _ => {}
        }
        None
    }
}

/// The members of the event `text` but its result (`response_key`), when the event is an
/// object whose only member the parser refuses is that one (a lone surrogate, or
/// nesting deeper than a record allows): the value's extent is found by the
/// [`Splitter`], without reading it into a tree, so no depth is too deep to skip.
fn without_response(text: &str, response_key: &'static str) -> Option<Vec<(String, Value)>> {
    let bytes = text.as_bytes();
    let mut split = Splitter::new(response_key);
    let (mut start, mut end) = (None, None);
    for (at, &b) in bytes.iter().enumerate() {
        match split.feed(b) {
            Some(Step::ResponseStarts) => start = Some(at),
            Some(Step::ResponseEnds) => end = Some(at),
            None => {}
        }
        if split.place == Place::Lost {
            return None;
        }
    }
    let (start, end) = (start?, end?);
    let rest = [&text[..start], "null", &text[end..]].concat();
    match parse_json(rest.trim_end()) {
        Ok(Value::Object(mut members)) => {
            members.retain(|(key, _)| key != response_key);
            Some(members)
        }
        _ => None,
    }
}

/// A session id names a file in DIR: 1 to 128 ASCII letters, digits, `-`, `_` and
/// `.`, not starting with `.`.
pub(super) fn check_session_id(id: &str) -> Result<(), Error> {
    let safe = !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if safe {
        Ok(())
    } else {
        Err(Error::Event(format!(
            "session_id {} is not a safe file name (1 to 128 letters, digits, '-', '_' or '.', not starting with '.')",
            toolreplay_core::quote_name(id)
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::{check_session_id, read_capped, without_response};

    /// One splitter finds the response at any size and depth: past the limit it is
    /// skipped to its end and read as `null`; anything else past the limit is
    /// refused.
    #[test]
    fn a_response_past_the_limit_is_skipped_and_nothing_else() {
        let response = format!(
            r#"{{"a": ["x\\\"}}]", {}]}}"#,
            "[".repeat(50) + &"]".repeat(50)
        );
        let event = format!(r#"{{"k": 1, "tool_response": {response} , "z": "}}"}}"#);
        let read = |limit: u64| {
            read_capped(event.as_bytes(), limit, "tool_response")
                .expect("read")
                .map(|(bytes, skipped)| (String::from_utf8(bytes).expect("UTF-8"), skipped))
        };
        assert_eq!(read(1 << 10), Some((event.clone(), false)));
        assert_eq!(
            read(45),
            Some((
                r#"{"k": 1, "tool_response": null, "z": "}"}"#.to_owned(),
                true
            ))
        );
        assert_eq!(read(20), None);
        let unended = r#"{"tool_response": "xxxxxxxxxxxxxxxxxxxxxxxxxxx"#;
        assert_eq!(
            read_capped(unended.as_bytes(), 20, "tool_response").expect("read"),
            None
        );
        let members = without_response(&event, "tool_response").expect("members");
        let keys: Vec<&str> = members.iter().map(|(key, _)| key.as_str()).collect();
        assert_eq!(keys, ["k", "z"]);
        assert!(
            without_response(r#"{"k": 1, "tool_response": {}, "z": }"#, "tool_response").is_none()
        );
        assert!(without_response(r#"{"k": 1}"#, "tool_response").is_none());
    }

    #[test]
    fn session_ids_are_safe_file_names() {
        for good in ["8f1c2d3e-aaaa-4bbb-8ccc-0123456789ab", "a", "a.b_c-d"] {
            assert!(check_session_id(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "..",
            ".hidden",
            "../x",
            "a/b",
            "a\\b",
            "a b",
            &"x".repeat(129),
        ] {
            assert!(check_session_id(bad).is_err(), "{bad}");
        }
    }
}
