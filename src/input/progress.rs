//! A progress indicator for large inputs, drawn on standard error.
//!
//! It is used only when standard error is a terminal (see [`crate::input::open`]),
//! appears only once reading has taken [`DELAY`], is redrawn at most every
//! [`INTERVAL`] on one line, and is erased when the input is done, so it never
//! mixes with the report on standard output nor stays behind on the screen.

use std::io::{self, BufRead, Read, Write};
use std::time::{Duration, Instant};

/// How long reading goes on before the indicator appears.
pub(super) const DELAY: Duration = Duration::from_secs(1);

/// The shortest time between two redraws.
pub(super) const INTERVAL: Duration = Duration::from_millis(200);

/// How many bytes are read between two looks at the clock.
const CHECK_EVERY: u64 = 1 << 20;

/// What the indicator shows, and when: pure, with the time given.
#[derive(Debug)]
pub(super) struct Meter {
    name: String,
    total: Option<u64>,
    read: u64,
    checked_at: u64,
    start: Instant,
    drawn: Option<Instant>,
}

impl Meter {
    /// A meter for the input `name` of `total` bytes (unknown for a stream), started
    /// now.
    pub(super) fn new(name: String, total: Option<u64>) -> Self {
        Self::started_at(name, total, Instant::now())
    }

    /// A meter started at `start`.
    pub(super) fn started_at(name: String, total: Option<u64>, start: Instant) -> Self {
        Meter {
            name,
            total,
            read: 0,
            checked_at: 0,
            start,
            drawn: None,
        }
    }

    /// Counts `bytes` more read; true when it is time to look at the clock.
    pub(super) fn advance(&mut self, bytes: u64) -> bool {
        self.read += bytes;
        if self.read - self.checked_at >= CHECK_EVERY {
            self.checked_at = self.read;
            true
        } else {
            false
        }
    }

    /// The line to draw at `now`, if any: none before [`DELAY`] has passed nor
    /// within [`INTERVAL`] of the last one.
    pub(super) fn line_at(&mut self, now: Instant) -> Option<String> {
        if now.saturating_duration_since(self.start) < DELAY {
            return None;
        }
        if let Some(drawn) = self.drawn
            && now.saturating_duration_since(drawn) < INTERVAL
        {
            return None;
        }
        self.drawn = Some(now);
        let read = mib(self.read);
        Some(match self.total {
            Some(total) if total > 0 => format!(
                "reading {}: {read} of {} MiB ({}%)",
                self.name,
                mib(total),
                (self.read.min(total) * 100) / total
            ),
            _ => format!("reading {}: {read} MiB", self.name),
        })
    }

    /// Whether a line was drawn, so there is something to erase.
    pub(super) fn drawn(&self) -> bool {
        self.drawn.is_some()
    }
}

/// Bytes as MiB with one decimal.
fn mib(bytes: u64) -> String {
    let tenths = bytes.saturating_mul(10) / (1 << 20);
    format!("{}.{}", tenths / 10, tenths % 10)
}

/// A reader that draws its progress on `out` as it is read.
pub(super) struct Progress<R> {
    inner: R,
    meter: Meter,
    out: Box<dyn Write + Send>,
}

impl<R> Progress<R> {
    /// Wraps `inner`; lines are drawn on `out`.
    pub(super) fn new(inner: R, meter: Meter, out: Box<dyn Write + Send>) -> Self {
        Progress { inner, meter, out }
    }

    fn count(&mut self, bytes: usize) {
        if self.meter.advance(bytes as u64)
            && let Some(line) = self.meter.line_at(Instant::now())
        {
            // A failed redraw must not stop the audit.
            let _ = write!(self.out, "\r\x1b[K{line}");
            let _ = self.out.flush();
        }
    }
}

impl<R> Drop for Progress<R> {
    fn drop(&mut self) {
        if self.meter.drawn() {
            let _ = write!(self.out, "\r\x1b[K");
            let _ = self.out.flush();
        }
    }
}

impl<R: Read> Read for Progress<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Progress<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.inner.consume(amt);
        self.count(amt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn nothing_is_drawn_in_the_first_second() {
        let start = Instant::now();
        let mut meter = Meter::started_at("t.jsonl".into(), Some(10 * MIB), start);
        assert!(meter.advance(MIB));
        assert_eq!(meter.line_at(start + Duration::from_millis(999)), None);
        assert!(!meter.drawn());
    }

    #[test]
    fn after_a_second_the_share_read_is_drawn_at_most_every_200_ms() {
        let start = Instant::now();
        let mut meter = Meter::started_at("t.jsonl".into(), Some(10 * MIB), start);
        meter.advance(5 * MIB + MIB / 2);
        let at = start + Duration::from_secs(1);
        assert_eq!(
            meter.line_at(at).as_deref(),
            Some("reading t.jsonl: 5.5 of 10.0 MiB (55%)")
        );
        assert_eq!(meter.line_at(at + Duration::from_millis(199)), None);
        assert!(meter.line_at(at + INTERVAL).is_some());
        assert!(meter.drawn());
    }

    #[test]
    fn a_stream_of_unknown_size_shows_bytes_read() {
        let start = Instant::now();
        let mut meter = Meter::started_at("<stdin>".into(), None, start);
        meter.advance(3 * MIB);
        assert_eq!(
            meter.line_at(start + DELAY).as_deref(),
            Some("reading <stdin>: 3.0 MiB")
        );
    }

    #[test]
    fn the_clock_is_looked_at_once_a_mib() {
        let mut meter = Meter::started_at("t".into(), None, Instant::now());
        assert!(!meter.advance(MIB - 1));
        assert!(meter.advance(1));
        assert!(!meter.advance(MIB - 1));
    }

    #[test]
    fn reading_passes_every_byte_through_and_a_quick_read_draws_nothing() {
        let data = vec![b'x'; 3 * MIB as usize];
        let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let meter = Meter::new("t".into(), Some(data.len() as u64));
        let mut reader = Progress::new(&data[..], meter, Box::new(Shared(out.clone())));
        let mut copy = Vec::new();
        reader.read_to_end(&mut copy).unwrap();
        drop(reader);
        assert_eq!(copy, data);
        assert!(out.lock().unwrap().is_empty());
    }
}
