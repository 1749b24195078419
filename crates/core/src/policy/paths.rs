//! Path rules: which path arguments a tool may be given.
//!
//! A path is normalised before it is matched: `/` is the only separator, empty and
//! `.` components are dropped and `..` removes the component before it, so
//! `docs/../.env` is `.env` and `a/b/../c` is `a/c`. A relative path whose `..`
//! would climb above its start (`../x`, `docs/../../x`) *escapes its root* and is
//! reported as such, whatever the globs. An absolute path stays absolute (`/..` is
//! `/`, as on POSIX) unless the rule names a `root`: then an absolute path inside the
//! root is made relative to it, and one outside is *outside its root*. A path starting
//! with `~` (`~`, `~/x`, `~user/x`) keeps that first component as written, is never
//! expanded, and escapes when `..` climbs above it.
//!
//! A path can mean something else to the tool that receives it than it does here,
//! so a rule judges each reading it may have, and a path is a violation when any
//! reading is: with `\` as an ordinary character and as a separator (as Windows reads
//! it), and as written and percent-decoded (as a tool that takes URL paths reads
//! it). A rule's `backslash` (`"both"`, `"literal"`, `"separator"`) and `percent`
//! (`"both"`, `"literal"`, `"decoded"`) choose the readings; `case_insensitive`
//! matches globs and the root without regard to case, as on a case-insensitive file
//! system. A path holding a NUL character, as written or decoded, is always a
//! violation: the tools that receive it end it there.
//!
//! Where the calls ran ([`PathContext`]) gives a path the meaning the agent's tool
//! gives it. A path is also judged with its surrounding whitespace trimmed (the
//! agents' file tools trim it). With the session's home directory known, `~`, `~/x`,
//! `$HOME/x` and `${HOME}/x` are also judged expanded. Under a rule with a `root`, a
//! relative path is placed in the session's working directory when it is known, and
//! a relative `root` in the directory the session started in; a path that cannot be
//! placed (a `~` path without a known home, another user's `~bob`, an absolute path
//! against a relative root with no known start) is a violation: the rule cannot
//! judge it, so it fails closed.

use std::borrow::Cow;

use super::{Checking, one_line};
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// A normalised path, or why there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Normalised {
    /// The normalised path: relative (`.` for the start itself), absolute (`/...`)
    /// or home-relative (`~...`).
    Path(String),
    /// A `..` climbs above the start of a relative or home-relative path.
    Escapes,
}

/// Normalises `raw` (see the module documentation), without a root.
pub(crate) fn normalise(raw: &str) -> Normalised {
    let (prefix, rest) = if let Some(rest) = raw.strip_prefix('/') {
        ("/", rest)
    } else if raw.starts_with('~') {
        match raw.find('/') {
            Some(at) => (&raw[..at], &raw[at + 1..]),
            None => (raw, ""),
        }
    } else {
        ("", raw)
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() && prefix != "/" {
                    return Normalised::Escapes;
                }
            }
            part => parts.push(part),
        }
    }
    let joined = parts.join("/");
    Normalised::Path(match prefix {
        "" if joined.is_empty() => ".".to_owned(),
        "" => joined,
        "/" => format!("/{joined}"),
        home if joined.is_empty() => home.to_owned(),
        home => format!("{home}/{joined}"),
    })
}

/// What a path rule says about one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PathVerdict {
    /// Allowed.
    Allowed,
    /// A reading of the path holds a NUL character.
    Nul,
    /// A `..` climbs above the start of the path.
    Escapes,
    /// An absolute path outside the rule's root: the normalised path and the root.
    OutsideRoot(String, String),
    /// The path cannot be placed where the tool would read it: the path as judged,
    /// and why.
    Unplaced(String, &'static str),
    /// The normalised path and the first deny glob it matches.
    Denied(String, String),
    /// The normalised path, which matches no allow glob.
    NotAllowed(String),
}

/// A compiled list of globs, with their text for messages. Each glob is checked when
/// the list is made; the automaton matching them together is built then for a long
/// list, and when it is first used for a short one, so that a process judging one
/// call (a guard's hook event) builds only the lists of that call's tool.
#[derive(Debug)]
pub(crate) struct Globs {
    /// The globs, when they were checked as the policy was read (else empty).
    globs: Vec<Glob>,
    /// `Err`: the list could not be built; it then matches every path (deny) and
    /// allows none (allow): fail closed.
    set: std::sync::OnceLock<Result<GlobSet, String>>,
    texts: Vec<String>,
    case_insensitive: bool,
}

/// The most globs with wildcards in a list built when it is first used.
const LAZY_WILDCARD_GLOBS: usize = 64;

/// What a list that cannot be built names as the glob a path matches.
const UNBUILT: &str = "<a glob list that could not be built>";

impl Globs {
    /// Compiles `globs`: `*` and `?` never match `/`, `**` matches any number of
    /// components, `[...]` are classes, `{a,b}` alternatives and `\` escapes;
    /// matching is case-sensitive. The error names the first invalid glob.
    pub(crate) fn new(globs: &[String]) -> Result<Globs, (usize, String)> {
        Globs::with_case(globs, false, Checking::Now)
    }

    /// [`Globs::new`], matching without regard to case when `case_insensitive`, and
    /// each glob checked now unless `checking` says the list was before.
    pub(crate) fn with_case(
        globs: &[String],
        case_insensitive: bool,
        checking: Checking,
    ) -> Result<Globs, (usize, String)> {
        let parsed = match checking {
            Checking::Now => globs
                .iter()
                .enumerate()
                .map(|(i, text)| glob(text, case_insensitive).map_err(|message| (i, message)))
                .collect::<Result<Vec<Glob>, _>>()?,
            Checking::Before => Vec::new(),
        };
        let list = Globs {
            globs: parsed,
            set: std::sync::OnceLock::new(),
            texts: globs.to_vec(),
            case_insensitive,
        };
        if globs.iter().filter(|g| has_wildcards(g)).count() > LAZY_WILDCARD_GLOBS {
            // A long list is built now, so that one too large is an error of the
            // policy.
            if let Err(err) = list.built() {
                return Err((0, err.clone()));
            }
        }
        Ok(list)
    }

    fn built(&self) -> &Result<GlobSet, String> {
        self.set.get_or_init(|| {
            let mut builder = GlobSetBuilder::new();
            if self.globs.len() == self.texts.len() {
                for glob in &self.globs {
                    builder.add(glob.clone());
                }
            } else {
                for text in &self.texts {
                    builder.add(glob(text, self.case_insensitive)?);
                }
            }
            builder.build().map_err(|err| one_line(&err.to_string()))
        })
    }

    /// A list of `globs` that could not be built, for `why`: it matches every path
    /// and allows none (fail closed).
    pub(crate) fn unbuilt(globs: &[String], why: String) -> Globs {
        let set = std::sync::OnceLock::new();
        let _ = set.set(Err(why));
        Globs {
            globs: Vec::new(),
            set,
            texts: globs.to_vec(),
            case_insensitive: false,
        }
    }

    /// The globs as written.
    pub(crate) fn texts(&self) -> &[String] {
        &self.texts
    }

    /// The index of the first glob (in the order given) that matches `path`; `Err`
    /// when the list could not be built.
    pub(crate) fn first_index(&self, path: &str) -> Result<Option<usize>, ()> {
        if self.texts.is_empty() {
            return Ok(None);
        }
        let set = self.built().as_ref().map_err(|_| ())?;
        if !set.is_match(path) {
            return Ok(None);
        }
        Ok(set.matches(path).first().copied())
    }

    /// Whether the list could not be built (it then allows nothing).
    pub(crate) fn broken(&self) -> bool {
        !self.texts.is_empty() && self.built().is_err()
    }

    /// The first glob (in the order given) that matches `path`; every path matches
    /// a list that could not be built.
    pub(crate) fn first_match(&self, path: &str) -> Option<&str> {
        if self.texts.is_empty() {
            return None;
        }
        let set = match self.built() {
            Ok(set) => set,
            Err(_) => return Some(UNBUILT),
        };
        // Most paths match no glob, and telling so is cheaper than listing matches.
        if !set.is_match(path) {
            return None;
        }
        set.matches(path).first().map(|&i| self.texts[i].as_str())
    }

    /// [`Globs::first_match`], unless a glob of `except` matches `path` too (a
    /// policy's `deny_except`, `protect_except`); an `except` list that could not be
    /// built takes nothing out: fail closed.
    pub(crate) fn first_match_unless(&self, path: &str, except: Option<&Globs>) -> Option<&str> {
        let glob = self.first_match(path)?;
        (!excepts(except, path)).then_some(glob)
    }
}

/// Whether the list `except` takes `path` out of another; one that could not be built
/// takes nothing out: fail closed.
pub(crate) fn excepts(except: Option<&Globs>, path: &str) -> bool {
    except.is_some_and(|except| !except.broken() && except.first_match(path).is_some())
}

/// The most globs a list may hold.
pub(crate) const MAX_GLOBS: usize = 100_000;

/// The most globs with wildcards a list may hold: those other than a literal path,
/// optionally after `**/` or before `/**`, which are matched by hashing; the others
/// are matched together by one automaton whose cost grows with their number.
pub(crate) const MAX_WILDCARD_GLOBS: usize = 1_000;

/// The most texts [`alternatives`] makes of one glob.
pub(crate) const MAX_ALTERNATIVES: usize = 1_024;

/// The most bytes of texts [`alternatives`] makes of one glob, or of one group in it.
const MAX_ALTERNATIVE_BYTES: usize = 256 * 1024;

/// The texts a glob's alternatives (`{a,b}`, nested too) stand for, each without
/// them: `{k/a/b,k}/id_rsa` is `k/a/b/id_rsa` and `k/id_rsa`. A `{`, `,` or `}`
/// escaped by `\` or inside a class (`[{]`) is a character; a `{` never closed is
/// one too. More than [`MAX_ALTERNATIVES`] texts (or 256 KiB of them), or more than
/// 32 groups nested or in a row, is an error.
pub(crate) fn alternatives(text: &str) -> Result<Vec<String>, String> {
    let too_many = || {
        format!("its alternatives make more than {MAX_ALTERNATIVES} globs, 256 KiB or 32 groups")
    };
    expand_alternatives(text, 0).ok_or_else(too_many)
}

fn expand_alternatives(text: &str, depth: usize) -> Option<Vec<String>> {
    if depth > 32 {
        return None;
    }
    let Some((open, close, commas)) = first_group(text) else {
        return Some(vec![text.to_owned()]);
    };
    let (prefix, rest) = (&text[..open], &text[close + 1..]);
    let rests = expand_alternatives(rest, depth + 1)?;
    let (mut found, mut bytes) = (Vec::new(), 0);
    let mut from = open + 1;
    for end in commas.into_iter().chain([close]) {
        for option in expand_alternatives(&text[from..end], depth + 1)? {
            for rest in &rests {
                let one = format!("{prefix}{option}{rest}");
                bytes += one.len();
                if found.len() == MAX_ALTERNATIVES || bytes > MAX_ALTERNATIVE_BYTES {
                    return None;
                }
                found.push(one);
            }
        }
        from = end + 1;
    }
    Some(found)
}

/// Where the first group of alternatives of `text` opens and closes, and the commas
/// between its alternatives, skipping escapes and classes.
fn first_group(text: &str) -> Option<(usize, usize, Vec<usize>)> {
    let bytes = text.as_bytes();
    let (mut at, mut open, mut depth, mut commas) = (0, None, 0usize, Vec::new());
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 1,
            b'[' => {
                // A class ends at the first `]` after its first character.
                let start = at + 1 + usize::from(matches!(bytes.get(at + 1), Some(b'!' | b'^')));
                if let Some(end) = bytes
                    .get(start + 1..)
                    .and_then(|b| b.iter().position(|&c| c == b']'))
                {
                    at = start + 1 + end;
                }
            }
            b'{' => {
                if depth == 0 {
                    open = Some(at);
                }
                depth += 1;
            }
            b',' if depth == 1 => commas.push(at),
            b'}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return open.map(|open| (open, at, commas));
                }
            }
            _ => {}
        }
        at += 1;
    }
    // Never closed: no group (the glob itself is refused as written).
    None
}

/// The characters that make a glob's text (or a part of it) a pattern.
pub(crate) const WILD: [char; 7] = ['*', '?', '[', ']', '{', '}', '\\'];

/// Whether matching `glob` costs more than a hash lookup: it has a wildcard, a
/// class, alternatives or an escape other than a leading `**/` or trailing `/**`.
fn has_wildcards(glob: &str) -> bool {
    let glob = glob.strip_prefix("**/").unwrap_or(glob);
    let glob = glob.strip_suffix("/**").unwrap_or(glob);
    glob.contains(WILD)
}

/// Refuses a glob list too large to match in bounded time per path.
pub(crate) fn check_sizes(globs: &[String]) -> Result<(), String> {
    if globs.len() > MAX_GLOBS {
        return Err(format!("more than {MAX_GLOBS} globs"));
    }
    let wild = globs.iter().filter(|g| has_wildcards(g)).count();
    if wild > MAX_WILDCARD_GLOBS {
        return Err(format!(
            "{wild} globs with wildcards, more than {MAX_WILDCARD_GLOBS} (literal paths, after \"**/\" or before \"/**\", may be up to {MAX_GLOBS})"
        ));
    }
    Ok(())
}

/// `path` relative to `root` (both normalised and absolute), if it is inside it:
/// compared component by component, without regard to case when `fold`.
pub(crate) fn inside(path: &str, root: &str, fold: bool) -> Option<String> {
    let mut rest = path.strip_prefix('/')?;
    for want in root.split('/').filter(|c| !c.is_empty()) {
        let (component, after) = rest.split_once('/').unwrap_or((rest, ""));
        let same = if fold {
            component.to_lowercase() == want.to_lowercase()
        } else {
            component == want
        };
        if component.is_empty() || !same {
            return None;
        }
        rest = after;
    }
    Some(if rest.is_empty() {
        ".".to_owned()
    } else {
        rest.to_owned()
    })
}

pub(crate) fn glob(text: &str, case_insensitive: bool) -> Result<Glob, String> {
    GlobBuilder::new(text)
        .literal_separator(true)
        .backslash_escape(true)
        .case_insensitive(case_insensitive)
        .build()
        .map_err(|err| one_line(&err.kind().to_string()))
}

/// Which readings of a character a rule judges: as written, as the other tool reads
/// it, or both (a path is a violation when either reading is).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Readings {
    /// Both readings.
    #[default]
    Both,
    /// Only as written: `\` an ordinary character, `%` an ordinary character.
    Literal,
    /// Only as the other tool reads it: `\` a separator, percent-escapes decoded.
    Other,
}

/// `text` with every `%XX` escape decoded (bytes that are not UTF-8 replaced).
fn percent_decoded(text: &str) -> String {
    String::from_utf8_lossy(&crate::percent::percent_decode(text)).into_owned()
}

/// The readings of `raw` a rule judges, in order: percent-escapes (as written, then
/// decoded), each with `\` as written, then as a separator. A reading equal to one
/// before it is left out.
fn readings(raw: &str, backslash: Readings, percent: Readings) -> Vec<Cow<'_, str>> {
    let mut by_percent: Vec<Cow<'_, str>> = Vec::with_capacity(2);
    if percent != Readings::Other || !raw.contains('%') {
        by_percent.push(Cow::Borrowed(raw));
    }
    if percent != Readings::Literal && raw.contains('%') {
        let decoded = percent_decoded(raw);
        if decoded != raw || by_percent.is_empty() {
            by_percent.push(Cow::Owned(decoded));
        }
    }
    let mut out: Vec<Cow<'_, str>> = Vec::with_capacity(4);
    for text in by_percent {
        let has = text.contains('\\');
        if backslash != Readings::Other || !has {
            out.push(text.clone());
        }
        if backslash != Readings::Literal && has {
            out.push(Cow::Owned(text.replace('\\', "/")));
        }
    }
    out
}

/// Where a session's calls ran: what a path means to the agent's tools. Every field
/// is optional; what is not known is not assumed (see the module documentation).
///
/// ```
/// use toolreplay_core::PathContext;
///
/// let context = PathContext {
///     cwd: Some("/home/dev/project/src".to_owned()),
///     home: Some("/home/dev".to_owned()),
///     project: Some("/home/dev/project".to_owned()),
/// };
/// assert!(!context.is_empty());
/// assert!(PathContext::default().is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PathContext {
    /// The working directory of the calls: relative paths are read from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The home directory: `~` and `$HOME` are read as it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home: Option<String>,
    /// The directory the session started in: a relative `root` is read from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
}

impl PathContext {
    /// Whether nothing is known.
    pub fn is_empty(&self) -> bool {
        self.cwd.is_none() && self.home.is_none() && self.project.is_none()
    }

    /// The directory `dir` (one of the fields), when it is absolute: normalised.
    fn absolute(dir: Option<&str>) -> Option<String> {
        match normalise(dir?) {
            Normalised::Path(path) if path.starts_with('/') => Some(path),
            _ => None,
        }
    }
}

/// A path rule: optional root, optional allow globs, deny globs, and the readings
/// of a path it judges.
#[derive(Debug)]
pub(crate) struct PathRule {
    /// The normalised root, if any: absolute, or relative to the directory the
    /// session started in.
    pub root: Option<String>,
    /// Globs of which a path must match one, if given.
    pub allow: Option<Globs>,
    /// Globs of which a path must match none; they win over `allow`.
    pub deny: Globs,
    /// Globs that take a path out of `deny` (`deny_except`): a path matching one of
    /// them is judged as though no deny glob matched it. A list that could not be
    /// built takes nothing out (fail closed).
    pub deny_except: Option<Globs>,
    /// The readings of `\`: as an ordinary character, as a separator.
    pub backslash: Readings,
    /// The readings of `%XX`: as written, decoded.
    pub percent: Readings,
    /// Whether the root and globs match without regard to case (the globs are
    /// compiled so).
    pub case_insensitive: bool,
}

/// Why a path cannot be placed.
const NO_HOME: &str = "the session's home directory is not known";
const OTHER_HOME: &str = "it names another user's home directory";
const NO_START: &str =
    "the rule's root is relative and the directory the session started in is not known";

/// The root a rule judges by in `context`: `Ok(None)` without a root, `Err` for a
/// relative root whose start is not known (the relative root itself then).
fn placed_root<'r>(
    root: Option<&'r str>,
    context: &PathContext,
) -> Result<Option<Cow<'r, str>>, &'r str> {
    match root {
        None => Ok(None),
        Some(root) if root.starts_with('/') => Ok(Some(Cow::Borrowed(root))),
        Some(root) => match PathContext::absolute(context.project.as_deref()) {
            Some(start) => Ok(Some(Cow::Owned(joined(&start, root)))),
            None => Err(root),
        },
    }
}

/// `path` (relative, normalised) read from the absolute directory `dir`.
fn joined(dir: &str, path: &str) -> String {
    let joined = if path == "." {
        dir.to_owned()
    } else {
        format!("{}/{path}", dir.trim_end_matches('/'))
    };
    match normalise(&joined) {
        Normalised::Path(path) => path,
        // An absolute path never climbs above `/`.
        Normalised::Escapes => "/".to_owned(),
    }
}

/// `text` with a leading `~`, `$HOME` or `${HOME}` read as `home`, when it has one.
fn home_expanded(text: &str, home: &str) -> Option<String> {
    let rest = ["${HOME}", "$HOME", "~"]
        .iter()
        .find_map(|prefix| text.strip_prefix(prefix))?;
    (rest.is_empty() || rest.starts_with('/')).then(|| format!("{home}{rest}"))
}

/// The texts a path `base` is judged as in `context`: as written, trimmed, and each
/// with its home expanded; without repeats.
fn placements(base: &str, home: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = vec![base.to_owned()];
    let trimmed = base.trim();
    if trimmed != base {
        out.push(trimmed.to_owned());
    }
    if let Some(home) = home {
        for i in 0..out.len() {
            if let Some(expanded) = home_expanded(&out[i], home)
                && !out.contains(&expanded)
            {
                out.push(expanded);
            }
        }
    }
    out
}

impl PathRule {
    /// The verdict on the path argument `raw`, where the calls ran as `context` says:
    /// the gravest violation among its readings (see the module documentation; a
    /// NUL, then an escape, a path that cannot be placed, a path outside the root, a
    /// deny glob, no allow glob; the first reading of equal ones), or allowed.
    pub(crate) fn check(&self, raw: &str, context: &PathContext) -> PathVerdict {
        let rank = |verdict: &PathVerdict| match verdict {
            PathVerdict::Allowed => 0,
            PathVerdict::NotAllowed(_) => 1,
            PathVerdict::Denied(..) => 2,
            PathVerdict::OutsideRoot(..) => 3,
            PathVerdict::Unplaced(..) => 4,
            PathVerdict::Escapes => 5,
            PathVerdict::Nul => 6,
        };
        let home = PathContext::absolute(context.home.as_deref());
        let cwd = PathContext::absolute(context.cwd.as_deref());
        let root = placed_root(self.root.as_deref(), context);
        let mut worst = PathVerdict::Allowed;
        for reading in readings(raw, self.backslash, self.percent) {
            for text in placements(&reading, home.as_deref()) {
                let verdict = if text.contains('\0') {
                    PathVerdict::Nul
                } else {
                    self.check_reading(&text, &root, cwd.as_deref(), home.is_some())
                };
                if rank(&verdict) > rank(&worst) {
                    worst = verdict;
                }
            }
        }
        worst
    }

    /// The verdict on one reading of a path, with the rule's root placed (or the
    /// relative root that cannot be), the absolute working directory and whether the
    /// home directory is known (a `~` path was then also judged expanded).
    fn check_reading(
        &self,
        raw: &str,
        root: &Result<Option<Cow<'_, str>>, &str>,
        cwd: Option<&str>,
        home_known: bool,
    ) -> PathVerdict {
        let under_root = !matches!(root, Ok(None));
        let mut path = match normalise(raw) {
            Normalised::Escapes if !(under_root && cwd.is_some()) => return PathVerdict::Escapes,
            Normalised::Escapes => String::new(),
            Normalised::Path(path) => path,
        };
        if under_root && raw.starts_with('~') {
            // Under a root, a home-relative path is placed by its home: known, it
            // was judged expanded, and this is the name as a tool that does not
            // expand it reads it.
            let own = raw == "~" || raw.starts_with("~/");
            if !own {
                return PathVerdict::Unplaced(raw.to_owned(), OTHER_HOME);
            }
            if !home_known {
                return PathVerdict::Unplaced(raw.to_owned(), NO_HOME);
            }
        }
        if under_root
            && !path.starts_with('/')
            && let Some(cwd) = cwd
        {
            // A relative path is read from the working directory.
            path = match normalise(&format!("{cwd}/{raw}")) {
                Normalised::Path(path) => path,
                Normalised::Escapes => "/".to_owned(),
            };
        }
        let path = match root {
            Ok(Some(root)) if path.starts_with('/') => {
                match inside(&path, root, self.case_insensitive) {
                    Some(inside) => inside,
                    None => return PathVerdict::OutsideRoot(path, root.to_string()),
                }
            }
            Err(_) if path.starts_with('/') => {
                return PathVerdict::Unplaced(raw.to_owned(), NO_START);
            }
            _ => path,
        };
        if let Some(glob) = self
            .deny
            .first_match_unless(&path, self.deny_except.as_ref())
        {
            return PathVerdict::Denied(path, glob.to_owned());
        }
        match &self.allow {
            Some(allow) if allow.broken() || allow.first_match(&path).is_none() => {
                PathVerdict::NotAllowed(path)
            }
            _ => PathVerdict::Allowed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Globs, Normalised, PathContext, PathRule, PathVerdict, Readings, normalise};

    fn none() -> PathContext {
        PathContext::default()
    }

    fn path(text: &str) -> Normalised {
        Normalised::Path(text.to_owned())
    }

    #[test]
    fn paths_are_normalised() {
        assert_eq!(normalise("docs/../.env"), path(".env"));
        assert_eq!(normalise("a/b/../c"), path("a/c"));
        assert_eq!(normalise("./a//b/./"), path("a/b"));
        assert_eq!(normalise("docs/..foo"), path("docs/..foo"));
        assert_eq!(normalise(""), path("."));
        assert_eq!(normalise("a/.."), path("."));
        assert_eq!(normalise("/etc/../../passwd"), path("/passwd"));
        assert_eq!(normalise("/"), path("/"));
        assert_eq!(normalise("~/.ssh/./id_rsa"), path("~/.ssh/id_rsa"));
        assert_eq!(normalise("~"), path("~"));
        assert_eq!(normalise("~bob/x/.."), path("~bob"));
        assert_eq!(normalise("a\\..\\b"), path("a\\..\\b"));
    }

    #[test]
    fn climbing_above_the_start_escapes() {
        assert_eq!(normalise(".."), Normalised::Escapes);
        assert_eq!(normalise("docs/../../x"), Normalised::Escapes);
        assert_eq!(normalise("~/../root"), Normalised::Escapes);
    }

    fn globs(list: &[&str]) -> Globs {
        Globs::new(&list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn roots_deny_and_allow() {
        let rule = PathRule {
            root: Some("/work/project".to_owned()),
            allow: Some(globs(&["docs/**", "*.md"])),
            deny: globs(&["**/.env", "**/*.pem"]),
            deny_except: None,
            backslash: Readings::Literal,
            percent: Readings::Literal,
            case_insensitive: false,
        };
        assert_eq!(
            rule.check("/work/project/docs/a.md", &none()),
            PathVerdict::Allowed
        );
        assert_eq!(rule.check("README.md", &none()), PathVerdict::Allowed);
        assert_eq!(
            rule.check("src/x/README.md", &none()),
            PathVerdict::NotAllowed("src/x/README.md".to_owned())
        );
        assert_eq!(
            rule.check("docs/../.env", &none()),
            PathVerdict::Denied(".env".to_owned(), "**/.env".to_owned())
        );
        assert_eq!(
            rule.check("/work/projectx/a", &none()),
            PathVerdict::OutsideRoot("/work/projectx/a".to_owned(), "/work/project".to_owned())
        );
        assert_eq!(rule.check("../x", &none()), PathVerdict::Escapes);
        assert_eq!(
            rule.check("/work/project", &none()),
            PathVerdict::NotAllowed(".".to_owned())
        );
    }

    #[test]
    fn deny_except_takes_a_path_out_of_deny() {
        let rule = PathRule {
            root: Some("/p".to_owned()),
            allow: None,
            deny: globs(&["**/.env", "**/.env.*"]),
            deny_except: Some(globs(&["**/.env.{example,sample,template,dist}"])),
            backslash: Readings::Both,
            percent: Readings::Both,
            case_insensitive: false,
        };
        let denied = |path: &str, glob: &str| PathVerdict::Denied(path.to_owned(), glob.to_owned());
        for (path, verdict) in [
            (".env", denied(".env", "**/.env")),
            ("app/.env.local", denied("app/.env.local", "**/.env.*")),
            ("/p/.env.production", denied(".env.production", "**/.env.*")),
            (
                ".env.example.local",
                denied(".env.example.local", "**/.env.*"),
            ),
            // Each reading is judged: decoded, `%2e` makes `..`.
            (
                ".env.example/..%2F.env.local",
                denied(".env.local", "**/.env.*"),
            ),
            (".env.example", PathVerdict::Allowed),
            ("/p/app/.env.sample", PathVerdict::Allowed),
            ("docs/.env.template", PathVerdict::Allowed),
            (".env.dist", PathVerdict::Allowed),
        ] {
            assert_eq!(rule.check(path, &none()), verdict, "{path}");
        }
    }

    #[test]
    fn alternatives_are_each_text_a_glob_stands_for() {
        let of = |text: &str| super::alternatives(text).unwrap();
        assert_eq!(of("a/b"), ["a/b"]);
        assert_eq!(of("{k/a/b,k}/id_rsa"), ["k/a/b/id_rsa", "k/id_rsa"]);
        assert_eq!(of("{a,b}/{c,d}"), ["a/c", "a/d", "b/c", "b/d"]);
        assert_eq!(of("x/{a,{b,c}/d}/e"), ["x/a/e", "x/b/d/e", "x/c/d/e"]);
        assert_eq!(of("{,.}env"), ["env", ".env"]);
        // Escaped, in a class or never closed: characters.
        assert_eq!(of("a\\{b,c}"), ["a\\{b,c}"]);
        assert_eq!(of("[{,]x{y,z}"), ["[{,]xy", "[{,]xz"]);
        assert_eq!(of("[!}]{y,z}"), ["[!}]y", "[!}]z"]);
        assert_eq!(of("[]{]{y,z}"), ["[]{]y", "[]{]z"]);
        assert_eq!(of("{a,b"), ["{a,b"]);
        // Bounded: 1024 texts, 32 groups.
        assert_eq!(
            super::alternatives(&"{a,b}".repeat(10)).unwrap().len(),
            1024
        );
        for text in [
            "{a,b}".repeat(11),
            "{a}".repeat(33),
            "{".repeat(40) + &"}".repeat(40),
        ] {
            assert_eq!(
                super::alternatives(&text).unwrap_err(),
                "its alternatives make more than 1024 globs, 256 KiB or 32 groups"
            );
        }
        assert_eq!(of(&"{a}".repeat(32)), ["a".repeat(32)]);
        // 512 texts of 600 bytes: more than 256 KiB.
        let long = "{a,b}".repeat(9) + &"x".repeat(600);
        assert!(super::alternatives(&long).is_err());
        assert_eq!(
            super::alternatives(&long[..long.len() - 200])
                .unwrap()
                .len(),
            512
        );
    }

    #[test]
    fn bad_globs_are_named() {
        let err = Globs::new(&["ok/*".to_owned(), "a[".to_owned()]).unwrap_err();
        assert_eq!(err.0, 1);
    }

    fn rule(backslash: Readings, percent: Readings, case_insensitive: bool) -> PathRule {
        let list = |l: &[&str]| {
            Globs::with_case(
                &l.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(),
                case_insensitive,
                super::Checking::Now,
            )
            .unwrap()
        };
        PathRule {
            root: Some("/work/Project".to_owned()),
            allow: Some(list(&["docs/**", "*.md"])),
            deny: list(&["**/.env"]),
            deny_except: None,
            backslash,
            percent,
            case_insensitive,
        }
    }

    /// A path that means something else to the tool that receives it is judged in
    /// each of its readings.
    #[test]
    fn every_reading_of_a_path_is_judged() {
        let default = rule(Readings::Both, Readings::Both, false);
        let denied = |p: &str| PathVerdict::Denied(p.to_owned(), "**/.env".to_owned());
        assert_eq!(
            default.check("..\\..\\secret.md", &none()),
            PathVerdict::Escapes
        );
        // The gravest violation among the readings is named: a deny glob over no
        // allow glob.
        assert_eq!(default.check("docs\\..\\.env", &none()), denied(".env"));
        assert_eq!(default.check("docs\\a.md", &none()), PathVerdict::Allowed);
        assert_eq!(
            default.check("docs\\a.txt", &none()),
            PathVerdict::NotAllowed("docs\\a.txt".to_owned())
        );
        assert_eq!(
            default.check("%2e%2e/secret.md", &none()),
            PathVerdict::Escapes
        );
        assert_eq!(default.check("docs/%2eenv", &none()), denied("docs/.env"));
        assert_eq!(
            default.check("%2E%2E%5csecret.md", &none()),
            PathVerdict::Escapes
        );
        assert_eq!(
            default.check("docs/100%25.md", &none()),
            PathVerdict::Allowed
        );
        assert_eq!(default.check("docs/a\0.md", &none()), PathVerdict::Nul);
        assert_eq!(default.check("docs/a%00.md", &none()), PathVerdict::Nul);
        assert_eq!(default.check("docs/.ENV", &none()), PathVerdict::Allowed);
        // Chosen readings.
        let literal = rule(Readings::Literal, Readings::Literal, false);
        assert_eq!(
            literal.check("..\\..\\secret.md", &none()),
            PathVerdict::Allowed
        );
        assert_eq!(
            literal.check("%2e%2e/secret.md", &none()),
            PathVerdict::NotAllowed("%2e%2e/secret.md".to_owned())
        );
        assert_eq!(literal.check("a\0.md", &none()), PathVerdict::Nul);
        let windows = rule(Readings::Other, Readings::Other, true);
        assert_eq!(windows.check("docs\\a.md", &none()), PathVerdict::Allowed);
        assert_eq!(windows.check("docs/.ENV", &none()), denied("docs/.ENV"));
        assert_eq!(
            windows.check("DOCS\\Guide.MD", &none()),
            PathVerdict::Allowed
        );
        assert_eq!(
            windows.check("\\WORK\\project\\docs\\a", &none()),
            PathVerdict::Allowed
        );
        assert_eq!(
            windows.check("/work/projectx/docs", &none()),
            PathVerdict::OutsideRoot("/work/projectx/docs".to_owned(), "/work/Project".to_owned())
        );
        assert_eq!(
            windows.check("docs%5c..%5c..%5cx", &none()),
            PathVerdict::Escapes
        );
        // Case matters unless the rule says otherwise.
        assert_eq!(
            default.check("/work/project/docs/a", &none()),
            PathVerdict::OutsideRoot(
                "/work/project/docs/a".to_owned(),
                "/work/Project".to_owned()
            )
        );
    }

    fn session(cwd: &str) -> PathContext {
        PathContext {
            cwd: Some(cwd.to_owned()),
            home: Some("/home/dev".to_owned()),
            project: Some("/home/dev/project".to_owned()),
        }
    }

    fn guarded(root: &str) -> PathRule {
        PathRule {
            root: Some(root.to_owned()),
            allow: None,
            deny: globs(&["**/.env", ".claude/**"]),
            deny_except: None,
            backslash: Readings::Both,
            percent: Readings::Both,
            case_insensitive: false,
        }
    }

    /// Paths are read as the agent's tools read them: trimmed, `~` and `$HOME`
    /// expanded, relative ones from the working directory.
    #[test]
    fn paths_are_placed_where_the_session_ran() {
        let here = session("/home/dev/project");
        let outside = |p: &str, root: &str| PathVerdict::OutsideRoot(p.to_owned(), root.to_owned());
        for rule in [guarded("/home/dev/project"), guarded(".")] {
            let root = "/home/dev/project";
            assert_eq!(rule.check("README.md", &here), PathVerdict::Allowed);
            assert_eq!(
                rule.check("/home/dev/project/src/a.rs", &here),
                PathVerdict::Allowed
            );
            assert_eq!(
                rule.check("~/.bashrc", &here),
                outside("/home/dev/.bashrc", root)
            );
            assert_eq!(
                rule.check("~/.claude/settings.json", &here),
                outside("/home/dev/.claude/settings.json", root)
            );
            assert_eq!(
                rule.check("$HOME/.ssh/id_rsa", &here),
                outside("/home/dev/.ssh/id_rsa", root)
            );
            assert_eq!(rule.check("${HOME}", &here), outside("/home/dev", root));
            assert_eq!(
                rule.check(" /etc/shadow", &here),
                outside("/etc/shadow", root)
            );
            assert_eq!(
                rule.check("/home/dev/project/.env ", &here),
                PathVerdict::Denied(".env".to_owned(), "**/.env".to_owned())
            );
            assert_eq!(
                rule.check("\t.claude/settings.json\n", &here),
                PathVerdict::Denied(".claude/settings.json".to_owned(), ".claude/**".to_owned())
            );
            // From a working directory below the root.
            let below = session("/home/dev/project/src");
            assert_eq!(
                rule.check("../.env", &below),
                PathVerdict::Denied(".env".to_owned(), "**/.env".to_owned())
            );
            assert_eq!(rule.check("../../x", &below), outside("/home/dev/x", root));
            assert_eq!(rule.check("main.rs", &below), PathVerdict::Allowed);
            // Another user's home cannot be placed.
            assert_eq!(
                rule.check("~bob/x", &here),
                PathVerdict::Unplaced("~bob/x".to_owned(), super::OTHER_HOME)
            );
        }
        // Without a home, a `~` path under a root cannot be placed.
        let homeless = PathContext {
            home: None,
            ..session("/home/dev/project")
        };
        assert_eq!(
            guarded("/home/dev/project").check("~/.bashrc", &homeless),
            PathVerdict::Unplaced("~/.bashrc".to_owned(), super::NO_HOME)
        );
        // A relative root without a start: relative paths are read from it, an
        // absolute one cannot be placed.
        assert_eq!(
            guarded(".").check("docs/a.md", &none()),
            PathVerdict::Allowed
        );
        assert_eq!(
            guarded(".").check("/etc/passwd", &none()),
            PathVerdict::Unplaced("/etc/passwd".to_owned(), super::NO_START)
        );
        // Without a root, `~` globs match as written and expanded paths as they are.
        let no_root = PathRule {
            root: None,
            allow: None,
            deny: globs(&["~/.ssh/**", "/home/*/.aws/**"]),
            deny_except: None,
            backslash: Readings::Both,
            percent: Readings::Both,
            case_insensitive: false,
        };
        assert_eq!(
            no_root.check("~/.aws/credentials", &here),
            PathVerdict::Denied(
                "/home/dev/.aws/credentials".to_owned(),
                "/home/*/.aws/**".to_owned()
            )
        );
        assert_eq!(
            no_root.check(" ~/.ssh/id_rsa", &none()),
            PathVerdict::Denied("~/.ssh/id_rsa".to_owned(), "~/.ssh/**".to_owned())
        );
    }
}
