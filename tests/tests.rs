//! The integration tests: they run the real `toolreplay` binary.

mod conformance;
