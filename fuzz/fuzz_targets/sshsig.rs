//! Arbitrary bytes as an SSHSIG signature, raw and armored, through `sshsig` (the
//! exact decoder `check_signature` uses): it must never panic, and whatever it accepts
//! must encode back to the very bytes it read. The bytes also go through
//! `check_signature` as an armored signature, and through the base64 coder.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolreplay_core::check_signature;
use toolreplay_core::{Ed25519, SSHSIG_VERSION, SshSignature as Signature, armor_sshsig, base64_decode, base64_encode_wrapped, dearmor_sshsig, ssh_public_key};

const SIGNERS: &str = "alice@example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBjr7sGMxqCuSQsDW4zo9o1szAaeDwrX0SrbEtIx1Xlm\n";

fn one_line(message: &str) {
    assert!(
        !message.contains('\n') && !message.contains('\r'),
        "messages are one line: {message:?}"
    );
}

fn check_blob(blob: &[u8]) {
    match Signature::decode(blob) {
        Ok(signature) => {
            assert_eq!(signature.encode(), blob, "a decoded blob encodes to itself");
            assert!(signature.version <= SSHSIG_VERSION);
            match Ed25519::from_signature(&signature) {
                Ok(ed25519) => {
                    // The public key and signature blobs were read exactly.
                    assert_eq!(ssh_public_key(&signature.public_key), Ok(ed25519.key));
                }
                Err(err) => one_line(&err.to_string()),
            }
        }
        Err(err) => one_line(&err.to_string()),
    }
}

fuzz_target!(|data: &[u8]| {
    check_blob(data);
    match dearmor_sshsig(data) {
        Ok(blob) => {
            check_blob(&blob);
            assert_eq!(
                dearmor_sshsig(armor_sshsig(&blob).as_bytes()),
                Ok(blob.clone()),
                "armor is read back"
            );
        }
        Err(err) => one_line(&err.to_string()),
    }
    if let Some(decoded) = base64_decode(data) {
        let encoded = base64_encode_wrapped(&decoded);
        assert_eq!(base64_decode(encoded.as_bytes()), Some(decoded));
    }
    let encoded = base64_encode_wrapped(data);
    assert_eq!(base64_decode(encoded.as_bytes()).as_deref(), Some(data));

    let text = String::from_utf8_lossy(data);
    match check_signature(&text, SIGNERS, "alice@example.com", b"message") {
        Ok(_) => {}
        Err(err) => one_line(&err.to_string()),
    }
});
