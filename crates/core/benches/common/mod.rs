//! What the benchmarks share: a generator of their in-memory corpora.

/// A small deterministic generator (an LCG), so a corpus is the same every run.
pub(crate) struct Rng(pub u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    pub(crate) fn below(&mut self, n: u64) -> usize {
        (self.next() % n) as usize
    }
}
