//! Deciding the calls of a session one at a time, as they are made: the rules of a
//! scope judge a call before it runs, given what is kept of the calls before it
//! (a [`SessionState`]), and its response after it ran.
//!
//! This is how `scope` judges a transcript too ([`super::ScopeAudit`] takes each
//! record through [`Session`]), so a call is judged the same live as after the
//! fact: `permission-overreach`, `argument-violation`, `budget-exceeded` and
//! `flow-violation` are the findings of [`Session::decide`], `sensitive-response`
//! those of [`Session::check_response`]. Every decided call counts for the calls
//! after it, allowed or denied: a denied attempt still counts for the budgets, and
//! a denied call to a flow's source still marks the source as seen.
//!
//! ```
//! use toolreplay_core::{Scope, Session, finding_message, parse_json};
//!
//! let scope = Scope::parse(br#"{
//!     "agent": "mailer",
//!     "allowed_tools": ["fetch_url", "send_email"],
//!     "policy_version": 1,
//!     "flows": [{"name": "web-to-mail", "sources": ["fetch_url"], "sinks": ["send_email"]}]
//! }"#)
//! .expect("a valid scope file");
//! let mut session = Session::new(&scope);
//!
//! let fetch = parse_json(r#"{"url": "https://example.com/"}"#).expect("JSON");
//! let decision = session.decide("fetch_url", &fetch);
//! assert_eq!(decision.index, 0);
//! assert!(decision.is_allowed());
//!
//! let send = parse_json(r#"{"to": "ana@example.com"}"#).expect("JSON");
//! let decision = session.decide("send_email", &send);
//! assert_eq!(decision.index, 1);
//! let messages: Vec<String> = decision
//!     .findings
//!     .iter()
//!     .map(|finding| finding_message(finding, &scope.agent))
//!     .collect();
//! assert_eq!(
//!     messages,
//!     ["tool 'send_email' is a sink called after the source 'fetch_url' at index 0 (flow 'web-to-mail')"]
//! );
//!
//! // What a short-lived process keeps until the next call.
//! let state = session.into_state();
//! assert_eq!(Session::resume(&scope, state).next_index(), 2);
//! ```

use serde::{Deserialize, Serialize};

use super::Scope;
use crate::canonical;
use crate::finding::{ArgumentViolation, Finding, FindingKind, SensitiveResponse};
use crate::fingerprint::call_canonical;
use crate::graph::PolicyRole;
use crate::json::{self, Value};
use crate::policy::{History, PathContext};

/// What a session keeps of the calls decided so far: the index of the next call,
/// and the [`History`] of the scope's budgets and flows. Its size grows with the
/// number of tools with a budget and of flows, never with the number of calls. It
/// serialises with serde, so that a process living for one call can save it and the
/// next resume from it; it means something only with the scope it was made with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionState {
    /// The index the next call gets: the number of calls decided so far.
    next_index: u64,
    /// What the budgets and flows keep of those calls.
    history: History,
}

/// The decision on one call, made before it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// The call's index in the session: its place in the order of decisions.
    pub index: u64,
    /// The findings that deny the call, sorted by kind name (`argument-violation`,
    /// `budget-exceeded`, `flow-violation`, `permission-overreach`); none when it is
    /// allowed. Each finding's `line` is `index + 1`, the call's line in a session
    /// transcript written one record per line.
    pub findings: Vec<Finding>,
}

impl Decision {
    /// Whether the call may run: no rule denies it.
    pub fn is_allowed(&self) -> bool {
        self.findings.is_empty()
    }
}

/// The calls of one session, decided one at a time against a scope.
#[derive(Debug)]
pub struct Session<'s> {
    scope: &'s Scope,
    /// The allowed tools, looked up for every call (foldhash rather than SipHash).
    allowed: hashbrown::HashSet<&'s str>,
    /// The roles of `allowed_tools` (`role:shell`).
    allowed_roles: Vec<PolicyRole>,
    state: SessionState,
    /// Where the calls are made.
    context: PathContext,
}

impl<'s> Session<'s> {
    /// A session with no call decided yet.
    pub fn new(scope: &'s Scope) -> Self {
        Self::resume(scope, SessionState::default())
    }

    /// A session that goes on from `state`, which a session against the same scope
    /// left.
    pub fn resume(scope: &'s Scope, state: SessionState) -> Self {
        Session {
            scope,
            allowed: scope.allowed_tools.iter().map(String::as_str).collect(),
            allowed_roles: scope
                .allowed_tools
                .iter()
                .filter_map(|name| PolicyRole::of_name(name).ok().flatten())
                .collect(),
            state,
            context: PathContext::default(),
        }
    }

    /// Where the calls decided from now on are made: path rules read their paths as
    /// the agent's tools do there (see [`PathContext`]). Nothing is known until this
    /// is said; it is not part of the state.
    pub fn set_context(&mut self, context: PathContext) {
        self.context = context;
    }

    /// Whether `tool` has a role `allowed_tools` lists.
    fn allowed_by_role(&self, tool: &str) -> bool {
        !self.allowed_roles.is_empty()
            && crate::graph::policy_roles_of(tool)
                .iter()
                .any(|(role, _)| self.allowed_roles.contains(role))
    }

    /// Where the calls are made, as last said.
    pub fn context(&self) -> &PathContext {
        &self.context
    }

    /// The scope the calls are decided against.
    pub fn scope(&self) -> &'s Scope {
        self.scope
    }

    /// What the session keeps of the calls decided so far.
    pub fn state(&self) -> &SessionState {
        &self.state
    }

    /// The session's state, to be saved.
    pub fn into_state(self) -> SessionState {
        self.state
    }

    /// The index the next call gets.
    pub fn next_index(&self) -> u64 {
        self.state.next_index
    }

    /// Decides the next call, to `tool` with `args`, and counts it, whatever the
    /// decision: its index is [`Session::next_index`]. Arguments nested deeper than
    /// a transcript record holds are unreadable, whatever the rules: such a call
    /// could not be recorded.
    pub fn decide(&mut self, tool: &str, args: &Value) -> Decision {
        let (arguments, call) = match too_deep(args) {
            Some(reason) => (
                vec![ArgumentViolation::Unreadable { reason }],
                call_canonical(tool, b""),
            ),
            None => {
                let args = canonical::encode(args);
                let arguments = match &self.scope.policy {
                    Some(policy) => policy.check_arguments_in(tool, &args, &self.context),
                    None => Vec::new(),
                };
                (arguments, call_canonical(tool, &args))
            }
        };
        let (index, kinds) = self.decide_checked(tool, arguments);
        Decision {
            index,
            findings: findings(index, tool, call, kinds),
        }
    }

    /// What the detectors of the scope find in `response`, the response of the call
    /// at `index` to `tool` with `args`: in the order of the response's canonical
    /// encoding, and by detector name on one string. A response nested deeper than a
    /// transcript record holds cannot be scanned: one finding says so.
    pub fn check_response(
        &self,
        index: u64,
        tool: &str,
        args: &Value,
        response: &Value,
    ) -> Vec<Finding> {
        self.response_findings(index, tool, response, || match too_deep(args) {
            Some(_) => call_canonical(tool, b""),
            None => call_canonical(tool, &canonical::encode(args)),
        })
    }

    /// [`Session::check_response`] for a call whose arguments are known by their
    /// canonical encoding `args` only (a live session keeps them so).
    pub(crate) fn check_response_canonical(
        &self,
        index: u64,
        tool: &str,
        args: &[u8],
        response: &Value,
    ) -> Vec<Finding> {
        self.response_findings(index, tool, response, || call_canonical(tool, args))
    }

    /// The findings of the detectors in `response`, of the call whose digest `call`
    /// gives (made only when there is a finding).
    fn response_findings(
        &self,
        index: u64,
        tool: &str,
        response: &Value,
        call: impl FnOnce() -> [u8; 32],
    ) -> Vec<Finding> {
        let Some(policy) = &self.scope.policy else {
            return Vec::new();
        };
        let found = match too_deep(response) {
            Some(reason) => vec![SensitiveResponse::Unscannable { reason }],
            None => policy.check_response(tool, &canonical::encode(response)),
        };
        if found.is_empty() {
            return Vec::new();
        }
        let kinds = found.into_iter().map(FindingKind::SensitiveResponse);
        findings(index, tool, call(), kinds)
    }

    /// Decides the next call, to `tool`, whose arguments break the rules of its tool
    /// as `arguments` says (see [`crate::policy::Policy::check_arguments`], which
    /// needs no other call and can run ahead, on any thread), and counts it: its
    /// index, and its findings sorted by kind name.
    pub(crate) fn decide_checked(
        &mut self,
        tool: &str,
        arguments: Vec<ArgumentViolation>,
    ) -> (u64, Vec<FindingKind>) {
        let index = self.state.next_index;
        self.state.next_index = index.saturating_add(1);
        let mut found: Vec<FindingKind> = arguments
            .into_iter()
            .map(FindingKind::ArgumentViolation)
            .collect();
        if let Some(policy) = &self.scope.policy {
            policy.take_call(&mut self.state.history, index, tool, &mut found);
        }
        if !self.allowed.contains(tool) && !self.allowed_by_role(tool) {
            found.push(FindingKind::PermissionOverreach);
        }
        debug_assert!(
            found.is_sorted_by_key(FindingKind::name),
            "argument-violation, budget-exceeded, flow-violation, permission-overreach"
        );
        (index, found)
    }
}

/// The findings `kinds` on the call at `index` to `tool`, whose fingerprint is
/// `call`, at the line the call has in a session transcript.
fn findings(
    index: u64,
    tool: &str,
    call: [u8; 32],
    kinds: impl IntoIterator<Item = FindingKind>,
) -> Vec<Finding> {
    kinds
        .into_iter()
        .map(|kind| Finding {
            index,
            tool: tool.to_owned(),
            kind,
            line: index.saturating_add(1),
            call,
        })
        .collect()
}

/// Why `value` cannot be the arguments or the response of a call, if it nests
/// objects and arrays deeper than a transcript record holds them (the record is one
/// of the [`json::MAX_DEPTH`] levels): found without recursion, however deep.
pub(crate) fn too_deep(value: &Value) -> Option<Box<str>> {
    let limit = json::MAX_DEPTH - 1;
    let too_deep =
        || Some(format!("nesting deeper than {limit} levels of objects and arrays").into());
    // Each value with the number of containers around it.
    let mut stack = vec![(value, 0usize)];
    while let Some((value, depth)) = stack.pop() {
        match value {
            Value::Array(_) | Value::Object(_) if depth >= limit => return too_deep(),
            Value::Array(items) => stack.extend(items.iter().map(|item| (item, depth + 1))),
            Value::Object(members) => {
                stack.extend(members.iter().map(|(_, member)| (member, depth + 1)));
            }
            Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{Session, SessionState};
    use crate::finding::Finding;
    use crate::json;
    use crate::scope::{Scope, ScopeAudit};
    use crate::transcript;

    /// A scope whose policy has a rule of every kind, some met by the calls below.
    const SCOPE: &str = r#"{
        "agent": "agent",
        "allowed_tools": ["read_file", "fetch_url", "send_email", "run"],
        "policy_version": 1,
        "budgets": {"total": 7, "per_tool": {"fetch_url": 2, "run": 1}},
        "flows": [
            {"name": "web-to-mail", "sources": ["fetch_url"], "sinks": ["send_email", "run"]},
            {"name": "run-once", "sources": ["run"], "sinks": ["run"]}
        ],
        "response_detectors": ["email-address", "secrets"],
        "tools": {
            "read_file": {
                "args_schema": {"type": "object", "required": ["path"]},
                "paths": [{"args": ["/path"], "root": "/work", "deny": ["**/.env"]}]
            },
            "fetch_url": {
                "urls": [{"args": ["/url"], "allow_hosts": ["example.com"]}],
                "response_detectors": ["secrets"]
            },
            "run": {"args_schema": {"type": "object", "properties": {"n": {"type": "integer"}}}}
        }
    }"#;

    const TOOLS: [&str; 5] = ["read_file", "fetch_url", "send_email", "run", "other"];

    fn args() -> Vec<String> {
        vec![
            "{}".to_owned(),
            r#"{"path": "docs/a.md"}"#.to_owned(),
            r#"{"path": "/work/.env"}"#.to_owned(),
            r#"{"path": 7}"#.to_owned(),
            r#"{"url": "https://example.com/"}"#.to_owned(),
            r#"{"url": "https://evil.example/"}"#.to_owned(),
            format!(r#"{{"n": 1{}}}"#, "0".repeat(400)),
        ]
    }

    const RESPONSES: [&str; 4] = [
        "{}",
        r#"{"t": "mail ana@example.com"}"#,
        r#"{"t": "key AKIAIOSFODNN7EXAMPLE"}"#,
        r#"{"ana@example.com": "AKIAIOSFODNN7EXAMPLE"}"#,
    ];

    /// The findings of `scope` on the transcript of `calls` (tool, args, response
    /// as JSON text), read as the command line reads it: each line parsed into
    /// canonical fields, checked alone, then taken in order by the audit.
    fn batch(scope: &Scope, calls: &[(&str, String, &str)]) -> Vec<Finding> {
        let mut audit = ScopeAudit::new(scope);
        for (i, (tool, args, response)) in calls.iter().enumerate() {
            let line = format!(
                r#"{{"index": {i}, "tool": "{tool}", "args": {args}, "response": {response}}}"#
            );
            let number = i as u64 + 1;
            let unplaced = transcript::parse_unplaced_with(number, &line, |record| {
                scope.check_call(record.tool, record.args, record.response)
            })
            .expect("a valid record");
            audit.observe(number, &unplaced.tool, unplaced.value);
        }
        audit.finish().findings.to_vec().expect("findings")
    }

    /// The findings of a session on `calls`, one call at a time: the decision, then
    /// the response; the state saved and read back between calls, as a process per
    /// call would.
    fn live(scope: &Scope, calls: &[(&str, String, &str)]) -> Vec<Finding> {
        let mut saved = serde_json::to_string(&SessionState::default()).expect("state");
        let mut found = Vec::new();
        for (tool, args, response) in calls {
            let state: SessionState = serde_json::from_str(&saved).expect("state");
            let mut session = Session::resume(scope, state);
            let args = json::parse(args).expect("JSON");
            let decision = session.decide(tool, &args);
            let response = json::parse(response).expect("JSON");
            found.extend(decision.findings);
            found.extend(session.check_response(decision.index, tool, &args, &response));
            saved = serde_json::to_string(session.state()).expect("state");
        }
        found
    }

    fn calls() -> impl Strategy<Value = Vec<(usize, usize, usize)>> {
        prop::collection::vec((0..TOOLS.len(), 0..7usize, 0..RESPONSES.len()), 0..24)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Feeding a transcript call by call to a session gives exactly the
        /// findings of the batch audit, with and without a policy.
        #[test]
        fn a_session_finds_what_the_audit_finds(picked in calls()) {
            let args = args();
            let calls: Vec<(&str, String, &str)> = picked
                .iter()
                .map(|&(t, a, r)| (TOOLS[t], args[a].clone(), RESPONSES[r]))
                .collect();
            for text in [SCOPE, r#"{"agent": "agent", "allowed_tools": ["run"]}"#] {
                let scope = Scope::parse(text.as_bytes()).expect("a valid scope");
                prop_assert_eq!(live(&scope, &calls), batch(&scope, &calls));
            }
        }
    }

    /// A value nested `levels` deep: arrays around an empty object.
    fn nested(levels: usize) -> json::Value {
        let mut value = json::Value::Object(Vec::new());
        for _ in 1..levels {
            value = json::Value::Array(vec![value]);
        }
        value
    }

    /// Arguments or a response nested deeper than a transcript record holds them
    /// are denied and unscannable, whatever the rules; as deep as a record holds
    /// them, they are judged as usual.
    #[test]
    fn values_deeper_than_a_record_fail_closed() {
        let scope = Scope::parse(SCOPE.as_bytes()).expect("a valid scope");
        let mut session = Session::new(&scope);
        let message = |f: &Finding| crate::finding::finding_message(f, &scope.agent);
        let deepest = nested(json::MAX_DEPTH - 1);
        assert!(session.decide("send_email", &deepest).is_allowed());
        assert_eq!(
            session.check_response(0, "send_email", &deepest, &deepest),
            []
        );
        let deeper = nested(json::MAX_DEPTH);
        let decision = session.decide("send_email", &deeper);
        assert_eq!(
            decision.findings.iter().map(message).collect::<Vec<_>>(),
            [
                "tool 'send_email' arguments cannot be read: nesting deeper than 127 levels of objects and arrays"
            ]
        );
        let found = session.check_response(1, "send_email", &deepest, &nested(1000));
        assert_eq!(
            found.iter().map(message).collect::<Vec<_>>(),
            [
                "tool 'send_email' response cannot be scanned: nesting deeper than 127 levels of objects and arrays"
            ]
        );
    }

    /// Every kind of finding of a decision and of a response, at once.
    #[test]
    fn decisions_and_responses_find_every_kind() {
        let scope = Scope::parse(SCOPE.as_bytes()).expect("a valid scope");
        let args = args();
        let calls: Vec<(&str, String, &str)> = vec![
            ("fetch_url", args[4].clone(), RESPONSES[0]),
            ("fetch_url", args[5].clone(), RESPONSES[2]),
            ("fetch_url", args[0].clone(), RESPONSES[0]),
            ("read_file", args[2].clone(), RESPONSES[1]),
            ("run", args[6].clone(), RESPONSES[3]),
            ("run", args[0].clone(), RESPONSES[0]),
            ("other", args[0].clone(), RESPONSES[0]),
            ("send_email", args[0].clone(), RESPONSES[0]),
        ];
        let found: Vec<String> = live(&scope, &calls)
            .iter()
            .map(|f| {
                format!(
                    "{} {}: {}",
                    f.index,
                    f.kind.name(),
                    crate::finding::finding_message(f, &scope.agent)
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                "1 argument-violation: tool 'fetch_url' argument '/url' host 'evil.example' matches no allow host (urls[0])",
                "1 sensitive-response: tool 'fetch_url' response field '/t' matches detector 'aws-access-key-id'",
                "2 budget-exceeded: tool 'fetch_url' is call 3 to this tool, over its budget of 2 (budgets.per_tool)",
                "3 argument-violation: tool 'read_file' argument '/path' path '.env' matches deny glob '**/.env' (paths[0])",
                "3 sensitive-response: tool 'read_file' response field '/t' matches detector 'email-address'",
                "4 argument-violation: tool 'run' arguments cannot be evaluated against args_schema: argument '/n' is an integer beyond the range of a 64-bit float",
                "4 flow-violation: tool 'run' is a sink called after the source 'fetch_url' at index 2 (flow 'web-to-mail')",
                "4 sensitive-response: tool 'run' response has a key in '' that matches detector 'email-address'",
                "4 sensitive-response: tool 'run' response field '/{email-address}' matches detector 'aws-access-key-id'",
                "5 budget-exceeded: tool 'run' is call 2 to this tool, over its budget of 1 (budgets.per_tool)",
                "5 flow-violation: tool 'run' is a sink called after the source 'fetch_url' at index 2 (flow 'web-to-mail')",
                "5 flow-violation: tool 'run' is a sink called after the source 'run' at index 4 (flow 'run-once')",
                "6 permission-overreach: tool 'other' is not in the declared scope for agent 'agent'",
                "7 budget-exceeded: tool 'send_email' is call 8 in all, over the total budget of 7 (budgets.total)",
                "7 flow-violation: tool 'send_email' is a sink called after the source 'fetch_url' at index 2 (flow 'web-to-mail')",
            ]
        );
    }
}
