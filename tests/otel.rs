//! `export --format otlp` on the real logs of `../shared/data/transcripts/`: each
//! comes back from its spans through `import --from otel` (byte for byte, in canonical
//! form), and the OTLP JSON of each, and of every sample, parses with the official
//! OpenTelemetry protobuf definitions (PyPI `opentelemetry-proto`, in the Python that
//! `TOOLREPLAY_MCP_PYTHON` names; .ci/run installs it): ids of 16 and 8 bytes, times
//! in order (`tests/mcp/check_otlp.py`). The spans of the logs that write times carry
//! them, as that script reads them from the logs itself.
//!
//! Ignored by the plain `cargo test`, like the other tests of data beside the
//! repository; `cargo test -- --ignored` runs them (as CI does).

use std::path::{Path, PathBuf};

use crate::cli::export::round_trip;
use crate::cli::{Dir, ROOT, run};

const DATA: &str = "../shared/data/transcripts";

/// Every file under `dir`, sorted, as paths relative to the crate root.
fn files(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| entry.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, found);
        } else if !path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            && path.extension().is_some_and(|e| e != "tsv")
        {
            found.push(path);
        }
    }
}

fn shared_logs() -> Vec<String> {
    let root = Path::new(ROOT);
    let mut found = Vec::new();
    files(&root.join(DATA), &mut found);
    let logs: Vec<String> = found
        .iter()
        .map(|path| {
            path.strip_prefix(root)
                .expect("under the root")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert!(logs.len() >= 30, "{} logs", logs.len());
    logs
}

#[test]
#[ignore = "needs ../shared/data"]
fn every_shared_log_comes_back_from_its_spans() {
    for log in shared_logs() {
        round_trip(Path::new(ROOT), &log, Some("auto"));
    }
}

#[test]
#[ignore = "needs TOOLREPLAY_MCP_PYTHON, a Python with opentelemetry-proto (.ci/run sets it), and ../shared/data"]
fn every_export_parses_with_the_official_protobuf_definitions() {
    let python = std::env::var("TOOLREPLAY_MCP_PYTHON")
        .expect("TOOLREPLAY_MCP_PYTHON names a Python with opentelemetry-proto (.ci/run sets it)");
    let out = Dir::new();
    let root = Path::new(ROOT);
    let mut exports: Vec<(Vec<String>, String)> = Vec::new();
    for log in shared_logs() {
        for content in [false, true] {
            let mut args = vec!["export", "--format", "otlp", "--from", "auto"];
            if content {
                args.push("--with-content");
            }
            args.push(&log);
            exports.push((args.iter().map(|a| a.to_string()).collect(), log.clone()));
        }
    }
    for (sample, scope) in [
        ("samples/session-dirty.jsonl", "samples/scope.json"),
        ("samples/session-dirty.sealed.jsonl", "samples/scope.json"),
        ("samples/session-policy.jsonl", "samples/policy.json"),
        ("samples/session-commands.jsonl", "samples/commands.json"),
        ("samples/session-clean.jsonl", "samples/scope.json"),
        (
            "samples/session-gemini.jsonl",
            "samples/any-agent-guard.json",
        ),
    ] {
        let args = [
            "export",
            "--format",
            "otlp",
            "--with-content",
            "--scope",
            scope,
            sample,
        ];
        exports.push((
            args.iter().map(|a| a.to_string()).collect(),
            sample.to_owned(),
        ));
    }
    let mut names = Vec::new();
    for (n, (args, what)) in exports.iter().enumerate() {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let exported = run(root, &args);
        assert_eq!(exported.code, 0, "{what}: {}", exported.stderr);
        let name = format!("{n}.json");
        out.write(&name, &exported.stdout);
        names.push(out.path().join(name).to_string_lossy().into_owned());
    }
    let spans = check_otlp(&python, &[&["requests"][..], &names_of(&names)].concat());
    assert!(spans > 400, "{spans} spans");
}

fn names_of(names: &[String]) -> Vec<&str> {
    names.iter().map(String::as_str).collect()
}

/// Runs `tests/mcp/check_otlp.py` with `args`; the count it prints.
fn check_otlp(python: &str, args: &[&str]) -> u64 {
    let output = std::process::Command::new(python)
        .arg(Path::new(ROOT).join("tests/mcp/check_otlp.py"))
        .args(args)
        .output()
        .expect("run python");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{args:?}: {stderr}");
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .expect("a count")
}

#[test]
#[ignore = "needs TOOLREPLAY_MCP_PYTHON, a Python with opentelemetry-proto (.ci/run sets it), and ../shared/data"]
fn the_spans_of_a_log_that_writes_times_have_its_times() {
    let python = std::env::var("TOOLREPLAY_MCP_PYTHON")
        .expect("TOOLREPLAY_MCP_PYTHON names a Python with opentelemetry-proto (.ci/run sets it)");
    let root = Path::new(ROOT);
    let mut logs: Vec<(&str, String)> = [
        ("claude-code", "tests/fixtures/import/claude-code.jsonl"),
        ("codex", "tests/fixtures/import/codex.jsonl"),
        ("copilot", "tests/fixtures/import/copilot.jsonl"),
        ("mcp", "tests/fixtures/import/mcp-wrapped.jsonl"),
        ("gemini", "tests/fixtures/import/gemini.json"),
        ("claude-code", "samples/claude-code-session.jsonl"),
    ]
    .into_iter()
    .map(|(format, log)| (format, log.to_owned()))
    .collect();
    for log in shared_logs() {
        let format = [
            ("/claude-code/", "claude-code"),
            ("/claude-code-subagents/", "claude-code"),
            ("/codex-rollout/", "codex"),
            ("/copilot-cli/", "copilot"),
            ("/mcp/", "mcp"),
            ("/gemini-cli/", "gemini"),
        ]
        .into_iter()
        .find(|(folder, _)| {
            log.contains(folder) && (log.ends_with(".jsonl") || folder.contains("gemini"))
        })
        .map(|(_, format)| format);
        // A subagent's own log is read with its session.
        if let Some(format) = format
            && !log.contains("/subagents/")
        {
            logs.push((format, log));
        }
    }
    let out = Dir::new();
    let mut checked = 0;
    for (n, (format, log)) in logs.iter().enumerate() {
        let exported = run(root, &["export", "--format", "otlp", "--from", format, log]);
        assert_eq!(exported.code, 0, "{log}: {}", exported.stderr);
        let name = format!("{n}.json");
        out.write(&name, &exported.stdout);
        let path = out.path().join(&name).to_string_lossy().into_owned();
        checked += check_otlp(&python, &["times", format, log, &path]);
        check_otlp(&python, &["requests", &path]);
    }
    assert!(checked > 200, "{checked} spans with the log's times");
}
