//! Arbitrary bytes as an agent's final answer (up to the first NUL) and a call's
//! response (the rest), through the claims layer: sentences, their atoms, and the
//! evidence and verdict of each claim against a call. It must never panic, and the
//! same input gives the same claims.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolreplay_core::{Claims, Message, Roles, claim_atoms, claim_sentences};

fn report(answer: &str, response: &[u8], roles: &Roles) -> String {
    let messages = [
        Message::prompt(None, "Check the project."),
        Message::answer(Some(0), answer),
    ];
    let mut claims = Claims::new(&messages, roles);
    claims.observe(0, "Bash", br#"{"command":"cargo test"}"#, response);
    format!("{:?}", claims.finish())
}

fuzz_target!(|data: &[u8]| {
    let (answer, response) = match data.iter().position(|b| *b == 0) {
        Some(nul) => (&data[..nul], &data[nul + 1..]),
        None => (data, &b"{}"[..]),
    };
    let answer = String::from_utf8_lossy(answer);
    for sentence in claim_sentences(&answer) {
        let _ = claim_atoms(&sentence);
    }
    let roles = Roles::builtin();
    let first = report(&answer, response, &roles);
    assert_eq!(first, report(&answer, response, &roles), "deterministic");
});
