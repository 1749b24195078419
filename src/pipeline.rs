//! Two-stage streaming: a second thread reads and parses the lines of the input while
//! the calling thread consumes the parsed items, in order. The output is therefore
//! exactly that of doing both on one thread; only the work overlaps.
//!
//! Items travel in batches of about [`BATCH_BYTES`] of input, and at most one batch
//! waits in the channel, so memory stays bounded: a few batches, or a few lines when
//! lines are larger than a batch.

use std::io::BufRead;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread;

use crate::transcript::{LineError, Lines, ReadError};

/// How much input text goes into one batch before it is handed over.
pub const BATCH_BYTES: usize = 1 << 20;

type Batch<T> = Vec<(u64, T)>;

/// Why a pipeline stopped early.
#[derive(Debug)]
pub enum Stop<E> {
    /// The input could not be read or parsed.
    Read(ReadError),
    /// The consumer failed.
    Consume(E),
}

/// Parses every non-blank line of `reader` with `parse` on a second thread, and hands
/// each item with its physical line number to `consume` on this one, in order.
///
/// The first read or parse error ends the input; items before it are consumed first,
/// so a consumer sees exactly the items a sequential loop would have seen.
pub fn run<R, T, E>(
    reader: R,
    mut parse: impl FnMut(u64, &str) -> Result<T, LineError> + Send,
    mut consume: impl FnMut(u64, T) -> Result<(), E>,
) -> Result<(), Stop<E>>
where
    R: BufRead + Send,
    T: Send,
{
    thread::scope(|scope| {
        let (batches, receive): (SyncSender<Result<Batch<T>, ReadError>>, Receiver<_>) =
            sync_channel(1);
        let (recycle, reuse) = sync_channel::<Batch<T>>(2);
        let producer = move || {
            let mut lines = Lines::new(reader);
            let mut batch: Batch<T> = Vec::new();
            let mut bytes = 0;
            loop {
                let next = match lines.next_line() {
                    Ok(Some((line, text))) => {
                        bytes += text.len();
                        parse(line, text)
                            .map(|item| Some((line, item)))
                            .map_err(ReadError::from)
                    }
                    Ok(None) => Ok(None),
                    Err(err) => Err(err),
                };
                match next {
                    Ok(Some(item)) => {
                        batch.push(item);
                        if bytes >= BATCH_BYTES || batch.len() >= 4096 {
                            let fresh = reuse.try_recv().unwrap_or_default();
                            if batches
                                .send(Ok(std::mem::replace(&mut batch, fresh)))
                                .is_err()
                            {
                                return;
                            }
                            bytes = 0;
                        }
                    }
                    Ok(None) => {
                        if !batch.is_empty() {
                            let _ = batches.send(Ok(batch));
                        }
                        return;
                    }
                    Err(err) => {
                        if !batch.is_empty() && batches.send(Ok(batch)).is_err() {
                            return;
                        }
                        let _ = batches.send(Err(err));
                        return;
                    }
                }
            }
        };
        let spawned = thread::Builder::new()
            .name("toolreplay-parse".to_owned())
            .spawn_scoped(scope, producer);
        if let Err(err) = spawned {
            return Err(Stop::Read(ReadError::Io(err)));
        }
        for message in receive {
            let mut batch = message.map_err(Stop::Read)?;
            for (line, item) in batch.drain(..) {
                consume(line, item).map_err(Stop::Consume)?;
            }
            let _ = recycle.try_send(batch);
        }
        Ok(())
    })
}
