//! Where the relay's events come from: a channel that threads and the HTTP
//! transports fill, or, when both the client and the server are on stdio, the two
//! pipes themselves, polled by the relay's own thread. The second way has no thread
//! between a pipe and the relay: a message costs no hand-off from one thread to
//! another on its way in, only the read.

use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::Instant;

use super::relay::Event;

/// What a source gives next.
#[derive(Debug)]
pub(super) enum Next {
    /// An event.
    Event(Event),
    /// Nothing came in the time given.
    Timeout,
    /// Nothing can come any more.
    Closed,
}

/// The relay's events, in the order they came.
pub(super) trait Source {
    /// The next event, if one is there now.
    fn try_next(&mut self) -> Next;
    /// The next event, waiting for it until `until` (or for ever).
    fn next(&mut self, until: Option<Instant>) -> Next;
}

impl Source for Receiver<Event> {
    fn try_next(&mut self) -> Next {
        match self.try_recv() {
            Ok(event) => Next::Event(event),
            Err(TryRecvError::Empty) => Next::Timeout,
            Err(TryRecvError::Disconnected) => Next::Closed,
        }
    }

    fn next(&mut self, until: Option<Instant>) -> Next {
        let got = match until {
            Some(until) => self.recv_timeout(until.saturating_duration_since(Instant::now())),
            None => self.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match got {
            Ok(event) => Next::Event(event),
            Err(RecvTimeoutError::Timeout) => Next::Timeout,
            Err(RecvTimeoutError::Disconnected) => Next::Closed,
        }
    }
}

#[cfg(unix)]
pub(super) use polled::Pipes;

#[cfg(unix)]
mod polled {
    use std::collections::VecDeque;
    use std::io;
    use std::os::fd::{AsFd, BorrowedFd};
    use std::os::unix::net::UnixStream;
    use std::process::ChildStdout;
    use std::sync::Arc;
    use std::sync::mpsc::{Receiver, TryRecvError};
    use std::time::{Duration, Instant};

    use rustix::event::{PollFd, PollFlags, Timespec, poll};

    use super::{Next, Source};
    use crate::commands::proxy::Queued;
    use crate::commands::proxy::relay::Event;
    use crate::commands::proxy::wire::Read;

    /// How much one read takes from a pipe at most.
    const CHUNK: usize = 64 * 1024;

    /// The client's standard input and the server's standard output, read by the
    /// relay's thread when poll(2) says they have something; the signals come by
    /// `signals`, with a byte on `wake`.
    pub(in crate::commands::proxy) struct Pipes {
        client: Lines<io::StdinLock<'static>>,
        server: Lines<ChildStdout>,
        signals: Receiver<Event>,
        wake: UnixStream,
        room: Arc<Queued>,
        /// Which side is looked at first: they take turns.
        server_first: bool,
        chunk: Box<[u8]>,
    }

    impl Pipes {
        /// Reads the client from the process's standard input and the server from
        /// `server`, each message up to `limit` bytes; the client only while the
        /// server's queue `room` has room. A byte on the socket pair `wake` wakes the
        /// poll: the signal thread's, or the queue's when room comes back (its
        /// write end goes to the queue).
        pub(in crate::commands::proxy) fn new(
            server: ChildStdout,
            limit: usize,
            signals: Receiver<Event>,
            (wake, waker): (UnixStream, UnixStream),
            room: Arc<Queued>,
        ) -> Pipes {
            let _ = room.waker.set(waker);
            Pipes {
                client: Lines::new(io::stdin().lock(), limit),
                server: Lines::new(server, limit),
                signals,
                wake,
                room,
                server_first: false,
                chunk: vec![0; CHUNK].into_boxed_slice(),
            }
        }

        /// A message or an end already read, from the side whose turn it is.
        fn ready(&mut self) -> Option<Event> {
            self.server_first = !self.server_first;
            let server = |pipes: &mut Pipes| pipes.server.take().map(Event::Server);
            let client = |pipes: &mut Pipes| pipes.client.take().map(Event::Client);
            match self.server_first {
                true => server(self).or_else(|| client(self)),
                false => client(self).or_else(|| server(self)),
            }
        }

        /// Waits at most `wait` for a side (or a signal) to have something, and
        /// reads what each side that has something has.
        fn poll(&mut self, wait: Option<Duration>) {
            // While the server's queue is full, the client is not read: the queue
            // wakes the poll when room comes back.
            let client = !self.client.done() && self.room.has_room();
            let timeout = wait.map(|wait| {
                Timespec::try_from(wait).unwrap_or(Timespec {
                    tv_sec: i64::MAX,
                    tv_nsec: 0,
                })
            });
            let server = !self.server.done();
            let input = PollFlags::IN;
            // The wake socket first, then the sides looked at; the places after
            // them (the wake socket again) are not polled.
            let mut fds = [(); 3].map(|()| PollFd::new(&self.wake, input));
            let mut polled = 1;
            for (side, fd) in [(client, self.client.fd()), (server, self.server.fd())] {
                if side {
                    fds[polled] = PollFd::from_borrowed_fd(fd, input);
                    polled += 1;
                }
            }
            match poll(&mut fds[..polled], timeout.as_ref()) {
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => return,
                Err(err) => {
                    // Nothing can be waited for: both sides fail with why.
                    let err = io::Error::from(err);
                    self.client
                        .fail(io::Error::new(err.kind(), err.to_string()));
                    self.server.fail(err);
                    return;
                }
            }
            let [wake, first, second] = fds.map(|fd| fd.revents());
            let (client_flags, server_flags) = match client {
                true => (first, second),
                false => (PollFlags::empty(), first),
            };
            if !wake.is_empty() {
                // A signal's byte (the signal itself is in the channel), or the
                // queue's: the next look at the client finds its room.
                let mut byte = [0u8; 64];
                let _ = io::Read::read(&mut self.wake, &mut byte);
            }
            self.client.ready(client_flags, &mut self.chunk);
            self.server.ready(server_flags, &mut self.chunk);
        }
    }

    impl Source for Pipes {
        fn try_next(&mut self) -> Next {
            self.next(Some(Instant::now()))
        }

        fn next(&mut self, until: Option<Instant>) -> Next {
            let mut polled = false;
            loop {
                match self.signals.try_recv() {
                    Ok(event) => return Next::Event(event),
                    Err(TryRecvError::Empty | TryRecvError::Disconnected) => {}
                }
                if let Some(event) = self.ready() {
                    return Next::Event(event);
                }
                if self.client.done() && self.server.done() {
                    return Next::Closed;
                }
                let wait = until.map(|until| until.saturating_duration_since(Instant::now()));
                if polled && wait.is_some_and(|wait| wait.is_zero()) {
                    return Next::Timeout;
                }
                self.poll(wait);
                polled = true;
            }
        }
    }

    /// One side's stream cut into lines as [`crate::commands::proxy::wire::read_line`]
    /// cuts them: each line with its LF, at most `limit` bytes of it kept; a longer
    /// one skipped whole and counted. It is read only when all it gave before was
    /// taken, so it holds at most one read's lines and `limit` bytes of the next.
    struct Lines<F> {
        fd: F,
        limit: usize,
        /// The line being read, without its LF yet.
        partial: Vec<u8>,
        /// The bytes of a line over the limit skipped so far.
        skipping: Option<u64>,
        /// What was read and is not taken yet.
        out: VecDeque<Read>,
        /// How the stream ended, once it did; `None` in it once that was taken.
        ended: Option<Option<Read>>,
    }

    impl<F: AsFd> Lines<F> {
        fn new(fd: F, limit: usize) -> Lines<F> {
            Lines {
                fd,
                limit,
                partial: Vec::new(),
                skipping: None,
                out: VecDeque::new(),
                ended: None,
            }
        }

        fn fd(&self) -> BorrowedFd<'_> {
            self.fd.as_fd()
        }

        /// Whether everything was taken, the stream's end too: nothing more comes.
        fn done(&self) -> bool {
            self.out.is_empty() && matches!(self.ended, Some(None))
        }

        /// The stream failed with `err`: a line it cut is dropped (as
        /// `read_line` drops it), the lines before it are given, then the failure.
        fn fail(&mut self, err: io::Error) {
            if self.ended.is_none() {
                self.partial.clear();
                self.skipping = None;
                self.ended = Some(Some(Read::Failed(err)));
            }
        }

        /// The stream ended: a last line without its LF is given, then the end.
        fn end(&mut self) {
            if let Some(skipped) = self.skipping.take() {
                self.out.push_back(Read::Oversize(skipped));
            } else if !self.partial.is_empty() {
                self.out
                    .push_back(Read::Line(std::mem::take(&mut self.partial)));
            }
            self.ended = Some(Some(Read::End));
        }

        /// Reads what poll(2) says is there (`flags`), through `chunk`.
        fn ready(&mut self, flags: PollFlags, chunk: &mut [u8]) {
            if self.ended.is_some() || flags.is_empty() {
                return;
            }
            if flags.contains(PollFlags::NVAL) {
                self.fail(io::Error::new(
                    io::ErrorKind::BrokenPipe,
                    "the stream is not open",
                ));
                return;
            }
            // Readable, hung up or failed: one read tells which, without blocking.
            match rustix::io::read(&self.fd, &mut *chunk) {
                Ok(0) => self.end(),
                Ok(n) => self.append(&chunk[..n]),
                Err(rustix::io::Errno::INTR | rustix::io::Errno::AGAIN) => {}
                Err(err) => self.fail(err.into()),
            }
        }

        /// Cuts `bytes` into the lines they end.
        fn append(&mut self, mut bytes: &[u8]) {
            while let Some(at) = bytes.iter().position(|&b| b == b'\n') {
                let piece = &bytes[..=at];
                let read = match self.skipping.take() {
                    Some(skipped) => Read::Oversize(skipped.saturating_add(piece.len() as u64)),
                    None if self.partial.len() + at > self.limit => {
                        let len = self.partial.len() + piece.len();
                        self.partial.clear();
                        Read::Oversize(len as u64)
                    }
                    None => {
                        self.partial.extend_from_slice(piece);
                        Read::Line(std::mem::take(&mut self.partial))
                    }
                };
                self.out.push_back(read);
                bytes = &bytes[at + 1..];
            }
            if bytes.is_empty() {
                return;
            }
            self.skipping = match self.skipping {
                Some(skipped) => Some(skipped.saturating_add(bytes.len() as u64)),
                None if self.partial.len() + bytes.len() > self.limit => {
                    let len = self.partial.len() + bytes.len();
                    self.partial.clear();
                    Some(len as u64)
                }
                None => {
                    self.partial.extend_from_slice(bytes);
                    None
                }
            };
        }

        /// The next line, over-limit line or end, if there is one.
        fn take(&mut self) -> Option<Read> {
            match self.out.pop_front() {
                Some(read) => Some(read),
                None => self.ended.as_mut()?.take(),
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// What `bytes`, read in pieces of `step` bytes, gives with `limit`.
        fn cut(bytes: &[u8], step: usize, limit: usize) -> Vec<String> {
            let (fd, _) = UnixStream::pair().expect("a socket pair");
            let mut lines = Lines::new(fd, limit);
            let mut got = Vec::new();
            for piece in bytes.chunks(step) {
                lines.append(piece);
                while let Some(read) = lines.take() {
                    got.push(shown(read));
                }
            }
            lines.end();
            while let Some(read) = lines.take() {
                got.push(shown(read));
            }
            got
        }

        fn shown(read: Read) -> String {
            match read {
                Read::Line(line) => format!("line {:?}", String::from_utf8_lossy(&line)),
                Read::Oversize(n) => format!("over {n}"),
                Read::End => "end".to_owned(),
                Read::Failed(err) => format!("failed {err}"),
            }
        }

        /// What `wire::read_line` gives of the same bytes.
        fn by_read_line(bytes: &[u8], limit: usize) -> Vec<String> {
            let mut reader = io::BufReader::with_capacity(3, bytes);
            let mut buf = Vec::new();
            let mut got = Vec::new();
            loop {
                let read = crate::commands::proxy::wire::read_line(&mut reader, limit, &mut buf);
                let last = matches!(read, Read::End);
                got.push(shown(read));
                if last {
                    return got;
                }
            }
        }

        #[test]
        fn lines_are_cut_as_read_line_cuts_them_however_the_reads_fall() {
            let cases: [&[u8]; 8] = [
                b"",
                b"a\n",
                b"abc\nabcd\nabcde\n\n",
                b"abcdefgh\nab\n",
                b"ab\nabcdefghij",
                b"abcd",
                b"abcde",
                b"\n\nabcdefghijklmnop\nx\nabcdefg",
            ];
            for bytes in cases {
                let expected = by_read_line(bytes, 4);
                for step in 1..=bytes.len().max(1) {
                    assert_eq!(
                        cut(bytes, step, 4),
                        expected,
                        "{bytes:?} in pieces of {step}"
                    );
                }
            }
        }

        #[test]
        fn a_long_line_is_counted_not_held() {
            let (fd, _) = UnixStream::pair().expect("a socket pair");
            let mut lines = Lines::new(fd, 10);
            lines.append(&[b'x'; 4096]);
            lines.append(&[b'x'; 4096]);
            assert!(lines.partial.is_empty());
            assert!(lines.take().is_none());
            lines.append(b"y\nz");
            assert_eq!(lines.take().map(shown).as_deref(), Some("over 8194"));
            assert!(lines.take().is_none());
            assert_eq!(lines.partial, b"z");
        }
    }
}
