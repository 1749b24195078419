//! The inputs of a command that takes several files and folders: folders walked in
//! a sorted, deterministic order (names starting with `.` skipped, symbolic links
//! to folders not followed, the lock and state files of live sessions left out),
//! the files in them kept when their name matches `--glob`.

use std::path::{Path, PathBuf};

use globset::GlobMatcher;
use toolreplay_core::ImportSource as Source;
use toolreplay_core::input::InputError;
use toolreplay_core::input::reads_beside;

use crate::error::Error;
use crate::naming::{display, is_stdin};

/// How deep folders are walked.
const MAX_DEPTH: usize = 64;

/// `--glob PATTERN`: the pattern as given, and its matcher.
#[derive(Debug, Clone)]
pub(crate) struct Glob {
    pattern: String,
    matcher: GlobMatcher,
}

impl Glob {
    /// The glob `pattern` (`*` any characters, `?` one, `[...]` one of, `{a,b}`
    /// either), or the usage error saying why it is not one.
    pub(crate) fn new(pattern: &str) -> Result<Glob, Error> {
        let glob = globset::Glob::new(pattern).map_err(|err| {
            Error::Usage(format!("--glob {pattern:?} is not a glob: {}", err.kind()))
        })?;
        Ok(Glob {
            pattern: pattern.to_owned(),
            matcher: glob.compile_matcher(),
        })
    }

    /// Whether the file name `name` matches.
    pub(crate) fn matches(&self, name: &str) -> bool {
        self.matcher.is_match(name)
    }

    /// The pattern as given.
    pub(crate) fn pattern(&self) -> &str {
        &self.pattern
    }
}

/// The inputs named on the command line, folders walked and sorted by path; whether
/// they are to be reported as several (more than one input, or a folder). A folder
/// with nothing to audit is an error. With `subagents` (the format inputs are
/// imported as), a Claude Code subagent log found in a folder with its session, or a
/// file of the session's tool-results folder, is left out when the session's import
/// reads it ([`toolreplay_core::input::reads_beside`]), and said on `told`: each
/// call is audited once. With `contexts`, a live
/// session's sealed context file is kept (`verify` checks it as the sealed file it
/// is; the audits read it with its session).
pub(crate) fn expand(
    inputs: &[PathBuf],
    glob: Option<&Glob>,
    (subagents, contexts): (Option<Source>, bool),
    told: &mut dyn std::io::Write,
) -> Result<(Vec<PathBuf>, bool), Error> {
    let many = inputs.len() > 1 || inputs.iter().any(|p| !is_stdin(p) && p.is_dir());
    let mut files = Vec::new();
    for input in inputs {
        if !is_stdin(input) && input.is_dir() {
            let mut found = files_in(input, glob)?;
            if !contexts {
                drop_contexts(&mut found);
            }
            if let Some(source) = subagents {
                fold_subagent_logs(&mut found, source, told);
            }
            if found.is_empty() {
                return Err(Error::Input(InputError::Invalid {
                    path: display(input),
                    message: match glob {
                        Some(glob) => {
                            format!("a folder with no file matching {:?}", glob.pattern())
                        }
                        None => "a folder with no file to audit".to_owned(),
                    },
                }));
            }
            files.extend(found);
        } else {
            files.push(input.clone());
        }
    }
    if many && files.iter().filter(|p| is_stdin(p)).count() > 1 {
        return Err(Error::Usage(
            "standard input (-) can be named only once".to_owned(),
        ));
    }
    Ok((files, many))
}

/// The files in `folder`, walked as [`expand`] walks it and sorted by path; none is
/// not an error here.
pub(crate) fn files_in(folder: &Path, glob: Option<&Glob>) -> Result<Vec<PathBuf>, Error> {
    let mut found = Vec::new();
    walk(folder, glob, 0, &mut found)?;
    found.sort();
    Ok(found)
}

/// Takes out of `files` the sealed context files `S.context.jsonl` of the sessions
/// `S.jsonl` among them.
fn drop_contexts(files: &mut Vec<PathBuf>) {
    let all: std::collections::HashSet<PathBuf> = files.iter().cloned().collect();
    files.retain(|file| {
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
        let session = name
            .as_deref()
            .and_then(|name| name.strip_suffix(".context.jsonl"))
            .map(|stem| file.with_file_name(format!("{stem}.jsonl")));
        !session.is_some_and(|session| all.contains(&session))
    });
}

/// Takes out of `files` the subagent logs and the results kept in files whose
/// session is among them and read with them as `source`, and says so (the results
/// once a session).
fn fold_subagent_logs(files: &mut Vec<PathBuf>, source: Source, told: &mut dyn std::io::Write) {
    let all: std::collections::HashSet<PathBuf> = files.iter().cloned().collect();
    // Whether each session reads what lies beside it, asked once a session.
    let mut reads = std::collections::HashMap::new();
    let mut read_with = |session: PathBuf| -> Option<PathBuf> {
        let yes = all.contains(&session)
            && *reads
                .entry(session.clone())
                .or_insert_with(|| reads_beside(&session, source));
        yes.then_some(session)
    };
    let mut results_told = std::collections::HashSet::new();
    files.retain(|file| {
        if let Some(session) = super::session_of_result(file).and_then(&mut read_with) {
            if let Some(folder) = file.parent()
                && results_told.insert(folder.to_owned())
            {
                // If stderr is gone there is nobody left to tell.
                let _ = writeln!(
                    told,
                    "note: {}: the results kept there are read with the session {}",
                    display(folder),
                    display(&session)
                );
            }
            return false;
        }
        true
    });
    files.retain(
        |file| match super::session_of(file).and_then(&mut read_with) {
            Some(session) => {
                // If stderr is gone there is nobody left to tell.
                let _ = writeln!(
                    told,
                    "note: {}: read with its session {}",
                    display(file),
                    display(&session)
                );
                false
            }
            _ => true,
        },
    );
}

fn walk(
    folder: &Path,
    glob: Option<&Glob>,
    depth: usize,
    out: &mut Vec<PathBuf>,
) -> Result<(), Error> {
    let read_error = |source| {
        Error::Input(InputError::Read {
            path: display(folder),
            source,
        })
    };
    if depth > MAX_DEPTH {
        return Err(Error::Input(InputError::Invalid {
            path: display(folder),
            message: format!("folders nested deeper than {MAX_DEPTH}"),
        }));
    }
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(folder).map_err(read_error)? {
        entries.push(entry.map_err(read_error)?);
    }
    let names: std::collections::HashSet<std::ffi::OsString> =
        entries.iter().map(std::fs::DirEntry::file_name).collect();
    for entry in entries {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') || is_session_companion(&name, &names) {
            continue;
        }
        let name = name.to_string_lossy();
        let path = entry.path();
        // `replay .` names `a.jsonl`, not `./a.jsonl`.
        let path = path
            .strip_prefix(".")
            .map_or(path.clone(), Path::to_path_buf);
        let kind = entry.file_type().map_err(read_error)?;
        if kind.is_dir() {
            walk(&path, glob, depth + 1, out)?;
        } else if (kind.is_file() || (kind.is_symlink() && path.is_file()))
            && glob.is_none_or(|glob| glob.matches(&name))
        {
            out.push(path);
        }
    }
    Ok(())
}

/// Whether `name` is a file a live session keeps beside its sealed file `S.jsonl`
/// (`S.jsonl.lock`, `S.jsonl.state`, `S.jsonl.otlp`, `S.jsonl.calls`; docs/live.md), or its attestation
/// (`S.jsonl.intoto.jsonl`, docs/provenance.md), `S.jsonl` being in `names`: never
/// read as a transcript.
fn is_session_companion(
    name: &std::ffi::OsStr,
    names: &std::collections::HashSet<std::ffi::OsString>,
) -> bool {
    let name = name.to_string_lossy();
    let has = |session: String| names.contains(std::ffi::OsStr::new(&session));
    [".lock", ".state", ".otlp", ".calls", ".intoto.jsonl"]
        .iter()
        .any(|suffix| name.strip_suffix(suffix).is_some_and(|s| has(s.to_owned())))
}

#[cfg(test)]
mod tests {
    use super::Glob;

    #[test]
    fn globs_match_names() {
        let matches = |glob: &str, name: &str| Glob::new(glob).map(|g| g.matches(name));
        assert!(matches("*.jsonl", "a.jsonl").is_ok_and(|m| m));
        assert!(matches("*.jsonl", "a.json").is_ok_and(|m| !m));
        assert!(matches("a?c*", "abcdef").is_ok_and(|m| m));
        assert!(matches("*", "").is_ok_and(|m| m));
        assert!(matches("a", "ab").is_ok_and(|m| !m));
        assert!(matches("*a*a*", "banana").is_ok_and(|m| m));
        assert!(matches("*.{json,jsonl}", "b.json").is_ok_and(|m| m));
        assert!(matches("run-[0-9].jsonl", "run-7.jsonl").is_ok_and(|m| m));
        let err = Glob::new("[a").err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("--glob \"[a\" is not a glob: unclosed character class; missing ']'")
        );
    }
}
