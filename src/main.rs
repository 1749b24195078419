#![allow(unreachable_pub)]
//! The `toolreplay` command line: arguments in [`cli`], one module per command in
//! [`commands`], inputs in [`input`], reports in [`render`], files and stdout in
//! [`output`]; the audits themselves are the `toolreplay-core` crate.

use std::io::{self, IsTerminal};
use std::process::ExitCode;

use clap::Parser;
use toolreplay_core::Threads;

mod baseline;
mod cli;
mod commands;
mod config;
mod error;
mod guard;
mod input;
mod live;
mod naming;
mod output;
mod proxy;
mod render;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    // The guard answers with the hook protocol's own exit codes.
    let command = match cli.command {
        cli::Command::Guard(args) => return guard::run(args),
        cli::Command::Proxy(args) => return proxy::run(args),
        command => command,
    };
    match threads(std::env::var_os("TOOLREPLAY_THREADS").as_deref()) {
        Ok(threads) => {
            let _ = THREADS.set(threads.map_or_else(Default::default, Threads::new));
        }
        Err(err) => return error::report(&err),
    }
    let paint = render::color::Paint::new(render::color::enabled(
        cli.color,
        io::stdout().is_terminal(),
        std::env::var_os("NO_COLOR").as_deref(),
        std::env::var_os("TERM").as_deref(),
    ));
    let outcome =
        commands::run(command, paint, cli.no_config).and_then(output::Outcome::write_to_stdout);
    match outcome {
        Ok(status) => status.exit_code(),
        Err(err) => error::report(&err),
    }
}

/// The threads of the core's pipelines, as `TOOLREPLAY_THREADS` asks (set in `main`).
static THREADS: std::sync::OnceLock<Threads> = std::sync::OnceLock::new();

/// The threads every pipeline of this run is given.
fn threads_given() -> Threads {
    THREADS.get().copied().unwrap_or_default()
}

/// The number of threads that `TOOLREPLAY_THREADS` asks for, from 1 to 16; `None`
/// when it is unset or empty, for the default (one per core, up to four).
fn threads(value: Option<&std::ffi::OsStr>) -> Result<Option<usize>, error::Error> {
    let Some(value) = value.filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let max = toolreplay_core::MAX_THREADS;
    match value.to_str().and_then(|v| v.parse::<usize>().ok()) {
        Some(n) if (1..=max).contains(&n) => Ok(Some(n)),
        _ => Err(error::Error::Usage(format!(
            "TOOLREPLAY_THREADS must be a number of threads from 1 to {max}, not {:?}",
            value.to_string_lossy()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        super::cli::Cli::command().debug_assert();
    }
}
