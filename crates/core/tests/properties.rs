//! Property tests: random values, transcripts and edits, checked against the
//! invariants of the canonical encoding and the hash chain.

use proptest::prelude::*;
use proptest::test_runner::Config;
use toolreplay_core::{Links, ReadError, Record, Records};
use toolreplay_core::{Replay, replay_fingerprints};
use toolreplay_core::{Sealer, UnsealedLink, Verdict, Verifier};
use toolreplay_core::{Value, canonicalize_json, parse_json};
use toolreplay_core::{encode_canonical, line_text, parse_record, parse_unplaced_with};

/// Strings with the characters that matter to the encoding: ASCII, controls, quotes,
/// backslashes, non-ASCII, astral characters, line separators.
fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            4 => proptest::char::range('a', 'z'),
            1 => proptest::char::range('\u{0}', '\u{7f}'),
            1 => Just('"'),
            1 => Just('\\'),
            1 => proptest::char::range('\u{80}', '\u{2fff}'),
            1 => Just('\u{2028}'),
            1 => proptest::char::range('\u{1f600}', '\u{1f64f}'),
        ],
        0..12,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(|i| Value::Int(i.to_string().into())),
        "-?[1-9][0-9]{18,40}".prop_map(|digits| Value::Int(digits.into())),
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(Value::Float),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    nested(5, 48, 6)
}

/// Values nested `depth` deep at most, with about `size` nodes, `width` per level.
fn nested(depth: u32, size: u32, width: usize) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        text().prop_map(Value::Str),
    ];
    leaf.prop_recursive(depth, size, width as u32, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..width).prop_map(Value::Array),
            proptest::collection::btree_map(text(), inner, 0..width)
                .prop_map(|members| Value::Object(sorted(members.into_iter().collect()))),
        ]
    })
}

/// A small object, as the arguments or response of a call.
fn object() -> impl Strategy<Value = Value> {
    proptest::collection::btree_map(text(), nested(2, 6, 3), 0..4)
        .prop_map(|members| Value::Object(sorted(members.into_iter().collect())))
}

/// Members in the order the parser keeps them: by the bytes of their keys.
fn sorted(mut members: Vec<(String, Value)>) -> Vec<(String, Value)> {
    members.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    members
}

/// A non-canonical but equivalent JSON text: members in reverse order, whitespace
/// between tokens, non-ASCII characters raw, numbers as Rust writes them.
fn loose(value: &Value, out: &mut String, ws: &str) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(digits) => out.push_str(digits),
        Value::Float(x) => out.push_str(&format!("{x:e}")),
        Value::Str(s) => loose_str(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(ws);
                loose(item, out, ws);
            }
            out.push_str(ws);
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (key, item)) in members.iter().rev().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(ws);
                loose_str(key, out);
                out.push_str(ws);
                out.push(':');
                out.push_str(ws);
                loose(item, out, ws);
            }
            out.push_str(ws);
            out.push('}');
        }
    }
}

fn loose_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn whitespace() -> impl Strategy<Value = String> {
    "[ \t\r]{0,3}"
}

fn records() -> impl Strategy<Value = Vec<(String, Value, Value)>> {
    proptest::collection::vec(
        (
            prop_oneof![
                Just("read_file".to_owned()),
                Just("write_file".to_owned()),
                text().prop_filter("non-empty", |s| !s.is_empty())
            ],
            object(),
            object(),
        ),
        0..8,
    )
}

/// A transcript of `calls` written loosely with `ws` as whitespace.
fn transcript_text(calls: &[(String, Value, Value)], ws: &str) -> String {
    let mut out = String::new();
    for (index, (tool, args, response)) in calls.iter().enumerate() {
        out.push('{');
        out.push_str(ws);
        out.push_str("\"response\":");
        loose(response, &mut out, ws);
        out.push_str(",\"tool\":");
        loose_str(tool, &mut out);
        out.push_str(",\"args\":");
        loose(args, &mut out, ws);
        out.push_str(&format!(",\"index\":{ws}{index}}}{ws}\n"));
    }
    out
}

fn parse_all(text: &str) -> Result<Vec<Record>, ReadError> {
    Records::new(text.as_bytes())
        .map(|item| item.map(|(_, record)| record))
        .collect()
}

fn seal(records: &[Record]) -> String {
    let mut sealer = Sealer::new();
    let mut out = Vec::new();
    for record in records {
        sealer.seal(record, &mut out);
    }
    String::from_utf8(out).expect("sealed output is ASCII")
}

/// The verdict on a sealed text, or `None` when it is rejected as input.
fn verdict(sealed: &str) -> Option<Verdict> {
    let mut verifier = Verifier::new();
    for item in Links::new(sealed.as_bytes()) {
        let (line, link) = item.ok()?;
        verifier.check(line, &link);
    }
    Some(verifier.finish())
}

fn broken_at(verdict: &Option<Verdict>) -> Option<u64> {
    match verdict {
        Some(Verdict::Broken { position, .. }) => Some(*position),
        _ => None,
    }
}

proptest! {
    #![proptest_config(Config::with_cases(256))]

    #[test]
    fn canonical_encoding_is_a_fixed_point(value in value(), ws in whitespace()) {
        let mut text = String::new();
        loose(&value, &mut text, &ws);
        let parsed = parse_json(&text).expect("a loose rendering parses");
        let first = encode_canonical(&parsed);
        prop_assert_eq!(&first, &encode_canonical(&value));
        prop_assert!(first.is_ascii());
        let again = parse_json(std::str::from_utf8(&first).expect("ASCII")).expect("canonical parses");
        prop_assert_eq!(encode_canonical(&again), first);
    }

    #[test]
    fn canonicalize_agrees_with_parse(value in value(), ws in whitespace(), cut in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let mut text = String::new();
        loose(&value, &mut text, &ws);
        // The text as it is, and with one byte replaced (often no longer JSON).
        let mut edited = text.clone().into_bytes();
        let at = cut.index(edited.len().max(1)).min(edited.len().saturating_sub(1));
        if let Some(slot) = edited.get_mut(at) {
            *slot = byte;
        }
        for candidate in [text.into_bytes(), edited] {
            let Ok(candidate) = String::from_utf8(candidate) else { continue };
            let tree = parse_json(&candidate).map(|v| encode_canonical(&v)).map_err(|e| e.to_string());
            let mut out = Vec::new();
            let direct = canonicalize_json(&candidate, &mut out).map(|_| out).map_err(|e| e.to_string());
            prop_assert_eq!(direct, tree, "{:?}", candidate);
        }
    }

    #[test]
    fn canonicalize_sorts_members_written_in_any_order(
        (members, order) in proptest::collection::btree_map(text(), nested(2, 6, 3), 0..7)
            .prop_flat_map(|members| {
                let n = members.len();
                (Just(members), Just((0..n).collect::<Vec<_>>()).prop_shuffle())
            }),
        repeat in any::<prop::sample::Index>(),
    ) {
        let members: Vec<(String, Value)> = members.into_iter().collect();
        let render = |order: &[usize]| {
            let mut text = String::from("{");
            for (i, &m) in order.iter().enumerate() {
                if i > 0 {
                    text.push_str(", ");
                }
                loose_str(&members[m].0, &mut text);
                text.push(':');
                loose(&members[m].1, &mut text, " ");
            }
            text.push('}');
            text
        };
        let want = encode_canonical(&Value::Object(sorted(members.clone())));
        let mut out = Vec::new();
        canonicalize_json(&render(&order), &mut out).expect("an object with distinct keys");
        prop_assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(&want));
        // A key written twice is an error, wherever the two are.
        if !order.is_empty() {
            let mut twice = order.clone();
            twice.insert(repeat.index(order.len() + 1), order[repeat.index(order.len())]);
            let text = render(&twice);
            let tree = parse_json(&text).map(|v| encode_canonical(&v)).map_err(|e| e.to_string());
            prop_assert!(tree.as_ref().is_err_and(|e| e.contains("duplicate key")), "{:?}", tree);
            let direct = canonicalize_json(&text, &mut Vec::new()).map_err(|e| e.to_string());
            prop_assert_eq!(direct.map(|_| ()), tree.map(|_| ()));
        }
    }

    #[test]
    fn a_line_is_text_exactly_when_it_is_valid_utf8(
        text in "\\PC{0,80}",
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let mut bytes = text.into_bytes();
        if !bytes.is_empty() {
            let at = at.index(bytes.len());
            bytes[at] = byte;
        }
        bytes.insert(0, b'x');
        let got = line_text(2, &bytes).map(|t| t.map(str::to_owned));
        match std::str::from_utf8(&bytes) {
            Ok(text) => prop_assert_eq!(got, Ok(Some(text.to_owned()))),
            Err(err) => {
                let got = got.expect_err("invalid UTF-8");
                prop_assert_eq!(got.line, 2);
                let column = format!("at column {}", err.valid_up_to() + 1);
                prop_assert!(got.message.ends_with(&column), "{}", got.message);
            }
        }
    }

    #[test]
    fn sealed_transcripts_verify_intact(calls in records()) {
        let records = parse_all(&transcript_text(&calls, "")).expect("valid transcript");
        let sealed = seal(&records);
        let verdict = verdict(&sealed).expect("sealed output is valid input");
        match verdict {
            Verdict::Intact { links, .. } => prop_assert_eq!(links, calls.len() as u64),
            other => prop_assert!(false, "{:?}", other),
        }
    }

    #[test]
    fn key_order_and_whitespace_change_no_report_or_digest(calls in records(), ws in whitespace()) {
        let tight = parse_all(&transcript_text(&calls, "")).expect("valid transcript");
        let spaced = parse_all(&transcript_text(&calls, &ws)).expect("valid transcript");
        prop_assert_eq!(seal(&tight), seal(&spaced));
        let report = |records: &[Record]| {
            let mut replay = Replay::new(Vec::<String>::new());
            for record in records {
                let (call, response) = replay_fingerprints(
                    &record.tool,
                    &encode_canonical(&record.args),
                    &encode_canonical(&record.response),
                );
                replay.observe_fingerprints(record.index + 1, record.index, &record.tool, call, response);
            }
            replay.finish()
        };
        prop_assert_eq!(report(&tight), report(&spaced));
    }

    #[test]
    fn replay_fingerprints_straight_from_a_line_are_those_of_its_record(
        calls in records(),
        ws in whitespace(),
    ) {
        let text = transcript_text(&calls, &ws);
        for (number, line) in text.lines().enumerate() {
            let line_number = number as u64 + 1;
            let record = parse_record(line_number, line, number as u64)
                .expect("valid record");
            let call = parse_unplaced_with(line_number, line, |r| {
                toolreplay_core::replay_fingerprints(r.tool, r.args, r.response)
            })
            .expect("valid call");
            prop_assert_eq!(call.place(number as u64), Ok(number as u64));
            prop_assert_eq!(&call.tool, &record.tool);
            let expected = toolreplay_core::replay_fingerprints(
                &record.tool,
                &encode_canonical(&record.args),
                &encode_canonical(&record.response),
            );
            prop_assert_eq!(call.value, expected);
        }
    }

    #[test]
    fn links_drafted_straight_from_lines_are_those_sealed_from_records(
        calls in records(),
        ws in whitespace(),
    ) {
        let text = transcript_text(&calls, &ws);
        let mut from_records = Sealer::new();
        let mut from_drafts = Sealer::new();
        for (number, line) in text.lines().enumerate() {
            let line_number = number as u64 + 1;
            let record = parse_record(line_number, line, number as u64)
                .expect("valid record");
            let mut expected = Vec::new();
            from_records.seal(&record, &mut expected);
            let mut draft = parse_unplaced_with(line_number, line, |r| {
                UnsealedLink::new(r.index, r.tool, r.args, r.response)
            })
            .expect("valid record")
            .value;
            from_drafts.seal_link(&mut draft);
            prop_assert_eq!(
                String::from_utf8_lossy(draft.as_ref()),
                String::from_utf8_lossy(&expected)
            );
        }
    }

    #[test]
    fn any_single_edit_of_a_sealed_file_shows(
        calls in records().prop_filter("at least two calls", |c| c.len() >= 2),
        edit in 0..8usize,
        pick in any::<prop::sample::Index>(),
        other in any::<prop::sample::Index>(),
    ) {
        let records = parse_all(&transcript_text(&calls, "")).expect("valid transcript");
        let sealed = seal(&records);
        let mut lines: Vec<String> = sealed.lines().map(str::to_owned).collect();
        let n = lines.len();
        let at = pick.index(n);
        let mut link: Value = parse_json(&lines[at]).expect("link parses");
        let Value::Object(members) = &mut link else { unreachable!("links are objects") };
        let field = |members: &mut Vec<(String, Value)>, name: &str| -> usize {
            members.iter().position(|(k, _)| k == name).expect("link field")
        };
        // The position the verdict must name, or None when any rejection or break will do.
        let expect_at: usize = match edit {
            0 => { // a value inside the response changed
                let i = field(members, "response");
                let Value::Object(inner) = &mut members[i].1 else { unreachable!() };
                inner.push(("\u{0}edited".to_owned(), Value::Int("1".into())));
                inner.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                lines[at] = String::from_utf8(encode_canonical(&link)).expect("ASCII");
                at
            }
            1 => { // the tool renamed
                let i = field(members, "tool");
                members[i].1 = Value::Str(format!("{}x", match &members[i].1 { Value::Str(s) => s.clone(), _ => unreachable!() }));
                lines[at] = String::from_utf8(encode_canonical(&link)).expect("ASCII");
                at
            }
            2 => { // prev changed
                let i = field(members, "prev");
                members[i].1 = Value::Str("f".repeat(64));
                lines[at] = String::from_utf8(encode_canonical(&link)).expect("ASCII");
                at
            }
            3 => { // digest changed
                let i = field(members, "digest");
                members[i].1 = Value::Str("e".repeat(64));
                lines[at] = String::from_utf8(encode_canonical(&link)).expect("ASCII");
                // The digest itself is checked at `at`, unless it held e*64 already.
                at
            }
            4 => { // two lines swapped
                let b = other.index(n);
                let (lo, hi) = (at.min(b), at.max(b));
                prop_assume!(lo != hi && lines[lo] != lines[hi]);
                lines.swap(lo, hi);
                lo
            }
            5 => { // a line deleted (not the last: cutting the end is not detectable)
                prop_assume!(at + 1 < n);
                lines.remove(at);
                at
            }
            6 => { // a line duplicated
                let copy = lines[at].clone();
                lines.insert(at + 1, copy);
                at + 1
            }
            _ => { // the index changed
                let i = field(members, "index");
                members[i].1 = Value::Int((at + 1).to_string().into());
                lines[at] = String::from_utf8(encode_canonical(&link)).expect("ASCII");
                at
            }
        };
        let edited = lines.join("\n") + "\n";
        let verdict = verdict(&edited);
        if verdict.is_some() {
            prop_assert_eq!(broken_at(&verdict), Some(expect_at as u64), "{:?}", verdict);
        }
    }
}

#[test]
fn records_reject_what_links_need() {
    // A sealed line is not a transcript record: the two parsers stay apart.
    let err = parse_record(
        1,
        r#"{"args":{},"digest":"","index":0,"prev":"","response":{},"tool":"t"}"#,
        0,
    )
    .expect_err("six fields are not a record");
    assert_eq!(err.message, "unknown field \"digest\"");
}

/// Text made of the characters that matter to allowed signers lines and patterns.
fn signers_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            4 => proptest::char::range('a', 'z'),
            1 => prop_oneof![
                Just(' '), Just('\t'), Just('\n'), Just('\r'), Just('"'), Just(','),
                Just('='), Just('*'), Just('?'), Just('!'), Just('#'), Just('@'),
            ],
            1 => proptest::char::range('\u{80}', '\u{2fff}'),
        ],
        0..60,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(Config::with_cases(256))]

    #[test]
    fn sealing_after_a_head_continues_the_whole_chain(calls in records(), cut in 0..8usize) {
        let records = parse_all(&transcript_text(&calls, "")).expect("valid transcript");
        let cut = cut.min(records.len());
        let whole = seal(&records);
        let first = seal(&records[..cut]);
        let checked = toolreplay_core::check_sealed(
            first.as_bytes(),
            None,
            toolreplay_core::Threads::default(),
        )
        .expect("sealed output is valid input");
        let Verdict::Intact { links, head } = checked.verdict else {
            return Err(TestCaseError::fail("the first part is broken"));
        };
        prop_assert_eq!(links, cut as u64);
        let mut sealer = Sealer::after(&head);
        let mut rest = Vec::new();
        for record in &records[cut..] {
            sealer.seal(record, &mut rest);
        }
        prop_assert_eq!(first + std::str::from_utf8(&rest).expect("ASCII"), whole);
    }

    #[test]
    fn head_statements_read_back_as_pins(links in any::<u64>(), digest in "[0-9a-f]{64}") {
        let head = toolreplay_core::Head { links, digest };
        let statement = toolreplay_core::head_statement(&head);
        prop_assert_eq!(
            toolreplay_core::parse_pin(statement.as_bytes()),
            Ok(toolreplay_core::Pin::Statement(head))
        );
    }

    #[test]
    fn head_files_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200), text in signers_text()) {
        let _ = toolreplay_core::parse_pin(&bytes);
        let _ = toolreplay_core::parse_pin(text.as_bytes());
        let with_origin = format!("{}\n{text}", toolreplay_core::HEAD_ORIGIN);
        let _ = toolreplay_core::parse_pin(with_origin.as_bytes());
    }

    #[test]
    fn allowed_signers_and_patterns_never_panic(text in signers_text(), identity in signers_text()) {
        let _ = toolreplay_core::allowed_signers_for(&text, &identity);
        let _ = toolreplay_core::allowed_signers_for(&format!("{identity} {text}"), &identity);
        let _ = toolreplay_core::match_pattern_list(&identity, &text);
        let _ = toolreplay_core::match_pattern_list(&text, &identity);
    }

    // Not the empty text: an empty pattern list matches nothing, as in OpenSSH.
    #[test]
    fn a_pattern_matches_itself_and_star_matches_all(text in "[a-z@.]{1,20}") {
        prop_assert_eq!(toolreplay_core::match_pattern_list(&text, &text), Some(true));
        prop_assert_eq!(toolreplay_core::match_pattern_list(&text, "*"), Some(true));
        prop_assert_eq!(
            toolreplay_core::match_pattern_list(&text, &format!("!{text},*")),
            Some(false)
        );
    }
}
