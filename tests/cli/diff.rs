//! `toolreplay diff A B`: identical, edited, truncated and re-ordered runs, plain
//! and sealed, and bad input.

use insta::assert_snapshot;

use super::{Dir, ROOT, lines, record, run_in_root, run_with_stdin};

const DIRTY: &str = "samples/session-dirty.jsonl";

/// A directory holding `a.jsonl` (the dirty sample) and `b.jsonl` (`b`).
fn with_b(b: impl AsRef<[u8]>) -> Dir {
    let dir = Dir::new();
    dir.write(
        "a.jsonl",
        std::fs::read(format!("{ROOT}/{DIRTY}")).expect("sample"),
    );
    dir.write("b.jsonl", b);
    dir
}

fn sample_lines() -> Vec<String> {
    std::fs::read_to_string(format!("{ROOT}/{DIRTY}"))
        .expect("sample")
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn identical_runs_are_the_same() {
    assert_snapshot!(run_in_root(&["diff", DIRTY, DIRTY]).text());
}

#[test]
fn a_run_and_its_sealed_form_are_the_same() {
    let run = run_in_root(&["diff", DIRTY, "samples/session-dirty.sealed.jsonl"]);
    assert_eq!(
        run.text(),
        "exit: 0\n--- stdout\nruns: same\ncalls: 6\n--- stderr\n"
    );
}

#[test]
fn sealed_runs_are_compared_by_record_ignoring_the_chain() {
    // The tampered link's record differs; its prev and digest are not looked at.
    let run = run_in_root(&[
        "diff",
        "samples/session-dirty.sealed.jsonl",
        "samples/session-dirty.tampered.jsonl",
    ]);
    assert_snapshot!(run.text());
}

#[test]
fn key_order_and_spacing_do_not_count() {
    let b: Vec<String> = sample_lines()
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("record");
            serde_json::to_string_pretty(&v)
                .expect("json")
                .replace('\n', "")
        })
        .collect();
    let dir = with_b(format!("\n\n{}\n", b.join("\n")));
    let run = dir.run(&["diff", "a.jsonl", "b.jsonl"]);
    assert_eq!(
        run.text(),
        "exit: 0\n--- stdout\nruns: same\ncalls: 6\n--- stderr\n"
    );
}

#[test]
fn an_edited_query_changes_args_and_response() {
    let mut b = sample_lines();
    b[3] = b[3].replace("install", "setup");
    let dir = with_b(lines(&b.iter().map(String::as_str).collect::<Vec<_>>()));
    // The args and the response of index 3 both hold "install".
    assert_snapshot!(dir.run(&["diff", "a.jsonl", "b.jsonl"]).text());
}

#[test]
fn an_edited_response_only() {
    let dir = Dir::new();
    dir.write(
        "a.jsonl",
        lines(&[&record(0, "t", r#"{"x": 1}"#, r#"{"r": 1}"#)]),
    );
    dir.write(
        "b.jsonl",
        lines(&[&record(0, "t", r#"{"x": 1}"#, r#"{"r": 1.0}"#)]),
    );
    assert_snapshot!(dir.run(&["diff", "a.jsonl", "b.jsonl"]).text());
}

#[test]
fn an_edited_tool_is_named() {
    let dir = Dir::new();
    dir.write(
        "a.jsonl",
        lines(&[&record(0, "read", "{}", "{}"), &record(1, "x", "{}", "{}")]),
    );
    dir.write(
        "b.jsonl",
        lines(&[
            &record(0, "read", "{}", "{}"),
            &record(1, "y'\\n", "{}", "{}"),
        ]),
    );
    assert_snapshot!(dir.run(&["diff", "a.jsonl", "b.jsonl"]).text());
}

#[test]
fn a_truncated_run_ends_early() {
    let b = sample_lines();
    let dir = with_b(lines(
        &b[..4].iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    assert_snapshot!(dir.run(&["diff", "a.jsonl", "b.jsonl"]).text());
    assert_snapshot!(dir.run(&["diff", "b.jsonl", "a.jsonl"]).text());
}

#[test]
fn an_empty_run_against_a_run() {
    let dir = with_b("");
    assert_snapshot!(dir.run(&["diff", "b.jsonl", "a.jsonl"]).text());
}

#[test]
fn reordered_runs_differ_at_the_first_swapped_call() {
    // Swap calls 1 and 3, renumbering the indices.
    let mut b = sample_lines();
    b.swap(1, 3);
    b[1] = b[1].replace("\"index\": 3", "\"index\": 1");
    b[3] = b[3].replace("\"index\": 1", "\"index\": 3");
    let dir = with_b(lines(&b.iter().map(String::as_str).collect::<Vec<_>>()));
    assert_snapshot!(dir.run(&["diff", "a.jsonl", "b.jsonl"]).text());
}

#[test]
fn standard_input_as_either_run() {
    let sample = std::fs::read(format!("{ROOT}/{DIRTY}")).expect("sample");
    let root = std::path::Path::new(ROOT);
    let run = run_with_stdin(root, &["diff", "-", DIRTY], sample.clone());
    assert_eq!(
        run.text(),
        "exit: 0\n--- stdout\nruns: same\ncalls: 6\n--- stderr\n"
    );
    let run = run_with_stdin(
        root,
        &["diff", "samples/session-clean.jsonl", "-"],
        sample.clone(),
    );
    assert_eq!(run.code, 1);
    assert_snapshot!(run_with_stdin(root, &["diff", "-", "-"], sample).text());
}

#[test]
fn bad_input_in_either_run_is_an_error_even_after_a_difference() {
    let dir = Dir::new();
    dir.write(
        "a.jsonl",
        lines(&[&record(0, "x", "{}", "{}"), &record(1, "x", "{}", "{}")]),
    );
    dir.write(
        "b.jsonl",
        lines(&[&record(0, "y", "{}", "{}"), &record(2, "x", "{}", "{}")]),
    );
    assert_snapshot!(dir.run(&["diff", "a.jsonl", "b.jsonl"]).text());
    assert_snapshot!(dir.run(&["diff", "a.jsonl", "missing.jsonl"]).text());
}

#[test]
fn a_sealed_file_is_read_with_the_strictness_of_verify() {
    let dir = Dir::new();
    let sealed = run_in_root(&["seal", "samples/session-clean.jsonl"]).stdout;
    let mut links: Vec<&str> = sealed.lines().collect();
    links[2] = r#"{"index": 2, "tool": "x", "args": {}, "response": {}}"#;
    dir.write("s.jsonl", lines(&links));
    dir.write(
        "a.jsonl",
        std::fs::read(format!("{ROOT}/samples/session-clean.jsonl")).expect("sample"),
    );
    assert_snapshot!(dir.run(&["diff", "a.jsonl", "s.jsonl"]).text());
}
