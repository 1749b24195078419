//! Commands an interpreter's code runs through a shell or as a program: the
//! string literals given to the calls that run one (`os.system("rm -rf /")`,
//! `subprocess.run(["rm", "-rf", "/"])`, perl's `system` and backquotes,
//! `child_process.execSync`), in code given on the command line (`python3 -c`,
//! `perl -e`, `ruby -e`, `node -e`, `php -r`), in a file the string writes, or read
//! on the interpreter's standard input when known. A call whose command is not a
//! literal (a variable, a string put together, an interpolated one) runs a program
//! not known before it runs, as code that is not known does. A call that deletes a
//! folder and all it holds (`shutil.rmtree`, `FileUtils.rm_rf`, node's `rmSync`
//! with `recursive`) is the command `rm -rf` of its arguments, and every string
//! literal of the code is held to `protect` as a command's argument is: what the
//! code opens, writes or deletes itself is named by them.

use super::*;

/// The languages whose code is read here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Language {
    Python,
    Perl,
    Ruby,
    Node,
    Php,
    Awk,
}

/// The language of the interpreter `name`.
pub(super) fn language(name: &str) -> Option<Language> {
    let python = ["python", "pypy"].iter().any(|python| {
        name.strip_prefix(python)
            .is_some_and(|version| version.chars().all(|c| c.is_ascii_digit() || c == '.'))
    });
    Some(match name {
        _ if python => Language::Python,
        "perl" => Language::Perl,
        "ruby" => Language::Ruby,
        "node" | "nodejs" | "bun" => Language::Node,
        "php" => Language::Php,
        "awk" | "gawk" | "mawk" | "nawk" => Language::Awk,
        _ => return None,
    })
}

/// How an interpreter reads its options, as its own parser does: an option
/// letter's value is the rest of its word, or the next word when the letter ends
/// its word. A letter of none of these lists takes no value, and the next letter
/// of its word is another option (`-ne`).
struct Getopt {
    /// The letters whose value is code (`-c`, `-e`).
    code: &'static str,
    /// Whether code may be the rest of the word (`-e'print 1'`); node's may not.
    attached_code: bool,
    /// The letters whose value is the rest of the word or the next word (`-I dir`).
    value: &'static str,
    /// The letters whose value is the rest of the word only, maybe empty
    /// (perl's `-i.bak`, `-MO=Deparse`).
    rest: &'static str,
    /// The letters whose value is the octal digits after them only (perl's `-l`,
    /// `-0`): the letters after those are options again (`-lne`).
    digits: &'static str,
    /// The letter whose value is a module to run (python's `-m`): code not read.
    module: &'static str,
    /// The letters whose value is the file to run (php's `-f`).
    file: &'static str,
    /// The long options whose value is code (`--eval`).
    long_code: &'static [&'static str],
    /// The long options that take a value, after `=` or as the next word.
    long_value: &'static [&'static str],
}

/// How the interpreter of `language` (not awk) reads its options, as its manual
/// gives them.
fn getopt(language: Language) -> Getopt {
    let none = Getopt {
        code: "",
        attached_code: true,
        value: "",
        rest: "",
        digits: "",
        module: "",
        file: "",
        long_code: &[],
        long_value: &[],
    };
    match language {
        Language::Python => Getopt {
            code: "c",
            value: "WX",
            module: "m",
            long_value: &["--check-hash-based-pycs"],
            ..none
        },
        Language::Perl => Getopt {
            code: "eE",
            value: "I",
            rest: "CDFMimx",
            digits: "0l",
            ..none
        },
        Language::Ruby => Getopt {
            code: "e",
            value: "CEIr",
            rest: "FKTWix",
            digits: "0",
            ..none
        },
        Language::Node => Getopt {
            code: "ep",
            attached_code: false,
            value: "Cr",
            long_code: &["--eval", "--print"],
            long_value: NODE_LONG_VALUES,
            ..none
        },
        Language::Php => Getopt {
            code: "BERr",
            value: "Sctdz",
            file: "Ff",
            ..none
        },
        Language::Awk => none,
    }
}

/// node's long options that take a value (`node --help`: those with `=...`).
const NODE_LONG_VALUES: &[&str] = &[
    "--allow-fs-read",
    "--allow-fs-write",
    "--build-snapshot-config",
    "--conditions",
    "--cpu-prof-dir",
    "--cpu-prof-interval",
    "--cpu-prof-name",
    "--diagnostic-dir",
    "--disable-proto",
    "--disable-warning",
    "--dns-result-order",
    "--env-file",
    "--env-file-if-exists",
    "--experimental-default-type",
    "--experimental-loader",
    "--experimental-policy",
    "--experimental-sea-config",
    "--heap-prof-dir",
    "--heap-prof-interval",
    "--heap-prof-name",
    "--heapsnapshot-near-heap-limit",
    "--heapsnapshot-signal",
    "--icu-data-dir",
    "--import",
    "--input-type",
    "--inspect-publish-uid",
    "--loader",
    "--max-http-header-size",
    "--openssl-config",
    "--policy-integrity",
    "--redirect-warnings",
    "--report-dir",
    "--report-directory",
    "--report-filename",
    "--report-signal",
    "--require",
    "--secure-heap",
    "--secure-heap-min",
    "--snapshot-blob",
    "--test-concurrency",
    "--test-name-pattern",
    "--test-reporter",
    "--test-reporter-destination",
    "--test-shard",
    "--test-timeout",
    "--title",
    "--tls-cipher-list",
    "--tls-keylog",
    "--trace-event-categories",
    "--trace-event-file-pattern",
    "--unhandled-rejections",
    "--use-largepages",
    "--v8-pool-size",
    "--watch-path",
];

/// What an interpreter's arguments give it to run.
#[derive(Debug, Default)]
pub(super) struct Runs<'w> {
    /// The values of its code options, in order: `None` for one not known.
    pub(super) codes: Vec<Option<&'w str>>,
    /// The file it runs, when no code is given; `None` for its standard input.
    file: Option<&'w Analysed>,
    /// Whether it runs a module (python's `-m`), whose code is not read here.
    module: bool,
}

/// What the interpreter of `language` runs with the arguments `args` (its words
/// after its name), read as [`getopt`] says: its code options' values up to its
/// first operand (the file it runs), `-` (its standard input) or `--` (after which
/// the next word is the file). A long option neither listed nor written with `=`
/// may take the next word as its value: the words after it are read on as options
/// too, the first such word being the file when no code comes.
pub(super) fn runs(args: &[Analysed], language: Language) -> Runs<'_> {
    let getopt = getopt(language);
    let mut runs = Runs::default();
    let mut maybe_file = None;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        i += 1;
        if text == "-" {
            break;
        }
        if text == "--" {
            runs.file = args.get(i).filter(|arg| arg.text != "-");
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, value)) => (&text[..name.len() + 2], Some(value)),
                None => (text, None),
            };
            if getopt.long_code.contains(&name) {
                match value {
                    Some(code) => runs.codes.push(arg.known().then_some(code)),
                    None => {
                        runs.codes.push(args.get(i).and_then(Analysed::as_code));
                        i += 1;
                    }
                }
            } else if value.is_none() && getopt.long_value.contains(&name) {
                i += 1;
            } else if value.is_none()
                && let Some(next) = args.get(i)
                && !next.text.starts_with('-')
            {
                // Its value or the file: read on.
                maybe_file = maybe_file.or(Some(next));
                i += 1;
            }
            continue;
        }
        let Some(letters) = text.strip_prefix('-') else {
            runs.file = Some(arg);
            break;
        };
        let mut rest = letters;
        // Whether a code letter took the next word (node's `-pe CODE`: both take it).
        let mut took_next = false;
        while let Some(letter) = rest.chars().next() {
            rest = &rest[letter.len_utf8()..];
            let takes = |list: &str| list.contains(letter);
            if takes(getopt.digits) {
                // Octal digits, or `x` and hexadecimal ones (perl's `-0x1F`).
                rest = match rest.strip_prefix(['x', 'X']) {
                    Some(hex) => hex.trim_start_matches(|c: char| c.is_ascii_hexdigit()),
                    None => rest.trim_start_matches(|c: char| ('0'..='7').contains(&c)),
                };
                continue;
            }
            if takes(getopt.rest) {
                break;
            }
            let code = takes(getopt.code);
            if !(code || takes(getopt.value) || takes(getopt.module) || takes(getopt.file)) {
                continue;
            }
            if code && took_next {
                continue;
            }
            // The value: the rest of the word, or the next word.
            let value = if !rest.is_empty() && (getopt.attached_code || !code) {
                Some(arg.known().then_some(rest))
            } else {
                i += 1;
                took_next = true;
                args.get(i - 1).map(Analysed::as_code)
            };
            if code {
                if let Some(code) = value {
                    runs.codes.push(code);
                }
                // node's `-pe CODE`: both take the next word.
                if getopt.attached_code {
                    break;
                }
                continue;
            }
            if takes(getopt.module) {
                runs.module = true;
            }
            if takes(getopt.file) {
                runs.file = args.get(i - 1).filter(|_| rest.is_empty());
            }
            break;
        }
        // Python runs its `-c` code or `-m` module, and nothing after it (php reads
        // its options on after `-f FILE`).
        if language == Language::Python && (!runs.codes.is_empty() || runs.module) {
            break;
        }
    }
    if runs.file.is_none() {
        runs.file = maybe_file;
    }
    runs
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
    /// A string literal of the code (interpolations kept as their text): a path
    /// the code may open, write or delete itself, held to `protect`.
    Literal(String),
}

/// The most string literals of interpreters' code a string's rule holds to
/// `protect`, each with the working directory it is held from, counted once.
pub(super) const MAX_LITERALS: usize = 65_536;

/// Why a string whose interpreters' code holds more literals than can be judged is
/// not judged (a violation).
pub(super) const LITERALS_SPENT: &str =
    "its interpreters' code holds more string literals than can be judged (65536)";

/// What a call of [`execs`]'s table does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Runs a command ([`calls`]).
    Runs,
    /// Runs code in the same language ([`evals`]).
    Evals,
    /// Deletes a folder and all it holds, without asking ([`deletes`]).
    Deletes,
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
            "Bun.spawn",
            "Bun.spawnSync",
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

/// The calls of `language` that delete a folder and all it holds without asking,
/// as `rm -rf` does: Python's `shutil.rmtree`, perl's `File::Path`, ruby's
/// `FileUtils`, node's `fs` (with `recursive`, see [`NODE_RECURSIVE`]), fs-extra
/// and rimraf.
fn deletes(language: Language) -> &'static [&'static str] {
    match language {
        Language::Python => &["shutil.rmtree"],
        Language::Perl => &["rmtree", "remove_tree"],
        Language::Ruby => &[
            "rm_rf",
            "rm_r",
            "rmtree",
            "remove_dir",
            "remove_entry",
            "remove_entry_secure",
        ],
        Language::Node => &[
            "rmSync",
            "rm",
            "rmdirSync",
            "rmdir",
            "removeSync",
            "remove",
            "emptyDirSync",
            "rimraf",
            "rimrafSync",
            "rimraf.sync",
        ],
        Language::Php | Language::Awk => &[],
    }
}

/// node's `fs` calls of [`deletes`] that delete a folder's contents only with the
/// option `recursive`; without it they delete one file or an empty folder.
const NODE_RECURSIVE: [&str; 4] = ["rmSync", "rm", "rmdirSync", "rmdir"];

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

/// The names that run commands or delete in Python's `code` besides [`calls`] and
/// [`deletes`]: the functions of `os`, `subprocess`, `pty`, `asyncio` and `shutil`
/// by an alias of the module (`import subprocess as sp`: `sp.run`) or by their own
/// names where the code imports them from it (`from subprocess import run`).
fn python_names(code: &str) -> Vec<(String, Kind)> {
    let mut names = Vec::new();
    for module in ["os", "subprocess", "pty", "asyncio", "shutil"] {
        let table = (calls(Language::Python)
            .iter()
            .map(|call| (call, Kind::Runs)))
        .chain((deletes(Language::Python).iter()).map(|call| (call, Kind::Deletes)));
        let functions = table
            .filter_map(|(call, kind)| Some((call.strip_prefix(module)?.strip_prefix('.')?, kind)));
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
        for (function, kind) in functions {
            for alias in &aliases {
                names.push((format!("{alias}.{function}"), kind));
            }
            if code.contains(&imported) {
                names.push((function.to_owned(), kind));
            }
        }
    }
    names
}

/// The commands the calls in `code` run, where their command is literal, the
/// text of each backquoted command of perl, ruby and php, the `rm -rf` of each
/// call that deletes a folder, and last every string literal of the code.
pub(super) fn execs(code: &str, language: Language) -> Vec<Exec> {
    let chars: Vec<char> = code.chars().collect();
    let extra = match language {
        Language::Python => python_names(code),
        _ => Vec::new(),
    };
    let table = |calls: &'static [&'static str], kind| calls.iter().map(move |c| (*c, kind));
    let names: Vec<(&str, Vec<char>, Kind)> = table(calls(language), Kind::Runs)
        .chain(extra.iter().map(|(call, kind)| (call.as_str(), *kind)))
        .chain(table(evals(language), Kind::Evals))
        .chain(table(deletes(language), Kind::Deletes))
        .map(|(call, kind)| (call, call.chars().collect(), kind))
        .collect();
    let mut found = Vec::new();
    let mut literals = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        // A backquoted command.
        if c == '`'
            && matches!(language, Language::Perl | Language::Ruby | Language::Php)
            && let Some((text, end)) = quoted(&chars, i, language)
        {
            found.push(Exec::Shell(text));
            i = end;
            continue;
        }
        let before = i.checked_sub(1).map(|at| chars[at]);
        // Not within a name, nor a variable's (`$system`, `@exec`).
        let boundary = before.is_none_or(|c| !(c.is_alphanumeric() || "_$@%&".contains(c)));
        // A ruby symbol naming a call that runs a command, given to `send` or
        // `method` (`send(:system, "rm -rf /")`): what it runs is not known.
        if language == Language::Ruby && c == ':' && before != Some(':') {
            let name: String = chars[i + 1..]
                .iter()
                .take_while(|c| c.is_alphanumeric() || **c == '_')
                .collect();
            let sent: String = chars[i.saturating_sub(20)..i]
                .iter()
                .filter(|c| !c.is_whitespace())
                .collect();
            if calls(language).contains(&name.as_str())
                && ["send(", "__send__(", "method(", "send"]
                    .iter()
                    .any(|call| sent.ends_with(call))
            {
                found.push(Exec::Unknown);
            }
        }
        // perl's `q{...}` and `qw(...)`, ruby's `%q(...)` and `%w[...]`.
        if boundary && let Some((texts, end)) = quote_like(&chars, i, language) {
            literals.extend(texts.into_iter().map(Exec::Literal));
            i = end;
            continue;
        }
        if boundary {
            for (call, name, kind) in &names {
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
                let eval = *kind == Kind::Evals;
                let exec = match arguments(&chars, after, language, quoting) {
                    _ if *kind == Kind::Deletes
                        && language == Language::Node
                        && NODE_RECURSIVE.contains(call)
                        // Cut short: taken as recursive.
                        && call_text(&chars, after).is_some_and(|t| !contains(t, "recursive")) =>
                    {
                        None
                    }
                    Some(exec) if *kind == Kind::Deletes => Some(removal(exec)),
                    // Another object's method (`re.compile(p)`, `df.eval(e)`), a
                    // block (`instance_eval do`).
                    _ if eval && (method && !call.contains('.')) => None,
                    Some(Exec::Unknown) if eval && block_follows(&chars, after) => None,
                    Some(Exec::Shell(text)) if eval => Some(Exec::Code(text, language)),
                    Some(Exec::Words(..)) if eval => Some(Exec::Unknown),
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
        if matches!(c, '\'' | '"') || (c == '`' && language == Language::Node) {
            match quoted(&chars, i, language) {
                Some((text, end)) => {
                    // Bun's and zx's shell: `` $`rm -rf /` ``.
                    if c == '`' && before == Some('$') {
                        found.push(Exec::Shell(text.clone()));
                    }
                    if names_a_call(&chars, i, end, &text, language) {
                        found.push(Exec::Unknown);
                    }
                    literals.push(Exec::Literal(text.clone()));
                    if language == Language::Awk {
                        let before = chars[..i].iter().rev().find(|c| !c.is_whitespace());
                        let after = chars.get(skip_space(&chars, end));
                        if before == Some(&'|') || after == Some(&'|') {
                            found.push(Exec::Shell(text));
                        }
                    }
                    i = end;
                }
                // An interpolated string: what it holds is not known, its text
                // as written is held to `protect`; as a shell's command, one not
                // known.
                None if chars[i + 1..].contains(&c) => {
                    if c == '`' && before == Some('$') {
                        found.push(Exec::Unknown);
                    }
                    let end = skip_literal(&chars, i);
                    let inside = chars[i + 1..end.saturating_sub(1).max(i + 1)].iter();
                    literals.push(Exec::Literal(inside.collect()));
                    i = end;
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
    found.extend(literals);
    found
}

/// Whether the literal `text`, from `start` to `end` in `chars`, names a call of
/// [`calls`] that the code makes by that name, so that what it runs is not known:
/// called where the literal's bracket closes (`getattr(os, "system")(...)`,
/// `cp["execSync"](...)`), or given to php's `call_user_func` and its kin, or a
/// ruby symbol given to `send` (`send(:system, ...)`: see [`execs`]).
fn names_a_call(chars: &[char], start: usize, end: usize, text: &str, language: Language) -> bool {
    let runs = calls(language)
        .iter()
        .any(|call| call.rsplit('.').next() == Some(text));
    if !runs || text.is_empty() {
        return false;
    }
    let after = skip_space(chars, end);
    let called = matches!(chars.get(after), Some(')' | ']'))
        && chars.get(skip_space(chars, after + 1)) == Some(&'(');
    let before: String = chars[start.saturating_sub(40)..start]
        .iter()
        .filter(|c| !c.is_whitespace())
        .collect();
    called
        || (language == Language::Php
            && [
                "call_user_func(",
                "call_user_func_array(",
                "array_map(",
                "$f=",
            ]
            .iter()
            .any(|call| before.ends_with(call)))
}

/// The texts of the quote-like literal of perl (`q`, `qq`, `qw`) or ruby (`%q`,
/// `%Q`, `%w`, `%W`, `%i`, `%`) that starts at `at`, with a delimiter of its own
/// (brackets nest), and where it ends; a word list's words each. One left open
/// runs to the end of the code (which the interpreter refuses). `None` for no
/// such literal.
fn quote_like(chars: &[char], at: usize, language: Language) -> Option<(Vec<String>, usize)> {
    let (name, words) = match language {
        Language::Perl if chars.get(at) == Some(&'q') => match chars.get(at + 1)? {
            'q' => (2, false),
            'w' => (2, true),
            _ => (1, false),
        },
        Language::Ruby if chars.get(at) == Some(&'%') => match chars.get(at + 1)? {
            'q' | 'Q' => (2, false),
            'w' | 'W' | 'i' | 'I' => (2, true),
            '(' | '[' | '{' | '<' | '|' | '!' => (1, false),
            _ => return None,
        },
        _ => return None,
    };
    let open = *chars.get(at + name)?;
    let close = match open {
        '{' => '}',
        '(' => ')',
        '[' => ']',
        '<' => '>',
        c if c.is_ascii_punctuation() && !"=,;)}]>_$@%&'\"`\\".contains(c) => c,
        _ => return None,
    };
    let mut depth = 0usize;
    let mut i = at + name + 1;
    let mut text = String::new();
    while let Some(&c) = chars.get(i) {
        i += 1;
        if c == '\\' {
            text.extend(chars.get(i));
            i += 1;
            continue;
        }
        if c == close && depth == 0 {
            break;
        }
        if open != close && c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
        }
        text.push(c);
    }
    let texts = match words {
        true => text.split_whitespace().map(str::to_owned).collect(),
        false => vec![text],
    };
    Some((texts, i))
}

/// What a call that deletes a folder (of [`deletes`]) with the arguments `exec`
/// runs: `rm -rf` of them; of its first when the others are options, not known.
fn removal(exec: Exec) -> Exec {
    let rm = ["rm", "-rf"].map(str::to_owned).to_vec();
    match exec {
        Exec::Shell(path) => Exec::Words([rm, vec![path]].concat(), true),
        Exec::Words(paths, complete) => Exec::Words([rm, paths].concat(), complete),
        _ => Exec::Words(rm, false),
    }
}

/// How far [`call_text`] reads a call's arguments.
const CALL_TEXT: usize = 4096;

/// The arguments of the call whose name ends before `at`, from its `(` to the `)`
/// that closes it (string literals skipped whole); empty when no `(` follows;
/// `None` when it goes on past [`CALL_TEXT`] characters or the end.
fn call_text(chars: &[char], at: usize) -> Option<&[char]> {
    let start = skip_space(chars, at);
    if chars.get(start) != Some(&'(') {
        return Some(&[]);
    }
    let end = chars.len().min(start + CALL_TEXT);
    let mut depth = 0usize;
    let mut i = start;
    while i < end {
        match chars[i] {
            '\'' | '"' | '`' => {
                i = skip_literal(chars, i);
                continue;
            }
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(&chars[start..=i]);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whether `chars` hold `word`.
fn contains(chars: &[char], word: &str) -> bool {
    let word: Vec<char> = word.chars().collect();
    chars.windows(word.len()).any(|w| w == word.as_slice())
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
        // variable, a list, a call or ruby's splat: `system $cmd`, `system @words`,
        // `system *ARGV`.
        Some('\'' | '"') if bare => {}
        Some(c) if bare && (c.is_alphanumeric() || "$@_[*".contains(*c)) && i > at => {
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
        match quoted(chars, i, language) {
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
/// backquote, three of them too), its escapes read as `language` reads them in
/// that quote, and where it ends; Python's literals side by side are one
/// (`'r' 'm'`). `None` for another character, an unclosed literal, or one that
/// interpolates (`${`, `#{`).
fn quoted(chars: &[char], at: usize, language: Language) -> Option<(String, usize)> {
    let (mut text, mut end) = quoted_one(chars, at, language)?;
    if language != Language::Python {
        return Some((text, end));
    }
    loop {
        let next = skip_space(chars, end);
        match quoted_one(chars, next, language) {
            Some((more, after)) => {
                text.push_str(&more);
                end = after;
            }
            _ => return Some((text, end)),
        }
    }
}

/// One literal of [`quoted`].
fn quoted_one(chars: &[char], mut at: usize, language: Language) -> Option<(String, usize)> {
    // Python's prefixes: raw, bytes, unicode, formatted (whose fields stay as text).
    let mut raw = false;
    while chars.get(at).is_some_and(|c| "rRbBuUfF".contains(*c))
        && chars
            .get(at + 1)
            .is_some_and(|c| "rRbBuUfF'\"".contains(*c))
    {
        raw |= matches!(chars[at], 'r' | 'R');
        at += 1;
    }
    let quote = *chars.get(at)?;
    if !matches!(quote, '\'' | '"' | '`') {
        return None;
    }
    // Whether `\` escapes are read: perl's, ruby's and php's single quotes read
    // only `\\` and `\'`; a raw Python literal none.
    let escapes = match language {
        Language::Python => !raw,
        Language::Perl | Language::Ruby | Language::Php => quote != '\'',
        Language::Node | Language::Awk => true,
    };
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
            i += 2;
            if !escapes {
                if language == Language::Python || !(next == '\\' || next == quote) {
                    text.push('\\');
                }
                text.push(next);
                continue;
            }
            i = escape(chars, i, next, language, &mut text);
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

/// Reads the escape `\` `next` whose text goes on at `at` (after `next`) into
/// `text`, as `language` reads it; gives where the literal goes on.
fn escape(chars: &[char], at: usize, next: char, language: Language, text: &mut String) -> usize {
    // Up to `max` digits of `radix` from `from`, with perl's, ruby's, php's and
    // node's `{...}` around them.
    let number = |from: usize, radix: u32, max: usize| -> Option<(char, usize)> {
        let (from, braced) = match chars.get(from) {
            Some('{') if radix == 16 => (from + 1, true),
            _ => (from, false),
        };
        let max = if braced { 8 } else { max };
        let digits = chars[from.min(chars.len())..]
            .iter()
            .take(max)
            .take_while(|c| c.is_digit(radix))
            .count();
        let code = chars[from..from + digits]
            .iter()
            .try_fold(0u32, |code, c| Some(code * radix + c.to_digit(radix)?))?;
        let end = from + digits;
        let end = match braced {
            true if chars.get(end) == Some(&'}') => end + 1,
            true => return None,
            false if digits == 0 => return None,
            false => end,
        };
        Some((char::from_u32(code)?, end))
    };
    let read = match next {
        'n' => Some(('\n', at)),
        't' => Some(('\t', at)),
        'r' => Some(('\r', at)),
        'a' => Some(('\x07', at)),
        'b' => Some(('\x08', at)),
        'f' => Some(('\x0c', at)),
        'v' => Some(('\x0b', at)),
        'e' if language != Language::Python => Some(('\x1b', at)),
        '0'..='7' => number(at - 1, 8, 3),
        'x' => number(at, 16, 2),
        'u' => number(at, 16, 4),
        'U' if language == Language::Python => number(at, 16, 8),
        // A line's end escaped: nothing.
        '\n' => return at,
        _ => None,
    };
    match read {
        Some((c, end)) => {
            text.push(c);
            end
        }
        // Python keeps the backslash of an escape it does not know (`'\d'`).
        None if language == Language::Python && !"\\'\"".contains(next) => {
            text.push('\\');
            text.push(next);
            at
        }
        None => {
            text.push(next);
            at
        }
    }
}

impl Judge<'_> {
    /// Holds the literal `text` of an interpreter's code to `protect`, once for
    /// each working directory, at most [`MAX_LITERALS`] in all.
    fn protect_literal(&mut self, text: &str) -> Step {
        if self.rule.protect.is_none() {
            return Ok(());
        }
        let cwd = &self.place.cwd;
        if self
            .literals
            .get(cwd)
            .is_some_and(|held| held.contains(text))
        {
            return Ok(());
        }
        self.literals_held += 1;
        if self.literals_held > MAX_LITERALS {
            return Err(CommandVerdict::Unparseable(LITERALS_SPENT.to_owned()));
        }
        let held = self.literals.entry(cwd.clone()).or_default();
        held.insert(text.to_owned());
        self.protect(&made_word(text))
    }

    /// Judges what the code the interpreter `name` of the command `words` runs runs
    /// through a shell or as a program ([`execs`]): its code options' values, the
    /// file it runs when the string writes it, or what it reads on its standard
    /// input when known (with `-`, or without code or file). Code given on the
    /// command line that is not known before it runs is a program not known (with
    /// patterns, a violation), as a shell's `-c` string is.
    pub(super) fn interpreter_code(&mut self, name: &str, words: &[Analysed], at: At<'_>) -> Step {
        let Some(language) = language(name) else {
            return Ok(());
        };
        if language == Language::Awk {
            return self.awk_code(words, at);
        }
        let runs = runs(&words[1..], language);
        // A module or another program's code: not known here.
        if runs.module && runs.codes.is_empty() {
            return Ok(());
        }
        let mut codes = Vec::new();
        for code in &runs.codes {
            match code {
                Some(code) => codes.push((*code).to_owned()),
                None => return self.not_known(words),
            }
        }
        if codes.is_empty() {
            codes = match runs.file {
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
                // Options whose value is the next word (gawk's `-i inplace`).
                "-F" | "-v" | "-i" | "-l" | "--field-separator" | "--assign" | "--include"
                | "--load" => {
                    i += 1;
                    continue;
                }
                "-f" | "--file" | "-E" | "--exec" | "-e" | "--source" => {
                    let file = !matches!(text, "-e" | "--source");
                    files |= file;
                    i += 1;
                    match args.get(i - 1) {
                        // A file not written by the string is judged as written.
                        Some(value) if file => {
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
        // Each code is read once, and its literals held once from each folder.
        let key = (code.to_owned(), language);
        let (runs, literals) = match self.codes.get_mut(&key) {
            Some((runs, folders)) => {
                let fresh = folders.insert(self.place.cwd.clone());
                (std::rc::Rc::clone(runs), fresh)
            }
            None => {
                let runs = std::rc::Rc::new(execs(code, language));
                let folders = std::collections::HashSet::from([self.place.cwd.clone()]);
                self.codes.insert(key, (std::rc::Rc::clone(&runs), folders));
                (runs, true)
            }
        };
        self.judge_execs(&runs, literals, words, at)
    }

    /// Judges what the command `words` runs by the means of `execs` (the calls of
    /// an interpreter's code, the commands of an editor's script), each counted as
    /// a run of a script, its literals held to `protect` where `literals`; code
    /// that code runs is a level further down.
    pub(super) fn judge_execs(
        &mut self,
        execs: &[Exec],
        literals: bool,
        words: &[Analysed],
        at: At<'_>,
    ) -> Step {
        for exec in execs {
            // A literal is a name, not a run.
            if !matches!(exec, Exec::Literal(_)) {
                self.count_script_run()?;
            }
            match exec {
                Exec::Unknown => self.not_known(words)?,
                Exec::Code(code, language) => {
                    let deeper = at.deeper();
                    if deeper.depth > MAX_DEPTH {
                        return Err(CommandVerdict::TooDeep(MAX_DEPTH));
                    }
                    self.judge_code(code, *language, words, deeper)?;
                }
                Exec::Shell(text) => {
                    self.in_subshell(|judge| judge.program(text, at.deeper()))?;
                }
                Exec::Literal(text) if literals => self.protect_literal(text)?,
                Exec::Literal(_) => {}
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
