//! JSON pointers (RFC 6901): the names of arguments in rules, and the places of
//! findings in responses.

use crate::json::Value;

/// A parsed JSON pointer: its reference tokens, unescaped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pointer {
    text: String,
    tokens: Vec<String>,
}

impl Pointer {
    /// Parses `text`, which must be a non-empty pointer: `/` followed by tokens
    /// separated by `/`, where `~` is only ever followed by `0` or `1`.
    pub(crate) fn parse(text: &str) -> Result<Pointer, String> {
        let Some(rest) = text.strip_prefix('/') else {
            return Err("a JSON pointer must start with \"/\"".to_owned());
        };
        let mut tokens = Vec::new();
        for raw in rest.split('/') {
            let mut token = String::with_capacity(raw.len());
            let mut chars = raw.chars();
            while let Some(c) = chars.next() {
                if c == '~' {
                    match chars.next() {
                        Some('0') => token.push('~'),
                        Some('1') => token.push('/'),
                        _ => {
                            return Err(
                                "a \"~\" in a JSON pointer must be followed by 0 or 1".to_owned()
                            );
                        }
                    }
                } else {
                    token.push(c);
                }
            }
            tokens.push(token);
        }
        Ok(Pointer {
            text: text.to_owned(),
            tokens,
        })
    }

    /// The pointer as written.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// The value it points to in `root`, if any. An array index is decimal digits
    /// without leading zeros.
    pub(crate) fn find<'v>(&self, root: &'v Value) -> Option<&'v Value> {
        let mut here = root;
        for token in &self.tokens {
            here = match here {
                Value::Object(members) => crate::json::member(members, token)?,
                Value::Array(items) => {
                    if token.is_empty()
                        || !token.bytes().all(|b| b.is_ascii_digit())
                        || (token.len() > 1 && token.starts_with('0'))
                    {
                        return None;
                    }
                    items.get(token.parse::<usize>().ok()?)?
                }
                _ => return None,
            };
        }
        Some(here)
    }
}

/// Appends `/` and the escaped `token` to the pointer `out`.
pub(crate) fn push_token(out: &mut String, token: &str) {
    out.push('/');
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Pointer, push_token};
    use crate::json;

    #[test]
    fn pointers_unescape_and_find() {
        let doc = json::parse(r#"{"a/b": {"m~n": [10, 20]}, "": 1}"#).unwrap();
        let p = Pointer::parse("/a~1b/m~0n/1").unwrap();
        assert_eq!(p.find(&doc), Some(&json::Value::Int("20".into())));
        assert_eq!(Pointer::parse("/a~1b/m~0n/01").unwrap().find(&doc), None);
        assert_eq!(
            Pointer::parse("/").unwrap().find(&doc),
            Some(&json::Value::Int("1".into()))
        );
        assert!(Pointer::parse("a").is_err());
        assert!(Pointer::parse("/a~2").is_err());
        assert!(Pointer::parse("").is_err());
    }

    #[test]
    fn tokens_are_escaped() {
        let mut out = String::new();
        push_token(&mut out, "a/b~c");
        push_token(&mut out, "0");
        assert_eq!(out, "/a~1b~0c/0");
    }
}
