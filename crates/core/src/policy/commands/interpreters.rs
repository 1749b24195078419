//! Commands an interpreter's code runs through a shell or as a program: the
//! string literals given to the calls that run one (`os.system("rm -rf /")`,
//! `subprocess.run(["rm", "-rf", "/"])`, perl's `system` and backquotes,
//! `child_process.execSync`), in code given on the command line (`python3 -c`,
//! `perl -e`, `ruby -e`, `node -e`, `php -r`), in a file the string writes, or read
//! on the interpreter's standard input when known. A call whose command is not a
//! literal is not known and is judged as written.

use super::*;

/// The languages whose code is read here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Language {
    Python,
    Perl,
    Ruby,
    Node,
    Php,
    Awk,
}

/// The language of the interpreter `name`, and the options that give it code.
pub(super) fn language(name: &str) -> Option<(Language, &'static [&'static str])> {
    let python = name
        .strip_prefix("python")
        .is_some_and(|version| version.chars().all(|c| c.is_ascii_digit() || c == '.'));
    Some(match name {
        _ if python => (Language::Python, &["-c"]),
        "perl" => (Language::Perl, &["-e", "-E"]),
        "ruby" => (Language::Ruby, &["-e"]),
        "node" | "nodejs" => (Language::Node, &["-e", "--eval", "-p", "--print"]),
        "php" => (Language::Php, &["-r"]),
        "awk" | "gawk" | "mawk" | "nawk" => (Language::Awk, &["-e", "--source"]),
        _ => return None,
    })
}

/// What a call in an interpreter's code runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Exec {
    /// A command string, run by a shell.
    Shell(String),
    /// A program and its arguments, run without a shell; `false` when more follow
    /// that are not known.
    Words(Vec<String>, bool),
}

/// The calls of `language` that run a command: through a shell with one string,
/// as words with several or a list.
fn calls(language: Language) -> &'static [&'static str] {
    match language {
        Language::Python => &[
            "os.system",
            "os.popen",
            "subprocess.run",
            "subprocess.call",
            "subprocess.check_call",
            "subprocess.check_output",
            "subprocess.Popen",
            "subprocess.getoutput",
            "subprocess.getstatusoutput",
            "os.execvp",
            "os.execlp",
            "pty.spawn",
            "system",
            "popen",
            "check_output",
            "check_call",
            "Popen",
            "getoutput",
        ],
        Language::Perl => &["system", "exec", "qx", "readpipe"],
        Language::Ruby => &[
            "system",
            "exec",
            "spawn",
            "IO.popen",
            "Open3.capture2",
            "Open3.capture2e",
            "Open3.capture3",
            "Open3.popen3",
            "%x",
        ],
        Language::Node => &[
            "execSync",
            "exec",
            "spawnSync",
            "spawn",
            "execFileSync",
            "execFile",
        ],
        Language::Php => &[
            "system",
            "exec",
            "shell_exec",
            "passthru",
            "popen",
            "proc_open",
        ],
        Language::Awk => &["system"],
    }
}

/// The commands the calls in `code` run, where their command is literal, and the
/// text of each backquoted command of perl, ruby and php.
pub(super) fn execs(code: &str, language: Language) -> Vec<Exec> {
    let chars: Vec<char> = code.chars().collect();
    let names: Vec<(&str, Vec<char>)> = (calls(language).iter())
        .map(|call| (*call, call.chars().collect()))
        .collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        // A backquoted command.
        if c == '`'
            && matches!(language, Language::Perl | Language::Ruby | Language::Php)
            && let Some((text, end)) = quoted(&chars, i)
        {
            found.push(Exec::Shell(text));
            i = end;
            continue;
        }
        let boundary = i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if boundary {
            for (call, name) in &names {
                let after = i + name.len();
                if name.first() != Some(&c)
                    || chars.get(i..after) != Some(&name[..])
                    || chars
                        .get(after)
                        .is_some_and(|c| c.is_alphanumeric() || *c == '_')
                {
                    continue;
                }
                let quoting = matches!(*call, "qx" | "%x");
                if let Some(exec) = arguments(&chars, after, language, quoting)
                    && !found.contains(&exec)
                {
                    found.push(exec);
                }
            }
        }
        // A string literal is skipped whole: a call's name inside it is text. In
        // awk, one a pipe reads from or writes to is a command (`"cmd" | getline`,
        // `print | "cmd"`).
        if matches!(c, '\'' | '"') {
            match quoted(&chars, i) {
                Some((text, end)) => {
                    if language == Language::Awk {
                        let before = chars[..i].iter().rev().find(|c| !c.is_whitespace());
                        let after = chars.get(skip_space(&chars, end));
                        if before == Some(&'|') || after == Some(&'|') {
                            found.push(Exec::Shell(text));
                        }
                    }
                    i = end;
                }
                None => break,
            }
            continue;
        }
        i += 1;
    }
    found
}

/// The literal arguments of the call whose name ends before `at`: one string (run
/// by a shell) or several, or a list of them (the words of a program; a word that
/// is not literal ends them, and stands for one not known). `None` when the first
/// is not literal.
fn arguments(chars: &[char], at: usize, language: Language, quoting: bool) -> Option<Exec> {
    let mut i = skip_space(chars, at);
    let bare = matches!(language, Language::Perl | Language::Ruby);
    match chars.get(i) {
        // Perl's `qx{...}` and ruby's `%x(...)` quote with brackets of their own.
        Some(open @ ('{' | '[' | '<' | '(')) if quoting => {
            let close = match open {
                '{' => '}',
                '[' => ']',
                '<' => '>',
                _ => ')',
            };
            let end = (i + 1..chars.len()).find(|&at| chars[at] == close)?;
            return Some(Exec::Shell(chars[i + 1..end].iter().collect()));
        }
        Some('(') => i += 1,
        // Perl and ruby call without parentheses: `system "rm -rf /"`.
        Some('\'' | '"') if bare => {}
        _ => return None,
    }
    i = skip_space(chars, i);
    let mut list = chars.get(i) == Some(&'[');
    if list {
        i = skip_space(chars, i + 1);
    }
    let mut words = Vec::new();
    let mut complete = true;
    loop {
        match quoted(chars, i) {
            Some((text, end)) => {
                words.push(text);
                i = skip_space(chars, end);
            }
            None if words.is_empty() => return None,
            None => {
                complete = false;
                break;
            }
        }
        match chars.get(i) {
            Some(',') => i = skip_space(chars, i + 1),
            // The end of the list or the call, or an expression with the literal.
            Some(']' | ')') => break,
            _ => {
                complete = !list;
                break;
            }
        }
        // A program, then a list of its arguments (node's `spawn`, `os.execvp`).
        if !list && chars.get(i) == Some(&'[') {
            list = true;
            i = skip_space(chars, i + 1);
            continue;
        }
        // A keyword argument after the command (`shell=True`).
        if !list && !matches!(chars.get(i), Some('\'' | '"' | '`')) {
            break;
        }
    }
    Some(match (list, words.len(), complete) {
        (false, 1, _) => Exec::Shell(words.remove(0)),
        _ => Exec::Words(words, complete),
    })
}

fn skip_space(chars: &[char], mut at: usize) -> usize {
    while chars.get(at).is_some_and(|c| c.is_whitespace()) {
        at += 1;
    }
    at
}

/// The text of the string literal that starts at `at` (quoted by `'`, `"` or a
/// backquote, three of them too, with `\` escapes), and where it ends; `None` for
/// another character, an unclosed literal, or one that interpolates (`${`, `#{`).
fn quoted(chars: &[char], mut at: usize) -> Option<(String, usize)> {
    // Python's prefixes: raw, bytes, unicode, formatted (whose fields stay as text).
    while chars.get(at).is_some_and(|c| "rRbBuUfF".contains(*c))
        && chars
            .get(at + 1)
            .is_some_and(|c| "rRbBuUfF'\"".contains(*c))
    {
        at += 1;
    }
    let quote = *chars.get(at)?;
    if !matches!(quote, '\'' | '"' | '`') {
        return None;
    }
    let triple = chars.get(at..at + 3) == Some(&[quote, quote, quote][..]);
    let mut i = at + if triple { 3 } else { 1 };
    let mut text = String::new();
    while i < chars.len() {
        let c = chars[i];
        if c == quote && (!triple || chars.get(i..i + 3) == Some(&[quote, quote, quote][..])) {
            let end = i + if triple { 3 } else { 1 };
            return Some((text, end));
        }
        if c == '\\' {
            let next = *chars.get(i + 1)?;
            text.push(match next {
                'n' => '\n',
                't' => '\t',
                other => other,
            });
            i += 2;
            continue;
        }
        if matches!(c, '$' | '#') && chars.get(i + 1) == Some(&'{') && quote != '\'' {
            return None;
        }
        text.push(c);
        i += 1;
    }
    None
}

impl Judge<'_> {
    /// Judges what the code the interpreter `name` with `args` runs runs through a
    /// shell or as a program ([`execs`]): its code options' values, the file it runs
    /// when the string writes it, or what it reads on its standard input when known
    /// (with `-`, or without code or file).
    pub(super) fn interpreter_code(&mut self, name: &str, args: &[Analysed], at: At<'_>) -> Step {
        let Some((language, code_options)) = language(name) else {
            return Ok(());
        };
        if language == Language::Awk {
            return self.awk_code(args, at);
        }
        let mut codes = Vec::new();
        // The file it runs; `None` for its standard input.
        let mut file = None;
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            let text = arg.text.as_str();
            i += 1;
            match text {
                "-" => break,
                "--" => {
                    file = args.get(i).filter(|arg| arg.text != "-");
                    break;
                }
                // A module or another program's code: not known here.
                "-m" if language == Language::Python => return Ok(()),
                "-W" | "-X" if language == Language::Python => i += 1,
                _ if !text.starts_with('-') => {
                    file = Some(arg);
                    break;
                }
                _ => {}
            }
            // `-c CODE`, `-ne CODE`: the option last in its word takes the next.
            let takes = code_options.iter().any(|option| {
                text == *option
                    || (option.len() == 2
                        && !text.starts_with("--")
                        && text.ends_with(&option[1..]))
            });
            if takes {
                match args.get(i) {
                    Some(code) if code.known() => codes.push(code.text.clone()),
                    _ => return Ok(()),
                }
                i += 1;
                // Python runs its `-c` code and nothing after it.
                if language == Language::Python {
                    break;
                }
            }
        }
        if codes.is_empty() {
            codes = match file {
                Some(file) if file.known() => self.file_texts(&file.text),
                Some(_) => return Ok(()),
                None => self.stdin.clone(),
            };
        }
        for code in codes {
            self.judge_code(&code, language, at)?;
        }
        Ok(())
    }

    /// Judges what awk's program runs: its first operand, or the files of `-f` (when
    /// the string writes them) and the code of `-e` (`--source`).
    fn awk_code(&mut self, args: &[Analysed], at: At<'_>) -> Step {
        let (mut codes, mut files) = (Vec::new(), false);
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            let text = arg.text.as_str();
            i += 1;
            let code = match text {
                "-F" | "-v" => {
                    i += 1;
                    continue;
                }
                "-f" | "-e" | "--source" => {
                    files |= text == "-f";
                    i += 1;
                    match args.get(i - 1) {
                        Some(value) if value.known() && text == "-f" => {
                            codes.extend(self.file_texts(&value.text));
                            continue;
                        }
                        value => value,
                    }
                }
                "--" => args.get(i).filter(|_| !files && codes.is_empty()),
                _ if text.starts_with('-') && text.len() > 1 => continue,
                _ => Some(arg).filter(|_| !files && codes.is_empty()),
            };
            match code {
                Some(code) if code.known() => codes.push(code.text.clone()),
                // Code not known before it runs is judged as written.
                Some(_) => return Ok(()),
                None => {}
            }
            if !matches!(text, "-e" | "--source") {
                break;
            }
        }
        for code in codes {
            self.judge_code(&code, Language::Awk, at)?;
        }
        Ok(())
    }

    /// Judges what the calls of `code`, in `language`, run ([`execs`]).
    pub(super) fn judge_code(&mut self, code: &str, language: Language, at: At<'_>) -> Step {
        for exec in execs(code, language) {
            // Each counts as a script run ([`MAX_SCRIPT_RUNS`]).
            self.scripts_run += 1;
            if self.scripts_run > MAX_SCRIPT_RUNS {
                return Err(CommandVerdict::Unparseable(WRITES_SPENT.to_owned()));
            }
            match exec {
                Exec::Shell(text) => {
                    self.in_subshell(|judge| judge.program(&text, at.deeper()))?;
                }
                Exec::Words(words, complete) => {
                    let mut words: Vec<Analysed> =
                        words.iter().map(|word| made_word(word)).collect();
                    if !complete {
                        words.push(Analysed {
                            text: "...".to_owned(),
                            written: "...".to_owned(),
                            literal: false,
                            ..Analysed::default()
                        });
                    }
                    self.judge(&words, at.deeper(), true)?;
                }
            }
        }
        Ok(())
    }
}

/// The program a script's first line `#!` names (the one `env` runs, after its
/// options and settings), by its file's name; `None` without one.
pub(super) fn shebang(text: &str) -> Option<&str> {
    let line = text.strip_prefix("#!")?.lines().next().unwrap_or("");
    let mut words = line.split_whitespace();
    let first = words.next()?;
    let name = first.rsplit('/').next().unwrap_or(first);
    if name != "env" {
        return Some(name);
    }
    let program = words.find(|word| !word.starts_with('-') && !word.contains('='))?;
    Some(program.rsplit('/').next().unwrap_or(program))
}
