//! Commands that editors and pagers run from the scripts they are given: GNU sed's
//! `e COMMAND` and `e`, and the `e` flag of `s` (which runs the pattern space);
//! the shell commands of vi's and vim's ex commands (`!CMD`, `read !CMD`,
//! `write !CMD`, `terminal CMD`, `call system("CMD")`, and their python, perl and
//! ruby code) given by `-c`, `+CMD` and `--cmd`, in a file `-S` sources that the
//! string writes, or on an ex mode's standard input when known; `less +!CMD`;
//! gdb's `shell CMD` and `!CMD` of `-ex`. What runs a command that is not known
//! before it runs (sed's `e` without a command, a vim `execute` or `system` of
//! something not literal) is a program not known, as a shell's `-c "$X"` is.

use super::interpreters::{Exec, Language, execs};
use super::*;

/// The commands sed's `script` runs: each `e COMMAND`, and [`Exec::Unknown`] for
/// `e` alone and for `s///e`, which run what the pattern space holds.
pub(super) fn sed_runs(script: &str) -> Vec<Exec> {
    let chars: Vec<char> = script.chars().collect();
    let mut runs = Vec::new();
    let mut i = 0;
    let rest_of_line = |from: usize| -> (String, usize) {
        let end = (from..chars.len())
            .find(|&at| chars[at] == '\n')
            .unwrap_or(chars.len());
        (chars[from..end].iter().collect(), end)
    };
    let to_separator = |from: usize| {
        (from..chars.len())
            .find(|&at| matches!(chars[at], '\n' | ';'))
            .unwrap_or(chars.len())
    };
    while i < chars.len() {
        i = skip_address(&chars, i);
        let Some(&command) = chars.get(i) else {
            break;
        };
        i += 1;
        match command {
            ' ' | '\t' | '\n' | ';' | '{' | '}' => {}
            '#' => i = rest_of_line(i).1,
            // Text to the end of the line, and the lines after a `\` at the end.
            'a' | 'i' | 'c' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
            }
            ':' | 'b' | 't' | 'T' | 'v' => i = to_separator(i),
            'r' | 'R' | 'w' | 'W' => i = rest_of_line(i).1,
            'q' | 'Q' | 'l' | 'L' => {
                while chars
                    .get(i)
                    .is_some_and(|c| c.is_ascii_digit() || *c == ' ')
                {
                    i += 1;
                }
            }
            'e' => {
                let (text, end) = rest_of_line(i);
                i = end;
                match text.trim() {
                    "" => runs.push(Exec::Unknown),
                    command => runs.push(Exec::Shell(command.to_owned())),
                }
            }
            's' | 'y' => {
                let Some(&delimiter) = chars.get(i) else {
                    break;
                };
                if matches!(delimiter, '\n' | '\\') {
                    break;
                }
                i += 1;
                // The pattern and the replacement (or y's two lists).
                for _ in 0..2 {
                    while i < chars.len() && chars[i] != delimiter {
                        i += if chars[i] == '\\' { 2 } else { 1 };
                    }
                    i += 1;
                }
                if command == 's' {
                    while let Some(&flag) = chars.get(i) {
                        match flag {
                            'e' => {
                                runs.push(Exec::Unknown);
                                i += 1;
                            }
                            'w' => {
                                i = rest_of_line(i).1;
                                break;
                            }
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' => i += 1,
                            c if c.is_ascii_digit() => i += 1,
                            _ => break,
                        }
                    }
                }
            }
            '=' | 'd' | 'D' | 'F' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z'
            | '!' => {}
            // sed refuses the script: nothing after this runs.
            _ => break,
        }
    }
    runs
}

/// Where the command after the addresses (and `!`) that start at `at` begins.
fn skip_address(chars: &[char], mut i: usize) -> usize {
    for part in 0..2 {
        while chars.get(i).is_some_and(|c| matches!(c, ' ' | '\t')) {
            i += 1;
        }
        let start = i;
        match chars.get(i) {
            Some('/') | Some('\\') => {
                let close = if chars[i] == '\\' {
                    i += 1;
                    chars.get(i).copied().unwrap_or('/')
                } else {
                    '/'
                };
                i += 1;
                while i < chars.len() && chars[i] != close {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                while chars.get(i).is_some_and(|c| matches!(c, 'I' | 'M')) {
                    i += 1;
                }
            }
            Some('$') => i += 1,
            Some(c) if c.is_ascii_digit() || (part == 1 && matches!(c, '+' | '~')) => {
                i += 1;
                while chars
                    .get(i)
                    .is_some_and(|c| c.is_ascii_digit() || *c == '~')
                {
                    i += 1;
                }
            }
            _ => {}
        }
        if part == 0 && i > start && chars.get(i) == Some(&',') {
            i += 1;
            continue;
        }
        break;
    }
    while chars.get(i).is_some_and(|c| matches!(c, ' ' | '\t' | '!')) {
        i += 1;
    }
    i.min(chars.len())
}

/// A script or a file's name given to sed: the word, and where in it the value
/// starts (after `-e` or `--expression=` in the same word).
struct Given<'a> {
    word: &'a Analysed,
    from: usize,
}

impl Given<'_> {
    fn text(&self) -> &str {
        self.word.text.get(self.from..).unwrap_or("")
    }
}

/// sed's scripts among `args`: the values of `-e` (`--expression`) and the files of
/// `-f` (`--file`), or its first operand without either; `None` with `--sandbox`,
/// which refuses `e`.
fn sed_scripts(args: &[Analysed]) -> Option<(Vec<Given<'_>>, Vec<Given<'_>>)> {
    let (mut expressions, mut files) = (Vec::new(), Vec::new());
    let mut operands = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        i += 1;
        if text == "--" {
            operands.extend(&args[i..]);
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, _)) => (name, Some(text.len() - (long.len() - name.len() - 1))),
                None => (long, None),
            };
            let list = match name {
                "sandbox" => return None,
                "expression" => &mut expressions,
                "file" => &mut files,
                "line-length" if value.is_none() => {
                    i += 1;
                    continue;
                }
                _ => continue,
            };
            match value {
                Some(from) => list.push(Given { word: arg, from }),
                None => {
                    list.extend(args.get(i).map(|word| Given { word, from: 0 }));
                    i += 1;
                }
            }
            continue;
        }
        if !text.starts_with('-') || text == "-" {
            operands.push(arg);
            continue;
        }
        // Short options, one word: `-n`, `-ne SCRIPT`, `-i.bak` (its suffix is the
        // rest of the word), `-eSCRIPT`, `-l 80`.
        for (at, c) in text.char_indices().skip(1) {
            let list = match c {
                'i' => break,
                'e' => &mut expressions,
                'f' => &mut files,
                'l' if at + 1 == text.len() => {
                    i += 1;
                    break;
                }
                'l' => break,
                _ => continue,
            };
            if at + 1 < text.len() {
                list.push(Given {
                    word: arg,
                    from: at + 1,
                });
            } else {
                list.extend(args.get(i).map(|word| Given { word, from: 0 }));
                i += 1;
            }
            break;
        }
    }
    if expressions.is_empty() && files.is_empty() {
        expressions.extend(operands.first().map(|word| Given { word, from: 0 }));
    }
    Some((expressions, files))
}

/// The ex commands that vi and vim (`vi`, `vim`, `nvim`, `view`, `ex`, …) run at
/// start: `-c CMD`, `+CMD` and `--cmd CMD`, and the files of `-S` and `-u`.
fn vim_commands(args: &[Analysed]) -> (Vec<&Analysed>, Vec<&Analysed>) {
    let (mut commands, mut files) = (Vec::new(), Vec::new());
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        i += 1;
        match text {
            "--" => break,
            "-c" | "--cmd" => {
                commands.extend(args.get(i));
                i += 1;
            }
            "-S" | "-u" => {
                files.extend(args.get(i));
                i += 1;
            }
            // Options that take the next word.
            // The keys typed from a file: its command lines are read as ex commands.
            "-s" => {
                files.extend(args.get(i));
                i += 1;
            }
            "-T" | "-U" | "-i" | "-t" | "-w" | "-W" | "--listen" | "--servername"
            | "--startuptime" => i += 1,
            _ if text.starts_with('+') && text.len() > 1 => commands.push(arg),
            _ => {}
        }
    }
    (commands, files)
}

/// What one line of ex commands runs: `!CMD` (and `:range!CMD`), `read !CMD`,
/// `write !CMD` (after a range, `:`, `silent`), `terminal CMD`, a literal `system`
/// or `systemlist` call, python, perl and ruby code read as their language's;
/// [`Exec::Unknown`] for `execute` and a call whose command is not literal. ex
/// commands after `|` are read too, but after `!`, which takes the rest. The files
/// that `source` reads are added to `sourced`.
pub(super) fn ex_runs(line: &str, runs: &mut Vec<Exec>, sourced: &mut Vec<String>) {
    let mut rest = line;
    while !rest.is_empty() {
        let command = rest.trim_start_matches(|c: char| {
            c.is_whitespace() || c == ':' || c.is_ascii_digit() || ".$,%'<>+-;".contains(c)
        });
        // `silent`, `silent!` and their shortenings.
        let end = command
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(command.len());
        let command = match command.split_at(end) {
            (word, after) if word.len() >= 3 && "silent".starts_with(word) => {
                after.strip_prefix('!').unwrap_or(after).trim_start()
            }
            _ => command,
        };
        let word_end = command
            .find(|c: char| !c.is_ascii_alphabetic() && !c.is_ascii_digit())
            .unwrap_or(command.len());
        let (word, after) = command.split_at(word_end);
        let is = |full: &str, least: usize| word.len() >= least && full.starts_with(word);
        if let Some(shell) = command.strip_prefix('!') {
            runs.push(Exec::Shell(shell.to_owned()));
            return;
        }
        if (is("read", 1) || is("write", 1)) && after.trim_start().starts_with('!') {
            let shell = after.trim_start()[1..].to_owned();
            // `write!` forces a write; `write !CMD` pipes to CMD.
            if after.starts_with(char::is_whitespace) || is("read", 1) {
                runs.push(Exec::Shell(shell));
                return;
            }
        }
        if is("terminal", 3) {
            // Its `++options` first, then the command (a shell without one).
            let mut shell = after.trim_start();
            while let Some(option) = shell.strip_prefix("++") {
                shell = option
                    .find(char::is_whitespace)
                    .map_or("", |end| option[end..].trim_start());
            }
            runs.push(match shell.trim() {
                "" => Exec::Unknown,
                shell => Exec::Shell(shell.to_owned()),
            });
            return;
        }
        // `execute` runs what its expression makes, `lua` its code; `normal` runs
        // keys, a command line only with a carriage return in them.
        if is("source", 2) {
            let file = after.trim();
            if !file.is_empty() {
                sourced.push(file.to_owned());
            }
            return;
        }
        if is("execute", 3) || is("lua", 3) || (is("normal", 4) && after.contains(['\r', '\n'])) {
            runs.push(Exec::Unknown);
            return;
        }
        let language = if word.starts_with("py") {
            Some(Language::Python)
        } else if word.len() >= 2 && ("perl".starts_with(word) || word.starts_with("perl")) {
            Some(Language::Perl)
        } else if word.len() >= 3 && ("ruby".starts_with(word) || word.starts_with("ruby")) {
            Some(Language::Ruby)
        } else {
            None
        };
        if let Some(language) = language {
            runs.extend(execs(after, language));
            return;
        }
        // vim script's `system()`, `systemlist()`, `job_start()`: a literal is
        // run by a shell, anything else is not known.
        for call in ["system", "systemlist", "job_start", "jobstart", "termopen"] {
            let mut from = 0;
            while let Some(at) = command[from..].find(call) {
                let start = from + at;
                from = start + call.len();
                let before = command[..start].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let after = command[from..].trim_start();
                let Some(arguments) = after.strip_prefix('(') else {
                    continue;
                };
                let arguments = arguments.trim_start();
                let quote = arguments.chars().next();
                let literal = quote.filter(|q| matches!(q, '\'' | '"')).and_then(|q| {
                    let body = &arguments[1..];
                    let end = body.find(q)?;
                    let close = body[end + 1..].trim_start();
                    close.starts_with(')').then(|| body[..end].to_owned())
                });
                runs.push(literal.map_or(Exec::Unknown, Exec::Shell));
            }
        }
        // The next command after `|`.
        match command.find('|') {
            Some(bar) => rest = &command[bar + 1..],
            None => break,
        }
    }
}

impl Judge<'_> {
    /// Judges the commands that the editor or pager `name` of the command `words`
    /// runs from the scripts it is given ([`sed_runs`], [`ex_runs`]).
    pub(super) fn editor_commands(&mut self, name: &str, words: &[Analysed], at: At<'_>) -> Step {
        let args = &words[1..];
        let mut runs = Vec::new();
        match name {
            "sed" | "gsed" => {
                let Some((expressions, files)) = sed_scripts(args) else {
                    return Ok(());
                };
                for expression in expressions {
                    if expression.word.as_code().is_none() {
                        return self.not_known(words);
                    }
                    runs.extend(sed_runs(expression.text()));
                }
                for file in files {
                    let texts = match file.text() {
                        path if path == "-" || standard_input(path) => {
                            if self.stdin.is_empty() {
                                return self.not_known(words);
                            }
                            self.stdin.clone()
                        }
                        path if file.word.known() => self.file_texts(path),
                        // What a process substitution prints: not known here.
                        "<(...)" => return self.not_known(words),
                        _ => Vec::new(),
                    };
                    for text in texts {
                        runs.extend(sed_runs(&text));
                    }
                }
            }
            "vi" | "vim" | "nvim" | "view" | "vimdiff" | "gvim" | "ex" | "nex" | "nvi" => {
                let (commands, files) = vim_commands(args);
                let mut sourced = Vec::new();
                for command in commands {
                    let Some(text) = command.as_code() else {
                        return self.not_known(words);
                    };
                    let text = text.strip_prefix('+').unwrap_or(text);
                    ex_runs(text, &mut runs, &mut sourced);
                }
                let mut texts = Vec::new();
                for file in files.into_iter().filter(|file| file.known()) {
                    texts.extend(self.file_texts(&file.text));
                }
                // Ex mode reads its commands on its standard input.
                let ex_mode = name == "ex"
                    || args.iter().any(|arg| {
                        !arg.text.starts_with("--")
                            && arg.text.starts_with('-')
                            && arg.text.contains(['e', 'E'])
                    });
                if ex_mode {
                    texts.extend(self.stdin.iter().cloned());
                }
                // The files it sources, when the string writes them, each read counted
                // as a run of a script (a file may source itself).
                loop {
                    for text in texts.drain(..) {
                        for line in text.lines() {
                            ex_runs(line, &mut runs, &mut sourced);
                        }
                    }
                    let Some(file) = sourced.pop() else {
                        break;
                    };
                    self.count_script_run()?;
                    texts = self.file_texts(&file);
                }
            }
            // less runs `+CMD` (and `++CMD`) as its own commands: `!` runs a shell.
            "less" => {
                for arg in args.iter().take_while(|arg| arg.text != "--") {
                    let Some(command) = arg.text.strip_prefix('+') else {
                        continue;
                    };
                    let command = command.strip_prefix('+').unwrap_or(command);
                    if let Some(shell) = command.strip_prefix('!') {
                        runs.push(Exec::Shell(shell.to_owned()));
                    }
                }
            }
            "gdb" => {
                let mut i = 0;
                while let Some(arg) = args.get(i) {
                    i += 1;
                    let option = arg.text.trim_start_matches('-');
                    let (option, attached) = match option.split_once('=') {
                        Some((option, value)) => (option, Some(value)),
                        None => (option, None),
                    };
                    if !arg.text.starts_with('-')
                        || !matches!(option, "ex" | "eval-command" | "iex" | "init-eval-command")
                    {
                        continue;
                    }
                    let (command, text) = match attached {
                        Some(value) => (arg, value),
                        None => match args.get(i) {
                            Some(next) => {
                                i += 1;
                                (next, next.text.as_str())
                            }
                            None => break,
                        },
                    };
                    if command.as_code().is_none() {
                        return self.not_known(words);
                    }
                    let text = text.trim_start();
                    let shell = (text.strip_prefix('!'))
                        .or_else(|| text.strip_prefix("shell "))
                        .or_else(|| text.strip_prefix("pipe "));
                    if let Some(shell) = shell {
                        runs.push(Exec::Shell(shell.to_owned()));
                    } else if text.starts_with("python") || text.starts_with("eval") {
                        runs.push(Exec::Unknown);
                    }
                }
            }
            _ => return Ok(()),
        }
        self.judge_execs(&runs, true, words, at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_runs_its_e_commands_and_the_pattern_space_of_e() {
        let shell = |text: &str| Exec::Shell(text.to_owned());
        for (script, expected) in [
            ("s/a/b/g", vec![]),
            ("1e rm -rf /", vec![shell("rm -rf /")]),
            ("e rm -rf /; echo", vec![shell("rm -rf /; echo")]),
            ("/x/,$ { e date\n}", vec![shell("date")]),
            ("e", vec![Exec::Unknown]),
            ("s/x/rm -rf \\//e", vec![Exec::Unknown]),
            ("s|a|b|ge", vec![Exec::Unknown]),
            ("s/e/e/g;p", vec![]),
            ("s/a/b/w out.txt", vec![]),
            ("y/abc/xyz/", vec![]),
            ("a\\\ne rm -rf /", vec![]),
            ("a text e x", vec![]),
            ("# e rm\np", vec![]),
            ("/e/d", vec![]),
            ("\\,e,d", vec![]),
            ("2!e ls", vec![shell("ls")]),
            ("1~2e ls", vec![shell("ls")]),
            ("$!N;P;D", vec![]),
            (":e;n;be", vec![]),
            ("w e.txt", vec![]),
            ("", vec![]),
            ("s", vec![]),
            ("s/unclosed", vec![]),
        ] {
            assert_eq!(sed_runs(script), expected, "{script:?}");
        }
    }

    #[test]
    fn ex_commands_run_their_shell_commands() {
        let shell = |text: &str| Exec::Shell(text.to_owned());
        for (line, expected) in [
            ("!rm -rf /", vec![shell("rm -rf /")]),
            (":!rm -rf /", vec![shell("rm -rf /")]),
            ("%!sort", vec![shell("sort")]),
            ("silent !make", vec![shell("make")]),
            ("sil! !make", vec![shell("make")]),
            ("r !date", vec![shell("date")]),
            ("read!date", vec![shell("date")]),
            ("w !sh", vec![shell("sh")]),
            ("w!", vec![]),
            ("wq", vec![]),
            ("q!", vec![]),
            ("set nu | !ls", vec![shell("ls")]),
            ("call system('rm -rf /')", vec![shell("rm -rf /")]),
            ("call system(g:x)", vec![Exec::Unknown]),
            ("exe '!rm -rf /'", vec![Exec::Unknown]),
            ("terminal rm -rf /", vec![shell("rm -rf /")]),
            // The code's literals are held to `protect` too.
            (
                "py3 import os; os.system('rm -rf /')",
                vec![shell("rm -rf /"), Exec::Literal("rm -rf /".to_owned())],
            ),
            ("normal dd", vec![]),
            ("normal :!rm -rf /\r", vec![Exec::Unknown]),
            ("terminal ++close ++rows=5 make", vec![shell("make")]),
            ("terminal", vec![Exec::Unknown]),
            (
                "perl system('rm -rf /')",
                vec![shell("rm -rf /"), Exec::Literal("rm -rf /".to_owned())],
            ),
            ("%s/a/b/g", vec![]),
            ("echo 'system'", vec![]),
        ] {
            let (mut runs, mut sourced) = (Vec::new(), Vec::new());
            ex_runs(line, &mut runs, &mut sourced);
            assert_eq!(runs, expected, "{line:?}");
        }
    }
}
