//! Scripts the command string writes and runs: a file written with text known
//! before it runs (`echo 'rm -rf /' > x.sh`, a here-document into `cat > x.sh`,
//! `tee x.sh`) is judged as a command string where the string runs it (`bash x.sh`,
//! `source x.sh`, `./x.sh`), and so is what a shell reads on its standard input
//! when that is known (`bash <<< 'rm -rf /'`, `echo 'rm -rf /' | sh`); what `xargs`
//! reads is judged with the command it runs (`echo -rf / | xargs rm`).

use super::*;

/// A file the string writes, with the text it writes.
#[derive(Debug, Clone)]
pub(super) struct Written {
    /// The file's path, absolute where the shell's folder is known, after `?/` where
    /// it is not (see [`Judge::file_key`]).
    key: String,
    text: String,
    /// Whether the text is added at the file's end (`>>`, `tee -a`).
    append: bool,
}

/// The most writes of files with known text a string is read with.
pub(super) const MAX_WRITES: usize = 1_024;

/// The most bytes of text those writes hold, in all.
pub(super) const MAX_WRITTEN_BYTES: usize = 16 << 20;

/// The most scripts a string is judged running, each time one runs.
pub(super) const MAX_SCRIPT_RUNS: usize = 1_024;

/// Why a string that writes or runs more than can be judged is not judged (a
/// violation).
pub(super) const WRITES_SPENT: &str = "it writes or runs more scripts than can be judged (1024 writes, 16 MiB of their text or 1024 runs)";

/// Where the operands of a shell's arguments start, after its options (and the
/// values of `-o`, `-O`, `--rcfile` and `--init-file`), and whether `-c` is among
/// them.
pub(super) fn shell_operands(args: &[Analysed]) -> (usize, bool) {
    let mut c = false;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if text == "--" || text == "-" {
            return (i + 1, c);
        }
        if matches!(text, "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file") {
            i += 2;
            continue;
        }
        if text.starts_with("--") {
            i += 1;
            continue;
        }
        if (text.starts_with('-') || text.starts_with('+')) && text.len() > 1 {
            c |= text.starts_with('-') && text.contains('c');
            i += 1;
            continue;
        }
        break;
    }
    (i, c)
}

/// Whether `name` is a shell.
pub(super) fn is_shell(name: &str) -> bool {
    matches!(
        name,
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "ash" | "mksh" | "fish" | "csh" | "tcsh" | "yash"
    )
}

impl Judge<'_> {
    /// Counts one more run of a script, a string's or a program's command
    /// ([`MAX_SCRIPT_RUNS`]); past them the string is a violation.
    pub(super) fn count_script_run(&mut self) -> Step {
        self.scripts_run += 1;
        match self.scripts_run > MAX_SCRIPT_RUNS {
            true => Err(CommandVerdict::Unparseable(WRITES_SPENT.to_owned())),
            false => Ok(()),
        }
    }

    /// The key a file named `text` is known by: its path made absolute from where
    /// the shell is, and normalised (`?/` and the path as written where the shell's
    /// folder is not known).
    pub(super) fn file_key(&self, text: &str) -> Option<String> {
        if text.is_empty() || text.contains(FIELD) {
            return None;
        }
        let path = match (text.starts_with(['/', '~']), &self.place.cwd) {
            (true, _) => text.to_owned(),
            (false, Some(cwd)) => format!("{cwd}/{text}"),
            (false, None) => return Some(format!("?/{text}")),
        };
        match normalise(&path) {
            Normalised::Path(path) => Some(path),
            _ => None,
        }
    }

    /// What the command of `words` with `redirects` prints to its output, when
    /// known ([`Judge::output_of`], `stdin` what it reads): nothing when its output
    /// goes elsewhere.
    pub(super) fn prints(
        &self,
        words: &[Analysed],
        redirects: &[&ast::IoRedirect],
        stdin: &[String],
    ) -> Vec<String> {
        let elsewhere = |redirect: &&ast::IoRedirect| match redirect {
            ast::IoRedirect::File(None | Some(1), kind, _) => !matches!(
                kind,
                ast::IoFileRedirectKind::Read | ast::IoFileRedirectKind::DuplicateInput
            ),
            ast::IoRedirect::OutputAndError(..) => true,
            _ => false,
        };
        match redirects.iter().any(elsewhere) {
            true => Vec::new(),
            false => self.output_of(words, stdin),
        }
    }

    /// What a command of `words` prints, when known: an `echo` or `printf` of known
    /// words, a `cat` with no file of each text `stdin` may hold, or a `base64 -d`
    /// of each that decodes to text.
    fn output_of(&self, words: &[Analysed], stdin: &[String]) -> Vec<String> {
        if !words.iter().all(Analysed::known) {
            return Vec::new();
        }
        let texts: Vec<&str> = words.iter().map(|word| word.text.as_str()).collect();
        match texts[..] {
            ["cat"] | ["cat", "-"] => stdin.to_vec(),
            ["base64", "-d" | "--decode" | "-D"] | ["base64", "-d" | "--decode" | "-D", "-"] => {
                (stdin.iter())
                    .filter_map(|text| crate::sshsig::base64_decode(text.as_bytes()))
                    .filter_map(|bytes| String::from_utf8(bytes).ok())
                    .collect()
            }
            _ => printed(&texts).into_iter().collect(),
        }
    }

    /// The texts the command of `redirects` may read on its standard input: its
    /// last here-document (its tabs removed with `<<-`) or here-string, a file the
    /// string writes (`< x.sh`), or else what the command before it in a pipeline
    /// prints ([`Judge::piped`]); none when not known.
    pub(super) fn stdin_of(&self, redirects: &[&ast::IoRedirect]) -> Vec<String> {
        for redirect in redirects.iter().rev() {
            match redirect {
                ast::IoRedirect::HereDocument(None | Some(0), doc) => {
                    let text = &doc.doc.value;
                    return vec![match doc.remove_tabs {
                        true => (text.split_inclusive('\n'))
                            .map(|line| line.trim_start_matches('\t'))
                            .collect(),
                        false => text.clone(),
                    }];
                }
                ast::IoRedirect::HereString(None | Some(0), word) => {
                    return match self.analyse(&word.value) {
                        Ok(word) if word.literal => vec![format!("{}\n", word.text)],
                        _ => Vec::new(),
                    };
                }
                ast::IoRedirect::File(
                    None | Some(0),
                    ast::IoFileRedirectKind::Read,
                    ast::IoFileRedirectTarget::Filename(word),
                ) => {
                    return match self.analyse(&word.value) {
                        Ok(word) if word.known() => self.file_texts(&word.text),
                        _ => Vec::new(),
                    };
                }
                _ => {}
            }
        }
        self.piped.clone()
    }

    /// Notes the files the command of `words` with `redirects` writes text known
    /// before it runs to: what it prints, to its output's redirections, and what
    /// `tee` reads (`stdin`), to its files; when the string is read again with
    /// values, to the redirections that expand a variable, with each of them.
    pub(super) fn writes(
        &mut self,
        words: &[Analysed],
        redirects: &[&ast::IoRedirect],
        stdin: &[String],
    ) -> Step {
        if words.is_empty() {
            return Ok(());
        }
        let again = self.assigned.is_none();
        let mut targets = Vec::new();
        for redirect in redirects {
            match redirect {
                ast::IoRedirect::File(
                    None | Some(1),
                    kind @ (ast::IoFileRedirectKind::Write
                    | ast::IoFileRedirectKind::Append
                    | ast::IoFileRedirectKind::Clobber),
                    ast::IoFileRedirectTarget::Filename(word),
                ) => targets.push((&word.value, matches!(kind, ast::IoFileRedirectKind::Append))),
                ast::IoRedirect::OutputAndError(word, append) => {
                    targets.push((&word.value, *append));
                }
                _ => {}
            }
        }
        let tee = words[0].text == "tee";
        let copy = matches!(words[0].text.as_str(), "cp" | "mv");
        if targets.is_empty() && !tee && !copy {
            return Ok(());
        }
        let mut found = Vec::new();
        // A file copied or moved holds what its source does: the last operand is the
        // file, or the folder the others go into.
        if copy && !self.files.is_empty() {
            let args = &words[1..];
            let from = after_options(args, "St", &["suffix", "target-directory"]).min(args.len());
            if let [sources @ .., target] = &args[from..]
                && target.known()
                && !args[..from]
                    .iter()
                    .any(|arg| arg.text.starts_with("-t") || arg.text.starts_with("--target"))
            {
                for source in sources.iter().filter(|source| source.known()) {
                    let name = source.text.rsplit('/').next().unwrap_or(&source.text);
                    for text in self.file_texts(&source.text) {
                        found.push((target.text.clone(), text.clone(), false));
                        found.push((format!("{}/{name}", target.text), text, false));
                    }
                }
            }
        }
        let mut printed = self.output_of(words, stdin);
        // Read with values, what it prints too (`X=-rf; echo "rm $X /" > x.sh`).
        if again {
            let mut more = Vec::new();
            self.with_values(words, |judge, read| {
                more.extend(judge.output_of(&read, stdin));
                Ok(())
            })?;
            for text in more {
                if !printed.contains(&text) {
                    printed.push(text);
                }
            }
        }
        for (target, append) in targets {
            let analysed = self.analyse(target)?;
            let mut files = self.braces_expanded(vec![analysed.clone()])?;
            if again {
                files.extend(self.read_with_values(&analysed)?);
            }
            for file in files.iter().filter(|file| file.known()) {
                for text in &printed {
                    found.push((file.text.clone(), text.clone(), append));
                }
            }
        }
        if tee && !again {
            let args = &words[1..];
            let from = after_options(args, "", &[]).min(args.len());
            let append = (args[..from].iter()).any(|arg| {
                arg.text == "--append" || (!arg.text.starts_with("--") && arg.text.contains('a'))
            });
            for file in args[from..].iter().filter(|file| file.known()) {
                for text in stdin {
                    found.push((file.text.clone(), text.clone(), append));
                }
            }
        }
        for (file, text, append) in found {
            let Some(key) = self.file_key(&file) else {
                continue;
            };
            let written = Written { key, text, append };
            if (self.files.iter()).any(|file| {
                (&file.key, &file.text, file.append)
                    == (&written.key, &written.text, written.append)
            }) {
                continue;
            }
            let bytes = self.written_bytes.saturating_add(written.text.len());
            if self.files.len() == MAX_WRITES || bytes > MAX_WRITTEN_BYTES {
                return Err(CommandVerdict::Unparseable(WRITES_SPENT.to_owned()));
            }
            self.written_bytes = bytes;
            self.files.push(written);
        }
        Ok(())
    }

    /// The texts the string writes to the file named `text`: each write, and all of
    /// them in order when one adds to the file's end. Notes that a file was looked
    /// for ([`Judge::looked_up`]).
    pub(super) fn file_texts(&self, text: &str) -> Vec<String> {
        self.looked_up.set(true);
        if self.files.is_empty() {
            return Vec::new();
        }
        let Some(key) = self.file_key(text) else {
            return Vec::new();
        };
        let writes: Vec<&Written> = self.files.iter().filter(|file| file.key == key).collect();
        let mut texts: Vec<String> = Vec::new();
        for write in &writes {
            if !texts.contains(&write.text) {
                texts.push(write.text.clone());
            }
        }
        if writes.len() > 1 && writes.iter().any(|write| write.append) {
            texts.push(writes.iter().map(|write| write.text.as_str()).collect());
        }
        texts
    }

    /// Judges the scripts the command `program` (`name`) with `args` runs, where
    /// their text is known: the file of a shell without `-c` (or what it reads on
    /// its standard input, without one), of `source` and `.`, or the program itself
    /// when it is a path, each with the arguments after it as its positional
    /// parameters.
    pub(super) fn run_scripts(&mut self, name: &str, words: &[Analysed], at: At<'_>) -> Step {
        let (program, args) = (&words[0], &words[1..]);
        let shell = is_shell(name);
        let (file, given) = if shell {
            let (from, c) = shell_operands(args);
            // With `-s` the operands are its positional parameters and its script
            // what it reads.
            let s = (args[..from].iter()).any(|arg| {
                arg.text.starts_with('-') && !arg.text.starts_with("--") && arg.text.contains('s')
            });
            match (c, s) {
                (true, _) => return Ok(()),
                (false, true) => (None, args.get(from..).unwrap_or_default()),
                (false, false) => (args.get(from), args.get(from + 1..).unwrap_or_default()),
            }
        } else if matches!(name, "source" | ".") {
            (args.first(), args.get(1..).unwrap_or_default())
        } else if program.text.contains('/') {
            (Some(program), args)
        } else {
            return Ok(());
        };
        // Read with values, a file written as it is was judged as written already.
        if self.variant && file.is_some_and(|file| file.parameters.is_empty()) {
            return Ok(());
        }
        let texts = match file {
            Some(file) if file.known() => self.file_texts(&file.text),
            None if shell => self.stdin.clone(),
            _ => return Ok(()),
        };
        // Run as a program, a script is run by the program its `#!` line names: a
        // shell (or none), an interpreter whose code is read, or another not known.
        let path = !shell && !matches!(name, "source" | ".");
        for text in texts {
            if path && let Some(runs) = super::interpreters::shebang(&text) {
                let name = gnu_name(runs);
                if let Some(language) = super::interpreters::language(name) {
                    self.judge_code(&text, language, words, at)?;
                    continue;
                }
                if !is_shell(name) {
                    continue;
                }
            }
            self.count_script_run()?;
            self.positional(given)?;
            self.in_subshell(|judge| judge.program(&text, at.deeper()))?;
        }
        Ok(())
    }
}

/// The options of `xargs` that take a value (as the next word, or the rest of
/// theirs): short letters and long names.
pub(super) const XARGS_SHORT: &str = "InPdLsaE";

/// The long options of `xargs` that take a value as the next word (`--replace`
/// and `--eof` take theirs only after `=`).
pub(super) const XARGS_LONG: [&str; 7] = [
    "max-args",
    "max-procs",
    "delimiter",
    "max-lines",
    "max-chars",
    "arg-file",
    "process-slot-var",
];

/// A word known before the command runs, made here (an item `xargs` reads).
pub(super) fn made_word(text: &str) -> Analysed {
    Analysed {
        text: text.to_owned(),
        path: text.to_owned(),
        written: text.to_owned(),
        literal: true,
        braces: text.to_owned(),
        ..Analysed::default()
    }
}

/// The items `xargs` reads from `input`: separated by `delimiter` when given (`-0`,
/// `-d`), by newlines when `lines` (`-I`: a line's leading blanks dropped), by
/// blanks and newlines otherwise; quotes and `\` as it reads them, but with a
/// delimiter. `None` for a quote left open, where it stops with an error.
fn xargs_items(input: &str, delimiter: Option<char>, lines: bool) -> Option<Vec<String>> {
    if let Some(delimiter) = delimiter {
        let mut items: Vec<String> = input.split(delimiter).map(str::to_owned).collect();
        if items.last().is_some_and(String::is_empty) {
            items.pop();
        }
        return Some(items);
    }
    let mut items = Vec::new();
    let mut item = String::new();
    let mut started = false;
    let mut chars = input.chars();
    while let Some(c) = chars.next() {
        match c {
            '\n' => {
                if started {
                    items.push(std::mem::take(&mut item));
                }
                started = false;
            }
            ' ' | '\t' if !lines || !started => {
                if started && !lines {
                    items.push(std::mem::take(&mut item));
                    started = false;
                }
            }
            '\'' | '"' => {
                started = true;
                loop {
                    match chars.next() {
                        Some(end) if end == c => break,
                        Some('\n') | None => return None,
                        Some(other) => item.push(other),
                    }
                }
            }
            '\\' => {
                started = true;
                item.push(chars.next()?);
            }
            c => {
                started = true;
                item.push(c);
            }
        }
    }
    if started {
        items.push(item);
    }
    Some(items)
}

/// How xargs reads its items: where its command starts among its arguments, the
/// string its items replace (`-I R`, `-i`, `--replace`), their delimiter (`-0`,
/// `-d C`), and whether it reads them on its standard input as read here (not with
/// `-a FILE` or a delimiter not read here).
struct XargsOptions {
    from: usize,
    replace: Option<String>,
    delimiter: Option<char>,
    reads_input: bool,
}

fn xargs_options(args: &[Analysed]) -> XargsOptions {
    let from = after_options(args, XARGS_SHORT, &XARGS_LONG).min(args.len());
    let (mut replace, mut delimiter, mut reads_input) = (None, None, true);
    let mut i = 0;
    while i < from {
        let text = args[i].text.as_str();
        let next = args.get(i + 1).map(|arg| arg.text.clone());
        i += 1;
        match text {
            "--null" => delimiter = Some('\0'),
            "--replace" => replace = Some("{}".to_owned()),
            _ if text.starts_with("--replace=") => {
                replace = Some(text["--replace=".len()..].to_owned());
            }
            _ if text.starts_with("--delimiter") || text.starts_with("--arg-file") => {
                // Its own items, or another file's.
                reads_input = false;
            }
            _ if text.starts_with("--") => {}
            _ => {
                for (at, c) in text.char_indices().skip(1) {
                    let rest = &text[at + c.len_utf8()..];
                    let value = match rest.is_empty() {
                        true if XARGS_SHORT.contains(c) => {
                            i += 1;
                            next.clone()
                        }
                        _ => Some(rest.to_owned()),
                    };
                    match c {
                        '0' => delimiter = Some('\0'),
                        'i' => {
                            replace =
                                Some(value.filter(|v| !v.is_empty()).unwrap_or("{}".to_owned()))
                        }
                        'I' => replace = value,
                        'a' => reads_input = false,
                        'd' => {
                            let value = value.unwrap_or_default();
                            match (value.chars().next(), value.chars().count()) {
                                (Some(d), 1) => delimiter = Some(d),
                                (_, _) if value == "\\n" => delimiter = Some('\n'),
                                _ => reads_input = false,
                            }
                        }
                        _ => {}
                    }
                    if XARGS_SHORT.contains(c) || c == 'i' {
                        break;
                    }
                }
            }
        }
    }
    XargsOptions {
        from,
        replace,
        delimiter,
        reads_input,
    }
}

/// Whether xargs with `args` puts what it reads in its program, or in the string
/// or code a shell or an interpreter runs (`xargs -I{} sh -c {}`).
pub(super) fn xargs_replaces_code(args: &[Analysed]) -> bool {
    let options = xargs_options(args);
    let Some(replace) = options.replace.filter(|r| !r.is_empty()) else {
        return false;
    };
    let Some((program, rest)) = args.get(options.from..).and_then(<[Analysed]>::split_first) else {
        return false;
    };
    let name = basename(&program.text);
    // The shell's `-c` string, or the code an interpreter's options give it, read
    // as the shell and the interpreter read their options.
    let in_code = if is_shell(name) {
        let (from, c) = shell_operands(rest);
        c && rest
            .get(from)
            .is_some_and(|code| code.text.contains(&replace))
    } else if super::interpreters::language(name) == Some(super::interpreters::Language::Awk) {
        // awk's program is its first operand or an option's value: any word.
        rest.iter().any(|word| word.text.contains(&replace))
    } else if let Some(language) = super::interpreters::language(name) {
        let runs = super::interpreters::runs(rest, language);
        (runs.codes.iter()).any(|code| code.is_none_or(|code| code.contains(&replace)))
    } else {
        false
    };
    program.text.contains(&replace) || in_code
}

impl Judge<'_> {
    /// Judges the command `xargs` with `args` runs with the items it reads on its
    /// standard input, when that is known: after the command's own words, or in
    /// place of the `-I` (`-i`, `--replace`) string in each of them, an item (a
    /// line) at a time. Its command runs with nothing known on its own input.
    pub(super) fn xargs_input(&mut self, args: &[Analysed], at: At<'_>) -> Step {
        if self.stdin.is_empty() {
            return Ok(());
        }
        let options = xargs_options(args);
        let (from, replace, delimiter) = (options.from, options.replace, options.delimiter);
        if !options.reads_input {
            return Ok(());
        }
        let command: Vec<Analysed> = match &args[from..] {
            [] => vec![made_word("echo")],
            command => command.to_vec(),
        };
        let inputs = std::mem::take(&mut self.stdin);
        for input in &inputs {
            let Some(items) = xargs_items(input, delimiter, replace.is_some()) else {
                continue;
            };
            match &replace {
                Some(replace) if !replace.is_empty() => {
                    for item in &items {
                        let mut words = Vec::with_capacity(command.len());
                        for word in &command {
                            match word.text.contains(replace.as_str()) {
                                true => words
                                    .push(made_word(&word.text.replace(replace.as_str(), item))),
                                false => words.push(word.clone()),
                            }
                        }
                        self.judge(&words, at.deeper(), true)?;
                    }
                }
                _ => {
                    let mut words = command.clone();
                    words.extend(items.iter().map(|item| made_word(item)));
                    self.judge(&words, at.deeper(), true)?;
                }
            }
        }
        self.stdin = inputs;
        Ok(())
    }
}

impl Judge<'_> {
    /// Judges the commands a crontab that `crontab` with `args` installs runs, when
    /// its text is known: what it reads on its standard input (no file, or `-`) or
    /// a file the string writes. Each line but a comment or a setting is five times
    /// (or one `@` word) and a command string.
    pub(super) fn crontab_input(&mut self, args: &[Analysed], at: At<'_>) -> Step {
        // `-l`, `-r`, `-e`: it lists, removes or edits the crontab.
        if (args.iter()).any(|arg| arg.text.starts_with('-') && arg.text.contains(['l', 'r', 'e']))
        {
            return Ok(());
        }
        let from = after_options(args, "u", &[]).min(args.len());
        let texts = match args.get(from) {
            None => self.stdin.clone(),
            Some(file) if file.text == "-" => self.stdin.clone(),
            Some(file) if file.known() => self.file_texts(&file.text),
            Some(_) => return Ok(()),
        };
        for text in texts {
            for line in text.lines() {
                let line = line.trim_start();
                if line.is_empty() || line.starts_with('#') || is_assignment(line) {
                    continue;
                }
                let fields = if line.starts_with('@') { 1 } else { 5 };
                let mut rest = line;
                for _ in 0..fields {
                    rest = rest.trim_start();
                    rest = &rest[rest.find(char::is_whitespace).unwrap_or(rest.len())..];
                }
                let command = rest.trim();
                if command.is_empty() {
                    continue;
                }
                self.count_script_run()?;
                self.in_subshell(|judge| judge.program(command, at.deeper()))?;
            }
        }
        Ok(())
    }
}
