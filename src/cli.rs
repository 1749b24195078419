//! The command line's arguments: every command, its options and its examples.

use std::path::PathBuf;
use std::sync::LazyLock;

use clap::builder::PossibleValue;
use clap::{Parser, Subcommand};
use clap_complete::Shell;
use toolreplay_core::{ImportFormat, ImportSource};

use crate::error::Error;
use crate::input::ImportOptions;
use crate::render::Format;
use crate::render::color::ColorChoice;

/// The format to read an input as, as `--from` names it: `auto`, then the core's
/// formats, the agents' logs first and this tool's own formats last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source(pub ImportSource);

impl Source {
    /// Recognise the format from the content.
    pub const AUTO: Source = Source(ImportSource::Auto);
}

impl From<Source> for ImportSource {
    fn from(source: Source) -> ImportSource {
        source.0
    }
}

/// Every value of `--from`, in the order its help lists them.
static SOURCES: LazyLock<Vec<Source>> = LazyLock::new(|| {
    let (own, agents): (Vec<_>, Vec<_>) = ImportFormat::ALL.into_iter().partition(|f| f.is_own());
    std::iter::once(Source::AUTO)
        .chain(agents.into_iter().chain(own).map(|f| Source(f.into())))
        .collect()
});

impl clap::ValueEnum for Source {
    fn value_variants<'a>() -> &'a [Self] {
        &SOURCES
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self.0.format() {
            None => PossibleValue::new("auto")
                .help("Recognise the format from the content (and say which on stderr)"),
            Some(format) => PossibleValue::new(format.name()).help(format.description()),
        })
    }
}

/// The rules `replay` judges calls by, as `--rules` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rules {
    /// The specification's: its default mutating tools, responses compared with the
    /// first identical call's.
    Spec,
    /// A recorded agent session's: the agents' mutating and volatile tools
    /// (docs/usage.md, "Agent sessions"), responses compared since the last state change.
    Agent,
}

/// Audit the recorded tool calls of an AI agent, without calling any tool.
#[derive(Debug, Parser)]
#[command(name = "toolreplay", version, about, long_about = None)]
pub struct Cli {
    /// When to colour text reports: auto colours only when stdout is a terminal and
    /// NO_COLOR is unset.
    #[arg(long, value_name = "WHEN", global = true, default_value = "auto")]
    pub color: ColorChoice,
    /// Ignore toolreplay.toml (otherwise read from the current folder or the nearest
    /// folder above it).
    #[arg(long, global = true)]
    pub no_config: bool,
    #[command(subcommand)]
    pub command: Command,
}

/// `--from FORMAT [--strict]`, for the commands that read a plain transcript.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct FromArgs {
    /// Read the input as an agent's log in this format, imported as `toolreplay
    /// import` does.
    #[arg(long = "from", value_name = "FORMAT")]
    pub from: Option<Source>,
    /// With --from (or toolreplay.toml's from, for the commands that read it): make
    /// any import warning an error (exit 2).
    #[arg(long)]
    pub strict: bool,
}

/// `--glob PATTERN`, for the commands that take several files and folders.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ManyArgs {
    /// In folders, audit only the files whose name matches this glob (`*` any
    /// characters, `?` one), e.g. '*.jsonl'. Default: every file not starting with '.'.
    #[arg(long, value_name = "PATTERN")]
    pub glob: Option<String>,
}

/// `--baseline FILE` and `--write-baseline FILE`, for the audits that report findings.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct BaselineArgs {
    /// Report only the findings not in this baseline (written by --write-baseline).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Record today's findings in this baseline file (atomically) and exit 0; the
    /// report is printed as usual.
    #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
    pub write_baseline: Option<PathBuf>,
}

impl FromArgs {
    /// The import options, when --from was given, for a command that reads no
    /// configuration; --strict without --from is a usage error.
    pub fn options(self) -> Result<Option<ImportOptions>, Error> {
        self.resolve(None, "give --from FORMAT")
    }

    /// The import options, when --from was given or `config` names a format;
    /// --strict with neither is a usage error.
    pub fn options_or(
        self,
        config: &crate::config::Config,
    ) -> Result<Option<ImportOptions>, Error> {
        self.resolve(
            config.from,
            &format!(
                "give --from FORMAT, or from = \"FORMAT\" in {}",
                crate::config::FILE_NAME
            ),
        )
    }

    fn resolve(self, config: Option<Source>, how: &str) -> Result<Option<ImportOptions>, Error> {
        match self.from.or(config) {
            Some(source) => Ok(Some(ImportOptions {
                source: source.into(),
                strict: self.strict,
            })),
            None if self.strict => Err(Error::Usage(format!(
                "--strict needs an import to apply to: {how}"
            ))),
            None => Ok(None),
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Report non-deterministic responses, redundant calls and the divergence point.
    #[command(after_help = REPLAY_EXAMPLES)]
    Replay {
        /// The transcripts (JSON Lines), or folders of them; - reads standard input.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        #[command(flatten)]
        many: ManyArgs,
        /// A tool whose calls change state, added to the default set
        /// (write_file, delete_file, create_file, move_file, run_command).
        #[arg(long = "mutating-tool", value_name = "NAME")]
        mutating_tool: Vec<String>,
        /// A tool whose answers are expected to vary (it polls, or reads the web):
        /// never a non-determinism or redundant-call finding.
        #[arg(long = "volatile-tool", value_name = "NAME")]
        volatile_tool: Vec<String>,
        /// How to judge calls: spec, the specification's rules; agent, those of a
        /// recorded agent session (the agents' mutating and volatile tools, responses
        /// compared since the last state change). Default: agent with --from, else
        /// spec.
        #[arg(long, value_name = "RULES")]
        rules: Option<Rules>,
        #[command(flatten)]
        baseline: BaselineArgs,
        /// After the text report, a summary: findings by kind, by tool, and by the
        /// line of their call in the input.
        #[arg(long)]
        summary: bool,
        /// The report's format [default: text, or toolreplay.toml's format].
        #[arg(long, value_name = "FORMAT")]
        format: Option<Format>,
        #[command(flatten)]
        from: FromArgs,
    },
    /// Report calls outside the agent's declared scope and policy.
    #[command(after_help = SCOPE_EXAMPLES)]
    Scope {
        /// The transcripts (JSON Lines), or folders of them, then the scope file
        /// ({"agent": ..., "allowed_tools": [...]}, with policy rules after
        /// "policy_version": 1; docs/policy.md); - reads standard input.
        /// With --scope, or toolreplay.toml's scope and one transcript, every
        /// argument is a transcript.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// The scope file, when the arguments are all transcripts.
        #[arg(long = "scope", value_name = "SCOPE")]
        scope: Option<PathBuf>,
        #[command(flatten)]
        many: ManyArgs,
        #[command(flatten)]
        baseline: BaselineArgs,
        /// After the text report, a summary: findings by kind, by tool, and by the
        /// line of their call in the input.
        #[arg(long)]
        summary: bool,
        /// The report's format [default: text, or toolreplay.toml's format].
        #[arg(long, value_name = "FORMAT")]
        format: Option<Format>,
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
        /// The sealed transcripts (JSON Lines), or folders of them; - reads standard
        /// input.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        #[command(flatten)]
        many: ManyArgs,
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
        /// The report's format [default: text, or toolreplay.toml's format].
        #[arg(long, value_name = "FORMAT")]
        format: Option<Format>,
        /// Not taken: verify reads sealed transcripts, which only seal writes.
        #[arg(long = "from", value_name = "FORMAT", hide = true)]
        from: Option<String>,
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
        /// List every difference after the report, not only the first (up to
        /// 100,000, then counted).
        #[arg(long)]
        all: bool,
        /// The report's format: text or json.
        #[arg(long, value_name = "FORMAT", default_value = "text")]
        format: Format,
        #[command(flatten)]
        from: FromArgs,
    },
    /// Import the tool calls of an agent's log (Claude Code, Codex, Gemini CLI, OpenAI,
    /// Anthropic, MCP and more: --from lists them) as a transcript.
    ///
    /// One record per tool call, in call order, each with its own result; warnings on
    /// stderr for what could not be paired or understood (docs/import.md).
    #[command(after_help = IMPORT_EXAMPLES)]
    Import {
        /// The log, or with --out-dir the logs and folders of them; - reads standard
        /// input.
        #[arg(required = true, value_name = "INPUT")]
        files: Vec<PathBuf>,
        /// The log's format [default: auto, or toolreplay.toml's from]; auto
        /// recognises each input's own.
        #[arg(long = "from", value_name = "FORMAT")]
        from: Option<Source>,
        /// Write the transcript to this file (atomically) instead of stdout.
        #[arg(short, long, value_name = "OUT", conflicts_with = "out_dir")]
        output: Option<PathBuf>,
        /// Import each input to its own transcript in this folder (created if need
        /// be), named after the input with the extension .jsonl; folders are walked
        /// and kept as subfolders.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
        /// With --out-dir: in folders, import only the files whose name matches this
        /// glob (`*` any characters, `?` one), e.g. '*.jsonl'. Default: every file
        /// not starting with '.'.
        #[arg(long, value_name = "PATTERN", requires = "out_dir")]
        glob: Option<String>,
        /// With --out-dir: replace the transcripts already there (otherwise refused,
        /// before anything is imported).
        #[arg(long, requires = "out_dir")]
        overwrite: bool,
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
    Proxy(crate::proxy::Args),
    /// Guard a Claude Code session as a hook: decide each tool call by the scope
    /// policy and seal every call as it happens (docs/live.md).
    #[command(after_help = crate::guard::EXAMPLES)]
    Guard(crate::guard::GuardArgs),
    /// Print the evidence graph: calls, artifacts, phases and rule-named edges.
    ///
    /// Every edge names the rule that made it (docs/graph.md); a sealed input's calls
    /// carry their link digests.
    #[command(after_help = crate::commands::graph::GRAPH_EXAMPLES)]
    Graph {
        #[command(flatten)]
        inputs: crate::commands::graph::InputArgs,
        /// The output's format.
        #[arg(long, value_name = "FORMAT", default_value = "json")]
        format: crate::commands::graph::GraphFormat,
    },
    /// Write the evidence graph as one self-contained HTML page.
    ///
    /// The page opens from disk and makes no network request (docs/graph.md).
    #[command(after_help = crate::commands::graph::REPORT_EXAMPLES)]
    Report {
        #[command(flatten)]
        inputs: crate::commands::graph::InputArgs,
        /// The HTML file to write (atomically).
        #[arg(short, long, value_name = "OUT")]
        output: PathBuf,
    },
    /// Count the tools a transcript calls, or draft a scope file allowing them.
    #[command(after_help = STATS_EXAMPLES)]
    Stats {
        /// The transcript (JSON Lines); - reads standard input.
        file: PathBuf,
        /// Print instead a draft scope file for this agent, with every tool called
        /// as its allowed_tools, to start a policy from.
        #[arg(long, value_name = "AGENT")]
        draft_scope: Option<String>,
        #[command(flatten)]
        from: FromArgs,
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

const IMPORT_EXAMPLES: &str = "\
Examples:
  toolreplay import ~/.claude/projects/my-project/session.jsonl > run.jsonl
  toolreplay import --from openai chat.json -o run.jsonl
  toolreplay import --from mcp --strict mcp-log.jsonl
  toolreplay import ~/.claude/projects --glob '*.jsonl' --out-dir transcripts
  toolreplay replay --from claude-code session.jsonl

Exit status: 0 imported (warnings, if any, on stderr), 2 the input is invalid or not
recognised, or --strict and warnings (nothing is written). With --out-dir, the worst
of all: 2 if any input could not be imported (its transcript is not written).";

const STATS_EXAMPLES: &str = "\
Examples:
  toolreplay stats run.jsonl
  toolreplay stats --from claude-code session.jsonl
  toolreplay stats --from claude-code session.jsonl --draft-scope my-agent > scope.json

Exit status: 0 counted, 2 the input is invalid.";

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
  toolreplay verify sealed.jsonl --head pinned-head.txt --format sarif > verify.sarif
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
