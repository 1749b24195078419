//! Commands that programs with a command language of their own run through a
//! shell: the database clients' shell escapes (sqlite3's `.system`, `.shell` and
//! output piped to a command, psql's `\!`, `\o |CMD` and `PROGRAM '...'`, the
//! mysql client's `system` and `pager`), lldb's `platform shell` and its python
//! `script`, and emacs's `shell-command` and processes of `--eval`. Their commands
//! are read from the options that give them, from the operands sqlite3 runs, and
//! from their standard input when known.

use super::interpreters::{Exec, Language};
use super::*;

/// The shell commands the sqlite3 command `line` runs: `.system CMD`, `.shell
/// CMD`, and a `|CMD` that `.once`, `.output`, `.import`, `.read` or `.excel`
/// pipes to or from.
fn sqlite_runs(line: &str, runs: &mut Vec<Exec>) {
    let line = line.trim_start();
    let Some(command) = line.strip_prefix('.') else {
        return;
    };
    let (name, rest) = command
        .split_once(char::is_whitespace)
        .unwrap_or((command, ""));
    let rest = rest.trim();
    match name {
        "system" | "shell" => runs.push(Exec::Shell(unquoted(rest))),
        "once" | "output" | "import" | "read" | "excel" | "out" => {
            // The first word that starts with `|`, in quotes or not: a command to
            // the end of its quotes or of the line.
            let pipe = rest.char_indices().find_map(|(at, c)| {
                let before = rest[..at].chars().next_back();
                (c == '|' && before.is_none_or(|b| b.is_whitespace() || b == '\'' || b == '"'))
                    .then_some((at, before))
            });
            if let Some((at, before)) = pipe {
                let command = &rest[at + 1..];
                let command = match before {
                    Some(quote @ ('\'' | '"')) => command.split(quote).next().unwrap_or(""),
                    _ => command,
                };
                runs.push(Exec::Shell(command.trim().to_owned()));
            }
        }
        _ => {}
    }
}

/// `text` without the quotes around it, as sqlite3 reads an argument.
fn unquoted(text: &str) -> String {
    let text = text.trim();
    for quote in ['\'', '"'] {
        if let Some(inner) = text.strip_prefix(quote).and_then(|t| t.strip_suffix(quote)) {
            return inner.to_owned();
        }
    }
    text.to_owned()
}

/// The shell commands the psql input `line` runs: `\! CMD`, the `|CMD` of `\o`,
/// `\out`, `\g`, `\gx` and `\w`, and a `PROGRAM 'CMD'` of `COPY` and `\copy`.
fn psql_runs(line: &str, runs: &mut Vec<Exec>) {
    let mut rest = line;
    while let Some(at) = rest.find('\\') {
        let after = &rest[at + 1..];
        let name: String = after
            .chars()
            .take_while(|c| *c == '!' || c.is_alphabetic())
            .collect();
        let args = &after[name.len()..];
        match name.as_str() {
            "!" => {
                runs.push(Exec::Shell(args.trim().to_owned()));
                return;
            }
            "o" | "out" | "g" | "gx" | "w" | "write" => {
                if let Some(command) = args.trim_start().strip_prefix('|') {
                    runs.push(Exec::Shell(command.trim().to_owned()));
                    return;
                }
            }
            _ => {}
        }
        rest = args;
    }
    let lower = line.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find("program") {
        let start = from + at + "program".len();
        from = start;
        let after = line[start..].trim_start();
        if let Some(quoted) = after.strip_prefix('\'') {
            match quoted.find('\'') {
                Some(end) => runs.push(Exec::Shell(quoted[..end].to_owned())),
                None => runs.push(Exec::Unknown),
            }
        }
    }
}

/// The shell commands the mysql (or mariadb) client's input `line` runs: `system
/// CMD` and `\! CMD`, and the pager of `pager CMD` and `\P CMD`, each a statement
/// of its own.
fn mysql_runs(line: &str, runs: &mut Vec<Exec>) {
    for statement in line.split(';') {
        let statement = statement.trim_start();
        let lower = statement.to_ascii_lowercase();
        let command = ["system ", "\\! ", "pager ", "\\p "]
            .iter()
            .find(|prefix| lower.starts_with(**prefix))
            .map(|prefix| &statement[prefix.len()..]);
        if let Some(command) = command {
            runs.push(Exec::Shell(command.trim().to_owned()));
        }
    }
}

/// What the lldb command `line` runs: `platform shell CMD` (and `shell CMD`), and
/// the python code of `script CODE`.
fn lldb_runs(line: &str, runs: &mut Vec<Exec>) {
    let line = line.trim_start();
    let shell = (line.strip_prefix("platform shell "))
        .or_else(|| line.strip_prefix("shell "))
        .or_else(|| line.strip_prefix("platform sh "));
    if let Some(command) = shell {
        runs.push(Exec::Shell(command.trim().to_owned()));
    } else if let Some(code) = line.strip_prefix("script ") {
        runs.push(Exec::Code(code.to_owned(), Language::Python));
    } else if line == "script" {
        runs.push(Exec::Unknown);
    }
}

/// What the emacs lisp `code` runs: the literal command of `shell-command` and
/// its kin; any other process it starts is not known.
fn emacs_runs(code: &str, runs: &mut Vec<Exec>) {
    const SHELL: [&str; 4] = [
        "(shell-command-to-string",
        "(async-shell-command",
        "(shell-command",
        "(compile",
    ];
    const PROCESSES: [&str; 8] = [
        "call-process",
        "start-process",
        "process-file",
        "make-process",
        "start-file-process",
        "process-lines",
        "eshell-command",
        "shell-command",
    ];
    let mut known = 0;
    for name in SHELL {
        let mut rest = code;
        while let Some(at) = rest.find(name) {
            rest = &rest[at + name.len()..];
            if rest.starts_with(|c: char| c.is_alphanumeric() || c == '-') {
                continue;
            }
            known += 1;
            let literal = rest
                .trim_start()
                .strip_prefix('"')
                .and_then(|text| text.find('"').map(|end| &text[..end]))
                .filter(|text| !text.contains('\\'));
            runs.push(literal.map_or(Exec::Unknown, |text| Exec::Shell(text.to_owned())));
        }
    }
    let starts = PROCESSES
        .iter()
        .map(|name| code.matches(name).count())
        .sum::<usize>();
    if starts > known {
        runs.push(Exec::Unknown);
    }
}

/// How a program with a command language of its own is given its commands.
struct Console {
    /// The shell commands a text of its commands runs.
    read: fn(&str, &mut Vec<Exec>),
    /// The options whose value is its commands.
    commands: &'static [&'static str],
    /// The options whose value is a file of them, read when the string writes it.
    files: &'static [&'static str],
    /// The other options that take the next word as their value.
    values: &'static [&'static str],
    /// Whether the operands after the first are commands too (sqlite3's).
    operands: bool,
    /// Whether its commands are lines, read on its standard input too (emacs's
    /// lisp is read whole, and not from its standard input).
    lines: bool,
}

/// How the program `name` is given its commands, when it is such a program.
fn console(name: &str) -> Option<Console> {
    let lines = Console {
        read: sqlite_runs,
        commands: &[],
        files: &[],
        values: &[],
        operands: false,
        lines: true,
    };
    Some(match name {
        "sqlite3" | "sqlite" => Console {
            commands: &["-cmd"],
            files: &["-init"],
            values: &[
                "-separator",
                "-newline",
                "-nullvalue",
                "-vfs",
                "-mmap",
                "-lookaside",
                "-maxsize",
                "-pagecache",
                "-heap",
            ],
            operands: true,
            ..lines
        },
        "psql" => Console {
            read: psql_runs,
            commands: &["-c", "--command"],
            files: &["-f", "--file"],
            values: &[
                "-d",
                "--dbname",
                "-h",
                "--host",
                "-p",
                "--port",
                "-U",
                "--username",
                "-o",
                "--output",
                "-v",
                "--set",
                "--variable",
                "-P",
                "--pset",
                "-F",
                "--field-separator",
                "-R",
                "--record-separator",
                "-T",
                "--table-attr",
                "-L",
                "--log-file",
            ],
            ..lines
        },
        "mysql" | "mariadb" => Console {
            read: mysql_runs,
            commands: &["-e", "--execute"],
            values: &[
                "-u",
                "--user",
                "-h",
                "--host",
                "-P",
                "--port",
                "-D",
                "--database",
                "-S",
                "--socket",
            ],
            ..lines
        },
        "lldb" => Console {
            read: lldb_runs,
            commands: &[
                "-o",
                "--one-line",
                "-O",
                "--one-line-before-file",
                "-k",
                "--one-line-on-crash",
                "-K",
            ],
            files: &["-s", "--source", "-S", "--source-before-file"],
            values: &["-p", "--attach-pid", "-n", "--attach-name"],
            ..lines
        },
        "emacs" | "emacsclient" => Console {
            read: emacs_runs,
            commands: &["--eval", "-eval", "--execute", "-execute"],
            files: &["-l", "--load"],
            lines: false,
            ..lines
        },
        _ => return None,
    })
}

/// The value of the option `arg` of `args`: `attached` after its `=`, or the next
/// word (at `i`, which it passes).
fn value_of<'a>(
    args: &'a [Analysed],
    i: &mut usize,
    arg: &'a Analysed,
    attached: Option<&'a str>,
) -> Option<(&'a Analysed, &'a str)> {
    match attached {
        Some(value) => Some((arg, value)),
        None => {
            *i += 1;
            args.get(*i - 1).map(|next| (next, next.text.as_str()))
        }
    }
}

impl Judge<'_> {
    /// Judges the commands that the program `name` of the command `words` runs
    /// from its own command language: a database client, lldb or emacs.
    pub(super) fn console_commands(&mut self, name: &str, words: &[Analysed], at: At<'_>) -> Step {
        let args = &words[1..];
        let Some(console) = console(name) else {
            return Ok(());
        };
        let mut runs = Vec::new();
        let mut texts = Vec::new();
        let mut operand = 0;
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            i += 1;
            let text = arg.text.as_str();
            let (option, attached) = match text.split_once('=') {
                Some((option, value)) if option.starts_with("--") => (option, Some(value)),
                _ => (text, None),
            };
            // A short option with its value in its word (`-c'\! ls'`).
            let short = (console.commands.iter())
                .find(|c| c.len() == 2 && text.len() > 2 && text.starts_with(**c));
            if console.commands.contains(&option) || short.is_some() {
                let value = match short {
                    Some(c) if attached.is_none() => Some((arg, &text[c.len()..])),
                    _ => value_of(args, &mut i, arg, attached),
                };
                if let Some((word, value)) = value {
                    if word.as_code().is_none() {
                        return self.not_known(words);
                    }
                    texts.push(value.to_owned());
                }
                continue;
            }
            if console.files.contains(&option) {
                if let Some((word, path)) = value_of(args, &mut i, arg, attached)
                    && word.known()
                {
                    texts.extend(self.file_texts(path));
                }
                continue;
            }
            if console.values.contains(&option) && attached.is_none() {
                i += 1;
                continue;
            }
            if text.starts_with('-') {
                continue;
            }
            operand += 1;
            if console.operands && operand > 1 {
                if arg.as_code().is_none() {
                    return self.not_known(words);
                }
                texts.push(text.to_owned());
            }
        }
        // What it reads on its standard input, when known, a line at a time.
        if console.lines {
            texts.extend(self.stdin.iter().cloned());
        }
        for text in &texts {
            match console.lines {
                true => text
                    .lines()
                    .for_each(|line| (console.read)(line, &mut runs)),
                false => (console.read)(text, &mut runs),
            }
        }
        self.judge_execs(&runs, true, words, at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(read: fn(&str, &mut Vec<Exec>), text: &str) -> Vec<Exec> {
        let mut runs = Vec::new();
        read(text, &mut runs);
        runs
    }

    #[test]
    fn each_console_runs_its_shell_commands() {
        let shell = |text: &str| vec![Exec::Shell(text.to_owned())];
        for (read, line, expected) in [
            (
                sqlite_runs as fn(&str, &mut Vec<Exec>),
                ".system rm -rf /",
                shell("rm -rf /"),
            ),
            (sqlite_runs, ".shell 'rm -rf /'", shell("rm -rf /")),
            (sqlite_runs, ".once '|rm -rf /'", shell("rm -rf /")),
            (sqlite_runs, ".output -x |sh", shell("sh")),
            (sqlite_runs, ".import --csv '|cat x' t", shell("cat x")),
            (sqlite_runs, "select '.system x';", vec![]),
            (sqlite_runs, ".output out.txt", vec![]),
            (psql_runs, "\\! rm -rf /", shell("rm -rf /")),
            (psql_runs, "select 1 \\g |sh", shell("sh")),
            (psql_runs, "\\o | rm -rf /", shell("rm -rf /")),
            (psql_runs, "copy t to program 'rm -rf /'", shell("rm -rf /")),
            (psql_runs, "\\copy t from PROGRAM 'curl x'", shell("curl x")),
            (psql_runs, "select '\\d'", vec![]),
            (psql_runs, "\\o out.txt", vec![]),
            (mysql_runs, "system rm -rf /", shell("rm -rf /")),
            (mysql_runs, "select 1; \\! rm -rf /", shell("rm -rf /")),
            (mysql_runs, "pager less -S", shell("less -S")),
            (mysql_runs, "select system_user()", vec![]),
            (lldb_runs, "platform shell rm -rf /", shell("rm -rf /")),
            (
                lldb_runs,
                "script import os",
                vec![Exec::Code("import os".to_owned(), Language::Python)],
            ),
            (lldb_runs, "breakpoint set -n main", vec![]),
            (
                emacs_runs,
                "(shell-command \"rm -rf /\")",
                shell("rm -rf /"),
            ),
            (
                emacs_runs,
                "(progn (shell-command-to-string \"ls\"))",
                shell("ls"),
            ),
            (emacs_runs, "(shell-command cmd)", vec![Exec::Unknown]),
            (
                emacs_runs,
                "(call-process \"rm\" nil nil nil \"-rf\" \"/\")",
                vec![Exec::Unknown],
            ),
            (emacs_runs, "(message \"hi\")", vec![]),
        ] {
            assert_eq!(runs(read, line), expected, "{line:?}");
        }
    }
}
