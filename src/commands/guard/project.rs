//! A project's guard files, as `guard init` writes them and `guard check` reads
//! them: for each agent (see [`Setup`]), its policy (`.claude/toolreplay-scope.json`
//! for Claude Code), its hooks file (`.claude/settings.json`) and the sealed
//! sessions' folder (`.claude/toolreplay/`).

use std::path::{Path, PathBuf};

use toolreplay_core::input::InputError;

use super::ordered::Json;
use super::setup::Setup;
use crate::commands::read_text;
use crate::error::Error;
use crate::input::display;

/// The variables that agents set to the project, as hook commands name them.
const PROJECT_VARIABLES: [&str; 2] = ["CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"];

/// The largest settings.json read, in bytes.
const MAX_SETTINGS_BYTES: u64 = 16 << 20;

/// A project folder: `--project DIR`, or the current directory.
pub(super) struct Project {
    dir: Option<PathBuf>,
}

impl Project {
    /// The project `dir` (the current directory when `None`): an error when it is
    /// not a folder.
    pub(super) fn new(dir: Option<&Path>) -> Result<Project, Error> {
        if let Some(dir) = dir
            && !dir.is_dir()
        {
            return Err(Error::Input(InputError::Invalid {
                path: display(dir),
                message: if dir.exists() {
                    "not a folder".to_owned()
                } else {
                    "no such folder".to_owned()
                },
            }));
        }
        Ok(Project {
            dir: dir.map(Path::to_owned),
        })
    }

    /// The path of `name`, a path relative to the project: relative to the current
    /// directory when the project is it, so that messages name `.claude/...`.
    pub(super) fn path(&self, name: &str) -> PathBuf {
        match &self.dir {
            Some(dir) => dir.join(name),
            None => PathBuf::from(name),
        }
    }

    /// The project's absolute path, as hook commands that name it by path do.
    pub(super) fn absolute(&self) -> PathBuf {
        let dir = self.dir.as_deref().unwrap_or(Path::new("."));
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
        // `absolute` keeps a trailing `.`.
        match dir.file_name() {
            None if dir.ends_with(".") => dir.parent().map_or(dir.clone(), Path::to_owned),
            _ => dir,
        }
    }

    /// The path a hook's command names: `$CLAUDE_PROJECT_DIR` and
    /// `$GEMINI_PROJECT_DIR` (which Claude Code and Gemini CLI set to the project)
    /// are this project, and so is the start of a relative path (agents run project
    /// hooks from the project); an absolute path in the project is named relative
    /// to it, as [`Project::path`] names files.
    pub(super) fn expand(&self, word: &str) -> PathBuf {
        for name in PROJECT_VARIABLES {
            for var in [
                format!("\"${name}\""),
                format!("${{{name}}}"),
                format!("${name}"),
            ] {
                if let Some(rest) = word.strip_prefix(&var) {
                    return match (rest.trim_start_matches('/'), &self.dir) {
                        ("", Some(dir)) => dir.clone(),
                        ("", None) => PathBuf::from("."),
                        (rest, _) => self.path(rest),
                    };
                }
            }
        }
        let path = Path::new(word);
        if !path.is_absolute() {
            return self.path(word);
        }
        // A path in the project is named as the project's other files are.
        match path.strip_prefix(self.absolute()).map(Path::to_str) {
            Ok(Some(rest)) if !rest.is_empty() => self.path(rest),
            _ => path.to_owned(),
        }
    }

    /// The agent's hooks file as written, or `None` when there is none: an error
    /// when it cannot be read, is not a JSON object, or has not the `version` the
    /// agent reads.
    pub(super) fn hooks_file(&self, setup: &Setup) -> Result<Option<(String, Json)>, Error> {
        let path = self.path(setup.hooks);
        match std::fs::symlink_metadata(&path) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            _ => {}
        }
        let text = read_text(&path, MAX_SETTINGS_BYTES, "16 MiB")?;
        let value = Json::parse(&text).map_err(|err| {
            Error::Input(InputError::Invalid {
                path: display(&path),
                message: format!("not valid JSON: {err}; left as it is"),
            })
        })?;
        if !matches!(value, Json::Object(_)) {
            return Err(Error::Input(InputError::Invalid {
                path: display(&path),
                message: format!(
                    "expected a JSON object, found {}; left as it is",
                    value.described()
                ),
            }));
        }
        if let Some(version) = setup.version {
            let found = value.get("version");
            if found != Some(&Json::Number(version.into())) {
                return Err(Error::Input(InputError::Invalid {
                    path: display(&path),
                    message: format!(
                        "expected \"version\": {version}, found {}; left as it is",
                        match found {
                            None => "none".to_owned(),
                            Some(Json::Number(n)) => n.to_string(),
                            Some(other) => other.described().to_owned(),
                        }
                    ),
                }));
            }
        }
        Ok(Some((text, value)))
    }
}

/// The words of a hook command that runs `toolreplay guard`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct GuardCommand {
    pub policy: String,
    pub dir: String,
    /// Its `--agent`, when it names one.
    pub agent: Option<String>,
    /// Its `--event`, when it names one.
    pub event: Option<String>,
}

/// The `--policy`, `--dir`, `--agent` and `--event` words of a hook command that
/// runs `toolreplay guard` (`toolreplay` by name or path), when it is one and names
/// a policy and a folder.
pub(super) fn guard_command(command: &str) -> Option<GuardCommand> {
    let words = words(command);
    let start = words.windows(2).position(|pair| {
        (pair[0] == "toolreplay" || pair[0].ends_with("/toolreplay")) && pair[1] == "guard"
    })?;
    let (mut policy, mut dir, mut agent, mut event) = (None, None, None, None);
    let mut rest = words[start + 2..].iter();
    while let Some(word) = rest.next() {
        if matches!(word.as_str(), ";" | "&&" | "||" | "|" | "&") {
            break;
        }
        for (name, value) in [
            ("--policy", &mut policy),
            ("--dir", &mut dir),
            ("--agent", &mut agent),
            ("--event", &mut event),
        ] {
            if word == name {
                *value = rest.next().cloned();
            } else if let Some(attached) = word
                .strip_prefix(name)
                .and_then(|rest| rest.strip_prefix('='))
            {
                *value = Some(attached.to_owned());
            }
        }
    }
    Some(GuardCommand {
        policy: policy?,
        dir: dir?,
        agent,
        event,
    })
}

/// The words of a shell command, as far as a hook's command needs: split at
/// whitespace outside quotes, quotes removed, except around `$CLAUDE_PROJECT_DIR`
/// and `$GEMINI_PROJECT_DIR`, which stay quoted for [`Project::expand`].
fn words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let word = word.get_or_insert_with(String::new);
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                let word = word.get_or_insert_with(String::new);
                let mut quoted = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => quoted.extend(chars.next()),
                        c => quoted.push(c),
                    }
                }
                if PROJECT_VARIABLES
                    .iter()
                    .any(|name| quoted.strip_prefix('$') == Some(name))
                {
                    word.push_str(&format!("\"{quoted}\""));
                } else {
                    word.push_str(&quoted);
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// The first hook of `event` in the agent's hooks file `hooks` that runs the
/// guard for that agent (and that event, when the agent's commands name it).
pub(super) fn guard_hook(hooks: &Json, setup: &Setup, event: &str) -> Option<GuardCommand> {
    let Some(Json::Array(items)) = hooks.get("hooks").and_then(|h| h.get(event)) else {
        return None;
    };
    let entries: Vec<&Json> = if setup.nested {
        items
            .iter()
            .filter_map(|group| match group.get("hooks") {
                Some(Json::Array(hooks)) => Some(hooks),
                _ => None,
            })
            .flatten()
            .collect()
    } else {
        items.iter().collect()
    };
    let command = Json::Str("command".to_owned());
    entries
        .into_iter()
        // A flat entry's type is a command unless it says otherwise (Cursor,
        // Copilot CLI); a nested one says it (Claude Code, Codex, Gemini CLI).
        .filter(|hook| match hook.get("type") {
            None => !setup.nested,
            Some(kind) => *kind == command,
        })
        // Copilot CLI also reads a cross-platform `command`.
        .filter_map(
            |hook| match hook.get(setup.command_key).or(hook.get("command")) {
                Some(Json::Str(command)) => guard_command(command),
                _ => None,
            },
        )
        .find(|found| {
            found.agent.as_deref().unwrap_or("claude-code") == setup.agent.name()
                && (!setup.event_word || found.event.as_deref() == Some(event))
        })
}

#[cfg(test)]
mod tests {
    use super::{GuardCommand, guard_command, guard_hook};
    use crate::args::Agent;
    use crate::commands::guard::ordered::Json;
    use crate::commands::guard::setup::Setup;

    fn ours(policy: &str, dir: &str, agent: Option<&str>, event: Option<&str>) -> GuardCommand {
        GuardCommand {
            policy: policy.to_owned(),
            dir: dir.to_owned(),
            agent: agent.map(str::to_owned),
            event: event.map(str::to_owned),
        }
    }

    #[test]
    fn guard_commands_are_recognised() {
        let claude = "toolreplay guard --policy \"$CLAUDE_PROJECT_DIR\"/.claude/toolreplay-scope.json --dir \"$CLAUDE_PROJECT_DIR\"/.claude/toolreplay";
        assert_eq!(
            guard_command(claude),
            Some(ours(
                "\"$CLAUDE_PROJECT_DIR\"/.claude/toolreplay-scope.json",
                "\"$CLAUDE_PROJECT_DIR\"/.claude/toolreplay",
                None,
                None
            ))
        );
        let gemini = "toolreplay guard --agent gemini --policy \"$GEMINI_PROJECT_DIR\"/.gemini/toolreplay-scope.json --dir \"$GEMINI_PROJECT_DIR\"/.gemini/toolreplay";
        assert_eq!(
            guard_command(gemini),
            Some(ours(
                "\"$GEMINI_PROJECT_DIR\"/.gemini/toolreplay-scope.json",
                "\"$GEMINI_PROJECT_DIR\"/.gemini/toolreplay",
                Some("gemini"),
                None
            ))
        );
        assert_eq!(
            guard_command(
                "toolreplay guard --agent=copilot --event preToolUse --policy '/a b/p.json' --dir /s"
            ),
            Some(ours(
                "/a b/p.json",
                "/s",
                Some("copilot"),
                Some("preToolUse")
            ))
        );
        assert_eq!(
            guard_command("/usr/local/bin/toolreplay guard --dir '/a b' --policy=/p.json"),
            Some(ours("/p.json", "/a b", None, None))
        );
        assert_eq!(guard_command("toolreplay guard --policy p.json"), None);
        assert_eq!(guard_command("echo toolreplay guard"), None);
        assert_eq!(guard_command("npx prettier --write"), None);
    }

    #[test]
    fn guard_hooks_are_found_in_each_layout() {
        let copilot = Setup::of(Agent::Copilot);
        let hooks = Json::parse(
            r#"{"version": 1, "hooks": {
                "preToolUse": [
                    {"type": "prompt", "bash": "toolreplay guard --agent copilot --event preToolUse --policy p --dir d"},
                    {"command": "toolreplay guard --agent copilot --event preToolUse --policy p --dir d"}
                ],
                "postToolUse": [
                    {"type": "command", "bash": "toolreplay guard --agent copilot --event preToolUse --policy p --dir d"}
                ]
            }}"#,
        )
        .expect("JSON");
        // Untyped, with `command`: a command hook for its event.
        assert!(guard_hook(&hooks, copilot, "preToolUse").is_some());
        // Its `--event` is another event's.
        assert!(guard_hook(&hooks, copilot, "postToolUse").is_none());
        // A nested entry must say it is a command; the guard must be the agent's.
        let codex = Setup::of(Agent::Codex);
        let hooks = Json::parse(
            r#"{"hooks": {
                "Stop": [{"hooks": [{"command": "toolreplay guard --agent codex --policy p --dir d"}]}],
                "PreToolUse": [{"hooks": [{"type": "command", "command": "toolreplay guard --policy p --dir d"}]}],
                "PostToolUse": [{"hooks": [{"type": "command", "command": "toolreplay guard --agent codex --policy p --dir d"}]}]
            }}"#,
        )
        .expect("JSON");
        assert!(guard_hook(&hooks, codex, "Stop").is_none());
        assert!(guard_hook(&hooks, codex, "PreToolUse").is_none());
        assert!(guard_hook(&hooks, codex, "PostToolUse").is_some());
        assert!(guard_hook(&hooks, Setup::of(Agent::ClaudeCode), "PreToolUse").is_some());
    }
}
