//! `export --format otlp` (docs/otel.md): exact snapshots of the samples' spans, the
//! ids taken from the chain, strict input errors, `-o` and stdin, and the round trip
//! `export --with-content` then `import --from otel` giving back every sample.

use insta::assert_snapshot;
use serde_json::Value;
use toolreplay_core::{encode_canonical, parse_json};

use super::{Dir, ROOT, lines, record, run_in_root, run_with_stdin};

/// The spans of an export.
pub(crate) fn spans(otlp: &str) -> Vec<Value> {
    let request: Value = serde_json::from_str(otlp).expect("OTLP JSON");
    request["resourceSpans"]
        .as_array()
        .expect("resourceSpans")
        .iter()
        .flat_map(|resource| {
            resource["scopeSpans"]
                .as_array()
                .expect("scopeSpans")
                .clone()
        })
        .flat_map(|scope| scope["spans"].as_array().expect("spans").clone())
        .collect()
}

/// Each record of a transcript (plain, sealed or imported) as the canonical encoding
/// of its four fields.
pub(crate) fn canonical_records(text: &str) -> Vec<Vec<u8>> {
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let value = parse_json(line).expect("a record");
            let toolreplay_core::Value::Object(members) = value else {
                panic!("a record is an object: {line}");
            };
            let kept: Vec<(String, toolreplay_core::Value)> = members
                .into_iter()
                .filter(|(key, _)| ["args", "index", "response", "tool"].contains(&key.as_str()))
                .collect();
            encode_canonical(&toolreplay_core::Value::Object(kept))
        })
        .collect()
}

#[test]
fn export_of_the_dirty_sample() {
    assert_snapshot!(
        run_in_root(&["export", "--format", "otlp", "samples/session-dirty.jsonl"]).text()
    );
}

#[test]
fn export_of_the_sealed_sample_with_content() {
    assert_snapshot!(
        run_in_root(&[
            "export",
            "--format",
            "otlp",
            "--with-content",
            "samples/session-dirty.sealed.jsonl"
        ])
        .text()
    );
}

#[test]
fn export_with_scope_findings() {
    assert_snapshot!(
        run_in_root(&[
            "export",
            "--format",
            "otlp",
            "--scope",
            "samples/scope.json",
            "samples/session-dirty.jsonl"
        ])
        .text()
    );
}

#[test]
fn export_of_the_policy_sample_as_mcp_calls() {
    assert_snapshot!(
        run_in_root(&[
            "export",
            "--format",
            "otlp",
            "--mcp",
            "--scope",
            "samples/policy.json",
            "samples/session-policy.jsonl"
        ])
        .text()
    );
}

#[test]
fn a_denied_live_record_is_a_deny_disposition_with_its_findings_as_events() {
    let denied = r#"{"toolreplay": {"findings": [{"kind": "permission-overreach", "message": "tool 'Bash' is not in the declared scope for agent 'a'"}], "outcome": "denied"}}"#;
    let transcript = lines(&[
        &record(0, "Bash", r#"{"command": "ls"}"#, denied),
        &record(
            1,
            "Read",
            r#"{"file_path": "a"}"#,
            r#"{"error": "no such file", "is_error": true}"#,
        ),
    ]);
    let run = run_with_stdin(
        std::path::Path::new(ROOT),
        &["export", "--format", "otlp", "-"],
        transcript,
    );
    assert_snapshot!(run.text());
}

#[test]
fn a_transcript_and_its_sealed_copy_are_the_same_trace() {
    let plain = run_in_root(&["export", "--format", "otlp", "samples/session-dirty.jsonl"]);
    let sealed = run_in_root(&[
        "export",
        "--format",
        "otlp",
        "samples/session-dirty.sealed.jsonl",
    ]);
    assert_eq!((plain.code, sealed.code), (0, 0));
    let ids = |text: &str| -> Vec<(Value, Value)> {
        spans(text)
            .into_iter()
            .map(|span| (span["traceId"].clone(), span["spanId"].clone()))
            .collect()
    };
    assert_eq!(ids(&plain.stdout), ids(&sealed.stdout));
    // The trace is the first link's digest, each span its own link's.
    let first = std::fs::read_to_string(format!("{ROOT}/samples/session-dirty.sealed.jsonl"))
        .expect("sample");
    let digest: Value = serde_json::from_str(first.lines().next().expect("a link")).expect("JSON");
    let digest = digest["digest"].as_str().expect("digest");
    assert_eq!(ids(&plain.stdout)[0].0, Value::from(&digest[..32]));
    assert_eq!(ids(&plain.stdout)[0].1, Value::from(&digest[..16]));
}

#[test]
fn an_empty_transcript_exports_no_spans() {
    let dir = Dir::new();
    dir.write("empty.jsonl", "");
    assert_snapshot!(dir.runs(&[&["export", "--format", "otlp", "empty.jsonl"]]));
}

#[test]
fn input_errors_are_one_line_and_exit_2() {
    let dir = Dir::new();
    dir.write(
        "bad.jsonl",
        "{\"index\": 0, \"tool\": \"t\", \"args\": {}}\n",
    );
    std::fs::copy(
        format!("{ROOT}/samples/session-dirty.tampered.jsonl"),
        dir.path().join("tampered.jsonl"),
    )
    .expect("copy");
    assert_snapshot!(dir.runs(&[
        &["export", "--format", "otlp", "bad.jsonl"],
        &["export", "--format", "otlp", "tampered.jsonl"],
        &["export", "--format", "otlp", "missing.jsonl"],
        &["export", "samples.jsonl"],
        &["export", "--format", "zipkin", "bad.jsonl"],
    ]));
}

#[test]
fn output_goes_to_a_file_atomically_and_stdin_reads() {
    let dir = Dir::new();
    let transcript = std::fs::read(format!("{ROOT}/samples/session-dirty.jsonl")).expect("sample");
    let printed = run_in_root(&["export", "--format", "otlp", "samples/session-dirty.jsonl"]);
    let run = run_with_stdin(
        dir.path(),
        &["export", "--format", "otlp", "-", "-o", "spans.json"],
        &transcript,
    );
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, "", "")
    );
    assert_eq!(dir.read("spans.json"), printed.stdout.as_bytes());
    assert_eq!(dir.entries(), ["spans.json"]);
}

#[test]
fn the_same_session_always_gives_the_same_bytes() {
    let args = [
        "export",
        "--format",
        "otlp",
        "--with-content",
        "--scope",
        "samples/policy.json",
        "samples/session-policy.jsonl",
    ];
    assert_eq!(run_in_root(&args).stdout, run_in_root(&args).stdout);
}

/// `export --with-content` then `import --from otel` gives back the records of
/// `path` (read with `--from FROM` when given), byte for byte in canonical form.
pub(crate) fn round_trip(dir: &std::path::Path, path: &str, from: Option<&str>) {
    let mut export = vec!["export", "--format", "otlp", "--with-content"];
    let mut import = vec!["import"];
    if let Some(from) = from {
        export.extend(["--from", from]);
        import.extend(["--from", from]);
    }
    export.push(path);
    import.push(path);
    let exported = super::run(dir, &export);
    assert_eq!(exported.code, 0, "{path}: {}", exported.stderr);
    let back = run_with_stdin(dir, &["import", "--from", "otel", "-"], &exported.stdout);
    assert_eq!(back.code, 0, "{path}: {}", back.stderr);
    assert_eq!(back.stderr, "", "{path}");
    let expected = match from {
        None => std::fs::read_to_string(dir.join(path)).expect("transcript"),
        Some(_) => {
            let imported = super::run(dir, &import);
            assert!(
                imported.code == 0 || imported.code == 1,
                "{path}: {}",
                imported.stderr
            );
            imported.stdout
        }
    };
    let expected = canonical_records(&expected);
    let got = canonical_records(&back.stdout);
    assert_eq!(got.len(), expected.len(), "{path}");
    for (n, (got, expected)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(
            String::from_utf8_lossy(got),
            String::from_utf8_lossy(expected),
            "{path}: record {n}"
        );
    }
}

#[test]
fn every_sample_comes_back_from_its_spans() {
    let root = std::path::Path::new(ROOT);
    let mut seen = 0;
    for entry in std::fs::read_dir(root.join("samples")).expect("samples") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        // The tampered file is no transcript, nor is an attestation.
        if !name.ends_with(".jsonl") || name.contains("tampered") || name.contains(".intoto.") {
            continue;
        }
        let path = format!("samples/{name}");
        let from = name.starts_with("claude-code").then_some("claude-code");
        round_trip(root, &path, from);
        seen += 1;
    }
    assert_eq!(seen, 7);
}

#[test]
fn awkward_values_come_back_exactly() {
    let dir = Dir::new();
    dir.write(
        "odd.jsonl",
        lines(&[
            &record(
                0,
                r#"t\u00e9\"\\"#,
                r#"{"big": 18446744073709551623, "f": 1.0, "e": 1e-7, "s": "\ud83d\ude00\u0000"}"#,
                r#"{"no_result": true}"#,
            ),
            &record(
                1,
                "mcp__srv__x",
                "{}",
                r#"{"content": [{"type": "text", "text": "a\nb"}], "is_error": true}"#,
            ),
            &record(
                2,
                "t",
                r#"{"a": [], "b": {}}"#,
                r#"{"toolreplay": {"outcome": "timed-out", "after_ms": 5}}"#,
            ),
        ]),
    );
    round_trip(dir.path(), "odd.jsonl", None);
}

#[test]
fn export_of_the_claude_code_sample_with_its_policy() {
    assert_snapshot!(
        run_in_root(&[
            "export",
            "--format",
            "otlp",
            "--from",
            "claude-code",
            "--scope",
            "samples/claude-code-scope.json",
            "samples/claude-code-session.jsonl"
        ])
        .text()
    );
}

/// The export of the import fixture `name` read as `from`.
fn export_of_fixture(from: &str, name: &str) -> String {
    run_in_root(&[
        "export",
        "--format",
        "otlp",
        "--from",
        from,
        &format!("tests/fixtures/import/{name}"),
    ])
    .text()
}

#[test]
fn a_claude_code_log_gives_its_times_and_tool_use_ids() {
    assert_snapshot!(export_of_fixture("claude-code", "claude-code.jsonl"));
}

#[test]
fn a_codex_rollout_gives_its_times_and_call_ids() {
    assert_snapshot!(export_of_fixture("codex", "codex.jsonl"));
}

#[test]
fn openai_messages_give_their_tool_call_ids_and_no_times() {
    assert_snapshot!(export_of_fixture("openai", "openai.json"));
}

#[test]
fn an_mcp_log_gives_its_request_ids_and_protocol_version() {
    assert_snapshot!(export_of_fixture("mcp", "mcp.jsonl"));
}

#[test]
fn an_mcp_recording_gives_its_envelopes_times() {
    assert_snapshot!(export_of_fixture("mcp", "mcp-wrapped.jsonl"));
}

#[test]
fn a_gemini_session_gives_its_messages_times_and_tool_call_ids() {
    assert_snapshot!(export_of_fixture("gemini", "gemini.json"));
}

#[test]
fn a_copilot_log_gives_its_times_and_tool_call_ids() {
    assert_snapshot!(export_of_fixture("copilot", "copilot.jsonl"));
}

/// `(index, kind, related index, message)` of each finding of `replay --format
/// json` with `args`.
fn replay_findings(args: &[&str]) -> Vec<(u64, String, Option<u64>, String)> {
    let run = run_in_root(&[&["replay", "--format", "json"], args].concat());
    assert!(run.code == 0 || run.code == 1, "{args:?}: {}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).expect("replay's JSON");
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|finding| {
            (
                finding["index"].as_u64().expect("index"),
                finding["kind"].as_str().expect("kind").to_owned(),
                finding["related_index"].as_u64(),
                finding["message"].as_str().expect("message").to_owned(),
            )
        })
        .collect()
}

/// The same of each `replay` event of `export --format otlp` with `args`.
fn export_replay_events(args: &[&str]) -> Vec<(u64, String, Option<u64>, String)> {
    let run = run_in_root(&[&["export", "--format", "otlp"], args].concat());
    assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    let attribute = |attributes: &Value, key: &str| -> Option<Value> {
        attributes
            .as_array()
            .expect("attributes")
            .iter()
            .find(|a| a["key"] == key)
            .map(|a| a["value"].clone())
    };
    let int = |value: Option<Value>| -> Option<u64> {
        value.and_then(|v| v["intValue"].as_str().and_then(|n| n.parse().ok()))
    };
    let mut found = Vec::new();
    for span in spans(&run.stdout) {
        let index = int(attribute(&span["attributes"], "toolreplay.index")).expect("index");
        for event in span["events"].as_array().expect("events") {
            let audit = attribute(&event["attributes"], "toolreplay.audit").expect("audit");
            if audit["stringValue"] != "replay" {
                continue;
            }
            let message = attribute(&event["attributes"], "toolreplay.message").expect("message");
            found.push((
                index,
                event["name"].as_str().expect("name").to_owned(),
                int(attribute(&event["attributes"], "toolreplay.related_index")),
                message["stringValue"].as_str().expect("text").to_owned(),
            ));
        }
    }
    found
}

#[test]
fn export_events_are_replays_findings_with_the_same_input_and_flags() {
    let inputs: [&[&str]; 4] = [
        &["--from", "claude-code", "samples/claude-code-session.jsonl"],
        &["--from", "mcp", "tests/fixtures/import/mcp.jsonl"],
        &["--from", "auto", "tests/fixtures/import/claude-code.jsonl"],
        &["samples/session-dirty.jsonl"],
    ];
    let flags: [&[&str]; 5] = [
        &[],
        &["--rules", "spec"],
        &["--rules", "agent"],
        &["--volatile-tool", "read_file", "--volatile-tool", "Read"],
        &["--mutating-tool", "search", "--mutating-tool", "Grep"],
    ];
    let mut some = 0;
    for input in inputs {
        for flags in flags {
            let args = [flags, input].concat();
            let replay = replay_findings(&args);
            assert_eq!(export_replay_events(&args), replay, "{args:?}");
            some += usize::from(!replay.is_empty());
        }
    }
    assert!(some > 5, "the inputs have findings to compare");
    // An imported log is judged by the agent rules by default, as replay judges it
    // (WebFetch is volatile there); the specification's rules find more.
    let session = ["--from", "claude-code", "samples/claude-code-session.jsonl"];
    let kinds = |args: &[&str]| -> Vec<(u64, String)> {
        export_replay_events(args)
            .into_iter()
            .map(|(index, kind, _, _)| (index, kind))
            .collect()
    };
    assert_eq!(kinds(&session), [(2, "redundant-call".to_owned())]);
    assert_eq!(
        kinds(&[&["--rules", "spec"][..], &session].concat()),
        [
            (2, "redundant-call".to_owned()),
            (6, "non-determinism".to_owned()),
            (6, "redundant-call".to_owned())
        ]
    );
}
