//! `toolreplay seal --append SEALED NEW`: appending call by call, or in chunks, gives
//! exactly the bytes of sealing the whole transcript at once, whether NEW's indices
//! start at 0 or continue SEALED's; a broken SEALED or a bad NEW leaves SEALED as it
//! was, with no temporary file behind.

use std::fs;
use std::path::Path;

use insta::assert_snapshot;

use super::{Dir, ROOT, lines, record};

/// The lock that appends (and live sessions) take beside SEALED: it stays, empty.
const LOCK: &str = "sealed.jsonl.lock";

/// The non-blank lines of the transcript at `path` (relative to the crate root),
/// without a BOM or CRs.
fn records_of(path: &str) -> Vec<String> {
    let text = fs::read_to_string(Path::new(ROOT).join(path)).expect("transcript");
    text.trim_start_matches('\u{feff}')
        .split('\n')
        .map(|line| line.trim_end_matches('\r'))
        .filter(|line| !line.trim_matches([' ', '\t', '\r']).is_empty())
        .map(str::to_owned)
        .collect()
}

/// A record line with its index, `from`, rewritten to `to`: the first `"index"` key
/// followed by `from` is taken to be the record's (any mistake shows as a chain that
/// differs from the sealed form).
fn renumbered(line: &str, from: usize, to: usize) -> String {
    let mut at = 0;
    while let Some(found) = line[at..].find("\"index\"") {
        let key_end = at + found + "\"index\"".len();
        let rest = line[key_end..].trim_start_matches([' ', '\t']);
        if let Some(value) = rest.strip_prefix(':') {
            let value = value.trim_start_matches([' ', '\t']);
            let digits = value.len() - value.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if value[..digits] == from.to_string() {
                let start = line.len() - value.len();
                return format!("{}{to}{}", &line[..start], &line[start + digits..]);
            }
        }
        at = key_end;
    }
    panic!("no index {from} in {line}");
}

const OK: &str = "exit: 0\n--- stdout\n--- stderr\n";

/// Appends `records` to an empty `sealed.jsonl` in chunks of `chunk`, each chunk
/// numbered from 0 when `from_zero`, and returns the final sealed bytes; after each
/// append the chain verifies intact.
fn append_in_chunks(records: &[String], chunk: usize, from_zero: bool) -> Vec<u8> {
    let dir = Dir::new();
    dir.write("sealed.jsonl", "");
    for (start, piece) in records
        .chunks(chunk)
        .enumerate()
        .map(|(i, piece)| (i * chunk, piece))
    {
        let new: Vec<String> = piece
            .iter()
            .enumerate()
            .map(|(i, line)| {
                if from_zero {
                    renumbered(line, start + i, i)
                } else {
                    line.clone()
                }
            })
            .collect();
        dir.write(
            "new.jsonl",
            lines(&new.iter().map(String::as_str).collect::<Vec<_>>()),
        );
        let run = dir.run(&["seal", "--append", "sealed.jsonl", "new.jsonl"]);
        assert_eq!(run.text(), OK, "appending records {start}..");
        let verify = dir.run(&["verify", "sealed.jsonl"]);
        assert_eq!(verify.stdout, "chain: intact\n");
        assert_eq!(dir.entries(), ["new.jsonl", "sealed.jsonl", LOCK]);
    }
    dir.read("sealed.jsonl")
}

fn sealed_whole(path: &str) -> Vec<u8> {
    fs::read(Path::new(ROOT).join(path)).expect("sealed vector")
}

#[test]
fn appending_the_sample_call_by_call_from_zero_gives_the_sealed_sample() {
    let records = records_of("samples/session-dirty.jsonl");
    assert_eq!(records.len(), 6);
    assert_eq!(
        append_in_chunks(&records, 1, true),
        sealed_whole("samples/session-dirty.sealed.jsonl")
    );
}

#[test]
fn appending_the_sample_call_by_call_continuing_gives_the_sealed_sample() {
    let records = records_of("samples/session-dirty.jsonl");
    assert_eq!(
        append_in_chunks(&records, 1, false),
        sealed_whole("samples/session-dirty.sealed.jsonl")
    );
}

#[test]
fn appending_every_seal_vector_call_by_call_gives_its_sealed_form() {
    // The vectors were sealed by the original implementation: unicode, numbers,
    // unsorted keys, a BOM, CRLF and blank lines, forty random records.
    let mut checked = 0;
    for name in [
        "one-record",
        "session-dirty",
        "unicode-numbers",
        "unsorted-whitespace",
        "bom",
        "crlf-blank-lines",
        "random-40",
    ] {
        let records = records_of(&format!("tests/vectors/seal/{name}.jsonl"));
        let want = sealed_whole(&format!("tests/vectors/seal/{name}.sealed.jsonl"));
        assert_eq!(append_in_chunks(&records, 1, true), want, "{name}");
        checked += records.len();
    }
    assert!(checked > 40);
}

#[test]
fn appending_in_chunks_gives_the_sealed_form() {
    let records = records_of("tests/vectors/seal/random-40.jsonl");
    let want = sealed_whole("tests/vectors/seal/random-40.sealed.jsonl");
    assert_eq!(append_in_chunks(&records, 7, true), want);
    assert_eq!(append_in_chunks(&records, 13, false), want);
    assert_eq!(append_in_chunks(&records, 40, false), want);
}

/// A directory holding `sealed.jsonl`, the sealed sample's first `count` links.
fn sealed_prefix(count: usize) -> Dir {
    let sealed = fs::read_to_string(Path::new(ROOT).join("samples/session-dirty.sealed.jsonl"))
        .expect("sealed sample");
    let kept: Vec<&str> = sealed.lines().take(count).collect();
    let dir = Dir::new();
    dir.write("sealed.jsonl", lines(&kept));
    dir
}

/// The sample's records `from..to`, numbered as in the whole transcript.
fn sample_records(from: usize, to: usize) -> Vec<String> {
    records_of("samples/session-dirty.jsonl")[from..to].to_vec()
}

fn joined(records: &[String]) -> String {
    lines(&records.iter().map(String::as_str).collect::<Vec<_>>())
}

#[test]
fn append_prints_nothing_and_replaces_sealed() {
    let dir = sealed_prefix(4);
    dir.write("new.jsonl", joined(&sample_records(4, 6)));
    let run = dir.run(&["seal", "--append", "sealed.jsonl", "new.jsonl"]);
    assert_snapshot!(run.text());
    assert_eq!(
        dir.read("sealed.jsonl"),
        sealed_whole("samples/session-dirty.sealed.jsonl")
    );
    assert_eq!(dir.entries(), ["new.jsonl", "sealed.jsonl", LOCK]);
}

#[test]
fn append_of_an_empty_new_leaves_sealed_as_it_was() {
    let dir = sealed_prefix(4);
    let before = dir.read("sealed.jsonl");
    dir.write("new.jsonl", "\n \n");
    let run = dir.run(&["seal", "--append", "sealed.jsonl", "new.jsonl"]);
    assert_eq!(run.text(), OK);
    assert_eq!(dir.read("sealed.jsonl"), before);
}

/// A writer stopped part way through an append left a torn last line (not a link):
/// it is cut off, with a note, and the records are appended after the last link. A
/// broken line before the last is refused.
#[test]
fn append_after_a_torn_last_line_cuts_it() {
    let dir = sealed_prefix(4);
    let whole = dir.read("sealed.jsonl");
    let next = sealed_whole("samples/session-dirty.sealed.jsonl");
    let fifth = &next[whole.len()..];
    dir.write("sealed.jsonl", [&whole[..], &fifth[..30]].concat());
    dir.write("new.jsonl", joined(&sample_records(4, 6)));
    let run = dir.run(&["seal", "--append", "sealed.jsonl", "new.jsonl"]);
    assert_snapshot!(run.text());
    assert_eq!(dir.read("sealed.jsonl"), next);

    // Unparsable with its LF, and not the last line: a broken file.
    let dir = sealed_prefix(4);
    let first = whole.iter().position(|&b| b == b'\n').expect("LF") + 1;
    dir.write(
        "sealed.jsonl",
        [&whole[..first], &fifth[..30], b"\n", &whole[first..]].concat(),
    );
    dir.write("new.jsonl", joined(&sample_records(4, 6)));
    let run = dir.run(&["seal", "--append", "sealed.jsonl", "new.jsonl"]);
    assert_eq!(run.code, 2, "{}", run.text());
    assert!(!run.stderr.contains("torn"), "{}", run.text());
}

#[test]
fn append_to_sealed_without_a_final_newline_adds_one() {
    let dir = sealed_prefix(4);
    let mut before = dir.read("sealed.jsonl");
    assert_eq!(before.pop(), Some(b'\n'));
    dir.write("sealed.jsonl", &before);
    dir.write("new.jsonl", joined(&sample_records(4, 6)));
    let run = dir.run(&["seal", "--append", "sealed.jsonl", "new.jsonl"]);
    assert_eq!(run.text(), OK);
    assert_eq!(
        dir.read("sealed.jsonl"),
        sealed_whole("samples/session-dirty.sealed.jsonl")
    );
}

#[cfg(unix)]
#[test]
fn append_keeps_the_mode_of_sealed() {
    use std::os::unix::fs::PermissionsExt;
    let dir = sealed_prefix(4);
    let path = dir.path().join("sealed.jsonl");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    dir.write("new.jsonl", joined(&sample_records(4, 5)));
    let run = dir.run(&["seal", "--append", "sealed.jsonl", "new.jsonl"]);
    assert_eq!(run.text(), OK);
    let mode = fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[cfg(unix)]
#[test]
fn append_through_a_symbolic_link_replaces_its_target() {
    let dir = sealed_prefix(4);
    std::os::unix::fs::symlink("sealed.jsonl", dir.path().join("link.jsonl")).unwrap();
    dir.write("new.jsonl", joined(&sample_records(4, 6)));
    let run = dir.run(&["seal", "--append", "link.jsonl", "new.jsonl"]);
    assert_eq!(run.text(), OK);
    assert!(
        fs::symlink_metadata(dir.path().join("link.jsonl"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        dir.read("sealed.jsonl"),
        sealed_whole("samples/session-dirty.sealed.jsonl")
    );
    assert_eq!(
        dir.entries(),
        ["link.jsonl", "new.jsonl", "sealed.jsonl", LOCK]
    );
}

/// Runs `seal --append sealed.jsonl new.jsonl` in `dir` and checks that it left
/// `sealed.jsonl` as it was and no temporary file.
fn append_refused(dir: &Dir) -> String {
    let before = dir.read("sealed.jsonl");
    let run = dir.run(&["seal", "--append", "sealed.jsonl", "new.jsonl"]);
    assert_ne!(run.code, 0);
    assert_eq!(dir.read("sealed.jsonl"), before, "sealed.jsonl changed");
    assert_eq!(
        dir.entries(),
        ["new.jsonl", "sealed.jsonl", LOCK],
        "a file was left"
    );
    run.text()
}

#[test]
fn append_to_a_broken_chain_is_refused() {
    let dir = Dir::new();
    dir.write(
        "sealed.jsonl",
        fs::read(Path::new(ROOT).join("samples/session-dirty.tampered.jsonl")).unwrap(),
    );
    dir.write("new.jsonl", record(0, "read_file", "{}", "{}") + "\n");
    assert_snapshot!(append_refused(&dir));
}

#[test]
fn append_with_a_first_index_neither_zero_nor_continuing_is_an_error() {
    let dir = sealed_prefix(4);
    dir.write("new.jsonl", joined(&sample_records(5, 6)));
    assert_snapshot!(append_refused(&dir));
}

#[test]
fn append_numbered_from_zero_must_go_on_from_zero() {
    let dir = sealed_prefix(4);
    dir.write(
        "new.jsonl",
        joined(&[
            renumbered(&sample_records(4, 5)[0], 4, 0),
            sample_records(5, 6)[0].clone(),
        ]),
    );
    assert_snapshot!(append_refused(&dir));
}

#[test]
fn append_continuing_must_go_on_continuing() {
    let dir = sealed_prefix(4);
    dir.write(
        "new.jsonl",
        joined(&[
            sample_records(4, 5)[0].clone(),
            renumbered(&sample_records(5, 6)[0], 5, 1),
        ]),
    );
    assert_snapshot!(append_refused(&dir));
}

#[test]
fn append_with_an_error_on_the_last_line_of_new_leaves_sealed() {
    let dir = sealed_prefix(4);
    let mut new = joined(&sample_records(4, 6));
    new.push_str("{\"index\": 6, \"tool\": \"x\", \"args\": {}, \"response\": {}, \"extra\": 1}\n");
    dir.write("new.jsonl", new);
    assert_snapshot!(append_refused(&dir));
}

#[test]
fn append_with_an_invalid_first_record_names_its_error() {
    let dir = sealed_prefix(4);
    dir.write(
        "new.jsonl",
        "{\"index\": 4, \"tool\": \"\", \"args\": {}, \"response\": {}}\n",
    );
    assert_snapshot!(append_refused(&dir));
}

#[test]
fn append_of_a_missing_new_is_an_error() {
    let dir = sealed_prefix(4);
    let before = dir.read("sealed.jsonl");
    let run = dir.run(&["seal", "--append", "sealed.jsonl", "missing.jsonl"]);
    assert_snapshot!(run.text());
    assert_eq!(dir.read("sealed.jsonl"), before);
    assert_eq!(dir.entries(), ["sealed.jsonl", LOCK], "a file was left");
}

#[test]
fn append_to_a_missing_sealed_is_an_error() {
    let dir = Dir::new();
    dir.write("new.jsonl", joined(&sample_records(0, 1)));
    let run = dir.run(&["seal", "--append", "sealed.jsonl", "new.jsonl"]);
    assert_snapshot!(run.text());
    assert_eq!(dir.entries(), ["new.jsonl"], "a file was left");
}

#[test]
fn append_to_an_unsealed_transcript_is_an_error() {
    let dir = Dir::new();
    dir.write("sealed.jsonl", joined(&sample_records(0, 2)));
    dir.write("new.jsonl", joined(&sample_records(2, 3)));
    assert_snapshot!(append_refused(&dir));
}

#[test]
fn append_with_output_is_a_usage_error() {
    let dir = sealed_prefix(4);
    dir.write("new.jsonl", joined(&sample_records(4, 5)));
    let run = dir.run(&[
        "seal",
        "--append",
        "sealed.jsonl",
        "new.jsonl",
        "-o",
        "out.jsonl",
    ]);
    assert_snapshot!(run.text());
    assert_eq!(dir.entries(), ["new.jsonl", "sealed.jsonl"]);
}

#[test]
fn twenty_appends_at_once_keep_every_record() {
    let dir = Dir::new();
    let six: String = (0..6)
        .map(|i| record(i, "read_file", &format!(r#"{{"path": "{i}"}}"#), "{}") + "\n")
        .collect();
    dir.write("t.jsonl", six);
    assert_eq!(dir.run(&["seal", "t.jsonl", "-o", "sealed.jsonl"]).code, 0);
    for i in 0..20 {
        dir.write(
            &format!("new-{i}.jsonl"),
            record(0, "search", &format!(r#"{{"q": "{i}"}}"#), "{}") + "\n",
        );
    }
    let bin = assert_cmd::cargo::cargo_bin("toolreplay");
    let children: Vec<_> = (0..20)
        .map(|i| {
            std::process::Command::new(&bin)
                .current_dir(dir.path())
                .args([
                    "seal",
                    "--append",
                    "sealed.jsonl",
                    &format!("new-{i}.jsonl"),
                ])
                .spawn()
                .expect("toolreplay starts")
        })
        .collect();
    for child in children {
        let status = child.wait_with_output().expect("toolreplay ran").status;
        assert!(status.success(), "{status}");
    }
    assert_eq!(
        dir.run(&["verify", "sealed.jsonl"]).stdout,
        "chain: intact\n"
    );
    let sealed = String::from_utf8(dir.read("sealed.jsonl")).unwrap();
    assert_eq!(sealed.lines().count(), 26);
    // Each new record is there once.
    let mut queries: Vec<String> = sealed
        .lines()
        .skip(6)
        .map(|line| {
            let link: serde_json::Value = serde_json::from_str(line).unwrap();
            link["args"]["q"].as_str().unwrap().to_owned()
        })
        .collect();
    queries.sort_by_key(|q| q.parse::<u32>().unwrap());
    let expected: Vec<String> = (0..20).map(|i| i.to_string()).collect();
    assert_eq!(queries, expected);
}
