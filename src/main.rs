//! The `toolreplay` command line.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use std::io::IsTerminal;

use clap::{CommandFactory, Parser, Subcommand};
use clap_complete::Shell;
use toolreplay_core::import::Source as ImportSource;

mod append;
mod atomic;
mod batch;
mod color;
mod commands;
mod diff;
mod error;
mod format;
mod guard;
mod import_cmd;
mod input;
mod live;
mod progress;
mod proxy;
mod render;
mod shell;
mod spool;
mod trust;

use crate::color::ColorChoice;
use crate::commands::{Outcome, Status};
use crate::error::{Error, describe_io};
use crate::format::Format;
use crate::import_cmd::Options;
use crate::trust::SignatureCheck;

/// The format to read an input as, as `--from` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Source {
    /// Recognise the format from the content (and say which on stderr).
    Auto,
    /// A Claude Code session file (JSONL, from ~/.claude/projects/).
    ClaudeCode,
    /// OpenAI chat messages with tool_calls: a JSON array, or JSONL.
    Openai,
    /// Anthropic Messages API messages with tool_use/tool_result: a JSON array, or JSONL.
    Anthropic,
    /// MCP JSON-RPC 2.0 messages, one a line.
    Mcp,
}

impl From<Source> for ImportSource {
    fn from(source: Source) -> ImportSource {
        match source {
            Source::Auto => ImportSource::Auto,
            Source::ClaudeCode => ImportSource::ClaudeCode,
            Source::Openai => ImportSource::Openai,
            Source::Anthropic => ImportSource::Anthropic,
            Source::Mcp => ImportSource::Mcp,
        }
    }
}

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

/// `--from FORMAT [--strict]`, for the commands that read a plain transcript.
#[derive(Debug, Clone, Copy, clap::Args)]
struct FromArgs {
    /// Read the transcript (for diff, both runs) from a log in this format, imported
    /// as `toolreplay import` does.
    #[arg(long = "from", value_name = "FORMAT")]
    from: Option<Source>,
    /// With --from: make any import warning an error (exit 2).
    #[arg(long, requires = "from")]
    strict: bool,
}

impl FromArgs {
    /// The import options, when --from was given.
    fn options(self) -> Option<Options> {
        self.from.map(|source| Options {
            source: source.into(),
            strict: self.strict,
        })
    }
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
        #[command(flatten)]
        from: FromArgs,
    },
    /// Report calls outside the agent's declared scope and policy.
    #[command(after_help = SCOPE_EXAMPLES)]
    Scope {
        /// The transcript (JSON Lines); - reads standard input.
        file: PathBuf,
        /// The scope file: {"agent": ..., "allowed_tools": [...]}, with policy rules
        /// after "policy_version": 1 (README, "Scope policies"); - reads standard
        /// input.
        scope: PathBuf,
        /// The report's format.
        #[arg(long, value_name = "FORMAT", default_value = "text")]
        format: Format,
        #[command(flatten)]
        from: FromArgs,
    },
    /// Chain the transcript with SHA-256 and write the sealed transcript.
    ///
    /// With --append SEALED, verify SEALED and append FILE's records to it as links
    /// continuing its chain, in place and atomically.
    #[command(after_help = SEAL_EXAMPLES)]
    Seal {
        /// The transcript (JSON Lines); - reads standard input; with --append, the new
        /// records.
        file: PathBuf,
        /// Write the sealed transcript to this file (atomically) instead of stdout.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// Append FILE's records to this sealed transcript. FILE's indices may start
        /// at 0 or continue SEALED's.
        #[arg(long, value_name = "SEALED", conflicts_with = "output")]
        append: Option<PathBuf>,
        #[command(flatten)]
        from: FromArgs,
    },
    /// Check a sealed transcript's chain and name its first broken link.
    ///
    /// With --head, also check that the chain ends at the pinned head; with
    /// --signature, that the head statement is signed by an allowed signer.
    #[command(after_help = VERIFY_EXAMPLES)]
    Verify {
        /// The sealed transcript (JSON Lines); - reads standard input.
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
        /// The report's format.
        #[arg(long, value_name = "FORMAT", default_value = "text")]
        format: Format,
    },
    /// Check the chain and sign its head statement with an SSH key, to SEALED.sig.
    ///
    /// The key is an OpenSSH ed25519 private key; an encrypted one is decrypted with
    /// the passphrase in TOOLREPLAY_KEY_PASSPHRASE, or one asked for on the terminal.
    #[command(after_help = SIGN_EXAMPLES)]
    Sign {
        /// The sealed transcript (JSON Lines).
        file: PathBuf,
        /// The private key.
        #[arg(long, value_name = "KEY")]
        key: PathBuf,
    },
    /// Check the chain and print the statement of its head, the message to sign.
    #[command(after_help = HEAD_EXAMPLES)]
    Head {
        /// The sealed transcript (JSON Lines).
        file: PathBuf,
    },
    /// Compare two runs call by call and report the first difference.
    #[command(after_help = DIFF_EXAMPLES)]
    Diff {
        /// The first run: a transcript or a sealed transcript; - reads standard input.
        a: PathBuf,
        /// The second run: a transcript or a sealed transcript; - reads standard input.
        b: PathBuf,
        #[command(flatten)]
        from: FromArgs,
    },
    /// Import the tool calls of a Claude Code, OpenAI, Anthropic or MCP log as a
    /// transcript.
    ///
    /// One record per tool call, in call order, each with its own result; warnings on
    /// stderr for what could not be paired or understood (README, "Import").
    #[command(after_help = IMPORT_EXAMPLES)]
    Import {
        /// The log; - reads standard input.
        #[arg(value_name = "INPUT")]
        file: PathBuf,
        /// The log's format.
        #[arg(long = "from", value_name = "FORMAT", default_value = "auto")]
        from: Source,
        /// Write the transcript to this file (atomically) instead of stdout.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// Make any warning an error (exit 2).
        #[arg(long)]
        strict: bool,
    },
    /// Run an MCP server behind a proxy that decides, times out, checks and seals
    /// every tools/call.
    ///
    /// The MCP client starts `toolreplay proxy ... -- CMD ARGS...` in place of the
    /// server (docs/proxy.md).
    #[command(after_help = PROXY_EXAMPLES)]
    Proxy(proxy::Args),
    /// Guard a Claude Code session as a hook: decide each tool call by the scope
    /// policy and seal every call as it happens (docs/live.md).
    #[command(after_help = guard::EXAMPLES)]
    Guard(guard::GuardArgs),
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

const IMPORT_EXAMPLES: &str = "\
Examples:
  toolreplay import ~/.claude/projects/my-project/session.jsonl > run.jsonl
  toolreplay import --from openai chat.json -o run.jsonl
  toolreplay import --from mcp --strict mcp-log.jsonl
  toolreplay replay --from claude-code session.jsonl

Exit status: 0 imported (warnings, if any, on stderr), 2 the input is invalid or not
recognised, or --strict and warnings (nothing is written).";

const PROXY_EXAMPLES: &str = "\
Examples:
  toolreplay proxy --policy scope.json --seal session.jsonl -- python3 server.py
  toolreplay proxy --policy scope.json --seal session.jsonl --call-timeout 30s \\
      --pin tools.pin.json -- npx -y @modelcontextprotocol/server-filesystem /data

Exit status: 0 the client ended the session, 1 a call could not be sealed, 2 the
proxy could not start, 3 the server ended the session, 130 SIGINT, 143 SIGTERM.";

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
  toolreplay replay --from claude-code ~/.claude/projects/my-project/session.jsonl
  zcat run.jsonl.gz | toolreplay replay -

Exit status: 0 no findings, 1 findings, 2 the audit could not run.";

const SCOPE_EXAMPLES: &str = "\
Examples:
  toolreplay scope run.jsonl scope.json
  toolreplay scope run.jsonl scope.json --format json
  toolreplay scope run.jsonl policy.json
  toolreplay scope --from claude-code session.jsonl policy.json
  toolreplay scope - scope.json < run.jsonl

Exit status: 0 no findings, 1 findings, 2 the audit could not run.";

const SEAL_EXAMPLES: &str = "\
Examples:
  toolreplay seal run.jsonl > sealed.jsonl
  toolreplay seal run.jsonl -o sealed.jsonl
  agent-run | toolreplay seal - -o sealed.jsonl
  toolreplay seal --append sealed.jsonl new-calls.jsonl

Exit status: 0 sealed, 1 --append refused a broken chain, 2 invalid input (nothing is
written).";

const VERIFY_EXAMPLES: &str = "\
Examples:
  toolreplay verify sealed.jsonl
  toolreplay verify sealed.jsonl --format json
  toolreplay verify sealed.jsonl --format sarif > verify.sarif
  toolreplay verify sealed.jsonl --head pinned-head.txt
  toolreplay verify sealed.jsonl --signature sealed.jsonl.sig \\
      --allowed-signers allowed_signers --identity ci@example.com

Exit status: 0 intact (and the head and signature check out), 1 broken, another head,
or a bad or untrusted signature, 2 the check could not run.";

const SIGN_EXAMPLES: &str = "\
Examples:
  toolreplay sign sealed.jsonl --key ~/.ssh/id_ed25519
  TOOLREPLAY_KEY_PASSPHRASE=... toolreplay sign sealed.jsonl --key ci_key

Exit status: 0 signed (to SEALED.sig), 1 the chain is broken, 2 the key or input is
unusable.";

const HEAD_EXAMPLES: &str = "\
Examples:
  toolreplay head sealed.jsonl > pinned-head.txt
  toolreplay head sealed.jsonl | ssh-keygen -Y sign -f ~/.ssh/id_ed25519 -n toolreplay

Exit status: 0 printed, 1 the chain is broken, 2 the input is unusable.";

fn run(command: Command, colored: bool) -> Result<Outcome, Error> {
    let stderr = &mut io::stderr();
    match command {
        Command::Import {
            file,
            from,
            output,
            strict,
        } => import_cmd::import_command(
            &file,
            Options {
                source: from.into(),
                strict,
            },
            output.as_deref(),
            stderr,
        ),
        Command::Replay {
            file,
            mutating_tool,
            format,
            from,
        } => match from.options() {
            None => format::replay(&file, &mutating_tool, format, colored),
            Some(options) => {
                import_cmd::replay(&file, options, &mutating_tool, format, colored, stderr)
            }
        },
        Command::Scope {
            file,
            scope,
            format,
            from,
        } => match from.options() {
            None => format::scope(&file, &scope, format, colored),
            Some(options) => {
                import_cmd::scope(&file, &scope, options, format, colored, stderr)
            }
        },
        Command::Seal {
            file,
            append: Some(sealed),
            from,
            ..
        } => match from.options() {
            None => append::append(&sealed, &file),
            Some(options) => import_cmd::append(&sealed, &file, options, stderr),
        },
        Command::Seal { file, output, from, .. } => match from.options() {
            None => commands::seal(&file, output.as_deref()),
            Some(options) => import_cmd::seal(&file, options, output.as_deref(), stderr),
        },
        Command::Verify {
            file,
            head: None,
            signature: None,
            format,
            ..
        } => format::verify(&file, format, colored),
        Command::Verify {
            format: Format::Json | Format::Sarif,
            ..
        } => Err(Error::Usage(
            "--format json and --format sarif report the chain alone: leave out --head and --signature, or use --format text".to_owned(),
        )),
        Command::Verify {
            file,
            head,
            signature,
            allowed_signers,
            identity,
            ..
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
        Command::Diff { a, b, from } => match from.options() {
            None => diff::diff(&a, &b, colored),
            Some(options) => import_cmd::diff(&a, &b, options, colored, stderr),
        },
        Command::Proxy(_) => Err(Error::Usage("proxy runs apart".to_owned())),
        Command::Completions { shell } => Ok(text(shell::completions(shell, &mut Cli::command()))),
        Command::Man => Ok(text(shell::man(Cli::command()))),
        // Answered by `main` itself, with the hook protocol's exit codes.
        Command::Guard(_) => Err(Error::Usage("guard answers in main".to_owned())),
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
    let colored = color::enabled(
        cli.color,
        io::stdout().is_terminal(),
        std::env::var_os("NO_COLOR").as_deref(),
        std::env::var_os("TERM").as_deref(),
    );
    let command = match cli.command {
        Command::Guard(args) => return guard::run(args),
        Command::Proxy(args) => return proxy::run(args),
        command => command,
    };
    let outcome = match run(command, colored) {
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
