//! Arbitrary bytes through `transcript::Records`: it must never panic, and what it
//! yields must keep the invariants of spec section 1.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolreplay_core::Value;
use toolreplay_core::{ReadError, Records};

fuzz_target!(|data: &[u8]| {
    let mut records = 0u64;
    let mut last_line = 0u64;
    // Read past errors too (the commands stop at the first one), to reach more code.
    for item in Records::new(data) {
        match item {
            Ok((line, record)) => {
                assert!(line > last_line, "line numbers must increase");
                last_line = line;
                assert_eq!(record.index, records, "index must be the record count");
                assert!(!record.tool.is_empty(), "tool must not be empty");
                assert!(
                    matches!(record.args, Value::Object(_)),
                    "args must be an object"
                );
                assert!(
                    matches!(record.response, Value::Object(_)),
                    "response must be an object"
                );
                records += 1;
            }
            Err(ReadError::Input(err)) => {
                assert!(err.line > last_line, "error line numbers must increase");
                last_line = err.line;
                assert!(!err.message.is_empty());
                assert!(!err.message.contains('\n'), "messages are one line");
            }
            Err(ReadError::Io(err)) => panic!("a byte slice cannot fail to read: {err}"),
        }
    }
});
