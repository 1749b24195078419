//! The HTML report: one self-contained page holding the evidence graph and the
//! records as JSON, and the script that renders them.
//!
//! The page makes no network request: its Content-Security-Policy allows nothing
//! but its own inline script and style, named by their SHA-256 hashes. The data is
//! in a `<script type="application/json">` element, written so that nothing in it
//! can end that element or start markup (`<`, `>`, `&`, U+2028 and U+2029 are
//! escaped inside its strings), and the script builds the page from text nodes
//! only.

use sha2::{Digest, Sha256};
use toolreplay_core::base64_encode;
use toolreplay_core::{Graph, GraphTranscript as Transcript};

const TEMPLATE: &str = include_str!("template.html");
const STYLE: &str = include_str!("report.css");
const SCRIPT: &str = include_str!("report.js");

/// The most bytes of one record's arguments or response the page holds; the page
/// says when a field is cut short.
pub(crate) const FIELD_LIMIT: usize = 32 << 10;

/// The report of `graph`, built from `transcript`, for the input named `file`.
pub(crate) fn html(graph: &Graph, transcript: &Transcript, file: &str) -> String {
    let records: Vec<serde_json::Value> = transcript
        .records
        .iter()
        .map(|record| {
            let mut fields = serde_json::json!([
                cut(&record.args),
                cut(&record.response),
                record.args.len(),
                record.response.len()
            ]);
            if let (Some(agent), Some(fields)) = (subagent(&record.response), fields.as_array_mut())
            {
                fields.push(agent.into());
            }
            fields
        })
        .collect();
    let data = serde_json::json!({
        "file": file,
        "generator": concat!("toolreplay ", env!("CARGO_PKG_VERSION")),
        "graph": graph,
        "records": records,
    });
    let data = script_safe(&data.to_string());
    let csp = format!(
        "default-src 'none'; script-src 'sha256-{}'; style-src 'sha256-{}'; base-uri 'none'; form-action 'none'",
        base64_encode(&Sha256::digest(SCRIPT.as_bytes())),
        base64_encode(&Sha256::digest(STYLE.as_bytes()))
    );
    let title = escape_html(file);
    fill(
        TEMPLATE,
        &[
            ("{{CSP}}", &csp),
            ("{{TITLE}}", &title),
            ("{{STYLE}}", STYLE),
            ("{{DATA}}", &data),
            ("{{SCRIPT}}", SCRIPT),
        ],
    )
}

/// The subagent that made a call: the string member `subagent` of its response
/// (`import` adds it to a Claude Code subagent's calls, a live session to a
/// subagent's), kept beside the record since a response cut short may lose it.
fn subagent(response: &[u8]) -> Option<String> {
    const KEY: &[u8] = b"\"subagent\":";
    if !response.windows(KEY.len()).any(|window| window == KEY) {
        return None;
    }
    match serde_json::from_slice::<serde_json::Value>(response)
        .ok()?
        .get("subagent")?
    {
        serde_json::Value::String(agent) => Some(agent.clone()),
        _ => None,
    }
}

/// The first [`FIELD_LIMIT`] bytes of a canonical encoding (which is ASCII), as text.
fn cut(canonical: &[u8]) -> String {
    let end = canonical.len().min(FIELD_LIMIT);
    String::from_utf8_lossy(&canonical[..end]).into_owned()
}

/// `template` with each marker replaced by its value; values are never searched
/// for markers.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(
        template.len() + values.iter().map(|(_, value)| value.len()).sum::<usize>(),
    );
    let mut rest = template;
    loop {
        let next = values
            .iter()
            .filter_map(|(marker, value)| rest.find(marker).map(|at| (at, *marker, *value)))
            .min_by_key(|(at, _, _)| *at);
        match next {
            Some((at, marker, value)) => {
                out.push_str(&rest[..at]);
                out.push_str(value);
                rest = &rest[at + marker.len()..];
            }
            None => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

/// JSON text made safe inside a `<script>` element: `<`, `>` and `&` (which only
/// occur in strings) become `\u` escapes, and so do U+2028 and U+2029.
pub(crate) fn script_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// Text made safe in HTML content and attribute values.
pub(crate) fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{escape_html, fill, script_safe, subagent};

    #[test]
    fn a_subagents_name_is_its_responses_string_member() {
        assert_eq!(
            subagent(br#"{"content":"x","subagent":"a1"}"#).as_deref(),
            Some("a1")
        );
        assert_eq!(subagent(br#"{"subagent":7}"#), None);
        assert_eq!(subagent(br#"{"t":{"subagent":"a1"}}"#), None);
        assert_eq!(subagent(br#"{"content":"x"}"#), None);
        assert_eq!(subagent(br#"{"subagent":"a1""#), None);
    }

    #[test]
    fn nothing_in_the_data_ends_the_script() {
        let json = "{\"t\":\"</script><!-- \u{2028}\u{2029} &amp;\"}";
        assert_eq!(
            script_safe(json),
            r#"{"t":"\u003c/script\u003e\u003c!-- \u2028\u2029 \u0026amp;"}"#
        );
        assert_eq!(
            escape_html("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn values_are_not_searched_for_markers() {
        assert_eq!(
            fill("a{{X}}b{{Y}}c", &[("{{X}}", "{{Y}}"), ("{{Y}}", "y")]),
            "a{{Y}}byc"
        );
    }
}
