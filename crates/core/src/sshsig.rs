//! SSHSIG signatures (OpenSSH's `PROTOCOL.sshsig`), armored and decoded exactly as
//! `ssh-keygen -Y verify` (OpenSSH 9.2, `sshsig.c`) reads them.
//!
//! # Armor
//!
//! The file must start with exactly `-----BEGIN SSH SIGNATURE-----` and LF: nothing,
//! not even whitespace or a byte-order mark, may come before it, and the line may not
//! end with CR LF. The base64 text runs up to the first LF followed by
//! `-----END SSH SIGNATURE-----`; whatever follows that marker is ignored, as
//! ssh-keygen ignores it. The base64 text is read as OpenSSH's `b64_pton` reads it:
//! the six ASCII whitespace bytes (space, tab, LF, VT, FF, CR) are skipped anywhere,
//! so CR LF line ends inside are accepted; padding, if any, must be complete (`==`
//! after two characters of a group, `=` after three), only whitespace may follow it,
//! and the bits it leaves over must be zero; without padding the text must end on a
//! group of four. A NUL byte is refused, except as the very last byte of the base64
//! text.
//!
//! # Blob
//!
//! The decoded blob is: the six bytes `SSHSIG`, a version (a 32-bit big-endian
//! number, at most 1; ssh-keygen also takes 0), then five strings (a 32-bit length
//! and that many bytes): the public key, the namespace, the reserved field, the hash
//! algorithm and the signature. Every length must fit in what remains, and nothing
//! may follow the signature. The namespace and the hash algorithm are C strings to
//! OpenSSH: a NUL byte in them is refused, except as their last byte, which is then
//! not part of the value.
//!
//! [`Signature::decode`] takes exactly this structure and [`Signature::encode`]
//! writes it back byte for byte; [`Ed25519::from_signature`] then reads the key, the
//! hash algorithm and the signature proper, as `sshsig.c` and `ssh-ed25519.c` do.

use std::fmt::Write as _;

/// The first line of an armored signature, with its LF.
pub const BEGIN: &str = "-----BEGIN SSH SIGNATURE-----\n";
/// The marker that ends the base64 text (after an LF).
pub const END: &str = "-----END SSH SIGNATURE-----";
/// The magic preamble of the blob.
pub(crate) const MAGIC: &[u8; 6] = b"SSHSIG";
/// The largest version ssh-keygen reads.
pub const VERSION: u32 = 1;

/// Why a signature cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The text does not start with `-----BEGIN SSH SIGNATURE-----` and LF.
    #[error("the first line is not -----BEGIN SSH SIGNATURE----- ended by LF")]
    MissingHeader,
    /// No LF followed by `-----END SSH SIGNATURE-----`.
    #[error("no line -----END SSH SIGNATURE-----")]
    MissingFooter,
    /// The text between the markers is not base64 as OpenSSH reads it.
    #[error("invalid base64")]
    Base64,
    /// The blob does not start with `SSHSIG`.
    #[error("no SSHSIG preamble")]
    Magic,
    /// The version is larger than 1.
    #[error("version {0} is not supported")]
    Version(u32),
    /// A length prefix is larger than what follows it.
    #[error("the {0} is truncated")]
    Truncated(&'static str),
    /// Bytes follow the last field of a structure.
    #[error("trailing bytes after the {0}")]
    Trailing(&'static str),
    /// A NUL byte inside a C string.
    #[error("the {0} holds a NUL byte")]
    Nul(&'static str),
}

/// `bytes` as text for a message: invalid UTF-8 replaced, control characters escaped
/// (`\n`, `\u{1b}`), so that a message stays one line.
pub(crate) fn printable(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The six whitespace bytes of the C locale's `isspace`.
fn is_c_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn base64_value(byte: u8) -> Option<u8> {
    match byte {
        b'A'..=b'Z' => Some(byte - b'A'),
        b'a'..=b'z' => Some(byte - b'a' + 26),
        b'0'..=b'9' => Some(byte - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Base64 as OpenSSH's `b64_pton` decodes it (see the module docs). `text` must hold
/// no NUL byte.
pub fn base64_decode(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    // The bits of a byte not yet complete, shifted into place.
    let mut partial: u8 = 0;
    let mut state = 0;
    let mut rest = text.iter();
    let mut padded = false;
    for &byte in rest.by_ref() {
        if is_c_space(byte) {
            continue;
        }
        if byte == b'=' {
            padded = true;
            break;
        }
        let value = base64_value(byte)?;
        match state {
            0 => {
                partial = value << 2;
                state = 1;
            }
            1 => {
                out.push(partial | (value >> 4));
                partial = (value & 0x0f) << 4;
                state = 2;
            }
            2 => {
                out.push(partial | (value >> 2));
                partial = (value & 0x03) << 6;
                state = 3;
            }
            _ => {
                out.push(partial | value);
                partial = 0;
                state = 0;
            }
        }
    }
    if !padded {
        return (state == 0).then_some(out);
    }
    match state {
        2 => {
            // A second `=` must follow, after whitespace if any.
            let next = rest.by_ref().find(|byte| !is_c_space(**byte));
            if next != Some(&b'=') {
                return None;
            }
        }
        3 => {}
        _ => return None,
    }
    if rest.any(|byte| !is_c_space(*byte)) || partial != 0 {
        return None;
    }
    Some(out)
}

/// Standard base64 of `bytes`, with padding, on one line.
///
/// ```
/// use toolreplay_core::base64_encode;
///
/// assert_eq!(base64_encode(b"foob"), "Zm9vYg==");
/// ```
pub fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Base64 of `bytes`, with padding, in lines of 70 characters each ending with LF,
/// as `ssh-keygen -Y sign` writes it.
pub fn base64_encode_wrapped(bytes: &[u8]) -> String {
    let flat = base64_encode(bytes);
    let mut out = String::with_capacity(flat.len() + flat.len() / 70 + 1);
    for (i, c) in flat.chars().enumerate() {
        out.push(c);
        if (i + 1) % 70 == 0 {
            out.push('\n');
        }
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// The blob of an armored signature, read as `sshsig_dearmor` reads it (see the
/// module docs).
pub fn dearmor(text: &[u8]) -> Result<Vec<u8>, DecodeError> {
    let body = text
        .strip_prefix(BEGIN.as_bytes())
        .ok_or(DecodeError::MissingHeader)?;
    let footer = format!("\n{END}");
    let end = memchr::memmem::find(body, footer.as_bytes()).ok_or(DecodeError::MissingFooter)?;
    let mut base64 = &body[..end];
    if let Some(nul) = memchr::memchr(0, base64) {
        if nul + 1 != base64.len() {
            return Err(DecodeError::Base64);
        }
        base64 = &base64[..nul];
    }
    base64_decode(base64).ok_or(DecodeError::Base64)
}

/// The armored form of `blob`, ending with LF, as `ssh-keygen -Y sign` writes it (an
/// empty blob, which no signature is, as an empty line, so that it reads back).
pub fn armor(blob: &[u8]) -> String {
    let mut out = String::from(BEGIN);
    let base64 = base64_encode_wrapped(blob);
    out.push_str(if base64.is_empty() { "\n" } else { &base64 });
    let _ = writeln!(out, "{END}");
    out
}

/// A reader of SSH wire strings over a byte slice.
struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn u32(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        let (head, rest) = self
            .rest
            .split_first_chunk::<4>()
            .ok_or(DecodeError::Truncated(what))?;
        self.rest = rest;
        Ok(u32::from_be_bytes(*head))
    }

    fn string(&mut self, what: &'static str) -> Result<&'a [u8], DecodeError> {
        let len = self.u32(what)? as usize;
        if len > self.rest.len() {
            return Err(DecodeError::Truncated(what));
        }
        let (value, rest) = self.rest.split_at(len);
        self.rest = rest;
        Ok(value)
    }

    fn end(&self, what: &'static str) -> Result<(), DecodeError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(DecodeError::Trailing(what))
        }
    }
}

/// The value of a C string as OpenSSH's `sshbuf_get_cstring` reads it: a NUL byte is
/// refused except as the last byte, which is dropped.
pub(crate) fn c_string<'a>(bytes: &'a [u8], what: &'static str) -> Result<&'a [u8], DecodeError> {
    match memchr::memchr(0, bytes) {
        None => Ok(bytes),
        Some(nul) if nul + 1 == bytes.len() => Ok(&bytes[..nul]),
        Some(_) => Err(DecodeError::Nul(what)),
    }
}

/// The fields of an SSHSIG blob, as they are in the blob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// The version (0 or 1).
    pub version: u32,
    /// The public key blob.
    pub public_key: Vec<u8>,
    /// The namespace, as in the blob (a last NUL byte included).
    pub namespace: Vec<u8>,
    /// The reserved field.
    pub reserved: Vec<u8>,
    /// The hash algorithm, as in the blob (a last NUL byte included).
    pub hash_algorithm: Vec<u8>,
    /// The signature blob.
    pub signature: Vec<u8>,
}

impl Signature {
    /// Decodes the SSHSIG blob `blob` with exact lengths (see the module docs).
    pub fn decode(blob: &[u8]) -> Result<Signature, DecodeError> {
        let rest = blob.strip_prefix(MAGIC).ok_or(DecodeError::Magic)?;
        let mut reader = Reader { rest };
        let version = reader.u32("version")?;
        if version > VERSION {
            return Err(DecodeError::Version(version));
        }
        let public_key = reader.string("public key")?;
        let namespace = reader.string("namespace")?;
        let reserved = reader.string("reserved field")?;
        let hash_algorithm = reader.string("hash algorithm")?;
        let signature = reader.string("signature")?;
        reader.end("signature")?;
        c_string(namespace, "namespace")?;
        c_string(hash_algorithm, "hash algorithm")?;
        Ok(Signature {
            version,
            public_key: public_key.to_vec(),
            namespace: namespace.to_vec(),
            reserved: reserved.to_vec(),
            hash_algorithm: hash_algorithm.to_vec(),
            signature: signature.to_vec(),
        })
    }

    /// Decodes an armored signature: [`dearmor`], then [`Signature::decode`].
    pub fn from_armored(text: &[u8]) -> Result<Signature, DecodeError> {
        Signature::decode(&dearmor(text)?)
    }

    /// The blob, field by field: `decode(blob)?.encode() == blob`.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&self.version.to_be_bytes());
        for field in [
            &self.public_key,
            &self.namespace,
            &self.reserved,
            &self.hash_algorithm,
            &self.signature,
        ] {
            put_string(&mut out, field);
        }
        out
    }

    /// The namespace, as OpenSSH compares it (a last NUL byte dropped).
    pub fn namespace(&self) -> &[u8] {
        c_string(&self.namespace, "namespace").unwrap_or(&self.namespace)
    }

    /// The hash algorithm, as OpenSSH compares it (a last NUL byte dropped).
    pub fn hash_algorithm(&self) -> &[u8] {
        c_string(&self.hash_algorithm, "hash algorithm").unwrap_or(&self.hash_algorithm)
    }
}

/// Appends the SSH wire string `bytes` (a 32-bit big-endian length, then the bytes).
/// Lengths beyond `u32::MAX` cannot occur for the inputs read here (1 MiB at most).
pub fn put_string(out: &mut Vec<u8>, bytes: &[u8]) {
    let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(bytes);
}

/// The two hash algorithms SSHSIG allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hash {
    /// `sha256`.
    Sha256,
    /// `sha512`.
    Sha512,
}

impl Hash {
    /// Its name in the blob.
    pub fn name(self) -> &'static str {
        match self {
            Hash::Sha256 => "sha256",
            Hash::Sha512 => "sha512",
        }
    }

    /// The digest of `message`.
    pub fn digest(self, message: &[u8]) -> Vec<u8> {
        use sha2::Digest as _;
        match self {
            Hash::Sha256 => sha2::Sha256::digest(message).to_vec(),
            Hash::Sha512 => sha2::Sha512::digest(message).to_vec(),
        }
    }
}

/// Why a decoded signature is not an ed25519 signature OpenSSH would check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The hash algorithm is neither `sha256` nor `sha512`.
    #[error("hash algorithm \"{0}\" is not supported, only sha256 and sha512")]
    Hash(String),
    /// The public key is of another type than ed25519 (named).
    #[error("{0} keys are not supported, only ssh-ed25519")]
    Unsupported(String),
    /// The public key or signature blob is malformed.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The public key is not 32 bytes.
    #[error("the ed25519 public key is {0} bytes, not 32")]
    KeyLength(usize),
    /// The signature blob names another algorithm than the key's.
    #[error("the signature is made with \"{0}\", not with the key's algorithm ssh-ed25519")]
    Algorithm(String),
    /// The ed25519 signature is not 64 bytes.
    #[error("the ed25519 signature is {0} bytes, not 64")]
    SignatureLength(usize),
}

/// An SSHSIG signature by an ed25519 key, read as `sshsig.c` and `ssh-ed25519.c` read
/// it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ed25519 {
    /// The public key.
    pub key: [u8; 32],
    /// The hash algorithm.
    pub hash: Hash,
    /// The signature proper (R and S).
    pub signature: [u8; 64],
}

impl Ed25519 {
    /// The hash algorithm (`sha256` or `sha512` exactly), then the public key blob (a
    /// C string type `ssh-ed25519`, or `ed25519` in any case, then a string of 32 bytes,
    /// then nothing), then the signature blob (a C string type equal to `ssh-ed25519`,
    /// then a string of 64 bytes, then nothing), in the order ssh-keygen checks them.
    pub fn from_signature(signature: &Signature) -> Result<Ed25519, KeyError> {
        let hash = match signature.hash_algorithm() {
            b"sha256" => Hash::Sha256,
            b"sha512" => Hash::Sha512,
            other => return Err(KeyError::Hash(printable(other))),
        };
        let key = public_key(&signature.public_key)?;
        let mut reader = Reader {
            rest: &signature.signature,
        };
        let algorithm = c_string(reader.string("signature")?, "signature algorithm")?;
        let bytes = reader.string("signature")?;
        reader.end("signature")?;
        if algorithm != b"ssh-ed25519" {
            return Err(KeyError::Algorithm(printable(algorithm)));
        }
        let signature: [u8; 64] = bytes
            .try_into()
            .map_err(|_| KeyError::SignatureLength(bytes.len()))?;
        Ok(Ed25519 {
            key,
            hash,
            signature,
        })
    }
}

/// The ed25519 key of a public key blob, read as `sshkey_from_blob` reads it: the type
/// is a C string, `ssh-ed25519` or (as OpenSSH's short name) `ed25519` in any case;
/// the key is a string of exactly 32 bytes; nothing follows.
pub fn public_key(blob: &[u8]) -> Result<[u8; 32], KeyError> {
    let mut reader = Reader { rest: blob };
    let key_type = c_string(reader.string("public key")?, "public key type")?;
    if key_type != b"ssh-ed25519" && !key_type.eq_ignore_ascii_case(b"ed25519") {
        return Err(KeyError::Unsupported(printable(key_type)));
    }
    let key = reader.string("public key")?;
    let key: [u8; 32] = key.try_into().map_err(|_| KeyError::KeyLength(key.len()))?;
    reader.end("public key")?;
    Ok(key)
}

/// The data an SSHSIG signature signs, as `ssh-keygen -Y verify` rebuilds it: the
/// expected namespace, an empty reserved field whatever the signature's holds, the
/// hash algorithm and the digest of `message`.
pub(crate) fn signed_data(namespace: &[u8], hash: Hash, message: &[u8]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    put_string(&mut out, namespace);
    put_string(&mut out, b"");
    put_string(&mut out, hash.name().as_bytes());
    put_string(&mut out, &hash.digest(message));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_pads() {
        assert_eq!(base64_encode(b""), "");
        assert_eq!(base64_encode(b"f"), "Zg==");
        assert_eq!(base64_encode(b"fo"), "Zm8=");
        assert_eq!(base64_encode(b"foo"), "Zm9v");
        assert_eq!(base64_encode(b"foob"), "Zm9vYg==");
    }

    fn string(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        put_string(&mut out, bytes);
        out
    }

    fn sample() -> Signature {
        let mut key = string(b"ssh-ed25519");
        key.extend(string(&[7; 32]));
        let mut sig = string(b"ssh-ed25519");
        sig.extend(string(&[9; 64]));
        Signature {
            version: 1,
            public_key: key,
            namespace: b"toolreplay".to_vec(),
            reserved: Vec::new(),
            hash_algorithm: b"sha512".to_vec(),
            signature: sig,
        }
    }

    #[test]
    fn base64_is_read_as_b64_pton_reads_it() {
        assert_eq!(base64_decode(b"QUJD"), Some(b"ABC".to_vec()));
        assert_eq!(
            base64_decode(b" Q U\r\nJ\tD \x0b\x0c"),
            Some(b"ABC".to_vec())
        );
        assert_eq!(base64_decode(b"QUI="), Some(b"AB".to_vec()));
        assert_eq!(base64_decode(b"QQ=="), Some(b"A".to_vec()));
        assert_eq!(base64_decode(b"QQ= \n="), Some(b"A".to_vec()));
        assert_eq!(base64_decode(b"QQ== \r\n"), Some(b"A".to_vec()));
        assert_eq!(base64_decode(b""), Some(Vec::new()));
        // Incomplete groups, misplaced or short padding, data after padding.
        assert_eq!(base64_decode(b"QUI"), None);
        assert_eq!(base64_decode(b"QQ="), None);
        assert_eq!(base64_decode(b"Q==="), None);
        assert_eq!(base64_decode(b"="), None);
        assert_eq!(base64_decode(b"QUJD="), None);
        assert_eq!(base64_decode(b"QQ==QUJD"), None);
        // Leftover bits must be zero.
        assert_eq!(base64_decode(b"QR=="), None);
        assert_eq!(base64_decode(b"QUJ="), None);
        // Not base64.
        assert_eq!(base64_decode(b"QU-D"), None);
        assert_eq!(base64_decode("QUJ\u{a0}D".as_bytes()), None);
    }

    #[test]
    fn base64_round_trips_in_lines_of_seventy() {
        for len in 0..200 {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let text = base64_encode_wrapped(&bytes);
            assert!(text.lines().all(|line| line.len() <= 70), "{text}");
            assert_eq!(base64_decode(text.as_bytes()), Some(bytes));
        }
    }

    #[test]
    fn armor_is_read_as_sshsig_dearmor_reads_it() {
        let blob = sample().encode();
        let armored = armor(&blob);
        assert_eq!(dearmor(armored.as_bytes()), Ok(blob.clone()));
        let crlf = armored.replace('\n', "\r\n");
        assert_eq!(dearmor(crlf.as_bytes()), Err(DecodeError::MissingHeader));
        let body = armored
            .strip_prefix(BEGIN)
            .unwrap()
            .strip_suffix(&format!("{END}\n"))
            .unwrap();
        let crlf_body = format!("{BEGIN}{}{END}\r\n", body.replace('\n', "\r\n"));
        assert_eq!(dearmor(crlf_body.as_bytes()), Ok(blob.clone()));
        assert_eq!(
            dearmor(format!(" {armored}").as_bytes()),
            Err(DecodeError::MissingHeader)
        );
        assert_eq!(
            dearmor(format!("text\n{armored}").as_bytes()),
            Err(DecodeError::MissingHeader)
        );
        assert_eq!(
            dearmor(&[armored.as_bytes(), b"anything\x00\xff"].concat()),
            Ok(blob.clone())
        );
        assert_eq!(dearmor(armor(b"").as_bytes()), Ok(Vec::new()));
        let no_final_lf = armored.strip_suffix('\n').unwrap();
        assert_eq!(dearmor(no_final_lf.as_bytes()), Ok(blob.clone()));
        assert_eq!(
            dearmor(armored.replace("\n-----END", "-----END").as_bytes()),
            Err(DecodeError::MissingFooter)
        );
    }

    #[test]
    fn blobs_are_decoded_with_exact_lengths() {
        let signature = sample();
        let blob = signature.encode();
        assert_eq!(Signature::decode(&blob), Ok(signature.clone()));
        let mut trailing = blob.clone();
        trailing.push(0);
        assert_eq!(
            Signature::decode(&trailing),
            Err(DecodeError::Trailing("signature"))
        );
        assert_eq!(
            Signature::decode(&blob[..blob.len() - 1]),
            Err(DecodeError::Truncated("signature"))
        );
        let mut version = signature.clone();
        version.version = 2;
        assert_eq!(
            Signature::decode(&version.encode()),
            Err(DecodeError::Version(2))
        );
        version.version = 0;
        assert_eq!(Signature::decode(&version.encode()), Ok(version));
        let mut nul = signature.clone();
        nul.namespace = b"tool\0replay".to_vec();
        assert_eq!(
            Signature::decode(&nul.encode()),
            Err(DecodeError::Nul("namespace"))
        );
        nul.namespace = b"toolreplay\0".to_vec();
        let decoded = Signature::decode(&nul.encode()).unwrap();
        assert_eq!(decoded.namespace(), b"toolreplay");
        assert_eq!(decoded.encode(), nul.encode());
        assert_eq!(Signature::decode(b"SSHSIF"), Err(DecodeError::Magic));
    }

    #[test]
    fn ed25519_fields_are_checked_as_ssh_keygen_checks_them() {
        let signature = sample();
        let ed = Ed25519::from_signature(&signature).unwrap();
        assert_eq!(ed.key, [7; 32]);
        assert_eq!(ed.hash, Hash::Sha512);
        assert_eq!(ed.signature, [9; 64]);

        let mut other = signature.clone();
        other.hash_algorithm = b"sha384".to_vec();
        assert_eq!(
            Ed25519::from_signature(&other),
            Err(KeyError::Hash("sha384".to_owned()))
        );
        other.hash_algorithm = b"sha256\0".to_vec();
        assert_eq!(Ed25519::from_signature(&other).unwrap().hash, Hash::Sha256);

        let mut other = signature.clone();
        other.signature = string(b"ssh-rsa");
        other.signature.extend(string(&[9; 64]));
        assert_eq!(
            Ed25519::from_signature(&other),
            Err(KeyError::Algorithm("ssh-rsa".to_owned()))
        );
        other.signature = string(b"ssh-ed25519");
        other.signature.extend(string(&[9; 64]));
        other.signature.push(0);
        assert_eq!(
            Ed25519::from_signature(&other),
            Err(KeyError::Decode(DecodeError::Trailing("signature")))
        );
        other.signature = string(b"ssh-ed25519");
        other.signature.extend(string(&[9; 63]));
        assert_eq!(
            Ed25519::from_signature(&other),
            Err(KeyError::SignatureLength(63))
        );

        let mut other = signature.clone();
        other.public_key.push(0);
        assert_eq!(
            Ed25519::from_signature(&other),
            Err(KeyError::Decode(DecodeError::Trailing("public key")))
        );
        other.public_key = string(b"ED25519");
        other.public_key.extend(string(&[7; 32]));
        assert_eq!(Ed25519::from_signature(&other).unwrap().key, [7; 32]);
        other.public_key = string(b"ssh-rsa");
        assert_eq!(
            Ed25519::from_signature(&other),
            Err(KeyError::Unsupported("ssh-rsa".to_owned()))
        );
    }
}
