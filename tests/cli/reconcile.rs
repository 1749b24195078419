//! `toolreplay reconcile SESSION LOG`: the agent's own log held against a sealed
//! session. Each shared real log, imported and sealed, reconciles as the same with
//! itself, and a call removed from it, added to it, or edited in it is named;
//! sessions sealed from hook-shaped records (`tests/fixtures/reconcile/`: Claude
//! Code with a subagent, Codex, Gemini CLI, Copilot CLI) reconcile as the same with a
//! log of the same session in the agent's format, which proves the projection; bad input is one `error:` line and exit 2.
//!
//! The tests of the shared logs read data beside the repository, so they are ignored
//! by the plain `cargo test` and run by `cargo test -- --ignored` (as CI does).

use insta::assert_snapshot;

use super::{Dir, ROOT, lines, record};

const DATA: &str = "../shared/data/transcripts";
const FIXTURES: &str = "tests/fixtures/reconcile";

/// A directory holding `file` of the shared data as `name` (for the Claude Code
/// session with subagents, its subagent logs beside it).
fn with_log(file: &str, name: &str) -> Dir {
    let dir = Dir::new();
    let path = format!("{ROOT}/{DATA}/{file}");
    dir.write(name, std::fs::read(&path).expect("shared log"));
    if let Some(stem) = file.strip_suffix(".jsonl") {
        let subagents = format!("{ROOT}/{DATA}/{stem}/subagents");
        if let Ok(entries) = std::fs::read_dir(&subagents) {
            let folder = dir
                .path()
                .join(name.strip_suffix(".jsonl").expect("a .jsonl name"))
                .join("subagents");
            std::fs::create_dir_all(&folder).expect("folders");
            for entry in entries {
                let entry = entry.expect("entry");
                std::fs::copy(entry.path(), folder.join(entry.file_name())).expect("copy");
            }
        }
    }
    dir
}

/// `log` in `dir`, its text edited by `edit`.
fn edit(dir: &Dir, log: &str, edit: impl FnOnce(&str) -> String) {
    let text = String::from_utf8(dir.read(log)).expect("UTF-8");
    let edited = edit(&text);
    assert_ne!(edited, text, "the edit changed nothing");
    dir.write(log, edited);
}

/// The text with each line holding `marker` edited by `edit`.
fn in_lines(text: &str, marker: &str, edit: impl Fn(&str) -> String) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            if line.contains(marker) {
                edit(line)
            } else {
                line.to_owned()
            }
        })
        .collect()
}

/// Replaces `from` by `to` in `line`, which must hold it.
fn replaced(line: &str, from: &str, to: &str) -> String {
    assert!(line.contains(from), "{from:?} not in {line:?}");
    line.replace(from, to)
}

/// Imports and seals `log` of `dir` (`--from from`), and reconciles the sealed
/// session with it: the runs, for a snapshot.
fn sealed_and_same(dir: &Dir, log: &str, from: &str) -> String {
    dir.runs(&[
        &["import", "--from", from, log, "-o", "t.jsonl"],
        &["seal", "t.jsonl", "-o", "sealed.jsonl"],
        &["reconcile", "sealed.jsonl", log, "--from", from],
    ])
}

/// Reconciles the sealed session with `log` edited: the run, for a snapshot.
fn reconciled(dir: &Dir, log: &str, from: &str) -> String {
    dir.runs(&[&["reconcile", "sealed.jsonl", log, "--from", from]])
}

#[test]
#[ignore = "needs ../shared/data"]
fn claude_code_log_against_its_sealed_import() {
    let log = "session.jsonl";
    let dir = with_log(
        "claude-code/viewer-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
        log,
    );
    let mut out = sealed_and_same(&dir, log, "claude-code");
    let original = String::from_utf8(dir.read(log)).expect("UTF-8");

    // One call removed: the Bash `ls -la /path/to/Demo` (sealed 11).
    edit(&dir, log, |text| {
        text.split_inclusive('\n')
            .filter(|line| !line.contains("toolu_01D7Vzhj8hZUNetTNd3q54pk"))
            .collect()
    });
    out.push_str(&reconciled(&dir, log, "claude-code"));

    // One call added after `ls -la .../src`: another Bash call with its result.
    dir.write(log, &original);
    edit(&dir, log, |text| {
        text.split_inclusive('\n')
            .flat_map(|line| {
                let mut lines = vec![line.to_owned()];
                if line.contains("toolu_015KbY8sUArTxuvJp3HvFMQ5")
                    && line.contains("\"tool_result\"")
                {
                    for copy in text
                        .split_inclusive('\n')
                        .filter(|l| l.contains("toolu_015KbY8sUArTxuvJp3HvFMQ5"))
                    {
                        lines.push(
                            copy.replace(
                                "toolu_015KbY8sUArTxuvJp3HvFMQ5",
                                "toolu_01ADDEDaddedADDEDadded",
                            )
                            .replace("/todo-app/src\"", "/todo-app/secrets\""),
                        );
                    }
                }
                lines
            })
            .collect()
    });
    out.push_str(&reconciled(&dir, log, "claude-code"));

    // One call's arguments edited: `ls -la .../src/app` made `.../src/api`.
    dir.write(log, &original);
    edit(&dir, log, |text| {
        in_lines(text, "\"id\":\"toolu_01Fqq8ovHgopDjoLkxB1JAsT\"", |line| {
            replaced(line, "/todo-app/src/app\"", "/todo-app/src/api\"")
        })
    });
    out.push_str(&reconciled(&dir, log, "claude-code"));

    // One call's response edited: the listing of `ls -la /path/to/Demo`.
    dir.write(log, &original);
    edit(&dir, log, |text| {
        in_lines(
            text,
            "\"tool_use_id\":\"toolu_01D7Vzhj8hZUNetTNd3q54pk\"",
            |line| replaced(line, "CLAUDE.md", "CLAUDE.txt"),
        )
    });
    out.push_str(&reconciled(&dir, log, "claude-code"));
    assert_snapshot!(out);
}

#[test]
#[ignore = "needs ../shared/data"]
fn claude_code_session_with_subagents_against_its_sealed_import() {
    let log = "session.jsonl";
    let dir = with_log(
        "claude-code-subagents/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
        log,
    );
    let mut out = sealed_and_same(&dir, log, "claude-code");
    // A subagent's call missing from its log: as if the log lost it.
    let subagent = "session/subagents/agent-a881341.jsonl";
    edit(&dir, subagent, |text| {
        text.split_inclusive('\n')
            .filter(|line| !line.contains("toolu_01X9d6Cz79apMEdHC7JveVCX"))
            .collect()
    });
    out.push_str(&reconciled(&dir, log, "claude-code"));
    assert_snapshot!(out);
}

#[test]
#[ignore = "needs ../shared/data"]
fn codex_rollout_against_its_sealed_import() {
    let log = "rollout.jsonl";
    let dir = with_log("codex-rollout/agentsview-fc_args_1.jsonl", log);
    let mut out = sealed_and_same(&dir, log, "codex");
    let original = String::from_utf8(dir.read(log)).expect("UTF-8");
    // One call added at the end.
    edit(&dir, log, |text| {
        format!(
            "{text}{}\n",
            r#"{"payload":{"arguments":"{\"cmd\":\"cat .env\"}","call_id":"call_added","name":"exec_command","type":"function_call"},"timestamp":"2024-01-01T10:00:06Z","type":"response_item"}"#
        )
    });
    out.push_str(&reconciled(&dir, log, "codex"));
    // The call's arguments edited.
    dir.write(log, &original);
    edit(&dir, log, |text| {
        replaced(text, "rg --files", "rg --files -uu")
    });
    out.push_str(&reconciled(&dir, log, "codex"));
    assert_snapshot!(out);
}

#[test]
#[ignore = "needs ../shared/data"]
fn gemini_session_against_its_sealed_import() {
    let log = "session.json";
    let dir = with_log("gemini-cli/agentsview-tool_calls.json", log);
    let mut out = sealed_and_same(&dir, log, "gemini");
    edit(&dir, log, |text| {
        replaced(text, "\"main.go\"", "\"main.rs\"")
    });
    out.push_str(&reconciled(&dir, log, "gemini"));
    assert_snapshot!(out);
}

#[test]
#[ignore = "needs ../shared/data"]
fn cursor_transcript_against_its_sealed_import() {
    let log = "transcript.jsonl";
    let dir = with_log("cursor/agentsessions-test-session.jsonl", log);
    let mut out = sealed_and_same(&dir, log, "cursor");
    let original = String::from_utf8(dir.read(log)).expect("UTF-8");
    // The second call (`git status`) removed.
    edit(&dir, log, |text| {
        text.split_inclusive('\n')
            .filter(|line| !line.contains("\"git status\""))
            .collect()
    });
    out.push_str(&reconciled(&dir, log, "cursor"));
    // The first call's arguments edited.
    dir.write(log, &original);
    edit(&dir, log, |text| {
        replaced(text, "\"ls -la /tmp\"", "\"ls -la /\"")
    });
    out.push_str(&reconciled(&dir, log, "cursor"));
    assert_snapshot!(out);
}

#[test]
#[ignore = "needs ../shared/data"]
fn copilot_events_against_their_sealed_import() {
    let log = "events.jsonl";
    let dir = with_log("copilot-cli/agentsessions-events.jsonl", log);
    let mut out = sealed_and_same(&dir, log, "copilot");
    let original = String::from_utf8(dir.read(log)).expect("UTF-8");
    // The result edited.
    edit(&dir, log, |text| {
        replaced(text, r"file1\nfile2\n", r"file1\nfile3\n")
    });
    out.push_str(&reconciled(&dir, log, "copilot"));
    // A call added after the first, with its result.
    dir.write(log, &original);
    edit(&dir, log, |text| {
        in_lines(text, "\"tool.execution_complete\"", |line| {
            format!(
                "{line}{}\n{}\n",
                r#"{"type":"tool.execution_start","data":{"toolCallId":"call_2","toolName":"bash","arguments":{"command":"pwd"}},"id":"e6a","timestamp":"2026-03-26T17:50:36.300Z","parentId":"e6"}"#,
                r#"{"type":"tool.execution_complete","data":{"toolCallId":"call_2","success":true,"result":{"content":"/tmp/project\n"}},"id":"e6b","timestamp":"2026-03-26T17:50:36.400Z","parentId":"e6a"}"#
            )
        })
    });
    out.push_str(&reconciled(&dir, log, "copilot"));
    assert_snapshot!(out);
}

/// A directory holding the fixtures `AGENT.hooks.jsonl` sealed as `sealed.jsonl`,
/// and the agent's log `log` as `log_name`.
fn hook_shaped(agent: &str, log: &str, log_name: &str) -> Dir {
    let dir = Dir::new();
    let read = |name: &str| std::fs::read(format!("{ROOT}/{FIXTURES}/{name}")).expect("fixture");
    dir.write("hooks.jsonl", read(&format!("{agent}.hooks.jsonl")));
    dir.write(log_name, read(log));
    // A Claude Code session's subagent logs, beside it as Claude Code keeps them.
    let stem = |name: &str| {
        name.rsplit_once('.')
            .map_or(name, |(stem, _)| stem)
            .to_owned()
    };
    let subagents = format!("{ROOT}/{FIXTURES}/{}/subagents", stem(log));
    if let Ok(entries) = std::fs::read_dir(&subagents) {
        let folder = dir.path().join(stem(log_name)).join("subagents");
        std::fs::create_dir_all(&folder).expect("folders");
        for entry in entries {
            let entry = entry.expect("entry");
            std::fs::copy(entry.path(), folder.join(entry.file_name())).expect("copy");
        }
    }
    let run = dir.run(&["seal", "hooks.jsonl", "-o", "sealed.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.text());
    dir
}

#[test]
fn claude_code_hook_records_reconcile_with_the_transcript() {
    let log = "session.jsonl";
    let dir = hook_shaped("claude-code", "claude-code.log.jsonl", log);
    let mut out = dir.runs(&[
        &["reconcile", "sealed.jsonl", log],
        &["reconcile", "sealed.jsonl", log, "--format", "json"],
    ]);
    let original = String::from_utf8(dir.read(log)).expect("UTF-8");

    // The log's Read result edited after the fact.
    edit(&dir, log, |text| {
        in_lines(text, "\"tool_use_id\":\"toolu_1\"", |line| {
            replaced(line, "2\u{2192}world", "2\u{2192}w0rld")
        })
    });
    out.push_str(&reconciled(&dir, log, "claude-code"));

    // A call the hook did not see (the Glob), and the Bash call cut from the log.
    dir.write(log, &original);
    edit(&dir, log, |text| {
        text.split_inclusive('\n')
            .filter(|line| !line.contains("toolu_0\""))
            .collect()
    });
    dir.write(
        "hooks.jsonl",
        String::from_utf8(dir.read("hooks.jsonl"))
            .expect("UTF-8")
            .lines()
            .filter(|line| !line.contains("\"Glob\""))
            .enumerate()
            .map(|(index, line)| {
                let at = line.find(',').expect("a record");
                format!("{{\"index\":{index}{}\n", &line[at..])
            })
            .collect::<String>(),
    );
    let run = dir.run(&["seal", "hooks.jsonl", "-o", "sealed.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.text());
    out.push_str(&dir.runs(&[
        &["reconcile", "sealed.jsonl", log],
        &["reconcile", "sealed.jsonl", log, "--format", "json"],
    ]));

    // The subagent's call, which its hook did not see: in its log, not sealed.
    dir.write(log, &original);
    let hooks =
        std::fs::read(format!("{ROOT}/{FIXTURES}/claude-code.hooks.jsonl")).expect("fixture");
    dir.write(
        "hooks.jsonl",
        String::from_utf8(hooks)
            .expect("UTF-8")
            .lines()
            .filter(|line| !line.contains("\"subagent\""))
            .map(|line| format!("{line}\n"))
            .collect::<String>(),
    );
    let run = dir.run(&["seal", "hooks.jsonl", "-o", "sealed.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.text());
    out.push_str(&reconciled(&dir, log, "claude-code"));
    assert_snapshot!(out);
}

#[test]
fn a_result_no_rule_compares_is_not_comparable_not_a_difference() {
    // The WebFetch hook response in a shape no rule of the projection reads: the
    // call matches, its result is neither the same nor different.
    let log = "session.jsonl";
    let dir = hook_shaped("claude-code", "claude-code.log.jsonl", log);
    let hooks = String::from_utf8(dir.read("hooks.jsonl")).expect("UTF-8");
    dir.write(
        "hooks.jsonl",
        in_lines(&hooks, "\"WebFetch\"", |line| {
            replaced(
                line,
                r#""result":"The title is Example Domain.""#,
                r#""summary":"The title is Example Domain.""#,
            )
        }),
    );
    let run = dir.run(&["seal", "hooks.jsonl", "-o", "sealed.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.text());
    let mut out = dir.runs(&[
        &["reconcile", "sealed.jsonl", log],
        &["reconcile", "sealed.jsonl", log, "--format", "json"],
    ]);

    // And a difference besides: the report differs, the other listed apart.
    edit(&dir, log, |text| {
        in_lines(text, "\"tool_use_id\":\"toolu_1\"", |line| {
            replaced(line, "2\u{2192}world", "2\u{2192}w0rld")
        })
    });
    out.push_str(&reconciled(&dir, log, "claude-code"));
    assert_snapshot!(out);
}

#[test]
fn gemini_hook_records_reconcile_with_the_session() {
    let log = "session.json";
    let dir = hook_shaped("gemini", "gemini.session.json", log);
    let mut out = dir.runs(&[&["reconcile", "sealed.jsonl", log]]);
    // The file's text, as the log keeps it, edited.
    edit(&dir, log, |text| {
        replaced(
            text,
            r#""output": "hello\nworld""#,
            r#""output": "hello\nw0rld""#,
        )
    });
    out.push_str(&reconciled(&dir, log, "gemini"));
    assert_snapshot!(out);
}

#[test]
fn copilot_hook_records_reconcile_with_the_events() {
    let log = "events.jsonl";
    let dir = hook_shaped("copilot", "copilot.events.jsonl", log);
    let mut out = dir.runs(&[&["reconcile", "sealed.jsonl", log]]);
    // The failure made a success in the log.
    edit(&dir, log, |text| {
        replaced(
            text,
            r#""success":false,"error":{"message":"Path /p/missing.txt does not exist"}"#,
            r#""success":true,"result":{"content":"nothing"}"#,
        )
    });
    out.push_str(&reconciled(&dir, log, "copilot"));
    assert_snapshot!(out);
}

#[test]
fn codex_hook_records_reconcile_with_the_rollout() {
    let log = "rollout.jsonl";
    let dir = hook_shaped("codex", "codex.rollout.jsonl", log);
    let mut out = dir.runs(&[&["reconcile", "sealed.jsonl", log, "--from", "codex"]]);
    // The shell call's output edited in the rollout.
    edit(&dir, log, |text| {
        replaced(text, "ok. 3 passed", "ok. 4 passed")
    });
    out.push_str(&reconciled(&dir, log, "codex"));
    // Read with no projection, the hooks' names and shapes are not the rollout's.
    out.push_str(&dir.runs(&[&[
        "reconcile",
        "sealed.jsonl",
        log,
        "--from",
        "codex",
        "--agent",
        "exact",
    ]]));
    assert_snapshot!(out);
}

#[test]
fn bad_input_is_one_error_line() {
    let dir = Dir::new();
    let plain = lines(&[&record(
        0,
        "Bash",
        r#"{"command": "ls"}"#,
        r#"{"content": "a"}"#,
    )]);
    dir.write("plain.jsonl", &plain);
    dir.write(
        "tampered.jsonl",
        std::fs::read(format!("{ROOT}/samples/session-dirty.tampered.jsonl")).expect("sample"),
    );
    dir.write(
        "sealed.jsonl",
        std::fs::read(format!("{ROOT}/samples/session-dirty.sealed.jsonl")).expect("sample"),
    );
    dir.write("log.jsonl", &plain);
    assert_snapshot!(dir.runs(&[
        &["reconcile", "missing.jsonl", "log.jsonl"],
        &["reconcile", "sealed.jsonl", "missing.jsonl"],
        &["reconcile", "plain.jsonl", "log.jsonl"],
        &["reconcile", "tampered.jsonl", "log.jsonl"],
        &[
            "reconcile",
            "sealed.jsonl",
            "log.jsonl",
            "--from",
            "nonsense"
        ],
        &[
            "reconcile",
            "sealed.jsonl",
            "log.jsonl",
            "--agent",
            "nonsense"
        ],
        &[
            "reconcile",
            "sealed.jsonl",
            "log.jsonl",
            "--format",
            "sarif"
        ],
        &["reconcile", "sealed.jsonl", "log.jsonl", "--from", "codex"],
    ]));
}

#[test]
fn a_sealed_sample_against_its_own_records_is_the_same() {
    // A plain transcript is a log too (`--from transcript`), compared exactly.
    let dir = Dir::new();
    dir.write(
        "sealed.jsonl",
        std::fs::read(format!("{ROOT}/samples/session-dirty.sealed.jsonl")).expect("sample"),
    );
    dir.write(
        "log.jsonl",
        std::fs::read(format!("{ROOT}/samples/session-dirty.jsonl")).expect("sample"),
    );
    assert_snapshot!(dir.runs(&[&["reconcile", "sealed.jsonl", "log.jsonl"]]));
}

#[test]
#[ignore = "needs ../shared/data"]
fn every_shared_agent_log_is_the_same_as_its_sealed_import() {
    // Each file of the agents' folders: imported, sealed, and reconciled with itself;
    // a file that does not import (no tool call in it) is listed as such.
    let mut out = String::new();
    for (folder, from) in [
        ("claude-code", "claude-code"),
        ("claude-code-subagents", "claude-code"),
        ("codex-rollout", "codex"),
        ("gemini-cli", "gemini"),
        ("cursor", "cursor"),
        ("copilot-cli", "copilot"),
    ] {
        let mut files: Vec<String> = std::fs::read_dir(format!("{ROOT}/{DATA}/{folder}"))
            .expect("shared folder")
            .map(|entry| {
                entry
                    .expect("entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|name| name.ends_with(".json") || name.ends_with(".jsonl"))
            .collect();
        files.sort();
        for file in files {
            let log = if file.ends_with(".json") {
                "log.json"
            } else {
                "log.jsonl"
            };
            let dir = with_log(&format!("{folder}/{file}"), log);
            let import = dir.run(&["import", "--from", from, log, "-o", "t.jsonl"]);
            if import.code != 0 {
                let why = import.stderr.lines().last().unwrap_or_default().to_owned();
                out.push_str(&format!("{folder}/{file}: not imported: {why}\n"));
                continue;
            }
            let seal = dir.run(&["seal", "t.jsonl", "-o", "sealed.jsonl"]);
            assert_eq!(seal.code, 0, "{}", seal.text());
            let run = dir.run(&["reconcile", "sealed.jsonl", log, "--from", from]);
            assert_eq!(run.code, 0, "{folder}/{file}: {}", run.text());
            let counts: Vec<&str> = run.stdout.lines().skip(2).collect();
            out.push_str(&format!("{folder}/{file}: {}\n", counts.join("; ")));
        }
    }
    assert_snapshot!(out);
}
