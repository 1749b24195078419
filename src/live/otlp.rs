//! The opt-in live export of a session's spans (`guard --otlp`, `proxy --otlp`;
//! docs/otel.md): the same `execute_tool` spans `toolreplay export --format otlp`
//! gives of the sealed file, sent over OTLP/HTTP or OTLP/gRPC ([`grpc`]) to the
//! endpoint the standard `OTEL_EXPORTER_OTLP_*` variables name. Never on a decision's
//! path, and a failure never fails the session: it is said once on stderr.
//!
//! - Protocol: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`:
//!   `http/protobuf` (the default, as the specification says), `http/json` or `grpc`
//!   (the unary `TraceService/Export` call over HTTP/2, the protobuf request in one
//!   gRPC frame).
//! - Endpoint: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it is, else
//!   `OTEL_EXPORTER_OTLP_ENDPOINT` with `/v1/traces` after it (over gRPC, as it is),
//!   else `http://localhost:4318/v1/traces` (over gRPC, `http://localhost:4317`);
//!   `http://` or `https://` (TLS by rustls, the server checked against Mozilla's
//!   roots, or only against the PEM certificates of
//!   `OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE` / `OTEL_EXPORTER_OTLP_CERTIFICATE`; a
//!   client certificate and key from the `..._CLIENT_CERTIFICATE` and
//!   `..._CLIENT_KEY` variables; these are read once, by [`Tls`], for either
//!   protocol). `OTEL_EXPORTER_OTLP_INSECURE` is not read: over gRPC the scheme says
//!   whether TLS is used.
//! - Headers: `OTEL_EXPORTER_OTLP_HEADERS` then `OTEL_EXPORTER_OTLP_TRACES_HEADERS`
//!   (`key=value,...`, values percent-decoded; names compared without case, the
//!   traces variable's winning); over gRPC, the call's metadata.
//! - Timeout: `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT`, else `OTEL_EXPORTER_OTLP_TIMEOUT`, in
//!   milliseconds; 10000 by default, as the specification says; a caller may give a
//!   shorter budget (the guard's hook). It holds the whole send; over gRPC it is also
//!   sent as `grpc-timeout`.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use toolreplay_core::{
    CallMeta, Link, OtlpOptions, OtlpRecord, OtlpSpans, line_text, otlp_protobuf, otlp_request,
    parse_link, read_call_ids,
};

mod grpc;

/// Where and how spans are sent.
#[derive(Debug)]
pub(crate) struct Exporter {
    /// The endpoint, as messages name it.
    url: String,
    transport: Transport,
}

/// How a request goes.
#[derive(Debug)]
enum Transport {
    /// OTLP/HTTP: a POST of the protobuf or JSON request, with the headers
    /// variables' pairs.
    Http {
        protobuf: bool,
        agent: ureq::Agent,
        headers: Vec<(String, String)>,
    },
    /// OTLP/gRPC: the unary `Export` call over HTTP/2, within `timeout` (the
    /// headers variables' pairs are the endpoint's metadata).
    Grpc {
        endpoint: grpc::Endpoint,
        tls: Arc<rustls::ClientConfig>,
        timeout: Duration,
    },
}

/// The environment's variable `name`, when set and not empty.
fn var(env: &dyn Fn(&str) -> Option<String>, name: &str) -> Option<String> {
    env(name).filter(|value| !value.trim().is_empty())
}

/// The traces variable `OTEL_EXPORTER_OTLP_TRACES_{what}`, else the general
/// `OTEL_EXPORTER_OTLP_{what}`, with the name of the one set.
fn signal_var(env: &dyn Fn(&str) -> Option<String>, what: &str) -> Option<(String, String)> {
    [
        format!("OTEL_EXPORTER_OTLP_TRACES_{what}"),
        format!("OTEL_EXPORTER_OTLP_{what}"),
    ]
    .into_iter()
    .find_map(|name| var(env, &name).map(|value| (name, value.trim().to_owned())))
}

/// The largest certificate or key file read, in bytes.
const MAX_PEM_BYTES: u64 = 1 << 20;

/// The bytes of the file the variable `name` names, at most [`MAX_PEM_BYTES`].
fn pem_file(name: &str, path: &str) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_PEM_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|err| format!("{name}: cannot read {path}: {err}"))?;
    if bytes.len() as u64 > MAX_PEM_BYTES {
        return Err(format!("{name}: {path} is larger than 1 MiB"));
    }
    Ok(bytes)
}

/// The PEM items of `bytes`, the file `path` the variable `name` names.
fn pem_items(
    name: &str,
    path: &str,
    bytes: &[u8],
) -> Result<Vec<ureq::tls::PemItem<'static>>, String> {
    ureq::tls::parse_pem(bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| format!("{name}: {path} is not PEM: {err}"))
}

/// The certificates of the PEM file `path` the variable `name` names; `Err` when
/// it holds none.
fn pem_certificates(
    name: &str,
    path: &str,
) -> Result<Vec<ureq::tls::Certificate<'static>>, String> {
    let certificates: Vec<_> = pem_items(name, path, &pem_file(name, path)?)?
        .into_iter()
        .filter_map(|item| match item {
            ureq::tls::PemItem::Certificate(cert) => Some(cert),
            _ => None,
        })
        .collect();
    if certificates.is_empty() {
        return Err(format!("{name}: {path} holds no PEM certificate"));
    }
    Ok(certificates)
}

/// The TLS settings the certificate variables give, read once for every protocol:
/// the roots to trust (Mozilla's by default, else only the certificates of the file
/// named) and the client's certificate chain and key, if any; as the OTLP/HTTP
/// client takes them, and as rustls' client configuration for gRPC (TLS 1.2 and
/// 1.3, the `ring` provider, ALPN `h2`).
struct Tls {
    ureq: ureq::tls::TlsConfig,
    rustls: Arc<rustls::ClientConfig>,
}

impl Tls {
    /// What the certificate variables of `env` name, or why it cannot be used: a
    /// file that cannot be read or holds nothing of its kind, a client certificate
    /// without its key (or the other way round), a key that rustls cannot take or
    /// that is not the certificate's.
    fn from(env: &dyn Fn(&str) -> Option<String>) -> Result<Tls, String> {
        use ureq::tls::{ClientCert, PemItem, RootCerts, TlsConfig};
        let der = |cert: &ureq::tls::Certificate<'_>| CertificateDer::from(cert.der().to_vec());
        let mut config = TlsConfig::builder();
        let mut roots = rustls::RootCertStore::empty();
        match signal_var(env, "CERTIFICATE") {
            Some((name, path)) => {
                let certificates = pem_certificates(&name, &path)?;
                roots.add_parsable_certificates(certificates.iter().map(der));
                config = config.root_certs(RootCerts::new_with_certs(&certificates));
            }
            None => roots.roots = webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        }
        let builder = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(|err| format!("TLS: {err}"))?
        .with_root_certificates(roots);
        let mut rustls = match (
            signal_var(env, "CLIENT_CERTIFICATE"),
            signal_var(env, "CLIENT_KEY"),
        ) {
            (None, None) => builder.with_no_client_auth(),
            (Some((cert_name, cert_path)), Some((key_name, key_path))) => {
                let chain = pem_certificates(&cert_name, &cert_path)?;
                let bytes = pem_file(&key_name, &key_path)?;
                let no_key = || format!("{key_name}: {key_path} holds no PEM private key");
                let key = pem_items(&key_name, &key_path, &bytes)?
                    .into_iter()
                    .find_map(|item| match item {
                        PemItem::PrivateKey(key) => Some(key),
                        _ => None,
                    })
                    .ok_or_else(no_key)?;
                let rustls_key = {
                    use rustls::pki_types::pem::PemObject as _;
                    PrivateKeyDer::from_pem_slice(&bytes).map_err(|_| no_key())?
                };
                let rustls = builder
                    .with_client_auth_cert(chain.iter().map(der).collect(), rustls_key)
                    .map_err(|err| {
                        format!("{key_name}: {key_path} is not a key of {cert_path}: {err}")
                    })?;
                config = config.client_cert(Some(ClientCert::new_with_certs(&chain, key)));
                rustls
            }
            (Some((name, _)), None) | (None, Some((name, _))) => {
                return Err(format!(
                    "{name} is set without its pair (a client certificate needs both OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY)"
                ));
            }
        };
        rustls.alpn_protocols = vec![b"h2".to_vec()];
        Ok(Tls {
            ureq: config.build(),
            rustls: Arc::new(rustls),
        })
    }
}

impl Exporter {
    /// The exporter the process environment names, or why there is none; one send
    /// takes at most `budget`, when given, whatever the timeout variables say.
    pub(crate) fn from_env(budget: Option<Duration>) -> Result<Exporter, String> {
        Exporter::from(&|name| std::env::var(name).ok(), budget)
    }

    /// The exporter the variables `env` gives name, or why there is none.
    pub(crate) fn from(
        env: &dyn Fn(&str) -> Option<String>,
        budget: Option<Duration>,
    ) -> Result<Exporter, String> {
        let protocol = var(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
            .or_else(|| var(env, "OTEL_EXPORTER_OTLP_PROTOCOL"))
            .unwrap_or_else(|| "http/protobuf".to_owned());
        let protocol = match protocol.trim() {
            "http/protobuf" => Protocol::Protobuf,
            "http/json" => Protocol::Json,
            "grpc" => Protocol::Grpc,
            other => {
                return Err(format!(
                    "OTLP protocol {other:?} is not supported: set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf (the default), http/json or grpc"
                ));
            }
        };
        // Over gRPC either variable names the endpoint as it is; over HTTP the
        // general one is a base the signal's path goes after.
        let url = match var(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            Some(url) => url.trim().to_owned(),
            None => match (var(env, "OTEL_EXPORTER_OTLP_ENDPOINT"), protocol) {
                (Some(base), Protocol::Grpc) => base.trim().to_owned(),
                (Some(base), _) => format!("{}/v1/traces", base.trim().trim_end_matches('/')),
                (None, Protocol::Grpc) => grpc::DEFAULT_ENDPOINT.to_owned(),
                (None, _) => "http://localhost:4318/v1/traces".to_owned(),
            },
        };
        if !url.starts_with("http://") && !url.starts_with("https://") {
            return Err(format!(
                "OTLP endpoint {url:?} is neither http:// nor https://"
            ));
        }
        let mut headers: BTreeMap<String, String> = BTreeMap::new();
        for name in [
            "OTEL_EXPORTER_OTLP_HEADERS",
            "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
        ] {
            for pair in var(env, name).unwrap_or_default().split(',') {
                if pair.trim().is_empty() {
                    continue;
                }
                let Some((key, value)) = pair.split_once('=') else {
                    return Err(format!("{name}: {pair:?} is not key=value"));
                };
                // Header names are compared without case: the traces variable's wins.
                headers.insert(
                    key.trim().to_ascii_lowercase(),
                    percent_decode(value.trim()),
                );
            }
        }
        let timeout = var(env, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT")
            .or_else(|| var(env, "OTEL_EXPORTER_OTLP_TIMEOUT"))
            .and_then(|ms| ms.trim().parse::<u64>().ok())
            .unwrap_or(10_000);
        let timeout = Duration::from_millis(timeout.max(1));
        let timeout = budget.map_or(timeout, |budget| timeout.min(budget));
        let tls = Tls::from(env)?;
        let headers: Vec<(String, String)> = headers.into_iter().collect();
        let transport = match protocol {
            Protocol::Grpc => Transport::Grpc {
                endpoint: grpc::Endpoint::parse(&url, &headers)?,
                tls: tls.rustls,
                timeout,
            },
            Protocol::Protobuf | Protocol::Json => {
                let config = ureq::Agent::config_builder()
                    .timeout_global(Some(timeout))
                    .http_status_as_error(true)
                    .tls_config(tls.ureq)
                    .build();
                Transport::Http {
                    protobuf: protocol == Protocol::Protobuf,
                    agent: config.into(),
                    headers,
                }
            }
        };
        Ok(Exporter { url, transport })
    }

    /// Sends one request ([`otlp_request`]'s OTLP/JSON), in the protocol's encoding;
    /// `Err` says why it was not taken.
    pub(crate) fn send(&self, json: &[u8]) -> Result<(), String> {
        let protobuf = || otlp_protobuf(json).map_err(|err| err.to_string());
        let (agent, headers, body, content_type) = match &self.transport {
            Transport::Grpc {
                endpoint,
                tls,
                timeout,
            } => {
                return grpc::export(endpoint, tls, &protobuf()?, *timeout)
                    .map_err(|err| format!("cannot send spans to {} over gRPC: {err}", self.url));
            }
            Transport::Http {
                protobuf: true,
                agent,
                headers,
            } => (
                agent,
                headers,
                std::borrow::Cow::Owned(protobuf()?),
                "application/x-protobuf",
            ),
            Transport::Http {
                protobuf: false,
                agent,
                headers,
            } => (
                agent,
                headers,
                std::borrow::Cow::Borrowed(json),
                "application/json",
            ),
        };
        let mut request = agent.post(&self.url).header("Content-Type", content_type);
        for (key, value) in headers {
            request = request.header(key.as_str(), value.as_str());
        }
        request
            .send(&*body)
            .map(drop)
            .map_err(|err| format!("cannot send spans to {}: {err}", self.url))
    }
}

/// The encodings and transports of `OTEL_EXPORTER_OTLP_PROTOCOL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Protocol {
    Protobuf,
    Json,
    Grpc,
}

/// `%XX` escapes decoded (as the OTLP headers variable writes values), bytes that
/// are not UTF-8 replaced.
fn percent_decode(text: &str) -> String {
    String::from_utf8_lossy(&toolreplay_core::percent_decode(text)).into_owned()
}

/// The spans of sealed links, one link line at a time, as `export` makes them of
/// the whole file.
pub(crate) struct LinkSpans {
    spans: OtlpSpans,
}

impl LinkSpans {
    /// Spans of a session from its first link, MCP calls or not.
    pub(crate) fn new(mcp: bool) -> Self {
        LinkSpans {
            spans: OtlpSpans::new(OtlpOptions {
                with_content: false,
                mcp,
            }),
        }
    }

    /// How many links were taken: the index of the next one.
    pub(crate) fn records(&self) -> u64 {
        self.spans.records()
    }

    /// The span of the next link, the sealed line `line` (with or without its LF);
    /// `None` for a line that is not a link.
    pub(crate) fn span(&mut self, line: &[u8]) -> Option<Vec<u8>> {
        self.span_with(line, None)
    }

    /// [`LinkSpans::span`], with what `meta` says of the call (its ids).
    pub(crate) fn span_with(&mut self, line: &[u8], meta: Option<&CallMeta>) -> Option<Vec<u8>> {
        let link = link_of(self.spans.records() + 1, line)?;
        Some(self.spans.span(
            &OtlpRecord {
                tool: &link.tool,
                args: &link.args,
                response: &link.response,
                digest: Some(&link.digest),
                meta,
            },
            &[],
        ))
    }
}

/// The link of the sealed line `line`, physical line `number`; `None` for a line
/// that is not a link.
fn link_of(number: u64, line: &[u8]) -> Option<Link> {
    let bytes = line.strip_suffix(b"\n").unwrap_or(line);
    let text = line_text(number, bytes).ok()??;
    parse_link(number, text).ok()
}

/// The file beside a session `S.jsonl` that holds how many of its links were sent:
/// `S.jsonl.otlp`.
pub(crate) fn cursor_path(session: &Path) -> PathBuf {
    let mut name = session.as_os_str().to_owned();
    name.push(OsStr::new(".otlp"));
    PathBuf::from(name)
}

/// Sends the spans of the links of the session `path` not sent yet (the first
/// `links` links of it are sealed), and records how many are sent in
/// [`cursor_path`]. The guard calls this at a turn's or the session's end.
pub(crate) fn send_pending(exporter: &Exporter, path: &Path, links: u64) -> Result<(), String> {
    let cursor = cursor_path(path);
    let sent: u64 = std::fs::read_to_string(&cursor)
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(0);
    if sent >= links {
        return Ok(());
    }
    let mut file = std::fs::File::open(path)
        .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    let mut bytes = Vec::new();
    file.seek(SeekFrom::Start(0))
        .and_then(|_| file.read_to_end(&mut bytes))
        .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    let lines: Vec<&[u8]> = bytes
        .split_inclusive(|&b| b == b'\n')
        .filter(|line| {
            line_text(1, line.strip_suffix(b"\n").unwrap_or(line)).is_ok_and(|text| text.is_some())
        })
        .take(usize::try_from(links).unwrap_or(usize::MAX))
        .collect();
    // The calls' ids, as `export` reads them beside the sealed file.
    let calls = crate::live::calls_path(path);
    let meta = match std::fs::File::open(&calls) {
        Ok(file) => {
            let links: Vec<Option<Link>> = (1..)
                .zip(&lines)
                .map(|(number, line)| link_of(number, line))
                .collect();
            let digests: Vec<Option<&str>> = links
                .iter()
                .map(|link| link.as_ref().map(|link| link.digest.as_str()))
                .collect();
            read_call_ids(std::io::BufReader::new(file), &digests)
                .map_err(|err| format!("{}: {err}", calls.display()))?
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(err) => return Err(format!("cannot read {}: {err}", calls.display())),
    };
    let mut spans = LinkSpans::new(false);
    let mut pending = Vec::new();
    let mut seen = 0u64;
    for (at, line) in lines.iter().enumerate() {
        if let Some(span) = spans.span_with(line, meta.get(at)) {
            if seen >= sent {
                pending.push(span);
            }
            seen += 1;
        }
    }
    if pending.is_empty() {
        return Ok(());
    }
    exporter.send(&otlp_request(&pending))?;
    let temporary = cursor.with_extension("otlp.tmp");
    std::fs::write(&temporary, format!("{seen}\n"))
        .and_then(|()| std::fs::rename(&temporary, &cursor))
        .map_err(|err| format!("cannot write {}: {err}", cursor.display()))
}
