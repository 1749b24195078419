//! `toolreplay reconcile SESSION LOG [--from FORMAT] [--agent AGENT] [--format F]`:
//! the agent's own log held against a sealed live session, call by call (the
//! comparison is [`toolreplay_core::reconcile_calls`]; docs/live.md, "Reconcile").
//!
//! SESSION's chain is verified as `verify` does; a broken chain, or a file that is
//! not a sealed transcript, is an input error (exit 2). LOG is read by the reader
//! `import` uses ([`crate::input::import_counted`]), subagent logs and results kept
//! in files beside a Claude Code session included.

use std::io::{self, Write};
use std::path::Path;

use toolreplay_core::input::InputError;
use toolreplay_core::{
    BrokenField, MAX_IMPORT_BYTES, ReconcileAgent, ReconcileReport, Record, Threads, Verdict,
    check_sealed, line_text, parse_json, parse_link, reconcile_calls,
};

use crate::args::Format;
use crate::error::Error;
use crate::input::{self, ImportOptions, Tally, import_counted};
use crate::printer::{Printer, Status};
use crate::render::{json, text};

/// `toolreplay reconcile`: exit 0 when the log and the seal agree, 1 when they
/// differ.
pub(super) fn run(
    session: &Path,
    log: &Path,
    import: ImportOptions,
    agent: Option<ReconcileAgent>,
    format: Format,
    threads: Threads,
    printer: &mut Printer,
) -> Result<Status, Error> {
    if format == Format::Sarif {
        return Err(Error::Usage(
            "reconcile reports as text or json; SARIF is for findings (replay, scope, verify)"
                .to_owned(),
        ));
    }
    input::not_both_stdin((session, "SESSION"), (log, "LOG"))?;
    let report = reconcile_files(session, log, import, agent, threads, &mut io::stderr())?;
    let shown = match format {
        Format::Json => json::reconcile(&report, &input::display(session), &input::display(log)),
        _ => text::reconcile(&report, printer.paint()),
    };
    printer.print(&shown)?;
    Ok(Status::clean_if(report.same()))
}

/// Holds the agent's log at `log` against the sealed session at `session`: the
/// session's chain verified as `verify` does (broken: an error), the log imported as
/// `import` does (`import`'s format, its notes and warnings written to
/// `diagnostics`), through `agent`'s projection (`None`: the agent of the log's
/// format). This is the whole of `reconcile` but the printing, for a caller that
/// has the paths (the guard, at a session's end).
pub(crate) fn reconcile_files(
    session: &Path,
    log: &Path,
    import: ImportOptions,
    agent: Option<ReconcileAgent>,
    threads: Threads,
    diagnostics: &mut dyn Write,
) -> Result<ReconcileReport, Error> {
    let sealed = read_sealed(session, threads)?;
    let mut tally = Tally::default();
    let imported = import_counted(log, import, diagnostics, &mut tally)?;
    let logged = read_records(log, &imported.transcript)?;
    let agent = agent.unwrap_or_else(|| {
        tally
            .format
            .map_or(ReconcileAgent::Exact, ReconcileAgent::for_format)
    });
    Ok(reconcile_calls(&sealed, &logged, agent))
}

/// The records of the sealed transcript at `path`, once its chain is verified.
fn read_sealed(path: &Path, threads: Threads) -> Result<Vec<Record>, Error> {
    // Read whole once, so standard input is read once: the chain is checked on the
    // bytes, then its records taken from them.
    let bytes = input::read_whole(
        path,
        MAX_IMPORT_BYTES,
        &format!("{} GiB, the most reconcile reads", MAX_IMPORT_BYTES >> 30),
    )?;
    let checked = check_sealed(&bytes[..], None, threads)
        .map_err(|err| super::head::unsealed_hint(Error::reading(path, err)))?;
    if let Verdict::Broken {
        position,
        field,
        line,
        tool,
        ..
    } = checked.verdict
    {
        return Err(Error::Broken {
            path: input::display(path),
            position,
            line,
            tool,
            field: match field {
                BrokenField::Prev => "prev",
                BrokenField::Digest => "digest",
            },
        });
    }
    let name = input::display(path);
    let error = |line: u64, message: String| {
        Error::Input(InputError::Input {
            path: name.clone(),
            line,
            message,
        })
    };
    let mut records = Vec::new();
    for (at, bytes) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = at as u64 + 1;
        let Some(text) = line_text(line, bytes).map_err(|err| error(err.line, err.message))? else {
            continue;
        };
        let link = parse_link(line, text).map_err(|err| error(err.line, err.message))?;
        records.push(Record {
            index: records.len() as u64,
            tool: link.tool,
            args: canonical_value(&link.args).map_err(|message| error(line, message))?,
            response: canonical_value(&link.response).map_err(|message| error(line, message))?,
        });
    }
    Ok(records)
}

/// The records of an imported transcript (the log at `path`, imported).
fn read_records(path: &Path, transcript: &[u8]) -> Result<Vec<Record>, Error> {
    let mut records = Vec::new();
    for bytes in transcript.split(|&b| b == b'\n') {
        if bytes.is_empty() {
            continue;
        }
        let index = records.len() as u64;
        let record = std::str::from_utf8(bytes)
            .map_err(|err| err.to_string())
            .and_then(|text| {
                toolreplay_core::parse_record(index + 1, text, index).map_err(|err| err.message)
            })
            .map_err(|message| {
                Error::Input(InputError::Invalid {
                    path: input::display(path),
                    message: format!("call {index} as imported: {message}"),
                })
            })?;
        records.push(record);
    }
    Ok(records)
}

/// The value of canonical JSON bytes (a link's arguments or response).
fn canonical_value(bytes: &[u8]) -> Result<toolreplay_core::Value, String> {
    let text = std::str::from_utf8(bytes).map_err(|err| err.to_string())?;
    parse_json(text).map_err(|err| err.to_string())
}
