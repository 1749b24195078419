//! `export --format otlp` on the real logs of `../shared/data/transcripts/`: each
//! comes back from its spans through `import --from otel` (byte for byte, in canonical
//! form), and the OTLP JSON of each, and of every sample, parses with the official
//! OpenTelemetry protobuf definitions (PyPI `opentelemetry-proto`, in the Python that
//! `TOOLREPLAY_MCP_PYTHON` names; .ci/run installs it).
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
    let script = "\
import sys
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
spans = 0
for path in sys.argv[1:]:
    with open(path, encoding='utf-8') as f:
        request = json_format.Parse(f.read(), ExportTraceServiceRequest())
    for resource in request.resource_spans:
        for scope in resource.scope_spans:
            spans += len(scope.spans)
print(spans)
";
    let output = std::process::Command::new(python)
        .arg("-c")
        .arg(script)
        .args(&names)
        .output()
        .expect("run python");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let spans: u64 = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .expect("a count of spans");
    assert!(spans > 400, "{spans} spans");
}
