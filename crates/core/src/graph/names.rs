//! Finding the artifacts a response names, for `informs`: one automaton over every
//! artifact's name (and the other spellings the arguments gave it), run once over
//! each canonical response, so the time is linear in the responses' size whatever
//! the number of artifacts.
//!
//! A name is searched in its canonical form (as the canonical encoding writes it
//! inside a string), leftmost-longest and without overlaps, and counts only as a
//! whole name: not preceded or followed by a letter, digit, `_`, `-`, `/` or `.`
//! (a `.` ending a sentence, or an escape such as `\n` just before it, is a
//! boundary). Names shorter than two characters (`.`, `/`) are not searched.

use aho_corasick::{AhoCorasick, MatchKind};

use super::ArtifactNode;
use std::collections::BTreeSet;

/// The automaton, and the artifact each pattern stands for.
pub(super) struct Finder {
    automaton: AhoCorasick,
    artifacts: Vec<usize>,
}

/// Whether `byte` can be part of a name.
fn in_name(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'/' | b'.')
}

/// Whether the match `start..end` of `text` stands alone.
fn whole(text: &[u8], start: usize, end: usize) -> bool {
    let before = match start.checked_sub(1).map(|at| text[at]) {
        None => true,
        Some(byte) if !in_name(byte) => true,
        // An escape such as `\n` ends just before: an odd run of backslashes.
        Some(b'n' | b't' | b'r' | b'b' | b'f') => {
            let slashes = text[..start - 1]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count();
            slashes % 2 == 1
        }
        Some(_) => false,
    };
    let after = match text.get(end) {
        None => true,
        // A `.` ending a sentence.
        Some(b'.') => text.get(end + 1).is_none_or(|&next| !in_name(next)),
        Some(&byte) => !in_name(byte),
    };
    before && after
}

impl Finder {
    /// The finder of `artifacts` under their names and `spellings`; `None` when
    /// no name is long enough to be searched.
    pub(super) fn new(
        artifacts: &[ArtifactNode],
        spellings: &[BTreeSet<String>],
    ) -> Result<Option<Finder>, String> {
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        let mut owners = Vec::new();
        let mut seen = BTreeSet::new();
        for (number, node) in artifacts.iter().enumerate() {
            let names = std::iter::once(&node.name).chain(spellings[number].iter());
            for name in names {
                if name.chars().count() < 2 {
                    continue;
                }
                let mut encoded = Vec::with_capacity(name.len() + 2);
                crate::canonical::write_str(name, &mut encoded);
                // Inside a string: without the quotes. The first artifact to claim
                // a spelling keeps it.
                let body = encoded[1..encoded.len() - 1].to_vec();
                if seen.insert(body.clone()) {
                    patterns.push(body);
                    owners.push(number);
                }
            }
        }
        if patterns.is_empty() {
            return Ok(None);
        }
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&patterns)
            .map_err(|err| err.to_string())?;
        Ok(Some(Finder {
            automaton,
            artifacts: owners,
        }))
    }

    /// The artifacts the canonical `response` names, each once, in order of first
    /// mention.
    pub(super) fn named_in(&self, response: &[u8]) -> Vec<usize> {
        let mut found = Vec::new();
        let mut seen = BTreeSet::new();
        for hit in self.automaton.find_iter(response) {
            if whole(response, hit.start(), hit.end()) {
                let number = self.artifacts[hit.pattern().as_usize()];
                if seen.insert(number) {
                    found.push(number);
                }
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::whole;

    #[test]
    fn names_stand_alone() {
        let text = br#"{"a":"see docs/a.md. or docs/a.mdx, x\ndocs/a.md"}"#;
        let at = |from: usize| {
            let start = from
                + text[from..]
                    .windows(9)
                    .position(|w| w == b"docs/a.md")
                    .unwrap();
            (start, start + 9)
        };
        let (s, e) = at(0);
        assert!(whole(text, s, e));
        let (s2, e2) = at(e);
        assert!(!whole(text, s2, e2));
        let (s3, e3) = at(e2);
        assert!(whole(text, s3, e3));
        assert!(!whole(b"xdocs", 1, 5));
        assert!(!whole(b"a/docs", 2, 6));
        assert!(!whole(b"\\\\ndocs", 3, 7));
    }
}
