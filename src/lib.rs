//! The `toolreplay` command line, one pipeline read top to bottom: the arguments
//! ([`args`]) are resolved into settings ([`settings`]), the command runs
//! ([`commands`]) and writes its report through the printer ([`printer`]), and the
//! exit status is the command's, or its [`error::Error`]'s. The audits themselves
//! are the `toolreplay-core` crate.
//!
//! [`run`] is the whole command, for the `toolreplay` binary and for the Python
//! package's `toolreplay` script, which runs it in its own process; [`run_captured`]
//! runs it with its report kept, for the package's functions that take what only
//! the command line reads (`toolreplay.toml`, baselines, signatures).

use std::ffi::OsString;
use std::path::Path;

use clap::Parser as _;

mod args;
mod baseline;
mod commands;
mod error;
mod input;
mod live;
mod naming;
mod output;
mod pool;
mod printer;
mod render;
mod settings;

/// Runs the command line `args` (the program's name first) as the `toolreplay`
/// binary does: its report on standard output, its notes and errors on standard
/// error; gives its exit status.
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match args::Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => {
            // As clap's own exit does: the usage error (or the help) and its status.
            let _ = err.print();
            return u8::try_from(err.exit_code()).unwrap_or(2);
        }
    };
    let run = settings::Settings::from_arguments(cli).and_then(|settings| {
        let mut printer = printer::Printer::stdout(settings.paint);
        let status = commands::execute(settings, &mut printer)?;
        printer.flush()?;
        Ok(status)
    });
    match run {
        Ok(status) => status.code(),
        Err(err) => {
            err.tell(&mut std::io::stderr().lock());
            err.exit_code()
        }
    }
}

/// What [`run_captured`] gives: the exit status, the report, and the error that
/// stopped the command (its message, after `error: `).
#[derive(Debug)]
pub struct Captured {
    /// The exit status.
    pub status: u8,
    /// The report the command wrote, as it would be on standard output.
    pub report: Vec<u8>,
    /// The error that stopped the command, when one did.
    pub error: Option<String>,
}

/// Runs the command line `args` (the program's name first) with its report kept
/// instead of written to standard output (its notes still go to standard error),
/// and with the configuration in the file `config`, when given, in place of the
/// `toolreplay.toml` found from the current folder.
pub fn run_captured<I, T>(args: I, config: Option<&Path>) -> Captured
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let failed = |error: String| Captured {
        status: 2,
        report: Vec::new(),
        error: Some(error),
    };
    let cli = match args::Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => {
            let text = err.render().to_string();
            let first = text.lines().next().unwrap_or_default();
            return failed(first.strip_prefix("error: ").unwrap_or(first).to_owned());
        }
    };
    let mut report = Vec::new();
    let run = settings::Settings::from_arguments_with(cli, config).and_then(|settings| {
        let mut printer =
            printer::Printer::spooled(args::Format::Text, render::color::Paint::PLAIN);
        let status = commands::execute(settings, &mut printer)?;
        printer
            .into_spool()
            .copy_to(&mut report)
            .map_err(|err| match err {
                output::spool::SpoolError::Write(source)
                | output::spool::SpoolError::Spool(source) => error::Error::temporary(source),
            })?;
        Ok(status)
    });
    match run {
        Ok(status) => Captured {
            status: status.code(),
            report,
            error: None,
        },
        Err(err) => Captured {
            status: err.exit_code(),
            report,
            error: Some(err.to_string()),
        },
    }
}
