//! Conformance with CPython: the vectors in `tests/vectors/`, made by
//! `scripts/gen_vectors.py`.

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use toolreplay_core::{canonicalize_json, encode_canonical, parse_json};

#[test]
fn canonical_encoding_matches_cpython() {
    let text = fs::read_to_string("tests/vectors/canonical.jsonl").expect("vector file");
    let mut checked = 0;
    let mut failures = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let vector: serde_json::Value = serde_json::from_str(line).expect("vector line");
        let input = vector["input"].as_str().expect("input");
        let want = vector["canonical"].as_str().expect("canonical");
        let mut direct = Vec::new();
        match canonicalize_json(input, &mut direct) {
            Ok(_) if direct != want.as_bytes() => failures.push(format!(
                "line {}: {input:?}\n  want {want}\n  got  {} (canonicalize)",
                n + 1,
                String::from_utf8_lossy(&direct)
            )),
            Ok(_) => {}
            Err(err) => failures.push(format!("line {}: {input:?} rejected: {err}", n + 1)),
        }
        match parse_json(input) {
            Ok(value) => {
                let got = encode_canonical(&value);
                if got != want.as_bytes() {
                    failures.push(format!(
                        "line {}: {input:?}\n  want {want}\n  got  {}",
                        n + 1,
                        String::from_utf8_lossy(&got)
                    ));
                }
            }
            Err(err) => failures.push(format!("line {}: {input:?} rejected: {err}", n + 1)),
        }
        checked += 1;
    }
    assert!(checked > 10_000, "only {checked} vectors");
    assert!(
        failures.is_empty(),
        "{} of {checked} vectors differ:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn sealing_matches_cpython() {
    let dir = Path::new("tests/vectors/seal");
    let mut pairs = 0;
    let mut names: Vec<_> = fs::read_dir(dir)
        .expect("seal vectors")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.to_string_lossy().ends_with(".jsonl")
                && !p.to_string_lossy().ends_with(".sealed.jsonl")
        })
        .collect();
    names.sort();
    for input in names {
        let sealed = input.with_extension("sealed.jsonl");
        let want = fs::read(&sealed).expect("sealed vector");
        let output = Command::cargo_bin("toolreplay")
            .expect("binary")
            .arg("seal")
            .arg(&input)
            .output()
            .expect("run");
        assert_eq!(output.status.code(), Some(0), "{}", input.display());
        assert!(output.stderr.is_empty(), "{}", input.display());
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&want),
            "{}",
            input.display()
        );
        let verified = Command::cargo_bin("toolreplay")
            .expect("binary")
            .arg("verify")
            .arg(&sealed)
            .output()
            .expect("run");
        assert_eq!(verified.status.code(), Some(0), "{}", sealed.display());
        assert_eq!(verified.stdout, b"chain: intact\n", "{}", sealed.display());
        pairs += 1;
    }
    assert!(pairs >= 6, "only {pairs} seal vectors");
}
