//! Policy rules of a scope file: argument rules, budgets, response detectors and
//! flows (the format is documented in README, "Scope policies").
//!
//! A policy is read and compiled once, with the scope file: every glob, host
//! pattern, JSON Schema and regular expression is checked then, so a bad policy is an
//! input error before any record is read. [`Policy::check_arguments`] and
//! [`Policy::check_response`] look at one call alone, and can run on any thread;
//! budgets and flows judge a call by the calls before it, of which a [`History`] is
//! kept (see [`crate::scope::Session`], which decides calls one at a time).
//!
//! By concern: `detect` holds the response detectors, `paths` and `urls` the
//! argument rules on paths and URLs, `pointer` the JSON pointers that name
//! arguments, `history` the budgets and flows.

mod detect;
mod history;
mod paths;
mod pointer;
mod urls;

pub use history::History;

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use crate::canonical;
use crate::finding::{
    ArgumentViolation, FindingKind, PathProblem, SensitiveResponse, UrlProblem, quote_name,
};
use crate::json::{self, Value, member as get};

use detect::{Catalog, Group, Scanner};
use history::{Budgets, Flow};
use paths::{Globs, PathRule, PathVerdict};
use pointer::Pointer;
use urls::{HostPattern, UrlRule, UrlVerdict};

/// The version of the policy format this build reads.
pub const POLICY_VERSION: u64 = 1;

/// The fields of a scope file that hold policy rules; `policy_version` is required
/// with any of them.
pub const RULE_FIELDS: [&str; 5] = [
    "budgets",
    "custom_detectors",
    "flows",
    "response_detectors",
    "tools",
];

/// The draft a schema may declare with `$schema`, the only one read.
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// A compiled policy.
pub struct Policy {
    budgets: Budgets,
    flows: Vec<Flow>,
    catalog: Catalog,
    scanners: Vec<Scanner>,
    /// The scanner for tools without their own `response_detectors`.
    default_scanner: Option<usize>,
    tools: HashMap<String, ToolRules>,
}

impl fmt::Debug for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Policy")
            .field("budgets", &self.budgets)
            .field("flows", &self.flows)
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// The rules of one tool.
#[derive(Default)]
struct ToolRules {
    schema: Option<jsonschema::Validator>,
    paths: Vec<(Vec<Pointer>, PathRule)>,
    urls: Vec<(Vec<Pointer>, UrlRule)>,
    /// `None`: the default; `Some(None)`: no detectors; `Some(Some(i))`: scanner `i`.
    scanner: Option<Option<usize>>,
}

/// An error in a policy: the scope file's top-level field it is in, and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    /// The top-level field.
    pub field: String,
    /// What is wrong, starting with where.
    pub message: String,
}

type Result<T> = std::result::Result<T, String>;

fn object<'v>(value: &'v Value, at: &str) -> Result<&'v [(String, Value)]> {
    match value {
        Value::Object(members) => Ok(members),
        other => Err(format!(
            "{at}: must be an object, found {}",
            other.described()
        )),
    }
}

fn known(members: &[(String, Value)], at: &str, fields: &[&str]) -> Result<()> {
    match members.iter().find(|(k, _)| !fields.contains(&k.as_str())) {
        Some((key, _)) => Err(format!("{at}: unknown field {}", json::quoted_key(key))),
        None => Ok(()),
    }
}

fn strings(value: &Value, at: &str) -> Result<Vec<String>> {
    let Value::Array(items) = value else {
        return Err(format!(
            "{at}: must be an array of strings, found {}",
            value.described()
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::Str(s) => Ok(s.clone()),
            other => Err(format!(
                "{at}[{i}]: must be a string, found {}",
                other.described()
            )),
        })
        .collect()
}

fn count(value: &Value, at: &str) -> Result<u64> {
    match value {
        Value::Int(digits) => digits.parse::<u64>().map_err(|_| {
            format!(
                "{at}: must be a non-negative integer below 2^64, found {}",
                digits_shown(digits)
            )
        }),
        other => Err(format!(
            "{at}: must be a non-negative integer, found {}",
            other.described()
        )),
    }
}

fn digits_shown(digits: &str) -> String {
    if digits.len() > 24 {
        format!("{}...", &digits[..24])
    } else {
        digits.to_owned()
    }
}

/// `at` followed by `[name]`, the name quoted.
fn named(at: &str, name: &str) -> String {
    format!("{at}[{}]", quote_name(name))
}

impl Policy {
    /// Compiles the policy fields of a scope file (its members other than `agent`
    /// and `allowed_tools`, sorted by key). Gives `None` when there are no rules.
    pub fn parse(fields: &[(String, Value)]) -> std::result::Result<Option<Policy>, PolicyError> {
        let field_error = |field: &str| {
            let field = field.to_owned();
            move |message: String| PolicyError { field, message }
        };
        let version = get(fields, "policy_version");
        let has_rules = fields
            .iter()
            .any(|(k, _)| RULE_FIELDS.contains(&k.as_str()));
        match version {
            None if has_rules => {
                let first = fields
                    .iter()
                    .find(|(k, _)| RULE_FIELDS.contains(&k.as_str()))
                    .map_or("", |(k, _)| k.as_str());
                return Err(PolicyError {
                    field: first.to_owned(),
                    message: format!(
                        "field \"policy_version\" is required with policy rules (found \"{first}\"); this toolreplay reads version {POLICY_VERSION}"
                    ),
                });
            }
            None => return Ok(None),
            Some(value) => {
                let version =
                    count(value, "policy_version").map_err(field_error("policy_version"))?;
                if version != POLICY_VERSION {
                    return Err(PolicyError {
                        field: "policy_version".to_owned(),
                        message: format!(
                            "policy_version: unsupported version {version}; this toolreplay reads version {POLICY_VERSION}"
                        ),
                    });
                }
            }
        }
        if !has_rules {
            return Ok(None);
        }

        let custom = match get(fields, "custom_detectors") {
            Some(value) => custom_detectors(value).map_err(field_error("custom_detectors"))?,
            None => Vec::new(),
        };
        let catalog = Catalog::new(&custom).map_err(|(i, message)| PolicyError {
            field: "custom_detectors".to_owned(),
            message: match custom.get(i) {
                Some((name, _)) => format!("{}: {message}", named("custom_detectors", name)),
                None => format!("custom_detectors: {message}"),
            },
        })?;
        let mut scanners = Vec::new();
        let mut chosen_sets: BTreeMap<Vec<usize>, usize> = BTreeMap::new();
        let mut scanner_for = |chosen: Vec<usize>, at: &str| -> Result<Option<usize>> {
            if chosen.is_empty() {
                return Ok(None);
            }
            let mut key = chosen;
            key.sort_unstable();
            key.dedup();
            if let Some(&i) = chosen_sets.get(&key) {
                return Ok(Some(i));
            }
            let scanner = Scanner::new(&catalog, &key)
                .map_err(|err| format!("{at}: the detectors cannot be combined: {err}"))?;
            scanners.push(scanner);
            chosen_sets.insert(key, scanners.len() - 1);
            Ok(Some(scanners.len() - 1))
        };

        let default_scanner = match get(fields, "response_detectors") {
            Some(value) => {
                let chosen = detector_list(&catalog, value, "response_detectors")
                    .map_err(field_error("response_detectors"))?;
                scanner_for(chosen, "response_detectors")
                    .map_err(field_error("response_detectors"))?
            }
            None => None,
        };

        let budgets = match get(fields, "budgets") {
            Some(value) => budgets(value).map_err(field_error("budgets"))?,
            None => Budgets::default(),
        };
        let flows = match get(fields, "flows") {
            Some(value) => flows(value).map_err(field_error("flows"))?,
            None => Vec::new(),
        };

        let mut tools = HashMap::new();
        if let Some(value) = get(fields, "tools") {
            let members = object(value, "tools").map_err(field_error("tools"))?;
            for (name, rules) in members {
                let at = named("tools", name);
                let rules = tool_rules(&catalog, &mut scanner_for, rules, &at)
                    .map_err(field_error("tools"))?;
                tools.insert(name.clone(), rules);
            }
        }
        Ok(Some(Policy {
            budgets,
            flows,
            catalog,
            scanners,
            default_scanner,
            tools,
        }))
    }

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
        history.take(&self.budgets, &self.flows, index, tool, found);
    }

    /// How the arguments of a call to `tool` break the tool's rules: the schema,
    /// then path rules, then URL rules, each in the policy's order, each rule's
    /// arguments in its order. `args` is the canonical encoding of the arguments;
    /// arguments that cannot be read break every rule, in one violation.
    pub fn check_arguments(&self, tool: &str, args: &[u8]) -> Vec<ArgumentViolation> {
        let mut found = Vec::new();
        let Some(rules) = self.tools.get(tool) else {
            return found;
        };
        if rules.schema.is_none() && rules.paths.is_empty() && rules.urls.is_empty() {
            return found;
        }
        // One parse for every rule.
        let tree = match json::decode_document(args).and_then(json::parse) {
            Ok(tree) => tree,
            Err(err) => {
                found.push(ArgumentViolation::Unreadable {
                    reason: err.to_string().into(),
                });
                return found;
            }
        };
        if let Some(schema) = &rules.schema {
            found.extend(schema_violation(schema, &tree));
        }
        for (rule, (pointers, path_rule)) in rules.paths.iter().enumerate() {
            for_each_string(&tree, pointers, |argument, value| {
                let problem = match value {
                    None => PathProblem::NotAString,
                    Some(raw) => match path_rule.check(raw) {
                        PathVerdict::Allowed => return,
                        PathVerdict::Escapes => PathProblem::EscapesRoot,
                        PathVerdict::OutsideRoot(path) => PathProblem::OutsideRoot {
                            path: path.into(),
                            root: path_rule.root.as_deref().unwrap_or("/").into(),
                        },
                        PathVerdict::Denied(path, glob) => PathProblem::Denied {
                            path: path.into(),
                            glob: glob.into(),
                        },
                        PathVerdict::NotAllowed(path) => {
                            PathProblem::NotAllowed { path: path.into() }
                        }
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
            for_each_string(&tree, pointers, |argument, value| {
                let problem = match value {
                    None => UrlProblem::NotAString,
                    Some(raw) => match url_rule.check(raw) {
                        UrlVerdict::Allowed => return,
                        UrlVerdict::Invalid => UrlProblem::Invalid,
                        UrlVerdict::Scheme(scheme) => UrlProblem::Scheme {
                            scheme: scheme.into(),
                        },
                        UrlVerdict::NoHost => UrlProblem::NoHost,
                        UrlVerdict::Denied(host, pattern) => UrlProblem::Denied {
                            host: host.into(),
                            pattern: pattern.into(),
                        },
                        UrlVerdict::NotAllowed(host) => {
                            UrlProblem::NotAllowed { host: host.into() }
                        }
                    },
                };
                found.push(ArgumentViolation::Url {
                    rule,
                    argument: argument.into(),
                    problem,
                });
            });
        }
        found
    }

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
        let scanner = match self.tools.get(tool).and_then(|rules| rules.scanner) {
            Some(own) => own,
            None => self.default_scanner,
        };
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
        match pointer.find(args) {
            None => {}
            Some(Value::Str(text)) => visit(pointer.as_str(), Some(text)),
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    let at = format!("{}/{i}", pointer.as_str());
                    match item {
                        Value::Str(text) => visit(&at, Some(text)),
                        _ => visit(&at, None),
                    }
                }
            }
            Some(_) => visit(pointer.as_str(), None),
        }
    }
}

fn custom_detectors(value: &Value) -> Result<Vec<(String, String)>> {
    let members = object(value, "custom_detectors")?;
    if members.len() > detect::MAX_CUSTOM_DETECTORS {
        return Err(format!(
            "custom_detectors: more than {} detectors",
            detect::MAX_CUSTOM_DETECTORS
        ));
    }
    let mut out = Vec::with_capacity(members.len());
    for (name, pattern) in members {
        let at = named("custom_detectors", name);
        if name.is_empty()
            || name.len() > 64
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        {
            return Err(format!(
                "{at}: a detector name is 1 to 64 ASCII letters, digits, \"-\", \"_\" or \".\""
            ));
        }
        if detect::builtin_names().any(|(n, g)| n == name || g.name() == name) {
            return Err(format!("{at}: the name of a built-in detector or group"));
        }
        match pattern {
            Value::Str(pattern) => out.push((name.clone(), pattern.clone())),
            other => {
                return Err(format!(
                    "{at}: must be a string, found {}",
                    other.described()
                ));
            }
        }
    }
    Ok(out)
}

fn detector_list(catalog: &Catalog, value: &Value, at: &str) -> Result<Vec<usize>> {
    let mut chosen = Vec::new();
    for (i, name) in strings(value, at)?.iter().enumerate() {
        match name.as_str() {
            "secrets" => chosen.extend(catalog.group(Group::Secrets)),
            "personal-data" => chosen.extend(catalog.group(Group::PersonalData)),
            name => match catalog.find(name) {
                Some(d) => chosen.push(d),
                None => {
                    return Err(format!("{at}[{i}]: unknown detector {}", quote_name(name)));
                }
            },
        }
    }
    Ok(chosen)
}

fn budgets(value: &Value) -> Result<Budgets> {
    let members = object(value, "budgets")?;
    known(members, "budgets", &["per_tool", "total"])?;
    let total = get(members, "total")
        .map(|v| count(v, "budgets.total"))
        .transpose()?;
    let mut per_tool = BTreeMap::new();
    if let Some(value) = get(members, "per_tool") {
        for (tool, max) in object(value, "budgets.per_tool")? {
            per_tool.insert(tool.clone(), count(max, &named("budgets.per_tool", tool))?);
        }
    }
    Ok(Budgets { total, per_tool })
}

fn flows(value: &Value) -> Result<Vec<Flow>> {
    let Value::Array(items) = value else {
        return Err(format!(
            "flows: must be an array of objects, found {}",
            value.described()
        ));
    };
    let mut out: Vec<Flow> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("flows[{i}]");
        let members = object(item, &at)?;
        known(members, &at, &["name", "sinks", "sources"])?;
        let name = match get(members, "name") {
            Some(Value::Str(name)) if !name.is_empty() => name.clone(),
            Some(other) => {
                return Err(format!(
                    "{at}.name: must be a non-empty string, found {}",
                    other.described()
                ));
            }
            None => return Err(format!("{at}: missing field \"name\"")),
        };
        if out.iter().any(|f| f.name == name) {
            return Err(format!(
                "{at}.name: {} names another flow too",
                quote_name(&name)
            ));
        }
        let list = |field: &str| -> Result<Vec<String>> {
            let value =
                get(members, field).ok_or_else(|| format!("{at}: missing field \"{field}\""))?;
            let list = strings(value, &format!("{at}.{field}"))?;
            if list.is_empty() {
                return Err(format!("{at}.{field}: must name at least one tool"));
            }
            Ok(list)
        };
        let sources = list("sources")?;
        let sinks = list("sinks")?;
        out.push(Flow {
            name,
            sources,
            sinks,
        });
    }
    Ok(out)
}

fn pointers(members: &[(String, Value)], at: &str) -> Result<Vec<Pointer>> {
    let value = get(members, "args").ok_or_else(|| format!("{at}: missing field \"args\""))?;
    let list = strings(value, &format!("{at}.args"))?;
    if list.is_empty() {
        return Err(format!("{at}.args: must name at least one argument"));
    }
    list.iter()
        .enumerate()
        .map(|(i, text)| {
            Pointer::parse(text).map_err(|err| {
                format!(
                    "{at}.args[{i}]: {} is not a JSON pointer: {err}",
                    quote_name(text)
                )
            })
        })
        .collect()
}

fn tool_rules(
    catalog: &Catalog,
    scanner_for: &mut impl FnMut(Vec<usize>, &str) -> Result<Option<usize>>,
    value: &Value,
    at: &str,
) -> Result<ToolRules> {
    let members = object(value, at)?;
    known(
        members,
        at,
        &["args_schema", "paths", "response_detectors", "urls"],
    )?;
    let mut rules = ToolRules::default();
    if let Some(schema) = get(members, "args_schema") {
        rules.schema = Some(schema_validator(schema, &format!("{at}.args_schema"))?);
    }
    if let Some(value) = get(members, "paths") {
        let Value::Array(items) = value else {
            return Err(format!(
                "{at}.paths: must be an array of objects, found {}",
                value.described()
            ));
        };
        for (i, item) in items.iter().enumerate() {
            let at = format!("{at}.paths[{i}]");
            let members = object(item, &at)?;
            known(members, &at, &["allow", "args", "deny", "root"])?;
            let args = pointers(members, &at)?;
            let root = match get(members, "root") {
                None => None,
                Some(Value::Str(root)) => match paths::normalise(root) {
                    paths::Normalised::Path(path) if path.starts_with('/') => Some(path),
                    _ => {
                        return Err(format!(
                            "{at}.root: {} is not an absolute path",
                            quote_name(root)
                        ));
                    }
                },
                Some(other) => {
                    return Err(format!(
                        "{at}.root: must be a string, found {}",
                        other.described()
                    ));
                }
            };
            let globs = |field: &str| -> Result<Option<Globs>> {
                let Some(value) = get(members, field) else {
                    return Ok(None);
                };
                let list = strings(value, &format!("{at}.{field}"))?;
                Globs::new(&list).map(Some).map_err(|(j, err)| {
                    format!(
                        "{at}.{field}[{j}]: invalid glob {}: {err}",
                        quote_name(list.get(j).map_or("", String::as_str))
                    )
                })
            };
            let allow = globs("allow")?;
            let deny = match globs("deny")? {
                Some(deny) => deny,
                None => Globs::new(&[]).map_err(|(_, err)| format!("{at}: {err}"))?,
            };
            rules.paths.push((args, PathRule { root, allow, deny }));
        }
    }
    if let Some(value) = get(members, "urls") {
        let Value::Array(items) = value else {
            return Err(format!(
                "{at}.urls: must be an array of objects, found {}",
                value.described()
            ));
        };
        for (i, item) in items.iter().enumerate() {
            let at = format!("{at}.urls[{i}]");
            let members = object(item, &at)?;
            known(
                members,
                &at,
                &["allow_hosts", "args", "deny_hosts", "schemes"],
            )?;
            let args = pointers(members, &at)?;
            let schemes = match get(members, "schemes") {
                Some(value) => {
                    let list = strings(value, &format!("{at}.schemes"))?;
                    for (j, scheme) in list.iter().enumerate() {
                        let mut chars = scheme.chars();
                        let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                            && chars
                                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
                        if !valid {
                            return Err(format!(
                                "{at}.schemes[{j}]: {} is not a URL scheme",
                                quote_name(scheme)
                            ));
                        }
                    }
                    list.iter().map(|s| s.to_ascii_lowercase()).collect()
                }
                None => vec!["http".to_owned(), "https".to_owned()],
            };
            let hosts = |field: &str| -> Result<Option<Vec<(HostPattern, String)>>> {
                let Some(value) = get(members, field) else {
                    return Ok(None);
                };
                let list = strings(value, &format!("{at}.{field}"))?;
                list.iter()
                    .enumerate()
                    .map(|(j, text)| {
                        HostPattern::parse(text)
                            .map(|p| (p, text.clone()))
                            .map_err(|err| {
                                format!(
                                    "{at}.{field}[{j}]: invalid host {}: {err}",
                                    quote_name(text)
                                )
                            })
                    })
                    .collect::<Result<Vec<_>>>()
                    .map(Some)
            };
            let allow = hosts("allow_hosts")?;
            let deny = hosts("deny_hosts")?.unwrap_or_default();
            rules.urls.push((
                args,
                UrlRule {
                    schemes,
                    allow,
                    deny,
                },
            ));
        }
    }
    if let Some(value) = get(members, "response_detectors") {
        let at = format!("{at}.response_detectors");
        let chosen = detector_list(catalog, value, &at)?;
        rules.scanner = Some(scanner_for(chosen, &at)?);
    }
    Ok(rules)
}

fn schema_validator(schema: &Value, at: &str) -> Result<jsonschema::Validator> {
    if let Value::Object(members) = schema
        && let Some(declared) = get(members, "$schema")
        && *declared != Value::Str(DRAFT_2020_12.to_owned())
    {
        return Err(format!(
            "{at}: \"$schema\" must be \"{DRAFT_2020_12}\" when given"
        ));
    }
    let schema: serde_json::Value =
        serde_json::from_slice(&canonical::encode(schema)).map_err(|err| format!("{at}: {err}"))?;
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .with_pattern_options(
            jsonschema::PatternOptions::regex()
                .size_limit(1 << 20)
                .dfa_size_limit(2 << 20),
        )
        .build(&schema)
        .map_err(|err| {
            let text = err.to_string();
            let line = text.lines().map(str::trim).collect::<Vec<_>>().join(" ");
            format!("{at}: invalid schema: {line}")
        })
}

#[cfg(test)]
mod tests {
    use crate::finding::ArgumentViolation;
    use crate::scope::Scope;

    /// Bytes that are not JSON break every rule of a tool with rules, in one
    /// violation: no check is skipped. (A response that is not JSON cannot be
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
}
