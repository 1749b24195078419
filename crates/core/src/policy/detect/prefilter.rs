//! The first pass over a response: a search of the prefilters of the detectors
//! chosen for a tool in all the strings of a response at once, which rules most
//! responses out at a fraction of the cost of reading each string with a regex.
//!
//! Each built-in's prefilter is looked for without a regex (see
//! [`PrefilterSearch`]): byte loops and `memchr` for those led by a digit or around
//! an `@`, one search of all the literals the others start with, the rest of the
//! prefilter checked where a literal is found. The user's detectors run as regexes.
//! The text read is either the joined decoded strings of a response or its canonical
//! JSON as it is (see [`FirstPassText`]).

use super::super::one_line;
use super::catalog::Catalog;
use super::{BUILTINS, DFA_SIZE_LIMIT, SET_SIZE_LIMIT};

/// What follows a literal in a prefilter: the text after the literal's match, and
/// the literal.
pub(super) type AfterLiteral = fn(Cursor<'_>, &str) -> bool;

/// Reads a text from a position on, byte by byte: the joined strings as they are,
/// or the canonical JSON of a response decoded on the fly, where the string read
/// ends at its closing quote as a joined string ends at its NUL byte. A `\u`
/// escape (a control or non-ASCII character) reads as a NUL byte: no class a
/// prefilter looks for after a literal holds either.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    escaped: bool,
}

impl Cursor<'_> {
    /// Reads the next byte when it is one of `class`.
    fn eat(&mut self, class: impl Fn(u8) -> bool) -> bool {
        let mut next = *self;
        let eaten = next.next().is_some_and(class);
        if eaten {
            *self = next;
        }
        eaten
    }
}

impl Iterator for Cursor<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.pos)?;
        if !self.escaped || !matches!(b, b'"' | b'\\') {
            self.pos += 1;
            return Some(b);
        }
        if b == b'"' {
            return None;
        }
        let escape = *self.bytes.get(self.pos + 1)?;
        self.pos += 2;
        Some(match escape {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'u' => {
                self.pos += 4;
                0
            }
            other => other,
        })
    }
}

/// How the first pass looks for a built-in's prefilter: each kind costs far less
/// than a regex reading every byte, and says "maybe" wherever the prefilter matches.
#[derive(Debug, Clone, Copy)]
pub(super) enum PrefilterSearch {
    /// The prefilter starts with one of `literals` (ASCII case ignored when `fold`,
    /// exact otherwise), and `after` holds after it: what the literal search finds.
    Literals {
        literals: &'static [&'static str],
        fold: bool,
        after: AfterLiteral,
    },
    /// `[A-Za-z0-9._%+-]@[A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z]{2}`: around each `@`.
    Email,
    /// `[0-9](?:[ -]?[0-9]){12}`: in the runs of digits and separators.
    Card,
    /// `\+[1-9](?:[ .()-]*[0-9]){7}` from each `+`, and the rest in the runs of
    /// digits and separators.
    Phone,
}

/// Whether the byte at `at` of `hay` is one of `class`.
fn byte_in(hay: &[u8], at: usize, class: fn(u8) -> bool) -> bool {
    hay.get(at).is_some_and(|&b| class(b))
}

/// Anything, nothing included.
pub(super) fn anything_after(_: Cursor<'_>, _: &str) -> bool {
    true
}

fn upper_or_base32(b: u8) -> bool {
    b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b)
}

/// `[A-Z2-7]`, after `[A-Z0-9]` when the literal is `A3T`.
pub(super) fn aws_after(mut after: Cursor<'_>, literal: &str) -> bool {
    (literal != "A3T" || after.eat(|b| b.is_ascii_uppercase() || b.is_ascii_digit()))
        && after.eat(upper_or_base32)
}

fn blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `[ \t]`.
pub(super) fn blank_after(mut after: Cursor<'_>, _: &str) -> bool {
    after.eat(blank)
}

/// `[A-Za-z0-9]` after `gh?_`, nothing after `github_pat_`.
pub(super) fn github_after(mut after: Cursor<'_>, literal: &str) -> bool {
    literal == "github_pat_" || after.eat(|b| b.is_ascii_alphanumeric())
}

/// `[abposr]-` after `xox`, `services/` or `workflows/` after `hooks.slack.com/`.
pub(super) fn slack_after(mut after: Cursor<'_>, literal: &str) -> bool {
    if literal == "xox" {
        return after.eat(|b| matches!(b, b'a' | b'b' | b'p' | b'o' | b's' | b'r'))
            && after.eat(|b| b == b'-');
    }
    ["services/", "workflows/"].iter().any(|rest| {
        let mut after = after;
        rest.bytes().all(|want| after.eat(|b| b == want))
    })
}

fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// `[0-9A-Za-z_-]`.
pub(super) fn google_after(mut after: Cursor<'_>, _: &str) -> bool {
    after.eat(name_byte)
}

fn value_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'/' | b'=' | b'.' | b'~' | b'-')
}

fn quote(b: u8) -> bool {
    b == b'"' || b == b'\''
}

/// `[A-Za-z0-9_-]{0,16}["']?[ \t]*(?::|=|:=|=>)[ \t]*["']?[A-Za-z0-9_+/=.~-]{16}`.
/// Each optional or repeated part is followed by a byte it cannot take, so one
/// reading decides, but for the operator: `:` and `=` may be followed by `=` and
/// `>`, and both readings are tried.
pub(super) fn assignment_after(mut after: Cursor<'_>, _: &str) -> bool {
    let mut name = 0;
    while after.eat(name_byte) {
        name += 1;
        if name > 16 {
            return false;
        }
    }
    after.eat(quote);
    while after.eat(blank) {}
    let op = after.next();
    if !matches!(op, Some(b':' | b'=')) {
        return false;
    }
    let value = |mut after: Cursor<'_>| {
        while after.eat(blank) {}
        after.eat(quote);
        (0..16).all(|_| after.eat(value_byte))
    };
    value(after)
        || matches!(
            (op, after.next()),
            (Some(b':'), Some(b'=')) | (Some(b'='), Some(b'>'))
        ) && value(after)
}

/// Whether a byte may be part of a digit-led prefilter's match: digits, spaces,
/// `)`, `.` and `-`.
const RUN_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = b'0';
    while b <= b'9' {
        table[b as usize] = true;
        b += 1;
    }
    table[b' ' as usize] = true;
    table[b')' as usize] = true;
    table[b'.' as usize] = true;
    table[b'-' as usize] = true;
    table
};

/// Calls `run` on each maximal run of [`RUN_BYTES`] of `hay` at least `min` long
/// (its start, its end and its bytes), until it returns true; gives whether it did.
/// Only every `min`th byte is read outside such runs: each run that long holds one
/// of them.
fn runs(hay: &[u8], min: usize, mut run: impl FnMut(usize, usize, &[u8]) -> bool) -> bool {
    let min = min.max(1);
    let in_run = |at: usize| hay.get(at).is_some_and(|&b| RUN_BYTES[usize::from(b)]);
    let mut probe = min - 1;
    while probe < hay.len() {
        if !in_run(probe) {
            probe += min;
            continue;
        }
        let mut start = probe;
        while let Some(prev) = start.checked_sub(1)
            && in_run(prev)
        {
            start = prev;
        }
        // A run `min` long from `start` holds `last`; when it does not, the next
        // long run starts after `last`, and holds `last + min`.
        let last = start + min - 1;
        if !in_run(last) {
            probe = last + min;
            continue;
        }
        let mut end = probe + 1;
        while in_run(end) {
            end += 1;
        }
        // `start..end` is in `hay`: `in_run` holds at `start` and not past the end.
        if end - start >= min && run(start, end, &hay[start..end]) {
            return true;
        }
        // `end` is not in a run: the next long run holds `end + min`.
        probe = end + min;
    }
    false
}

/// Whether `at` holds at a position of `byte` in `hay`, tried in increasing order
/// until it does: thirty-two bytes compared at a time, which costs less than a
/// `memchr` search started again after each one when the byte comes every few dozen
/// bytes (an `@` or a `+` in random text), and little more when it is rare.
fn any_position(hay: &[u8], byte: u8, mut at: impl FnMut(usize) -> bool) -> bool {
    let mut chunks = hay.chunks_exact(32);
    let mut base = 0;
    for chunk in &mut chunks {
        let mut mask = wide::equal_mask(chunk, byte);
        while mask != 0 {
            if at(base + mask.trailing_zeros() as usize) {
                return true;
            }
            mask &= mask - 1;
        }
        base += 32;
    }
    let rest = chunks.remainder();
    (0..rest.len()).any(|i| rest[i] == byte && at(base + i))
}

/// SSE2 (part of every x86-64 CPU): sixteen bytes compared at once.
#[cfg(target_arch = "x86_64")]
mod wide {
    use safe_arch::{
        cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i, set_splat_i8_m128i,
    };

    /// Bits set at the bytes of `chunk`, thirty-two long, equal to `byte`.
    #[inline(always)]
    pub(super) fn equal_mask(chunk: &[u8], byte: u8) -> u32 {
        let half = |from: usize| {
            let mut bytes = [0; 16];
            bytes.copy_from_slice(&chunk[from..from + 16]);
            let equal =
                cmp_eq_mask_i8_m128i(load_unaligned_m128i(&bytes), set_splat_i8_m128i(byte as i8));
            move_mask_i8_m128i(equal) as u32 & 0xFFFF
        };
        half(0) | half(16) << 16
    }
}

/// Elsewhere: one byte at a time.
#[cfg(not(target_arch = "x86_64"))]
mod wide {
    /// Bits set at the bytes of `chunk`, thirty-two long, equal to `byte`.
    pub(super) fn equal_mask(chunk: &[u8], byte: u8) -> u32 {
        (chunk.iter().enumerate()).fold(0, |mask, (i, &b)| mask | u32::from(b == byte) << i)
    }
}

/// Whether the first branch of the phone prefilter, `\+[1-9](?:[ .()-]*[0-9]){7}`,
/// matches at `at`, a `+` of `hay`: the bytes read after it are those a match of
/// the phone pattern's first branch can hold, which the next `+` is not, so each
/// byte is read for one `+` at most.
fn plus_phone(hay: &[u8], at: usize) -> bool {
    if !byte_in(hay, at + 1, |b| (b'1'..=b'9').contains(&b)) {
        return false;
    }
    let mut digits = 0;
    for &b in hay.iter().skip(at + 2) {
        match b {
            b'0'..=b'9' => {
                digits += 1;
                if digits == 7 {
                    return true;
                }
            }
            b' ' | b'.' | b'(' | b')' | b'-' => {}
            _ => return false,
        }
    }
    false
}

/// Whether the e-mail prefilter, `[A-Za-z0-9._%+-]@[A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z]{2}`,
/// matches around `at`, an `@` of `hay`: the bytes read after it are those of a
/// domain, which the next `@` is not, so each byte is read for one `@` at most.
fn email_at(hay: &[u8], at: usize) -> bool {
    let local = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'%' | b'+' | b'-');
    if !at
        .checked_sub(1)
        .is_some_and(|prev| byte_in(hay, prev, local))
        || !byte_in(hay, at + 1, |b| b.is_ascii_alphanumeric())
    {
        return false;
    }
    let letter = |at: usize| byte_in(hay, at, |b| b.is_ascii_alphabetic());
    let mut pos = at + 2;
    while let Some(&b) = hay.get(pos) {
        match b {
            b'.' if letter(pos + 1) && letter(pos + 2) => return true,
            b'.' | b'-' => {}
            _ if b.is_ascii_alphanumeric() => {}
            _ => return false,
        }
        pos += 1;
    }
    false
}

/// Whether the card prefilter `[0-9](?:[ -]?[0-9]){12}` matches in `run`.
fn card_prefilter(run: &[u8]) -> bool {
    let mut digits = 0;
    let mut separated = false;
    for &b in run {
        match b {
            b'0'..=b'9' => {
                digits += 1;
                if digits >= 13 {
                    return true;
                }
                separated = false;
            }
            b' ' | b'-' if digits > 0 && !separated => separated = true,
            _ => {
                digits = 0;
                separated = false;
            }
        }
    }
    false
}

/// Whether the second branch of the phone prefilter,
/// `\(?[2-9][0-9]{2}\)?[ .-]?[2-9][0-9]{2}[ .-][0-9]{4}`, matches in `run`: its
/// optional `\(` changes nothing to where it matches, and each other optional part
/// is followed by a byte it cannot take.
fn phone_prefilter(run: &[u8]) -> bool {
    let digit = |at: usize| byte_in(run, at, |b| b.is_ascii_digit());
    let lead = |at: usize| byte_in(run, at, |b| (b'2'..=b'9').contains(&b));
    let separator = |at: usize| byte_in(run, at, |b| matches!(b, b' ' | b'.' | b'-'));
    (0..run.len()).any(|start| {
        if !(lead(start) && digit(start + 1) && digit(start + 2)) {
            return false;
        }
        let mut at = start + 3;
        if byte_in(run, at, |b| b == b')') {
            at += 1;
        }
        if separator(at) {
            at += 1;
        }
        lead(at)
            && digit(at + 1)
            && digit(at + 2)
            && separator(at + 3)
            && (at + 4..at + 8).all(digit)
    })
}

/// A literal of a built-in's prefilter, for the literal search of a first pass.
#[derive(Debug, Clone, Copy)]
struct PrefilterLiteral {
    detector: usize,
    literal: &'static str,
    /// Whether ASCII case is ignored, as the search does: otherwise the literal is
    /// compared again.
    fold: bool,
    after: AfterLiteral,
}

/// The first pass over the joined strings of a response, by kind of prefilter,
/// each cheaper than a regex reading every byte: byte loops and `memchr` for the
/// built-ins led by a digit or around an `@`, one search of all the literals the
/// other built-ins' prefilters start with (lower-cased, in a lower-cased copy of
/// the text, so that the search can skip ahead) with the rest of the prefilter
/// checked where a literal is found, and regexes for the user's detectors: alone
/// those with a literal their regex looks for first, in one lazy DFA the others,
/// without the literal search the `regex` crate would put before it, which costs
/// more than it saves when no literal stands out.
#[derive(Debug, Default)]
pub(super) struct FirstPass {
    literals: Option<LiteralSearch>,
    /// By literal of `literals`: the built-ins' literals that lower-case to it.
    owners: Vec<Vec<PrefilterLiteral>>,
    email: Option<usize>,
    /// The card detector, whose matches the caller may confirm on the run of digits
    /// and separators the prefilter matched in.
    pub(super) card: Option<usize>,
    phone: Option<usize>,
    /// The user's detectors with a literal, each run alone.
    pub(super) user_alone: Vec<usize>,
    /// The lazy DFA, and the detector of each of its patterns.
    pub(super) user_joined: Option<(regex_automata::meta::Regex, Vec<usize>)>,
}

/// Whether every match of `pattern` is printable ASCII but `"` and `\`, with no
/// anchor or word boundary: then wherever it matches in a string, it matches in
/// the string's canonical JSON, which writes such text as it is.
pub(super) fn plain_ascii(pattern: &str) -> bool {
    use regex_syntax::hir::{Class, HirKind};
    let Ok(hir) = regex_syntax::parse(pattern) else {
        return false;
    };
    if !hir.properties().look_set().is_empty() {
        return false;
    }
    let plain = |start: u32, end: u32| {
        start >= 0x20
            && end <= 0x7e
            && ![u32::from(b'"'), u32::from(b'\\')]
                .iter()
                .any(|b| (start..=end).contains(b))
    };
    let mut stack = vec![&hir];
    while let Some(hir) = stack.pop() {
        let holds = match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => true,
            HirKind::Literal(literal) => literal.0.iter().all(|&b| plain(b.into(), b.into())),
            HirKind::Class(Class::Unicode(class)) => class
                .ranges()
                .iter()
                .all(|r| plain(r.start().into(), r.end().into())),
            HirKind::Class(Class::Bytes(class)) => class
                .ranges()
                .iter()
                .all(|r| plain(r.start().into(), r.end().into())),
            HirKind::Repetition(repetition) => {
                stack.push(&repetition.sub);
                true
            }
            HirKind::Capture(capture) => {
                stack.push(&capture.sub);
                true
            }
            HirKind::Concat(all) | HirKind::Alternation(all) => {
                stack.extend(all.iter());
                true
            }
        };
        if !holds {
            return false;
        }
    }
    true
}

/// Whether the `regex` crate looks for a literal before it runs `pattern` alone: one
/// of a few of at least three bytes that every match starts or ends with.
pub(super) fn has_literal(pattern: &str) -> bool {
    use regex_syntax::hir::literal::{ExtractKind, Extractor, Seq};
    let Ok(hir) = regex_syntax::parse(pattern) else {
        return false;
    };
    let good = |mut seq: Seq| {
        seq.dedup();
        seq.literals()
            .is_some_and(|l| !l.is_empty() && l.len() <= 64 && l.iter().all(|l| l.len() >= 3))
    };
    let mut prefixes = Extractor::new().kind(ExtractKind::Prefix).extract(&hir);
    prefixes.optimize_for_prefix_by_preference();
    let mut suffixes = Extractor::new().kind(ExtractKind::Suffix).extract(&hir);
    suffixes.optimize_for_suffix_by_preference();
    good(prefixes) || good(suffixes)
}

/// Copies `text` into `lower`, ASCII lower-cased.
pub(super) fn lower_copy(text: &[u8], lower: &mut Vec<u8>) {
    lower.clear();
    lower.extend_from_slice(text);
    lower.make_ascii_lowercase();
}

/// What text a first pass reads.
#[derive(Debug, Clone, Copy)]
pub(super) enum FirstPassText {
    /// The joined strings of a response, each followed by a NUL byte.
    Joined,
    /// A response's canonical JSON as it is. Every built-in prefilter that matches
    /// in its joined strings matches in it too: what the prefilters look for is
    /// printable ASCII, which canonical JSON writes as it is but for `"`, `\` and
    /// tab, which follow literals and are read decoded. The keys are not apart, so
    /// the literal of a name of secrets in a key says "maybe" for `assignment`.
    Canonical { assignment: Option<usize> },
}

/// Where the last string a literal was found in ends, and whether it is a key.
#[derive(Debug, Default)]
pub(super) struct KeyEnd {
    end: usize,
    key: bool,
}

impl KeyEnd {
    /// Whether the position `at` of the canonical JSON `text`, inside a string, is
    /// in a key. Positions come in increasing order, so each string is read once.
    pub(super) fn in_key(&mut self, text: &[u8], at: usize) -> bool {
        if at < self.end {
            return self.key;
        }
        // The string ends at the first quote after `at` with an even number of
        // backslashes before it; escaped quotes are rarer than other escapes.
        let mut pos = at;
        while let Some(found) = text.get(pos..).and_then(|rest| memchr::memchr(b'"', rest)) {
            let quote = pos + found;
            let backslashes = text[..quote]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count();
            if backslashes % 2 == 0 {
                *self = KeyEnd {
                    end: quote,
                    key: text.get(quote + 1) == Some(&b':'),
                };
                return self.key;
            }
            pos = quote + 1;
        }
        *self = KeyEnd {
            end: text.len(),
            key: false,
        };
        false
    }
}

impl FirstPass {
    /// Whether [`FirstPass::builtins`] searches literals, in the lower-cased copy of
    /// the text it is given.
    pub(super) fn searches_literals(&self) -> bool {
        self.literals.is_some()
    }

    /// Runs the built-ins' checks over `text`, and `lower`, its ASCII lower-cased
    /// copy: calls `found` with each built-in whose prefilter may match, once, but
    /// for the card, with each run of digits and separators where its prefilter
    /// may match; stops when `found` returns true, and gives whether it did.
    pub(super) fn builtins(
        &self,
        text: &[u8],
        lower: &[u8],
        read: FirstPassText,
        found: &mut impl FnMut(usize, usize, usize) -> bool,
    ) -> bool {
        let mut phone_found = false;
        if self.card.is_some() || self.phone.is_some() {
            let min = if self.phone.is_some() { 11 } else { 13 };
            let hit = runs(text, min, |start, end, run| {
                if let Some(card) = self.card
                    && card_prefilter(run)
                    && found(card, start, end)
                {
                    return true;
                }
                if let Some(phone) = self.phone
                    && !phone_found
                    && phone_prefilter(run)
                {
                    phone_found = true;
                    return found(phone, start, end);
                }
                false
            });
            if hit {
                return true;
            }
        }
        if let Some(phone) = self.phone
            && !phone_found
            && any_position(text, b'+', |at| plus_phone(text, at))
            && found(phone, 0, text.len())
        {
            return true;
        }
        if let Some(email) = self.email
            && any_position(text, b'@', |at| email_at(text, at))
            && found(email, 0, text.len())
        {
            return true;
        }
        let Some(literals) = &self.literals else {
            return false;
        };
        // Every literal's every occurrence: no literal starts another, so the
        // leftmost match at each start is the only one there.
        let mut done: Vec<usize> = Vec::new();
        let mut key_end = KeyEnd::default();
        let mut from = 0;
        while let Some(m) = literals.find(lower, from) {
            from = m.start() + 1;
            for owner in self
                .owners
                .get(m.pattern().as_usize())
                .into_iter()
                .flatten()
            {
                if done.contains(&owner.detector)
                    || !owner.fold && text.get(m.range()) != Some(owner.literal.as_bytes())
                {
                    continue;
                }
                let after = Cursor {
                    bytes: text,
                    pos: m.end(),
                    escaped: matches!(read, FirstPassText::Canonical { .. }),
                };
                let holds = (owner.after)(after, owner.literal)
                    || matches!(read, FirstPassText::Canonical { assignment: Some(a) } if a == owner.detector)
                        && key_end.in_key(text, m.start());
                if !holds {
                    continue;
                }
                done.push(owner.detector);
                if found(owner.detector, 0, text.len()) {
                    return true;
                }
            }
            if from >= lower.len() {
                break;
            }
        }
        false
    }
}

impl FirstPass {
    /// The first pass of a scanner for the detectors `members` of `catalog`.
    pub(super) fn new(catalog: &Catalog, members: &[usize]) -> Result<FirstPass, String> {
        let mut first = FirstPass::default();
        let mut literals: Vec<(String, Vec<PrefilterLiteral>)> = Vec::new();
        let mut joined = Vec::new();
        for &index in members {
            let Some(builtin) = BUILTINS.get(index) else {
                if has_literal(catalog.prefilter(index)) {
                    first.user_alone.push(index);
                } else {
                    joined.push(index);
                }
                continue;
            };
            match builtin.search {
                PrefilterSearch::Literals {
                    literals: own,
                    fold,
                    after,
                } => {
                    for &literal in own {
                        let owner = PrefilterLiteral {
                            detector: index,
                            literal,
                            fold,
                            after,
                        };
                        let lower = literal.to_ascii_lowercase();
                        match literals.iter_mut().find(|(l, _)| *l == lower) {
                            Some((_, owners)) => owners.push(owner),
                            None => literals.push((lower, vec![owner])),
                        }
                    }
                }
                PrefilterSearch::Email => first.email = Some(index),
                PrefilterSearch::Card => first.card = Some(index),
                PrefilterSearch::Phone => first.phone = Some(index),
            }
        }
        if !literals.is_empty() {
            first.literals = Some(LiteralSearch::new(literals.iter().map(|(l, _)| l))?);
            first.owners = literals.into_iter().map(|(_, owners)| owners).collect();
        }
        if !joined.is_empty() {
            let regex = regex_automata::meta::Regex::builder()
                .configure(
                    regex_automata::meta::Config::new()
                        .auto_prefilter(false)
                        .nfa_size_limit(Some(SET_SIZE_LIMIT))
                        .hybrid_cache_capacity(DFA_SIZE_LIMIT),
                )
                .build_many(
                    &joined
                        .iter()
                        .map(|&i| catalog.prefilter(i))
                        .collect::<Vec<_>>(),
                )
                .map_err(|err| one_line(&err.to_string()))?;
            first.user_joined = Some((regex, joined));
        }
        Ok(first)
    }
}

/// The search of the literals of a first pass, leftmost first: Fat Teddy (16 buckets
/// of fingerprints, AVX2) where the machine has it, which on text of the literals'
/// letters (logs, prose, random text) gives a fraction of the false candidates of
/// the 8 buckets of the searcher `aho-corasick` chooses for them, and costs about a
/// fifth of its time there; that searcher elsewhere.
#[derive(Debug)]
enum LiteralSearch {
    Fat(aho_corasick::packed::Searcher),
    Chosen(aho_corasick::AhoCorasick),
}

impl LiteralSearch {
    fn new<'a>(literals: impl Iterator<Item = &'a String> + Clone) -> Result<Self, String> {
        let mut config = aho_corasick::packed::Config::new();
        config
            .match_kind(aho_corasick::packed::MatchKind::LeftmostFirst)
            .only_teddy_fat(Some(true));
        if let Some(fat) = config.builder().extend(literals.clone()).build() {
            return Ok(LiteralSearch::Fat(fat));
        }
        aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostFirst)
            .build(literals)
            .map(LiteralSearch::Chosen)
            .map_err(|err| one_line(&err.to_string()))
    }

    /// The leftmost-first match in `hay` that starts at `from` or later.
    fn find(&self, hay: &[u8], from: usize) -> Option<aho_corasick::Match> {
        let span = aho_corasick::Span::from(from..hay.len());
        match self {
            LiteralSearch::Fat(fat) => fat.find_in(hay, span),
            LiteralSearch::Chosen(chosen) => chosen.find(aho_corasick::Input::new(hay).span(span)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{USERS, text};
    use super::super::{BUILTINS, Catalog, Scanner};
    use super::{FirstPassText, PrefilterSearch, has_literal, plain_ascii};
    use proptest::prelude::*;

    /// The built-ins the first pass of `scanner` says may match in `text`.
    fn first_pass_says(scanner: &Scanner, text: &[u8]) -> Vec<usize> {
        let lower = text.to_ascii_lowercase();
        let mut said = Vec::new();
        scanner.first.builtins(
            text,
            &lower,
            FirstPassText::Joined,
            &mut |detector, start, end| {
                assert!(start <= end && end <= text.len());
                if !said.contains(&detector) {
                    said.push(detector);
                }
                false
            },
        );
        said.sort_unstable();
        said
    }

    /// A scanner for all the built-ins and one for each, and their prefilter regexes.
    struct Prefilters {
        all: Scanner,
        each: Vec<Scanner>,
        regexes: Vec<regex::bytes::Regex>,
    }

    static PREFILTERS: std::sync::LazyLock<Prefilters> = std::sync::LazyLock::new(|| {
        let catalog = Catalog::new(&[]).unwrap();
        let all: Vec<usize> = (0..BUILTINS.len()).collect();
        Prefilters {
            all: Scanner::new(&catalog, &all).unwrap(),
            each: all
                .iter()
                .map(|&i| Scanner::new(&catalog, &[i]).unwrap())
                .collect(),
            regexes: BUILTINS
                .iter()
                .map(|b| regex::bytes::Regex::new(b.prefilter).unwrap())
                .collect(),
        }
    });

    /// The first pass of a scanner for all the built-ins, and of one for each alone,
    /// says "maybe" for exactly the built-ins whose prefilter regex matches `text`.
    fn assert_first_pass_is_prefilters(text: &[u8]) {
        let prefilters = &*PREFILTERS;
        let said: Vec<usize> = (0..BUILTINS.len())
            .filter(|&i| prefilters.regexes[i].is_match(text))
            .collect();
        assert_eq!(
            first_pass_says(&prefilters.all, text),
            said,
            "{:?}",
            String::from_utf8_lossy(text)
        );
        for (i, scanner) in prefilters.each.iter().enumerate() {
            assert_eq!(
                first_pass_says(scanner, text),
                said.iter().copied().filter(|&s| s == i).collect::<Vec<_>>(),
                "{} in {:?}",
                BUILTINS[i].name,
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn first_pass_is_the_prefilters() {
        let long = "7".repeat(40);
        let texts: Vec<String> = vec![
            String::new(),
            "AKIAQ".into(),
            "AKIA".into(),
            "AKIAq".into(),
            "akiaQ".into(),
            "xA3TZ2\0".into(),
            "A3T9Z".into(),
            "A3T9z".into(),
            "A3T".into(),
            "ASIAB ABIA7 ACCA1".into(),
            "bearer ".into(),
            "BeArEr\t".into(),
            "bearer".into(),
            "bearer\0 ".into(),
            "a@b".into(),
            "a@b.cd".into(),
            "a@b.c".into(),
            "a@b-x..c.de".into(),
            "a@b_c.de".into(),
            "a@.de".into(),
            "a@b@c.de".into(),
            "a@b.c1".into(),
            "@b".into(),
            "a@".into(),
            "é@b".into(),
            "%@9".into(),
            "a@-".into(),
            "ghp_x".into(),
            "ghp_".into(),
            "ghp__".into(),
            "GHP_x".into(),
            "github_pat_".into(),
            "GITHUB_PAT_".into(),
            "glpat-".into(),
            "GLPAT-".into(),
            "AIza-".into(),
            "AIza".into(),
            "aiza0".into(),
            "-----BEGIN".into(),
            "----BEGIN".into(),
            "-----begin".into(),
            "xoxb-".into(),
            "xoxc-".into(),
            "XOXB-".into(),
            "hooks.slack.com/services/".into(),
            "hooks.slack.com/workflows/".into(),
            "hooks.slack.com/service/".into(),
            "HOOKS.SLACK.COM/SERVICES/".into(),
            "api_key = 'abcdefghijklmnop'".into(),
            "API-KEY=abcdefghijklmnop".into(),
            "Client_Secret_abcdefghijklmnop: \"0123456789abcdef".into(),
            "token_abcdefghijklmnopq: 0123456789abcdef".into(),
            "token_abcdefghijklmnop: 0123456789abcdef".into(),
            "tokentoken:=0123456789abcdef".into(),
            "token:=0123456789abcde".into(),
            "token:=>0123456789abcdef".into(),
            "token=>0123456789abcdef".into(),
            "token=>\t\"0123456789abcdef".into(),
            "token =  0123456789abcde".into(),
            "token \" = x123456789abcdef".into(),
            "secretoken: 0123456789abcdef".into(),
            "passwd:0123456789abcdef".into(),
            "PassWord:0123456789abcdef".into(),
            "pwd\t=\t0123456789abcdef".into(),
            "credential=0123456789abcdef".into(),
            "accesskey=0123456789abcdef".into(),
            "access key=0123456789abcdef".into(),
            "apikey=0123456789abcde\0f".into(),
            "4111 1111 1111 1".into(),
            "4111 1111 1111 ".into(),
            "4111  1111 1111 1".into(),
            "4111-1111-1111-1".into(),
            "4111-1111 1111\x001".into(),
            "-4111111111111".into(),
            "x411111111111".into(),
            "123456789012 3".into(),
            "1 2 3 4 5 6 7 8 9 0 1 2 3".into(),
            "1 2 3 4 5 6 7 8 9 0 1 2 .3".into(),
            long.clone(),
            format!("{long} x {long}"),
            "+1".into(),
            "+1234567".into(),
            "+12345678".into(),
            "+1 (234) 56-78".into(),
            "+1 (234) 56x78".into(),
            "+1+2345678".into(),
            "+0".into(),
            "a+".into(),
            "(415) 555-2671".into(),
            "415) 555-2671".into(),
            "415555-2671".into(),
            "415)555.267".into(),
            "115 555 2671".into(),
            "415 155 2671".into(),
            "415 555 267 1".into(),
            "415)).555-2671".into(),
            "4155552671".into(),
            "x415.555.2671x".into(),
            "é415-555-2671é".into(),
            "2024-06-08T21:00:54.589Z 1234567890123".into(),
            "                                 ".into(),
            " 415 555 2671 ".into(),
            "\x00415 555 2671\x00".into(),
        ];
        for text in &texts {
            assert_first_pass_is_prefilters(text.as_bytes());
            let padded = format!("{} {text} {}", "z".repeat(30), "y".repeat(30));
            assert_first_pass_is_prefilters(padded.as_bytes());
        }
        // Runs of digits at every offset of the blocks digits are counted in, in
        // long runs of separators and among other digits.
        for text in [
            "4111 1111 1111 1",
            "(415) 555-2671",
            "415 555 2671",
            "1 2 3 4 5 6 7 8 9 0 1 2 3",
            "12 345 67 8 9012 3",
            "+44 20 7946 0958",
            "+1 (415) 555.2671",
            "+1 (41) 5.-5",
            "ana@mail.example.org",
        ] {
            for pad in 0..50 {
                for (left, right) in [("x", "x"), (" ", " "), ("1 ", " 2"), ("-", ".")] {
                    let padded = format!("{}{text}{}", left.repeat(pad), right.repeat(50 - pad));
                    assert_first_pass_is_prefilters(padded.as_bytes());
                }
            }
        }
        assert_first_pass_is_prefilters(b"\xff4111 1111 1111 1\xfe");
    }

    #[test]
    fn literals_do_not_start_one_another() {
        let mut words = Vec::new();
        for builtin in BUILTINS {
            if let PrefilterSearch::Literals { literals, .. } = builtin.search {
                words.extend(literals.iter().map(|w| w.to_ascii_lowercase()));
            }
        }
        for a in &words {
            for b in &words {
                assert!(a == b || !b.starts_with(a.as_str()), "{a} starts {b}");
            }
        }
    }

    #[test]
    fn the_literals_of_user_patterns_are_found() {
        assert!(has_literal("TICKET-[0-9]{6}"));
        assert!(has_literal(r"[a-z0-9-]+\.corp\.internal"));
        assert!(!has_literal("[0-9]{3}z"));
        assert!(!has_literal("(?i)x"));
    }

    #[test]
    fn only_plain_ascii_user_patterns_allow_the_canonical_first_pass() {
        for plain in [
            "TICKET-[0-9]{6}",
            r"[a-z0-9-]+\.corp\.internal",
            "a|b*",
            "(x)(?:y)?",
        ] {
            assert!(plain_ascii(plain), "{plain}");
        }
        for not in [
            r"\bword",
            "^x",
            "x$",
            "(?i)k",
            "[^a]",
            ".",
            "a\"",
            r"a\\",
            "\t",
            "é",
            "(?-u:[\\x00-\\x7f])",
            "(",
        ] {
            assert!(!plain_ascii(not), "{not}");
        }
        assert!(USERS.1.canonical_first);
        let catalog = Catalog::new(&[("word".to_owned(), r"\bsecretword".to_owned())]).unwrap();
        let all: Vec<usize> = (0..BUILTINS.len() + 1).collect();
        assert!(!Scanner::new(&catalog, &all).unwrap().canonical_first);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn first_pass_matches_the_prefilter_regexes(text in text()) {
            assert_first_pass_is_prefilters(text.as_bytes());
        }
    }
}
