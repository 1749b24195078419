//! `toolreplay export --format otlp`: the calls of a transcript (plain, sealed, or an
//! agent's log with `--from`) as one OTLP/JSON `ExportTraceServiceRequest`, one
//! `execute_tool` span per call (docs/otel.md), to stdout or atomically to `-o`.

use std::io::Write;
use std::path::Path;

use toolreplay_core::input::InputError;
use toolreplay_core::{OtlpOptions, Scope, export_otlp, read_call_ids};

use crate::settings::Judging;

use crate::error::Error;
use crate::input::{self, ImportOptions};
use crate::printer::{Printer, Status};

/// `toolreplay export --format otlp FILE [--from F] [--scope S] [--rules R ...]
/// [--with-content] [-o OUT]`: replay's findings judged as `replay` judges the same
/// input with the same flags (agent rules for an imported log by default); an
/// imported log's call ids and times in the spans; a sealed live session's call ids
/// from the file beside it (`S.jsonl.calls`), refused when it names a link the
/// session does not hold.
pub(super) fn run(
    file: &Path,
    from: Option<ImportOptions>,
    scope: Option<&Path>,
    (judging, options): (&Judging, OtlpOptions),
    output: Option<&Path>,
    printer: &mut Printer,
) -> Result<Status, Error> {
    if scope.is_some_and(input::is_stdin) && input::is_stdin(file) {
        return Err(Error::Usage(
            "only one of FILE and --scope can be standard input".to_owned(),
        ));
    }
    let scope = match scope {
        Some(path) => Some((input::read_scope(path)?, path)),
        None => None,
    };
    let diagnostics = &mut std::io::stderr();
    let (mut transcript, mut meta) =
        super::graph::read_transcript_with_meta(file, from, diagnostics)?;
    let calls = crate::live::calls_path(file);
    if from.is_none() && transcript.chain.is_some() && !input::is_stdin(file) && calls.is_file() {
        // A live session's call ids, kept beside its seal.
        let digests: Vec<Option<&str>> = transcript
            .records
            .iter()
            .map(|record| record.digest.as_deref())
            .collect();
        meta = read_call_ids(input::open(&calls)?, &digests)
            .map_err(|err| Error::reading(&calls, err))?;
    }
    if let Some((input::ScopeFile { digest, .. }, path)) = &scope {
        // Path rules read paths where a live session's calls ran.
        let sealed = transcript.chain.is_some() || from.is_some_and(ImportOptions::may_be_sealed);
        let judged = (*path, digest.as_str());
        // Path rules read paths where the calls ran: as an imported log says, or
        // as a live session's context file does.
        transcript.contexts = match toolreplay_core::Contexts::of_calls(&meta) {
            Some(contexts) => contexts,
            None => input::session_contexts(file, sealed, judged, diagnostics)?,
        };
    }
    let scope: Option<Scope> = scope.map(|(file, _)| file.scope);
    let judged = judging.options(from.is_some());
    let request =
        export_otlp(&transcript, scope.as_ref(), options, judged, &meta).map_err(|err| {
            Error::Input(InputError::Invalid {
                path: input::display(file),
                message: err.to_string(),
            })
        })?;
    let Some(output) = output else {
        printer.print(&String::from_utf8_lossy(&request))?;
        return Ok(Status::Clean);
    };
    let write_error = |source| Error::Write {
        target: input::display(output),
        source,
    };
    let mut out = crate::output::atomic::AtomicFile::new(output).map_err(write_error)?;
    out.file().write_all(&request).map_err(write_error)?;
    out.commit().map_err(write_error)?;
    Ok(Status::Clean)
}
