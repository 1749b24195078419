//! Colour for text reports on a terminal: `--color auto|always|never` and `NO_COLOR`.
//!
//! Colouring is a pass over the finished text report that only wraps words in ANSI
//! SGR codes; without colour the report is exactly the text of the specification.
//! Coloured are the kind of each finding (`non-determinism` yellow,
//! `redundant-call` cyan, `permission-overreach` red, all bold), the verdict of
//! `verify` (`intact` green, `broken` bold red) and of `diff` (`same` green,
//! `differ` bold red).

use std::ffi::OsStr;

/// When to colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// When stdout is a terminal, NO_COLOR is unset or empty and TERM is not dumb.
    #[default]
    Auto,
    /// Always, even with NO_COLOR set.
    Always,
    /// Never.
    Never,
}

/// Whether to colour, given the choice, whether stdout is a terminal and the
/// environment's `NO_COLOR` and `TERM`.
pub fn enabled(
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

const RESET: &str = "\x1b[0m";

fn sgr_for_kind(kind: &str) -> Option<&'static str> {
    match kind {
        "non-determinism" => Some("\x1b[1;33m"),
        "redundant-call" => Some("\x1b[1;36m"),
        "permission-overreach" => Some("\x1b[1;31m"),
        _ => None,
    }
}

/// `text` coloured when `colored`, else unchanged.
pub fn maybe(text: String, colored: bool) -> String {
    if colored { paint(&text) } else { text }
}

/// Colours a text report (see the module documentation).
pub fn paint(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        out.push_str(&paint_line(line));
    }
    out
}

fn wrap(prefix: &str, word: &str, sgr: &str, rest: &str) -> String {
    format!("{prefix}{sgr}{word}{RESET}{rest}")
}

fn paint_line(line: &str) -> String {
    for (prefix, word, sgr) in [
        ("chain: ", "intact", "\x1b[32m"),
        ("chain: ", "broken", "\x1b[1;31m"),
        ("runs: ", "same", "\x1b[32m"),
        ("runs: ", "differ", "\x1b[1;31m"),
    ] {
        if let Some(rest) = line.strip_prefix(prefix).and_then(|r| r.strip_prefix(word))
            && (rest == "\n" || rest.is_empty())
        {
            return wrap(prefix, word, sgr, rest);
        }
    }
    // `index N: KIND: ...`: the kind comes right after the index, before any name.
    if let Some(after) = line.strip_prefix("index ") {
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0
            && let Some(rest) = after[digits..].strip_prefix(": ")
            && let Some((kind, tail)) = rest.split_once(": ")
            && let Some(sgr) = sgr_for_kind(kind)
        {
            let prefix = &line[..6 + digits + 2];
            return wrap(prefix, kind, sgr, &format!(": {tail}"));
        }
    }
    line.to_owned()
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

    #[test]
    fn kinds_and_verdicts_are_wrapped_and_nothing_else_changes() {
        let text = "calls: 2\nfindings: 1\nindex 1: permission-overreach: tool 'x: redundant-call: y' is not in the declared scope for agent 'a'\n";
        assert_eq!(
            paint(text),
            "calls: 2\nfindings: 1\nindex 1: \x1b[1;31mpermission-overreach\x1b[0m: tool 'x: redundant-call: y' is not in the declared scope for agent 'a'\n"
        );
        assert_eq!(paint("chain: intact\n"), "chain: \x1b[32mintact\x1b[0m\n");
        assert_eq!(paint("found: chain: broken\n"), "found: chain: broken\n");
    }
}
