//! The printer: the one owner of stdout. A command hands it its report where the
//! report is made, in the format and colours the settings chose; the printer writes
//! it to stdout, or, for one file's audit among several, to a [`Spool`] kept for its
//! turn. A reader that went away (`toolreplay replay big.jsonl | head -1`) is not an
//! error; any other failure to write stdout is, and so is a report that could not be
//! made (its findings could not be read back), told apart from it.

use std::io::{self, BufWriter, StdoutLock, Write};

use crate::args::Format;
use crate::error::Error;
use crate::output::spool::{Spool, SpoolError};
use crate::render::color::Paint;

/// How a command ended, when it could run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Status {
    /// Clean audit, intact chain, or the job done: exit 0.
    Clean,
    /// Findings, or a broken chain: exit 1.
    Findings,
    /// Of several inputs, one could not be audited (its error is on stderr): exit 2.
    Failed,
    /// The exit status a protocol (the guard's, the proxy's) asks for.
    Code(u8),
}

impl Status {
    /// [`Status::Clean`] when `clean`, [`Status::Findings`] otherwise.
    pub(crate) fn clean_if(clean: bool) -> Status {
        if clean {
            Status::Clean
        } else {
            Status::Findings
        }
    }

    /// The exit status: 0, 1 or 2, or the protocol's.
    pub(crate) fn code(self) -> u8 {
        match self {
            Status::Clean => 0,
            Status::Findings => 1,
            Status::Failed => 2,
            Status::Code(code) => code,
        }
    }
}

/// Where the printer writes.
enum Sink {
    /// Standard output, buffered; locked once written to.
    Stdout(Option<BufWriter<StdoutLock<'static>>>),
    /// A spool, for a report that waits for its turn.
    Spool(Spool),
}

/// The one owner of stdout: see the module documentation.
pub(crate) struct Printer {
    format: Format,
    paint: Paint,
    sink: Sink,
    /// The reader of stdout went away: nothing more is written, and it is no error.
    gone: bool,
}

impl std::fmt::Debug for Printer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Printer")
            .field("format", &self.format)
            .field("paint", &self.paint)
            .finish_non_exhaustive()
    }
}

impl Printer {
    /// The printer of stdout, text reports in `paint`'s colours.
    pub(crate) fn stdout(paint: Paint) -> Printer {
        Printer {
            format: Format::Text,
            paint,
            sink: Sink::Stdout(None),
            gone: false,
        }
    }

    /// A printer that keeps what it is given in a spool, its reports in `format`
    /// and `paint`'s colours.
    pub(crate) fn spooled(format: Format, paint: Paint) -> Printer {
        Printer {
            format,
            paint,
            sink: Sink::Spool(Spool::new()),
            gone: false,
        }
    }

    /// Sets the format of the reports.
    pub(crate) fn set_format(&mut self, format: Format) {
        self.format = format;
    }

    /// The format of the reports.
    pub(crate) fn format(&self) -> Format {
        self.format
    }

    /// The colours of text reports.
    pub(crate) fn paint(&self) -> Paint {
        self.paint
    }

    /// What a spooled printer kept; an empty spool for the printer of stdout.
    pub(crate) fn into_spool(self) -> Spool {
        match self.sink {
            Sink::Spool(spool) => spool,
            Sink::Stdout(_) => Spool::new(),
        }
    }

    /// Writes `text`.
    pub(crate) fn print(&mut self, text: &str) -> Result<(), Error> {
        self.report(|out| out.write_all(text.as_bytes()))
    }

    /// Writes what `spool` held back (a sealed transcript, another printer's report).
    pub(crate) fn copy(&mut self, spool: Spool) -> Result<(), Error> {
        if self.gone {
            return Ok(());
        }
        let result = match &mut self.sink {
            Sink::Spool(out) => spool.copy_to(out),
            Sink::Stdout(out) => spool.copy_to(out.get_or_insert_with(lock_stdout)),
        };
        match result {
            Ok(()) => Ok(()),
            Err(SpoolError::Write(err)) => self.stdout_failed(err),
            Err(SpoolError::Spool(source)) => Err(Error::temporary(source)),
        }
    }

    /// Writes the report that `write` makes as it makes it. An error of `write`'s
    /// own (its findings could not be read back) ends the report there: what was
    /// written goes out, then the error.
    pub(crate) fn report(
        &mut self,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), Error> {
        if self.gone {
            return Ok(());
        }
        let mut tracked = match &mut self.sink {
            Sink::Spool(spool) => Tracked::new(spool),
            Sink::Stdout(out) => Tracked::new(out.get_or_insert_with(lock_stdout)),
        };
        let made = write(&mut tracked);
        let failed = tracked.failed.take();
        match (made, failed) {
            (Ok(()), _) => Ok(()),
            (Err(_), Some(err)) => self.stdout_failed(err),
            (Err(source), None) => {
                // What was written before the failure goes out before the error.
                let _ = self.flush();
                Err(Error::temporary(source))
            }
        }
    }

    /// Writes out everything buffered.
    pub(crate) fn flush(&mut self) -> Result<(), Error> {
        match &mut self.sink {
            Sink::Stdout(Some(out)) if !self.gone => match out.flush() {
                Ok(()) => Ok(()),
                Err(err) => self.stdout_failed(err),
            },
            _ => Ok(()),
        }
    }

    fn stdout_failed(&mut self, err: io::Error) -> Result<(), Error> {
        match &self.sink {
            Sink::Spool(_) => Err(Error::temporary(err)),
            Sink::Stdout(_) if err.kind() == io::ErrorKind::BrokenPipe => {
                self.gone = true;
                Ok(())
            }
            Sink::Stdout(_) => Err(Error::Write {
                target: "standard output".to_owned(),
                source: err,
            }),
        }
    }
}

fn lock_stdout() -> BufWriter<StdoutLock<'static>> {
    BufWriter::with_capacity(1 << 16, io::stdout().lock())
}

/// A writer that keeps the first error of the writer it wraps, so that the error a
/// report ended with is known to be the writer's or not.
struct Tracked<'a> {
    out: &'a mut dyn Write,
    failed: Option<io::Error>,
}

impl<'a> Tracked<'a> {
    fn new(out: &'a mut dyn Write) -> Self {
        Tracked { out, failed: None }
    }

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
