//! Reading a sealed transcript: [`check`] is the one reader of the chain that
//! `verify`, `head`, `verify --head`, `verify --signature`, `seal --append` and
//! `sign` all use; the last four build on an intact chain and its head.

use std::io::Read;
use std::sync::{Mutex, PoisonError};

use crate::chain::{self, GENESIS, Sealer, UnsealedLink, Verdict, Verifier};
use crate::json;
use crate::pipeline::{self, Stop, Threads};
use crate::transcript::{self, LineError, Link, ReadError, canonical_line, line_text, parse_link};

/// The head of an intact chain: how many links it has and the last digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// How many links the chain has.
    pub links: u64,
    /// The digest of the last link (64 zeros for an empty chain).
    pub digest: String,
}

/// What checking a sealed transcript found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The verdict on the chain, as `verify` gives it.
    pub verdict: Verdict,
    /// When the chain is intact and `look_for` was given: after how many links the
    /// chain's digest was `look_for` (0 for the zeros before the first link).
    pub found_at: Option<u64>,
}

impl Checked {
    /// The head of the chain when it is intact.
    pub fn head(&self) -> Option<Head> {
        match &self.verdict {
            Verdict::Intact { links, head } => Some(Head {
                links: *links,
                digest: head.clone(),
            }),
            Verdict::Broken { .. } => None,
        }
    }
}

/// Seals the transcript read from `reader` (spec section 6): hands the sealed lines
/// (each link's canonical encoding and LF) to `sink`, in order, a block of lines at a
/// time. A placed record's index, as written, is the decimal form of its place, so
/// the lines are made on the parsing threads, each record's canonical arguments and
/// response written straight into its line; only the chain's hashing is left to the
/// walk in input order. `sink` gets nothing once an input error is met, so a caller
/// that holds the lines back until the end writes all or nothing.
///
/// ```
/// let transcript = "{\"index\": 0, \"tool\": \"search\", \"args\": {\"q\": \"x\"}, \"response\": {}}\n";
/// let mut sealed = Vec::new();
/// toolreplay_core::seal(transcript.as_bytes(), toolreplay_core::Threads::default(), |lines| {
///     sealed.extend_from_slice(lines.as_ref());
///     Ok::<(), std::convert::Infallible>(())
/// })
/// .map_err(toolreplay_core::Stop::into_read_error)?;
/// let checked = toolreplay_core::check_sealed(&sealed[..], None, toolreplay_core::Threads::default())?;
/// assert_eq!(checked.head().map(|head| head.links), Some(1));
/// # Ok::<(), toolreplay_core::ReadError>(())
/// ```
pub fn seal<E: Send>(
    reader: impl Read + Send,
    threads: Threads,
    sink: impl FnMut(SealedLines) -> Result<(), E> + Send,
) -> Result<(), Stop<E>> {
    seal_reusing(reader, threads, &Buffers::new(), sink)
}

/// [`seal`], making each block's lines in a buffer taken from `buffers` when one
/// was given back there ([`Buffers::give_back`]), rather than in fresh memory.
pub fn seal_reusing<E: Send>(
    reader: impl Read + Send,
    threads: Threads,
    buffers: &Buffers,
    mut sink: impl FnMut(SealedLines) -> Result<(), E> + Send,
) -> Result<(), Stop<E>> {
    let mut sealer = Sealer::new();
    let mut count = 0u64;
    let parse = |first_line, bytes: &[u8], items: &mut Vec<(u64, UnsealedBlock)>| {
        unsealed_block(first_line, bytes, buffers.take(), items)
    };
    pipeline::run_blocks(reader, threads, parse, |_, mut block: UnsealedBlock| {
        for link in &block.links {
            if link.index != Some(count) {
                let line = &block.lines[link.start..link.end];
                let digits = &line[link.args_end + INDEX_FROM_ARGS..link.index_end];
                let digits = std::str::from_utf8(digits).unwrap_or_default();
                let err = transcript::out_of_order(link.line, digits, count);
                // The lines before it are sealed: they go to the sink, as one by one.
                block.lines.truncate(link.start);
                if !block.lines.is_empty() {
                    sink(SealedLines(block.lines)).map_err(Stop::Consume)?;
                }
                return Err(Stop::Read(ReadError::Input(err)));
            }
            let line = &mut block.lines[link.start..link.end];
            sealer.seal_line(line, link.args_end, link.index_end);
            count += 1;
        }
        if block.lines.is_empty() {
            return Ok(());
        }
        sink(SealedLines(block.lines)).map_err(Stop::Consume)
    })
    .map_err(Stop::flatten)
}

/// Sealed lines of a transcript, one after another, each with its LF: what
/// [`seal`] hands over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedLines(Vec<u8>);

impl AsRef<[u8]> for SealedLines {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// Buffers of sealed lines handed back once written, for [`seal_reusing`] to make
/// later blocks in. At most [`Buffers::KEPT`] are kept, of at most
/// [`Buffers::LARGEST`] bytes each (a block of one very long line is not kept); any
/// more are dropped.
#[derive(Debug, Default)]
pub struct Buffers(Mutex<Vec<Vec<u8>>>);

impl Buffers {
    /// How many buffers are kept at most: about as many as there are blocks under
    /// way at once.
    pub const KEPT: usize = 24;

    /// The size of a buffer made for an ordinary block: twice
    /// [`pipeline::BLOCK_BYTES`], room for such a block sealed (about a quarter
    /// longer) with some to spare.
    const ORDINARY: usize = 2 * pipeline::BLOCK_BYTES;

    /// The largest buffer kept: a few blocks' worth.
    pub const LARGEST: usize = 8 * pipeline::BLOCK_BYTES;

    /// No buffers yet.
    pub fn new() -> Self {
        Buffers::default()
    }

    /// Keeps the buffer of `lines` for a later block (its bytes are not read again).
    pub fn give_back(&self, lines: SealedLines) {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() < Self::KEPT && lines.0.capacity() <= Self::LARGEST {
            kept.push(lines.0);
        }
    }

    /// A buffer given back, emptied, or a new one.
    fn take(&self) -> Vec<u8> {
        let taken = self.0.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let mut buffer = taken.unwrap_or_default();
        buffer.clear();
        buffer
    }
}

impl From<SealedLines> for Vec<u8> {
    fn from(lines: SealedLines) -> Vec<u8> {
        lines.0
    }
}

/// How far a link's index is from the end of its arguments: past the blank
/// digest, to the index's digits.
const INDEX_FROM_ARGS: usize = b",\"digest\":\"".len() + 64 + b"\",\"index\":".len();

/// The unsealed links of a block of lines, one after another in one buffer, for the
/// walk in order to seal.
struct UnsealedBlock {
    lines: Vec<u8>,
    links: Vec<LinkPlace>,
}

/// Where one unsealed link is in its block's buffer, and its index.
struct LinkPlace {
    /// Its physical line.
    line: u64,
    /// The index as written, when it fits 64 bits.
    index: Option<u64>,
    /// The link's line, LF included.
    start: usize,
    end: usize,
    /// Where `{"args":A` and `","index":I` end, from `start`.
    args_end: usize,
    index_end: usize,
}

/// The unsealed links of the lines of a block of a transcript, as
/// [`pipeline::run_blocks`] asks.
fn unsealed_block(
    first_line: u64,
    bytes: &[u8],
    mut lines: Vec<u8>,
    items: &mut Vec<(u64, UnsealedBlock)>,
) -> Option<ReadError> {
    // A sealed line is about as long as its record, and 170 bytes more. Buffers are
    // made of one size that holds an ordinary block, so that any of them can be
    // used again for the next; a buffer given back that is too small for a block
    // (of a long line) is not grown, which would copy it, but replaced.
    let needed = bytes.len() + bytes.len() / 4 + 4096;
    if lines.capacity() < needed {
        lines = Vec::with_capacity(needed.max(Buffers::ORDINARY));
    }
    let mut block = UnsealedBlock {
        lines,
        links: Vec::new(),
    };
    let error = pipeline::for_each_line(first_line, bytes, |line, text| {
        let place = unsealed_line(line, text, &mut block.lines)?;
        block.links.push(place);
        Ok(())
    });
    items.push((first_line, block));
    error
}

/// Appends the unsealed link of the record on physical line `line`, `text`, to
/// `lines`: written there as it is read when its members come in the usual order
/// (the index before the arguments, the arguments before the response), else made
/// from the record read the ordinary way.
fn unsealed_line(line: u64, text: &str, lines: &mut Vec<u8>) -> Result<LinkPlace, LineError> {
    let start = lines.len();
    let direct = json::with_record_scratch(|scratch, _| {
        let mut index_end = None;
        let mut args_start = None;
        let fields = json::read_record(text, scratch, lines, |before, out| {
            match (before.object, before.index) {
                (json::Object::Args, _) if !before.other_written => {
                    out.extend_from_slice(chain::LINK_START);
                    args_start = Some(out.len());
                }
                (json::Object::Response, Some(index))
                    if before.other_written && args_start.is_some() =>
                {
                    index_end = Some(chain::write_link_middle(index, out));
                }
                _ => {}
            }
        })?;
        let index = fields.index.parse::<u64>().ok();
        match (args_start, index_end) {
            (Some(args_start), Some(index_end))
                if args_start == start + chain::LINK_START.len() =>
            {
                chain::write_link_end(fields.tool, fields.tool_plain, lines);
                Some(LinkPlace {
                    line,
                    index,
                    start,
                    end: lines.len(),
                    args_end: fields.args.end - start,
                    index_end: index_end - start,
                })
            }
            _ => {
                // Members in another order: the line made from the pieces.
                let link = UnsealedLink::new(
                    fields.index,
                    fields.tool,
                    &lines[fields.args.clone()],
                    &lines[fields.response.clone()],
                );
                lines.truncate(start);
                Some(push_link(line, index, &link, lines))
            }
        }
    });
    if let Some(place) = direct {
        return Ok(place);
    }
    lines.truncate(start);
    let unplaced = transcript::parse_unplaced_with(line, text, |record| {
        (
            record.index.parse::<u64>().ok(),
            UnsealedLink::new(record.index, record.tool, record.args, record.response),
        )
    })?;
    let (index, link) = &unplaced.value;
    Ok(push_link(line, *index, link, lines))
}

/// Appends the unsealed `link` of physical line `line` to `lines`.
fn push_link(line: u64, index: Option<u64>, link: &UnsealedLink, lines: &mut Vec<u8>) -> LinkPlace {
    let (bytes, args_end, index_end) = link.parts();
    let start = lines.len();
    lines.extend_from_slice(bytes);
    LinkPlace {
        line,
        index,
        start,
        end: lines.len(),
        args_end,
        index_end,
    }
}

/// Checks the sealed transcript read from `reader` as `verify` does, reading it whole
/// (so an input error anywhere is reported even after a broken link), and notes where
/// the chain's digest was `look_for`. Each link's digest is computed on the parsing
/// threads as the link states it; the walk in order only compares.
///
/// ```
/// use toolreplay_core::Verdict;
///
/// let sealed = "{\"args\":{},\"digest\":\"0\",\"index\":0,\"prev\":\"0\",\"response\":{},\"tool\":\"t\"}\n";
/// let checked = toolreplay_core::check_sealed(sealed.as_bytes(), None, toolreplay_core::Threads::default())?;
/// assert!(matches!(checked.verdict, Verdict::Broken { position: 0, .. }));
/// # Ok::<(), toolreplay_core::ReadError>(())
/// ```
pub fn check(
    reader: impl Read + Send,
    look_for: Option<&str>,
    threads: Threads,
) -> Result<Checked, ReadError> {
    let mut verifier = Verifier::new();
    let mut found_at = look_for.filter(|digest| *digest == GENESIS).map(|_| 0);
    let mut seen = 0u64;
    pipeline::run_blocks(
        reader,
        threads,
        check_block,
        |line, checked: CheckedLine| {
            let digest = match &checked {
                CheckedLine::Chained { digest } => {
                    let digest = ascii(digest);
                    verifier.pass_chained(digest);
                    digest
                }
                CheckedLine::Canonical {
                    index,
                    prev,
                    digest,
                    stated,
                    text,
                } => {
                    let (digest, stated) = (ascii(digest), ascii(stated));
                    if !verifier.pass_stated(*index, ascii(prev), digest, stated) {
                        // Broken here: the verdict needs the link whole.
                        let text = std::str::from_utf8(text).unwrap_or_default();
                        let link = parse_link(line, text).map_err(ReadError::Input)?;
                        verifier.check_hashed(line, &link, Some(stated));
                    }
                    digest
                }
                CheckedLine::Parsed { link, stated } => {
                    verifier.check_hashed(line, link, Some(stated));
                    &link.digest
                }
            };
            seen += 1;
            if found_at.is_none() && look_for == Some(digest) {
                found_at = Some(seen);
            }
            Ok::<(), ReadError>(())
        },
    )
    .map_err(|stop| match stop {
        Stop::Read(err) | Stop::Consume(err) => err,
    })?;
    let verdict = verifier.finish();
    if !matches!(verdict, Verdict::Intact { .. }) {
        found_at = None;
    }
    Ok(Checked { verdict, found_at })
}

/// A line of a sealed transcript as the parsing threads leave it for the walk.
enum CheckedLine {
    /// A canonical line that checks out whenever the link before it does (it is the
    /// next line of the same block, its `prev` the digest of that link, its index
    /// one more, and its digest that of its record): only its digest is kept.
    Chained { digest: [u8; 64] },
    /// A canonical line checked on its own, its text kept for the verdict in case
    /// it does not check out.
    Canonical {
        index: u64,
        prev: [u8; 64],
        digest: [u8; 64],
        stated: [u8; 64],
        text: Box<[u8]>,
    },
    /// A line parsed the ordinary way, and the digest of its link as it stands.
    Parsed { link: Link, stated: String },
}

/// Hex digits as text (they are ASCII).
fn ascii(hex: &[u8; 64]) -> &str {
    std::str::from_utf8(hex).unwrap_or_default()
}

/// Reads the lines of a block of a sealed transcript for [`check`]. A line that is
/// exactly the canonical encoding of its link, as `seal` writes it, is checked as it
/// stands and hashed from its own bytes; any other is parsed the ordinary way, which
/// gives the exact error when there is one.
fn check_block(
    first_line: u64,
    bytes: &[u8],
    items: &mut Vec<(u64, CheckedLine)>,
) -> Option<ReadError> {
    // The index and digest of the link on the line before, when it is canonical and
    // its digest is that of its record.
    let mut before: Option<(u64, [u8; 64])> = None;
    let block = bytes;
    for (line, range) in (first_line..).zip(crate::pipeline::line_ranges(block)) {
        let bytes = &block[range];
        let text = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
            Some(after_bom) if line == 1 => after_bom,
            _ => bytes,
        };
        if let Some(canonical) = canonical_line(text) {
            let stated = chain::stated_line_digest(&canonical);
            let mut digest = [0; 64];
            digest.copy_from_slice(canonical.digest.as_bytes());
            let chained = stated == digest
                && before.is_some_and(|(index, digest)| {
                    index.checked_add(1) == Some(canonical.index)
                        && canonical.prev.as_bytes() == digest
                });
            before = (stated == digest).then_some((canonical.index, digest));
            let checked = if chained {
                CheckedLine::Chained { digest }
            } else {
                let mut prev = [0; 64];
                prev.copy_from_slice(canonical.prev.as_bytes());
                CheckedLine::Canonical {
                    index: canonical.index,
                    prev,
                    digest,
                    stated,
                    text: text.into(),
                }
            };
            items.push((line, checked));
        } else {
            match line_text(line, bytes) {
                Ok(None) => {}
                Ok(Some(text)) => match parse_link(line, text) {
                    Ok(link) => {
                        before = None;
                        let stated = chain::stated_digest(&link);
                        items.push((line, CheckedLine::Parsed { link, stated }));
                    }
                    Err(err) => return Some(ReadError::Input(err)),
                },
                Err(err) => return Some(ReadError::Input(err)),
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::Links;

    /// What sealing `transcript` gives: the sealed bytes handed to the sink, and the
    /// error, if any.
    fn sealed_by_blocks(transcript: &[u8]) -> (Vec<u8>, Option<String>) {
        let mut out = Vec::new();
        let result = seal(transcript, Threads::default(), |lines| {
            out.extend_from_slice(lines.as_ref());
            Ok::<(), std::convert::Infallible>(())
        });
        let error = result.err().map(|stop| stop.into_read_error().to_string());
        // Made again in buffers handed back, full of the lines before: the same.
        let buffers = Buffers::new();
        let mut again = Vec::new();
        let result = seal_reusing(transcript, Threads::default(), &buffers, |lines| {
            again.extend_from_slice(lines.as_ref());
            buffers.give_back(lines);
            Ok::<(), std::convert::Infallible>(())
        });
        let again_error = result.err().map(|stop| stop.into_read_error().to_string());
        assert!(again == out);
        assert_eq!(again_error, error);
        (out, error)
    }

    /// What sealing `transcript` record by record from trees gives.
    fn sealed_by_records(transcript: &[u8]) -> (Vec<u8>, Option<String>) {
        let mut out = Vec::new();
        let mut sealer = Sealer::new();
        for record in crate::transcript::Records::new(transcript) {
            match record {
                Ok((_, record)) => sealer.seal(&record, &mut out),
                Err(err) => return (out, Some(err.to_string())),
            }
        }
        (out, None)
    }

    /// Lines written straight into their links and lines made the ordinary way (the
    /// members in another order, keys with escapes, tools to escape) seal as records
    /// do, across blocks; at an error, the links before it and the same error.
    #[test]
    fn sealing_by_blocks_is_sealing_record_by_record() {
        let shapes = [
            "{\"index\": I, \"tool\": \"t\", \"args\": {\"b\": [1, 2.50]}, \"response\": {\"t\": \"PAD\"}}",
            "{\"args\": {}, \"index\": I, \"response\": {\"t\": \"PAD\"}, \"tool\": \"caf\\u00e9\"}",
            "{\"index\": I, \"response\": {\"t\": \"PAD\"}, \"args\": {\"z\": 1, \"a\": 2}, \"tool\": \"t\\\"q\"}",
            "{\"tool\": \"\\u0074\", \"args\": {}, \"response\": {\"t\": \"PAD\"}, \"index\": I}",
            "{\"\\u0069ndex\": I, \"tool\": \"t\", \"args\": {}, \"response\": {\"t\": \"PAD\"}}",
            "{\"index\": I, \"tool\": \"\\u65e5\", \"args\": {}, \"response\": {\"t\": \"PAD\"}}",
            "  \r",
        ];
        let mut transcript = String::from("\u{feff}");
        let mut index = 0;
        for i in 0..3000usize {
            let shape = shapes[i % shapes.len()];
            let pad = "p\\n\u{e9}".repeat((i * 7919) % 300);
            transcript.push_str(&shape.replace('I', &index.to_string()).replace("PAD", &pad));
            transcript.push('\n');
            if !shape.trim().is_empty() {
                index += 1;
            }
        }
        let whole = transcript.as_bytes();
        let (out, error) = sealed_by_blocks(whole);
        assert_eq!(error, None);
        assert!(out == sealed_by_records(whole).0);
        // An error in the middle: a wrong index, then a bad line.
        let cut = transcript.len() / 2;
        let cut = cut + transcript[cut..].find('\n').unwrap_or(0) + 1;
        for bad in [
            "{\"index\": 5, \"tool\": \"t\", \"args\": {}, \"response\": {}}\n",
            "{\"index\": 5, \"tool\": \"t\", \"args\": {}}\n",
            "{\"index\": -1, \"tool\": \"t\", \"args\": {}, \"response\": {}}\n",
        ] {
            let broken = format!("{}{bad}{}", &transcript[..cut], &transcript[cut..]);
            let (out, error) = sealed_by_blocks(broken.as_bytes());
            let (expected, expected_error) = sealed_by_records(broken.as_bytes());
            assert!(expected_error.is_some());
            assert_eq!(error, expected_error);
            assert!(out == expected);
        }
    }

    /// The verdict of the plain sequential walk: every line parsed the ordinary way.
    fn sequential(sealed: &[u8]) -> Result<Verdict, String> {
        let mut verifier = Verifier::new();
        for link in Links::new(sealed) {
            let (line, link) = link.map_err(|err| err.to_string())?;
            verifier.check(line, &link);
        }
        Ok(verifier.finish())
    }

    /// A sealed transcript of many blocks, its records of many sizes.
    fn sealed(records: usize) -> Vec<u8> {
        let mut transcript = String::new();
        for i in 0..records {
            let text = "x\u{e9}\\n".repeat((i * 7919) % 800);
            transcript.push_str(&format!(
                "{{\"index\": {i}, \"tool\": \"t{}\", \"args\": {{\"z\": {i}, \"a\": [1.5, -0.0, 1e300]}}, \"response\": {{\"text\": \"{text}\"}}}}\n",
                i % 3
            ));
        }
        let mut out = Vec::new();
        seal(transcript.as_bytes(), Threads::default(), |link| {
            out.extend_from_slice(link.as_ref());
            Ok::<(), std::convert::Infallible>(())
        })
        .map_err(Stop::into_read_error)
        .unwrap();
        out
    }

    /// Whatever is done to the lines, `check` gives the verdict of the sequential
    /// walk: the canonical lines read as they are, the others parsed.
    #[test]
    fn check_gives_the_verdict_of_the_sequential_walk() {
        let sealed = sealed(400);
        assert!(sealed.len() > 4 * crate::pipeline::BLOCK_BYTES);
        let lines: Vec<&[u8]> = sealed.split_inclusive(|&b| b == b'\n').collect();
        let joined = |lines: &[Vec<u8>]| lines.concat();
        let mut cases: Vec<Vec<Vec<u8>>> = vec![lines.iter().map(|l| l.to_vec()).collect()];
        for at in [0, 1, 200, 399] {
            let mut edited: Vec<Vec<u8>> = lines.iter().map(|l| l.to_vec()).collect();
            // A byte of the response changed.
            let line = &mut edited[at];
            let pos = line.len() - 20;
            line[pos] = if line[pos] == b'a' { b'b' } else { b'a' };
            cases.push(edited);
            let mut removed: Vec<Vec<u8>> = lines.iter().map(|l| l.to_vec()).collect();
            removed.remove(at);
            cases.push(removed);
            let mut swapped: Vec<Vec<u8>> = lines.iter().map(|l| l.to_vec()).collect();
            swapped.swap(at, (at + 1) % 400);
            cases.push(swapped);
            // Not canonical but the same link: spaces, and keys out of order.
            let mut spaced: Vec<Vec<u8>> = lines.iter().map(|l| l.to_vec()).collect();
            let text = String::from_utf8(spaced[at].clone()).unwrap();
            spaced[at] = text.replacen("{\"args\":", "{ \"args\" : ", 1).into_bytes();
            cases.push(spaced);
            let mut blank: Vec<Vec<u8>> = lines.iter().map(|l| l.to_vec()).collect();
            blank.insert(at, b" \r\n".to_vec());
            cases.push(blank);
            let mut bad: Vec<Vec<u8>> = lines.iter().map(|l| l.to_vec()).collect();
            bad[at] = b"{\"args\":{}}\n".to_vec();
            cases.push(bad);
        }
        for (i, case) in cases.iter().enumerate() {
            let bytes = joined(case);
            let got = check(&bytes[..], None, Threads::default())
                .map(|checked| checked.verdict)
                .map_err(|err| err.to_string());
            assert_eq!(got, sequential(&bytes), "case {i}");
        }
        // Where the chain's digest was a given one: after the link that has it.
        let head = |n: usize| {
            let line = std::str::from_utf8(lines[n - 1]).unwrap();
            parse_link(n as u64, line.trim_end()).unwrap().digest
        };
        for n in [1, 2, 300, 400] {
            let found = check(&sealed[..], Some(&head(n)), Threads::default())
                .unwrap()
                .found_at;
            assert_eq!(found, Some(n as u64));
        }
    }

    /// Random single-byte edits (changed, inserted, removed) anywhere in a sealed
    /// transcript of several blocks: `check` gives the verdict, or the error, of the
    /// sequential walk every time. The bytes used are those that change what a
    /// canonical line means: quotes, escapes, digits, signs, braces, separators,
    /// spaces and a non-ASCII byte.
    #[test]
    fn check_agrees_with_the_walk_after_random_edits() {
        let sealed = sealed(300);
        let alphabet = b"\"\\{}[]:,0123456789-+.eEu aAtfn\r\n\x01\xc3";
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
        for round in 0..120 {
            let mut bytes = sealed.clone();
            for _ in 0..1 + next(3) {
                let at = next(bytes.len());
                let byte = alphabet[next(alphabet.len())];
                match next(3) {
                    0 => bytes[at] = byte,
                    1 => bytes.insert(at, byte),
                    _ => {
                        bytes.remove(at);
                    }
                }
            }
            let want = sequential(&bytes);
            // On one thread, on both cores, and on more threads than blocks under way.
            for threads in [1, 2, 5] {
                let got = check(&bytes[..], None, Threads::new(threads))
                    .map(|checked| checked.verdict)
                    .map_err(|err| err.to_string());
                assert_eq!(got, want, "round {round}, {threads} threads");
            }
        }
    }
}
