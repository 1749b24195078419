//! The SHA-256 hash chain of sealed transcripts (spec sections 5 and 6).

use sha2::{Digest, Sha256};

use crate::canonical;
use crate::json::Value;
use crate::transcript::{Link, Record};

/// The `prev` of the first link: 64 zeros.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Appends the canonical encoding of the four-field record
/// `{"args","index","response","tool"}`.
pub fn write_record(index: u64, tool: &str, args: &Value, response: &Value, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"args\":");
    canonical::write_value(args, out);
    out.extend_from_slice(b",\"index\":");
    out.extend_from_slice(index.to_string().as_bytes());
    out.extend_from_slice(b",\"response\":");
    canonical::write_value(response, out);
    out.extend_from_slice(b",\"tool\":");
    canonical::write_str(tool, out);
    out.push(b'}');
}

/// `digest = hex(SHA-256(prev || canonical(record)))`.
pub fn digest(prev: &str, canonical_record: &[u8]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(prev.as_bytes());
    hasher.update(canonical_record);
    hex::encode(hasher.finalize())
}

/// Turns records into links, one after another.
#[derive(Debug)]
pub struct Sealer {
    prev: String,
    scratch: Vec<u8>,
}

impl Default for Sealer {
    fn default() -> Self {
        Sealer {
            prev: GENESIS.to_owned(),
            scratch: Vec::new(),
        }
    }
}

impl Sealer {
    /// A sealer for a chain that starts at the first link.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends the sealed line of `record` (its link's canonical encoding and LF).
    pub fn seal(&mut self, record: &Record, out: &mut Vec<u8>) {
        self.scratch.clear();
        write_record(
            record.index,
            &record.tool,
            &record.args,
            &record.response,
            &mut self.scratch,
        );
        let digest = digest(&self.prev, &self.scratch);
        // The link's keys in code point order: args, digest, index, prev, response, tool.
        out.extend_from_slice(b"{\"args\":");
        canonical::write_value(&record.args, out);
        out.extend_from_slice(b",\"digest\":\"");
        out.extend_from_slice(digest.as_bytes());
        out.extend_from_slice(b"\",\"index\":");
        out.extend_from_slice(record.index.to_string().as_bytes());
        out.extend_from_slice(b",\"prev\":\"");
        out.extend_from_slice(self.prev.as_bytes());
        out.extend_from_slice(b"\",\"response\":");
        canonical::write_value(&record.response, out);
        out.extend_from_slice(b",\"tool\":");
        canonical::write_str(&record.tool, out);
        out.extend_from_slice(b"}\n");
        self.prev = digest;
    }
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
        /// What the link's call is (see [`crate::fingerprint::call`]).
        call: [u8; 32],
    },
}

/// Walks the links of a sealed transcript and remembers the first broken one.
#[derive(Debug)]
pub struct Verifier {
    position: u64,
    expected_prev: String,
    broken: Option<Verdict>,
    scratch: Vec<u8>,
}

impl Default for Verifier {
    fn default() -> Self {
        Verifier {
            position: 0,
            expected_prev: GENESIS.to_owned(),
            broken: None,
            scratch: Vec::new(),
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
                call: crate::fingerprint::call(&link.tool, &link.args),
            });
            return;
        }
        self.scratch.clear();
        write_record(
            position,
            &link.tool,
            &link.args,
            &link.response,
            &mut self.scratch,
        );
        let computed = digest(&self.expected_prev, &self.scratch);
        if computed != link.digest || *link.index != *position.to_string() {
            self.broken = Some(Verdict::Broken {
                position,
                field: BrokenField::Digest,
                expected: computed,
                found: link.digest.clone(),
                line,
                tool: link.tool.clone(),
                call: crate::fingerprint::call(&link.tool, &link.args),
            });
            return;
        }
        self.expected_prev = computed;
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
