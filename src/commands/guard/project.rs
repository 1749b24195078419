//! A project's guard files, as `guard init` writes them and `guard check` reads
//! them: `.claude/toolreplay-scope.json` (the policy), `.claude/settings.json` (the
//! hooks) and `.claude/toolreplay/` (the sealed sessions).

use std::path::{Path, PathBuf};

use super::ordered::Json;
use crate::commands::read_text;
use crate::error::Error;
use crate::input::display;

/// The events whose hooks run the guard, in the order of the hooks block.
pub(super) const EVENTS: [&str; 6] = [
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "Stop",
    "SessionEnd",
];

/// The policy, as the hooks name it in the project.
pub(super) const POLICY: &str = ".claude/toolreplay-scope.json";
/// The hooks' settings file in the project.
pub(super) const SETTINGS: &str = ".claude/settings.json";
/// The sessions' folder, as the hooks name it in the project.
pub(super) const SESSIONS: &str = ".claude/toolreplay";

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
            return Err(Error::Invalid {
                path: display(dir),
                message: if dir.exists() {
                    "not a folder".to_owned()
                } else {
                    "no such folder".to_owned()
                },
            });
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

    /// The path a hook's command names: `$CLAUDE_PROJECT_DIR` (Claude Code sets it
    /// to the project) is this project.
    pub(super) fn expand(&self, word: &str) -> PathBuf {
        for var in [
            "\"$CLAUDE_PROJECT_DIR\"",
            "${CLAUDE_PROJECT_DIR}",
            "$CLAUDE_PROJECT_DIR",
        ] {
            if let Some(rest) = word.strip_prefix(var) {
                let rest = rest.trim_start_matches('/');
                return match &self.dir {
                    Some(dir) => dir.join(rest),
                    None if rest.is_empty() => PathBuf::from("."),
                    None => PathBuf::from(rest),
                };
            }
        }
        PathBuf::from(word)
    }

    /// The project's settings.json as written, or `None` when there is none: an
    /// error when it cannot be read or is not a JSON object.
    pub(super) fn settings(&self) -> Result<Option<(String, Json)>, Error> {
        let path = self.path(SETTINGS);
        match std::fs::symlink_metadata(&path) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            _ => {}
        }
        let text = read_text(&path, MAX_SETTINGS_BYTES, "16 MiB")?;
        let value = Json::parse(&text).map_err(|err| Error::Invalid {
            path: display(&path),
            message: format!("not valid JSON: {err}; left as it is"),
        })?;
        if !matches!(value, Json::Object(_)) {
            return Err(Error::Invalid {
                path: display(&path),
                message: format!(
                    "expected a JSON object, found {}; left as it is",
                    value.described()
                ),
            });
        }
        Ok(Some((text, value)))
    }
}

/// The `--policy` and `--dir` words of a hook command that runs `toolreplay guard`
/// (`toolreplay` by name or path), when it is one and names both.
pub(super) fn guard_command(command: &str) -> Option<(String, String)> {
    let words = words(command);
    let start = words.windows(2).position(|pair| {
        (pair[0] == "toolreplay" || pair[0].ends_with("/toolreplay")) && pair[1] == "guard"
    })?;
    let (mut policy, mut dir) = (None, None);
    let mut rest = words[start + 2..].iter();
    while let Some(word) = rest.next() {
        if matches!(word.as_str(), ";" | "&&" | "||" | "|" | "&") {
            break;
        }
        if let Some(value) = word.strip_prefix("--policy=") {
            policy = Some(value.to_owned());
        } else if let Some(value) = word.strip_prefix("--dir=") {
            dir = Some(value.to_owned());
        } else if word == "--policy" {
            policy = rest.next().cloned();
        } else if word == "--dir" {
            dir = rest.next().cloned();
        }
    }
    Some((policy?, dir?))
}

/// The words of a shell command, as far as a hook's command needs: split at
/// whitespace outside quotes, quotes removed, except around `$CLAUDE_PROJECT_DIR`,
/// which stays `"$CLAUDE_PROJECT_DIR"` for [`Project::expand`].
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
                if quoted == "$CLAUDE_PROJECT_DIR" {
                    word.push_str("\"$CLAUDE_PROJECT_DIR\"");
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

/// The `--policy` and `--dir` of the first command hook of `event` in `settings`
/// that runs the guard.
pub(super) fn guard_hook(settings: &Json, event: &str) -> Option<(String, String)> {
    let Some(Json::Array(groups)) = settings.get("hooks").and_then(|h| h.get(event)) else {
        return None;
    };
    groups
        .iter()
        .filter_map(|group| match group.get("hooks") {
            Some(Json::Array(hooks)) => Some(hooks),
            _ => None,
        })
        .flatten()
        .filter(|hook| hook.get("type") == Some(&Json::Str("command".to_owned())))
        .find_map(|hook| match hook.get("command") {
            Some(Json::Str(command)) => guard_command(command),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::guard_command;

    #[test]
    fn guard_commands_are_recognised() {
        let ours = "toolreplay guard --policy \"$CLAUDE_PROJECT_DIR\"/.claude/toolreplay-scope.json --dir \"$CLAUDE_PROJECT_DIR\"/.claude/toolreplay";
        assert_eq!(
            guard_command(ours),
            Some((
                "\"$CLAUDE_PROJECT_DIR\"/.claude/toolreplay-scope.json".to_owned(),
                "\"$CLAUDE_PROJECT_DIR\"/.claude/toolreplay".to_owned()
            ))
        );
        assert_eq!(
            guard_command("/usr/local/bin/toolreplay guard --dir '/a b' --policy=/p.json"),
            Some(("/p.json".to_owned(), "/a b".to_owned()))
        );
        assert_eq!(guard_command("toolreplay guard --policy p.json"), None);
        assert_eq!(guard_command("echo toolreplay guard"), None);
        assert_eq!(guard_command("npx prettier --write"), None);
    }
}
