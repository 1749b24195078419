//! `toolreplay scope` with a policy: argument rules, budgets, response detectors and
//! flows, alone and together, and the errors of a bad policy file.

use insta::assert_snapshot;
use serde_json::{Value, json};

use super::{Dir, Run, lines, record, run_in_root};

/// `scope t.jsonl scope.json` with those two files, and `extra` arguments.
fn scope_of(transcript: &str, scope: &str, extra: &[&str]) -> Run {
    let dir = Dir::new();
    dir.write("t.jsonl", transcript);
    dir.write("scope.json", scope);
    let mut args = vec!["scope", "t.jsonl", "scope.json"];
    args.extend_from_slice(extra);
    dir.run(&args)
}

/// A scope file for an agent allowed `tools`, with the policy fields `rules` (an
/// object) and `"policy_version": 1`.
fn policy(tools: &[&str], rules: Value) -> String {
    let mut scope = json!({"agent": "agent", "allowed_tools": tools, "policy_version": 1});
    if let (Some(scope), Some(rules)) = (scope.as_object_mut(), rules.as_object()) {
        for (key, value) in rules {
            scope.insert(key.clone(), value.clone());
        }
    }
    serde_json::to_string_pretty(&scope).expect("JSON")
}

/// A transcript of calls `(tool, args, response)`, args and response as JSON text.
fn calls(calls: &[(&str, &str, &str)]) -> String {
    let records: Vec<String> = calls
        .iter()
        .enumerate()
        .map(|(i, (tool, args, response))| record(i as u64, tool, args, response))
        .collect();
    lines(&records.iter().map(String::as_str).collect::<Vec<_>>())
}

/// `scope` of `calls` against a policy for the tools those calls name.
fn check(rules: Value, transcript: &[(&str, &str, &str)]) -> String {
    let mut tools: Vec<&str> = transcript.iter().map(|c| c.0).collect();
    tools.sort_unstable();
    tools.dedup();
    scope_of(&calls(transcript), &policy(&tools, rules), &[]).text()
}

/// A JSON string literal of `text`.
fn s(text: &str) -> String {
    serde_json::to_string(text).expect("JSON")
}

// --- versioning and the plain path

#[test]
fn a_policy_version_without_rules_reports_as_a_plain_scope() {
    let transcript = calls(&[("read_file", "{}", "{}"), ("write_file", "{}", "{}")]);
    let plain = scope_of(
        &transcript,
        r#"{"agent": "agent", "allowed_tools": ["read_file"]}"#,
        &[],
    );
    let versioned = scope_of(
        &transcript,
        r#"{"agent": "agent", "allowed_tools": ["read_file"], "policy_version": 1}"#,
        &[],
    );
    assert_eq!(plain.text(), versioned.text());
    assert_snapshot!(versioned.text());
}

#[test]
fn policy_fields_without_a_version_are_unknown_fields() {
    let run = scope_of(
        "",
        r#"{"agent": "a", "allowed_tools": [], "budgets": {"total": 1}}"#,
        &[],
    );
    assert_snapshot!(run.text());
}

#[test]
fn empty_rules_find_nothing() {
    assert_snapshot!(check(
        json!({"budgets": {}, "tools": {"read_file": {}}, "flows": [], "response_detectors": []}),
        &[(
            "read_file",
            r#"{"path": "/etc/shadow"}"#,
            r#"{"text": "ana@example.com"}"#
        )],
    ));
}

// --- argument rules: schema

#[test]
fn args_schema_violations_name_the_argument_and_keyword() {
    let schema = json!({"tools": {"read_file": {"args_schema": {
        "type": "object",
        "properties": {
            "path": {"type": "string", "pattern": "^[a-z/]+$"},
            "limit": {"type": "integer", "maximum": 10}
        },
        "required": ["path"],
        "additionalProperties": false
    }}}});
    assert_snapshot!(check(
        schema,
        &[
            ("read_file", r#"{"path": "docs/a"}"#, "{}"),
            ("read_file", r#"{"path": "Docs"}"#, "{}"),
            ("read_file", r#"{"path": "a", "limit": 11}"#, "{}"),
            ("read_file", r#"{"limit": 1}"#, "{}"),
            ("read_file", r#"{"path": "a", "mode": "w"}"#, "{}"),
            ("read_file", r#"{"path": 7, "limit": 2.5}"#, "{}"),
        ],
    ));
}

/// An integer no 64-bit float holds cannot be evaluated by the schema: the call is a
/// violation, whatever else its arguments hold, never a check skipped. Integers
/// beyond 64 bits that a float holds are evaluated as that float.
#[test]
fn arguments_the_schema_cannot_evaluate_are_a_violation() {
    let schema = json!({"tools": {"run_command": {"args_schema": {
        "type": "object",
        "properties": {"cmd": {"const": "ls"}, "n": {"type": "integer"}}
    }}}});
    let huge = format!("1{}", "0".repeat(400));
    let args = [
        format!(r#"{{"cmd": "rm -rf /", "n": {huge}}}"#),
        format!(r#"{{"cmd": "ls", "n": -{huge}}}"#),
        format!(r#"{{"cmd": "ls", "more": [1, {{"a/b": {huge}}}], "n": {huge}}}"#),
        format!(r#"{{"cmd": "ls", "n": 1{}}}"#, "0".repeat(30)),
        format!(r#"{{"cmd": "ls", "n": 1{}}}"#, "0".repeat(307)),
        r#"{"cmd": "ls", "n": 1.5}"#.to_owned(),
    ];
    let transcript: Vec<(&str, &str, &str)> = args
        .iter()
        .map(|a| ("run_command", a.as_str(), "{}"))
        .collect();
    assert_snapshot!(check(schema, &transcript));
}

// --- argument rules: paths

#[test]
fn paths_are_normalised_before_globs() {
    let rules = json!({"tools": {"read_file": {"paths": [{
        "args": ["/path"],
        "allow": ["docs/**", "*.md", "~/notes/*"],
        "deny": ["**/.env", "**/*.pem", "~/.ssh/**"]
    }]}}});
    let paths = [
        "docs/intro.md",
        "docs/../.env",
        "docs/..foo",
        "a/b/../c",
        "./docs/./guide/../intro.md",
        "docs//keys/server.pem",
        "../outside.md",
        "docs/../../outside.md",
        "/etc/passwd",
        "/../docs/a.md",
        "~/.ssh/id_rsa",
        "~/notes/todo.txt",
        "~/../root/x",
        "README.md",
        "src/README.md",
        "",
    ];
    let transcript: Vec<(String, String)> = paths
        .iter()
        .map(|p| (format!("{{\"path\": {}}}", s(p)), "{}".to_owned()))
        .collect();
    let transcript: Vec<(&str, &str, &str)> = transcript
        .iter()
        .map(|(a, r)| ("read_file", a.as_str(), r.as_str()))
        .collect();
    assert_snapshot!(check(rules, &transcript));
}

#[test]
fn a_root_makes_absolute_paths_relative_and_others_outside() {
    let rules = json!({"tools": {"read_file": {"paths": [{
        "args": ["/path", "/more"],
        "root": "/work/project/",
        "allow": ["docs/**"]
    }]}}});
    assert_snapshot!(check(
        rules,
        &[
            ("read_file", r#"{"path": "/work/project/docs/a.md"}"#, "{}"),
            (
                "read_file",
                r#"{"path": "/work/project/../secret/docs/a"}"#,
                "{}"
            ),
            ("read_file", r#"{"path": "/work/projectx/docs/a"}"#, "{}"),
            ("read_file", r#"{"path": "/work/project"}"#, "{}"),
            (
                "read_file",
                r#"{"path": "docs/b.md", "more": ["docs/c", "src/d", 5]}"#,
                "{}"
            ),
            ("read_file", r#"{"path": {"nested": "docs/a"}}"#, "{}"),
            ("read_file", r#"{"other": "src/x"}"#, "{}"),
        ],
    ));
}

#[test]
fn argument_pointers_follow_rfc_6901() {
    let rules = json!({"tools": {"copy": {"paths": [{
        "args": ["/files/0/from", "/a~1b", "/m~0n"],
        "deny": ["secret*"]
    }]}}});
    assert_snapshot!(check(
        rules,
        &[(
            "copy",
            r#"{"files": [{"from": "secret.txt"}], "a/b": "secret2", "m~n": "secret3"}"#,
            "{}"
        )],
    ));
}

// --- argument rules: URLs

#[test]
fn url_hosts_are_the_hosts_connected_to() {
    let rules = json!({"tools": {"fetch_url": {"urls": [{
        "args": ["/url"],
        "allow_hosts": ["docs.example.com", "*.trusted.example", "10.0.0.1", "[::1]"],
        "deny_hosts": ["evil.trusted.example"]
    }]}}});
    let urls = [
        "https://docs.example.com/a",
        "https://docs.example.com@evil.example/",
        "https://user:pass@docs.example.com/",
        "HTTPS://DOCS.Example.COM/",
        "https://docs.example.com./",
        "https://docs.example.com:8443/x?y#z",
        "https://docs%2Eexample.com/",
        "https://a.b.trusted.example/",
        "https://trusted.example/",
        "https://evil.trusted.example/",
        "https://EVIL.trusted.example./",
        "https://docs.example.com.evil.example/",
        "http://10.0.0.1/",
        "http://0x0a.0.0.1/",
        "http://167772161/",
        "http://[0:0:0:0:0:0:0:1]:8080/",
        "http://[::2]/",
        "ftp://docs.example.com/",
        "file:///etc/passwd",
        "mailto:ana@docs.example.com",
        "docs.example.com/no-scheme",
        "https://",
        "http://exa mple.com/",
        "https://xn--bcher-kva.example/",
        "https://bücher.example/",
    ];
    let transcript: Vec<String> = urls
        .iter()
        .map(|u| format!("{{\"url\": {}}}", s(u)))
        .collect();
    let transcript: Vec<(&str, &str, &str)> = transcript
        .iter()
        .map(|a| ("fetch_url", a.as_str(), "{}"))
        .collect();
    assert_snapshot!(check(rules, &transcript));
}

#[test]
fn schemes_are_chosen_and_deny_alone_allows_the_rest() {
    let rules = json!({"tools": {"fetch_url": {"urls": [{
        "args": ["/url"],
        "schemes": ["HTTPS", "git+ssh"],
        "deny_hosts": ["*.evil.example", "192.168.0.1"]
    }]}}});
    assert_snapshot!(check(
        rules,
        &[
            ("fetch_url", r#"{"url": "https://anything.example/"}"#, "{}"),
            ("fetch_url", r#"{"url": "http://anything.example/"}"#, "{}"),
            (
                "fetch_url",
                r#"{"url": "git+ssh://git@a.evil.example/repo"}"#,
                "{}"
            ),
            ("fetch_url", r#"{"url": "https://192.168.0.1/"}"#, "{}"),
            ("fetch_url", r#"{"url": "https://evil.example/"}"#, "{}"),
            ("fetch_url", r#"{"url": 42}"#, "{}"),
        ],
    ));
}

// --- budgets

#[test]
fn every_call_past_a_budget_is_a_finding_whatever_its_response() {
    let rules = json!({"budgets": {"total": 4, "per_tool": {"fetch_url": 2, "never": 0}}});
    assert_snapshot!(check(
        rules,
        &[
            ("fetch_url", "{}", r#"{"error": "timeout"}"#),
            ("fetch_url", "{}", r#"{"error": "timeout"}"#),
            ("read_file", "{}", "{}"),
            ("fetch_url", "{}", r#"{"ok": true}"#),
            ("never", "{}", "{}"),
            ("read_file", "{}", "{}"),
        ],
    ));
}

// --- response detectors

/// Each string of `texts` as the response of one call, scanned with `detectors`.
fn responses(detectors: &[&str], texts: &[&str]) -> String {
    let rules = json!({"response_detectors": detectors});
    let responses: Vec<String> = texts
        .iter()
        .map(|t| format!("{{\"text\": {}}}", s(t)))
        .collect();
    let transcript: Vec<(&str, &str, &str)> = responses
        .iter()
        .map(|r| ("read_file", "{}", r.as_str()))
        .collect();
    check(rules, &transcript)
}

#[test]
fn secrets_are_found_and_never_printed() {
    let github = format!("token ghp_{}", "x9Y8".repeat(9));
    let github_fine = format!("github_pat_{}", "Ab3_".repeat(20) + "Zz");
    let gitlab = format!("glpat-{}", "aB3-".repeat(5));
    let slack = format!("xoxb-{}", "1234567890-abc");
    let google = format!("AIza{}", "Sy0_".repeat(8) + "abc");
    let texts = [
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow...",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----",
        "aws AKIAIOSFODNN7EXAMPLE",
        &github,
        &github_fine,
        &gitlab,
        &slack,
        "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX",
        &google,
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
        "api_key = \"q8Zr2Lw9Xv4Tn7Bk1Ms5\"",
        "DB_PASSWORD: 'Xk4pQz9Lm2Rt8Vw1'",
        "client_secret=9f8e7d6c5b4a39281706f5e4",
    ];
    let run = responses(&["secrets"], &texts);
    for secret in ["AKIAIOSFODNN7EXAMPLE", &github[6..], "q8Zr2Lw9", "eyJhbGci"] {
        assert!(!run.contains(secret), "{secret} printed");
    }
    assert_snapshot!(run);
}

#[test]
fn secret_near_misses_are_not_found() {
    let texts = [
        "-----BEGIN PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----",
        "AKIAIOSFODNN7EXAMPL",
        "XAKIAIOSFODNN7EXAMPLE",
        &format!("ghp_{}", "x9Y8".repeat(8)),
        "glpat-short",
        "xoxb-123",
        "the bearer of this letter",
        "Bearer abc",
        "api_key = \"aaaaaaaaaaaaaaaaaaaa\"",
        "token: transcript_buffer_value",
        "password = hunter2",
        "DB_PASSWORD: 'Xk4!pQz9'",
        "client_secret=abcdefabcdefabcdef",
    ];
    assert_snapshot!(responses(&["secrets"], &texts));
}

#[test]
fn personal_data_is_found_with_checks() {
    let texts = [
        "mail ana.lopez+news@mail.example.org today",
        "user@localhost",
        "a@b.c",
        "@example.com",
        "name at example dot com",
        "card 4111 1111 1111 1111",
        "card 4111-1111-1111-1111",
        "amex 378282246310005",
        "card 4111 1111 1111 1112",
        "card 4111-1111 1111-1111",
        "order 1234567812345670",
        "big 41111111111111111111111",
        "call +44 20 7946 0958",
        "call (415) 555-2671",
        "call 415-555-2671",
        "version +1.2",
        "date 2024-06-12 12:30:45",
        "+12 34",
    ];
    assert_snapshot!(responses(&["personal-data"], &texts));
}

#[test]
fn detectors_walk_keys_and_values_with_json_pointers() {
    let rules = json!({
        "custom_detectors": {"ticket": "TICKET-[0-9]{4}"},
        "response_detectors": ["email-address", "ticket", "high-entropy-assignment"]
    });
    let response = r#"{"users": {"ana@example.com": {"note": "TICKET-1234 and bo@example.org"}}, "a/b~c": ["x", "TICKET-9999"], "api_token": "q8Zr2Lw9Xv4Tn7Bk1Ms5", "name": "q8Zr2Lw9Xv4Tn7Bk1Ms5"}"#;
    assert_snapshot!(check(rules, &[("read_file", "{}", response)]));
}

#[test]
fn detectors_are_chosen_per_tool_over_the_default() {
    let rules = json!({
        "response_detectors": ["email-address"],
        "tools": {
            "read_file": {"response_detectors": ["payment-card", "secrets"]},
            "search": {"response_detectors": []},
            "list_dir": {"paths": []}
        }
    });
    let response = r#"{"t": "ana@example.com 4111111111111111 AKIAIOSFODNN7EXAMPLE"}"#;
    assert_snapshot!(check(
        rules,
        &[
            ("read_file", "{}", response),
            ("search", "{}", response),
            ("list_dir", "{}", response),
            ("other", "{}", response),
        ],
    ));
}

#[test]
fn user_regexes_run_in_linear_time_on_hostile_input() {
    let rules = json!({
        "custom_detectors": {"nested": "(a+)+$"},
        "response_detectors": ["nested", "personal-data"]
    });
    let hostile = format!("{}!", "a".repeat(100_000));
    let response = format!("{{\"t\": {}}}", s(&hostile));
    let start = std::time::Instant::now();
    let run = check(rules, &[("read_file", "{}", &response)]);
    assert!(start.elapsed().as_secs() < 20);
    assert_snapshot!(run);
}

// --- flows

#[test]
fn sinks_after_sources_are_flow_violations() {
    let rules = json!({"flows": [
        {"name": "web-to-mail", "sources": ["fetch_url", "read_inbox"], "sinks": ["send_email"]},
        {"name": "web-to-shell", "sources": ["fetch_url"], "sinks": ["run_command", "fetch_url"]}
    ]});
    assert_snapshot!(check(
        rules,
        &[
            ("send_email", "{}", "{}"),
            ("run_command", "{}", "{}"),
            ("fetch_url", "{}", "{}"),
            ("read_file", "{}", "{}"),
            ("send_email", "{}", "{}"),
            ("read_inbox", "{}", "{}"),
            ("send_email", "{}", "{}"),
            ("fetch_url", "{}", "{}"),
            ("run_command", "{}", "{}"),
        ],
    ));
}

// --- everything together: the example of docs/policy.md

#[test]
fn the_sample_policy_exercises_every_rule() {
    let run = run_in_root(&[
        "scope",
        "samples/session-policy.jsonl",
        "samples/policy.json",
    ]);
    assert_snapshot!(run.text());
}

#[test]
fn the_sample_policy_as_json() {
    let run = run_in_root(&[
        "scope",
        "samples/session-policy.jsonl",
        "samples/policy.json",
        "--format",
        "json",
    ]);
    assert_snapshot!(run.text());
}

#[test]
fn the_sample_policy_as_sarif() {
    let run = run_in_root(&[
        "scope",
        "samples/session-policy.jsonl",
        "samples/policy.json",
        "--format",
        "sarif",
    ]);
    assert_snapshot!(run.text());
}

#[test]
fn findings_with_odd_names_stay_on_one_line() {
    let rules = json!({
        "budgets": {"per_tool": {"it's\nodd": 0}},
        "tools": {"it's\nodd": {"paths": [{"args": ["/p\u{2028}ath"], "deny": ["*"]}]}},
        "flows": [{"name": "f'\n", "sources": ["it's\nodd"], "sinks": ["it's\nodd"]}]
    });
    let run = check(
        rules,
        &[
            ("it's\\nodd", r#"{"p\u2028ath": "x'\ny"}"#, "{}"),
            ("it's\\nodd", r#"{"p\u2028ath": "y"}"#, "{}"),
        ],
    );
    assert_snapshot!(run);
}

#[test]
#[ignore = "needs ../shared/data"]
fn the_sample_policy_sarif_is_valid_against_the_sarif_2_1_0_schema() {
    let validator = super::formats::sarif_validator();
    let run = run_in_root(&[
        "scope",
        "samples/session-policy.jsonl",
        "samples/policy.json",
        "--format",
        "sarif",
    ]);
    let log: Value = serde_json::from_str(&run.stdout).expect("SARIF is JSON");
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(
        log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .map(Vec::len),
        Some(8)
    );
}

// --- command rules

#[test]
fn the_sample_command_rules_judge_every_simple_command() {
    let run = run_in_root(&[
        "scope",
        "samples/session-commands.jsonl",
        "samples/commands.json",
    ]);
    assert_snapshot!(run.text());
}

#[test]
fn command_rules_unwrap_and_fail_closed() {
    let rules = json!({"tools": {"Bash": {"commands": [{
        "args": ["/command", "/more"],
        "deny": ["rm ** -*[rR]* **", "sudo **"],
        "protect": [".claude/**"]
    }]}}});
    let call = |command: &str| format!(r#"{{"command": {}}}"#, s(command));
    let long = call(&format!("ls {}", "a".repeat(70_000)));
    let transcript = [
        call("ls -la && cargo test"),
        call("bash -c \"sh -c 'rm -rf /'\""),
        call("echo `nohup rm -fr ~`"),
        call("(cd x; echo \"$(timeout 5 rm -R y)\")"),
        call("$CMD"),
        call("echo 'a\u{7}"),
        call("cp x .claude/toolreplay/../settings.json"),
        r#"{"command": 7}"#.to_owned(),
        r#"{"more": ["ls", "sudo ls"]}"#.to_owned(),
        long,
        call(&format!("rm -rf {}", "very-long-name-".repeat(10))),
        // Subshells within a subshell to bash, arithmetic to its parser.
        call("( ( sudo rm -rf / ) )"),
        call("((sudo ls) )"),
        // Arithmetic to both.
        call("(( i++ )) && ls"),
        // A parse that would take the parser hours.
        call(&format!("{}x", "(( ".repeat(13))),
        // A here-document without a delimiter, on which it would take all memory.
        call("echo $(cat <<  "),
        // Substitutions nested in double-quoted strings: minutes, then hours.
        call(&format!(
            "x {}e{}; sudo ls",
            "\"c $(".repeat(30),
            ")\"".repeat(30)
        )),
        call("echo \"<<\" && git -c core.pager='rm -rf /' log"),
        // Nesting hidden from the count before the parser by quoted closers: deeper
        // than the parser's stack on the thread that reads the transcript.
        call(&format!(
            "{}ls{}",
            "( echo ')'; ".repeat(3000),
            " )".repeat(3000)
        )),
    ];
    let transcript: Vec<(&str, &str, &str)> = transcript
        .iter()
        .map(|a| ("Bash", a.as_str(), "{}"))
        .collect();
    assert_snapshot!(check(rules, &transcript));
}

/// The rule set docs/policy.md offers to copy is the one the crate ships.
#[test]
fn the_documented_dangerous_commands_are_the_shipped_ones() {
    let read = |path: &str| {
        std::fs::read_to_string(std::path::Path::new(super::ROOT).join(path)).expect(path)
    };
    let shipped = read("crates/core/src/policy/dangerous-commands.json");
    let docs = read("docs/policy.md");
    assert!(
        docs.contains(&format!("```json\n{shipped}```\n")),
        "docs/policy.md shows crates/core/src/policy/dangerous-commands.json as it is"
    );
}

// --- bad policy files

/// The error of a policy holding `rules`.
fn bad(rules: Value) -> String {
    scope_of("", &policy(&["t"], rules), &[]).text()
}

#[test]
fn a_bad_policy_version_is_an_error() {
    let text = |version: &str| {
        scope_of(
            "",
            &format!(r#"{{"agent": "a", "allowed_tools": [], "policy_version": {version}}}"#),
            &[],
        )
        .text()
    };
    assert_snapshot!("version_2", text("2"));
    assert_snapshot!("version_string", text("\"1\""));
    assert_snapshot!("version_float", text("1.0"));
}

#[test]
fn bad_rules_name_the_rule_and_what_is_wrong() {
    let cases = [
        (
            "unknown_tool_field",
            json!({"tools": {"t": {"arg_schema": {}}}}),
        ),
        ("tools_not_object", json!({"tools": []})),
        (
            "invalid_schema",
            json!({"tools": {"t": {"args_schema": {"type": "strin"}}}}),
        ),
        (
            "schema_pattern",
            json!({"tools": {"t": {"args_schema": {"pattern": "(?<=a)b"}}}}),
        ),
        (
            "schema_remote_ref",
            json!({"tools": {"t": {"args_schema": {"$ref": "https://example.com/s.json"}}}}),
        ),
        (
            "schema_other_draft",
            json!({"tools": {"t": {"args_schema": {"$schema": "http://json-schema.org/draft-07/schema#"}}}}),
        ),
        (
            "invalid_glob",
            json!({"tools": {"t": {"paths": [{"args": ["/p"], "deny": ["ok", "a[b"]}]}}}),
        ),
        (
            "missing_args",
            json!({"tools": {"t": {"paths": [{"deny": ["x"]}]}}}),
        ),
        (
            "empty_args",
            json!({"tools": {"t": {"paths": [{"args": []}]}}}),
        ),
        (
            "bad_pointer",
            json!({"tools": {"t": {"paths": [{"args": ["path"]}]}}}),
        ),
        (
            "bad_pointer_escape",
            json!({"tools": {"t": {"urls": [{"args": ["/a~2"]}]}}}),
        ),
        (
            "root_above_the_start",
            json!({"tools": {"t": {"paths": [{"args": ["/p"], "root": "work/../.."}]}}}),
        ),
        (
            "root_in_a_home",
            json!({"tools": {"t": {"paths": [{"args": ["/p"], "root": "~/work"}]}}}),
        ),
        (
            "bad_host",
            json!({"tools": {"t": {"urls": [{"args": ["/u"], "allow_hosts": ["https://x.example/"]}]}}}),
        ),
        (
            "bad_wildcard",
            json!({"tools": {"t": {"urls": [{"args": ["/u"], "deny_hosts": ["*evil.example"]}]}}}),
        ),
        (
            "bad_scheme",
            json!({"tools": {"t": {"urls": [{"args": ["/u"], "schemes": ["ht tp"]}]}}}),
        ),
        (
            "unknown_detector",
            json!({"tools": {"t": {"response_detectors": ["secrets", "ssn"]}}}),
        ),
        (
            "unknown_default_detector",
            json!({"response_detectors": ["emails"]}),
        ),
        (
            "invalid_regex",
            json!({"custom_detectors": {"ticket": "TICKET-(["}}),
        ),
        (
            "regex_too_big",
            json!({"custom_detectors": {"huge": "\\w{5000}"}}),
        ),
        (
            "regex_empty_match",
            json!({"custom_detectors": {"any": "x*"}}),
        ),
        (
            "regex_lookaround",
            json!({"custom_detectors": {"look": "a(?=b)"}}),
        ),
        (
            "detector_builtin_name",
            json!({"custom_detectors": {"secrets": "x"}}),
        ),
        (
            "detector_bad_name",
            json!({"custom_detectors": {"a b": "x"}}),
        ),
        ("budget_negative", json!({"budgets": {"total": -1}})),
        ("budget_unknown", json!({"budgets": {"max": 1}})),
        (
            "budget_per_tool",
            json!({"budgets": {"per_tool": {"t": "3"}}}),
        ),
        (
            "flow_missing_sinks",
            json!({"flows": [{"name": "f", "sources": ["a"]}]}),
        ),
        (
            "flow_empty_sources",
            json!({"flows": [{"name": "f", "sources": [], "sinks": ["b"]}]}),
        ),
        (
            "flow_duplicate_name",
            json!({"flows": [{"name": "f", "sources": ["a"], "sinks": ["b"]}, {"name": "f", "sources": ["a"], "sinks": ["c"]}]}),
        ),
        (
            "flow_no_name",
            json!({"flows": [{"sources": ["a"], "sinks": ["b"]}]}),
        ),
        (
            "command_unknown_field",
            json!({"tools": {"t": {"commands": [{"args": ["/command"], "deny_patterns": []}]}}}),
        ),
        (
            "command_no_args",
            json!({"tools": {"t": {"commands": [{"deny": ["rm **"]}]}}}),
        ),
        (
            "command_bad_pattern",
            json!({"tools": {"t": {"commands": [{"args": ["/command"], "deny": ["rm **", "git {push"]}]}}}),
        ),
        (
            "command_empty_pattern",
            json!({"tools": {"t": {"commands": [{"args": ["/command"], "allow": [" "]}]}}}),
        ),
        (
            "command_bad_protect",
            json!({"tools": {"t": {"commands": [{"args": ["/command"], "protect": ["a["]}]}}}),
        ),
        (
            "commands_not_array",
            json!({"tools": {"t": {"commands": {"args": ["/command"]}}}}),
        ),
    ];
    let mut out = String::new();
    for (name, rules) in cases {
        out.push_str(&format!("## {name}\n{}", bad(rules)));
    }
    assert_snapshot!(out);
}

#[test]
fn a_long_user_pattern_is_an_error() {
    let pattern = "a".repeat(4097);
    assert_snapshot!(bad(json!({"custom_detectors": {"long": pattern}})));
}

#[test]
fn the_fuzz_seeds_of_scope_files_read_without_a_crash() {
    let dir = format!("{}/fuzz/seeds/scope", super::ROOT);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("fuzz/seeds/scope")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut out = String::new();
    for name in names {
        let bytes = std::fs::read(format!("{dir}/{name}")).expect("seed");
        let work = Dir::new();
        work.write("t.jsonl", "");
        work.write("scope.json", bytes);
        let run = work.run(&["scope", "t.jsonl", "scope.json"]);
        assert!(run.stderr.lines().count() <= 1, "{name}: {}", run.stderr);
        out.push_str(&format!("## {name}\n{}", run.text()));
    }
    assert_snapshot!(out);
}

// --- issue 20: what an adversarial review got past the policy

/// `fetch_url` calls of each URL, checked against `rules`.
fn fetches(rules: Value, urls: &[&str]) -> String {
    let args: Vec<String> = urls
        .iter()
        .map(|u| format!("{{\"url\": {}}}", s(u)))
        .collect();
    let transcript: Vec<(&str, &str, &str)> = args
        .iter()
        .map(|a| ("fetch_url", a.as_str(), "{}"))
        .collect();
    check(rules, &transcript)
}

/// Hosts of schemes the WHATWG parser keeps opaque are normalised as http hosts
/// are, and a host that cannot be normalised is a violation.
#[test]
fn url_hosts_of_every_scheme_are_normalised() {
    let rules = json!({"tools": {"fetch_url": {"urls": [{
        "args": ["/url"],
        "schemes": ["sftp", "gopher", "ssh", "git", "http"],
        "deny_hosts": ["127.0.0.1", "169.254.169.254", "evil.com"]
    }]}}});
    assert_snapshot!(fetches(
        rules,
        &[
            "sftp://127.0.0.1/",
            "gopher://169.254.169.254/",
            "sftp://ev%69l.com/",
            "sftp://0x7f.1/",
            "ssh://git@EVIL.Com.:22/x",
            "git://2130706433/repo",
            "sftp://[::ffff:7f00:1]/",
            "sftp://ev%00il.com/",
            "sftp://good.example/",
            "http://0x7f.1/",
        ],
    ));
}

/// Where the WHATWG reading of the host and the RFC 3986 reading (curl, wget,
/// Python) differ, the URL is a violation, whichever host would pass.
#[test]
fn url_hosts_parsers_disagree_on_are_violations() {
    let rules = json!({"tools": {"fetch_url": {"urls": [{
        "args": ["/url"],
        "allow_hosts": ["docs.example.com"]
    }]}}});
    assert_snapshot!(fetches(
        rules,
        &[
            "http://docs.example.com\\@evil.com:18080/",
            "http://evil.com\\@docs.example.com/",
            "https://a@b@docs.example.com/",
            "http:docs.example.com/x",
            "http:/\\evil.com/",
            "http://docs.exa\tmple.com/",
            "https://user:pass@docs.example.com:8443/a\\b?c@d#e@f",
        ],
    ));
}

/// IPv4-mapped IPv6 addresses are compared as IPv4; ranges and named classes.
#[test]
fn address_ranges_classes_and_mapped_addresses() {
    let rules = json!({"tools": {"fetch_url": {"urls": [{
        "args": ["/url"],
        "deny_hosts": ["127.0.0.1", "10.0.0.0/8", "fd00::/8", "class:loopback",
                       "class:private", "class:link-local", "class:unspecified", "class:metadata"]
    }]}}});
    assert_snapshot!(fetches(
        rules,
        &[
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:a9fe:a9fe]/",
            "http://127.0.0.2/",
            "http://0.0.0.0/",
            "http://[::]/",
            "http://[::1]/",
            "http://localhost:8080/",
            "http://10.20.30.40/",
            "http://172.31.0.1/",
            "http://[fd12:3456::1]/",
            "http://[fe80::1]/",
            "http://100.100.100.200/",
            "http://metadata.google.internal/",
            "http://93.184.216.34/",
            "http://[2001:db8::1]/",
        ],
    ));
}

#[test]
fn bad_ranges_and_classes_are_errors() {
    let mut out = String::new();
    for pattern in ["10.0.0.1/8", "10.0.0.0/33", "fd00::/x", "class:lan"] {
        let rules = json!({"tools": {"t": {"urls": [{"args": ["/u"], "deny_hosts": [pattern]}]}}});
        out.push_str(&format!("## {pattern}\n{}", bad(rules)));
    }
    assert_snapshot!(out);
}

/// Names with characters that reorder or hide text are shown with those escaped,
/// and one finding is one line whatever the controls in a name.
#[test]
fn names_with_bidi_zero_width_and_controls_are_escaped() {
    let rules = json!({"tools": {"t": {"paths": [{"args": ["/p"], "deny": ["*"]}]}}});
    let run = check(
        rules,
        &[
            ("t", r#"{"p": "evil\u202etxt.exe"}"#, "{}"),
            (
                "t",
                r#"{"p": "a\u2066b\u2067c\u2068d\u2069e\u200bf\u200eg\u200fh\u061ci\ufeffj"}"#,
                "{}",
            ),
            ("t", r#"{"p": "x\u001b[2Ky\nz\rw"}"#, "{}"),
            ("ev\\u202eil\\u200b", "{}", "{}"),
        ],
    );
    assert_snapshot!(run);
}

/// `read_file` calls of each path, checked against `rules`.
fn reads(rules: Value, paths: &[&str]) -> String {
    let args: Vec<String> = paths
        .iter()
        .map(|p| format!("{{\"path\": {}}}", s(p)))
        .collect();
    let transcript: Vec<(&str, &str, &str)> = args
        .iter()
        .map(|a| ("read_file", a.as_str(), "{}"))
        .collect();
    check(rules, &transcript)
}

/// By default a path is judged with `\` as a character and as a separator, as
/// written and percent-decoded; a NUL is always a violation.
#[test]
fn paths_are_judged_in_every_reading_the_tool_may_have() {
    let rules = json!({"tools": {"read_file": {"paths": [{
        "args": ["/path"],
        "root": "/work/project",
        "allow": ["docs/**", "*.md"],
        "deny": ["**/.env"]
    }]}}});
    assert_snapshot!(reads(
        rules,
        &[
            "..\\..\\secret.md",
            "docs\\..\\.env",
            "docs\\guide.md",
            "%2e%2e/secret.md",
            "docs/%2e%2e/%2e%2e/secret.md",
            "docs/%2eenv",
            "docs/100%25.md",
            "docs/a.md\u{0}.txt",
            "docs/a.md%00.txt",
            "docs/.ENV",
            "/work/Project/docs/a.md",
        ],
    ));
}

/// The readings can be chosen, and matching made case-insensitive.
#[test]
fn path_readings_and_case_are_options() {
    let rule = |backslash: &str, percent: &str, case: bool| {
        json!({"tools": {"read_file": {"paths": [{
            "args": ["/path"],
            "root": "/work/project",
            "allow": ["docs/**", "*.md"],
            "deny": ["**/.env"],
            "backslash": backslash,
            "percent": percent,
            "case_insensitive": case
        }]}}})
    };
    let paths = [
        "..\\..\\secret.md",
        "docs\\guide.txt",
        "%2e%2e/secret.md",
        "docs/.ENV",
        "DOCS\\.Env",
        "/WORK/project/Docs/a.txt",
        "a.md\u{0}",
    ];
    let mut out = String::new();
    for (name, rules) in [
        ("literal", rule("literal", "literal", false)),
        ("windows", rule("separator", "literal", true)),
        ("decoded", rule("literal", "decoded", false)),
    ] {
        out.push_str(&format!("## {name}\n{}", reads(rules, &paths)));
    }
    assert_snapshot!(out);
}

#[test]
fn bad_path_options_are_errors() {
    let mut out = String::new();
    for (field, value) in [
        ("backslash", json!("windows")),
        ("percent", json!(true)),
        ("case_insensitive", json!("yes")),
    ] {
        let mut rule = json!({"args": ["/p"]});
        rule[field] = value;
        out.push_str(&format!(
            "## {field}\n{}",
            bad(json!({"tools": {"t": {"paths": [rule]}}}))
        ));
    }
    assert_snapshot!(out);
}

/// An `args_schema` that stands for more than it says: 22 levels of `anyOf` with
/// two references each (four million subschemas in 2 KB) is refused when the policy
/// is read, as are recursive references and references the bound cannot follow.
#[test]
fn schemas_that_cost_without_bound_are_refused_when_read() {
    let levels = 22;
    let mut defs = serde_json::Map::new();
    for i in 0..levels {
        let next = if i + 1 < levels {
            json!({"$ref": format!("#/$defs/d{}", i + 1)})
        } else {
            json!({"type": "string"})
        };
        defs.insert(
            format!("d{i}"),
            json!({"anyOf": [next.clone(), {"allOf": [next]}]}),
        );
    }
    let fan_out =
        json!({"type": "object", "properties": {"cmd": {"$ref": "#/$defs/d0"}}, "$defs": defs});
    let mut out = String::new();
    for (name, schema) in [
        ("fan_out", fan_out),
        (
            "recursive",
            json!({"$defs": {"node": {"properties": {"kids": {"items": {"$ref": "#/$defs/node"}}}}}, "$ref": "#/$defs/node"}),
        ),
        ("dynamic_ref", json!({"$dynamicRef": "#meta"})),
        ("nested_id", json!({"properties": {"a": {"$id": "a.json"}}})),
    ] {
        let rules = json!({"tools": {"t": {"args_schema": schema}}});
        let transcript = calls(&[("t", r#"{"cmd": 5}"#, "{}")]);
        let run = scope_of(&transcript, &policy(&["t"], rules), &[]);
        out.push_str(&format!("## {name}\n{}", run.text()));
    }
    assert_snapshot!(out);
}

/// Large lists are held in hash maps and sets: the last of 100,000 deny hosts and
/// of 100,000 sources of a flow are found as the first are.
#[test]
fn large_host_lists_and_flows_are_looked_up() {
    let hosts: Vec<String> = (0..100_000).map(|i| format!("h{i}.evil.example")).collect();
    let sources: Vec<String> = (0..100_000).map(|i| format!("src{i}")).collect();
    let rules = json!({
        "tools": {"fetch_url": {"urls": [{"args": ["/url"], "deny_hosts": hosts}]}},
        "flows": [{"name": "f", "sources": sources, "sinks": ["fetch_url"]}]
    });
    assert_snapshot!(check(
        rules,
        &[
            ("fetch_url", r#"{"url": "https://h0.evil.example/"}"#, "{}"),
            ("src99999", "{}", "{}"),
            (
                "fetch_url",
                r#"{"url": "https://h99999.evil.example/"}"#,
                "{}"
            ),
            (
                "fetch_url",
                r#"{"url": "https://h100000.evil.example/"}"#,
                "{}"
            ),
        ],
    ));
}

/// Glob lists are matched by one automaton whose cost grows with the globs that
/// have wildcards: their number is bounded, and so is the list's.
#[test]
fn glob_lists_too_large_to_match_are_refused() {
    let wild: Vec<String> = (0..1_001).map(|i| format!("**/s{i}/*.key")).collect();
    let literal: Vec<String> = (0..100_001).map(|i| format!("**/s{i}.key")).collect();
    let fine: Vec<String> = wild[..1_000]
        .iter()
        .chain(&literal[..99_000])
        .cloned()
        .collect();
    let mut out = String::new();
    for (name, list) in [("wild", wild), ("literal", literal)] {
        let rules = json!({"tools": {"t": {"paths": [{"args": ["/p"], "deny": list}]}}});
        out.push_str(&format!("## {name}\n{}", bad(rules)));
    }
    let rules = json!({"tools": {"read_file": {"paths": [{"args": ["/path"], "deny": fine}]}}});
    out.push_str(&format!(
        "## at the bounds\n{}",
        reads(rules, &["a/s999/x.key", "b/s98999.key", "s99000.key"])
    ));
    assert_snapshot!(out);
}

/// Numbers are scanned as their canonical digits, as strings are.
#[test]
fn numbers_in_responses_are_scanned() {
    let rules = json!({"response_detectors": ["personal-data", "secrets"]});
    assert_snapshot!(check(
        rules,
        &[
            ("read_file", r#"{"card": 4111111111111111}"#, "{}"),
            ("read_file", "{}", r#"{"card": 4111111111111111}"#),
            (
                "read_file",
                "{}",
                r#"{"cards": [378282246310005, 4111111111111112], "amount": 4111111111111111.0}"#
            ),
            (
                "read_file",
                "{}",
                r#"{"n": 4.111111111111111e16, "phone": 14155552671}"#
            ),
        ],
    ));
}

#[test]
fn a_secret_that_is_a_key_is_never_printed_in_another_finding_s_pointer() {
    let response = r#"{"AKIAIOSFODNN7EXAMPLE": {"mail": "ann@example.com"}}"#;
    let transcript = calls(&[("read_file", "{}", response)]);
    let scope = policy(
        &["read_file"],
        json!({"response_detectors": ["secrets", "personal-data"]}),
    );
    let mut text = String::new();
    for format in ["text", "json", "sarif"] {
        let run = scope_of(&transcript, &scope, &["--format", format]);
        assert_eq!(run.code, 1, "{}", run.text());
        assert!(!run.text().contains("AKIA"), "{format}: {}", run.text());
        if format == "text" {
            text = run.text();
        }
    }
    assert_snapshot!(text, @r"
    exit: 1
    --- stdout
    calls: 1
    findings: 2
    index 0: sensitive-response: tool 'read_file' response has a key in '' that matches detector 'aws-access-key-id'
    index 0: sensitive-response: tool 'read_file' response field '/{aws-access-key-id}/mail' matches detector 'email-address'
    --- stderr
    ");
}
