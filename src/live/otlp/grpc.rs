//! OTLP/gRPC (`OTEL_EXPORTER_OTLP_PROTOCOL=grpc`): the unary call
//! `opentelemetry.proto.collector.trace.v1.TraceService/Export` over HTTP/2, on
//! hyper's client. `http://` is HTTP/2 with prior knowledge (h2c), `https://` TLS by
//! rustls with ALPN `h2`. The request is one uncompressed gRPC message frame (a flag
//! byte 0, the length as a big-endian `u32`, the protobuf `ExportTraceServiceRequest`);
//! the call succeeds only on HTTP status 200 with `grpc-status` 0 (in the trailers, or
//! in the headers of a trailers-only answer) and a body of one well-formed frame.
//! Each send builds a current-thread tokio runtime and one connection, and the whole
//! call (name lookup, connection, TLS, request, answer) is held to the timeout.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Request, StatusCode, Uri};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::io::{AsyncRead, AsyncWrite};

/// The endpoint when no variable names one, as the exporter specification says.
pub(super) const DEFAULT_ENDPOINT: &str = "http://localhost:4317";

/// The path of the call.
const EXPORT: &str = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";

/// The largest answer body read, in bytes (an `ExportTraceServiceResponse` is a
/// count and a message).
const MAX_ANSWER_BYTES: usize = 1 << 20;

/// Where the call goes, and the metadata it carries.
#[derive(Debug)]
pub(super) struct Endpoint {
    /// The URI of the call: the endpoint's scheme and authority, [`EXPORT`]'s path.
    uri: Uri,
    /// The host to connect to (an IPv6 address without its brackets) and its port.
    host: String,
    port: u16,
    tls: bool,
    /// The headers variables' pairs as gRPC metadata.
    metadata: HeaderMap,
}

impl Endpoint {
    /// The endpoint `url` (`http://` or `https://`, a host and an optional port, no
    /// path but `/`), with the headers `headers` (names in lower case) as metadata.
    pub(super) fn parse(url: &str, headers: &[(String, String)]) -> Result<Endpoint, String> {
        let uri: Uri = url
            .parse()
            .map_err(|err| format!("OTLP endpoint {url:?} is not a URL: {err}"))?;
        let tls = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            _ => {
                return Err(format!(
                    "OTLP endpoint {url:?} is neither http:// nor https://"
                ));
            }
        };
        let Some(authority) = uri
            .authority()
            .filter(|authority| !authority.as_str().contains('@') && !authority.host().is_empty())
        else {
            return Err(format!("OTLP endpoint {url:?} names no host"));
        };
        if !matches!(uri.path(), "" | "/") || uri.query().is_some() {
            return Err(format!(
                "OTLP endpoint {url:?} has a path: over gRPC it is only scheme://host:port"
            ));
        }
        let host = authority.host();
        let host = host
            .strip_prefix('[')
            .and_then(|host| host.strip_suffix(']'))
            .unwrap_or(host)
            .to_owned();
        let port = authority.port_u16().unwrap_or(if tls { 443 } else { 80 });
        let uri = Uri::builder()
            .scheme(if tls { "https" } else { "http" })
            .authority(authority.clone())
            .path_and_query(EXPORT)
            .build()
            .map_err(|err| format!("OTLP endpoint {url:?} is not a URL: {err}"))?;
        let mut metadata = HeaderMap::new();
        for (name, value) in headers {
            let key = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
                format!("OTLP header name {name:?} is not a valid gRPC metadata key")
            })?;
            let value = HeaderValue::from_str(value).map_err(|_| {
                format!("OTLP header {name:?} has a value that is not valid metadata")
            })?;
            metadata.append(key, value);
        }
        Ok(Endpoint {
            uri,
            host,
            port,
            tls,
            metadata,
        })
    }
}

/// `message` in one uncompressed gRPC frame; `Err` when it is longer than a frame
/// can say.
pub(super) fn frame(message: &[u8]) -> Result<Vec<u8>, String> {
    let length = u32::try_from(message.len())
        .map_err(|_| format!("a request of {} bytes is too large for gRPC", message.len()))?;
    let mut framed = Vec::with_capacity(message.len() + 5);
    framed.push(0);
    framed.extend_from_slice(&length.to_be_bytes());
    framed.extend_from_slice(message);
    Ok(framed)
}

/// The `grpc-timeout` value of `timeout`: at most 8 digits and a unit, rounded down
/// to the unit, never 0.
pub(super) fn timeout_value(timeout: Duration) -> String {
    let millis = timeout.as_millis().max(1);
    for (unit, per) in [('m', 1), ('S', 1_000), ('M', 60_000), ('H', 3_600_000)] {
        let value = millis / per;
        if value <= 99_999_999 {
            return format!("{}{unit}", value.max(1));
        }
    }
    "99999999H".to_owned()
}

/// The name of the gRPC status `code`.
pub(super) fn status_name(code: u32) -> &'static str {
    match code {
        0 => "OK",
        1 => "CANCELLED",
        2 => "UNKNOWN",
        3 => "INVALID_ARGUMENT",
        4 => "DEADLINE_EXCEEDED",
        5 => "NOT_FOUND",
        6 => "ALREADY_EXISTS",
        7 => "PERMISSION_DENIED",
        8 => "RESOURCE_EXHAUSTED",
        9 => "FAILED_PRECONDITION",
        10 => "ABORTED",
        11 => "OUT_OF_RANGE",
        12 => "UNIMPLEMENTED",
        13 => "INTERNAL",
        14 => "UNAVAILABLE",
        15 => "DATA_LOSS",
        16 => "UNAUTHENTICATED",
        _ => "not a gRPC status",
    }
}

/// The longest `grpc-message` said, in characters.
const MAX_MESSAGE_CHARS: usize = 500;

/// Whether an answer of HTTP status `status`, headers `headers`, body `body` and
/// trailers `trailers` took the call; `Err` says why not.
pub(super) fn outcome(
    status: StatusCode,
    headers: &HeaderMap,
    body: &[u8],
    trailers: Option<&HeaderMap>,
) -> Result<(), String> {
    // A trailers-only answer says its status in its headers.
    let (at, trailers_only) = match headers.contains_key("grpc-status") {
        true => (Some(headers), true),
        false => (trailers, false),
    };
    let said = at.and_then(|map| map.get("grpc-status"));
    if status != StatusCode::OK {
        let grpc = said.map_or(String::new(), |code| {
            format!(
                " (grpc-status {})",
                String::from_utf8_lossy(code.as_bytes())
            )
        });
        return Err(format!("HTTP status {}{grpc}", status.as_u16()));
    }
    let Some(said) = said else {
        return Err("the answer has no grpc-status".to_owned());
    };
    let code = std::str::from_utf8(said.as_bytes())
        .ok()
        .filter(|text| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|text| text.parse::<u32>().ok())
        .ok_or_else(|| {
            format!(
                "grpc-status {:?} is not a number",
                String::from_utf8_lossy(said.as_bytes())
            )
        })?;
    if code != 0 {
        let message = at
            .and_then(|map| map.get("grpc-message"))
            .map(|value| super::percent_decode(&String::from_utf8_lossy(value.as_bytes())))
            .unwrap_or_default();
        // One line, however the server wrote it.
        let message: String = message
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .take(MAX_MESSAGE_CHARS)
            .collect();
        let message = message.trim();
        let name = status_name(code);
        return Err(match message.is_empty() {
            true => format!("grpc-status {code} ({name})"),
            false => format!("grpc-status {code} ({name}): {message}"),
        });
    }
    if trailers_only {
        return Err("the answer holds no message (grpc-status 0 in its headers)".to_owned());
    }
    match body.split_first_chunk::<5>() {
        Some((&[0, a, b, c, d], rest)) => {
            let said = u32::from_be_bytes([a, b, c, d]);
            if usize::try_from(said).ok() == Some(rest.len()) {
                Ok(())
            } else {
                Err(format!(
                    "the answer is not one gRPC message: a frame of {said} bytes in a body of {}",
                    rest.len()
                ))
            }
        }
        Some(([1, ..], _)) => {
            Err("the answer is a compressed message, which was not asked for".to_owned())
        }
        _ => Err(format!(
            "the answer is not one gRPC message frame ({} bytes)",
            body.len()
        )),
    }
}

/// An error and its causes, in one line.
fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        source = cause.source();
    }
    text
}

/// Makes the call to `endpoint` with `message` (a protobuf
/// `ExportTraceServiceRequest`), `https://` with `tls` (which asks for ALPN `h2`),
/// the endpoint's metadata, within `timeout`.
pub(super) fn export(
    endpoint: &Endpoint,
    tls: &Arc<rustls::ClientConfig>,
    message: &[u8],
    timeout: Duration,
) -> Result<(), String> {
    if tokio::runtime::Handle::try_current().is_ok() {
        // Blocking on a runtime from inside one would panic.
        return Err("cannot send from within an asynchronous task".to_owned());
    }
    let body = frame(message)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|err| format!("cannot start the gRPC client: {err}"))?;
    let result = runtime.block_on(async {
        tokio::time::timeout(timeout, call(endpoint, tls, body, timeout))
            .await
            .unwrap_or_else(|_| {
                Err(format!(
                    "no answer within {} ms (the timeout)",
                    timeout.as_millis()
                ))
            })
    });
    // A name lookup still running on the blocking pool is not waited for.
    runtime.shutdown_background();
    result
}

/// The call itself: connects, sends the request, reads the whole answer.
async fn call(
    endpoint: &Endpoint,
    tls: &Arc<rustls::ClientConfig>,
    body: Vec<u8>,
    timeout: Duration,
) -> Result<(), String> {
    let mut request = Request::post(endpoint.uri.clone())
        .body(Full::new(Bytes::from(body)))
        .map_err(|err| chain(&err))?;
    let headers = request.headers_mut();
    headers.extend(endpoint.metadata.clone());
    // The call's own headers win over metadata of the same names.
    for (name, value) in [
        ("content-type", "application/grpc".to_owned()),
        ("te", "trailers".to_owned()),
        ("grpc-timeout", timeout_value(timeout)),
        (
            "user-agent",
            format!("toolreplay/{}", env!("CARGO_PKG_VERSION")),
        ),
    ] {
        let value = HeaderValue::from_str(&value).map_err(|err| chain(&err))?;
        headers.insert(HeaderName::from_static(name), value);
    }
    let stream = tokio::net::TcpStream::connect((endpoint.host.as_str(), endpoint.port))
        .await
        .map_err(|err| format!("cannot connect: {}", chain(&err)))?;
    let _ = stream.set_nodelay(true);
    if !endpoint.tls {
        return exchange(stream, request).await;
    }
    let name = rustls::pki_types::ServerName::try_from(endpoint.host.clone())
        .map_err(|err| format!("{:?} is not a TLS server name: {err}", endpoint.host))?;
    let stream = tokio_rustls::TlsConnector::from(Arc::clone(tls))
        .connect(name, stream)
        .await
        .map_err(|err| format!("TLS: {}", chain(&err)))?;
    match stream.get_ref().1.alpn_protocol() {
        None | Some(b"h2") => {}
        Some(other) => {
            return Err(format!(
                "the server chose {:?} over TLS, not HTTP/2",
                String::from_utf8_lossy(other)
            ));
        }
    }
    exchange(stream, request).await
}

/// The HTTP/2 exchange of `request` on the connection `io`, and its outcome.
async fn exchange<T>(io: T, request: Request<Full<Bytes>>) -> Result<(), String>
where
    T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
        .handshake(TokioIo::new(io))
        .await
        .map_err(|err| format!("HTTP/2: {}", chain(&err)))?;
    let driven = tokio::spawn(connection);
    let answer = answer(sender.send_request(request)).await;
    drop(sender);
    driven.abort();
    answer
}

/// The outcome of the answer `response` will give.
async fn answer(
    response: impl Future<Output = hyper::Result<hyper::Response<hyper::body::Incoming>>>,
) -> Result<(), String> {
    let (parts, body) = response
        .await
        .map_err(|err| format!("HTTP/2: {}", chain(&err)))?
        .into_parts();
    let collected = Limited::new(body, MAX_ANSWER_BYTES)
        .collect()
        .await
        .map_err(|err| format!("cannot read the answer: {}", chain(&*err)))?;
    let trailers = collected.trailers().cloned();
    let bytes = collected.to_bytes();
    outcome(parts.status, &parts.headers, &bytes, trailers.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&'static str, &str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(name, value)| {
                (
                    HeaderName::from_static(name),
                    HeaderValue::from_str(value).expect("a value"),
                )
            })
            .collect()
    }

    const OK: StatusCode = StatusCode::OK;

    #[test]
    fn a_message_is_framed_with_a_zero_flag_and_its_big_endian_length() {
        assert_eq!(frame(b"").expect("framed"), [0, 0, 0, 0, 0]);
        assert_eq!(
            frame(&[7; 300]).expect("framed")[..7],
            [0, 0, 0, 1, 44, 7, 7]
        );
        assert_eq!(frame(&[7; 300]).expect("framed").len(), 305);
    }

    #[test]
    fn the_timeout_header_fits_eight_digits() {
        assert_eq!(timeout_value(Duration::from_millis(2000)), "2000m");
        assert_eq!(timeout_value(Duration::ZERO), "1m");
        assert_eq!(
            timeout_value(Duration::from_millis(99_999_999)),
            "99999999m"
        );
        assert_eq!(timeout_value(Duration::from_millis(100_000_000)), "100000S");
        assert_eq!(timeout_value(Duration::from_secs(u64::MAX)), "99999999H");
    }

    #[test]
    fn status_0_in_the_trailers_and_one_frame_is_a_success() {
        let trailers = map(&[("grpc-status", "0")]);
        assert_eq!(
            outcome(OK, &HeaderMap::new(), &[0, 0, 0, 0, 0], Some(&trailers)),
            Ok(())
        );
        assert_eq!(
            outcome(
                OK,
                &HeaderMap::new(),
                &[0, 0, 0, 0, 2, 8, 1],
                Some(&trailers)
            ),
            Ok(())
        );
    }

    #[test]
    fn a_body_that_is_not_one_frame_fails() {
        let trailers = map(&[("grpc-status", "0")]);
        let fails = |body: &[u8]| outcome(OK, &HeaderMap::new(), body, Some(&trailers));
        assert_eq!(
            fails(b""),
            Err("the answer is not one gRPC message frame (0 bytes)".to_owned())
        );
        assert_eq!(
            fails(&[0, 0, 0, 0]),
            Err("the answer is not one gRPC message frame (4 bytes)".to_owned())
        );
        assert_eq!(
            fails(&[0, 0, 0, 0, 3, 1]),
            Err("the answer is not one gRPC message: a frame of 3 bytes in a body of 1".to_owned())
        );
        assert_eq!(
            fails(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
            Err("the answer is not one gRPC message: a frame of 0 bytes in a body of 5".to_owned())
        );
        assert_eq!(
            fails(&[1, 0, 0, 0, 0]),
            Err("the answer is a compressed message, which was not asked for".to_owned())
        );
        assert_eq!(
            fails(&[2, 0, 0, 0, 0]),
            Err("the answer is not one gRPC message frame (5 bytes)".to_owned())
        );
        assert_eq!(
            fails(b"<html>"),
            Err("the answer is not one gRPC message frame (6 bytes)".to_owned())
        );
    }

    #[test]
    fn an_error_status_names_its_code_and_decoded_message() {
        let trailers = map(&[
            ("grpc-status", "14"),
            ("grpc-message", "collector%20is%20down%0Atry later"),
        ]);
        assert_eq!(
            outcome(OK, &HeaderMap::new(), b"", Some(&trailers)),
            Err("grpc-status 14 (UNAVAILABLE): collector is down try later".to_owned())
        );
        // A trailers-only answer: the status in the headers, no body.
        let headers = map(&[("grpc-status", "16")]);
        assert_eq!(
            outcome(OK, &headers, b"", None),
            Err("grpc-status 16 (UNAUTHENTICATED)".to_owned())
        );
        let headers = map(&[("grpc-status", "99"), ("grpc-message", "%E2%9C%93")]);
        assert_eq!(
            outcome(OK, &headers, b"", None),
            Err("grpc-status 99 (not a gRPC status): \u{2713}".to_owned())
        );
        // Status 0 with no message is no success either.
        let headers = map(&[("grpc-status", "0")]);
        assert_eq!(
            outcome(OK, &headers, b"", None),
            Err("the answer holds no message (grpc-status 0 in its headers)".to_owned())
        );
    }

    #[test]
    fn no_status_a_bad_status_or_an_http_error_fails() {
        assert_eq!(
            outcome(OK, &HeaderMap::new(), &[0, 0, 0, 0, 0], None),
            Err("the answer has no grpc-status".to_owned())
        );
        for bad in ["", "-1", "+0", "OK", "4294967296"] {
            let trailers = map(&[("grpc-status", bad)]);
            assert_eq!(
                outcome(OK, &HeaderMap::new(), &[0, 0, 0, 0, 0], Some(&trailers)),
                Err(format!("grpc-status {bad:?} is not a number"))
            );
        }
        assert_eq!(
            outcome(StatusCode::NOT_FOUND, &HeaderMap::new(), b"not found", None),
            Err("HTTP status 404".to_owned())
        );
        let headers = map(&[("grpc-status", "0")]);
        assert_eq!(
            outcome(StatusCode::BAD_GATEWAY, &headers, b"", None),
            Err("HTTP status 502 (grpc-status 0)".to_owned())
        );
    }

    #[test]
    fn an_endpoint_is_a_scheme_a_host_and_a_port() {
        let endpoint = Endpoint::parse("http://localhost:4317", &[]).expect("an endpoint");
        assert_eq!(
            endpoint.uri.to_string(),
            "http://localhost:4317/opentelemetry.proto.collector.trace.v1.TraceService/Export"
        );
        assert_eq!(
            (endpoint.host.as_str(), endpoint.port, endpoint.tls),
            ("localhost", 4317, false)
        );
        let endpoint = Endpoint::parse("https://[::1]/", &[("x-team".into(), "qa".into())])
            .expect("an endpoint");
        assert_eq!(
            (endpoint.host.as_str(), endpoint.port, endpoint.tls),
            ("::1", 443, true)
        );
        assert_eq!(
            endpoint.metadata.get("x-team").map(HeaderValue::as_bytes),
            Some(&b"qa"[..])
        );
        let endpoint = Endpoint::parse("http://collector", &[]).expect("an endpoint");
        assert_eq!(endpoint.port, 80);
        for (url, why) in [
            ("http://localhost:4317/v1/traces", "has a path"),
            ("http://localhost:4317/?a=1", "has a path"),
            ("grpc://localhost:4317", "is neither http:// nor https://"),
            ("http://user@localhost:4317", "names no host"),
            ("http://", "is not a URL"),
            ("http://local host", "is not a URL"),
        ] {
            let err = Endpoint::parse(url, &[]).expect_err(url);
            assert!(
                err.starts_with(&format!("OTLP endpoint {url:?} {why}")),
                "{err}"
            );
        }
        let err = Endpoint::parse("http://localhost:4317", &[("bad name".into(), "x".into())])
            .expect_err("a bad name");
        assert_eq!(
            err,
            "OTLP header name \"bad name\" is not a valid gRPC metadata key"
        );
    }
}
