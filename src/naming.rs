//! How inputs are named in messages and reports: the path as given, or `<stdin>` for
//! `-`. A character that would change how a message reads on a terminal is written
//! as an escape `\uXXXX`, so that a name can neither split an error into several
//! lines nor reorder or hide what follows it: controls (C0, DEL, C1, among them
//! newline and ESC), the line and paragraph separators, and the invisible
//! formatting characters that steer bidirectional text or take no width (U+061C,
//! U+200B to U+200F, U+202A to U+202E, U+2060 to U+2069, U+FEFF). Every other
//! character, a backslash too, is written as it is.

use std::path::Path;

/// The path that stands for standard input.
pub(crate) const STDIN: &str = "-";

/// How standard input is named in error messages and reports.
pub(crate) const STDIN_NAME: &str = "<stdin>";

/// Whether `path` stands for standard input.
pub(crate) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == STDIN
}

/// The name of an input in messages and reports: the path as given (escaped as the
/// module documentation says; bytes that are not UTF-8 as U+FFFD), or `<stdin>`.
pub(crate) fn display(path: &Path) -> String {
    if is_stdin(path) {
        return STDIN_NAME.to_owned();
    }
    let text = path.to_string_lossy();
    if !text.chars().any(needs_escape) {
        return text.into_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `c` is written as an escape in a name.
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2069}'
                | '\u{feff}'
        )
}

#[cfg(test)]
mod tests {
    use super::display;
    use std::path::Path;

    #[test]
    fn names_are_one_line_that_reads_as_it_is() {
        assert_eq!(display(Path::new("runs/a b.jsonl")), "runs/a b.jsonl");
        assert_eq!(display(Path::new("-")), "<stdin>");
        assert_eq!(display(Path::new("a\nb")), "a\\u000ab");
        assert_eq!(display(Path::new("a\x1b[31mb")), "a\\u001b[31mb");
        assert_eq!(display(Path::new("x\u{202e}lmth.exe")), "x\\u202elmth.exe");
        assert_eq!(display(Path::new("zero\u{200b}width")), "zero\\u200bwidth");
        assert_eq!(display(Path::new("back\\slash é")), "back\\slash é");
    }
}
