//! The strings, keys and numbers of a canonical JSON encoding, read in order
//! without building a tree: a response the first pass cannot rule out is scanned
//! from its canonical bytes, so its memory is that of the bytes and one string at a
//! time, not that of a tree (tens of bytes per small value).
//!
//! Only the canonical encoding as this crate writes it is read (no whitespace,
//! members in order, the escapes of [`crate::canonical`]); anything else gives
//! `None`, and the caller parses the bytes instead, which says what is wrong.

use crate::policy::pointer::push_token;

/// What the reader meets, in the order of the encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Item<'a> {
    /// A key, at the pointer of its object.
    Key(&'a str),
    /// A string value at its pointer, with the key of its member when it is one.
    Str(&'a str, Option<&'a str>),
    /// A number's canonical text at its pointer.
    Number(&'a str),
}

struct Frame {
    object: bool,
    /// The next array index.
    index: usize,
    /// The length of the pointer of the container.
    pointer_len: usize,
    /// The key of the member being read, in an object.
    key: String,
}

/// The room a reading takes, kept from one reading to the next on each thread.
#[derive(Default)]
struct Room {
    stack: Vec<Frame>,
    pointer: String,
    decoded: String,
    /// The keys of frames popped, for the next objects.
    keys: Vec<String>,
}

/// The most bytes of room kept between readings, in each of its buffers.
const ROOM_KEPT: usize = 1 << 16;

thread_local! {
    static ROOM: std::cell::RefCell<Room> = std::cell::RefCell::new(Room::default());
}

/// Calls `visit` with the pointer and each item of `canonical`, in order; `None`
/// when `canonical` is not a canonical encoding this reader reads.
pub(super) fn visit(canonical: &[u8], visit: impl FnMut(&str, Item<'_>)) -> Option<()> {
    // Taken out of its cell, so that a reading inside `visit` has room of its own.
    let mut room = ROOM.try_with(|room| room.take()).unwrap_or_default();
    let read = visit_in(canonical, &mut room, visit);
    let Room {
        stack,
        pointer,
        decoded,
        keys,
    } = &mut room;
    keys.extend(stack.drain(..).map(|frame| frame.key));
    keys.truncate(64);
    for kept in [&mut *pointer, &mut *decoded] {
        kept.clear();
        if kept.capacity() > ROOM_KEPT {
            *kept = String::new();
        }
    }
    keys.retain(|key| key.capacity() <= ROOM_KEPT);
    if stack.capacity() > ROOM_KEPT / 16 {
        *stack = Vec::new();
    }
    let _ = ROOM.try_with(|kept| kept.replace(room));
    read
}

/// [`visit`] in `room`, whose buffers are empty.
fn visit_in(
    canonical: &[u8],
    room: &mut Room,
    mut visit: impl FnMut(&str, Item<'_>),
) -> Option<()> {
    let text = std::str::from_utf8(canonical).ok()?;
    let bytes = text.as_bytes();
    let mut pos = 0;
    let Room {
        stack,
        pointer,
        decoded,
        keys,
    } = room;
    loop {
        // A value starts at `pos`.
        match *bytes.get(pos)? {
            b'{' => {
                pos += 1;
                if bytes.get(pos) == Some(&b'}') {
                    pos += 1;
                } else {
                    let mut name = keys.pop().unwrap_or_default();
                    name.clear();
                    stack.push(Frame {
                        object: true,
                        index: 0,
                        pointer_len: pointer.len(),
                        key: name,
                    });
                    pos = key(text, pos, stack, pointer, decoded, &mut visit)?;
                    continue;
                }
            }
            b'[' => {
                pos += 1;
                if bytes.get(pos) == Some(&b']') {
                    pos += 1;
                } else {
                    stack.push(Frame {
                        object: false,
                        index: 1,
                        pointer_len: pointer.len(),
                        key: String::new(),
                    });
                    pointer.push_str("/0");
                    continue;
                }
            }
            b'"' => {
                pos = string(text, pos, decoded)?;
                let key = match stack.last() {
                    Some(frame) if frame.object => Some(frame.key.as_str()),
                    _ => None,
                };
                visit(pointer, Item::Str(decoded, key));
            }
            b'-' | b'0'..=b'9' => {
                let end = bytes[pos..]
                    .iter()
                    .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                    .map_or(bytes.len(), |n| pos + n);
                visit(pointer, Item::Number(text.get(pos..end)?));
                pos = end;
            }
            b't' if text[pos..].starts_with("true") => pos += 4,
            b'f' if text[pos..].starts_with("false") => pos += 5,
            b'n' if text[pos..].starts_with("null") => pos += 4,
            _ => return None,
        }
        // After a value: close containers, or go on to the next member or element.
        loop {
            let Some(frame) = stack.last_mut() else {
                return (pos == bytes.len()).then_some(());
            };
            pointer.truncate(frame.pointer_len);
            match (frame.object, *bytes.get(pos)?) {
                (true, b',') => {
                    pos = key(text, pos + 1, stack, pointer, decoded, &mut visit)?;
                    break;
                }
                (false, b',') => {
                    pos += 1;
                    // Writing to a `String` cannot fail.
                    let _ = std::fmt::Write::write_fmt(pointer, format_args!("/{}", frame.index));
                    frame.index += 1;
                    break;
                }
                (true, b'}') | (false, b']') => {
                    pos += 1;
                    if let Some(frame) = stack.pop()
                        && frame.object
                    {
                        keys.push(frame.key);
                    }
                }
                _ => return None,
            }
        }
    }
}

/// Reads the key at `pos` of the object on top of `stack` and its `:`, visits it,
/// and gives the position of its value, the pointer made the value's.
fn key(
    text: &str,
    pos: usize,
    stack: &mut [Frame],
    pointer: &mut String,
    decoded: &mut String,
    visit: &mut impl FnMut(&str, Item<'_>),
) -> Option<usize> {
    if text.as_bytes().get(pos) != Some(&b'"') {
        return None;
    }
    let end = string(text, pos, decoded)?;
    if text.as_bytes().get(end) != Some(&b':') {
        return None;
    }
    visit(pointer, Item::Key(decoded));
    push_token(pointer, decoded);
    let frame = stack.last_mut()?;
    frame.key.clear();
    frame.key.push_str(decoded);
    Some(end + 1)
}

/// Decodes the string whose opening quote is at `pos` into `out`, and gives the
/// position after its closing quote.
fn string(text: &str, pos: usize, out: &mut String) -> Option<usize> {
    out.clear();
    let bytes = text.as_bytes();
    let mut at = pos + 1;
    loop {
        let run = bytes[at..].iter().position(|&b| b == b'"' || b == b'\\')?;
        out.push_str(text.get(at..at + run)?);
        at += run;
        if bytes[at] == b'"' {
            return Some(at + 1);
        }
        let escape = *bytes.get(at + 1)?;
        at += 2;
        let c = match escape {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = hex4(text, at)?;
                at += 4;
                match unit {
                    0xD800..=0xDBFF => {
                        if text.get(at..at + 2)? != "\\u" {
                            return None;
                        }
                        let low = hex4(text, at + 2)?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return None;
                        }
                        at += 6;
                        char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))?
                    }
                    unit => char::from_u32(unit)?,
                }
            }
            _ => return None,
        };
        out.push(c);
    }
}

fn hex4(text: &str, at: usize) -> Option<u32> {
    let digits = text.get(at..at + 4)?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::{Item, visit};

    fn items(canonical: &str) -> Option<Vec<(String, String)>> {
        let mut out = Vec::new();
        visit(canonical.as_bytes(), |pointer, item| {
            let shown = match item {
                Item::Key(k) => format!("key {k}"),
                Item::Str(s, key) => format!("str {s} of {key:?}"),
                Item::Number(n) => format!("number {n}"),
            };
            out.push((pointer.to_owned(), shown));
        })?;
        Some(out)
    }

    #[test]
    fn items_come_in_order_with_their_pointers() {
        let got = items(r#"{"a/b":[1,"x",{"c~":-2.5e-07}],"d":"\u00e9\ud83d\ude00\n\"","e":[],"f":{},"g":true}"#)
            .unwrap();
        let want = [
            ("", "key a/b"),
            ("/a~1b/0", "number 1"),
            ("/a~1b/1", "str x of None"),
            ("/a~1b/2", "key c~"),
            ("/a~1b/2/c~0", "number -2.5e-07"),
            ("", "key d"),
            ("/d", "str é😀\n\" of Some(\"d\")"),
            ("", "key e"),
            ("", "key f"),
            ("", "key g"),
        ];
        let got: Vec<(&str, &str)> = got.iter().map(|(p, s)| (p.as_str(), s.as_str())).collect();
        assert_eq!(got, want);
        assert_eq!(
            items(r#""top""#).unwrap(),
            [(String::new(), "str top of None".to_owned())]
        );
    }

    #[test]
    fn what_is_not_canonical_is_not_read() {
        for bad in [
            r#"{"a": 1}"#,
            r#"{"a":1"#,
            r#"[1,]"#,
            r#""\ud800""#,
            r#""\x""#,
            "[1] ",
            "nul",
            "",
            r#"{"a":1}}"#,
        ] {
            assert_eq!(items(bad), None, "{bad}");
        }
    }
}
