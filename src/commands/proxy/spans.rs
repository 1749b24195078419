//! `proxy --otlp`: the spans of the calls sealed in this session, made and sent off
//! the call path, by a thread of their own, in batches (docs/otel.md). The relay hands
//! it each block of links once durable; the thread makes their spans as `export
//! --format otlp --mcp` makes those of the sealed file, and sends a batch when a
//! second has passed since its first span, when it holds [`BATCH`] spans, and at the
//! session's end. A failed send is said once on stderr; the session never waits on
//! it but at its end, for at most the exporter's timeout.

use std::io::Write as _;
use std::path::Path;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use toolreplay_core::{CallMeta, Ready, otlp_request, parse_call_ids_line};

use crate::live::otlp::{Exporter, LinkSpans};

/// The most spans one request holds.
const BATCH: usize = 512;

/// How long a span waits for others before its batch is sent.
const LINGER: Duration = Duration::from_secs(1);

/// Starts the thread that sends the spans of the links of the session file `path`
/// sealed from now on; the links already in it only set the replay findings and
/// the trace. Gives where to send blocks of sealed lines, and the thread to join
/// once they are all sent; `None` (said on stderr) when the environment names no
/// endpoint this build can send to.
pub(super) fn start(path: &Path) -> Option<(Sender<Ready>, JoinHandle<()>)> {
    let exporter = match Exporter::from_env(None) {
        Ok(exporter) => exporter,
        Err(why) => {
            let _ = writeln!(std::io::stderr().lock(), "toolreplay proxy: --otlp: {why}");
            return None;
        }
    };
    let mut spans = LinkSpans::new(true);
    if let Ok(bytes) = std::fs::read(path) {
        for line in bytes.split_inclusive(|&b| b == b'\n') {
            spans.span(line);
        }
    }
    let (sender, receiver) = mpsc::channel::<Ready>();
    let thread = thread::spawn(move || run(&exporter, spans, &receiver));
    Some((sender, thread))
}

fn run(exporter: &Exporter, mut spans: LinkSpans, receiver: &Receiver<Ready>) {
    let mut pending: Vec<Vec<u8>> = Vec::new();
    let mut since: Option<Instant> = None;
    let mut told = false;
    let mut flush = |pending: &mut Vec<Vec<u8>>| {
        if pending.is_empty() {
            return;
        }
        if let Err(why) = exporter.send(&otlp_request(pending))
            && !told
        {
            told = true;
            let _ = writeln!(
                std::io::stderr().lock(),
                "toolreplay proxy: --otlp: {why}; the session goes on, and its spans are in the sealed file (toolreplay export)"
            );
        }
        pending.clear();
    };
    loop {
        let wait = since.map_or(Duration::from_secs(3600), |at| {
            LINGER.saturating_sub(at.elapsed())
        });
        match receiver.recv_timeout(wait) {
            Ok(ready) => {
                // The calls' ids, by index, as `export` reads them beside the seal.
                let ids: Vec<(u64, CallMeta)> = ready
                    .calls
                    .split(|&b| b == b'\n')
                    .filter_map(|line| std::str::from_utf8(line).ok())
                    .filter_map(|text| parse_call_ids_line(text).ok())
                    .map(|(index, _, meta)| (index, meta))
                    .collect();
                for line in ready.lines.split_inclusive(|&b| b == b'\n') {
                    let index = spans.records();
                    let meta = ids
                        .iter()
                        .find(|(at, _)| *at == index)
                        .map(|(_, meta)| meta);
                    if let Some(span) = spans.span_with(line, meta) {
                        pending.push(span);
                        since.get_or_insert_with(Instant::now);
                    }
                }
                if pending.len() >= BATCH {
                    flush(&mut pending);
                    since = None;
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                flush(&mut pending);
                since = None;
            }
            Err(RecvTimeoutError::Disconnected) => {
                flush(&mut pending);
                return;
            }
        }
    }
}
