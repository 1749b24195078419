//! The integration tests: they run the real `toolreplay` binary and the library.
#![allow(unreachable_pub)]

mod browser;
mod claims_real;
mod cli;
mod conformance;
mod every_log;
mod graphs;
mod hostile;
mod imports;
mod otel;
mod sessions;
