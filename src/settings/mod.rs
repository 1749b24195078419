//! The settings a command runs with, resolved once from its arguments, the
//! environment (`TOOLREPLAY_THREADS`, `NO_COLOR`, `TERM`) and `toolreplay.toml`
//! ([`config`]): each command's own [`Command`], with every default applied and
//! every combination of options that cannot work refused here, before anything is
//! read. A setting that the configuration can give says where it came from
//! ([`Setting`]).
//!
//! The configuration is read only by the commands that take a default from it, and
//! only when the command line leaves one to it.

mod config;

use std::ffi::OsStr;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};

use clap_complete::Shell;
use toolreplay_core::{MAX_THREADS, Threads};

use crate::args::{self, Cli, Format, FromArgs, GraphFormat, GuardArgs, ProxyArgs, Rules, Source};
use crate::error::Error;
use crate::input::ImportOptions;
use crate::input::walk::Glob;
use crate::render::InForce;
use crate::render::color::{self, Paint};

pub(crate) use config::FILE_NAME as CONFIG_FILE;

/// Everything a run of the binary needs: how reports look, how many threads parse,
/// and the command with its own settings.
#[derive(Debug)]
pub(crate) struct Settings {
    /// The colours of text reports.
    pub(crate) paint: Paint,
    /// The threads that parse a transcript (`TOOLREPLAY_THREADS`; by default one per
    /// core, up to four).
    pub(crate) threads: Threads,
    /// The command.
    pub(crate) command: Command,
}

/// Where a setting came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The command line.
    CommandLine,
    /// The configuration file, as messages name it.
    Config(PathBuf),
    /// The built-in default.
    Default,
}

/// A setting and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Setting<T> {
    /// The value.
    pub(crate) value: T,
    /// Where it came from.
    pub(crate) origin: Origin,
}

/// The inputs of an audit of several files: files, folders and `-`.
#[derive(Debug, Clone)]
pub(crate) struct Inputs {
    /// As named on the command line.
    pub(crate) files: Vec<PathBuf>,
    /// `--glob`: in folders, only the files whose name matches.
    pub(crate) glob: Option<Glob>,
}

/// `--baseline` and `--write-baseline`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Baseline {
    /// Report only the findings not in this baseline.
    pub(crate) read: Option<PathBuf>,
    /// Record the findings in this baseline.
    pub(crate) write: Option<PathBuf>,
}

/// How an audit of findings reports them.
#[derive(Debug, Clone)]
pub(crate) struct Reporting {
    /// The configuration that set some of the audit's inputs, if one did.
    pub(crate) configuration: Option<InForce>,
    /// The report's format.
    pub(crate) format: Setting<Format>,
    /// After the text report, a summary.
    pub(crate) summary: bool,
    /// The baseline to apply.
    pub(crate) baseline: Baseline,
}

/// The tools and rules a replay judges calls by.
#[derive(Debug, Clone, Default)]
pub(crate) struct Judging {
    /// `--mutating-tool`, then the configuration's.
    pub(crate) mutating: Vec<String>,
    /// `--volatile-tool`, then the configuration's.
    pub(crate) volatile: Vec<String>,
    /// `--rules`; by default, agent for an imported log and spec otherwise.
    pub(crate) rules: Option<Setting<Rules>>,
}

impl Judging {
    /// The core's replay options: the rules given, else agent for a transcript
    /// `imported` from an agent's log and spec otherwise; the tools added.
    pub(crate) fn options(&self, imported: bool) -> toolreplay_core::ReplayOptions {
        let rules = match &self.rules {
            Some(rules) => rules.value,
            None if imported => Rules::Agent,
            None => Rules::Spec,
        };
        let mut options = match rules {
            Rules::Spec => toolreplay_core::ReplayOptions::default(),
            Rules::Agent => toolreplay_core::ReplayOptions::agent(),
        };
        options.mutating.extend(self.mutating.iter().cloned());
        options.volatile.extend(self.volatile.iter().cloned());
        options
    }
}

/// `--signature`, `--allowed-signers` and `--identity` of `verify`.
#[derive(Debug, Clone)]
pub(crate) struct SignatureCheck {
    /// The armored SSHSIG signature.
    pub(crate) signature: PathBuf,
    /// The allowed signers file.
    pub(crate) allowed_signers: PathBuf,
    /// The principal the signer must be.
    pub(crate) identity: String,
}

/// What `attest` is given besides the sealed file.
#[derive(Debug, Clone)]
pub(crate) struct AttestOptions {
    /// The private key.
    pub(crate) key: PathBuf,
    /// Where the envelope goes: a file, or stdout for `-`; by default
    /// `SEALED.intoto.jsonl`.
    pub(crate) output: Option<PathBuf>,
    /// A scope file to audit the session against.
    pub(crate) scope: Option<PathBuf>,
    /// The rules replay judges the calls by.
    pub(crate) rules: Rules,
}

/// `--attestation`, `--allowed-signers` and `--identity` of `verify`.
#[derive(Debug, Clone)]
pub(crate) struct AttestationCheck {
    /// The DSSE envelope.
    pub(crate) attestation: PathBuf,
    /// The allowed signers file.
    pub(crate) allowed_signers: PathBuf,
    /// The principal the signer must be, if named.
    pub(crate) identity: Option<String>,
}

/// What `graph` and `report` read.
#[derive(Debug, Clone)]
pub(crate) struct GraphInputs {
    /// The transcript (or sealed transcript, or log with `from`).
    pub(crate) file: PathBuf,
    /// Import the file from this format first.
    pub(crate) from: Option<ImportOptions>,
    /// A scope file, for the scope findings and `flows` edges.
    pub(crate) scope: Option<PathBuf>,
    /// A roles file.
    pub(crate) roles: Option<PathBuf>,
    /// How replay's findings judge calls, as `replay` does.
    pub(crate) judging: Judging,
}

/// A command with its settings resolved.
#[derive(Debug)]
pub(crate) enum Command {
    /// `replay`.
    Replay {
        /// The transcripts.
        inputs: Inputs,
        /// How they are imported, if they are.
        from: Option<ImportOptions>,
        /// What the calls are judged by.
        judging: Judging,
        /// How findings are reported.
        reporting: Reporting,
    },
    /// `scope`.
    Scope {
        /// The transcripts.
        inputs: Inputs,
        /// The scope file.
        scope: Setting<PathBuf>,
        /// How they are imported, if they are.
        from: Option<ImportOptions>,
        /// How findings are reported.
        reporting: Reporting,
    },
    /// `seal FILE [-o OUT]`.
    Seal {
        /// The transcript.
        file: PathBuf,
        /// How it is imported, if it is.
        from: Option<ImportOptions>,
        /// Where the sealed transcript goes: a file, or stdout.
        output: Option<PathBuf>,
    },
    /// `seal --append SEALED FILE`.
    Append {
        /// The new records.
        file: PathBuf,
        /// How they are imported, if they are.
        from: Option<ImportOptions>,
        /// The sealed transcript appended to.
        sealed: PathBuf,
    },
    /// `verify`.
    Verify {
        /// The sealed transcripts.
        inputs: Inputs,
        /// `--head`: a pinned head, as a digest or a file.
        head: Option<String>,
        /// The signature to check.
        signature: Option<SignatureCheck>,
        /// The attestation to check.
        attestation: Option<AttestationCheck>,
        /// The report's format.
        format: Setting<Format>,
    },
    /// `sign`.
    Sign {
        /// The sealed transcript.
        file: PathBuf,
        /// The private key.
        key: PathBuf,
    },
    /// `attest`.
    Attest {
        /// The sealed transcript.
        file: PathBuf,
        /// The key, the output, the scope and the rules.
        options: AttestOptions,
    },
    /// `head`.
    Head {
        /// The sealed transcript.
        file: PathBuf,
    },
    /// `diff`.
    Diff {
        /// The first run.
        a: PathBuf,
        /// The second run.
        b: PathBuf,
        /// How they are imported, if they are.
        from: Option<ImportOptions>,
        /// Every difference, not only the first.
        all: bool,
        /// The report's format.
        format: Format,
    },
    /// `reconcile SESSION LOG`.
    Reconcile {
        /// The sealed session.
        session: PathBuf,
        /// The agent's log.
        log: PathBuf,
        /// How the log is imported.
        import: ImportOptions,
        /// `--agent`: the projection, when named.
        agent: Option<toolreplay_core::ReconcileAgent>,
        /// The report's format.
        format: Format,
    },
    /// `import INPUT [-o OUT]`.
    Import {
        /// The log.
        file: PathBuf,
        /// How it is imported.
        import: ImportOptions,
        /// Where the transcript goes: a file, or stdout.
        output: Option<PathBuf>,
    },
    /// `import INPUT... --out-dir DIR`.
    ImportAll {
        /// The logs and folders.
        inputs: Inputs,
        /// How they are imported.
        import: ImportOptions,
        /// The folder of the transcripts.
        out_dir: PathBuf,
        /// Replace the transcripts already there.
        overwrite: bool,
    },
    /// `stats`.
    Stats {
        /// The transcript.
        file: PathBuf,
        /// How it is imported, if it is.
        from: Option<ImportOptions>,
        /// Print a draft scope file for this agent instead.
        draft_scope: Option<String>,
    },
    /// `graph`.
    Graph {
        /// What it reads.
        inputs: GraphInputs,
        /// Its format.
        format: GraphFormat,
    },
    /// `claims`.
    Claims {
        /// The sealed session.
        file: PathBuf,
        /// How it is imported, if it is.
        from: Option<ImportOptions>,
        /// A roles file.
        roles: Option<PathBuf>,
        /// Its format.
        format: args::ClaimsFormat,
        /// Whether an unsupported claim makes exit 1.
        fail_on_unsupported: bool,
    },
    /// `report`.
    Report {
        /// What it reads.
        inputs: GraphInputs,
        /// The HTML file to write, or stdout.
        output: Option<PathBuf>,
    },
    /// `export`.
    Export {
        /// What it reads.
        file: PathBuf,
        /// Import the file from this format first.
        from: Option<ImportOptions>,
        /// A scope file, for the scope findings.
        scope: Option<PathBuf>,
        /// How replay's findings (span events) judge calls, as `replay`'s.
        judging: Judging,
        /// What the spans hold.
        options: toolreplay_core::OtlpOptions,
        /// The file to write, or stdout.
        output: Option<PathBuf>,
    },
    /// `guard`: a hook command, with its own protocol.
    Guard(GuardArgs),
    /// `proxy`: an MCP proxy, with its own protocol.
    Proxy(ProxyArgs),
    /// `completions`.
    Completions(Shell),
    /// `man`.
    Man,
    /// `version`.
    Version,
}

impl Settings {
    /// The settings of the command line `cli`, in this environment.
    pub(crate) fn from_arguments(cli: Cli) -> Result<Settings, Error> {
        Settings::from_arguments_with(cli, None)
    }

    /// [`Settings::from_arguments`], with the configuration in the file `config`
    /// (unless `--no-config`) in place of the one found from the current folder.
    pub(crate) fn from_arguments_with(cli: Cli, config: Option<&Path>) -> Result<Settings, Error> {
        let paint = Paint::new(color::enabled(
            cli.color,
            std::io::stdout().is_terminal(),
            std::env::var_os("NO_COLOR").as_deref(),
            std::env::var_os("TERM").as_deref(),
        ));
        // The guard and the proxy answer their own protocols, whatever the
        // environment says of threads.
        let live = matches!(
            cli.command,
            args::Command::Guard(_) | args::Command::Proxy(_)
        );
        let threads = match live {
            true => None,
            false => threads(std::env::var_os("TOOLREPLAY_THREADS").as_deref())?,
        }
        .map_or_else(Threads::default, Threads::new);
        let mut config = Lazy::new(cli.no_config, config);
        let command = resolve(cli.command, &mut config)?;
        Ok(Settings {
            paint,
            threads,
            command,
        })
    }
}

/// The configuration, read the first time a command asks for it.
struct Lazy<'a> {
    ignored: bool,
    file: Option<&'a Path>,
    config: Option<config::Config>,
}

impl<'a> Lazy<'a> {
    fn new(ignored: bool, file: Option<&'a Path>) -> Lazy<'a> {
        Lazy {
            ignored,
            file,
            config: None,
        }
    }

    fn get(&mut self) -> Result<&config::Config, Error> {
        if self.config.is_none() {
            let config = match (self.ignored, self.file) {
                (true, _) => config::Config::default(),
                (false, Some(file)) => config::Config::load(file)?,
                (false, None) => config::Config::discover()?,
            };
            self.config = Some(config);
        }
        Ok(self.config.get_or_insert_with(config::Config::default))
    }
}

impl config::Config {
    /// The origin of a setting this configuration gives.
    fn origin(&self) -> Origin {
        match &self.file {
            Some(file) => Origin::Config(file.clone()),
            None => Origin::Default,
        }
    }

    /// The keys of `keys` that this configuration set (those whose flag is true), if
    /// any: what it changed in an audit.
    fn in_force<const N: usize>(&self, keys: [(&'static str, bool); N]) -> Option<InForce> {
        let file = self.file.as_deref()?;
        let sets: Vec<&'static str> = keys
            .into_iter()
            .filter_map(|(key, set)| set.then_some(key))
            .collect();
        (!sets.is_empty()).then(|| InForce {
            file: crate::naming::display(file),
            sets,
        })
    }

    /// `value` from the command line, else this configuration's, else the default.
    fn choose<T: Clone + Default>(&self, given: Option<T>, configured: &Option<T>) -> Setting<T> {
        match (given, configured) {
            (Some(value), _) => Setting {
                value,
                origin: Origin::CommandLine,
            },
            (None, Some(value)) => Setting {
                value: value.clone(),
                origin: self.origin(),
            },
            (None, None) => Setting {
                value: T::default(),
                origin: Origin::Default,
            },
        }
    }
}

fn resolve(command: args::Command, config: &mut Lazy) -> Result<Command, Error> {
    use args::Command as A;
    Ok(match command {
        A::Import(a) => import(a, config.get()?)?,
        A::Replay(a) => replay(a, config.get()?)?,
        A::Scope(a) => scope(a, config.get()?)?,
        A::Seal(a) => {
            let from = from_or(a.from, config.get()?)?;
            match a.append {
                Some(sealed) => Command::Append {
                    file: a.file,
                    from,
                    sealed,
                },
                None => Command::Seal {
                    file: a.file,
                    from,
                    output: output(a.output),
                },
            }
        }
        A::Verify(a) => verify(a, config)?,
        A::Stats(a) => Command::Stats {
            file: a.file,
            from: from_or(a.from, config.get()?)?,
            draft_scope: a.draft_scope,
        },
        A::Sign(a) => Command::Sign {
            file: a.file,
            key: a.key,
        },
        A::Attest(a) => Command::Attest {
            file: a.file,
            options: AttestOptions {
                key: a.key,
                output: a.output,
                scope: a.scope,
                rules: a.rules,
            },
        },
        A::Head(a) => Command::Head { file: a.file },
        A::Diff(a) => Command::Diff {
            a: a.a,
            b: a.b,
            from: from_or(a.from, config.get()?)?,
            all: a.all,
            format: a.format,
        },
        A::Reconcile(a) => Command::Reconcile {
            session: a.session,
            log: a.log,
            import: ImportOptions {
                source: a.from.unwrap_or(Source::AUTO).into(),
                strict: false,
            },
            agent: a.agent.map(|agent| agent.0),
            format: a.format,
        },
        A::Graph(a) => Command::Graph {
            inputs: graph_inputs(a.inputs, config.get()?)?,
            format: a.format,
        },
        A::Claims(a) => Command::Claims {
            file: a.file,
            from: from_or(a.from, config.get()?)?,
            roles: a.roles,
            format: a.format,
            fail_on_unsupported: a.fail_on == Some(args::FailOn::Unsupported),
        },
        A::Report(a) => Command::Report {
            inputs: graph_inputs(a.inputs, config.get()?)?,
            output: output(Some(a.output)),
        },
        A::Export(a) => {
            let args::ExportFormat::Otlp = a.format;
            let config = config.get()?;
            Command::Export {
                file: a.file,
                from: from_or(a.from, config)?,
                scope: a.scope,
                judging: judging(a.judging, config).0,
                options: toolreplay_core::OtlpOptions {
                    with_content: a.with_content,
                    mcp: a.mcp,
                },
                output: output(a.output),
            }
        }
        A::Guard(mut a) => {
            // Read by the guard itself, and only where it may send spans: each
            // event is a process, and most events send nothing.
            a.config = !config.ignored;
            Command::Guard(a)
        }
        A::Proxy(mut a) => {
            a.otlp = a.otlp || (!config.ignored && live_otlp("proxy"));
            Command::Proxy(a)
        }
        A::Completions(a) => Command::Completions(a.shell),
        A::Man => Command::Man,
        A::Version => Command::Version,
    })
}

/// Whether `toolreplay.toml` turns on the live export of `command` (`otlp = true`),
/// as `--otlp` does. A configuration that cannot be read turns nothing on, said in
/// one line on stderr: a hook or a proxy does not stop over its telemetry.
pub(crate) fn live_otlp(command: &str) -> bool {
    match config::Config::discover() {
        Ok(config) => config.otlp,
        Err(err) => {
            // If stderr is gone there is nobody left to tell.
            let _ = std::io::Write::write_all(
                &mut std::io::stderr().lock(),
                format!("toolreplay {command}: {err}; its otlp key is not read\n").as_bytes(),
            );
            false
        }
    }
}

/// How calls are judged: the command line's `--rules`, `--mutating-tool` and
/// `--volatile-tool`, then the configuration's; and whether the configuration's
/// rules are in force.
fn judging(a: args::JudgingArgs, config: &config::Config) -> (Judging, bool) {
    let rules = match (a.rules, config.rules) {
        (Some(rules), _) => Some(command_line(rules)),
        (None, Some(rules)) => Some(Setting {
            value: rules,
            origin: config.origin(),
        }),
        (None, None) => None,
    };
    let configured = a.rules.is_none() && config.rules.is_some();
    let judging = Judging {
        mutating: [a.mutating_tool, config.mutating_tools.clone()].concat(),
        volatile: [a.volatile_tool, config.volatile_tools.clone()].concat(),
        rules,
    };
    (judging, configured)
}

fn replay(a: args::ReplayArgs, config: &config::Config) -> Result<Command, Error> {
    let format = config.choose(a.format, &config.format);
    let (judging, configured_rules) = judging(a.judging, config);
    let in_force = config.in_force([
        ("from", a.from.from.is_none() && config.from.is_some()),
        ("rules", configured_rules),
        ("mutating_tools", !config.mutating_tools.is_empty()),
        ("volatile_tools", !config.volatile_tools.is_empty()),
    ]);
    let from = from_or(a.from, config)?;
    Ok(Command::Replay {
        inputs: inputs(a.files, a.many)?,
        from,
        judging,
        reporting: reporting(format, a.summary, a.baseline, in_force)?,
    })
}

fn scope(mut a: args::ScopeArgs, config: &config::Config) -> Result<Command, Error> {
    let from = from_or(a.from, config)?;
    let scope = match a.scope {
        Some(scope) => command_line(scope),
        None if a.files.len() >= 2 => command_line(a.files.pop().unwrap_or_default()),
        None => match &config.scope {
            Some(scope) => Setting {
                value: scope.clone(),
                origin: config.origin(),
            },
            None => {
                return Err(Error::Usage(format!(
                    "no scope file: give SCOPE, or scope = \"FILE\" in {CONFIG_FILE}"
                )));
            }
        },
    };
    for file in &a.files {
        crate::input::not_both_stdin((file, "FILE"), (&scope.value, "SCOPE"))?;
    }
    let format = config.choose(a.format, &config.format);
    let in_force = config.in_force([
        ("from", a.from.from.is_none() && config.from.is_some()),
        ("scope", scope.origin != Origin::CommandLine),
    ]);
    Ok(Command::Scope {
        inputs: inputs(a.files, a.many)?,
        scope,
        from,
        reporting: reporting(format, a.summary, a.baseline, in_force)?,
    })
}

fn verify(a: args::VerifyArgs, config: &mut Lazy) -> Result<Command, Error> {
    if a.from.is_some() {
        return Err(Error::Usage(
            "verify takes no --from: it reads sealed transcripts, which only seal \
             writes; seal the log first (toolreplay seal --from FORMAT LOG -o \
             sealed.jsonl), then verify sealed.jsonl"
                .to_owned(),
        ));
    }
    if a.signature.is_none() && a.attestation.is_none() {
        for (given, flag) in [
            (a.allowed_signers.is_some(), "--allowed-signers"),
            (a.identity.is_some(), "--identity"),
        ] {
            if given {
                return Err(Error::Usage(format!(
                    "{flag} goes with --signature or --attestation"
                )));
            }
        }
    }
    let attestation = match (&a.attestation, &a.allowed_signers) {
        (Some(attestation), Some(allowed_signers)) => {
            if a.files.len() != 1 || a.files.iter().any(|f| crate::input::is_stdin(f)) {
                return Err(Error::Usage(
                    "--attestation checks one sealed file, named, not - nor several".to_owned(),
                ));
            }
            Some(AttestationCheck {
                attestation: attestation.clone(),
                allowed_signers: allowed_signers.clone(),
                identity: a.identity.clone(),
            })
        }
        _ => None,
    };
    let signature = match (a.signature, a.allowed_signers, a.identity) {
        (Some(signature), Some(allowed_signers), Some(identity)) => Some(SignatureCheck {
            signature,
            allowed_signers,
            identity,
        }),
        _ => None,
    };
    let format = match a.format {
        Some(format) => command_line(format),
        None => {
            let config = config.get()?;
            config.choose(None, &config.format)
        }
    };
    Ok(Command::Verify {
        inputs: inputs(a.files, a.many)?,
        head: a.head,
        signature,
        attestation,
        format,
    })
}

fn command_line<T>(value: T) -> Setting<T> {
    Setting {
        value,
        origin: Origin::CommandLine,
    }
}

fn inputs(files: Vec<PathBuf>, many: args::ManyArgs) -> Result<Inputs, Error> {
    Ok(Inputs {
        files,
        glob: many.glob.as_deref().map(Glob::new).transpose()?,
    })
}

/// `-o OUT`: a file, or stdout for none and for `-`, as every input takes `-` for
/// standard input.
fn output(path: Option<PathBuf>) -> Option<PathBuf> {
    path.filter(|path| !crate::input::is_stdin(path))
}

fn reporting(
    format: Setting<Format>,
    summary: bool,
    baseline: args::BaselineArgs,
    configuration: Option<InForce>,
) -> Result<Reporting, Error> {
    if baseline
        .write_baseline
        .as_deref()
        .is_some_and(crate::input::is_stdin)
    {
        return Err(Error::Usage(
            "--write-baseline writes a file beside the report; - is not one".to_owned(),
        ));
    }
    if summary && format.value != Format::Text {
        return Err(Error::Usage(
            "--summary is for the text report; JSON and SARIF hold each finding's line".to_owned(),
        ));
    }
    Ok(Reporting {
        configuration,
        format,
        summary,
        baseline: Baseline {
            read: baseline.baseline,
            write: baseline.write_baseline,
        },
    })
}

fn import(a: args::ImportArgs, config: &config::Config) -> Result<Command, Error> {
    let import = ImportOptions {
        source: a.from.or(config.from).unwrap_or(Source::AUTO).into(),
        strict: a.strict,
    };
    let stdin_or_file = |file: &PathBuf| crate::input::is_stdin(file) || !file.is_dir();
    match (a.out_dir, a.files.as_slice()) {
        (Some(out_dir), _) if crate::input::is_stdin(&out_dir) => Err(Error::Usage(
            "--out-dir names the folder the transcripts go to; - is not one".to_owned(),
        )),
        (Some(out_dir), _) => Ok(Command::ImportAll {
            inputs: Inputs {
                files: a.files,
                glob: a.glob.as_deref().map(Glob::new).transpose()?,
            },
            import,
            out_dir,
            overwrite: a.overwrite,
        }),
        (None, [file]) if stdin_or_file(file) => Ok(Command::Import {
            file: file.clone(),
            import,
            output: output(a.output),
        }),
        (None, _) => Err(Error::Usage(
            "several inputs (or a folder) need --out-dir DIR, where each is imported to its \
             own transcript; standard output and -o OUT hold one"
                .to_owned(),
        )),
    }
}

fn graph_inputs(a: args::GraphInputs, config: &config::Config) -> Result<GraphInputs, Error> {
    let (judging, _) = judging(a.judging, config);
    Ok(GraphInputs {
        file: a.file,
        from: from_or(a.from, config)?,
        scope: a.scope,
        roles: a.roles,
        judging,
    })
}

/// The import options, when --from was given or the configuration names a format;
/// --strict with neither is a usage error.
fn from_or(from: FromArgs, config: &config::Config) -> Result<Option<ImportOptions>, Error> {
    from_resolved(
        from,
        config.from,
        &format!("give --from FORMAT, or from = \"FORMAT\" in {CONFIG_FILE}"),
    )
}

fn from_resolved(
    from: FromArgs,
    configured: Option<Source>,
    how: &str,
) -> Result<Option<ImportOptions>, Error> {
    match from.from.or(configured) {
        Some(source) => Ok(Some(ImportOptions {
            source: source.into(),
            strict: from.strict,
        })),
        None if from.strict => Err(Error::Usage(format!(
            "--strict needs an import to apply to: {how}"
        ))),
        None => Ok(None),
    }
}

/// The number of threads that `TOOLREPLAY_THREADS` asks for, from 1 to
/// [`MAX_THREADS`]; `None` when it is unset or empty, for the default.
fn threads(value: Option<&OsStr>) -> Result<Option<usize>, Error> {
    let Some(value) = value.filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    match value.to_str().and_then(|v| v.parse::<usize>().ok()) {
        Some(n) if (1..=MAX_THREADS).contains(&n) => Ok(Some(n)),
        _ => Err(Error::Usage(format!(
            "TOOLREPLAY_THREADS must be a number of threads from 1 to {MAX_THREADS}, not {:?}",
            value.to_string_lossy()
        ))),
    }
}
