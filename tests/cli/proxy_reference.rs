//! `toolreplay proxy` in front of the MCP reference servers from npm
//! (`@modelcontextprotocol/server-filesystem` and `server-everything`, pinned by
//! tests/mcp/npm/package-lock.json), driven by the official MCP Python SDK's client
//! (tests/mcp/reference.py): calls allowed, denied by each kind of rule, withheld,
//! timed out, cancelled, and a server killed under a call; the server's own
//! requests (sampling, elicitation) and progress pass through. Ignored unless
//! TOOLREPLAY_MCP_PYTHON and TOOLREPLAY_MCP_NPM are set, as .ci/run sets them.
//!
//! After every session the sealed file verifies intact and keeps the live
//! invariant (`scope` after the fact, and `scope --from sealed`, find at each denied
//! record exactly what the denial named).

use std::path::Path;
use std::process::Command;

use insta::assert_snapshot;
use serde_json::Value;

use super::proxy::sealed;
use super::{Dir, ROOT};

/// The Python of the virtual environment with the SDK 1.x.
fn python() -> String {
    std::env::var("TOOLREPLAY_MCP_PYTHON").unwrap_or_else(|_| {
        panic!("TOOLREPLAY_MCP_PYTHON: the python of a virtual environment with tests/mcp/requirements.txt (.ci/run sets it)")
    })
}

/// The command of the reference server `name` (`mcp-server-filesystem`, ...).
fn server(name: &str) -> String {
    let bin = std::env::var("TOOLREPLAY_MCP_NPM").unwrap_or_else(|_| {
        panic!("TOOLREPLAY_MCP_NPM: the node_modules/.bin of `npm ci --prefix tests/mcp/npm` (.ci/run sets it)")
    });
    let path = Path::new(&bin).join(name);
    assert!(path.exists(), "{} is not installed", path.display());
    path.display().to_string()
}

/// What the SDK client saw playing `scenario` in `dir`, through the proxy (with
/// `proxy` options) or straight to `server` (`proxy` is `None`), as JSON; and the
/// proxy's notes.
fn session(dir: &Dir, scenario: &str, proxy: Option<&[&str]>, server: &[&str]) -> (Value, String) {
    let mut command = Command::new(python());
    command.env_clear();
    if let Some(path) = std::env::var_os("PATH") {
        command.env("PATH", path);
    }
    command
        .current_dir(dir.path())
        .arg(Path::new(ROOT).join("tests/mcp/reference.py"))
        .arg(scenario)
        .arg(dir.path())
        .arg("--");
    if let Some(options) = proxy {
        command
            .arg(env!("CARGO_BIN_EXE_toolreplay"))
            .args(["proxy", "--policy", "scope.json", "--seal", "s.jsonl"])
            .args(options)
            .arg("--");
    }
    let output = command.args(server).output().expect("run the MCP client");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the client failed:\n{stderr}");
    let summary = serde_json::from_slice(&output.stdout).expect("the client's summary");
    let notes = stderr
        .lines()
        .filter(|line| line.starts_with("toolreplay proxy:"))
        .map(|line| format!("{line}\n"))
        .collect();
    (summary, notes)
}

/// The sealed file as [`sealed`] shows it, the session's directory written `DIR`.
fn sealed_here(dir: &Dir) -> String {
    sealed(dir).replace(&dir.path().display().to_string(), "DIR")
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("JSON")
}

/// The calls the proxy let through, as the client saw them, beside the same calls
/// made straight to the server: each result must be the server's own, byte for
/// byte. Returns how many there were.
fn same_results_as_direct(proxied: &Value, direct: &Value) -> usize {
    let calls = |summary: &Value| summary["calls"].as_array().expect("calls").clone();
    let (through, straight) = (calls(proxied), calls(direct));
    assert_eq!(through.len(), straight.len());
    let mut allowed = 0;
    for (through, straight) in through.iter().zip(&straight) {
        assert_eq!(through["tool"], straight["tool"]);
        if !through["result"].to_string().contains("toolreplay") {
            assert_eq!(through["result"], straight["result"]);
            allowed += 1;
        }
    }
    allowed
}

/// The filesystem server's scope: the tools it may use, a budget, a path rule that
/// denies `.env`, a path rule and an argument schema on writes, and the secrets
/// detector.
const FILESYSTEM_SCOPE: &str = r#"{
  "agent": "files",
  "allowed_tools": ["read_text_file", "write_file", "list_directory"],
  "policy_version": 1,
  "budgets": {"per_tool": {"list_directory": 1}},
  "response_detectors": ["secrets"],
  "tools": {
    "read_text_file": {"paths": [{"args": ["/path"], "deny": ["**/.env"]}]},
    "write_file": {
      "args_schema": {"type": "object", "properties": {"content": {"type": "string", "maxLength": 40}}},
      "paths": [{"args": ["/path"], "allow": ["**/out/**"]}]
    }
  }
}"#;

fn filesystem_dir() -> Dir {
    let dir = Dir::new();
    dir.write("scope.json", FILESYSTEM_SCOPE);
    dir.write("notes.txt", "remember the milk\n");
    dir.write(".env", "SECRET=1\n");
    dir.write("keys.txt", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n");
    std::fs::create_dir(dir.path().join("out")).expect("out/");
    dir
}

#[test]
#[ignore = "needs the MCP SDK and the reference servers: TOOLREPLAY_MCP_PYTHON, TOOLREPLAY_MCP_NPM (.ci/run)"]
fn reference_filesystem_server_calls_are_allowed_denied_withheld_and_sealed() {
    let server_command = server("mcp-server-filesystem");
    let dir = filesystem_dir();
    let here = dir.path().display().to_string();
    let (proxied, notes) = session(&dir, "filesystem", Some(&[]), &[&server_command, &here]);
    let direct_dir = filesystem_dir();
    let there = direct_dir.path().display().to_string();
    let (direct, _) = session(&direct_dir, "filesystem", None, &[&server_command, &there]);
    // The server's own tool list, and every allowed call's result as the server
    // gives it without the proxy.
    assert_eq!(proxied["tools"], direct["tools"]);
    assert_eq!(same_results_as_direct(&proxied, &direct), 3);
    // Writes the proxy denied never reached the server.
    assert!(!dir.entries().contains(&"escape.txt".to_owned()));
    assert!(direct_dir.entries().contains(&"escape.txt".to_owned()));
    assert!(!dir.path().join("out/long.txt").exists());
    assert!(direct_dir.path().join("out/long.txt").exists());
    assert_eq!(dir.read("out/report.txt"), b"all good");
    assert_snapshot!(format!(
        "{}\n--- notes\n{notes}{}",
        pretty(&proxied),
        sealed_here(&dir)
    ));
}

/// The everything server's scope: a few of its tools, and a URL rule.
const EVERYTHING_SCOPE: &str = r#"{
  "agent": "everything",
  "allowed_tools": [
    "echo", "get-sum", "trigger-long-running-operation", "trigger-sampling-request",
    "trigger-elicitation-request", "gzip-file-as-resource"
  ],
  "policy_version": 1,
  "tools": {
    "gzip-file-as-resource": {
      "urls": [{"args": ["/data"], "schemes": ["https"], "allow_hosts": ["docs.example.com"]}]
    }
  }
}"#;

fn everything_dir() -> Dir {
    let dir = Dir::new();
    dir.write("scope.json", EVERYTHING_SCOPE);
    dir
}

/// The everything server, started by a shell that leaves its process id in
/// `server.pid` (the crash scenario kills it).
fn everything() -> Vec<String> {
    let server = server("mcp-server-everything");
    vec![
        "sh".to_owned(),
        "-c".to_owned(),
        format!("echo $$ > server.pid; exec '{server}' stdio"),
    ]
}

fn everything_session(dir: &Dir, scenario: &str, proxy: Option<&[&str]>) -> (Value, String) {
    let command = everything();
    let command: Vec<&str> = command.iter().map(String::as_str).collect();
    session(dir, scenario, proxy, &command)
}

#[test]
#[ignore = "needs the MCP SDK and the reference servers: TOOLREPLAY_MCP_PYTHON, TOOLREPLAY_MCP_NPM (.ci/run)"]
fn reference_everything_server_sampling_elicitation_and_progress_pass_through() {
    let dir = everything_dir();
    let (proxied, notes) = everything_session(&dir, "everything", Some(&[]));
    let direct_dir = everything_dir();
    let (direct, _) = everything_session(&direct_dir, "everything", None);
    assert_eq!(proxied["tools"], direct["tools"]);
    // The server's requests reached the client and its answers the server, and the
    // progress of the long call came through, as without the proxy.
    assert_eq!(proxied["server_requests"], direct["server_requests"]);
    assert_eq!(proxied["progress"], direct["progress"]);
    assert_eq!(same_results_as_direct(&proxied, &direct), 5);
    assert_snapshot!(format!(
        "{}\n--- notes\n{notes}{}",
        pretty(&proxied),
        sealed(&dir)
    ));
}

#[test]
#[ignore = "needs the MCP SDK and the reference servers: TOOLREPLAY_MCP_PYTHON, TOOLREPLAY_MCP_NPM (.ci/run)"]
fn reference_everything_server_a_call_past_its_timeout_is_cancelled_and_the_next_goes_on() {
    let dir = everything_dir();
    let (summary, notes) = everything_session(&dir, "timeout", Some(&["--call-timeout", "2s"]));
    assert_snapshot!(format!(
        "{}\n--- notes\n{notes}{}",
        pretty(&summary["calls"]),
        sealed(&dir)
    ));
}

#[test]
#[ignore = "needs the MCP SDK and the reference servers: TOOLREPLAY_MCP_PYTHON, TOOLREPLAY_MCP_NPM (.ci/run)"]
fn reference_everything_server_a_call_the_client_cancels_is_sealed_cancelled() {
    let dir = everything_dir();
    let (summary, notes) = everything_session(&dir, "cancel", Some(&[]));
    assert_snapshot!(format!(
        "{}\n--- notes\n{notes}{}",
        pretty(&summary),
        sealed(&dir)
    ));
}

#[test]
#[ignore = "needs the MCP SDK and the reference servers: TOOLREPLAY_MCP_PYTHON, TOOLREPLAY_MCP_NPM (.ci/run)"]
fn reference_everything_server_killed_under_a_call_is_answered_and_sealed() {
    let dir = everything_dir();
    let (summary, notes) = everything_session(&dir, "crash", Some(&[]));
    assert_snapshot!(format!(
        "{}\n--- notes\n{notes}{}",
        pretty(&summary),
        sealed(&dir)
    ));
}

/// The SDK client's calls through the proxy keep their JSON-RPC ids and the
/// protocol version `initialize` gave beside the seal, and `export --format otlp`
/// puts them in the spans: each span's tool, `jsonrpc.request.id` and
/// `mcp.protocol.version`.
#[test]
#[ignore = "needs the MCP SDK and the reference servers: TOOLREPLAY_MCP_PYTHON, TOOLREPLAY_MCP_NPM (.ci/run)"]
fn reference_filesystem_server_calls_keep_their_request_ids_in_the_exported_spans() {
    let server_command = server("mcp-server-filesystem");
    let dir = filesystem_dir();
    let here = dir.path().display().to_string();
    session(&dir, "filesystem", Some(&[]), &[&server_command, &here]);
    let export = dir.run(&["export", "--format", "otlp", "--mcp", "s.jsonl"]);
    assert_eq!(export.code, 0, "{}", export.text());
    let attribute = |span: &Value, key: &str| {
        span["attributes"]
            .as_array()
            .expect("attributes")
            .iter()
            .find(|attribute| attribute["key"] == key)
            .map_or("-".to_owned(), |attribute| {
                attribute["value"]["stringValue"]
                    .as_str()
                    .expect("a string")
                    .to_owned()
            })
    };
    let table: String = super::export::spans(&export.stdout)
        .iter()
        .map(|span| {
            format!(
                "{} {} {}\n",
                attribute(span, "gen_ai.tool.name"),
                attribute(span, "jsonrpc.request.id"),
                attribute(span, "mcp.protocol.version")
            )
        })
        .collect();
    assert_snapshot!(table);
}
