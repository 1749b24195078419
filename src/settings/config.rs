//! The configuration file `toolreplay.toml`: found in the current folder or the
//! nearest folder above it (up to the filesystem root), it states a project's
//! defaults once: the mutating and volatile tools of `replay` and its rules, the
//! default `--from`, scope file and report format. Options on the command line win;
//! `--no-config` ignores the file. Strict: an unknown key, a wrong type or an unknown
//! value is an error naming the file and line (docs/configuration.md).

use std::path::{Path, PathBuf};

use clap::ValueEnum;
use serde::Deserialize;
use toml::Spanned;

use crate::args::{Format, Rules, Source};
use crate::error::Error;
use toolreplay_core::input::InputError;

/// The configuration file's name.
pub(crate) const FILE_NAME: &str = "toolreplay.toml";

/// The largest configuration file read, in bytes.
const MAX_BYTES: u64 = 1 << 20;

/// The file as written: every key optional, no other key allowed.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    from: Option<Spanned<String>>,
    format: Option<Spanned<String>>,
    scope: Option<String>,
    rules: Option<Spanned<String>>,
    mutating_tools: Option<Vec<String>>,
    volatile_tools: Option<Vec<String>>,
    otlp: Option<bool>,
}

/// The configuration in effect: empty when no file was found.
#[derive(Debug, Default)]
pub(crate) struct Config {
    /// The file it was read from, as messages name it; `None` when none was found.
    pub(crate) file: Option<PathBuf>,
    /// The default `--from`.
    pub(crate) from: Option<Source>,
    /// The default `--format`.
    pub(crate) format: Option<Format>,
    /// The default scope file of `scope`, relative to the configuration's folder.
    pub(crate) scope: Option<PathBuf>,
    /// The default `--rules` of `replay`.
    pub(crate) rules: Option<Rules>,
    /// Mutating tools of `replay`, besides those of the command line.
    pub(crate) mutating_tools: Vec<String>,
    /// Volatile tools of `replay`, besides those of the command line.
    pub(crate) volatile_tools: Vec<String>,
    /// Whether `guard` and `proxy` send their spans, as with `--otlp`.
    pub(crate) otlp: bool,
}

impl Config {
    /// The configuration of the current folder: that of the first `toolreplay.toml`
    /// in it or a folder above it, or none.
    pub(crate) fn discover() -> Result<Config, Error> {
        let Ok(here) = std::env::current_dir() else {
            return Ok(Config::default());
        };
        match find(&here) {
            Some(path) => Config::load(&path),
            None => Ok(Config::default()),
        }
    }

    /// The configuration in the file at `path`.
    pub(crate) fn load(path: &Path) -> Result<Config, Error> {
        let name = crate::naming::display(path);
        let bytes = crate::input::read_whole(path, MAX_BYTES, "1 MiB")?;
        let text = String::from_utf8(bytes).map_err(|_| {
            Error::Input(InputError::Invalid {
                path: name.clone(),
                message: "not valid UTF-8".to_owned(),
            })
        })?;
        let at = |span: Option<std::ops::Range<usize>>, message: String| {
            Error::Input(InputError::Input {
                path: name.clone(),
                line: span.map_or(1, |span| line_of(&text, span.start)),
                message,
            })
        };
        let raw: Raw =
            toml::from_str(&text).map_err(|err| at(err.span(), one_line(err.message())))?;
        fn value<T: ValueEnum>(
            field: Option<Spanned<String>>,
            key: &str,
            at: &dyn Fn(Option<std::ops::Range<usize>>, String) -> Error,
        ) -> Result<Option<T>, Error> {
            let Some(field) = field else {
                return Ok(None);
            };
            T::from_str(field.get_ref(), false).map(Some).map_err(|_| {
                let names: Vec<String> = T::value_variants()
                    .iter()
                    .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_owned()))
                    .collect();
                at(
                    Some(field.span()),
                    format!(
                        "invalid {key} {:?}: expected one of {}",
                        field.get_ref(),
                        names.join(", ")
                    ),
                )
            })
        }
        let folder = path.parent().unwrap_or(Path::new(""));
        Ok(Config {
            file: Some(path.to_owned()),
            from: value(raw.from, "from", &at)?,
            format: value(raw.format, "format", &at)?,
            rules: value(raw.rules, "rules", &at)?,
            scope: raw.scope.map(|scope| folder.join(scope)),
            mutating_tools: raw.mutating_tools.unwrap_or_default(),
            volatile_tools: raw.volatile_tools.unwrap_or_default(),
            otlp: raw.otlp.unwrap_or(false),
        })
    }
}

/// The first `toolreplay.toml` in `folder` or a folder above it, by a path relative
/// to `folder` (`toolreplay.toml`, `../toolreplay.toml`, ...), as messages name it.
fn find(folder: &Path) -> Option<PathBuf> {
    folder
        .ancestors()
        .enumerate()
        .find(|(_, above)| above.join(FILE_NAME).is_file())
        .map(|(up, _)| {
            let mut path: PathBuf = std::iter::repeat_n("..", up).collect();
            path.push(FILE_NAME);
            path
        })
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> u64 {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64
        + 1
}

/// A parser message on one line.
fn one_line(message: &str) -> String {
    message.trim().replace('\n', "; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_from_one() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 99), 3);
    }
}
