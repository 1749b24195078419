//! The documentation shows real output and links to what exists.
//!
//! Every `$ toolreplay ...` example in a `console` block of README.md,
//! CONTRIBUTING.md or docs/*.md that reads only files of the repository and has no
//! redirection, pipe or shell variable is run from the repository root (`guard init`
//! and `guard check` in a new project folder for each document), and its stdout must
//! be the lines the document shows under it. Every relative link of
//! those documents, CHANGELOG.md and bench/README.md must name an existing file and,
//! with `#anchor`, a heading of it.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use super::{Dir, ROOT, run_in_root};

/// The documents whose console examples are run, as paths from the root.
fn documents_with_examples() -> Vec<String> {
    let mut documents = vec!["README.md".to_owned(), "CONTRIBUTING.md".to_owned()];
    documents.extend(docs());
    documents
}

/// The documents whose links are checked, as paths from the root.
fn documents_with_links() -> Vec<String> {
    let mut documents = documents_with_examples();
    documents.push("CHANGELOG.md".to_owned());
    documents.push("bench/README.md".to_owned());
    documents
}

/// `docs/*.md`, sorted.
fn docs() -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .expect("docs/")
        .map(|entry| entry.expect("docs/ entry").file_name())
        .filter_map(|name| name.into_string().ok())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    found.sort();
    found
}

fn read(document: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(document))
        .unwrap_or_else(|e| panic!("{document}: {e}"))
}

/// `(command line, expected stdout)` of each runnable example of `text`.
fn examples(text: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut in_console = false;
    let mut current: Option<(String, Vec<String>)> = None;
    let mut flush = |current: &mut Option<(String, Vec<String>)>| {
        if let Some((command, mut output)) = current.take() {
            while output.last().is_some_and(|l| l.is_empty()) {
                output.pop();
            }
            let text: String = output.iter().map(|l| format!("{l}\n")).collect();
            found.push((command, text));
        }
    };
    for line in text.lines() {
        if line.starts_with("```") {
            flush(&mut current);
            in_console = line == "```console";
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            flush(&mut current);
            // `cargo run --release -- ARGS` runs the binary built from this checkout.
            let command = match command.strip_prefix("cargo run --release -- ") {
                Some(args) => format!("toolreplay {args}"),
                None => command.to_owned(),
            };
            current = Some((command, Vec::new()));
        } else if let Some((_, output)) = &mut current {
            output.push(line.to_owned());
        }
    }
    found
        .into_iter()
        .filter(|(command, _)| {
            let args: Vec<&str> = command.split(' ').collect();
            args[0] == "toolreplay"
                && !command.contains(['>', '<', '|', '&', '$', '\\', '#'])
                && args[1..]
                    .iter()
                    .filter(|a| a.contains('.') || a.contains('/'))
                    .all(|a| Path::new(ROOT).join(a).is_file())
        })
        .collect()
}

#[test]
fn documented_examples_print_what_the_documents_show() {
    let mut checked = String::new();
    for document in documents_with_examples() {
        // `guard init` and `guard check` set up a project: a new one for each
        // document, in which its examples run in turn.
        let project = Dir::new();
        for (command, expected) in examples(&read(&document)) {
            let args: Vec<&str> = command.split(' ').skip(1).collect();
            let run = match args[..] {
                ["guard", "init" | "check", ..] => project.run(&args),
                _ => run_in_root(&args),
            };
            assert_eq!(run.stderr, "", "{document}: {command}");
            assert_eq!(run.stdout, expected, "{document}: {command}");
            checked.push_str(&format!("{document}: {command}\n"));
        }
    }
    // Which examples are run: an example that stops being runnable (a file renamed,
    // a redirection added) shows here instead of passing unseen.
    insta::assert_snapshot!(checked);
}

/// The `json` blocks of `text`, each as one string.
fn json_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line == "```json" {
            current = Some(String::new());
        } else if line.starts_with("```") {
            blocks.extend(current.take());
        } else if let Some(block) = &mut current {
            block.push_str(line);
            block.push('\n');
        }
    }
    blocks
}

#[test]
fn readme_scope_files_are_valid_and_judge_the_sample() {
    let readme = read("README.md");
    let scopes: Vec<String> = json_blocks(&readme)
        .into_iter()
        .filter(|block| block.contains("\"allowed_tools\""))
        .collect();
    assert_eq!(
        scopes.len(),
        2,
        "the minimal scope file and the minimal policy"
    );
    let dir = Dir::new();
    dir.write("run.jsonl", read("samples/session-dirty.jsonl"));
    let mut text = String::new();
    for (n, scope) in scopes.iter().enumerate() {
        let name = format!("scope-{n}.json");
        dir.write(&name, scope);
        text.push_str(&dir.run(&["scope", "run.jsonl", &name]).text());
    }
    insta::assert_snapshot!(text);
}

/// GitHub's anchor of a heading: lowercase, spaces to `-`, every character but
/// letters, digits, `-` and `_` removed.
fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

#[test]
fn anchors_follow_github() {
    assert_eq!(anchor("Scope policies"), "scope-policies");
    assert_eq!(
        anchor("`replay FILE [--mutating-tool NAME]...`"),
        "replay-file---mutating-tool-name"
    );
    assert_eq!(anchor("JSON (`--format json`)"), "json---format-json");
    assert_eq!(
        anchor("What LEDGER's top layer needs"),
        "what-ledgers-top-layer-needs"
    );
    assert_eq!(anchor("seal_link and Où"), "seal_link-and-où");
}

/// The lines of `text` outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut in_fence = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        } else if !in_fence {
            lines.push(line);
        }
    }
    lines
}

/// The anchors of the headings of `text`, a repeated heading's with `-1`, `-2`, ...
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut found = BTreeSet::new();
    for line in prose(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        let Some(heading) = line[hashes..].strip_prefix(' ') else {
            continue;
        };
        if !(1..=6).contains(&hashes) {
            continue;
        }
        let base = anchor(heading.trim());
        let count = seen.entry(base.clone()).or_insert(0);
        found.insert(if *count == 0 {
            base.clone()
        } else {
            format!("{base}-{count}")
        });
        *count += 1;
    }
    found
}

/// The targets of the inline links and images of `text`, outside code.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in prose(text) {
        // Code spans hold examples, not links: keep what is between them.
        let outside: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = outside.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let end = rest.find(')').unwrap_or(rest.len());
            found.push(rest[..end].to_owned());
            rest = &rest[end..];
        }
    }
    found
}

#[test]
fn relative_links_name_existing_files_and_headings() {
    let mut broken = Vec::new();
    let mut count = 0;
    for document in documents_with_links() {
        let text = read(&document);
        let dir = Path::new(&document).parent().unwrap_or(Path::new(""));
        for target in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            count += 1;
            let (file, fragment) = match target.split_once('#') {
                Some((file, fragment)) => (file, Some(fragment)),
                None => (target.as_str(), None),
            };
            let path = if file.is_empty() {
                Path::new(ROOT).join(&document)
            } else {
                Path::new(ROOT).join(dir).join(file)
            };
            if !path.exists() {
                broken.push(format!("{document}: {target}: no such file"));
                continue;
            }
            if let Some(fragment) = fragment {
                let headings = std::fs::read_to_string(&path)
                    .map(|t| anchors(&t))
                    .unwrap_or_default();
                if !headings.contains(fragment) {
                    broken.push(format!("{document}: {target}: no such heading"));
                }
            }
        }
    }
    assert_eq!(broken, Vec::<String>::new());
    assert!(count >= 50, "only {count} relative links found");
}
