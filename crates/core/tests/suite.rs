//! Conformance with the JSONTestSuite corpus in `../shared/data/JSONTestSuite/`, beside
//! the repository.
//!
//! These tests read data that lives beside the repository, not in it, so they are
//! ignored by the plain `cargo test` and run by `cargo test -- --ignored` (as CI
//! does), where a missing file is a failure, never a skip.

use std::fs;
use std::path::PathBuf;

use toolreplay_core::{canonicalize_json, decode_json_document, parse_json};

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/JSONTestSuite/test_parsing");
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| {
            let path = entry.expect("directory entry").path();
            let name = path
                .file_name()
                .expect("file name")
                .to_string_lossy()
                .into_owned();
            let bytes = fs::read(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
            (name, bytes)
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 318, "the corpus has 318 files");
    files
}

/// How a whole JSON file is read (as a scope file is): BOM skipped, UTF-8 checked,
/// then exactly one value.
fn accepts(bytes: &[u8]) -> Result<(), String> {
    decode_json_document(bytes)
        .and_then(parse_json)
        .map(drop)
        .map_err(|err| err.to_string())
}

/// `y_` files the specification rejects on purpose, with the error they get.
const REJECTED_Y: &[(&str, &str)] = &[
    ("y_object_duplicated_key.json", "duplicate key \"a\""),
    (
        "y_object_duplicated_key_and_value.json",
        "duplicate key \"a\"",
    ),
];

/// The answer the specification implies for each `i_` file, and why.
const IMPLIED_I: &[(&str, bool, &str)] = &[
    (
        "i_number_double_huge_neg_exp.json",
        true,
        "tiny numbers become 0.0",
    ),
    (
        "i_number_huge_exp.json",
        false,
        "too large for a 64-bit float",
    ),
    (
        "i_number_neg_int_huge_exp.json",
        false,
        "too large for a 64-bit float",
    ),
    (
        "i_number_pos_double_huge_exp.json",
        false,
        "too large for a 64-bit float",
    ),
    (
        "i_number_real_neg_overflow.json",
        false,
        "too large for a 64-bit float",
    ),
    (
        "i_number_real_pos_overflow.json",
        false,
        "too large for a 64-bit float",
    ),
    (
        "i_number_real_underflow.json",
        true,
        "tiny numbers become 0.0",
    ),
    (
        "i_number_too_big_neg_int.json",
        true,
        "integers keep all their digits",
    ),
    (
        "i_number_too_big_pos_int.json",
        true,
        "integers keep all their digits",
    ),
    (
        "i_number_very_big_negative_int.json",
        true,
        "integers keep all their digits",
    ),
    (
        "i_object_key_lone_2nd_surrogate.json",
        false,
        "lone surrogate escape",
    ),
    (
        "i_string_1st_surrogate_but_2nd_missing.json",
        false,
        "lone surrogate escape",
    ),
    (
        "i_string_1st_valid_surrogate_2nd_invalid.json",
        false,
        "lone surrogate escape",
    ),
    ("i_string_UTF-16LE_with_BOM.json", false, "not UTF-8"),
    ("i_string_UTF-8_invalid_sequence.json", false, "not UTF-8"),
    (
        "i_string_UTF8_surrogate_U+D800.json",
        false,
        "not UTF-8 (an encoded surrogate)",
    ),
    (
        "i_string_incomplete_surrogate_and_escape_valid.json",
        false,
        "lone surrogate escape",
    ),
    (
        "i_string_incomplete_surrogate_pair.json",
        false,
        "lone surrogate escape",
    ),
    (
        "i_string_incomplete_surrogates_escape_valid.json",
        false,
        "lone surrogate escape",
    ),
    (
        "i_string_invalid_lonely_surrogate.json",
        false,
        "lone surrogate escape",
    ),
    (
        "i_string_invalid_surrogate.json",
        false,
        "lone surrogate escape",
    ),
    ("i_string_invalid_utf-8.json", false, "not UTF-8"),
    (
        "i_string_inverted_surrogates_U+1D11E.json",
        false,
        "lone surrogate escape",
    ),
    ("i_string_iso_latin_1.json", false, "not UTF-8"),
    (
        "i_string_lone_second_surrogate.json",
        false,
        "lone surrogate escape",
    ),
    (
        "i_string_lone_utf8_continuation_byte.json",
        false,
        "not UTF-8",
    ),
    ("i_string_not_in_unicode_range.json", false, "not UTF-8"),
    (
        "i_string_overlong_sequence_2_bytes.json",
        false,
        "not UTF-8",
    ),
    (
        "i_string_overlong_sequence_6_bytes.json",
        false,
        "not UTF-8",
    ),
    (
        "i_string_overlong_sequence_6_bytes_null.json",
        false,
        "not UTF-8",
    ),
    ("i_string_truncated-utf-8.json", false, "not UTF-8"),
    ("i_string_utf16BE_no_BOM.json", false, "not UTF-8"),
    ("i_string_utf16LE_no_BOM.json", false, "not UTF-8"),
    (
        "i_structure_500_nested_arrays.json",
        false,
        "deeper than 128 levels",
    ),
    (
        "i_structure_UTF-8_BOM_empty_object.json",
        true,
        "a BOM at the start of a file is skipped",
    ),
];

/// Canonicalizing straight from the text gives exactly what parsing then encoding
/// gives, error messages included.
#[test]
#[ignore = "needs ../shared/data"]
fn canonicalize_agrees_with_parse_on_every_file() {
    for (name, bytes) in corpus() {
        let Ok(text) = decode_json_document(&bytes) else {
            continue;
        };
        let tree = parse_json(text).map(|value| toolreplay_core::encode_canonical(&value));
        let mut out = Vec::new();
        let direct = canonicalize_json(text, &mut out).map(|_| out);
        assert_eq!(
            direct.map_err(|e| e.to_string()),
            tree.map_err(|e| e.to_string()),
            "{name}"
        );
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn every_n_file_is_rejected_with_a_message_and_position() {
    for (name, bytes) in corpus().iter().filter(|(n, _)| n.starts_with("n_")) {
        match decode_json_document(bytes).and_then(parse_json) {
            Ok(value) => panic!("{name} was accepted as {value:?}"),
            Err(err) => {
                assert!(!err.message.is_empty(), "{name}: empty message");
                assert!(err.line >= 1, "{name}: no line");
            }
        }
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn every_y_file_is_accepted_except_duplicate_keys() {
    for (name, bytes) in corpus().iter().filter(|(n, _)| n.starts_with("y_")) {
        let got = accepts(bytes);
        match REJECTED_Y.iter().find(|(n, _)| n == name) {
            Some((_, message)) => assert_eq!(got, Err((*message).to_owned()), "{name}"),
            None => assert_eq!(got, Ok(()), "{name}"),
        }
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn every_i_file_gets_the_answer_the_spec_implies() {
    let files: Vec<_> = corpus()
        .into_iter()
        .filter(|(n, _)| n.starts_with("i_"))
        .collect();
    assert_eq!(
        files.len(),
        IMPLIED_I.len(),
        "every i_ file has a decided answer"
    );
    for (name, bytes) in &files {
        let (_, accept, why) = IMPLIED_I
            .iter()
            .find(|(n, _, _)| n == name)
            .unwrap_or_else(|| panic!("{name} has no decided answer"));
        assert_eq!(
            accepts(bytes).is_ok(),
            *accept,
            "{name}: {why}: {:?}",
            accepts(bytes)
        );
    }
}
