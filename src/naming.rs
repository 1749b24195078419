//! How inputs are named in messages and reports: the path as given, or `<stdin>` for
//! `-`, with the characters that would change how a message reads on a terminal
//! escaped; the core's naming ([`toolreplay_core::input::display`]), which the Python
//! package uses too.

pub(crate) use toolreplay_core::input::{display, is_stdin};
