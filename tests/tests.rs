//! The integration tests: they run the real `toolreplay` binary and the library.

mod browser;
mod cli;
mod conformance;
mod graphs;
mod hostile;
mod imports;
