//! Hostile inputs: each gets the right answer, within a bounded address space and
//! without a crash.
//!
//! The binary runs under `prlimit --as`, so going past the memory bound docs/robustness.md states
//! makes an allocation fail and the run abort, which fails the test.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use tempfile::TempDir;

const MIB: u64 = 1 << 20;

/// Runs the binary in `dir` with its address space limited to `limit` bytes.
fn run_limited(dir: &Path, limit: u64, args: &[&str]) -> Output {
    Command::new("prlimit")
        .arg(format!("--as={limit}"))
        .arg("--")
        .arg(assert_cmd::cargo::cargo_bin("toolreplay"))
        .args(args)
        .current_dir(dir)
        .env_clear()
        .stdin(Stdio::null())
        .output()
        .expect("prlimit runs the binary")
}

/// Exit code, stdout and stderr.
fn summary(output: &Output) -> (Option<i32>, String, String) {
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn record(index: usize, tool: &str, args: &str, response: &str) -> String {
    format!("{{\"index\":{index},\"tool\":\"{tool}\",\"args\":{args},\"response\":{response}}}\n")
}

#[test]
fn a_line_of_100_mb_is_read_in_bounded_memory() {
    let dir = TempDir::new().expect("temp dir");
    let big = "x".repeat(100 * MIB as usize);
    let mut text = record(
        0,
        "read_file",
        r#"{"path":"a"}"#,
        &format!("{{\"text\":\"{big}\"}}"),
    );
    text.push_str(&record(
        1,
        "read_file",
        r#"{"path":"a"}"#,
        r#"{"text":"short"}"#,
    ));
    fs::write(dir.path().join("t.jsonl"), text).expect("write");
    let output = run_limited(dir.path(), 1024 * MIB, &["replay", "t.jsonl"]);
    assert_eq!(
        summary(&output),
        (
            Some(1),
            "calls: 2\ndivergence: index 1\nfindings: 2\n\
             index 1: non-determinism: tool 'read_file' returned a different response than the identical call at index 0\n\
             index 1: redundant-call: tool 'read_file' repeats the identical call at index 0 with no state change between them\n"
                .to_owned(),
            String::new()
        )
    );
    let output = run_limited(
        dir.path(),
        1024 * MIB,
        &["seal", "-o", "s.jsonl", "t.jsonl"],
    );
    assert_eq!(summary(&output), (Some(0), String::new(), String::new()));
    let output = run_limited(dir.path(), 1024 * MIB, &["verify", "s.jsonl"]);
    assert_eq!(
        summary(&output),
        (Some(0), "chain: intact\n".to_owned(), String::new())
    );
}

#[test]
fn nesting_a_million_levels_deep_is_rejected_at_level_129() {
    let dir = TempDir::new().expect("temp dir");
    let depth = 1_000_000;
    let args = format!("{{\"a\":{}{}}}", "[".repeat(depth), "]".repeat(depth));
    fs::write(dir.path().join("t.jsonl"), record(0, "t", &args, "{}")).expect("write");
    let output = run_limited(dir.path(), 256 * MIB, &["replay", "t.jsonl"]);
    // The record is level 1, args level 2, so the 127th `[` is level 129.
    let column = r#"{"index":0,"tool":"t","args":{"a":"#.len() + 127;
    assert_eq!(
        summary(&output),
        (
            Some(2),
            String::new(),
            format!(
                "error: t.jsonl:1: nesting deeper than 128 levels of objects and arrays at column {column}\n"
            )
        )
    );
}

#[test]
fn ten_million_blank_lines_are_skipped_and_counted() {
    let dir = TempDir::new().expect("temp dir");
    let mut text = Vec::with_capacity(30 * MIB as usize);
    for i in 0..10_000_000 {
        text.extend_from_slice(if i % 2 == 0 { b"\n" } else { b" \t\r\n" });
    }
    text.extend_from_slice(record(0, "t", "{}", "{}").as_bytes());
    text.extend_from_slice(record(2, "t", "{}", "{}").as_bytes());
    fs::write(dir.path().join("t.jsonl"), text).expect("write");
    let output = run_limited(dir.path(), 256 * MIB, &["replay", "t.jsonl"]);
    assert_eq!(
        summary(&output),
        (
            Some(2),
            String::new(),
            "error: t.jsonl:10000002: index 2 out of order, expected 1\n".to_owned()
        )
    );
}

fn rejected(bytes: &[u8], command: &str, want: &str) {
    let dir = TempDir::new().expect("temp dir");
    fs::write(dir.path().join("t.jsonl"), bytes).expect("write");
    let output = run_limited(dir.path(), 256 * MIB, &[command, "t.jsonl"]);
    assert_eq!(
        summary(&output),
        (Some(2), String::new(), format!("{want}\n")),
        "{}",
        String::from_utf8_lossy(bytes)
    );
}

#[test]
fn invalid_utf8_in_a_string_is_rejected() {
    rejected(
        b"{\"index\":0,\"tool\":\"t\",\"args\":{\"p\":\"a\xff\"},\"response\":{}}\n",
        "replay",
        "error: t.jsonl:1: invalid UTF-8: byte 0xff at column 37",
    );
}

#[test]
fn invalid_utf8_in_a_key_is_rejected() {
    rejected(
        b"{\"index\":0,\"tool\":\"t\",\"args\":{},\"response\":{}}\n{\"index\":1,\"tool\":\"t\",\"args\":{\"\xc3\x28\":1},\"response\":{}}\n",
        "seal",
        "error: t.jsonl:2: invalid UTF-8: byte 0xc3 at column 32",
    );
}

#[test]
fn a_bom_in_the_middle_of_a_file_is_rejected() {
    rejected(
        b"{\"index\":0,\"tool\":\"t\",\"args\":{},\"response\":{}}\n\xef\xbb\xbf{\"index\":1,\"tool\":\"t\",\"args\":{},\"response\":{}}\n",
        "replay",
        "error: t.jsonl:2: invalid JSON: expected a JSON value, found U+FEFF at column 1",
    );
}

#[test]
fn nul_bytes_are_rejected() {
    rejected(
        b"{\"index\":0,\"tool\":\"t\",\"args\":{\"p\":\"a\0\"},\"response\":{}}\n",
        "replay",
        "error: t.jsonl:1: invalid JSON: control character in string (must be escaped), found U+0000 at column 37",
    );
    rejected(
        b"{\"index\":0,\"tool\":\"t\",\"args\":{},\"response\":{}}\0\n",
        "verify",
        "error: t.jsonl:1: invalid JSON: unexpected characters after the JSON value, found U+0000 at column 47",
    );
}

#[test]
fn a_directory_is_not_a_transcript() {
    // seal reads one transcript; replay and verify walk a folder, and an empty one
    // is an error.
    let dir = TempDir::new().expect("temp dir");
    fs::create_dir(dir.path().join("d")).expect("mkdir");
    for (command, error) in [
        ("replay", "error: d: a folder with no file to audit\n"),
        ("seal", "error: d: is a directory\n"),
        ("verify", "error: d: a folder with no file to audit\n"),
    ] {
        let output = run_limited(dir.path(), 256 * MIB, &[command, "d"]);
        assert_eq!(
            summary(&output),
            (Some(2), String::new(), error.to_owned()),
            "{command}"
        );
    }
}

#[test]
fn a_missing_file_is_an_error() {
    let dir = TempDir::new().expect("temp dir");
    let output = run_limited(dir.path(), 256 * MIB, &["verify", "nope.jsonl"]);
    assert_eq!(
        summary(&output),
        (
            Some(2),
            String::new(),
            "error: nope.jsonl: no such file or directory\n".to_owned()
        )
    );
}

#[test]
fn an_unreadable_file_is_an_error() {
    // /proc/self/mem opens, but reading at offset 0 fails, for root too.
    let dir = TempDir::new().expect("temp dir");
    let output = run_limited(dir.path(), 256 * MIB, &["replay", "/proc/self/mem"]);
    assert_eq!(
        summary(&output),
        (
            Some(2),
            String::new(),
            "error: /proc/self/mem: input/output error\n".to_owned()
        )
    );
}

#[test]
fn a_fifo_is_read_as_a_stream() {
    let dir = TempDir::new().expect("temp dir");
    let status = Command::new("mkfifo")
        .arg(dir.path().join("pipe"))
        .status()
        .expect("mkfifo");
    assert!(status.success());
    let child = Command::new(assert_cmd::cargo::cargo_bin("toolreplay"))
        .args(["replay", "pipe"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut writer = fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join("pipe"))
        .expect("open the FIFO for writing");
    for i in 0..3 {
        writer
            .write_all(record(i, "read_file", r#"{"path":"a"}"#, "{}").as_bytes())
            .expect("write");
    }
    drop(writer);
    let output = child.wait_with_output().expect("wait");
    assert_eq!(
        summary(&output),
        (
            Some(1),
            "calls: 3\ndivergence: none\nfindings: 2\n\
             index 1: redundant-call: tool 'read_file' repeats the identical call at index 0 with no state change between them\n\
             index 2: redundant-call: tool 'read_file' repeats the identical call at index 1 with no state change between them\n"
                .to_owned(),
            String::new()
        )
    );
}

#[test]
fn digest_fields_of_a_megabyte_break_the_chain_where_they_are() {
    let dir = TempDir::new().expect("temp dir");
    fs::write(dir.path().join("t.jsonl"), record(0, "t", "{}", "{}")).expect("write");
    let sealed = run_limited(dir.path(), 256 * MIB, &["seal", "t.jsonl"]);
    assert_eq!(sealed.status.code(), Some(0));
    let sealed = String::from_utf8(sealed.stdout).expect("ASCII");
    let long = "f".repeat(MIB as usize);
    let digest = sealed
        .split("\"digest\":\"")
        .nth(1)
        .and_then(|rest| rest.get(..64))
        .expect("a digest")
        .to_owned();
    // A long digest: the first link is broken, found is the whole field.
    let edited = sealed.replace(&digest, &long);
    fs::write(dir.path().join("d.jsonl"), &edited).expect("write");
    let output = run_limited(dir.path(), 256 * MIB, &["verify", "d.jsonl"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("chain: broken\nfirst broken link: index 0\nexpected: {digest}\nfound: {long}\n")
    );
    // A long prev: broken at the first link, expected is the zeros.
    let edited = sealed.replace(&"0".repeat(64), &long);
    fs::write(dir.path().join("p.jsonl"), &edited).expect("write");
    let output = run_limited(dir.path(), 256 * MIB, &["verify", "p.jsonl"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!(
            "chain: broken\nfirst broken link: index 0\nexpected: {}\nfound: {long}\n",
            "0".repeat(64)
        )
    );
}
