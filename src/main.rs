//! The `toolreplay` binary: the command line of the library ([`toolreplay::run`]).

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(toolreplay::run(std::env::args_os()))
}
