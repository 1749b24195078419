//! Reading the policy fields of a scope file into a compiled [`Policy`]: every rule
//! is checked, and every glob, host pattern, JSON Schema and regular expression
//! compiled, before any record is read; an error names the rule and what is wrong.

use std::collections::{BTreeMap, HashSet};

use super::commands::{CommandRule, Pattern};
use super::detect::{self, Catalog, Group, Scanner};
use super::history::{Budgets, Flow, Flows};
use super::paths::{self, Globs, PathRule, Readings};
use super::pointer::Pointer;
use super::urls::{HostList, HostPattern, UrlRule};
use super::{Checking, DRAFT_2020_12, POLICY_VERSION, Policy, PolicyError, RULE_FIELDS, ToolRules};
use crate::canonical;
use crate::finding::quote_name;
use crate::graph::PolicyRole;
use crate::json::{self, Value, member as get};

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
        Policy::parse_with(fields, Checking::Now)
    }

    /// [`Policy::parse`], its globs and command patterns checked now or, when
    /// `checking` says the same bytes were checked before, when a call first needs
    /// them.
    pub(crate) fn parse_with(
        fields: &[(String, Value)],
        checking: Checking,
    ) -> std::result::Result<Option<Policy>, PolicyError> {
        let field_error = |field: &str| {
            let field = field.to_owned();
            move |message: String| PolicyError { field, message }
        };
        let has_rules = fields
            .iter()
            .any(|(k, _)| RULE_FIELDS.contains(&k.as_str()));
        if !check_version(fields, has_rules)? || !has_rules {
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

        // The scanner of a top-level list of detectors, if it is given.
        let mut top_scanner = |field: &str| -> std::result::Result<Option<usize>, PolicyError> {
            let Some(value) = get(fields, field) else {
                return Ok(None);
            };
            detector_list(&catalog, value, field)
                .and_then(|chosen| scanner_for(chosen, field))
                .map_err(field_error(field))
        };
        let default_scanner = top_scanner("response_detectors")?;
        let prompt_scanner = top_scanner("prompt_detectors")?;

        let budgets = match get(fields, "budgets") {
            Some(value) => budgets(value).map_err(field_error("budgets"))?,
            None => Budgets::default(),
        };
        let flows = match get(fields, "flows") {
            Some(value) => Flows::new(flows(value).map_err(field_error("flows"))?),
            None => Flows::default(),
        };

        let mut tools = hashbrown::HashMap::default();
        let mut roles = Vec::new();
        if let Some(value) = get(fields, "tools") {
            let members = object(value, "tools").map_err(field_error("tools"))?;
            for (name, rules) in members {
                let at = named("tools", name);
                let role = PolicyRole::of_name(name)
                    .map_err(|message| format!("{at}: {message}"))
                    .map_err(field_error("tools"))?;
                let rules = tool_rules(&catalog, &mut scanner_for, rules, &at, (role, checking))
                    .map_err(field_error("tools"))?;
                match role {
                    Some(role) => roles.push((role, rules)),
                    None => {
                        tools.insert(name.clone(), rules);
                    }
                }
            }
        }
        // A call's roles are taken in the order of PolicyRole::ALL.
        roles.sort_by_key(|(role, _)| *role);
        let history_roles = budgets
            .per_tool
            .keys()
            .any(|name| name.starts_with(PolicyRole::PREFIX))
            || flows.names_roles();
        Ok(Some(Policy {
            budgets,
            flows,
            catalog,
            scanners,
            default_scanner,
            prompt_scanner,
            tools,
            roles,
            history_roles,
            args_cache: Default::default(),
        }))
    }
}

/// Checks the `policy_version` of a scope's policy `fields`: required with rules,
/// and the version this crate reads. Gives whether there is a version.
fn check_version(
    fields: &[(String, Value)],
    has_rules: bool,
) -> std::result::Result<bool, PolicyError> {
    let version = get(fields, "policy_version");
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
        None => return Ok(false),
        Some(value) => {
            let version = count(value, "policy_version").map_err(|message| PolicyError {
                field: "policy_version".to_owned(),
                message,
            })?;
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
    Ok(true)
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
                    let mut valid = vec!["secrets", "personal-data"];
                    valid.extend(catalog.names());
                    return Err(format!(
                        "{at}[{i}]: unknown detector {}; valid names: {}",
                        quote_name(name),
                        valid.join(", ")
                    ));
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
            let at = named("budgets.per_tool", tool);
            PolicyRole::of_name(tool).map_err(|message| format!("{at}: {message}"))?;
            per_tool.insert(tool.clone(), count(max, &at)?);
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
    let mut names: HashSet<String> = HashSet::with_capacity(items.len());
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
        if !names.insert(name.clone()) {
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
            for (j, name) in list.iter().enumerate() {
                PolicyRole::of_name(name)
                    .map_err(|message| format!("{at}.{field}[{j}]: {message}"))?;
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

/// The `args` of the rule `at`; a rule of a role (`role`) may leave them out, when
/// the role table names its tools' arguments: then none, read as the table's.
fn pointers(
    members: &[(String, Value)],
    at: &str,
    role: Option<PolicyRole>,
) -> Result<Vec<Pointer>> {
    let value = match (get(members, "args"), role) {
        (Some(value), _) => value,
        (None, Some(role)) if role != PolicyRole::Mcp => return Ok(Vec::new()),
        (None, Some(_)) => {
            return Err(format!(
                "{at}: missing field \"args\" (the role table names no argument of MCP tools)"
            ));
        }
        (None, None) => return Err(format!("{at}: missing field \"args\"")),
    };
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
    (role, checking): (Option<PolicyRole>, Checking),
) -> Result<ToolRules> {
    let members = object(value, at)?;
    if role.is_some() && get(members, "args_schema").is_some() {
        return Err(format!(
            "{at}.args_schema: a role's entry cannot have one, since its tools name their arguments differently; give it in the entry of each tool"
        ));
    }
    known(
        members,
        at,
        &[
            "args_schema",
            "commands",
            "paths",
            "response_detectors",
            "urls",
        ],
    )?;
    let mut rules = ToolRules::default();
    if let Some(schema) = get(members, "args_schema") {
        rules.schema = Some(schema_validator(schema, &format!("{at}.args_schema"))?);
    }
    if let Some(value) = get(members, "paths") {
        for (i, item) in rule_list(value, &format!("{at}.paths"))?.iter().enumerate() {
            rules.paths.push(path_rule(
                item,
                &format!("{at}.paths[{i}]"),
                role,
                checking,
            )?);
        }
    }
    if let Some(value) = get(members, "urls") {
        for (i, item) in rule_list(value, &format!("{at}.urls"))?.iter().enumerate() {
            rules
                .urls
                .push(url_rule(item, &format!("{at}.urls[{i}]"), role)?);
        }
    }
    if let Some(value) = get(members, "commands") {
        for (i, item) in rule_list(value, &format!("{at}.commands"))?
            .iter()
            .enumerate()
        {
            rules.commands.push(command_rule(
                item,
                &format!("{at}.commands[{i}]"),
                role,
                checking,
            )?);
        }
    }
    if let Some(value) = get(members, "response_detectors") {
        let at = format!("{at}.response_detectors");
        let chosen = detector_list(catalog, value, &at)?;
        rules.scanner = Some(scanner_for(chosen, &at)?);
    }
    Ok(rules)
}

/// The most patterns a command rule's `allow` or `deny` may hold: each simple
/// command is matched against them one by one.
const MAX_PATTERNS: usize = 1_000;

/// A command rule, `at`, with the arguments it checks.
fn command_rule(
    item: &Value,
    at: &str,
    role: Option<PolicyRole>,
    checking: Checking,
) -> Result<(Vec<Pointer>, CommandRule)> {
    let members = object(item, at)?;
    known(
        members,
        at,
        &["allow", "args", "deny", "protect", "protect_except"],
    )?;
    let args = pointers(members, at, role)?;
    let patterns = |field: &str| -> Result<Option<Vec<Pattern>>> {
        let Some(value) = get(members, field) else {
            return Ok(None);
        };
        let list = strings(value, &format!("{at}.{field}"))?;
        if list.len() > MAX_PATTERNS {
            return Err(format!("{at}.{field}: more than {MAX_PATTERNS} patterns"));
        }
        list.iter()
            .enumerate()
            .map(|(j, text)| {
                Pattern::new(text, checking).map_err(|err| {
                    format!(
                        "{at}.{field}[{j}]: invalid pattern {}: {err}",
                        quote_name(text)
                    )
                })
            })
            .collect::<Result<Vec<_>>>()
            .map(Some)
    };
    let allow = patterns("allow")?;
    let deny = patterns("deny")?.unwrap_or_default();
    let globs = |field: &str| -> Result<Option<Globs>> {
        let Some(value) = get(members, field) else {
            return Ok(None);
        };
        let list = strings(value, &format!("{at}.{field}"))?;
        paths::check_sizes(&list).map_err(|err| format!("{at}.{field}: {err}"))?;
        Globs::with_case(&list, false, checking)
            .map(Some)
            .map_err(|(j, err)| {
                format!(
                    "{at}.{field}[{j}]: invalid glob {}: {err}",
                    quote_name(list.get(j).map_or("", String::as_str))
                )
            })
    };
    let protect = globs("protect")?;
    let protect_except = globs("protect_except")?;
    Ok((
        args,
        CommandRule {
            deny,
            allow,
            protect,
            protect_except,
            folders: std::sync::OnceLock::new(),
        },
    ))
}

/// The rules of a `paths`, `urls` or `commands` list, `at`.
fn rule_list<'v>(value: &'v Value, at: &str) -> Result<&'v [Value]> {
    match value {
        Value::Array(items) => Ok(items),
        _ => Err(format!(
            "{at}: must be an array of objects, found {}",
            value.described()
        )),
    }
}

/// A path rule, `at`, with the arguments it checks.
fn path_rule(
    item: &Value,
    at: &str,
    role: Option<PolicyRole>,
    checking: Checking,
) -> Result<(Vec<Pointer>, PathRule)> {
    let members = object(item, at)?;
    known(
        members,
        at,
        &[
            "allow",
            "args",
            "backslash",
            "case_insensitive",
            "deny",
            "deny_except",
            "percent",
            "root",
        ],
    )?;
    let readings = |field: &str, other: &str| -> Result<Readings> {
        match get(members, field) {
            None => Ok(Readings::Both),
            Some(Value::Str(text)) if text == "both" => Ok(Readings::Both),
            Some(Value::Str(text)) if text == "literal" => Ok(Readings::Literal),
            Some(Value::Str(text)) if text == other => Ok(Readings::Other),
            Some(value) => Err(format!(
                "{at}.{field}: must be \"both\", \"literal\" or \"{other}\", found {}",
                match value {
                    Value::Str(text) => quote_name(text),
                    other => other.described().to_string(),
                }
            )),
        }
    };
    let backslash = readings("backslash", "separator")?;
    let percent = readings("percent", "decoded")?;
    let case_insensitive = match get(members, "case_insensitive") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(format!(
                "{at}.case_insensitive: must be true or false, found {}",
                other.described()
            ));
        }
    };
    let args = pointers(members, at, role)?;
    let root = path_root(members, at)?;
    let globs = |field: &str| -> Result<Option<Globs>> {
        let Some(value) = get(members, field) else {
            return Ok(None);
        };
        let list = strings(value, &format!("{at}.{field}"))?;
        paths::check_sizes(&list).map_err(|err| format!("{at}.{field}: {err}"))?;
        Globs::with_case(&list, case_insensitive, checking)
            .map(Some)
            .map_err(|(j, err)| {
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
    let deny_except = globs("deny_except")?;
    Ok((
        args,
        PathRule {
            root,
            allow,
            deny,
            deny_except,
            backslash,
            percent,
            case_insensitive,
        },
    ))
}

/// The `root` of the path rule `at`, normalised: an absolute path, or one relative
/// to the directory the session started in (which may not climb above it).
fn path_root(members: &[(String, Value)], at: &str) -> Result<Option<String>> {
    match get(members, "root") {
        None => Ok(None),
        Some(Value::Str(root)) => match paths::normalise(root) {
            paths::Normalised::Path(path) if !path.starts_with('~') && !root.contains('\0') => {
                Ok(Some(path))
            }
            _ => Err(format!(
                "{at}.root: {} is neither an absolute path nor a relative one that stays inside the session's start",
                quote_name(root)
            )),
        },
        Some(other) => Err(format!(
            "{at}.root: must be a string, found {}",
            other.described()
        )),
    }
}

/// A URL rule, `at`, with the arguments it checks.
fn url_rule(item: &Value, at: &str, role: Option<PolicyRole>) -> Result<(Vec<Pointer>, UrlRule)> {
    let members = object(item, at)?;
    known(
        members,
        at,
        &["allow_hosts", "args", "deny_hosts", "schemes"],
    )?;
    let args = pointers(members, at, role)?;
    let schemes = match get(members, "schemes") {
        Some(value) => {
            let list = strings(value, &format!("{at}.schemes"))?;
            for (j, scheme) in list.iter().enumerate() {
                let mut chars = scheme.chars();
                let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                    && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
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
    let hosts = |field: &str| -> Result<Option<HostList>> {
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
            .map(|patterns| Some(HostList::new(patterns)))
    };
    let allow = hosts("allow_hosts")?;
    let deny = hosts("deny_hosts")?.unwrap_or_default();
    Ok((
        args,
        UrlRule {
            schemes,
            allow,
            deny,
        },
    ))
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
    let tree = schema;
    let schema: serde_json::Value =
        serde_json::from_slice(&canonical::encode(schema)).map_err(|err| format!("{at}: {err}"))?;
    let validator = jsonschema::options()
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
        })?;
    // What the validator accepts may still cost without bound to evaluate.
    super::schema::check(tree).map_err(|err| format!("{at}: {err}"))?;
    Ok(validator)
}
