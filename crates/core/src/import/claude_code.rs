//! Claude Code session files: JSON Lines from `~/.claude/projects/`, one entry a line.
//!
//! Entries of `type` `user` and `assistant` carry an API `message`; its content
//! blocks are read as in [`super::anthropic`]: `tool_use` blocks are the calls (their
//! `input` the `args`), `tool_result` blocks the results, paired by id. What the
//! files hold besides is handled so:
//!
//! - One API response is often written over several lines sharing `message.id`, one
//!   content block each, and parallel tool uses give several `tool_use` blocks before
//!   their results: pairing by id handles both, and calls keep the order of their
//!   `tool_use` blocks in the file.
//! - A repeated line (or any repeat of a `tool_use` with the same id, name and input,
//!   or of a `tool_result` with the same id and content) is the same call logged
//!   again: it is merged, without a warning. A repeated id with other content is
//!   skipped with a warning.
//! - Sidechain (subagent) entries, `"isSidechain": true`, are tool calls the session
//!   made too: they are imported like the others, where they are in the file. The
//!   transcript format has no field to mark them.
//! - `summary`, `system`, `file-history-snapshot` and `queue-operation` entries hold
//!   no tool calls and are dropped, as are the entry's `toolUseResult` (a richer
//!   copy of the result for the user interface: the `tool_result` block is what the
//!   model saw, and is what is imported), text, thinking and usage.
//! - A line that is not an object, an entry without a string `type` or of another
//!   type, and a `user` or `assistant` entry without a message content are skipped
//!   with a warning.
//! - Tool names are kept as they are: `mcp__server__tool` stays `mcp__server__tool`.

use crate::json::{Value, quoted_key};
use crate::transcript::LineError;

use super::anthropic::content_blocks;
use super::{Items, Pairing, get, get_str};

/// Entry types that hold no tool call, dropped without a warning.
const DROPPED_ENTRIES: [&str; 4] = [
    "summary",
    "system",
    "file-history-snapshot",
    "queue-operation",
];

/// Reads the entries of `items` into `pairing`.
pub(crate) fn read(items: Items<'_>, pairing: &mut Pairing) -> Result<(), LineError> {
    for item in items {
        let (line, value) = item?;
        let Value::Object(entry) = value else {
            pairing.skip(
                line,
                format!("line: {}, not an entry object", value.described()),
            );
            continue;
        };
        let kind = match get_str(&entry, "type") {
            Some(kind @ ("user" | "assistant")) => kind,
            Some(kind) if DROPPED_ENTRIES.contains(&kind) => continue,
            Some(kind) => {
                pairing.skip(line, format!("entry of type {}", quoted_key(kind)));
                continue;
            }
            None => {
                pairing.skip(line, "entry without a string \"type\"".to_owned());
                continue;
            }
        };
        let message = match get(&entry, "message") {
            Some(Value::Object(message)) => message,
            Some(other) => {
                pairing.skip(
                    line,
                    format!(
                        "\"{kind}\" entry: \"message\" is {}, not an object",
                        other.described()
                    ),
                );
                continue;
            }
            None => {
                pairing.skip(line, format!("\"{kind}\" entry without \"message\""));
                continue;
            }
        };
        match get(message, "content") {
            Some(Value::Array(blocks)) => content_blocks(line, blocks, pairing)?,
            Some(Value::Str(_)) => {}
            Some(other) => pairing.skip(
                line,
                format!(
                    "\"{kind}\" entry: the message's \"content\" is {}",
                    other.described()
                ),
            ),
            None => pairing.skip(
                line,
                format!("\"{kind}\" entry: its message has no \"content\""),
            ),
        }
    }
    Ok(())
}
