//! Arbitrary bytes as a DSSE envelope, through the reader `verify --attestation`
//! uses: it must never panic; what it reads back encodes its signatures' bytes, and
//! the pre-authentication encoding of its payload is well formed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolreplay_core::{DsseEnvelope, dsse_pae};

fuzz_target!(|data: &[u8]| {
    if let Ok(envelope) = DsseEnvelope::parse(data) {
        let _ = format!("{envelope:?}");
    }
    let text = String::from_utf8_lossy(data);
    let pae = dsse_pae(&text, data);
    assert!(pae.starts_with(b"DSSEv1 "));
    assert!(pae.ends_with(data));
});
