//! Finding a Claude Code session's subagent logs: `<session>/subagents/agent-*.jsonl`
//! beside the session file `<session>.jsonl`. The import reads them from bytes
//! ([`crate::import::import_beside`]); this is the file system side.
//!
//! They are looked for when the input is a file (not standard input) named `*.jsonl`
//! and read as Claude Code or with `--from auto`; the import reads them only when the
//! input is a Claude Code session. A folder that cannot be listed, or a log that
//! cannot be read, is an error: its calls must not be lost silently.
//!
//! The same session folder holds `tool-results/`, the files where Claude Code keeps
//! results too large for the session ([`tool_results`]): the import asks for them by
//! name, and only a file of that folder is ever read (its canonical path must stay
//! inside the folder as named from the session file's own folder, so a link out of
//! it, or a session or tool-results folder that is a link, is refused too).

use std::path::{Path, PathBuf};

use super::{InputError, display, is_stdin, read_up_to};
use crate::import::{Format, MAX_IMPORT_BYTES, Source, Subagent};

/// The subagent logs found beside a session: each file name with its bytes.
#[derive(Debug, Default)]
pub struct Found(Vec<(String, Vec<u8>)>);

impl Found {
    /// How many logs were found.
    pub fn count(&self) -> usize {
        self.0.len()
    }

    /// The logs, as the import takes them.
    pub fn logs(&self) -> Vec<Subagent<'_>> {
        self.0
            .iter()
            .map(|(name, bytes)| Subagent { name, bytes })
            .collect()
    }
}

/// The subagent logs beside the session at `path`, read as `source`, in the order of
/// their names.
pub fn subagents_beside(path: &Path, source: Source) -> Result<Found, InputError> {
    if is_stdin(path) || !matches!(source, Source::Auto | Source::Named(Format::ClaudeCode)) {
        return Ok(Found::default());
    }
    let Some(stem) = path
        .file_name()
        .and_then(|name| name.to_str())
        .and_then(|name| name.strip_suffix(".jsonl"))
    else {
        return Ok(Found::default());
    };
    let folder = path.with_file_name(stem).join("subagents");
    if !folder.is_dir() {
        return Ok(Found::default());
    }
    let read_error = |at: &Path, source| InputError::Read {
        path: display(at),
        source,
    };
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&folder).map_err(|err| read_error(&folder, err))? {
        let entry = entry.map_err(|err| read_error(&folder, err))?;
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        if !(name.starts_with("agent-") && name.ends_with(".jsonl")) {
            continue;
        }
        let at = entry.path();
        let file = std::fs::File::open(&at).map_err(|err| read_error(&at, err))?;
        let bytes = read_up_to(file, &at, MAX_IMPORT_BYTES)?;
        if bytes.len() as u64 > MAX_IMPORT_BYTES {
            return Err(InputError::Invalid {
                path: display(&at),
                message: "larger than the most an import reads".to_owned(),
            });
        }
        found.push((name, bytes));
    }
    found.sort();
    Ok(Found(found))
}

/// Whether the import of the session at `path` read as `source` reads what lies
/// beside it (its subagent logs, its tool-results folder): read as `claude-code`,
/// or with `--from auto` when its content is recognised as a Claude Code session.
/// A session that cannot be read does not.
pub fn reads_beside(path: &Path, source: Source) -> bool {
    match source {
        Source::Named(format) => format == Format::ClaudeCode,
        Source::Auto => {
            let Ok(file) = std::fs::File::open(path) else {
                return false;
            };
            read_up_to(file, path, MAX_IMPORT_BYTES).is_ok_and(|bytes| {
                bytes.len() as u64 <= MAX_IMPORT_BYTES
                    && crate::import::detect_format(&bytes) == Some(Format::ClaudeCode)
            })
        }
    }
}

/// The session folder of the session (or subagent log) at `path`: `<session>/` for
/// `<session>.jsonl`, and for `<session>/subagents/agent-*.jsonl`.
fn session_folder(path: &Path) -> Option<PathBuf> {
    if let Some(session) = session_of(path) {
        return Some(session.with_extension(""));
    }
    let stem = path.file_name()?.to_str()?.strip_suffix(".jsonl")?;
    Some(path.with_file_name(stem))
}

/// The files of the `tool-results` folder of the session at `path`, each read by its
/// name (never a path), as the import asks for them; `None` for standard input.
pub fn tool_results(path: &Path) -> Option<impl Fn(&str) -> Result<Vec<u8>, String>> {
    if is_stdin(path) {
        return None;
    }
    let folder = session_folder(path).map(|session| session.join("tool-results"));
    Some(move |name: &str| {
        let Some(folder) = &folder else {
            return Err("the session's file is not named *.jsonl, so it has no folder".to_owned());
        };
        if name.is_empty() || name.contains(['/', '\\']) || name == "." || name == ".." {
            return Err(format!("{name:?} is not a plain file name"));
        }
        let at = folder.join(name);
        // The folder as it is named from the session file's own folder, links
        // resolved there only: a session or tool-results folder that is itself a
        // link leads out as surely as a file that is one.
        let inside = within(folder).and_then(|folder| {
            let file = at.canonicalize()?;
            Ok((file.starts_with(&folder), file))
        });
        let file = match inside {
            Ok((true, file)) => file,
            Ok((false, _)) => {
                return Err(format!(
                    "{} leads out of the session's tool-results folder",
                    display(&at)
                ));
            }
            Err(_) => return Err(format!("{} is not there", display(&at))),
        };
        let meta = std::fs::metadata(&file).map_err(|err| format!("{}: {err}", display(&at)))?;
        if !meta.is_file() {
            return Err(format!("{} is not a file", display(&at)));
        }
        if meta.len() > MAX_IMPORT_BYTES {
            return Err(format!(
                "{} is larger than the most an import reads",
                display(&at)
            ));
        }
        std::fs::read(&file).map_err(|err| format!("{}: {err}", display(&at)))
    })
}

/// `folder` (`<session>/tool-results`) with the folder holding the session resolved
/// to its canonical path, and its last two names kept as they are.
fn within(folder: &Path) -> std::io::Result<PathBuf> {
    let session = folder.parent().unwrap_or(Path::new(""));
    let project = session.parent().unwrap_or(Path::new(""));
    let project = if project.as_os_str().is_empty() {
        Path::new(".")
    } else {
        project
    };
    let (Some(session), Some(results)) = (session.file_name(), folder.file_name()) else {
        return Err(std::io::ErrorKind::NotFound.into());
    };
    Ok(project.canonicalize()?.join(session).join(results))
}

/// The session file whose subagent log `path` would be read with, by its name
/// alone: `<session>.jsonl` for `<session>/subagents/agent-*.jsonl`.
pub fn session_of(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    if !(name.starts_with("agent-") && name.ends_with(".jsonl")) {
        return None;
    }
    let folder = path.parent()?;
    if folder.file_name()? != "subagents" {
        return None;
    }
    let session = folder.parent()?;
    let stem = session.file_name()?.to_str()?;
    Some(session.with_file_name(format!("{stem}.jsonl")))
}

/// The session file whose import reads the file `path` of its results kept beside
/// it: `<session>.jsonl` for `<session>/tool-results/NAME`.
pub fn session_of_result(path: &Path) -> Option<PathBuf> {
    let folder = path.parent()?;
    if folder.file_name()? != "tool-results" {
        return None;
    }
    let session = folder.parent()?;
    let stem = session.file_name()?.to_str()?;
    Some(session.with_file_name(format!("{stem}.jsonl")))
}

#[cfg(test)]
mod tests {
    use super::{reads_beside, session_of};
    use crate::import::{Format, Source};
    use std::path::Path;

    #[test]
    fn a_session_reads_its_subagents_when_it_is_read_as_claude_code() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/import");
        let session = fixtures.join("session.jsonl");
        assert!(reads_beside(&session, Source::Named(Format::ClaudeCode)));
        assert!(!reads_beside(&session, Source::Named(Format::Mcp)));
        // Recognised as Claude Code by auto; an MCP log is not.
        assert!(reads_beside(&session, Source::Auto));
        assert!(!reads_beside(&fixtures.join("mcp.jsonl"), Source::Auto));
        assert!(!reads_beside(&fixtures.join("missing.jsonl"), Source::Auto));
    }

    #[test]
    fn a_subagent_log_names_its_session() {
        assert_eq!(
            session_of(Path::new("p/s1/subagents/agent-a7.jsonl")).as_deref(),
            Some(Path::new("p/s1.jsonl"))
        );
        assert_eq!(
            session_of(Path::new("s1/subagents/agent-a7.jsonl")).as_deref(),
            Some(Path::new("s1.jsonl"))
        );
        assert_eq!(session_of(Path::new("subagents/agent-a7.jsonl")), None);
        assert_eq!(
            super::session_of_result(Path::new("p/s1/tool-results/t1.txt")).as_deref(),
            Some(Path::new("p/s1.jsonl"))
        );
        assert_eq!(
            super::session_of_result(Path::new("p/s1/other/t1.txt")),
            None
        );
        assert_eq!(session_of(Path::new("p/s1/other/agent-a7.jsonl")), None);
        assert_eq!(session_of(Path::new("p/s1/subagents/a7.jsonl")), None);
    }
}
