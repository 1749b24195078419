//! The relay between client and server: every message passes through here, in the
//! order it came, on one thread. `tools/call` requests are decided, their answers
//! checked and sealed; everything else passes unchanged.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::io::Write;
use std::ops::Range;
use std::time::{Duration, Instant};

use toolreplay_core::{Finding, FindingKind, SensitiveResponse, finding_message, quote_name};
use toolreplay_core::{Value, encode_canonical, parse_json};

use super::answers::{
    self, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, REFUSED, Revision,
    cancelled, error_result, rpc_error,
};
use super::pins::Pins;
use super::seal::{Outcome, Recorder, refused_response};
use super::source::{Next, Source};
use super::wire::{self, IdKey, Message, Read, get, id_key};

/// At most this many requests of each side are kept waiting for an answer; a
/// `tools/call` past it is denied, another request refused.
pub(super) const MAX_IN_FLIGHT: usize = 4096;

/// At most this many events are handled before the links they made ready are
/// flushed together (group commit), however fast more come.
const BATCH: usize = 64;

/// The ids of calls the proxy ended itself that are remembered, so that a late
/// answer to one is dropped quietly.
const ENDED_KEPT: usize = 4096;

pub(crate) use crate::args::OnSensitive;

/// What came in, from whom.
#[derive(Debug)]
pub(super) enum Event {
    /// A read from the client (standard input).
    Client(Read),
    /// A read from the server's standard output.
    Server(Read),
    /// SIGINT or SIGTERM.
    Signal(i32),
}

/// Why the relay stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ending {
    /// The client closed its end (or could not be written to any more).
    Client,
    /// The server closed its output.
    Server,
    /// A signal.
    Signal(i32),
}

/// The settings of a session.
#[derive(Debug, Clone, Copy)]
pub(super) struct Settings {
    /// How long a call may run.
    pub call_timeout: Option<Duration>,
    /// What a detector's match does.
    pub on_sensitive: OnSensitive,
}

/// A `tools/call` the server is running.
#[derive(Debug)]
struct Call {
    index: u64,
    tool: String,
    args: Value,
    id: Value,
    deadline: Option<Instant>,
    /// The protocol revision the call's messages are made in.
    revision: Revision,
    /// How many requests the call took: more than 1 when the server asked for
    /// input (`input_required`, 2026-07-28) and the client retried it.
    rounds: u32,
}

/// An answer waiting for its call's link to be durable.
#[derive(Debug)]
struct Held {
    id: Value,
    /// `None` when the client gets no answer (it cancelled the call).
    answer: Option<Vec<u8>>,
    /// Whether the answer is the server's (passed on or withheld), rather than
    /// the proxy's own (a denial, a timeout).
    answered: bool,
}

/// A call the proxy stopped waiting for (it timed out, or the session ended),
/// whose answer, should it come, is sealed as a late record of it.
#[derive(Debug, Clone)]
struct Stopped {
    index: u64,
    tool: String,
    args: Value,
}

/// The ids the proxy ended, oldest first, bounded: each with the call a late
/// answer belongs to, when it is sealed.
#[derive(Debug, Default)]
struct Ended {
    order: VecDeque<IdKey>,
    map: HashMap<IdKey, Option<Stopped>>,
}

impl Ended {
    fn insert(&mut self, key: IdKey, stopped: Option<Stopped>) {
        if self.map.insert(key.clone(), stopped).is_none() {
            self.order.push_back(key);
            if self.order.len() > ENDED_KEPT
                && let Some(old) = self.order.pop_front()
            {
                self.map.remove(&old);
            }
        }
    }

    fn contains(&self, key: &IdKey) -> bool {
        self.map.contains_key(key)
    }

    fn take(&mut self, key: &IdKey) -> Option<Option<Stopped>> {
        let stopped = self.map.remove(key)?;
        self.order.retain(|k| k != key);
        Some(stopped)
    }
}

/// What a client request other than `tools/call` is, for its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    /// `initialize`: its result negotiates the revision and may give instructions.
    Initialize,
    /// `tools/list`: its tools are pinned.
    ToolsList,
    /// `server/discover` (2026-07-28): its instructions (and tools, if any) are
    /// pinned.
    Discover,
    /// Anything else.
    Other,
}

/// The relay.
pub(super) struct Relay<'s> {
    client: Box<dyn Write + Send>,
    server: Option<Box<dyn Write + Send>>,
    log: Box<dyn Write + Send>,
    recorder: Recorder<'s>,
    pins: Option<Pins>,
    settings: Settings,
    /// The `tools/call` requests in flight, by id.
    calls: HashMap<IdKey, Call>,
    /// The calls the server answered with `input_required`, waiting for the
    /// client to retry them, oldest first, each with its [`retry_key`] (two
    /// calls alike may wait at once: a retry is the oldest's).
    awaiting: Vec<(Vec<u8>, Call)>,
    /// The other client requests in flight: what each is.
    requests: HashMap<IdKey, Asked>,
    /// The server's requests to the client in flight.
    server_requests: HashSet<IdKey>,
    ended: Ended,
    held: BTreeMap<u64, Held>,
    client_gone: bool,
    /// Whether a link could not be written.
    seal_failed: bool,
    client_lines: u64,
    server_lines: u64,
    /// The revision negotiated by `initialize`, or else the latest a request named.
    revision: Revision,
}

impl<'s> Relay<'s> {
    /// A relay writing to `client` (the proxy's standard output), `server` (the
    /// server's standard input) and `log` (standard error).
    pub(super) fn new(
        client: Box<dyn Write + Send>,
        server: Box<dyn Write + Send>,
        log: Box<dyn Write + Send>,
        recorder: Recorder<'s>,
        pins: Option<Pins>,
        settings: Settings,
    ) -> Relay<'s> {
        Relay {
            client,
            server: Some(server),
            log,
            recorder,
            pins,
            settings,
            calls: HashMap::new(),
            awaiting: Vec::new(),
            requests: HashMap::new(),
            server_requests: HashSet::new(),
            ended: Ended::default(),
            held: BTreeMap::new(),
            client_gone: false,
            seal_failed: false,
            client_lines: 0,
            server_lines: 0,
            revision: Revision::default(),
        }
    }

    /// Whether a call's link could not be written.
    pub(super) fn seal_failed(&self) -> bool {
        self.seal_failed
    }

    /// Ends the relay: the session's state is saved beside its file and the lock
    /// let go. Every call must be complete ([`Relay::end_all`]).
    pub(super) fn close(self) -> Result<(), crate::error::Error> {
        self.recorder.close()
    }

    /// Relays until the client or the server ends, or a signal comes.
    pub(super) fn run(&mut self, events: &mut dyn Source) -> Ending {
        let mut batch = 0;
        loop {
            // Every event already waiting is handled before the links they made
            // ready are flushed, with one fsync, and their answers move on.
            if batch < BATCH {
                match events.try_next() {
                    Next::Event(event) => {
                        batch += 1;
                        if let Some(ending) = self.handle(event) {
                            self.commit();
                            return ending;
                        }
                        continue;
                    }
                    Next::Timeout => {}
                    Next::Closed => {
                        self.commit();
                        return Ending::Client;
                    }
                }
            }
            batch = 0;
            self.commit();
            if self.client_gone {
                return Ending::Client;
            }
            let deadline = self
                .calls
                .values()
                .chain(self.awaiting.iter().map(|(_, call)| call))
                .filter_map(|call| call.deadline)
                .min();
            let event = match events.next(deadline) {
                Next::Event(event) => event,
                Next::Timeout => {
                    self.expire(Instant::now());
                    continue;
                }
                Next::Closed => return Ending::Client,
            };
            batch = 1;
            if let Some(ending) = self.handle(event) {
                self.commit();
                return ending;
            }
        }
    }

    /// Handles one event; gives why the relay stops, if it does.
    fn handle(&mut self, event: Event) -> Option<Ending> {
        {
            match event {
                Event::Client(Read::Line(line)) => {
                    self.client_lines += 1;
                    self.client_message(&line);
                }
                Event::Client(Read::Oversize(bytes)) => {
                    self.client_lines += 1;
                    self.client_oversize(bytes);
                }
                Event::Client(Read::End) => return Some(Ending::Client),
                Event::Client(Read::Failed(err)) => {
                    self.note(&format!("cannot read the client: {err}"));
                    return Some(Ending::Client);
                }
                Event::Server(Read::Line(line)) => {
                    self.server_lines += 1;
                    self.server_message(&line);
                }
                Event::Server(Read::Oversize(bytes)) => {
                    self.server_lines += 1;
                    self.note(&format!(
                        "server line {}: a message of {bytes} bytes, over the limit (--max-message-bytes): not passed on",
                        self.server_lines
                    ));
                }
                Event::Server(Read::End) => return Some(Ending::Server),
                Event::Server(Read::Failed(err)) => {
                    self.note(&format!("cannot read the server: {err}"));
                    return Some(Ending::Server);
                }
                Event::Signal(signal) => return Some(Ending::Signal(signal)),
            }
            if self.client_gone {
                return Some(Ending::Client);
            }
            None
        }
    }

    /// Flushes the links appended since the last flush, with one fsync, and sends
    /// the answers now durable; when the flush fails, no answer waiting moves on:
    /// each becomes an error result saying why.
    fn commit(&mut self) {
        match self.recorder.sync() {
            Ok(durable) => self.release(durable),
            Err(why) => {
                self.seal_failed = true;
                self.note(&why.to_string());
                self.fail_held(&why.to_string(), None);
            }
        }
    }

    /// Sends every answer waiting for its link (and `also`'s) as an error result:
    /// the link could not be written or flushed, for `why`.
    fn fail_held(&mut self, why: &str, also: Option<(Value, Revision)>) {
        let text =
            format!("toolreplay could not seal this call, so its result is not given: {why}");
        let held = std::mem::take(&mut self.held);
        let revision = also
            .as_ref()
            .map_or_else(|| self.revision.clone(), |(_, revision)| revision.clone());
        let ids: Vec<Value> = held
            .into_values()
            .filter(|held| held.answer.is_some())
            .map(|held| held.id)
            .chain(also.map(|(id, _)| id))
            .collect();
        for id in ids {
            self.send_client(&error_result(&id, &text, &revision));
        }
    }

    /// After the client ended: passes the server's messages on until the server
    /// closes its output or `grace` is over (late answers are dropped).
    pub(super) fn drain(&mut self, events: &mut dyn Source, grace: Duration) {
        let until = Instant::now() + grace;
        loop {
            match events.next(Some(until)) {
                Next::Event(Event::Server(Read::Line(line))) => {
                    self.server_lines += 1;
                    self.server_message(&line);
                    self.commit();
                }
                Next::Event(Event::Server(Read::End | Read::Failed(_)))
                | Next::Timeout
                | Next::Closed => return,
                Next::Event(_) => {}
            }
        }
    }

    /// Closes the server's standard input: the MCP way of telling it to exit.
    pub(super) fn close_server(&mut self) {
        self.server = None;
    }

    /// Ends every call in flight as having no result, for `reason`, in index order;
    /// the client gets an error result for each.
    pub(super) fn end_all(&mut self, reason: &str) {
        let mut awaiting: Vec<Call> = self.awaiting.drain(..).map(|(_, call)| call).collect();
        awaiting.sort_by_key(|call| call.index);
        for call in awaiting {
            // The client has the server's question; it gets nothing more.
            let outcome = Outcome::NoResult {
                reason: Some(format!("{reason} (the server had asked for input)")),
            };
            self.finish(&call, outcome, None);
        }
        let mut calls: Vec<(IdKey, Call)> = self.calls.drain().collect();
        calls.sort_by_key(|(_, call)| call.index);
        for (key, call) in calls {
            self.ended.insert(key, Some(call.stopped()));
            let text = format!(
                "toolreplay: tool {} has no result: {reason}",
                quote_name(&call.tool)
            );
            let answer = error_result(&call.id, &text, &call.revision);
            let outcome = Outcome::NoResult {
                reason: Some(reason.to_owned()),
            };
            self.finish(&call, outcome, Some(answer));
        }
        self.commit();
    }

    fn note(&mut self, text: &str) {
        // Nobody to tell if stderr is gone.
        let _ = writeln!(self.log, "toolreplay proxy: {text}");
    }

    fn send_client(&mut self, line: &[u8]) {
        if self.client_gone {
            return;
        }
        let written = self.client.write_all(line).and_then(|()| {
            if line.last() != Some(&b'\n') {
                self.client.write_all(b"\n")?;
            }
            self.client.flush()
        });
        if written.is_err() {
            self.client_gone = true;
        }
    }

    fn send_server(&mut self, line: &[u8]) {
        let Some(server) = self.server.as_mut() else {
            return;
        };
        let written = server.write_all(line).and_then(|()| {
            if line.last() != Some(&b'\n') {
                server.write_all(b"\n")?;
            }
            server.flush()
        });
        // A server that stopped reading: its output's end tells the rest.
        if written.is_err() {
            self.server = None;
        }
    }

    fn client_oversize(&mut self, bytes: u64) {
        let why = format!("a message of {bytes} bytes, over the limit (--max-message-bytes)");
        self.note(&format!(
            "client line {}: {why}: not passed on",
            self.client_lines
        ));
        let revision = self.revision.clone();
        self.send_client(&rpc_error(
            None,
            PARSE_ERROR,
            &format!("toolreplay proxy: {why}"),
            &revision,
        ));
    }

    fn client_message(&mut self, line: &[u8]) {
        let refused = |relay: &mut Relay, code, why: String| {
            relay.note(&format!(
                "client line {}: {why}: not passed on",
                relay.client_lines
            ));
            let revision = relay.revision.clone();
            relay.send_client(&rpc_error(
                None,
                code,
                &format!("toolreplay proxy: {why}"),
                &revision,
            ));
        };
        match wire::classify(line) {
            Message::Blank => self.send_server(line),
            Message::NotJson(why) => refused(self, PARSE_ERROR, format!("not JSON ({why})")),
            Message::Batch => refused(
                self,
                INVALID_REQUEST,
                "a JSON-RPC batch (the proxy passes single messages only)".to_owned(),
            ),
            Message::Invalid(why) => {
                refused(self, INVALID_REQUEST, format!("not a message ({why})"))
            }
            Message::Mixed { .. } => refused(self, INVALID_REQUEST, MIXED.to_owned()),
            Message::Request { method, id, params } if method == "tools/call" => {
                self.tool_call(line, id, params.as_ref());
            }
            Message::Request { method, id, params } => {
                let key = id_key(&id);
                let revision = Revision::of_request(params.as_ref());
                if revision.is_known() {
                    self.revision = revision.clone();
                }
                let why = if let Some(why) = self.in_flight(&key, &id) {
                    Some(why)
                } else if self.requests.len() >= MAX_IN_FLIGHT {
                    Some(format!("more than {MAX_IN_FLIGHT} requests in flight"))
                } else {
                    None
                };
                match why {
                    Some(why) => {
                        self.note(&format!(
                            "client line {}: {method}: {why}: not passed on",
                            self.client_lines
                        ));
                        let revision = self.revision.clone();
                        self.send_client(&rpc_error(
                            Some(&id),
                            REFUSED,
                            &format!("toolreplay proxy: {why}"),
                            &revision,
                        ));
                    }
                    None => {
                        let asked = match method.as_str() {
                            "initialize" => Asked::Initialize,
                            "tools/list" => Asked::ToolsList,
                            "server/discover" => Asked::Discover,
                            _ => Asked::Other,
                        };
                        self.requests.insert(key, asked);
                        self.send_server(line);
                    }
                }
            }
            Message::Notification { method, params } if method == "tools/call" => {
                self.tool_call_without_id(params.as_ref());
            }
            Message::Notification { method, params } => {
                self.send_server(line);
                if method == "notifications/cancelled" {
                    self.client_cancelled(params.as_ref());
                }
            }
            Message::Response { id, .. } => {
                if self.server_requests.remove(&id_key(&id)) {
                    self.send_server(line);
                } else {
                    self.note(&format!(
                        "client line {}: an answer to id {}, which no server request is waiting for: dropped",
                        self.client_lines,
                        shown(&id)
                    ));
                }
            }
        }
    }

    /// A `tools/call` request.
    fn tool_call(&mut self, line: &[u8], id: Value, params: Option<&Value>) {
        let mut revision = Revision::of_request(params);
        if revision.is_known() {
            self.revision = revision.clone();
        } else {
            revision = self.revision.clone();
        }
        let (tool, args) = match call_parts(params) {
            Ok(parts) => parts,
            Err(why) => {
                self.note(&format!(
                    "client line {}: tools/call {why}: not passed on",
                    self.client_lines
                ));
                self.send_client(&rpc_error(
                    Some(&id),
                    INVALID_PARAMS,
                    &format!("toolreplay proxy: tools/call {why}"),
                    &revision,
                ));
                return;
            }
        };
        let key = id_key(&id);
        if self.in_flight(&key, &id).is_none()
            && is_retry(params)
            && let Some(at) = {
                let retried = retry_key(&tool, &args);
                self.awaiting.iter().position(|(key, _)| *key == retried)
            }
        {
            // The same call again, with the input the server asked for: not decided
            // anew, one record and one count.
            let (_, mut call) = self.awaiting.remove(at);
            call.id = id;
            call.rounds += 1;
            call.revision = revision;
            call.deadline = self
                .settings
                .call_timeout
                .map(|timeout| Instant::now() + timeout);
            self.calls.insert(key, call);
            self.send_server(line);
            return;
        }
        let mut refusals = Vec::new();
        if let Some(why) = self.in_flight(&key, &id) {
            refusals.push(why);
        } else if self.calls.len() >= MAX_IN_FLIGHT {
            refusals.push(format!("more than {MAX_IN_FLIGHT} calls in flight"));
        }
        if let Some(why) = self.pins.as_ref().and_then(|pins| pins.refusal(&tool)) {
            refusals.push(why);
        }
        let ids = super::seal::call_ids(&id, revision.name());
        let decided = match self.recorder.decide(&tool, &args, ids) {
            Ok(decided) => decided,
            Err(why) => {
                self.note(&format!(
                    "client line {}: tools/call to {} refused: {why}",
                    self.client_lines,
                    quote_name(&tool)
                ));
                let text = format!("toolreplay refused this call: {why}");
                self.send_client(&error_result(&id, &text, &revision));
                return;
            }
        };
        let call = Call {
            index: decided.index,
            tool,
            args,
            id,
            deadline: self
                .settings
                .call_timeout
                .map(|timeout| Instant::now() + timeout),
            revision,
            rounds: 1,
        };
        if decided.findings.is_empty() && refusals.is_empty() {
            self.release(decided.durable);
            self.calls.insert(key, call);
            self.send_server(line);
            return;
        }
        let text = denial_text(&decided.findings, &refusals, self.recorder.agent());
        let answer = error_result(&call.id, &text, &call.revision);
        if decided.findings.is_empty() {
            self.release(decided.durable);
            let outcome = Outcome::Response(refused_response(&refusals));
            self.finish(&call, outcome, Some(answer));
        } else {
            // Denied by the policy: complete already, sealed as denied.
            self.hold(&call, Some(answer));
            self.release(decided.durable);
        }
    }

    /// A `tools/call` without an id: it is never passed on (nobody could be given
    /// its result), but it is a call, so it is recorded as denied.
    fn tool_call_without_id(&mut self, params: Option<&Value>) {
        let why = "a tools/call without an id (a notification) is never passed on";
        self.note(&format!("client line {}: {why}", self.client_lines));
        let Ok((tool, args)) = call_parts(params) else {
            return;
        };
        let ids = super::seal::call_ids(&Value::Null, self.revision.name());
        let Ok(decided) = self.recorder.decide(&tool, &args, ids) else {
            return;
        };
        let call = Call {
            index: decided.index,
            tool,
            args,
            id: Value::Null,
            deadline: None,
            revision: Revision::default(),
            rounds: 1,
        };
        if decided.findings.is_empty() {
            self.release(decided.durable);
            let outcome = Outcome::Response(refused_response(&[why.to_owned()]));
            self.finish(&call, outcome, None);
        } else {
            self.hold(&call, None);
            self.release(decided.durable);
        }
    }

    fn client_cancelled(&mut self, params: Option<&Value>) {
        let Some(id) = params.and_then(|params| get(params, "requestId")) else {
            return;
        };
        let key = id_key(id);
        let reason = match params.and_then(|params| get(params, "reason")) {
            Some(Value::Str(reason)) => Some(reason.clone()),
            _ => None,
        };
        let Some(call) = self.calls.remove(&key) else {
            // Another request: its late answer, if any, is dropped quietly.
            if self.requests.remove(&key).is_some() {
                self.ended.insert(key, None);
            } else {
                self.cancel_held(&key, reason);
            }
            return;
        };
        self.ended.insert(key, None);
        self.finish(&call, Outcome::Cancelled { reason }, None);
    }

    /// A call the client cancelled whose answer waits for an earlier call's link:
    /// the answer is not given, and a result of the server's is sealed as
    /// `cancelled` instead.
    fn cancel_held(&mut self, key: &IdKey, reason: Option<String>) {
        if let Some(at) = self
            .awaiting
            .iter()
            .position(|(_, call)| id_key(&call.id) == *key)
        {
            let (_, call) = self.awaiting.remove(at);
            // A call waiting for the client to retry it after the server asked for
            // input: the client gave up.
            return self.finish(&call, Outcome::Cancelled { reason }, None);
        }
        let Some((&index, held)) = self
            .held
            .iter_mut()
            .find(|(_, held)| held.answer.is_some() && id_key(&held.id) == *key)
        else {
            return;
        };
        if !held.answered {
            held.answer = None;
            return;
        }
        // A call sealed with its result before the cancellation came (its link
        // waits for the flush) cannot be amended: its answer goes on, as sealed.
        if self
            .recorder
            .amend(index, Outcome::Cancelled { reason })
            .is_ok()
        {
            if let Some(held) = self.held.get_mut(&index) {
                held.answer = None;
            }
            self.note(&format!(
                "call {index} was cancelled by the client while its result waited for an earlier call: sealed as cancelled, not passed on"
            ));
        }
    }

    /// Why request id `id` cannot be taken now, if it cannot: a request with it is
    /// in flight, its answer waits for an earlier call, or the server may still
    /// answer it (MCP: an id is never reused in a session).
    fn in_flight(&self, key: &IdKey, id: &Value) -> Option<String> {
        if self.calls.contains_key(key)
            || self.requests.contains_key(key)
            || self
                .held
                .values()
                .any(|held| held.answer.is_some() && id_key(&held.id) == *key)
        {
            Some(format!("request id {} is already in flight", shown(id)))
        } else if self.ended.contains(key) {
            Some(format!(
                "request id {} may still be answered by the server (the proxy stopped waiting for it); an id is not reused in a session",
                shown(id)
            ))
        } else {
            None
        }
    }

    fn server_message(&mut self, line: &[u8]) {
        let dropped = |relay: &mut Relay, why: String| {
            let at = relay.server_lines;
            relay.note(&format!("server line {at}: {why}: not passed on"));
        };
        match wire::classify(line) {
            Message::Blank => self.send_client(line),
            Message::NotJson(why) => dropped(self, format!("not JSON ({why})")),
            Message::Batch => dropped(
                self,
                "a JSON-RPC batch (the proxy passes single messages only)".to_owned(),
            ),
            Message::Invalid(why) => dropped(self, format!("not a message ({why})")),
            Message::Mixed { id } => self.server_mixed(id),
            Message::Request { id, .. } => {
                let key = id_key(&id);
                if self.server_requests.contains(&key) {
                    dropped(
                        self,
                        format!("request id {} is already in flight", shown(&id)),
                    );
                } else if self.server_requests.len() >= MAX_IN_FLIGHT {
                    dropped(
                        self,
                        format!("more than {MAX_IN_FLIGHT} requests in flight"),
                    );
                } else {
                    self.server_requests.insert(key);
                    self.send_client(line);
                }
            }
            Message::Notification { method, params } => {
                // A request of its own the server cancels needs no answer any more.
                if method == "notifications/cancelled"
                    && let Some(id) = params.as_ref().and_then(|params| get(params, "requestId"))
                {
                    self.server_requests.remove(&id_key(id));
                }
                self.send_client(line);
            }
            Message::Response { id, result, error } => {
                let key = id_key(&id);
                if let Some(call) = self.calls.remove(&key) {
                    self.call_answered(call, line, result, error);
                } else if let Some(asked) = self.requests.remove(&key) {
                    self.answered(line, asked, result.as_ref());
                } else if let Some(stopped) = self.ended.take(&key) {
                    match stopped {
                        Some(stopped) => self.late(&stopped, &id, result, error),
                        None => self.note(&format!(
                            "server line {}: a late answer to request {}, which was cancelled: dropped",
                            self.server_lines,
                            shown(&id)
                        )),
                    }
                } else {
                    dropped(
                        self,
                        format!(
                            "an answer to id {}, which no request is waiting for",
                            shown(&id)
                        ),
                    );
                }
            }
        }
    }

    /// A message of the server's with both `method` and `result` or `error`: not a
    /// request nor an answer, never passed on. A call or request waiting for its
    /// id ends with an error, as for an answer with both `result` and `error`.
    fn server_mixed(&mut self, id: Option<Value>) {
        let at = self.server_lines;
        let key = id.as_ref().map(id_key);
        let call = key.as_ref().and_then(|key| self.calls.remove(key));
        let request = key.as_ref().and_then(|key| self.requests.remove(key));
        self.note(&format!("server line {at}: {MIXED}: not passed on"));
        if let Some(call) = call {
            let reason = format!("the server's answer is malformed: {MIXED}");
            let text = format!(
                "toolreplay: tool {} has no result: {reason}",
                quote_name(&call.tool)
            );
            let answer = error_result(&call.id, &text, &call.revision);
            let outcome = Outcome::NoResult {
                reason: Some(reason),
            };
            self.finish(&call, outcome, Some(answer));
        } else if let (Some(_), Some(id)) = (request, id) {
            let revision = self.revision.clone();
            self.send_client(&rpc_error(
                Some(&id),
                INTERNAL_ERROR,
                &format!("toolreplay proxy: the server's answer is malformed: {MIXED}"),
                &revision,
            ));
        }
    }

    /// The late answer of a call the proxy stopped waiting for: sealed as a late
    /// record of it, never passed on (the client had its answer).
    fn late(&mut self, stopped: &Stopped, id: &Value, result: Option<Value>, error: Option<Value>) {
        let outcome = match (result, error) {
            (Some(result), None) => Outcome::Response(result),
            (None, Some(error)) => Outcome::Error(error),
            _ => Outcome::NoResult {
                reason: Some("the server's answer has both \"result\" and \"error\"".to_owned()),
            },
        };
        let at = self.server_lines;
        match self
            .recorder
            .record_late(&stopped.tool, &stopped.args, stopped.index, outcome)
        {
            Ok((index, durable)) => {
                self.note(&format!(
                    "server line {at}: a late answer to request {} (call {}), which the proxy stopped waiting for: sealed as late record {index}, not passed on",
                    shown(id),
                    stopped.index
                ));
                self.release(durable);
            }
            Err(why) => {
                self.seal_failed = true;
                self.note(&format!(
                    "server line {at}: a late answer to request {}: not passed on, and not sealed: {why}",
                    shown(id)
                ));
            }
        }
    }

    /// The answer to a request other than `tools/call`: passed on; an
    /// `initialize` result names the revision; a `tools/list` result has its
    /// unpinned tools taken out, and an `initialize` or `server/discover` result
    /// its instructions when they are not pinned.
    fn answered(&mut self, line: &[u8], asked: Asked, result: Option<&Value>) {
        if asked == Asked::Initialize
            && let Some(Value::Str(version)) = result.and_then(|r| get(r, "protocolVersion"))
        {
            self.revision = Revision::named(version);
        }
        let checked = match (&mut self.pins, asked, result) {
            (Some(pins), Asked::ToolsList, Some(result)) => pins.check_listing(result),
            (Some(pins), Asked::Initialize, Some(result)) => pins.check_instructions(result),
            (Some(pins), Asked::Discover, Some(result)) => {
                let mut checked = pins.check_instructions(result);
                let listed = pins.check_listing(checked.result.as_ref().unwrap_or(result));
                checked.notes.extend(listed.notes);
                if listed.result.is_some() {
                    checked.result = listed.result;
                }
                checked
            }
            _ => return self.send_client(line),
        };
        for note in &checked.notes {
            self.note(note);
        }
        match checked.result {
            None => self.send_client(line),
            Some(result) => {
                let rewritten = match wire::classify(line) {
                    // Read again only when a tool was taken out.
                    Message::Response { .. } => {
                        let text = std::str::from_utf8(line).unwrap_or_default();
                        parse_json(text)
                            .map(|message| answers::with_result(&message, result))
                            .ok()
                    }
                    _ => None,
                };
                if let Some(rewritten) = rewritten {
                    self.send_client(&rewritten);
                }
            }
        }
    }

    fn call_answered(
        &mut self,
        mut call: Call,
        line: &[u8],
        result: Option<Value>,
        error: Option<Value>,
    ) {
        if let (Some(result), None) = (&result, &error)
            && get(result, "resultType") == Some(&Value::Str("input_required".to_owned()))
        {
            // An interim answer: the client answers the server's questions and
            // retries the call; it is sealed once, with its final result.
            self.note(&format!(
                "call {} to tool {} asked for input (round {}): passed on, waiting for the client to retry it",
                call.index,
                quote_name(&call.tool),
                call.rounds
            ));
            call.deadline = self
                .settings
                .call_timeout
                .map(|timeout| Instant::now() + timeout);
            self.awaiting
                .push((retry_key(&call.tool, &call.args), call));
            self.send_client(line);
            return;
        }
        let rounds = call.rounds;
        let outcome = match (result, error) {
            (Some(result), None) if rounds > 1 => Outcome::Response(Value::object([(
                "toolreplay",
                Value::object([
                    ("outcome", Value::Str("after-input".to_owned())),
                    ("response", result),
                    ("rounds", Value::Int(rounds.to_string().into())),
                ]),
            )])),
            (Some(result), None) => Outcome::Response(result),
            (None, Some(error)) => Outcome::Error(error),
            _ => {
                let reason = "the server's answer has both \"result\" and \"error\"".to_owned();
                self.note(&format!("server line {}: {reason}", self.server_lines));
                let text = format!(
                    "toolreplay: tool {} has no result: {reason}",
                    quote_name(&call.tool)
                );
                let answer = error_result(&call.id, &text, &call.revision);
                let outcome = Outcome::NoResult {
                    reason: Some(reason),
                };
                return self.finish(&call, outcome, Some(answer));
            }
        };
        let Some((found, durable)) = self.complete(&call, outcome, true) else {
            return;
        };
        let answer = if found.is_empty() {
            line.to_vec()
        } else {
            let detectors = detectors(&found);
            let tool = quote_name(&call.tool);
            match self.settings.on_sensitive {
                OnSensitive::Withhold => {
                    self.note(&format!(
                        "the result of call {} to tool {tool} was withheld: {detectors}",
                        call.index
                    ));
                    let text =
                        format!("toolreplay withheld the result of tool {tool}: {detectors}");
                    error_result(&call.id, &text, &call.revision)
                }
                OnSensitive::Flag => {
                    self.note(&format!(
                        "the result of call {} to tool {tool} was passed on (--on-sensitive flag): {detectors}",
                        call.index
                    ));
                    line.to_vec()
                }
            }
        };
        self.held.insert(
            call.index,
            Held {
                id: call.id.clone(),
                answer: Some(answer),
                answered: true,
            },
        );
        self.release(durable);
    }

    fn expire(&mut self, now: Instant) {
        let Some(timeout) = self.settings.call_timeout else {
            return;
        };
        let mut due: Vec<IdKey> = self
            .calls
            .iter()
            .filter(|(_, call)| call.deadline.is_some_and(|deadline| deadline <= now))
            .map(|(key, _)| key.clone())
            .collect();
        due.sort_by_key(|key| self.calls.get(key).map(|call| call.index));
        let after_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        let (unretried, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.awaiting)
            .into_iter()
            .partition(|(_, call)| call.deadline.is_some_and(|deadline| deadline <= now));
        self.awaiting = waiting;
        let mut unretried: Vec<Call> = unretried.into_iter().map(|(_, call)| call).collect();
        unretried.sort_by_key(|call| call.index);
        for call in unretried {
            let within = shown_duration(timeout);
            self.note(&format!(
                "call {} to tool {}: the client did not retry it within {within} of the server asking for input",
                call.index,
                quote_name(&call.tool)
            ));
            let outcome = Outcome::NoResult {
                reason: Some(format!(
                    "the server asked for input, and the client did not retry the call within {within} (--call-timeout)"
                )),
            };
            self.finish(&call, outcome, None);
        }
        for key in due {
            let Some(call) = self.calls.remove(&key) else {
                continue;
            };
            self.ended.insert(key, Some(call.stopped()));
            let within = shown_duration(timeout);
            let reason = format!("toolreplay: no result within {within} (--call-timeout)");
            self.send_server(&cancelled(&call.id, &reason));
            self.note(&format!(
                "call {} to tool {} gave no result within {within}: the server was told to cancel it",
                call.index,
                quote_name(&call.tool)
            ));
            let text = format!(
                "toolreplay stopped this call: tool {} gave no result within {within} (--call-timeout), and the server was told to cancel it",
                quote_name(&call.tool)
            );
            let answer = error_result(&call.id, &text, &call.revision);
            self.finish(&call, Outcome::TimedOut { after_ms }, Some(answer));
        }
    }

    /// Seals `call` with `outcome`; `answer` goes to the client once the call's link
    /// (and every earlier one) is durable.
    fn finish(&mut self, call: &Call, outcome: Outcome, answer: Option<Vec<u8>>) {
        let wants_answer = answer.is_some();
        if let Some((_, durable)) = self.complete(call, outcome, wants_answer) {
            self.hold(call, answer);
            self.release(durable);
        }
    }

    /// Completes `call` with `outcome`: the detectors' findings and the indices now
    /// durable. When the link cannot be written, no result moves on unsealed: every
    /// answer waiting (and this call's, if `wants_answer`) becomes an error result
    /// saying why.
    fn complete(
        &mut self,
        call: &Call,
        outcome: Outcome,
        wants_answer: bool,
    ) -> Option<(Vec<Finding>, Range<u64>)> {
        match self.recorder.complete(call.index, outcome) {
            Ok(done) => Some(done),
            Err(why) => {
                self.seal_failed = true;
                self.note(&why.to_string());
                let also = wants_answer.then(|| (call.id.clone(), call.revision.clone()));
                self.fail_held(&why.to_string(), also);
                None
            }
        }
    }

    /// Keeps `answer` until the link of `call` is durable.
    fn hold(&mut self, call: &Call, answer: Option<Vec<u8>>) {
        self.held.insert(
            call.index,
            Held {
                id: call.id.clone(),
                answer,
                answered: false,
            },
        );
    }

    /// Sends the answers of the calls whose links are now durable, in index order.
    fn release(&mut self, durable: Range<u64>) {
        for index in durable {
            if let Some(Held {
                answer: Some(answer),
                ..
            }) = self.held.remove(&index)
            {
                self.send_client(&answer);
            }
        }
    }
}

impl Call {
    fn stopped(&self) -> Stopped {
        Stopped {
            index: self.index,
            tool: self.tool.clone(),
            args: self.args.clone(),
        }
    }
}

/// What matches a retried call to the call the server asked input for: its tool
/// and canonical arguments.
fn retry_key(tool: &str, args: &Value) -> Vec<u8> {
    let mut key = encode_canonical(&Value::Str(tool.to_owned()));
    key.extend_from_slice(&encode_canonical(args));
    key
}

/// Whether a `tools/call`'s params carry the client's answers to the server's
/// questions (`inputResponses`) or the server's state (`requestState`): a retry.
fn is_retry(params: Option<&Value>) -> bool {
    params.is_some_and(|params| {
        get(params, "inputResponses").is_some() || get(params, "requestState").is_some()
    })
}

/// Why a message with both `method` and `result` or `error` is not passed on.
const MIXED: &str =
    "a message with both \"method\" and \"result\" or \"error\" (neither a request nor an answer)";

/// The tool and arguments of a `tools/call`: `params.name`, a non-empty string,
/// and `params.arguments`, an object (`{}` when absent).
fn call_parts(params: Option<&Value>) -> Result<(String, Value), String> {
    let Some(params @ Value::Object(_)) = params else {
        return Err("without params (an object)".to_owned());
    };
    let tool = match get(params, "name") {
        Some(Value::Str(name)) if !name.is_empty() => name.clone(),
        _ => return Err("without a tool name (params.name, a non-empty string)".to_owned()),
    };
    let args = match get(params, "arguments") {
        None => Value::Object(Vec::new()),
        Some(args @ Value::Object(_)) => args.clone(),
        Some(other) => {
            return Err(format!(
                "with arguments that are {}, not an object",
                other.described()
            ));
        }
    };
    Ok((tool, args))
}

/// An id as messages show it: its JSON.
fn shown(id: &Value) -> String {
    String::from_utf8_lossy(&id_key(id)).into_owned()
}

/// A duration as the proxy's words give it: `500 ms`, `2 s`.
pub(super) fn shown_duration(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

/// What the model is told of a denied call: the findings' messages, then the
/// proxy's own reasons.
fn denial_text(findings: &[Finding], refusals: &[String], agent: &str) -> String {
    let reasons: Vec<String> = findings
        .iter()
        .map(|finding| finding_message(finding, agent))
        .chain(refusals.iter().cloned())
        .collect();
    format!("toolreplay denied this call: {}", reasons.join("; "))
}

/// The detectors that matched, named, never what they matched.
fn detectors(found: &[Finding]) -> String {
    let mut names: Vec<String> = Vec::new();
    let mut unscannable = false;
    for finding in found {
        match &finding.kind {
            FindingKind::SensitiveResponse(SensitiveResponse::Match { detector, .. }) => {
                let name = quote_name(detector);
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            _ => unscannable = true,
        }
    }
    let mut parts = Vec::new();
    if !names.is_empty() {
        let word = if names.len() == 1 {
            "detector"
        } else {
            "detectors"
        };
        parts.push(format!("it matches {word} {}", names.join(", ")));
    }
    if unscannable {
        parts.push("it cannot be scanned".to_owned());
    }
    parts.join(", and ")
}
