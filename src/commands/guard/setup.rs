//! What `guard init` writes for each agent and `guard check` looks for: one
//! [`Setup`] per agent, naming its hooks file and how that file lays out a hook
//! (nested in matcher groups, or flat), the events the guard runs on, the timeout's
//! key and unit, how the hook's command names the project, the policy and the
//! sessions' folder, and what to do next. Init and check read only this table.

use std::path::Path;

use super::ordered::Json;
use crate::args::Agent;

/// How a hook command names the project's files.
#[derive(Debug, Clone, Copy)]
pub(super) enum Paths {
    /// Through the variable the agent sets to the project (quoted, as written).
    Variable(&'static str),
    /// By absolute path: the agent runs hooks in a working directory it does not
    /// promise to be the project.
    Absolute,
    /// Relative to the project: the agent runs project hooks from its root.
    Relative,
}

/// One event the guard's hook runs on.
#[derive(Debug)]
pub(super) struct HookEvent {
    pub name: &'static str,
    /// Whether its entry has `"matcher": "*"` (nested layouts, tool events).
    pub matcher: bool,
    /// Whether its entry has `"failClosed": true` (Cursor).
    pub fail_closed: bool,
}

const fn on_tools(name: &'static str) -> HookEvent {
    HookEvent {
        name,
        matcher: true,
        fail_closed: false,
    }
}

const fn on_turn(name: &'static str) -> HookEvent {
    HookEvent {
        name,
        matcher: false,
        fail_closed: false,
    }
}

const fn closed(name: &'static str) -> HookEvent {
    HookEvent {
        name,
        matcher: false,
        fail_closed: true,
    }
}

/// Where a hook's command finds the policy and the sessions' folder.
#[derive(Debug, Clone, Copy)]
pub(super) enum Where<'p> {
    /// In the project at this absolute path, where `init` puts them.
    Project(&'p Path),
    /// Where `--policy` and `--dir` say (absolute paths), the rest as in the
    /// project at `project`.
    Files {
        project: &'p Path,
        policy: Option<&'p Path>,
        sessions: Option<&'p Path>,
    },
}

/// How one agent's project is set up.
#[derive(Debug)]
pub(super) struct Setup {
    pub agent: Agent,
    /// The hooks file, relative to the project.
    pub hooks: &'static str,
    /// The policy, relative to the project.
    pub policy: &'static str,
    /// The sessions' folder, relative to the project.
    pub sessions: &'static str,
    /// The policy `init` writes.
    pub policy_text: &'static str,
    /// Whether an event holds matcher groups each with a `hooks` array (Claude
    /// Code, Codex, Gemini CLI), rather than the hook entries themselves.
    pub nested: bool,
    /// The `version` the hooks file must have, when it has one.
    pub version: Option<u64>,
    pub events: &'static [HookEvent],
    /// The entry's `name`, when the agent names hooks.
    pub name: Option<&'static str>,
    /// Whether the entry has `"type": "command"`.
    pub typed: bool,
    /// The entry's member holding the command.
    pub command_key: &'static str,
    /// The entry's timeout member and its value (30 seconds, in the agent's unit).
    pub timeout: (&'static str, u64),
    pub paths: Paths,
    /// Whether the command names the event (`--event`): the agent's payloads do not.
    pub event_word: bool,
    /// What to do after `init`: `{here}`, `{sessions}` and `{check}` are replaced.
    pub next: &'static str,
}

/// The policy `init` writes for Claude Code, and `samples/claude-code-guard.json`
/// is (a test checks they are the same bytes).
pub(super) const CLAUDE_CODE_POLICY: &str = include_str!("default-policy.json");

/// The policy `init` writes for every other agent, by roles (docs/policy.md,
/// "Roles"): one policy for each agent's tool names; `samples/any-agent-guard.json`
/// is it (a test checks they are the same bytes).
pub(super) const ANY_AGENT_POLICY: &str = include_str!("any-agent-policy.json");

const SEALED: &str = "\x20     and sealed in {sessions}/<session_id>.jsonl\n";
const CHECK: &str = "\x20     `{check}` says whether the hooks and the policy are in place\n";

const CLAUDE_CODE: Setup = Setup {
    agent: Agent::ClaudeCode,
    hooks: ".claude/settings.json",
    policy: ".claude/toolreplay-scope.json",
    sessions: ".claude/toolreplay",
    policy_text: CLAUDE_CODE_POLICY,
    nested: true,
    version: None,
    events: &[
        on_tools("PreToolUse"),
        on_tools("PostToolUse"),
        on_tools("PostToolUseFailure"),
        on_turn("UserPromptSubmit"),
        on_turn("Stop"),
        on_turn("SessionEnd"),
    ],
    name: None,
    typed: true,
    command_key: "command",
    timeout: ("timeout", 30),
    paths: Paths::Variable("\"$CLAUDE_PROJECT_DIR\""),
    event_word: false,
    next: "next: start `claude` {here}: every tool call is decided by the policy\n",
};

const CODEX: Setup = Setup {
    agent: Agent::Codex,
    hooks: ".codex/hooks.json",
    policy: ".codex/toolreplay-scope.json",
    sessions: ".codex/toolreplay",
    policy_text: ANY_AGENT_POLICY,
    nested: true,
    version: None,
    events: &[
        on_tools("PreToolUse"),
        on_tools("PostToolUse"),
        on_turn("UserPromptSubmit"),
        on_turn("Stop"),
    ],
    name: None,
    typed: true,
    command_key: "command",
    timeout: ("timeout", 30),
    paths: Paths::Absolute,
    event_word: false,
    next: "next: Codex loads a project's hooks only in a trusted project, and skips each\n\
           \x20     new or changed hook until it is approved: start `codex` {here}, trust\n\
           \x20     the project, and approve the toolreplay hooks in its `/hooks` view;\n\
           \x20     then every tool call its hooks see is decided by the policy\n",
};

const GEMINI: Setup = Setup {
    agent: Agent::Gemini,
    hooks: ".gemini/settings.json",
    policy: ".gemini/toolreplay-scope.json",
    sessions: ".gemini/toolreplay",
    policy_text: ANY_AGENT_POLICY,
    nested: true,
    version: None,
    events: &[
        on_tools("BeforeTool"),
        on_tools("AfterTool"),
        on_turn("BeforeAgent"),
        on_turn("AfterAgent"),
        on_turn("SessionEnd"),
    ],
    name: Some("toolreplay-guard"),
    typed: true,
    command_key: "command",
    timeout: ("timeout", 30_000),
    paths: Paths::Variable("\"$GEMINI_PROJECT_DIR\""),
    event_word: false,
    next: "next: start `gemini` {here}, in a trusted folder (Gemini CLI runs no project\n\
           \x20     hooks in an untrusted one): every tool call is decided by the policy\n",
};

const CURSOR: Setup = Setup {
    agent: Agent::Cursor,
    hooks: ".cursor/hooks.json",
    policy: ".cursor/toolreplay-scope.json",
    sessions: ".cursor/toolreplay",
    policy_text: ANY_AGENT_POLICY,
    nested: false,
    version: Some(1),
    events: &[
        closed("preToolUse"),
        on_turn("postToolUse"),
        on_turn("postToolUseFailure"),
        closed("beforeSubmitPrompt"),
        on_turn("afterAgentResponse"),
        on_turn("stop"),
        on_turn("sessionEnd"),
    ],
    name: None,
    typed: false,
    command_key: "command",
    timeout: ("timeout", 30),
    paths: Paths::Relative,
    event_word: false,
    next: "next: open the project {here} in Cursor, a trusted workspace (restart Cursor if\n\
           \x20     it was open): every tool call of its agent is decided by the policy\n",
};

const COPILOT: Setup = Setup {
    agent: Agent::Copilot,
    hooks: ".github/hooks/toolreplay.json",
    policy: ".github/toolreplay-scope.json",
    sessions: ".github/toolreplay",
    policy_text: ANY_AGENT_POLICY,
    nested: false,
    version: Some(1),
    events: &[
        on_turn("preToolUse"),
        on_turn("postToolUse"),
        on_turn("postToolUseFailure"),
        on_turn("userPromptSubmitted"),
        on_turn("agentStop"),
        on_turn("sessionEnd"),
    ],
    name: None,
    typed: true,
    command_key: "bash",
    timeout: ("timeoutSec", 30),
    paths: Paths::Absolute,
    event_word: true,
    next: "next: start `copilot` {here}: every tool call is decided by the policy\n",
};

const COPILOT_NOTE: &str = "note: Copilot CLI denies a call whose preToolUse hook fails, but lets it through\n\
     \x20     when the hook times out, and no hook can block a prompt: a prompt holding\n\
     \x20     a secret is recorded, not stopped\n";

impl Setup {
    /// The setup of `agent`.
    pub(super) fn of(agent: Agent) -> &'static Setup {
        match agent {
            Agent::ClaudeCode => &CLAUDE_CODE,
            Agent::Codex => &CODEX,
            Agent::Gemini => &GEMINI,
            Agent::Cursor => &CURSOR,
            Agent::Copilot => &COPILOT,
        }
    }

    /// The folders `init` creates, relative to the project.
    pub(super) fn folders(&self) -> [&'static str; 2] {
        let parent = |path: &'static str| path.rsplit_once('/').map_or(".", |(dir, _)| dir);
        [parent(self.policy), parent(self.hooks)]
    }

    /// The words `guard init` and `guard check` take for this agent.
    pub(super) fn agent_words(&self) -> String {
        match self.agent {
            Agent::ClaudeCode => String::new(),
            agent => format!(" --agent {}", agent.name()),
        }
    }

    /// The command of the hook on `event`; `project` is the project's absolute path,
    /// or the policy and the sessions' folder by their own absolute paths.
    pub(super) fn command(&self, event: &str, project: &Where<'_>) -> String {
        let path = |name: &str, own: Option<&Path>| match (own, project, self.paths) {
            (Some(own), _, _) => super::shell_quote(&own.to_string_lossy()),
            (None, _, Paths::Variable(var)) => format!("{var}/{name}"),
            (None, _, Paths::Relative) => name.to_owned(),
            (None, Where::Project(dir), Paths::Absolute) => {
                super::shell_quote(&dir.join(name).to_string_lossy())
            }
            (None, Where::Files { project, .. }, Paths::Absolute) => {
                super::shell_quote(&project.join(name).to_string_lossy())
            }
        };
        let (policy, sessions) = match project {
            Where::Project(_) => (None, None),
            Where::Files {
                policy, sessions, ..
            } => (*policy, *sessions),
        };
        let mut command = "toolreplay guard".to_owned();
        command.push_str(&self.agent_words());
        if self.event_word {
            command.push_str(&format!(" --event {event}"));
        }
        command.push_str(&format!(
            " --policy {} --dir {}",
            path(self.policy, policy),
            path(self.sessions, sessions)
        ));
        command
    }

    /// The hooks block: `hooks`, each event with the guard's entry (in its matcher
    /// group, for a nested layout).
    pub(super) fn hooks_block(&self, project: &Where<'_>) -> Vec<(String, Json)> {
        self.events
            .iter()
            .map(|event| {
                let mut entry = Vec::new();
                if let Some(name) = self.name {
                    entry.push(("name".to_owned(), Json::Str(name.to_owned())));
                }
                if self.typed {
                    entry.push(("type".to_owned(), Json::Str("command".to_owned())));
                }
                entry.push((
                    self.command_key.to_owned(),
                    Json::Str(self.command(event.name, project)),
                ));
                entry.push((
                    self.timeout.0.to_owned(),
                    Json::Number(self.timeout.1.into()),
                ));
                if event.fail_closed {
                    entry.push(("failClosed".to_owned(), Json::Bool(true)));
                }
                let item = if self.nested {
                    let mut group = Vec::new();
                    if event.matcher {
                        group.push(("matcher".to_owned(), Json::Str("*".to_owned())));
                    }
                    group.push(("hooks".to_owned(), Json::Array(vec![Json::Object(entry)])));
                    Json::Object(group)
                } else {
                    Json::Object(entry)
                };
                (event.name.to_owned(), Json::Array(vec![item]))
            })
            .collect()
    }

    /// What `init` says to do next.
    pub(super) fn next(&self, here: &str, sessions: &str, check: &str) -> String {
        let mut text = String::from(self.next);
        text.push_str(SEALED);
        text.push_str(CHECK);
        if self.agent == Agent::Copilot {
            text.push_str(COPILOT_NOTE);
        }
        text.replace("{here}", here)
            .replace("{sessions}", sessions)
            .replace("{check}", check)
    }
}
