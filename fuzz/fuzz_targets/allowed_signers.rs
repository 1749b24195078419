//! Arbitrary bytes as an identity (up to the first LF) and an allowed signers file
//! (the rest), through `allowed_signers`: it must never panic and must take time
//! bounded by the input (patterns are matched in at most identity × pattern steps);
//! lines come in order, errors are one line, and a line that names the identity is
//! judged for a key, a namespace and a time without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolreplay_core::{AllowedKey, allowed_signers_for, match_pattern_list};

fuzz_target!(|data: &[u8]| {
    let (identity, file) = match data.iter().position(|b| *b == b'\n') {
        Some(lf) => (&data[..lf], &data[lf + 1..]),
        None => (data, &b""[..]),
    };
    let identity = String::from_utf8_lossy(identity);
    let file = String::from_utf8_lossy(file);
    let lines = file.split('\n').count() as u64;
    let mut last = 0;
    for entry in allowed_signers_for(&file, &identity) {
        let line = match &entry {
            Ok(entry) => entry.line,
            Err(err) => err.line,
        };
        assert!(line > last && line <= lines, "lines in order: {line} after {last}");
        last = line;
        match entry {
            Ok(entry) => {
                let key = match &entry.key {
                    AllowedKey::Ed25519(key) => *key,
                    AllowedKey::EcdsaP256(point) => {
                        assert!(!point.is_empty());
                        [0; 32]
                    }
                    AllowedKey::Other(name) => {
                        assert_ne!(name, "ssh-ed25519");
                        assert_ne!(name, "ecdsa-sha2-nistp256");
                        [0; 32]
                    }
                };
                for now in [0, 1_700_000_000, u64::MAX] {
                    let _ = entry.allows(&key, "toolreplay", now);
                    let _ = entry.allows_key(&entry.key, "toolreplay", now);
                }
            }
            Err(err) => assert!(
                !err.message.contains('\n') && !err.message.contains('\r'),
                "errors are one line: {:?}",
                err.message
            ),
        }
    }
    let first_line = file.split('\n').next().unwrap_or("");
    let _ = match_pattern_list(&identity, first_line);
    let _ = match_pattern_list(first_line, &identity);
});
