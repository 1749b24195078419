//! `toolreplay._toolreplay`: the core's audits for Python. Each function takes an
//! input (a file's path, or the bytes of a transcript made from records), does what
//! the command of the same name does with the GIL released, and gives the command's
//! `--format json` report (or the transcript it writes) as text; the Python package
//! (`python/toolreplay/__init__.py`) turns it into plain data. Errors raise
//! `ToolReplayError` with the message the command gives after `error: `.

use std::fs::File;
use std::io::{self, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use toolreplay_core::{
    Beside, ContextFile, Contexts, ImportError, ImportFormat, ImportSource, MAX_IMPORT_BYTES,
    Message, PathContext, ReadError, ReplayOptions, Roles, Scope, Stop, Subagent, Threads, Verdict,
    VerifyJsonChecks, audit_replay, check_claims, check_sealed, claims_json, import_log,
    import_log_beside, quote_name, read_context_file, verify_json, write_imported_record,
    write_replay_json, write_scope_json,
};

create_exception!(
    _toolreplay,
    ToolReplayError,
    PyException,
    "An input toolreplay cannot audit: the message is the command line's, after `error: `."
);

/// The largest scope file read, in bytes, as the command reads it.
const MAX_SCOPE_BYTES: u64 = 16 << 20;

/// What went wrong, in the command's words.
struct Failure(String);

impl From<Failure> for PyErr {
    fn from(failure: Failure) -> PyErr {
        ToolReplayError::new_err(failure.0)
    }
}

/// The words of an I/O error as the command gives them: the OS's message without its
/// number, starting lowercase.
fn describe_io(err: &io::Error) -> String {
    let text = err.to_string();
    match text.find(" (os error ") {
        Some(at) => {
            let mut text = text[..at].to_owned();
            if let Some(first) = text.get(..1) {
                let lower = first.to_lowercase();
                text.replace_range(..1, &lower);
            }
            text
        }
        None => text,
    }
}

/// An input: a file, or the transcript made of records given in memory.
enum Input {
    Path(PathBuf),
    Records(Vec<u8>),
}

impl Input {
    fn new(path: Option<PathBuf>, records: Option<Vec<u8>>) -> Result<Input, Failure> {
        match (path, records) {
            (Some(path), None) => Ok(Input::Path(path)),
            (None, Some(records)) => Ok(Input::Records(records)),
            _ => Err(Failure("give a path or records, not both".to_owned())),
        }
    }

    /// The input's name in reports and messages.
    fn name(&self) -> String {
        match self {
            Input::Path(path) => display(path),
            Input::Records(_) => "<records>".to_owned(),
        }
    }

    /// The input's bytes, whole, up to `max`.
    fn whole(&self, max: u64, what: &str) -> Result<Vec<u8>, Failure> {
        match self {
            Input::Records(bytes) => Ok(bytes.clone()),
            Input::Path(path) => read_whole(path, max, what),
        }
    }

    /// A reader of the input's bytes.
    fn reader(&self) -> Result<Box<dyn Read + Send + '_>, Failure> {
        match self {
            Input::Records(bytes) => Ok(Box::new(&bytes[..])),
            Input::Path(path) => {
                let file = File::open(path).map_err(|err| io_failure(path, &err))?;
                Ok(Box::new(BufReader::with_capacity(1 << 16, file)))
            }
        }
    }
}

/// A path as messages name it.
fn display(path: &Path) -> String {
    path.display().to_string()
}

fn io_failure(path: &Path, err: &io::Error) -> Failure {
    Failure(format!("{}: {}", display(path), describe_io(err)))
}

/// The file's first `max` bytes and one more, if it has them: more than `max` is
/// too large, and no more is ever read.
fn read_up_to(path: &Path, max: u64) -> Result<Vec<u8>, Failure> {
    let file = File::open(path).map_err(|err| io_failure(path, &err))?;
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|err| io_failure(path, &err))?;
    Ok(bytes)
}

fn read_whole(path: &Path, max: u64, what: &str) -> Result<Vec<u8>, Failure> {
    let bytes = read_up_to(path, max)?;
    if bytes.len() as u64 > max {
        return Err(Failure(format!("{}: larger than {what}", display(path))));
    }
    Ok(bytes)
}

/// The failure of reading the input named `name`.
fn reading(name: &str, err: ReadError) -> Failure {
    match err {
        ReadError::Io(err) => Failure(format!("{name}: {}", describe_io(&err))),
        ReadError::Input(err) => Failure(format!("{name}:{}: {}", err.line, err.message)),
    }
}

/// The import source `from` names (`auto` or a format's name).
fn source(from: &str) -> Result<ImportSource, Failure> {
    if from == "auto" {
        return Ok(ImportSource::Auto);
    }
    ImportFormat::ALL
        .into_iter()
        .find(|format| format.name() == from)
        .map(ImportSource::Named)
        .ok_or_else(|| {
            let names: Vec<&str> = std::iter::once("auto")
                .chain(ImportFormat::ALL.into_iter().map(ImportFormat::name))
                .collect();
            Failure(format!(
                "invalid value '{from}' for from_: one of {}",
                names.join(", ")
            ))
        })
}

/// A transcript to audit: the input's bytes as they are, or imported from an agent's
/// log, with the line in the log of each record's call.
struct Transcript<'a> {
    input: &'a Input,
    imported: Option<(Vec<u8>, Vec<u64>)>,
}

impl Transcript<'_> {
    fn open(input: &Input, from: Option<ImportSource>) -> Result<Transcript<'_>, Failure> {
        let imported = match from {
            None => None,
            Some(source) => Some(import(input, source)?),
        };
        Ok(Transcript { input, imported })
    }

    fn reader(&self) -> Result<Box<dyn Read + Send + '_>, Failure> {
        match &self.imported {
            Some((transcript, _)) => Ok(Box::new(Cursor::new(&transcript[..]))),
            None => self.input.reader(),
        }
    }

    /// The failure of reading it: for a file an import would read as an agent's log,
    /// with the hint the command gives.
    fn reading_error(&self, err: ReadError) -> Failure {
        let name = self.input.name();
        let Failure(message) = reading(&name, err);
        let Input::Path(path) = self.input else {
            return Failure(message);
        };
        if self.imported.is_some() || message.starts_with(&format!("{name}: ")) {
            return Failure(message);
        }
        let Some(format) = read_whole(path, MAX_IMPORT_BYTES, "1 GiB")
            .ok()
            .and_then(|bytes| import_log(&bytes, ImportSource::Auto).ok())
            .map(|imported| imported.format.name())
        else {
            return Failure(message);
        };
        Failure(if format == "sealed" {
            format!(
                "{message}; this is a sealed transcript: add --from sealed to audit it (its chain is checked as it is read)"
            )
        } else {
            format!(
                "{message}; this looks like an agent's log ({format}), not a transcript: add --from {format}"
            )
        })
    }

    /// Findings placed on the lines of their calls in the log.
    fn place(&self, findings: &mut toolreplay_core::Findings) -> Result<(), Failure> {
        if let Some((_, lines)) = &self.imported {
            *findings = findings
                .rewrite(|mut finding| {
                    if let Some(line) = usize::try_from(finding.index)
                        .ok()
                        .and_then(|at| lines.get(at))
                    {
                        finding.line = *line;
                    }
                    Some(finding)
                })
                .map_err(|err| temporary(&err))?;
        }
        Ok(())
    }
}

fn temporary(err: &io::Error) -> Failure {
    Failure(format!(
        "cannot write a temporary file: {}",
        describe_io(err)
    ))
}

/// Imports the input as `source`: the transcript `import` writes, and the line of
/// each record's call in the log.
fn import(input: &Input, source: ImportSource) -> Result<(Vec<u8>, Vec<u64>), Failure> {
    let imported = import_with_messages(input, source)?;
    Ok((imported.transcript, imported.lines))
}

/// What an import gives: the transcript `import` writes, the line of each record's
/// call in the log, the format read, and the conversation beside the calls.
struct ImportedLog {
    transcript: Vec<u8>,
    lines: Vec<u64>,
    format: ImportFormat,
    messages: Vec<Message>,
}

/// [`import`], with the format read and the conversation.
fn import_with_messages(input: &Input, source: ImportSource) -> Result<ImportedLog, Failure> {
    let name = input.name();
    let bytes = input.whole(
        MAX_IMPORT_BYTES,
        &format!("{} GiB, the most an import reads", MAX_IMPORT_BYTES >> 30),
    )?;
    let subagents = subagents_beside(input, source)?;
    let logs: Vec<Subagent<'_>> = subagents
        .iter()
        .map(|(name, bytes)| Subagent { name, bytes })
        .collect();
    let beside = Beside {
        subagents: &logs,
        tool_results: None,
    };
    let imported = import_log_beside(&bytes, source, beside).map_err(|err| match err {
        ImportError::Input(err) => Failure(format!("{name}:{}: {}", err.line, err.message)),
        other => Failure(format!("{name}: {other}")),
    })?;
    let lines = imported.calls.iter().map(|call| call.line).collect();
    let mut transcript = Vec::new();
    for (index, call) in imported.calls.iter().enumerate() {
        write_imported_record(index, call, &mut transcript);
    }
    Ok(ImportedLog {
        transcript,
        lines,
        format: imported.format,
        messages: imported.messages,
    })
}

/// The logs of a Claude Code session's subagents, read as the command reads them:
/// `S/subagents/agent-*.jsonl` beside the session `S.jsonl`, sorted by name.
fn subagents_beside(
    input: &Input,
    source: ImportSource,
) -> Result<Vec<(String, Vec<u8>)>, Failure> {
    let Input::Path(path) = input else {
        return Ok(Vec::new());
    };
    if !matches!(
        source,
        ImportSource::Auto | ImportSource::Named(ImportFormat::ClaudeCode)
    ) {
        return Ok(Vec::new());
    }
    let Some(stem) = path
        .file_name()
        .and_then(|name| name.to_str())
        .and_then(|name| name.strip_suffix(".jsonl"))
    else {
        return Ok(Vec::new());
    };
    let folder = path.with_file_name(stem).join("subagents");
    if !folder.is_dir() {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&folder).map_err(|err| io_failure(&folder, &err))? {
        let entry = entry.map_err(|err| io_failure(&folder, &err))?;
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        if !(name.starts_with("agent-") && name.ends_with(".jsonl")) {
            continue;
        }
        let at = entry.path();
        let bytes = read_up_to(&at, MAX_IMPORT_BYTES)?;
        if bytes.len() as u64 > MAX_IMPORT_BYTES {
            return Err(Failure(format!(
                "{}: larger than the most an import reads",
                display(&at)
            )));
        }
        found.push((name, bytes));
    }
    found.sort();
    Ok(found)
}

fn from_source(from: Option<&str>) -> Result<Option<ImportSource>, Failure> {
    from.map(source).transpose()
}

fn utf8(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes)
        .unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned())
}

fn replay_json(input: &Input, from: Option<&str>, rules: Option<&str>) -> Result<String, Failure> {
    let from = from_source(from)?;
    let transcript = Transcript::open(input, from)?;
    let agent = match rules {
        None => from.is_some(),
        Some("spec") => false,
        Some("agent") => true,
        Some(other) => {
            return Err(Failure(format!(
                "invalid value '{other}' for rules: spec or agent"
            )));
        }
    };
    let options = if agent {
        ReplayOptions::agent()
    } else {
        ReplayOptions::default()
    };
    let mut report = audit_replay(transcript.reader()?, &options, Threads::default())
        .map_err(|err| transcript.reading_error(err))?;
    transcript.place(&mut report.findings)?;
    let mut out = Vec::new();
    write_replay_json(&report, &input.name(), None, &mut out).map_err(|err| temporary(&err))?;
    Ok(utf8(out))
}

fn scope_json(input: &Input, policy: &Path, from: Option<&str>) -> Result<String, Failure> {
    let from = from_source(from)?;
    let policy_name = display(policy);
    let bytes = read_up_to(policy, MAX_SCOPE_BYTES)?;
    if bytes.len() as u64 > MAX_SCOPE_BYTES {
        return Err(Failure(format!(
            "{policy_name}:1: scope file larger than {} MiB",
            MAX_SCOPE_BYTES >> 20
        )));
    }
    let scope = Scope::parse(&bytes)
        .map_err(|err| Failure(format!("{policy_name}:{}: {err}", err.line)))?;
    let transcript = Transcript::open(input, from)?;
    let mut contexts = Contexts::default();
    let here = std::env::current_dir()
        .ok()
        .and_then(|dir| dir.to_str().map(str::to_owned));
    contexts.push(
        0,
        PathContext {
            project: here,
            ..PathContext::default()
        },
    );
    let mut report = scope
        .audit_in(transcript.reader()?, Threads::default(), &contexts)
        .map_err(|err| transcript.reading_error(err))?;
    transcript.place(&mut report.findings)?;
    let mut outside = std::collections::HashSet::new();
    if scope.misspelt_tool(|_| false).is_some() {
        for finding in report.findings.iter() {
            outside.insert(finding.map_err(|err| temporary(&err))?.tool);
        }
    }
    if let Some((tool, near)) = scope.misspelt_tool(|tool| outside.contains(tool)) {
        return Err(Failure(format!(
            "{policy_name}: tools: {} is not in allowed_tools nor called: did you mean {}?",
            quote_name(tool),
            quote_name(near)
        )));
    }
    let mut out = Vec::new();
    write_scope_json(&report, &input.name(), &policy_name, None, &mut out)
        .map_err(|err| temporary(&err))?;
    Ok(utf8(out))
}

fn seal_lines(input: &Input) -> Result<String, Failure> {
    let mut sealed = Vec::new();
    toolreplay_core::seal(input.reader()?, Threads::default(), |lines| {
        sealed.extend_from_slice(lines.as_ref());
        Ok::<(), std::convert::Infallible>(())
    })
    .map_err(|err| reading(&input.name(), Stop::into_read_error(err)))?;
    Ok(utf8(sealed))
}

fn verify_report(path: &Path) -> Result<String, Failure> {
    let input = Input::Path(path.to_owned());
    let name = input.name();
    let checked =
        check_sealed(input.reader()?, None, Threads::default()).map_err(|err| match err {
            // A transcript that was never sealed: its first record has no `prev`.
            ReadError::Input(err) if err.line == 1 && err.message == "missing field \"prev\"" => {
                Failure(format!(
                    "{name}:1: {}: not a sealed transcript; seal it first (toolreplay seal {name} -o sealed.jsonl)",
                    err.message
                ))
            }
            other => reading(&name, other),
        })?;
    Ok(verify_json(
        &checked.verdict,
        &input.name(),
        &VerifyJsonChecks::default(),
    ))
}

fn import_transcript(input: &Input, from: Option<&str>) -> Result<String, Failure> {
    let source = from_source(from)?.unwrap_or(ImportSource::Auto);
    Ok(utf8(import(input, source)?.0))
}

/// The context file of a live session `S.jsonl`: `S.context.jsonl` beside it.
fn context_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name.strip_suffix(".jsonl").unwrap_or(&name);
    path.with_file_name(format!("{stem}.context.jsonl"))
}

fn no_messages(name: &str, why: &str) -> Failure {
    Failure(format!("{name}: holds no messages: {why}"))
}

fn claims_report(path: &Path, from: Option<&str>) -> Result<String, Failure> {
    let input = Input::Path(path.to_owned());
    let name = input.name();
    let roles = Roles::builtin();
    let from = from_source(from)?;
    let context = context_path(path);
    let format_name = |source: ImportSource| source.format().map(ImportFormat::name);
    let sealed_only = from.is_none_or(|source| format_name(source) == Some("sealed"));
    let may_be_sealed = from.is_none_or(|source| format_name(source).is_none_or(|f| f == "sealed"));
    let no_context = || {
        no_messages(
            &name,
            &format!(
                "no {} beside it: a plain transcript holds calls, not the prompts and answers \
                 claims are read from",
                display(&context)
            ),
        )
    };
    if !(may_be_sealed && context.is_file()) {
        let Some(source) = from.filter(|_| !sealed_only) else {
            return Err(no_context());
        };
        // The calls and the conversation imported as `import` reads the log.
        let imported = import_with_messages(&input, source)?;
        if imported.messages.is_empty() {
            if matches!(imported.format.name(), "sealed" | "transcript") {
                return Err(no_context());
            }
            return Err(no_messages(
                &name,
                &format!(
                    "read as {}, it has no user prompt nor agent text",
                    imported.format.name()
                ),
            ));
        }
        let (report, _) = check_claims(
            Cursor::new(&imported.transcript),
            &imported.messages,
            &roles,
        )
        .map_err(|err| reading(&name, err))?;
        return Ok(claims_json(&report, &name));
    }
    let file = File::open(&context).map_err(|err| io_failure(&context, &err))?;
    let read: ContextFile = read_context_file(BufReader::new(file)).map_err(|err| match err {
        ReadError::Input(err) => Failure(format!(
            "{}:{}: not a session's context file: {}",
            display(&context),
            err.line,
            err.message
        )),
        other => reading(&display(&context), other),
    })?;
    if read.messages.is_empty() {
        return Err(no_messages(
            &name,
            &format!("{} holds no prompt nor answer", display(&context)),
        ));
    }
    let file = File::open(path).map_err(|err| io_failure(path, &err))?;
    let (report, chain) = check_claims(BufReader::new(file), &read.messages, &roles)
        .map_err(|err| reading(&name, err))?;
    if let Some(Verdict::Broken { position, .. }) = chain {
        return Err(Failure(format!(
            "{name}: the chain is broken at link {position}: its claims are not checked"
        )));
    }
    Ok(claims_json(&report, &name))
}

/// `replay`: the JSON report of `toolreplay replay --format json`.
#[pyfunction]
#[pyo3(signature = (path=None, records=None, from_=None, rules=None))]
fn replay(
    py: Python<'_>,
    path: Option<PathBuf>,
    records: Option<Vec<u8>>,
    from_: Option<String>,
    rules: Option<String>,
) -> PyResult<String> {
    let input = Input::new(path, records)?;
    Ok(py.detach(|| replay_json(&input, from_.as_deref(), rules.as_deref()))?)
}

/// `scope`: the JSON report of `toolreplay scope --scope POLICY --format json`.
#[pyfunction]
#[pyo3(signature = (policy, path=None, records=None, from_=None))]
fn scope(
    py: Python<'_>,
    policy: PathBuf,
    path: Option<PathBuf>,
    records: Option<Vec<u8>>,
    from_: Option<String>,
) -> PyResult<String> {
    let input = Input::new(path, records)?;
    Ok(py.detach(|| scope_json(&input, &policy, from_.as_deref()))?)
}

/// `seal`: the sealed transcript `toolreplay seal` writes.
#[pyfunction]
#[pyo3(signature = (path=None, records=None))]
fn seal(py: Python<'_>, path: Option<PathBuf>, records: Option<Vec<u8>>) -> PyResult<String> {
    let input = Input::new(path, records)?;
    Ok(py.detach(|| seal_lines(&input))?)
}

/// `verify`: the JSON report of `toolreplay verify --format json`.
#[pyfunction]
fn verify(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    Ok(py.detach(|| verify_report(&path))?)
}

/// `import`: the transcript `toolreplay import` writes.
#[pyfunction]
#[pyo3(signature = (path=None, records=None, from_=None))]
fn import_log_transcript(
    py: Python<'_>,
    path: Option<PathBuf>,
    records: Option<Vec<u8>>,
    from_: Option<String>,
) -> PyResult<String> {
    let input = Input::new(path, records)?;
    Ok(py.detach(|| import_transcript(&input, from_.as_deref()))?)
}

/// `claims`: the JSON report of `toolreplay claims --format json`.
#[pyfunction]
#[pyo3(signature = (path, from_=None))]
fn claims(py: Python<'_>, path: PathBuf, from_: Option<String>) -> PyResult<String> {
    Ok(py.detach(|| claims_report(&path, from_.as_deref()))?)
}

/// The extension module.
#[pymodule]
fn _toolreplay(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ToolReplayError", m.py().get_type::<ToolReplayError>())?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add_function(wrap_pyfunction!(scope, m)?)?;
    m.add_function(wrap_pyfunction!(seal, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(import_log_transcript, m)?)?;
    m.add_function(wrap_pyfunction!(claims, m)?)?;
    Ok(())
}
