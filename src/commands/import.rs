//! `toolreplay import [--from FORMAT] INPUT [--output OUT] [--strict]`: the
//! transcript to stdout once the whole input is imported, or to `OUT` atomically.
//!
//! `toolreplay import [--from FORMAT] INPUT... --out-dir DIR [--glob PATTERN]
//! [--overwrite] [--strict]`: each input (folders walked) imported to its own
//! transcript in DIR, named after it as `cp -r` would place it with its extension
//! made `.jsonl`; a line per file on stdout, then a summary. Everything that can be
//! known before importing (names, collisions, files already there) is checked first,
//! and nothing is written when it fails.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io::{self, Write as _};
use std::path::{Component, Path, PathBuf};

use toolreplay_core::input::InputError;
use toolreplay_core::{ImportFormat as Format, ImportSource as Source};

use crate::error::Error;
use crate::input::walk::{Glob, files_in};
use crate::input::{
    ImportOptions, Tally, display, import_counted, import_transcript, is_stdin, session_of,
    session_of_result,
};
use crate::output::atomic::AtomicFile;
use crate::output::spool::Spool;
use crate::printer::{Printer, Status};
use crate::settings::Inputs;

/// `toolreplay import`.
pub(super) fn run(
    path: &Path,
    options: ImportOptions,
    output: Option<&Path>,
    printer: &mut Printer,
) -> Result<Status, Error> {
    let transcript = import_transcript(path, options, &mut io::stderr())?.transcript;
    match output {
        None => {
            let mut spool = Spool::new();
            spool.write(&transcript).map_err(Error::temporary)?;
            printer.copy(spool)?;
        }
        Some(target) => write(target, &transcript)?,
    }
    Ok(Status::Clean)
}

/// Writes `bytes` to `target` atomically.
fn write(target: &Path, bytes: &[u8]) -> Result<(), Error> {
    let write_error = |source| Error::writing(target, source);
    let file = AtomicFile::new(target).map_err(write_error)?;
    write_to(file, target, bytes)
}

/// Writes `bytes` to `target` in the output folder, atomically, replacing whatever
/// is at that path (a symbolic link is not followed out of the folder).
fn write_in_place(target: &Path, bytes: &[u8]) -> Result<(), Error> {
    let file = AtomicFile::in_place(target).map_err(|source| Error::writing(target, source))?;
    write_to(file, target, bytes)
}

fn write_to(mut file: AtomicFile, target: &Path, bytes: &[u8]) -> Result<(), Error> {
    let write_error = |source| Error::writing(target, source);
    file.file().write_all(bytes).map_err(write_error)?;
    file.commit().map_err(write_error)
}

/// What `import --out-dir` is given besides the import options.
#[derive(Debug, Clone, Copy)]
struct ToFolder<'a> {
    /// The inputs: files and folders.
    inputs: &'a [PathBuf],
    /// `--glob`: in folders, only the files whose name matches.
    glob: Option<&'a Glob>,
    /// `--out-dir`.
    out_dir: &'a Path,
    /// `--overwrite`: replace the transcripts already in the output folder.
    overwrite: bool,
}

/// One input and the transcript it is imported to.
#[derive(Debug)]
struct Job {
    input: PathBuf,
    output: PathBuf,
    /// Found in a folder (not named on the command line).
    walked: bool,
    /// The subagent logs found in a folder beside this session, read with it.
    subagent_logs: Vec<PathBuf>,
}

/// What importing one input gave.
struct Imported {
    diagnostics: Vec<u8>,
    tally: Tally,
    result: Result<usize, Error>,
}

/// `toolreplay import INPUT... --out-dir DIR`.
pub(super) fn run_to_folder(
    inputs: &Inputs,
    options: ImportOptions,
    out_dir: &Path,
    overwrite: bool,
    printer: &mut Printer,
) -> Result<Status, Error> {
    let to = ToFolder {
        inputs: &inputs.files,
        glob: inputs.glob.as_ref(),
        out_dir,
        overwrite,
    };
    let jobs = plan(&to, options.source)?;
    let mut report = Report::default();
    crate::pool::run_in_order(
        &jobs,
        |job| import_one(job, options),
        |at, imported| report.add(&jobs[at], imported),
    );
    printer.print(&report.finish(jobs.len()))?;
    Ok(if report.errors > 0 {
        Status::Failed
    } else {
        Status::Clean
    })
}

/// Imports `job`'s input to its transcript, the notes and warnings kept to be told
/// in the inputs' order.
fn import_one(job: &Job, options: ImportOptions) -> Imported {
    let mut diagnostics = Vec::new();
    let mut tally = Tally::default();
    let result =
        import_counted(&job.input, options, &mut diagnostics, &mut tally).and_then(|imported| {
            if let Some(folder) = job.output.parent()
                && !folder.as_os_str().is_empty()
            {
                std::fs::create_dir_all(folder).map_err(|source| Error::writing(folder, source))?;
            }
            write_in_place(&job.output, &imported.transcript)?;
            Ok(imported.lines.len())
        });
    Imported {
        diagnostics,
        tally,
        result,
    }
}

/// The report of `import --out-dir`, a line per input as it is told, then the
/// summary; errors go to stderr as they come.
#[derive(Debug, Default)]
struct Report {
    out: String,
    records: usize,
    warnings: usize,
    errors: usize,
    subagents: usize,
}

impl Report {
    /// Tells what importing `job` gave.
    fn add(&mut self, job: &Job, imported: Imported) {
        // If stderr is gone there is nobody left to tell; the counts still hold.
        let _ = io::stderr().lock().write_all(&imported.diagnostics);
        self.warnings += imported.tally.warnings;
        let n = match imported.result {
            Ok(n) => n,
            Err(err) => {
                self.errors += 1;
                err.tell(&mut io::stderr().lock());
                return;
            }
        };
        self.records += n;
        let format = imported.tally.format.map_or("?", Format::name);
        let _ = write!(
            self.out,
            "{} -> {}: {format}, {}, {}",
            display(&job.input),
            display(&job.output),
            counted(n, "record"),
            counted(imported.tally.warnings, "warning"),
        );
        if imported.tally.subagents > 0 {
            self.subagents += imported.tally.subagents;
            let _ = write!(
                self.out,
                ", {}",
                counted(imported.tally.subagents, "subagent log")
            );
        }
        self.out.push('\n');
        if imported.tally.format != Some(Format::ClaudeCode) {
            for log in &job.subagent_logs {
                self.errors += 1;
                Error::Input(InputError::Invalid {
                    path: display(log),
                    message: format!(
                        "not imported: a subagent log is read with its session {}, which was \
                         read as {format}; import it on its own with --from claude-code",
                        display(&job.input)
                    ),
                })
                .tell(&mut io::stderr().lock());
            }
        }
    }

    /// The lines told, then the summary of `files` inputs.
    fn finish(&mut self, files: usize) -> String {
        let mut out = std::mem::take(&mut self.out);
        out.push_str("summary:\n");
        let _ = writeln!(out, "files: {files}");
        if self.subagents > 0 {
            let _ = writeln!(out, "subagent logs: {}", self.subagents);
        }
        let _ = writeln!(out, "records: {}", self.records);
        let _ = writeln!(out, "warnings: {}", self.warnings);
        let _ = writeln!(out, "errors: {}", self.errors);
        out
    }
}

/// `1 record`, `2 records`.
fn counted(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// The jobs of `to`, in order, once every check that needs no import holds: no
/// standard input, folders not empty, no two inputs to one transcript, no transcript
/// over an input, none already there without `--overwrite`.
fn plan(to: &ToFolder, source: Source) -> Result<Vec<Job>, Error> {
    if to.out_dir.exists() && !to.out_dir.is_dir() {
        return Err(Error::Input(InputError::Invalid {
            path: display(to.out_dir),
            message: "not a folder: --out-dir names the folder the transcripts go to".to_owned(),
        }));
    }
    let out_dir = to.out_dir.canonicalize().ok();
    let mut jobs = Vec::new();
    for input in to.inputs {
        if is_stdin(input) {
            return Err(Error::Usage(
                "standard input (-) has no name to give its transcript in --out-dir: import it \
                 alone, to standard output or -o OUT"
                    .to_owned(),
            ));
        }
        if input.is_dir() {
            let base = match input.file_name() {
                Some(name) => to.out_dir.join(name),
                None => to.out_dir.to_owned(),
            };
            let mut files = files_in(input, to.glob)?;
            // The transcripts of an earlier run are not inputs of this one: the output
            // folder is left out of the walk, or only this input's part of it when the
            // input is the output folder or inside it.
            let inside = input
                .canonicalize()
                .ok()
                .zip(out_dir.as_ref())
                .is_some_and(|(input, out_dir)| input.starts_with(out_dir));
            let skip = if inside {
                base.canonicalize().ok()
            } else {
                out_dir.clone()
            }
            // Where the transcripts go over their inputs, which is refused below.
            .filter(|skip| input.canonicalize().ok().as_ref() != Some(skip));
            if let Some(skip) = skip {
                let before = files.len();
                files.retain(|file| {
                    file.canonicalize()
                        .map_or(true, |file| !file.starts_with(&skip))
                });
                if files.len() < before {
                    // If stderr is gone there is nobody left to tell.
                    let _ = writeln!(
                        io::stderr(),
                        "note: {}: its files in the output folder {} are not read",
                        display(input),
                        display(if inside { &base } else { to.out_dir }),
                    );
                }
            }
            if files.is_empty() {
                return Err(Error::Input(InputError::Invalid {
                    path: display(input),
                    message: match to.glob {
                        Some(glob) => {
                            format!("a folder with no file matching {:?}", glob.pattern())
                        }
                        None => "a folder with no file to import".to_owned(),
                    },
                }));
            }
            for file in files {
                let relative = relative(&file, input);
                jobs.push(Job {
                    output: transcript_name(&base.join(relative)),
                    input: file,
                    walked: true,
                    subagent_logs: Vec::new(),
                });
            }
        } else {
            let Some(name) = input.file_name() else {
                return Err(Error::Input(InputError::Invalid {
                    path: display(input),
                    message: "names no file".to_owned(),
                }));
            };
            jobs.push(Job {
                output: transcript_name(&to.out_dir.join(name)),
                input: input.clone(),
                walked: false,
                subagent_logs: Vec::new(),
            });
        }
    }
    if matches!(source, Source::Auto | Source::Named(Format::ClaudeCode)) {
        set_subagent_logs_aside(&mut jobs);
    }
    check_outputs(&jobs, to.overwrite)?;
    check_inside(&jobs, to.out_dir)?;
    Ok(jobs)
}

/// Takes out of `jobs` the subagent logs found in a folder walk whose session is an
/// input too: the session's import reads them, and its job names them.
fn set_subagent_logs_aside(jobs: &mut Vec<Job>) {
    let sessions: HashMap<PathBuf, usize> = jobs
        .iter()
        .enumerate()
        .map(|(at, job)| (job.input.clone(), at))
        .collect();
    let mut aside: Vec<(usize, usize)> = Vec::new();
    let mut taken = vec![false; jobs.len()];
    for (at, job) in jobs.iter().enumerate() {
        if job.walked
            && let Some(session) = session_of(&job.input)
            && let Some(&of) = sessions.get(&session)
        {
            aside.push((at, of));
        }
        // A result kept in a file beside its session is read by the session's import.
        if job.walked
            && let Some(session) = session_of_result(&job.input)
            && sessions.contains_key(&session)
        {
            taken[at] = true;
        }
    }
    for &(at, of) in &aside {
        let log = jobs[at].input.clone();
        jobs[of].subagent_logs.push(log);
        taken[at] = true;
    }
    let mut at = 0;
    jobs.retain(|_| {
        at += 1;
        !taken[at - 1]
    });
}

/// Refuses two inputs written to one transcript, a transcript that would replace an
/// input, and (without `overwrite`) a transcript already there; each message names
/// the first case and counts the others.
fn check_outputs(jobs: &[Job], overwrite: bool) -> Result<(), Error> {
    let mut first: HashMap<&Path, usize> = HashMap::new();
    let mut collisions = Vec::new();
    for (at, job) in jobs.iter().enumerate() {
        let before = *first.entry(&job.output).or_insert(at);
        if before != at {
            collisions.push((&jobs[before].input, &job.input, &job.output));
        }
    }
    if let Some(&(a, b, output)) = collisions.first() {
        let more = more(collisions.len() - 1, "collision");
        return Err(Error::Usage(if a == b {
            format!(
                "{} is named twice: it would be imported twice to {}{more}",
                display(a),
                display(output),
            )
        } else {
            format!(
                "{} and {} would both be imported to {}{more}: rename one, or import them \
                 to separate folders",
                display(a),
                display(b),
                display(output),
            )
        }));
    }
    let inputs: HashSet<PathBuf> = jobs
        .iter()
        .flat_map(|job| std::iter::once(&job.input).chain(&job.subagent_logs))
        .filter_map(|input| input.canonicalize().ok())
        .collect();
    let is_input = |path: &Path| {
        path.canonicalize().is_ok_and(|path| inputs.contains(&path))
            || session_of(path)
                .and_then(|session| session.canonicalize().ok())
                .is_some_and(|session| inputs.contains(&session))
    };
    let mut existing = Vec::new();
    for job in jobs {
        if std::fs::symlink_metadata(&job.output).is_err() {
            continue;
        }
        if is_input(&job.output) {
            return Err(Error::Usage(format!(
                "{} would be replaced by the transcript of {}, and it is an input: choose \
                 another --out-dir",
                display(&job.output),
                display(&job.input),
            )));
        }
        existing.push(&job.output);
    }
    if !overwrite && let Some(output) = existing.first() {
        return Err(Error::Usage(format!(
            "{} already exists{}: give --overwrite to replace the transcripts in the output \
             folder, or another --out-dir",
            display(output),
            more(existing.len() - 1, "output"),
        )));
    }
    Ok(())
}

/// Refuses a transcript whose folder in `out_dir` is reached through a symbolic link
/// that leads out of it: every transcript is written inside the output folder.
fn check_inside(jobs: &[Job], out_dir: &Path) -> Result<(), Error> {
    let Ok(root) = out_dir.canonicalize() else {
        // Not made yet: nothing in it leads anywhere.
        return Ok(());
    };
    for job in jobs {
        let existing = job
            .output
            .ancestors()
            .skip(1)
            .find_map(|folder| folder.canonicalize().ok());
        if existing.is_some_and(|folder| !folder.starts_with(&root)) {
            return Err(Error::Input(InputError::Invalid {
                path: display(&job.output),
                message: format!(
                    "its folder is a symbolic link out of the output folder {}: nothing was \
                     imported",
                    display(out_dir)
                ),
            }));
        }
    }
    Ok(())
}

/// ` (and N more WHATs)`, or nothing when `n` is 0.
fn more(n: usize, what: &str) -> String {
    match n {
        0 => String::new(),
        n => format!(" (and {n} more {what}{})", if n == 1 { "" } else { "s" }),
    }
}

/// `file`'s path inside `folder` (where a walk of `folder` found it).
fn relative(file: &Path, folder: &Path) -> PathBuf {
    let plain = |path: &Path| -> PathBuf {
        path.components()
            .filter(|part| *part != Component::CurDir)
            .collect()
    };
    file.strip_prefix(folder)
        .map(Path::to_path_buf)
        .or_else(|_| {
            plain(file)
                .strip_prefix(plain(folder))
                .map(Path::to_path_buf)
        })
        .unwrap_or_else(|_| file.file_name().map(PathBuf::from).unwrap_or_default())
}

/// The transcript's name for an input at `path`: its extension made `.jsonl`.
fn transcript_name(path: &Path) -> PathBuf {
    path.with_extension("jsonl")
}

#[cfg(test)]
mod tests {
    use super::{relative, transcript_name};
    use std::path::Path;

    #[test]
    fn names_follow_the_input() {
        assert_eq!(
            transcript_name(Path::new("out/a.json")),
            Path::new("out/a.jsonl")
        );
        assert_eq!(
            transcript_name(Path::new("out/b")),
            Path::new("out/b.jsonl")
        );
        assert_eq!(
            transcript_name(Path::new("out/c.jsonl")),
            Path::new("out/c.jsonl")
        );
        assert_eq!(
            relative(Path::new("runs/x/a.json"), Path::new("./runs")),
            Path::new("x/a.json")
        );
        assert_eq!(
            relative(Path::new("a.json"), Path::new(".")),
            Path::new("a.json")
        );
    }
}
