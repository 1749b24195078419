//! The signed statement of a chain's head, and pinned heads.
//!
//! The statement is three lines, each ending with LF, in the spirit of a C2SP
//! checkpoint:
//!
//! ```text
//! toolreplay/sealed-transcript/v1
//! 6
//! 0fa1...64 lowercase hex digits
//! ```
//!
//! the format, the number of links and the digest of the last link (64 zeros for an
//! empty chain). It is exactly the message that `sign` signs, and what `verify
//! --head` accepts as a pinned head, as does a bare 64-digit digest.

use crate::error::LineError;
use crate::sealed::Head;

/// The first line of the statement: what it is about, and its version.
pub const ORIGIN: &str = "toolreplay/sealed-transcript/v1";

/// The largest head file worth reading, in bytes.
pub const MAX_HEAD_BYTES: u64 = 4096;

/// The statement of `head`: origin, link count and digest, each line ending with LF.
pub fn statement(head: &Head) -> String {
    format!("{ORIGIN}\n{}\n{}\n", head.links, head.digest)
}

/// Whether `text` is a digest as the chain writes them: 64 lowercase hex digits.
pub fn is_digest(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A head to compare a chain with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pin {
    /// A statement as `head` prints it: the link count and the digest.
    Statement(Head),
    /// A bare digest: the chain must end with it, whatever its length.
    Digest(String),
}

impl Pin {
    /// The pinned digest.
    pub fn digest(&self) -> &str {
        match self {
            Pin::Statement(head) => &head.digest,
            Pin::Digest(digest) => digest,
        }
    }
}

/// Parses a head file: the statement as `head` prints it, or one line holding a
/// digest; the final LF may be missing. Errors give the 1-based line and the problem.
pub fn parse_pin(bytes: &[u8]) -> Result<Pin, LineError> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Err(LineError::new(1, "not a head: invalid UTF-8"));
    };
    let body = text.strip_suffix('\n').unwrap_or(text);
    if is_digest(body) {
        return Ok(Pin::Digest(body.to_owned()));
    }
    let lines: Vec<&str> = body.split('\n').collect();
    if lines.first() != Some(&ORIGIN) {
        return Err(LineError::new(
            1,
            format!("not a head: expected \"{ORIGIN}\" or a digest of 64 lowercase hex digits"),
        ));
    }
    let count = lines.get(1).copied().unwrap_or("");
    let links = count
        .parse::<u64>()
        .ok()
        .filter(|n| n.to_string() == count)
        .ok_or_else(|| LineError::new(2, "expected the number of links"))?;
    let digest = lines.get(2).copied().unwrap_or("");
    if !is_digest(digest) {
        return Err(LineError::new(
            3,
            "expected a digest of 64 lowercase hex digits",
        ));
    }
    if lines.len() > 3 {
        return Err(LineError::new(4, "expected the end of the head"));
    }
    Ok(Pin::Statement(Head {
        links,
        digest: digest.to_owned(),
    }))
}

/// How the head of an intact chain stands to a pinned head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadVerdict {
    /// The chain ends at the pinned head.
    Matches,
    /// The pinned head is in the chain, `extra` links before its end.
    Extended {
        /// How many links follow the pinned head.
        extra: u64,
    },
    /// The pinned head has more links than the chain: it was cut or re-sealed.
    Truncated,
    /// The pinned head is nowhere in the chain: it was re-sealed or cut.
    NotInChain,
}

impl HeadVerdict {
    /// Whether the chain ends at the pinned head.
    pub fn matches(self) -> bool {
        self == HeadVerdict::Matches
    }
}

/// Compares the head of an intact chain with a pinned head. `found_at` is after how
/// many links the chain's digest was the pinned digest.
pub fn compare(pin: &Pin, head: &Head, found_at: Option<u64>) -> HeadVerdict {
    let pinned_links = match pin {
        Pin::Statement(pinned) => Some(pinned.links),
        Pin::Digest(_) => None,
    };
    // Where the pinned head lies in this chain, if it is a head of it at all.
    let at = found_at.filter(|at| pinned_links.is_none_or(|links| links == *at));
    match at {
        Some(at) if at == head.links => HeadVerdict::Matches,
        Some(at) => HeadVerdict::Extended {
            extra: head.links.saturating_sub(at),
        },
        None => match pinned_links {
            Some(links) if links > head.links => HeadVerdict::Truncated,
            _ => HeadVerdict::NotInChain,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn statement_round_trips() {
        let head = Head {
            links: 12,
            digest: D.to_owned(),
        };
        let text = statement(&head);
        assert_eq!(text, format!("toolreplay/sealed-transcript/v1\n12\n{D}\n"));
        assert_eq!(parse_pin(text.as_bytes()), Ok(Pin::Statement(head)));
    }

    #[test]
    fn bad_heads_name_their_line() {
        assert_eq!(parse_pin(D.as_bytes()), Ok(Pin::Digest(D.to_owned())));
        assert_eq!(parse_pin(b"x\n").unwrap_err().line, 1);
        let bad_count = format!("{ORIGIN}\n012\n{D}\n");
        assert_eq!(parse_pin(bad_count.as_bytes()).unwrap_err().line, 2);
        let upper = format!("{ORIGIN}\n1\n{}\n", D.to_uppercase());
        assert_eq!(parse_pin(upper.as_bytes()).unwrap_err().line, 3);
        let more = format!("{ORIGIN}\n1\n{D}\n\n");
        assert_eq!(parse_pin(more.as_bytes()).unwrap_err().line, 4);
        assert_eq!(parse_pin(b"\xff").unwrap_err().line, 1);
    }
}
