//! Policy rules of a scope file: argument rules, budgets, response detectors and
//! flows (the format is documented in docs/policy.md).
//!
//! A policy is read and compiled once, with the scope file: every glob, host
//! pattern, JSON Schema and regular expression is checked then, so a bad policy is an
//! input error before any record is read. [`Policy::check_arguments`] and
//! [`Policy::check_response`] look at one call alone, and can run on any thread;
//! budgets and flows judge a call by the calls before it, of which a [`History`] is
//! kept (see [`crate::scope::Session`], which decides calls one at a time).
//!
//! Where a policy names a tool it may name a role (`role:shell`): the tools the
//! built-in roles table ([`crate::graph::Roles::standard`]) gives that role, under
//! every agent's names. A call is judged by its tool's entry and by each of its
//! roles' entries; a role's rule without `args` reads the arguments the table names
//! for the call's tool.
//!
//! By concern: this module holds the compiled [`Policy`] and the checks of one
//! call; `compile` reads the policy fields of a scope file into it; `detect` holds
//! the response detectors, `paths` and `urls` the argument rules on paths and URLs,
//! `pointer` the JSON pointers that name arguments, `history` the budgets and flows,
//! `schema` the bound on what an `args_schema` costs to evaluate.

mod cache;
mod commands;
mod compile;
mod detect;
mod history;
pub(crate) mod paths;
pub(crate) mod pointer;
mod schema;
mod urls;

pub(crate) use history::History;

/// Whether the globs and command patterns of a policy are checked as it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Checking {
    /// Each is checked now: one that does not compile is an error of the policy.
    Now,
    /// The same bytes were read, checked, before: each is compiled when a call first
    /// needs it, and one that does not compile then judges every call it sees as a
    /// violation (fail closed).
    Before,
}

use std::fmt;

use crate::canonical;
use crate::finding::{
    ArgumentViolation, CommandProblem, FindingKind, PathProblem, SensitiveResponse, UrlProblem,
};
use crate::graph::{PolicyRole, Role, Roles, policy_roles_of as policy_roles};
use crate::json::{self, Value};

use commands::{CommandRule, CommandVerdict};
use detect::{Catalog, Scanner};
use history::{Budgets, Flows};
pub use paths::PathContext;
use paths::{PathRule, PathVerdict};
use pointer::Pointer;
use urls::{UrlRule, UrlVerdict};

/// The ready-made dangerous-commands rule of docs/policy.md: one element of a
/// tool's `commands` list, as JSON, for a tool whose `command` argument is a shell
/// command (Claude Code's `Bash`); without its `args`, a rule of `role:shell`.
pub const DANGEROUS_COMMANDS: &str = include_str!("dangerous-commands.json");

/// The version of the policy format this build reads.
pub(crate) const POLICY_VERSION: u64 = 1;

/// The fields of a scope file that hold policy rules; `policy_version` is required
/// with any of them.
pub(crate) const RULE_FIELDS: [&str; 6] = [
    "budgets",
    "custom_detectors",
    "flows",
    "prompt_detectors",
    "response_detectors",
    "tools",
];

/// The draft a schema may declare with `$schema`, the only one read.
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// A compiled policy.
pub struct Policy {
    budgets: Budgets,
    flows: Flows,
    catalog: Catalog,
    scanners: Vec<Scanner>,
    /// The scanner for tools without their own `response_detectors`.
    default_scanner: Option<usize>,
    /// The scanner of the user's prompts (`prompt_detectors`).
    prompt_scanner: Option<usize>,
    /// By tool name: looked up for every call, so with foldhash rather than SipHash.
    tools: hashbrown::HashMap<String, ToolRules>,
    /// By role (`tools['role:shell']`), in [`PolicyRole::ALL`]'s order. A rule's
    /// `args` left out (no pointers) are those the role table names for each tool.
    roles: Vec<(PolicyRole, ToolRules)>,
    /// Whether budgets or flows name a role, so that a call's roles are looked up
    /// for them.
    history_roles: bool,
    /// The argument checks of recent calls.
    args_cache: cache::ArgsCache,
}

impl fmt::Debug for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Policy")
            .field("budgets", &self.budgets)
            .field("flows", &self.flows)
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .field(
                "roles",
                &self
                    .roles
                    .iter()
                    .map(|(role, _)| role.key())
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// The rules of one tool.
#[derive(Default)]
struct ToolRules {
    schema: Option<jsonschema::Validator>,
    paths: Vec<(Vec<Pointer>, PathRule)>,
    urls: Vec<(Vec<Pointer>, UrlRule)>,
    commands: Vec<(Vec<Pointer>, CommandRule)>,
    /// `None`: the default; `Some(None)`: no detectors; `Some(Some(i))`: scanner `i`.
    scanner: Option<Option<usize>>,
}

impl ToolRules {
    /// Whether the argument checks may differ in `context` from those without one:
    /// path rules and the `protect` globs of command rules read paths from the
    /// working directory and the home, and relative roots from the start.
    fn depends_on(&self, context: &PathContext) -> bool {
        let placed = context.cwd.is_some() || context.home.is_some();
        (placed && self.commands.iter().any(|(_, rule)| rule.protect.is_some()))
            || self.paths.iter().any(|(_, rule)| {
                context.cwd.is_some()
                    || context.home.is_some()
                    || (context.project.is_some()
                        && rule.root.as_ref().is_some_and(|r| !r.starts_with('/')))
            })
    }
}

/// An error in a policy: the scope file's top-level field it is in, and the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PolicyError {
    /// The top-level field.
    pub field: String,
    /// What is wrong, starting with where.
    pub message: String,
}

impl Policy {
    /// Takes the call at `index` to `tool` into `history`, the history of the calls
    /// before it, and adds its findings on the budgets and flows to `found`: the
    /// total budget, then the tool's budget, then the flows in the policy's order.
    pub(crate) fn take_call(
        &self,
        history: &mut History,
        index: u64,
        tool: &str,
        found: &mut Vec<FindingKind>,
    ) {
        let roles = if self.history_roles {
            policy_roles(tool)
                .into_iter()
                .map(|(role, _)| role)
                .collect()
        } else {
            Vec::new()
        };
        history.take(&self.budgets, &self.flows, index, (tool, &roles), found);
    }

    /// The role rules that apply to `tool`: those of its roles by the built-in table,
    /// in [`PolicyRole::ALL`]'s order, each with the table's role of the tool (none
    /// for `mcp`).
    fn role_rules(&self, tool: &str) -> Vec<(PolicyRole, &ToolRules, Option<&'static Role>)> {
        if self.roles.is_empty() {
            return Vec::new();
        }
        Roles::standard()
            .policy_roles_of(tool)
            .into_iter()
            .filter_map(|(role, entry)| {
                self.roles
                    .iter()
                    .find(|(r, _)| *r == role)
                    .map(|(_, rules)| (role, rules, entry))
            })
            .collect()
    }

    /// Whether the policy has an entry for a role (`tools['role:shell']`).
    pub fn has_role_rules(&self) -> bool {
        !self.roles.is_empty()
    }

    /// The tools the policy has rules for, sorted.
    pub fn tool_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.tools.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    /// How the arguments of a call to `tool` break the tool's rules: the schema,
    /// then path rules, then URL rules, then command rules, each in the policy's
    /// order, each rule's arguments in its order; then those of each of its roles
    /// (as [`ArgumentViolation::ByRole`]), in [`PolicyRole::ALL`]'s order. `args` is
    /// the canonical encoding of the arguments; arguments that cannot be read break
    /// every rule, in one violation. Paths are judged without the session's context (see
    /// [`Policy::check_arguments_in`]).
    pub fn check_arguments(&self, tool: &str, args: &[u8]) -> Vec<ArgumentViolation> {
        self.arguments_by(tool, args, &PathContext::default())
    }

    /// [`Policy::check_arguments`] for a call made where `context` says: path rules
    /// read its paths as the agent's tools do there (see [`PathContext`]).
    pub fn check_arguments_in(
        &self,
        tool: &str,
        args: &[u8],
        context: &PathContext,
    ) -> Vec<ArgumentViolation> {
        self.arguments_by(tool, args, context)
    }

    /// [`Policy::check_arguments_in`] and [`Policy::check_response`] of one call, its
    /// tool's rules looked up once.
    pub(crate) fn check_call(
        &self,
        tool: &str,
        (args, context): (&[u8], &PathContext),
        response: &[u8],
    ) -> (Vec<ArgumentViolation>, Vec<SensitiveResponse>) {
        let roles = self.role_rules(tool);
        (
            self.arguments_by_rules(tool, &roles, args, context),
            self.response_by(self.scanner_of(tool, &roles), response),
        )
    }

    /// [`Policy::check_arguments_in`].
    fn arguments_by(
        &self,
        tool: &str,
        args: &[u8],
        context: &PathContext,
    ) -> Vec<ArgumentViolation> {
        let roles = self.role_rules(tool);
        self.arguments_by_rules(tool, &roles, args, context)
    }

    /// [`Policy::check_arguments_in`] by the rules of `tool`: its own, then those of
    /// its roles, `roles`.
    fn arguments_by_rules(
        &self,
        tool: &str,
        roles: &[(PolicyRole, &ToolRules, Option<&Role>)],
        args: &[u8],
        context: &PathContext,
    ) -> Vec<ArgumentViolation> {
        let own = self.tools.get(tool).filter(|rules| !rules.is_empty());
        let roles: Vec<_> = roles
            .iter()
            .filter(|(_, rules, _)| !rules.is_empty())
            .collect();
        if own.is_none() && roles.is_empty() {
            return Vec::new();
        }
        let check = || {
            // One parse for every rule.
            let tree = match json::decode_document(args).and_then(json::parse) {
                Ok(tree) => tree,
                Err(err) => {
                    return vec![ArgumentViolation::Unreadable {
                        reason: err.to_string().into(),
                    }];
                }
            };
            let mut found = Vec::new();
            if let Some(rules) = own {
                check_arguments(rules, None, &tree, context, &mut found);
            }
            for (role, rules, entry) in &roles {
                let mut by_role = Vec::new();
                check_arguments(rules, *entry, &tree, context, &mut by_role);
                found.extend(
                    by_role
                        .into_iter()
                        .map(|violation| ArgumentViolation::ByRole {
                            role: *role,
                            violation: Box::new(violation),
                        }),
                );
            }
            found
        };
        let depends = own.is_some_and(|rules| rules.depends_on(context))
            || roles.iter().any(|(_, rules, _)| rules.depends_on(context));
        if depends {
            // The cache keeps checks made without a context.
            return check();
        }
        // A call is often the same as one shortly before it: the same check.
        self.args_cache.get_or_check(tool, args, check)
    }

    /// The scanner of the responses of `tool`, whose role rules are `roles`: its
    /// own `response_detectors`, else the first of its roles', else the default.
    fn scanner_of(
        &self,
        tool: &str,
        roles: &[(PolicyRole, &ToolRules, Option<&Role>)],
    ) -> Option<usize> {
        self.tools
            .get(tool)
            .and_then(|rules| rules.scanner)
            .or_else(|| roles.iter().find_map(|(_, rules, _)| rules.scanner))
            .unwrap_or(self.default_scanner)
    }
}

impl ToolRules {
    /// Whether there are no argument rules.
    fn is_empty(&self) -> bool {
        self.schema.is_none()
            && self.paths.is_empty()
            && self.urls.is_empty()
            && self.commands.is_empty()
    }
}

/// How the arguments `tree` break `rules`, added to `found`, without the cache: the
/// rules of a tool's entry (`entry` none), or of a role's entry, whose rules without
/// `args` read the arguments the table's `entry` names for the tool.
fn check_arguments(
    rules: &ToolRules,
    entry: Option<&Role>,
    tree: &Value,
    context: &PathContext,
    found: &mut Vec<ArgumentViolation>,
) {
    if let Some(schema) = &rules.schema {
        found.extend(schema_violation(schema, tree));
    }
    for (rule, (pointers, path_rule)) in rules.paths.iter().enumerate() {
        for_each_argument(tree, pointers, entry, Reading::Path, |argument, value| {
            let problem = match value {
                None => PathProblem::NotAString,
                Some(raw) => match path_rule.check(raw, context) {
                    PathVerdict::Allowed => return,
                    PathVerdict::Nul => PathProblem::Nul,
                    PathVerdict::Escapes => PathProblem::EscapesRoot,
                    PathVerdict::OutsideRoot(path, root) => PathProblem::OutsideRoot {
                        path: path.into(),
                        root: root.into(),
                    },
                    PathVerdict::Unplaced(path, why) => PathProblem::Unplaced {
                        path: path.into(),
                        why: why.into(),
                    },
                    PathVerdict::Denied(path, glob) => PathProblem::Denied {
                        path: path.into(),
                        glob: glob.into(),
                    },
                    PathVerdict::NotAllowed(path) => PathProblem::NotAllowed { path: path.into() },
                },
            };
            found.push(ArgumentViolation::Path {
                rule,
                argument: argument.into(),
                problem,
            });
        });
    }
    for (rule, (pointers, url_rule)) in rules.urls.iter().enumerate() {
        for_each_argument(tree, pointers, entry, Reading::Url, |argument, value| {
            let problem = match value {
                None => UrlProblem::NotAString,
                Some(raw) => match url_rule.check(raw) {
                    UrlVerdict::Allowed => return,
                    UrlVerdict::Invalid => UrlProblem::Invalid,
                    UrlVerdict::Scheme(scheme) => UrlProblem::Scheme {
                        scheme: scheme.into(),
                    },
                    UrlVerdict::NoHost => UrlProblem::NoHost,
                    UrlVerdict::Unreadable(host) => {
                        UrlProblem::HostUnreadable { host: host.into() }
                    }
                    UrlVerdict::Ambiguous(whatwg, rfc) => UrlProblem::HostAmbiguous {
                        whatwg: whatwg.into(),
                        rfc: rfc.map(Into::into),
                    },
                    UrlVerdict::Denied(host, pattern) => UrlProblem::Denied {
                        host: host.into(),
                        pattern: pattern.into(),
                    },
                    UrlVerdict::NotAllowed(host) => UrlProblem::NotAllowed { host: host.into() },
                },
            };
            found.push(ArgumentViolation::Url {
                rule,
                argument: argument.into(),
                problem,
            });
        });
    }
    let (home, cwd) = (context.home.as_deref(), context.cwd.as_deref());
    for (rule, (pointers, command_rule)) in rules.commands.iter().enumerate() {
        for_each_argument(
            tree,
            pointers,
            entry,
            Reading::Command,
            |argument, value| {
                let problem = match value {
                    None => CommandProblem::NotAString,
                    Some(raw) => match command_rule.check(raw, home, cwd) {
                        CommandVerdict::Allowed => return,
                        CommandVerdict::TooLong => CommandProblem::TooLong {
                            limit: commands::MAX_COMMAND_BYTES as u64,
                        },
                        CommandVerdict::Unparseable(reason) => CommandProblem::Unparseable {
                            reason: reason.into(),
                        },
                        CommandVerdict::TooDeep(limit) => CommandProblem::TooDeep {
                            limit: limit as u64,
                        },
                        CommandVerdict::Unknown(command) => CommandProblem::UnknownProgram {
                            command: command.into(),
                        },
                        CommandVerdict::Denied(command, within, pattern) => {
                            CommandProblem::Denied {
                                command: command.into(),
                                within: within.map(Into::into),
                                pattern: pattern.into(),
                            }
                        }
                        CommandVerdict::NotAllowed(command, within) => CommandProblem::NotAllowed {
                            command: command.into(),
                            within: within.map(Into::into),
                        },
                        CommandVerdict::Protected(path, glob) => CommandProblem::Protected {
                            path: path.into(),
                            glob: glob.into(),
                        },
                    },
                };
                found.push(ArgumentViolation::Command {
                    rule,
                    argument: argument.into(),
                    problem,
                });
            },
        );
    }
}

impl Policy {
    /// What the detectors of `tool` find in `response`: in the order of the
    /// response's canonical encoding (members by key, each key before its value),
    /// and by detector name on one string.
    ///
    /// `response` must be the canonical encoding of a response as this crate writes
    /// it (the transcript reader hands them over so; [`crate::canonical::encode`]
    /// writes them): the first pass of the detectors reads it as it is, which is
    /// sound on that encoding only, and a debug assertion checks it. What the first
    /// pass cannot rule out is parsed; a response that cannot be is one finding
    /// saying so, never a scan that finds nothing.
    pub fn check_response(&self, tool: &str, response: &[u8]) -> Vec<SensitiveResponse> {
        let roles = self.role_rules(tool);
        self.response_by(self.scanner_of(tool, &roles), response)
    }

    /// Whether the policy checks prompts (it has `prompt_detectors`).
    pub fn checks_prompts(&self) -> bool {
        self.prompt_scanner.is_some()
    }

    /// What the `prompt_detectors` find in the user's prompt `text`, as found in the
    /// response `{"text": TEXT}` (so at the pointer `/text`); none without them.
    ///
    /// ```
    /// use toolreplay_core::{SensitiveResponse, Scope};
    ///
    /// let scope = Scope::parse(br#"{"agent": "a", "allowed_tools": [], "policy_version": 1,
    ///     "prompt_detectors": ["secrets"]}"#)?;
    /// let policy = scope.policy.as_ref().expect("a policy");
    /// let found = policy.check_prompt("deploy with AKIAIOSFODNN7EXAMPLE please");
    /// assert!(matches!(&found[..], [SensitiveResponse::Match { detector, .. }]
    ///     if &**detector == "aws-access-key-id"));
    /// assert!(policy.check_prompt("deploy it").is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check_prompt(&self, text: &str) -> Vec<SensitiveResponse> {
        let prompt = canonical::encode(&Value::object([("text", Value::Str(text.to_owned()))]));
        self.scan_with(self.prompt_scanner, &prompt)
    }

    /// [`Policy::check_response`] by the scanner `scanner`.
    fn response_by(&self, scanner: Option<usize>, response: &[u8]) -> Vec<SensitiveResponse> {
        self.scan_with(scanner, response)
    }

    /// What the scanner `scanner` (none: nothing) finds in the canonical `response`.
    fn scan_with(&self, scanner: Option<usize>, response: &[u8]) -> Vec<SensitiveResponse> {
        let Some(scanner) = scanner else {
            return Vec::new();
        };
        debug_assert!(
            is_canonical(response),
            "the first pass needs a canonical encoding"
        );
        match self.scanners[scanner].scan(&self.catalog, response) {
            Ok(hits) => hits
                .into_iter()
                .map(|hit| SensitiveResponse::Match {
                    pointer: hit.pointer.into(),
                    in_key: hit.in_key,
                    detector: self.catalog.name(hit.detector).into(),
                })
                .collect(),
            // What cannot be read cannot be shown free of secrets.
            Err(err) => vec![SensitiveResponse::Unscannable {
                reason: err.to_string().into(),
            }],
        }
    }
}

/// The violation of `schema` by the arguments `tree`, if any.
fn schema_violation(schema: &jsonschema::Validator, tree: &Value) -> Option<ArgumentViolation> {
    let instance = match schema_instance(tree) {
        Ok(instance) => instance,
        Err(argument) => {
            return Some(ArgumentViolation::SchemaCannotEvaluate {
                argument: argument.into(),
            });
        }
    };
    // Most arguments are valid, and telling so costs less than listing errors.
    if schema.is_valid(&instance) {
        return None;
    }
    let first = schema
        .iter_errors(&instance)
        .map(|err| {
            (
                err.instance_path().as_str().to_owned(),
                err.schema_path().as_str().to_owned(),
            )
        })
        .min();
    debug_assert!(first.is_some(), "an invalid instance has an error");
    // Invalid all the same: the arguments object at the schema's root.
    let (argument, keyword) = first.unwrap_or_default();
    Some(ArgumentViolation::Schema {
        argument: argument.into(),
        keyword: keyword.into(),
    })
}

/// The arguments as the schema validator reads them, as `serde_json` would read their
/// canonical encoding: an integer beyond 64 bits as the nearest float. An integer no
/// float holds cannot be evaluated: the error is its JSON pointer.
fn schema_instance(value: &Value) -> std::result::Result<serde_json::Value, String> {
    /// The pointer's tokens, innermost first, gathered only on the way out of an error.
    fn convert(value: &Value) -> std::result::Result<serde_json::Value, Vec<String>> {
        Ok(match value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Int(digits) => match (digits.parse::<u64>(), digits.parse::<i64>()) {
                (Ok(n), _) => n.into(),
                (_, Ok(n)) => n.into(),
                _ => digits
                    .parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                    .ok_or_else(Vec::new)?
                    .into(),
            },
            Value::Float(x) => serde_json::Number::from_f64(*x)
                .ok_or_else(Vec::new)?
                .into(),
            Value::Str(s) => serde_json::Value::String(s.clone()),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    convert(item).map_err(|mut tokens| {
                        tokens.push(i.to_string());
                        tokens
                    })
                })
                .collect::<std::result::Result<Vec<_>, _>>()?
                .into(),
            Value::Object(members) => members
                .iter()
                .map(|(key, item)| match convert(item) {
                    Ok(item) => Ok((key.clone(), item)),
                    Err(mut tokens) => {
                        tokens.push(key.clone());
                        Err(tokens)
                    }
                })
                .collect::<std::result::Result<serde_json::Map<_, _>, _>>()?
                .into(),
        })
    }
    convert(value).map_err(|tokens| {
        let mut pointer = String::new();
        for token in tokens.iter().rev() {
            pointer::push_token(&mut pointer, token);
        }
        pointer
    })
}

/// Whether `bytes` is the canonical encoding of a JSON value, as this crate writes
/// it: what the first pass of the detectors reads.
fn is_canonical(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|text| json::parse(text).ok())
        .is_some_and(|value| canonical::encode(&value) == bytes)
}

/// Calls `visit` with the pointer and string of each argument named by `pointers`:
/// an absent argument is skipped, an array is visited element by element (as
/// `/arg/0`, `/arg/1`, ...), and anything else but a string is given as `None`.
fn for_each_string(args: &Value, pointers: &[Pointer], mut visit: impl FnMut(&str, Option<&str>)) {
    for pointer in pointers {
        visit_value(pointer.as_str(), pointer.find(args), &mut visit);
    }
}

/// [`for_each_string`] of the one argument at `at`, `value`.
fn visit_value(at: &str, value: Option<&Value>, visit: &mut impl FnMut(&str, Option<&str>)) {
    match value {
        None => {}
        Some(Value::Str(text)) => visit(at, Some(text)),
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let at = format!("{at}/{i}");
                match item {
                    Value::Str(text) => visit(&at, Some(text)),
                    _ => visit(&at, None),
                }
            }
        }
        Some(_) => visit(at, None),
    }
}

/// What a rule reads in an argument.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reading {
    Path,
    Url,
    Command,
}

/// [`for_each_string`] of a rule's `pointers`, or, when a role's rule leaves them
/// out (none), of the arguments the role table's `entry` names for the tool: each
/// as [`for_each_string`] does, but a command given as an array of strings (Codex's
/// `["bash", "-lc", "..."]`) is one command line, its words quoted for the shell;
/// and for a path rule, each file a patch names (Codex's `apply_patch`), for a URL
/// rule, each URL (`SCHEME://...`) in a text argument (Gemini CLI's `web_fetch`
/// prompt), as the argument that holds it.
fn for_each_argument(
    args: &Value,
    pointers: &[Pointer],
    entry: Option<&Role>,
    reading: Reading,
    mut visit: impl FnMut(&str, Option<&str>),
) {
    let Some(entry) = entry.filter(|_| pointers.is_empty()) else {
        for_each_string(args, pointers, visit);
        return;
    };
    for argument in entry.arguments() {
        match argument.find(args) {
            Some(Value::Array(words))
                if reading == Reading::Command
                    && words.iter().all(|w| matches!(w, Value::Str(_))) =>
            {
                visit(argument.as_str(), Some(&command_line(words)));
            }
            value => visit_value(argument.as_str(), value, &mut visit),
        }
    }
    let texts = match reading {
        Reading::Path => &entry.patch,
        Reading::Url => &entry.texts,
        Reading::Command => return,
    };
    for argument in texts {
        let Some(Value::Str(text)) = argument.find(args) else {
            continue;
        };
        if reading == Reading::Path {
            for file in crate::graph::roles::patch_files(text) {
                visit(argument.as_str(), Some(file));
            }
        } else {
            for url in crate::graph::roles::text_urls(text) {
                visit(argument.as_str(), Some(url));
            }
        }
    }
}

/// The message of a library's error (a glob's or a regex's, which may take several
/// lines) on one line: each line trimmed, joined by spaces.
fn one_line(text: &str) -> String {
    text.lines().map(str::trim).collect::<Vec<_>>().join(" ")
}

/// The command line of the words `words` (all strings): each quoted for the shell
/// where it needs to be, joined with spaces.
fn command_line(words: &[Value]) -> String {
    let mut line = String::new();
    for word in words {
        let Value::Str(word) = word else { continue };
        if !line.is_empty() {
            line.push(' ');
        }
        let plain = !word.is_empty()
            && word
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(&b));
        if plain {
            line.push_str(word);
        } else {
            line.push('\'');
            line.push_str(&word.replace('\'', "'\\''"));
            line.push('\'');
        }
    }
    line
}

#[cfg(test)]
mod roles_tests;
