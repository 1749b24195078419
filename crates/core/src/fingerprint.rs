//! What a call is, as a fixed-size digest: the identity that findings are tracked by
//! across runs, whatever line or index the call is on.

use sha2::{Digest, Sha256};

use crate::canonical;

/// SHA-256 of the canonical encoding of the tool name (a quoted JSON string, so it
/// cannot run into what follows) followed by `args`, the canonical encoding of the
/// arguments.
///
/// Two calls are identical (spec section 2) exactly when these digests are equal.
pub(crate) fn call_canonical(tool: &str, args: &[u8]) -> [u8; 32] {
    let mut quoted = Vec::with_capacity(tool.len() + 2);
    canonical::write_str(tool, &mut quoted);
    let mut hasher = Sha256::new();
    hasher.update(&quoted);
    hasher.update(args);
    hasher.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::call_canonical;
    use crate::{canonical, json};

    /// The digest of the call of `tool` with the arguments `args`, a JSON text.
    fn call(tool: &str, args: &str) -> [u8; 32] {
        call_canonical(tool, &canonical::encode(&json::parse(args).unwrap()))
    }

    #[test]
    fn key_order_and_spacing_do_not_change_a_call() {
        let a = r#"{"b": 1, "a": [2, "x"]}"#;
        let b = r#"{"a":[2,"x"],"b":1}"#;
        assert_eq!(call("read_file", a), call("read_file", b));
        assert_ne!(call("read_file", a), call("list_dir", a));
    }

    #[test]
    fn the_digest_is_of_the_quoted_tool_then_the_args() {
        // sha256 of `"t"{}`
        assert_eq!(
            hex::encode(call("t", "{}")),
            "652d68c34a9d5ea1f8a52027fe954919d78cefb21d314354ae8221fd459031aa"
        );
    }
}
