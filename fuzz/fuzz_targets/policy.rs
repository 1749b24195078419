//! Arbitrary bytes as a call's arguments through a policy's checks: they must never
//! panic, canonical or not (arguments that cannot be read are a violation). A
//! response is checked as the canonical encoding of any JSON value, which is what
//! the checks read.
//!
//! Differentially, on the canonical encoding of any JSON value, the detectors'
//! first pass over the canonical JSON (tool `plain`, whose user patterns only match
//! printable ASCII) must find exactly what the first pass over the decoded strings
//! finds (tool `decoding`: the same detectors plus `bounded`, whose word boundary
//! turns the canonical first pass off), once `bounded`'s own findings are left out.
//! A key that `bounded` matches is shown as `{bounded}` in the pointers into it
//! (the first detector by name that matches a key names it), where `plain` shows
//! the key or another detector's name: such values are left out of the comparison.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use toolreplay_core::Policy;
use toolreplay_core::SensitiveResponse;
use toolreplay_core::Scope;
use toolreplay_core::{encode_canonical, parse_json};

const POLICY_JSON: &str = r#"{
  "agent": "fuzz",
  "allowed_tools": ["plain", "decoding"],
  "policy_version": 1,
  "custom_detectors": {
    "ticket": "TICKET-[0-9]{4}",
    "host": "[a-z0-9-]+\\.corp\\.internal",
    "digits": "[0-9]{3}[a-z]",
    "bounded": "\\bzq\\b"
  },
  "tools": {
    "plain": {
      "args_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
      "paths": [{"args": ["/path"], "root": "/work", "allow": ["src/**"], "deny": ["**/.env"]}],
      "urls": [{"args": ["/url"], "allow_hosts": ["*.example.org"], "deny_hosts": ["evil.example.org"]}],
      "commands": [{"args": ["/command"], "deny": ["rm ** -*[rR]* **", "sudo **"], "allow": ["ls **", "git **", "echo **"], "protect": [".claude/**", "~/.claude/**", "{k/a/b,k}/id_{rsa,ed25519}"]}],
      "response_detectors": ["secrets", "personal-data", "ticket", "host", "digits"]
    },
    "decoding": {
      "response_detectors": ["secrets", "personal-data", "ticket", "host", "digits", "bounded"]
    }
  }
}"#;

static POLICY: LazyLock<Policy> = LazyLock::new(|| {
    Scope::parse(POLICY_JSON.as_bytes())
        .expect("the fuzz policy is valid")
        .policy
        .expect("the fuzz policy has rules")
});

/// The sensitive-response findings, but those of `bounded`.
fn sensitive(mut found: Vec<SensitiveResponse>) -> Vec<SensitiveResponse> {
    found.retain(|finding| {
        !matches!(finding, SensitiveResponse::Match { detector, .. } if &**detector == "bounded")
    });
    found
}

fuzz_target!(|data: &[u8]| {
    let policy = &*POLICY;
    for tool in ["plain", "decoding", "other"] {
        let _ = policy.check_arguments(tool, data);
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(value) = parse_json(text) else {
        return;
    };
    let encoded = encode_canonical(&value);
    for tool in ["plain", "decoding", "other"] {
        let _ = policy.check_arguments(tool, &encoded);
        let _ = policy.check_response(tool, &encoded);
    }
    let decoding = policy.check_response("decoding", &encoded);
    let bounded_key = decoding.iter().any(|finding| {
        matches!(finding, SensitiveResponse::Match { detector, in_key: true, .. } if &**detector == "bounded")
    });
    if bounded_key {
        return;
    }
    let plain = sensitive(policy.check_response("plain", &encoded));
    let decoding = sensitive(decoding);
    assert_eq!(
        plain,
        decoding,
        "first passes differ on {}",
        String::from_utf8_lossy(&encoded)
    );
});
