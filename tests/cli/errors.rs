//! What stops a command (spec section 8): missing and unreadable files, bad
//! arguments, and standard output that goes away or fills up.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};

use insta::assert_snapshot;

use super::{Dir, ROOT, lines, record, run_in_root};

/// A `std::process::Command` for the binary in `dir`, the environment cleared apart
/// from `PATH`.
fn command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolreplay"));
    command.env_clear();
    if let Some(path) = std::env::var_os("PATH") {
        command.env("PATH", path);
    }
    command.current_dir(dir).args(args);
    command
}

/// A directory holding a valid transcript `t.jsonl`, a scope `scope.json` and a
/// directory `d`.
fn workspace() -> Dir {
    let dir = Dir::new();
    dir.write("t.jsonl", lines(&[&record(0, "read_file", "{}", "{}")]));
    dir.write("scope.json", r#"{"agent": "a", "allowed_tools": []}"#);
    std::fs::create_dir(dir.path().join("d")).expect("create directory");
    dir
}

// --- missing files and directories

#[test]
fn replay_of_a_missing_file() {
    assert_snapshot!(workspace().run(&["replay", "missing.jsonl"]).text());
}

#[test]
fn scope_of_a_missing_transcript() {
    assert_snapshot!(
        workspace()
            .run(&["scope", "missing.jsonl", "scope.json"])
            .text()
    );
}

#[test]
fn scope_with_a_missing_scope_file() {
    assert_snapshot!(
        workspace()
            .run(&["scope", "t.jsonl", "missing.json"])
            .text()
    );
}

#[test]
fn seal_of_a_missing_file() {
    assert_snapshot!(workspace().run(&["seal", "missing.jsonl"]).text());
}

#[test]
fn verify_of_a_missing_file() {
    assert_snapshot!(workspace().run(&["verify", "missing.jsonl"]).text());
}

#[test]
fn replay_of_a_directory() {
    assert_snapshot!(workspace().run(&["replay", "d"]).text());
}

#[test]
fn scope_of_a_directory() {
    assert_snapshot!(workspace().run(&["scope", "d", "scope.json"]).text());
}

#[test]
fn scope_with_a_directory_as_scope_file() {
    assert_snapshot!(workspace().run(&["scope", "t.jsonl", "d"]).text());
}

#[test]
fn seal_of_a_directory() {
    assert_snapshot!(workspace().run(&["seal", "d"]).text());
}

#[test]
fn verify_of_a_directory() {
    assert_snapshot!(workspace().run(&["verify", "d"]).text());
}

// --- bad arguments

#[test]
fn no_subcommand_is_a_usage_error() {
    assert_snapshot!(run_in_root(&[]).text());
}

#[test]
fn unknown_subcommand_is_a_usage_error() {
    assert_snapshot!(run_in_root(&["audit", "samples/session-dirty.jsonl"]).text());
}

#[test]
fn replay_without_file_is_a_usage_error() {
    assert_snapshot!(run_in_root(&["replay"]).text());
}

#[test]
fn scope_without_scope_file_is_a_usage_error() {
    assert_snapshot!(run_in_root(&["scope", "samples/session-dirty.jsonl"]).text());
}

#[test]
fn seal_without_file_is_a_usage_error() {
    assert_snapshot!(run_in_root(&["seal"]).text());
}

#[test]
fn verify_without_file_is_a_usage_error() {
    assert_snapshot!(run_in_root(&["verify"]).text());
}

#[test]
fn mutating_tool_without_name_is_a_usage_error() {
    assert_snapshot!(
        run_in_root(&["replay", "samples/session-dirty.jsonl", "--mutating-tool"]).text()
    );
}

#[test]
fn unknown_option_is_a_usage_error() {
    // `--strict` was the unknown option here until it came with `--from`.
    assert_snapshot!(run_in_root(&["replay", "samples/session-dirty.jsonl", "--lenient"]).text());
}

#[test]
fn extra_argument_is_a_usage_error() {
    assert_snapshot!(
        run_in_root(&["verify", "samples/session-dirty.sealed.jsonl", "extra"]).text()
    );
}

// --- standard output

/// A transcript of one call and `repeats` identical repeats: that many findings.
fn many_findings(repeats: u64) -> String {
    let mut content = String::new();
    for index in 0..=repeats {
        content.push_str(&record(index, "read_file", r#"{"path": "a"}"#, "{}"));
        content.push('\n');
    }
    content
}

/// Runs `args` in `dir`, reads one line of stdout, closes the pipe, and returns the
/// line, the exit code and stderr.
fn read_one_line_and_close(dir: &Path, args: &[&str]) -> (String, i32, String) {
    let mut child = command(dir, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn toolreplay");
    let mut line = String::new();
    {
        let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
        reader.read_line(&mut line).expect("read one line");
    } // The read end of the pipe is closed here, like `head -1` exiting.
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    let status = child.wait().expect("wait for toolreplay");
    let code = status
        .code()
        .unwrap_or_else(|| panic!("toolreplay {args:?} did not exit: {status}"));
    (line, code, stderr)
}

#[test]
fn replay_into_a_closed_pipe_exits_quietly() {
    let dir = Dir::new();
    dir.write("big.jsonl", many_findings(200_000));
    let (line, code, stderr) = read_one_line_and_close(dir.path(), &["replay", "big.jsonl"]);
    assert_eq!(line, "calls: 200001\n");
    assert_eq!(stderr, "", "stderr is not empty");
    assert!(code == 0 || code == 1, "exit code {code}");
}

#[test]
fn seal_into_a_closed_pipe_exits_quietly() {
    let dir = Dir::new();
    dir.write("big.jsonl", many_findings(200_000));
    let (line, code, stderr) = read_one_line_and_close(dir.path(), &["seal", "big.jsonl"]);
    assert!(
        line.starts_with(r#"{"args":{"path":"a"},"digest":""#),
        "{line}"
    );
    assert_eq!(stderr, "", "stderr is not empty");
    assert!(code == 0 || code == 1, "exit code {code}");
}

/// Runs `args` in the crate root with stdout on `/dev/full`; returns the exit code
/// and stderr in the usual text (stdout being the device).
fn into_dev_full(args: &[&str]) -> String {
    let full = File::options()
        .write(true)
        .open("/dev/full")
        .expect("open /dev/full");
    let output = command(Path::new(ROOT), args)
        .stdout(Stdio::from(full))
        .stderr(Stdio::piped())
        .output()
        .expect("run toolreplay");
    super::Run::from_output(args, output).text()
}

#[test]
fn replay_into_a_full_device_is_an_error() {
    assert_snapshot!(into_dev_full(&["replay", "samples/session-dirty.jsonl"]));
}

#[test]
fn scope_into_a_full_device_is_an_error() {
    assert_snapshot!(into_dev_full(&[
        "scope",
        "samples/session-dirty.jsonl",
        "samples/scope.json"
    ]));
}

#[test]
fn seal_into_a_full_device_is_an_error() {
    assert_snapshot!(into_dev_full(&["seal", "samples/session-dirty.jsonl"]));
}

#[test]
fn verify_into_a_full_device_is_an_error() {
    assert_snapshot!(into_dev_full(&[
        "verify",
        "samples/session-dirty.sealed.jsonl"
    ]));
}

#[test]
fn version_into_a_full_device_is_an_error() {
    assert_snapshot!(into_dev_full(&["version"]));
}

#[test]
fn a_name_with_a_newline_esc_or_bidi_control_stays_one_line() {
    let dir = Dir::new();
    let name = "bad\nname\u{1b}[31m\u{202e}.jsonl";
    dir.write(name, "{}\n");
    let run = dir.run(&["replay", name]);
    insta::assert_snapshot!(run.text());
    assert_eq!(run.stderr.lines().count(), 1);
    // A missing file too, and a name given to verify that it prints on stdout.
    let missing = dir.run(&["verify", "gone\n.jsonl"]);
    assert_eq!(missing.stderr.lines().count(), 1, "{}", missing.stderr);
}
