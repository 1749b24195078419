//! What a call is, as a fixed-size digest: the identity that findings are tracked by
//! across runs, whatever line or index the call is on.

use sha2::{Digest, Sha256};

use crate::canonical;
use crate::json::Value;

/// SHA-256 of the canonical encoding of the tool name (a quoted JSON string, so it
/// cannot run into what follows) followed by the canonical encoding of `args`.
///
/// Two calls are identical (spec section 2) exactly when these digests are equal.
pub fn call(tool: &str, args: &Value) -> [u8; 32] {
    call_canonical(tool, &canonical::encode(args))
}

/// [`call`] of arguments already in canonical form.
pub fn call_canonical(tool: &str, args: &[u8]) -> [u8; 32] {
    let mut quoted = Vec::with_capacity(tool.len() + 2);
    canonical::write_str(tool, &mut quoted);
    let mut hasher = Sha256::new();
    hasher.update(&quoted);
    hasher.update(args);
    hasher.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::call;
    use crate::json;

    #[test]
    fn key_order_and_spacing_do_not_change_a_call() {
        let a = json::parse(r#"{"b": 1, "a": [2, "x"]}"#).unwrap();
        let b = json::parse(r#"{"a":[2,"x"],"b":1}"#).unwrap();
        assert_eq!(call("read_file", &a), call("read_file", &b));
        assert_ne!(call("read_file", &a), call("list_dir", &a));
    }

    #[test]
    fn the_digest_is_of_the_quoted_tool_then_the_args() {
        let args = json::parse("{}").unwrap();
        // sha256 of `"t"{}`
        assert_eq!(
            hex::encode(call("t", &args)),
            "652d68c34a9d5ea1f8a52027fe954919d78cefb21d314354ae8221fd459031aa"
        );
    }
}
