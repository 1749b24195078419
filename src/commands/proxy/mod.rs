//! `toolreplay proxy`: an MCP proxy. Over stdio, the client starts it in place of
//! its server and it starts the server; over Streamable HTTP it serves the client
//! at `/mcp` (`--listen`) or reaches the server at a URL (`--upstream`), in any
//! mix. It passes the JSON-RPC traffic through, decides each `tools/call` by the
//! scope policy, times out and cancels calls, checks results, pins tool
//! definitions, and seals every call into the session file as it ends
//! (docs/proxy.md). The transports only carry lines to and from the one relay.

mod answers;
mod listen;
mod pins;
mod relay;
mod seal;
mod source;
mod spans;
mod upstream;
mod wire;

use std::io::{self, BufRead, BufReader, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::args::ProxyArgs;
use crate::error::Error;
use crate::input::{self, ScopeFile};
use crate::printer::Status;
use pins::Pins;
use relay::{Ending, Event, Relay, Settings};
use seal::Recorder;
use source::Source;
use toolreplay_core::input::InputError;
use wire::{Read, read_line};

/// How long the server gets to exit after its input is closed, and again after
/// SIGTERM, before it is killed.
const GRACE: Duration = Duration::from_secs(2);

/// The exit status when the server ended the session.
const SERVER_ENDED: u8 = 3;

/// Runs the proxy; the exit status is documented in docs/proxy.md. What keeps it
/// from starting is an error (exit 2).
pub(crate) fn run(args: &ProxyArgs) -> Result<Status, Error> {
    let ScopeFile {
        scope,
        digest: policy,
    } = input::read_scope(&args.policy).map_err(|err| match err {
        // The proxy names the policy file that cannot start it, not a line of it.
        Error::Input(InputError::Input { path, message, .. }) => {
            Error::Input(InputError::Invalid { path, message })
        }
        other => other,
    })?;
    let pins = match &args.pin {
        Some(path) => Some(Pins::open(path, args.repin)?),
        None => None,
    };
    let listen = args.listen.as_deref().map(listen_address).transpose()?;
    let upstream_url = match &args.upstream {
        Some(text) => Some(upstream::parse_url(text).map_err(Error::Usage)?),
        None => None,
    };
    let listener = match listen {
        Some(address) => {
            Some(
                std::net::TcpListener::bind(address).map_err(|source| Error::Io {
                    what: format!("listen on {address}"),
                    source,
                })?,
            )
        }
        None => None,
    };
    let runtime = match listener.is_some() || upstream_url.is_some() {
        true => Some(
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_io()
                .enable_time()
                .build()
                .map_err(|source| Error::Io {
                    what: "start the HTTP transport".to_owned(),
                    source,
                })?,
        ),
        false => None,
    };
    let (events, receiver) = mpsc::sync_channel::<Event>(64);
    // Both ends on stdio: the relay's thread reads both pipes itself, and a byte on
    // the socket pair `polled` wakes it for a signal, or when the server's queue
    // has room again.
    #[cfg(unix)]
    let polled = {
        let signals_error = |source| Error::Io {
            what: "handle SIGINT and SIGTERM".to_owned(),
            source,
        };
        let wake = match listener.is_none() && upstream_url.is_none() {
            true => {
                let (read, write) =
                    std::os::unix::net::UnixStream::pair().map_err(signals_error)?;
                write.set_nonblocking(true).map_err(signals_error)?;
                Some((read, write))
            }
            false => None,
        };
        let write = wake.as_ref().map(|(_, write)| write.try_clone());
        forward_signals(events.clone(), write.transpose().map_err(signals_error)?)
            .map_err(signals_error)?;
        wake
    };
    #[cfg(not(unix))]
    let polled: Option<()> = None;
    let credentials = listen::Credentials::default();
    let (mut server, server_input, room, server_output): (Server, Box<dyn Write + Send>, _, _) =
        match (&upstream_url, &runtime) {
            (Some(url), Some(runtime)) => {
                let (upstream, input) = upstream::start(
                    runtime.handle(),
                    url.clone(),
                    events.clone(),
                    Arc::clone(&credentials),
                    args.max_message_bytes,
                    args.call_timeout,
                )
                .map_err(Error::Usage)?;
                (Server::Http(upstream), Box::new(input), None, None)
            }
            _ => {
                let (child, server_in, server_out, server_err) = start_server(&args.command)?;
                let (input, room, output) = spawn_server_pumps(
                    args.max_message_bytes,
                    (polled.is_none()).then_some(&events),
                    (server_in, server_out, server_err),
                );
                (Server::Child(child), Box::new(input), Some(room), output)
            }
        };
    let mut recorder = Recorder::open(&args.seal, &scope, &policy, !args.no_fsync);
    // A session whose file cannot be opened refuses every call: it exits 1.
    let broken = recorder.broken().is_some();
    let spans = match args.otlp && !broken {
        true => spans::start(&args.seal),
        false => None,
    };
    let spans = spans.map(|(sender, thread)| {
        recorder.send_links_to(sender);
        thread
    });
    if let Some(why) = recorder.broken() {
        let _ = writeln!(
            io::stderr().lock(),
            "toolreplay proxy: {why}: every tools/call will be refused"
        );
    }
    let (served, client_output): (Option<listen::Listener>, Box<dyn Write + Send>) =
        match (listener, &runtime) {
            (Some(listener), Some(runtime)) => {
                let (served, output) = listen::start(
                    runtime.handle(),
                    listener,
                    events.clone(),
                    room.clone(),
                    args.max_message_bytes,
                    Arc::clone(&credentials),
                )
                .map_err(|source| Error::Io {
                    what: "listen".to_owned(),
                    source,
                })?;
                let _ = writeln!(
                    io::stderr().lock(),
                    "toolreplay proxy: listening on http://{}/mcp",
                    served.address()
                );
                (Some(served), Box::new(output))
            }
            _ => {
                if polled.is_none() {
                    spawn_client_pump(args.max_message_bytes, &events, room.clone());
                }
                (None, Box::new(io::stdout()))
            }
        };
    drop(events);
    let mut source: Box<dyn Source> = match (polled, server_output, room) {
        #[cfg(unix)]
        (Some(wake), Some(output), Some(room)) => Box::new(source::Pipes::new(
            output,
            args.max_message_bytes,
            receiver,
            wake,
            room,
        )),
        _ => Box::new(receiver),
    };
    let settings = Settings {
        call_timeout: Some(args.call_timeout),
        on_sensitive: args.on_sensitive,
    };
    let mut relay = Relay::new(
        client_output,
        server_input,
        Box::new(io::stderr()),
        recorder,
        pins,
        settings,
    );
    let ending = relay.run(&mut *source);
    let code = end(&mut relay, ending, &mut *source, &mut server);
    if let Some(served) = &served {
        served.finish(GRACE);
    }
    let mut seal_failed = broken || relay.seal_failed();
    if let Err(why) = relay.close() {
        let _ = writeln!(io::stderr().lock(), "toolreplay proxy: {why}");
        seal_failed = true;
    }
    // The recorder is closed: the spans thread sends what is left, and ends.
    if let Some(thread) = spans {
        let _ = thread.join();
    }
    if let Some(runtime) = runtime {
        runtime.shutdown_timeout(Duration::from_millis(200));
    }
    let code = if seal_failed && code == 0 { 1 } else { code };
    Ok(Status::Code(code))
}

/// The address of `--listen`: HOST:PORT, :PORT or PORT; HOST is an IP address or
/// `localhost`, 127.0.0.1 when left out. Nothing else is listened on.
fn listen_address(text: &str) -> Result<SocketAddr, Error> {
    let bad = |why: &str| Error::Usage(format!("--listen {text:?}: {why}"));
    let (host, port) = match text.rsplit_once(':') {
        Some((host, port)) => (host, port),
        None => ("", text),
    };
    let port: u16 = port
        .parse()
        .map_err(|_| bad("not HOST:PORT, :PORT or PORT (a port is 0 to 65535)"))?;
    let ip = match host.trim_start_matches('[').trim_end_matches(']') {
        "" | "localhost" => IpAddr::V4(Ipv4Addr::LOCALHOST),
        host => host
            .parse()
            .map_err(|_| bad("the host is not an IP address nor localhost"))?,
    };
    Ok(SocketAddr::new(ip, port))
}

/// The server's side: a process of the proxy's, or an HTTP upstream.
enum Server {
    Child(Child),
    Http(upstream::Upstream),
}

/// Starts the server `command` with its standard streams piped.
fn start_server(
    command: &[std::ffi::OsString],
) -> Result<(Child, ChildStdin, ChildStdout, ChildStderr), Error> {
    let Some((program, program_args)) = command.split_first() else {
        return Err(Error::Usage("no server command after --".to_owned()));
    };
    let mut child = Command::new(program)
        .args(program_args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| Error::Io {
            what: format!("start the server {}", program.to_string_lossy()),
            source,
        })?;
    let (Some(server_in), Some(server_out), Some(server_err)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(Error::Usage(
            "the server's standard streams are not pipes".to_owned(),
        ));
    };
    Ok((child, server_in, server_out, server_err))
}

/// Starts the threads that write the server's input, read the server into
/// `events` when given (each message up to `limit` bytes), and pass its stderr on;
/// gives the server's input as the relay writes it, its queue, which the client's
/// side waits on for room, and its output when no thread reads it.
fn spawn_server_pumps(
    limit: usize,
    events: Option<&SyncSender<Event>>,
    (server_in, server_out, server_err): (ChildStdin, ChildStdout, ChildStderr),
) -> (ServerInput, Arc<Queued>, Option<ChildStdout>) {
    let queue = Arc::new(Queued::default());
    let server_in = spawn_server_writer(server_in, Arc::clone(&queue));
    let server_out = match events {
        Some(events) => {
            let server_events = events.clone();
            thread::spawn(move || {
                pump(
                    BufReader::new(server_out),
                    limit,
                    &server_events,
                    Event::Server,
                    None,
                )
            });
            None
        }
        None => Some(server_out),
    };
    thread::spawn(move || pass_stderr(server_err));
    (server_in, queue, server_out)
}

/// Starts the thread that reads the client (standard input) into `events`,
/// waiting for `room` in the server's queue, if any.
fn spawn_client_pump(limit: usize, events: &SyncSender<Event>, room: Option<Arc<Queued>>) {
    let client_events = events.clone();
    thread::spawn(move || {
        let stdin = io::stdin();
        pump(
            stdin.lock(),
            limit,
            &client_events,
            Event::Client,
            room.as_deref(),
        );
    });
}

/// Ends the session the relay ended with `ending`: the calls still pending are
/// ended, the server stopped; gives the exit status.
fn end(relay: &mut Relay, ending: Ending, events: &mut dyn Source, server: &mut Server) -> u8 {
    match ending {
        Ending::Client => {
            relay.end_all("the client ended the session first");
            relay.close_server();
            relay.drain(events, GRACE);
            server.stop();
            0
        }
        Ending::Server => {
            let reason = match server {
                Server::Child(child) => match wait_for(child, Duration::from_secs(1)) {
                    Some(status) => {
                        format!("the server ended ({}) first", shown_status(status))
                    }
                    None => "the server closed its output first".to_owned(),
                },
                Server::Http(_) => "the upstream's side ended first".to_owned(),
            };
            relay.end_all(&reason);
            relay.close_server();
            server.stop();
            SERVER_ENDED
        }
        Ending::Signal(signal) => {
            let name = if signal == 2 { "SIGINT" } else { "SIGTERM" };
            relay.end_all(&format!("the proxy was stopped by {name} first"));
            relay.close_server();
            server.stop();
            u8::try_from(128 + signal).unwrap_or(1)
        }
    }
}

impl Server {
    /// Stops the server whose input is closed: a process as [`stop`] does, an
    /// upstream's session ended (`DELETE`) within [`GRACE`].
    fn stop(&mut self) {
        match self {
            Server::Child(child) => stop(child),
            Server::Http(upstream) => upstream.stop(GRACE),
        }
    }
}

/// How many bytes may wait to be written to the server before the proxy stops
/// reading the client: the relay never blocks on the server's input (a server
/// that writes while the proxy writes to it would deadlock them), and the client
/// waits instead.
const SERVER_QUEUE: usize = 4 * 1024 * 1024;

/// The bytes queued for the server and not written yet; `None` once the server's
/// input is gone.
#[derive(Debug, Default)]
struct Queued {
    bytes: Mutex<Option<usize>>,
    changed: Condvar,
    /// Where a byte tells the relay's poll of both pipes (stdio) that room came
    /// back; non-blocking (a byte already there tells it as well).
    #[cfg(unix)]
    waker: std::sync::OnceLock<std::os::unix::net::UnixStream>,
}

/// Whether `bytes` queued leave room for more of the client.
fn room_in(bytes: Option<usize>) -> bool {
    bytes.is_none_or(|queued| queued <= SERVER_QUEUE)
}

impl Queued {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<usize>> {
        self.bytes
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn update(&self, f: impl FnOnce(&mut Option<usize>)) {
        let mut bytes = self.lock();
        let full = !room_in(*bytes);
        f(&mut bytes);
        let room = room_in(*bytes);
        drop(bytes);
        self.changed.notify_all();
        #[cfg(unix)]
        if full
            && room
            && let Some(mut waker) = self.waker.get()
        {
            let _ = waker.write(b"+");
        }
    }

    /// Whether there is room for more of the client.
    fn has_room(&self) -> bool {
        room_in(*self.lock())
    }

    /// Waits while more than [`SERVER_QUEUE`] bytes wait for the server.
    fn wait_for_room(&self) {
        let mut bytes = self.lock();
        while !room_in(*bytes) {
            bytes = self
                .changed
                .wait(bytes)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }
}

/// The server's input as the relay writes it. A message goes straight into the
/// pipe when nothing waits before it and the pipe takes it whole at once (its end
/// is non-blocking); otherwise what is left is queued for a thread that writes it,
/// so that the relay never blocks on the server and goes on reading it meanwhile.
/// Dropping it closes the server's input once the queue is written.
struct ServerInput {
    line: Vec<u8>,
    queue: Sender<Vec<u8>>,
    queued: Arc<Queued>,
    /// The pipe, written here while the queue is empty; `None` where it cannot be
    /// made non-blocking.
    direct: Option<Arc<ChildStdin>>,
}

impl Write for ServerInput {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.line.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.line.is_empty() {
            return Ok(());
        }
        let mut bytes = self.queued.lock();
        // Nothing queued: the writer thread is idle and waits for the queue, which
        // only this side fills, so the pipe is this side's until it queues again.
        if let (Some(0), Some(pipe)) = (*bytes, &self.direct) {
            let written = write_now(pipe, &self.line)?;
            if written == self.line.len() {
                self.line.clear();
                return Ok(());
            }
            self.line.drain(..written);
        }
        let line = std::mem::take(&mut self.line);
        let len = line.len();
        *bytes = bytes.map(|queued| queued + len);
        drop(bytes);
        self.queued.changed.notify_all();
        self.queue
            .send(line)
            .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))
    }
}

/// Writes what the non-blocking `pipe` takes of `line` now; gives how much.
fn write_now(mut pipe: &ChildStdin, line: &[u8]) -> io::Result<usize> {
    let mut written = 0;
    while written < line.len() {
        match pipe.write(&line[written..]) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
            Ok(n) => written += n,
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => break,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(written)
}

/// Writes all of `line` to `pipe`, waiting for room when it is non-blocking.
fn write_waiting(mut pipe: &ChildStdin, mut line: &[u8]) -> io::Result<()> {
    while !line.is_empty() {
        match pipe.write(line) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
            Ok(n) => line = &line[n..],
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => wait_writable(pipe)?,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    Ok(())
}

/// Makes the proxy's end of the server's input non-blocking (the server's end is
/// its own and stays as it is); gives whether it is.
#[cfg(unix)]
fn set_non_blocking(pipe: &ChildStdin) -> bool {
    rustix::io::ioctl_fionbio(pipe, true).is_ok()
}

#[cfg(not(unix))]
fn set_non_blocking(_: &ChildStdin) -> bool {
    false
}

/// Waits until `pipe` takes bytes again (or is broken).
#[cfg(unix)]
fn wait_writable(pipe: &ChildStdin) -> io::Result<()> {
    use rustix::event::{PollFd, PollFlags, poll};
    let mut fds = [PollFd::new(pipe, PollFlags::OUT)];
    match poll(&mut fds, None) {
        Ok(_) | Err(rustix::io::Errno::INTR) => Ok(()),
        Err(err) => Err(err.into()),
    }
}

#[cfg(not(unix))]
fn wait_writable(_: &ChildStdin) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::WouldBlock))
}

fn spawn_server_writer(stdin: ChildStdin, queued: Arc<Queued>) -> ServerInput {
    queued.update(|bytes| *bytes = Some(0));
    let stdin = Arc::new(stdin);
    let direct = set_non_blocking(&stdin).then(|| Arc::clone(&stdin));
    let (queue, lines): (Sender<Vec<u8>>, Receiver<Vec<u8>>) = mpsc::channel();
    let writer_queued = Arc::clone(&queued);
    thread::spawn(move || {
        for line in lines {
            if write_waiting(&stdin, &line).is_err() {
                break;
            }
            let len = line.len();
            writer_queued.update(|bytes| *bytes = bytes.map(|queued| queued.saturating_sub(len)));
        }
        // The server's input closes here (once the relay's side is dropped too);
        // nothing waits for room any more.
        drop(stdin);
        writer_queued.update(|bytes| *bytes = None);
    });
    ServerInput {
        line: Vec::new(),
        queue,
        queued,
        direct,
    }
}

/// Reads lines from `reader` and sends each, tagged by `side`, until the stream
/// ends or the relay is gone; with `room`, waits before each read while the
/// server's queue is full.
fn pump(
    mut reader: impl BufRead,
    limit: usize,
    events: &SyncSender<Event>,
    side: fn(Read) -> Event,
    room: Option<&Queued>,
) {
    let mut buf = Vec::new();
    loop {
        if let Some(room) = room {
            room.wait_for_room();
        }
        let read = read_line(&mut reader, limit, &mut buf);
        let last = matches!(read, Read::End | Read::Failed(_));
        if events.send(side(read)).is_err() || last {
            return;
        }
    }
}

/// Copies the server's stderr to the proxy's, a line at a time (long lines in
/// pieces), so that it does not interleave with the proxy's own notes mid-line.
fn pass_stderr(err: ChildStderr) {
    let mut reader = BufReader::new(err);
    let mut line = Vec::new();
    loop {
        line.clear();
        match io::Read::take(&mut reader, 64 * 1024).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                let stderr = io::stderr();
                let mut stderr = stderr.lock();
                let _ = stderr.write_all(&line).and_then(|()| stderr.flush());
            }
        }
    }
}

/// Sends SIGINT and SIGTERM to `events`, with a byte to `wake` when given (the
/// relay may be waiting in poll(2) rather than on `events`).
#[cfg(unix)]
fn forward_signals(
    events: SyncSender<Event>,
    mut wake: Option<std::os::unix::net::UnixStream>,
) -> io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            let _ = events.send(Event::Signal(signal));
            if let Some(wake) = wake.as_mut() {
                let _ = wake.write_all(b"!");
            }
        }
    });
    Ok(())
}

fn wait_for(child: &mut Child, within: Duration) -> Option<ExitStatus> {
    let until = Instant::now() + within;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(10)),
            Ok(None) | Err(_) => return None,
        }
    }
}

/// Stops the server whose input is closed: it gets [`GRACE`] to exit, then SIGTERM
/// (on Linux) and [`GRACE`] again, then it is killed.
fn stop(child: &mut Child) {
    if wait_for(child, GRACE).is_some() {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let pid = rustix::process::Pid::from_child(child);
        if rustix::process::kill_process(pid, rustix::process::Signal::TERM).is_ok()
            && wait_for(child, GRACE).is_some()
        {
            return;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn shown_status(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => "exit status unknown".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listen_address_is_on_the_local_host_unless_given() {
        let shown = |text: &str| listen_address(text).map(|address| address.to_string());
        assert_eq!(shown("8931").ok().as_deref(), Some("127.0.0.1:8931"));
        assert_eq!(shown(":8931").ok().as_deref(), Some("127.0.0.1:8931"));
        assert_eq!(shown("localhost:0").ok().as_deref(), Some("127.0.0.1:0"));
        assert_eq!(shown("0.0.0.0:80").ok().as_deref(), Some("0.0.0.0:80"));
        assert_eq!(shown("[::1]:8931").ok().as_deref(), Some("[::1]:8931"));
        for bad in ["", "host:1", "127.0.0.1", "1.2.3.4:x", ":65536"] {
            assert!(listen_address(bad).is_err(), "{bad}");
        }
    }
}
