//! `toolreplay import INPUT... --out-dir DIR`: several logs and folders, each
//! imported to its own transcript, a line per file then a summary, the exit status
//! the worst of all, and everything that can be refused refused before anything is
//! written. One input without --out-dir stays exactly as before.

use insta::assert_snapshot;

use super::Dir;

/// An MCP log of one call and its result.
const MCP: &str = concat!(
    r#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "read_file", "arguments": {"path": "a.txt"}}}"#,
    "\n",
    r#"{"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "hello"}]}}"#,
    "\n"
);

/// OpenAI chat messages: two calls, the second without a result (one warning).
const OPENAI: &str = r#"[{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{\"q\": \"x\"}"}}, {"id": "c2", "type": "function", "function": {"name": "fetch", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "found"}]"#;

/// `logs/`: an MCP log, an OpenAI chat in a subfolder, a note that is no log, and a
/// hidden file.
fn dir() -> Dir {
    let dir = Dir::new();
    std::fs::create_dir_all(dir.path().join("logs/chats")).expect("folders");
    dir.write("logs/b-mcp.jsonl", MCP);
    dir.write("logs/chats/a.json", OPENAI);
    dir.write("logs/notes.txt", "not a log\n");
    dir.write("logs/.hidden.jsonl", "not read\n");
    dir
}

/// The files under `folder` in `dir`, each as `== PATH` and its bytes.
fn files(dir: &Dir, folder: &str) -> String {
    fn walk(at: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(at).expect("list") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(&dir.path().join(folder), &mut found);
    found.sort();
    let mut text = String::new();
    for path in found {
        let name = path.strip_prefix(dir.path()).expect("inside");
        text.push_str(&format!("== {}\n", name.display()));
        text.push_str(&String::from_utf8(std::fs::read(&path).expect("read")).expect("UTF-8"));
    }
    text
}

#[test]
fn a_folder_is_walked_in_order_each_log_detected_and_summarised() {
    let dir = dir();
    assert_snapshot!(dir.run(&["import", "logs", "--glob", "*.json*", "--out-dir", "out"]).text(), @r#"
    exit: 0
    --- stdout
    logs/b-mcp.jsonl -> out/logs/b-mcp.jsonl: mcp, 1 record, 0 warnings
    logs/chats/a.json -> out/logs/chats/a.jsonl: openai, 2 records, 1 warning
    summary:
    files: 2
    records: 3
    warnings: 1
    errors: 0
    --- stderr
    note: logs/b-mcp.jsonl: detected format mcp
    note: logs/chats/a.json: detected format openai
    warning: logs/chats/a.json:1: call 'fetch' (id "c2") has no result; kept with the response {"no_result":true}
    warning: logs/chats/a.json: 1 warning: 1 call without a result
    "#);
    assert_snapshot!(files(&dir, "out"), @r#"
    == out/logs/b-mcp.jsonl
    {"index":0,"tool":"read_file","args":{"path":"a.txt"},"response":{"content":[{"text":"hello","type":"text"}]}}
    == out/logs/chats/a.jsonl
    {"index":0,"tool":"search","args":{"q":"x"},"response":{"content":"found"}}
    {"index":1,"tool":"fetch","args":{},"response":{"no_result":true}}
    "#);
}

#[test]
fn each_transcript_is_the_one_import_of_its_log_writes() {
    let dir = dir();
    dir.run(&["import", "logs", "--glob", "*.json*", "--out-dir", "out"]);
    for (log, transcript) in [
        ("logs/b-mcp.jsonl", "out/logs/b-mcp.jsonl"),
        ("logs/chats/a.json", "out/logs/chats/a.jsonl"),
    ] {
        let one = dir.run(&["import", log]);
        assert_eq!(one.stdout.as_bytes(), dir.read(transcript), "{log}");
    }
}

#[test]
fn a_log_that_cannot_be_imported_is_an_error_the_others_are_imported_and_the_exit_status_is_2() {
    let dir = dir();
    assert_snapshot!(dir.run(&["import", "logs", "--out-dir", "out"]).text(), @r#"
    exit: 2
    --- stdout
    logs/b-mcp.jsonl -> out/logs/b-mcp.jsonl: mcp, 1 record, 0 warnings
    logs/chats/a.json -> out/logs/chats/a.jsonl: openai, 2 records, 1 warning
    summary:
    files: 3
    records: 3
    warnings: 1
    errors: 1
    --- stderr
    note: logs/b-mcp.jsonl: detected format mcp
    note: logs/chats/a.json: detected format openai
    warning: logs/chats/a.json:1: call 'fetch' (id "c2") has no result; kept with the response {"no_result":true}
    warning: logs/chats/a.json: 1 warning: 1 call without a result
    error: logs/notes.txt:1: unrecognised input: invalid JSON: expected `null`, found `o` at column 2; expected an agent log of a known format (claude-code, codex, gemini, copilot, cursor, openai, responses, anthropic, mcp, inspect, swe-agent, openhands, cline, otel, or a transcript of this tool; see docs/import.md); name the format with --from
    "#);
    // The log that failed has no transcript.
    assert_snapshot!(files(&dir, "out").lines().filter(|l| l.starts_with("== ")).collect::<Vec<_>>().join("\n"), @r"
    == out/logs/b-mcp.jsonl
    == out/logs/chats/a.jsonl
    ");
}

#[test]
fn files_are_imported_in_the_order_given_named_by_their_file_name() {
    let dir = dir();
    dir.write("c.json", OPENAI);
    assert_snapshot!(
        dir.run(&["import", "--from", "openai", "c.json", "logs/chats/a.json", "--out-dir", "out"]).text(),
        @r#"
    exit: 0
    --- stdout
    c.json -> out/c.jsonl: openai, 2 records, 1 warning
    logs/chats/a.json -> out/a.jsonl: openai, 2 records, 1 warning
    summary:
    files: 2
    records: 4
    warnings: 2
    errors: 0
    --- stderr
    warning: c.json:1: call 'fetch' (id "c2") has no result; kept with the response {"no_result":true}
    warning: c.json: 1 warning: 1 call without a result
    warning: logs/chats/a.json:1: call 'fetch' (id "c2") has no result; kept with the response {"no_result":true}
    warning: logs/chats/a.json: 1 warning: 1 call without a result
    "#
    );
}

#[test]
fn strict_refuses_each_log_with_warnings_and_the_exit_status_is_2() {
    let dir = dir();
    assert_snapshot!(
        dir.run(&["import", "--strict", "logs/chats/a.json", "logs/b-mcp.jsonl", "--out-dir", "out"]).text(),
        @r#"
    exit: 2
    --- stdout
    logs/b-mcp.jsonl -> out/b-mcp.jsonl: mcp, 1 record, 0 warnings
    summary:
    files: 2
    records: 1
    warnings: 1
    errors: 1
    --- stderr
    note: logs/chats/a.json: detected format openai
    warning: logs/chats/a.json:1: call 'fetch' (id "c2") has no result; kept with the response {"no_result":true}
    error: logs/chats/a.json: 1 warning: 1 call without a result; --strict allows none
    note: logs/b-mcp.jsonl: detected format mcp
    "#
    );
    assert_eq!(dir.entries(), ["logs", "out"]);
    assert_snapshot!(files(&dir, "out"), @r#"
    == out/b-mcp.jsonl
    {"index":0,"tool":"read_file","args":{"path":"a.txt"},"response":{"content":[{"text":"hello","type":"text"}]}}
    "#);
}

#[test]
fn two_inputs_to_one_transcript_are_refused_before_anything_is_imported() {
    let dir = dir();
    dir.write("logs/chats/a.jsonl", MCP);
    dir.write("logs/chats/a", MCP);
    assert_snapshot!(dir.run(&["import", "logs", "--glob", "a*", "--out-dir", "out"]).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: logs/chats/a and logs/chats/a.json would both be imported to out/logs/chats/a.jsonl (and 1 more collision): rename one, or import them to separate folders
    ");
    assert_eq!(dir.entries(), ["logs"]);
    // The same file named twice would be imported twice over itself.
    assert_snapshot!(dir.run(&["import", "logs/b-mcp.jsonl", "logs/b-mcp.jsonl", "--out-dir", "out"]).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: logs/b-mcp.jsonl is named twice: it would be imported twice to out/b-mcp.jsonl
    ");
}

#[test]
fn transcripts_already_there_are_refused_unless_overwrite() {
    let dir = dir();
    std::fs::create_dir_all(dir.path().join("out/logs/chats")).expect("folders");
    dir.write("out/logs/b-mcp.jsonl", "an earlier transcript\n");
    dir.write("out/logs/chats/a.jsonl", "an earlier transcript\n");
    let args = ["import", "logs", "--glob", "*.json*", "--out-dir", "out"];
    assert_snapshot!(dir.run(&args).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: out/logs/b-mcp.jsonl already exists (and 1 more output): give --overwrite to replace the transcripts in the output folder, or another --out-dir
    ");
    assert_eq!(dir.read("out/logs/b-mcp.jsonl"), b"an earlier transcript\n");
    let mut overwrite = args.to_vec();
    overwrite.push("--overwrite");
    assert_eq!(dir.run(&overwrite).code, 0);
    assert_snapshot!(files(&dir, "out"), @r#"
    == out/logs/b-mcp.jsonl
    {"index":0,"tool":"read_file","args":{"path":"a.txt"},"response":{"content":[{"text":"hello","type":"text"}]}}
    == out/logs/chats/a.jsonl
    {"index":0,"tool":"search","args":{"q":"x"},"response":{"content":"found"}}
    {"index":1,"tool":"fetch","args":{},"response":{"no_result":true}}
    "#);
}

#[test]
fn a_transcript_is_never_written_over_its_input() {
    let dir = dir();
    assert_snapshot!(
        dir.run(&["import", "logs/b-mcp.jsonl", "--out-dir", "logs", "--overwrite"]).text(),
        @r"
    exit: 2
    --- stdout
    --- stderr
    error: logs/b-mcp.jsonl would be replaced by the transcript of logs/b-mcp.jsonl, and it is an input: choose another --out-dir
    "
    );
    assert_eq!(dir.read("logs/b-mcp.jsonl"), MCP.as_bytes());
}

#[test]
fn the_output_folder_inside_an_input_folder_is_not_read_as_input() {
    let dir = dir();
    let args = [
        "import",
        "logs",
        "--glob",
        "*.json*",
        "--out-dir",
        "logs/imported",
    ];
    assert_eq!(dir.run(&args).code, 0);
    assert_snapshot!(dir.run(&[&args[..], &["--overwrite"]].concat()).text(), @r#"
    exit: 0
    --- stdout
    logs/b-mcp.jsonl -> logs/imported/logs/b-mcp.jsonl: mcp, 1 record, 0 warnings
    logs/chats/a.json -> logs/imported/logs/chats/a.jsonl: openai, 2 records, 1 warning
    summary:
    files: 2
    records: 3
    warnings: 1
    errors: 0
    --- stderr
    note: logs: its files in the output folder logs/imported are not read
    note: logs/b-mcp.jsonl: detected format mcp
    note: logs/chats/a.json: detected format openai
    warning: logs/chats/a.json:1: call 'fetch' (id "c2") has no result; kept with the response {"no_result":true}
    warning: logs/chats/a.json: 1 warning: 1 call without a result
    "#);
}

#[test]
fn several_inputs_without_an_output_folder_are_a_usage_error() {
    let dir = dir();
    assert_snapshot!(dir.run(&["import", "logs/b-mcp.jsonl", "logs/chats/a.json"]).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: several inputs (or a folder) need --out-dir DIR, where each is imported to its own transcript; standard output and -o OUT hold one
    ");
    assert_snapshot!(dir.run(&["import", "logs"]).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: several inputs (or a folder) need --out-dir DIR, where each is imported to its own transcript; standard output and -o OUT hold one
    ");
    assert_snapshot!(dir.run(&["import", "logs/b-mcp.jsonl", "logs/chats/a.json", "-o", "t.jsonl"]).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: several inputs (or a folder) need --out-dir DIR, where each is imported to its own transcript; standard output and -o OUT hold one
    ");
    assert_snapshot!(dir.run(&["import", "logs", "-o", "t.jsonl", "--out-dir", "out"]).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: the argument '--output <OUT>' cannot be used with '--out-dir <DIR>'

    Usage: toolreplay import --output <OUT> <INPUT>...

    For more information, try '--help'.
    ");
    assert_eq!(dir.entries(), ["logs"]);
}

#[test]
fn standard_input_has_no_name_in_an_output_folder() {
    let dir = dir();
    assert_snapshot!(dir.run(&["import", "-", "logs/b-mcp.jsonl", "--out-dir", "out"]).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: standard input (-) has no name to give its transcript in --out-dir: import it alone, to standard output or -o OUT
    ");
}

#[test]
fn a_folder_with_nothing_to_import_is_an_error() {
    let dir = dir();
    assert_snapshot!(dir.run(&["import", "logs", "--glob", "*.traj", "--out-dir", "out"]).text(), @r#"
    exit: 2
    --- stdout
    --- stderr
    error: logs: a folder with no file matching "*.traj"
    "#);
}

#[test]
fn one_log_with_an_output_folder_gets_the_report_too() {
    let dir = dir();
    assert_snapshot!(dir.run(&["import", "logs/b-mcp.jsonl", "--out-dir", "out"]).text(), @r"
    exit: 0
    --- stdout
    logs/b-mcp.jsonl -> out/b-mcp.jsonl: mcp, 1 record, 0 warnings
    summary:
    files: 1
    records: 1
    warnings: 0
    errors: 0
    --- stderr
    note: logs/b-mcp.jsonl: detected format mcp
    ");
}

#[test]
fn subagent_logs_in_a_walked_folder_are_read_with_their_session() {
    let dir = Dir::with_claude_code_project();
    assert_snapshot!(dir.run(&["import", "projects", "--out-dir", "out"]).text(), @r"
    exit: 0
    --- stdout
    projects/p/session.jsonl -> out/projects/p/session.jsonl: claude-code, 4 records, 0 warnings, 2 subagent logs
    summary:
    files: 1
    subagent logs: 2
    records: 4
    warnings: 0
    errors: 0
    --- stderr
    note: projects/p/session.jsonl: detected format claude-code
    ");
    let one = dir.run(&["import", "projects/p/session.jsonl"]);
    assert_eq!(
        one.stdout.as_bytes(),
        dir.read("out/projects/p/session.jsonl")
    );
    // Not a Claude Code session: its subagent logs are not read with it, and say so.
    dir.write("projects/p/session.jsonl", MCP);
    assert_snapshot!(dir.run(&["import", "projects", "--out-dir", "out2"]).text(), @r"
    exit: 2
    --- stdout
    projects/p/session.jsonl -> out2/projects/p/session.jsonl: mcp, 1 record, 0 warnings
    summary:
    files: 1
    records: 1
    warnings: 0
    errors: 2
    --- stderr
    note: projects/p/session.jsonl: detected format mcp
    error: projects/p/session/subagents/agent-abc123.jsonl: not imported: a subagent log is read with its session projects/p/session.jsonl, which was read as mcp; import it on its own with --from claude-code
    error: projects/p/session/subagents/agent-acompact-1.jsonl: not imported: a subagent log is read with its session projects/p/session.jsonl, which was read as mcp; import it on its own with --from claude-code
    ");
}

#[test]
fn a_folder_without_a_name_of_its_own_puts_its_files_straight_in_the_output_folder() {
    let dir = dir();
    let logs = dir.path().join("logs");
    let args = ["import", ".", "--glob", "*.json*", "--out-dir", "out"];
    assert_eq!(super::run(&logs, &args).code, 0);
    assert_snapshot!(super::run(&logs, &[&args[..], &["--overwrite"]].concat()).text(), @r#"
    exit: 0
    --- stdout
    b-mcp.jsonl -> out/b-mcp.jsonl: mcp, 1 record, 0 warnings
    chats/a.json -> out/chats/a.jsonl: openai, 2 records, 1 warning
    summary:
    files: 2
    records: 3
    warnings: 1
    errors: 0
    --- stderr
    note: .: its files in the output folder out are not read
    note: b-mcp.jsonl: detected format mcp
    note: chats/a.json: detected format openai
    warning: chats/a.json:1: call 'fetch' (id "c2") has no result; kept with the response {"no_result":true}
    warning: chats/a.json: 1 warning: 1 call without a result
    "#);
    assert_snapshot!(files(&dir, "logs/out").lines().filter(|l| l.starts_with("== ")).collect::<Vec<_>>().join("\n"), @r"
    == logs/out/b-mcp.jsonl
    == logs/out/chats/a.jsonl
    ");
}

#[cfg(unix)]
#[test]
fn overwrite_never_writes_through_a_symbolic_link_out_of_the_output_folder() {
    let dir = dir();
    std::fs::create_dir_all(dir.path().join("out/logs")).expect("folders");
    dir.write("elsewhere.txt", "not to be overwritten\n");
    // A transcript's path in the output folder is a link to a file outside it: the
    // link is replaced, the file it pointed to is left as it was.
    std::os::unix::fs::symlink(
        "../../elsewhere.txt",
        dir.path().join("out/logs/b-mcp.jsonl"),
    )
    .expect("link");
    let args = [
        "import",
        "logs",
        "--glob",
        "b-*",
        "--out-dir",
        "out",
        "--overwrite",
    ];
    assert_eq!(dir.run(&args).code, 0);
    assert_eq!(dir.read("elsewhere.txt"), b"not to be overwritten\n");
    let link = std::fs::symlink_metadata(dir.path().join("out/logs/b-mcp.jsonl")).expect("meta");
    assert!(link.is_file(), "the link is replaced by the transcript");
    // A folder in the output folder that is a link out of it: refused, nothing written.
    std::fs::create_dir_all(dir.path().join("outside")).expect("folder");
    std::fs::create_dir_all(dir.path().join("out2")).expect("folder");
    std::os::unix::fs::symlink("../outside", dir.path().join("out2/logs")).expect("link");
    let args = [
        "import",
        "logs",
        "--glob",
        "b-*",
        "--out-dir",
        "out2",
        "--overwrite",
    ];
    assert_snapshot!(dir.run(&args).text(), @r"
    exit: 2
    --- stdout
    --- stderr
    error: out2/logs/b-mcp.jsonl: its folder is a symbolic link out of the output folder out2: nothing was imported
    ");
    assert_eq!(
        std::fs::read_dir(dir.path().join("outside"))
            .expect("list")
            .count(),
        0
    );
}
