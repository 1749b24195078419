//! A budget of the parsers' steps, for the thread that parses.
//!
//! The word parser and the program parser backtrack, and on some inputs their
//! time grows exponentially with the input's length (runs of `(` within `$(` or
//! `$[`, quoted `)` among them). A budget set with [`set`] is taken from at every
//! step of either parser: each try of a piece of a word, of a character of quoted
//! text, of a token. Once it is spent every step fails, so a parse ends soon after,
//! with an error; [`left`] then says `Some(0)`. Without a budget (the default,
//! `None`) the parsers take what they need.
//!
//! While a budget is set, [`crate::word::parse`] does not use its cache of parsed
//! words, so that a parse takes the same steps whatever was parsed before it.

use std::cell::Cell;

thread_local! {
    static LEFT: Cell<Option<u64>> = const { Cell::new(None) };
}

/// Sets the steps that the parsers may take on this thread from now on, or no
/// bound with `None`.
pub fn set(steps: Option<u64>) {
    LEFT.with(|left| left.set(steps));
}

/// The steps left of this thread's budget: `Some(0)` once it is spent, `None`
/// without a budget.
pub fn left() -> Option<u64> {
    LEFT.with(Cell::get)
}

/// Takes a step from this thread's budget: whether there was one to take.
pub(crate) fn step() -> bool {
    LEFT.with(|left| match left.get() {
        None => true,
        Some(0) => false,
        Some(steps) => {
            left.set(Some(steps - 1));
            true
        }
    })
}

