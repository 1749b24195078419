//! `toolreplay proxy` over MCP's Streamable HTTP transport: the client's side
//! (`--listen`), the server's side (`--upstream`) and both. Raw HTTP against the
//! fake stdio server for the transport's rules; the official MCP Python SDK's
//! Streamable HTTP client and server (tests/mcp/client_http.py, server_http.py;
//! ignored unless TOOLREPLAY_MCP_PYTHON is set, as .ci/run does) for whole
//! sessions. Every sealed file verifies and keeps the live invariant (`sealed`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use insta::assert_snapshot;
use serde_json::Value;

use super::proxy::{Sdk, mcp_dir, pretty, sealed, sealed_in_any_order, unnumbered_late_record};
use super::{Dir, ROOT};

/// How long a test waits for a process to listen, or to end.
const PATIENCE: Duration = Duration::from_secs(30);

/// A proxy listening over HTTP, and its stderr so far.
struct Listening {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`.
    url: String,
    stderr: JoinHandle<String>,
}

impl Listening {
    /// Starts `toolreplay proxy --policy scope.json --seal s.jsonl --listen
    /// 127.0.0.1:0 ARGS` in `dir` and waits for the address it listens on.
    fn start(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Listening {
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolreplay"));
        command.env_clear();
        if let Some(path) = std::env::var_os("PATH") {
            command.env("PATH", path);
        }
        let mut child = command
            .envs(env.iter().copied())
            .current_dir(dir)
            .args(["proxy", "--policy", "scope.json", "--seal", "s.jsonl"])
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the proxy");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let mut first = String::new();
        stderr
            .read_line(&mut first)
            .expect("the proxy's first line");
        let url = first
            .strip_prefix("toolreplay proxy: listening on ")
            .unwrap_or_else(|| panic!("not listening: {first}"))
            .trim()
            .to_owned();
        assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"));
        let stderr = thread::spawn(move || {
            let mut rest = String::new();
            let _ = stderr.read_to_string(&mut rest);
            rest
        });
        Listening { child, url, stderr }
    }

    /// The `host:port` listened on.
    fn address(&self) -> String {
        self.url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_owned()
    }

    /// Waits for the proxy to exit: its exit code and its notes.
    fn wait(mut self) -> (i32, String) {
        let until = Instant::now() + PATIENCE;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status;
            }
            if Instant::now() > until {
                let _ = self.child.kill();
                panic!("the proxy did not exit");
            }
            thread::sleep(Duration::from_millis(20));
        };
        let stderr = self.stderr.join().expect("stderr");
        let notes = stderr
            .lines()
            .filter(|line| line.starts_with("toolreplay proxy:") || line.starts_with("error:"))
            .map(|line| format!("{line}\n"))
            .collect();
        (status.code().unwrap_or(-1), notes)
    }

    fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success());
    }
}

/// One HTTP/1.1 exchange with `address`: the status line, the headers named in
/// `shown` (an `Mcp-Session-Id` as `<session>`), and the body (de-chunked).
fn http(address: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut stream = TcpStream::connect(address).expect("connect to the proxy");
    stream.set_read_timeout(Some(PATIENCE)).expect("a timeout");
    let mut request =
        format!("{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(request.as_bytes()).expect("send");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("read the answer");
    let answer = String::from_utf8(answer).expect("UTF-8");
    let (head, body) = answer.split_once("\r\n\r\n").expect("a head");
    let mut lines = head.lines();
    let status = lines.next().expect("a status line");
    let mut shown = format!("{method} {path} -> {status}\n");
    let mut chunked = false;
    for line in lines {
        let (name, value) = line.split_once(": ").expect("a header");
        match name.to_ascii_lowercase().as_str() {
            "content-type" | "allow" => shown.push_str(&format!("  {name}: {value}\n")),
            "mcp-session-id" => {
                assert_eq!(value.len(), 32, "a session id of 32 hex digits");
                shown.push_str(&format!("  {name}: <session>\n"));
            }
            "transfer-encoding" => chunked = value == "chunked",
            _ => {}
        }
    }
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    for line in body.lines() {
        shown.push_str(&format!("  | {line}\n"));
    }
    shown
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        if size == 0 {
            break;
        }
        out.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
    out
}

/// The session id a proxy gave with its `initialize` answer.
fn session_id(address: &str, revision: &str) -> String {
    let mut stream = TcpStream::connect(address).expect("connect to the proxy");
    stream.set_read_timeout(Some(PATIENCE)).expect("a timeout");
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{revision}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    );
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nAccept: application/json\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read");
    answer
        .lines()
        .find_map(|line| line.strip_prefix("mcp-session-id: "))
        .expect("a session id")
        .trim()
        .to_owned()
}

const JSON: (&str, &str) = ("Content-Type", "application/json");
const BOTH: (&str, &str) = ("Accept", "application/json, text/event-stream");

fn fake_dir() -> Dir {
    let dir = Dir::new();
    dir.write(
        "scope.json",
        r#"{"agent": "tester", "allowed_tools": ["echo", "sleep"], "policy_version": 1,
            "budgets": {"per_tool": {"echo": 2}}}"#,
    );
    dir
}

fn fake_server() -> String {
    Path::new(ROOT)
        .join("tests/fixtures/proxy/fake_server.py")
        .display()
        .to_string()
}

#[test]
fn a_session_over_http_is_served_by_the_rules_of_the_transport() {
    let dir = fake_dir();
    let server = fake_server();
    let proxy = Listening::start(dir.path(), &["--", "python3", &server], &[]);
    let address = proxy.address();
    let call = |id: u64, tool: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{"n":{id}}}}}}}"#
        )
    };
    let mut text = String::new();
    // Before the session: no GET stream, and nothing but /mcp.
    text += &http(
        &address,
        "GET",
        "/mcp",
        &[("Accept", "text/event-stream")],
        "",
    );
    text += &http(&address, "POST", "/other", &[JSON, BOTH], "{}");
    // A page of another site (DNS rebinding) is refused.
    text += &http(
        &address,
        "POST",
        "/mcp",
        &[JSON, BOTH, ("Origin", "https://evil.example")],
        &call(1, "echo"),
    );
    text += &http(
        &address,
        "POST",
        "/mcp",
        &[JSON, BOTH, ("MCP-Protocol-Version", "1999-01-01")],
        &call(1, "echo"),
    );
    text += &http(
        &address,
        "POST",
        "/mcp",
        &[JSON, ("Accept", "text/html")],
        &call(1, "echo"),
    );
    text += &http(&address, "POST", "/mcp", &[JSON, BOTH], "not json");
    let session = session_id(&address, "2025-06-18");
    let with = |extra: &[(&'static str, &'static str)]| -> Vec<(&str, &str)> {
        let mut headers = vec![
            JSON,
            BOTH,
            ("Mcp-Session-Id", session.as_str()),
            ("MCP-Protocol-Version", "2025-06-18"),
        ];
        headers.extend_from_slice(extra);
        headers
    };
    text += &http(
        &address,
        "POST",
        "/mcp",
        &[JSON, BOTH],
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    text += &http(
        &address,
        "POST",
        "/mcp",
        &[JSON, BOTH, ("Mcp-Session-Id", "0123")],
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    text += &http(
        &address,
        "POST",
        "/mcp",
        &with(&[]),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    // Answers as an SSE stream, or as JSON to a client that takes only JSON.
    text += &http(&address, "POST", "/mcp", &with(&[]), &call(2, "echo"));
    let json_only: Vec<(&str, &str)> = with(&[])
        .into_iter()
        .map(|h| {
            if h.0 == "Accept" {
                ("Accept", "application/json")
            } else {
                h
            }
        })
        .collect();
    text += &http(&address, "POST", "/mcp", &json_only, &call(3, "echo"));
    // Denied: over its budget, and out of scope.
    text += &http(&address, "POST", "/mcp", &json_only, &call(4, "echo"));
    text += &http(
        &address,
        "POST",
        "/mcp",
        &json_only,
        &call(5, "delete_repository"),
    );
    // A batch (2025-03-26) is answered as one.
    text += &http(
        &address,
        "POST",
        "/mcp",
        &json_only,
        &format!("[{},{}]", call(6, "sleep"), call(7, "nope")),
    );
    text += &http(
        &address,
        "POST",
        "/mcp",
        &with(&[]),
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#,
    );
    text += &http(&address, "PUT", "/mcp", &with(&[]), "");
    text += &http(&address, "DELETE", "/mcp", &with(&[]), "");
    let (code, notes) = proxy.wait();
    assert_snapshot!(format!(
        "{text}exit: {code}\n--- notes\n{notes}{}",
        sealed(&dir)
    ));
}

#[test]
fn a_stateless_session_over_http_has_no_session_and_ends_by_signal() {
    let dir = fake_dir();
    let server = fake_server();
    let proxy = Listening::start(dir.path(), &["--", "python3", &server], &[]);
    let address = proxy.address();
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
    let mut text = String::new();
    let headers = [
        JSON,
        BOTH,
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
    ];
    text += &http(
        &address,
        "POST",
        "/mcp",
        &headers,
        &format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{}},{meta}}}}}"#
        ),
    );
    text += &http(
        &address,
        "POST",
        "/mcp",
        &[JSON, BOTH, ("Mcp-Method", "tools/list")],
        &format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"echo","arguments":{{}},{meta}}}}}"#
        ),
    );
    text += &http(
        &address,
        "GET",
        "/mcp",
        &[("Accept", "text/event-stream")],
        "",
    );
    text += &http(&address, "DELETE", "/mcp", &[], "");
    proxy.terminate();
    let (code, notes) = proxy.wait();
    assert_snapshot!(format!(
        "{text}exit: {code}\n--- notes\n{notes}{}",
        sealed(&dir)
    ));
}

#[test]
fn a_proxy_with_a_bad_address_or_url_says_why_and_exits_2() {
    let dir = fake_dir();
    let mut text = String::new();
    for args in [
        &["--listen", "example.com:80", "--", "true"][..],
        &["--listen", "127.0.0.1:99999", "--", "true"],
        &["--upstream", "ftp://example.com/mcp"],
        &["--upstream", "https://user:secret@example.com/mcp"],
        &["--upstream", "http://127.0.0.1:1/mcp", "--", "true"],
    ] {
        let mut all = vec!["proxy", "--policy", "scope.json", "--seal", "s.jsonl"];
        all.extend_from_slice(args);
        let run = dir.run(&all);
        text.push_str(&format!("$ toolreplay {}\n{}", all.join(" "), run.text()));
    }
    assert_eq!(dir.entries(), ["scope.json"]);
    assert_snapshot!(text);
}

// --- the official MCP Python SDK over Streamable HTTP

/// A free port of 127.0.0.1 (bound, then let go).
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

/// tests/mcp/server_http.py serving `dir` at `http://127.0.0.1:PORT/mcp`; killed
/// when dropped.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(dir: &Dir, args: &[&str], env: &[(&str, &str)]) -> HttpServer {
        HttpServer::start_of(Sdk::V1, dir, args, env)
    }

    /// [`HttpServer::start`] with the SDK `sdk` (server2_http.py for 2.x).
    fn start_of(sdk: Sdk, dir: &Dir, args: &[&str], env: &[(&str, &str)]) -> HttpServer {
        let port = free_port();
        let script = match sdk {
            Sdk::V1 => "tests/mcp/server_http.py",
            Sdk::V2 => "tests/mcp/server2_http.py",
        };
        let mut command = Command::new(sdk.python());
        command.env_clear();
        if let Some(path) = std::env::var_os("PATH") {
            command.env("PATH", path);
        }
        let child = command
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .envs(env.iter().copied())
            .current_dir(dir.path())
            .arg(Path::new(ROOT).join(script))
            .arg(port.to_string())
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the HTTP server");
        let until = Instant::now() + PATIENCE;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < until, "the HTTP server did not listen");
            thread::sleep(Duration::from_millis(50));
        }
        HttpServer {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs a Python script of tests/mcp/ with the SDK in `dir`: its summary (JSON
/// on stdout) and its stderr.
fn python(dir: &Dir, args: &[&str], env: &[(&str, &str)]) -> (Value, String) {
    python_of(Sdk::V1, dir, args, env)
}

/// [`python`] with the SDK `sdk`.
fn python_of(sdk: Sdk, dir: &Dir, args: &[&str], env: &[(&str, &str)]) -> (Value, String) {
    let mut command = Command::new(sdk.python());
    command.env_clear();
    if let Some(path) = std::env::var_os("PATH") {
        command.env("PATH", path);
    }
    // client_http.py imports client.py: no bytecode left in the tree.
    let output = command
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .envs(env.iter().copied())
        .current_dir(dir.path())
        .args(args)
        .output()
        .expect("run the MCP client");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "the client failed:\n{stderr}");
    let summary = serde_json::from_slice(&output.stdout).expect("the client's summary");
    (summary, stderr)
}

fn script(name: &str) -> String {
    Path::new(ROOT)
        .join("tests/mcp")
        .join(name)
        .display()
        .to_string()
}

/// The HTTP client playing `scenario` against `url` with `headers` (NAME=VALUE).
fn http_client(dir: &Dir, scenario: &str, url: &str, headers: &[&str]) -> Value {
    let client = script("client_http.py");
    let mut args = vec![client.as_str(), scenario, url];
    args.extend_from_slice(headers);
    python(dir, &args, &[]).0
}

/// The stdio client playing `scenario` through `toolreplay proxy ARGS`: its
/// summary and the proxy's notes.
fn stdio_client(dir: &Dir, scenario: &str, args: &[&str]) -> (Value, String) {
    let client = script("client.py");
    let mut all = vec![
        client.as_str(),
        scenario,
        "--",
        env!("CARGO_BIN_EXE_toolreplay"),
        "proxy",
        "--policy",
        "scope.json",
        "--seal",
        "s.jsonl",
    ];
    all.extend_from_slice(args);
    let (summary, stderr) = python(dir, &all, &[]);
    let notes = stderr
        .lines()
        .filter(|line| line.starts_with("toolreplay proxy:"))
        .map(|line| format!("{line}\n"))
        .collect();
    (summary, notes)
}

/// The results the stdio client sees straight from the stdio server.
fn direct(scenario: &str) -> Value {
    let dir = mcp_dir();
    let (client, server) = (script("client.py"), script("server.py"));
    let python_path = Sdk::V1.python();
    python(&dir, &[&client, scenario, "--", &python_path, &server], &[]).0
}

/// The allowed calls of `summary` give what the server gives without the proxy,
/// and tools/list is the server's own.
fn same_as_direct(summary: &Value, direct: &Value, dir: &Dir) {
    assert_eq!(summary["tools"], direct["tools"]);
    let links: Vec<Value> = String::from_utf8(dir.read("s.jsonl"))
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a link"))
        .collect();
    let calls = summary["calls"].as_array().expect("calls");
    let straight = direct["calls"].as_array().expect("calls");
    assert_eq!(calls.len(), straight.len());
    let mut allowed = 0;
    for ((through, straight), link) in calls.iter().zip(straight).zip(&links) {
        if link["response"].get("toolreplay").is_none() && through["tool"] != "get_secret" {
            assert_eq!(through["result"], straight["result"]);
            allowed += 1;
        }
    }
    assert_eq!(allowed, 4);
}

#[test]
#[ignore = "needs the MCP SDK: TOOLREPLAY_MCP_PYTHON (.ci/run)"]
fn mcp_http_sdk_an_http_client_through_the_proxy_to_a_stdio_server() {
    let dir = mcp_dir();
    let (python_path, server) = (Sdk::V1.python(), script("server.py"));
    let proxy = Listening::start(dir.path(), &["--", &python_path, &server], &[]);
    let summary = http_client(&dir, "conversation", &proxy.url, &[]);
    let (code, notes) = proxy.wait();
    same_as_direct(&summary, &direct("conversation"), &dir);
    assert!(!dir.entries().contains(&"outbox.jsonl".to_owned()));
    assert_snapshot!(format!(
        "{}\nexit: {code}\n--- notes\n{notes}{}",
        pretty(&summary["calls"]),
        sealed(&dir)
    ));
}

#[test]
#[ignore = "needs the MCP SDK: TOOLREPLAY_MCP_PYTHON (.ci/run)"]
fn mcp_http_sdk_a_stdio_client_through_the_proxy_to_an_http_server() {
    let dir = mcp_dir();
    let server = HttpServer::start(&dir, &[], &[]);
    let (summary, notes) = stdio_client(&dir, "conversation", &["--upstream", &server.url]);
    same_as_direct(&summary, &direct("conversation"), &dir);
    assert!(!dir.entries().contains(&"outbox.jsonl".to_owned()));
    assert_snapshot!(format!(
        "{}\n--- notes\n{notes}{}",
        pretty(&summary["calls"]),
        sealed(&dir)
    ));
}

#[test]
#[ignore = "needs the MCP SDK: TOOLREPLAY_MCP_PYTHON (.ci/run)"]
fn mcp_http_sdk_http_to_http_passes_credentials_on_and_never_records_them() {
    let dir = mcp_dir();
    let server = HttpServer::start(&dir, &[], &[]);
    let proxy = Listening::start(dir.path(), &["--upstream", &server.url], &[]);
    let summary = http_client(
        &dir,
        "conversation",
        &proxy.url,
        &["Authorization=Bearer tok-3f9a1c", "X-API-Key=key-77e2b0"],
    );
    let (code, notes) = proxy.wait();
    same_as_direct(&summary, &direct("conversation"), &dir);
    // Every request reached the server with the client's credentials.
    let seen = String::from_utf8(dir.read("headers.log")).expect("UTF-8");
    assert!(seen.contains("POST authorization: Bearer tok-3f9a1c\nPOST x-api-key: key-77e2b0\n"));
    assert!(seen.contains("DELETE authorization: Bearer tok-3f9a1c\n"));
    // The GET stream of the server's own messages too.
    assert!(seen.contains("GET authorization: Bearer tok-3f9a1c\n"));
    // Nothing the proxy wrote holds them.
    for name in dir.entries() {
        if name.starts_with("s.jsonl") {
            let bytes = String::from_utf8_lossy(&dir.read(&name)).into_owned();
            assert!(
                !bytes.contains("tok-3f9a1c") && !bytes.contains("key-77e2b0"),
                "{name}"
            );
        }
    }
    assert!(!notes.contains("tok-3f9a1c") && !notes.contains("key-77e2b0"));
    assert_snapshot!(format!(
        "{}\nexit: {code}\n--- notes\n{notes}{}",
        pretty(&summary["calls"]),
        sealed(&dir)
    ));
}

#[test]
#[ignore = "needs the MCP SDK: TOOLREPLAY_MCP_PYTHON (.ci/run)"]
fn mcp_http_sdk_http_to_http_a_call_past_its_timeout_is_cancelled_on_the_server() {
    let dir = mcp_dir();
    let server = HttpServer::start(&dir, &[], &[]);
    let proxy = Listening::start(
        dir.path(),
        &["--call-timeout", "1s", "--upstream", &server.url],
        &[],
    );
    let summary = http_client(&dir, "timeout", &proxy.url, &[]);
    let (code, notes) = proxy.wait();
    let events = String::from_utf8(dir.read("events.log")).expect("UTF-8");
    assert_snapshot!(format!(
        "{}\nexit: {code}\n--- notes\n{}--- events.log\n{events}{}",
        pretty(&summary["calls"]),
        unnumbered_late_record(&notes),
        sealed_in_any_order(&dir)
    ));
}

#[test]
#[ignore = "needs the MCP SDK: TOOLREPLAY_MCP_PYTHON (.ci/run)"]
fn mcp_http_sdk_http_to_http_a_call_the_client_cancels_is_sealed_as_cancelled() {
    let dir = mcp_dir();
    let server = HttpServer::start(&dir, &[], &[]);
    let proxy = Listening::start(dir.path(), &["--upstream", &server.url], &[]);
    let summary = http_client(&dir, "cancel", &proxy.url, &[]);
    let (code, notes) = proxy.wait();
    let events = String::from_utf8(dir.read("events.log")).expect("UTF-8");
    assert_snapshot!(format!(
        "{}\ncancelled: {}\nexit: {code}\n--- notes\n{notes}--- events.log\n{events}{}",
        pretty(&summary["calls"]),
        summary["cancelled"],
        sealed(&dir)
    ));
}

#[test]
#[ignore = "needs the MCP SDK: TOOLREPLAY_MCP_PYTHON (.ci/run)"]
fn mcp_http_sdk_a_crashed_http_server_fails_the_call_and_it_is_sealed() {
    let dir = mcp_dir();
    let server = HttpServer::start(&dir, &[], &[]);
    let (summary, notes) = stdio_client(&dir, "crash", &["--upstream", &server.url]);
    // The connection's end is the server's to say: one cause or another.
    let sealed_text = sealed(&dir);
    let cause = |text: &str| match text.split_once("cut short (") {
        Some((before, after)) => {
            let after = after.split_once(')').map_or("", |(_, rest)| rest);
            format!("{before}cut short (...){after}")
        }
        None => text.to_owned(),
    };
    assert_snapshot!(format!(
        "{}\n--- notes\n{}{}",
        cause(&pretty(&summary["calls"])),
        cause(&notes),
        cause(&sealed_text)
    ));
}

#[test]
#[ignore = "needs the MCP SDK: TOOLREPLAY_MCP_PYTHON (.ci/run)"]
fn mcp_http_sdk_a_redirect_to_another_origin_is_never_followed_and_is_sealed() {
    let dir = mcp_dir();
    let server = HttpServer::start(&dir, &["--redirect", "http://127.0.0.1:1/mcp"], &[]);
    let (summary, notes) = stdio_client(&dir, "conversation", &["--upstream", &server.url]);
    // Each read_file is redirected and fails; each attempt counts against the
    // budget all the same (the fifth is denied).
    assert_snapshot!(format!(
        "{}\n--- notes\n{notes}{}",
        pretty(&summary["calls"][0]),
        sealed(&dir)
    ));
}

#[test]
#[ignore = "needs the MCP SDK: TOOLREPLAY_MCP_PYTHON (.ci/run)"]
fn mcp_http_sdk_http_to_http_a_changed_tool_is_refused_against_the_pins() {
    assert_snapshot!(pins_over_http(Sdk::V1));
}

/// Two sessions HTTP to HTTP with `sdk`, pinning the server's tools with the first;
/// the second server changes a tool's definition: what each client saw and the
/// sealed file.
fn pins_over_http(sdk: Sdk) -> String {
    let dir = mcp_dir();
    let mut text = String::new();
    for rug_pull in [false, true] {
        let env: &[(&str, &str)] = if rug_pull {
            &[("MCP_RUG_PULL", "1")]
        } else {
            &[]
        };
        let server = HttpServer::start_of(sdk, &dir, &[], env);
        let proxy = Listening::start(
            dir.path(),
            &["--pin", "pins.json", "--upstream", &server.url],
            &[],
        );
        let summary = match sdk {
            Sdk::V1 => http_client(&dir, "pin", &proxy.url, &[]),
            // Stateless: no session to delete; the proxy runs until it is stopped.
            Sdk::V2 => {
                let summary = client2(&dir, "pin", &proxy.url);
                proxy.terminate();
                summary
            }
        };
        let (code, notes) = proxy.wait();
        let names: Vec<String> = summary["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|tool| tool["name"].to_string())
            .collect();
        text.push_str(&format!(
            "tools: {}\n{}\nexit: {code}\n--- notes\n{notes}",
            names.join(", "),
            pretty(&summary["calls"])
        ));
    }
    format!("{text}{}", sealed(&dir))
}

// --- the reference server `server-everything` over Streamable HTTP

/// The directory of the MCP reference servers' commands (`npm ci --prefix
/// tests/mcp/npm`), from TOOLREPLAY_MCP_NPM.
fn npm_bin() -> String {
    std::env::var("TOOLREPLAY_MCP_NPM").unwrap_or_else(|_| {
        panic!("TOOLREPLAY_MCP_NPM: the node_modules/.bin of tests/mcp/npm (.ci/run sets it)")
    })
}

#[test]
#[ignore = "needs the MCP SDK and the npm reference servers: TOOLREPLAY_MCP_PYTHON, TOOLREPLAY_MCP_NPM (.ci/run)"]
fn mcp_http_sdk_http_to_http_in_front_of_server_everything() {
    let dir = Dir::new();
    dir.write(
        "scope.json",
        r#"{"agent": "assistant", "policy_version": 1,
            "allowed_tools": ["echo", "get-sum", "get-env", "trigger-long-running-operation",
                              "trigger-sampling-request", "trigger-elicitation-request"],
            "response_detectors": ["secrets"]}"#,
    );
    let port = free_port();
    let mut command = Command::new(Path::new(&npm_bin()).join("mcp-server-everything"));
    command.env_clear();
    if let Some(path) = std::env::var_os("PATH") {
        command.env("PATH", path);
    }
    // get-env gives the server's environment: a key in it is withheld.
    let mut server = command
        .env("PORT", port.to_string())
        .env("DEPLOY_KEY", "AKIAIOSFODNN7EXAMPLE")
        .arg("streamableHttp")
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start server-everything");
    let until = Instant::now() + PATIENCE;
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < until, "server-everything did not listen");
        thread::sleep(Duration::from_millis(50));
    }
    let upstream = format!("http://127.0.0.1:{port}/mcp");
    let proxy = Listening::start(dir.path(), &["--upstream", &upstream], &[]);
    let summary = http_client(&dir, "everything", &proxy.url, &[]);
    let (code, notes) = proxy.wait();
    let _ = server.kill();
    let _ = server.wait();
    // Progress notifications came on the call's SSE stream before its answer.
    assert_eq!(summary["progress"], serde_json::json!([1.0, 2.0]));
    // The server's sampling and elicitation requests reached the client, and its
    // answers the server.
    assert_eq!(
        summary["server_requests"]["elicitation"],
        serde_json::json!(["Please provide inputs for the following fields:"])
    );
    assert_eq!(
        summary["server_requests"]["sampling"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    let texts: Vec<String> = summary["calls"].as_array().expect("calls")[5..]
        .iter()
        .map(|call| call["result"]["content"][0]["text"].to_string())
        .collect();
    assert!(texts[0].contains("an old silent pond"), "{texts:?}");
    assert!(
        texts[1].contains("User provided the requested information"),
        "{texts:?}"
    );
    let sealed_text = sealed(&dir);
    let shown: Vec<String> = sealed_text
        .lines()
        .map(|line| match line.find(" -> ") {
            // The answers of get-env and of the long operation hold the machine's
            // environment and timing: only their shape is shown.
            Some(at) if line.contains("\"get-env\"") || line.contains("long-running") => {
                let response: Value = serde_json::from_str(&line[at + 4..]).expect("JSON");
                let keys: Vec<&String> = response
                    .as_object()
                    .map(|object| object.keys().collect())
                    .unwrap_or_default();
                format!("{} -> keys {keys:?}", &line[..at])
            }
            _ => line.to_owned(),
        })
        .collect();
    assert_snapshot!(format!(
        "{}\nexit: {code}\n--- notes\n{notes}{}\n",
        pretty(&Value::Array(
            summary["calls"].as_array().expect("calls")[..4].to_vec()
        )),
        shown.join("\n")
    ));
}

// --- the official MCP Python SDK 2.x over Streamable HTTP: the stateless revision

#[test]
#[ignore = "needs the MCP SDK 2.x: TOOLREPLAY_MCP2_PYTHON (.ci/run)"]
fn mcp2_http_sdk_http_to_http_a_stateless_conversation() {
    let dir = mcp_dir();
    let server = HttpServer::start_of(Sdk::V2, &dir, &[], &[]);
    let proxy = Listening::start(dir.path(), &["--upstream", &server.url], &[]);
    let client = script("client2_http.py");
    let (summary, _) = python_of(Sdk::V2, &dir, &[&client, "conversation", &proxy.url], &[]);
    // Stateless: no session to delete; the proxy runs until it is stopped.
    proxy.terminate();
    let (code, notes) = proxy.wait();
    assert_eq!(summary["protocolVersion"], "2026-07-28");
    assert!(!dir.entries().contains(&"outbox.jsonl".to_owned()));
    assert_snapshot!(format!(
        "{}\nexit: {code}\n--- notes\n{notes}{}",
        pretty(&summary["calls"]),
        sealed(&dir)
    ));
}

#[test]
#[ignore = "needs the MCP SDK 2.x: TOOLREPLAY_MCP2_PYTHON (.ci/run)"]
fn mcp2_http_sdk_http_to_http_a_call_past_its_timeout_is_cancelled_on_the_server() {
    let dir = mcp_dir();
    let server = HttpServer::start_of(Sdk::V2, &dir, &[], &[]);
    let proxy = Listening::start(
        dir.path(),
        &["--call-timeout", "1s", "--upstream", &server.url],
        &[],
    );
    let client = script("client2_http.py");
    let (summary, _) = python_of(Sdk::V2, &dir, &[&client, "timeout", &proxy.url], &[]);
    proxy.terminate();
    let (code, notes) = proxy.wait();
    let events = String::from_utf8(dir.read("events.log")).expect("UTF-8");
    assert_snapshot!(format!(
        "{}\nexit: {code}\n--- notes\n{}--- events.log\n{events}{}",
        pretty(&summary["calls"]),
        unnumbered_late_record(&notes),
        sealed_in_any_order(&dir)
    ));
}

/// The SDK 2.x client playing `scenario` against the proxy at `url`.
fn client2(dir: &Dir, scenario: &str, url: &str) -> Value {
    let client = script("client2_http.py");
    python_of(Sdk::V2, dir, &[&client, scenario, url], &[]).0
}

#[test]
#[ignore = "needs the MCP SDK 2.x: TOOLREPLAY_MCP2_PYTHON (.ci/run)"]
fn mcp2_http_sdk_http_to_http_a_call_the_client_cancels_is_sealed_as_cancelled() {
    let dir = mcp_dir();
    let server = HttpServer::start_of(Sdk::V2, &dir, &[], &[]);
    let proxy = Listening::start(dir.path(), &["--upstream", &server.url], &[]);
    let summary = client2(&dir, "cancel", &proxy.url);
    proxy.terminate();
    let (code, notes) = proxy.wait();
    assert_eq!(summary["cancelled"], true);
    // Closing the request's stream is its cancellation in 2026-07-28: the proxy
    // seals the call cancelled and closes its own request to the server, which
    // stops the call.
    let events = String::from_utf8(dir.read("events.log")).expect("UTF-8");
    assert_snapshot!(format!(
        "{}\nexit: {code}\n--- notes\n{notes}--- events.log\n{events}{}",
        pretty(&summary["calls"]),
        sealed_in_any_order(&dir)
    ));
}

#[test]
#[ignore = "needs the MCP SDK 2.x: TOOLREPLAY_MCP2_PYTHON (.ci/run)"]
fn mcp2_http_sdk_http_to_http_a_crashed_server_fails_the_call_and_it_is_sealed() {
    let dir = mcp_dir();
    let server = HttpServer::start_of(Sdk::V2, &dir, &[], &[]);
    let proxy = Listening::start(dir.path(), &["--upstream", &server.url], &[]);
    let summary = client2(&dir, "crash", &proxy.url);
    proxy.terminate();
    let (code, notes) = proxy.wait();
    // The connection's end is the server's to say: one cause or another.
    let cause = |text: &str| match text.split_once("cut short (") {
        Some((before, after)) => {
            let after = after.split_once(')').map_or("", |(_, rest)| rest);
            format!("{before}cut short (...){after}")
        }
        None => text.to_owned(),
    };
    assert_snapshot!(cause(&format!(
        "{}\nexit: {code}\n--- notes\n{notes}{}",
        pretty(&summary["calls"]),
        sealed(&dir)
    )));
}

#[test]
#[ignore = "needs the MCP SDK 2.x: TOOLREPLAY_MCP2_PYTHON (.ci/run)"]
fn mcp2_http_sdk_http_to_http_a_changed_tool_is_refused_against_the_pins() {
    assert_snapshot!(pins_over_http(Sdk::V2));
}

#[test]
#[ignore = "needs the MCP SDK: TOOLREPLAY_MCP_PYTHON (.ci/run)"]
fn mcp_http_sdk_an_http_client_sees_its_stdio_server_crash_and_the_proxy_exits_3() {
    let dir = mcp_dir();
    let (python_path, server) = (Sdk::V1.python(), script("server.py"));
    let proxy = Listening::start(dir.path(), &["--", &python_path, &server], &[]);
    let summary = http_client(&dir, "crash", &proxy.url, &[]);
    let (code, notes) = proxy.wait();
    assert_snapshot!(format!(
        "{}\nexit: {code}\n--- notes\n{notes}{}",
        pretty(&summary["calls"]),
        sealed(&dir)
    ));
}
