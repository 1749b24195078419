//! Output files and held-back output: a file written atomically
//! ([`atomic::AtomicFile`]) in batches on a thread of its own
//! ([`batch::write_on_thread`]), and bytes held back in memory or a temporary file
//! ([`spool::Spool`]). Stdout is the [`crate::printer`]'s.

pub(crate) mod atomic;
pub(crate) mod batch;
pub(crate) mod spool;
