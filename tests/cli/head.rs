//! `toolreplay head` and `toolreplay verify --head`: the statement of a chain's head,
//! and a chain checked against a pinned head that it was cut short of, grew past, or
//! was re-sealed away from.

use insta::assert_snapshot;

use super::{Dir, lines, record, run_in_root};

const SEALED: &str = "samples/session-dirty.sealed.jsonl";

/// The head of the sealed sample, as `head` prints it.
const SAMPLE_HEAD: &str = "toolreplay/sealed-transcript/v1\n6\n6810e72ec1261687cbb591922cf87d5833ee9a4f2ce0acaeb4b38b3cb9061fb7\n";

/// The digest of the sample's head.
const SAMPLE_HEAD_DIGEST: &str = "6810e72ec1261687cbb591922cf87d5833ee9a4f2ce0acaeb4b38b3cb9061fb7";

/// The digest of the fourth link of the sealed sample.
const FOURTH: &str = "0f4692975fe1c349dd7a602937df65ece15a1dce4e7576e98348caf2b02779f9";

/// A directory holding `sealed.jsonl`: the first `count` links of the sealed sample.
fn sample_prefix(count: usize) -> Dir {
    let sealed = std::fs::read_to_string(format!("{}/{SEALED}", super::ROOT)).unwrap();
    let kept: Vec<&str> = sealed.lines().take(count).collect();
    assert_eq!(kept.len(), count);
    let dir = Dir::new();
    dir.write("sealed.jsonl", lines(&kept));
    dir
}

#[test]
fn head_prints_the_statement_of_the_sealed_sample() {
    let run = run_in_root(&["head", SEALED]);
    assert_eq!(run.stdout, SAMPLE_HEAD);
    assert_snapshot!(run.text());
}

#[test]
fn head_of_an_empty_chain_has_zero_links_and_zeros() {
    let dir = Dir::new();
    dir.write("sealed.jsonl", "");
    assert_snapshot!(dir.run(&["head", "sealed.jsonl"]).text());
}

#[test]
fn head_of_a_prefix_names_its_last_link() {
    let dir = sample_prefix(4);
    let run = dir.run(&["head", "sealed.jsonl"]);
    assert_eq!(
        run.stdout,
        format!("toolreplay/sealed-transcript/v1\n4\n{FOURTH}\n")
    );
    assert_snapshot!(run.text());
}

#[test]
fn head_of_a_broken_chain_prints_nothing_and_refuses() {
    let run = run_in_root(&["head", "samples/session-dirty.tampered.jsonl"]);
    assert_eq!(run.stdout, "");
    assert_snapshot!(run.text());
}

#[test]
fn head_of_an_unsealed_transcript_is_an_input_error() {
    let run = run_in_root(&["head", "samples/session-dirty.jsonl"]);
    assert_snapshot!(run.text());
}

#[test]
fn head_of_a_missing_file_is_an_error() {
    let dir = Dir::new();
    assert_snapshot!(dir.run(&["head", "missing.jsonl"]).text());
}

// --- verify --head

#[test]
fn verify_head_matches_its_own_head_file() {
    let dir = sample_prefix(6);
    dir.write("head.txt", SAMPLE_HEAD);
    let run = dir.run(&["verify", "sealed.jsonl", "--head", "head.txt"]);
    assert_snapshot!(run.text());
}

#[test]
fn verify_head_matches_a_bare_digest_argument() {
    let run = run_in_root(&[
        "verify",
        SEALED,
        "--head",
        "6810e72ec1261687cbb591922cf87d5833ee9a4f2ce0acaeb4b38b3cb9061fb7",
    ]);
    assert_eq!(
        run.text(),
        "exit: 0\n--- stdout\nchain: intact\nhead: matches\n--- stderr\n"
    );
}

#[test]
fn verify_head_matches_a_file_holding_a_bare_digest() {
    let dir = sample_prefix(4);
    dir.write("head.txt", format!("{FOURTH}\n"));
    let run = dir.run(&["verify", "sealed.jsonl", "--head", "head.txt"]);
    assert_eq!(
        run.text(),
        "exit: 0\n--- stdout\nchain: intact\nhead: matches\n--- stderr\n"
    );
}

#[test]
fn verify_head_of_a_truncated_chain_differs() {
    let dir = sample_prefix(4);
    dir.write("head.txt", SAMPLE_HEAD);
    let run = dir.run(&["verify", "sealed.jsonl", "--head", "head.txt"]);
    assert_snapshot!(run.text());
}

#[test]
fn verify_head_of_a_truncated_chain_against_a_bare_digest_differs() {
    let dir = sample_prefix(4);
    let run = dir.run(&[
        "verify",
        "sealed.jsonl",
        "--head",
        "6810e72ec1261687cbb591922cf87d5833ee9a4f2ce0acaeb4b38b3cb9061fb7",
    ]);
    assert_snapshot!(run.text());
}

#[test]
fn verify_head_of_an_extended_chain_differs() {
    let dir = sample_prefix(6);
    dir.write(
        "head.txt",
        format!("toolreplay/sealed-transcript/v1\n4\n{FOURTH}\n"),
    );
    let run = dir.run(&["verify", "sealed.jsonl", "--head", "head.txt"]);
    assert_snapshot!(run.text());
}

#[test]
fn verify_head_of_an_extended_chain_against_a_bare_digest_differs() {
    let run = run_in_root(&["verify", SEALED, "--head", FOURTH]);
    assert_snapshot!(run.text());
}

#[test]
fn verify_head_of_a_chain_grown_from_empty_differs() {
    let run = run_in_root(&[
        "verify",
        SEALED,
        "--head",
        "0000000000000000000000000000000000000000000000000000000000000000",
    ]);
    assert_snapshot!(run.text());
}

#[test]
fn verify_head_with_a_count_that_does_not_fit_its_digest_differs() {
    // The fourth link's digest, claimed as the head of five links.
    let dir = sample_prefix(6);
    dir.write(
        "head.txt",
        format!("toolreplay/sealed-transcript/v1\n5\n{FOURTH}\n"),
    );
    let run = dir.run(&["verify", "sealed.jsonl", "--head", "head.txt"]);
    assert_snapshot!(run.text());
}

/// Seals `transcript` as `sealed.jsonl` in `dir` with the binary.
fn seal_in(dir: &Dir, transcript: &str) {
    dir.write("t.jsonl", transcript);
    let run = dir.run(&["seal", "t.jsonl", "-o", "sealed.jsonl"]);
    assert_eq!(run.text(), "exit: 0\n--- stdout\n--- stderr\n");
}

#[test]
fn verify_head_of_a_re_sealed_chain_differs() {
    // Whoever can edit the file edits a response and seals it again: the chain is
    // intact, of the same length, but its head is not the pinned one.
    let dir = Dir::new();
    let original = lines(&[
        &record(0, "read_file", r#"{"path": "a"}"#, r#"{"text": "A"}"#),
        &record(1, "search", r#"{"q": "x"}"#, r#"{"hits": 2}"#),
    ]);
    seal_in(&dir, &original);
    let head = dir.run(&["head", "sealed.jsonl"]);
    assert_eq!(head.code, 0);
    dir.write("head.txt", &head.stdout);
    seal_in(&dir, &original.replace("\"hits\": 2", "\"hits\": 0"));
    let run = dir.run(&["verify", "sealed.jsonl", "--head", "head.txt"]);
    assert_snapshot!(run.text());
}

#[test]
fn verify_head_of_a_broken_chain_reports_the_chain_only() {
    let run = run_in_root(&[
        "verify",
        "samples/session-dirty.tampered.jsonl",
        "--head",
        "6810e72ec1261687cbb591922cf87d5833ee9a4f2ce0acaeb4b38b3cb9061fb7",
    ]);
    assert_snapshot!(run.text());
}

#[test]
fn verify_head_with_a_missing_head_file_is_an_error() {
    let run = run_in_root(&["verify", SEALED, "--head", "missing-head.txt"]);
    assert_snapshot!(run.text());
}

#[test]
fn verify_head_with_an_uppercase_digest_is_read_as_a_file() {
    let run = run_in_root(&[
        "verify",
        SEALED,
        "--head",
        "6810E72EC1261687CBB591922CF87D5833EE9A4F2CE0ACAEB4B38B3CB9061FB7",
    ]);
    assert_snapshot!(run.text());
}

#[test]
fn verify_head_with_a_head_file_that_is_not_a_head_is_an_error() {
    let dir = sample_prefix(6);
    for (name, content) in [
        (
            "origin.txt",
            "toolreplay/sealed-transcript/v2\n6\n0\n".to_owned(),
        ),
        (
            "count.txt",
            "toolreplay/sealed-transcript/v1\nsix\n0\n".to_owned(),
        ),
        (
            "digest.txt",
            "toolreplay/sealed-transcript/v1\n6\n6810e72e\n".to_owned(),
        ),
        ("extra.txt", format!("{SAMPLE_HEAD}signature\n")),
    ] {
        dir.write(name, content);
    }
    let mut text = String::new();
    for name in ["origin.txt", "count.txt", "digest.txt", "extra.txt"] {
        text.push_str(&dir.run(&["verify", "sealed.jsonl", "--head", name]).text());
    }
    assert_snapshot!(text);
}

#[test]
fn verify_without_head_prints_exactly_the_chain_report() {
    let run = run_in_root(&["verify", SEALED]);
    assert_eq!(
        run.text(),
        "exit: 0\n--- stdout\nchain: intact\n--- stderr\n"
    );
}

// --- every format and colour for the head's verdict

/// `verify` of the sealed sample against the pinned head `head`, with `extra`.
fn verify_sample(head: &str, extra: &[&str]) -> String {
    let mut args = vec!["verify", SEALED, "--head", head];
    args.extend_from_slice(extra);
    run_in_root(&args).text()
}

#[test]
fn verify_head_verdicts_in_json() {
    let json = ["--format", "json"];
    assert_snapshot!("matches_json", verify_sample(SAMPLE_HEAD_DIGEST, &json));
    assert_snapshot!("extended_json", verify_sample(FOURTH, &json));
    let dir = sample_prefix(4);
    dir.write("head.txt", SAMPLE_HEAD);
    let truncated = dir.run(&[
        "verify",
        "sealed.jsonl",
        "--head",
        "head.txt",
        "--format",
        "json",
    ]);
    assert_snapshot!("truncated_json", truncated.text());
    let broken = run_in_root(&[
        "verify",
        "samples/session-dirty.tampered.jsonl",
        "--head",
        SAMPLE_HEAD_DIGEST,
        "--format",
        "json",
    ]);
    assert_snapshot!("broken_json", broken.text());
}

#[test]
fn verify_head_verdicts_in_sarif() {
    let sarif = ["--format", "sarif"];
    assert_snapshot!("matches_sarif", verify_sample(SAMPLE_HEAD_DIGEST, &sarif));
    assert_snapshot!("extended_sarif", verify_sample(FOURTH, &sarif));
}

#[test]
fn verify_head_verdicts_are_coloured() {
    let always = ["--color", "always"];
    assert_snapshot!(
        "matches_coloured",
        verify_sample(SAMPLE_HEAD_DIGEST, &always)
    );
    assert_snapshot!("extended_coloured", verify_sample(FOURTH, &always));
}
