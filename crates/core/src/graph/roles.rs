//! Roles: what a tool does, and which of its arguments name its artifacts.
//!
//! The built-in table ([`Roles::builtin`]) covers the sample tools, the reference MCP
//! filesystem server's tools and the tools of Claude Code, Codex (its hooks' names and
//! its logs'), Gemini CLI, Cursor and GitHub Copilot CLI; a roles file
//! ([`Roles::parse`]) adds roles and overrides or removes built-in ones.
//!
//! It is the one table of roles: the graph reads its artifacts by it, and a policy
//! names tools by it ([`PolicyRole`]: `role:file-read`, `role:file-write`,
//! `role:shell`, `role:fetch` and `role:mcp`; see docs/policy.md, "Roles").

use std::collections::BTreeMap;

use serde::Serialize;

use crate::json::{self, Value};
use crate::policy::pointer::Pointer;

/// The version of the roles file format this build reads.
pub(crate) const ROLES_VERSION: u64 = 1;

/// What a tool's calls do, as the workflow layer groups them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Reading, searching, listing, fetching.
    Inspect,
    /// Writing, editing, creating, moving, deleting.
    Change,
    /// Running commands.
    Execute,
}

impl Action {
    /// The name the roles file and the graph give it.
    pub fn name(self) -> &'static str {
        match self {
            Action::Inspect => "inspect",
            Action::Change => "change",
            Action::Execute => "execute",
        }
    }
}

/// What kind of thing a role's arguments name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ArtifactKind {
    /// A file or directory: its path is normalised as the policy's path rules do.
    File,
    /// A URL, as written.
    Url,
    /// A command line, as written (an array of words joined with spaces).
    Command,
}

impl ArtifactKind {
    /// The name the roles file and the graph give it.
    pub fn name(self) -> &'static str {
        match self {
            ArtifactKind::File => "file",
            ArtifactKind::Url => "url",
            ArtifactKind::Command => "command",
        }
    }
}

/// What a tool is, as a policy names it (`"role:shell"`): the meaning of a role of
/// the table, or an MCP tool by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PolicyRole {
    /// `file-read`: reads, searches or lists files (action `inspect`, kind `file`).
    FileRead,
    /// `file-write`: writes, edits, creates, moves or deletes files (`change`,
    /// `file`).
    FileWrite,
    /// `shell`: runs a command line (`execute`, `command`).
    Shell,
    /// `fetch`: fetches a URL or searches the web (`inspect`, `url`).
    Fetch,
    /// `mcp`: a tool of an MCP server, by the name each agent gives it
    /// (`mcp__SERVER__TOOL`, `mcp_SERVER_TOOL`, `MCP:TOOL`).
    Mcp,
}

impl PolicyRole {
    /// Every role, in the order a call's roles are taken.
    pub const ALL: [PolicyRole; 5] = [
        PolicyRole::FileRead,
        PolicyRole::FileWrite,
        PolicyRole::Shell,
        PolicyRole::Fetch,
        PolicyRole::Mcp,
    ];

    /// The prefix that makes a name in a policy a role's: `role:`. A tool's name
    /// cannot hold a `:` (see docs/policy.md, "Roles").
    pub const PREFIX: &'static str = "role:";

    /// The role's name (`file-read`).
    pub fn name(self) -> &'static str {
        match self {
            PolicyRole::FileRead => "file-read",
            PolicyRole::FileWrite => "file-write",
            PolicyRole::Shell => "shell",
            PolicyRole::Fetch => "fetch",
            PolicyRole::Mcp => "mcp",
        }
    }

    /// The name a policy gives it (`role:file-read`).
    pub fn key(self) -> &'static str {
        match self {
            PolicyRole::FileRead => "role:file-read",
            PolicyRole::FileWrite => "role:file-write",
            PolicyRole::Shell => "role:shell",
            PolicyRole::Fetch => "role:fetch",
            PolicyRole::Mcp => "role:mcp",
        }
    }

    /// The role named `name` (without the prefix).
    pub fn parse(name: &str) -> Option<PolicyRole> {
        PolicyRole::ALL.into_iter().find(|role| role.name() == name)
    }

    /// What a name of a policy (an entry of `allowed_tools`, a key of `tools` or
    /// `budgets.per_tool`, a source or sink of a flow) names: `Ok(None)` a tool,
    /// `Ok(Some(role))` a role, `Err` a message for a role that does not exist (with
    /// the nearest role's name when one is near).
    pub fn of_name(name: &str) -> Result<Option<PolicyRole>, String> {
        let Some(rest) = name.strip_prefix(PolicyRole::PREFIX) else {
            return Ok(None);
        };
        match PolicyRole::parse(rest) {
            Some(role) => Ok(Some(role)),
            None => {
                let mut message = format!(
                    "unknown role {}; the roles are {}",
                    crate::finding::quote_name(name),
                    PolicyRole::ALL.map(PolicyRole::key).join(", ")
                );
                let near = crate::suggest::closest(rest, PolicyRole::ALL.map(PolicyRole::name));
                if let Some(near) = near {
                    message.push_str(&format!(": did you mean 'role:{near}'?"));
                }
                Err(message)
            }
        }
    }
}

/// Whether `tool` is the name an agent gives a tool of an MCP server: Claude Code's
/// and Codex's `mcp__SERVER__TOOL`, Gemini CLI's `mcp_SERVER_TOOL`, Cursor's
/// `MCP:TOOL`.
pub fn is_mcp_tool(tool: &str) -> bool {
    tool.starts_with("mcp_") || tool.starts_with("MCP:")
}

/// The roles of `tool` by the built-in table, in [`PolicyRole::ALL`]'s order: the
/// role of its entry (if it has one with a meaning), then `mcp` when its name is an
/// MCP tool's. What a guard asks of a tool's name.
///
/// ```
/// use toolreplay_core::{PolicyRole, policy_roles_of};
///
/// // Gemini CLI's shell, and the argument its role names.
/// let roles = policy_roles_of("run_shell_command");
/// let (role, entry) = &roles[0];
/// assert_eq!(*role, PolicyRole::Shell);
/// let arguments: Vec<&str> = entry.unwrap().arguments().map(|a| a.as_str()).collect();
/// assert_eq!(arguments, ["/command"]);
/// // Codex's apply_patch names its files in a patch, under its hooks' `command`.
/// let (role, entry) = policy_roles_of("apply_patch")[0];
/// assert_eq!(role, PolicyRole::FileWrite);
/// assert!(entry.unwrap().patch.iter().any(|a| a.as_str() == "/command"));
/// // An MCP tool by Claude Code's name has no entry: its arguments are unknown.
/// assert_eq!(policy_roles_of("mcp__github__create_issue"), [(PolicyRole::Mcp, None)]);
/// assert!(policy_roles_of("TodoWrite").is_empty());
/// ```
pub fn policy_roles_of(tool: &str) -> Vec<(PolicyRole, Option<&'static Role>)> {
    Roles::standard().policy_roles_of(tool)
}

/// A JSON pointer into a call's `args`, with its text for the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Argument(Pointer);

impl Argument {
    /// Parses a JSON pointer.
    pub fn parse(text: &str) -> Result<Argument, String> {
        Pointer::parse(text).map(Argument)
    }

    /// The pointer as written.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The value it names in `args`.
    pub fn find<'v>(&self, args: &'v Value) -> Option<&'v Value> {
        self.0.find(args)
    }
}

impl Serialize for Argument {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// The role of one tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Role {
    /// What its calls do.
    pub action: Action,
    /// What its arguments name.
    pub kind: ArtifactKind,
    /// The arguments naming artifacts it reads, searches, fetches or runs.
    pub uses: Vec<Argument>,
    /// The arguments naming artifacts it writes, edits, creates, moves or deletes.
    pub produces: Vec<Argument>,
    /// The arguments holding a patch (Codex's `apply_patch` format) whose file
    /// headers name the files it produces.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub patch: Vec<Argument>,
    /// The arguments holding free text whose URLs (`SCHEME://...`) it fetches
    /// (Gemini CLI's `web_fetch` takes its URLs in its `prompt`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub texts: Vec<Argument>,
}

impl Role {
    /// The policy role it has: `file-read` (inspect, file), `file-write` (change,
    /// file), `shell` (execute, command) or `fetch` (inspect, url); none for the
    /// other pairs.
    pub fn policy_role(&self) -> Option<PolicyRole> {
        match (self.action, self.kind) {
            (Action::Inspect, ArtifactKind::File) => Some(PolicyRole::FileRead),
            (Action::Change, ArtifactKind::File) => Some(PolicyRole::FileWrite),
            (Action::Execute, ArtifactKind::Command) => Some(PolicyRole::Shell),
            (Action::Inspect, ArtifactKind::Url) => Some(PolicyRole::Fetch),
            _ => None,
        }
    }

    /// The arguments naming its artifacts: `uses`, then `produces`.
    pub fn arguments(&self) -> impl Iterator<Item = &Argument> {
        self.uses.iter().chain(&self.produces)
    }
}

/// The roles in force: the built-in table, with a roles file's changes, and the
/// root paths are made relative to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roles {
    tools: BTreeMap<String, Role>,
    /// The normalised absolute root, if any: an absolute path inside it names the
    /// same artifact as the path relative to it.
    pub root: Option<String>,
}

/// An error in a roles file: where, and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RolesError {
    /// The 1-based line (of the top-level field the error is in).
    pub line: usize,
    /// The field, as a dotted path (`tools.Read.uses`); empty for the whole file.
    pub field: String,
    /// What is wrong, naming the field.
    pub message: String,
}

/// The JSON pointers `list` (all valid: the table's own).
fn pointers(list: &[&str]) -> Vec<Argument> {
    list.iter()
        .filter_map(|text| Argument::parse(text).ok())
        .collect()
}

fn role(action: Action, kind: ArtifactKind, uses: &[&str], produces: &[&str]) -> Role {
    Role {
        action,
        kind,
        uses: pointers(uses),
        produces: pointers(produces),
        patch: Vec::new(),
        texts: Vec::new(),
    }
}

impl Roles {
    /// The built-in table.
    pub fn builtin() -> Roles {
        use Action::{Change, Execute, Inspect};
        use ArtifactKind::{Command, File, Url};
        let mut tools = BTreeMap::new();
        let mut add = |names: &[&str], role: Role| {
            for name in names {
                tools.insert((*name).to_owned(), role.clone());
            }
        };
        // The sample tools, and the reference MCP filesystem server's.
        add(
            &[
                "read_text_file",
                "read_media_file",
                "list_dir",
                "list_directory",
                "list_directory_with_sizes",
                "directory_tree",
                "get_file_info",
            ],
            role(Inspect, File, &["/path"], &[]),
        );
        // The sample tools' read_file, and the same name in Gemini CLI (`file_path`,
        // `absolute_path`) and Cursor (`target_file`).
        add(
            &["read_file"],
            role(
                Inspect,
                File,
                &["/path", "/file_path", "/absolute_path", "/target_file"],
                &[],
            ),
        );
        add(
            &["read_multiple_files"],
            role(Inspect, File, &["/paths"], &[]),
        );
        add(
            &["search", "search_files"],
            role(Inspect, File, &["/path"], &[]),
        );
        add(
            &[
                "write_file",
                "create_file",
                "delete_file",
                "edit_file",
                "create_directory",
            ],
            role(Change, File, &[], &["/path"]),
        );
        add(
            &["move_file"],
            role(
                Change,
                File,
                &[],
                &["/source", "/destination", "/from", "/to", "/path"],
            ),
        );
        add(&["fetch_url"], role(Inspect, Url, &["/url"], &[]));
        add(&["run_command"], role(Execute, Command, &["/command"], &[]));
        // Claude Code.
        // Claude Code's `Read`, `Write` and `Edit` take `file_path`; Cursor's tools of
        // the same names take `path`.
        add(
            &["Read"],
            role(Inspect, File, &["/file_path", "/path"], &[]),
        );
        add(
            &["Write", "Edit"],
            role(Change, File, &[], &["/file_path", "/path"]),
        );
        add(&["MultiEdit"], role(Change, File, &[], &["/file_path"]));
        add(
            &["NotebookEdit"],
            role(Change, File, &[], &["/notebook_path"]),
        );
        add(&["Bash"], role(Execute, Command, &["/command"], &[]));
        add(
            &["Grep", "Glob", "LS"],
            role(Inspect, File, &["/path"], &[]),
        );
        add(&["WebFetch"], role(Inspect, Url, &["/url"], &[]));
        add(&["WebSearch"], role(Inspect, Url, &[], &[]));
        // Gemini CLI.
        add(&["read_many_files"], role(Inspect, File, &["/paths"], &[]));
        add(
            &["glob", "search_file_content", "list_directory"],
            role(Inspect, File, &["/path", "/dir_path"], &[]),
        );
        add(
            &["replace", "write_file"],
            role(Change, File, &[], &["/file_path", "/path"]),
        );
        add(
            &["run_shell_command"],
            role(Execute, Command, &["/command"], &[]),
        );
        add(&["google_web_search"], role(Inspect, Url, &[], &[]));
        // Gemini CLI's web_fetch takes URLs in its `prompt`; Copilot CLI's a `url`.
        let mut fetch = role(Inspect, Url, &["/url"], &[]);
        fetch.texts = pointers(&["/prompt"]);
        add(&["web_fetch"], fetch);
        // Gemini CLI's grep (formerly search_file_content), Copilot CLI's grep and rg.
        add(
            &["grep", "rg"],
            role(Inspect, File, &["/path", "/dir_path"], &[]),
        );
        // GitHub Copilot CLI, Inspect AI, SWE-agent and OpenHands.
        add(
            &["bash", "execute_bash", "powershell"],
            role(Execute, Command, &["/command", "/cmd"], &[]),
        );
        add(&["web_search"], role(Inspect, Url, &[], &[]));
        add(&["python"], role(Execute, Command, &["/code"], &[]));
        add(&["view", "open"], role(Inspect, File, &["/path"], &[]));
        add(
            &[
                "edit",
                "create",
                "str_replace",
                "str_replace_editor",
                "text_editor",
            ],
            role(Change, File, &[], &["/path"]),
        );
        add(&["find_file"], role(Inspect, File, &["/dir"], &[]));
        // Cursor.
        add(
            &["Shell", "run_terminal_cmd"],
            role(Execute, Command, &["/command"], &[]),
        );
        add(
            &["edit_file", "delete_file"],
            role(Change, File, &[], &["/path", "/target_file"]),
        );
        add(
            &["list_dir"],
            role(Inspect, File, &["/path", "/relative_workspace_path"], &[]),
        );
        // Cursor's agent hooks name its edits StrReplace and Delete besides
        // Claude Code's Read, Write, Edit, Grep and WebFetch.
        add(
            &["StrReplace", "Delete"],
            role(Change, File, &[], &["/file_path", "/path", "/target_file"]),
        );
        // Cline.
        add(
            &["write_to_file", "replace_in_file"],
            role(Change, File, &[], &["/path"]),
        );
        add(
            &["execute_command"],
            role(Execute, Command, &["/command"], &[]),
        );
        add(
            &["list_files", "search_files", "list_code_definition_names"],
            role(Inspect, File, &["/path"], &[]),
        );
        // Codex.
        add(
            &["shell", "local_shell", "shell_command", "container.exec"],
            role(Execute, Command, &["/command"], &[]),
        );
        add(&["exec_command"], role(Execute, Command, &["/cmd"], &[]));
        // The patch is under `input` (a freeform call) or `patch` (a function call)
        // in Codex's logs, under `command` in its hooks' `tool_input`.
        let mut patch = role(Change, File, &[], &[]);
        patch.patch = pointers(&["/input", "/patch", "/command"]);
        add(&["apply_patch"], patch);
        Roles { tools, root: None }
    }

    /// The built-in table, built once.
    pub fn standard() -> &'static Roles {
        static STANDARD: std::sync::OnceLock<Roles> = std::sync::OnceLock::new();
        STANDARD.get_or_init(Roles::builtin)
    }

    /// The policy roles of `tool`, in [`PolicyRole::ALL`]'s order, each with the
    /// table's role when it comes from the table (`mcp` comes from the name alone).
    pub fn policy_roles_of(&self, tool: &str) -> Vec<(PolicyRole, Option<&Role>)> {
        let mut out = Vec::new();
        if let Some(role) = self.get(tool)
            && let Some(meaning) = role.policy_role()
        {
            out.push((meaning, Some(role)));
        }
        if is_mcp_tool(tool) {
            out.push((PolicyRole::Mcp, None));
        }
        out
    }

    /// The role of `tool`, if it has one.
    pub fn get(&self, tool: &str) -> Option<&Role> {
        self.tools.get(tool)
    }

    /// Every role, by tool name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Role)> {
        self.tools.iter().map(|(name, role)| (name.as_str(), role))
    }

    /// The built-in table changed by the roles file `bytes`:
    ///
    /// ```json
    /// {"roles_version": 1, "root": "/work/project",
    ///  "tools": {"deploy": {"action": "execute", "kind": "command", "uses": ["/cmd"]},
    ///            "Read": null}}
    /// ```
    ///
    /// A tool's role replaces the built-in one; `null` removes it. `uses`,
    /// `produces`, `patch` and `texts` (arrays of JSON pointers) are optional;
    /// `action` (`inspect`, `change`, `execute`) and `kind` (`file`, `url`,
    /// `command`) are required. `root` is an absolute path.
    pub fn parse(bytes: &[u8]) -> Result<Roles, RolesError> {
        let whole = |line: usize, message: String| RolesError {
            line,
            field: String::new(),
            message,
        };
        let text = json::decode_document(bytes).map_err(|err| whole(err.line, err.to_string()))?;
        let (value, lines) =
            json::parse_located(text).map_err(|err| whole(err.line, err.to_string()))?;
        let Value::Object(members) = value else {
            return Err(whole(
                1,
                format!("expected a JSON object, found {}", value.described()),
            ));
        };
        let mut roles = Roles::builtin();
        let mut version = false;
        for ((key, value), line) in members.into_iter().zip(lines) {
            let error = |field: &str, message: String| RolesError {
                line,
                field: field.to_owned(),
                message: format!("field \"{field}\" {message}"),
            };
            match key.as_str() {
                "roles_version" => match value {
                    Value::Int(digits) if digits.as_ref() == "1" => version = true,
                    other => {
                        return Err(error(
                            "roles_version",
                            format!("must be {ROLES_VERSION}, found {}", shown(&other)),
                        ));
                    }
                },
                "root" => match value {
                    Value::Str(root) if root.starts_with('/') => {
                        roles.root = match crate::policy::paths::normalise(&root) {
                            crate::policy::paths::Normalised::Path(path) => Some(path),
                            crate::policy::paths::Normalised::Escapes => None,
                        };
                    }
                    other => {
                        return Err(error(
                            "root",
                            format!("must be an absolute path, found {}", shown(&other)),
                        ));
                    }
                },
                "tools" => {
                    let Value::Object(tools) = value else {
                        return Err(error(
                            "tools",
                            format!("must be an object, found {}", value.described()),
                        ));
                    };
                    for (tool, role) in tools {
                        let field = format!("tools.{tool}");
                        match role {
                            Value::Null => {
                                roles.tools.remove(&tool);
                            }
                            Value::Object(members) => {
                                let role = parse_role(&members).map_err(|(name, message)| {
                                    error(&format!("{field}.{name}"), message)
                                })?;
                                roles.tools.insert(tool, role);
                            }
                            other => {
                                return Err(error(
                                    &field,
                                    format!(
                                        "must be an object or null, found {}",
                                        other.described()
                                    ),
                                ));
                            }
                        }
                    }
                }
                _ => {
                    return Err(RolesError {
                        line,
                        field: key.clone(),
                        message: format!("unknown field {}", json::quoted_key(&key)),
                    });
                }
            }
        }
        if !version {
            return Err(RolesError {
                line: 1,
                field: "roles_version".to_owned(),
                message: "missing field \"roles_version\"".to_owned(),
            });
        }
        Ok(roles)
    }
}

/// A value in a message: a string or integer as written, else its type.
fn shown(value: &Value) -> String {
    match value {
        Value::Int(digits) => digits.to_string(),
        Value::Str(text) => crate::finding::quote_name(text),
        other => other.described().to_owned(),
    }
}

/// A role's fields; the error names the field and what is wrong with it.
fn parse_role(members: &[(String, Value)]) -> Result<Role, (String, String)> {
    let mut action = None;
    let mut kind = None;
    let mut uses = Vec::new();
    let mut produces = Vec::new();
    let mut patch = Vec::new();
    let mut texts = Vec::new();
    let pointer = |name: &str, value: &Value| match value {
        Value::Str(text) => Argument::parse(text).map_err(|message| {
            (
                name.to_owned(),
                format!("holds an invalid JSON pointer: {message}"),
            )
        }),
        other => Err((
            name.to_owned(),
            format!("must hold JSON pointers, found {}", other.described()),
        )),
    };
    for (key, value) in members {
        match (key.as_str(), value) {
            ("action", Value::Str(text)) => {
                action = Some(match text.as_str() {
                    "inspect" => Action::Inspect,
                    "change" => Action::Change,
                    "execute" => Action::Execute,
                    _ => {
                        return Err((
                            "action".to_owned(),
                            format!(
                                "must be \"inspect\", \"change\" or \"execute\", found {}",
                                crate::finding::quote_name(text)
                            ),
                        ));
                    }
                });
            }
            ("kind", Value::Str(text)) => {
                kind = Some(match text.as_str() {
                    "file" => ArtifactKind::File,
                    "url" => ArtifactKind::Url,
                    "command" => ArtifactKind::Command,
                    _ => {
                        return Err((
                            "kind".to_owned(),
                            format!(
                                "must be \"file\", \"url\" or \"command\", found {}",
                                crate::finding::quote_name(text)
                            ),
                        ));
                    }
                });
            }
            (name @ ("uses" | "produces" | "patch" | "texts"), Value::Array(items)) => {
                let list = items
                    .iter()
                    .map(|item| pointer(name, item))
                    .collect::<Result<Vec<_>, _>>()?;
                match name {
                    "uses" => uses = list,
                    "produces" => produces = list,
                    "patch" => patch = list,
                    _ => texts = list,
                }
            }
            (name @ ("action" | "kind"), other) => {
                return Err((
                    name.to_owned(),
                    format!("must be a string, found {}", other.described()),
                ));
            }
            (name @ ("uses" | "produces" | "patch" | "texts"), other) => {
                return Err((
                    name.to_owned(),
                    format!(
                        "must be an array of JSON pointers, found {}",
                        other.described()
                    ),
                ));
            }
            (other, _) => {
                return Err((other.to_owned(), "is not a field of a role".to_owned()));
            }
        }
    }
    let action = action.ok_or_else(|| ("action".to_owned(), "is missing".to_owned()))?;
    let kind = kind.ok_or_else(|| ("kind".to_owned(), "is missing".to_owned()))?;
    Ok(Role {
        action,
        kind,
        uses,
        produces,
        patch,
        texts,
    })
}

/// The files a patch in Codex's `apply_patch` format names: the paths after
/// `*** Add File: `, `*** Update File: `, `*** Delete File: ` and `*** Move to: `,
/// in order.
pub(crate) fn patch_files(patch: &str) -> Vec<&str> {
    const HEADERS: [&str; 4] = [
        "*** Add File: ",
        "*** Update File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ];
    patch
        .lines()
        .filter_map(|line| {
            HEADERS
                .iter()
                .find_map(|header| line.strip_prefix(header))
                .map(|rest| rest.trim_end_matches('\r').trim())
                .filter(|path| !path.is_empty())
        })
        .collect()
}

/// The URLs in `text`: each `SCHEME://...` (a scheme of a letter, then letters,
/// digits, `+`, `-` or `.`) up to the first space, control character, quote, `<`,
/// `>` or backtick, without trailing `.`, `,`, `;`, `:`, `!`, `?` or closing bracket.
pub(crate) fn text_urls(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("://").map(|i| from + i) {
        let mut start = at;
        while start > 0
            && matches!(bytes[start - 1], b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'+' | b'-' | b'.')
        {
            start -= 1;
        }
        // The scheme starts with a letter.
        while start < at && !bytes[start].is_ascii_alphabetic() {
            start += 1;
        }
        let end = text[at..]
            .find(|c: char| c.is_whitespace() || c.is_control() || "\"'<>`".contains(c))
            .map_or(text.len(), |i| at + i);
        if start < at {
            let url = text[start..end].trim_end_matches(|c: char| ".,;:!?)]}".contains(c));
            out.push(url);
        }
        from = end.max(at + 3);
    }
    out
}
