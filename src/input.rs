//! Opening inputs: a file by path, or standard input for `-`, with a progress
//! indicator on a terminal for large inputs.

use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read};
use std::path::Path;

use crate::error::Error;
use crate::progress::{Meter, Progress};

/// The path that stands for standard input.
pub const STDIN: &str = "-";

/// How standard input is named in error messages and reports.
pub const STDIN_NAME: &str = "<stdin>";

const READ_BUFFER: usize = 256 << 10;

/// Whether `path` stands for standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == STDIN
}

/// The name of an input in messages and reports: the path as given, or `<stdin>`.
pub fn display(path: &Path) -> String {
    if is_stdin(path) {
        STDIN_NAME.to_owned()
    } else {
        path.to_string_lossy().into_owned()
    }
}

/// Opens an input for streaming: standard input for `-`, else the file at `path`
/// (a directory is an error). When standard error is a terminal, reading shows a
/// progress indicator there once it has taken more than a second.
pub fn open(path: &Path) -> Result<Box<dyn BufRead + Send>, Error> {
    Ok(Box::new(BufReader::with_capacity(
        READ_BUFFER,
        open_raw(path)?,
    )))
}

/// [`open`] without a buffer, for readers that read large blocks themselves.
pub fn open_raw(path: &Path) -> Result<Box<dyn Read + Send>, Error> {
    let name = display(path);
    let (reader, total): (Box<dyn Read + Send>, Option<u64>) = if is_stdin(path) {
        (Box::new(io::stdin()), None)
    } else {
        let read_error = |source| Error::Read {
            path: name.clone(),
            source,
        };
        let file = File::open(path).map_err(read_error)?;
        let meta = file.metadata().map_err(read_error)?;
        if meta.is_dir() {
            return Err(read_error(io::Error::from(io::ErrorKind::IsADirectory)));
        }
        let total = meta.is_file().then_some(meta.len());
        (Box::new(file), total)
    };
    if io::stderr().is_terminal() {
        let meter = Meter::new(name, total);
        Ok(Box::new(Progress::new(
            reader,
            meter,
            Box::new(io::stderr()),
        )))
    } else {
        Ok(reader)
    }
}
