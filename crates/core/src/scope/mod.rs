//! The scope audit (spec section 4): calls to tools outside the declared permissions,
//! and with a policy, calls that break its rules (docs/policy.md).
//!
//! A [`Scope`] is read from a scope file. A [`Session`] decides calls against it one
//! at a time, as a live session makes them; [`ScopeAudit`] takes the records of a
//! transcript through a session, so that `scope` judges each call as it would have
//! been judged live.

mod session;

pub use session::Session;
pub(crate) use session::too_deep;
pub(crate) use session::{Decision, SessionState};

use crate::context::Contexts;
use crate::finding::{ArgumentViolation, Finding, FindingKind, Findings, SensitiveResponse};
use crate::fingerprint::call_canonical;
use crate::json::{self, ParseError, Value};
use crate::policy::{self, Checking, PathContext, Policy};

/// A declared scope: an agent, the tools it may call, and the policy rules of the
/// scope file, if it has any.
#[derive(Debug)]
pub struct Scope {
    /// The agent's name; never empty.
    pub agent: String,
    /// The tools it may call, matched exactly, and roles (`role:file-read`): a tool
    /// of a listed role may be called too.
    pub allowed_tools: Vec<String>,
    /// The policy rules, when the scope file has any.
    pub policy: Option<Policy>,
}

impl Scope {
    /// A tool of the policy's `tools` that looks misspelt: not in `allowed_tools`
    /// (by name or by a role it has), not `called` in the transcript (a call to it
    /// would be a permission-overreach finding, so its rules could apply), and near
    /// an allowed tool. The first such, with the allowed tool it is near, as
    /// `(tool, near)`.
    pub fn misspelt_tool(&self, called: impl Fn(&str) -> bool) -> Option<(&str, &str)> {
        let policy = self.policy.as_ref()?;
        let allowed_by_role = |tool: &str| {
            crate::graph::policy_roles_of(tool)
                .iter()
                .any(|(role, _)| self.allowed_tools.iter().any(|t| t == role.key()))
        };
        policy.tool_names().into_iter().find_map(|tool| {
            if self.allowed_tools.iter().any(|t| t == tool) || called(tool) || allowed_by_role(tool)
            {
                return None;
            }
            let allowed = self
                .allowed_tools
                .iter()
                .map(String::as_str)
                .filter(|t| !t.starts_with(crate::graph::PolicyRole::PREFIX));
            crate::suggest::closest(tool, allowed).map(|near| (tool, near))
        })
    }

    /// Parses a scope file's bytes: one JSON object, which may span several lines,
    /// in UTF-8 (a byte-order mark at the start is skipped).
    ///
    /// Errors about the object's fields are placed on the line where the object starts;
    /// errors in a policy rule on the line of the top-level field that holds it.
    pub fn parse(bytes: &[u8]) -> Result<Scope, ParseError> {
        Scope::parse_with(bytes, Checking::Now)
    }

    /// [`Scope::parse`] for bytes that it parsed without error before, as the
    /// caller knows by their digest (a live session's state names the digest of the
    /// scope it was decided by): the globs and command patterns are compiled when a
    /// call first needs them, not checked up front, so that a process judging one
    /// call compiles only that call's rules. Given bytes it has not parsed, a glob
    /// or pattern that does not compile judges every call it sees as a violation
    /// (fail closed) instead of being an error here.
    ///
    /// ```
    /// let bytes = br#"{"agent": "a", "allowed_tools": ["Read"], "policy_version": 1,
    ///   "tools": {"Read": {"paths": [{"args": ["/file_path"], "deny": ["**/.env"]}]}}}"#;
    /// let checked = toolreplay_core::Scope::parse(bytes)?;
    /// let again = toolreplay_core::Scope::reparse(bytes)?;
    /// assert_eq!(again.agent, checked.agent);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reparse(bytes: &[u8]) -> Result<Scope, ParseError> {
        Scope::parse_with(bytes, Checking::Before)
    }

    fn parse_with(bytes: &[u8], checking: Checking) -> Result<Scope, ParseError> {
        let text = json::decode_document(bytes)?;
        let (value, lines) = json::parse_located(text)?;
        // Errors about the object itself go on the line where it starts.
        let object_line = first_line(text);
        let error_on = |line: usize, message: String| ParseError {
            message,
            line,
            column: None,
        };
        let Value::Object(members) = value else {
            return Err(error_on(
                object_line,
                format!("expected a JSON object, found {}", value.described()),
            ));
        };
        let mut agent = None;
        let mut allowed_tools = None;
        // Without `policy_version` the file is in the format of the specification,
        // where policy fields are unknown fields like any other.
        let versioned = members.iter().any(|(key, _)| key == "policy_version");
        let mut policy_fields = Vec::new();
        let mut policy_lines = Vec::new();
        for ((key, value), line) in members.into_iter().zip(lines) {
            let error = |message: String| error_on(line, message);
            match (key.as_str(), value) {
                ("agent", Value::Str(s)) if !s.is_empty() => agent = Some(s),
                ("agent", other) => {
                    return Err(error(format!(
                        "field \"agent\" must be a non-empty string, found {}",
                        other.described()
                    )));
                }
                ("allowed_tools", Value::Array(items)) => {
                    let mut tools = Vec::with_capacity(items.len());
                    for (i, item) in items.into_iter().enumerate() {
                        match item {
                            Value::Str(s) => {
                                crate::graph::PolicyRole::of_name(&s).map_err(|message| {
                                    error(format!("field \"allowed_tools\": {message}"))
                                })?;
                                tools.push(s);
                            }
                            other => {
                                return Err(error(format!(
                                    "field \"allowed_tools\" must hold only strings, found {} at position {i}",
                                    other.described()
                                )));
                            }
                        }
                    }
                    allowed_tools = Some(tools);
                }
                ("allowed_tools", other) => {
                    return Err(error(format!(
                        "field \"allowed_tools\" must be an array of strings, found {}",
                        other.described()
                    )));
                }
                (name, value)
                    if name == "policy_version"
                        || (versioned && policy::RULE_FIELDS.contains(&name)) =>
                {
                    policy_lines.push((key.clone(), line));
                    policy_fields.push((key, value));
                }
                (name, _) => return Err(error(unknown_field(name, versioned))),
            }
        }
        let missing = |name: &str| error_on(object_line, format!("missing field \"{name}\""));
        let agent = agent.ok_or_else(|| missing("agent"))?;
        let allowed_tools = allowed_tools.ok_or_else(|| missing("allowed_tools"))?;
        let policy = Policy::parse_with(&policy_fields, checking).map_err(|err| {
            let line = policy_lines
                .iter()
                .find(|(key, _)| *key == err.field)
                .map_or(object_line, |(_, line)| *line);
            error_on(line, err.message)
        })?;
        Ok(Scope {
            agent,
            allowed_tools,
            policy,
        })
    }
}

/// The 1-based line where the JSON text `text` starts.
fn first_line(text: &str) -> usize {
    let start = text
        .bytes()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .unwrap_or(0);
    text.as_bytes()[..start]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The error of the unknown field `name` of a scope file (`versioned` when it has a
/// `policy_version`), with the field meant when it is near one.
fn unknown_field(name: &str, versioned: bool) -> String {
    let mut message = format!("unknown field {}", json::quoted_key(name));
    if policy::RULE_FIELDS.contains(&name) {
        message.push_str(": policy fields need \"policy_version\": 1");
    } else {
        let fields = ["agent", "allowed_tools", "policy_version"];
        let rule_fields = policy::RULE_FIELDS.iter().filter(|_| versioned);
        let known = fields.iter().chain(rule_fields).copied();
        if let Some(near) = crate::suggest::closest(name, known) {
            message.push_str(&format!(": did you mean \"{near}\"?"));
        }
    }
    message
}

/// What scope found.
#[derive(Debug, PartialEq, Eq)]
pub struct ScopeReport {
    /// The agent the scope was declared for.
    pub agent: String,
    /// How many calls the transcript holds.
    pub calls: u64,
    /// The findings, by index: kept compactly, in a temporary file past a few MiB.
    pub findings: Findings,
    /// Whether the scope had policy rules.
    pub policy: bool,
}

/// The checks of one call that need no other call, made by [`Scope::check_call`] on
/// any thread, for [`ScopeAudit::observe`] to take in order.
#[derive(Debug)]
pub struct CheckedCall {
    /// The canonical arguments, for the fingerprint of a finding.
    args: Vec<u8>,
    arguments: Vec<ArgumentViolation>,
    response: Vec<SensitiveResponse>,
}

impl Scope {
    /// The checks of the call to `tool` with the canonical arguments `args` and the
    /// canonical response `response` (as the transcript reader hands them over) that
    /// need no other call: its arguments against the rules of its tool, and its
    /// response against the detectors.
    pub fn check_call(&self, tool: &str, args: &[u8], response: &[u8]) -> CheckedCall {
        self.check_call_in(tool, (args, &PathContext::default()), response)
    }

    /// [`Scope::check_call`] of a call made where `context` says (see
    /// [`Policy::check_arguments_in`]).
    pub fn check_call_in(
        &self,
        tool: &str,
        (args, context): (&[u8], &PathContext),
        response: &[u8],
    ) -> CheckedCall {
        let (arguments, response) = match &self.policy {
            Some(policy) => policy.check_call(tool, (args, context), response),
            None => (Vec::new(), Vec::new()),
        };
        CheckedCall {
            args: args.to_vec(),
            arguments,
            response,
        }
    }
}

impl Scope {
    /// The scope audit of the transcript read from `reader`: each call is checked
    /// alone on the parsing threads, and only the rules that depend on the calls
    /// before it are left to the walk in order.
    ///
    /// ```
    /// use toolreplay_core::Scope;
    ///
    /// let scope = Scope::parse(br#"{"agent": "docs", "allowed_tools": ["read_file"]}"#)?;
    /// let transcript = "\
    /// {\"index\": 0, \"tool\": \"read_file\", \"args\": {\"path\": \"a.md\"}, \"response\": {}}
    /// {\"index\": 1, \"tool\": \"send_email\", \"args\": {}, \"response\": {}}
    /// ";
    /// let report = scope.audit(transcript.as_bytes(), toolreplay_core::Threads::default())?;
    /// assert_eq!(report.calls, 2);
    /// let findings = report.findings.to_vec()?;
    /// assert_eq!(findings[0].index, 1);
    /// assert_eq!(findings[0].kind.name(), "permission-overreach");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn audit(
        &self,
        reader: impl std::io::Read + Send,
        threads: crate::pipeline::Threads,
    ) -> Result<ScopeReport, crate::transcript::ReadError> {
        self.audit_in(reader, threads, &Contexts::default())
    }

    /// [`Scope::audit`] of a session whose calls ran where `contexts` says (a live
    /// session's context file keeps it): path rules read each call's paths as the
    /// agent's tools did then, as the live decisions did.
    pub fn audit_in(
        &self,
        reader: impl std::io::Read + Send,
        threads: crate::pipeline::Threads,
        contexts: &Contexts,
    ) -> Result<ScopeReport, crate::transcript::ReadError> {
        let mut audit = ScopeAudit::new(self);
        crate::transcript::for_each_record(
            reader,
            threads,
            |record| {
                // The index as written is the record's place, or the record is an
                // error when it is placed.
                let index = record.index.parse().unwrap_or(u64::MAX);
                let context = contexts.at(index);
                self.check_call_in(record.tool, (record.args, context), record.response)
            },
            |line, _, tool, checked| {
                audit.observe(line, tool, checked);
                Ok::<(), std::convert::Infallible>(())
            },
        )
        .map_err(crate::pipeline::Stop::into_read_error)?;
        Ok(audit.finish())
    }
}

/// The scope audit of a transcript: its records taken in order through a
/// [`Session`], as a live session would have decided them, each with its response
/// checked. The checks of each call alone ([`Scope::check_call`]) can run ahead, on
/// other threads.
#[derive(Debug)]
pub(crate) struct ScopeAudit<'s> {
    session: Session<'s>,
    findings: Findings,
    /// Room for the name of a tool with findings.
    tool: String,
}

impl<'s> ScopeAudit<'s> {
    /// An audit of a transcript against `scope`.
    pub(crate) fn new(scope: &'s Scope) -> Self {
        ScopeAudit {
            session: Session::new(scope),
            findings: Findings::new(),
            tool: String::new(),
        }
    }

    /// Takes the next record, found on the 1-based physical line `line`, a call to
    /// `tool` checked alone as `checked` says: its findings are those of the call's
    /// decision, then those of its response.
    pub(crate) fn observe(&mut self, line: u64, tool: &str, checked: CheckedCall) {
        let (index, mut found) = self.session.decide_checked(tool, checked.arguments);
        found.extend(
            checked
                .response
                .into_iter()
                .map(FindingKind::SensitiveResponse),
        );
        if found.is_empty() {
            return;
        }
        let call = call_canonical(tool, &checked.args);
        // One finding written over for each kind, its tool's name in room kept
        // from call to call: no allocation per finding.
        let mut kinds = found.into_iter();
        let Some(first) = kinds.next() else {
            return;
        };
        let mut name = std::mem::take(&mut self.tool);
        name.clear();
        name.push_str(tool);
        let mut finding = Finding {
            index,
            tool: name,
            kind: first,
            line,
            call,
        };
        self.findings.push(&finding);
        for kind in kinds {
            finding.kind = kind;
            self.findings.push(&finding);
        }
        self.tool = finding.tool;
    }

    /// The report on the records seen.
    pub(crate) fn finish(self) -> ScopeReport {
        let scope = self.session.scope();
        ScopeReport {
            agent: scope.agent.clone(),
            calls: self.session.next_index(),
            findings: self.findings,
            policy: scope.policy.is_some(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::finding::ArgumentViolation;
    use crate::scope::Scope;

    /// A policy's checks, with the policy read from a scope: bytes that are not
    /// JSON break every rule of a tool with rules, in one violation: no check is
    /// skipped. (A response that is not JSON cannot be
    /// scanned: see the scanner's tests.)
    #[test]
    fn what_cannot_be_read_fails_closed() {
        let scope = Scope::parse(
            br#"{"agent": "a", "allowed_tools": ["t"], "policy_version": 1,
                "tools": {"t": {"paths": [{"args": ["/p"], "deny": ["x"]}]}}}"#,
        )
        .expect("a valid scope");
        let policy = scope.policy.as_ref().expect("a policy");
        assert_eq!(
            policy.check_arguments("t", b"{\"p\": \"x\""),
            [ArgumentViolation::Unreadable {
                reason: "invalid JSON: expected `,` or `}`, found end of input at column 10".into()
            }]
        );
        assert_eq!(policy.check_arguments("other", b"\xff"), []);
    }

    /// Messages of the argument checks of `tool` with `args` under `scope`.
    fn violations(scope: &Scope, tool: &str, args: &str) -> Vec<String> {
        let policy = scope.policy.as_ref().expect("a policy");
        policy
            .check_arguments(tool, args.as_bytes())
            .iter()
            .map(|v| format!("{v:?}"))
            .collect()
    }

    const RULES: &str = r#"{"agent": "a", "allowed_tools": ["Read", "Bash"], "policy_version": 1,
        "tools": {
          "Read": {"paths": [{"args": ["/file_path"], "deny": ["**/.env", "secret/*.{pem,key}"]}]},
          "Bash": {"commands": [{"args": ["/command"], "deny": ["rm -r* **"], "allow": ["ls **", "rm **"], "protect": ["**/.git/**"]}]}
        }}"#;

    /// A scope read again (its globs and patterns compiled as calls need them)
    /// judges every call exactly as the scope checked when it was read.
    #[test]
    fn a_scope_read_again_judges_as_the_scope_checked() {
        let (checked, again) = (
            Scope::parse(RULES.as_bytes()).expect("a valid scope"),
            Scope::reparse(RULES.as_bytes()).expect("a valid scope"),
        );
        for (tool, args) in [
            ("Read", r#"{"file_path": "src/.env"}"#),
            ("Read", r#"{"file_path": "secret/a.pem"}"#),
            ("Read", r#"{"file_path": "secret/a.txt"}"#),
            ("Bash", r#"{"command": "rm -rf /"}"#),
            ("Bash", r#"{"command": "ls -la"}"#),
            ("Bash", r#"{"command": "cat x"}"#),
            ("Bash", r#"{"command": "ls .git/config"}"#),
        ] {
            assert_eq!(
                violations(&again, tool, args),
                violations(&checked, tool, args),
                "{tool} {args}"
            );
        }
        assert_eq!(
            violations(&again, "Read", r#"{"file_path": "src/lib.rs"}"#),
            Vec::<String>::new()
        );
    }

    /// Bytes given to `reparse` that `parse` would refuse: a glob or pattern that
    /// does not compile judges every call it sees as a violation, never none.
    #[test]
    fn a_scope_read_again_that_does_not_compile_fails_closed() {
        let broken = RULES
            .replace("secret/*.{pem,key}", "secret/[")
            .replace("\"ls **\"", "\"ls [\"")
            .replace("\"rm -r* **\"", "\"rm -r[ **\"");
        assert!(Scope::parse(broken.as_bytes()).is_err());
        let again = Scope::reparse(broken.as_bytes()).expect("read without checking");
        for (tool, args) in [
            ("Read", r#"{"file_path": "src/lib.rs"}"#),
            ("Bash", r#"{"command": "rm x"}"#),
            ("Bash", r#"{"command": "ls -la"}"#),
        ] {
            assert!(!violations(&again, tool, args).is_empty(), "{tool} {args}");
        }
    }
}
