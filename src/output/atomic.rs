//! Output files written atomically: a temporary file beside the target, flushed to
//! disk, then renamed over it. On any error before the rename the target is left as
//! it was, and the temporary file is removed when it is dropped.
//!
//! One rule for every output (`seal -o`, `import -o`, `sign`'s `.sig`, `seal
//! --append`):
//!
//! - A symbolic link is followed: the file it points to is the one replaced, and the
//!   link stays; except for the transcripts of `import --out-dir`, which replace
//!   whatever is at their path in the output folder, a link included
//!   ([`AtomicFile::in_place`]), so that nothing is written outside it.
//! - A target that is not a regular file (`/dev/null`, `/dev/stdout`, a FIFO, a
//!   device) cannot be replaced by a rename without destroying it: it is written to
//!   directly, and nothing is atomic there. A directory is an error.
//! - A read-only target (no write permission bit at all) is refused, even for root,
//!   rather than replaced.
//! - A new file gets the permissions a plainly created one would have under the
//!   umask (`0666` less the umask); a replaced one keeps its permissions and, where
//!   the process may set them, its owner and group.
//!
//! A command that writes files calls [`remove_temporary_files_on_signals`] first:
//! SIGINT, SIGTERM or SIGHUP then remove the temporary files still being written
//! (which may be as large as the output) before the process exits with 128 plus the
//! signal's number, as a shell reports a process killed by it.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use tempfile::NamedTempFile;

/// The temporary files being written, for the signal handler to remove.
static WRITING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn writing() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    WRITING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Removes the temporary files being written when the process gets SIGINT, SIGTERM
/// or SIGHUP, then exits with 128 plus the signal's number. Without a way to handle
/// signals here, nothing is done.
#[cfg(unix)]
pub(crate) fn remove_temporary_files_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            for path in writing().drain(..) {
                let _ = std::fs::remove_file(path);
            }
            std::process::exit(128 + signal);
        }
    });
}

#[cfg(not(unix))]
pub fn remove_temporary_files_on_signals() {}

/// A file being written in place of `target`.
#[derive(Debug)]
pub(crate) struct AtomicFile {
    inner: Inner,
    target: PathBuf,
}

#[derive(Debug)]
enum Inner {
    /// A temporary file, renamed over the target at the end; `existing` is the
    /// target's metadata when there was one.
    Temp {
        temp: NamedTempFile,
        existing: Option<Box<std::fs::Metadata>>,
        /// Known to the signal handler while it exists.
        _registered: Registered,
    },
    /// A target that is not a regular file, written to as it is.
    Direct(File),
}

/// The most symbolic links followed from one output path, as the kernel allows.
const MAX_LINKS: usize = 40;

/// The target that writing to `path` replaces: `path`, or the file a symbolic link
/// at `path` points to (which may not exist yet), and its metadata when it exists.
fn resolve(path: &Path) -> io::Result<(PathBuf, Option<std::fs::Metadata>)> {
    let mut path = path.to_owned();
    for _ in 0..=MAX_LINKS {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let to = std::fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            Ok(meta) => return Ok((path, Some(meta))),
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok((path, None)),
            Err(err) => return Err(err),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        "too many levels of symbolic links",
    ))
}

impl AtomicFile {
    /// Starts writing a new version of `target`, in a temporary file in the same
    /// directory (so the final rename stays on one file system), or straight to it
    /// when it is not a regular file (see the module documentation).
    pub(crate) fn new(target: &Path) -> io::Result<Self> {
        let (target, existing) = resolve(target)?;
        Self::start(target, existing)
    }

    /// Starts writing a new version of `target` that replaces whatever is at that
    /// path itself: a symbolic link there is replaced, never followed, and so is a
    /// file that is not a regular one. For outputs that must stay in their folder
    /// (`import --out-dir`).
    pub(crate) fn in_place(target: &Path) -> io::Result<Self> {
        let existing = match std::fs::symlink_metadata(target) {
            Ok(meta) if meta.is_dir() || meta.is_file() => Some(meta),
            Ok(_) => None,
            Err(err) if err.kind() == io::ErrorKind::NotFound => None,
            Err(err) => return Err(err),
        };
        Self::start(target.to_owned(), existing)
    }

    fn start(target: PathBuf, existing: Option<std::fs::Metadata>) -> io::Result<Self> {
        if let Some(meta) = &existing {
            if meta.is_dir() {
                return Err(io::ErrorKind::IsADirectory.into());
            }
            if !meta.is_file() {
                let file = OpenOptions::new().write(true).open(&target)?;
                return Ok(AtomicFile {
                    inner: Inner::Direct(file),
                    target,
                });
            }
            if meta.permissions().readonly() {
                return Err(io::ErrorKind::PermissionDenied.into());
            }
        }
        let dir = match target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".toolreplay-").suffix(".tmp");
        #[cfg(unix)]
        if existing.is_none() {
            use std::os::unix::fs::PermissionsExt;
            // Created with 0666, which the kernel reduces by the umask: exactly the
            // permissions of a plainly created file.
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let temp = builder.tempfile_in(dir)?;
        let registered = Registered::new(temp.path());
        Ok(AtomicFile {
            inner: Inner::Temp {
                temp,
                existing: existing.map(Box::new),
                _registered: registered,
            },
            target,
        })
    }

    /// Whether the target is replaced at the end (it is a regular file or a new one),
    /// rather than written to directly.
    pub(crate) fn is_atomic(&self) -> bool {
        matches!(self.inner, Inner::Temp { .. })
    }

    /// The file replaced or written at the end: the path given, or the file a
    /// symbolic link there points to.
    pub(crate) fn target(&self) -> &Path {
        &self.target
    }

    /// The file to write to (and read back).
    pub(crate) fn file(&mut self) -> &mut File {
        match &mut self.inner {
            Inner::Temp { temp, .. } => temp.as_file_mut(),
            Inner::Direct(file) => file,
        }
    }

    /// The temporary file opened again, with its own position, to read it back.
    pub(crate) fn reopen(&self) -> io::Result<File> {
        match &self.inner {
            Inner::Temp { temp, .. } => temp.reopen(),
            Inner::Direct(_) => Err(io::ErrorKind::Unsupported.into()),
        }
    }

    /// Flushes the file to disk, gives it the target's permissions and owner when it
    /// replaces one, and renames it over the target.
    pub(crate) fn commit(self) -> io::Result<()> {
        match self.inner {
            // A device or a pipe may not sync: what was written was written.
            Inner::Direct(file) => match file.sync_all() {
                Err(err) if err.kind() == io::ErrorKind::InvalidInput => Ok(()),
                other => other,
            },
            Inner::Temp { temp, existing, .. } => {
                let file = temp.as_file();
                file.sync_all()?;
                if let Some(meta) = &existing {
                    keep_owner_and_permissions(file, meta)?;
                }
                temp.persist(&self.target).map_err(|err| err.error)?;
                Ok(())
            }
        }
    }
}

/// A temporary file known to the signal handler until this is dropped.
#[derive(Debug)]
struct Registered(PathBuf);

impl Registered {
    fn new(path: &Path) -> Registered {
        writing().push(path.to_owned());
        Registered(path.to_owned())
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        writing().retain(|p| *p != self.0);
    }
}

/// A replaced file keeps its permissions, and its owner and group where the process
/// may set them (as root; otherwise the file is the writer's, as with any editor).
#[cfg(unix)]
fn keep_owner_and_permissions(file: &File, meta: &std::fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    match std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid())) {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::PermissionDenied => {}
        Err(err) => return Err(err),
    }
    file.set_permissions(meta.permissions())
}

#[cfg(not(unix))]
fn keep_owner_and_permissions(file: &File, meta: &std::fs::Metadata) -> io::Result<()> {
    file.set_permissions(meta.permissions())
}
