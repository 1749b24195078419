//! `toolreplay._toolreplay`: the core's audits for Python. Each function takes an
//! input (a file's path, or the bytes of a transcript made from records), does what
//! the command of the same name does with the GIL released, and gives the command's
//! `--format json` report (or the transcript it writes) as text; the Python package
//! (`python/toolreplay/__init__.py`) turns it into plain data. Errors raise
//! `ToolReplayError` with the message the command gives after `error: `.

use std::io::{self, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use toolreplay_core::input::{
    ClaimsInput, ImportOptions, InputError, ScopeFile, Tally, claims_input, context_messages,
    describe_io, display, import_bytes, imported_messages, misspelt_tool, open_file, read_file,
    read_scope, session_contexts, source_named, source_names,
};
use toolreplay_core::{
    ImportSource, MAX_IMPORT_BYTES, ReadError, ReplayOptions, Roles, Stop, Threads, Verdict,
    VerifyJsonChecks, audit_replay, check_claims, check_sealed, claims_json, verify_json,
    write_replay_json, write_scope_json,
};

create_exception!(
    _toolreplay,
    ToolReplayError,
    PyException,
    "An input toolreplay cannot audit: the message is the command line's, after `error: `."
);

/// What went wrong, in the command's words.
struct Failure(String);

impl From<Failure> for PyErr {
    fn from(failure: Failure) -> PyErr {
        ToolReplayError::new_err(failure.0)
    }
}

impl From<InputError> for Failure {
    fn from(err: InputError) -> Failure {
        Failure(err.to_string())
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

    /// A reader of the input's bytes.
    fn reader(&self) -> Result<Box<dyn Read + Send + '_>, Failure> {
        match self {
            Input::Records(bytes) => Ok(Box::new(&bytes[..])),
            Input::Path(path) => Ok(Box::new(BufReader::with_capacity(
                1 << 16,
                open_file(path)?.0,
            ))),
        }
    }
}

/// The failure of reading the input named `name`.
fn reading(name: &str, err: ReadError) -> Failure {
    InputError::named(name.to_owned(), err).into()
}

/// The import source `from` names (`auto` or a format's name).
fn source(from: &str) -> Result<ImportSource, Failure> {
    source_named(from).ok_or_else(|| {
        Failure(format!(
            "invalid value '{from}' for from_: one of {}",
            source_names().join(", ")
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
        let err = InputError::named(self.input.name(), err);
        let Input::Path(path) = self.input else {
            return err.into();
        };
        if self.imported.is_some() {
            return err.into();
        }
        err.with_format_hint(|| read_file(path, MAX_IMPORT_BYTES, "1 GiB").ok())
            .into()
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

/// [`import`], with the format read and the conversation: the command's import, its
/// notes and warnings left out.
fn import_with_messages(
    input: &Input,
    source: ImportSource,
) -> Result<toolreplay_core::input::ImportedTranscript, Failure> {
    let options = ImportOptions {
        source,
        strict: false,
    };
    let (bytes, path) = match input {
        Input::Records(bytes) => (bytes.clone(), None),
        Input::Path(path) => (
            read_file(
                path,
                MAX_IMPORT_BYTES,
                &format!("{} GiB, the most an import reads", MAX_IMPORT_BYTES >> 30),
            )?,
            Some(path.as_path()),
        ),
    };
    let mut tally = Tally::default();
    Ok(import_bytes(
        bytes,
        path,
        options,
        &mut io::sink(),
        &mut tally,
    )?)
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
    let ScopeFile { scope, digest } = read_scope(open_file(policy)?.0, policy, None)?;
    let transcript = Transcript::open(input, from)?;
    // Where the calls ran: a live session's context file beside a sealed transcript
    // (read as sealed, or recognised so by auto), else the current directory.
    let sealed = from.is_some_and(|source| {
        ImportOptions {
            source,
            strict: false,
        }
        .may_be_sealed()
    });
    // Records, like standard input, have no context file beside them.
    let at = match input {
        Input::Path(path) => path.as_path(),
        Input::Records(_) => Path::new("-"),
    };
    let contexts = session_contexts(at, sealed, (&policy_name, &digest), &mut io::sink())?;
    let mut report = scope
        .audit_in(transcript.reader()?, Threads::default(), &contexts)
        .map_err(|err| transcript.reading_error(err))?;
    transcript.place(&mut report.findings)?;
    if let Some(err) =
        misspelt_tool(&scope, &report.findings, policy).map_err(|err| temporary(&err))?
    {
        return Err(err.into());
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
    let checked = check_sealed(input.reader()?, None, Threads::default())
        .map_err(|err| Failure::from(InputError::named(name.clone(), err).with_unsealed_hint()))?;
    Ok(verify_json(
        &checked.verdict,
        &name,
        &VerifyJsonChecks::default(),
    ))
}

fn import_transcript(input: &Input, from: Option<&str>) -> Result<String, Failure> {
    let source = from_source(from)?.unwrap_or(ImportSource::Auto);
    Ok(utf8(import(input, source)?.0))
}

fn claims_report(path: &Path, from: Option<&str>) -> Result<String, Failure> {
    let name = display(path);
    let roles = Roles::builtin();
    let from = from_source(from)?.map(|source| ImportOptions {
        source,
        strict: false,
    });
    match claims_input(path, from)? {
        ClaimsInput::Import(options) => {
            // The calls and the conversation imported as `import` reads the log.
            let imported = import_with_messages(&Input::Path(path.to_owned()), options.source)?;
            imported_messages(path, &imported)?;
            let (report, _) = check_claims(
                Cursor::new(&imported.transcript),
                &imported.messages,
                &roles,
            )
            .map_err(|err| reading(&name, err))?;
            Ok(claims_json(&report, &name))
        }
        ClaimsInput::Context(context) => {
            let messages = context_messages(path, &context)?;
            let file = BufReader::new(open_file(path)?.0);
            let (report, chain) =
                check_claims(file, &messages, &roles).map_err(|err| reading(&name, err))?;
            if let Some(Verdict::Broken { position, .. }) = chain {
                return Err(Failure(format!(
                    "{name}: the chain is broken at link {position}: its claims are not checked"
                )));
            }
            Ok(claims_json(&report, &name))
        }
    }
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

/// `toolreplay ARGS...`: runs the command line in this process (its report on file
/// descriptor 1, its notes and errors on 2), and gives its exit status.
#[pyfunction]
fn main(py: Python<'_>, args: Vec<std::ffi::OsString>) -> u8 {
    py.detach(|| toolreplay::run(args))
}

/// The command line `args` (without the program's name) run with its report kept:
/// the exit status and the report. With `config`, the configuration in that file;
/// else with `discover`, the `toolreplay.toml` found from the current folder as the
/// command finds it; else none (`--no-config`).
#[pyfunction]
#[pyo3(signature = (args, config=None, discover=false))]
fn cli(
    py: Python<'_>,
    args: Vec<std::ffi::OsString>,
    config: Option<PathBuf>,
    discover: bool,
) -> PyResult<(u8, String)> {
    let mut argv: Vec<std::ffi::OsString> = vec!["toolreplay".into()];
    argv.extend(args);
    if config.is_none() && !discover {
        argv.push("--no-config".into());
    }
    let captured = py.detach(|| toolreplay::run_captured(argv, config.as_deref()));
    match captured.error {
        Some(error) => Err(Failure(error).into()),
        None => Ok((captured.status, utf8(captured.report))),
    }
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
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    Ok(())
}
