//! The SHA-256 hash chain of sealed transcripts (spec sections 5 and 6).

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use crate::canonical;
use crate::transcript::{CanonicalLine, Link, Record};

/// The `prev` of the first link: 64 zeros.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The canonical encoding of one record in pieces, borrowed: what its digest is taken
/// of.
#[derive(Debug, Clone, Copy)]
struct RecordPieces<'a> {
    /// The index, in decimal.
    pub index: &'a str,
    /// The canonical encoding of the tool name (a quoted string).
    pub tool: &'a [u8],
    /// The canonical encoding of the arguments.
    pub args: &'a [u8],
    /// The canonical encoding of the response.
    pub response: &'a [u8],
}

impl RecordPieces<'_> {
    /// The pieces of the canonical four-field record, in order.
    fn record_pieces(&self) -> [&[u8]; 9] {
        [
            b"{\"args\":",
            self.args,
            b",\"index\":",
            self.index.as_bytes(),
            b",\"response\":",
            self.response,
            b",\"tool\":",
            self.tool,
            b"}",
        ]
    }

    /// `hex(SHA-256(prev || canonical(record)))`, hashed piece by piece.
    fn digest(&self, prev: &str) -> String {
        let mut hasher = Sha256::new();
        hasher.update(prev.as_bytes());
        for piece in self.record_pieces() {
            hasher.update(piece);
        }
        hex_string(&hasher.finalize().into())
    }
}

/// Lowercase hex digits, by value.
const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Writes `digest` in lowercase hex into the 64 bytes of `out`.
fn write_hex(digest: &[u8; 32], out: &mut [u8; 64]) {
    for (pair, byte) in out.chunks_exact_mut(2).zip(digest) {
        pair[0] = HEX_DIGITS[usize::from(byte >> 4)];
        pair[1] = HEX_DIGITS[usize::from(byte & 15)];
    }
}

/// `digest` in lowercase hex.
fn hex_string(digest: &[u8; 32]) -> String {
    let mut hex = [0; 64];
    write_hex(digest, &mut hex);
    hex.iter().map(|&b| char::from(b)).collect()
}

/// What comes between a link's arguments and its digest.
const DIGEST_KEY: &[u8] = b",\"digest\":\"";
/// What comes between a link's index and its `prev`.
const PREV_KEY: &[u8] = b",\"prev\":\"";

/// The sealed line of a record made apart from the chain (on any thread, in any
/// order): the link with its digest and `prev` left blank, for [`Sealer::seal_link`]
/// to fill in, in order. The record's canonical encoding, which the digest is taken
/// of, is in the line in three runs, so the line is the only copy made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsealedLink {
    /// `{"args":A,"digest":"D","index":I,"prev":"P","response":R,"tool":T}` and LF.
    line: Vec<u8>,
    /// Where `{"args":A` ends.
    args_end: usize,
    /// Where `","index":I` ends.
    index_end: usize,
}

impl UnsealedLink {
    /// The unsealed link of a record with index `index` (decimal digits), whose
    /// arguments and response are in canonical form.
    pub fn new(index: &str, tool: &str, args: &[u8], response: &[u8]) -> UnsealedLink {
        let mut line = Vec::with_capacity(args.len() + response.len() + tool.len() + 200);
        line.extend_from_slice(LINK_START);
        line.extend_from_slice(args);
        let args_end = line.len();
        let index_end = write_link_middle(index, &mut line);
        line.extend_from_slice(response);
        write_link_end(tool, false, &mut line);
        UnsealedLink {
            line,
            args_end,
            index_end,
        }
    }

    /// The line, where `{"args":A` ends in it, and where `","index":I` does.
    pub(crate) fn parts(&self) -> (&[u8], usize, usize) {
        (&self.line, self.args_end, self.index_end)
    }
}

/// How an unsealed link's line starts, before its canonical arguments.
pub(crate) const LINK_START: &[u8] = b"{\"args\":";

/// Appends what comes between an unsealed link's arguments and its response: the
/// blank digest, the index `index` (decimal digits) and the blank `prev`. Gives where
/// the index ends in `out`.
pub(crate) fn write_link_middle(index: &str, out: &mut Vec<u8>) -> usize {
    out.extend_from_slice(DIGEST_KEY);
    out.extend_from_slice(&[b'0'; 64]);
    out.extend_from_slice(b"\",\"index\":");
    out.extend_from_slice(index.as_bytes());
    let index_end = out.len();
    out.extend_from_slice(PREV_KEY);
    out.extend_from_slice(&[b'0'; 64]);
    out.extend_from_slice(b"\",\"response\":");
    index_end
}

/// Appends what comes after an unsealed link's response: the tool, `}` and LF.
/// `plain` says the tool's name is its own canonical form, so it is copied.
pub(crate) fn write_link_end(tool: &str, plain: bool, out: &mut Vec<u8>) {
    out.extend_from_slice(b",\"tool\":");
    if plain {
        out.push(b'"');
        out.extend_from_slice(tool.as_bytes());
        out.push(b'"');
    } else {
        canonical::write_str(tool, out);
    }
    out.extend_from_slice(b"}\n");
}

impl AsRef<[u8]> for UnsealedLink {
    /// The sealed line, once [`Sealer::seal_link`] has filled it in.
    fn as_ref(&self) -> &[u8] {
        &self.line
    }
}

/// Turns records into links, one after another.
#[derive(Debug)]
pub struct Sealer {
    prev: String,
}

impl Default for Sealer {
    fn default() -> Self {
        Sealer {
            prev: GENESIS.to_owned(),
        }
    }
}

impl Sealer {
    /// A sealer for a chain that starts at the first link.
    pub fn new() -> Self {
        Self::default()
    }

    /// A sealer for a chain that goes on after the link whose digest is `head` (the
    /// record's index says where).
    pub fn after(head: &str) -> Self {
        Sealer {
            prev: head.to_owned(),
        }
    }

    /// The digest the next link continues from: the last link sealed (or the `head`
    /// it was started after, or the genesis).
    pub fn head(&self) -> &str {
        &self.prev
    }

    /// Appends the sealed line of `record` (its link's canonical encoding and LF).
    pub fn seal(&mut self, record: &Record, out: &mut Vec<u8>) {
        let mut link = UnsealedLink::new(
            &record.index.to_string(),
            &record.tool,
            &canonical::encode(&record.args),
            &canonical::encode(&record.response),
        );
        self.seal_link(&mut link);
        out.extend_from_slice(link.as_ref());
    }

    /// Fills in the digest and `prev` of the next link, `link`, which is then its
    /// sealed line. The link's index must be its place in the chain.
    pub fn seal_link(&mut self, link: &mut UnsealedLink) {
        let line = &mut link.line;
        let prev_at = link.index_end + PREV_KEY.len();
        if self.prev.len() != 64 {
            // `prev` is a digest or the genesis, 64 characters, unless a sealer was
            // started after something else; then the line makes room for it.
            let prev = self.prev.as_bytes().iter().copied();
            drop(line.splice(prev_at..prev_at + 64, prev));
            let digest = self.seal_with_prev(line, link.args_end, link.index_end);
            self.set_prev(&digest);
            return;
        }
        self.seal_line(line, link.args_end, link.index_end);
    }

    /// Fills in the digest and `prev` of the next link, whose unsealed line (as
    /// [`UnsealedLink`] makes it, with its LF) is `line`, `{"args":A` ending at
    /// `args_end` and `","index":I` at `index_end`. The sealer's head must be 64
    /// characters long, as a digest is.
    pub(crate) fn seal_line(&mut self, line: &mut [u8], args_end: usize, index_end: usize) {
        let prev_at = index_end + PREV_KEY.len();
        line[prev_at..prev_at + 64].copy_from_slice(self.prev.as_bytes());
        let digest = self.seal_with_prev(line, args_end, index_end);
        self.set_prev(&digest);
    }

    /// Hashes the line whose `prev` is filled in, and writes the digest into it.
    fn seal_with_prev(&self, line: &mut [u8], args_end: usize, index_end: usize) -> [u8; 64] {
        let digest_at = args_end + DIGEST_KEY.len();
        let prev_end = index_end + PREV_KEY.len() + self.prev.len();
        let mut hasher = Sha256::new();
        hasher.update(self.prev.as_bytes());
        hasher.update(&line[..args_end]);
        hasher.update(&line[digest_at + 65..index_end]);
        hasher.update(&line[prev_end + 1..line.len() - 1]);
        let mut digest = [0; 64];
        write_hex(&hasher.finalize().into(), &mut digest);
        line[digest_at..digest_at + 64].copy_from_slice(&digest);
        digest
    }

    fn set_prev(&mut self, digest: &[u8; 64]) {
        self.prev.clear();
        // Hex digits, so always valid UTF-8.
        self.prev
            .push_str(std::str::from_utf8(digest).unwrap_or_default());
    }
}

/// The digest of a link's record computed as the link states it: with its own
/// `index` and after its own `prev`.
pub fn stated_digest(link: &Link) -> String {
    let mut tool = Vec::with_capacity(link.tool.len() + 2);
    canonical::write_str(&link.tool, &mut tool);
    RecordPieces {
        index: &link.index,
        tool: &tool,
        args: &link.args,
        response: &link.response,
    }
    .digest(&link.prev)
}

/// The digest of the link of a canonical sealed line computed as the link states it,
/// like [`stated_digest`], in lowercase hex: hashed from the line as it is.
pub(crate) fn stated_line_digest(line: &CanonicalLine<'_>) -> [u8; 64] {
    let mut hasher = Sha256::new();
    hasher.update(line.prev.as_bytes());
    for run in line.record {
        hasher.update(run);
    }
    let mut hex = [0; 64];
    write_hex(&hasher.finalize().into(), &mut hex);
    hex
}

/// Which check of spec section 6 found the first broken link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrokenField {
    /// The link's `prev` is not the previous link's digest.
    Prev,
    /// The link's `digest` (or its index) does not match its content.
    Digest,
}

/// The verdict on a sealed transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every link checks out.
    Intact {
        /// How many links the chain has.
        links: u64,
        /// The digest of the last link (zeros for an empty chain).
        head: String,
    },
    /// The first link that does not check out.
    Broken {
        /// Its position, 0-based, blank lines not counted.
        position: u64,
        /// Which check failed.
        field: BrokenField,
        /// What the field should hold.
        expected: String,
        /// What it holds.
        found: String,
        /// The physical line of the link.
        line: u64,
        /// The link's tool.
        tool: String,
        /// What the link's call is (see `crate::fingerprint::call_canonical`).
        call: [u8; 32],
    },
}

/// Walks the links of a sealed transcript and remembers the first broken one.
#[derive(Debug)]
pub struct Verifier {
    position: u64,
    expected_prev: String,
    broken: Option<Verdict>,
    index: String,
    tool: Vec<u8>,
}

impl Default for Verifier {
    fn default() -> Self {
        Verifier {
            position: 0,
            expected_prev: GENESIS.to_owned(),
            broken: None,
            index: String::new(),
            tool: Vec::new(),
        }
    }
}

impl Verifier {
    /// A verifier at the start of a chain.
    pub fn new() -> Self {
        Self::default()
    }

    /// Checks the next link, found on physical line `line`. Once a link is broken,
    /// later links are not checked.
    pub fn check(&mut self, line: u64, link: &Link) {
        self.check_hashed(line, link, None);
    }

    /// Checks the next link like [`Verifier::check`], given the digest of its record
    /// computed as it stands (with its own `index` and `prev`, see
    /// [`stated_digest`]), which is what the check computes whenever the link is
    /// right; it can be computed ahead, on another thread.
    pub fn check_hashed(&mut self, line: u64, link: &Link, stated: Option<&str>) {
        if self.broken.is_some() {
            return;
        }
        let position = self.position;
        if link.prev != self.expected_prev {
            self.broken = Some(Verdict::Broken {
                position,
                field: BrokenField::Prev,
                expected: self.expected_prev.clone(),
                found: link.prev.clone(),
                line,
                tool: link.tool.clone(),
                call: crate::fingerprint::call_canonical(&link.tool, &link.args),
            });
            return;
        }
        self.index.clear();
        // Writing to a String cannot fail.
        let _ = write!(self.index, "{position}");
        // Here `prev` is the expected one, so when the index is the position too the
        // stated digest is the computed one.
        let computed = match stated {
            Some(stated) if *link.index == *self.index => stated.to_owned(),
            _ => {
                self.tool.clear();
                canonical::write_str(&link.tool, &mut self.tool);
                RecordPieces {
                    index: &self.index,
                    tool: &self.tool,
                    args: &link.args,
                    response: &link.response,
                }
                .digest(&self.expected_prev)
            }
        };
        if computed != link.digest || *link.index != *self.index {
            self.broken = Some(Verdict::Broken {
                position,
                field: BrokenField::Digest,
                expected: computed,
                found: link.digest.clone(),
                line,
                tool: link.tool.clone(),
                call: crate::fingerprint::call_canonical(&link.tool, &link.args),
            });
            return;
        }
        self.expected_prev = computed;
        self.position += 1;
    }

    /// Passes the next link when it checks out, given its index, `prev` and digest as
    /// written and the digest of its record as it stands (see [`stated_digest`]);
    /// returns `false`, and records nothing, when it does not: then the link must go
    /// to [`Verifier::check_hashed`], which says how it is broken. Once a link is
    /// broken, this passes every link.
    pub fn pass_stated(&mut self, index: u64, prev: &str, digest: &str, stated: &str) -> bool {
        if self.broken.is_some() {
            return true;
        }
        if index != self.position || prev != self.expected_prev || stated != digest {
            return false;
        }
        self.pass(digest);
        true
    }

    /// Passes the next link, one known to check out whenever the link before it
    /// does: its `prev` is the digest of the link before it, its index one more,
    /// and its digest that of its record as it stands.
    pub fn pass_chained(&mut self, digest: &str) {
        if self.broken.is_none() {
            self.pass(digest);
        }
    }

    fn pass(&mut self, digest: &str) {
        self.expected_prev.clear();
        self.expected_prev.push_str(digest);
        self.position += 1;
    }

    /// The verdict on the links seen.
    pub fn finish(self) -> Verdict {
        self.broken.unwrap_or(Verdict::Intact {
            links: self.position,
            head: self.expected_prev,
        })
    }
}
