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
//! expanded, and escapes when `..` climbs above it. Nothing is percent-decoded and `\`
//! is an ordinary character.

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// A normalised path, or why there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Normalised {
    /// The normalised path: relative (`.` for the start itself), absolute (`/...`)
    /// or home-relative (`~...`).
    Path(String),
    /// A `..` climbs above the start of a relative or home-relative path.
    Escapes,
}

/// Normalises `raw` (see the module documentation), without a root.
pub fn normalise(raw: &str) -> Normalised {
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
pub enum PathVerdict {
    /// Allowed.
    Allowed,
    /// A `..` climbs above the start of the path.
    Escapes,
    /// An absolute path outside the rule's root; the normalised path.
    OutsideRoot(String),
    /// The normalised path and the first deny glob it matches.
    Denied(String, String),
    /// The normalised path, which matches no allow glob.
    NotAllowed(String),
}

/// A compiled list of globs, with their text for messages.
#[derive(Debug)]
pub struct Globs {
    set: GlobSet,
    texts: Vec<String>,
}

impl Globs {
    /// Compiles `globs`: `*` and `?` never match `/`, `**` matches any number of
    /// components, `[...]` are classes, `{a,b}` alternatives and `\` escapes;
    /// matching is case-sensitive. The error names the first invalid glob.
    pub fn new(globs: &[String]) -> Result<Globs, (usize, String)> {
        let mut builder = GlobSetBuilder::new();
        for (i, text) in globs.iter().enumerate() {
            builder.add(glob(text).map_err(|message| (i, message))?);
        }
        let set = builder
            .build()
            .map_err(|err| (0, one_line(&err.to_string())))?;
        Ok(Globs {
            set,
            texts: globs.to_vec(),
        })
    }

    /// The first glob (in the order given) that matches `path`.
    pub fn first_match(&self, path: &str) -> Option<&str> {
        self.set
            .matches(path)
            .first()
            .map(|&i| self.texts[i].as_str())
    }
}

/// `path` relative to `root` (both normalised and absolute), if it is inside it.
pub(crate) fn inside(path: &str, root: &str) -> Option<String> {
    let rest = if root == "/" {
        path.strip_prefix('/')?
    } else {
        let rest = path.strip_prefix(root)?;
        if rest.is_empty() {
            rest
        } else {
            rest.strip_prefix('/')?
        }
    };
    Some(if rest.is_empty() {
        ".".to_owned()
    } else {
        rest.to_owned()
    })
}

fn glob(text: &str) -> Result<Glob, String> {
    GlobBuilder::new(text)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|err| one_line(&err.kind().to_string()))
}

fn one_line(text: &str) -> String {
    text.lines().map(str::trim).collect::<Vec<_>>().join(" ")
}

/// A path rule: optional root, optional allow globs, deny globs.
#[derive(Debug)]
pub struct PathRule {
    /// The normalised absolute root, if any.
    pub root: Option<String>,
    /// Globs of which a path must match one, if given.
    pub allow: Option<Globs>,
    /// Globs of which a path must match none; they win over `allow`.
    pub deny: Globs,
}

impl PathRule {
    /// The verdict on the path argument `raw`.
    pub fn check(&self, raw: &str) -> PathVerdict {
        let path = match normalise(raw) {
            Normalised::Escapes => return PathVerdict::Escapes,
            Normalised::Path(path) => path,
        };
        let path = match &self.root {
            Some(root) if path.starts_with('/') => match inside(&path, root) {
                Some(inside) => inside,
                None => return PathVerdict::OutsideRoot(path),
            },
            _ => path,
        };
        if let Some(glob) = self.deny.first_match(&path) {
            return PathVerdict::Denied(path, glob.to_owned());
        }
        match &self.allow {
            Some(allow) if allow.first_match(&path).is_none() => PathVerdict::NotAllowed(path),
            _ => PathVerdict::Allowed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Globs, Normalised, PathRule, PathVerdict, normalise};

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
        };
        assert_eq!(rule.check("/work/project/docs/a.md"), PathVerdict::Allowed);
        assert_eq!(rule.check("README.md"), PathVerdict::Allowed);
        assert_eq!(
            rule.check("src/x/README.md"),
            PathVerdict::NotAllowed("src/x/README.md".to_owned())
        );
        assert_eq!(
            rule.check("docs/../.env"),
            PathVerdict::Denied(".env".to_owned(), "**/.env".to_owned())
        );
        assert_eq!(
            rule.check("/work/projectx/a"),
            PathVerdict::OutsideRoot("/work/projectx/a".to_owned())
        );
        assert_eq!(rule.check("../x"), PathVerdict::Escapes);
        assert_eq!(
            rule.check("/work/project"),
            PathVerdict::NotAllowed(".".to_owned())
        );
    }

    #[test]
    fn bad_globs_are_named() {
        let err = Globs::new(&["ok/*".to_owned(), "a[".to_owned()]).unwrap_err();
        assert_eq!(err.0, 1);
    }
}
