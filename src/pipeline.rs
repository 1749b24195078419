//! Parallel streaming: one thread reads the input in blocks of whole lines, two
//! threads parse blocks side by side, and the calling thread consumes the parsed
//! items strictly in input order. The result is therefore exactly that of a
//! sequential loop; only the work overlaps.
//!
//! Blocks are about [`BLOCK_BYTES`] long, or one line when a line is longer, and each
//! channel holds at most one block, so memory stays bounded: a handful of blocks (or of
//! lines, when lines are larger than a block) are in flight at any time.

use std::io::{self, Read};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread;

use crate::transcript::{LineError, ReadError, line_text};

/// How much input a block holds, at least (unless the input ends first).
pub const BLOCK_BYTES: usize = 256 << 10;

/// How many threads parse blocks.
const WORKERS: usize = 2;

/// Why a pipeline stopped early.
#[derive(Debug)]
pub enum Stop<E> {
    /// The input could not be read or parsed.
    Read(ReadError),
    /// The consumer failed.
    Consume(E),
}

/// A run of whole lines, and the physical number of its first line.
struct Block {
    first_line: u64,
    bytes: Vec<u8>,
}

enum Work {
    Lines(Block),
    Failed(io::Error),
}

/// The items of one block, and the error that ended it early, if any.
type Parsed<T> = (Vec<(u64, T)>, Option<ReadError>);

/// Parses every non-blank line of `reader` with `parse`, and hands each item with its
/// physical line number to `consume`, in input order.
///
/// The first read or parse error ends the input; the items before it are consumed
/// first, so a consumer sees exactly what a sequential loop would have given it.
pub fn run<R, T, E>(
    reader: R,
    parse: impl Fn(u64, &str) -> Result<T, LineError> + Sync,
    mut consume: impl FnMut(u64, T) -> Result<(), E>,
) -> Result<(), Stop<E>>
where
    R: Read + Send,
    T: Send,
{
    let parse = &parse;
    thread::scope(|scope| {
        let mut work_senders = Vec::with_capacity(WORKERS);
        let mut result_receivers: Vec<Receiver<Parsed<T>>> = Vec::with_capacity(WORKERS);
        for _ in 0..WORKERS {
            let (send_work, receive_work) = sync_channel::<Work>(1);
            let (send_result, receive_result) = sync_channel::<Parsed<T>>(1);
            thread::Builder::new()
                .name("toolreplay-parse".to_owned())
                .spawn_scoped(scope, move || {
                    for work in receive_work {
                        let parsed = match work {
                            Work::Lines(block) => parse_block(&block, parse),
                            Work::Failed(err) => (Vec::new(), Some(ReadError::Io(err))),
                        };
                        if send_result.send(parsed).is_err() {
                            return;
                        }
                    }
                })
                .map_err(|err| Stop::Read(ReadError::Io(err)))?;
            work_senders.push(send_work);
            result_receivers.push(receive_result);
        }
        thread::Builder::new()
            .name("toolreplay-read".to_owned())
            .spawn_scoped(scope, move || read_blocks(reader, &work_senders))
            .map_err(|err| Stop::Read(ReadError::Io(err)))?;
        for turn in 0.. {
            let Ok((items, error)) = result_receivers[turn % WORKERS].recv() else {
                break;
            };
            for (line, item) in items {
                consume(line, item).map_err(Stop::Consume)?;
            }
            if let Some(err) = error {
                return Err(Stop::Read(err));
            }
        }
        Ok(())
    })
}

/// Reads `reader` in blocks that end at a line end and deals them to the workers in
/// turn. A read error goes to the next worker in turn, so it arrives in order.
fn read_blocks(mut reader: impl Read, workers: &[SyncSender<Work>]) {
    let mut first_line = 1;
    let mut carry = Vec::new();
    for turn in 0.. {
        let worker = &workers[turn % workers.len()];
        let mut bytes = std::mem::take(&mut carry);
        bytes.reserve(BLOCK_BYTES);
        let mut has_newline = false;
        let mut end = false;
        while bytes.len() < BLOCK_BYTES || !has_newline {
            let before = bytes.len();
            match (&mut reader)
                .take(BLOCK_BYTES as u64)
                .read_to_end(&mut bytes)
            {
                Ok(0) => {
                    end = true;
                    break;
                }
                Ok(_) => has_newline |= memchr::memchr(b'\n', &bytes[before..]).is_some(),
                Err(err) => {
                    let _ = worker.send(Work::Failed(err));
                    return;
                }
            }
        }
        if !end {
            // Keep the unfinished last line for the next block.
            let cut = memchr::memrchr(b'\n', &bytes).map_or(0, |i| i + 1);
            carry = bytes[cut..].to_vec();
            bytes.truncate(cut);
        }
        if bytes.is_empty() {
            return;
        }
        let lines = memchr::memchr_iter(b'\n', &bytes).count() as u64;
        let block = Block { first_line, bytes };
        first_line += lines;
        if worker.send(Work::Lines(block)).is_err() || end {
            return;
        }
    }
}

/// Parses the non-blank lines of a block, stopping at the first error.
fn parse_block<T>(block: &Block, parse: &impl Fn(u64, &str) -> Result<T, LineError>) -> Parsed<T> {
    let mut items = Vec::new();
    let mut line = block.first_line;
    let mut rest = block.bytes.as_slice();
    while !rest.is_empty() {
        let (bytes, next) = match memchr::memchr(b'\n', rest) {
            Some(at) => (&rest[..at], &rest[at + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        let parsed =
            line_text(line, bytes).and_then(|text| text.map(|t| parse(line, t)).transpose());
        match parsed {
            Ok(Some(item)) => items.push((line, item)),
            Ok(None) => {}
            Err(err) => return (items, Some(ReadError::Input(err))),
        }
        line += 1;
        rest = next;
    }
    (items, None)
}
