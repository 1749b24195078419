//! Output files written atomically: a temporary file beside the target, flushed to
//! disk, then renamed over it. On any error before the rename the target is left as
//! it was, and the temporary file is removed when it is dropped.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// A file being written in place of `target`.
#[derive(Debug)]
pub struct AtomicFile {
    temp: NamedTempFile,
    target: PathBuf,
}

impl AtomicFile {
    /// Starts writing a new version of `target`, in a temporary file in the same
    /// directory (so the final rename stays on one file system).
    pub fn new(target: &Path) -> io::Result<Self> {
        let dir = match target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let temp = tempfile::Builder::new()
            .prefix(".toolreplay-")
            .suffix(".tmp")
            .tempfile_in(dir)?;
        Ok(AtomicFile {
            temp,
            target: target.to_owned(),
        })
    }

    /// The temporary file, to write to (and read back).
    pub fn file(&mut self) -> &mut File {
        self.temp.as_file_mut()
    }

    /// The temporary file opened again, with its own position, to read it back.
    pub fn reopen(&self) -> io::Result<File> {
        self.temp.reopen()
    }

    /// Flushes the file to disk, gives it the target's permissions (a new target gets
    /// 0644), and renames it over the target.
    pub fn commit(self) -> io::Result<()> {
        let file = self.temp.as_file();
        file.sync_all()?;
        set_permissions(file, &self.target)?;
        self.temp.persist(&self.target).map_err(|err| err.error)?;
        Ok(())
    }
}

/// A new file gets the permissions a plainly created one would have, a replaced one
/// keeps its own.
#[cfg(unix)]
fn set_permissions(file: &File, target: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let permissions = match std::fs::metadata(target) {
        Ok(meta) => meta.permissions(),
        Err(_) => std::fs::Permissions::from_mode(0o644),
    };
    file.set_permissions(permissions)
}

#[cfg(not(unix))]
fn set_permissions(_file: &File, _target: &Path) -> io::Result<()> {
    Ok(())
}
