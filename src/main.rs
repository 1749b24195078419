//! The `toolreplay` command line.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use std::io::IsTerminal;

use clap::{CommandFactory, Parser, Subcommand};
use clap_complete::Shell;
use toolreplay::color::{self, ColorChoice};
use toolreplay::commands::{self, Outcome, Status};
use toolreplay::error::{Error, describe_io};
use toolreplay::format::{self, Format};
use toolreplay::{diff, shell};

/// Audit the recorded tool calls of an AI agent, without calling any tool.
#[derive(Debug, Parser)]
#[command(name = "toolreplay", version, about, long_about = None)]
struct Cli {
    /// When to colour text reports: auto colours only when stdout is a terminal and
    /// NO_COLOR is unset.
    #[arg(long, value_name = "WHEN", global = true, default_value = "auto")]
    color: ColorChoice,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Report non-deterministic responses, redundant calls and the divergence point.
    #[command(after_help = REPLAY_EXAMPLES)]
    Replay {
        /// The transcript (JSON Lines); - reads standard input.
        file: PathBuf,
        /// A tool whose calls change state, added to the default set
        /// (write_file, delete_file, create_file, move_file, run_command).
        #[arg(long = "mutating-tool", value_name = "NAME")]
        mutating_tool: Vec<String>,
        /// The report's format.
        #[arg(long, value_name = "FORMAT", default_value = "text")]
        format: Format,
    },
    /// Report calls to tools outside the agent's declared scope.
    #[command(after_help = SCOPE_EXAMPLES)]
    Scope {
        /// The transcript (JSON Lines); - reads standard input.
        file: PathBuf,
        /// The scope file: {"agent": ..., "allowed_tools": [...]}; - reads standard
        /// input.
        scope: PathBuf,
        /// The report's format.
        #[arg(long, value_name = "FORMAT", default_value = "text")]
        format: Format,
    },
    /// Chain the transcript with SHA-256 and write the sealed transcript.
    #[command(after_help = SEAL_EXAMPLES)]
    Seal {
        /// The transcript (JSON Lines); - reads standard input.
        file: PathBuf,
        /// Write the sealed transcript to this file (atomically) instead of stdout.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
    },
    /// Check a sealed transcript's chain and name its first broken link.
    #[command(after_help = VERIFY_EXAMPLES)]
    Verify {
        /// The sealed transcript (JSON Lines); - reads standard input.
        file: PathBuf,
        /// The report's format.
        #[arg(long, value_name = "FORMAT", default_value = "text")]
        format: Format,
    },
    /// Compare two runs call by call and report the first difference.
    #[command(after_help = DIFF_EXAMPLES)]
    Diff {
        /// The first run: a transcript or a sealed transcript; - reads standard input.
        a: PathBuf,
        /// The second run: a transcript or a sealed transcript; - reads standard input.
        b: PathBuf,
    },
    /// Print the completion script for a shell.
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions {
        /// The shell.
        shell: Shell,
    },
    /// Print the man page (roff).
    #[command(after_help = MAN_EXAMPLES)]
    Man,
    /// Print the version.
    #[command(after_help = VERSION_EXAMPLES)]
    Version,
}

const VERSION_EXAMPLES: &str = "\
Examples:
  toolreplay version
  toolreplay --version";

const DIFF_EXAMPLES: &str = "\
Examples:
  toolreplay diff run-a.jsonl run-b.jsonl
  toolreplay diff sealed-a.jsonl sealed-b.jsonl
  toolreplay diff run-a.jsonl sealed-a.jsonl
  zcat run-b.jsonl.gz | toolreplay diff run-a.jsonl -

Exit status: 0 same, 1 different, 2 the comparison could not run.";

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  toolreplay completions bash > ~/.local/share/bash-completion/completions/toolreplay
  toolreplay completions zsh > ~/.zfunc/_toolreplay
  toolreplay completions fish > ~/.config/fish/completions/toolreplay.fish";

const MAN_EXAMPLES: &str = "\
Examples:
  toolreplay man > toolreplay.1 && man ./toolreplay.1";

const REPLAY_EXAMPLES: &str = "\
Examples:
  toolreplay replay run.jsonl
  toolreplay replay run.jsonl --mutating-tool send_email --mutating-tool git_commit
  toolreplay replay run.jsonl --format sarif > replay.sarif
  zcat run.jsonl.gz | toolreplay replay -

Exit status: 0 no findings, 1 findings, 2 the audit could not run.";

const SCOPE_EXAMPLES: &str = "\
Examples:
  toolreplay scope run.jsonl scope.json
  toolreplay scope run.jsonl scope.json --format json
  toolreplay scope - scope.json < run.jsonl

Exit status: 0 no findings, 1 findings, 2 the audit could not run.";

const SEAL_EXAMPLES: &str = "\
Examples:
  toolreplay seal run.jsonl > sealed.jsonl
  toolreplay seal run.jsonl -o sealed.jsonl
  agent-run | toolreplay seal - -o sealed.jsonl

Exit status: 0 sealed, 2 invalid input (nothing is written).";

const VERIFY_EXAMPLES: &str = "\
Examples:
  toolreplay verify sealed.jsonl
  toolreplay verify sealed.jsonl --format json
  toolreplay verify sealed.jsonl --format sarif > verify.sarif

Exit status: 0 intact, 1 broken, 2 the check could not run.";

fn run(command: Command, colored: bool) -> Result<Outcome, Error> {
    match command {
        Command::Replay {
            file,
            mutating_tool,
            format,
        } => format::replay(&file, &mutating_tool, format, colored),
        Command::Scope {
            file,
            scope,
            format,
        } => format::scope(&file, &scope, format, colored),
        Command::Seal { file, output } => commands::seal(&file, output.as_deref()),
        Command::Verify { file, format } => format::verify(&file, format, colored),
        Command::Diff { a, b } => diff::diff(&a, &b, colored),
        Command::Completions { shell } => Ok(text(shell::completions(shell, &mut Cli::command()))),
        Command::Man => Ok(text(shell::man(Cli::command()))),
        Command::Version => Ok(Outcome {
            output: commands::Output::Text(format!("toolreplay {}\n", env!("CARGO_PKG_VERSION"))),
            status: Status::Clean,
        }),
    }
}

fn text(text: String) -> Outcome {
    Outcome {
        output: commands::Output::Text(text),
        status: Status::Clean,
    }
}

fn fail(err: &Error) -> ExitCode {
    // If stderr is gone there is nobody left to tell.
    let _ = writeln!(io::stderr().lock(), "error: {err}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let colored = color::enabled(
        cli.color,
        io::stdout().is_terminal(),
        std::env::var_os("NO_COLOR").as_deref(),
        std::env::var_os("TERM").as_deref(),
    );
    let outcome = match run(cli.command, colored) {
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
