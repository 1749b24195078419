//! Every subcommand on the samples of `samples/` (spec section 10), run from the
//! crate root with relative paths.

use insta::assert_snapshot;

use super::run_in_root;

#[test]
fn replay_of_dirty_sample_prints_the_spec_report() {
    let run = run_in_root(&["replay", "samples/session-dirty.jsonl"]);
    assert_snapshot!(run.text());
}

#[test]
fn replay_of_clean_sample_has_no_findings() {
    let run = run_in_root(&["replay", "samples/session-clean.jsonl"]);
    assert_snapshot!(run.text());
}

#[test]
fn scope_of_dirty_sample_prints_the_spec_report() {
    let run = run_in_root(&["scope", "samples/session-dirty.jsonl", "samples/scope.json"]);
    assert_snapshot!(run.text());
}

#[test]
fn scope_of_clean_sample_has_no_findings() {
    let run = run_in_root(&["scope", "samples/session-clean.jsonl", "samples/scope.json"]);
    assert_snapshot!(run.text());
}

#[test]
fn seal_of_dirty_sample_prints_the_sealed_sample() {
    let run = run_in_root(&["seal", "samples/session-dirty.jsonl"]);
    let sealed = std::fs::read_to_string(format!(
        "{}/samples/session-dirty.sealed.jsonl",
        super::ROOT
    ))
    .expect("sealed sample");
    assert_eq!(
        run.stdout, sealed,
        "seal output differs from the sealed sample"
    );
    assert_snapshot!(run.text());
}

#[test]
fn seal_of_clean_sample() {
    let run = run_in_root(&["seal", "samples/session-clean.jsonl"]);
    assert_snapshot!(run.text());
}

#[test]
fn verify_of_sealed_sample_is_intact() {
    let run = run_in_root(&["verify", "samples/session-dirty.sealed.jsonl"]);
    assert_snapshot!(run.text());
}

#[test]
fn verify_of_tampered_sample_names_link_3() {
    let run = run_in_root(&["verify", "samples/session-dirty.tampered.jsonl"]);
    assert_snapshot!(run.text());
}

#[test]
fn verify_of_an_unsealed_transcript_is_an_input_error() {
    let run = run_in_root(&["verify", "samples/session-dirty.jsonl"]);
    assert_snapshot!(run.text());
}

#[test]
fn version_subcommand_prints_the_version() {
    let run = run_in_root(&["version"]);
    assert_snapshot!(run.text());
}

#[test]
fn version_flag_prints_the_same_as_the_subcommand() {
    let flag = run_in_root(&["--version"]);
    let subcommand = run_in_root(&["version"]);
    assert_eq!(flag.text(), subcommand.text());
    assert_snapshot!(flag.text());
}

#[test]
fn replay_from_claude_code_of_the_claude_code_sample() {
    let run = run_in_root(&[
        "replay",
        "--from",
        "claude-code",
        "samples/claude-code-session.jsonl",
    ]);
    assert_snapshot!(run.text());
}

#[test]
fn import_of_the_claude_code_sample() {
    let run = run_in_root(&["import", "samples/claude-code-session.jsonl"]);
    assert_snapshot!(run.text());
}
