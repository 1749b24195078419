//! The integration tests: they run the real `toolreplay` binary and the library.

mod cli;
mod conformance;
mod every_log;
mod hostile;
mod imports;
