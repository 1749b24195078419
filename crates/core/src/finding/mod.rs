//! Findings of the audits (spec sections 3 and 4) and the words that name them.

mod codec;
mod message;
mod store;
mod types;

pub use message::*;
pub use store::*;
pub use types::*;
