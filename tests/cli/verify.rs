//! `toolreplay verify` (spec sections 5 and 6): seal with the binary, tamper with
//! the sealed lines here, and check that the right link and the right expected/found
//! pair are named. Digests are computed here independently, with `sha2` on
//! canonical bytes written by hand.

use insta::assert_snapshot;
use sha2::{Digest, Sha256};

use super::replay::transcript;
use super::{Dir, Run, lines, run_on};

const ZEROS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// One record: tool, canonical args, canonical response.
type Call = (&'static str, &'static str, &'static str);

/// The transcript sealed in these tests, its args and responses in canonical form.
const CALLS: [Call; 5] = [
    ("read_file", r#"{"path":"a.txt"}"#, r#"{"text":"alpha"}"#),
    (
        "list_dir",
        r#"{"path":"."}"#,
        r#"{"entries":["a.txt","b.txt"]}"#,
    ),
    ("read_file", r#"{"path":"b.txt"}"#, r#"{"text":"beta"}"#),
    ("search", r#"{"query":"x"}"#, r#"{"hits":[]}"#),
    (
        "write_file",
        r#"{"path":"c.txt","text":"gamma"}"#,
        r#"{"ok":true}"#,
    ),
];

/// The same but for the response of the first call.
const OTHER_CALLS: [Call; 6] = [
    ("read_file", r#"{"path":"a.txt"}"#, r#"{"text":"ALPHA"}"#),
    CALLS[1],
    CALLS[2],
    CALLS[3],
    CALLS[4],
    ("read_file", r#"{"path":"c.txt"}"#, r#"{"text":"gamma"}"#),
];

/// The canonical encoding of a four-field record, by hand.
fn canonical(index: usize, (tool, args, response): Call) -> String {
    format!(r#"{{"args":{args},"index":{index},"response":{response},"tool":"{tool}"}}"#)
}

/// lowercase hex of SHA-256(prev || canonical record).
fn digest(prev: &str, canonical: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(prev.as_bytes());
    hasher.update(canonical.as_bytes());
    hex::encode(hasher.finalize())
}

/// The digests of the chain of `calls`.
fn chain(calls: &[Call]) -> Vec<String> {
    let mut prev = ZEROS.to_owned();
    calls
        .iter()
        .enumerate()
        .map(|(index, call)| {
            prev = digest(&prev, &canonical(index, *call));
            prev.clone()
        })
        .collect()
}

/// The canonical encoding of a six-field link, by hand.
fn link(index: usize, (tool, args, response): Call, prev: &str, digest: &str) -> String {
    format!(
        r#"{{"args":{args},"digest":"{digest}","index":{index},"prev":"{prev}","response":{response},"tool":"{tool}"}}"#
    )
}

/// The lines the binary seals `calls` into.
fn sealed_by_binary(calls: &[Call]) -> Vec<String> {
    let run = run_on("seal", transcript(calls));
    assert_eq!(run.code, 0, "{}", run.text());
    assert!(run.stderr.is_empty(), "{}", run.text());
    run.stdout.lines().map(str::to_owned).collect()
}

/// `verify sealed.jsonl` on `content`.
fn verify(content: impl AsRef<[u8]>) -> Run {
    let dir = Dir::new();
    dir.write("sealed.jsonl", content);
    dir.run(&["verify", "sealed.jsonl"])
}

/// `verify` on `links`, one a line.
fn verify_links(links: &[String]) -> Run {
    verify(lines(&links.iter().map(String::as_str).collect::<Vec<_>>()))
}

/// The whole expected run of `verify` on a chain broken at `p`.
fn broken(p: usize, expected: &str, found: &str) -> String {
    format!(
        "exit: 1\n--- stdout\nchain: broken\nfirst broken link: index {p}\nexpected: {expected}\nfound: {found}\n--- stderr\n"
    )
}

/// The whole expected run of `verify` on an intact chain.
const INTACT: &str = "exit: 0\n--- stdout\nchain: intact\n--- stderr\n";

/// The sealed lines, with `from` replaced by `to` in line `at` (which must hold it).
fn edited(at: usize, from: &str, to: &str) -> Vec<String> {
    let mut links = sealed_by_binary(&CALLS);
    assert!(links[at].contains(from), "{from} not in {}", links[at]);
    links[at] = links[at].replacen(from, to, 1);
    links
}

// --- sealing

#[test]
fn seal_writes_the_chain_computed_independently() {
    let digests = chain(&CALLS);
    let mut prev = ZEROS;
    let want: Vec<String> = CALLS
        .iter()
        .enumerate()
        .map(|(index, call)| {
            let line = link(index, *call, prev, &digests[index]);
            prev = &digests[index];
            line
        })
        .collect();
    assert_eq!(sealed_by_binary(&CALLS), want);
    assert_snapshot!(run_on("seal", transcript(&CALLS)).text());
}

#[test]
fn sealed_output_verifies_intact() {
    let run = verify_links(&sealed_by_binary(&CALLS));
    assert_eq!(run.text(), INTACT);
    assert_snapshot!(run.text());
}

// --- tampering: the digest check (rule 2)

#[test]
fn edited_response_breaks_its_link_with_the_recomputed_digest() {
    let digests = chain(&CALLS);
    let run = verify_links(&edited(2, r#""text":"beta""#, r#""text":"BETA""#));
    let tampered = ("read_file", r#"{"path":"b.txt"}"#, r#"{"text":"BETA"}"#);
    let expected = digest(&digests[1], &canonical(2, tampered));
    assert_eq!(run.text(), broken(2, &expected, &digests[2]));
    assert_snapshot!(run.text());
}

#[test]
fn edited_args_breaks_its_link_with_the_recomputed_digest() {
    let digests = chain(&CALLS);
    let run = verify_links(&edited(2, r#""path":"b.txt""#, r#""path":"B.txt""#));
    let tampered = ("read_file", r#"{"path":"B.txt"}"#, r#"{"text":"beta"}"#);
    let expected = digest(&digests[1], &canonical(2, tampered));
    assert_eq!(run.text(), broken(2, &expected, &digests[2]));
    assert_snapshot!(run.text());
}

#[test]
fn edited_tool_breaks_its_link_with_the_recomputed_digest() {
    let digests = chain(&CALLS);
    let run = verify_links(&edited(
        2,
        r#""tool":"read_file""#,
        r#""tool":"read_files""#,
    ));
    let tampered = ("read_files", r#"{"path":"b.txt"}"#, r#"{"text":"beta"}"#);
    let expected = digest(&digests[1], &canonical(2, tampered));
    assert_eq!(run.text(), broken(2, &expected, &digests[2]));
    assert_snapshot!(run.text());
}

#[test]
fn edited_index_breaks_its_link() {
    // The digest is computed with the index taken as the position, so it matches the
    // link's digest; the index differing from the position breaks the link anyway,
    // and expected and found are then the same digest (spec section 6, rule 2).
    let digests = chain(&CALLS);
    let run = verify_links(&edited(2, r#""index":2"#, r#""index":7"#));
    assert_eq!(run.text(), broken(2, &digests[2], &digests[2]));
    assert_snapshot!(run.text());
}

#[test]
fn edited_digest_breaks_its_link_expecting_the_true_digest() {
    let digests = chain(&CALLS);
    let fake = "f".repeat(64);
    let run = verify_links(&edited(2, &digests[2], &fake));
    assert_eq!(run.text(), broken(2, &digests[2], &fake));
    assert_snapshot!(run.text());
}

#[test]
fn edited_digest_of_the_last_link_breaks_it() {
    let digests = chain(&CALLS);
    let run = verify_links(&edited(4, &digests[4], &digests[3]));
    assert_eq!(run.text(), broken(4, &digests[4], &digests[3]));
    assert_snapshot!(run.text());
}

#[test]
fn a_short_digest_breaks_its_link() {
    let digests = chain(&CALLS);
    let run = verify_links(&edited(1, &digests[1], "abc"));
    assert_eq!(run.text(), broken(1, &digests[1], "abc"));
    assert_snapshot!(run.text());
}

#[test]
fn an_uppercase_digest_breaks_its_link() {
    let digests = chain(&CALLS);
    let upper = digests[1].to_uppercase();
    let run = verify_links(&edited(1, &digests[1], &upper));
    assert_eq!(run.text(), broken(1, &digests[1], &upper));
    assert_snapshot!(run.text());
}

// --- tampering: the prev check (rule 1)

#[test]
fn edited_prev_breaks_its_link_expecting_the_previous_digest() {
    let digests = chain(&CALLS);
    let prev_field = format!(r#""prev":"{}""#, digests[1]);
    let run = verify_links(&edited(
        2,
        &prev_field,
        &format!(r#""prev":"{}""#, digests[0]),
    ));
    assert_eq!(run.text(), broken(2, &digests[1], &digests[0]));
    assert_snapshot!(run.text());
}

#[test]
fn edited_prev_of_the_first_link_expects_zeros() {
    let fake = "1".repeat(64);
    let run = verify_links(&edited(
        0,
        &format!(r#""prev":"{ZEROS}""#),
        &format!(r#""prev":"{fake}""#),
    ));
    assert_eq!(run.text(), broken(0, ZEROS, &fake));
    assert_snapshot!(run.text());
}

#[test]
fn a_wrong_prev_is_reported_before_a_wrong_digest() {
    let digests = chain(&CALLS);
    let mut links = edited(3, &format!(r#""prev":"{}""#, digests[2]), r#""prev":"p""#);
    links[3] = links[3].replacen(&digests[3], "d", 1);
    let run = verify_links(&links);
    assert_eq!(run.text(), broken(3, &digests[2], "p"));
    assert_snapshot!(run.text());
}

#[test]
fn two_swapped_lines_break_at_the_first_of_them() {
    let digests = chain(&CALLS);
    let mut links = sealed_by_binary(&CALLS);
    links.swap(2, 3);
    let run = verify_links(&links);
    assert_eq!(run.text(), broken(2, &digests[1], &digests[2]));
    assert_snapshot!(run.text());
}

#[test]
fn a_deleted_line_breaks_at_its_position() {
    let digests = chain(&CALLS);
    let mut links = sealed_by_binary(&CALLS);
    links.remove(2);
    let run = verify_links(&links);
    assert_eq!(run.text(), broken(2, &digests[1], &digests[2]));
    assert_snapshot!(run.text());
}

#[test]
fn a_deleted_first_line_breaks_at_0() {
    let digests = chain(&CALLS);
    let mut links = sealed_by_binary(&CALLS);
    links.remove(0);
    let run = verify_links(&links);
    assert_eq!(run.text(), broken(0, ZEROS, &digests[0]));
    assert_snapshot!(run.text());
}

#[test]
fn a_duplicated_line_breaks_at_the_copy() {
    let digests = chain(&CALLS);
    let mut links = sealed_by_binary(&CALLS);
    links.insert(3, links[2].clone());
    let run = verify_links(&links);
    assert_eq!(run.text(), broken(3, &digests[2], &digests[1]));
    assert_snapshot!(run.text());
}

#[test]
fn a_line_appended_from_another_sealed_file_breaks_at_the_end() {
    let digests = chain(&CALLS);
    let other = chain(&OTHER_CALLS);
    let other_links = sealed_by_binary(&OTHER_CALLS);
    assert_eq!(
        other_links[5],
        link(5, OTHER_CALLS[5], &other[4], &other[5])
    );
    let mut links = sealed_by_binary(&CALLS);
    links.push(other_links[5].clone());
    let run = verify_links(&links);
    assert_eq!(run.text(), broken(5, &digests[4], &other[4]));
    assert_snapshot!(run.text());
}

#[test]
fn a_first_line_from_another_sealed_file_breaks_the_next_link() {
    let other = chain(&OTHER_CALLS);
    let mut links = sealed_by_binary(&CALLS);
    links[0] = sealed_by_binary(&OTHER_CALLS)[0].clone();
    let run = verify_links(&links);
    // Link 0 is itself valid; link 1 no longer follows it.
    let digests = chain(&CALLS);
    assert_eq!(run.text(), broken(1, &other[0], &digests[0]));
    assert_snapshot!(run.text());
}

// --- what the chain does not show (spec section 6)

#[test]
fn lines_cut_off_the_end_go_unnoticed() {
    let mut links = sealed_by_binary(&CALLS);
    links.truncate(3);
    let run = verify_links(&links);
    assert_eq!(run.text(), INTACT);
}

#[test]
fn the_formatting_of_a_link_does_not_matter() {
    // The digest is of the canonical encoding, not of the line as written.
    let digests = chain(&CALLS);
    let mut links = sealed_by_binary(&CALLS);
    links[1] = format!(
        r#"{{ "tool": "list_dir", "index": 1, "prev": "{}", "digest": "{}", "response": {{"entries": ["a.txt", "\u0062.txt"]}}, "args": {{ "path": "." }} }}"#,
        digests[0], digests[1]
    );
    let run = verify_links(&links);
    assert_eq!(run.text(), INTACT);
}

#[test]
fn blank_lines_and_crlf_do_not_change_positions() {
    let digests = chain(&CALLS);
    let links = edited(3, r#""hits":[]"#, r#""hits":[1]"#);
    let content = format!(
        "\r\n{}\r\n\r\n  \t\r\n{}\r\n{}\r\n\r\n{}\r\n{}\r\n\r\n",
        links[0], links[1], links[2], links[3], links[4]
    );
    let tampered = ("search", r#"{"query":"x"}"#, r#"{"hits":[1]}"#);
    let expected = digest(&digests[2], &canonical(3, tampered));
    let run = verify(content);
    assert_eq!(run.text(), broken(3, &expected, &digests[3]));
    assert_snapshot!(run.text());
}

#[test]
fn an_empty_file_is_intact() {
    let run = verify("");
    assert_eq!(run.text(), INTACT);
    assert_snapshot!(run.text());
}

#[test]
fn a_file_of_blank_lines_is_intact() {
    let run = verify("\n \t\n\r\n");
    assert_eq!(run.text(), INTACT);
}

// --- the links are strict; index order is the chain's business

/// The sealed lines with line 3 (index 2) replaced by `line`.
fn with_third_link(line: &str) -> Run {
    let mut links = sealed_by_binary(&CALLS);
    links[2] = line.to_owned();
    verify_links(&links)
}

/// A third link with `field` (`"name":value`) in place of the sealed one's.
fn third_link_with(name: &str, value: &str) -> Run {
    let links = sealed_by_binary(&CALLS);
    let fields = [
        ("args", r#"{"path":"b.txt"}"#.to_owned()),
        ("digest", format!("\"{}\"", chain(&CALLS)[2])),
        ("index", "2".to_owned()),
        ("prev", format!("\"{}\"", chain(&CALLS)[1])),
        ("response", r#"{"text":"beta"}"#.to_owned()),
        ("tool", r#""read_file""#.to_owned()),
    ];
    let line = format!(
        "{{{}}}",
        fields
            .iter()
            .map(|(n, v)| format!("\"{n}\":{}", if *n == name { value } else { v }))
            .collect::<Vec<_>>()
            .join(",")
    );
    let mut edited = links;
    edited[2] = line;
    verify_links(&edited)
}

#[test]
fn the_third_link_helper_rebuilds_the_sealed_line() {
    let links = sealed_by_binary(&CALLS);
    assert_eq!(third_link_with("none", "").text(), INTACT);
    assert_eq!(verify_links(&links).text(), INTACT);
}

#[test]
fn rejects_a_link_without_digest() {
    let digests = chain(&CALLS);
    assert_snapshot!(with_third_link(&format!(
        r#"{{"args":{{"path":"b.txt"}},"index":2,"prev":"{}","response":{{"text":"beta"}},"tool":"read_file"}}"#,
        digests[1]
    ))
    .text());
}

#[test]
fn rejects_a_link_without_prev() {
    let digests = chain(&CALLS);
    assert_snapshot!(with_third_link(&format!(
        r#"{{"args":{{"path":"b.txt"}},"digest":"{}","index":2,"response":{{"text":"beta"}},"tool":"read_file"}}"#,
        digests[2]
    ))
    .text());
}

#[test]
fn rejects_a_plain_record_as_a_link() {
    assert_snapshot!(with_third_link(&canonical(2, CALLS[2])).text());
}

#[test]
fn rejects_an_unknown_link_field() {
    let mut links = sealed_by_binary(&CALLS);
    links[2] = links[2].replacen('{', r#"{"note":"hi","#, 1);
    assert_snapshot!(verify_links(&links).text());
}

#[test]
fn rejects_a_numeric_prev() {
    assert_snapshot!(third_link_with("prev", "0").text());
}

#[test]
fn rejects_a_null_digest() {
    assert_snapshot!(third_link_with("digest", "null").text());
}

#[test]
fn rejects_a_link_index_with_a_fraction() {
    assert_snapshot!(third_link_with("index", "2.0").text());
}

#[test]
fn rejects_a_link_index_with_an_exponent() {
    assert_snapshot!(third_link_with("index", "2e0").text());
}

#[test]
fn rejects_a_boolean_link_index() {
    assert_snapshot!(third_link_with("index", "true").text());
}

#[test]
fn rejects_a_string_link_index() {
    assert_snapshot!(third_link_with("index", r#""2""#).text());
}

#[test]
fn rejects_an_empty_link_tool() {
    assert_snapshot!(third_link_with("tool", r#""""#).text());
}

#[test]
fn rejects_a_numeric_link_tool() {
    assert_snapshot!(third_link_with("tool", "5").text());
}

#[test]
fn rejects_array_link_args() {
    assert_snapshot!(third_link_with("args", "[]").text());
}

#[test]
fn rejects_a_string_link_response() {
    assert_snapshot!(third_link_with("response", r#""x""#).text());
}

#[test]
fn rejects_a_duplicate_key_in_a_link() {
    assert_snapshot!(third_link_with("args", r#"{"path":"b.txt","path":"b.txt"}"#).text());
}

#[test]
fn rejects_nan_in_a_link() {
    assert_snapshot!(third_link_with("response", r#"{"text":NaN}"#).text());
}

#[test]
fn rejects_a_link_that_is_not_an_object() {
    assert_snapshot!(with_third_link("[]").text());
}

#[test]
fn rejects_a_link_with_trailing_characters() {
    let links = sealed_by_binary(&CALLS);
    assert_snapshot!(with_third_link(&format!("{} x", links[2])).text());
}

#[test]
fn index_out_of_order_is_a_broken_chain_not_an_input_error() {
    let digests = chain(&CALLS);
    let run = third_link_with("index", "0");
    assert_eq!(run.text(), broken(2, &digests[2], &digests[2]));
    assert_snapshot!(run.text());
}

#[test]
fn a_negative_link_index_is_a_broken_chain() {
    let digests = chain(&CALLS);
    let run = third_link_with("index", "-2");
    assert_eq!(run.text(), broken(2, &digests[2], &digests[2]));
}

#[test]
fn a_link_index_beyond_64_bits_is_a_broken_chain() {
    let digests = chain(&CALLS);
    let run = third_link_with("index", "18446744073709551618");
    assert_eq!(run.text(), broken(2, &digests[2], &digests[2]));
}

#[test]
fn an_input_error_after_a_broken_link_is_still_an_input_error() {
    let digests = chain(&CALLS);
    let mut links = edited(1, &digests[1], &digests[0]);
    links[4] = links[4].replacen(r#""tool":"write_file""#, r#""tool":"""#, 1);
    assert_snapshot!(verify_links(&links).text());
}

/// `TOOLREPLAY_THREADS` sets how many threads read the input: every number from 1
/// to 16 gives the same verdicts; anything else is an input error before any work.
#[test]
fn the_thread_count_changes_nothing_but_the_threads() {
    let dir = Dir::new();
    let sealed = sealed_by_binary(&CALLS);
    dir.write(
        "sealed.jsonl",
        lines(&sealed.iter().map(String::as_str).collect::<Vec<_>>()),
    );
    let digests = chain(&CALLS);
    let broken_links = edited(1, &digests[1], &digests[0]);
    dir.write(
        "broken.jsonl",
        lines(&broken_links.iter().map(String::as_str).collect::<Vec<_>>()),
    );
    let want_intact = dir.run(&["verify", "sealed.jsonl"]).text();
    let want_broken = dir.run(&["verify", "broken.jsonl"]).text();
    for threads in ["1", "2", "3", "4", "16", ""] {
        let env = [("TOOLREPLAY_THREADS", threads)];
        let intact = super::run_with_env(dir.path(), &["verify", "sealed.jsonl"], &env);
        assert_eq!(intact.text(), want_intact, "{threads}");
        let broken = super::run_with_env(dir.path(), &["verify", "broken.jsonl"], &env);
        assert_eq!(broken.text(), want_broken, "{threads}");
    }
    let mut errors = String::new();
    for threads in ["0", "17", "two", "-1", " 2"] {
        let env = [("TOOLREPLAY_THREADS", threads)];
        errors.push_str(&super::run_with_env(dir.path(), &["verify", "sealed.jsonl"], &env).text());
    }
    assert_snapshot!(errors);
}
