//! OpenTelemetry GenAI spans as OTLP JSON: a document `{"resourceSpans": [...]}` (what
//! an OTLP/HTTP JSON export or a collector's file exporter writes; JSON Lines of them
//! too).
//!
//! Each span of `resourceSpans[].scopeSpans[].spans[]` whose attribute
//! `gen_ai.operation.name` is `execute_tool` is a call: `gen_ai.tool.name` the tool,
//! `gen_ai.tool.call.arguments` (JSON text holding an object, or an object; absent:
//! `{}`) the `args`, and `gen_ai.tool.call.result` its result, `{"content": ...}` (the
//! parsed JSON when it is JSON text, the text otherwise), with `"is_error": true` when
//! the span's `status.code` is 2 (`ERROR`) (then with the status `message` as the
//! content when there is no result). A span without a result is kept with
//! `{"no_result": true}` and a warning. Calls are in the order of their spans'
//! `startTimeUnixNano` (the order in the input among equal times), or of their
//! integer attribute `toolreplay.index` when every span has one (this tool's export:
//! a log's times need not follow the order of its calls). A string
//! attribute `toolreplay.response` (JSON text holding an object, as `toolreplay
//! export --with-content` writes it) is the response exactly, whatever the result
//! and status say. Other spans
//! (`chat`, `invoke_agent`, ...) are not tool calls and are dropped.

use crate::json::{self, Value};
use crate::transcript::LineError;

use super::{Items, Pairing, content_response, fit, get, get_str};

/// An attribute's value: `{"stringValue": ...}` and the other OTLP `AnyValue`s.
fn any_value(value: &Value) -> Option<Value> {
    let Value::Object(members) = value else {
        return None;
    };
    let (key, inner) = members.first()?;
    match key.as_str() {
        "stringValue" | "boolValue" | "intValue" | "doubleValue" | "bytesValue" => {
            Some(inner.clone())
        }
        "arrayValue" => match get(members, "arrayValue") {
            Some(Value::Object(array)) => match get(array, "values") {
                Some(Value::Array(values)) => {
                    Some(Value::Array(values.iter().filter_map(any_value).collect()))
                }
                _ => Some(Value::Array(Vec::new())),
            },
            _ => None,
        },
        _ => Some(inner.clone()),
    }
}

fn attribute(span: &[(String, Value)], key: &str) -> Option<Value> {
    let Some(Value::Array(attributes)) = get(span, "attributes") else {
        return None;
    };
    attributes.iter().find_map(|attribute| match attribute {
        Value::Object(a) if get_str(a, "key") == Some(key) => get(a, "value").and_then(any_value),
        _ => None,
    })
}

fn list<'v>(members: &'v [(String, Value)], key: &str) -> &'v [Value] {
    match get(members, key) {
        Some(Value::Array(items)) => items,
        _ => &[],
    }
}

/// An `execute_tool` span: its start time, its line, its members.
type Span = (u128, u64, Vec<(String, Value)>);

/// Reads the spans of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    let items = super::trees(items);
    let mut spans: Vec<Span> = Vec::new();
    for entry in items {
        let (line, value) = entry?;
        let Value::Object(document) = value else {
            pairing.skip(line, format!("line: {}, not an object", value.described()));
            continue;
        };
        for resource in list(&document, "resourceSpans") {
            let Value::Object(resource) = resource else {
                continue;
            };
            for scope in list(resource, "scopeSpans") {
                let Value::Object(scope) = scope else {
                    continue;
                };
                for span in list(scope, "spans") {
                    let Value::Object(span) = span else { continue };
                    let tool = attribute(span, "gen_ai.operation.name")
                        == Some(Value::Str("execute_tool".to_owned()));
                    if tool {
                        let start = match get(span, "startTimeUnixNano") {
                            Some(Value::Str(text)) => text.parse().unwrap_or(0),
                            Some(Value::Int(digits)) => digits.to_string().parse().unwrap_or(0),
                            _ => 0,
                        };
                        spans.push((start, line, span.clone()));
                    }
                }
            }
        }
    }
    // This tool's export numbers its spans: when every span is numbered, that is the
    // calls' order (a log's times need not follow the order of its calls).
    let numbered: Option<Vec<u128>> = spans
        .iter()
        .map(|(_, _, span)| match attribute(span, "toolreplay.index") {
            Some(Value::Str(digits)) => digits.parse().ok(),
            Some(Value::Int(digits)) => digits.parse().ok(),
            _ => None,
        })
        .collect();
    match numbered {
        Some(order) => {
            let mut keyed: Vec<(u128, Span)> = order.into_iter().zip(spans).collect();
            keyed.sort_by_key(|(index, _)| *index);
            spans = keyed.into_iter().map(|(_, span)| span).collect();
        }
        None => spans.sort_by_key(|(start, _, _)| *start),
    }
    for (_, line, span) in spans {
        let error = |message: String| LineError {
            line,
            message: format!("execute_tool span: {message}"),
        };
        let name = match attribute(&span, "gen_ai.tool.name") {
            Some(Value::Str(name)) if !name.is_empty() => name,
            _ => return Err(error("no string attribute \"gen_ai.tool.name\"".to_owned())),
        };
        let args = match attribute(&span, "gen_ai.tool.call.arguments") {
            None | Some(Value::Null) => Value::Object(Vec::new()),
            Some(args @ Value::Object(_)) => args,
            Some(Value::Str(text)) => match json::parse(&text) {
                Ok(args @ Value::Object(_)) => args,
                _ => {
                    return Err(error(
                        "\"gen_ai.tool.call.arguments\" must be JSON text holding an object"
                            .to_owned(),
                    ));
                }
            },
            Some(other) => {
                return Err(error(format!(
                    "\"gen_ai.tool.call.arguments\" is {}",
                    other.described()
                )));
            }
        };
        let args = fit(line, "arguments", &args)?;
        let status = match get(&span, "status") {
            Some(Value::Object(status)) => status.as_slice(),
            _ => &[],
        };
        let failed = matches!(get(status, "code"), Some(Value::Int(code)) if &**code == "2")
            || get_str(status, "code") == Some("STATUS_CODE_ERROR");
        let result = attribute(&span, "gen_ai.tool.call.result")
            .map(|result| match result {
                Value::Str(text) => json::parse(&text).unwrap_or(Value::Str(text)),
                other => other,
            })
            .or_else(|| get(status, "message").filter(|_| failed).cloned());
        // `toolreplay export --with-content` keeps the record's exact response.
        let exact = match attribute(&span, "toolreplay.response") {
            Some(Value::Str(text)) => match json::parse(&text) {
                Ok(response @ Value::Object(_)) => Some(response),
                _ => {
                    return Err(error(
                        "\"toolreplay.response\" must be JSON text holding an object".to_owned(),
                    ));
                }
            },
            Some(other) => {
                return Err(error(format!(
                    "\"toolreplay.response\" is {}",
                    other.described()
                )));
            }
            None => None,
        };
        let response = match (exact, result) {
            (Some(exact), _) => Some(fit(line, "response", &exact)?),
            (None, Some(result)) => Some(fit(
                line,
                "response",
                &content_response(Some(&result), failed),
            )?),
            (None, None) => None,
        };
        match (attribute(&span, "gen_ai.tool.call.id"), response) {
            (Some(Value::Str(id)), Some(response)) if !id.is_empty() => {
                pairing.call_answered(line, super::id_key(&Value::Str(id)), name, args, response)
            }
            (Some(Value::Str(id)), None) if !id.is_empty() => {
                pairing.call(line, super::id_key(&Value::Str(id)), name, args)
            }
            (_, response) => pairing.call_unpaired(line, name, args, response),
        }
        let time = |key| match get(&span, key) {
            Some(Value::Str(digits)) => digits.parse::<u64>().ok(),
            Some(Value::Int(digits)) => digits.parse::<u64>().ok(),
            _ => None,
        };
        pairing.timed(time("startTimeUnixNano"), time("endTimeUnixNano"));
    }
    Ok(())
}
