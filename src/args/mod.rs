//! The command line's arguments, as clap parses them: every command and its options,
//! the values they take, and (in [`examples`]) the examples that end each `--help`.
//! Nothing here reads a file or the environment: [`crate::settings`] resolves these
//! arguments, with `toolreplay.toml`, into what the commands run with.

mod examples;

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::LazyLock;
use std::time::Duration;

use clap::builder::PossibleValue;
use clap::{Parser, Subcommand};
use clap_complete::Shell;
use toolreplay_core::{ImportFormat, ImportSource, ReconcileAgent};

use examples::*;

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
pub(crate) enum Rules {
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
pub(crate) struct Cli {
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
pub(crate) struct FromArgs {
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
pub(crate) struct ManyArgs {
    /// In folders, audit only the files whose name matches this glob (`*` any
    /// characters, `?` one), e.g. '*.jsonl'. Default: every file not starting with '.'.
    #[arg(long, value_name = "PATTERN")]
    pub glob: Option<String>,
}

/// `--baseline FILE` and `--write-baseline FILE`, for the audits that report findings.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct BaselineArgs {
    /// Report only the findings not in this baseline (written by --write-baseline).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Record today's findings in this baseline file (atomically) and exit 0; the
    /// report is printed as usual.
    #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
    pub write_baseline: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Report non-deterministic responses, redundant calls and the divergence point.
    #[command(after_help = REPLAY_EXAMPLES)]
    Replay(ReplayArgs),
    /// Report calls outside the agent's declared scope and policy.
    #[command(after_help = SCOPE_EXAMPLES)]
    Scope(ScopeArgs),
    /// Chain the transcript with SHA-256 and write the sealed transcript.
    ///
    /// With --append SEALED, verify SEALED and append FILE's records to it as links
    /// continuing its chain, in place and atomically.
    #[command(after_help = SEAL_EXAMPLES)]
    Seal(SealArgs),
    /// Check a sealed transcript's chain and name its first broken link.
    ///
    /// With --head, also check that the chain ends at the pinned head; with
    /// --signature, that the head statement is signed by an allowed signer.
    #[command(after_help = VERIFY_EXAMPLES)]
    Verify(VerifyArgs),
    /// Check the chain and sign its head statement with an SSH key, to SEALED.sig.
    ///
    /// The key is an OpenSSH ed25519 private key; an encrypted one is decrypted with
    /// the passphrase in TOOLREPLAY_KEY_PASSPHRASE, or one asked for on the terminal.
    #[command(after_help = SIGN_EXAMPLES)]
    Sign(SignArgs),
    /// Check the chain, audit the session and sign an in-toto attestation of the
    /// sealed file, to SEALED.intoto.jsonl.
    ///
    /// An in-toto Statement v1 (predicate type
    /// https://toolreplay.dev/attestation/session/v1: the head, the record count, the
    /// policy digests and the audits' findings) in a DSSE envelope signed with an
    /// OpenSSH ed25519 private key, as `sign` takes it (docs/provenance.md).
    #[command(after_help = ATTEST_EXAMPLES)]
    Attest(AttestArgs),
    /// Check the chain and print the statement of its head, the message to sign.
    #[command(after_help = HEAD_EXAMPLES)]
    Head(HeadArgs),
    /// Compare two runs call by call and report the first difference.
    #[command(after_help = DIFF_EXAMPLES)]
    Diff(DiffArgs),
    /// Import the tool calls of an agent's log (Claude Code, Codex, Gemini CLI, OpenAI,
    /// Anthropic, MCP and more: --from lists them) as a transcript.
    ///
    /// One record per tool call, in call order, each with its own result; warnings on
    /// stderr for what could not be paired or understood (docs/import.md).
    #[command(after_help = IMPORT_EXAMPLES)]
    Import(ImportArgs),
    /// Hold the agent's own log against a sealed live session, call by call.
    ///
    /// Names each call one side lacks (a hook that did not fire), and each call whose
    /// arguments or response differ, with both sides' index (docs/live.md).
    #[command(after_help = RECONCILE_EXAMPLES)]
    Reconcile(ReconcileArgs),
    /// Run an MCP server behind a proxy that decides, times out, checks and seals
    /// every tools/call.
    ///
    /// The MCP client starts `toolreplay proxy ... -- CMD ARGS...` in place of the
    /// server (docs/proxy.md).
    #[command(after_help = PROXY_EXAMPLES)]
    Proxy(ProxyArgs),
    /// Guard a coding agent's session as its hook (Claude Code, Codex, Gemini CLI,
    /// Cursor, Copilot CLI): decide each tool call by the scope policy and seal every
    /// call as it happens (docs/live.md).
    #[command(after_help = GUARD_EXAMPLES)]
    Guard(GuardArgs),
    /// Print the evidence graph: calls, artifacts, phases and rule-named edges.
    ///
    /// Every edge names the rule that made it (docs/graph.md); a sealed input's calls
    /// carry their link digests.
    #[command(after_help = GRAPH_EXAMPLES)]
    Graph(GraphArgs),
    /// Check the agent's final answers against its calls: each claim, its atoms, its
    /// evidence and its verdict (supported, contradicted, unsupported).
    ///
    /// Reads the prompts and answers a live session keeps beside its calls
    /// (S.context.jsonl), or those of a Claude Code session file (--from
    /// claude-code); the rules are in docs/graph.md, "The claims layer".
    #[command(after_help = CLAIMS_EXAMPLES)]
    Claims(ClaimsArgs),
    /// Write the evidence graph as one self-contained HTML page.
    ///
    /// The page opens from disk and makes no network request (docs/graph.md).
    #[command(after_help = REPORT_EXAMPLES)]
    Report(ReportArgs),
    /// Export the calls as OpenTelemetry spans (OTLP/JSON), one execute_tool span
    /// per call, for an OTel backend.
    ///
    /// GenAI semantic conventions; findings are span events; trace and span ids come
    /// from the chain, so the same session always gives the same trace
    /// (docs/otel.md).
    #[command(after_help = EXPORT_EXAMPLES)]
    Export(ExportArgs),
    /// Count the tools a transcript calls, or draft a scope file allowing them.
    #[command(after_help = STATS_EXAMPLES)]
    Stats(StatsArgs),
    /// Print the completion script for a shell.
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions(CompletionsArgs),
    /// Print the man page (roff).
    #[command(after_help = MAN_EXAMPLES)]
    Man,
    /// Print the version.
    #[command(after_help = VERSION_EXAMPLES)]
    Version,
}

/// How `replay` (and the replay findings of `graph` and `report`) judge calls.
#[derive(Debug, clap::Args)]
pub(crate) struct JudgingArgs {
    /// A tool whose calls change state, added to the default set
    /// (write_file, delete_file, create_file, move_file, run_command).
    #[arg(long = "mutating-tool", value_name = "NAME")]
    pub mutating_tool: Vec<String>,
    /// A tool whose answers are expected to vary (it polls, or reads the web):
    /// never a non-determinism or redundant-call finding.
    #[arg(long = "volatile-tool", value_name = "NAME")]
    pub volatile_tool: Vec<String>,
    /// How to judge calls: spec, the specification's rules; agent, those of a
    /// recorded agent session (the agents' mutating and volatile tools, responses
    /// compared since the last state change). Default: agent with --from, else
    /// spec.
    #[arg(long, value_name = "RULES")]
    pub rules: Option<Rules>,
}

// The arguments of `replay`.
#[derive(Debug, clap::Args)]
pub(crate) struct ReplayArgs {
    /// The transcripts (JSON Lines), or folders of them; - reads standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub many: ManyArgs,
    #[command(flatten)]
    pub judging: JudgingArgs,
    #[command(flatten)]
    pub baseline: BaselineArgs,
    /// After the text report, a summary: findings by kind, by tool, and by the
    /// line of their call in the input.
    #[arg(long)]
    pub summary: bool,
    /// The report's format [default: text, or toolreplay.toml's format].
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,
    #[command(flatten)]
    pub from: FromArgs,
}

// The arguments of `scope`.
#[derive(Debug, clap::Args)]
pub(crate) struct ScopeArgs {
    /// The transcripts (JSON Lines), or folders of them, then the scope file
    /// ({"agent": ..., "allowed_tools": [...]}, with policy rules after
    /// "policy_version": 1; docs/policy.md); - reads standard input.
    /// With --scope, or toolreplay.toml's scope and one transcript, every
    /// argument is a transcript.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The scope file, when the arguments are all transcripts.
    #[arg(long = "scope", value_name = "SCOPE")]
    pub scope: Option<PathBuf>,
    #[command(flatten)]
    pub many: ManyArgs,
    #[command(flatten)]
    pub baseline: BaselineArgs,
    /// After the text report, a summary: findings by kind, by tool, and by the
    /// line of their call in the input.
    #[arg(long)]
    pub summary: bool,
    /// The report's format [default: text, or toolreplay.toml's format].
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,
    #[command(flatten)]
    pub from: FromArgs,
}

// The arguments of `seal`.
#[derive(Debug, clap::Args)]
pub(crate) struct SealArgs {
    /// The transcript (JSON Lines); - reads standard input; with --append, the new
    /// records.
    pub file: PathBuf,
    /// Write the sealed transcript to this file (atomically) instead of stdout.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Append FILE's records to this sealed transcript. FILE's indices may start
    /// at 0 or continue SEALED's.
    #[arg(long, value_name = "SEALED", conflicts_with = "output")]
    pub append: Option<PathBuf>,
    #[command(flatten)]
    pub from: FromArgs,
}

// The arguments of `verify`.
#[derive(Debug, clap::Args)]
pub(crate) struct VerifyArgs {
    /// The sealed transcripts (JSON Lines), or folders of them; - reads standard
    /// input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub many: ManyArgs,
    /// The pinned head: a file holding `toolreplay head` output, or a bare digest
    /// (64 lowercase hex digits).
    #[arg(long, value_name = "FILE_OR_DIGEST")]
    pub head: Option<String>,
    /// An SSH signature of the head statement (from `toolreplay sign` or
    /// `ssh-keygen -Y sign -n toolreplay`); needs --allowed-signers and --identity.
    #[arg(long, value_name = "SIG", requires_all = ["allowed_signers", "identity"])]
    pub signature: Option<PathBuf>,
    /// Who may sign, in ssh-keygen's allowed signers format.
    #[arg(long, value_name = "FILE")]
    pub allowed_signers: Option<PathBuf>,
    /// The principal the signer must be in the allowed signers file (with
    /// --attestation: optional, any line's key may sign without it).
    #[arg(long, value_name = "ID")]
    pub identity: Option<String>,
    /// An attestation of the file (from `toolreplay attest`): its DSSE signature by a
    /// key of --allowed-signers, its subject's digest and its head are checked.
    #[arg(long, value_name = "FILE", requires = "allowed_signers")]
    pub attestation: Option<PathBuf>,
    /// The report's format [default: text, or toolreplay.toml's format].
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,
    /// Not taken: verify reads sealed transcripts, which only seal writes.
    #[arg(long = "from", value_name = "FORMAT", hide = true)]
    pub from: Option<String>,
}

// The arguments of `sign`.
#[derive(Debug, clap::Args)]
pub(crate) struct SignArgs {
    /// The sealed transcript (JSON Lines).
    pub file: PathBuf,
    /// The private key.
    #[arg(long, value_name = "KEY")]
    pub key: PathBuf,
}

// The arguments of `attest`.
#[derive(Debug, clap::Args)]
pub(crate) struct AttestArgs {
    /// The sealed transcript (JSON Lines).
    pub file: PathBuf,
    /// The private key.
    #[arg(long, value_name = "KEY")]
    pub key: PathBuf,
    /// Write the envelope to this file (atomically) instead of SEALED.intoto.jsonl;
    /// - writes it to stdout.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Also audit the session against this scope file: its digest and findings go
    /// in the predicate.
    #[arg(long, value_name = "SCOPE")]
    pub scope: Option<PathBuf>,
    /// How replay judges the calls: spec or agent, as `replay --rules`.
    #[arg(long, value_name = "RULES", default_value = "spec")]
    pub rules: Rules,
}

// The arguments of `head`.
#[derive(Debug, clap::Args)]
pub(crate) struct HeadArgs {
    /// The sealed transcript (JSON Lines).
    pub file: PathBuf,
}

// The arguments of `diff`.
#[derive(Debug, clap::Args)]
pub(crate) struct DiffArgs {
    /// The first run: a transcript or a sealed transcript; - reads standard input.
    pub a: PathBuf,
    /// The second run: a transcript or a sealed transcript; - reads standard input.
    pub b: PathBuf,
    /// List every difference after the report, not only the first (up to
    /// 100,000, then counted).
    #[arg(long)]
    pub all: bool,
    /// The report's format: text or json.
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    pub format: Format,
    #[command(flatten)]
    pub from: FromArgs,
}

// The arguments of `import`.
#[derive(Debug, clap::Args)]
pub(crate) struct ImportArgs {
    /// The log, or with --out-dir the logs and folders of them; - reads standard
    /// input.
    #[arg(required = true, value_name = "INPUT")]
    pub files: Vec<PathBuf>,
    /// The log's format [default: auto, or toolreplay.toml's from]; auto
    /// recognises each input's own.
    #[arg(long = "from", value_name = "FORMAT")]
    pub from: Option<Source>,
    /// Write the transcript to this file (atomically) instead of stdout.
    #[arg(short, long, value_name = "OUT", conflicts_with = "out_dir")]
    pub output: Option<PathBuf>,
    /// Import each input to its own transcript in this folder (created if need
    /// be), named after the input with the extension .jsonl; folders are walked
    /// and kept as subfolders.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// With --out-dir: in folders, import only the files whose name matches this
    /// glob (`*` any characters, `?` one), e.g. '*.jsonl'. Default: every file
    /// not starting with '.'.
    #[arg(long, value_name = "PATTERN", requires = "out_dir")]
    pub glob: Option<String>,
    /// With --out-dir: replace the transcripts already there (otherwise refused,
    /// before anything is imported).
    #[arg(long, requires = "out_dir")]
    pub overwrite: bool,
    /// Make any warning an error (exit 2).
    #[arg(long)]
    pub strict: bool,
}

// The arguments of `reconcile`.
#[derive(Debug, clap::Args)]
pub(crate) struct ReconcileArgs {
    /// The sealed session (written by `toolreplay guard` or `seal`).
    pub session: PathBuf,
    /// The agent's own log of the same session.
    pub log: PathBuf,
    /// The log's format, as `import` reads it [default: auto, recognised from the
    /// content].
    #[arg(long = "from", value_name = "FORMAT")]
    pub from: Option<Source>,
    /// Whose projection makes the hook's and the log's forms comparable [default:
    /// the agent of the log's format; exact for the formats of no agent].
    #[arg(long, value_name = "AGENT")]
    pub agent: Option<ReconcileAgentArg>,
    /// The report's format: text or json.
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    pub format: Format,
}

/// An agent, as `reconcile --agent` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReconcileAgentArg(pub ReconcileAgent);

impl clap::ValueEnum for ReconcileAgentArg {
    fn value_variants<'a>() -> &'a [Self] {
        static AGENTS: LazyLock<Vec<ReconcileAgentArg>> = LazyLock::new(|| {
            ReconcileAgent::ALL
                .into_iter()
                .map(ReconcileAgentArg)
                .collect()
        });
        &AGENTS
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()))
    }
}

// The arguments of `graph`.
#[derive(Debug, clap::Args)]
pub(crate) struct GraphArgs {
    #[command(flatten)]
    pub inputs: GraphInputs,
    /// The output's format.
    #[arg(long, value_name = "FORMAT", default_value = "json")]
    pub format: GraphFormat,
}

// The arguments of `claims`.
#[derive(Debug, clap::Args)]
pub(crate) struct ClaimsArgs {
    /// The sealed session (S.jsonl, its prompts and answers in S.context.jsonl beside
    /// it), or with --from FORMAT an agent's log that keeps the conversation.
    pub file: PathBuf,
    #[command(flatten)]
    pub from: FromArgs,
    /// A roles file (JSON) that adds roles to the built-in ones or overrides them.
    #[arg(long, value_name = "ROLES")]
    pub roles: Option<PathBuf>,
    /// The output's format.
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    pub format: ClaimsFormat,
    /// Exit 1 also when a claim is unsupported (always when one is contradicted).
    #[arg(long = "fail-on", value_name = "VERDICT")]
    pub fail_on: Option<FailOn>,
}

/// The format of `claims`' output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum ClaimsFormat {
    /// Each claim, its verdict, atoms and evidence calls.
    #[default]
    Text,
    /// One JSON document (docs/graph.md, "The claims layer").
    Json,
}

/// What else makes `claims` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum FailOn {
    /// An unsupported claim.
    Unsupported,
}

// The arguments of `report`.
#[derive(Debug, clap::Args)]
pub(crate) struct ReportArgs {
    #[command(flatten)]
    pub inputs: GraphInputs,
    /// The HTML file to write (atomically).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
}

// The arguments of `export`.
#[derive(Debug, clap::Args)]
pub(crate) struct ExportArgs {
    /// The transcript or sealed transcript (JSON Lines); - reads standard input.
    pub file: PathBuf,
    /// The format to export to.
    #[arg(long, value_name = "FORMAT")]
    pub format: ExportFormat,
    #[command(flatten)]
    pub from: FromArgs,
    /// Put the arguments and results in the spans (gen_ai.tool.call.arguments,
    /// gen_ai.tool.call.result, toolreplay.response): left out by default, as they
    /// may hold secrets.
    #[arg(long)]
    pub with_content: bool,
    /// A scope file: its findings join replay's as span events.
    #[arg(long, value_name = "SCOPE")]
    pub scope: Option<PathBuf>,
    #[command(flatten)]
    pub judging: JudgingArgs,
    /// Every call is an MCP tools/call (a `toolreplay proxy` session): gen_ai.tool.type
    /// extension and mcp.method.name.
    #[arg(long)]
    pub mcp: bool,
    /// Write to this file (atomically) instead of stdout.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
}

/// The format of `export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ExportFormat {
    /// OTLP/JSON: one ExportTraceServiceRequest, as OTLP/HTTP collectors take it.
    Otlp,
}

// The arguments of `stats`.
#[derive(Debug, clap::Args)]
pub(crate) struct StatsArgs {
    /// The transcript (JSON Lines); - reads standard input.
    pub file: PathBuf,
    /// Print instead a draft scope file for this agent, with every tool called
    /// as its allowed_tools, to start a policy from.
    #[arg(long, value_name = "AGENT")]
    pub draft_scope: Option<String>,
    #[command(flatten)]
    pub from: FromArgs,
}

// The arguments of `completions`.
#[derive(Debug, clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    pub shell: Shell,
}

/// The format of a report: the variants' documentation is their `--help` text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum Format {
    /// The text report of the specification.
    #[default]
    Text,
    /// One JSON document with every fact of the report (schema in docs/output.md).
    Json,
    /// SARIF 2.1.0 for code-scanning dashboards.
    Sarif,
}

/// When to colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum ColorChoice {
    /// When stdout is a terminal, NO_COLOR is unset or empty and TERM is not dumb.
    #[default]
    Auto,
    /// Always, even with NO_COLOR set.
    Always,
    /// Never.
    Never,
}

/// The format of `graph`'s output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum GraphFormat {
    /// The nodes and edges as one JSON document (docs/graph.md).
    #[default]
    Json,
    /// Graphviz's DOT language.
    Dot,
}

/// The coding agent whose hook events the guard answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum Agent {
    /// Claude Code (.claude/settings.json hooks).
    #[default]
    ClaudeCode,
    /// OpenAI Codex CLI (.codex/hooks.json).
    Codex,
    /// Gemini CLI (.gemini/settings.json hooks).
    Gemini,
    /// Cursor (.cursor/hooks.json, version 1).
    Cursor,
    /// GitHub Copilot CLI (.github/hooks/*.json); needs --event.
    Copilot,
}

/// The arguments of `graph` and `report` that name their inputs.
#[derive(Debug, clap::Args)]
pub(crate) struct GraphInputs {
    /// The transcript or sealed transcript (JSON Lines); - reads standard input.
    pub file: PathBuf,
    #[command(flatten)]
    pub from: FromArgs,
    /// A scope file: its findings join replay's, and its flows make `flows` edges.
    #[arg(long, value_name = "SCOPE")]
    pub scope: Option<PathBuf>,
    /// A roles file (JSON) that adds roles to the built-in ones or overrides them.
    #[arg(long, value_name = "ROLES")]
    pub roles: Option<PathBuf>,
    #[command(flatten)]
    pub judging: JudgingArgs,
}

/// The arguments of `toolreplay guard`: the hook command's, or `init` and `check`.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(crate) struct GuardArgs {
    /// Set up or check the guard of a project instead of answering an event.
    #[command(subcommand)]
    pub action: Option<GuardAction>,
    /// The agent whose hook events these are.
    #[arg(long, value_name = "AGENT", default_value = "claude-code")]
    pub agent: Agent,
    /// The event the hook entry runs on, for agents whose events do not name
    /// themselves (Copilot CLI).
    #[arg(long, value_name = "EVENT")]
    pub event: Option<String>,
    /// The scope file the calls are decided by (docs/policy.md).
    #[arg(
        long,
        value_name = "SCOPE_FILE",
        required_unless_present = "print_settings"
    )]
    pub policy: Option<PathBuf>,
    /// The directory of the sealed session files, DIR/<session_id>.jsonl (created if
    /// missing).
    #[arg(long, value_name = "DIR", required_unless_present = "print_settings")]
    pub dir: Option<PathBuf>,
    /// Print the hooks that run this guard, and exit: Claude Code's settings.json
    /// block, or the hooks file `guard init --agent AGENT` would write here.
    #[arg(long)]
    pub print_settings: bool,
    /// Do not flush each link to stable storage before answering (faster; a crash of
    /// the machine may lose the last links).
    #[arg(long)]
    pub no_fsync: bool,
    /// When the guard cannot decide or record a call, let it through unrecorded
    /// (exit 1, a non-blocking error) instead of blocking it (exit 2).
    #[arg(long)]
    pub fail_open: bool,
    /// Send the session's execute_tool spans (as `export --format otlp` gives them)
    /// at each turn's end and the session's end, to the OTLP endpoint of
    /// OTEL_EXPORTER_OTLP_ENDPOINT, over HTTP or gRPC (OTEL_EXPORTER_OTLP_PROTOCOL;
    /// docs/otel.md); never on a call's path.
    /// Also turned on by `otlp = true` in toolreplay.toml.
    #[arg(long)]
    pub otlp: bool,
    /// Whether toolreplay.toml may turn `otlp` on (no `--no-config`): read only at
    /// the events that send spans.
    #[arg(skip)]
    pub config: bool,
}

/// What `toolreplay guard` does besides answering a hook event.
#[derive(Debug, Subcommand)]
pub(crate) enum GuardAction {
    /// Set up the guard in a project: write the policy and add the hooks to
    /// .claude/settings.json (or the hooks file of --agent).
    ///
    /// The policy goes to .claude/toolreplay-scope.json (an existing one is kept
    /// unless --force); the hooks that --print-settings prints are merged into
    /// .claude/settings.json, whose other settings and hooks are kept. With --agent,
    /// the agent's own files: .codex/hooks.json, .gemini/settings.json,
    /// .cursor/hooks.json or .github/hooks/toolreplay.json, beside a policy in its
    /// tool names.
    #[command(after_help = GUARD_INIT_EXAMPLES)]
    Init(GuardInitArgs),
    /// Check that the hooks are installed and the policy reads, and count the sealed
    /// sessions.
    #[command(after_help = GUARD_CHECK_EXAMPLES)]
    Check(GuardCheckArgs),
}

/// The arguments of `toolreplay guard init`.
#[derive(Debug, clap::Args)]
pub(crate) struct GuardInitArgs {
    /// The agent to set the guard up for: its hooks file, its events and a policy
    /// in its tool names.
    #[arg(long, value_name = "AGENT", default_value = "claude-code")]
    pub agent: Agent,
    /// The project to set up [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Replace an existing policy (.claude/toolreplay-scope.json for Claude Code)
    /// with the default one.
    #[arg(long)]
    pub force: bool,
    /// Print what would be written, and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// The arguments of `toolreplay guard check`.
#[derive(Debug, clap::Args)]
pub(crate) struct GuardCheckArgs {
    /// The agent whose hooks file and events are checked.
    #[arg(long, value_name = "AGENT", default_value = "claude-code")]
    pub agent: Agent,
    /// The project to check [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

/// The default limit on one message of `toolreplay proxy`, in bytes.
pub(crate) const DEFAULT_MAX_MESSAGE: usize = 16 * 1024 * 1024;

/// The proxy's call timeout when `--call-timeout` is not given (docs/proxy.md):
/// no call holds the calls after it back for longer.
const DEFAULT_CALL_TIMEOUT: &str = "2m";

/// `toolreplay proxy`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct ProxyArgs {
    /// The scope file every tools/call is decided by (docs/policy.md).
    #[arg(long, value_name = "SCOPE_FILE")]
    pub policy: PathBuf,
    /// The sealed session file every call is appended to as it ends (created when
    /// missing; an existing one must verify).
    #[arg(long, value_name = "FILE")]
    pub seal: PathBuf,
    /// Stop a call without a result after this long (e.g. 30s, 500ms, 2m): the
    /// server is sent notifications/cancelled, the client an error result.
    #[arg(long, value_name = "DUR", value_parser = parse_duration, default_value = DEFAULT_CALL_TIMEOUT)]
    pub call_timeout: Duration,
    /// Pin the tool definitions in this file: written on the first session, checked
    /// on later ones (a changed or new tool is taken out of tools/list and its calls
    /// are denied).
    #[arg(long, value_name = "PIN_FILE")]
    pub pin: Option<PathBuf>,
    /// Pin afresh: replace the pins in PIN_FILE with the definitions this session's
    /// server lists.
    #[arg(long, requires = "pin")]
    pub repin: bool,
    /// What a result a response detector matches in does: withhold it (the client
    /// gets an error result naming the detector) or flag it (it passes; stderr names
    /// the detector). The session file keeps the result either way.
    #[arg(long, value_name = "ACTION", default_value = "withhold")]
    pub on_sensitive: OnSensitive,
    /// Do not fsync the session file after each call (faster; a crash of the
    /// machine may lose the last calls).
    #[arg(long)]
    pub no_fsync: bool,
    /// The longest message passed on, in bytes; a longer one is not.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MESSAGE)]
    pub max_message_bytes: usize,
    /// Send each sealed call's execute_tool span (as `export --format otlp --mcp`
    /// gives them) in batches from a thread, to the OTLP endpoint of
    /// OTEL_EXPORTER_OTLP_ENDPOINT, over HTTP or gRPC (OTEL_EXPORTER_OTLP_PROTOCOL;
    /// docs/otel.md); never on a call's path.
    /// Also turned on by `otlp = true` in toolreplay.toml.
    #[arg(long)]
    pub otlp: bool,
    /// Serve the client over Streamable HTTP at http://ADDR/mcp instead of stdio:
    /// HOST:PORT, :PORT or PORT (HOST 127.0.0.1; an IP address or localhost); port
    /// 0 takes a free one. Only that address is listened on.
    #[arg(long, value_name = "ADDR", value_hint = clap::ValueHint::Other)]
    pub listen: Option<String>,
    /// Reach the server over Streamable HTTP at this http(s) URL instead of starting
    /// CMD. Redirects to another origin are never followed; the client's
    /// Authorization and other credential headers are passed on, never recorded.
    #[arg(long, value_name = "URL", value_hint = clap::ValueHint::Url, conflicts_with = "command")]
    pub upstream: Option<String>,
    /// The MCP server's command and its arguments (unless --upstream).
    #[arg(last = true, required_unless_present = "upstream", value_name = "CMD")]
    pub command: Vec<OsString>,
}

/// What the proxy does with a result a detector of the policy matches in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OnSensitive {
    /// The client gets an error result naming the detectors, never the result.
    Withhold,
    /// The result passes unchanged; stderr names the detectors.
    Flag,
}

/// Reads `30s`, `500ms`, `2m`, `1h`: a whole number and its unit.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let number: u64 = digits
        .parse()
        .map_err(|_| format!("{text:?} is not a duration: a whole number and ms, s, m or h"))?;
    let ms = match unit {
        "ms" => Some(number),
        "s" => number.checked_mul(1000),
        "m" => number.checked_mul(60_000),
        "h" => number.checked_mul(3_600_000),
        _ => None,
    };
    match ms {
        Some(0) => Err("the call timeout must be more than 0".to_owned()),
        Some(ms) => Ok(Duration::from_millis(ms)),
        None => Err(format!(
            "{text:?} is not a duration: a whole number and ms, s, m or h"
        )),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use clap::CommandFactory;

    use super::{Cli, parse_duration};

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn the_proxy_has_a_call_timeout_by_default() {
        use clap::Parser;
        let parsed = |extra: &[&str]| {
            let mut args = vec![
                "toolreplay",
                "proxy",
                "--policy",
                "p.json",
                "--seal",
                "s.jsonl",
            ];
            args.extend_from_slice(extra);
            args.extend_from_slice(&["--", "server"]);
            match Cli::try_parse_from(args).expect("valid").command {
                super::Command::Proxy(proxy) => proxy.call_timeout,
                _ => panic!("not proxy"),
            }
        };
        assert_eq!(parsed(&[]), Duration::from_secs(120));
        assert_eq!(parsed(&["--call-timeout", "5s"]), Duration::from_secs(5));
    }

    #[test]
    fn durations_are_a_number_and_a_unit() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        for bad in ["", "5", "s", "1.5s", "-1s", "5 s", "99999999999999999999h"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_duration("0s"),
            Err("the call timeout must be more than 0".to_owned())
        );
    }
}
