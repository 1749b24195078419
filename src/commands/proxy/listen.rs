//! `--listen`: the client's side over MCP's Streamable HTTP transport. The proxy
//! serves `POST`, `GET` and `DELETE` at `/mcp` on the one address given; each
//! JSON-RPC message a `POST` carries goes to the relay as one line, exactly as a
//! line of standard input would, and what the relay writes to the client goes back
//! on the `POST` stream of the request it answers (the newest `POST` stream still
//! open, or the `GET` stream, for the server's own requests and notifications).
//!
//! One session per proxy: the `initialize` request opens it (its answer carries
//! `Mcp-Session-Id`), `DELETE` ends it, and the proxy with it. The stateless
//! revision (2026-07-28) has no session: each `POST` stands alone, there is no `GET`
//! stream, and the proxy runs until it is stopped.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Either, Full, Limited};
use hyper::body::{Bytes, Frame, Incoming};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use sha2::{Digest, Sha256};
use tokio::sync::{Semaphore, mpsc};
use toolreplay_core::{Value, encode_canonical, parse_json};

use super::Queued;
use super::answers::{INVALID_REQUEST, PARSE_ERROR, REFUSED, Revision, rpc_error};
use super::relay::Event;
use super::wire::{IdKey, Message, Read, classify, id_key};

/// The revisions whose `MCP-Protocol-Version` header the proxy takes.
pub(super) const REVISIONS: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// The header naming the session.
pub(super) const SESSION_ID: &str = "mcp-session-id";
/// The header naming the revision of a request.
pub(super) const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// The header naming a request's method (2026-07-28).
pub(super) const MCP_METHOD: &str = "mcp-method";

/// At most this many connections are served at once; more wait to be accepted.
const CONNECTIONS: usize = 256;

/// At most this many messages wait in one response (a `POST`'s or the `GET`
/// stream) for a client that does not read them; past it they are dropped.
const STREAM: usize = 4096;

/// At most this many of the server's messages wait for a stream to carry them;
/// past it the oldest is dropped.
const BACKLOG: usize = 1024;

/// The credential headers of the client's latest request, passed on to an HTTP
/// upstream and never written anywhere else.
pub(super) type Credentials = Arc<Mutex<Vec<(header::HeaderName, HeaderValue)>>>;

/// Whether a header carries credentials: `Authorization`, `Cookie`, and any
/// header whose name says it holds a key, a token or a secret.
pub(super) fn is_credential(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name == "authorization"
        || name == "cookie"
        || name.ends_with("-key")
        || name.ends_with("-token")
        || name.contains("api-key")
        || name.contains("secret")
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A `POST` waiting for the answers to its requests.
#[derive(Debug)]
struct Post {
    sender: mpsc::Sender<Bytes>,
    /// How many of its requests are not answered yet.
    remaining: usize,
    /// Whether it answers as an SSE stream (else as one JSON body).
    sse: bool,
}

#[derive(Debug, Default)]
struct State {
    /// The session id given with the `initialize` answer.
    session: Option<String>,
    /// Whether the client ended the session.
    ended: bool,
    next_post: u64,
    posts: HashMap<u64, Post>,
    /// The `POST` each request in flight came in.
    pending: HashMap<IdKey, u64>,
    get_stream: Option<mpsc::Sender<Bytes>>,
    backlog: VecDeque<Bytes>,
}

impl State {
    /// Sends a message of the server's that answers no request of a `POST`: on the
    /// newest SSE `POST` stream, else the `GET` stream, else it waits for one.
    fn send_unbound(&mut self, line: &[u8]) {
        let event = sse_event(line);
        let newest = self
            .posts
            .iter()
            .filter(|(_, post)| post.sse && !post.sender.is_closed())
            .map(|(at, _)| *at)
            .max();
        if let Some(post) = newest.and_then(|at| self.posts.get(&at))
            && post.sender.try_send(event.clone()).is_ok()
        {
            return;
        }
        if let Some(stream) = &self.get_stream
            && stream.try_send(event.clone()).is_ok()
        {
            return;
        }
        self.get_stream = None;
        if self.backlog.len() >= BACKLOG {
            self.backlog.pop_front();
        }
        self.backlog.push_back(event);
    }

    /// Sends the answer to a request of `POST` `at`.
    fn answer(&mut self, at: u64, line: &[u8]) {
        let Some(post) = self.posts.get_mut(&at) else {
            return;
        };
        let body = framed(post.sse, line);
        // A client that went away misses its answer; the call is sealed anyway.
        let _ = post.sender.try_send(body);
        post.remaining = post.remaining.saturating_sub(1);
        if post.remaining == 0 {
            self.posts.remove(&at);
        }
    }
}

/// An answer as its `POST` sends it: an SSE event, or the JSON alone.
fn framed(sse: bool, line: &[u8]) -> Bytes {
    if sse {
        sse_event(line)
    } else {
        Bytes::copy_from_slice(trimmed(line))
    }
}

fn trimmed(line: &[u8]) -> &[u8] {
    let end = line
        .iter()
        .rposition(|b| !matches!(b, b'\n' | b'\r'))
        .map_or(0, |at| at + 1);
    &line[..end]
}

/// Whether `line` is a request with the id of `key`.
fn is_request(line: &[u8], key: &IdKey) -> bool {
    matches!(classify(line), Message::Request { id, .. } if id_key(&id) == *key)
}

fn sse_event(line: &[u8]) -> Bytes {
    let mut event = b"event: message\ndata: ".to_vec();
    event.extend_from_slice(trimmed(line));
    event.extend_from_slice(b"\n\n");
    Bytes::from(event)
}

/// The client's side over HTTP, shared by the connections and the relay's writer.
#[derive(Debug)]
pub(super) struct Listener {
    state: Arc<Mutex<State>>,
    address: SocketAddr,
}

/// What every connection needs.
struct Served {
    state: Arc<Mutex<State>>,
    events: SyncSender<Event>,
    room: Option<Arc<Queued>>,
    limit: usize,
    credentials: Credentials,
    address: SocketAddr,
}

/// Starts serving on `listener` (bound to `address`) in `runtime`; gives the
/// listener and the client's end for the relay.
pub(super) fn start(
    runtime: &tokio::runtime::Handle,
    listener: std::net::TcpListener,
    events: SyncSender<Event>,
    room: Option<Arc<Queued>>,
    limit: usize,
    credentials: Credentials,
) -> io::Result<(Listener, ClientOutput)> {
    let address = listener.local_addr()?;
    listener.set_nonblocking(true)?;
    let state = Arc::new(Mutex::new(State::default()));
    let context = Arc::new(Served {
        state: Arc::clone(&state),
        events,
        room,
        limit,
        credentials,
        address,
    });
    let listener = {
        let _entered = runtime.enter();
        tokio::net::TcpListener::from_std(listener)?
    };
    runtime.spawn(accept(listener, context));
    Ok((
        Listener {
            state: Arc::clone(&state),
            address,
        },
        ClientOutput {
            line: Vec::new(),
            state,
        },
    ))
}

impl Listener {
    /// The address listened on.
    pub(super) fn address(&self) -> SocketAddr {
        self.address
    }

    /// Waits up to `grace` for the answers still on their way to go out.
    pub(super) fn finish(&self, grace: Duration) {
        let until = Instant::now() + grace;
        while Instant::now() < until {
            {
                let mut state = lock(&self.state);
                state.posts.retain(|_, post| !post.sender.is_closed());
                if state.posts.is_empty() {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

async fn accept(listener: tokio::net::TcpListener, context: Arc<Served>) {
    let slots = Arc::new(Semaphore::new(CONNECTIONS));
    loop {
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
            return;
        };
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let context = Arc::clone(&context);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let context = Arc::clone(&context);
                async move { Ok::<_, Infallible>(handle(&context, request).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(Duration::from_secs(30))
                .serve_connection(TokioIo::new(stream), service)
                .await;
            drop(slot);
        });
    }
}

type Body = Either<Full<Bytes>, Stream>;

/// An SSE body: the events sent to it, until every sender is gone; with the
/// guard that cancels its requests if the client closes it first.
pub(super) struct Stream {
    events: mpsc::Receiver<Bytes>,
    /// Held for as long as the body: dropped with it.
    _closing: Option<Closing>,
}

/// The requests of a `POST` in a revision where closing the request's response is
/// its cancellation (2026-07-28 on): when it is dropped armed (the client closed the
/// stream, or went away, before every answer), each request of the `POST` still
/// unanswered is cancelled as if the client had sent `notifications/cancelled` for
/// it, so that the relay passes the cancellation on and seals the call cancelled.
/// In the revisions before, a disconnection is not a cancellation (the client sends
/// the notification), and no guard is made.
pub(super) struct Closing {
    state: Arc<Mutex<State>>,
    events: SyncSender<Event>,
    at: u64,
    armed: bool,
}

/// The reason a call cancelled by the closing of its stream is sealed with.
const CLOSED: &str = "the client closed the request's stream";

impl Drop for Closing {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let unanswered: Vec<IdKey> = {
            let mut state = lock(&self.state);
            if state.posts.remove(&self.at).is_none() {
                return;
            }
            let keys: Vec<IdKey> = state
                .pending
                .iter()
                .filter(|(_, at)| **at == self.at)
                .map(|(key, _)| key.clone())
                .collect();
            for key in &keys {
                state.pending.remove(key);
            }
            keys
        };
        for key in unanswered {
            let mut line =
                br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":""#
                    .to_vec();
            line.extend_from_slice(CLOSED.as_bytes());
            line.extend_from_slice(br#"","requestId":"#);
            line.extend_from_slice(&key);
            line.extend_from_slice(b"}}\n");
            if self.events.send(Event::Client(Read::Line(line))).is_err() {
                return;
            }
        }
    }
}

/// Whether closing a request's response cancels it in `revision` (2026-07-28 on).
fn closing_cancels(revision: Option<&str>) -> bool {
    revision.is_some_and(|revision| revision >= "2026-07-28")
}

impl hyper::body::Body for Stream {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.events
            .poll_recv(cx)
            .map(|event| event.map(|bytes| Ok(Frame::data(bytes))))
    }
}

fn plain(status: StatusCode, text: &str) -> Response<Body> {
    let mut response = Response::new(Either::Left(Full::new(Bytes::from(format!("{text}\n")))));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

fn json(status: StatusCode, body: Vec<u8>) -> Response<Body> {
    let mut response = Response::new(Either::Left(Full::new(Bytes::from(body))));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// A JSON-RPC error as an HTTP answer with `status`.
fn rpc_refusal(status: StatusCode, id: Option<&Value>, code: i64, why: &str) -> Response<Body> {
    let revision = Revision::default();
    let line = rpc_error(id, code, &format!("toolreplay proxy: {why}"), &revision);
    json(status, trimmed(&line).to_vec())
}

fn header_text<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

/// Whether a browser page of another site sent the request (DNS rebinding): an
/// `Origin` that is not this address nor the local host.
fn foreign_origin(headers: &HeaderMap, address: SocketAddr) -> bool {
    let Some(origin) = header_text(headers, "origin") else {
        return headers.contains_key("origin");
    };
    let host = origin
        .split_once("://")
        .map_or(origin, |(_, rest)| rest)
        .trim_end_matches('/');
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    let name = name.trim_start_matches('[').trim_end_matches(']');
    !(name == "localhost"
        || name == "127.0.0.1"
        || name == "::1"
        || name == address.ip().to_string())
}

async fn handle(context: &Served, request: Request<Incoming>) -> Response<Body> {
    if request.uri().path() != "/mcp" {
        return plain(StatusCode::NOT_FOUND, "not found: the MCP endpoint is /mcp");
    }
    if foreign_origin(request.headers(), context.address) {
        return plain(StatusCode::FORBIDDEN, "forbidden: another origin");
    }
    if let Some(version) = header_text(request.headers(), PROTOCOL_VERSION)
        && !REVISIONS.contains(&version)
    {
        return plain(
            StatusCode::BAD_REQUEST,
            &format!(
                "bad request: MCP-Protocol-Version {version} is not a revision the proxy knows"
            ),
        );
    }
    let credentials: Vec<_> = request
        .headers()
        .iter()
        .filter(|(name, _)| is_credential(name.as_str()))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    let method = request.method().clone();
    match method {
        Method::POST => {
            *lock(&context.credentials) = credentials;
            post(context, request).await
        }
        Method::GET => get(context, request.headers()),
        Method::DELETE => delete(context, request.headers()),
        _ => {
            let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "method not allowed");
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            response
        }
    }
}

/// Checks the request's `Mcp-Session-Id` against the session: the refusal, if
/// any. `opening` is a `POST` with an `initialize` request.
fn session_refusal(state: &State, headers: &HeaderMap, opening: bool) -> Option<Response<Body>> {
    let given = header_text(headers, SESSION_ID);
    if state.ended {
        return Some(plain(StatusCode::NOT_FOUND, "not found: the session ended"));
    }
    match (&state.session, given) {
        (Some(_), _) if opening => Some(plain(
            StatusCode::BAD_REQUEST,
            "bad request: the proxy serves one session, already open (start another proxy)",
        )),
        (Some(_), None) => Some(plain(
            StatusCode::BAD_REQUEST,
            "bad request: no Mcp-Session-Id",
        )),
        (Some(session), Some(given)) if session != given => {
            Some(plain(StatusCode::NOT_FOUND, "not found: no such session"))
        }
        (None, Some(_)) => Some(plain(StatusCode::NOT_FOUND, "not found: no such session")),
        _ => None,
    }
}

fn accepts(headers: &HeaderMap, kind: &str) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|part| {
            let part = part.split(';').next().unwrap_or("").trim();
            part == kind || part == "*/*"
        })
}

/// A new session id: 32 hex digits no one can guess from outside the process.
fn new_session_id(address: SocketAddr) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let mut hash = Sha256::new();
    hash.update(now.as_nanos().to_le_bytes());
    hash.update(std::process::id().to_le_bytes());
    hash.update(address.to_string().as_bytes());
    hash.update(format!("{:p}", &now).as_bytes());
    hex::encode(&hash.finalize()[..16])
}

/// Sends lines to the relay, waiting for room in the server's queue first; false
/// when the relay is gone.
fn to_relay(context: &Served, lines: Vec<Vec<u8>>) -> bool {
    tokio::task::block_in_place(|| {
        lines.into_iter().all(|line| {
            if let Some(room) = &context.room {
                room.wait_for_room();
            }
            context.events.send(Event::Client(Read::Line(line))).is_ok()
        })
    })
}

async fn post(context: &Served, request: Request<Incoming>) -> Response<Body> {
    let (parts, body) = request.into_parts();
    let headers = parts.headers;
    let (sse, json_too) = (
        accepts(&headers, "text/event-stream"),
        accepts(&headers, "application/json"),
    );
    if !json_too && !sse {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "not acceptable: Accept application/json and text/event-stream",
        );
    }
    let bytes = match Limited::new(body, context.limit).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            return rpc_refusal(
                StatusCode::PAYLOAD_TOO_LARGE,
                None,
                PARSE_ERROR,
                "a body over the limit (--max-message-bytes), or cut short",
            );
        }
    };
    let value = match std::str::from_utf8(&bytes).ok().map(parse_json) {
        Some(Ok(value)) => value,
        _ => {
            return rpc_refusal(StatusCode::BAD_REQUEST, None, PARSE_ERROR, "not JSON");
        }
    };
    let (batch, values) = match value {
        Value::Array(values) if values.is_empty() => {
            return rpc_refusal(
                StatusCode::BAD_REQUEST,
                None,
                INVALID_REQUEST,
                "an empty batch",
            );
        }
        Value::Array(values) => (true, values),
        value => (false, vec![value]),
    };
    let mut lines = Vec::with_capacity(values.len());
    let mut requests = Vec::new();
    let mut opening = false;
    for value in &values {
        let mut line = encode_canonical(value);
        line.push(b'\n');
        match classify(&line) {
            Message::Request { method, id, .. } => {
                if let Some(named) = header_text(&headers, MCP_METHOD)
                    && !batch
                    && named != method
                {
                    return rpc_refusal(
                        StatusCode::BAD_REQUEST,
                        Some(&id),
                        INVALID_REQUEST,
                        &format!(
                            "the Mcp-Method header ({named}) is not the body's method ({method})"
                        ),
                    );
                }
                opening |= method == "initialize";
                requests.push(id);
            }
            Message::Notification { .. } | Message::Response { .. } => {}
            _ => {
                return rpc_refusal(
                    StatusCode::BAD_REQUEST,
                    None,
                    INVALID_REQUEST,
                    "not a JSON-RPC request, notification or response",
                );
            }
        }
        lines.push(line);
    }
    let (sender, mut receiver) = mpsc::channel(STREAM);
    let mut session = None;
    // The `POST` its requests are answered in, when any is passed on.
    let mut at_post = None;
    {
        let mut state = lock(&context.state);
        if let Some(refusal) = session_refusal(&state, &headers, opening) {
            return refusal;
        }
        if opening {
            // Given with this answer only: the client keeps it.
            let id = new_session_id(context.address);
            session = HeaderValue::from_str(&id).ok();
            state.session = Some(id);
        }
        if !requests.is_empty() {
            let at = state.next_post;
            state.next_post += 1;
            let mut remaining = 0;
            for id in &requests {
                let key = id_key(id);
                match state.pending.entry(key) {
                    Entry::Occupied(taken) => {
                        // Answered here: the line is not passed on.
                        let key = taken.key().clone();
                        let line = rpc_error(
                            Some(id),
                            REFUSED,
                            "toolreplay proxy: request id already in flight",
                            &Revision::default(),
                        );
                        let _ = sender.try_send(framed(sse, &line));
                        lines.retain(|candidate| !is_request(candidate, &key));
                    }
                    Entry::Vacant(free) => {
                        free.insert(at);
                        remaining += 1;
                    }
                }
            }
            if remaining > 0 {
                at_post = Some(at);
                state.posts.insert(
                    at,
                    Post {
                        sender: sender.clone(),
                        remaining,
                        sse,
                    },
                );
            }
        }
    }
    drop(sender);
    if !to_relay(context, lines) {
        return plain(StatusCode::SERVICE_UNAVAILABLE, "the session is over");
    }
    let mut closing = at_post
        .filter(|_| closing_cancels(header_text(&headers, PROTOCOL_VERSION)))
        .map(|at| Closing {
            state: Arc::clone(&context.state),
            events: context.events.clone(),
            at,
            armed: true,
        });
    if requests.is_empty() {
        return Response::builder()
            .status(StatusCode::ACCEPTED)
            .body(Either::Left(Full::new(Bytes::new())))
            .unwrap_or_else(|_| plain(StatusCode::ACCEPTED, ""));
    }
    if sse {
        let mut response = event_stream(receiver, closing);
        if let Some(session) = session {
            response.headers_mut().insert(SESSION_ID, session);
        }
        return response;
    }
    let mut answers = Vec::new();
    while let Some(answer) = receiver.recv().await {
        answers.push(answer);
    }
    // Every answer is in: the client closing now cancels nothing.
    if let Some(closing) = &mut closing {
        closing.armed = false;
    }
    let body = match (batch, answers.as_slice()) {
        (false, [one]) => one.to_vec(),
        _ => {
            let mut body = b"[".to_vec();
            for (at, answer) in answers.iter().enumerate() {
                if at > 0 {
                    body.push(b',');
                }
                body.extend_from_slice(answer);
            }
            body.push(b']');
            body
        }
    };
    let mut response = json(StatusCode::OK, body);
    if let Some(session) = session {
        response.headers_mut().insert(SESSION_ID, session);
    }
    response
}

fn get(context: &Served, headers: &HeaderMap) -> Response<Body> {
    let mut state = lock(&context.state);
    // Stateless, or before `initialize`: no stream to offer.
    if let Some(refusal) = session_checked(
        &state,
        headers,
        "method not allowed: no session, no GET stream",
    ) {
        return refusal;
    }
    if !accepts(headers, "text/event-stream") {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "not acceptable: Accept text/event-stream",
        );
    }
    let (sender, receiver) = mpsc::channel(STREAM);
    for event in state.backlog.drain(..) {
        let _ = sender.try_send(event);
    }
    state.get_stream = Some(sender);
    event_stream(receiver, None)
}

/// An SSE response of the events sent to `receiver`, with `closing` dropped with it.
fn event_stream(receiver: mpsc::Receiver<Bytes>, closing: Option<Closing>) -> Response<Body> {
    let mut response = Response::new(Either::Right(Stream {
        events: receiver,
        _closing: closing,
    }));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// The refusal of a `GET` or `DELETE` of a session: none yet or none at all
/// (stateless), `why`; or the session's own refusal of `headers`.
fn session_checked(state: &State, headers: &HeaderMap, why: &str) -> Option<Response<Body>> {
    if state.session.is_none() && !state.ended {
        let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, why);
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return Some(response);
    }
    session_refusal(state, headers, false)
}

fn delete(context: &Served, headers: &HeaderMap) -> Response<Body> {
    {
        let mut state = lock(&context.state);
        if let Some(refusal) =
            session_checked(&state, headers, "method not allowed: no session to end")
        {
            return refusal;
        }
        state.ended = true;
        state.get_stream = None;
    }
    let _ = tokio::task::block_in_place(|| context.events.send(Event::Client(Read::End)));
    plain(StatusCode::OK, "the session ended")
}

/// What the relay writes to the client: each flushed line goes to the `POST` its
/// answer belongs to, or to a stream.
pub(super) struct ClientOutput {
    line: Vec<u8>,
    state: Arc<Mutex<State>>,
}

impl Write for ClientOutput {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.line.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.line.is_empty() {
            return Ok(());
        }
        let line = std::mem::take(&mut self.line);
        let mut state = lock(&self.state);
        let post = match classify(&line) {
            Message::Blank => return Ok(()),
            Message::Response { id, .. } => state.pending.remove(&id_key(&id)),
            _ => None,
        };
        match post {
            Some(at) => state.answer(at, &line),
            None => state.send_unbound(&line),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_headers_are_known_by_name() {
        for name in [
            "Authorization",
            "cookie",
            "X-API-Key",
            "x-goog-api-key",
            "X-Auth-Token",
            "client-secret",
        ] {
            assert!(is_credential(name), "{name}");
        }
        for name in ["accept", "content-type", "mcp-session-id", "user-agent"] {
            assert!(!is_credential(name), "{name}");
        }
    }

    #[test]
    fn a_foreign_origin_is_refused_and_the_local_one_taken() {
        let address: SocketAddr = "127.0.0.1:8931".parse().expect("an address");
        let with = |origin: &str| {
            let mut headers = HeaderMap::new();
            headers.insert("origin", HeaderValue::from_str(origin).expect("a value"));
            foreign_origin(&headers, address)
        };
        assert!(!foreign_origin(&HeaderMap::new(), address));
        assert!(!with("http://localhost:3000"));
        assert!(!with("http://127.0.0.1:8931"));
        assert!(!with("http://[::1]:8931"));
        assert!(with("https://evil.example"));
        assert!(with("http://127.0.0.1.evil.example:8931"));
    }
}
