//! The one pool of worker threads of the binary: several files audited or imported
//! at once, their results handed on in the files' order.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// Runs `work` on every item, on at most as many threads as the machine has cores
/// (and no more than items), and hands each result to `emit` in the items' order as
/// soon as it and every one before it are done, so that what `emit` tells comes in
/// order while the work goes on. Gives how many results were emitted: every one.
pub(crate) fn run_in_order<I, T, W, E>(items: &[I], work: W, emit: E) -> usize
where
    I: Sync,
    T: Send,
    W: Fn(&I) -> T + Sync,
    E: FnMut(usize, T) + Send,
{
    struct Ordered<T, E> {
        done: Vec<Option<T>>,
        emitted: usize,
        emit: E,
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(items.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let state = Mutex::new(Ordered {
        done: (0..items.len()).map(|_| None).collect(),
        emitted: 0,
        emit,
    });
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let at = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(at) else { break };
                    let result = work(item);
                    let mut guard = state.lock().unwrap_or_else(PoisonError::into_inner);
                    let state = &mut *guard;
                    state.done[at] = Some(result);
                    while let Some(result) =
                        state.done.get_mut(state.emitted).and_then(Option::take)
                    {
                        (state.emit)(state.emitted, result);
                        state.emitted += 1;
                    }
                }
            });
        }
    });
    state
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .emitted
}

#[cfg(test)]
mod tests {
    use super::run_in_order;

    #[test]
    fn results_come_in_the_items_order() {
        let items: Vec<u64> = (0..200).collect();
        let mut seen = Vec::new();
        let emitted = run_in_order(
            &items,
            |&n| {
                // Later items finish first, mostly.
                std::thread::sleep(std::time::Duration::from_micros(200 - n));
                n * 2
            },
            |at, doubled| seen.push((at, doubled)),
        );
        assert_eq!(emitted, 200);
        let expected: Vec<(usize, u64)> = (0..200).map(|n| (n as usize, n * 2)).collect();
        assert_eq!(seen, expected);
    }
}
