//! `cargo bench -p toolreplay-core --bench detect`: the response detectors of a
//! policy, as `scope` runs them on each response (its canonical encoding), on two
//! corpora made here in memory: random printable ASCII, as in bench/gen_repeats.py's
//! transcript, where digits, `@` and `+` are common, and log-like text, as in
//! bench/gen_transcript.py's. Every benchmark reports bytes per second of the
//! responses read, so that a change to the first pass over a response shows.

use divan::counter::BytesCount;
use divan::{Bencher, black_box};
use toolreplay_core::Policy;
use toolreplay_core::{Scope, encode_canonical, parse_json};

mod common;

use common::Rng;

fn main() {
    divan::main();
}

/// The canonical encoding of `{"text": text}`, `text` printable ASCII.
fn response(text: &str) -> Vec<u8> {
    let mut out = b"{\"text\":\"".to_vec();
    for b in text.bytes() {
        if b == b'"' || b == b'\\' {
            out.push(b'\\');
        }
        out.push(b);
    }
    out.extend_from_slice(b"\"}");
    out
}

/// About `size` bytes of responses of random printable ASCII, each up to 2,900
/// bytes long.
fn random_responses(size: usize) -> Vec<Vec<u8>> {
    let mut rng = Rng(20240601);
    let mut responses = Vec::new();
    let mut total = 0;
    while total < size {
        let len = rng.below(2900);
        let text: String = (0..len)
            .map(|_| (0x20 + rng.below(95) as u8) as char)
            .collect();
        let response = response(&text);
        total += response.len();
        responses.push(response);
    }
    responses
}

/// About `size` bytes of responses of log lines, each about 7 KB long.
fn log_responses(size: usize) -> Vec<Vec<u8>> {
    let mut rng = Rng(7);
    let words = [
        "queue", "deploy", "token", "cache", "index", "result", "patch",
    ];
    let mut responses = Vec::new();
    let mut total = 0;
    while total < size {
        let mut text = String::new();
        while text.len() < 7000 {
            let (h, m, s, ms) = (rng.below(24), rng.below(60), rng.below(60), rng.below(1000));
            let word = words[rng.below(words.len() as u64)];
            let n = rng.below(5000);
            text.push_str(&format!(
                "[2024-06-{:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z] INFO {word}: {n} items in {}.{:03}ms ",
                1 + rng.below(28),
                rng.below(900),
                rng.below(1000)
            ));
        }
        let response = response(&text);
        total += response.len();
        responses.push(response);
    }
    responses
}

struct Corpus {
    random: Vec<Vec<u8>>,
    logs: Vec<Vec<u8>>,
}

fn corpus() -> &'static Corpus {
    static CORPUS: std::sync::OnceLock<Corpus> = std::sync::OnceLock::new();
    CORPUS.get_or_init(|| {
        let corpus = Corpus {
            random: random_responses(4 << 20),
            logs: log_responses(4 << 20),
        };
        for response in corpus.random.iter().chain(&corpus.logs) {
            let text = std::str::from_utf8(response).expect("ASCII");
            let value = parse_json(text).expect("a response is JSON");
            assert_eq!(encode_canonical(&value), *response, "canonical");
        }
        corpus
    })
}

/// The policy of `detectors` (a JSON list) for every tool, with bench/policy.json's
/// user detectors.
fn policy(detectors: &str) -> Policy {
    let scope = format!(
        r#"{{"agent": "a", "allowed_tools": ["t"], "policy_version": 1,
        "custom_detectors": {{"ticket-id": "TICKET-[0-9]{{6}}", "internal-host": "[a-z0-9-]+\\.corp\\.internal"}},
        "response_detectors": {detectors}}}"#
    );
    Scope::parse(scope.as_bytes())
        .expect("the bench's policy is valid")
        .policy
        .expect("it is a policy")
}

/// The detectors each benchmark runs, by the name it is shown with: a group, one
/// built-in, the user's two, or all of bench/policy.json's.
const DETECTORS: [&str; 7] = [
    "personal-data",
    "email-address",
    "phone-number",
    "payment-card",
    "secrets",
    "user",
    "all",
];

/// The `response_detectors` of `name`, one of [`DETECTORS`].
fn detectors(name: &str) -> &'static str {
    match name {
        "user" => r#"["ticket-id", "internal-host"]"#,
        "all" => r#"["secrets", "personal-data", "ticket-id", "internal-host"]"#,
        "personal-data" => r#"["personal-data"]"#,
        "email-address" => r#"["email-address"]"#,
        "phone-number" => r#"["phone-number"]"#,
        "payment-card" => r#"["payment-card"]"#,
        "secrets" => r#"["secrets"]"#,
        other => panic!("no detectors named {other}"),
    }
}

fn check_all(bencher: Bencher, name: &str, responses: &[Vec<u8>]) {
    let policy = policy(detectors(name));
    let bytes: usize = responses.iter().map(Vec::len).sum();
    bencher.counter(BytesCount::new(bytes)).bench(|| {
        let mut found = 0;
        for response in responses {
            found += policy.check_response("t", black_box(response)).len();
        }
        black_box(found)
    });
}

/// Random printable ASCII, by detectors.
#[divan::bench(args = DETECTORS)]
fn random_text(bencher: Bencher, name: &str) {
    check_all(bencher, name, &corpus().random);
}

/// Log lines, by detectors.
#[divan::bench(args = DETECTORS)]
fn log_text(bencher: Bencher, name: &str) {
    check_all(bencher, name, &corpus().logs);
}
