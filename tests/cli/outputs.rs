//! Where output files go: symbolic links followed, targets that are not regular
//! files written to directly, read-only targets refused, permissions under the
//! umask, and a closed standard output an error rather than a silent success.

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::process::Command;

use insta::assert_snapshot;

use super::{Dir, Run, lines, record};

fn transcript() -> String {
    lines(&[
        &record(0, "read_file", r#"{"path": "a"}"#, r#"{"text": "A"}"#),
        &record(1, "search", r#"{"q": "x"}"#, r#"{"hits": 2}"#),
    ])
}

/// Runs `script` with `sh -c` in `dir`, `$TR` being the binary.
fn shell(dir: &Dir, script: &str) -> Run {
    let bin = assert_cmd::cargo::cargo_bin("toolreplay");
    let output = Command::new("sh")
        .arg("-c")
        .arg(script)
        .env("TR", bin)
        .current_dir(dir.path())
        .output()
        .expect("sh runs");
    Run::from_output(&["sh", "-c", script], output)
}

#[test]
fn seal_to_dev_null_writes_to_it_and_leaves_it_a_device() {
    let dir = Dir::new();
    dir.write("t.jsonl", transcript());
    let run = dir.run(&["seal", "t.jsonl", "-o", "/dev/null"]);
    assert_eq!(run.text(), "exit: 0\n--- stdout\n--- stderr\n");
    let meta = std::fs::metadata("/dev/null").expect("/dev/null");
    assert!(meta.file_type().is_char_device());
}

#[test]
fn seal_to_dev_full_is_a_write_error() {
    let dir = Dir::new();
    dir.write("t.jsonl", transcript());
    assert_snapshot!(dir.run(&["seal", "t.jsonl", "-o", "/dev/full"]).text());
}

#[test]
fn append_to_what_is_not_a_regular_file_is_refused() {
    let dir = Dir::new();
    dir.write("t.jsonl", transcript());
    assert_snapshot!(
        dir.run(&["seal", "--append", "/dev/null", "t.jsonl"])
            .text()
    );
}

#[test]
fn a_new_file_gets_the_umask() {
    let dir = Dir::new();
    dir.write("t.jsonl", transcript());
    let run = shell(&dir, "umask 077 && \"$TR\" seal t.jsonl -o sealed.jsonl");
    assert_eq!(run.code, 0, "{}", run.text());
    let mode = std::fs::metadata(dir.path().join("sealed.jsonl"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let run = shell(&dir, "umask 027 && \"$TR\" seal t.jsonl -o other.jsonl");
    assert_eq!(run.code, 0, "{}", run.text());
    let mode = std::fs::metadata(dir.path().join("other.jsonl"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o640);
}

#[test]
fn a_replaced_file_keeps_its_permissions() {
    let dir = Dir::new();
    dir.write("t.jsonl", transcript());
    dir.write("sealed.jsonl", "");
    let path = dir.path().join("sealed.jsonl");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    let run = dir.run(&["seal", "t.jsonl", "-o", "sealed.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.text());
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
}

#[test]
fn a_read_only_sealed_transcript_is_not_replaced() {
    let dir = Dir::new();
    dir.write("t.jsonl", transcript());
    assert_eq!(dir.run(&["seal", "t.jsonl", "-o", "sealed.jsonl"]).code, 0);
    let path = dir.path().join("sealed.jsonl");
    let before = std::fs::read(&path).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let run = dir.run(&["seal", "--append", "sealed.jsonl", "t.jsonl"]);
    assert_snapshot!("append_read_only", run.text());
    let run = dir.run(&["seal", "t.jsonl", "-o", "sealed.jsonl"]);
    assert_snapshot!("seal_read_only", run.text());
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(dir.entries(), ["sealed.jsonl", "t.jsonl"]);
}

#[test]
fn a_symbolic_link_is_followed_by_every_output() {
    let dir = Dir::new();
    dir.write("t.jsonl", transcript());
    std::os::unix::fs::symlink("real.jsonl", dir.path().join("link.jsonl")).unwrap();
    let run = dir.run(&["seal", "t.jsonl", "-o", "link.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.text());
    let link = std::fs::symlink_metadata(dir.path().join("link.jsonl")).unwrap();
    assert!(link.file_type().is_symlink());
    let run = dir.run(&["seal", "--append", "link.jsonl", "t.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.text());
    let link = std::fs::symlink_metadata(dir.path().join("link.jsonl")).unwrap();
    assert!(link.file_type().is_symlink());
    let run = dir.run(&["verify", "real.jsonl"]);
    assert_eq!(run.stdout, "chain: intact\n");
    let real = String::from_utf8(dir.read("real.jsonl")).unwrap();
    assert_eq!(real.lines().count(), 4);
}

#[test]
fn standard_output_on_dev_null_is_written_as_usual_however_it_was_opened() {
    let dir = Dir::new();
    dir.write("t.jsonl", transcript());
    let call = record(0, "read_file", r#"{"path": "a"}"#, r#"{"text": "A"}"#);
    let again = record(1, "read_file", r#"{"path": "a"}"#, r#"{"text": "A"}"#);
    dir.write("repeated.jsonl", lines(&[&call, &again]));
    // Write-only, as a shell's `>` opens it; read-write, as Python's
    // subprocess.DEVNULL and Node's "ignore" do; and closed, which the standard
    // library opens again on /dev/null read-write before main, so it cannot be
    // told apart from the one before.
    for redirect in ["> /dev/null", "1<> /dev/null", ">&-"] {
        let run = shell(&dir, &format!("\"$TR\" seal t.jsonl {redirect}"));
        assert_eq!(
            run.text(),
            "exit: 0\n--- stdout\n--- stderr\n",
            "{redirect}"
        );
        // The exit status is the audit's: a finding gives 1.
        let run = shell(&dir, &format!("\"$TR\" replay repeated.jsonl {redirect}"));
        assert_eq!(
            run.text(),
            "exit: 1\n--- stdout\n--- stderr\n",
            "{redirect}"
        );
    }
}

#[test]
fn a_signal_while_writing_leaves_no_temporary_file() {
    use std::io::Write as _;
    for (signal, code) in [("INT", 130), ("TERM", 143), ("HUP", 129)] {
        let dir = Dir::new();
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("toolreplay"))
            .current_dir(dir.path())
            .args(["seal", "-", "-o", "out.jsonl"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("toolreplay starts");
        // The input stays open: the seal is under way, its temporary file beside
        // out.jsonl, until the signal comes.
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(transcript().as_bytes()).unwrap();
        stdin.flush().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !dir.entries().iter().any(|e| e.starts_with(".toolreplay-")) {
            assert!(std::time::Instant::now() < deadline, "no temporary file");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let killed = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(killed.success());
        let status = child.wait().expect("toolreplay ends");
        drop(stdin);
        assert_eq!(status.code(), Some(code), "SIG{signal}");
        assert_eq!(dir.entries(), Vec::<String>::new(), "SIG{signal}");
    }
}

#[test]
fn dash_as_an_output_is_standard_output_never_a_file_named_dash() {
    let dir = Dir::new();
    dir.write("t.jsonl", transcript());
    let sealed = dir.run(&["seal", "t.jsonl"]);
    assert_eq!(
        dir.run(&["seal", "t.jsonl", "-o", "-"]).stdout,
        sealed.stdout
    );
    let imported = dir.run(&["import", "--from", "toolreplay", "t.jsonl"]);
    assert_eq!(
        dir.run(&["import", "--from", "toolreplay", "t.jsonl", "-o", "-"])
            .stdout,
        imported.stdout
    );
    let report = dir.run(&["report", "t.jsonl", "-o", "-"]);
    assert_eq!(report.code, 0);
    assert!(
        report.stdout.starts_with("<!DOCTYPE html>"),
        "{}",
        report.stdout
    );
    assert!(!dir.path().join("-").exists(), "no file named -");
    let text = dir.runs(&[
        &["import", "t.jsonl", "--out-dir", "-"],
        &["replay", "t.jsonl", "--write-baseline", "-"],
    ]);
    assert_snapshot!(text, @r"
    $ toolreplay import t.jsonl --out-dir -
    exit: 2
    --- stdout
    --- stderr
    error: --out-dir names the folder the transcripts go to; - is not one
    $ toolreplay replay t.jsonl --write-baseline -
    exit: 2
    --- stdout
    --- stderr
    error: --write-baseline writes a file beside the report; - is not one
    ");
    assert!(!dir.path().join("-").exists(), "no file or folder named -");
}
