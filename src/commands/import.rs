//! `toolreplay import [--from FORMAT] INPUT [--output OUT] [--strict]`: the
//! transcript to stdout once the whole input is imported, or to `OUT` atomically.

use std::io::{self, Write as _};
use std::path::Path;

use crate::error::Error;
use crate::input::{ImportOptions, import_transcript};
use crate::output::atomic::AtomicFile;
use crate::output::spool::Spool;
use crate::output::{Outcome, Output, Status};

/// `toolreplay import`.
pub fn run(path: &Path, options: ImportOptions, output: Option<&Path>) -> Result<Outcome, Error> {
    let transcript = import_transcript(path, options, &mut io::stderr())?.transcript;
    let output = match output {
        None => {
            let mut spool = Spool::new();
            spool.write(&transcript).map_err(Error::temporary)?;
            Output::Spooled(spool)
        }
        Some(target) => {
            let write_error = |source| Error::writing(target, source);
            let mut file = AtomicFile::new(target).map_err(write_error)?;
            file.file().write_all(&transcript).map_err(write_error)?;
            file.commit().map_err(write_error)?;
            Output::Nothing
        }
    };
    Ok(Outcome {
        output,
        status: Status::Clean,
    })
}
