//! The strict transcript format (spec section 1): every rejection rule, one test
//! each, with its line number, and what is accepted.

use insta::assert_snapshot;

use super::{Dir, lines, record, replay, run_on};

/// Two valid records, then `third` on line 3, which should be index 2.
fn after_two_records(third: &str) -> String {
    lines(&[
        &record(0, "read_file", r#"{"path": "a"}"#, r#"{"text": "A"}"#),
        &record(1, "list_dir", r#"{"path": "."}"#, r#"{"entries": ["a"]}"#),
        third,
    ])
}

/// `replay` on two valid records and `third`.
fn replay_third(third: &str) -> String {
    replay(after_two_records(third)).text()
}

/// A valid record on line 3 whose `args` is `args`.
fn with_args(args: &str) -> String {
    replay_third(&record(2, "search", args, "{}"))
}

/// `depth` levels of objects and arrays in all, counting the record object as 1:
/// the record (1), `args` (2), then `depth - 2` nested arrays in `args.deep`.
fn nested(depth: usize) -> String {
    let arrays = depth - 2;
    let deep = format!("{}{}", "[".repeat(arrays), "]".repeat(arrays));
    record(2, "search", &format!(r#"{{"deep": {deep}}}"#), "{}")
}

// --- invalid JSON and what surrounds the value

#[test]
fn rejects_invalid_json() {
    assert_snapshot!(replay_third(
        r#"{"index": 2, "tool": "search", "args": {}, "response": {}"#
    ));
}

#[test]
fn rejects_a_line_that_is_not_json_at_all() {
    assert_snapshot!(replay_third("hello"));
}

#[test]
fn rejects_trailing_characters_after_the_value() {
    assert_snapshot!(replay_third(&format!(
        "{} x",
        record(2, "search", "{}", "{}")
    )));
}

#[test]
fn rejects_a_second_value_on_the_same_line() {
    let one = record(2, "search", "{}", "{}");
    assert_snapshot!(replay_third(&format!("{one}{one}")));
}

#[test]
fn accepts_whitespace_around_the_value() {
    assert_snapshot!(replay_third(&format!(
        " \t{} \t ",
        record(2, "search", "{}", "{}")
    )));
}

#[test]
fn rejects_a_value_that_is_not_an_object() {
    assert_snapshot!(replay_third(r#"[2, "search", {}, {}]"#));
}

#[test]
fn rejects_null_as_a_line() {
    assert_snapshot!(replay_third("null"));
}

// --- fields

#[test]
fn rejects_a_missing_field() {
    assert_snapshot!(replay_third(
        r#"{"index": 2, "tool": "search", "args": {}}"#
    ));
}

#[test]
fn rejects_a_missing_index() {
    assert_snapshot!(replay_third(
        r#"{"tool": "search", "args": {}, "response": {}}"#
    ));
}

#[test]
fn rejects_an_unknown_field() {
    assert_snapshot!(replay_third(
        r#"{"index": 2, "tool": "search", "args": {}, "response": {}, "foo": 1}"#
    ));
}

#[test]
fn rejects_an_index_with_a_fraction() {
    assert_snapshot!(replay_third(
        r#"{"index": 2.0, "tool": "search", "args": {}, "response": {}}"#
    ));
}

#[test]
fn rejects_an_index_with_an_exponent() {
    assert_snapshot!(replay_third(
        r#"{"index": 2e0, "tool": "search", "args": {}, "response": {}}"#
    ));
}

#[test]
fn rejects_a_boolean_index() {
    // The first record, so that `true` would be 1 if booleans were integers.
    assert_snapshot!(
        replay(lines(&[
            &record(0, "read_file", "{}", "{}"),
            r#"{"index": true, "tool": "search", "args": {}, "response": {}}"#,
        ]))
        .text()
    );
}

#[test]
fn rejects_a_string_index() {
    assert_snapshot!(replay_third(
        r#"{"index": "2", "tool": "search", "args": {}, "response": {}}"#
    ));
}

#[test]
fn rejects_a_null_index() {
    assert_snapshot!(replay_third(
        r#"{"index": null, "tool": "search", "args": {}, "response": {}}"#
    ));
}

#[test]
fn rejects_an_empty_tool_name() {
    assert_snapshot!(replay_third(
        r#"{"index": 2, "tool": "", "args": {}, "response": {}}"#
    ));
}

#[test]
fn rejects_a_numeric_tool_name() {
    assert_snapshot!(replay_third(
        r#"{"index": 2, "tool": 5, "args": {}, "response": {}}"#
    ));
}

#[test]
fn rejects_array_args() {
    assert_snapshot!(replay_third(
        r#"{"index": 2, "tool": "search", "args": [], "response": {}}"#
    ));
}

#[test]
fn rejects_null_args() {
    assert_snapshot!(replay_third(
        r#"{"index": 2, "tool": "search", "args": null, "response": {}}"#
    ));
}

#[test]
fn rejects_a_string_response() {
    assert_snapshot!(replay_third(
        r#"{"index": 2, "tool": "search", "args": {}, "response": "x"}"#
    ));
}

// --- index order

#[test]
fn rejects_an_index_ahead_of_its_place() {
    assert_snapshot!(replay_third(&record(7, "search", "{}", "{}")));
}

#[test]
fn rejects_a_repeated_index() {
    assert_snapshot!(replay_third(&record(1, "search", "{}", "{}")));
}

#[test]
fn rejects_a_negative_index() {
    assert_snapshot!(replay_third(
        r#"{"index": -1, "tool": "search", "args": {}, "response": {}}"#
    ));
}

#[test]
fn rejects_an_index_beyond_64_bits() {
    assert_snapshot!(replay_third(
        r#"{"index": 18446744073709551618, "tool": "search", "args": {}, "response": {}}"#
    ));
}

#[test]
fn rejects_a_first_record_not_at_index_0() {
    assert_snapshot!(replay(lines(&[&record(1, "search", "{}", "{}")])).text());
}

// --- duplicate keys

#[test]
fn rejects_a_duplicate_key_at_top_level() {
    assert_snapshot!(replay_third(
        r#"{"index": 2, "tool": "search", "tool": "search", "args": {}, "response": {}}"#
    ));
}

#[test]
fn rejects_a_duplicate_key_nested_deep() {
    assert_snapshot!(with_args(
        r#"{"a": [{"b": {"path": "x", "other": 1, "path": "y"}}]}"#
    ));
}

#[test]
fn rejects_a_duplicate_key_in_the_response() {
    assert_snapshot!(replay_third(&record(
        2,
        "search",
        "{}",
        r#"{"hits": 1, "hits": 1}"#
    )));
}

#[test]
fn rejects_a_duplicate_key_spelled_with_an_escape() {
    assert_snapshot!(with_args(r#"{"path": 1, "p\u0061th": 2}"#));
}

// --- numbers

#[test]
fn rejects_nan() {
    assert_snapshot!(with_args(r#"{"x": NaN}"#));
}

#[test]
fn rejects_infinity() {
    assert_snapshot!(with_args(r#"{"x": Infinity}"#));
}

#[test]
fn rejects_negative_infinity() {
    assert_snapshot!(with_args(r#"{"x": -Infinity}"#));
}

#[test]
fn rejects_a_number_too_large_for_a_float() {
    assert_snapshot!(with_args(r#"{"x": 1e400}"#));
}

#[test]
fn rejects_a_negative_number_too_large_for_a_float() {
    assert_snapshot!(with_args(r#"{"x": -1e400}"#));
}

#[test]
fn accepts_a_tiny_number_as_zero() {
    let content = after_two_records(&record(2, "search", r#"{"x": 1e-400}"#, "{}"));
    assert_snapshot!(
        "accepts_a_tiny_number_as_zero_replay",
        replay(&content).text()
    );
    // Sealed, it is written `0.0`.
    let sealed = run_on("seal", &content);
    assert_eq!(sealed.code, 0, "{}", sealed.text());
    let last = sealed.stdout.lines().last().expect("three links");
    assert!(last.starts_with(r#"{"args":{"x":0.0},"#), "{last}");
}

#[test]
fn accepts_an_integer_too_large_for_a_float() {
    assert_snapshot!(with_args(
        r#"{"x": 1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000}"#
    ));
}

// --- strings

#[test]
fn rejects_a_lone_high_surrogate() {
    assert_snapshot!(with_args(r#"{"x": "\ud800"}"#));
}

#[test]
fn rejects_a_lone_low_surrogate() {
    assert_snapshot!(with_args(r#"{"x": "\udc00"}"#));
}

#[test]
fn rejects_a_high_surrogate_followed_by_a_non_surrogate() {
    assert_snapshot!(with_args(r#"{"x": "\ud800\u0041"}"#));
}

#[test]
fn rejects_a_lone_surrogate_in_a_key() {
    assert_snapshot!(with_args(r#"{"\udc00": 1}"#));
}

#[test]
fn accepts_a_surrogate_pair() {
    assert_snapshot!(with_args(r#"{"x": "\ud83d\ude00"}"#));
}

#[test]
fn rejects_a_raw_control_character_in_a_string() {
    assert_snapshot!(with_args("{\"x\": \"a\tb\"}"));
}

// --- nesting

#[test]
fn accepts_nesting_of_128_levels() {
    assert_snapshot!(replay_third(&nested(128)));
}

#[test]
fn rejects_nesting_of_129_levels() {
    assert_snapshot!(replay_third(&nested(129)));
}

#[test]
fn rejects_nesting_of_129_levels_of_objects() {
    // The record (1), `response` (2), then 127 objects.
    let response = format!(r#"{}1{}"#, r#"{"a":"#.repeat(127), "}".repeat(127));
    let inner = format!("{{\"o\": {response}}}");
    assert_snapshot!(replay_third(&record(2, "search", "{}", &inner)));
}

// --- bytes and lines

#[test]
fn rejects_invalid_utf8() {
    let mut content = after_two_records("").into_bytes();
    content.pop(); // the LF of the empty third line
    content.extend_from_slice(
        b"{\"index\": 2, \"tool\": \"s\xffarch\", \"args\": {}, \"response\": {}}\n",
    );
    assert_snapshot!(replay(content).text());
}

#[test]
fn rejects_an_overlong_utf8_encoding() {
    let mut content = after_two_records("").into_bytes();
    content.pop();
    // `/` encoded in two bytes.
    content.extend_from_slice(
        b"{\"index\": 2, \"tool\": \"a\xc0\xafb\", \"args\": {}, \"response\": {}}\n",
    );
    assert_snapshot!(replay(content).text());
}

#[test]
fn accepts_crlf_line_ends() {
    let lf = after_two_records(&record(
        2,
        "read_file",
        r#"{"path": "a"}"#,
        r#"{"text": "A"}"#,
    ));
    let crlf = lf.replace('\n', "\r\n");
    let run = replay(&crlf);
    assert_eq!(run.text(), replay(&lf).text(), "CRLF and LF differ");
    assert_eq!(
        run_on("seal", &crlf).text(),
        run_on("seal", &lf).text(),
        "sealing CRLF and LF differ"
    );
    assert_snapshot!(run.text());
}

#[test]
fn accepts_a_byte_order_mark_at_the_start() {
    let content = format!(
        "\u{feff}{}",
        after_two_records(&record(2, "search", "{}", "{}"))
    );
    assert_snapshot!(replay(content).text());
}

#[test]
fn rejects_a_byte_order_mark_after_the_start() {
    assert_snapshot!(replay_third(&format!(
        "\u{feff}{}",
        record(2, "search", "{}", "{}")
    )));
}

#[test]
fn blank_lines_are_skipped_for_the_index_but_counted_for_line_numbers() {
    let content = [
        "\n",
        &record(0, "read_file", "{}", "{}"),
        "\n   \n\t\n \r\n\r\n",
        &record(1, "read_file", "{}", "{}"),
        "\n\n",
        &record(3, "search", "{}", "{}"),
        "\n",
    ]
    .concat();
    // Lines: 1 blank, 2 index 0, 3-6 blank, 7 index 1, 8 blank, 9 the bad index.
    assert_snapshot!(replay(content).text());
}

#[test]
fn blank_lines_between_valid_records_are_ignored() {
    let content = [
        " \t \r\n",
        &record(0, "read_file", "{}", "{}"),
        "\n\n\t\n",
        &record(1, "read_file", "{}", "{}"),
        "\n   ",
    ]
    .concat();
    assert_snapshot!(replay(content).text());
}

#[test]
fn rejects_a_line_of_other_whitespace() {
    // A form feed and a no-break space are not among the blanks (space, tab, CR).
    assert_snapshot!(
        "rejects_a_line_of_other_whitespace_form_feed",
        replay_third("\u{c}")
    );
    assert_snapshot!(
        "rejects_a_line_of_other_whitespace_no_break_space",
        replay_third("\u{a0}")
    );
}

#[test]
fn accepts_a_last_line_without_lf() {
    let content = after_two_records(&record(2, "search", "{}", "{}"));
    assert_snapshot!(replay(content.trim_end_matches('\n')).text());
}

#[test]
fn empty_file_has_no_calls() {
    assert_snapshot!(replay("").text());
}

#[test]
fn file_of_blank_lines_has_no_calls() {
    assert_snapshot!(replay("\n \n\t\r\n\r\n").text());
}

#[test]
fn the_first_error_is_the_one_reported() {
    let content = lines(&[
        &record(0, "read_file", "{}", "{}"),
        "not json",
        &record(5, "read_file", "{}", "{}"),
    ]);
    assert_snapshot!(replay(content).text());
}

#[test]
fn scope_and_seal_reject_a_transcript_as_replay_does() {
    let content = after_two_records(&record(2, "search", r#"{"path": 1, "path": 2}"#, "{}"));
    let dir = Dir::new();
    dir.write("t.jsonl", &content);
    dir.write("scope.json", r#"{"agent": "a", "allowed_tools": []}"#);
    let replay = dir.run(&["replay", "t.jsonl"]).text();
    let scope = dir.run(&["scope", "t.jsonl", "scope.json"]).text();
    let seal = dir.run(&["seal", "t.jsonl"]).text();
    assert_eq!(scope, replay);
    assert_eq!(seal, replay);
    assert_snapshot!(replay);
}
