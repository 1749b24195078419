//! The patterns of bash's parameter expansions (`${X%.*}`, `${X/[ab]/c}`,
//! `${X^^[a-f]}`): `*`, `?`, bracket expressions and `\` escapes, matched against a
//! known value to tell what the expansion makes of it.

use std::cell::Cell;

/// One piece of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// A character as it is.
    Char(char),
    /// `?`: any one character.
    One,
    /// `*`: any characters, none too.
    Any,
    /// `[...]`: one character of the class (not of it when `negated`).
    Class { negated: bool, items: Vec<Item> },
}

/// What a bracket expression holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Char(char),
    Range(char, char),
    /// `[:alpha:]` and the other classes of POSIX, by name.
    Named(&'static str),
}

/// A pattern of a parameter expansion, read from its text as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Wildcards {
    tokens: Vec<Token>,
}

/// The classes a bracket expression may name.
const NAMED: [&str; 12] = [
    "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space",
    "upper", "xdigit",
];

impl Wildcards {
    /// The pattern written `text`, when it is read here: `None` for one with quotes,
    /// an expansion or a command substitution, or `(` (an extended pattern, where
    /// bash's `extglob` is on), whose text is not the pattern it matches.
    pub(super) fn parse(text: &str) -> Option<Wildcards> {
        if text.contains(['\'', '"', '$', '`', '(', ')']) {
            return None;
        }
        let chars: Vec<char> = text.chars().collect();
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '\\' => {
                    // A trailing `\` is itself.
                    tokens.push(Token::Char(chars.get(i + 1).copied().unwrap_or('\\')));
                    i += 2;
                }
                '*' => {
                    if tokens.last() != Some(&Token::Any) {
                        tokens.push(Token::Any);
                    }
                    i += 1;
                }
                '?' => {
                    tokens.push(Token::One);
                    i += 1;
                }
                '[' => match class(&chars[i + 1..]) {
                    Some((token, used)) => {
                        tokens.push(token);
                        i += 1 + used;
                    }
                    // Without its `]`, a `[` is itself.
                    None => {
                        tokens.push(Token::Char('['));
                        i += 1;
                    }
                },
                c => {
                    tokens.push(Token::Char(c));
                    i += 1;
                }
            }
        }
        Some(Wildcards { tokens })
    }

    /// The text the pattern matches, when it has no wildcard.
    pub(super) fn text(&self) -> Option<String> {
        (self.tokens.iter())
            .map(|token| match token {
                Token::Char(c) => Some(*c),
                _ => None,
            })
            .collect()
    }

    /// The lengths of the shortest and of the longest start of `chars` (of its end,
    /// when `from_end`) that the pattern matches, if any. Each step charges the
    /// pattern's length to `work`; `None` once that is past `most`.
    pub(super) fn matched(
        &self,
        chars: &[char],
        from_end: bool,
        work: &Cell<usize>,
        most: usize,
    ) -> Option<(Option<usize>, Option<usize>)> {
        let m = self.tokens.len();
        let token = |at: usize| match from_end {
            false => &self.tokens[at],
            true => &self.tokens[m - 1 - at],
        };
        // The positions in the pattern reached, each with those a `*` may skip to.
        let mut here = vec![false; m + 1];
        let close = |states: &mut Vec<bool>| {
            for at in 0..m {
                if states[at] && *token(at) == Token::Any {
                    states[at + 1] = true;
                }
            }
        };
        here[0] = true;
        close(&mut here);
        let (mut shortest, mut longest) = (None, None);
        if here[m] {
            (shortest, longest) = (Some(0), Some(0));
        }
        for step in 0..chars.len() {
            work.set(work.get().saturating_add(m + 1));
            if work.get() > most {
                return None;
            }
            let c = match from_end {
                false => chars[step],
                true => chars[chars.len() - 1 - step],
            };
            let mut next = vec![false; m + 1];
            for at in 0..m {
                if !here[at] {
                    continue;
                }
                match token(at) {
                    Token::Any => next[at] = true,
                    Token::Char(want) if *want == c => next[at + 1] = true,
                    Token::One => next[at + 1] = true,
                    Token::Class { negated, items } if items_match(items, c) != *negated => {
                        next[at + 1] = true;
                    }
                    _ => {}
                }
            }
            close(&mut next);
            if !next.iter().any(|&state| state) {
                break;
            }
            if next[m] {
                shortest.get_or_insert(step + 1);
                longest = Some(step + 1);
            }
            here = next;
        }
        Some((shortest, longest))
    }
}

/// The bracket expression whose text follows a `[`, and how many characters it
/// takes with its `]`; `None` when no `]` closes it.
fn class(chars: &[char]) -> Option<(Token, usize)> {
    let mut i = 0;
    let negated = matches!(chars.first(), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut items = Vec::new();
    let start = i;
    while i < chars.len() {
        let c = chars[i];
        // A `]` first is itself.
        if c == ']' && i > start {
            return Some((Token::Class { negated, items }, i + 1));
        }
        if c == '[' && chars.get(i + 1) == Some(&':') {
            let rest: String = chars[i + 2..].iter().collect();
            if let Some(name) = NAMED
                .iter()
                .find(|name| rest.starts_with(&format!("{name}:]")))
            {
                items.push(Item::Named(name));
                i += 2 + name.len() + 2;
                continue;
            }
        }
        let c = match c {
            '\\' if i + 1 < chars.len() => {
                i += 1;
                chars[i]
            }
            c => c,
        };
        if chars.get(i + 1) == Some(&'-') && chars.get(i + 2).is_some_and(|&end| end != ']') {
            let end = match chars[i + 2] {
                '\\' if i + 3 < chars.len() => {
                    i += 1;
                    chars[i + 2]
                }
                end => end,
            };
            items.push(Item::Range(c, end));
            i += 3;
        } else {
            items.push(Item::Char(c));
            i += 1;
        }
    }
    None
}

/// Whether one of `items` holds `c`.
fn items_match(items: &[Item], c: char) -> bool {
    items.iter().any(|item| match item {
        Item::Char(want) => *want == c,
        Item::Range(from, to) => (*from..=*to).contains(&c),
        Item::Named(name) => match *name {
            "alnum" => c.is_alphanumeric(),
            "alpha" => c.is_alphabetic(),
            "blank" => c == ' ' || c == '\t',
            "cntrl" => c.is_control(),
            "digit" => c.is_ascii_digit(),
            "graph" => !c.is_control() && !c.is_whitespace(),
            "lower" => c.is_lowercase(),
            "print" => !c.is_control(),
            "punct" => c.is_ascii_punctuation(),
            "space" => c.is_whitespace(),
            "upper" => c.is_uppercase(),
            _ => c.is_ascii_hexdigit(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ends(pattern: &str, text: &str, from_end: bool) -> (Option<usize>, Option<usize>) {
        let chars: Vec<char> = text.chars().collect();
        let work = Cell::new(0);
        Wildcards::parse(pattern)
            .unwrap()
            .matched(&chars, from_end, &work, usize::MAX)
            .unwrap()
    }

    #[test]
    fn patterns_match_as_bash_matches_them() {
        // (pattern, text, shortest and longest start, shortest and longest end)
        for (pattern, text, start, end) in [
            (".*", "a.b.c", (None, None), (Some(2), Some(4))),
            ("*.", "a.b.c", (Some(2), Some(4)), (None, None)),
            ("*", "abc", (Some(0), Some(3)), (Some(0), Some(3))),
            ("?", "abc", (Some(1), Some(1)), (Some(1), Some(1))),
            ("[ab]*", "abc", (Some(1), Some(3)), (Some(2), Some(3))),
            ("[!a]", "abc", (None, None), (Some(1), Some(1))),
            ("[^c]", "abc", (Some(1), Some(1)), (None, None)),
            ("[a-c]?", "bz", (Some(2), Some(2)), (Some(2), Some(2))),
            (
                "[[:digit:]]*",
                "1x2",
                (Some(1), Some(3)),
                (Some(1), Some(3)),
            ),
            ("[]x]", "]", (Some(1), Some(1)), (Some(1), Some(1))),
            ("\\*", "*a", (Some(1), Some(1)), (None, None)),
            ("[", "[a", (Some(1), Some(1)), (None, None)),
            ("a\\", "a\\", (Some(2), Some(2)), (Some(2), Some(2))),
            ("x", "abc", (None, None), (None, None)),
        ] {
            assert_eq!(
                ends(pattern, text, false),
                start,
                "{pattern} at the start of {text}"
            );
            assert_eq!(
                ends(pattern, text, true),
                end,
                "{pattern} at the end of {text}"
            );
        }
        for written in ["'*'", "\"x\"", "$X", "`x`", "@(a|b)", "*(x)"] {
            assert_eq!(Wildcards::parse(written), None, "{written}");
        }
        assert_eq!(Wildcards::parse("a\\-b").unwrap().text().unwrap(), "a-b");
        assert_eq!(Wildcards::parse("a[b]").unwrap().text(), None);
    }

    #[test]
    fn matching_stops_past_its_work() {
        let chars: Vec<char> = "x".repeat(100).chars().collect();
        let pattern = Wildcards::parse("*y*").unwrap();
        let work = Cell::new(0);
        assert_eq!(pattern.matched(&chars, false, &work, 100), None);
        let work = Cell::new(0);
        assert_eq!(
            pattern.matched(&chars, false, &work, 1_000),
            Some((None, None))
        );
        assert_eq!(work.get(), 400);
    }
}
