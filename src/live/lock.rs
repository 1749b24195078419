//! The exclusive lock of a session: `flock` on `<file>.lock`, taken without
//! blocking and tried again until [`LOCK_WAIT`] has passed, so that a stuck writer
//! refuses the call instead of hanging the agent. On Unix through rustix; elsewhere
//! there is no lock, and a session refuses every call.

use std::fs::{File, OpenOptions};
use std::path::Path;
use std::time::{Duration, Instant};

use super::shown;
use crate::error::Error;

/// How long a session waits for its lock before it refuses the call.
pub(crate) const LOCK_WAIT: Duration = Duration::from_secs(10);

/// A lock held until dropped (closing the file lets it go).
#[derive(Debug)]
pub(crate) struct Lock {
    _file: File,
}

impl Lock {
    /// Takes the lock of `path` (created if missing).
    pub(crate) fn take(path: &Path) -> Result<Lock, Error> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|source| Error::Io {
                what: format!("open {}", shown(path)),
                source,
            })?;
        let deadline = Instant::now() + LOCK_WAIT;
        let mut pause = Duration::from_micros(200);
        loop {
            match try_lock(&file) {
                Ok(true) => return Ok(Lock { _file: file }),
                Ok(false) if Instant::now() < deadline => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(20));
                }
                Ok(false) => {
                    return Err(Error::Locked {
                        path: shown(path),
                        seconds: LOCK_WAIT.as_secs(),
                    });
                }
                Err(source) => {
                    return Err(Error::Io {
                        what: format!("lock {}", shown(path)),
                        source,
                    });
                }
            }
        }
    }
}

/// Tries to take an exclusive `flock` on `file`: whether it was taken.
#[cfg(unix)]
fn try_lock(file: &File) -> std::io::Result<bool> {
    use rustix::fs::{FlockOperation, flock};
    match flock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(true),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(false),
        Err(rustix::io::Errno::INTR) => Ok(false),
        Err(err) => Err(err.into()),
    }
}

#[cfg(not(unix))]
fn try_lock(_file: &File) -> std::io::Result<bool> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "live sessions lock their file with flock, which this platform does not have",
    ))
}
