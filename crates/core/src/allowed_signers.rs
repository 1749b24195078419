//! The allowed signers file, read exactly as `ssh-keygen -Y verify` (OpenSSH 9.2:
//! `sshsig.c`, `match.c`, `misc.c`, `sshkey.c`) reads it; the ALLOWED SIGNERS section
//! of ssh-keygen(1) describes the format:
//!
//! ```text
//! alice@example.com,*@ci.example.com namespaces="toolreplay" ssh-ed25519 AAAA... comment
//! ```
//!
//! # Lines
//!
//! The file is split at LF only; a line ends at its first NUL byte, if any. Leading
//! spaces and tabs are skipped; an empty line, or one whose first other byte is `#`,
//! is skipped.
//!
//! # Principals
//!
//! The principals are the first token: up to the first space, tab, CR or LF, or, if a
//! double quote comes first, the text before that quote joined to the text up to the
//! next double quote (both quotes dropped: `"a b"`, `a"b c"` is `ab c`; what follows
//! the closing quote starts the rest of the line). An unterminated quote, or a token
//! that runs to the end of the file with nothing after it, makes the line invalid.
//! Whitespace (space, tab, CR, LF) after the token is skipped.
//!
//! The token is a pattern list matched against the identity by OpenSSH's
//! `match_pattern_list`, byte by byte and case-sensitively: sub-patterns are separated
//! by commas (a trailing comma ends the list; an empty list matches nothing; an empty
//! sub-pattern matches only the empty identity); `*` matches any run of bytes and `?`
//! exactly one byte (so one `?` never matches a multi-byte UTF-8 character); a
//! sub-pattern starting with `!` is negated, and a negated match rejects the line
//! whatever else matches. Sub-patterns are read from left to right: the first one of
//! 1,023 bytes or more (the `!` not counted) makes the whole list match nothing, even
//! after a positive match, unless a negated match came before it. An identity holding
//! a NUL byte matches nothing.
//!
//! # Key and options
//!
//! If the rest of the line starts with a public key (`ssh-ed25519`, one or more spaces
//! or tabs, the base64 blob up to the next space or tab; a comment may follow), there
//! are no options. Otherwise the rest starts with options: a token up to the first
//! space or tab outside double quotes (`\"` does not end a quote), then spaces or tabs,
//! then the key. Options are comma-separated, with names in any case:
//!
//! - `cert-authority`: the key certifies other keys. Certificates are not supported
//!   here, so such a line never matches a signature (nor does it for ssh-keygen, as
//!   the plain ed25519 signatures checked here carry no certificate).
//! - `namespaces="LIST"`: a pattern list the signature's namespace must match.
//! - `valid-after="TIME"`, `valid-before="TIME"`: the key is valid only from, or up
//!   to, `TIME`: `YYYYMMDD`, `YYYYMMDDHHMM` or `YYYYMMDDHHMMSS`, read as glibc's
//!   `strptime` reads it, not before 1970. Only UTC times, ending in `Z` or `UTC` (in
//!   any case), are supported: a time without one is local time to ssh-keygen, and is
//!   refused here rather than guessed.
//!
//! Values are in double quotes, `\"` standing for a quote. An option given twice, an
//! unknown option, a missing quote, an empty option after a comma at the end, an
//! invalid time, or `valid-before` not after `valid-after` make the line invalid.
//!
//! The key is read as `sshkey_read` reads it: the type must be exactly a key type
//! name; the blob is base64 as OpenSSH reads it (see [`crate::sshsig`]), and for
//! `ssh-ed25519` it must hold the type (`ssh-ed25519`, or `ed25519` in any case), a
//! string of exactly 32 bytes and nothing else; an `ecdsa-sha2-nistp256` blob must be
//! such a key (its point is kept, for attestations). Keys of other types are
//! accepted as written but never match an ed25519 signature.
//!
//! # Errors
//!
//! As with ssh-keygen, an invalid line never stops the reading: it is skipped, and a
//! later line may still allow the signature. [`entries_for`] returns the lines whose
//! principals match the identity and the invalid lines (those that could not be read
//! as far as their principals, and those whose principals match), in order; the
//! caller reports an invalid line when no valid line allows the signature.
//!
//! # Not supported
//!
//! Certificates (as signing keys, and `cert-authority`), keys of other types than
//! ed25519, and times in local time: each is refused where ssh-keygen could accept.

use crate::sshsig;

pub(crate) use crate::error::LineError;

/// The key of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllowedKey {
    /// An ed25519 public key.
    Ed25519([u8; 32]),
    /// An ECDSA key on NIST P-256: its SEC1-encoded point. Only attestations
    /// (`verify --attestation`) check signatures with it; SSHSIG signatures are
    /// ed25519 only.
    EcdsaP256(Vec<u8>),
    /// A key of another type (named), which never matches an ed25519 signature.
    Other(String),
}

/// A valid line of the file whose principals match the identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its 1-based line number.
    pub line: u64,
    /// Its principals, as the pattern list they are (quotes dropped).
    pub principals: String,
    /// The key.
    pub key: AllowedKey,
    /// The `namespaces` option, if any: a pattern list.
    pub namespaces: Option<String>,
    /// Whether the line carries `cert-authority`.
    pub cert_authority: bool,
    /// The `valid-after` option, if any, in seconds since the Unix epoch.
    pub valid_after: Option<u64>,
    /// The `valid-before` option, if any, in seconds since the Unix epoch.
    pub valid_before: Option<u64>,
}

impl Entry {
    /// Whether the line allows the ed25519 `key` to sign in `namespace` at `now`
    /// (seconds since the Unix epoch), as ssh-keygen decides it.
    pub fn allows(&self, key: &[u8; 32], namespace: &str, now: u64) -> Allows {
        self.allows_key(&AllowedKey::Ed25519(*key), namespace, now)
    }

    /// Whether the line allows `key` to sign in `namespace` at `now`, as
    /// [`Entry::allows`] decides it for an ed25519 key.
    pub fn allows_key(&self, key: &AllowedKey, namespace: &str, now: u64) -> Allows {
        if self.cert_authority || self.key != *key {
            return Allows::OtherKey;
        }
        if let Some(namespaces) = &self.namespaces
            && match_list(namespace.as_bytes(), namespaces.as_bytes()) != Some(true)
        {
            return Allows::OtherNamespace;
        }
        if self.valid_after.is_some_and(|after| now < after)
            || self.valid_before.is_some_and(|before| now > before)
        {
            return Allows::NotNow;
        }
        Allows::Yes
    }
}

/// Whether a line allows a key, and why not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allows {
    /// It allows the key.
    Yes,
    /// It holds another key (or is a `cert-authority` line).
    OtherKey,
    /// It holds the key, for other namespaces.
    OtherNamespace,
    /// It holds the key for the namespace, outside `valid-after`..`valid-before`.
    NotNow,
}

/// The lines of the allowed signers file `text` that matter for `identity`, in order:
/// the valid lines whose principals match it, and the invalid lines (see the module
/// docs).
pub fn entries_for(text: &str, identity: &str) -> Vec<Result<Entry, LineError>> {
    entries(text, Some(identity.as_bytes()))
}

/// Every line of the allowed signers file `text`, valid or invalid, in order,
/// whatever its principals: the lines `ssh-keygen -Y find-principals` looks through.
pub(crate) fn all_entries(text: &str) -> Vec<Result<Entry, LineError>> {
    entries(text, None)
}

/// The lines of `text` whose principals match `identity`, or all lines for `None`.
fn entries(text: &str, identity: Option<&[u8]>) -> Vec<Result<Entry, LineError>> {
    let mut out = Vec::new();
    let mut rest = text.as_bytes();
    let mut number = 0u64;
    while !rest.is_empty() {
        number += 1;
        let (mut line, after) = match memchr::memchr(b'\n', rest) {
            Some(lf) => rest.split_at(lf + 1),
            None => (rest, &b""[..]),
        };
        rest = after;
        if let Some(nul) = memchr::memchr(0, line) {
            line = &line[..nul];
        }
        match read_line(line, identity) {
            Line::Skipped => {}
            Line::Entry(entry) => out.push(Ok(Entry {
                line: number,
                ..entry
            })),
            Line::Invalid(message) => out.push(Err(LineError::new(number, message))),
        }
    }
    out
}

/// What a line is for the identity.
enum Line {
    /// Blank, a comment, or principals that do not match.
    Skipped,
    /// Valid, with matching principals (its line number not yet set).
    Entry(Entry),
    /// Invalid: why.
    Invalid(String),
}

/// Bytes of a line as text, for messages: control characters escaped.
fn text(bytes: &[u8]) -> String {
    sshsig::printable(bytes)
}

/// Bytes of a line as the text they are (lines are slices of a `&str` cut at ASCII
/// bytes, so this replaces nothing).
fn as_text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `parse_principals_key_and_options` of `sshsig.c`, on one line (with its LF, if
/// any); for an `identity` of `None`, whatever its principals.
fn read_line(line: &[u8], identity: Option<&[u8]>) -> Line {
    let start = line
        .iter()
        .position(|b| *b != b' ' && *b != b'\t')
        .unwrap_or(line.len());
    let line = &line[start..];
    if line.is_empty() || line[0] == b'#' {
        return Line::Skipped;
    }
    let Some((principals, Some(rest))) = principals_token(line) else {
        return Line::Invalid("invalid line".to_owned());
    };
    if let Some(identity) = identity
        && (memchr::memchr(0, identity).is_some()
            || match_list(identity, &principals) != Some(true))
    {
        return Line::Skipped;
    }
    match key_and_options(rest) {
        Ok(entry) => Line::Entry(Entry {
            principals: as_text(&principals),
            ..entry
        }),
        Err(message) => Line::Invalid(message),
    }
}

/// Whitespace for OpenSSH's `strdelim`: space, tab, CR and LF.
fn is_delimiter_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

fn skip_delimiter_space(bytes: &[u8]) -> &[u8] {
    let n = bytes
        .iter()
        .position(|b| !is_delimiter_space(*b))
        .unwrap_or(bytes.len());
    &bytes[n..]
}

fn skip_blanks(bytes: &[u8]) -> &[u8] {
    let n = bytes
        .iter()
        .position(|b| *b != b' ' && *b != b'\t')
        .unwrap_or(bytes.len());
    &bytes[n..]
}

/// OpenSSH's `strdelimw`: the first token and the rest (`None` when the token runs to
/// the end), or `None` for an unterminated quote.
fn principals_token(line: &[u8]) -> Option<(Vec<u8>, Option<&[u8]>)> {
    let Some(at) = line
        .iter()
        .position(|b| is_delimiter_space(*b) || *b == b'"')
    else {
        return Some((line.to_vec(), None));
    };
    if line[at] == b'"' {
        let after = &line[at + 1..];
        let close = memchr::memchr(b'"', after)?;
        let mut token = line[..at].to_vec();
        token.extend_from_slice(&after[..close]);
        return Some((token, Some(skip_delimiter_space(&after[close + 1..]))));
    }
    Some((
        line[..at].to_vec(),
        Some(skip_delimiter_space(&line[at + 1..])),
    ))
}

/// The key, directly or after options, as `parse_principals_key_and_options` reads it.
fn key_and_options(rest: &[u8]) -> Result<Entry, String> {
    let mut entry = Entry {
        line: 0,
        principals: String::new(),
        key: AllowedKey::Other(String::new()),
        namespaces: None,
        cert_authority: false,
        valid_after: None,
        valid_before: None,
    };
    let first = match read_key(rest) {
        Ok(key) => {
            entry.key = key;
            return Ok(entry);
        }
        Err(err) => err,
    };
    // A key type name is no option: such a line is an invalid key either way.
    if KEY_TYPES.iter().any(|name| {
        rest.starts_with(name.as_bytes())
            && rest
                .get(name.len())
                .is_some_and(|b| *b == b' ' || *b == b'\t')
    }) {
        return Err(format!("invalid key: {first}"));
    }
    let end = options_end(rest).ok_or_else(|| "invalid options: unterminated quote".to_owned())?;
    let (options, after) = rest.split_at(end);
    if after.is_empty() {
        return Err("missing key after the options".to_owned());
    }
    entry.key = read_key(skip_blanks(&after[1..])).map_err(|err| format!("invalid key: {err}"))?;
    parse_options(options, &mut entry)?;
    Ok(entry)
}

/// `sshkey_advance_past_options`: where the options token ends (at a space or tab
/// outside quotes, or the end), or `None` for an unterminated quote.
fn options_end(bytes: &[u8]) -> Option<usize> {
    let mut quoted = false;
    let mut i = 0;
    while i < bytes.len() && (quoted || (bytes[i] != b' ' && bytes[i] != b'\t')) {
        if bytes[i] == b'\\' && bytes.get(i + 1) == Some(&b'"') {
            i += 1;
        } else if bytes[i] == b'"' {
            quoted = !quoted;
        }
        i += 1;
    }
    if i >= bytes.len() && quoted {
        None
    } else {
        Some(i.min(bytes.len()))
    }
}

/// The key type names of OpenSSH 9.2 (`peek_type_nid`).
const KEY_TYPES: &[&str] = &[
    "ssh-ed25519",
    "ssh-ed25519-cert-v01@openssh.com",
    "sk-ssh-ed25519@openssh.com",
    "sk-ssh-ed25519-cert-v01@openssh.com",
    "ssh-rsa",
    "rsa-sha2-256",
    "rsa-sha2-512",
    "ssh-rsa-cert-v01@openssh.com",
    "rsa-sha2-256-cert-v01@openssh.com",
    "rsa-sha2-512-cert-v01@openssh.com",
    "ssh-dss",
    "ssh-dss-cert-v01@openssh.com",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "ecdsa-sha2-nistp256-cert-v01@openssh.com",
    "ecdsa-sha2-nistp384-cert-v01@openssh.com",
    "ecdsa-sha2-nistp521-cert-v01@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
    "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com",
];

/// `sshkey_read`: a key type name, spaces or tabs, and the base64 blob up to the next
/// space or tab. An ed25519 or ECDSA P-256 key is decoded exactly; a key of another
/// type is taken as written (it can never match a signature checked here).
fn read_key(bytes: &[u8]) -> Result<AllowedKey, String> {
    let Some(space) = bytes.iter().position(|b| *b == b' ' || *b == b'\t') else {
        return Err("no key".to_owned());
    };
    let key_type = &bytes[..space];
    if !KEY_TYPES.iter().any(|name| name.as_bytes() == key_type) {
        return Err(format!("unknown key type \"{}\"", text(key_type)));
    }
    let blob = skip_blanks(&bytes[space..]);
    if blob.is_empty() {
        return Err("no key after its type".to_owned());
    }
    if key_type != b"ssh-ed25519" && key_type != b"ecdsa-sha2-nistp256" {
        return Ok(AllowedKey::Other(as_text(key_type)));
    }
    let end = blob
        .iter()
        .position(|b| *b == b' ' || *b == b'\t')
        .unwrap_or(blob.len());
    let decoded = sshsig::base64_decode(&blob[..end]).ok_or("invalid base64")?;
    if key_type == b"ecdsa-sha2-nistp256" {
        let public = ssh_key::PublicKey::from_bytes(&decoded).map_err(|err| err.to_string())?;
        return match public.key_data().ecdsa() {
            Some(ecdsa @ ssh_key::public::EcdsaPublicKey::NistP256(_)) => {
                Ok(AllowedKey::EcdsaP256(ecdsa.as_sec1_bytes().to_vec()))
            }
            _ => Err("the key is not an ecdsa-sha2-nistp256 key".to_owned()),
        };
    }
    sshsig::public_key(&decoded)
        .map(AllowedKey::Ed25519)
        .map_err(|err| err.to_string())
}

/// `sshsigopt_parse`: the options token, into `entry`.
fn parse_options(options: &[u8], entry: &mut Entry) -> Result<(), String> {
    let mut rest = options;
    while let Some(&first) = rest.first() {
        if first == b' ' || first == b'\t' {
            break;
        }
        if starts_with_ignore_case(rest, b"cert-authority") {
            entry.cert_authority = true;
            rest = &rest[b"cert-authority".len()..];
        } else if let Some(value) = strip_option(rest, b"namespaces=") {
            if entry.namespaces.is_some() {
                return Err("multiple \"namespaces\" options".to_owned());
            }
            let (namespaces, after) = dequote(value, "namespaces")?;
            entry.namespaces = Some(as_text(&namespaces));
            rest = after;
        } else if let Some(value) = strip_option(rest, b"valid-after=") {
            if entry.valid_after.is_some() {
                return Err("multiple \"valid-after\" options".to_owned());
            }
            let (time, after) = dequote(value, "valid-after")?;
            entry.valid_after = Some(absolute_time(&time, "valid-after")?);
            rest = after;
        } else if let Some(value) = strip_option(rest, b"valid-before=") {
            if entry.valid_before.is_some() {
                return Err("multiple \"valid-before\" options".to_owned());
            }
            let (time, after) = dequote(value, "valid-before")?;
            entry.valid_before = Some(absolute_time(&time, "valid-before")?);
            rest = after;
        }
        match rest.first() {
            None | Some(b' ' | b'\t') => break,
            Some(b',') => {}
            Some(_) => {
                let name_end = rest
                    .iter()
                    .position(|b| matches!(b, b',' | b'=' | b' ' | b'\t'))
                    .unwrap_or(rest.len());
                return Err(format!("unknown option \"{}\"", text(&rest[..name_end])));
            }
        }
        rest = &rest[1..];
        if rest.is_empty() {
            return Err("an empty option after the last comma".to_owned());
        }
    }
    if let (Some(after), Some(before)) = (entry.valid_after, entry.valid_before)
        && before <= after
    {
        return Err("\"valid-before\" is not after \"valid-after\"".to_owned());
    }
    Ok(())
}

fn starts_with_ignore_case(bytes: &[u8], prefix: &[u8]) -> bool {
    bytes.len() >= prefix.len() && bytes[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// `opt_match`: the value after `name=` (name in any case).
fn strip_option<'a>(bytes: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    starts_with_ignore_case(bytes, name).then(|| &bytes[name.len()..])
}

/// `opt_dequote`: the value in double quotes (`\"` for a quote) and what follows it.
fn dequote<'a>(bytes: &'a [u8], option: &str) -> Result<(Vec<u8>, &'a [u8]), String> {
    let Some(mut rest) = bytes.strip_prefix(b"\"") else {
        return Err(format!("{option} must be in double quotes"));
    };
    let mut value = Vec::new();
    loop {
        match rest {
            [] => return Err(format!("{option}: missing end quote")),
            [b'"', after @ ..] => return Ok((value, after)),
            [b'\\', b'"', after @ ..] => {
                value.push(b'"');
                rest = after;
            }
            [byte, after @ ..] => {
                value.push(*byte);
                rest = after;
            }
        }
    }
}

/// `parse_absolute_time` (`misc.c`) for UTC times, with glibc's `strptime`: seconds
/// since the Unix epoch, refused when 0 or before it.
fn absolute_time(value: &[u8], option: &str) -> Result<u64, String> {
    let invalid = || format!("invalid {option} time \"{}\"", text(value));
    let len = value.len();
    let (digits, utc) = if len > 1 && value[len - 1].eq_ignore_ascii_case(&b'z') {
        (&value[..len - 1], true)
    } else if len > 3 && value[len - 3..].eq_ignore_ascii_case(b"utc") {
        (&value[..len - 3], true)
    } else {
        (value, false)
    };
    let count = match digits.len() {
        8 => 3,
        12 => 5,
        14 => 6,
        _ => return Err(invalid()),
    };
    let fields = &TIME_FIELDS[..count];
    // The text strptime reads, built as parse_absolute_time builds it.
    let buf: Vec<u8> = fields
        .iter()
        .flat_map(|field| {
            field
                .separator
                .iter()
                .chain(&digits[field.start..field.start + field.width])
        })
        .copied()
        .collect();
    let mut values = [0u32, 1, 1, 0, 0, 0];
    let mut rest = &buf[..];
    for (i, field) in fields.iter().enumerate() {
        rest = rest.strip_prefix(field.separator).ok_or_else(invalid)?;
        let (value, after) =
            strptime_number(rest, field.from, field.to, field.width).ok_or_else(invalid)?;
        values[i] = value;
        rest = after;
    }
    if !rest.is_empty() {
        return Err(invalid());
    }
    if !utc {
        return Err(format!(
            "{option} \"{}\" is in local time: only UTC times (ending in Z or UTC) are supported",
            text(value)
        ));
    }
    let [year, month, day, hour, minute, second] = values.map(i64::from);
    // timegm: days from the civil date, the day of the month added as it is (so
    // 20230231 is 3 March, as glibc normalises it).
    let days = days_from_civil(year, month) + day - 1;
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second;
    match u64::try_from(seconds) {
        Ok(0) | Err(_) => Err(invalid()),
        Ok(seconds) => Ok(seconds),
    }
}

/// A number of a time as `parse_absolute_time` hands it to `strptime`: the separator
/// before it, where its digits are in the value, and its range.
struct TimeField {
    separator: &'static [u8],
    start: usize,
    width: usize,
    from: u32,
    to: u32,
}

/// `%Y-%m-%dT%H:%M:%S`, as glibc reads each number.
const TIME_FIELDS: [TimeField; 6] = [
    TimeField {
        separator: b"",
        start: 0,
        width: 4,
        from: 0,
        to: 9999,
    },
    TimeField {
        separator: b"-",
        start: 4,
        width: 2,
        from: 1,
        to: 12,
    },
    TimeField {
        separator: b"-",
        start: 6,
        width: 2,
        from: 1,
        to: 31,
    },
    TimeField {
        separator: b"T",
        start: 8,
        width: 2,
        from: 0,
        to: 23,
    },
    TimeField {
        separator: b":",
        start: 10,
        width: 2,
        from: 0,
        to: 59,
    },
    TimeField {
        separator: b":",
        start: 12,
        width: 2,
        from: 0,
        to: 61,
    },
];

/// glibc's `get_number` in `strptime`: whitespace, then up to `width` digits, stopping
/// early when one more digit would pass `to`; the value must be in `from..=to`.
fn strptime_number(bytes: &[u8], from: u32, to: u32, width: usize) -> Option<(u32, &[u8])> {
    let mut rest = bytes;
    while let [b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r', after @ ..] = rest {
        rest = after;
    }
    let mut value = 0u32;
    let mut taken = 0;
    loop {
        let digit = *rest.first().filter(|b| b.is_ascii_digit())?;
        value = value * 10 + u32::from(digit - b'0');
        rest = &rest[1..];
        taken += 1;
        let more = rest.first().is_some_and(u8::is_ascii_digit);
        if taken >= width || value * 10 > to || !more {
            break;
        }
    }
    (from..=to).contains(&value).then_some((value, rest))
}

/// Days from 1970-01-01 to the first day of `month` (1-12) of `year`.
fn days_from_civil(year: i64, month: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// OpenSSH's `match_pattern_list`: `Some(true)` when `text` matches a sub-pattern of
/// the comma-separated `list`, `Some(false)` when it matches a negated (`!`) one first,
/// `None` when it matches none (or the list has a sub-pattern of 1,023 bytes or more
/// before any negated match). Byte by byte: see the module docs.
pub fn match_pattern_list(text: &str, list: &str) -> Option<bool> {
    match_list(text.as_bytes(), list.as_bytes())
}

/// The longest sub-pattern `match_pattern_list` reads: its buffer is 1,024 bytes with
/// the final NUL, and a sub-pattern that fills the rest fails the whole list.
const MAX_SUB_PATTERN: usize = 1022;

fn match_list(text: &[u8], list: &[u8]) -> Option<bool> {
    let mut positive = false;
    let mut i = 0;
    while i < list.len() {
        let negated = list[i] == b'!';
        if negated {
            i += 1;
        }
        let len = list[i..]
            .iter()
            .position(|b| *b == b',')
            .unwrap_or(list.len() - i);
        if len > MAX_SUB_PATTERN {
            return None;
        }
        let pattern = &list[i..i + len];
        i += len;
        if i < list.len() {
            // The comma.
            i += 1;
        }
        if glob(text, pattern) {
            if negated {
                return Some(false);
            }
            positive = true;
        }
    }
    positive.then_some(true)
}

/// OpenSSH's `match_pattern`, byte by byte: `*` is any run of bytes, `?` any one byte.
/// Iterative, in at most `text.len() * pattern.len()` steps.
fn glob(text: &[u8], pattern: &[u8]) -> bool {
    let (mut t, mut p) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == b'?' || pattern[p] == text[t]) {
            t += 1;
            p += 1;
        } else if p < pattern.len() && pattern[p] == b'*' {
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
    pattern[p..].iter().all(|c| *c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBjr7sGMxqCuSQsDW4zo9o1szAaeDwrX0SrbEtIx1Xlm";

    fn ok(text: &str, identity: &str) -> Vec<Entry> {
        entries_for(text, identity)
            .into_iter()
            .map(|entry| entry.unwrap())
            .collect()
    }

    fn errors(text: &str, identity: &str) -> Vec<LineError> {
        entries_for(text, identity)
            .into_iter()
            .filter_map(Result::err)
            .collect()
    }

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
    fn a_question_mark_is_one_byte() {
        // "é" is two bytes: "?" does not match it, "??" does.
        assert_eq!(match_pattern_list("é", "?"), None);
        assert_eq!(match_pattern_list("é", "??"), Some(true));
        assert_eq!(match_pattern_list("éve", "!?ve,*"), Some(true));
        assert_eq!(match_pattern_list("éve", "!??ve,*"), Some(false));
    }

    #[test]
    fn empty_lists_and_sub_patterns_are_read_as_openssh_reads_them() {
        assert_eq!(match_pattern_list("", ""), None);
        assert_eq!(match_pattern_list("a", "a,"), Some(true));
        assert_eq!(match_pattern_list("", "a,"), None);
        assert_eq!(match_pattern_list("", ",a"), Some(true));
        assert_eq!(match_pattern_list("", "a,,b"), Some(true));
        assert_eq!(match_pattern_list("", "!"), Some(false));
    }

    #[test]
    fn a_sub_pattern_of_1023_bytes_fails_the_whole_list() {
        let long = "x".repeat(1022);
        assert_eq!(match_pattern_list(&long, &long), Some(true));
        let longer = "x".repeat(1023);
        assert_eq!(match_pattern_list(&longer, &longer), None);
        assert_eq!(match_pattern_list("a", &format!("a,{longer}")), None);
        assert_eq!(
            match_pattern_list("a", &format!("!a,{longer}")),
            Some(false)
        );
        assert_eq!(match_pattern_list("a", &format!("!{longer},a")), None);
        assert_eq!(match_pattern_list("a", &format!("!{long},a")), Some(true));
    }

    #[test]
    fn lines_are_read_as_ssh_keygen_reads_them() {
        let text = format!(
            "# comment\n\n  bob@example.com {KEY}\n\"alice@example.com,carol\" namespaces=\"git,toolreplay\" {KEY} alice\r\n*@example.com cert-authority {KEY}\n"
        );
        let entries = ok(&text, "alice@example.com");
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].line, 4);
        assert_eq!(entries[0].namespaces.as_deref(), Some("git,toolreplay"));
        assert!(!entries[0].cert_authority);
        assert_eq!(entries[1].line, 5);
        assert!(entries[1].cert_authority);
        assert_eq!(ok(&text, "bob@example.com").len(), 2);
    }

    #[test]
    fn quotes_inside_a_principal_token_are_dropped() {
        let text = format!("al\"ice\" {KEY}\na\"b c\"d {KEY}\n");
        assert_eq!(ok(&text, "alice").len(), 1);
        assert_eq!(ok(&text, "al\"ice\"").len(), 0);
        // What follows the closing quote starts the rest: `d` is no key, nor options.
        assert_eq!(
            errors(&text, "ab c"),
            [LineError::new(2, "unknown option \"d\"")]
        );
    }

    #[test]
    fn options_are_read_as_sshsigopt_parse_reads_them() {
        let one = |options: &str| {
            entries_for(&format!("alice {options} {KEY}\n"), "alice")
                .pop()
                .unwrap()
        };
        let entry = one("NAMESPACES=\"a\\\"b\",Cert-Authority").unwrap();
        assert_eq!(entry.namespaces.as_deref(), Some("a\"b"));
        assert!(entry.cert_authority);
        assert_eq!(
            one("namespaces=\"a\",namespaces=\"b\"")
                .unwrap_err()
                .message,
            "multiple \"namespaces\" options"
        );
        assert_eq!(
            one("namespaces=a").unwrap_err().message,
            "namespaces must be in double quotes"
        );
        assert_eq!(
            one("cert-authority,").unwrap_err().message,
            "an empty option after the last comma"
        );
        assert!(one(",cert-authority").unwrap().cert_authority);
        assert_eq!(
            one("cert-authorityx").unwrap_err().message,
            "unknown option \"x\""
        );
        assert_eq!(
            one("namespaces=\"a b\"").unwrap().namespaces.as_deref(),
            Some("a b")
        );
        let window = one("valid-after=\"20240101Z\",valid-before=\"202401020304utc\"").unwrap();
        assert_eq!(window.valid_after, Some(1_704_067_200));
        assert_eq!(window.valid_before, Some(1_704_164_640));
        assert_eq!(
            one("valid-after=\"20240102Z\",valid-before=\"20240101Z\"")
                .unwrap_err()
                .message,
            "\"valid-before\" is not after \"valid-after\""
        );
        assert_eq!(
            one("valid-after=\"20240101\"").unwrap_err().message,
            "valid-after \"20240101\" is in local time: only UTC times (ending in Z or UTC) are supported"
        );
        assert_eq!(
            one("valid-after=\"19700101Z\"").unwrap_err().message,
            "invalid valid-after time \"19700101Z\""
        );
        assert_eq!(
            one("valid-after=\"20241301Z\"").unwrap_err().message,
            "invalid valid-after time \"20241301Z\""
        );
        // glibc normalises 31 February, and takes a space before a number.
        assert_eq!(
            one("valid-after=\"20230231Z\"").unwrap().valid_after,
            Some(1_677_801_600)
        );
        assert_eq!(
            one("valid-after=\"2023 301Z\"").unwrap().valid_after,
            Some(1_677_628_800)
        );
    }

    #[test]
    fn invalid_lines_do_not_stop_the_reading() {
        let text = format!(
            "bob@example.com bogus {KEY}\nalice valid-after=\"2020\" {KEY}\nalice {KEY}\n\"unterminated {KEY}\n"
        );
        assert_eq!(errors(&text, "carol"), [LineError::new(4, "invalid line")]);
        assert_eq!(
            errors(&text, "bob@example.com"),
            [
                LineError::new(1, "unknown option \"bogus\""),
                LineError::new(4, "invalid line")
            ]
        );
        let all = entries_for(&text, "alice");
        assert_eq!(all.len(), 3);
        assert_eq!(
            all[0],
            Err(LineError::new(2, "invalid valid-after time \"2020\""))
        );
        assert_eq!(all[1].as_ref().unwrap().line, 3);
        assert_eq!(errors("alice\n", "alice")[0].line, 1);
        assert_eq!(
            errors("alice ssh-ed25519 AAAA\n", "alice")[0].message,
            "invalid key: the public key is truncated"
        );
    }

    #[test]
    fn a_nul_ends_a_line_and_an_identity_with_one_matches_nothing() {
        let text = format!("alice {KEY}\0 trailing\nbob\0 {KEY}\n");
        let alice = entries_for(&text, "alice");
        assert_eq!(alice.len(), 2);
        assert_eq!(alice[0].as_ref().unwrap().line, 1);
        assert_eq!(alice[1], Err(LineError::new(2, "invalid line")));
        assert!(entries_for(&format!("* {KEY}\n"), "a\0b").is_empty());
    }
}
