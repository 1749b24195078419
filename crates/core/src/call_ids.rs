//! A live session's call ids, `S.jsonl.calls` beside its calls' file `S.jsonl`: what
//! the agent or the MCP client called each call, which the sealed links do not hold
//! (their bytes are the chain's), kept so that `export --format otlp` of the sealed
//! file gives the spans the session sent live (docs/otel.md, "Call ids").
//!
//! One JSON object a line, keyed by the link it speaks of:
//! `{"digest": D, "index": N}` and any of `"id"` (the agent's id of the call:
//! `gen_ai.tool.call.id`), `"jsonrpc_id"` (the MCP request's id: `jsonrpc.request.id`)
//! and `"protocol_version"` (what the server's `initialize` result gave:
//! `mcp.protocol.version`), strings. A later line on the same link replaces an earlier
//! one; members of other names are ignored, so later writers may add some.

use std::io::BufRead;

use crate::canonical;
use crate::error::{LineError, ReadError};
use crate::import::CallMeta;
use crate::json::{self, Value, member};
use crate::lines::Lines;

/// The line (ending with LF) recording what `meta` says of the call sealed as link
/// `index` with digest `digest`; `None` when it says nothing worth keeping.
pub fn call_ids_line(index: u64, digest: &str, meta: &CallMeta) -> Option<Vec<u8>> {
    let fields = [
        ("id", &meta.id),
        ("jsonrpc_id", &meta.jsonrpc_id),
        ("protocol_version", &meta.protocol_version),
    ];
    let mut members: Vec<(String, Value)> = fields
        .iter()
        .filter_map(|(name, value)| {
            value
                .as_ref()
                .map(|value| ((*name).to_owned(), Value::Str(value.clone())))
        })
        .collect();
    if members.is_empty() {
        return None;
    }
    members.push(("digest".to_owned(), Value::Str(digest.to_owned())));
    members.push(("index".to_owned(), Value::Int(index.to_string().into())));
    // In the canonical order of keys.
    members.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = canonical::encode(&Value::Object(members));
    out.push(b'\n');
    Some(out)
}

/// Reads a call ids file from `reader` against the digests of the sealed session's
/// links, by index: what it says of each link's call (an empty [`CallMeta`] for a
/// call it does not name). A line naming a link the session does not hold, or naming it with
/// another digest (the file is another session's, or the session was cut), is an
/// input error naming its line and the link.
pub fn read_call_ids(
    reader: impl BufRead,
    digests: &[Option<&str>],
) -> Result<Vec<CallMeta>, ReadError> {
    let mut meta = vec![CallMeta::default(); digests.len()];
    let mut lines = Lines::new(reader);
    while let Some((line, text)) = lines.next_line()? {
        let bad = |message: String| ReadError::Input(LineError::new(line, message));
        let (index, digest, call) = parse_call_ids_line(text).map_err(bad)?;
        let at = usize::try_from(index).ok().filter(|&at| at < digests.len());
        let Some(at) = at else {
            return Err(bad(format!(
                "it names link {index}, and the session has {} links",
                digests.len()
            )));
        };
        if digests[at] != Some(digest.as_str()) {
            return Err(bad(format!(
                "it names link {index} with digest {digest}, which is not that link's: \
                 the file is not this session's"
            )));
        }
        meta[at] = call;
    }
    Ok(meta)
}

/// One line of a call ids file (without its LF): the index and digest of the link
/// it names, and what it says of the call; or why it is not one.
pub fn parse_call_ids_line(text: &str) -> Result<(u64, String, CallMeta), String> {
    let Value::Object(value) = json::parse(text).map_err(|err| err.to_string())? else {
        return Err("a call ids line must be an object".to_owned());
    };
    let (Some(index), Some(Value::Str(digest))) = (
        match member(&value, "index") {
            Some(Value::Int(digits)) => digits.parse::<u64>().ok(),
            _ => None,
        },
        member(&value, "digest"),
    ) else {
        return Err(
            "a call ids line must hold an \"index\" (a link's) and a \"digest\" (a string)"
                .to_owned(),
        );
    };
    let text = |name: &str| -> Result<Option<String>, String> {
        match member(&value, name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Str(text)) => Ok(Some(text.clone())),
            Some(_) => Err(format!("\"{name}\" must be a string")),
        }
    };
    let call = CallMeta {
        id: text("id")?,
        jsonrpc_id: text("jsonrpc_id")?,
        protocol_version: text("protocol_version")?,
        ..CallMeta::default()
    };
    Ok((index, digest.clone(), call))
}

#[cfg(test)]
mod tests {
    use super::{call_ids_line, read_call_ids};
    use crate::import::CallMeta;

    #[test]
    fn lines_written_are_read_back_by_link() {
        let guard = CallMeta {
            id: Some("toolu_01".to_owned()),
            ..CallMeta::default()
        };
        let proxy = CallMeta {
            jsonrpc_id: Some("7".to_owned()),
            protocol_version: Some("2025-06-18".to_owned()),
            ..CallMeta::default()
        };
        let first = call_ids_line(0, "aa", &guard).expect("a line");
        let second = call_ids_line(2, "cc", &proxy).expect("a line");
        assert_eq!(
            first,
            b"{\"digest\":\"aa\",\"id\":\"toolu_01\",\"index\":0}\n"
        );
        assert_eq!(
            second,
            b"{\"digest\":\"cc\",\"index\":2,\"jsonrpc_id\":\"7\",\"protocol_version\":\"2025-06-18\"}\n"
        );
        assert_eq!(call_ids_line(1, "bb", &CallMeta::default()), None);
        let records = [Some("aa"), Some("bb"), Some("cc")];
        let file = [first, second].concat();
        let read = read_call_ids(&file[..], &records).expect("read");
        assert_eq!(read, vec![guard, CallMeta::default(), proxy]);
    }

    #[test]
    fn a_line_of_another_session_is_refused_naming_the_link() {
        let records = [Some("aa")];
        let err = read_call_ids(
            &b"\n{\"digest\":\"ab\",\"id\":\"x\",\"index\":0}\n"[..],
            &records,
        )
        .expect_err("refused");
        assert_eq!(
            err.to_string(),
            "line 2: it names link 0 with digest ab, which is not that link's: the file is not this session's"
        );
        let err = read_call_ids(
            &b"{\"digest\":\"aa\",\"id\":\"x\",\"index\":1}\n"[..],
            &records,
        )
        .expect_err("refused");
        assert_eq!(
            err.to_string(),
            "line 1: it names link 1, and the session has 1 links"
        );
        let err = read_call_ids(&b"{\"digest\":\"aa\",\"id\":7,\"index\":0}\n"[..], &records)
            .expect_err("refused");
        assert_eq!(err.to_string(), "line 1: \"id\" must be a string");
    }
}
