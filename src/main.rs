//! The `toolreplay` command line, one pipeline read top to bottom: the arguments
//! ([`args`]) are resolved into settings ([`settings`]), the command runs
//! ([`commands`]) and writes its report through the printer ([`printer`]), and the
//! exit status is the command's, or its [`error::Error`]'s. The audits themselves
//! are the `toolreplay-core` crate.

use std::process::ExitCode;

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

fn main() -> ExitCode {
    let args = args::Cli::parse();
    let run = settings::Settings::from_arguments(args).and_then(|settings| {
        let mut printer = printer::Printer::stdout(settings.paint);
        let status = commands::execute(settings, &mut printer)?;
        printer.flush()?;
        Ok(status)
    });
    match run {
        Ok(status) => ExitCode::from(status.code()),
        Err(err) => {
            err.tell(&mut std::io::stderr().lock());
            ExitCode::from(err.exit_code())
        }
    }
}
