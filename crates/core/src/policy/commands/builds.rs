//! Commands that build tools and package managers run from files the string
//! writes: the recipes of a makefile `make` reads (and its `$(shell ...)` and `!=`),
//! and the scripts of a `package.json` that `npm`, `pnpm`, `yarn` and `bun` run.
//! A file the string does not write is not read here, as a script run from disk is
//! not: its commands are judged as written.

use super::*;

/// What a makefile runs, as shell command strings: each recipe line (without its
/// `@`, `-` and `+`), each `$(shell ...)` and each `!=` assignment's command. Make's
/// variables are put in as the file defines them (a simple `NAME = VALUE`, `:=`,
/// `::=`, `?=`), else left as the shell's `${NAME}`, whose value is not known; `$$`
/// is `$`; automatic variables and functions are values not known.
pub(super) fn make_runs(text: &str) -> Vec<String> {
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    let mut variables: Vec<(String, String)> = Vec::new();
    let mut runs = Vec::new();
    let mut recipe = false;
    for line in joined.lines() {
        if let Some(command) = line.strip_prefix('\t') {
            if recipe {
                let command = command.trim_start_matches(['@', '-', '+', ' ', '\t']);
                let command = expand(command, &variables, &mut runs);
                runs.push(command);
            }
            continue;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        // An assignment: `NAME = VALUE`, `NAME := VALUE`, `NAME != COMMAND`...
        if let Some((name, operator, value)) = assignment(trimmed) {
            let value = expand(value, &variables, &mut runs);
            match operator {
                "!=" => runs.push(value),
                "+=" => {
                    if let Some((_, old)) = variables.iter_mut().find(|(n, _)| *n == name) {
                        old.push(' ');
                        old.push_str(&value);
                    }
                }
                _ => {
                    variables.retain(|(n, _)| *n != name);
                    variables.push((name.to_owned(), value));
                }
            }
            recipe = false;
            continue;
        }
        // A rule: `TARGETS: PREREQUISITES [; RECIPE]`; other lines (directives)
        // end a rule's recipe.
        recipe = trimmed.contains(':');
        if recipe && let Some((_, inline)) = trimmed.split_once(';') {
            let command = expand(inline.trim(), &variables, &mut runs);
            runs.push(command);
        }
        if !recipe {
            expand(trimmed, &variables, &mut runs);
        }
    }
    runs.retain(|run| !run.trim().is_empty());
    runs
}

/// The name, operator and value of a makefile's assignment line.
fn assignment(line: &str) -> Option<(&str, &str, &str)> {
    let line = line
        .strip_prefix("export ")
        .or_else(|| line.strip_prefix("override "))
        .unwrap_or(line);
    let at = line.find('=')?;
    let (before, value) = (&line[..at], &line[at + 1..]);
    let (name, operator) = ["::", ":", "!", "?", "+"]
        .iter()
        .find_map(|op| {
            before
                .strip_suffix(op)
                .map(|name| (name, &line[at - op.len()..=at]))
        })
        .unwrap_or((before, "="));
    let name = name.trim();
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || "_.-".contains(c));
    plain.then_some((name, operator, value.trim()))
}

/// `text` with make's expansions: `$$` as `$`, a variable the file defined as its
/// value, any other as `${NAME}`; `$(shell COMMAND)`'s command is added to `runs`.
fn expand(text: &str, variables: &[(String, String)], runs: &mut Vec<String>) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '$' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        match chars.get(i + 1) {
            Some('$') => {
                out.push('$');
                i += 2;
            }
            Some(&open @ ('(' | '{')) => {
                let close = if open == '(' { ')' } else { '}' };
                let mut depth = 0;
                let mut end = chars.len();
                for (at, &c) in chars.iter().enumerate().skip(i + 1) {
                    if c == open {
                        depth += 1;
                    } else if c == close {
                        depth -= 1;
                        if depth == 0 {
                            end = at;
                            break;
                        }
                    }
                }
                let inner: String = chars[(i + 2).min(end)..end].iter().collect();
                if let Some(command) = inner.strip_prefix("shell ") {
                    let command = expand(command, variables, runs);
                    runs.push(command);
                    out.push_str("${MAKE_SHELL}");
                } else if let Some((_, value)) = variables.iter().find(|(n, _)| *n == inner) {
                    out.push_str(value);
                } else if inner == "MAKE" {
                    out.push_str("make");
                } else {
                    let name: String = inner
                        .chars()
                        .map(|c| if c.is_alphanumeric() { c } else { '_' })
                        .collect();
                    out.push_str(&format!("${{MAKE_{name}}}"));
                }
                i = end + 1;
            }
            // An automatic variable (`$@`, `$<`) or a one-letter one.
            Some(_) => {
                out.push_str("${MAKE_AUTOMATIC}");
                i += 2;
            }
            None => i += 1,
        }
    }
    out
}

/// The makefiles `make` reads among its arguments `args`: those of `-f`, `--file`
/// and `--makefile`, else `GNUmakefile`, `makefile` and `Makefile`, in the folder
/// of `-C` (`--directory`) when given; and the text of `--eval` (`-E`).
fn makefiles(args: &[Analysed]) -> (Vec<String>, Vec<&Analysed>, bool) {
    let (mut files, mut evals, mut unknown) = (Vec::new(), Vec::new(), false);
    let mut directory: Option<String> = None;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        i += 1;
        let value = |long: &str| text.strip_prefix(long).and_then(|v| v.strip_prefix('='));
        if text == "--" {
            break;
        }
        if matches!(
            text,
            "-f" | "--file" | "--makefile" | "-C" | "--directory" | "-E" | "--eval"
        ) {
            let Some(next) = args.get(i) else { break };
            i += 1;
            match text {
                "-C" | "--directory" => directory = Some(next.text.clone()),
                "-E" | "--eval" => evals.push(next),
                _ if next.known() => files.push(next.text.clone()),
                _ => unknown |= next.text == "<(...)",
            }
        } else if let Some(file) = value("--file").or_else(|| value("--makefile")) {
            files.push(file.to_owned());
        } else if let Some(dir) = value("--directory") {
            directory = Some(dir.to_owned());
        } else if value("--eval").is_some() {
            evals.push(arg);
        } else if let Some(file) = text.strip_prefix("-f").filter(|f| !f.is_empty()) {
            files.push(file.to_owned());
        } else if text.starts_with("SHELL=") || text.starts_with(".SHELLFLAGS=") {
            // Recipes run by a shell the command line names: not known here.
            unknown = true;
        }
    }
    if files.is_empty() {
        files = ["GNUmakefile", "makefile", "Makefile"]
            .map(str::to_owned)
            .to_vec();
    }
    if let Some(directory) = directory {
        for file in &mut files {
            if !file.starts_with('/') {
                *file = format!("{}/{file}", directory.trim_end_matches('/'));
            }
        }
    }
    (files, evals, unknown)
}

/// The scripts of a `package.json` text: each string of its `scripts` object.
pub(super) fn package_scripts(text: &str) -> Vec<String> {
    let Ok(serde_json::Value::Object(package)) = serde_json::from_str(text) else {
        return Vec::new();
    };
    match package.get("scripts") {
        Some(serde_json::Value::Object(scripts)) => scripts
            .values()
            .filter_map(|script| script.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether the package manager `name` with `args` runs a package's scripts: `npm`
/// with one of its commands that run them (`run`, `test`, `start`, `install`...),
/// `pnpm`, `yarn` and `bun` with any (each runs a script by its name too); and the
/// folder `--prefix`, `-C`, `--dir` or `--cwd` names.
fn runs_package_scripts(name: &str, args: &[Analysed]) -> Option<Option<String>> {
    let mut folder = None;
    let mut command = None;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        i += 1;
        match text {
            "--prefix" | "-C" | "--dir" | "--cwd" => {
                folder = args.get(i).map(|dir| dir.text.clone());
                i += 1;
            }
            _ if text.starts_with("--prefix=")
                || text.starts_with("--dir=")
                || text.starts_with("--cwd=") =>
            {
                folder = text.split_once('=').map(|(_, dir)| dir.to_owned());
            }
            _ if text.starts_with('-') => {}
            _ => {
                command.get_or_insert(text);
            }
        }
    }
    let runs = match name {
        "npm" => command.is_some_and(|command| {
            matches!(
                command,
                "run"
                    | "run-script"
                    | "rum"
                    | "urn"
                    | "test"
                    | "t"
                    | "tst"
                    | "start"
                    | "stop"
                    | "restart"
                    | "install"
                    | "i"
                    | "in"
                    | "ins"
                    | "inst"
                    | "isnt"
                    | "add"
                    | "ci"
                    | "clean-install"
                    | "ic"
                    | "install-test"
                    | "it"
                    | "cit"
                    | "install-ci-test"
                    | "rebuild"
                    | "rb"
                    | "pack"
                    | "publish"
                    | "version"
                    | "exec"
                    | "x"
                    | "explore"
            )
        }),
        "pnpm" | "yarn" | "bun" => true,
        _ => false,
    };
    runs.then_some(folder)
}

impl Judge<'_> {
    /// Judges what a build tool or package manager `name` of the command `words`
    /// runs from files the string writes ([`make_runs`], [`package_scripts`]).
    pub(super) fn build_commands(&mut self, name: &str, words: &[Analysed], at: At<'_>) -> Step {
        let args = &words[1..];
        let (mut texts, mut read) = (Vec::new(), Vec::new());
        match name {
            "make" | "gmake" => {
                let (files, evals, unknown) = makefiles(args);
                if unknown {
                    return self.not_known(words);
                }
                for eval in evals {
                    if !eval.known() {
                        return self.not_known(words);
                    }
                    let text = eval.text.split_once('=').map_or(&*eval.text, |(_, v)| v);
                    texts.extend(make_runs(text));
                }
                // The first makefile found is the one make reads.
                for file in files {
                    let found = self.file_texts(&file);
                    if !found.is_empty() {
                        read.extend(found);
                        break;
                    }
                }
            }
            "npm" | "pnpm" | "yarn" | "bun" => {
                let Some(folder) = runs_package_scripts(name, args) else {
                    return Ok(());
                };
                let file = match folder {
                    Some(folder) => format!("{}/package.json", folder.trim_end_matches('/')),
                    None => "package.json".to_owned(),
                };
                read = self.file_texts(&file);
            }
            _ => return Ok(()),
        }
        // A file being judged already (`$(MAKE)` in a recipe, `npm run` in a
        // script) runs what is judged there.
        read.retain(|text| !self.building.contains(text));
        for text in &read {
            match name {
                "make" | "gmake" => texts.extend(make_runs(text)),
                _ => texts.extend(package_scripts(text)),
            }
        }
        let depth = self.building.len();
        self.building.extend(read);
        let execs: Vec<_> = texts
            .into_iter()
            .map(super::interpreters::Exec::Shell)
            .collect();
        let step = self.judge_execs(&execs, true, words, at);
        self.building.truncate(depth);
        step
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_makefile_runs_its_recipes_shell_calls_and_commands_assigned() {
        let text = "CC = gcc\nDIR := /tmp/x\nFLAGS ?= -O2\nNOW != date\nall: build\n\t@echo start\n\t-rm -rf $(DIR)\n\t$(CC) $(FLAGS) -o $@ $<\n\tcd $(DIR) && \\\n\t  ls $$HOME\nbuild: ; touch built\nX = $(shell uname -a)\n# a comment\n\tnot a recipe after a comment? \n.PHONY: all\n";
        assert_eq!(
            make_runs(text),
            vec![
                "date",
                "echo start",
                "rm -rf /tmp/x",
                "gcc -O2 -o ${MAKE_AUTOMATIC} ${MAKE_AUTOMATIC}",
                "cd /tmp/x &&  \t  ls $HOME",
                "touch built",
                "uname -a",
            ]
        );
        // Recipes outside a rule are not recipes; unknown variables stay unknown.
        assert_eq!(make_runs("\trm -rf /\n"), Vec::<String>::new());
        assert_eq!(
            make_runs("x:\n\t$(RM) -rf $(OUT)\n\t$(MAKE) -C sub\n"),
            vec!["${MAKE_RM} -rf ${MAKE_OUT}", "make -C sub"]
        );
    }

    #[test]
    fn a_package_runs_the_strings_of_its_scripts() {
        assert_eq!(
            package_scripts(
                r#"{"name": "x", "scripts": {"build": "tsc", "postinstall": "rm -rf /", "n": 1}}"#
            ),
            vec!["tsc", "rm -rf /"]
        );
        assert!(package_scripts("{\"scripts\": [\"rm -rf /\"]}").is_empty());
        assert!(package_scripts("not json").is_empty());
    }
}
