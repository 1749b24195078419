//! Arbitrary bytes through `scope::Scope::parse` (which decodes UTF-8 itself, skipping
//! a byte-order mark): it must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolreplay_core::Scope;

fuzz_target!(|data: &[u8]| {
    match Scope::parse(data) {
        Ok(scope) => assert!(!scope.agent.is_empty(), "agent must not be empty"),
        Err(err) => {
            assert!(err.line >= 1, "lines are 1-based");
            assert!(!err.message.contains('\n'), "messages are one line");
        }
    }
});
