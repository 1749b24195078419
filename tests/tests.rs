//! The integration tests: they run the real `toolreplay` binary and the library.

mod browser;
mod cli;
mod conformance;
mod every_log;
mod graphs;
mod hostile;
mod imports;
mod sessions;
