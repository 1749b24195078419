//! `-` as FILE reads standard input, for every command; errors then name `<stdin>`.

use insta::assert_snapshot;

use super::{Dir, ROOT, lines, record, run_in_root, run_with_stdin};

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(format!("{ROOT}/samples/{name}")).expect("sample")
}

fn in_root(args: &[&str], stdin: Vec<u8>) -> super::Run {
    run_with_stdin(std::path::Path::new(ROOT), args, stdin)
}

#[test]
fn replay_of_stdin_is_the_report_of_the_file() {
    let piped = in_root(&["replay", "-"], sample("session-dirty.jsonl"));
    let file = run_in_root(&["replay", "samples/session-dirty.jsonl"]);
    assert_eq!(piped.text(), file.text());
    assert_snapshot!(piped.text());
}

#[test]
fn replay_of_stdin_in_json_names_it_stdin() {
    let run = in_root(
        &["replay", "-", "--format", "json"],
        sample("session-clean.jsonl"),
    );
    assert_snapshot!(run.text());
}

#[test]
fn scope_with_the_transcript_on_stdin() {
    let run = in_root(
        &["scope", "-", "samples/scope.json"],
        sample("session-dirty.jsonl"),
    );
    assert_snapshot!(run.text());
}

#[test]
fn scope_with_the_scope_file_on_stdin() {
    let run = in_root(
        &["scope", "samples/session-dirty.jsonl", "-"],
        sample("scope.json"),
    );
    assert_eq!(
        run.text(),
        run_in_root(&["scope", "samples/session-dirty.jsonl", "samples/scope.json"]).text()
    );
}

#[test]
fn scope_with_both_on_stdin_is_a_usage_error() {
    let run = in_root(&["scope", "-", "-"], sample("scope.json"));
    assert_snapshot!(run.text());
}

#[test]
fn seal_of_stdin_is_the_sealed_sample() {
    let run = in_root(&["seal", "-"], sample("session-dirty.jsonl"));
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout.as_bytes(), sample("session-dirty.sealed.jsonl"));
    assert_eq!(run.stderr, "");
}

#[test]
fn seal_of_bad_stdin_writes_nothing_and_names_stdin() {
    let input = lines(&[&record(0, "a", "{}", "{}"), &record(2, "a", "{}", "{}")]);
    let run = run_with_stdin(Dir::new().path(), &["seal", "-"], input);
    assert_snapshot!(run.text());
}

#[test]
fn seal_of_bad_stdin_to_a_file_leaves_no_file() {
    let dir = Dir::new();
    let input = lines(&[&record(0, "a", "{}", "{}"), "nope"]);
    let run = run_with_stdin(dir.path(), &["seal", "-", "-o", "out.jsonl"], input);
    assert_snapshot!(run.text());
    assert!(dir.entries().is_empty(), "{:?}", dir.entries());
}

#[test]
fn seal_of_stdin_to_a_file() {
    let dir = Dir::new();
    let run = run_with_stdin(
        dir.path(),
        &["seal", "-", "-o", "out.jsonl"],
        sample("session-dirty.jsonl"),
    );
    assert_eq!(run.text(), "exit: 0\n--- stdout\n--- stderr\n");
    assert_eq!(dir.read("out.jsonl"), sample("session-dirty.sealed.jsonl"));
}

#[test]
fn verify_of_stdin() {
    let run = in_root(&["verify", "-"], sample("session-dirty.tampered.jsonl"));
    assert_snapshot!(run.text());
}

#[test]
fn verify_of_bad_stdin_names_stdin() {
    let run = in_root(&["verify", "-"], sample("session-dirty.jsonl"));
    assert_snapshot!(run.text());
}

#[test]
fn empty_stdin_is_an_empty_transcript() {
    let run = run_with_stdin(Dir::new().path(), &["replay", "-"], "");
    assert_snapshot!(run.text());
}

#[test]
fn head_of_stdin_is_the_head_of_the_file() {
    let piped = in_root(&["head", "-"], sample("session-dirty.sealed.jsonl"));
    let file = run_in_root(&["head", "samples/session-dirty.sealed.jsonl"]);
    assert_eq!(piped.text(), file.text());
    assert_snapshot!(piped.text());
}

#[test]
fn append_takes_the_new_records_from_stdin() {
    let dir = Dir::new();
    dir.write("sealed.jsonl", sample("session-dirty.sealed.jsonl"));
    let new = record(6, "list_dir", r#"{"path":"src"}"#, r#"{"entries":[]}"#);
    let run = run_with_stdin(
        dir.path(),
        &["seal", "--append", "sealed.jsonl", "-"],
        new.clone(),
    );
    assert_snapshot!(run.text());
    // The same bytes as sealing the whole transcript at once.
    let mut whole = sample("session-dirty.jsonl");
    whole.extend_from_slice(new.as_bytes());
    let sealed_at_once = run_with_stdin(dir.path(), &["seal", "-"], whole);
    assert_eq!(
        String::from_utf8(dir.read("sealed.jsonl")).expect("ASCII"),
        sealed_at_once.stdout
    );
}

#[test]
fn append_to_stdin_is_a_usage_error() {
    let run = in_root(
        &["seal", "--append", "-", "samples/session-clean.jsonl"],
        sample("session-dirty.sealed.jsonl"),
    );
    assert_snapshot!(run.text());
}

#[test]
fn sign_of_stdin_is_a_usage_error() {
    let run = in_root(
        &["sign", "-", "--key", "no-such-key"],
        sample("session-dirty.sealed.jsonl"),
    );
    assert_snapshot!(run.text());
}
