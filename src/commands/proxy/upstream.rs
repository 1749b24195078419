//! `--upstream`: the server's side over MCP's Streamable HTTP transport. Each line
//! the relay writes to the server is `POST`ed to the upstream URL; what comes back
//! (a JSON body, or the events of an SSE stream) goes to the relay as the server's
//! lines. A request the upstream cannot answer (unreachable, an HTTP error, a
//! redirect to another origin, a stream cut short) is answered with a JSON-RPC
//! error naming why, as if the server had sent it: the relay records it like any
//! answer.
//!
//! Safety rules of the boundary: a redirect is followed only to the upstream's own
//! origin (and only when it keeps the method, 307 or 308); every request is one
//! attempt, never retried; a call the relay cancels (it timed out, or the client
//! cancelled it) has its connection closed; the client's credential headers are
//! passed on and never written anywhere else.

use std::collections::HashMap;
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use reqwest::header::{self, HeaderValue};
use reqwest::{Client, Response, StatusCode, Url, redirect};
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;
use toolreplay_core::{Value, encode_canonical, parse_json};

use super::answers::{INTERNAL_ERROR, Revision, rpc_error};
use super::listen::{Credentials, MCP_METHOD, PROTOCOL_VERSION, SESSION_ID};
use super::relay::Event;
use super::wire::{IdKey, Message, Read, classify, get, id_key};

/// How long connecting to the upstream may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long past the call timeout a request to the upstream may take, whatever
/// it is: the relay stops a call at its timeout (and its connection is closed
/// then); this ends the requests the relay does not time, such as `tools/list`.
const BACKSTOP: Duration = Duration::from_secs(10);

/// How many same-origin redirects one request may follow.
const REDIRECTS: usize = 5;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// An upstream URL the proxy can reach: http or https, no credentials in it.
pub(super) fn parse_url(text: &str) -> Result<Url, String> {
    let url = Url::parse(text).map_err(|err| format!("--upstream {text:?}: {err}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("--upstream {text:?}: not an http or https URL"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!(
            "--upstream {text:?}: credentials in the URL would be recorded in notes; the client's Authorization header is passed on instead"
        ));
    }
    if url.host_str().is_none() {
        return Err(format!("--upstream {text:?}: no host"));
    }
    Ok(url)
}

/// What the upstream's side knows of the session.
#[derive(Debug, Default)]
struct Session {
    /// The upstream's `Mcp-Session-Id`.
    id: Option<String>,
    /// The revision negotiated by `initialize`.
    revision: Option<String>,
}

/// Everything a request task needs.
struct Shared {
    client: Client,
    url: Url,
    events: SyncSender<Event>,
    credentials: Credentials,
    session: Mutex<Session>,
    /// The requests in flight, by id: aborting one closes its connection.
    in_flight: Mutex<HashMap<IdKey, AbortHandle>>,
    /// The `GET` stream of the server's messages outside any request, once open.
    stream: Mutex<Option<AbortHandle>>,
    limit: usize,
    timeout: Duration,
}

/// The line the relay wrote, or the end of the server's input.
enum Outgoing {
    Line(Vec<u8>),
    Close(oneshot::Sender<()>),
}

/// The server's input as the relay writes it: each flushed line is sent.
pub(super) struct ServerOutput {
    line: Vec<u8>,
    queue: mpsc::UnboundedSender<Outgoing>,
    done: Arc<Mutex<Option<oneshot::Receiver<()>>>>,
}

impl std::io::Write for ServerOutput {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.line.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.line.is_empty() {
            return Ok(());
        }
        let line = std::mem::take(&mut self.line);
        self.queue
            .send(Outgoing::Line(line))
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))
    }
}

impl Drop for ServerOutput {
    fn drop(&mut self) {
        let (sender, receiver) = oneshot::channel();
        if self.queue.send(Outgoing::Close(sender)).is_ok() {
            *lock(&self.done) = Some(receiver);
        }
    }
}

/// The upstream, for the end of the session.
pub(super) struct Upstream {
    done: Arc<Mutex<Option<oneshot::Receiver<()>>>>,
    runtime: tokio::runtime::Handle,
}

impl Upstream {
    /// Waits up to `grace` for the session to be ended at the upstream.
    pub(super) fn stop(&self, grace: Duration) {
        let Some(done) = lock(&self.done).take() else {
            return;
        };
        let _ = self
            .runtime
            .block_on(async { tokio::time::timeout(grace, done).await });
    }
}

/// Starts the upstream's side in `runtime`: gives it and the server's input for
/// the relay.
pub(super) fn start(
    runtime: &tokio::runtime::Handle,
    url: Url,
    events: SyncSender<Event>,
    credentials: Credentials,
    limit: usize,
    timeout: Duration,
) -> Result<(Upstream, ServerOutput), String> {
    let origin = url.origin();
    let policy = redirect::Policy::custom(move |attempt| {
        let keeps_method = matches!(
            attempt.status(),
            StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
        );
        if attempt.previous().len() > REDIRECTS {
            attempt.stop()
        } else if keeps_method && attempt.url().origin() == origin {
            attempt.follow()
        } else {
            attempt.stop()
        }
    });
    let client = Client::builder()
        .redirect(policy)
        .no_proxy()
        .connect_timeout(CONNECT_TIMEOUT)
        .build()
        .map_err(|err| format!("cannot make the HTTP client: {err}"))?;
    let shared = Arc::new(Shared {
        client,
        url,
        events,
        credentials,
        session: Mutex::new(Session::default()),
        in_flight: Mutex::new(HashMap::new()),
        stream: Mutex::new(None),
        limit,
        timeout,
    });
    let (queue, lines) = mpsc::unbounded_channel();
    runtime.spawn(dispatch(shared, lines));
    let done = Arc::new(Mutex::new(None));
    Ok((
        Upstream {
            done: Arc::clone(&done),
            runtime: runtime.clone(),
        },
        ServerOutput {
            line: Vec::new(),
            queue,
            done,
        },
    ))
}

/// Sends the relay's lines in order: a notification or a response is sent before
/// the next line (the upstream sees them in the relay's order), `initialize` is
/// answered before the next line (its answer opens the session); other requests
/// run side by side.
async fn dispatch(shared: Arc<Shared>, mut lines: mpsc::UnboundedReceiver<Outgoing>) {
    while let Some(outgoing) = lines.recv().await {
        let line = match outgoing {
            Outgoing::Line(line) => line,
            Outgoing::Close(done) => {
                close(&shared).await;
                let _ = done.send(());
                return;
            }
        };
        match classify(&line) {
            Message::Request { method, id, params } => {
                let revision = Revision::of_request(params.as_ref());
                let name = params
                    .as_ref()
                    .and_then(|params| target_name(&method, params));
                let request = Posted {
                    line,
                    id: Some(id.clone()),
                    method: Some(method.clone()),
                    name,
                    revision,
                };
                if method == "initialize" {
                    send(&shared, request).await;
                } else {
                    let key = id_key(&id);
                    let task_shared = Arc::clone(&shared);
                    let task_key = key.clone();
                    let task = tokio::spawn(async move {
                        send(&task_shared, request).await;
                        lock(&task_shared.in_flight).remove(&task_key);
                    });
                    lock(&shared.in_flight).insert(key, task.abort_handle());
                }
            }
            Message::Notification { method, params } => {
                if method == "notifications/cancelled"
                    && let Some(id) = params.as_ref().and_then(|params| get(params, "requestId"))
                    && let Some(task) = lock(&shared.in_flight).remove(&id_key(id))
                {
                    // The call's connection closes; the notification still goes.
                    task.abort();
                }
                let initialized = method == "notifications/initialized";
                let request = Posted {
                    line,
                    id: None,
                    method: Some(method),
                    name: None,
                    revision: Revision::default(),
                };
                send(&shared, request).await;
                if initialized {
                    open_stream(&shared);
                }
            }
            _ => {
                let request = Posted {
                    line,
                    id: None,
                    method: None,
                    name: None,
                    revision: Revision::default(),
                };
                send(&shared, request).await;
            }
        }
    }
    close(&shared).await;
}

/// Opens the `GET` stream of a session's server, once: its requests and
/// notifications outside any request go to the relay like the others. A server
/// that offers none (`405`) or fails it is not asked again.
fn open_stream(shared: &Arc<Shared>) {
    let (session, revision) = {
        let session = lock(&shared.session);
        (session.id.clone(), session.revision.clone())
    };
    let Some(session) = session.and_then(|id| HeaderValue::from_str(&id).ok()) else {
        return;
    };
    let mut slot = lock(&shared.stream);
    if slot.is_some() {
        return;
    }
    let mut request = shared
        .client
        .get(shared.url.clone())
        .header(header::ACCEPT, "text/event-stream")
        .header(SESSION_ID, session);
    if let Some(value) = revision.and_then(|name| HeaderValue::from_str(&name).ok()) {
        request = request.header(PROTOCOL_VERSION, value);
    }
    for (name, value) in lock(&shared.credentials).iter() {
        request = request.header(name, value);
    }
    let task_shared = Arc::clone(shared);
    let task = tokio::spawn(async move {
        let Ok(response) = request.send().await else {
            return;
        };
        let kind = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if response.status().is_success() && kind.starts_with("text/event-stream") {
            let nothing = Posted {
                line: Vec::new(),
                id: None,
                method: None,
                name: None,
                revision: Revision::default(),
            };
            let _ = events(&task_shared, &nothing, response).await;
        }
    });
    *slot = Some(task.abort_handle());
}

/// The name a request acts on, for `Mcp-Name` (2026-07-28).
fn target_name(method: &str, params: &Value) -> Option<String> {
    let member = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => "uri",
        _ => return None,
    };
    match get(params, member) {
        Some(Value::Str(name)) => Some(name.clone()),
        _ => None,
    }
}

/// One line to `POST`.
struct Posted {
    line: Vec<u8>,
    /// The request's id, when it is a request.
    id: Option<Value>,
    method: Option<String>,
    name: Option<String>,
    /// The revision the request names in its `_meta` (2026-07-28).
    revision: Revision,
}

/// Ends the session at the upstream (`DELETE`), stops the requests in flight,
/// and tells the relay the server's side is over.
async fn close(shared: &Shared) {
    let tasks: Vec<AbortHandle> = lock(&shared.in_flight)
        .drain()
        .map(|(_, task)| task)
        .collect();
    for task in tasks {
        task.abort();
    }
    if let Some(stream) = lock(&shared.stream).take() {
        stream.abort();
    }
    let id = lock(&shared.session).id.clone();
    if let Some(id) = id {
        let mut request = shared
            .client
            .delete(shared.url.clone())
            .timeout(Duration::from_secs(2));
        if let Ok(value) = HeaderValue::from_str(&id) {
            request = request.header(SESSION_ID, value);
        }
        for (name, value) in lock(&shared.credentials).iter() {
            request = request.header(name, value);
        }
        let _ = request.send().await;
    }
    emit(shared, Read::End);
}

fn emit(shared: &Shared, read: Read) {
    let _ = tokio::task::block_in_place(|| shared.events.send(Event::Server(read)));
}

/// Gives the relay one message of the upstream's, on one line.
fn emit_message(shared: &Shared, value: &Value) {
    let mut line = encode_canonical(value);
    line.push(b'\n');
    emit(shared, Read::Line(line));
}

/// The relay's answer to request `id` that the upstream could not answer.
fn fail(shared: &Shared, outgoing: &Posted, why: &str) {
    let note = format!("toolreplay proxy: the upstream: {why}");
    {
        use std::io::Write;
        let _ = writeln!(std::io::stderr().lock(), "{note}");
    }
    if let Some(id) = &outgoing.id {
        let revision = match (&outgoing.revision, &lock(&shared.session).revision) {
            (named, _) if named.is_known() => named.clone(),
            (_, Some(negotiated)) => Revision::named(negotiated),
            _ => Revision::default(),
        };
        let line = rpc_error(Some(id), INTERNAL_ERROR, &note, &revision);
        emit(shared, Read::Line(line));
    }
}

/// `POST`s one line and passes on what comes back.
async fn send(shared: &Shared, outgoing: Posted) {
    let body = outgoing
        .line
        .strip_suffix(b"\n")
        .unwrap_or(&outgoing.line)
        .to_vec();
    if let Some(named) = outgoing.revision.name() {
        // The stateless revision has no `initialize`: the latest revision a
        // request named is the one the notifications that follow are made in.
        lock(&shared.session).revision = Some(named.to_owned());
    }
    let mut request = shared
        .client
        .post(shared.url.clone())
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json, text/event-stream")
        .timeout(shared.timeout.saturating_add(BACKSTOP))
        .body(body);
    {
        let session = lock(&shared.session);
        if let Some(id) = session
            .id
            .as_deref()
            .and_then(|id| HeaderValue::from_str(id).ok())
        {
            request = request.header(SESSION_ID, id);
        }
        let named = outgoing.revision.name();
        let revision = named.or(session.revision.as_deref());
        if let Some(value) = revision.and_then(|name| HeaderValue::from_str(name).ok()) {
            request = request.header(PROTOCOL_VERSION, value);
        }
        if revision.is_some_and(|name| name >= "2026-07-28") {
            if let Some(method) = outgoing
                .method
                .as_deref()
                .and_then(|method| HeaderValue::from_str(method).ok())
            {
                request = request.header(MCP_METHOD, method);
            }
            if let Some(name) = outgoing
                .name
                .as_deref()
                .and_then(|name| HeaderValue::from_str(name).ok())
            {
                request = request.header("mcp-name", name);
            }
        }
    }
    for (name, value) in lock(&shared.credentials).iter() {
        request = request.header(name, value);
    }
    let response = match request.send().await {
        Ok(response) => response,
        Err(err) if err.is_timeout() => {
            let after = super::relay::shown_duration(shared.timeout.saturating_add(BACKSTOP));
            return fail(shared, &outgoing, &format!("no answer within {after}"));
        }
        Err(err) => {
            return fail(
                shared,
                &outgoing,
                &format!("cannot be reached ({})", cause(&err)),
            );
        }
    };
    let status = response.status();
    if status.is_redirection() {
        let to = response
            .headers()
            .get(header::LOCATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|location| response.url().join(location).ok());
        let why = match to {
            Some(to) if to.origin() != shared.url.origin() => format!(
                "redirected (HTTP {}) to another origin, {}: not followed",
                status.as_u16(),
                to.origin().ascii_serialization()
            ),
            Some(_) => format!(
                "redirected (HTTP {}) in a way that would not keep the request, or too often: not followed",
                status.as_u16()
            ),
            None => format!(
                "redirected (HTTP {}) without a usable Location",
                status.as_u16()
            ),
        };
        return fail(shared, &outgoing, &why);
    }
    if outgoing.method.as_deref() == Some("initialize") && status.is_success() {
        let id = response
            .headers()
            .get(SESSION_ID)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        lock(&shared.session).id = id;
    }
    if outgoing.id.is_none() && !status.is_success() {
        // A notification or an answer the upstream refused: nothing to answer.
        return fail(shared, &outgoing, &format!("HTTP {}", status.as_u16()));
    }
    let kind = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let answered = if kind.starts_with("text/event-stream") && status.is_success() {
        events(shared, &outgoing, response).await
    } else if kind.starts_with("application/json") {
        json_body(shared, &outgoing, response).await
    } else {
        Ok(false)
    };
    match answered {
        Ok(true) => {}
        Ok(false) if outgoing.id.is_none() && status.is_success() => {}
        Ok(false) if status.is_success() => {
            fail(
                shared,
                &outgoing,
                "the answer ended without an answer to the request",
            );
        }
        Ok(false) if status == StatusCode::NOT_FOUND && lock(&shared.session).id.is_some() => {
            fail(shared, &outgoing, "the session is over (HTTP 404)");
        }
        Ok(false) => fail(shared, &outgoing, &format!("HTTP {}", status.as_u16())),
        Err(why) => fail(shared, &outgoing, &why),
    }
}

/// The cause of a failed request, without the URL (which the notes already
/// name through --upstream).
fn cause(err: &reqwest::Error) -> String {
    let mut text = String::new();
    let mut source = std::error::Error::source(err);
    while let Some(err) = source {
        text = err.to_string();
        source = err.source();
    }
    if text.is_empty() {
        text = match (err.is_connect(), err.is_body(), err.is_decode()) {
            (true, _, _) => "no connection".to_owned(),
            (_, true, _) | (_, _, true) => "the body could not be read".to_owned(),
            _ => "the request failed".to_owned(),
        };
    }
    text
}

/// Passes on the messages of a JSON body; whether one answered the request.
async fn json_body(
    shared: &Shared,
    outgoing: &Posted,
    mut response: Response,
) -> Result<bool, String> {
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > shared.limit {
                    return Err(format!(
                        "an answer over the limit (--max-message-bytes, {} bytes)",
                        shared.limit
                    ));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(err) => return Err(format!("the answer was cut short ({})", cause(&err))),
        }
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(false);
    }
    let Some(Ok(value)) = std::str::from_utf8(&body).ok().map(parse_json) else {
        return Err("the answer is not JSON".to_owned());
    };
    let values = match value {
        Value::Array(values) => values,
        value => vec![value],
    };
    // Every message is passed on, whichever answers the request.
    let mut answered = false;
    for value in &values {
        answered |= pass(shared, outgoing, value);
    }
    Ok(answered)
}

/// Passes one message on; whether it answers `outgoing`.
fn pass(shared: &Shared, outgoing: &Posted, value: &Value) -> bool {
    let answers = match (&outgoing.id, value) {
        (Some(id), Value::Object(_)) => {
            get(value, "method").is_none()
                && get(value, "id").is_some_and(|got| id_key(got) == id_key(id))
        }
        _ => false,
    };
    if answers
        && outgoing.method.as_deref() == Some("initialize")
        && let Some(Value::Str(name)) =
            get(value, "result").and_then(|result| get(result, "protocolVersion"))
    {
        lock(&shared.session).revision = Some(name.clone());
    }
    emit_message(shared, value);
    answers
}

/// Passes on the events of an SSE stream until it answers the request (or, for
/// a stream without a request, ends); whether it answered.
async fn events(
    shared: &Shared,
    outgoing: &Posted,
    mut response: Response,
) -> Result<bool, String> {
    let mut parser = Sse::new(shared.limit);
    loop {
        let chunk = match response.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => return Ok(false),
            Err(err) => return Err(format!("the stream was cut short ({})", cause(&err))),
        };
        for event in parser.feed(&chunk) {
            let answered = match event {
                Data::Message(data) => match std::str::from_utf8(&data).ok().map(parse_json) {
                    Some(Ok(value)) => pass(shared, outgoing, &value),
                    _ => {
                        emit(shared, Read::Line(data));
                        false
                    }
                },
                Data::Oversize(bytes) => {
                    emit(shared, Read::Oversize(bytes));
                    false
                }
            };
            if answered {
                return Ok(true);
            }
        }
    }
}

/// The data of one SSE event.
#[derive(Debug, PartialEq, Eq)]
enum Data {
    Message(Vec<u8>),
    Oversize(u64),
}

/// An SSE parser: lines of `field: value`, events ended by a blank line; only
/// `data` is kept, up to `limit` bytes an event.
#[derive(Debug)]
struct Sse {
    line: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    oversize: u64,
    limit: usize,
}

impl Sse {
    fn new(limit: usize) -> Sse {
        Sse {
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            oversize: 0,
            limit,
        }
    }

    fn feed(&mut self, chunk: &[u8]) -> Vec<Data> {
        let mut out = Vec::new();
        for &byte in chunk {
            if byte == b'\n' {
                let line = std::mem::take(&mut self.line);
                let line = line.strip_suffix(b"\r").unwrap_or(&line);
                if let Some(data) = self.end_line(line) {
                    out.push(data);
                }
            } else if self.line.len() <= self.limit.saturating_add(16) {
                self.line.push(byte);
            } else {
                self.oversize = self.oversize.saturating_add(1);
            }
        }
        out
    }

    fn end_line(&mut self, line: &[u8]) -> Option<Data> {
        if line.is_empty() {
            let data = std::mem::take(&mut self.data);
            let (has, oversize) = (self.has_data, self.oversize);
            self.has_data = false;
            self.oversize = 0;
            return match (has, oversize) {
                (false, 0) => None,
                (_, 0) => Some(Data::Message(data)),
                _ => Some(Data::Oversize(oversize.saturating_add(data.len() as u64))),
            };
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(0) => return None,
            Some(at) => (&line[..at], &line[at + 1..]),
            None => (line, &[][..]),
        };
        if field != b"data" {
            return None;
        }
        let value = value.strip_prefix(b" ").unwrap_or(value);
        if self.has_data {
            self.data.push(b'\n');
        }
        self.has_data = true;
        if self.oversize > 0 || self.data.len() + value.len() > self.limit {
            self.oversize = self
                .oversize
                .saturating_add(self.data.len() as u64 + value.len() as u64);
            self.data.clear();
        } else {
            self.data.extend_from_slice(value);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_events_are_read_in_any_chunks() {
        let stream = b"id: 1\nevent: message\ndata: {\"a\":1}\n\n: a comment\n\ndata: {\"b\":\r\ndata: 2}\r\n\r\n";
        for size in [1, 3, 7, stream.len()] {
            let mut parser = Sse::new(100);
            let events: Vec<Data> = stream
                .chunks(size)
                .flat_map(|chunk| parser.feed(chunk))
                .collect();
            assert_eq!(
                events,
                [
                    Data::Message(b"{\"a\":1}".to_vec()),
                    Data::Message(b"{\"b\":\n2}".to_vec())
                ]
            );
        }
    }

    #[test]
    fn an_sse_event_over_the_limit_is_counted_not_kept() {
        let mut parser = Sse::new(4);
        let events = parser.feed(b"data: 0123456789\n\ndata: ok\n\n");
        assert_eq!(events, [Data::Oversize(10), Data::Message(b"ok".to_vec())]);
    }

    #[test]
    fn an_upstream_url_is_http_without_credentials() {
        assert!(parse_url("https://mcp.example.com/mcp").is_ok());
        assert!(parse_url("http://127.0.0.1:3001/mcp").is_ok());
        assert!(parse_url("ftp://example.com/").is_err());
        assert!(parse_url("https://user:pw@example.com/mcp").is_err());
        assert!(parse_url("not a url").is_err());
    }
}
