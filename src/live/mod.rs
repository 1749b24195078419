//! The session file of a live session, shared by `guard` and `proxy`: a sealed
//! transcript that grows one link at a time while the agent works (docs/live.md).
//!
//! Each event opens the session with [`SessionFile::open`], which
//!
//! 1. takes an exclusive lock on `<file>.lock` (waiting at most [`lock::LOCK_WAIT`]; a
//!    lock it cannot get refuses the event), held until the session is saved or
//!    dropped, so that the head it reads is the head it appends to;
//! 2. opens (or creates) the sealed transcript, and reads the state left beside it in
//!    `<file>.state` ([`StateFile`]): the [`LiveState`] of the engine and what the
//!    file was when it was saved (its size, modification time, where its last link
//!    starts, the digest of the scope file);
//! 3. checks the state against the file without reading the file whole: the same
//!    size and modification time, and a last line that is a link whose digest is the
//!    state's head. Anything else (no state, a file changed by someone else, another
//!    policy) and the session is rebuilt from the file: a torn last line (an append
//!    stopped part way) is cut off, the whole file is verified, and the state is
//!    rebuilt from its links, carrying over the calls the saved state had pending
//!    ([`Reconcile`]: links of those calls are those calls, sealed; the ones still
//!    unsealed move after another writer's links). A broken file, or one that does
//!    not pass through the saved head, refuses the event (fail closed).
//!
//! [`SessionFile::write`] appends the lines the engine made ready in place (the file
//! is opened with `O_APPEND`) and flushes them to stable storage (`fdatasync`)
//! unless durability was turned off; a failed write cuts the file back to where it
//! was. [`SessionFile::save`] then writes the state atomically (a temporary file
//! renamed over it) and lets the lock go.
//!
//! `seal --append` takes the same lock, from reading the head to the rename; it
//! replaces the file whole, which the next event sees (another size or time) and
//! verifies. It cuts a torn last line off as the guard does ([`cut_torn_tail`]).

pub(crate) mod context;
pub(crate) mod lock;
pub(crate) mod otlp;

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use toolreplay_core::input::InputError;
use toolreplay_core::{BrokenField, GENESIS, Verdict, Verifier};
use toolreplay_core::{ContextRecord, Scope};
use toolreplay_core::{Links, ReadError, line_text, parse_link};
use toolreplay_core::{Live, LiveError, LiveState, Ready, Reconcile};

use crate::error::Error;

/// How a session writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Options {
    /// Flush every append and state to stable storage before going on (the
    /// default); off, a crash of the machine may lose the last links.
    pub durable: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { durable: true }
    }
}

/// What `<file>.state` holds: the engine's state and what the file was when it was
/// saved.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct StateFile {
    /// The format of this file: 1.
    pub version: u32,
    /// SHA-256 of the scope file's bytes, in hex.
    pub policy: String,
    /// The session file's size.
    pub size: u64,
    /// Its modification time, in nanoseconds since the Unix epoch, when known.
    pub modified: Option<u128>,
    /// Where its last line starts (0 when it is empty).
    pub tail: u64,
    /// The engine's state.
    pub live: LiveState,
    /// The last context recorded in the session's context file, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<context::LastContext>,
}

/// The digest of the scope file that the last event of the session at `path` was
/// decided by, as the first bytes of its state name it (`{"version":1,"policy":"`
/// and 64 hex digits), read without the lock. A state is only saved after its scope
/// was read without error, so those bytes need not be checked again (see
/// [`crate::input::read_scope_checked`]); whatever the state holds later is read
/// under the lock as ever.
pub(crate) fn checked_policy(path: &Path) -> Option<String> {
    const START: &[u8] = b"{\"version\":1,\"policy\":\"";
    let mut head = [0u8; START.len() + 64];
    let mut file = File::open(beside(path, ".state")).ok()?;
    io::Read::read_exact(&mut file, &mut head).ok()?;
    let digest = head.strip_prefix(START)?;
    digest
        .iter()
        .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        .then(|| String::from_utf8_lossy(digest).into_owned())
}

/// `path` with `suffix` added to its name: `<file>.lock`, `<file>.state`.
pub(crate) fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// The file beside a session `S.jsonl` that holds its calls' ids, which its sealed
/// links do not: `S.jsonl.calls` (`toolreplay_core::read_call_ids`).
pub(crate) fn calls_path(session: &Path) -> PathBuf {
    beside(session, ".calls")
}

fn shown(path: &Path) -> String {
    crate::input::display(path)
}

fn io_error(what: impl FnOnce() -> String) -> impl FnOnce(io::Error) -> Error {
    move |source| Error::Io {
        what: what(),
        source,
    }
}

/// An open, locked live session.
pub(crate) struct SessionFile<'s> {
    path: PathBuf,
    state_path: PathBuf,
    file: File,
    // Held for as long as the session is open: the lock goes with it.
    _lock: lock::Lock,
    live: Live<'s>,
    policy: String,
    size: u64,
    tail: u64,
    options: Options,
    /// The last context recorded, when known.
    context: Option<context::LastContext>,
    /// The call ids file ([`calls_path`]) and its length, once a call to record there
    /// was sealed.
    calls: Option<(File, u64)>,
    /// Whether the file is known to end with LF: so after an append of this session,
    /// and the next append need not read the file's last byte again.
    ends_lf: bool,
}

impl fmt::Debug for SessionFile<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionFile")
            .field("path", &self.path)
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

impl<'s> SessionFile<'s> {
    /// Opens the session file `path` (created empty if missing) for calls decided
    /// against `scope`, read from a file whose digest is `policy` (see
    /// [`crate::input::ScopeFile`]), and locks it.
    pub(crate) fn open(
        path: &Path,
        scope: &'s Scope,
        policy: &str,
        options: Options,
    ) -> Result<SessionFile<'s>, Error> {
        let lock = lock::Lock::take(&beside(path, ".lock"))?;
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io_error(|| format!("open {}", shown(path))))?;
        let meta = file
            .metadata()
            .map_err(io_error(|| format!("read {}", shown(path))))?;
        let size = meta.len();
        let modified = modified_ns(&meta);
        let state_path = beside(path, ".state");
        let saved = read_state(&state_path)?;
        let last_context = saved.as_ref().and_then(|s| s.context.clone());
        let (live, size, tail, ready) = match saved {
            Some(saved)
                if saved.policy == policy
                    && saved.size == size
                    && saved.modified == modified
                    && tail_is_head(&mut file, &saved)? =>
            {
                let tail = saved.tail;
                (
                    Live::resume(scope, saved.live),
                    size,
                    tail,
                    Ready::default(),
                )
            }
            saved => rebuild(path, &mut file, scope, saved, options)?,
        };
        let mut session = SessionFile {
            path: path.to_owned(),
            state_path,
            file,
            _lock: lock,
            live,
            policy: policy.to_owned(),
            size,
            tail,
            options,
            context: last_context,
            calls: None,
            ends_lf: false,
        };
        // Calls carried over that are complete and now first in line.
        session.write(&ready)?;
        Ok(session)
    }

    /// Records that the calls decided from now on are made where `record` says: a
    /// `context` record is appended to the context file when it differs from the
    /// last one, and the engine reads paths so (a relative root from the directory
    /// the session started in, the first context's `cwd`).
    pub(crate) fn enter(&mut self, record: ContextRecord) -> Result<(), Error> {
        let file = toolreplay_core::input::context_path(&self.path);
        if self.context.is_none() {
            self.context = context::last_context(&file)?;
        }
        let project = match &self.context {
            Some(last) => last.project.clone(),
            None => record.cwd.clone(),
        };
        let context = context::LastContext { record, project };
        if self.context.as_ref() != Some(&context) {
            let from = self.live.next_index();
            let entry = context::context_entry(&context, from);
            context::append(&file, &[entry], self.options.durable)?;
        }
        self.live.set_context(toolreplay_core::PathContext {
            cwd: context.record.cwd.clone(),
            home: context.record.home.clone(),
            project: context.project.clone(),
        });
        self.context = Some(context);
        Ok(())
    }

    /// Appends `entries` (prompts, answers) to the session's context file.
    pub(crate) fn note(&mut self, entries: &[context::ContextEntry]) -> Result<(), Error> {
        context::append(
            &toolreplay_core::input::context_path(&self.path),
            entries,
            self.options.durable,
        )
    }

    /// The session's engine.
    pub(crate) fn live(&mut self) -> &mut Live<'s> {
        &mut self.live
    }

    /// Appends `ready`'s lines (flushed to stable storage when durable). On an error
    /// the file is cut back to where it was, and the session must not be saved.
    pub(crate) fn write(&mut self, ready: &Ready) -> Result<(), Error> {
        self.append(ready, self.options.durable)
    }

    /// Flushes what was appended to stable storage, when durable: one flush for
    /// every link [`SessionFile::append`] wrote since the last one (group commit).
    pub(crate) fn sync(&mut self) -> Result<(), Error> {
        if !self.options.durable {
            return Ok(());
        }
        self.file.sync_data().map_err(|source| Error::Io {
            what: format!("flush {}", shown(&self.path)),
            source,
        })?;
        match &self.calls {
            Some((calls, _)) => calls.sync_data().map_err(|source| Error::Io {
                what: format!("flush {}", shown(&calls_path(&self.path))),
                source,
            }),
            None => Ok(()),
        }
    }

    /// Appends the call ids lines of `ready` to [`calls_path`] (flushed when `sync`);
    /// a failed write cuts that file back to where it was.
    fn append_calls(&mut self, ready: &Ready, sync: bool) -> Result<(), Error> {
        if ready.calls.is_empty() {
            return Ok(());
        }
        let path = calls_path(&self.path);
        let what = || format!("append to {}", shown(&path));
        if self.calls.is_none() {
            let file = OpenOptions::new()
                .append(true)
                .create(true)
                .open(&path)
                .map_err(io_error(what))?;
            let size = file.metadata().map_err(io_error(what))?.len();
            self.calls = Some((file, size));
        }
        let Some((file, size)) = self.calls.as_mut() else {
            return Ok(());
        };
        let written = file
            .write_all(&ready.calls)
            .and_then(|()| if sync { file.sync_data() } else { Ok(()) });
        if let Err(source) = written {
            let _ = file.set_len(*size);
            return Err(Error::Io {
                what: what(),
                source,
            });
        }
        *size += ready.calls.len() as u64;
        Ok(())
    }

    /// Appends `ready`'s lines, flushed to stable storage when `sync`; else they are
    /// durable only after [`SessionFile::sync`]. On an error the file is cut back to
    /// where it was, and the session must not be saved.
    pub(crate) fn append(&mut self, ready: &Ready, sync: bool) -> Result<(), Error> {
        if ready.is_empty() {
            return Ok(());
        }
        // A file that does not end with LF (sealed by hand) gets one first.
        let lf = self.size > 0 && !self.ends_lf && !preceded_by_lf(&mut self.file, self.size);
        if lf {
            self.size += 1;
        }
        let lines: &[u8] = &ready.lines;
        let written = (if lf {
            self.file.write_all(b"\n")
        } else {
            Ok(())
        })
        .and_then(|()| self.file.write_all(lines))
        .and_then(|()| if sync { self.file.sync_data() } else { Ok(()) });
        if let Err(source) = written {
            // What a full disk left half written goes, so the chain stays whole.
            let _ = self.file.set_len(self.size - u64::from(lf));
            return Err(Error::Io {
                what: format!("append to {}", shown(&self.path)),
                source,
            });
        }
        // No call is sealed without its id recorded beside it: when that fails,
        // its links go too.
        if let Err(err) = self.append_calls(ready, sync) {
            let _ = self.file.set_len(self.size - u64::from(lf));
            return Err(err);
        }
        let last = ready.lines[..ready.lines.len() - 1]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |at| at + 1);
        self.tail = self.size + last as u64;
        self.size += ready.lines.len() as u64;
        self.ends_lf = ready.lines.last() == Some(&b'\n');
        Ok(())
    }

    /// Saves the state beside the file, atomically, and lets the lock go.
    pub(crate) fn save(self) -> Result<(), Error> {
        let meta = self
            .file
            .metadata()
            .map_err(io_error(|| format!("read {}", shown(&self.path))))?;
        let state = StateFile {
            version: 1,
            policy: self.policy.clone(),
            size: meta.len(),
            modified: modified_ns(&meta),
            tail: self.tail,
            live: self.live.state(),
            context: self.context.clone(),
        };
        let mut text = serde_json::to_vec(&state).map_err(|err| Error::Io {
            what: format!("write {}", shown(&self.state_path)),
            source: io::Error::other(err),
        })?;
        text.push(b'\n');
        write_atomic(&self.state_path, &text, self.options.durable)
            .map_err(io_error(|| format!("write {}", shown(&self.state_path))))
    }
}

/// `note: TEXT` on stderr (a failure to tell is not the session's).
fn note(text: &str) {
    let _ = writeln!(io::stderr().lock(), "note: {text}");
}

fn modified_ns(meta: &std::fs::Metadata) -> Option<u128> {
    let time = meta.modified().ok()?;
    Some(time.duration_since(SystemTime::UNIX_EPOCH).ok()?.as_nanos())
}

fn read_state(path: &Path) -> Result<Option<StateFile>, Error> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(Error::Io {
                what: format!("read {}", shown(path)),
                source,
            });
        }
    };
    match serde_json::from_slice::<StateFile>(&bytes) {
        Ok(state) if state.version == 1 => Ok(Some(state)),
        // An unreadable state is rebuilt from the file, as a missing one; it can
        // hold no pending call then.
        _ => Ok(None),
    }
}

/// Whether the file's last line, from `saved.tail` to its end, is a link whose
/// digest is the state's head (or the file is empty before the first link).
fn tail_is_head(file: &mut File, saved: &StateFile) -> Result<bool, Error> {
    let head = saved.live.head();
    if saved.size == 0 {
        return Ok(head == GENESIS && saved.live.sealed() == 0);
    }
    let Some(len) = saved.size.checked_sub(saved.tail) else {
        return Ok(false);
    };
    // A link is one line; one longer than this is read only by a full check.
    if len > 1 << 30 {
        return Ok(false);
    }
    let mut bytes = Vec::new();
    let read = file
        .seek(SeekFrom::Start(saved.tail))
        .and_then(|_| Read::by_ref(file).take(len).read_to_end(&mut bytes));
    if read.is_err() || bytes.len() as u64 != len {
        return Ok(false);
    }
    let Some(line) = bytes.strip_suffix(b"\n") else {
        return Ok(false);
    };
    if line.contains(&b'\n') || (saved.tail > 0 && !preceded_by_lf(file, saved.tail)) {
        return Ok(false);
    }
    let Ok(text) = std::str::from_utf8(line) else {
        return Ok(false);
    };
    Ok(match parse_link(1, text) {
        Ok(link) => {
            link.digest == head
                && toolreplay_core::stated_digest(&link) == head
                && saved
                    .live
                    .sealed()
                    .checked_sub(1)
                    .map(|i| i.to_string())
                    .as_deref()
                    == Some(&*link.index)
        }
        Err(_) => false,
    })
}

fn preceded_by_lf(file: &mut File, at: u64) -> bool {
    let mut byte = [0u8];
    file.seek(SeekFrom::Start(at - 1)).is_ok()
        && file.read_exact(&mut byte).is_ok()
        && byte[0] == b'\n'
}

/// Where the file's last line starts and how long it is, when it is torn: not a
/// link, but the start of one as every writer lays it out (`{"args":`, or a part of
/// that), or with NUL bytes in it (the zeros a crash of the machine may leave): an
/// append stopped part way. A last line that is a link, with or without its LF (a
/// file sealed by hand), is not torn, nor is a line of another kind (a plain
/// transcript is not a torn sealed one); the links before it are left to the full
/// check, so a broken link anywhere else still breaks the file.
pub(crate) fn torn_tail(file: &mut File) -> io::Result<Option<(u64, u64)>> {
    let size = file.metadata()?.len();
    if size == 0 {
        return Ok(None);
    }
    let (start, line) = last_line(file, size)?;
    let bytes = line.strip_suffix(b"\n").unwrap_or(&line);
    let number = if start == 0 { 1 } else { 2 };
    const START: &[u8] = b"{\"args\":";
    let begun = bytes.starts_with(START) || START.starts_with(bytes) || bytes.contains(&0);
    let torn = begun
        && match line_text(number, bytes) {
            Ok(None) => false,
            Ok(Some(text)) => parse_link(number, text).is_err(),
            Err(_) => true,
        };
    Ok(torn.then_some((start, size - start)))
}

/// The last line of the file of `size` bytes (more than none): where it starts, and
/// its bytes, with its LF when it has one; read backwards from the end.
pub(crate) fn last_line(file: &mut File, size: u64) -> io::Result<(u64, Vec<u8>)> {
    // The last line starts after the last LF before the file's last byte.
    let mut start = 0;
    let mut pos = size - 1;
    let mut buf = vec![0u8; 1 << 16];
    while pos > 0 {
        let n = usize::try_from(pos).map_or(buf.len(), |pos| pos.min(buf.len()));
        pos -= n as u64;
        file.seek(SeekFrom::Start(pos))?;
        file.read_exact(&mut buf[..n])?;
        if let Some(at) = buf[..n].iter().rposition(|&b| b == b'\n') {
            start = pos + at as u64 + 1;
            break;
        }
    }
    let mut line = Vec::new();
    file.seek(SeekFrom::Start(start))?;
    Read::by_ref(file).read_to_end(&mut line)?;
    Ok((start, line))
}

/// Cuts a torn last line ([`torn_tail`]) off the file at `path`, and says so on
/// stderr: `note: FILE: cut a torn last line of N bytes left by an interrupted
/// writer`. Returns where the file was cut, when it was.
pub(crate) fn cut_torn_tail(
    path: &Path,
    file: &mut File,
    durable: bool,
) -> Result<Option<u64>, Error> {
    let cut = torn_tail(file)
        .and_then(|torn| match torn {
            Some((start, len)) => {
                file.set_len(start)?;
                // Writes go on at the new end, with or without O_APPEND.
                file.seek(SeekFrom::Start(start))?;
                if durable {
                    file.sync_data()?;
                }
                Ok(Some((start, len)))
            }
            None => Ok(None),
        })
        .map_err(io_error(|| format!("cut {}", shown(path))))?;
    Ok(cut.map(|(start, len)| {
        note(&format!(
            "{}: cut a torn last line of {len} bytes left by an interrupted writer",
            shown(path)
        ));
        start
    }))
}

/// The session as rebuilt by [`rebuild`]: the engine, the file's size, where its
/// last line starts, and the lines of carried-over calls ready to write.
type Rebuilt<'s> = (Live<'s>, u64, u64, Ready);

/// Verifies the whole file (a torn last line cut off first) and rebuilds the
/// engine's state from its links, carrying over the calls `saved` (a state that did
/// not match) had pending ([`Reconcile`]); the file must pass through `saved`'s
/// head.
fn rebuild<'s>(
    path: &Path,
    file: &mut File,
    scope: &'s Scope,
    saved: Option<StateFile>,
    options: Options,
) -> Result<Rebuilt<'s>, Error> {
    cut_torn_tail(path, file, options.durable)?;
    file.seek(SeekFrom::Start(0))
        .map_err(io_error(|| format!("read {}", shown(path))))?;
    let mut rebuilt = Reconcile::new(scope, saved.map(|saved| saved.live).unwrap_or_default());
    let mut verifier = Verifier::new();
    let mut last_line = 0u64;
    for item in Links::new(BufReader::with_capacity(1 << 16, &mut *file)) {
        let (line, link) = item.map_err(|err| match err {
            ReadError::Io(source) => Error::Io {
                what: format!("read {}", shown(path)),
                source,
            },
            ReadError::Input(err) => Error::Input(InputError::Input {
                path: shown(path),
                line: err.line,
                message: format!("not a sealed transcript: {}", err.message),
            }),
        })?;
        verifier.check(line, &link);
        last_line = line;
        // The verifier checks that each link is the next; past a broken one this
        // state is dropped.
        let _ = rebuilt.take_sealed(&link);
    }
    if let Verdict::Broken {
        position,
        field,
        line,
        tool,
        ..
    } = verifier.finish()
    {
        return Err(Error::Broken {
            path: shown(path),
            position,
            line,
            tool,
            field: match field {
                BrokenField::Prev => "prev",
                BrokenField::Digest => "digest",
            },
        });
    }
    let tail = line_start(file, path, last_line)?;
    let size = file
        .metadata()
        .map_err(io_error(|| format!("read {}", shown(path))))?
        .len();
    let (live, done) = rebuilt.finish().map_err(|err| match err {
        LiveError::NotContinued { sealed, head } => Error::Input(InputError::Invalid {
            path: shown(path),
            message: format!(
                "the file does not continue the session state beside it (link {sealed} with digest {head}); remove {} to start over from the file",
                shown(&beside(path, ".state"))
            ),
        }),
        other => Error::Input(InputError::Invalid {
            path: shown(path),
            message: other.to_string(),
        }),
    })?;
    if let Some(from) = done.moved_from {
        note(&format!(
            "{}: another writer added links while calls were pending ({}); the pending calls now start at index {} instead of {from}, so an index told to the agent before is {} less than the record's",
            shown(path),
            done.foreign,
            from + done.foreign,
            done.foreign,
        ));
    }
    Ok((live, size, tail, done.ready))
}

/// Where the 1-based physical line `line` starts (0 for none).
fn line_start(file: &mut File, path: &Path, line: u64) -> Result<u64, Error> {
    if line <= 1 {
        return Ok(0);
    }
    file.seek(SeekFrom::Start(0))
        .map_err(io_error(|| format!("read {}", shown(path))))?;
    let mut reader = BufReader::with_capacity(1 << 16, &mut *file);
    let mut seen = 1u64;
    let mut offset = 0u64;
    loop {
        let buf = io::BufRead::fill_buf(&mut reader)
            .map_err(io_error(|| format!("read {}", shown(path))))?;
        if buf.is_empty() {
            return Ok(offset);
        }
        let mut consumed = 0;
        for (i, &b) in buf.iter().enumerate() {
            if b == b'\n' {
                seen += 1;
                if seen == line {
                    return Ok(offset + i as u64 + 1);
                }
            }
            consumed = i + 1;
        }
        offset += consumed as u64;
        io::BufRead::consume(&mut reader, consumed);
    }
}

/// Writes `bytes` to `path`. Durable: through a temporary file beside it, flushed
/// and renamed over it, so a crash leaves the old state or the new one. Otherwise in
/// place, in one write padded with spaces over the old content and then cut to
/// length, so that a process killed at any point leaves JSON (a crash of the machine
/// may leave a torn state, which is then rebuilt from the file): renaming over a file
/// whose data is not on disk yet makes some file systems flush it first, which costs
/// what `--no-fsync` is there to save.
fn write_atomic(path: &Path, bytes: &[u8], durable: bool) -> io::Result<()> {
    if !durable {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let old = file.metadata()?.len();
        let mut padded = bytes.to_vec();
        if let Ok(old) = usize::try_from(old)
            && old > padded.len()
        {
            padded.resize(old, b' ');
        }
        file.write_all(&padded)?;
        return file.set_len(bytes.len() as u64);
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(".toolreplay-state-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_data()?;
    temp.persist(path).map_err(|err| err.error)?;
    Ok(())
}
