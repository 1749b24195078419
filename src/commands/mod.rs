//! The commands, one module each: each takes its resolved settings and the printer,
//! opens its inputs, runs its audit or job, writes its report to the printer where
//! the report is made, and returns its [`Status`]. [`execute`] runs the command the
//! settings name.

mod attest;
mod claims;
mod diff;
mod export;
mod graph;
mod guard;
mod head;
mod import;
mod many;
mod proxy;
mod reconcile;
mod replay;
mod scope;
mod seal;
mod shell;
mod sign;
mod stats;
mod verify;

use std::path::Path;

use toolreplay_core::Findings;
use toolreplay_core::Stop;
use toolreplay_core::input::InputError;

use crate::error::Error;
use crate::printer::{Printer, Status};
use crate::settings::{self, Command, Settings};

/// Runs the command of `settings`, its reports to `printer`.
pub(crate) fn execute(settings: Settings, printer: &mut Printer) -> Result<Status, Error> {
    if matches!(
        settings.command,
        Command::Seal { .. }
            | Command::Append { .. }
            | Command::Import { .. }
            | Command::ImportAll { .. }
            | Command::Sign { .. }
            | Command::Attest { .. }
            | Command::Report { .. }
            | Command::Export { .. }
    ) {
        crate::output::atomic::remove_temporary_files_on_signals();
    }
    let threads = settings.threads;
    match settings.command {
        Command::Replay {
            inputs,
            from,
            judging,
            reporting,
        } => replay::run(&inputs, from, &judging, &reporting, threads, printer),
        Command::Scope {
            inputs,
            scope,
            from,
            reporting,
        } => scope::run(&inputs, &scope.value, from, &reporting, threads, printer),
        Command::Seal { file, from, output } => {
            seal::seal(&file, from, output.as_deref(), threads, printer)
        }
        Command::Append { file, from, sealed } => seal::append(&sealed, &file, from, threads),
        Command::Verify {
            inputs,
            head,
            signature,
            attestation,
            format,
        } => verify::run(
            &inputs,
            (head.as_deref(), signature.as_ref(), attestation.as_ref()),
            format.value,
            threads,
            printer,
        ),
        Command::Stats {
            file,
            from,
            draft_scope,
        } => stats::run(&file, from, draft_scope.as_deref(), threads, printer),
        Command::Sign { file, key } => sign::run(&file, &key, threads),
        Command::Attest { file, options } => attest::run(&file, &options, threads, printer),
        Command::Head { file } => head::run(&file, threads, printer),
        Command::Diff {
            a,
            b,
            from,
            all,
            format,
        } => diff::run(&a, &b, from, diff::Options { format, all }, printer),
        Command::Import {
            file,
            import,
            output,
        } => import::run(&file, import, output.as_deref(), printer),
        Command::ImportAll {
            inputs,
            import,
            out_dir,
            overwrite,
        } => import::run_to_folder(&inputs, import, &out_dir, overwrite, printer),
        Command::Reconcile {
            session,
            log,
            import,
            agent,
            format,
        } => reconcile::run(&session, &log, import, agent, format, threads, printer),
        Command::Graph { inputs, format } => graph::graph(&inputs, format, printer),
        Command::Claims {
            file,
            from,
            roles,
            format,
            fail_on_unsupported,
        } => claims::run(
            &file,
            from,
            roles.as_deref(),
            (format, fail_on_unsupported),
            printer,
        ),
        Command::Report { inputs, output } => graph::report(&inputs, output.as_deref(), printer),
        Command::Export {
            file,
            from,
            scope,
            judging,
            options,
            output,
        } => export::run(
            &file,
            from,
            scope.as_deref(),
            (&judging, options),
            output.as_deref(),
            printer,
        ),
        Command::Guard(args) => guard::run(&args, printer),
        Command::Proxy(args) => proxy::run(&args),
        Command::Completions(shell) => {
            printer.print(&shell::completions(shell))?;
            Ok(Status::Clean)
        }
        Command::Man => {
            printer.print(&shell::man())?;
            Ok(Status::Clean)
        }
        Command::Version => {
            printer.print(&format!("toolreplay {}\n", env!("CARGO_PKG_VERSION")))?;
            Ok(Status::Clean)
        }
    }
}

/// Applies `--baseline` or `--write-baseline` to `findings`: with --baseline, only
/// those not in it are kept; with --write-baseline, all are recorded there. Returns
/// whether a baseline was written (the command then exits 0).
fn baseline(settings: &settings::Baseline, findings: &mut Findings) -> Result<bool, Error> {
    use crate::baseline::Baseline;
    if let Some(path) = &settings.read {
        *findings = Baseline::read(path)?
            .filter(findings)
            .map_err(Error::temporary)?;
    }
    if let Some(path) = &settings.write {
        let mut baseline = Baseline::default();
        baseline.record(findings).map_err(Error::temporary)?;
        baseline.write(path)?;
        return Ok(true);
    }
    Ok(false)
}

/// The error that stopped a pipeline reading the input at `path`.
fn stopped(path: &Path, stop: Stop<Error>) -> Error {
    match stop {
        Stop::Read(err) => Error::reading(path, err),
        Stop::Consume(err) => err,
    }
}

/// Reads a small file whole, up to `max` bytes, as text.
fn read_text(path: &Path, max: u64, what: &str) -> Result<String, Error> {
    String::from_utf8(crate::input::read_whole(path, max, what)?).map_err(|_| {
        Error::Input(InputError::Invalid {
            path: crate::input::display(path),
            message: "not valid UTF-8".to_owned(),
        })
    })
}
