//! The `toolreplay` command line.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use toolreplay::commands::{self, Outcome, Status};
use toolreplay::error::{Error, describe_io};
use toolreplay::{append, trust};

/// Audit the recorded tool calls of an AI agent, without calling any tool.
#[derive(Debug, Parser)]
#[command(name = "toolreplay", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Report non-deterministic responses, redundant calls and the divergence point.
    Replay {
        /// The transcript (JSON Lines).
        file: PathBuf,
        /// A tool whose calls change state, added to the default set
        /// (write_file, delete_file, create_file, move_file, run_command).
        #[arg(long = "mutating-tool", value_name = "NAME")]
        mutating_tool: Vec<String>,
    },
    /// Report calls to tools outside the agent's declared scope.
    Scope {
        /// The transcript (JSON Lines).
        file: PathBuf,
        /// The scope file: {"agent": ..., "allowed_tools": [...]}.
        scope: PathBuf,
    },
    /// Chain the transcript with SHA-256 and write the sealed transcript.
    ///
    /// With --append SEALED, verify SEALED and append FILE's records to it as links
    /// continuing its chain, in place and atomically.
    Seal {
        /// The transcript (JSON Lines); with --append, the new records.
        file: PathBuf,
        /// Write the sealed transcript to this file (atomically) instead of stdout.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// Append FILE's records to this sealed transcript. FILE's indices may start
        /// at 0 or continue SEALED's.
        #[arg(long, value_name = "SEALED", conflicts_with = "output")]
        append: Option<PathBuf>,
    },
    /// Check a sealed transcript's chain and name its first broken link.
    ///
    /// With --head, also check that the chain ends at the pinned head.
    Verify {
        /// The sealed transcript (JSON Lines).
        file: PathBuf,
        /// The pinned head: a file holding `toolreplay head` output, or a bare digest
        /// (64 lowercase hex digits).
        #[arg(long, value_name = "FILE_OR_DIGEST")]
        head: Option<String>,
    },
    /// Check the chain and print the statement of its head, the message to sign.
    Head {
        /// The sealed transcript (JSON Lines).
        file: PathBuf,
    },
    /// Print the version.
    Version,
}

fn run(command: Command) -> Result<Outcome, Error> {
    match command {
        Command::Replay {
            file,
            mutating_tool,
        } => commands::replay(&file, &mutating_tool),
        Command::Scope { file, scope } => commands::scope(&file, &scope),
        Command::Seal {
            file,
            append: Some(sealed),
            ..
        } => append::append(&sealed, &file),
        Command::Seal { file, output, .. } => commands::seal(&file, output.as_deref()),
        Command::Verify { file, head: None } => commands::verify(&file),
        Command::Verify { file, head } => trust::verify(
            &file,
            &trust::Checks {
                head: head.as_deref(),
            },
        ),
        Command::Head { file } => trust::head(&file),
        Command::Version => Ok(Outcome {
            output: commands::Output::Text(format!("toolreplay {}\n", env!("CARGO_PKG_VERSION"))),
            status: Status::Clean,
        }),
    }
}

fn fail(err: &Error) -> ExitCode {
    // If stderr is gone there is nobody left to tell.
    if let Error::Refused { .. } = err {
        // A broken chain: its report and what was refused, exit 1.
        let _ = writeln!(io::stderr().lock(), "{err}");
        return ExitCode::from(1);
    }
    let _ = writeln!(io::stderr().lock(), "error: {err}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match run(cli.command) {
        Ok(outcome) => outcome,
        Err(err) => return fail(&err),
    };
    let code = match outcome.status {
        Status::Clean => ExitCode::SUCCESS,
        Status::Findings => ExitCode::from(1),
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let written = match outcome.output.write_to(&mut out) {
        Ok(result) => result.and_then(|()| out.flush()),
        Err(err) => return fail(&err),
    };
    match written {
        Ok(()) => code,
        // The reader went away (`toolreplay replay big.jsonl | head -1`): not an error.
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => code,
        Err(err) => {
            let _ = writeln!(
                io::stderr().lock(),
                "error: cannot write standard output: {}",
                describe_io(&err)
            );
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        super::Cli::command().debug_assert();
    }
}
