//! `cargo bench -p toolreplay-core`: the parser, the canonical writer, the check of
//! canonical sealed lines and the chain, on a corpus made here in memory (no files),
//! so that a small change to one of them shows, unlike whole-command timings on a
//! busy machine. Every benchmark reports bytes per second of its input.

use divan::counter::BytesCount;
use divan::{Bencher, black_box};
use toolreplay_core::check_sealed;
use toolreplay_core::parse_canonical_record;
use toolreplay_core::{Stop, Threads};
use toolreplay_core::{canonicalize_json, parse_json};

mod common;

use common::Rng;

fn main() {
    divan::main();
}

const WORDS: [&str; 12] = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "caf\u{e9}",
    "\u{65e5}\u{672c}",
    "src/main.rs",
    "fn main() {}",
    "line\\nbreak",
    "tab\\there",
    "quote\\\"d",
    "\u{1f600}",
];

/// A text of `n` words, as inside a JSON string.
fn text(rng: &mut Rng, n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(WORDS[rng.below(WORDS.len() as u64)]);
    }
    out
}

/// A transcript of about `size` bytes shaped like bench/gen_transcript.py's: keys
/// out of order, nested options, numbers, escapes and non-ASCII text, responses up to
/// a few KB.
fn transcript(size: usize) -> Vec<u8> {
    let mut rng = Rng(20240601);
    let mut out = String::new();
    let mut index = 0;
    while out.len() < size {
        let args = format!(
            r#"{{"path": "{}", "limit": {}, "options": {{"recursive": {}, "depth": {}.5, "glob": "*.{}"}}, "env": {{"B": "{}", "A": "1"}}}}"#,
            text(&mut rng, 2),
            rng.below(1000),
            rng.below(2) == 1,
            rng.below(9),
            text(&mut rng, 1),
            text(&mut rng, 3)
        );
        let words = 20 + rng.below(600);
        let response = format!(
            r#"{{"text": "{}", "lines": [{}, {}, 18446744073709551623], "score": {}e-3, "ok": true, "error": null}}"#,
            text(&mut rng, words),
            rng.below(100),
            rng.below(100_000),
            rng.below(1000)
        );
        out.push_str(&format!(
            "{{\"index\": {index}, \"tool\": \"tool_{}\", \"args\": {args}, \"response\": {response}}}\n",
            rng.below(6)
        ));
        index += 1;
    }
    out.into_bytes()
}

/// About 4 MiB of transcript, its lines, and the sealed transcript.
struct Corpus {
    transcript: Vec<u8>,
    sealed: Vec<u8>,
}

fn corpus() -> &'static Corpus {
    static CORPUS: std::sync::OnceLock<Corpus> = std::sync::OnceLock::new();
    CORPUS.get_or_init(|| {
        let transcript = transcript(4 << 20);
        let mut sealed = Vec::new();
        toolreplay_core::seal(&transcript[..], Threads::default(), |link| {
            sealed.extend_from_slice(link.as_ref());
            Ok::<(), std::convert::Infallible>(())
        })
        .map_err(Stop::into_read_error)
        .expect("the corpus is a valid transcript");
        Corpus { transcript, sealed }
    })
}

fn lines(bytes: &[u8]) -> impl Iterator<Item = &str> {
    std::str::from_utf8(bytes)
        .expect("the corpus is UTF-8")
        .lines()
}

/// Parsing every line into a tree.
#[divan::bench]
fn parse_tree(bencher: Bencher) {
    let corpus = corpus();
    bencher
        .counter(BytesCount::of_slice(&corpus.transcript))
        .bench(|| {
            for line in lines(&corpus.transcript) {
                black_box(parse_json(black_box(line)).ok());
            }
        });
}

/// Writing the canonical encoding of every line straight from its text.
#[divan::bench]
fn canonical_writer(bencher: Bencher) {
    let corpus = corpus();
    let mut out = Vec::new();
    bencher
        .counter(BytesCount::of_slice(&corpus.transcript))
        .bench_local(|| {
            for line in lines(&corpus.transcript) {
                out.clear();
                black_box(canonicalize_json(black_box(line), &mut out).ok());
            }
        });
}

/// Reading every record as the commands do: the fields checked, arguments and
/// response written in canonical form.
#[divan::bench]
fn parse_record(bencher: Bencher) {
    let corpus = corpus();
    bencher
        .counter(BytesCount::of_slice(&corpus.transcript))
        .bench(|| {
            for (i, line) in lines(&corpus.transcript).enumerate() {
                let record = parse_canonical_record(i as u64 + 1, line, i as u64);
                black_box(record.ok());
            }
        });
}

/// Parsing every sealed line the ordinary way (what a line that is not canonical
/// costs).
#[divan::bench]
fn parse_link(bencher: Bencher) {
    let corpus = corpus();
    bencher
        .counter(BytesCount::of_slice(&corpus.sealed))
        .bench(|| {
            for (i, line) in lines(&corpus.sealed).enumerate() {
                black_box(toolreplay_core::parse_link(i as u64 + 1, line).ok());
            }
        });
}

/// The whole check of the chain, as `verify` runs it (on the pipeline's threads).
#[divan::bench]
fn check_chain(bencher: Bencher) {
    let corpus = corpus();
    bencher
        .counter(BytesCount::of_slice(&corpus.sealed))
        .bench(|| black_box(check_sealed(&corpus.sealed[..], None, Threads::default()).ok()));
}

/// Sealing the transcript, as `seal` does but into memory.
#[divan::bench]
fn seal(bencher: Bencher) {
    let corpus = corpus();
    bencher
        .counter(BytesCount::of_slice(&corpus.transcript))
        .bench(|| {
            let mut len = 0;
            let sealed =
                toolreplay_core::seal(&corpus.transcript[..], Threads::default(), |link| {
                    len += link.as_ref().len();
                    Ok::<(), std::convert::Infallible>(())
                });
            black_box((sealed.is_ok(), len))
        });
}
