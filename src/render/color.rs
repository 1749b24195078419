//! Colour for text reports on a terminal: `--color auto|always|never` and `NO_COLOR`.
//!
//! The text renderers ask [`Paint`] to colour the words that carry a verdict or a
//! finding's kind as they write them, from the data: without colour the report is
//! exactly the text of the specification, and colour only wraps those words in ANSI
//! SGR codes. The kind of every finding is coloured (bold): `non-determinism`
//! yellow, `redundant-call` cyan, `budget-exceeded` magenta, and the policy
//! violations `permission-overreach`, `argument-violation`, `sensitive-response` and
//! `flow-violation` red. Verdicts are green when they hold (`chain: intact`,
//! `runs: same`, `head: matches`, `signature: good`) and bold red when they do not
//! (`broken`, `differ`, `differs`, `bad`, `not trusted`). Colour is never the only
//! signal: the words are the same either way.

use std::ffi::OsStr;
use std::fmt;

use toolreplay_core::FindingKind;

use crate::args::ColorChoice;

/// Whether to colour, given the choice, whether stdout is a terminal and the
/// environment's `NO_COLOR` and `TERM`.
pub(crate) fn enabled(
    choice: ColorChoice,
    stdout_is_terminal: bool,
    no_color: Option<&OsStr>,
    term: Option<&OsStr>,
) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            stdout_is_terminal
                && no_color.is_none_or(|v| v.is_empty())
                && term != Some(OsStr::new("dumb"))
        }
    }
}

/// What a coloured word says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    /// A verdict that holds.
    Holds,
    /// A verdict that does not hold.
    Fails,
}

/// Whether text reports are coloured, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Paint {
    on: bool,
}

/// A word as it is written: wrapped in SGR codes, or as it is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Painted<'a> {
    word: &'a str,
    sgr: Option<&'static str>,
}

impl Painted<'_> {
    /// Appends the word as it is written, as its `Display` does.
    pub(crate) fn push_to(self, out: &mut String) {
        match self.sgr {
            Some(sgr) => {
                out.push_str(sgr);
                out.push_str(self.word);
                out.push_str("\x1b[0m");
            }
            None => out.push_str(self.word),
        }
    }
}

impl fmt::Display for Painted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.sgr {
            Some(sgr) => write!(f, "{sgr}{}\x1b[0m", self.word),
            None => f.write_str(self.word),
        }
    }
}

impl Paint {
    /// No colour.
    pub(crate) const PLAIN: Paint = Paint { on: false };

    /// Colour when `on`.
    pub(crate) fn new(on: bool) -> Paint {
        Paint { on }
    }

    fn wrap<'a>(self, word: &'a str, sgr: &'static str) -> Painted<'a> {
        Painted {
            word,
            sgr: self.on.then_some(sgr),
        }
    }

    /// The name of a finding's kind.
    pub(crate) fn kind(self, kind: &FindingKind) -> Painted<'static> {
        let sgr = match kind {
            FindingKind::NonDeterminism { .. } => "\x1b[1;33m",
            FindingKind::RedundantCall { .. } => "\x1b[1;36m",
            FindingKind::BudgetExceeded(_) => "\x1b[1;35m",
            FindingKind::PermissionOverreach
            | FindingKind::ArgumentViolation(_)
            | FindingKind::SensitiveResponse(_)
            | FindingKind::FlowViolation(_) => "\x1b[1;31m",
        };
        Painted {
            word: kind.name(),
            sgr: self.on.then_some(sgr),
        }
    }

    /// A verdict's word.
    pub(crate) fn verdict<'a>(self, word: &'a str, tone: Tone) -> Painted<'a> {
        match tone {
            Tone::Holds => self.wrap(word, "\x1b[32m"),
            Tone::Fails => self.wrap(word, "\x1b[1;31m"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_colours_only_a_terminal_without_no_color() {
        let auto = ColorChoice::Auto;
        assert!(enabled(auto, true, None, None));
        assert!(!enabled(auto, false, None, None));
        assert!(!enabled(auto, true, Some(OsStr::new("1")), None));
        assert!(enabled(auto, true, Some(OsStr::new("")), None));
        assert!(!enabled(auto, true, None, Some(OsStr::new("dumb"))));
        assert!(enabled(
            ColorChoice::Always,
            false,
            Some(OsStr::new("1")),
            None
        ));
        assert!(!enabled(ColorChoice::Never, true, None, None));
    }

    /// `push_to` writes what `Display` does, with colour and without.
    #[test]
    fn a_pushed_word_is_the_displayed_one() {
        for paint in [Paint::new(true), Paint::PLAIN] {
            let painted = paint.kind(&FindingKind::RedundantCall { previous: 0 });
            let mut out = String::from("> ");
            painted.push_to(&mut out);
            assert_eq!(out, format!("> {painted}"));
        }
    }

    #[test]
    fn words_are_wrapped_only_with_colour() {
        let on = Paint::new(true);
        assert_eq!(
            on.kind(&FindingKind::PermissionOverreach).to_string(),
            "\x1b[1;31mpermission-overreach\x1b[0m"
        );
        assert_eq!(
            on.verdict("intact", Tone::Holds).to_string(),
            "\x1b[32mintact\x1b[0m"
        );
        assert_eq!(
            Paint::PLAIN.verdict("broken", Tone::Fails).to_string(),
            "broken"
        );
    }
}
