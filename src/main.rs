//! The `toolreplay` command line: arguments in [`cli`], one module per command in
//! [`commands`], inputs in [`input`], reports in [`render`], files and stdout in
//! [`output`]; the audits themselves are the `toolreplay-core` crate.

use std::io::{self, IsTerminal};
use std::process::ExitCode;

use clap::Parser;

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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        super::cli::Cli::command().debug_assert();
    }
}
