//! The messages the proxy writes itself, each one line of JSON and LF: tool results
//! for the calls it stopped, JSON-RPC errors for messages it could not pass on, and
//! the cancellation it sends a server.

use toolreplay_core::Value;
use toolreplay_core::encode_canonical;

/// JSON-RPC's "Parse error": a line that is not JSON, or over the size limit.
pub(super) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "Invalid Request": JSON that is not a message the proxy passes on.
pub(super) const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's "Invalid params": a `tools/call` without a tool name or with arguments
/// that are not an object.
pub(super) const INVALID_PARAMS: i64 = -32602;
/// A server error in JSON-RPC's implementation-defined range: the proxy refused the
/// request for a reason of its own (an id already in flight, too many in flight).
pub(super) const REFUSED: i64 = -32000;

fn string(text: &str) -> Value {
    Value::Str(text.to_owned())
}

fn line(value: &Value) -> Vec<u8> {
    let mut out = encode_canonical(value);
    out.push(b'\n');
    out
}

/// A `tools/call` result for `id` that tells the model the call did not run or its
/// result is not given: `isError: true` and one text block.
pub(super) fn error_result(id: &Value, text: &str) -> Vec<u8> {
    let content = Value::Array(vec![Value::object([
        ("type", string("text")),
        ("text", string(text)),
    ])]);
    line(&Value::object([
        ("jsonrpc", string("2.0")),
        ("id", id.clone()),
        (
            "result",
            Value::object([("content", content), ("isError", Value::Bool(true))]),
        ),
    ]))
}

/// A JSON-RPC error response for `id` (`null` when the request's id is unknown).
pub(super) fn rpc_error(id: &Value, code: i64, message: &str) -> Vec<u8> {
    line(&Value::object([
        ("jsonrpc", string("2.0")),
        ("id", id.clone()),
        (
            "error",
            Value::object([
                ("code", Value::Int(code.to_string().into())),
                ("message", string(message)),
            ]),
        ),
    ]))
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

    use super::{INVALID_REQUEST, cancelled, error_result, rpc_error};

    fn text(bytes: Vec<u8>) -> String {
        String::from_utf8(bytes).expect("ASCII")
    }

    #[test]
    fn the_shapes_of_the_proxys_own_messages() {
        let id = Value::Int("7".into());
        assert_eq!(
            text(error_result(&id, "no")),
            "{\"id\":7,\"jsonrpc\":\"2.0\",\"result\":{\"content\":[{\"text\":\"no\",\"type\":\"text\"}],\"isError\":true}}\n"
        );
        assert_eq!(
            text(rpc_error(&Value::Null, INVALID_REQUEST, "bad")),
            "{\"error\":{\"code\":-32600,\"message\":\"bad\"},\"id\":null,\"jsonrpc\":\"2.0\"}\n"
        );
        assert_eq!(
            text(cancelled(&Value::Str("a".into()), "late")),
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"reason\":\"late\",\"requestId\":\"a\"}}\n"
        );
    }
}
