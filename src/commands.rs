//! The commands: each opens its inputs, streams them through an audit and returns
//! the report, without writing to stdout itself.

use std::io::{self, Read, Write};
use std::path::Path;

use crate::atomic::AtomicFile;
use crate::batch::BatchWriter;
use crate::error::Error;
use crate::spool::{Spool, SpoolError};
use toolreplay_core::chain::{self, Sealer, UnsealedLink, Verdict, Verifier};
use toolreplay_core::pipeline::{self, Stop};
use toolreplay_core::replay::{Replay, ReplayReport};
use toolreplay_core::scope::{Scope, ScopeAudit, ScopeReport};
use toolreplay_core::transcript::{
    CanonicalRecordRef, ReadError, UnplacedRecord, parse_link, parse_unplaced_with,
};

/// The largest scope file read, in bytes.
pub const MAX_SCOPE_BYTES: u64 = 16 << 20;

/// How a command ended, when it could run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Clean audit, intact chain, or the job done: exit 0.
    Clean,
    /// Findings, or a broken chain: exit 1.
    Findings,
}

/// What a command gives back to be written to stdout.
#[derive(Debug)]
pub enum Output {
    /// A text report.
    Text(String),
    /// Bytes held back until the command succeeded (a sealed transcript).
    Spooled(Spool),
    /// Nothing: the command wrote a file.
    Nothing,
}

impl Output {
    /// Writes the output to `out`. Errors of the spool are reported as `Error::Write`
    /// of a temporary file; errors of `out` are returned as they are, so the caller
    /// can tell a closed pipe from a failed write.
    pub fn write_to(self, out: &mut dyn Write) -> Result<Result<(), io::Error>, Error> {
        match self {
            Output::Text(text) => Ok(out.write_all(text.as_bytes())),
            Output::Nothing => Ok(Ok(())),
            Output::Spooled(spool) => match spool.copy_to(out) {
                Ok(()) => Ok(Ok(())),
                Err(SpoolError::Write(err)) => Ok(Err(err)),
                Err(SpoolError::Spool(source)) => Err(Error::Write {
                    target: "a temporary file".to_owned(),
                    source,
                }),
            },
        }
    }
}

/// A command's result: its output and status.
#[derive(Debug)]
pub struct Outcome {
    /// What goes to stdout.
    pub output: Output,
    /// How it ended.
    pub status: Status,
}

fn shown(path: &Path) -> String {
    crate::input::display(path)
}

/// Opens an input for streaming: a file, or standard input for `-`.
fn open(path: &Path) -> Result<Box<dyn Read + Send>, Error> {
    crate::input::open_raw(path)
}

fn input_error(path: &Path, err: ReadError) -> Error {
    Error::reading(path, err)
}

/// Hands the fields of every record of the transcript read from `reader` (named
/// `path` in errors) to `make`, in parallel as lines are parsed, and what it makes to
/// `visit` with the record's line, index and tool, in input order.
fn for_each_made<T: Send>(
    path: &Path,
    reader: Box<dyn Read + Send>,
    make: impl Fn(CanonicalRecordRef<'_>) -> T + Sync,
    mut visit: impl FnMut(u64, u64, &str, T) -> Result<(), Error> + Send,
) -> Result<(), Error> {
    let mut count = 0;
    let parse = |line, text: &str| parse_unplaced_with(line, text, &make);
    pipeline::run(reader, parse, |line, unplaced: UnplacedRecord<T>| {
        let index = unplaced
            .place(count)
            .map_err(|err| input_error(path, ReadError::Input(err)))?;
        count += 1;
        visit(line, index, &unplaced.tool, unplaced.value)
    })
    .map_err(|stop| stopped(path, stop))
}

fn stopped(path: &Path, stop: Stop<Error>) -> Error {
    match stop {
        Stop::Read(err) => input_error(path, err),
        Stop::Consume(err) => err,
    }
}

/// Exit 0 when `clean`, 1 otherwise.
pub fn status(clean: bool) -> Status {
    if clean {
        Status::Clean
    } else {
        Status::Findings
    }
}

/// The replay audit of the transcript at `path`.
pub fn replay_report(path: &Path, mutating_tools: &[String]) -> Result<ReplayReport, Error> {
    replay_report_from(path, open(path)?, mutating_tools)
}

/// The replay audit of the transcript read from `reader`, named `path` in errors.
pub fn replay_report_from(
    path: &Path,
    reader: Box<dyn Read + Send>,
    mutating_tools: &[String],
) -> Result<ReplayReport, Error> {
    let mut replay = Replay::new(mutating_tools.iter().cloned());
    // The fingerprints are computed on the parsing threads; only the bookkeeping is
    // sequential.
    for_each_made(
        path,
        reader,
        |record| toolreplay_core::replay::fingerprints(record.tool, record.args, record.response),
        |line, index, tool, (call, response)| {
            replay.observe_fingerprints(line, index, tool, call, response);
            Ok(())
        },
    )?;
    Ok(replay.finish())
}

/// Reads and parses a scope file.
pub fn read_scope(path: &Path) -> Result<Scope, Error> {
    let mut bytes = Vec::new();
    open(path)?
        .take(MAX_SCOPE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| Error::Read {
            path: shown(path),
            source,
        })?;
    let input_error = |line: usize, message: String| Error::Input {
        path: shown(path),
        line: line as u64,
        message,
    };
    if bytes.len() as u64 > MAX_SCOPE_BYTES {
        return Err(input_error(
            1,
            format!("scope file larger than {} MiB", MAX_SCOPE_BYTES >> 20),
        ));
    }
    Scope::parse(&bytes).map_err(|err| input_error(err.line, err.to_string()))
}

/// The scope audit of the transcript at `path` against the scope file at
/// `scope_path` (read first).
pub fn scope_report(path: &Path, scope_path: &Path) -> Result<ScopeReport, Error> {
    let scope = read_scope(scope_path)?;
    scope_report_from(path, open(path)?, scope)
}

/// The scope audit of the transcript read from `reader` (named `path` in errors)
/// against `scope`: each call is checked alone on the parsing threads, and only the
/// rules that depend on the calls before it are left to the walk in order.
pub fn scope_report_from(
    path: &Path,
    reader: Box<dyn Read + Send>,
    scope: Scope,
) -> Result<ScopeReport, Error> {
    let mut audit = ScopeAudit::new(&scope);
    for_each_made(
        path,
        reader,
        |record| scope.check_call(record.tool, record.args, record.response),
        |line, _, tool, checked| {
            audit.observe(line, tool, checked);
            Ok(())
        },
    )?;
    Ok(audit.finish())
}

/// `toolreplay seal FILE [--output OUT]`: the sealed transcript goes to stdout only
/// once the whole input has been read without error; to `OUT` it is written to a
/// temporary file beside it and renamed over it at the end.
pub fn seal(path: &Path, output: Option<&Path>) -> Result<Outcome, Error> {
    seal_from(path, open(path)?, output)
}

/// [`seal`] of the transcript read from `reader`, named `path` in errors.
pub fn seal_from(
    path: &Path,
    reader: Box<dyn Read + Send>,
    output: Option<&Path>,
) -> Result<Outcome, Error> {
    let mut sealer = Sealer::new();
    match output {
        None => {
            let mut spool = Spool::new();
            for_each_unsealed(path, reader, |mut link| {
                sealer.seal_link(&mut link);
                spool.write(link.as_ref()).map_err(|source| Error::Write {
                    target: "a temporary file".to_owned(),
                    source,
                })
            })?;
            Ok(Outcome {
                output: Output::Spooled(spool),
                status: Status::Clean,
            })
        }
        Some(target) => {
            let write_error = |source| Error::Write {
                target: shown(target),
                source,
            };
            let mut file = AtomicFile::new(target).map_err(write_error)?;
            let mut writer = BatchWriter::new(file.file());
            for_each_unsealed(path, reader, |mut link| {
                sealer.seal_link(&mut link);
                writer.push(link).map_err(write_error)
            })?;
            writer.flush().map_err(write_error)?;
            drop(writer);
            file.commit().map_err(write_error)?;
            Ok(Outcome {
                output: Output::Nothing,
                status: Status::Clean,
            })
        }
    }
}

/// Hands the unsealed link of every record (see [`UnsealedLink`]) to `visit`, in
/// order: the links are made in parallel as lines are parsed, so only the chain's
/// hashing is left to the walk in input order.
fn for_each_unsealed(
    path: &Path,
    reader: Box<dyn Read + Send>,
    mut visit: impl FnMut(UnsealedLink) -> Result<(), Error> + Send,
) -> Result<(), Error> {
    // A placed record's index, as written, is the decimal form of its place.
    let make = |record: CanonicalRecordRef<'_>| {
        UnsealedLink::new(record.index, record.tool, record.args, record.response)
    };
    for_each_made(path, reader, make, |_, _, _, link| visit(link))
}

/// The verdict on the sealed transcript at `path`: the whole file is read, so an
/// input error anywhere is reported even after a broken link.
pub fn verify_verdict(path: &Path) -> Result<Verdict, Error> {
    let mut verifier = Verifier::new();
    // Each link's digest is computed on the parsing threads as the link states it;
    // the walk only compares.
    let parse = |line, text: &str| {
        let link = parse_link(line, text)?;
        let stated = chain::stated_digest(&link);
        Ok((link, stated))
    };
    pipeline::run(open(path)?, parse, |line, (link, stated)| {
        verifier.check_hashed(line, &link, Some(&stated));
        Ok(())
    })
    .map_err(|stop| stopped(path, stop))?;
    Ok(verifier.finish())
}
