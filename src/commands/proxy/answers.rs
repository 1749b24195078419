//! The messages the proxy writes itself, each one line of JSON and LF: tool results
//! for the calls it stopped, JSON-RPC errors for messages it could not pass on, and
//! the cancellation it sends a server.

use toolreplay_core::Value;
use toolreplay_core::encode_canonical;

use super::wire::get;

/// JSON-RPC's "Parse error": a line that is not JSON, or over the size limit.
pub(super) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "Invalid Request": JSON that is not a message the proxy passes on.
pub(super) const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's "Invalid params": a `tools/call` without a tool name or with arguments
/// that are not an object.
pub(super) const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC's "Internal error": the server's answer to a request was malformed.
pub(super) const INTERNAL_ERROR: i64 = -32603;
/// A server error in JSON-RPC's implementation-defined range: the proxy refused the
/// request for a reason of its own (an id already in flight, too many in flight).
pub(super) const REFUSED: i64 = -32000;

/// The MCP protocol revision a message is made in: negotiated by `initialize`
/// (up to 2025-11-25), or named in each request's
/// `params._meta["io.modelcontextprotocol/protocolVersion"]` (2026-07-28,
/// stateless); unknown before either.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Revision(Option<Box<str>>);

/// The member of a request's `params._meta` that names its revision (2026-07-28).
pub(super) const PROTOCOL_VERSION_META: &str = "io.modelcontextprotocol/protocolVersion";

impl Revision {
    /// The revision named `name` (`2025-06-18`).
    pub(super) fn named(name: &str) -> Revision {
        Revision(Some(name.into()))
    }

    /// The revision a request's `params` name in their `_meta`, if they do.
    pub(super) fn of_request(params: Option<&Value>) -> Revision {
        match params
            .and_then(|params| get(params, "_meta"))
            .and_then(|meta| get(meta, PROTOCOL_VERSION_META))
        {
            Some(Value::Str(name)) => Revision::named(name),
            _ => Revision::default(),
        }
    }

    /// The revision's name, when it is known.
    pub(super) fn name(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// Whether a revision is known.
    pub(super) fn is_known(&self) -> bool {
        self.0.is_some()
    }

    /// Whether it is `since` or later (revisions are dates, `YYYY-MM-DD`).
    fn since(&self, since: &str) -> bool {
        self.0.as_deref().is_some_and(|name| name >= since)
    }

    /// Whether every result carries `resultType` (2026-07-28 on).
    fn has_result_type(&self) -> bool {
        self.since("2026-07-28")
    }

    /// Whether an error answer without a known id leaves `id` out (2025-11-25 on;
    /// before, JSON-RPC's `"id": null`, which those schemas have no shape for).
    fn omits_unknown_id(&self) -> bool {
        self.since("2025-11-25")
    }
}

fn string(text: &str) -> Value {
    Value::Str(text.to_owned())
}

fn line(value: &Value) -> Vec<u8> {
    let mut out = encode_canonical(value);
    out.push(b'\n');
    out
}

/// A `tools/call` result for `id` that tells the model the call did not run or its
/// result is not given: `isError: true` and one text block; in 2026-07-28 and
/// later, `"resultType": "complete"` too.
pub(super) fn error_result(id: &Value, text: &str, revision: &Revision) -> Vec<u8> {
    let content = Value::Array(vec![Value::object([
        ("type", string("text")),
        ("text", string(text)),
    ])]);
    let mut result = vec![("content", content), ("isError", Value::Bool(true))];
    if revision.has_result_type() {
        result.push(("resultType", string("complete")));
    }
    line(&Value::object([
        ("jsonrpc", string("2.0")),
        ("id", id.clone()),
        ("result", Value::object(result)),
    ]))
}

/// A JSON-RPC error response for `id`; when the request's id is unknown, `"id":
/// null` (JSON-RPC's rule), or no `id` in 2025-11-25 and later (their schemas).
pub(super) fn rpc_error(
    id: Option<&Value>,
    code: i64,
    message: &str,
    revision: &Revision,
) -> Vec<u8> {
    let error = Value::object([
        ("code", Value::Int(code.to_string().into())),
        ("message", string(message)),
    ]);
    let id = match id {
        Some(id) => Some(id.clone()),
        None if revision.omits_unknown_id() => None,
        None => Some(Value::Null),
    };
    let mut members = vec![("jsonrpc", string("2.0")), ("error", error)];
    if let Some(id) = id {
        members.push(("id", id));
    }
    line(&Value::object(members))
}

/// The `notifications/cancelled` that tells a server to stop the request `id`.
pub(super) fn cancelled(id: &Value, reason: &str) -> Vec<u8> {
    line(&Value::object([
        ("jsonrpc", string("2.0")),
        ("method", string("notifications/cancelled")),
        (
            "params",
            Value::object([("requestId", id.clone()), ("reason", string(reason))]),
        ),
    ]))
}

/// A message with `result` replaced by `result`, the rest of `message` kept: for a
/// `tools/list` answer whose unpinned tools were taken out.
pub(super) fn with_result(message: &Value, result: Value) -> Vec<u8> {
    let mut message = message.clone();
    if let Value::Object(members) = &mut message {
        for (key, value) in members.iter_mut() {
            if key == "result" {
                *value = result;
                break;
            }
        }
    }
    line(&message)
}

#[cfg(test)]
mod tests {
    use toolreplay_core::Value;

    use super::{INVALID_REQUEST, Revision, cancelled, error_result, rpc_error};

    fn text(bytes: Vec<u8>) -> String {
        String::from_utf8(bytes).expect("ASCII")
    }

    #[test]
    fn the_shapes_of_the_proxys_own_messages() {
        let id = Value::Int("7".into());
        assert_eq!(
            text(error_result(&id, "no", &Revision::default())),
            "{\"id\":7,\"jsonrpc\":\"2.0\",\"result\":{\"content\":[{\"text\":\"no\",\"type\":\"text\"}],\"isError\":true}}\n"
        );
        assert_eq!(
            text(rpc_error(
                None,
                INVALID_REQUEST,
                "bad",
                &Revision::default()
            )),
            "{\"error\":{\"code\":-32600,\"message\":\"bad\"},\"id\":null,\"jsonrpc\":\"2.0\"}\n"
        );
        // 2026-07-28: results carry resultType; from 2025-11-25 an unknown id is
        // left out.
        let stateless = Revision::named("2026-07-28");
        assert_eq!(
            text(error_result(&id, "no", &stateless)),
            "{\"id\":7,\"jsonrpc\":\"2.0\",\"result\":{\"content\":[{\"text\":\"no\",\"type\":\"text\"}],\"isError\":true,\"resultType\":\"complete\"}}\n"
        );
        assert_eq!(
            text(rpc_error(
                None,
                INVALID_REQUEST,
                "bad",
                &Revision::named("2025-11-25")
            )),
            "{\"error\":{\"code\":-32600,\"message\":\"bad\"},\"jsonrpc\":\"2.0\"}\n"
        );
        assert_eq!(
            text(rpc_error(
                None,
                INVALID_REQUEST,
                "bad",
                &Revision::named("2025-06-18")
            )),
            "{\"error\":{\"code\":-32600,\"message\":\"bad\"},\"id\":null,\"jsonrpc\":\"2.0\"}\n"
        );
        assert_eq!(
            text(cancelled(&Value::Str("a".into()), "late")),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"reason\":\"late\",\"requestId\":\"a\"}}\n"
        );
    }
}
