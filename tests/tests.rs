//! The integration tests: they run the real `toolreplay` binary and the library.

mod cli;
mod conformance;
mod hostile;
mod imports;
mod sessions;
