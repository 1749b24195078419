//! `toolreplay proxy`: an MCP stdio proxy. The client starts it in place of its
//! server; it starts the server, passes the JSON-RPC traffic through, decides each
//! `tools/call` by the scope policy, times out and cancels calls, checks results,
//! pins tool definitions, and seals every call into the session file as it ends
//! (docs/proxy.md).

mod answers;
mod pins;
mod relay;
mod seal;
mod wire;

use std::ffi::OsString;
use std::io::{self, BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStderr, Command, ExitCode, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use toolreplay_core::Scope;

use crate::error::describe_io;
use crate::live::policy_digest;
use pins::Pins;
pub use relay::OnSensitive;
use relay::{Ending, Event, Relay, Settings};
use seal::Recorder;
use wire::{Read, read_line};

/// The default limit on one message, in bytes.
pub const DEFAULT_MAX_MESSAGE: usize = 16 * 1024 * 1024;

/// How long the server gets to exit after its input is closed, and again after
/// SIGTERM, before it is killed.
const GRACE: Duration = Duration::from_secs(2);

/// The exit status when the server ended the session.
const SERVER_ENDED: u8 = 3;

/// `toolreplay proxy`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The scope file every tools/call is decided by (docs/policy.md).
    #[arg(long, value_name = "SCOPE_FILE")]
    policy: PathBuf,
    /// The sealed session file every call is appended to as it ends (created when
    /// missing; an existing one must verify).
    #[arg(long, value_name = "FILE")]
    seal: PathBuf,
    /// Stop a call without a result after this long (e.g. 30s, 500ms, 2m): the
    /// server is sent notifications/cancelled, the client an error result.
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    call_timeout: Option<Duration>,
    /// Pin the tool definitions in this file: written on the first session, checked
    /// on later ones (a changed or new tool is taken out of tools/list and its calls
    /// are denied).
    #[arg(long, value_name = "PIN_FILE")]
    pin: Option<PathBuf>,
    /// Pin afresh: replace the pins in PIN_FILE with the definitions this session's
    /// server lists.
    #[arg(long, requires = "pin")]
    repin: bool,
    /// What a result a response detector matches in does: withhold it (the client
    /// gets an error result naming the detector) or flag it (it passes; stderr names
    /// the detector). The session file keeps the result either way.
    #[arg(long, value_name = "ACTION", default_value = "withhold")]
    on_sensitive: OnSensitive,
    /// Do not fsync the session file after each call (faster; a crash of the
    /// machine may lose the last calls).
    #[arg(long)]
    no_fsync: bool,
    /// The longest message passed on, in bytes; a longer one is not.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MESSAGE)]
    max_message_bytes: usize,
    /// The MCP server's command and its arguments.
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<OsString>,
}

/// Reads `30s`, `500ms`, `2m`, `1h`: a whole number and its unit.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let number: u64 = digits
        .parse()
        .map_err(|_| format!("{text:?} is not a duration: a whole number and ms, s, m or h"))?;
    let ms = match unit {
        "ms" => Some(number),
        "s" => number.checked_mul(1000),
        "m" => number.checked_mul(60_000),
        "h" => number.checked_mul(3_600_000),
        _ => None,
    };
    match ms {
        Some(0) => Err("the call timeout must be more than 0".to_owned()),
        Some(ms) => Ok(Duration::from_millis(ms)),
        None => Err(format!(
            "{text:?} is not a duration: a whole number and ms, s, m or h"
        )),
    }
}

fn startup_error(message: &str) -> ExitCode {
    let _ = writeln!(io::stderr().lock(), "error: {message}");
    ExitCode::from(2)
}

/// Runs the proxy; the exit status is documented in docs/proxy.md.
pub fn run(args: Args) -> ExitCode {
    let (scope, policy) = match std::fs::read(&args.policy) {
        Ok(bytes) => match Scope::parse(&bytes) {
            Ok(scope) => (scope, policy_digest(&bytes)),
            Err(err) => return startup_error(&format!("{}: {err}", args.policy.display())),
        },
        Err(err) => {
            return startup_error(&format!("{}: {}", args.policy.display(), describe_io(&err)));
        }
    };
    let pins = match &args.pin {
        Some(path) => match Pins::open(path, args.repin) {
            Ok(pins) => Some(pins),
            Err(err) => return startup_error(&err),
        },
        None => None,
    };
    let Some((program, program_args)) = args.command.split_first() else {
        return startup_error("no server command after --");
    };
    let (events, receiver) = mpsc::sync_channel::<Event>(64);
    #[cfg(unix)]
    if let Err(err) = forward_signals(events.clone()) {
        return startup_error(&format!("cannot handle SIGINT and SIGTERM: {err}"));
    }
    let mut child = match Command::new(program)
        .args(program_args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(err) => {
            return startup_error(&format!(
                "cannot start the server {}: {}",
                program.to_string_lossy(),
                describe_io(&err)
            ));
        }
    };
    let (Some(server_in), Some(server_out), Some(server_err)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return startup_error("the server's standard streams are not pipes");
    };
    let recorder = Recorder::open(&args.seal, &scope, &policy, !args.no_fsync);
    if let Some(why) = recorder.broken() {
        let _ = writeln!(
            io::stderr().lock(),
            "toolreplay proxy: {why}: every tools/call will be refused"
        );
    }
    let limit = args.max_message_bytes;
    let queue = Arc::new(Queued::default());
    let server_in = spawn_server_writer(server_in, Arc::clone(&queue));
    let client_events = events.clone();
    thread::spawn(move || {
        let stdin = io::stdin();
        pump(
            stdin.lock(),
            limit,
            &client_events,
            Event::Client,
            Some(&queue),
        );
    });
    let server_events = events;
    thread::spawn(move || {
        pump(
            BufReader::new(server_out),
            limit,
            &server_events,
            Event::Server,
            None,
        )
    });
    thread::spawn(move || pass_stderr(server_err));
    let settings = Settings {
        call_timeout: args.call_timeout,
        on_sensitive: args.on_sensitive,
    };
    let mut relay = Relay::new(
        Box::new(io::stdout()),
        Box::new(server_in),
        Box::new(io::stderr()),
        recorder,
        pins,
        settings,
    );
    let code = match relay.run(&receiver) {
        Ending::Client => {
            relay.end_all("the client ended the session first");
            relay.close_server();
            relay.drain(&receiver, GRACE);
            stop(&mut child);
            0
        }
        Ending::Server => {
            let status = wait_for(&mut child, Duration::from_secs(1));
            let reason = match status {
                Some(status) => format!("the server ended ({}) first", shown_status(status)),
                None => "the server closed its output first".to_owned(),
            };
            relay.end_all(&reason);
            relay.close_server();
            stop(&mut child);
            SERVER_ENDED
        }
        Ending::Signal(signal) => {
            let name = if signal == 2 { "SIGINT" } else { "SIGTERM" };
            relay.end_all(&format!("the proxy was stopped by {name} first"));
            relay.close_server();
            stop(&mut child);
            u8::try_from(128 + signal).unwrap_or(1)
        }
    };
    let mut seal_failed = relay.seal_failed();
    if let Err(why) = relay.close() {
        let _ = writeln!(io::stderr().lock(), "toolreplay proxy: {why}");
        seal_failed = true;
    }
    let code = if seal_failed && code == 0 { 1 } else { code };
    ExitCode::from(code)
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
}

impl Queued {
    fn update(&self, f: impl FnOnce(&mut Option<usize>)) {
        let mut bytes = self
            .bytes
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut bytes);
        self.changed.notify_all();
    }

    /// Waits while more than [`SERVER_QUEUE`] bytes wait for the server.
    fn wait_for_room(&self) {
        let mut bytes = self
            .bytes
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        while bytes.is_some_and(|queued| queued > SERVER_QUEUE) {
            bytes = self
                .changed
                .wait(bytes)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }
}

/// The server's input as the relay writes it: each flushed message is queued for a
/// thread that writes it to the server, so that the relay goes on reading the
/// server meanwhile. Dropping it closes the server's input once the queue is
/// written.
struct ServerInput {
    line: Vec<u8>,
    queue: Sender<Vec<u8>>,
    queued: Arc<Queued>,
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
        let line = std::mem::take(&mut self.line);
        let len = line.len();
        self.queued
            .update(|bytes| *bytes = bytes.map(|queued| queued + len));
        self.queue
            .send(line)
            .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))
    }
}

fn spawn_server_writer(mut stdin: std::process::ChildStdin, queued: Arc<Queued>) -> ServerInput {
    queued.update(|bytes| *bytes = Some(0));
    let (queue, lines): (Sender<Vec<u8>>, Receiver<Vec<u8>>) = mpsc::channel();
    let writer_queued = Arc::clone(&queued);
    thread::spawn(move || {
        for line in lines {
            if stdin.write_all(&line).and_then(|()| stdin.flush()).is_err() {
                break;
            }
            let len = line.len();
            writer_queued.update(|bytes| *bytes = bytes.map(|queued| queued.saturating_sub(len)));
        }
        // The server's input closes here; nothing waits for room any more.
        drop(stdin);
        writer_queued.update(|bytes| *bytes = None);
    });
    ServerInput {
        line: Vec::new(),
        queue,
        queued,
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

#[cfg(unix)]
fn forward_signals(events: SyncSender<Event>) -> io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            let _ = events.send(Event::Signal(signal));
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
    use std::time::Duration;

    use super::parse_duration;

    #[test]
    fn durations_are_a_number_and_a_unit() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        for bad in ["", "5", "s", "1.5s", "-1s", "5 s", "99999999999999999999h"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_duration("0s"),
            Err("the call timeout must be more than 0".to_owned())
        );
    }
}
