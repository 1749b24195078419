//! Commands an interpreter's code runs through a shell or as a program: the
//! string literals given to the calls that run one (`os.system("rm -rf /")`,
//! `subprocess.run(["rm", "-rf", "/"])`, perl's `system` and backquotes,
//! `child_process.execSync`), in code given on the command line (`python3 -c`,
//! `perl -e`, `ruby -e`, `node -e`, `php -r`), in a file the string writes, or read
//! on the interpreter's standard input when known. A call whose command is not a
//! literal (a variable, a string put together, an interpolated one) runs a program
//! not known before it runs, as code that is not known does.

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
    /// A command not known before the code runs: a call's first argument that is
    /// not a literal, or an awk pipe's command that is not one.
    Unknown,
    /// Code the code runs (`exec("...")`, `eval "..."`), in its language.
    Code(String, Language),
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
            "os.execl",
            "os.execle",
            "os.execlp",
            "os.execlpe",
            "os.execv",
            "os.execve",
            "os.execvp",
            "os.execvpe",
            "os.spawnl",
            "os.spawnle",
            "os.spawnlp",
            "os.spawnlpe",
            "os.spawnv",
            "os.spawnve",
            "os.spawnvp",
            "os.spawnvpe",
            "os.posix_spawn",
            "os.posix_spawnp",
            "asyncio.create_subprocess_shell",
            "asyncio.create_subprocess_exec",
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

/// The calls of `language` that run code given as a string, in the same language.
fn evals(language: Language) -> &'static [&'static str] {
    match language {
        Language::Python => &["exec", "eval", "compile"],
        Language::Perl => &["eval"],
        Language::Ruby => &["eval", "instance_eval", "class_eval", "module_eval"],
        Language::Node => &[
            "eval",
            "Function",
            "vm.runInThisContext",
            "vm.runInNewContext",
            "vm.runInContext",
        ],
        Language::Php => &["eval"],
        Language::Awk => &[],
    }
}

/// The names that run commands in Python's `code` besides [`calls`]: the
/// functions of `os`, `subprocess`, `pty` and `asyncio` by an alias of the module
/// (`import subprocess as sp`: `sp.run`) or by their own names where the code
/// imports them from it (`from subprocess import run`).
fn python_names(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    for module in ["os", "subprocess", "pty", "asyncio"] {
        let functions = calls(Language::Python)
            .iter()
            .filter_map(|call| call.strip_prefix(module)?.strip_prefix('.'));
        let imported = format!("from {module} import");
        let mut aliases = Vec::new();
        let mut rest = code;
        let import = format!("{module} as ");
        while let Some(at) = rest.find(&import) {
            let own = rest[..at]
                .chars()
                .next_back()
                .is_none_or(|c| c == ' ' || c == ',' || c == '\t');
            rest = &rest[at + import.len()..];
            if !own {
                continue;
            }
            let alias: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !alias.is_empty() {
                aliases.push(alias);
            }
        }
        for function in functions {
            for alias in &aliases {
                names.push(format!("{alias}.{function}"));
            }
            if code.contains(&imported) {
                names.push(function.to_owned());
            }
        }
    }
    names
}

/// The commands the calls in `code` run, where their command is literal, and the
/// text of each backquoted command of perl, ruby and php.
pub(super) fn execs(code: &str, language: Language) -> Vec<Exec> {
    let chars: Vec<char> = code.chars().collect();
    let extra = match language {
        Language::Python => python_names(code),
        _ => Vec::new(),
    };
    let names: Vec<(&str, Vec<char>, bool)> = (calls(language).iter().copied())
        .chain(extra.iter().map(String::as_str))
        .map(|call| (call, call.chars().collect(), false))
        .chain((evals(language).iter()).map(|call| (*call, call.chars().collect(), true)))
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
        let before = i.checked_sub(1).map(|at| chars[at]);
        // Not within a name, nor a variable's (`$system`, `@exec`).
        let boundary = before.is_none_or(|c| !(c.is_alphanumeric() || "_$@%&".contains(c)));
        if boundary {
            for (call, name, eval) in &names {
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
                let method = i > 0 && matches!(chars[i - 1], '.' | '>' | ':');
                let exec = match arguments(&chars, after, language, quoting) {
                    // Another object's method (`re.compile(p)`, `df.eval(e)`), a
                    // block (`instance_eval do`).
                    _ if *eval && (method && !call.contains('.')) => None,
                    Some(Exec::Unknown) if *eval && block_follows(&chars, after) => None,
                    Some(Exec::Shell(text)) if *eval => Some(Exec::Code(text, language)),
                    Some(Exec::Words(..)) if *eval => Some(Exec::Unknown),
                    Some(Exec::Unknown) if !runs_commands(&chars, i, call, language) => None,
                    // Python's `os.exec*` and `os.spawn*` take the path, then the
                    // program's `argv` from its name: the name is not an argument.
                    Some(Exec::Words(mut words, complete))
                        if language == Language::Python && takes_argv0(call) =>
                    {
                        if words.len() > 1 {
                            words.remove(1);
                        }
                        Some(Exec::Words(words, complete))
                    }
                    exec => exec,
                };
                if let Some(exec) = exec
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
                // An interpolated string: what it holds is not known.
                None if chars[i + 1..].contains(&c) => {
                    i = skip_literal(&chars, i);
                }
                None => break,
            }
            continue;
        }
        // awk's regular expression literal, skipped whole: its `|` is no pipe.
        if language == Language::Awk && c == '/' && operand_expected(&chars, i) {
            i = skip_literal(&chars, i);
            continue;
        }
        // awk's pipe whose command is not a string literal: `cmd | getline`,
        // `print | cmd`, gawk's `|&`.
        if language == Language::Awk && c == '|' && awk_pipe_not_literal(&chars, i) {
            found.push(Exec::Unknown);
        }
        i += 1;
    }
    found
}

/// Whether Python's function `call` takes the program's path, then its `argv`.
fn takes_argv0(call: &str) -> bool {
    let name = call.rsplit('.').next().unwrap_or(call);
    ["execl", "execv", "spawnl", "spawnv", "posix_spawn"]
        .iter()
        .any(|family| name.starts_with(family))
}

/// Whether ruby's `do` (a block) follows the name that ends before `at`.
fn block_follows(chars: &[char], at: usize) -> bool {
    let from = skip_space(chars, at);
    chars.get(from..from + 2) == Some(&['d', 'o'][..])
        && chars
            .get(from + 2)
            .is_none_or(|c| !(c.is_alphanumeric() || *c == '_'))
}

/// Whether a call of `call`, whose name starts at `at` in `chars`, runs a command:
/// a name that is also a common method of other objects (`exec` of a regular
/// expression, a database connection, PDO) after `.`, `->` or `::` is that method,
/// but where node's receiver is `child_process` itself.
fn runs_commands(chars: &[char], at: usize, call: &str, language: Language) -> bool {
    let method = at > 0 && matches!(chars[at - 1], '.' | '>' | ':');
    if !method || call != "exec" {
        return true;
    }
    if language != Language::Node || chars[at - 1] != '.' {
        return false;
    }
    let receiver: String = chars[..at - 1]
        .iter()
        .rev()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '$'))
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let required: String = chars[at.saturating_sub(40)..at - 1].iter().collect();
    matches!(receiver.as_str(), "child_process" | "childProcess" | "cp")
        || required.ends_with("child_process')")
        || required.ends_with("child_process\")")
}

/// Where the literal (quoted by the character at `at`, with `\` escapes) that
/// starts at `at` ends: after its closing character, or at the end.
fn skip_literal(chars: &[char], at: usize) -> usize {
    let close = chars[at];
    let mut i = at + 1;
    while let Some(&c) = chars.get(i) {
        i += if c == '\\' { 2 } else { 1 };
        if c == close {
            break;
        }
    }
    i.min(chars.len())
}

/// Whether awk expects an operand at `at` (so a `/` there starts a regular
/// expression, not a division): after an operator, an opening bracket, a
/// separator or nothing.
fn operand_expected(chars: &[char], at: usize) -> bool {
    chars[..at]
        .iter()
        .rev()
        .find(|c| !matches!(c, ' ' | '\t'))
        .is_none_or(|c| "(,{};~!&|=+-*%^?:<>\n".contains(*c))
}

/// Whether the `|` at `at` is an awk pipe (not `||`) whose command, the string
/// before `| getline` or after `print |`, is not a string literal.
fn awk_pipe_not_literal(chars: &[char], at: usize) -> bool {
    if at > 0 && chars[at - 1] == '|' || chars.get(at + 1) == Some(&'|') {
        return false;
    }
    let mut next = at + 1;
    if chars.get(next) == Some(&'&') {
        next += 1;
    }
    let after = skip_space(chars, next);
    let getline = chars
        .get(after..after + 7)
        .is_some_and(|w| w.iter().copied().eq("getline".chars()));
    if getline {
        // `"cmd" | getline`: the literal was taken whole before.
        chars[..at].iter().rev().find(|c| !c.is_whitespace()) != Some(&'"')
    } else {
        !matches!(chars.get(after), Some('"'))
    }
}

/// The literal arguments of the call whose name ends before `at`: one string (run
/// by a shell) or several, or a list of them (the words of a program; a word that
/// is not literal ends them, and stands for one not known). [`Exec::Unknown`] when
/// the first is not literal, or the string is put together with more; `None` when
/// the name is not called with arguments there.
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
        // Perl and ruby call without parentheses: `system "rm -rf /"`, or with a
        // variable, a list or a call: `system $cmd`, `system @words`.
        Some('\'' | '"') if bare => {}
        Some(c) if bare && (c.is_alphanumeric() || "$@_[".contains(*c)) && i > at => {
            return Some(Exec::Unknown);
        }
        _ => return None,
    }
    i = skip_space(chars, i);
    // No arguments: nothing is run (`platform.system()`).
    if chars.get(i) == Some(&')') {
        return None;
    }
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
            None if words.is_empty() => return Some(Exec::Unknown),
            None => {
                complete = false;
                break;
            }
        }
        match chars.get(i) {
            Some(',') => i = skip_space(chars, i + 1),
            // The end of the list or the call; a list put together with more.
            Some(']' | ')') => {
                let next = chars.get(skip_space(chars, i + 1));
                if chars[i] == ']' && matches!(next, Some('+' | '*')) {
                    complete = false;
                }
                break;
            }
            // A string put together with more: `"rm " + path`, perl's `.`,
            // formatting with `%`, awk's strings side by side.
            Some('+' | '.' | '%' | '*' | '[') if !list => return Some(Exec::Unknown),
            Some(c)
                if !list
                    && language == Language::Awk
                    && (c.is_alphanumeric() || matches!(c, '$' | '_' | '(' | '"')) =>
            {
                return Some(Exec::Unknown);
            }
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
    /// Judges what the code the interpreter `name` of the command `words` runs runs
    /// through a shell or as a program ([`execs`]): its code options' values, the
    /// file it runs when the string writes it, or what it reads on its standard
    /// input when known (with `-`, or without code or file). Code given on the
    /// command line that is not known before it runs is a program not known (with
    /// patterns, a violation), as a shell's `-c` string is.
    pub(super) fn interpreter_code(&mut self, name: &str, words: &[Analysed], at: At<'_>) -> Step {
        let Some((language, code_options)) = language(name) else {
            return Ok(());
        };
        if language == Language::Awk {
            return self.awk_code(words, at);
        }
        let args = &words[1..];
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
                match args.get(i).map(Analysed::as_code) {
                    Some(Some(code)) => codes.push(code.to_owned()),
                    Some(None) => return self.not_known(words),
                    None => return Ok(()),
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
            self.judge_code(&code, language, words, at)?;
        }
        Ok(())
    }

    /// With patterns, the command `words` runs a program not known before it runs.
    pub(super) fn not_known(&self, words: &[Analysed]) -> Step {
        match self.patterns() {
            true => Err(CommandVerdict::Unknown(shown(words))),
            false => Ok(()),
        }
    }

    /// Judges what awk's program in the command `words` runs: its first operand, or
    /// the files of `-f` (when the string writes them) and the code of `-e`
    /// (`--source`).
    fn awk_code(&mut self, words: &[Analysed], at: At<'_>) -> Step {
        let args = &words[1..];
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
                        // A file not written by the string is judged as written.
                        Some(value) if text == "-f" => {
                            if value.known() {
                                codes.extend(self.file_texts(&value.text));
                            }
                            continue;
                        }
                        value => value,
                    }
                }
                "--" => args.get(i).filter(|_| !files && codes.is_empty()),
                _ if text.starts_with('-') && text.len() > 1 => continue,
                _ => Some(arg).filter(|_| !files && codes.is_empty()),
            };
            match code.map(Analysed::as_code) {
                Some(Some(code)) => codes.push(code.to_owned()),
                Some(None) => return self.not_known(words),
                None => {}
            }
            if !matches!(text, "-e" | "--source") {
                break;
            }
        }
        for code in codes {
            self.judge_code(&code, Language::Awk, words, at)?;
        }
        Ok(())
    }

    /// Judges what the calls of `code`, in `language`, run ([`execs`]), the code
    /// the command `words` runs.
    pub(super) fn judge_code(
        &mut self,
        code: &str,
        language: Language,
        words: &[Analysed],
        at: At<'_>,
    ) -> Step {
        self.judge_execs(execs(code, language), words, at)
    }

    /// Judges what the command `words` runs by the means of `execs` (the calls of
    /// an interpreter's code, the commands of an editor's script), each counted as
    /// a run of a script; code that code runs is a level further down.
    pub(super) fn judge_execs(&mut self, execs: Vec<Exec>, words: &[Analysed], at: At<'_>) -> Step {
        for exec in execs {
            self.count_script_run()?;
            match exec {
                Exec::Unknown => self.not_known(words)?,
                Exec::Code(code, language) => {
                    let deeper = at.deeper();
                    if deeper.depth > MAX_DEPTH {
                        return Err(CommandVerdict::TooDeep(MAX_DEPTH));
                    }
                    self.judge_code(&code, language, words, deeper)?;
                }
                Exec::Shell(text) => {
                    self.in_subshell(|judge| judge.program(&text, at.deeper()))?;
                }
                Exec::Words(program, complete) => {
                    let mut words: Vec<Analysed> =
                        program.iter().map(|word| made_word(word)).collect();
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
