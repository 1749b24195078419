//! Where a command's result goes: stdout (held back in a [`spool::Spool`] until the
//! command succeeded), or a file written atomically ([`atomic::AtomicFile`]) in
//! batches on a thread of its own ([`batch::write_on_thread`]); and the exit status.

pub mod atomic;
pub mod batch;
pub mod spool;

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use crate::error::Error;
use spool::{Spool, SpoolError};

/// How a command ended, when it could run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Clean audit, intact chain, or the job done: exit 0.
    Clean,
    /// Findings, or a broken chain: exit 1.
    Findings,
    /// Of several inputs, one could not be audited (its error is on stderr): exit 2.
    Failed,
}

impl Status {
    /// [`Status::Clean`] when `clean`, [`Status::Findings`] otherwise.
    pub fn clean_if(clean: bool) -> Status {
        if clean {
            Status::Clean
        } else {
            Status::Findings
        }
    }

    /// The exit status: 0, 1 or 2.
    pub fn exit_code(self) -> ExitCode {
        match self {
            Status::Clean => ExitCode::SUCCESS,
            Status::Findings => ExitCode::from(1),
            Status::Failed => ExitCode::from(2),
        }
    }
}

/// What a command gives back to be written to stdout.
#[derive(Debug)]
pub enum Output {
    /// A report.
    Text(String),
    /// Bytes held back until the command succeeded (a sealed transcript).
    Spooled(Spool),
    /// A report written as it is made, once the command has succeeded.
    Stream(Stream),
    /// Nothing: the command wrote a file.
    Nothing,
}

/// A report that is written straight to stdout as it is made, once everything that
/// could fail the command but writing it is done: a single input's audit report,
/// written as its findings are read back. Nothing of it is held back in memory or
/// in a temporary file. The one failure left is of the temporary file the findings
/// were kept in, which ends the report there with an `error:` line and exit 2.
pub struct Stream(Box<WriteReport>);

/// What writes a [`Stream`]'s report.
type WriteReport = dyn FnOnce(&mut dyn Write) -> io::Result<()>;

impl Stream {
    /// The report that `write` writes.
    pub fn new(write: impl FnOnce(&mut dyn Write) -> io::Result<()> + 'static) -> Stream {
        Stream(Box::new(write))
    }

    /// Writes the report to `out`: an error writing `out` and an error of the
    /// report's own making (the findings could not be read back) are told apart.
    fn write_to(self, out: &mut dyn Write) -> Result<(), SpoolError> {
        let mut tracked = Tracked { out, failed: None };
        match (self.0)(&mut tracked) {
            Ok(()) => Ok(()),
            Err(err) => match tracked.failed {
                Some(failed) => Err(SpoolError::Write(failed)),
                None => Err(SpoolError::Spool(err)),
            },
        }
    }
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stream")
    }
}

/// A writer that keeps the first error of the writer it wraps, so that the error a
/// report ended with is known to be the writer's or not.
struct Tracked<'a> {
    out: &'a mut dyn Write,
    failed: Option<io::Error>,
}

impl Tracked<'_> {
    fn tracked<T>(&mut self, result: io::Result<T>) -> io::Result<T> {
        result.map_err(|err| {
            let kind = err.kind();
            if self.failed.is_none() {
                self.failed = Some(err);
            }
            io::Error::new(kind, "writing the report failed")
        })
    }
}

impl Write for Tracked<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = self.out.write(buf);
        self.tracked(result)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let result = self.out.write_all(buf);
        self.tracked(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = self.out.flush();
        self.tracked(result)
    }
}

/// A command's result: its output and status.
#[derive(Debug)]
#[must_use]
pub struct Outcome {
    /// What goes to stdout.
    pub output: Output,
    /// How it ended.
    pub status: Status,
}

impl Outcome {
    /// A report, and the status it calls for.
    pub fn text(text: String, status: Status) -> Outcome {
        Outcome {
            output: Output::Text(text),
            status,
        }
    }

    /// Nothing for stdout: the job is done.
    pub fn done() -> Outcome {
        Outcome {
            output: Output::Nothing,
            status: Status::Clean,
        }
    }

    /// Writes the output to stdout and gives the status. A reader that went away
    /// (`toolreplay replay big.jsonl | head -1`) is not an error.
    pub fn write_to_stdout(self) -> Result<Status, Error> {
        let stdout = io::stdout();
        let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
        let written = match self.output {
            Output::Text(text) => out.write_all(text.as_bytes()),
            Output::Nothing => Ok(()),
            Output::Spooled(spool) => match spool.copy_to(&mut out) {
                Ok(()) => Ok(()),
                Err(SpoolError::Write(err)) => Err(err),
                Err(SpoolError::Spool(source)) => return Err(Error::temporary(source)),
            },
            Output::Stream(stream) => match stream.write_to(&mut out) {
                Ok(()) => Ok(()),
                Err(SpoolError::Write(err)) => Err(err),
                Err(SpoolError::Spool(source)) => {
                    // What was written before the failure goes out before the error.
                    let _ = out.flush();
                    return Err(Error::temporary(source));
                }
            },
        };
        match written.and_then(|()| out.flush()) {
            Ok(()) => Ok(self.status),
            Err(err) if err.kind() == io::ErrorKind::BrokenPipe => Ok(self.status),
            Err(source) => Err(Error::Write {
                target: "standard output".to_owned(),
                source,
            }),
        }
    }
}
