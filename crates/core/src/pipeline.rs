//! Parallel streaming, in order. A few threads (the calling thread and helpers) each
//! take the next block of whole lines from the input, parse it, and leave its items
//! with the other parsed blocks; a thread that finds the next block in order ready
//! consumes it, and those after it that are ready, unless another thread is at it.
//! Blocks are numbered as they are taken and consumed strictly in that order, so the
//! result is exactly that of a sequential loop; only the parsing overlaps. No thread
//! waits for a turn: it goes on to the next block, unless `AHEAD` blocks already
//! wait for an earlier one.
//!
//! A block is about [`BLOCK_BYTES`] long, or one line when a line is longer. Each
//! thread reads into a buffer of its own, and at most `AHEAD` parsed blocks wait,
//! so memory stays bounded: a few blocks (or lines, when lines are larger than a
//! block) at a time.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;

use crate::error::{LineError, ReadError};
use crate::lines::{line_text, non_blank};

/// How much input a block holds, at least (unless the input ends first).
pub(crate) const BLOCK_BYTES: usize = 256 << 10;

/// The most threads that parse blocks by default, the calling thread included.
const DEFAULT_MAX_THREADS: usize = 4;

/// The most threads a pipeline runs on.
pub const MAX_THREADS: usize = 16;

/// How many threads a pipeline runs on, the calling thread included: from 1 to
/// [`MAX_THREADS`]. [`Threads::default`] is one per core up to four. The result of a
/// pipeline is the same on any number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Threads(usize);

impl Threads {
    /// `n` threads, clamped to 1 to [`MAX_THREADS`].
    pub fn new(n: usize) -> Threads {
        Threads(n.clamp(1, MAX_THREADS))
    }

    /// How many threads: from 1 to [`MAX_THREADS`].
    pub fn get(self) -> usize {
        self.0
    }
}

impl Default for Threads {
    /// One thread per core, up to four.
    fn default() -> Threads {
        Threads(
            thread::available_parallelism().map_or(2, |n| n.get().clamp(1, DEFAULT_MAX_THREADS)),
        )
    }
}

/// How many blocks may be parsed ahead of the next one to consume.
const AHEAD: u64 = 4;

/// Why a pipeline stopped early.
#[derive(Debug, thiserror::Error)]
pub enum Stop<E> {
    /// The input could not be read or parsed.
    #[error(transparent)]
    Read(ReadError),
    /// The consumer failed.
    #[error(transparent)]
    Consume(E),
}

impl<E> Stop<E> {
    /// A stop of a consumer that itself stopped as a pipeline does: the two made one.
    pub fn flatten(stop: Stop<Stop<E>>) -> Stop<E> {
        match stop {
            Stop::Read(err) | Stop::Consume(Stop::Read(err)) => Stop::Read(err),
            Stop::Consume(Stop::Consume(err)) => Stop::Consume(err),
        }
    }
}

impl Stop<std::convert::Infallible> {
    /// The input error of a pipeline whose consumer cannot fail.
    pub fn into_read_error(self) -> ReadError {
        match self {
            Stop::Read(err) => err,
            Stop::Consume(never) => match never {},
        }
    }
}

/// The input, read by one thread at a time.
struct Input<R> {
    reader: R,
    /// The start of a line that the last block did not end.
    carry: Vec<u8>,
    /// The number of the next block.
    next: u64,
    /// The physical number of the next block's first line.
    first_line: u64,
    /// Whether no block is left: the input has ended, failed, or is no longer wanted.
    ended: bool,
}

/// A block of whole lines in a thread's buffer.
struct Block {
    /// Its place among the blocks.
    number: u64,
    /// The physical number of its first line.
    first_line: u64,
    /// How many bytes of the buffer it fills.
    len: usize,
}

impl<R: Read> Input<R> {
    /// Reads the next block into `buffer`, which is reused from block to block: the
    /// block, or the error that ended the input there; `None` once no block is left.
    fn next_block(&mut self, buffer: &mut Vec<u8>) -> Option<Result<Block, BlockError>> {
        if self.ended {
            return None;
        }
        let number = self.next;
        self.next += 1;
        let mut len = self.carry.len();
        if buffer.len() < len + BLOCK_BYTES {
            // Room for the carried line and a whole read; zeroed once, then reused.
            buffer.resize(len + 2 * BLOCK_BYTES, 0);
        }
        buffer[..len].copy_from_slice(&self.carry);
        self.carry.clear();
        let mut has_newline = false;
        let mut end = false;
        while len < BLOCK_BYTES || !has_newline {
            if buffer.len() - len < BLOCK_BYTES / 2 {
                // A long line: the buffer grows to hold it, a block at a time, so no
                // more of it is filled than the line needs.
                buffer.resize(len + BLOCK_BYTES, 0);
            }
            // Up to the block's size, or a quarter block at a time once past it.
            let ask = BLOCK_BYTES.saturating_sub(len).max(BLOCK_BYTES / 4);
            let room = (len + ask).min(buffer.len());
            match self.reader.read(&mut buffer[len..room]) {
                Ok(0) => {
                    end = true;
                    break;
                }
                Ok(n) => {
                    has_newline |= memchr::memchr(b'\n', &buffer[len..len + n]).is_some();
                    len += n;
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => {
                    self.ended = true;
                    return Some(Err(BlockError { number, error: err }));
                }
            }
        }
        if end {
            self.ended = true;
        } else {
            // Keep the unfinished last line for the next block.
            let cut = memchr::memrchr(b'\n', &buffer[..len]).map_or(0, |i| i + 1);
            self.carry.extend_from_slice(&buffer[cut..len]);
            len = cut;
        }
        if len == 0 {
            self.ended = true;
            return None;
        }
        let first_line = self.first_line;
        self.first_line += memchr::memchr_iter(b'\n', &buffer[..len]).count() as u64;
        Some(Ok(Block {
            number,
            first_line,
            len,
        }))
    }
}

/// The read error that ended the input, in place of the block `number`.
struct BlockError {
    number: u64,
    error: io::Error,
}

/// The items of a parsed block, and the error that ended it early, if any.
type Parsed<T> = (Vec<(u64, T)>, Option<ReadError>);

/// The consuming side: blocks parsed but not yet consumed, and the consumer, which
/// one thread at a time takes out to consume the next blocks in order.
struct Output<C, T, E> {
    /// The consumer, or `None` while a thread is consuming with it.
    consume: Option<C>,
    /// The number of the next block to consume, once the one being consumed is done.
    turn: u64,
    /// Parsed blocks from `turn` on, by number; `None` where a block is still being
    /// parsed.
    ready: VecDeque<Option<Parsed<T>>>,
    /// Why the pipeline stopped, once it has.
    stop: Option<Stop<E>>,
    /// Whether a thread was lost to a panic, so no turn can be counted on.
    abandoned: bool,
}

impl<C, T, E> Output<C, T, E> {
    fn over(&self) -> bool {
        self.stop.is_some() || self.abandoned
    }
}

/// What the threads share.
struct Shared<R, C, T, E> {
    input: Mutex<Input<R>>,
    output: Mutex<Output<C, T, E>>,
    /// Signalled whenever blocks are consumed or the pipeline stops.
    consumed: Condvar,
}

/// Locks `mutex`; a lock poisoned by a panic elsewhere is taken all the same, since
/// the panic is passed on when the threads are joined.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Parses every non-blank line of `reader` with `parse`, and hands each item with its
/// physical line number to `consume`, in input order.
///
/// The first read or parse error ends the input; the items before it are consumed
/// first, so a consumer sees exactly what a sequential loop would have given it.
pub fn run<R, T, E, C>(
    reader: R,
    threads: Threads,
    parse: impl Fn(u64, &str) -> Result<T, LineError> + Sync,
    consume: C,
) -> Result<(), Stop<E>>
where
    R: Read + Send,
    T: Send,
    E: Send,
    C: FnMut(u64, T) -> Result<(), E> + Send,
{
    run_blocks(
        reader,
        threads,
        |first_line, bytes: &[u8], items: &mut Vec<(u64, T)>| {
            parse_block(first_line, bytes, &parse, items)
        },
        consume,
    )
}

/// Like [`run`], but each block of whole lines goes whole to `parse`, with the
/// physical number of its first line: it pushes the items of the block's lines in
/// order, each with its line number, and returns the error that ends the input
/// there, if any (after pushing the items of the lines before it). A parser that
/// looks at the lines of a block together, in order, can carry what it learnt from
/// one line to the next; lines of different blocks are parsed on different threads.
pub(crate) fn run_blocks<R, T, E, C>(
    reader: R,
    threads: Threads,
    parse: impl Fn(u64, &[u8], &mut Vec<(u64, T)>) -> Option<ReadError> + Sync,
    consume: C,
) -> Result<(), Stop<E>>
where
    R: Read + Send,
    T: Send,
    E: Send,
    C: FnMut(u64, T) -> Result<(), E> + Send,
{
    let shared = Shared {
        input: Mutex::new(Input {
            reader,
            carry: Vec::new(),
            next: 0,
            first_line: 1,
            ended: false,
        }),
        output: Mutex::new(Output {
            consume: Some(consume),
            turn: 0,
            ready: VecDeque::new(),
            stop: None,
            abandoned: false,
        }),
        consumed: Condvar::new(),
    };
    thread::scope(|scope| {
        for _ in 1..threads.get() {
            // Without a helper, the calling thread does all the work: still correct.
            let _ = thread::Builder::new()
                .name("toolreplay-parse".to_owned())
                .spawn_scoped(scope, || work(&shared, &parse));
        }
        work(&shared, &parse);
    });
    let output = shared
        .output
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    match output.stop {
        Some(stop) => Err(stop),
        None => Ok(()),
    }
}

/// Marks the pipeline abandoned if its thread unwinds, so that no other thread waits
/// for a block it would never get.
struct Abandon<'a, C, T, E> {
    output: &'a Mutex<Output<C, T, E>>,
    consumed: &'a Condvar,
}

impl<C, T, E> Drop for Abandon<'_, C, T, E> {
    fn drop(&mut self) {
        if thread::panicking() {
            lock(self.output).abandoned = true;
            self.consumed.notify_all();
        }
    }
}

/// One thread's loop: take a block, parse it, leave it with the parsed blocks, and
/// consume every block whose turn has come unless another thread is at it; until no
/// block is left or the pipeline stops. A thread waits only when [`AHEAD`] blocks
/// are parsed and waiting for an earlier one.
fn work<R, T, E, C>(
    shared: &Shared<R, C, T, E>,
    parse: &(impl Fn(u64, &[u8], &mut Vec<(u64, T)>) -> Option<ReadError> + Sync),
) where
    R: Read,
    C: FnMut(u64, T) -> Result<(), E>,
{
    let _abandon = Abandon {
        output: &shared.output,
        consumed: &shared.consumed,
    };
    let mut buffer = Vec::new();
    loop {
        let Some(taken) = lock(&shared.input).next_block(&mut buffer) else {
            return;
        };
        let (number, parsed) = match taken {
            Ok(block) => {
                let mut items = Vec::new();
                let lines = &buffer[..block.len];
                let error = parse(block.first_line, lines, &mut items);
                (block.number, (items, error))
            }
            Err(BlockError { number, error }) => (number, (Vec::new(), Some(ReadError::Io(error)))),
        };
        let mut output = lock(&shared.output);
        while number >= output.turn + AHEAD && !output.over() {
            output = shared
                .consumed
                .wait(output)
                .unwrap_or_else(PoisonError::into_inner);
        }
        if output.over() {
            drop(output);
            lock(&shared.input).ended = true;
            return;
        }
        let slot = (number - output.turn) as usize;
        if output.ready.len() <= slot {
            output.ready.resize_with(slot + 1, || None);
        }
        output.ready[slot] = Some(parsed);
        // Consume what is ready, in order, unless another thread is consuming.
        while output.ready.front().is_some_and(Option::is_some) && !output.over() {
            let Some(mut consume) = output.consume.take() else {
                break;
            };
            let Some(Some((items, error))) = output.ready.pop_front() else {
                output.consume = Some(consume);
                break;
            };
            // The next block is now the first of `ready`.
            output.turn += 1;
            drop(output);
            let mut stop = None;
            for (line, item) in items {
                if let Err(err) = consume(line, item) {
                    stop = Some(Stop::Consume(err));
                    break;
                }
            }
            output = lock(&shared.output);
            output.consume = Some(consume);
            output.stop = stop.or(error.map(Stop::Read));
            shared.consumed.notify_all();
        }
        let over = output.over();
        drop(output);
        if over {
            lock(&shared.input).ended = true;
            return;
        }
        if buffer.len() > 8 * BLOCK_BYTES {
            // After a very long line, the next blocks get an ordinary buffer again.
            buffer = Vec::new();
        }
    }
}

/// Parses the non-blank lines of `bytes`, whose first line is physical line
/// `first_line`, into `items`, stopping at the first error, which it returns.
pub(crate) fn parse_block<T>(
    first_line: u64,
    bytes: &[u8],
    parse: &impl Fn(u64, &str) -> Result<T, LineError>,
    items: &mut Vec<(u64, T)>,
) -> Option<ReadError> {
    for_each_line(first_line, bytes, |line, text| {
        items.push((line, parse(line, text)?));
        Ok(())
    })
}

/// Hands each non-blank line of `bytes`, whose first line is physical line
/// `first_line`, to `take` with its number, as [`line_text`] reads it; stops at the
/// first error, of a line or of `take`, which it returns.
pub(crate) fn for_each_line(
    first_line: u64,
    bytes: &[u8],
    mut take: impl FnMut(u64, &str) -> Result<(), LineError>,
) -> Option<ReadError> {
    // Valid UTF-8 as a whole, the block is so line by line (a line ends at an ASCII
    // byte): checked once here, not line by line.
    if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
        for (line, range) in (first_line..).zip(line_ranges(bytes)) {
            // A line's ends are at an LF or an end, so on character boundaries.
            let line_text = text.get(range).unwrap_or_default();
            if let Some(text) = non_blank(line, line_text)
                && let Err(err) = take(line, text)
            {
                return Some(ReadError::Input(err));
            }
        }
        return None;
    }
    for (line, range) in (first_line..).zip(line_ranges(bytes)) {
        let taken = line_text(line, &bytes[range]).and_then(|text| match text {
            Some(text) => take(line, text),
            None => Ok(()),
        });
        if let Err(err) = taken {
            return Some(ReadError::Input(err));
        }
    }
    None
}

/// Where the lines of `bytes` are, each without its LF: a last line without an LF is
/// one too, and nothing comes after a final LF.
pub(crate) fn line_ranges(bytes: &[u8]) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= bytes.len() {
            return None;
        }
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        let line = at..end;
        at = end + 1;
        Some(line)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines of many lengths: blank ones, short ones, and some longer than a block.
    fn input() -> Vec<u8> {
        let mut text = Vec::new();
        for i in 0..3000usize {
            match i % 7 {
                0 => text.extend_from_slice(b"  \r"),
                3 if i % 500 == 3 => text.extend(std::iter::repeat_n(b'x', 3 * BLOCK_BYTES + i)),
                _ => text.extend(std::iter::repeat_n(
                    b'a' + (i % 26) as u8,
                    (i * 7919) % 3000,
                )),
            }
            text.push(b'\n');
        }
        text.extend_from_slice(b"last line without a newline");
        text
    }

    /// What a sequential loop gives: every non-blank line's number, length and first
    /// byte.
    fn sequential(text: &[u8]) -> Vec<Item> {
        let mut items = Vec::new();
        for (i, line) in text.split(|&b| b == b'\n').enumerate() {
            if let Ok(Some(line)) = line_text(i as u64 + 1, line) {
                items.push((i as u64 + 1, line.len(), line.as_bytes()[0]));
            }
        }
        items
    }

    /// Runs the test `body` on a thread of its own, failing if it takes over a
    /// minute: a pipeline that hangs fails the test rather than stalls the suite.
    fn promptly(body: fn()) {
        let (done, finished) = std::sync::mpsc::channel();
        let test = thread::spawn(move || {
            body();
            let _ = done.send(());
        });
        match finished.recv_timeout(std::time::Duration::from_secs(60)) {
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("the pipeline hangs"),
            // Finished, or failed: then its panic is the test's.
            _ => {
                if let Err(panic) = test.join() {
                    std::panic::resume_unwind(panic);
                }
            }
        }
    }

    fn item(_: u64, text: &str) -> Result<(usize, u8), LineError> {
        Ok((text.len(), text.as_bytes()[0]))
    }

    /// A line's number, length and first byte.
    type Item = (u64, usize, u8);

    /// Every item the pipeline hands over, and how it ended.
    fn collect(
        reader: impl Read + Send,
        parse: impl Fn(u64, &str) -> Result<(usize, u8), LineError> + Sync,
    ) -> (Vec<Item>, Result<(), Stop<()>>) {
        let mut got = Vec::new();
        let result = run(reader, Threads::default(), parse, |line, (len, first)| {
            got.push((line, len, first));
            Ok(())
        });
        (got, result)
    }

    /// A reader that gives at most `step` bytes per read, then fails at `fail_at`.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
        fail_at: Option<usize>,
        at: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.fail_at.is_some_and(|end| self.at >= end) {
                return Err(io::Error::other("the disk is gone"));
            }
            let end = self.fail_at.unwrap_or(usize::MAX).min(self.bytes.len());
            let n = buf.len().min(self.step).min(end - self.at);
            buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn items_come_in_input_order_with_their_line_numbers() {
        promptly(|| {
            let text = input();
            let want = sequential(&text);
            for step in [usize::MAX, 4096, 1000, 77] {
                let reader = Trickle {
                    bytes: &text,
                    step,
                    fail_at: None,
                    at: 0,
                };
                let (got, result) = collect(reader, item);
                assert!(result.is_ok(), "step {step}");
                assert!(
                    got == want,
                    "step {step}: {} items, {} wanted",
                    got.len(),
                    want.len()
                );
            }
        });
    }

    #[test]
    fn a_parse_error_comes_after_every_item_before_it() {
        promptly(|| {
            let text = input();
            let want = sequential(&text);
            let (bad_line, _, _) = want[want.len() * 2 / 3];
            let parse = |line, text: &str| {
                if line == bad_line {
                    return Err(LineError {
                        line,
                        message: "bad".to_owned(),
                    });
                }
                item(line, text)
            };
            let (got, result) = collect(&text[..], parse);
            match result {
                Err(Stop::Read(ReadError::Input(err))) => assert_eq!(err.line, bad_line),
                other => panic!("{other:?}"),
            }
            let before: Vec<_> = want
                .iter()
                .take_while(|w| w.0 < bad_line)
                .copied()
                .collect();
            assert!(got == before);
        });
    }

    #[test]
    fn a_read_error_comes_after_every_whole_line_read_before_it() {
        promptly(|| {
            let text = input();
            let fail_at = text.len() / 2;
            let reader = Trickle {
                bytes: &text,
                step: 5000,
                fail_at: Some(fail_at),
                at: 0,
            };
            let (got, result) = collect(reader, item);
            match result {
                Err(Stop::Read(ReadError::Io(err))) => {
                    assert_eq!(err.to_string(), "the disk is gone")
                }
                other => panic!("{other:?}"),
            }
            // Every item is a line of the input, in order; none is past the failure.
            let want = sequential(&text);
            assert!(got.len() < want.len());
            assert!(got == want[..got.len()]);
            let whole = memchr::memrchr(b'\n', &text[..fail_at]).unwrap_or(0);
            let lines_read = memchr::memchr_iter(b'\n', &text[..whole]).count() as u64;
            assert!(got.last().is_none_or(|last| last.0 <= lines_read + 1));
        });
    }

    #[test]
    fn a_consumer_error_stops_the_pipeline_at_once() {
        promptly(|| {
            let text = input();
            let want = sequential(&text);
            let mut got = Vec::new();
            let result = run(&text[..], Threads::default(), item, |line, (len, first)| {
                if got.len() == 1000 {
                    return Err(line);
                }
                got.push((line, len, first));
                Ok(())
            });
            match result {
                Err(Stop::Consume(line)) => assert_eq!(line, want[1000].0),
                other => panic!("{other:?}"),
            }
            assert!(got == want[..1000]);
        });
    }

    #[test]
    fn an_empty_input_gives_nothing() {
        promptly(|| {
            let result = run(&b""[..], Threads::default(), item, |_, _| Err::<(), ()>(()));
            assert!(result.is_ok());
            let result = run(&b"\n \n\r\n"[..], Threads::default(), item, |_, _| {
                Err::<(), ()>(())
            });
            assert!(result.is_ok());
        });
    }
}
