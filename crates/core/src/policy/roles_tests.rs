//! Roles in policies: `role:NAME` in `allowed_tools`, `tools`, `budgets.per_tool` and
//! `flows`, matched against each agent's names for its tools.

use crate::finding::{ArgumentViolation, Budget, CommandProblem, FindingKind, PathProblem};
use crate::graph::{PolicyRole, policy_roles_of};
use crate::json::{self, Value};
use crate::policy::PathContext;
use crate::scope::{Scope, Session};

const POLICY: &str = r#"{
  "agent": "any-agent",
  "allowed_tools": ["role:file-read", "role:shell", "role:fetch", "role:mcp", "TodoWrite"],
  "policy_version": 1,
  "budgets": {"per_tool": {"role:shell": 2, "Bash": 1}},
  "tools": {
    "Bash": {"commands": [{"args": ["/command"], "deny": ["git push **"]}]},
    "role:file-read": {"paths": [{"root": "/p", "deny": ["**/.env"]}]},
    "role:file-write": {"paths": [{"root": "/p", "deny": [".git/**"]}]},
    "role:shell": {"commands": [{"deny": ["sudo **", "rm ** -rf **"]}]},
    "role:fetch": {"urls": [{"allow_hosts": ["docs.example.com"]}]},
    "role:mcp": {"urls": [{"args": ["/url"], "deny_hosts": ["evil.example"]}]}
  },
  "flows": [{"name": "no-exfiltration", "sources": ["role:fetch"], "sinks": ["role:mcp"]}]
}"#;

fn scope() -> Scope {
    Scope::parse(POLICY.as_bytes()).expect("the policy parses")
}

fn args(text: &str) -> Vec<u8> {
    crate::canonical::encode(&json::parse(text).expect("JSON"))
}

/// The roles and rules of the violations of a call to `tool` with `text`.
fn violations(scope: &Scope, tool: &str, text: &str) -> Vec<(Option<PolicyRole>, String)> {
    let policy = scope.policy.as_ref().expect("a policy");
    policy
        .check_arguments(tool, &args(text))
        .into_iter()
        .map(|violation| match violation {
            ArgumentViolation::ByRole { role, violation } => (Some(role), argument(&violation)),
            other => (None, argument(&other)),
        })
        .collect()
}

fn argument(violation: &ArgumentViolation) -> String {
    match violation {
        ArgumentViolation::Path { argument, .. }
        | ArgumentViolation::Url { argument, .. }
        | ArgumentViolation::Command { argument, .. } => argument.to_string(),
        other => format!("{other:?}"),
    }
}

#[test]
fn each_agents_tools_have_their_roles() {
    use PolicyRole::{Fetch, FileRead, FileWrite, Mcp, Shell};
    let cases: &[(&str, Option<PolicyRole>)] = &[
        // Claude Code.
        ("Read", Some(FileRead)),
        ("Grep", Some(FileRead)),
        ("Write", Some(FileWrite)),
        ("Edit", Some(FileWrite)),
        ("Bash", Some(Shell)),
        ("WebFetch", Some(Fetch)),
        ("mcp__github__create_issue", Some(Mcp)),
        // Codex: its hooks' names, then its logs'.
        ("apply_patch", Some(FileWrite)),
        ("shell", Some(Shell)),
        ("local_shell", Some(Shell)),
        ("exec_command", Some(Shell)),
        ("shell_command", Some(Shell)),
        // Gemini CLI.
        ("read_file", Some(FileRead)),
        ("read_many_files", Some(FileRead)),
        ("list_directory", Some(FileRead)),
        ("glob", Some(FileRead)),
        ("search_file_content", Some(FileRead)),
        ("grep", Some(FileRead)),
        ("write_file", Some(FileWrite)),
        ("replace", Some(FileWrite)),
        ("run_shell_command", Some(Shell)),
        ("web_fetch", Some(Fetch)),
        ("google_web_search", Some(Fetch)),
        ("mcp_github_create_issue", Some(Mcp)),
        // Cursor.
        ("Shell", Some(Shell)),
        ("StrReplace", Some(FileWrite)),
        ("Delete", Some(FileWrite)),
        ("MCP:create_issue", Some(Mcp)),
        // GitHub Copilot CLI.
        ("bash", Some(Shell)),
        ("powershell", Some(Shell)),
        ("view", Some(FileRead)),
        ("create", Some(FileWrite)),
        ("edit", Some(FileWrite)),
        ("str_replace", Some(FileWrite)),
        ("rg", Some(FileRead)),
        ("web_search", Some(Fetch)),
        // No role.
        ("TodoWrite", None),
        ("send_email", None),
        ("role:shell", None),
    ];
    for (tool, expected) in cases {
        let roles: Vec<PolicyRole> = policy_roles_of(tool).into_iter().map(|(r, _)| r).collect();
        assert_eq!(
            roles,
            expected.iter().copied().collect::<Vec<_>>(),
            "{tool}"
        );
    }
}

#[test]
fn a_role_rule_reads_each_tools_own_argument() {
    use PolicyRole::{Fetch, FileRead, FileWrite, Shell};
    let scope = scope();
    let cases: &[(&str, &str, PolicyRole, &str)] = &[
        (
            "Read",
            r#"{"file_path": "/p/.env"}"#,
            FileRead,
            "/file_path",
        ),
        (
            "read_file",
            r#"{"file_path": "/p/a/.env"}"#,
            FileRead,
            "/file_path",
        ),
        (
            "read_file",
            r#"{"absolute_path": "/p/.env"}"#,
            FileRead,
            "/absolute_path",
        ),
        ("view", r#"{"path": "/p/.env"}"#, FileRead, "/path"),
        // Cursor's Read and StrReplace take `path`.
        ("Read", r#"{"path": "/p/.env"}"#, FileRead, "/path"),
        (
            "StrReplace",
            r#"{"path": "/p/.git/config"}"#,
            FileWrite,
            "/path",
        ),
        (
            "read_many_files",
            r#"{"paths": ["a.md", ".env"]}"#,
            FileRead,
            "/paths/1",
        ),
        (
            "Write",
            r#"{"file_path": "/p/.git/config"}"#,
            FileWrite,
            "/file_path",
        ),
        (
            "write_file",
            r#"{"file_path": ".git/config", "content": "x"}"#,
            FileWrite,
            "/file_path",
        ),
        (
            "create",
            r#"{"path": "/p/.git/config", "file_text": "x"}"#,
            FileWrite,
            "/path",
        ),
        (
            "apply_patch",
            r#"{"input": "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+x\n*** End Patch"}"#,
            FileWrite,
            "/input",
        ),
        (
            "apply_patch",
            r#"{"command": "*** Begin Patch\n*** Update File: .git/config\n*** End Patch"}"#,
            FileWrite,
            "/command",
        ),
        ("Bash", r#"{"command": "sudo ls"}"#, Shell, "/command"),
        ("Shell", r#"{"command": "sudo ls"}"#, Shell, "/command"),
        ("bash", r#"{"command": "sudo ls"}"#, Shell, "/command"),
        (
            "run_shell_command",
            r#"{"command": "sudo ls"}"#,
            Shell,
            "/command",
        ),
        ("exec_command", r#"{"cmd": "sudo ls"}"#, Shell, "/cmd"),
        // An argv is one command line, its words quoted: the string `bash -lc` runs
        // is judged, not each word alone.
        (
            "shell",
            r#"{"command": ["bash", "-lc", "sudo ls"]}"#,
            Shell,
            "/command",
        ),
        (
            "WebFetch",
            r#"{"url": "https://evil.example/x"}"#,
            Fetch,
            "/url",
        ),
        (
            "web_fetch",
            r#"{"url": "https://evil.example/x"}"#,
            Fetch,
            "/url",
        ),
        (
            "web_fetch",
            r#"{"prompt": "Compare https://docs.example.com/a with https://evil.example/b."}"#,
            Fetch,
            "/prompt",
        ),
    ];
    for (tool, text, role, argument) in cases {
        assert_eq!(
            violations(&scope, tool, text),
            [(Some(*role), (*argument).to_owned())],
            "{tool} {text}"
        );
    }
    // What the rules allow.
    for (tool, text) in [
        ("Read", r#"{"file_path": "/p/README.md"}"#),
        ("shell", r#"{"command": ["bash", "-lc", "ls -la"]}"#),
        ("shell", r#"{"command": ["rm", "-r", "target"]}"#),
        (
            "web_fetch",
            r#"{"prompt": "Summarise https://docs.example.com/a"}"#,
        ),
        ("web_fetch", r#"{"prompt": "no URL here"}"#),
        ("TodoWrite", r#"{"todos": []}"#),
        ("mcp__web__fetch", r#"{"url": "https://docs.example.com/"}"#),
    ] {
        assert_eq!(violations(&scope, tool, text), [], "{tool} {text}");
    }
    // The MCP role's rule reads the arguments it names, of every MCP tool's name.
    for tool in ["mcp__web__fetch", "mcp_web_fetch", "MCP:fetch"] {
        assert_eq!(
            violations(&scope, tool, r#"{"url": "https://evil.example/"}"#),
            [(Some(PolicyRole::Mcp), "/url".to_owned())]
        );
    }
}

#[test]
fn a_tools_own_rules_come_before_its_roles() {
    let scope = scope();
    assert_eq!(
        violations(
            &scope,
            "Bash",
            r#"{"command": "git push origin && sudo ls"}"#
        ),
        [
            (None, "/command".to_owned()),
            (Some(PolicyRole::Shell), "/command".to_owned())
        ]
    );
}

#[test]
fn check_arguments_in_reads_a_role_rules_paths_where_the_call_ran() {
    let scope = scope();
    let policy = scope.policy.as_ref().expect("a policy");
    let context = PathContext {
        cwd: Some("/p/src".to_owned()),
        home: Some("/home/u".to_owned()),
        project: Some("/p".to_owned()),
    };
    for (tool, text) in [
        ("Read", r#"{"file_path": "../.env"}"#),
        ("view", r#"{"path": "../.env"}"#),
        ("read_file", r#"{"file_path": "../.env"}"#),
    ] {
        let found = policy.check_arguments_in(tool, &args(text), &context);
        assert!(
            matches!(&found[..], [ArgumentViolation::ByRole { role: PolicyRole::FileRead, violation }]
                if matches!(&**violation, ArgumentViolation::Path { problem: PathProblem::Denied { .. }, .. })),
            "{tool}: {found:?}"
        );
    }
    // A shell role's argv, with the command denied inside `bash -lc`.
    let found = policy.check_arguments_in(
        "shell",
        &args(r#"{"command": ["bash", "-lc", "rm -rf /tmp/x"]}"#),
        &context,
    );
    assert!(
        matches!(&found[..], [ArgumentViolation::ByRole { role: PolicyRole::Shell, violation }]
            if matches!(&**violation, ArgumentViolation::Command { problem: CommandProblem::Denied { .. }, .. })),
        "{found:?}"
    );
}

/// The findings of a session's calls, as (index, kind, detail).
fn decide_all(scope: &Scope, calls: &[(&str, &str)]) -> Vec<(u64, String)> {
    let mut session = Session::new(scope);
    let mut out = Vec::new();
    for (tool, text) in calls {
        let value: Value = json::parse(text).expect("JSON");
        let decision = session.decide(tool, &value);
        for finding in decision.findings {
            let detail = match &finding.kind {
                FindingKind::BudgetExceeded(b) => format!("budget {:?} {}", b.budget, b.call),
                FindingKind::FlowViolation(f) => format!("flow {} {}", f.flow, f.source_tool),
                other => other.name().to_owned(),
            };
            out.push((decision.index, detail));
        }
    }
    out
}

#[test]
fn budgets_count_a_call_under_its_tool_and_each_role() {
    let scope = scope();
    let found = decide_all(
        &scope,
        &[
            ("Bash", r#"{"command": "ls"}"#),
            ("shell", r#"{"command": ["ls"]}"#),
            ("Bash", r#"{"command": "ls"}"#),
            ("run_shell_command", r#"{"command": "ls"}"#),
        ],
    );
    assert_eq!(
        found,
        [
            (2, "budget PerTool 2".to_owned()),
            (
                2,
                format!("budget {:?} 3", Budget::PerRole(PolicyRole::Shell))
            ),
            (
                3,
                format!("budget {:?} 4", Budget::PerRole(PolicyRole::Shell))
            ),
        ]
    );
}

#[test]
fn flows_and_allowed_tools_name_roles() {
    let scope = scope();
    let found = decide_all(
        &scope,
        &[
            ("mcp__slack__post", r#"{}"#),
            ("web_fetch", r#"{"url": "https://docs.example.com/"}"#),
            ("TodoWrite", r#"{}"#),
            ("MCP:post", r#"{}"#),
            ("Write", r#"{"file_path": "/p/a.md"}"#),
        ],
    );
    assert_eq!(
        found,
        [
            (3, "flow no-exfiltration web_fetch".to_owned()),
            (4, "permission-overreach".to_owned()),
        ]
    );
}

#[test]
fn unknown_roles_and_misplaced_fields_are_errors() {
    let error = |text: &str| {
        Scope::parse(text.as_bytes())
            .expect_err("an error")
            .to_string()
    };
    let base = |fields: &str| {
        format!(r#"{{"agent": "a", "allowed_tools": [], "policy_version": 1, {fields}}}"#)
    };
    let message = error(&base(r#""tools": {"role:shel": {}}"#));
    assert!(
        message.contains("tools['role:shel']: unknown role 'role:shel'")
            && message.ends_with("did you mean 'role:shell'?"),
        "{message}"
    );
    let message = error(r#"{"agent": "a", "allowed_tools": ["role:file_read"]}"#);
    assert!(
        message.contains("\"allowed_tools\": unknown role 'role:file_read'")
            && message.ends_with("did you mean 'role:file-read'?"),
        "{message}"
    );
    let message = error(&base(r#""budgets": {"per_tool": {"role:web": 1}}"#));
    assert!(
        message.contains("budgets.per_tool['role:web']: unknown role"),
        "{message}"
    );
    let message = error(&base(
        r#""flows": [{"name": "f", "sources": ["role:fetch"], "sinks": ["role:mcps"]}]"#,
    ));
    assert!(
        message.contains("flows[0].sinks[0]: unknown role 'role:mcps'")
            && message.ends_with("did you mean 'role:mcp'?"),
        "{message}"
    );
    let message = error(&base(
        r#""tools": {"role:shell": {"args_schema": {"type": "object"}}}"#,
    ));
    assert!(
        message.contains("tools['role:shell'].args_schema: a role's entry cannot have one"),
        "{message}"
    );
    let message = error(&base(r#""tools": {"role:mcp": {"urls": [{}]}}"#));
    assert!(
        message.contains("tools['role:mcp'].urls[0]: missing field \"args\""),
        "{message}"
    );
    // A tool's own rule still needs its args.
    let message = error(&base(r#""tools": {"Bash": {"commands": [{}]}}"#));
    assert!(
        message.contains("tools['Bash'].commands[0]: missing field \"args\""),
        "{message}"
    );
}

#[test]
fn response_detectors_of_a_role_apply_to_its_tools() {
    let scope = Scope::parse(
        br#"{"agent": "a", "allowed_tools": [], "policy_version": 1,
             "tools": {"role:fetch": {"response_detectors": ["secrets"]},
                       "WebFetch": {"response_detectors": []}}}"#,
    )
    .expect("parses");
    let policy = scope.policy.as_ref().expect("a policy");
    let response = args(r#"{"text": "AKIAIOSFODNN7EXAMPLE"}"#);
    assert_eq!(policy.check_response("web_fetch", &response).len(), 1);
    // A tool's own list comes first.
    assert_eq!(policy.check_response("WebFetch", &response), []);
    assert_eq!(policy.check_response("Read", &response), []);
}

#[test]
fn the_urls_of_a_text_are_each_scheme_and_what_follows() {
    assert_eq!(
        crate::graph::roles::text_urls(
            "Compare https://a.example/x?y=1, (http://b.example/) and file:///etc/passwd. \
             Not ://c or 1http://d.example"
        ),
        [
            "https://a.example/x?y=1",
            "http://b.example/",
            "file:///etc/passwd",
            "http://d.example"
        ]
    );
    assert_eq!(
        crate::graph::roles::text_urls("no URL here"),
        Vec::<&str>::new()
    );
    let scope = scope();
    assert_eq!(
        violations(
            &scope,
            "web_fetch",
            r#"{"prompt": "Read file:///etc/passwd and https://docs.example.com/a."}"#
        ),
        [(Some(PolicyRole::Fetch), "/prompt".to_owned())]
    );
}

#[test]
fn a_tool_allowed_by_its_role_is_not_misspelt() {
    let scope = Scope::parse(
        br#"{"agent": "a", "allowed_tools": ["role:file-read", "Reed", "Write"],
             "policy_version": 1,
             "tools": {"Read": {"paths": [{"args": ["/file_path"], "deny": ["**/.env"]}]},
                       "Writee": {"paths": [{"args": ["/file_path"], "deny": ["**/.env"]}]}}}"#,
    )
    .expect("parses");
    assert_eq!(scope.misspelt_tool(|_| false), Some(("Writee", "Write")));
}
