//! README shows real output: every `$ toolreplay ...` example in a `console` block
//! that reads only files of the repository and has no redirection or pipe is run,
//! and its stdout must be the lines README shows under it.

use super::{ROOT, run_in_root};

/// `(command line, expected stdout)` of each runnable README example.
fn examples() -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(format!("{ROOT}/README.md")).expect("README.md");
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
    for line in readme.lines() {
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
            current = Some((command.to_owned(), Vec::new()));
        } else if let Some((_, output)) = &mut current {
            output.push(line.to_owned());
        }
    }
    found
        .into_iter()
        .filter(|(command, _)| {
            let args: Vec<&str> = command.split(' ').collect();
            args[0] == "toolreplay"
                && !command.contains(['>', '<', '|', '&', '$'])
                && args[1..]
                    .iter()
                    .filter(|a| a.contains('.'))
                    .all(|a| std::path::Path::new(ROOT).join(a).is_file())
        })
        .collect()
}

#[test]
fn readme_examples_print_what_readme_shows() {
    let examples = examples();
    assert!(examples.len() >= 9, "{} examples found", examples.len());
    for (command, expected) in &examples {
        let args: Vec<&str> = command.split(' ').skip(1).collect();
        let run = run_in_root(&args);
        assert_eq!(run.stderr, "", "{command}");
        assert_eq!(run.stdout, *expected, "{command}");
    }
}
