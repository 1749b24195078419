//! `toolreplay seal` (spec section 5): empty input, no partial chain on error, and
//! `--output`, written atomically.

use insta::assert_snapshot;

use super::{Dir, lines, record, run_on};

/// Three valid records.
fn three_records() -> String {
    lines(&[
        &record(0, "read_file", r#"{"path": "a"}"#, r#"{"text": "A"}"#),
        &record(
            1,
            "write_file",
            r#"{"path": "a", "text": "B"}"#,
            r#"{"ok": true}"#,
        ),
        &record(2, "read_file", r#"{"path": "a"}"#, r#"{"text": "B"}"#),
    ])
}

/// Three valid records, then a record with an unknown field on line 4.
fn error_on_last_line() -> String {
    let mut content = three_records();
    content
        .push_str(r#"{"index": 3, "tool": "read_file", "args": {}, "response": {}, "extra": 1}"#);
    content.push('\n');
    content
}

#[test]
fn seal_of_an_empty_transcript_is_empty() {
    assert_snapshot!(run_on("seal", "").text());
}

#[test]
fn seal_of_blank_lines_is_empty() {
    assert_snapshot!(run_on("seal", "\n  \n\t\r\n").text());
}

#[test]
fn seal_of_three_records() {
    assert_snapshot!(run_on("seal", three_records()).text());
}

#[test]
fn seal_writes_canonical_links() {
    // Non-ASCII, escapes, floats and big integers come out canonical.
    let content = lines(&[&record(
        0,
        "caf\\u00e9",
        r#"{"z": "é😀/", "a": [1.5e-7, 1e16, 100, 1E2, -0, 18446744073709551623], "m": "\"\\\n\t\u0001\u007f"}"#,
        r#"{"b": null, "a": true}"#,
    )]);
    assert_snapshot!(run_on("seal", content).text());
}

#[test]
fn seal_with_an_error_on_the_last_line_writes_nothing() {
    assert_snapshot!(run_on("seal", error_on_last_line()).text());
}

#[test]
fn seal_of_a_large_transcript_with_an_error_on_the_last_line_writes_nothing() {
    // More sealed output than the binary keeps in memory.
    let mut content = String::new();
    let count = 60_000;
    for index in 0..count {
        content.push_str(&record(
            index,
            "read_file",
            &format!(r#"{{"path": "docs/page-{index}.md"}}"#),
            r#"{"text": "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt."}"#,
        ));
        content.push('\n');
    }
    content.push_str("{\"index\": 60000}\n");
    let run = run_on("seal", content);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout.len(), 0, "seal wrote a partial chain");
    assert_snapshot!(run.text());
}

#[test]
fn seal_output_writes_the_file_and_nothing_else() {
    let dir = Dir::new();
    dir.write("t.jsonl", three_records());
    let to_stdout = dir.run(&["seal", "t.jsonl"]);
    let run = dir.run(&["seal", "t.jsonl", "-o", "out.jsonl"]);
    assert_snapshot!(run.text());
    assert_eq!(
        String::from_utf8(dir.read("out.jsonl")).unwrap(),
        to_stdout.stdout
    );
    assert_eq!(dir.entries(), ["out.jsonl", "t.jsonl"]);
}

#[test]
fn seal_long_output_option_writes_the_file() {
    let dir = Dir::new();
    dir.write("t.jsonl", three_records());
    let to_stdout = dir.run(&["seal", "t.jsonl"]);
    let run = dir.run(&["seal", "--output", "out.jsonl", "t.jsonl"]);
    assert_eq!(run.text(), "exit: 0\n--- stdout\n--- stderr\n");
    assert_eq!(
        String::from_utf8(dir.read("out.jsonl")).unwrap(),
        to_stdout.stdout
    );
    assert_eq!(dir.entries(), ["out.jsonl", "t.jsonl"]);
}

#[test]
fn seal_output_replaces_an_existing_file() {
    let dir = Dir::new();
    dir.write("t.jsonl", three_records());
    dir.write("out.jsonl", "old content\n");
    let to_stdout = dir.run(&["seal", "t.jsonl"]);
    let run = dir.run(&["seal", "t.jsonl", "-o", "out.jsonl"]);
    assert_eq!(run.text(), "exit: 0\n--- stdout\n--- stderr\n");
    assert_eq!(
        String::from_utf8(dir.read("out.jsonl")).unwrap(),
        to_stdout.stdout
    );
    assert_eq!(dir.entries(), ["out.jsonl", "t.jsonl"]);
}

#[test]
fn seal_output_of_an_empty_transcript_writes_an_empty_file() {
    let dir = Dir::new();
    dir.write("t.jsonl", "");
    dir.write("out.jsonl", "old content\n");
    let run = dir.run(&["seal", "t.jsonl", "-o", "out.jsonl"]);
    assert_eq!(run.text(), "exit: 0\n--- stdout\n--- stderr\n");
    assert_eq!(dir.read("out.jsonl"), b"");
    assert_eq!(dir.entries(), ["out.jsonl", "t.jsonl"]);
}

#[test]
fn seal_output_leaves_an_existing_file_untouched_on_error() {
    let dir = Dir::new();
    dir.write("t.jsonl", error_on_last_line());
    dir.write("out.jsonl", "old content\n");
    let run = dir.run(&["seal", "t.jsonl", "-o", "out.jsonl"]);
    assert_snapshot!(run.text());
    assert_eq!(dir.read("out.jsonl"), b"old content\n");
    assert_eq!(
        dir.entries(),
        ["out.jsonl", "t.jsonl"],
        "a temporary file was left"
    );
}

#[test]
fn seal_output_creates_no_file_on_error() {
    let dir = Dir::new();
    dir.write("t.jsonl", error_on_last_line());
    let run = dir.run(&["seal", "t.jsonl", "-o", "out.jsonl"]);
    assert_snapshot!(run.text());
    assert_eq!(dir.entries(), ["t.jsonl"], "a file was left");
}

#[test]
fn seal_output_creates_no_file_when_the_input_is_missing() {
    let dir = Dir::new();
    let run = dir.run(&["seal", "missing.jsonl", "-o", "out.jsonl"]);
    assert_snapshot!(run.text());
    assert_eq!(dir.entries(), Vec::<String>::new(), "a file was left");
}

#[test]
fn seal_output_into_a_missing_directory_is_an_error() {
    let dir = Dir::new();
    dir.write("t.jsonl", three_records());
    let run = dir.run(&["seal", "t.jsonl", "-o", "nowhere/out.jsonl"]);
    assert_snapshot!(run.text());
    assert_eq!(dir.entries(), ["t.jsonl"]);
}

#[test]
fn seal_output_to_a_directory_is_an_error() {
    let dir = Dir::new();
    dir.write("t.jsonl", three_records());
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let run = dir.run(&["seal", "t.jsonl", "-o", "out"]);
    assert_snapshot!(run.text());
    assert_eq!(dir.entries(), ["out", "t.jsonl"]);
}

#[test]
fn seal_output_over_its_own_input_seals_it() {
    let dir = Dir::new();
    dir.write("t.jsonl", three_records());
    let to_stdout = dir.run(&["seal", "t.jsonl"]);
    let run = dir.run(&["seal", "t.jsonl", "-o", "t.jsonl"]);
    assert_eq!(run.text(), "exit: 0\n--- stdout\n--- stderr\n");
    assert_eq!(
        String::from_utf8(dir.read("t.jsonl")).unwrap(),
        to_stdout.stdout
    );
    assert_eq!(dir.entries(), ["t.jsonl"]);
}
