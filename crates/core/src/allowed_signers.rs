//! The allowed signers file, read as `ssh-keygen -Y verify` reads it (the ALLOWED
//! SIGNERS section of ssh-keygen(1)).
//!
//! One entry a line: principals, optional options, and a public key:
//!
//! ```text
//! alice@example.com,*@ci.example.com namespaces="toolreplay" ssh-ed25519 AAAA... comment
//! ```
//!
//! Blank lines and lines starting with `#` are skipped. Principals are a
//! comma-separated list of patterns (`*` and `?` wildcards, `!` to exclude), possibly
//! in double quotes. As with ssh-keygen, only lines whose principals match the
//! identity are read further, and an error in such a line stops the check. Options:
//! `cert-authority` (the key certifies other keys; such a line never matches a plain
//! key, as certificates are not supported here) and `namespaces="..."` (a pattern list
//! the signature's namespace must match). `valid-after` and `valid-before` are
//! refused as unsupported rather than ignored.

use ssh_key::PublicKey;

/// A line of the file whose principals match the identity.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The key.
    pub key: PublicKey,
    /// The `namespaces` option, if any: a pattern list.
    pub namespaces: Option<String>,
    /// Whether the line carries `cert-authority`.
    pub cert_authority: bool,
}

pub use crate::error::LineError;

/// The entries of the allowed signers file `text` whose principals match `identity`.
pub fn entries_for(text: &str, identity: &str) -> Result<Vec<Entry>, LineError> {
    let mut entries = Vec::new();
    for (n, raw) in text.split('\n').enumerate() {
        let line = n as u64 + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let rest = raw.trim_start_matches([' ', '\t']);
        if rest.is_empty() || rest.starts_with('#') {
            continue;
        }
        let (principals, rest) =
            token(rest).ok_or_else(|| LineError::new(line, "invalid line".to_owned()))?;
        if rest.trim_start_matches([' ', '\t']).is_empty() {
            return Err(LineError::new(
                line,
                "expected a public key after the principals".to_owned(),
            ));
        }
        if match_pattern_list(identity, &principals) != Some(true) {
            continue;
        }
        entries.push(entry(line, rest.trim_start_matches([' ', '\t']))?);
    }
    Ok(entries)
}

/// Reads options (if any) and the key of a line whose principals matched.
fn entry(line: u64, rest: &str) -> Result<Entry, LineError> {
    let mut namespaces = None;
    let mut cert_authority = false;
    let key_text = if is_key_type(rest) {
        rest
    } else {
        let (options, after) =
            token(rest).ok_or_else(|| LineError::new(line, "invalid options".to_owned()))?;
        for option in split_options(&options) {
            let (name, value) = match option.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (option.as_str(), None),
            };
            match (name.to_ascii_lowercase().as_str(), value) {
                ("cert-authority", None) => cert_authority = true,
                ("namespaces", Some(value)) => {
                    let unquoted = value
                        .strip_prefix('"')
                        .and_then(|v| v.strip_suffix('"'))
                        .ok_or_else(|| {
                            LineError::new(line, "namespaces must be in double quotes".to_owned())
                        })?;
                    namespaces = Some(unquoted.to_owned());
                }
                ("valid-after" | "valid-before", _) => {
                    return Err(LineError::new(
                        line,
                        format!("option \"{name}\" is not supported"),
                    ));
                }
                _ => return Err(LineError::new(line, format!("unknown option \"{name}\""))),
            }
        }
        after.trim_start_matches([' ', '\t'])
    };
    let key = PublicKey::from_openssh(key_text.trim_end_matches([' ', '\t']))
        .map_err(|err| LineError::new(line, format!("invalid public key: {err}")))?;
    Ok(Entry {
        key,
        namespaces,
        cert_authority,
    })
}

/// Whether `text` starts with the name of an SSH key type.
fn is_key_type(text: &str) -> bool {
    ["ssh-", "ecdsa-", "sk-"]
        .iter()
        .any(|prefix| text.starts_with(prefix))
}

/// The first token of `text` and the rest: up to unquoted whitespace, double quotes
/// kept together (and, around a whole token, removed).
fn token(text: &str) -> Option<(String, &str)> {
    if let Some(inner) = text.strip_prefix('"') {
        let end = inner.find('"')?;
        return Some((inner[..end].to_owned(), &inner[end + 1..]));
    }
    let mut quoted = false;
    for (i, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ' ' | '\t' if !quoted => return Some((text[..i].to_owned(), &text[i..])),
            _ => {}
        }
    }
    if quoted {
        None
    } else {
        Some((text.to_owned(), ""))
    }
}

/// Options split at commas outside double quotes.
fn split_options(options: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in options.chars() {
        match c {
            ',' if !quoted => out.push(std::mem::take(&mut current)),
            '"' => {
                quoted = !quoted;
                current.push(c);
            }
            _ => current.push(c),
        }
    }
    out.push(current);
    out
}

/// OpenSSH's `match_pattern_list`: `Some(true)` when `text` matches a pattern of the
/// comma-separated `list`, `Some(false)` when it matches an excluded (`!`) one, `None`
/// when it matches none.
pub fn match_pattern_list(text: &str, list: &str) -> Option<bool> {
    let mut matched = None;
    for pattern in list.split(',') {
        let (negated, pattern) = match pattern.strip_prefix('!') {
            Some(pattern) => (true, pattern),
            None => (false, pattern),
        };
        if glob(text, pattern) {
            if negated {
                return Some(false);
            }
            matched = Some(true);
        }
    }
    matched
}

/// Whether `text` matches `pattern`, where `*` is any run of characters and `?` any
/// one character.
fn glob(text: &str, pattern: &str) -> bool {
    let text: Vec<char> = text.chars().collect();
    let pattern: Vec<char> = pattern.chars().collect();
    let (mut t, mut p) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == '?' || pattern[p] == text[t]) {
            t += 1;
            p += 1;
        } else if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, t));
            p += 1;
        } else if let Some((star_p, star_t)) = star {
            p = star_p + 1;
            t = star_t + 1;
            star = Some((star_p, star_t + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBjr7sGMxqCuSQsDW4zo9o1szAaeDwrX0SrbEtIx1Xlm";

    #[test]
    fn patterns_match_as_openssh_does() {
        assert_eq!(
            match_pattern_list("alice@example.com", "alice@example.com"),
            Some(true)
        );
        assert_eq!(
            match_pattern_list("alice@example.com", "*@example.com"),
            Some(true)
        );
        assert_eq!(
            match_pattern_list("alice@example.com", "?lice@*"),
            Some(true)
        );
        assert_eq!(
            match_pattern_list("alice@example.com", "bob@example.com"),
            None
        );
        assert_eq!(
            match_pattern_list("alice@example.com", "Alice@example.com"),
            None
        );
        assert_eq!(
            match_pattern_list("bob@example.com", "!bob@example.com,*@example.com"),
            Some(false)
        );
        assert_eq!(match_pattern_list("alice", "a*e*"), Some(true));
        assert_eq!(match_pattern_list("alice", "a*x"), None);
        assert_eq!(match_pattern_list("", "*"), Some(true));
    }

    #[test]
    fn lines_are_read_as_ssh_keygen_reads_them() {
        let text = format!(
            "# comment\n\n  bob@example.com {KEY}\n\"alice@example.com,carol\" namespaces=\"git,toolreplay\" {KEY} alice\r\n*@example.com cert-authority {KEY}\n"
        );
        let entries = entries_for(&text, "alice@example.com").unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].namespaces.as_deref(), Some("git,toolreplay"));
        assert!(!entries[0].cert_authority);
        assert!(entries[1].cert_authority);
        assert_eq!(entries_for(&text, "bob@example.com").unwrap().len(), 2);
    }

    #[test]
    fn bad_lines_are_errors_only_when_they_match() {
        let text = format!("bob@example.com bogus {KEY}\nalice valid-after=\"20200101\" {KEY}\n");
        assert!(entries_for(&text, "carol").unwrap().is_empty());
        assert_eq!(
            entries_for(&text, "bob@example.com").unwrap_err(),
            LineError::new(1, "unknown option \"bogus\"")
        );
        assert_eq!(
            entries_for(&text, "alice").unwrap_err(),
            LineError::new(2, "option \"valid-after\" is not supported")
        );
        assert_eq!(entries_for("alice\n", "alice").unwrap_err().line, 1);
        assert_eq!(
            entries_for("alice ssh-ed25519 AAAA\n", "alice")
                .unwrap_err()
                .line,
            1
        );
    }
}
