//! The `toolreplay` command line.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use toolreplay::commands::{self, Outcome, Status};
use toolreplay::error::{Error, describe_io};
use toolreplay::sign::SignatureCheck;
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
        /// An SSH signature of the head statement (from `toolreplay sign` or
        /// `ssh-keygen -Y sign -n toolreplay`); needs --allowed-signers and --identity.
        #[arg(long, value_name = "SIG", requires_all = ["allowed_signers", "identity"])]
        signature: Option<PathBuf>,
        /// Who may sign, in ssh-keygen's allowed signers format.
        #[arg(long, value_name = "FILE", requires = "signature")]
        allowed_signers: Option<PathBuf>,
        /// The principal the signer must be in the allowed signers file.
        #[arg(long, value_name = "ID", requires = "signature")]
        identity: Option<String>,
    },
    /// Check the chain and sign its head statement with an SSH key, to SEALED.sig.
    ///
    /// The key is an OpenSSH ed25519 private key; an encrypted one is decrypted with
    /// the passphrase in TOOLREPLAY_KEY_PASSPHRASE, or one asked for on the terminal.
    Sign {
        /// The sealed transcript (JSON Lines).
        file: PathBuf,
        /// The private key.
        #[arg(long, value_name = "KEY")]
        key: PathBuf,
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
        Command::Verify {
            file,
            head: None,
            signature: None,
            ..
        } => commands::verify(&file),
        Command::Verify {
            file,
            head,
            signature,
            allowed_signers,
            identity,
        } => {
            let signature = match (&signature, &allowed_signers, &identity) {
                (Some(signature), Some(allowed_signers), Some(identity)) => Some(SignatureCheck {
                    signature,
                    allowed_signers,
                    identity,
                }),
                _ => None,
            };
            trust::verify(
                &file,
                &trust::Checks {
                    head: head.as_deref(),
                    signature,
                },
            )
        }
        Command::Sign { file, key } => trust::sign(&file, &key),
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
