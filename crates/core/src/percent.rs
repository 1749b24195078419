//! Percent-escapes (`%XX`, two hex digits of either case), decoded in one place: in
//! paths and URLs that rules read, in JSON pointers of schema references, and in
//! the values of the OTLP headers variable.

/// The bytes of `text` with every `%XX` escape decoded; a `%` not followed by two
/// hex digits stays as it is.
///
/// ```
/// use toolreplay_core::percent_decode;
///
/// assert_eq!(percent_decode("a%2Fb%2fc"), b"a/b/c");
/// assert_eq!(percent_decode("100% %zz %+f %4"), b"100% %zz %+f %4");
/// assert_eq!(percent_decode("%C3%A9"), "é".as_bytes());
/// ```
pub fn percent_decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let hex = |at: usize| bytes.get(at).and_then(|&b| char::from(b).to_digit(16));
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        match (byte, hex(i + 1), hex(i + 2)) {
            (b'%', Some(high), Some(low)) => {
                // Two hex digits are at most 255.
                out.push(u8::try_from(high * 16 + low).unwrap_or(u8::MAX));
                i += 3;
            }
            _ => {
                out.push(byte);
                i += 1;
            }
        }
    }
    out
}
