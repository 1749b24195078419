//! The commands, one module each: each opens its inputs, runs its audit or job and
//! returns its [`Outcome`] (what goes to stdout and the exit status), without writing
//! to stdout itself. [`run`] dispatches the parsed command line.

mod diff;
pub mod graph;
mod head;
mod import;
mod many;
mod replay;
pub mod scope;
mod seal;
mod shell;
mod sign;
mod stats;
mod verify;

use std::io;
use std::path::Path;

use clap::CommandFactory;
use toolreplay_core::Stop;

use toolreplay_core::Findings;

use crate::baseline::Baseline;
use crate::cli::{BaselineArgs, Cli, Command, ManyArgs, Source};
use crate::config::Config;
use crate::error::Error;
use crate::input::{self, ImportOptions, Transcript};
use crate::output::{Outcome, Output, Status, Stream};
use crate::render::Format;
use crate::render::color::Paint;

/// Runs `command`; text reports are coloured as `paint` says. The audits and
/// imports read toolreplay.toml for their defaults unless `no_config`.
pub fn run(command: Command, paint: Paint, no_config: bool) -> Result<Outcome, Error> {
    if matches!(
        command,
        Command::Seal { .. }
            | Command::Import { .. }
            | Command::Sign { .. }
            | Command::Report { .. }
    ) {
        crate::output::atomic::remove_temporary_files_on_signals();
    }
    let config = || {
        if no_config {
            Ok(Config::default())
        } else {
            Config::discover()
        }
    };
    match command {
        Command::Import {
            files,
            from,
            output,
            out_dir,
            glob,
            overwrite,
            strict,
        } => {
            let config = config()?;
            let options = ImportOptions {
                source: from.or(config.from).unwrap_or(Source::AUTO).into(),
                strict,
            };
            match (out_dir, files.as_slice()) {
                (Some(out_dir), _) => import::run_to_folder(
                    &import::ToFolder {
                        inputs: &files,
                        glob: glob.as_deref(),
                        out_dir: &out_dir,
                        overwrite,
                    },
                    options,
                ),
                (None, [file]) if input::is_stdin(file) || !file.is_dir() => {
                    import::run(file, options, output.as_deref())
                }
                (None, _) => Err(Error::Usage(import::NEEDS_OUT_DIR.to_owned())),
            }
        }
        Command::Replay {
            files,
            many,
            mutating_tool,
            volatile_tool,
            rules,
            baseline,
            summary,
            format,
            from,
        } => {
            let config = config()?;
            let format = format.or(config.format).unwrap_or_default();
            let judging = replay::Judging {
                mutating: [mutating_tool, config.mutating_tools.clone()].concat(),
                volatile: [volatile_tool, config.volatile_tools.clone()].concat(),
                rules: rules.or(config.rules),
            };
            let from = from.options_or(&config)?;
            audit_files("replay", &files, &many, format, summary, |path, told| {
                replay::audit_one(path, from, &judging, format, &baseline, paint, told)
            })
        }
        Command::Scope {
            mut files,
            scope,
            many,
            baseline,
            summary,
            format,
            from,
        } => {
            let config = config()?;
            let from = from.options_or(&config)?;
            let scope_path = match scope {
                Some(scope) => scope,
                None if files.len() >= 2 => files.pop().unwrap_or_default(),
                None => config.scope.clone().ok_or_else(|| {
                    Error::Usage(format!(
                        "no scope file: give SCOPE, or scope = \"FILE\" in {}",
                        crate::config::FILE_NAME
                    ))
                })?,
            };
            for file in &files {
                input::not_both_stdin((file, "FILE"), (&scope_path, "SCOPE"))?;
            }
            let scope = scope::read_scope(&scope_path)?;
            let format = format.or(config.format).unwrap_or_default();
            let audit = scope::Audit {
                scope: &scope,
                scope_path: &scope_path,
                from,
                format,
                baseline: &baseline,
                paint,
            };
            audit_files("scope", &files, &many, format, summary, |path, told| {
                scope::audit_one(path, &audit, told)
            })
        }
        Command::Seal {
            file,
            append: Some(sealed),
            from,
            ..
        } => seal::append(&sealed, &file, from.options_or(&config()?)?),
        Command::Seal {
            file, output, from, ..
        } => seal::seal(
            Transcript::open(&file, from.options_or(&config()?)?, &mut io::stderr())?,
            output.as_deref(),
        ),
        Command::Verify {
            files,
            many,
            head,
            signature,
            allowed_signers,
            identity,
            format,
            from,
        } => {
            if from.is_some() {
                return Err(Error::Usage(
                    "verify takes no --from: it reads sealed transcripts, which only seal \
                     writes; seal the log first (toolreplay seal --from FORMAT LOG -o \
                     sealed.jsonl), then verify sealed.jsonl"
                        .to_owned(),
                ));
            }
            let signature = match (&signature, &allowed_signers, &identity) {
                (Some(signature), Some(allowed_signers), Some(identity)) => {
                    Some(verify::SignatureCheck {
                        signature,
                        allowed_signers,
                        identity,
                    })
                }
                _ => None,
            };
            let format = match format {
                Some(format) => format,
                None => config()?.format.unwrap_or_default(),
            };
            let checks = verify::Checks {
                head: head.as_deref(),
                signature,
            };
            audit_files("verify", &files, &many, format, false, |path, _| {
                verify::audit_one(path, &checks, format, paint)
            })
        }
        Command::Stats {
            file,
            draft_scope,
            from,
        } => stats::run(
            Transcript::open(&file, from.options_or(&config()?)?, &mut io::stderr())?,
            draft_scope.as_deref(),
        ),
        Command::Sign { file, key } => sign::run(&file, &key),
        Command::Head { file } => head::run(&file),
        Command::Diff {
            a,
            b,
            all,
            format,
            from,
        } => diff::run(
            &a,
            &b,
            from.options_or(&config()?)?,
            diff::Options { format, all },
            paint,
        ),
        Command::Graph { inputs, format } => graph::graph(&inputs, format, &mut io::stderr()),
        Command::Report { inputs, output } => graph::report(&inputs, &output, &mut io::stderr()),
        // Answered by `main` itself, with the hook protocol's exit codes.
        Command::Guard(_) => Err(Error::Usage("guard answers in main".to_owned())),
        Command::Proxy(_) => Err(Error::Usage("proxy runs apart".to_owned())),
        Command::Completions { shell } => Ok(Outcome::text(
            shell::completions(shell, &mut Cli::command()),
            Status::Clean,
        )),
        Command::Man => Ok(Outcome::text(shell::man(Cli::command()), Status::Clean)),
        Command::Version => Ok(Outcome::text(
            format!("toolreplay {}\n", env!("CARGO_PKG_VERSION")),
            Status::Clean,
        )),
    }
}

/// Audits the inputs `files` (files, folders, `-`) with `audit`: one file is reported
/// as the one-file command always did (then, with `summary`, the summary of its
/// findings); several, or a folder, as [`many::report`] says.
fn audit_files<F>(
    command: &str,
    files: &[std::path::PathBuf],
    many: &ManyArgs,
    format: Format,
    summary: bool,
    audit: F,
) -> Result<Outcome, Error>
where
    F: Fn(&Path, &mut dyn io::Write) -> Result<many::Done, Error> + Sync,
{
    if summary && format != Format::Text {
        return Err(Error::Usage(
            "--summary is for the text report; JSON and SARIF hold each finding's line".to_owned(),
        ));
    }
    let (files, several) = many::expand(files, many.glob.as_deref())?;
    if !several {
        let Some(file) = files.first() else {
            return Err(Error::Usage("no input".to_owned()));
        };
        let done = audit(file, &mut io::stderr())?;
        let name = input::display(file);
        let write_summary = move |out: &mut dyn io::Write, findings: &Findings| {
            if !summary {
                return Ok(());
            }
            out.write_all(b"\n")?;
            crate::render::text::summary(&[(name.as_str(), findings)], None, out)
        };
        let output = match done.report {
            many::Report::Written { mut text, findings } => {
                write_summary(&mut text, &findings).map_err(Error::temporary)?;
                Output::Spooled(text)
            }
            many::Report::Later(write) => Output::Stream(Stream::new(move |out| {
                let findings = write(out)?;
                write_summary(out, &findings)
            })),
        };
        return Ok(Outcome {
            output,
            status: done.status,
        });
    }
    many::audit_all(command, &files, format, audit)
}

/// Applies `--baseline` or `--write-baseline` to `findings`: with --baseline, only
/// those not in it are kept; with --write-baseline, all are recorded there. Returns
/// whether a baseline was written (the command then exits 0).
fn baseline(args: &BaselineArgs, findings: &mut Findings) -> Result<bool, Error> {
    if let Some(path) = &args.baseline {
        *findings = Baseline::read(path)?
            .filter(findings)
            .map_err(Error::temporary)?;
    }
    if let Some(path) = &args.write_baseline {
        let mut baseline = Baseline::default();
        baseline.record(findings).map_err(Error::temporary)?;
        baseline.write(path)?;
        return Ok(true);
    }
    Ok(false)
}

/// The error that stopped a pipeline reading the input at `path`.
fn stopped(path: &Path, stop: Stop<Error>) -> Error {
    match stop {
        Stop::Read(err) => Error::reading(path, err),
        Stop::Consume(err) => err,
    }
}

/// Reads a small file whole, up to `max` bytes, as text.
fn read_text(path: &Path, max: u64, what: &str) -> Result<String, Error> {
    String::from_utf8(crate::input::read_whole(path, max, what)?).map_err(|_| Error::Invalid {
        path: crate::input::display(path),
        message: "not valid UTF-8".to_owned(),
    })
}
