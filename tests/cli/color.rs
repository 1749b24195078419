//! `--color auto|always|never` and `NO_COLOR`: colour only on request or on a
//! terminal, and redirected output byte-exact; no progress indicator off a terminal.

use super::{Dir, ROOT, record, run_in_root, run_with_env};

const DIRTY: [&str; 2] = ["replay", "samples/session-dirty.jsonl"];

fn with(args: &[&'static str], extra: &[&'static str]) -> Vec<&'static str> {
    let mut args = args.to_vec();
    args.extend_from_slice(extra);
    args
}

#[test]
fn always_colours_the_kinds_of_findings() {
    let run = run_in_root(&with(&DIRTY, &["--color", "always"]));
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stdout,
        "calls: 6\n\
         divergence: index 5\n\
         findings: 2\n\
         index 2: \x1b[1;36mredundant-call\x1b[0m: tool 'read_file' repeats the identical call at index 1 with no state change between them\n\
         index 5: \x1b[1;33mnon-determinism\x1b[0m: tool 'search' returned a different response than the identical call at index 3\n"
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn always_colours_scope_findings_and_verify_verdicts() {
    let scope = run_in_root(&[
        "--color",
        "always",
        "scope",
        "samples/session-dirty.jsonl",
        "samples/scope.json",
    ]);
    assert_eq!(
        scope.stdout,
        "calls: 6\nfindings: 1\nindex 4: \x1b[1;31mpermission-overreach\x1b[0m: tool 'write_file' is not in the declared scope for agent 'docs-reader'\n"
    );
    let intact = run_in_root(&[
        "verify",
        "samples/session-dirty.sealed.jsonl",
        "--color",
        "always",
    ]);
    assert_eq!(intact.stdout, "chain: \x1b[32mintact\x1b[0m\n");
    let broken = run_in_root(&[
        "verify",
        "samples/session-dirty.tampered.jsonl",
        "--color=always",
    ]);
    assert!(
        broken
            .stdout
            .starts_with("chain: \x1b[1;31mbroken\x1b[0m\nfirst broken link: index 3\n")
    );
}

#[test]
fn always_wins_over_no_color() {
    let run = run_with_env(
        std::path::Path::new(ROOT),
        &with(&DIRTY, &["--color", "always"]),
        &[("NO_COLOR", "1")],
    );
    assert!(run.stdout.contains("\x1b[1;36mredundant-call\x1b[0m"));
}

#[test]
fn auto_and_never_leave_redirected_output_byte_exact() {
    let plain = run_in_root(&DIRTY);
    assert!(!plain.stdout.contains('\x1b'));
    for extra in [&["--color", "auto"][..], &["--color", "never"]] {
        assert_eq!(run_in_root(&with(&DIRTY, extra)).text(), plain.text());
    }
    let no_color = run_with_env(std::path::Path::new(ROOT), &DIRTY, &[("NO_COLOR", "1")]);
    assert_eq!(no_color.text(), plain.text());
}

#[test]
fn json_and_sarif_are_never_coloured() {
    for format in ["json", "sarif"] {
        let coloured = run_in_root(&with(&DIRTY, &["--color", "always", "--format", format]));
        let plain = run_in_root(&with(&DIRTY, &["--format", format]));
        assert_eq!(coloured.text(), plain.text(), "{format}");
    }
}

#[test]
fn an_unknown_color_is_a_usage_error() {
    let run = run_in_root(&with(&DIRTY, &["--color", "sometimes"]));
    insta::assert_snapshot!(run.text());
}

#[test]
fn no_progress_indicator_when_stderr_is_not_a_terminal() {
    // About 40 MB, which takes well over a second to read in a debug build: on a
    // terminal the indicator would show.
    let dir = Dir::new();
    let response = format!(r#"{{"text": "{}"}}"#, "x".repeat(4000));
    let mut text = String::with_capacity(41 << 20);
    for index in 0..10_000 {
        text.push_str(&record(
            index,
            "read_file",
            &format!(r#"{{"i": {index}}}"#),
            &response,
        ));
        text.push('\n');
    }
    dir.write("big.jsonl", text);
    for command in ["replay", "verify"] {
        let run = dir.run(&[command, "big.jsonl"]);
        if command == "replay" {
            assert_eq!(
                run.text(),
                "exit: 0\n--- stdout\ncalls: 10000\ndivergence: none\nfindings: 0\n--- stderr\n"
            );
        } else {
            assert_eq!(run.code, 2);
            assert_eq!(
                run.stderr,
                "error: big.jsonl:1: missing field \"prev\": not a sealed transcript; seal it first (toolreplay seal big.jsonl -o sealed.jsonl)\n"
            );
        }
    }
    let run = dir.run(&["seal", "big.jsonl", "-o", "sealed.jsonl"]);
    assert_eq!(run.text(), "exit: 0\n--- stdout\n--- stderr\n");
}

#[test]
fn always_colours_the_verdict_of_diff() {
    let same = run_in_root(&["diff", "--color", "always", DIRTY[1], DIRTY[1]]);
    assert_eq!(same.stdout, "runs: \x1b[32msame\x1b[0m\ncalls: 6\n");
    let differ = run_in_root(&[
        "--color",
        "always",
        "diff",
        DIRTY[1],
        "samples/session-clean.jsonl",
    ]);
    assert!(
        differ
            .stdout
            .starts_with("runs: \x1b[1;31mdiffer\x1b[0m\ncalls: 6 and 4\n")
    );
}

/// With stderr on a terminal (a pseudo-terminal made by `script`), reading for more
/// than a second draws the indicator there, erases it at the end, and stdout (a
/// file) holds the report alone.
#[test]
fn progress_indicator_on_a_terminal_stays_on_stderr() {
    use std::io::Write;
    use std::process::{Command, Stdio};

    let dir = Dir::new();
    let fifo = dir.path().join("in.jsonl");
    let status = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(status.success());
    let bin = env!("CARGO_BIN_EXE_toolreplay");
    let child = Command::new("script")
        .args([
            "-qec",
            &format!("{bin} replay in.jsonl > out.txt"),
            "/dev/null",
        ])
        .current_dir(dir.path())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("TERM", "xterm")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script runs the binary on a pseudo-terminal");
    let response = format!(r#"{{"text": "{}"}}"#, "x".repeat(1000));
    let batch = |from: u64| -> String {
        (from..from + 2000)
            .map(|i| {
                format!(
                    "{}\n",
                    record(i, "read_file", &format!(r#"{{"i": {i}}}"#), &response)
                )
            })
            .collect()
    };
    let mut input = std::fs::OpenOptions::new()
        .write(true)
        .open(&fifo)
        .expect("open the FIFO");
    input.write_all(batch(0).as_bytes()).expect("first batch");
    std::thread::sleep(std::time::Duration::from_millis(1300));
    input
        .write_all(batch(2000).as_bytes())
        .expect("second batch");
    drop(input);
    let output = child.wait_with_output().expect("script ends");
    assert_eq!(output.status.code(), Some(0));
    let terminal = String::from_utf8_lossy(&output.stdout);
    assert!(
        terminal.contains("\r\x1b[Kreading in.jsonl: ") && terminal.contains(" MiB"),
        "{terminal:?}"
    );
    assert!(
        terminal.ends_with("\r\x1b[K"),
        "erased at the end: {terminal:?}"
    );
    assert_eq!(
        String::from_utf8(dir.read("out.txt")).expect("UTF-8"),
        "calls: 4000\ndivergence: none\nfindings: 0\n"
    );
}

#[test]
fn always_colours_every_kind_of_policy_finding() {
    // The policy sample has a finding of every kind a policy adds, and one overreach.
    let run = run_in_root(&[
        "--color",
        "always",
        "scope",
        "samples/session-policy.jsonl",
        "samples/policy.json",
    ]);
    assert_eq!(run.code, 1);
    insta::assert_snapshot!(run.text());
}

#[test]
fn always_colours_the_verdicts_of_diff() {
    let same = run_in_root(&[
        "diff",
        "samples/session-dirty.jsonl",
        "samples/session-dirty.sealed.jsonl",
        "--color",
        "always",
    ]);
    assert_eq!(same.stdout, "runs: \x1b[32msame\x1b[0m\ncalls: 6\n");
    let differ = run_in_root(&[
        "diff",
        "samples/session-clean.jsonl",
        "samples/session-dirty.jsonl",
        "--color",
        "always",
    ]);
    assert!(
        differ.stdout.starts_with("runs: \x1b[1;31mdiffer\x1b[0m\n"),
        "{}",
        differ.stdout
    );
}
