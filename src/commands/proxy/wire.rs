//! The stdio wire: messages as newline-delimited lines, each read with a size limit,
//! and what a line says as a JSON-RPC 2.0 message.

use std::io::{self, BufRead};

use toolreplay_core::{Value, encode_canonical, json_member, parse_json};

/// One read from a peer's stream.
#[derive(Debug)]
pub(super) enum Read {
    /// A line, with its LF when it had one (only the last line of a stream can lack
    /// it), exactly as read.
    Line(Vec<u8>),
    /// A line longer than the limit, skipped up to and including its LF: how many
    /// bytes it had.
    Oversize(u64),
    /// The stream ended.
    End,
    /// The stream could not be read.
    Failed(io::Error),
}

/// Reads the next line of `reader`, holding at most `limit` bytes of it (the LF not
/// counted): a longer line is skipped whole, in pieces, and reported as such.
pub(super) fn read_line(reader: &mut impl BufRead, limit: usize, buf: &mut Vec<u8>) -> Read {
    buf.clear();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    match io::Read::take(&mut *reader, cap).read_until(b'\n', buf) {
        Err(err) => return Read::Failed(err),
        Ok(0) => return Read::End,
        Ok(_) => {}
    }
    if buf.last() == Some(&b'\n') || buf.len() <= limit {
        return Read::Line(std::mem::take(buf));
    }
    // Over the limit: skip to the end of the line without keeping it.
    let mut skipped = buf.len() as u64;
    buf.clear();
    loop {
        let (found, used) = match reader.fill_buf() {
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Read::Failed(err),
            Ok([]) => return Read::Oversize(skipped),
            Ok(chunk) => match chunk.iter().position(|&b| b == b'\n') {
                Some(at) => (true, at + 1),
                None => (false, chunk.len()),
            },
        };
        reader.consume(used);
        skipped = skipped.saturating_add(used as u64);
        if found {
            return Read::Oversize(skipped);
        }
    }
}

/// A JSON-RPC id as a key: its canonical JSON, so `1` and `"1"` are different ids.
pub(super) type IdKey = Vec<u8>;

/// The key of `id`.
pub(super) fn id_key(id: &Value) -> IdKey {
    encode_canonical(id)
}

/// What one line holds, read as a JSON-RPC 2.0 message. The `jsonrpc` member is not
/// checked.
#[derive(Debug)]
pub(super) enum Message {
    /// Nothing but whitespace.
    Blank,
    /// Not one JSON value (or not UTF-8, or nested deeper than the JSON reader
    /// reads): why.
    NotJson(String),
    /// A JSON array: a JSON-RPC batch.
    Batch,
    /// JSON, but neither a request, a notification nor a response: why.
    Invalid(String),
    /// Both `method` and `result` or `error`: neither a request nor an answer;
    /// the id, if any.
    Mixed {
        /// The id.
        id: Option<Value>,
    },
    /// A request: `method` and `id`.
    Request {
        /// The method.
        method: String,
        /// The id.
        id: Value,
        /// The params, when there are any.
        params: Option<Value>,
    },
    /// A notification: `method` and no `id`.
    Notification {
        /// The method.
        method: String,
        /// The params, when there are any.
        params: Option<Value>,
    },
    /// A response: an `id` and `result` or `error` (or both, which is wrong).
    Response {
        /// The id.
        id: Value,
        /// The result, if any.
        result: Option<Value>,
        /// The error, if any.
        error: Option<Value>,
    },
}

/// Reads one line as a message.
pub(super) fn classify(line: &[u8]) -> Message {
    let text = match std::str::from_utf8(line) {
        Ok(text) => text,
        Err(err) => return Message::NotJson(format!("not UTF-8 (byte {})", err.valid_up_to())),
    };
    if text.trim_matches([' ', '\t', '\r', '\n']).is_empty() {
        return Message::Blank;
    }
    let value = match parse_json(text) {
        Ok(value) => value,
        Err(err) => return Message::NotJson(err.to_string()),
    };
    let mut members = match value {
        Value::Object(members) => members,
        Value::Array(_) => return Message::Batch,
        other => return Message::Invalid(format!("{}, not an object", other.described())),
    };
    let mut take = |key: &str| {
        members
            .iter()
            .position(|(k, _)| k == key)
            .map(|at| members.remove(at).1)
    };
    let method = take("method");
    let id = take("id");
    let params = take("params");
    let result = take("result");
    let error = take("error");
    match (method, id) {
        (Some(Value::Str(_)), id) if result.is_some() || error.is_some() => Message::Mixed { id },
        (Some(Value::Str(method)), Some(id)) => Message::Request { method, id, params },
        (Some(Value::Str(method)), None) => Message::Notification { method, params },
        (Some(other), _) => Message::Invalid(format!("\"method\" is {}", other.described())),
        (None, Some(id)) if result.is_some() || error.is_some() => {
            Message::Response { id, result, error }
        }
        (None, _) => Message::Invalid(
            "an object that is not a request, a notification or a response".to_owned(),
        ),
    }
}

/// The member `key` of an object.
pub(super) fn get<'v>(value: &'v Value, key: &str) -> Option<&'v Value> {
    match value {
        Value::Object(members) => json_member(members, key),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Cursor};

    use super::{Message, Read, classify, read_line};

    fn lines(input: &[u8], limit: usize) -> Vec<String> {
        // A small buffer, so that long lines are read in several pieces.
        let mut reader = BufReader::with_capacity(4, Cursor::new(input.to_vec()));
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            match read_line(&mut reader, limit, &mut buf) {
                Read::Line(line) => out.push(format!("line {:?}", String::from_utf8_lossy(&line))),
                Read::Oversize(n) => out.push(format!("oversize {n}")),
                Read::End => return out,
                Read::Failed(err) => panic!("{err}"),
            }
        }
    }

    #[test]
    fn lines_over_the_limit_are_skipped_whole() {
        assert_eq!(
            lines(b"abc\nabcdefghij\nab\r\n\nlast", 5),
            [
                "line \"abc\\n\"",
                "oversize 11",
                "line \"ab\\r\\n\"",
                "line \"\\n\"",
                "line \"last\""
            ]
        );
        assert_eq!(
            lines(b"abcde\nabcdef", 5),
            ["line \"abcde\\n\"", "oversize 6"]
        );
    }

    #[test]
    fn messages_are_told_apart() {
        let shown = |line: &str| match classify(line.as_bytes()) {
            Message::Blank => "blank".to_owned(),
            Message::NotJson(why) => format!("not JSON: {why}"),
            Message::Batch => "batch".to_owned(),
            Message::Invalid(why) => format!("invalid: {why}"),
            Message::Mixed { id } => format!("mixed {}", id.is_some()),
            Message::Request { method, .. } => format!("request {method}"),
            Message::Notification { method, .. } => format!("notification {method}"),
            Message::Response { result, error, .. } => {
                format!("response {} {}", result.is_some(), error.is_some())
            }
        };
        let found: Vec<String> = [
            " \r\n",
            "{\"id\":1,\"method\":\"tools/call\"}\n",
            "{\"method\":\"notifications/initialized\"}",
            "{\"id\":1,\"result\":{}}",
            "{\"id\":1,\"error\":{}}",
            "[{\"id\":1,\"method\":\"ping\"}]",
            "{\"id\":1}",
            "{\"id\":1,\"method\":\"x\",\"result\":{}}",
            "{\"method\":\"x\",\"error\":{}}",
            "{\"method\":3}",
            "7",
            "{\"a\":1,\"a\":2}",
            "nope",
        ]
        .iter()
        .map(|line| shown(line))
        .collect();
        assert_eq!(
            found,
            [
                "blank",
                "request tools/call",
                "notification notifications/initialized",
                "response true false",
                "response false true",
                "batch",
                "invalid: an object that is not a request, a notification or a response",
                "mixed true",
                "mixed false",
                "invalid: \"method\" is an integer",
                "invalid: an integer, not an object",
                "not JSON: duplicate key \"a\"",
                "not JSON: invalid JSON: expected `null`, found `o` at column 2",
            ]
        );
    }
}
