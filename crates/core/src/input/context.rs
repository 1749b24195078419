//! A live session's context file, `S.context.jsonl` beside its sealed `S.jsonl`
//! (the [`crate::context`] module says what it holds), as an audit reads it: where
//! the session's calls ran, for `scope` ([`session_contexts`]), and the prompts and
//! answers the claims layer reads ([`claims_input`]).

use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};

use super::{ImportOptions, ImportedTranscript, InputError, display, is_stdin, open_file};
use crate::claims::Message;
use crate::context::{ContextFile, Contexts, read_context_file};
use crate::policy::PathContext;

/// The context file of the session whose calls' file is `path`: `S.context.jsonl`
/// for `S.jsonl`.
pub fn context_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name.strip_suffix(".jsonl").unwrap_or(&name);
    path.with_file_name(format!("{stem}.context.jsonl"))
}

/// Reads the live session's context file at `path` (see [`read_context_file`]); a
/// record of another shape is an input error.
pub fn read_context(path: &Path) -> Result<ContextFile, InputError> {
    let file = BufReader::with_capacity(1 << 16, open_file(path)?.0);
    read_context_file(file).map_err(|err| match InputError::reading(path, err) {
        InputError::Input {
            path,
            line,
            message,
        } => InputError::Input {
            path,
            line,
            message: format!("not a session's context file: {message}"),
        },
        other => other,
    })
}

/// Where the calls of the session at `path` (when `sealed`: read as a sealed
/// transcript) ran, from its context file `S.context.jsonl` when it has one (a live
/// session's), so that path rules read paths as the live decisions did; otherwise
/// the current directory as the start that relative roots are read from. Said on
/// `told`, with a policy other than the one the session was decided by: the policy
/// named `scope` in messages, of SHA-256 `digest` (hex).
pub fn session_contexts(
    path: &Path,
    sealed: bool,
    (scope, digest): (&str, &str),
    told: &mut dyn Write,
) -> Result<Contexts, InputError> {
    let here = std::env::current_dir()
        .ok()
        .and_then(|dir| dir.to_str().map(str::to_owned));
    let mut contexts = Contexts::default();
    let file = context_path(path);
    if !sealed || is_stdin(path) || !file.is_file() {
        contexts.push(
            0,
            PathContext {
                project: here,
                ..PathContext::default()
            },
        );
        return Ok(contexts);
    }
    let read = read_context(&file)?;
    let name = display(path);
    // If the writer is gone there is nobody left to tell.
    let _ = writeln!(
        told,
        "note: {name}: paths are read where the session's calls ran, as {} records",
        display(&file)
    );
    if let Some(other) = read
        .records
        .iter()
        .map(|record| record.policy_digest.as_str())
        .find(|decided| *decided != digest)
    {
        let _ = writeln!(
            told,
            "note: {name}: the session was decided by another policy (sha256 {other}) than {scope} (sha256 {digest})",
        );
    }
    Ok(read.contexts)
}

/// Where `claims` reads the conversation of the session at `path` from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaimsInput {
    /// A live session: the calls of the sealed transcript, and the prompts and
    /// answers of its context file, at this path.
    Context(PathBuf),
    /// An agent's log: the calls and the conversation imported as `import` reads it.
    Import(ImportOptions),
}

/// Where `claims` reads the session at `path` from, read as `from` says (none: a
/// sealed transcript): its context file when it may be sealed and has one beside
/// it, else the log imported when `from` names a format other than `sealed`;
/// otherwise the error that it holds no messages.
pub fn claims_input(path: &Path, from: Option<ImportOptions>) -> Result<ClaimsInput, InputError> {
    let context = context_path(path);
    let sealed_only =
        from.is_none_or(|from| from.source.format().map(|f| f.name()) == Some("sealed"));
    if from.is_none_or(ImportOptions::may_be_sealed) && !is_stdin(path) && context.is_file() {
        return Ok(ClaimsInput::Context(context));
    }
    match from {
        Some(from) if !sealed_only => Ok(ClaimsInput::Import(from)),
        _ => Err(no_context(path)),
    }
}

/// The prompts and answers of the context file `context` of the session at `path`;
/// none is an error.
pub fn context_messages(path: &Path, context: &Path) -> Result<Vec<Message>, InputError> {
    let messages = read_context(context)?.messages;
    if messages.is_empty() {
        return Err(no_messages(
            display(path),
            &format!("{} holds no prompt nor answer", display(context)),
        ));
    }
    Ok(messages)
}

/// Whether the log at `path`, `imported`, holds a conversation: the error that it
/// holds no messages otherwise.
pub fn imported_messages(path: &Path, imported: &ImportedTranscript) -> Result<(), InputError> {
    if !imported.messages.is_empty() {
        return Ok(());
    }
    if matches!(imported.format.name(), "sealed" | "transcript") {
        return Err(no_context(path));
    }
    Err(no_messages(
        display(path),
        &format!(
            "read as {}, it has no user prompt nor agent text",
            imported.format.name()
        ),
    ))
}

/// A plain or sealed transcript without a context file beside it.
fn no_context(path: &Path) -> InputError {
    no_messages(
        display(path),
        &format!(
            "no {} beside it: a plain transcript holds calls, not the prompts and answers \
             claims are read from",
            display(&context_path(path))
        ),
    )
}

/// The error of an input named `path` in which `claims` finds no messages, and why.
pub fn no_messages(path: String, why: &str) -> InputError {
    InputError::Invalid {
        path,
        message: format!("holds no messages: {why}"),
    }
}

#[cfg(test)]
mod tests {
    use super::context_path;
    use std::path::Path;

    #[test]
    fn the_context_file_is_beside_the_calls() {
        assert_eq!(
            context_path(Path::new("/d/abc.jsonl")),
            Path::new("/d/abc.context.jsonl")
        );
        assert_eq!(context_path(Path::new("s")), Path::new("s.context.jsonl"));
    }
}
