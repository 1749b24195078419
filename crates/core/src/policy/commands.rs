//! Command rules: which shell commands a tool may be given.
//!
//! A command argument is parsed as a bash program with `brush-parser`, and every
//! simple command in it is judged: those of pipelines, lists, subshells, groups,
//! `if`/`while`/`until`/`for`/`case` bodies, function bodies, command substitutions
//! (`$(...)` and backticks, in any word, assignments and parameter defaults
//! included), process substitutions and arithmetic. Words are taken after quote
//! removal; leading assignments are skipped.
//!
//! Wrappers are unwrapped and both the wrapper and the command it runs are judged:
//! a shell (`bash`, `sh`, `zsh`, `dash`, `ksh`, `ash`, `mksh`) with `-c STRING` has
//! its string parsed again, and so have the `-c STRING` of `su`, `runuser`, `script`
//! and `flock` and the action of `trap`; `eval` and `watch` with literal words have
//! them joined and parsed again; `env`, `sudo`, `doas`, `xargs`, `nohup`, `nice`,
//! `timeout`, `time`, `command`, `builtin`, `exec`, `stdbuf`, `setsid`, `unbuffer`,
//! `pkexec`, `ionice`, `runuser -u`, `chroot`, `flock`, `taskset` and `chrt` have
//! their options (and new root, lock file, CPU mask or priority) skipped and the
//! command after them judged; and `find` has the command of each `-exec`,
//! `-execdir`, `-ok` and `-okdir` (up to its `;` or `+`) judged.
//!
//! An alias the string defines (`alias x=rm; x -rf /`) is expanded where a later
//! command's program word names it: its value and the command's other words, as
//! written, are parsed again and judged (besides the command as written; bash
//! expands an alias only on a later line, or with `expand_aliases`, and judging
//! both is never less strict). An alias whose value is not known before the
//! command runs (`alias x="$CMD"`) cannot be judged where it is used.
//!
//! Protected paths are read where the shell is: `cd DIR`, `pushd DIR` and `popd`
//! move the directory relative words of the later commands of the string are
//! joined to (from the session's working directory, or, when that is not known,
//! from where the string starts), except across a subshell's end (`( ... )`, the
//! commands of a pipeline, a command run in the background, a substitution, a
//! shell's `-c` string, a function's body). A directory not known before the
//! command runs (`cd "$DIR"`) leaves relative words matched as written only.
//!
//! Parsing and unwrapping are bounded by
//! [`MAX_DEPTH`] levels, the nesting of compound commands by [`MAX_NESTING`], and
//! the text by [`MAX_COMMAND_BYTES`]: past them is a violation, never a deep
//! recursion (of this module or of the parser). The parser's panics are caught and
//! are a violation too. So is a string on which the parser takes more than
//! [`MAX_PARSER_STEPS`] steps in all, its parses of the nested strings included: the
//! parser backtracks, and its time grows exponentially on some strings (runs of `(`
//! after `((` or within `$(` and `$[`, substitutions nested in double-quoted strings,
//! subscripts in subscripts).
//!
//! What cannot be judged is a violation (the rule fails closed): a string the parser
//! refuses, and, when the rule has `allow` or `deny`, a program word that is not
//! known before the command runs (an expansion, a substitution or a glob in it), a
//! shell's `-c` string, `eval` words or a `source` file that is not literal, and
//! an alias whose value is not.

use std::panic::{AssertUnwindSafe, catch_unwind};

use brush_parser::ast;
use brush_parser::word::{
    self, Parameter, ParameterExpr, ParameterTransformOp, SpecialParameter, SubstringMatchKind,
    TildeExpr, WordPiece,
};
use brush_parser::{Parser, ParserOptions};
use globset::{GlobBuilder, GlobMatcher};

use super::Checking;
use super::paths::{self, Globs, Normalised, WILD, excepts, inside, normalise};

/// The longest command string parsed, in bytes.
pub(crate) const MAX_COMMAND_BYTES: usize = 64 * 1024;
/// The most levels of parsing again and unwrapping (`bash -c`, `sudo`, `$(...)`).
pub(crate) const MAX_DEPTH: usize = 16;
/// The most levels of compound commands, brackets and substitutions nested in one
/// another in the parsed program; also the most [`openings`] of a text parsed on a
/// thread's own stack.
pub(crate) const MAX_NESTING: usize = 32;
/// The most steps the shell parser may take on the strings parsed for one command
/// (see [`brush_parser::budget`]): each try of a piece of a word, of a character
/// of quoted text, of a token.
pub(crate) const MAX_PARSER_STEPS: u64 = 1 << 22;
/// The stack of the thread that judges a command string that may nest deeper than
/// [`MAX_NESTING`] (see [`openings`]): room for the parser's recursion on the
/// deepest nesting [`MAX_COMMAND_BYTES`] can hold. Only the pages used are taken.
const DEEP_STACK_BYTES: usize = 1 << 30;
/// The most characters of a command shown in a message.
const MAX_SHOWN: usize = 80;

/// A compiled pattern of a command rule: the program's glob, then one glob per
/// argument word, `None` for `**` (any number of words).
#[derive(Debug)]
pub(crate) struct Pattern {
    text: String,
    program: WordGlob,
    words: Vec<Option<WordGlob>>,
}

/// The glob of one word: a literal word is compared as it is; a glob is checked
/// when the policy is read (unless [`Checking::Before`] says the same policy was)
/// and compiled when a command first reaches it, so that a process judging one call
/// (a guard's hook event) compiles only what it uses.
#[derive(Debug)]
enum WordGlob {
    Literal(String),
    Glob {
        text: String,
        /// The glob, when it was checked as the policy was read.
        glob: Option<globset::Glob>,
        /// `None`: the glob cannot be built, and the word cannot be judged.
        matcher: std::sync::OnceLock<Option<GlobMatcher>>,
    },
}

impl WordGlob {
    fn new(text: &str, checking: Checking) -> Result<WordGlob, String> {
        if !text.contains(WILD) {
            return Ok(WordGlob::Literal(text.to_owned()));
        }
        let glob = match checking {
            Checking::Now => Some(word_glob(text)?),
            Checking::Before => None,
        };
        Ok(WordGlob::Glob {
            text: text.to_owned(),
            glob,
            matcher: std::sync::OnceLock::new(),
        })
    }

    /// Whether `word` matches; `None` when the glob cannot be built (a policy read
    /// unchecked that does not compile), which the rule's caller takes as a
    /// violation either way.
    fn is_match(&self, word: &str) -> Option<bool> {
        match self {
            WordGlob::Literal(text) => Some(text == word),
            WordGlob::Glob {
                text,
                glob,
                matcher,
            } => matcher
                .get_or_init(|| match glob {
                    Some(glob) => Some(glob.compile_matcher()),
                    None => word_glob(text).ok().map(|glob| glob.compile_matcher()),
                })
                .as_ref()
                .map(|matcher| matcher.is_match(word)),
        }
    }
}

/// The glob of a word of a pattern: `*` matches `/` too.
fn word_glob(text: &str) -> Result<globset::Glob, String> {
    GlobBuilder::new(text)
        .literal_separator(false)
        .backslash_escape(true)
        .build()
        .map_err(|err| err.kind().to_string().lines().collect::<Vec<_>>().join(" "))
}

impl Pattern {
    /// Compiles `text`: words separated by spaces, the first the program's; its
    /// globs checked now unless `checking` says they were before.
    pub(crate) fn new(text: &str, checking: Checking) -> Result<Pattern, String> {
        let mut words = text.split(' ').filter(|w| !w.is_empty());
        let program = words
            .next()
            .ok_or_else(|| "a pattern names a program".to_owned())?;
        Ok(Pattern {
            text: text.to_owned(),
            program: WordGlob::new(program, checking)?,
            words: words
                .map(|w| {
                    if w == "**" {
                        Ok(None)
                    } else {
                        WordGlob::new(w, checking).map(Some)
                    }
                })
                .collect::<Result<_, _>>()?,
        })
    }

    /// The pattern as written.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Whether the simple command of `program` and `args` matches: the program by
    /// its last `/`-component, each word by its glob, `**` any number of words, all
    /// words of both consumed. `None` when a glob it needed cannot be built.
    pub(crate) fn matches(&self, program: &str, args: &[&str]) -> Option<bool> {
        // Each word but `**` consumes one argument.
        let n = args.len();
        let fixed = self.words.iter().filter(|w| w.is_some()).count();
        let any = fixed < self.words.len();
        if n < fixed || (!any && n != fixed) || !self.program.is_match(basename(program))? {
            return Some(false);
        }
        // reach[j]: the words so far can consume exactly the first j arguments.
        let mut reach = vec![false; n + 1];
        reach[0] = true;
        for word in &self.words {
            let mut next = vec![false; n + 1];
            match word {
                None => {
                    let mut any = false;
                    for j in 0..=n {
                        any |= reach[j];
                        next[j] = any;
                    }
                }
                Some(glob) => {
                    for j in 0..n {
                        if reach[j] && glob.is_match(args[j])? {
                            next[j + 1] = true;
                        }
                    }
                }
            }
            if !next.contains(&true) {
                return Some(false);
            }
            reach = next;
        }
        Some(reach[n])
    }
}

fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// A command rule: deny patterns, optional allow patterns, optional protected
/// path globs.
#[derive(Debug)]
pub(crate) struct CommandRule {
    /// Patterns of which a simple command must match none; they win over `allow`.
    pub deny: Vec<Pattern>,
    /// Patterns of which every simple command must match one, if given.
    pub allow: Option<Vec<Pattern>>,
    /// Globs of paths no word or redirection may name, if given.
    pub protect: Option<Globs>,
    /// Globs that take a path out of `protect` (`protect_except`), if given.
    pub protect_except: Option<Globs>,
    /// The folders that hold what `protect` names, made from it when first used.
    pub folders: std::sync::OnceLock<Folders>,
}

/// The folders that hold a protected path: of each glob of a rule's `protect`, each
/// leading part that ends in a plain name (`**/.claude` of `**/.claude/settings.json`,
/// `/dev` of `/dev/sd*`), but `~` and `/`: removing or moving one removes or moves
/// what it holds. Each alternative of a glob gives its own (`{k/a/b,k}/id_rsa` is held
/// in `k/a/b`, `k/a` and `k`).
#[derive(Debug)]
pub(crate) struct Folders {
    globs: Globs,
    /// The glob of `protect` each folder's glob comes from.
    of: Vec<String>,
    /// The alternatives of each glob of `protect`, in its order ([`paths::alternatives`]);
    /// `None` for one whose alternatives are too many.
    alternatives: Vec<Option<Vec<String>>>,
}

impl Folders {
    fn new(protect: &Globs) -> Folders {
        let alternatives: Vec<Option<Vec<String>>> = (protect.texts().iter())
            .map(|text| paths::alternatives(text).ok())
            .collect();
        if let Some(at) = alternatives.iter().position(Option::is_none) {
            // Folders that cannot be told: every path is one (fail closed).
            let text = &protect.texts()[at];
            let why = paths::alternatives(text).err().unwrap_or_default();
            return Folders {
                globs: Globs::unbuilt(
                    std::slice::from_ref(text),
                    format!("protect glob '{text}': {why}"),
                ),
                of: vec![text.clone()],
                alternatives,
            };
        }
        let (mut texts, mut of) = (Vec::new(), Vec::new());
        for (text, alternatives) in protect.texts().iter().zip(&alternatives) {
            for alternative in alternatives.iter().flatten() {
                let parts: Vec<&str> = alternative.split('/').collect();
                for end in 1..parts.len() {
                    let last = parts[end - 1];
                    if last.is_empty() || last == "~" || last.contains(WILD) {
                        continue;
                    }
                    let folder = parts[..end].join("/");
                    if !texts.contains(&folder) && paths::glob(&folder, false).is_ok() {
                        texts.push(folder);
                        of.push(text.clone());
                    }
                }
            }
        }
        // Each compiles on its own; a list too large to build names every path
        // (fail closed).
        let globs = Globs::with_case(&texts, false, Checking::Now)
            .unwrap_or_else(|(_, why)| Globs::unbuilt(&texts, why));
        Folders {
            globs,
            of,
            alternatives,
        }
    }

    /// The glob of `protect` whose folder `path` is, if any; every path when the
    /// list could not be built (fail closed).
    fn first_match(&self, path: &str) -> Option<&str> {
        match self.globs.first_index(path) {
            Ok(at) => at.map(|at| self.of[at].as_str()),
            Err(()) => self.of.first().map(String::as_str),
        }
    }

    /// The first glob of `protect` (of `texts`) that `path`, a path with wildcards
    /// or classes, may name; a glob whose alternatives were too many to tell is named
    /// by every such path (fail closed).
    fn may_be_named<'t>(&self, texts: &'t [String], path: &WildPath<'_>) -> Option<&'t str> {
        (texts.iter().zip(&self.alternatives))
            .find(|(_, alternatives)| match alternatives {
                Some(alternatives) => alternatives.iter().any(|glob| path.may_name(glob)),
                None => true,
            })
            .map(|(text, _)| text.as_str())
    }
}

/// What a command rule says about one command string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CommandVerdict {
    /// Allowed.
    Allowed,
    /// Longer than [`MAX_COMMAND_BYTES`].
    TooLong,
    /// The parser refuses it: why, on one line.
    Unparseable(String),
    /// It nests deeper than the limit given.
    TooDeep(usize),
    /// The simple command (shown) has a program not known before it runs.
    Unknown(String),
    /// The simple command (shown), the top-level one it is in if another, and the
    /// first deny pattern it matches.
    Denied(String, Option<String>, String),
    /// The simple command (shown), and the top-level one it is in if another, which
    /// matches no allow pattern.
    NotAllowed(String, Option<String>),
    /// A path named (normalised) and the protect glob it matches.
    Protected(String, String),
}

type Step = Result<(), CommandVerdict>;

/// Where the walk of a command is: how many levels of parsing again and unwrapping
/// (`depth`) and of nesting (`nest`) it is down, the top-level simple command it
/// is within (shown), if it is not at the top, and the text being walked, which
/// the parsed program's places point into.
#[derive(Debug, Clone, Copy)]
struct At<'w> {
    depth: usize,
    nest: usize,
    within: Option<&'w str>,
    text: &'w str,
}

impl At<'_> {
    /// One level of parsing again or unwrapping further down.
    fn deeper(self) -> Self {
        At {
            depth: self.depth + 1,
            ..self
        }
    }

    /// One level of nesting further down.
    fn nested(self) -> Self {
        At {
            nest: self.nest + 1,
            ..self
        }
    }
}

/// A word after analysis: its text after quote removal (an expansion kept as
/// written), whether it is known before the command runs, its text as a path (with
/// `~` for `$HOME`), and the programs and words its expansions hold.
#[derive(Debug, Default, Clone)]
struct Analysed {
    text: String,
    /// The word as written.
    written: String,
    literal: bool,
    glob: bool,
    path: String,
    /// Command strings of substitutions, in order.
    scripts: Vec<String>,
    /// Words to analyse again (parameter defaults, arithmetic), in order.
    words: Vec<String>,
    /// The word as brace expansion reads it ([`shell_braces`]): unquoted text as
    /// it is, every other piece with its special characters escaped by `\`, and
    /// `\"` for an empty quoted piece (which keeps an empty word the braces make).
    braces: String,
    /// Whether braces made this word of the one written, and the first of them.
    made: Made,
    /// The shell variables the word expands as `$NAME` or `${NAME}`, or with a
    /// value for when unset or set (`${NAME:-WORD}`, `${NAME:=WORD}`,
    /// `${NAME:+WORD}`, and without `:`), in order.
    parameters: Vec<String>,
    /// Those values, each with its variable: a value the word may take in its place.
    defaults: Vec<(String, String)>,
    /// The command substitutions of the word, each as written with its script.
    outputs: Vec<(String, String)>,
    /// Whether some of the word's characters are written in it, not expanded.
    written_text: bool,
}

/// Whether a word is as written or one of those its braces made.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Made {
    #[default]
    Written,
    First,
    Later,
}

impl Analysed {
    fn known(&self) -> bool {
        self.literal && !self.glob
    }

    /// The word as code or a script read: its text when known, or as written when
    /// some of it is written (`"print('$(date)')"`: its expansions as their text,
    /// which a command string judged in it shows as not known); `None` when all of
    /// it is expanded (`"$CODE"`), so that nothing of it is known.
    fn as_code(&self) -> Option<&str> {
        (self.known() || self.written_text).then_some(self.text.as_str())
    }

    /// The word as a message shows it: as is when plain, in double quotes when it
    /// holds spaces or quotes, as written when not literal (its expansions as
    /// written when braces made it).
    fn shown(&self, out: &mut String) {
        let plain = |c: char| c.is_alphanumeric() || "_./:=@%+,-~^#{}".contains(c);
        if !self.literal {
            out.push_str(match self.made {
                Made::Written => &self.written,
                Made::First | Made::Later => &self.text,
            });
        } else if !self.text.is_empty() && self.text.chars().all(plain) {
            out.push_str(&self.text);
        } else {
            out.push('"');
            for c in self.text.chars() {
                if matches!(c, '"' | '\\' | '$' | '`') {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
        }
    }
}

/// The words of a simple command as a message shows them, bounded.
fn shown(words: &[Analysed]) -> String {
    let mut out = String::new();
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        word.shown(&mut out);
        if out.len() > MAX_SHOWN * 4 {
            break;
        }
    }
    if out.chars().count() > MAX_SHOWN {
        let mut cut: String = out.chars().take(MAX_SHOWN - 3).collect();
        cut.push_str("...");
        return cut;
    }
    out
}

fn options() -> ParserOptions {
    ParserOptions {
        // Tildes are read by this module.
        tilde_expansion_at_word_start: true,
        // Off in bash unless `shopt -s extglob` ran before the line is read (never
        // in `bash -c`); the word parser's time on nested `+(`, `?(` and the like
        // grows exponentially.
        enable_extended_globbing: false,
        ..ParserOptions::default()
    }
}

/// Calls `f`, a panic of the parser turned into an error, and so a spent budget of
/// its steps (see [`StepBudget`]), whatever `f` returned.
fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    let result = catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err("the shell parser failed on it".to_owned()));
    match brush_parser::budget::left() {
        Some(0) => Err(format!(
            "more than {MAX_PARSER_STEPS} steps of the shell parser, whose time grows \
             exponentially on some strings"
        )),
        _ => result,
    }
}

/// The budget of the shell parser's steps on this thread while it lives: set to
/// [`MAX_PARSER_STEPS`] when made, taken off when dropped.
struct StepBudget;

impl StepBudget {
    fn set() -> StepBudget {
        brush_parser::budget::set(Some(MAX_PARSER_STEPS));
        StepBudget
    }
}

impl Drop for StepBudget {
    fn drop(&mut self) {
        brush_parser::budget::set(None);
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// How many brackets and compound commands `text` opens (`(`, `{`, `[`, backticks,
/// `if`, `while`, `until`, `for`, `select`, `case`), whatever closes them and
/// whatever the quotes: a bound on how deep the parser, whose recursion follows the
/// nesting, may nest on it, which quoted closers cannot lower. Words in quoted text
/// count too (a commit message's `if` and `for`): past [`MAX_NESTING`], the text is
/// parsed on a stack that holds any nesting, and bounded by what the parser finds.
fn openings(text: &str) -> usize {
    let mut openings = 0;
    for word in text.split(|c: char| c.is_whitespace() || ";|&<>".contains(c)) {
        if matches!(word, "if" | "while" | "until" | "for" | "select" | "case") {
            openings += 1;
        }
        openings += word
            .bytes()
            .filter(|b| matches!(b, b'(' | b'{' | b'[' | b'`'))
            .count();
    }
    openings
}

/// Whether `text` may hold a here-document whose delimiter is empty once quotes
/// are removed (`cat <<`, `cat << ''`, `cat << #`, where `#` starts a comment): on
/// one the parser's tokenizer can loop for ever, taking memory without bound.
///
/// A `<<` inside quotes is text (`echo "<<"`), as long as where the quotes are is
/// sure: from the first expansion that opens a context of its own (`$(`, `${`,
/// `` ` ``, `$'`, `$"`, `$[`), comment sign or here-document on, every `<<` or `<<-`
/// (not `<<<`) is looked at whatever the quotes around it.
///
/// The reading is coarse on purpose: a here-document it missed would take memory
/// without bound (the tokenizer takes no steps of the parser's budget), so it
/// trusts no reading of quotes, here-document bodies or `$'...'` that the
/// tokenizer might not share.
fn empty_here_tag(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut quote: Option<u8> = None;
    let mut sure = true;
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        if sure {
            let next = bytes.get(i + 1).copied();
            match (quote, byte) {
                (Some(b'\''), b'\'') => quote = None,
                (Some(b'\''), _) => {}
                (_, b'\\') if matches!(next, Some(b'\'' | b'"' | b'\\')) => i += 1,
                (_, b'`') => sure = false,
                (_, b'$') if matches!(next, Some(b'(' | b'{')) => sure = false,
                (None, b'$') if matches!(next, Some(b'\'' | b'"' | b'[')) => sure = false,
                (None, b'#') => sure = false,
                (Some(b'"'), b'"') => quote = None,
                (None, b'\'' | b'"') => quote = Some(byte),
                _ => {}
            }
            if quote.is_some() || byte != b'<' {
                i += 1;
                continue;
            }
        } else if byte != b'<' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|&&b| b == b'<').count();
        i += run;
        // The tokenizer cuts a run of `<` into `<<<` as long as it can: the run
        // ends in `<<`, a here-document, when its length is 2 modulo 3.
        if run % 3 != 2 {
            continue;
        }
        let mut at = i;
        if bytes.get(at) == Some(&b'-') {
            at += 1;
        }
        while matches!(bytes.get(at), Some(b' ' | b'\t')) {
            at += 1;
        }
        // Any other white space ends the word there too (a form feed before a
        // comment made the tokenizer loop).
        let word = text[at..]
            .chars()
            .take_while(|c| !c.is_whitespace() && !";&|()<>".contains(*c))
            .filter(|c| !"'\"\\$".contains(*c));
        if bytes.get(at) == Some(&b'#') || word.count() == 0 {
            return true;
        }
        // Its body, which may follow, is not read for quotes.
        sure = false;
    }
    false
}

/// The text inside the outer `(` and `)` of what the parser read as the arithmetic
/// command `arithmetic` of `text`, when bash reads it as a subshell within a
/// subshell instead: the parser takes any two `(` in a row for `((` and any two `)`
/// for `))`, but bash only takes `((` and `))` written together, as in `((i++))`, and
/// runs `( (sudo x) )` and `((sudo x) )`. `None` when it is arithmetic to bash too.
/// A place of the parser's that is not in `text` cannot be judged: a violation.
fn subshells_read_as_arithmetic<'t>(
    text: &'t str,
    arithmetic: &ast::ArithmeticCommand,
) -> Result<Option<&'t str>, CommandVerdict> {
    // The parser counts places in characters.
    let byte = |index: usize| match text.char_indices().nth(index) {
        Some((at, _)) => Some(at),
        None => (index == text.chars().count()).then_some(text.len()),
    };
    let (start, end) = (arithmetic.loc.start.index, arithmetic.loc.end.index);
    let Some(written) = byte(start)
        .zip(byte(end))
        .and_then(|(start, end)| text.get(start..end))
    else {
        return Err(CommandVerdict::Unparseable(
            "the shell parser placed an arithmetic command outside the text".to_owned(),
        ));
    };
    if written.starts_with("((") && written.ends_with("))") {
        return Ok(None);
    }
    // The outer parentheses are one byte each.
    match written.get(1..written.len().saturating_sub(1)) {
        Some(inner) if written.starts_with('(') && written.ends_with(')') => Ok(Some(inner)),
        _ => Err(CommandVerdict::Unparseable(
            "the shell parser placed an arithmetic command outside its parentheses".to_owned(),
        )),
    }
}

/// Whether `text` has a run of 10 or more digits where the parser reads a number
/// that it does not check for overflow (a file descriptor before `<` or `>`, a
/// `~+N` or `~-N` directory, a `{N..M}` sequence): the parser would panic on it.
/// The panic is caught all the same; this keeps its message off standard error.
fn overflowing_number(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i - start < 10 {
            continue;
        }
        let before = &text[..start];
        let after = &text[i..];
        let before = before.strip_suffix(['+', '-']).unwrap_or(before);
        if before.ends_with(['~', '{']) || before.ends_with("..") {
            return true;
        }
        if after.starts_with(['<', '>', '}']) || after.starts_with("..") {
            return true;
        }
    }
    false
}

/// The parser's tokens of `text`, or why it cannot be read: the parser's own
/// message, which says where.
fn tokens(text: &str, options: &ParserOptions) -> Result<Vec<brush_parser::Token>, String> {
    guarded(|| {
        brush_parser::uncached_tokenize_str(text, &options.tokenizer_options())
            .map_err(|err| err.to_string())
    })
    .map_err(|err| match parse_program(text, options) {
        Err(message) => message,
        // Read whole, the text is not found wanting: the tokenizer's own message.
        Ok(_) => one_line(&err),
    })
}

/// Parses `text` as a bash program (tokenizing it again: for error messages).
fn parse_program(text: &str, options: &ParserOptions) -> Result<ast::Program, String> {
    guarded(|| {
        Parser::new(text.as_bytes(), options)
            .parse_program()
            .map_err(|err| one_line(&err.to_string()))
    })
}

/// Parses the tokens `tokens` as a bash program.
fn parse_tokens(
    tokens: &[brush_parser::Token],
    options: &ParserOptions,
) -> Result<ast::Program, String> {
    guarded(|| {
        brush_parser::parse_tokens(tokens, options).map_err(|err| one_line(&err.to_string()))
    })
}

/// Whether `text` is `NAME=...`.
fn is_assignment(text: &str) -> bool {
    let Some((name, _)) = text.split_once('=') else {
        return false;
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `value` is one of git's boolean values (`core.fsmonitor=false`,
/// `pager.log=true`): such a value runs nothing.
fn git_bool(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "" | "true" | "false" | "yes" | "no" | "on" | "off" | "1" | "0"
    )
}

/// What git's configuration key `key` (any case) set to `value` runs: the keys
/// whose value git runs as a command (through the shell when it has to), an alias
/// starting with `!`, a credential helper starting with `!` or `/`; an alias of
/// git's own words runs `git` with them (`alias.p=push --force` runs `git push
/// --force` wherever `git p` runs, in this string or a later one). Keys that make
/// git run what cannot be judged here (a folder of hooks, the `ext::` transport)
/// are [`Inner::Unknown`].
fn git_setting(key: &str, value: &str) -> Option<Inner> {
    let key = key.to_ascii_lowercase();
    let (section, rest) = key.split_once('.')?;
    let name = rest.rsplit('.').next().unwrap_or(rest);
    let program = |text: &str| Some(Inner::Text(text.to_owned()));
    match (section, name) {
        ("alias", _) => match value.strip_prefix('!') {
            Some(snippet) => program(snippet),
            None => program(&format!("git {value}")),
        },
        ("credential", "helper") => match value.strip_prefix('!') {
            Some(snippet) => program(snippet),
            None if value.starts_with('/') => program(value),
            None => None,
        },
        ("core", "hookspath") => Some(Inner::Unknown),
        // The `ext::` transport runs the command in its address.
        ("protocol", "allow") if (rest == "allow" || rest == "ext.allow") && value != "never" => {
            Some(Inner::Unknown)
        }
        ("core" | "pager", _) | ("uploadpack", "packobjectshook") if git_bool(value) => None,
        ("core", "pager" | "editor" | "sshcommand" | "askpass" | "fsmonitor" | "gitproxy")
        | ("pager", _)
        | ("sequence", "editor")
        | ("diff", "external" | "command" | "textconv")
        | ("interactive", "difffilter")
        | ("gpg", "program")
        | ("merge", "driver")
        | ("filter", "clean" | "smudge" | "process")
        | ("difftool" | "mergetool" | "browser" | "man", "cmd" | "path")
        | ("sendemail", "sendmailcmd" | "tocmd" | "cccmd")
        | ("remote", "uploadpack" | "receivepack" | "proxy")
        | ("uploadpack", "packobjectshook") => program(value),
        _ => None,
    }
}

/// What the environment variable `name` set to `value` makes a program run: the
/// pagers, editors and helpers that git, ssh, `less` and `man` run, and the files a
/// shell reads when it starts ([`Inner::Unknown`]).
fn env_setting(name: &str, value: &str) -> Option<Inner> {
    match name {
        "GIT_SSH_COMMAND"
        | "GIT_SSH"
        | "GIT_PAGER"
        | "GIT_EDITOR"
        | "GIT_SEQUENCE_EDITOR"
        | "GIT_EXTERNAL_DIFF"
        | "GIT_ASKPASS"
        | "SSH_ASKPASS"
        | "GIT_PROXY_COMMAND"
        | "PAGER"
        | "MANPAGER"
        | "EDITOR"
        | "VISUAL"
        | "PROMPT_COMMAND"
            if !value.is_empty() =>
        {
            Some(Inner::Text(value.to_owned()))
        }
        // `less` runs the `+` commands among its options: `+!COMMAND`.
        "LESS" => {
            let command = value.split_once("+!")?.1;
            (!command.is_empty()).then(|| Inner::Text(command.to_owned()))
        }
        // vim runs the ex commands of `VIMINIT` and `EXINIT` when it starts.
        "VIMINIT" | "EXINIT" | "GVIMINIT" => {
            let (mut runs, mut sourced) = (Vec::new(), Vec::new());
            editors::ex_runs(value, &mut runs, &mut sourced);
            // What its code names is not judged here.
            runs.retain(|run| !matches!(run, interpreters::Exec::Literal(_)));
            match runs.as_slice() {
                [] if sourced.is_empty() => None,
                [interpreters::Exec::Shell(command)] if sourced.is_empty() => {
                    Some(Inner::Text(command.clone()))
                }
                _ => Some(Inner::Unknown),
            }
        }
        // `less` runs `|COMMAND` (or `||COMMAND`) with the file's name for `%s`.
        "LESSOPEN" | "LESSCLOSE" => {
            let command = value.trim_start_matches('|').trim_start_matches('-');
            (!command.is_empty()).then(|| Inner::Text(command.to_owned()))
        }
        "BASH_ENV" | "ENV" | "GIT_CONFIG_PARAMETERS" | "GIT_CONFIG_COUNT" | "LD_PRELOAD"
            if !value.is_empty() =>
        {
            Some(Inner::Unknown)
        }
        _ => None,
    }
}

/// What the assignment word `word` (`NAME=VALUE`) makes a later program run, by
/// [`env_setting`]; a value not known before the command runs is unknown.
fn assignment_runs(word: &Analysed) -> Option<Inner> {
    let (name, value) = word.text.split_once('=')?;
    let runs = env_setting(name, value)?;
    Some(if word.known() { runs } else { Inner::Unknown })
}

/// What the settings and options among the arguments `args` of the program `name`
/// make it or a later program run: the assignments of `env`, `export`, `declare`,
/// `typeset`, `local` and `readonly`; git's `-c KEY=VALUE` and `--config-env
/// KEY=VAR` before its subcommand, `git config [set] KEY VALUE` and the commands its
/// subcommands take ([`git_subcommand`]); the options whose value is a command
/// (`rsync -e`, `ssh -o ProxyCommand=`, `tar --to-command`, `zip -TT`).
fn settings(name: &str, args: &[Analysed]) -> Vec<Inner> {
    let assignments = |args: &[Analysed]| -> Vec<Inner> {
        args.iter()
            .filter(|arg| is_assignment(&arg.text))
            .filter_map(assignment_runs)
            .collect()
    };
    match name {
        "env" | "export" | "declare" | "typeset" | "local" | "readonly" => assignments(args),
        "git" => git_settings(args),
        "rsync" => option_commands(args, &["-e", "--rsh", "--rsync-path"], "BfMT@"),
        // Their options end at the host or the first file.
        "ssh" => ssh_options(&args[..after_options(args, SSH_VALUES, &[])]),
        "scp" | "sftp" => {
            const VALUES: &str = "BbcDFiJlPoRSsX";
            let options = &args[..after_options(args, VALUES, &[])];
            // `-S` runs the program that connects, `-D` a local sftp server.
            let mut found = option_commands(options, &["-S", "-D"], VALUES);
            found.extend(ssh_options(options));
            found
        }
        "tar" | "gtar" | "bsdtar" => {
            let mut found = option_commands(
                args,
                &[
                    "--to-command",
                    "--use-compress-program",
                    "-I",
                    "--info-script",
                    "--new-volume-script",
                    "-F",
                ],
                "bCfgHKLNTVX",
            );
            // `--checkpoint-action=exec=COMMAND`.
            for arg in args {
                if let Some(command) = arg.text.strip_prefix("--checkpoint-action=exec=") {
                    found.push(known_text(command, arg.known()));
                }
            }
            found
        }
        "zip" => option_commands(args, &["-TT", "--unzip-command"], ""),
        "man" => option_commands(args, &["-P", "--pager"], "CMmSepLREr"),
        _ => Vec::new(),
    }
}

/// Whether reading the file `path` reads what another program writes: standard
/// input or another open file (`/dev/stdin`, `/dev/fd/N`, `/proc/self/fd/N`).
fn standard_input(path: &str) -> bool {
    path == "/dev/stdin"
        || path.starts_with("/dev/fd/")
        || (path.starts_with("/proc/") && path.contains("/fd/"))
}

/// The most words the braces of one word are expanded to.
const MAX_WORD_BRACES: usize = 1_024;

/// The words the shell's brace expansion makes of `word` (as [`Analysed::braces`]
/// writes it: a character after `\` is quoted), in its order and with their
/// escapes kept ([`unescaped`] removes them): each alternative of `{a,b}` (nested
/// too), each item of a sequence (`{1..10..3}`, `{01..3}`, `{a..e}`), none for a
/// group that is neither (`{a}`, `{x..y..z}`). A quoted brace, comma or `..` is a
/// character, and so is a `{` after an unquoted `$`. `None` when they are more than
/// [`MAX_WORD_BRACES`], or take more than [`MAX_BRACE_PATHS`] steps or 4 MiB of text
/// read.
fn shell_braces(word: &str) -> Option<Vec<String>> {
    let (mut done, mut todo) = (Vec::new(), vec![word.to_owned()]);
    let (mut steps, mut read) = (0, 0);
    while let Some(text) = todo.pop() {
        steps += 1;
        read += text.len();
        if steps > MAX_BRACE_PATHS || read > 4 << 20 {
            return None;
        }
        match brace_group(&text).ok()? {
            None => done.push(text),
            Some((open, close, items)) => {
                if done.len() + todo.len() + items.len() > MAX_WORD_BRACES {
                    return None;
                }
                let (before, after) = (&text[..open], &text[close + 1..]);
                // Last first, so that the first is expanded next.
                todo.extend(
                    items
                        .iter()
                        .rev()
                        .map(|item| format!("{before}{item}{after}")),
                );
            }
        }
    }
    Some(done)
}

/// The text of a word [`shell_braces`] made, its escapes removed; `None` for an
/// empty one no quotes keep (the shell drops it: `{a,}` makes `a`, `""{a,}` makes
/// `a` and an empty word).
fn unescaped(word: &str) -> Option<String> {
    let mut out = String::with_capacity(word.len());
    let mut quoted = false;
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match (c, c == '\\' && chars.as_str().starts_with('"')) {
            ('\\', true) => {
                chars.next();
                quoted = true;
            }
            ('\\', false) => out.extend(chars.next()),
            (c, _) => out.push(c),
        }
    }
    (!out.is_empty() || quoted).then_some(out)
}

/// Whether a word [`shell_braces`] made expands as a pattern ([`has_glob`]) by its
/// unquoted characters.
fn has_unquoted_glob(word: &str) -> bool {
    if !word.contains('\\') {
        return has_glob(word);
    }
    let mut plain = String::with_capacity(word.len());
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            chars.next();
            plain.push('_');
        } else {
            plain.push(c);
        }
    }
    has_glob(&plain)
}

/// A group of braces the shell expands: where it opens and closes, and its items.
type Group = (usize, usize, Vec<String>);

/// The first group of `text` the shell expands; `Err` for a sequence of more than
/// [`MAX_WORD_BRACES`] items. One pass pairs the braces and finds the commas of each
/// pair; a `{` never closed is a character.
fn brace_group(text: &str) -> Result<Option<Group>, ()> {
    let bytes = text.as_bytes();
    // The open braces, each with its commas and whether an unquoted `$` is before
    // it (`${...}` is a parameter's expansion); the pairs closed, by their `{`.
    let mut open: Vec<(usize, Vec<usize>, bool)> = Vec::new();
    let mut pairs: Vec<(usize, usize, Vec<usize>)> = Vec::new();
    let mut dollar = None;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 1,
            b'$' => dollar = Some(at + 1),
            b'{' => open.push((at, Vec::new(), dollar == Some(at))),
            b'}' => {
                if let Some((start, commas, parameter)) = open.pop()
                    && !parameter
                {
                    pairs.push((start, at, commas));
                }
            }
            b',' => {
                if let Some((_, commas, _)) = open.last_mut() {
                    commas.push(at);
                }
            }
            _ => {}
        }
        at += 1;
    }
    pairs.sort_unstable_by_key(|&(start, ..)| start);
    for (start, close, commas) in pairs {
        if !commas.is_empty() {
            let mut items = Vec::with_capacity(commas.len() + 1);
            let mut from = start + 1;
            for end in commas.into_iter().chain([close]) {
                items.push(text[from..end].to_owned());
                from = end + 1;
            }
            return Ok(Some((start, close, items)));
        }
        if let Some(items) = sequence(&text[start + 1..close]) {
            return Ok(Some((start, close, items?)));
        }
    }
    Ok(None)
}

/// The items of a sequence expression's inside (`1..10..3`, `01..3`, `a..e`), as
/// the shell makes them, if it is one: `Err` when they are more than
/// [`MAX_WORD_BRACES`].
fn sequence(inside: &str) -> Option<Result<Vec<String>, ()>> {
    let mut ends = inside.split("..");
    let (from, to, step) = (ends.next()?, ends.next()?, ends.next());
    if ends.next().is_some() {
        return None;
    }
    let integer = |text: &str| -> Option<i64> {
        let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        text.strip_prefix('+').unwrap_or(text).parse().ok()
    };
    let step = match step {
        Some(step) => integer(step)?.unsigned_abs().clamp(1, i64::MAX as u64),
        None => 1,
    };
    let items = |a: i64, b: i64| {
        let count = a.abs_diff(b) / step + 1;
        let down = b < a;
        let each = (0..count.min(MAX_WORD_BRACES as u64) as i64).map(move |i| {
            let offset = i.saturating_mul(step as i64);
            if down { a - offset } else { a + offset }
        });
        if count <= MAX_WORD_BRACES as u64 {
            Ok(each)
        } else {
            Err(())
        }
    };
    if let (Some(a), Some(b)) = (integer(from), integer(to)) {
        // A leading zero pads every item to the wider of the two as written.
        let padded = [from, to].iter().any(|end| {
            let digits = end.trim_start_matches(['-', '+']);
            digits.len() > 1 && digits.starts_with('0')
        });
        let width = if padded { from.len().max(to.len()) } else { 0 };
        return Some(items(a, b).map(|items| items.map(|n| format!("{n:0width$}")).collect()));
    }
    let letter = |text: &str| match text.as_bytes() {
        &[b] if b.is_ascii_alphabetic() => Some(i64::from(b)),
        _ => None,
    };
    let (a, b) = (letter(from)?, letter(to)?);
    // The `\` between `Z` and `a` is a character, as [`Analysed::braces`] writes one.
    let item = |c: i64| match char::from(c as u8) {
        '\\' => "\\\\".to_owned(),
        c => c.to_string(),
    };
    Some(items(a, b).map(|items| items.map(item).collect()))
}

/// A path with wildcards, braces or classes, as the shell expands it, split into
/// its parts, each compiled as a glob when first needed and kept for every glob it
/// is held against.
struct WildPath<'a> {
    parts: Vec<&'a str>,
    globs: Vec<std::cell::OnceCell<Option<GlobMatcher>>>,
}

impl<'a> WildPath<'a> {
    fn new(path: &'a str) -> WildPath<'a> {
        let parts: Vec<&str> = path.split('/').collect();
        let globs = parts.iter().map(|_| std::cell::OnceCell::new()).collect();
        WildPath { parts, globs }
    }

    /// Whether this path may name a path the glob `protect` matches: compared part
    /// by part, from the end when `protect` starts with `**/`, from the start
    /// otherwise (its `**` matching the rest). A part of the path must match a
    /// plain part it faces (a leading `.` only when written, as the shell's
    /// wildcards match it), and is taken to match a part with wildcards unless the
    /// plain text they start with differs; a part that is no glob matches any
    /// (fail closed).
    fn may_name(&self, protect: &str) -> bool {
        let parts: Vec<&str> = protect.split('/').collect();
        let words = self.parts.len();
        match parts.split_first() {
            Some((&"**", tail)) => {
                words >= tail.len()
                    && (words - tail.len()..words)
                        .zip(tail)
                        .all(|(at, part)| self.meets(at, part))
            }
            _ => {
                for (at, part) in parts.iter().enumerate() {
                    if *part == "**" {
                        return true;
                    }
                    if at >= words || !self.meets(at, part) {
                        return false;
                    }
                }
                words == parts.len()
            }
        }
    }

    /// Whether the part `at` of this path may match the part `part` of a glob.
    fn meets(&self, at: usize, part: &str) -> bool {
        let word = self.parts[at];
        if let Some(wild) = part.find(WILD) {
            // Two globs meet unless the plain text they start with differs.
            let (a, b) = (
                &part[..wild],
                &word[..word.find(WILD).unwrap_or(word.len())],
            );
            return a.starts_with(b) || b.starts_with(a);
        }
        if word == part {
            return true;
        }
        // The shell's wildcards match a leading `.` only when it is written.
        if part.starts_with('.') && !word.starts_with(['.', '{']) {
            return false;
        }
        // What comes before the first wildcard and after the last is matched as it
        // is (without escapes, whose text is not): a part without it is no match,
        // and needs no glob.
        if !word.contains('\\') {
            let first = word.find(WILD).unwrap_or(word.len());
            let last = word.rfind(WILD).map_or(word.len(), |at| at + 1);
            let (prefix, suffix) = (&word[..first], &word[last.max(first)..]);
            if part.len() < prefix.len() + suffix.len()
                || !part.starts_with(prefix)
                || !part.ends_with(suffix)
            {
                return false;
            }
        }
        self.globs[at]
            .get_or_init(|| {
                GlobBuilder::new(word)
                    .literal_separator(true)
                    .build()
                    .ok()
                    .map(|glob| glob.compile_matcher())
            })
            .as_ref()
            .is_none_or(|glob| glob.is_match(part))
    }
}

/// A command string to judge, when it is known before the command runs.
fn known_text(text: &str, known: bool) -> Inner {
    match known {
        true => Inner::Text(text.to_owned()),
        false => Inner::Unknown,
    }
}

/// The values of the options `options` among `args`, each a command string the
/// program runs: a long option's as `--name VALUE` or `--name=VALUE`; a short one's
/// as `-x VALUE` or `-xVALUE`, also where it ends or starts a group of short options
/// (`-avze VALUE`, `-lcVALUE`); an option of more letters after one `-` (`-TT`) as
/// the next word. `values` are the tool's other short options that take a value: one
/// of them ends a group, the rest of which is its value. An option written with a
/// `=` after it (`-O=`) takes an optional value, so only in its own word (`-OVALUE`,
/// `--name=VALUE`). Options end at `--`.
fn option_commands(args: &[Analysed], options: &[&str], values: &str) -> Vec<Inner> {
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        i += 1;
        if text == "--" {
            break;
        }
        // The value: in this word, or the next word's.
        let mut own = None;
        let mut next = false;
        if text.starts_with("--") {
            for option in options.iter().filter(|option| option.starts_with("--")) {
                let (name, optional) = match option.strip_suffix('=') {
                    Some(name) => (name, true),
                    None => (*option, false),
                };
                match text.strip_prefix(name) {
                    Some("") if !optional => next = true,
                    Some(rest) if rest.starts_with('=') => own = Some(&rest[1..]),
                    _ => continue,
                }
                break;
            }
        } else if options.contains(&text) {
            // `-x` or `-TT` as a word of its own.
            next = true;
        } else if let Some(letters) = text.strip_prefix('-') {
            for (at, letter) in letters.char_indices() {
                let rest = &letters[at + letter.len_utf8()..];
                let option = options.iter().find(|option| {
                    let option = option.strip_suffix('=').unwrap_or(option);
                    option.len() == 2 && option[1..].starts_with(letter)
                });
                if let Some(option) = option {
                    match rest.is_empty() {
                        true => next = !option.ends_with('='),
                        false => own = Some(rest),
                    }
                    break;
                }
                if values.contains(letter) {
                    break;
                }
            }
        }
        if let Some(value) = own {
            found.push(known_text(value, arg.known()));
        } else if next && let Some(value) = args.get(i) {
            found.push(known_text(&value.text, value.known()));
            i += 1;
        }
    }
    found
}

/// The letters of ssh's options that take a value.
const SSH_VALUES: &str = "BbcDEeFIiJLlmOoPpQRSWw";

/// The commands of ssh's `-o` options among `args` (`-o ProxyCommand=...`,
/// `-oLocalCommand ...`): `ProxyCommand`, `LocalCommand`, `KnownHostsCommand` and
/// `RemoteCommand`, keys in any case, but `none`.
fn ssh_options(args: &[Analysed]) -> Vec<Inner> {
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let (option, known) = match arg.text.strip_prefix("-o") {
            Some("") => match args.get(i + 1) {
                Some(value) => {
                    i += 1;
                    (value.text.as_str(), value.known())
                }
                None => break,
            },
            Some(option) => (option, arg.known()),
            None => {
                i += 1;
                continue;
            }
        };
        i += 1;
        let option = option.trim_start();
        let at = option.find(['=', ' ', '\t']).unwrap_or(option.len());
        let key = option[..at].to_ascii_lowercase();
        let value = option[at..].trim_start_matches(['=', ' ', '\t']);
        if matches!(
            key.as_str(),
            "proxycommand" | "localcommand" | "knownhostscommand" | "remotecommand"
        ) && !value.eq_ignore_ascii_case("none")
            && !value.is_empty()
        {
            found.push(known_text(value, known));
        }
    }
    found
}

/// What git's subcommand `name` with arguments `args`, which start at `offset` among
/// git's, runs besides git: the command of `--upload-pack` (`clone`, also `-u`;
/// `fetch`, `pull`, `ls-remote`), `--receive-pack` and `--exec` (`push`), `--exec`
/// (`archive`; `rebase`, also `-x`), `--extcmd` and `-x` (`difftool`) and the filters
/// of `filter-branch`; `submodule foreach`'s words joined, as its shell runs them,
/// and `bisect run`'s words.
fn git_subcommand(name: &str, args: &[Analysed], offset: usize) -> Vec<Inner> {
    match name {
        "clone" => option_commands(args, &["--upload-pack", "-u"], "obcj"),
        "fetch" | "pull" | "ls-remote" => option_commands(args, &["--upload-pack"], ""),
        "push" => option_commands(args, &["--receive-pack", "--exec"], "o"),
        "archive" => option_commands(args, &["--exec"], "o"),
        "rebase" => option_commands(args, &["--exec", "-x"], "sXC"),
        "difftool" => option_commands(args, &["--extcmd", "-x"], "t"),
        // Its value is optional: only in the option's own word.
        "grep" => option_commands(args, &["-O=", "--open-files-in-pager="], "efABCm"),
        "filter-branch" => option_commands(
            args,
            &[
                "--env-filter",
                "--tree-filter",
                "--index-filter",
                "--parent-filter",
                "--msg-filter",
                "--commit-filter",
                "--tag-name-filter",
            ],
            "d",
        ),
        "submodule" => {
            let Some(at) = args.iter().position(|arg| arg.text == "foreach") else {
                return Vec::new();
            };
            let from = at + 1 + after_options(&args[at + 1..], "", &[]);
            match from < args.len() {
                true => vec![Inner::Joined {
                    from: offset + from,
                    to: offset + args.len(),
                    own_shell: true,
                }],
                false => Vec::new(),
            }
        }
        "bisect" if args.first().is_some_and(|arg| arg.text == "run") && args.len() > 1 => {
            vec![Inner::Words(offset + 1)]
        }
        _ => Vec::new(),
    }
}

/// The settings of git's arguments `args` (see [`settings`]).
fn git_settings(args: &[Analysed]) -> Vec<Inner> {
    let mut found = Vec::new();
    // `KEY=VALUE`, whether it is known before the command runs, and whether the
    // value is the name of an environment variable (`--config-env`).
    let mut setting = |pair: &str, known: bool, from_env: bool| {
        let Some((key, value)) = pair.split_once('=') else {
            return;
        };
        if from_env {
            // The value comes from the environment: any that runs a command may be
            // there (`!x` makes every such key run one).
            if git_setting(key, "!x").is_some() {
                found.push(Inner::Unknown);
            }
        } else if let Some(runs) = git_setting(key, value) {
            found.push(if known { runs } else { Inner::Unknown });
        }
    };
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        match text {
            "-c" | "--config-env" => {
                if let Some(pair) = args.get(i + 1) {
                    setting(&pair.text, pair.known(), text == "--config-env");
                }
                i += 2;
            }
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path" => i += 2,
            _ if text.starts_with("--config-env=") => {
                setting(&text["--config-env=".len()..], arg.known(), true);
                i += 1;
            }
            _ if text.starts_with('-') => i += 1,
            "config" => {
                let rest = &args[i + 1..];
                let mut at = 0;
                while let Some(arg) = rest.get(at) {
                    match arg.text.as_str() {
                        "set" if at == 0 => at += 1,
                        "-f" | "--file" | "--blob" | "--type" | "--comment" | "--value" => at += 2,
                        option if option.starts_with('-') => at += 1,
                        _ => break,
                    }
                }
                if let (Some(key), Some(value)) = (rest.get(at), rest.get(at + 1))
                    && let Some(runs) = git_setting(&key.text, &value.text)
                {
                    found.push(if key.known() && value.known() {
                        runs
                    } else {
                        Inner::Unknown
                    });
                }
                break;
            }
            subcommand => {
                found.extend(git_subcommand(subcommand, &args[i + 1..], i + 1));
                break;
            }
        }
    }
    found
}

/// What a wrapper or a setting runs. The indices are into the wrapper's arguments.
enum Inner {
    /// The words from this index on.
    Words(usize),
    /// This string, parsed again.
    Script(usize),
    /// The words from `from` up to `to`, joined by spaces and parsed again (as
    /// `eval` and `watch` run them), when they are all known before the command
    /// runs: in the shell itself (`eval`) or in a shell of their own (`watch`).
    Joined {
        from: usize,
        to: usize,
        own_shell: bool,
    },
    /// A command string a setting holds (`GIT_SSH_COMMAND`, `git -c core.pager`),
    /// parsed again in a shell of its own.
    Text(String),
    /// What cannot be judged: a string to parse again that is not literal, a
    /// setting's value not known before the command runs, a folder of hooks, a
    /// shell's start-up file.
    Unknown,
}

/// The index of the first word after the options of `args`: `short` are the
/// letters that take a value (as the next word, or the rest of their word), `long`
/// the long options that take one as the next word; `--` ends the options.
fn after_options(args: &[Analysed], short: &str, long: &[&str]) -> usize {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if text == "--" {
            return i + 1;
        }
        if !text.starts_with('-') || text == "-" {
            return i;
        }
        if let Some(name) = text.strip_prefix("--") {
            i += if long.contains(&name) { 2 } else { 1 };
            continue;
        }
        let mut step = 1;
        for (at, c) in text.char_indices().skip(1) {
            if short.contains(c) {
                if at + c.len_utf8() == text.len() {
                    step = 2;
                }
                break;
            }
        }
        i += step;
    }
    i
}

/// The value of the short option `letter` among the options of `args` (the last one
/// given), `short` the letters that take a value as [`after_options`] reads them.
fn option_value<'a>(args: &'a [Analysed], letter: char, short: &str) -> Option<&'a str> {
    let mut found = None;
    let mut i = 0;
    while i < after_options(args, short, &[]) {
        let text = args[i].text.as_str();
        i += 1;
        if text.starts_with("--") {
            continue;
        }
        for (at, c) in text.char_indices().skip(1) {
            if short.contains(c) {
                let rest = &text[at + c.len_utf8()..];
                let value = match rest.is_empty() {
                    true => {
                        i += 1;
                        args.get(i - 1).map(|arg| arg.text.as_str())
                    }
                    false => Some(rest),
                };
                if c == letter {
                    found = value;
                }
                break;
            }
        }
    }
    found
}

/// The commands `find` with arguments `args` runs: the words after each `-exec`,
/// `-execdir`, `-ok` and `-okdir` up to the `;` or `+` that ends them (or the end),
/// each with whether it runs in the folder of the file found.
fn find_commands(args: &[Analysed]) -> Vec<(&[Analysed], bool)> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let in_dir = match args[i].text.as_str() {
            "-exec" | "-ok" => false,
            "-execdir" | "-okdir" => true,
            _ => {
                i += 1;
                continue;
            }
        };
        let from = i + 1;
        let mut end = from;
        while end < args.len() && !matches!(args[end].text.as_str(), ";" | "+") {
            end += 1;
        }
        if end > from {
            found.push((&args[from..end], in_dir));
        }
        i = end + 1;
    }
    found
}

/// What `su` or `runuser` (without `-u`) runs: the string of its last `-c`,
/// `--command` or `--session-command`, as it keeps the last. Words after the user
/// go to the user's shell as its arguments (`su root -- -c STRING`), which cannot be
/// judged.
fn su_runs(args: &[Analysed]) -> Option<Inner> {
    // Its options that take a value, `-c` among them, as getopt reads them
    // anywhere before `--`.
    const SHORT: &str = "cgGswu";
    const LONG: &[&str] = &[
        "--command",
        "--session-command",
        "--group",
        "--supp-group",
        "--shell",
        "--whitelist-environment",
        "--user",
    ];
    let mut positional = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        i += 1;
        if text == "--" {
            positional.extend(&args[i..]);
            break;
        }
        if text.starts_with("--") {
            i += usize::from(LONG.contains(&text));
        } else if let Some(letters) = text.strip_prefix('-').filter(|l| !l.is_empty()) {
            if let Some(at) = letters.find(|c| SHORT.contains(c)) {
                i += usize::from(at + 1 == letters.len());
            }
        } else {
            positional.push(arg);
        }
    }
    // `-` (a login shell), then the user.
    let login = positional.first().is_some_and(|arg| arg.text == "-");
    if positional.len() > 1 + usize::from(login) {
        return Some(Inner::Unknown);
    }
    option_commands(args, &["-c", "--command", "--session-command"], "gGswu").pop()
}

/// The string `args[at]` parsed again as a program, if there is one: one that is
/// not literal cannot be judged.
fn script_at(args: &[Analysed], at: usize) -> Option<Inner> {
    let script = args.get(at)?;
    Some(if script.literal {
        Inner::Script(at)
    } else {
        Inner::Unknown
    })
}

/// Whether one of `args` is one of `options`: a wrapper's options that make it run
/// no command (`taskset -p PID`).
fn has_option(args: &[Analysed], options: &[&str]) -> bool {
    args.iter().any(|arg| options.contains(&arg.text.as_str()))
}

/// uv's options that take a value, where `uv run` and `uvx` read theirs (`from` is
/// uvx's).
const UV_LONG: [&str; 36] = [
    "from",
    "with",
    "with-editable",
    "with-requirements",
    "python",
    "project",
    "directory",
    "env-file",
    "extra",
    "group",
    "only-group",
    "no-group",
    "package",
    "index",
    "default-index",
    "index-url",
    "extra-index-url",
    "find-links",
    "config-file",
    "cache-dir",
    "index-strategy",
    "keyring-provider",
    "resolution",
    "prerelease",
    "fork-strategy",
    "exclude-newer",
    "link-mode",
    "python-platform",
    "refresh-package",
    "reinstall-package",
    "upgrade-package",
    "no-build-package",
    "no-binary-package",
    "config-setting",
    "color",
    "allow-insecure-host",
];

/// npm's options that take a value, where its runners read theirs.
const NPM_LONG: [&str; 8] = [
    "package",
    "call",
    "prefix",
    "cache",
    "registry",
    "userconfig",
    "workspace",
    "loglevel",
];

/// What bubblewrap runs: the words after its options, each of which takes as
/// many values as it says; an option not known here may take any number, so the
/// program is not known then.
fn bwrap_runs(args: &[Analysed]) -> Option<Inner> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if text == "--" {
            i += 1;
            break;
        }
        let Some(option) = text.strip_prefix("--") else {
            break;
        };
        let values = match option {
            _ if option.starts_with("unshare-") => 0,
            "share-net"
            | "die-with-parent"
            | "new-session"
            | "as-pid-1"
            | "clearenv"
            | "disable-userns"
            | "assert-userns-disabled" => 0,
            "args" | "argv0" | "uid" | "gid" | "hostname" | "chdir" | "unsetenv" | "lock-file"
            | "sync-fd" | "remount-ro" | "proc" | "dev" | "tmpfs" | "mqueue" | "dir"
            | "seccomp" | "add-seccomp-fd" | "exec-label" | "file-label" | "block-fd"
            | "userns-block-fd" | "info-fd" | "json-status-fd" | "cap-add" | "cap-drop"
            | "perms" | "size" | "userns" | "userns2" | "pidns" | "tmp-overlay" | "ro-overlay"
            | "overlay-src" | "level-prefix" => 1,
            "setenv" | "bind" | "bind-try" | "dev-bind" | "dev-bind-try" | "ro-bind"
            | "ro-bind-try" | "bind-fd" | "ro-bind-fd" | "file" | "bind-data" | "ro-bind-data"
            | "symlink" | "chmod" => 2,
            "overlay" => 3,
            _ => return Some(Inner::Unknown),
        };
        i += 1 + values;
    }
    (i < args.len()).then_some(Inner::Words(i))
}

/// The index after the subcommand among a tool's arguments `args`, when it is one of
/// `names`, after the tool's own options (`short` and `long` those with a value).
fn subcommand(args: &[Analysed], short: &str, long: &[&str], names: &[&str]) -> Option<usize> {
    let at = after_options(args, short, long);
    names
        .contains(&args.get(at)?.text.as_str())
        .then_some(at + 1)
}

/// The index of the first of `args` that is one of `options`, after `from`.
fn option_at(args: &[Analysed], from: usize, options: &[&str]) -> Option<usize> {
    let at = args
        .get(from..)?
        .iter()
        .position(|arg| options.contains(&arg.text.as_str()))?;
    Some(from + at)
}

/// The name GNU's tools are known by, for their names with a `g` before them, as
/// Homebrew installs them on macOS (`gtimeout`, `gxargs`, `gfind`).
fn gnu_name(name: &str) -> &str {
    match name {
        "genv" | "gnice" | "gnohup" | "gstdbuf" | "gtimeout" | "gchroot" | "gtime" | "gxargs"
        | "gfind" => &name[1..],
        _ => name,
    }
}

/// What the wrapper `name` with arguments `args` runs, if it is a wrapper and runs
/// something.
fn unwrap(name: &str, args: &[Analysed]) -> Option<Inner> {
    let words = |at: usize| (at < args.len()).then_some(Inner::Words(at));
    let joined = |from: usize, own_shell: bool| {
        (from < args.len()).then_some(Inner::Joined {
            from,
            to: args.len(),
            own_shell,
        })
    };
    match name {
        _ if is_shell(name) => match shell_operands(args) {
            (i, true) => script_at(args, i),
            (_, false) => None,
        },
        "env" => {
            let mut i = 0;
            while let Some(arg) = args.get(i) {
                let text = arg.text.as_str();
                match text {
                    "--" => {
                        i += 1;
                        break;
                    }
                    "--unset" | "--chdir" => i += 2,
                    "--split-string" => return script_at(args, i + 1),
                    _ if text.starts_with("--split-string=") => return Some(Inner::Unknown),
                    _ if text.starts_with("--") => i += 1,
                    // A group of short options (`-iS`, `-iu NAME`): `-u` and `-C`
                    // take a value and `-S` the string to split, as the next word or
                    // the rest of this one.
                    _ if text.starts_with('-') && text.len() > 1 => {
                        let letters = &text[1..];
                        match letters.find(['u', 'C', 'S']) {
                            Some(at) if letters[at..].starts_with('S') => {
                                return match at + 1 == letters.len() {
                                    true => script_at(args, i + 1),
                                    false => Some(Inner::Unknown),
                                };
                            }
                            Some(at) if at + 1 == letters.len() => i += 2,
                            _ => i += 1,
                        }
                    }
                    _ if is_assignment(text) => i += 1,
                    _ => break,
                }
            }
            while args.get(i).is_some_and(|arg| is_assignment(&arg.text)) {
                i += 1;
            }
            words(i)
        }
        "sudo" => {
            let mut i = after_options(
                args,
                "ugCDhprtUT",
                &[
                    "user",
                    "group",
                    "close-from",
                    "chdir",
                    "host",
                    "prompt",
                    "role",
                    "type",
                    "other-user",
                    "command-timeout",
                ],
            );
            while args.get(i).is_some_and(|arg| is_assignment(&arg.text)) {
                i += 1;
            }
            words(i)
        }
        "doas" => words(after_options(args, "uC", &[])),
        "xargs" => words(after_options(args, XARGS_SHORT, &XARGS_LONG)),
        // socat runs the program of an `EXEC:` address and the shell string of a
        // `SYSTEM:` one (up to its options after `,`).
        "socat" => {
            let runs: Vec<&str> = args
                .iter()
                .filter_map(|arg| {
                    let (kind, rest) = arg.text.split_once(':')?;
                    let kind = kind.to_ascii_uppercase();
                    matches!(kind.as_str(), "EXEC" | "SYSTEM")
                        .then(|| rest.split(',').next().unwrap_or(rest))
                })
                .collect();
            match (runs.as_slice(), args.iter().all(Analysed::known)) {
                ([], _) => None,
                ([run], true) => Some(Inner::Text((*run).to_owned())),
                _ => Some(Inner::Unknown),
            }
        }
        "nohup" | "builtin" => words(after_options(args, "", &[])),
        "nice" => words(after_options(args, "n", &["adjustment"])),
        "timeout" => {
            let at = after_options(args, "sk", &["signal", "kill-after"]);
            // The duration, then the command.
            words(at + 1)
        }
        "time" => words(after_options(args, "fo", &["format", "output"])),
        // `command -v NAME` and `-V` only tell what NAME is.
        "command" => {
            let at = after_options(args, "", &[]);
            let asks = args[..at.min(args.len())]
                .iter()
                .any(|a| !a.text.starts_with("--") && a.text.contains(['v', 'V']));
            if asks { None } else { words(at) }
        }
        "exec" => words(after_options(args, "a", &[])),
        "stdbuf" => words(after_options(args, "ioe", &["input", "output", "error"])),
        // `eval -- WORDS` as bash reads it.
        "eval" => joined(
            usize::from(args.first().is_some_and(|arg| arg.text == "--")),
            false,
        ),
        // `watch` runs its words joined, through `sh -c`, but with `-x`.
        "watch" => {
            let at = after_options(args, "n", &["interval"]);
            match has_option(&args[..at.min(args.len())], &["-x", "--exec"]) {
                true => words(at),
                false => joined(at, true),
            }
        }
        // The action is run when a signal comes, or when the shell exits.
        "trap" => {
            let at = after_options(args, "", &[]);
            match args.get(at)?.text.as_str() {
                "-" | "" => None,
                _ => script_at(args, at),
            }
        }
        // They run later the commands they read from standard input or a file
        // (`-f FILE`), which cannot be judged; but when they list, show or remove
        // jobs.
        "at" | "batch" => {
            let at = after_options(args, "qfutM", &[]);
            let listing = args[..at.min(args.len())].iter().any(|arg| {
                !arg.text.starts_with("--")
                    && arg.text.starts_with('-')
                    && arg.text.contains(['l', 'r', 'd', 'c', 'V'])
            });
            (!listing).then_some(Inner::Unknown)
        }
        "setsid" | "unbuffer" => words(after_options(args, "", &[])),
        "pkexec" => words(after_options(args, "", &["user"])),
        // The new root, then the command.
        "chroot" => words(after_options(args, "", &[]) + 1),
        // The lock file, then the command or `-c STRING` (only there).
        "flock" => {
            let file = after_options(args, "wE", &["timeout", "wait", "conflict-exit-code"]);
            match args.get(file + 1)?.text.as_str() {
                "-c" | "--command" => script_at(args, file + 2),
                _ => words(file + 1),
            }
        }
        "runuser" if has_option(args, &["-u", "--user"]) => {
            words(after_options(args, "ugG", &["user", "group", "supp-group"]))
        }
        "su" | "runuser" => su_runs(args),
        // The last `-c` string, as it keeps the last.
        "script" => option_commands(args, &["-c", "--command"], "EIOBTtmo").pop(),
        // Tracers and sandboxes run the words after their options; `-p` attaches to
        // a running process instead.
        "strace" if !has_option(args, &["-p", "--attach"]) => words(after_options(
            args,
            "abeEIoOpPsSuX",
            &[
                "trace",
                "signal",
                "status",
                "output",
                "string-limit",
                "user",
                "env",
                "summary-sort-by",
                "trace-path",
                "inject",
                "fault",
                "columns",
                "const-print-style",
                "silence",
            ],
        )),
        "ltrace" if !has_option(args, &["-p"]) => words(after_options(
            args,
            "aADeFlnopsuwx",
            &["align", "output", "library"],
        )),
        "systemd-run" => words(after_options(
            args,
            "upEMH",
            &[
                "unit",
                "property",
                "description",
                "slice",
                "uid",
                "gid",
                "nice",
                "working-directory",
                "setenv",
                "machine",
                "host",
                "service-type",
                "on-active",
                "on-boot",
                "on-startup",
                "on-unit-active",
                "on-unit-inactive",
                "on-calendar",
                "path-property",
                "socket-property",
                "timer-property",
            ],
        )),
        "firejail" | "valgrind" | "fakeroot" | "busybox" | "toybox" | "setpriv" => {
            words(after_options(args, "", &[]))
        }
        "nsenter" => words(after_options(args, "tSG", &["target", "setuid", "setgid"])),
        "unshare" => words(after_options(
            args,
            "SGRw",
            &[
                "setuid",
                "setgid",
                "root",
                "wd",
                "map-user",
                "map-group",
                "map-users",
                "map-groups",
                "propagation",
            ],
        )),
        "cgexec" => words(after_options(args, "g", &[])),
        "numactl" => words(after_options(
            args,
            "imNCpP",
            &[
                "interleave",
                "membind",
                "cpunodebind",
                "physcpubind",
                "preferred",
                "preferred-many",
            ],
        )),
        "prlimit" if !has_option(args, &["-p", "--pid"]) => words(after_options(args, "", &[])),
        // The host, then words joined and run by the shell of the user there.
        "ssh" => joined(after_options(args, SSH_VALUES, &[]) + 1, true),
        // `sg GROUP -c STRING`, or `sg GROUP WORDS`, run through `sh -c`.
        "sg" => {
            let mut at = after_options(args, "", &[]);
            if args.get(at).is_some_and(|arg| arg.text == "-") {
                at += 1;
            }
            match args.get(at + 1) {
                Some(arg) if arg.text == "-c" => script_at(args, at + 2),
                _ => joined(at + 1, true),
            }
        }
        // macOS: keeping the machine awake, another architecture, a sandbox.
        "caffeinate" => words(after_options(args, "tw", &[])),
        "arch" => {
            let mut i = 0;
            while let Some(arg) = args.get(i) {
                match arg.text.as_str() {
                    "-arch" | "-d" | "-e" => i += 2,
                    text if text.starts_with('-') => i += 1,
                    _ => break,
                }
            }
            words(i)
        }
        "sandbox-exec" => words(after_options(args, "fnpD", &[])),
        // The runners of language environments and of secrets: the words after
        // their subcommand and its options, or after `--`.
        "uv" => {
            let at = subcommand(
                args,
                "",
                &["directory", "project", "cache-dir", "config-file", "color"],
                &["run"],
            )?;
            words(at + after_options(&args[at..], "pPCfi", &UV_LONG))
        }
        "poetry" => {
            let at = subcommand(args, "CP", &["directory", "project"], &["run"])?;
            words(at + after_options(&args[at..], "", &[]))
        }
        "pipenv" => {
            let at = subcommand(args, "", &["python"], &["run"])?;
            words(at + after_options(&args[at..], "", &[]))
        }
        "pdm" => {
            let at = subcommand(args, "", &[], &["run"])?;
            words(at + after_options(&args[at..], "p", &["project", "venv"]))
        }
        "bundle" => {
            let at = subcommand(args, "", &[], &["exec"])?;
            words(at + after_options(&args[at..], "", &[]))
        }
        "conda" | "mamba" | "micromamba" => {
            let at = subcommand(args, "", &[], &["run"])?;
            words(at + after_options(&args[at..], "np", &["name", "prefix", "cwd"]))
        }
        "asdf" => words(subcommand(args, "", &[], &["exec"])?),
        // `direnv exec DIR WORDS`.
        "direnv" => words(subcommand(args, "", &[], &["exec"])? + 1),
        // `nix-shell --run STRING`; `nix develop` and `nix shell` with `--command
        // WORDS`.
        "nix-shell" => script_at(args, option_at(args, 0, &["--run", "--command"])? + 1),
        "nix" => {
            let at = subcommand(args, "", &[], &["develop", "shell"])?;
            words(option_at(args, at, &["-c", "--command"])? + 1)
        }
        // `mise exec TOOLS -- WORDS` or `-c STRING`.
        "mise" | "rtx" => {
            let at = subcommand(args, "C", &["cd"], &["exec", "x"])?;
            match option_at(args, at, &["-c", "--command"]) {
                Some(c) => script_at(args, c + 1),
                None => words(option_at(args, at, &["--"])? + 1),
            }
        }
        // `op run -- WORDS`, `doppler run -- WORDS` or `--command STRING`,
        // `aws-vault exec PROFILE -- WORDS`, `dotenvx run -- WORDS`.
        "op" | "doppler" | "dotenvx" | "aws-vault" => {
            let names: &[&str] = if name == "aws-vault" {
                &["exec"]
            } else {
                &["run"]
            };
            let at = subcommand(args, "", &[], names)?;
            match option_at(args, at, &["--command"]) {
                Some(c) if name == "doppler" => script_at(args, c + 1),
                _ => match option_at(args, at, &["--"]) {
                    Some(dashes) => words(dashes + 1),
                    None if name == "aws-vault" => words(
                        at + 1
                            + after_options(
                                &args[(at + 1).min(args.len())..],
                                "",
                                &["duration", "region", "mfa-token", "prompt"],
                            ),
                    ),
                    None => words(at + after_options(&args[at..], "f", &["env-file", "env"])),
                },
            }
        }
        // `dotenv -e FILE -- WORDS`.
        "dotenv" => words(after_options(args, "ecv", &[])),
        // The runners of packages' programs: `npx WORDS`, `npm exec -- WORDS` (and
        // `npm x`), `-c STRING` (`--call`); `pnpm exec` and `dlx` (`-c`: the words
        // joined, run by a shell), `pnpx`, `yarn exec` and `dlx`, `bunx`, `bun x`.
        "npx" | "npm" => {
            let at = match name {
                "npm" => subcommand(args, "", &NPM_LONG, &["exec", "x"])?,
                _ => 0,
            };
            match option_at(args, at, &["-c", "--call"]) {
                Some(c) => script_at(args, c + 1),
                None => words(at + after_options(&args[at..], "pw", &NPM_LONG)),
            }
        }
        "pnpm" | "pnpx" => {
            let at = match name {
                "pnpm" => subcommand(args, "C", &["dir", "filter"], &["exec", "dlx"])?,
                _ => 0,
            };
            let from = at + after_options(&args[at..], "", &["package", "filter"]);
            match has_option(&args[at..from.min(args.len())], &["-c", "--shell-mode"]) {
                true => joined(from, true),
                false => words(from),
            }
        }
        "yarn" => {
            let at = subcommand(args, "", &["cwd"], &["exec", "dlx"])?;
            words(at + after_options(&args[at..], "p", &["package"]))
        }
        "bunx" => words(after_options(args, "p", &["package"])),
        "bun" => words(subcommand(args, "", &[], &["x"])?),
        // `uvx WORDS` (`uv tool run`), `pipx run APP`, `hatch run WORDS`.
        "uvx" => words(after_options(args, "pw", &UV_LONG)),
        "pipx" => {
            let at = subcommand(args, "", &[], &["run"])?;
            words(
                at + after_options(
                    &args[at..],
                    "",
                    &["spec", "python", "pip-args", "index-url"],
                ),
            )
        }
        "hatch" => {
            let at = subcommand(
                args,
                "e",
                &["env", "data-dir", "cache-dir", "config"],
                &["run"],
            )?;
            words(at + after_options(&args[at..], "", &[]))
        }
        // Toolbx and Distrobox run the words in a container of the user's home;
        // PRoot, bubblewrap and flatpak-spawn in a sandbox or on the host.
        "toolbox" => {
            let at = subcommand(args, "", &[], &["run"])?;
            words(at + after_options(&args[at..], "cdr", &["container", "distro", "release"]))
        }
        "distrobox" | "distrobox-enter" => {
            let at = match name {
                "distrobox" => subcommand(args, "", &[], &["enter"])?,
                _ => 0,
            };
            words(option_at(args, at, &["--", "-e", "--exec"])? + 1)
        }
        "proot" => words(after_options(
            args,
            "rbmqwkvRS",
            &[
                "rootfs",
                "bind",
                "mount",
                "qemu",
                "cwd",
                "pwd",
                "kernel-release",
                "verbose",
            ],
        )),
        "bwrap" => bwrap_runs(args),
        "flatpak-spawn" => words(after_options(args, "", &[])),
        // GNU parallel (and its `sem`) runs its words up to `:::`, joined, in a
        // shell of its own, with each argument after it.
        "parallel" | "sem" => {
            let from = after_options(
                args,
                "aCdEIjLnNPSsW",
                &[
                    "arg-file",
                    "colsep",
                    "delimiter",
                    "eof",
                    "jobs",
                    "max-lines",
                    "max-args",
                    "max-replace-args",
                    "max-procs",
                    "sshlogin",
                    "sshloginfile",
                    "max-chars",
                    "workdir",
                    "wd",
                    "joblog",
                    "results",
                    "tmpdir",
                    "timeout",
                    "retries",
                    "delay",
                    "halt",
                    "memfree",
                    "load",
                    "nice",
                    "tagstring",
                    "basefile",
                    "return",
                    "env",
                    "rpl",
                    "limit",
                    "block",
                    "recstart",
                    "recend",
                ],
            );
            let to = option_at(args, from, &[":::", "::::", ":::+", "::::+"]).unwrap_or(args.len());
            match (from < to, to < args.len()) {
                (true, _) => Some(Inner::Joined {
                    from,
                    to,
                    own_shell: true,
                }),
                // No command: each argument is one (`parallel ::: 'cmd 1' 'cmd 2'`).
                (false, true) => Some(Inner::Unknown),
                (false, false) => None,
            }
        }
        // Tools that run the words after their options: moreutils' `chronic` and
        // `ifne`, `catchsegv`, D-Bus's session runners, `ssh-agent`, `xvfb-run`,
        // runit's `chpst`, daemontools' `softlimit`, `setarch` and its `linux32`
        // and `linux64`, SELinux's `runcon`, `faketime` and `lckdo` after their
        // time and lock file.
        "chronic" | "ifne" | "catchsegv" | "dbus-run-session" | "dbus-launch" | "linux32"
        | "linux64" => words(after_options(args, "", &[])),
        "ssh-agent" => words(after_options(args, "aEtPO", &[])),
        "xvfb-run" => words(after_options(
            args,
            "efnpsw",
            &[
                "error-file",
                "auth-file",
                "server-num",
                "xauth-protocol",
                "server-args",
                "wait",
            ],
        )),
        "chpst" => words(after_options(args, "uUbe/CnlLmdopfcr", &[])),
        "softlimit" => words(after_options(args, "acdflmoprst", &[])),
        "setarch" if args.first().is_some_and(|arch| !arch.text.starts_with('-')) => {
            words(1 + after_options(&args[1..], "", &[]))
        }
        "runcon" => match args.first() {
            Some(context) if !context.text.starts_with('-') => words(1),
            _ => words(after_options(
                args,
                "urtl",
                &["user", "role", "type", "range"],
            )),
        },
        "faketime" => words(after_options(args, "p", &[]) + 1),
        "lckdo" => words(after_options(args, "W", &[]) + 1),
        // Terminal emulators run the words after `-e` (`xterm -e WORDS`), or after
        // `--` or `-x` (`gnome-terminal -- WORDS`).
        "xterm" | "uxterm" | "urxvt" | "rxvt" | "konsole" | "alacritty" | "terminator" => {
            words(option_at(args, 0, &["-e", "--command"])? + 1)
        }
        "gnome-terminal" | "mate-terminal" | "xfce4-terminal" => {
            words(option_at(args, 0, &["--", "-x", "--execute"])? + 1)
        }
        // Terminal multiplexers run their words in a window of their own, through
        // the shell when they are one string. Keys typed or commands sent into a
        // session (`tmux send-keys`, `screen -X stuff`) run what cannot be judged.
        "tmux" => {
            let at = after_options(args, "LSfTc", &[]);
            if let Some(c) = option_at(&args[..at], 0, &["-c"]) {
                return script_at(args, c + 1);
            }
            let rest = at + 1;
            // Each subcommand's letters that take a value.
            let letters = match args.get(at)?.text.as_str() {
                "new-session" | "new" => "cefFnstxy",
                "new-window" | "neww" => "ceFnt",
                "split-window" | "splitw" => "celtFp",
                "respawn-pane" | "respawnp" | "respawn-window" | "respawnw" => "cet",
                "display-popup" | "popup" => "bcdehsStTwxy",
                "run-shell" | "run" => "cdt",
                "pipe-pane" | "pipep" => "t",
                "if-shell" | "if" => {
                    return script_at(args, rest + after_options(&args[rest..], "t", &[]));
                }
                "send-keys" | "send" => return Some(Inner::Unknown),
                _ => return None,
            };
            joined(rest + after_options(&args[rest..], letters, &[]), true)
        }
        "screen" if has_option(args, &["-X", "-Q"]) => Some(Inner::Unknown),
        // Attaching to, listing or wiping sessions runs no new command.
        "screen"
            if !has_option(
                args,
                &[
                    "-r", "-R", "-x", "-d", "-D", "-ls", "-list", "-wipe", "-RR", "-DR", "-dr",
                ],
            ) =>
        {
            words(after_options(args, "SceEhpstT", &["Logfile"]))
        }
        "ionice" if !has_option(args, &["-p", "-P", "-u", "--pid", "--pgid", "--uid"]) => {
            words(after_options(args, "cn", &["class", "classdata"]))
        }
        // The CPU mask or the priority, then the command; `-p` changes a process.
        "taskset" if !has_option(args, &["-p", "--pid"]) => words(after_options(args, "", &[]) + 1),
        "chrt" if !has_option(args, &["-p", "--pid"]) => words(
            after_options(
                args,
                "TPD",
                &["sched-runtime", "sched-period", "sched-deadline"],
            ) + 1,
        ),
        _ => None,
    }
}

/// The judging of one command string by a rule.
struct Judge<'r> {
    rule: &'r CommandRule,
    home: Option<String>,
    /// The session's working directory, where the command string starts.
    start: Option<String>,
    /// Where the shell is at the command being judged (`cd`, `pushd`, `popd`
    /// before it in the string).
    place: Place,
    /// The aliases the string defined before the command being judged: each name
    /// with its value, `None` when the value is not known before the command runs.
    aliases: Vec<(String, Option<String>)>,
    /// The aliases being expanded, which are not expanded again within themselves.
    expanding: Vec<String>,
    options: ParserOptions,
    /// Whether this thread's stack holds any nesting (see [`CommandRule::check`]).
    deep: bool,
    /// The paths the braces of the string's words made so far, at most
    /// [`MAX_BRACE_PATHS`].
    brace_paths: std::cell::Cell<usize>,
    /// Each shell variable the string assigns (see [`Judge::assigns`]), with its
    /// value as written, in order, at most [`MAX_ASSIGNED`]; `None` once the string
    /// has been read whole, on its second reading.
    assigned: Option<Vec<(String, Given)>>,
    /// The values known before the command runs that those variables may hold, at
    /// most [`MAX_VALUES`] each: a command that expands one is judged with each too.
    values: Known,
    /// The bytes of values read into words so far ([`MAX_VALUE_BYTES`]).
    value_bytes: std::cell::Cell<usize>,
    /// The functions the string defines, whose calls give positional parameters.
    functions: Vec<String>,
    /// The readings of words with values left to the string ([`MAX_READINGS`]).
    readings_left: std::cell::Cell<usize>,
    /// The files the string writes text known before it runs to, at most
    /// [`MAX_WRITES`] (see [`Judge::writes`]), found while it is first read.
    files: Vec<Written>,
    /// The bytes of their text ([`MAX_WRITTEN_BYTES`]).
    written_bytes: usize,
    /// The texts the command being judged may read on its standard input, when
    /// known ([`Judge::stdin_of`]).
    stdin: Vec<String>,
    /// What the command before the one being judged in a pipeline may print, when
    /// known ([`Judge::prints`]).
    piped: Vec<String>,
    /// Whether the command being judged prints into a pipe, and what the last simple
    /// command judged there prints, when known.
    feeds: bool,
    printed: Vec<String>,
    /// Whether the command being judged is read with values ([`Judge::variants`]).
    variant: bool,
    /// The scripts judged running so far ([`MAX_SCRIPT_RUNS`]).
    scripts_run: usize,
    /// The words judged as commands run in containers so far
    /// ([`containers::MAX_CONTAINER_WORDS`]).
    container_words: usize,
    /// Whether the string was judged reading a file (running it, or as its input):
    /// only then do the files it writes call for reading it again.
    looked_up: std::cell::Cell<bool>,
    /// The makefiles and packages whose commands are being judged
    /// ([`builds`]).
    building: Vec<String>,
    /// The string literals of interpreters' code held to `protect` so far, by the
    /// working directory they were held from, and how many, at most
    /// [`interpreters::MAX_LITERALS`].
    literals: std::collections::HashMap<Option<String>, std::collections::HashSet<String>>,
    literals_held: usize,
    /// What each code judged so far runs ([`interpreters::execs`]), read once, and
    /// the working directories its literals were held from.
    codes: std::collections::HashMap<(String, interpreters::Language), CodeRuns>,
}

/// What a code runs, as [`Judge::codes`] keeps it.
type CodeRuns = (
    std::rc::Rc<Vec<interpreters::Exec>>,
    std::collections::HashSet<Option<String>>,
);

/// The most paths the braces of one command string's words are expanded to.
const MAX_BRACE_PATHS: usize = 16_384;

/// Why a string whose words' braces make too many paths is not judged (a violation).
const BRACE_PATHS_SPENT: &str =
    "the braces of its words make more than 16384 paths, or one word more than 1024";

/// Where the shell is, as far as the command string says: its working directory
/// (absolute; relative to the session's when that is not known; `None` when the
/// string made it unknown), the one before (`cd -`) and the `pushd` stack.
#[derive(Debug, Clone, Default)]
struct Place {
    cwd: Option<String>,
    previous: Option<String>,
    stack: Vec<Option<String>>,
}

impl CommandRule {
    /// The verdict on the command string `command`: the first problem in source
    /// order, or allowed. `home` is the session's home directory (`~/` and `$HOME/`
    /// words are also matched expanded, and absolute paths inside it also as
    /// `~/...`), `cwd` its working directory (relative words are also matched joined
    /// to it, and absolute ones inside it also relative to it).
    pub(crate) fn check(
        &self,
        command: &str,
        home: Option<&str>,
        cwd: Option<&str>,
    ) -> CommandVerdict {
        if self.deny.is_empty() && self.allow.is_none() && self.protect.is_none() {
            return CommandVerdict::Allowed;
        }
        let openings = openings(command);
        if openings <= MAX_NESTING {
            return self.check_here(command, openings, false, home, cwd);
        }
        // The parser's recursion follows the nesting: text that may nest deeper than
        // the bound is judged on a thread whose stack holds the deepest nesting a
        // string of MAX_COMMAND_BYTES can have.
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("toolreplay-commands".to_owned())
                .stack_size(DEEP_STACK_BYTES)
                .spawn_scoped(scope, || {
                    self.check_here(command, openings, true, home, cwd)
                })
                .map_err(|_| "no thread could be started to parse it".to_owned())
                .and_then(|thread| {
                    thread
                        .join()
                        .map_err(|_| "the shell parser failed on it".to_owned())
                })
                .unwrap_or_else(CommandVerdict::Unparseable)
        })
    }

    /// [`CommandRule::check`] on this thread, `openings` counted in `command`;
    /// `deep` when the thread's stack holds any nesting.
    fn check_here(
        &self,
        command: &str,
        openings: usize,
        deep: bool,
        home: Option<&str>,
        cwd: Option<&str>,
    ) -> CommandVerdict {
        let absolute = |dir: Option<&str>| match dir.map(normalise) {
            Some(Normalised::Path(path)) if path.starts_with('/') => Some(path),
            _ => None,
        };
        let start = absolute(cwd);
        let _budget = StepBudget::set();
        let mut judge = Judge::for_reading(self, absolute(home), start, deep, Some(Vec::new()));
        let top = At {
            depth: 0,
            nest: 0,
            within: None,
            text: command,
        };
        if let Err(verdict) = judge.program_openings(command, top, openings) {
            return verdict;
        }
        // What the string assigns its variables and writes to files is known once
        // it is read whole (a loop assigns after the command it runs again): the
        // commands that expand them or run the files are judged again, with each
        // value they may hold.
        let assigned = judge.assigned.take().unwrap_or_default();
        let files = !judge.files.is_empty() && judge.looked_up.get();
        if assigned.is_empty() && judge.values.is_empty() && !files {
            return CommandVerdict::Allowed;
        }
        let values = match judge.resolved(&assigned) {
            Ok(values) if values.is_empty() && !files => {
                return CommandVerdict::Allowed;
            }
            Ok(values) => values,
            Err(verdict) => return verdict,
        };
        drop(_budget);
        let _budget = StepBudget::set();
        // The second reading starts where the first did, with the values, the
        // functions and the files the first learnt.
        let mut judge = Judge {
            values,
            functions: judge.functions,
            files: judge.files,
            written_bytes: judge.written_bytes,
            looked_up: judge.looked_up,
            ..Judge::for_reading(self, judge.home, judge.start, deep, None)
        };
        match judge.program_openings(command, top, openings) {
            Ok(()) => CommandVerdict::Allowed,
            Err(verdict) => verdict,
        }
    }
}

impl<'r> Judge<'r> {
    /// A judge for one reading of a string, before any of it is read: `assigned`
    /// collects the assignments (the first reading) or is `None` (the second).
    fn for_reading(
        rule: &'r CommandRule,
        home: Option<String>,
        start: Option<String>,
        deep: bool,
        assigned: Option<Vec<(String, Given)>>,
    ) -> Self {
        Judge {
            rule,
            home,
            place: Place {
                // Unknown, the session's directory is the start relative ones are
                // read from.
                cwd: Some(start.clone().unwrap_or_else(|| ".".to_owned())),
                ..Place::default()
            },
            start,
            aliases: Vec::new(),
            expanding: Vec::new(),
            options: options(),
            deep,
            brace_paths: std::cell::Cell::new(0),
            assigned,
            values: std::collections::BTreeMap::new(),
            value_bytes: std::cell::Cell::new(0),
            functions: Vec::new(),
            readings_left: std::cell::Cell::new(MAX_READINGS),
            files: Vec::new(),
            written_bytes: 0,
            stdin: Vec::new(),
            piped: Vec::new(),
            feeds: false,
            printed: Vec::new(),
            variant: false,
            scripts_run: 0,
            container_words: 0,
            looked_up: std::cell::Cell::new(false),
            building: Vec::new(),
            literals: std::collections::HashMap::new(),
            literals_held: 0,
            codes: std::collections::HashMap::new(),
        }
    }
}

impl Judge<'_> {
    fn patterns(&self) -> bool {
        !self.rule.deny.is_empty() || self.rule.allow.is_some()
    }

    /// Judges the program `text`, where the walk is `at` (its nesting counted anew).
    fn program(&mut self, text: &str, at: At<'_>) -> Step {
        self.program_openings(text, at, openings(text))
    }

    /// [`Judge::program`], [`openings`] counted in `text` already.
    fn program_openings(&mut self, text: &str, at: At<'_>, openings: usize) -> Step {
        if at.depth > MAX_DEPTH {
            return Err(CommandVerdict::TooDeep(MAX_DEPTH));
        }
        if text.len() > MAX_COMMAND_BYTES {
            return Err(CommandVerdict::TooLong);
        }
        // A string made while judging (an alias's value, `$'\x28'` unquoted) may
        // open more than the text it came from.
        if openings > MAX_NESTING && !self.deep {
            return Err(CommandVerdict::TooDeep(MAX_NESTING));
        }
        if overflowing_number(text) {
            return Err(CommandVerdict::Unparseable(
                "a number too large for the shell parser".to_owned(),
            ));
        }
        if empty_here_tag(text) {
            return Err(CommandVerdict::Unparseable(
                "a here-document without a delimiter word".to_owned(),
            ));
        }
        let tokens = tokens(text, &self.options).map_err(CommandVerdict::Unparseable)?;
        let program = parse_tokens(&tokens, &self.options).map_err(CommandVerdict::Unparseable)?;
        for complete in &program.complete_commands {
            self.list(
                complete,
                At {
                    nest: 0,
                    text,
                    ..at
                },
            )?;
        }
        Ok(())
    }

    fn list(&mut self, list: &ast::CompoundList, at: At<'_>) -> Step {
        if at.nest > MAX_NESTING {
            return Err(CommandVerdict::TooDeep(MAX_NESTING));
        }
        for ast::CompoundListItem(and_or, separator) in &list.0 {
            // A list run in the background runs in a subshell of its own.
            let background = matches!(separator, ast::SeparatorOperator::Async);
            let place = background.then(|| self.place.clone());
            self.pipeline(&and_or.first, at)?;
            for next in &and_or.additional {
                let (ast::AndOr::And(pipeline) | ast::AndOr::Or(pipeline)) = next;
                self.pipeline(pipeline, at)?;
            }
            if let Some(place) = place {
                self.place = place;
            }
        }
        Ok(())
    }

    fn pipeline(&mut self, pipeline: &ast::Pipeline, at: At<'_>) -> Step {
        // Each command of a pipeline of several runs in a subshell of its own, and
        // reads what the one before prints.
        let alone = pipeline.seq.len() == 1;
        let mut printed = Vec::new();
        for (at_end, command) in (pipeline.seq.iter())
            .enumerate()
            .map(|(i, c)| (i + 1 == pipeline.seq.len(), c))
        {
            self.piped = std::mem::take(&mut printed);
            self.feeds = !at_end && matches!(command, ast::Command::Simple(_));
            self.printed.clear();
            let step = match alone {
                true => self.command(command, at),
                false => self.in_subshell(|judge| judge.command(command, at)),
            };
            (self.piped, self.feeds) = (Vec::new(), false);
            step?;
            // What it prints of what it reads (`echo ... | base64 -d | sh`).
            if !at_end {
                printed = std::mem::take(&mut self.printed);
            }
        }
        Ok(())
    }

    /// Judges with `f` what runs in a subshell: where the shell is, after it, is
    /// where it was before.
    fn in_subshell(&mut self, f: impl FnOnce(&mut Self) -> Step) -> Step {
        let place = self.place.clone();
        let step = f(self);
        self.place = place;
        step
    }

    fn command(&mut self, command: &ast::Command, at: At<'_>) -> Step {
        match command {
            ast::Command::Simple(simple) => self.simple(simple, at),
            ast::Command::Compound(compound, redirects) => {
                self.compound(compound, at.nested())?;
                self.redirects(redirects.as_ref(), at)
            }
            ast::Command::Function(function) => {
                // The body runs where the function is called, not here; its calls
                // give it their arguments.
                if !self.functions.contains(&function.fname.value) {
                    self.functions.push(function.fname.value.clone());
                }
                let ast::FunctionBody(body, redirects) = &function.body;
                self.in_subshell(|judge| {
                    judge.compound(body, at.nested())?;
                    judge.redirects(redirects.as_ref(), at)
                })
            }
            ast::Command::ExtendedTest(test, redirects) => {
                self.test(&test.expr, at.nested())?;
                self.redirects(redirects.as_ref(), at)
            }
        }
    }

    fn test(&mut self, expr: &ast::ExtendedTestExpr, at: At<'_>) -> Step {
        if at.nest > MAX_NESTING {
            return Err(CommandVerdict::TooDeep(MAX_NESTING));
        }
        match expr {
            ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
                self.test(a, at.nested())?;
                self.test(b, at.nested())
            }
            ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => {
                self.test(a, at.nested())
            }
            ast::ExtendedTestExpr::UnaryTest(_, w) => self.expansions_of(&w.value, at),
            ast::ExtendedTestExpr::BinaryTest(_, a, b) => {
                self.expansions_of(&a.value, at)?;
                self.expansions_of(&b.value, at)
            }
        }
    }

    fn compound(&mut self, compound: &ast::CompoundCommand, at: At<'_>) -> Step {
        use ast::CompoundCommand as C;
        match compound {
            C::Arithmetic(arithmetic) => match subshells_read_as_arithmetic(at.text, arithmetic)? {
                // Bash runs it: the shell's reading is judged.
                Some(inner) => self.in_subshell(|judge| judge.program(inner, at.deeper())),
                None => self.words_of(&arithmetic.expr.value, at),
            },
            C::ArithmeticForClause(clause) => {
                for expr in [&clause.initializer, &clause.condition, &clause.updater]
                    .into_iter()
                    .flatten()
                {
                    self.words_of(&expr.value, at)?;
                }
                self.list(&clause.body.list, at)
            }
            C::BraceGroup(group) => self.list(&group.list, at),
            C::Subshell(subshell) => self.in_subshell(|judge| judge.list(&subshell.list, at)),
            C::ForClause(clause) => {
                for value in clause.values.iter().flatten() {
                    self.expansions_of(&value.value, at)?;
                    // Each word of the list is a value of the loop's variable.
                    let analysed = self.analyse(&value.value)?;
                    for word in self.braces_expanded(vec![analysed])? {
                        self.gives(&clause.variable_name, &word)?;
                    }
                }
                self.list(&clause.body.list, at)
            }
            C::CaseClause(clause) => {
                self.expansions_of(&clause.value.value, at)?;
                for item in &clause.cases {
                    for pattern in &item.patterns {
                        self.expansions_of(&pattern.value, at)?;
                    }
                    if let Some(list) = &item.cmd {
                        self.list(list, at)?;
                    }
                }
                Ok(())
            }
            C::IfClause(clause) => {
                self.list(&clause.condition, at)?;
                self.list(&clause.then, at)?;
                for other in clause.elses.iter().flatten() {
                    if let Some(condition) = &other.condition {
                        self.list(condition, at)?;
                    }
                    self.list(&other.body, at)?;
                }
                Ok(())
            }
            C::WhileClause(clause) | C::UntilClause(clause) => {
                self.list(&clause.0, at)?;
                self.list(&clause.1.list, at)
            }
            C::Coprocess(coprocess) => {
                self.in_subshell(|judge| judge.command(&coprocess.body, at.nested()))
            }
        }
    }

    fn redirects(&mut self, redirects: Option<&ast::RedirectList>, at: At<'_>) -> Step {
        for redirect in redirects.iter().flat_map(|list| list.0.iter()) {
            self.redirect(redirect, at)?;
        }
        Ok(())
    }

    /// Judges a redirection: its target as a protected path, and the programs in
    /// its words.
    fn redirect(&mut self, redirect: &ast::IoRedirect, at: At<'_>) -> Step {
        match redirect {
            ast::IoRedirect::File(_, _, target) => match target {
                ast::IoFileRedirectTarget::Filename(word)
                | ast::IoFileRedirectTarget::Duplicate(word) => self.target(&word.value, at),
                ast::IoFileRedirectTarget::Fd(_) => Ok(()),
                ast::IoFileRedirectTarget::ProcessSubstitution(_, subshell) => {
                    self.in_subshell(|judge| judge.list(&subshell.list, at.nested()))
                }
            },
            ast::IoRedirect::OutputAndError(word, _) => self.target(&word.value, at),
            ast::IoRedirect::HereString(_, word) => self.expansions_of(&word.value, at),
            ast::IoRedirect::HereDocument(_, doc) => {
                if !doc.requires_expansion {
                    return Ok(());
                }
                let pieces = guarded(|| {
                    word::parse_heredoc(&doc.doc.value, &self.options)
                        .map_err(|err| one_line(&err.to_string()))
                })
                .map_err(CommandVerdict::Unparseable)?;
                let mut analysed = Analysed::default();
                collect(
                    &doc.doc.value,
                    &pieces,
                    true,
                    Reading::WRITTEN,
                    &mut analysed,
                );
                self.expansions(&analysed, at)
            }
        }
    }

    /// Judges the target of a redirection, the word `text`: each path its braces make
    /// (more than one is an error of the shell's, but each is held to the rule), and
    /// the programs in it; then each path it makes read with values.
    fn target(&mut self, text: &str, at: At<'_>) -> Step {
        let analysed = self.analyse(text)?;
        self.note_values(std::slice::from_ref(&analysed))?;
        for target in self.braces_expanded(vec![analysed.clone()])? {
            self.protect(&target)?;
            self.expansions(&target, at)?;
        }
        for target in self.read_with_values(&analysed)? {
            self.protect(&target)?;
        }
        Ok(())
    }

    /// The words the word `analysed` makes read with each value its variables may
    /// hold ([`Judge::with_values`]).
    fn read_with_values(&mut self, analysed: &Analysed) -> Result<Vec<Analysed>, CommandVerdict> {
        let mut out = Vec::new();
        self.with_values(std::slice::from_ref(analysed), |_, read| {
            out.extend(read);
            Ok(())
        })?;
        Ok(out)
    }

    /// Analyses the word `text`.
    fn analyse(&self, text: &str) -> Result<Analysed, CommandVerdict> {
        self.analyse_reading(text, Reading::WRITTEN)
    }

    /// Analyses the word `text`, its variables read as `reading` says.
    fn analyse_reading(
        &self,
        text: &str,
        reading: Reading<'_>,
    ) -> Result<Analysed, CommandVerdict> {
        let pieces =
            guarded(|| word::parse(text, &self.options).map_err(|err| one_line(&err.to_string())))
                .map_err(CommandVerdict::Unparseable)?;
        let mut analysed = Analysed {
            literal: true,
            written: text.to_owned(),
            ..Analysed::default()
        };
        collect(text, &pieces, false, reading, &mut analysed);
        Ok(analysed)
    }

    /// Judges the programs in the expansions of the word `text`.
    fn expansions_of(&mut self, text: &str, at: At<'_>) -> Step {
        let analysed = self.analyse(text)?;
        self.expansions(&analysed, at)
    }

    /// Judges the programs in the expansions of `text` read as the inside of an
    /// arithmetic expression or a parameter expansion, when it may hold any.
    fn words_of(&mut self, text: &str, at: At<'_>) -> Step {
        if text.contains(['$', '`', '<', '>']) {
            self.expansions_of(text, at.deeper())?;
        }
        Ok(())
    }

    /// Judges the programs in the expansions of an analysed word.
    fn expansions(&mut self, analysed: &Analysed, at: At<'_>) -> Step {
        for script in &analysed.scripts {
            self.in_subshell(|judge| judge.program(script, at.deeper()))?;
        }
        for inner in &analysed.words {
            if at.depth + 1 > MAX_DEPTH {
                return Err(CommandVerdict::TooDeep(MAX_DEPTH));
            }
            self.words_of(inner, at.deeper())?;
        }
        Ok(())
    }

    fn simple(&mut self, simple: &ast::SimpleCommand, at: At<'_>) -> Step {
        // What the command before it in a pipeline prints, if known, and whether it
        // prints into one: not the commands' in its words.
        let piped = std::mem::take(&mut self.piped);
        let feeds = std::mem::take(&mut self.feeds);
        let mut words = Vec::new();
        let mut redirects = Vec::new();
        let mut substitutions = Vec::new();
        let mut assignments = Vec::new();
        // The assignments after the program (`declare A=(...)`), each with its word.
        let mut suffix_assignments = Vec::new();
        // The prefix: assignments and redirections before the program.
        for item in simple.prefix.iter().flat_map(|p| p.0.iter()) {
            match item {
                ast::CommandPrefixOrSuffixItem::IoRedirect(redirect) => redirects.push(redirect),
                ast::CommandPrefixOrSuffixItem::Word(word)
                | ast::CommandPrefixOrSuffixItem::AssignmentWord(_, word) => {
                    // An assignment alone sets the shell's variable.
                    if let ast::CommandPrefixOrSuffixItem::AssignmentWord(assignment, _) = item
                        && simple.word_or_name.is_none()
                    {
                        self.assignment(assignment)?;
                    }
                    let analysed = self.analyse(&word.value)?;
                    self.protect(&analysed)?;
                    self.expansions(&analysed, at)?;
                    if let Some(runs) = assignment_runs(&analysed) {
                        assignments.push((runs, analysed));
                    }
                }
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, subshell) => {
                    substitutions.push(subshell);
                }
            }
        }
        if let Some(word) = &simple.word_or_name {
            words.push(self.analyse(&word.value)?);
        }
        for item in simple.suffix.iter().flat_map(|s| s.0.iter()) {
            match item {
                ast::CommandPrefixOrSuffixItem::IoRedirect(redirect) => redirects.push(redirect),
                ast::CommandPrefixOrSuffixItem::Word(word)
                | ast::CommandPrefixOrSuffixItem::AssignmentWord(_, word) => {
                    if let ast::CommandPrefixOrSuffixItem::AssignmentWord(assignment, _) = item {
                        suffix_assignments.push((word.value.as_str(), assignment));
                    }
                    words.push(self.analyse(&word.value)?);
                }
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(kind, subshell) => {
                    // Judged where it stands, and shown as a word.
                    let text = match kind {
                        ast::ProcessSubstitutionKind::Read => "<(...)",
                        ast::ProcessSubstitutionKind::Write => ">(...)",
                    };
                    words.push(Analysed {
                        text: text.to_owned(),
                        written: text.to_owned(),
                        literal: false,
                        ..Analysed::default()
                    });
                    substitutions.push(subshell);
                }
            }
        }
        // A value for when a variable is unset or set is one it may take, and what a
        // command substitution prints, when known, is its value.
        self.note_values(&words)?;
        // Read with the values the string gives its variables, after as written.
        let written = (self.assigned.is_none() && !self.values.is_empty()).then(|| words.clone());
        // Braces make words before anything else reads them (`rm {-rf,x} /` runs
        // `rm -rf x /`).
        let words = self.braces_expanded(words)?;
        // The positional parameters of `set -- ARGS` (or `set ARGS`), and those a
        // function the string defines is called with.
        if let Some((program, args)) = words.split_first() {
            if program.text == "set" {
                let from = match args.iter().position(|arg| arg.text == "--") {
                    Some(at) => Some(at + 1),
                    None => args
                        .first()
                        .is_some_and(|arg| !arg.text.starts_with(['-', '+']))
                        .then_some(0),
                };
                if let Some(from) = from {
                    self.positional(&args[from..])?;
                }
            } else if self.functions.contains(&program.text) {
                self.positional(args)?;
            }
        }
        // `read NAME <<< WORD` gives each name the word (its first line, split
        // among them: each may hold it whole), `read -a NAME` its fields, `mapfile
        // NAME` (`readarray`) its lines.
        let here_string = (redirects.iter())
            .filter_map(|redirect| match redirect {
                ast::IoRedirect::HereString(_, word) => Some(word.value.as_str()),
                _ => None,
            })
            .next_back();
        if let (Some((program, args)), Some(string)) = (words.split_first(), here_string) {
            let names = |options: &str| {
                let from = after_options(args, options, &[]).min(args.len());
                (args[from..].iter())
                    .map(|arg| arg.text.as_str())
                    .filter(|name| is_assignment(&format!("{name}=")))
            };
            match program.text.as_str() {
                "read" => {
                    if let Some(array) = option_value(args, 'a', "adinNptu")
                        && is_assignment(&format!("{array}="))
                    {
                        self.array_read(array, string, Cut::Fields)?;
                    }
                    for name in names("adinNptu") {
                        self.assigns(name, string)?;
                    }
                }
                "mapfile" | "readarray" => {
                    let name = names("dnOsuCc").next().unwrap_or("MAPFILE");
                    self.array_read(name, string, Cut::Lines)?;
                }
                _ => {}
            }
        }
        // `printf -v NAME ...` gives the name what it prints, when that is known.
        if let [program, option, name, rest @ ..] = &words[..]
            && program.text == "printf"
            && option.text == "-v"
            && is_assignment(&format!("{}=", name.text))
            && !rest.is_empty()
            && rest.iter().all(Analysed::known)
        {
            let mut texts = vec!["printf"];
            texts.extend(rest.iter().map(|word| word.text.as_str()));
            if let Some(printed) = printed(&texts) {
                self.knows(&name.text, printed)?;
            }
        }
        if let Some(program) = words.first()
            && matches!(
                program.text.as_str(),
                "export" | "declare" | "typeset" | "local" | "readonly"
            )
        {
            // Each as the parser read it (an array's elements too), the others
            // (`declare "X=-rf"`) by their text.
            for (_, assignment) in &suffix_assignments {
                self.assignment(assignment)?;
            }
            for arg in &words[1..] {
                if (suffix_assignments.iter()).any(|(written, _)| *written == arg.written) {
                    continue;
                }
                let Some((name, value)) = arg.written.split_once('=') else {
                    continue;
                };
                match name.strip_suffix('+') {
                    Some(name) if is_assignment(&format!("{name}=")) => {
                        self.assigns(name, &format!("${{{name}}}{value}"))?;
                    }
                    _ if is_assignment(&arg.written) => self.assigns(name, value)?,
                    _ => {}
                }
            }
        }
        // A setting is shown with the command it is set for.
        for (runs, assignment) in assignments {
            let mut all = vec![assignment];
            all.extend(words.iter().cloned());
            let shown_all = shown(&all);
            let at = At {
                within: at.within.or(Some(&shown_all)),
                ..at
            };
            self.run(runs, &all, &[], at)?;
        }
        // What it reads on its standard input, and the files it writes.
        self.piped = piped;
        let stdin = self.stdin_of(&redirects);
        self.piped = Vec::new();
        self.writes(&words, &redirects, &stdin)?;
        let printed = match feeds {
            true => self.prints(&words, &redirects, &stdin),
            false => Vec::new(),
        };
        let shown_here = (!words.is_empty()).then(|| shown(&words));
        let inner = at.within.is_some();
        let at = At {
            within: at.within.or(shown_here.as_deref()),
            ..at
        };
        let outer = std::mem::replace(&mut self.stdin, stdin);
        self.judge(&words, at, inner)?;
        if let Some(written) = written {
            self.variants(&written, at)?;
        }
        self.stdin = outer;
        for redirect in redirects {
            self.redirect(redirect, at)?;
        }
        for word in &words {
            self.expansions(word, at)?;
        }
        for subshell in substitutions {
            self.in_subshell(|judge| judge.list(&subshell.list, at.deeper().nested()))?;
        }
        self.printed = printed;
        Ok(())
    }

    /// Judges the simple command of `words`, where the walk is `at` (its `within`
    /// the top-level command, the command itself when it is at the top; `inner`
    /// tells it is not), then what it runs if it is a wrapper.
    fn judge(&mut self, words: &[Analysed], at: At<'_>, inner: bool) -> Step {
        if at.depth > MAX_DEPTH {
            return Err(CommandVerdict::TooDeep(MAX_DEPTH));
        }
        let Some((program, args)) = words.split_first() else {
            return Ok(());
        };
        self.expand_alias(words, at)?;
        let within = || {
            if inner {
                at.within.map(str::to_owned)
            } else {
                None
            }
        };
        if self.patterns() {
            if !program.known() {
                return Err(CommandVerdict::Unknown(shown(words)));
            }
            let texts: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
            if let Some(pattern) = self
                .rule
                .deny
                .iter()
                // A pattern that cannot be judged denies (fail closed).
                .find(|p| p.matches(&program.text, &texts) != Some(false))
            {
                return Err(CommandVerdict::Denied(
                    shown(words),
                    within(),
                    pattern.text().to_owned(),
                ));
            }
            if let Some(allow) = &self.rule.allow
                && !allow
                    .iter()
                    .any(|p| p.matches(&program.text, &texts) == Some(true))
            {
                return Err(CommandVerdict::NotAllowed(shown(words), within()));
            }
        }
        let name = gnu_name(basename(&program.text));
        // Going into a folder touches nothing in it: what is named after it is
        // judged from there. A wrapper's words are judged again as what it runs.
        let inner = unwrap(name, args);
        let folders = !matches!(name, "cd" | "pushd") && inner.is_none();
        for arg in args {
            self.protect_path(arg, folders)?;
        }
        match name {
            "source" | "."
                if self.patterns()
                    && args
                        .first()
                        .is_some_and(|file| !file.known() || standard_input(&file.text)) =>
            {
                return Err(CommandVerdict::Unknown(shown(words)));
            }
            "find" => {
                for (run, in_dir) in find_commands(args) {
                    // `-execdir` runs in each file's folder: not known here.
                    match in_dir {
                        true => self.judge_elsewhere(run, at)?,
                        false => self.judge(run, at.deeper(), true)?,
                    }
                }
            }
            "alias" => self.define_aliases(args),
            "cd" | "pushd" | "popd" => self.change_directory(name, args),
            _ => self.in_containers(name, words, args, at)?,
        }
        self.run_scripts(name, words, at)?;
        match name {
            "xargs" => self.xargs_input(args, at)?,
            "crontab" => self.crontab_input(args, at)?,
            _ => {}
        }
        self.interpreter_code(name, words, at)?;
        self.editor_commands(name, words, at)?;
        self.console_commands(name, words, at)?;
        self.build_commands(name, words, at)?;
        for runs in settings(name, args) {
            self.run(runs, words, args, at)?;
        }
        if let Some(inner) = inner {
            self.run(inner, words, args, at)?;
        }
        // What xargs reads, put in the program or code it runs, is not known but
        // where its standard input is (each item was judged in its place).
        if name == "xargs" && self.stdin.is_empty() && scripts::xargs_replaces_code(args) {
            return self.not_known(words);
        }
        Ok(())
    }

    /// Judges what a container tool runs in a container ([`containers`]), in a
    /// folder not known here.
    fn in_containers(
        &mut self,
        name: &str,
        words: &[Analysed],
        args: &[Analysed],
        at: At<'_>,
    ) -> Step {
        for run in containers::container_runs(name, args) {
            let containers::Run::Words(entrypoint, from) = run else {
                if self.patterns() {
                    return Err(CommandVerdict::Unknown(shown(words)));
                }
                continue;
            };
            self.container_words += args.len() - from + 1;
            if self.container_words > containers::MAX_CONTAINER_WORDS {
                return Err(CommandVerdict::Unparseable(
                    containers::CONTAINERS_SPENT.to_owned(),
                ));
            }
            match entrypoint {
                None => self.judge_elsewhere(&args[from..], at)?,
                Some(program) => {
                    let mut run = vec![*program];
                    run.extend_from_slice(&args[from..]);
                    self.judge_elsewhere(&run, at)?;
                }
            }
        }
        Ok(())
    }

    /// Judges the command `words`, run (by another) in a folder not known here.
    fn judge_elsewhere(&mut self, words: &[Analysed], at: At<'_>) -> Step {
        let place = self.place.clone();
        self.place.cwd = None;
        let step = self.judge(words, at.deeper(), true);
        self.place = place;
        step
    }

    /// Judges what the command `words` runs besides its program: `inner`, whose
    /// indices are into `args`, the arguments of a wrapper.
    fn run(&mut self, inner: Inner, words: &[Analysed], args: &[Analysed], at: At<'_>) -> Step {
        match inner {
            Inner::Words(from) => self.judge(&args[from..], at.deeper(), true),
            Inner::Script(from) => {
                // `sh -c SCRIPT NAME ARGS` gives the script its positional parameters.
                if let Some(given) = args.get(from + 2..) {
                    self.positional(given)?;
                }
                self.in_subshell(|judge| judge.program(&args[from].text, at.deeper()))
            }
            Inner::Text(text) => self.in_subshell(|judge| judge.program(&text, at.deeper())),
            Inner::Joined {
                from,
                to,
                own_shell,
            } if args[from..to].iter().all(Analysed::known) => {
                let text = args[from..to]
                    .iter()
                    .map(|a| a.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                match own_shell {
                    true => self.in_subshell(|judge| judge.program(&text, at.deeper())),
                    false => self.program(&text, at.deeper()),
                }
            }
            Inner::Joined { .. } | Inner::Unknown if self.patterns() => {
                Err(CommandVerdict::Unknown(shown(words)))
            }
            Inner::Joined { .. } | Inner::Unknown => Ok(()),
        }
    }

    /// Judges the command `words` as its alias defined earlier in the string
    /// expands it: the alias's value, then the other words as written, parsed
    /// again. An alias whose value is not known before the command runs cannot be
    /// judged (with patterns, a violation). An alias is not expanded within itself.
    fn expand_alias(&mut self, words: &[Analysed], at: At<'_>) -> Step {
        let Some((program, args)) = words.split_first() else {
            return Ok(());
        };
        if self.expanding.contains(&program.text) {
            return Ok(());
        }
        // Each value the string gave the alias before, in a branch too.
        let mut values: Vec<Option<String>> = Vec::new();
        for (name, value) in &self.aliases {
            if *name == program.text && !values.contains(value) {
                values.push(value.clone());
            }
        }
        for value in values {
            let Some(value) = value else {
                return if self.patterns() {
                    Err(CommandVerdict::Unknown(shown(words)))
                } else {
                    Ok(())
                };
            };
            // A wrapper in the value (`alias s='sudo '`) has the command after it
            // judged, an alias there expanded too; its arguments as written, whose
            // braces are expanded after it.
            let mut text = value;
            for arg in args.iter().filter(|arg| arg.made != Made::Later) {
                text.push(' ');
                text.push_str(&arg.written);
            }
            self.expanding.push(program.text.clone());
            let step = self.program(&text, at.deeper());
            self.expanding.pop();
            step?;
        }
        Ok(())
    }

    /// Notes the aliases `alias NAME=VALUE ...` defines.
    fn define_aliases(&mut self, args: &[Analysed]) {
        for arg in &args[after_options(args, "", &[]).min(args.len())..] {
            if let Some((name, value)) = arg.text.split_once('=')
                && !name.is_empty()
            {
                let value = arg.literal.then(|| value.to_owned());
                self.aliases.push((name.to_owned(), value));
            }
        }
    }

    /// Follows `cd DIR`, `pushd DIR` and `popd`: where the shell is after them, as
    /// far as the string says (a directory not known before the command runs makes
    /// it unknown).
    fn change_directory(&mut self, name: &str, args: &[Analysed]) {
        let from = after_options(args, "", &[]).min(args.len());
        let target = args[from..].first();
        let place = &mut self.place;
        if name == "popd" {
            place.previous = place.cwd.take();
            place.cwd = place.stack.pop().flatten();
            return;
        }
        let dir = match target {
            None if name == "pushd" => {
                // Swaps the top two directories.
                let top = place.stack.pop().flatten();
                place.stack.push(place.cwd.clone());
                place.cwd = top;
                return;
            }
            None => self.home.clone(),
            Some(word) if !word.known() => None,
            Some(word) if name == "cd" && word.text == "-" => place.previous.clone(),
            Some(word) => {
                let path = word.path.as_str();
                let joined = if path.starts_with('/') {
                    Some(path.to_owned())
                } else if path == "~" || path.starts_with("~/") {
                    self.home
                        .as_ref()
                        .map(|home| format!("{home}/{}", &path[1..]))
                } else if path.starts_with('~') || path.starts_with(['+', '-']) {
                    // Another user's home, a directory of the stack.
                    None
                } else {
                    place.cwd.as_ref().map(|cwd| format!("{cwd}/{path}"))
                };
                joined.and_then(|joined| match normalise(&joined) {
                    Normalised::Path(path) => Some(path),
                    Normalised::Escapes => None,
                })
            }
        };
        if name == "pushd" {
            place.stack.push(place.cwd.clone());
        }
        place.previous = std::mem::replace(&mut place.cwd, dir);
    }

    /// Whether the word `path` (as a path, `~` for the home directory) names a
    /// protected path, or a folder holding one: as written, after `=` if it holds
    /// one, and in the forms the home and working directories give it.
    fn protect(&self, word: &Analysed) -> Step {
        self.protect_path(word, true)
    }

    /// `words` with each word's unquoted braces expanded into the words the shell
    /// makes of them ([`shell_braces`]), counted against [`MAX_BRACE_PATHS`].
    fn braces_expanded(&self, words: Vec<Analysed>) -> Result<Vec<Analysed>, CommandVerdict> {
        let braces = |word: &Analysed| word.braces.contains('{');
        if !words.iter().any(braces) {
            return Ok(words);
        }
        let mut out = Vec::with_capacity(words.len());
        for mut word in words {
            if !braces(&word) {
                out.push(word);
                continue;
            }
            let spent = || CommandVerdict::Unparseable(BRACE_PATHS_SPENT.to_owned());
            let made = shell_braces(&word.braces).ok_or_else(spent)?;
            if made == [word.braces.as_str()] {
                out.push(word);
                continue;
            }
            let total = self.brace_paths.get() + made.len();
            self.brace_paths.set(total.min(MAX_BRACE_PATHS + 1));
            if total > MAX_BRACE_PATHS {
                return Err(spent());
            }
            // The path differs from the text only by the `~` it has for a leading
            // `$HOME`, which braces leave as it is.
            let home = (word.path != word.text)
                .then(|| (word.text.len() + 1).checked_sub(word.path.len()))
                .flatten()
                .and_then(|end| word.text.get(..end));
            // What the word runs is judged once, with its first word.
            let (mut scripts, mut runs) = (
                std::mem::take(&mut word.scripts),
                std::mem::take(&mut word.words),
            );
            let mut first = true;
            for braces in made {
                let Some(text) = unescaped(&braces) else {
                    continue;
                };
                let made = if std::mem::take(&mut first) {
                    Made::First
                } else {
                    Made::Later
                };
                let path = match home.and_then(|home| text.strip_prefix(home)) {
                    Some(rest) => format!("~{rest}"),
                    None => text.clone(),
                };
                out.push(Analysed {
                    glob: has_unquoted_glob(&braces),
                    text,
                    path,
                    written: word.written.clone(),
                    literal: word.literal,
                    scripts: std::mem::take(&mut scripts),
                    words: std::mem::take(&mut runs),
                    braces,
                    made,
                    parameters: word.parameters.clone(),
                    defaults: Vec::new(),
                    outputs: Vec::new(),
                    written_text: word.written_text,
                });
            }
        }
        Ok(out)
    }

    /// [`Judge::protect`], the folders that hold a protected path too when `folders`.
    fn protect_path(&self, word: &Analysed, folders: bool) -> Step {
        let path = word.path.as_str();
        let Some(globs) = &self.rule.protect else {
            return Ok(());
        };
        let mut forms = vec![path];
        if let Some((_, value)) = path.split_once('=')
            && !value.is_empty()
        {
            forms.push(value);
        }
        for form in forms {
            if form.is_empty() || form.contains('\0') {
                continue;
            }
            let mut candidates = Vec::new();
            if let Normalised::Path(p) = normalise(form) {
                candidates.push(p);
            }
            let home_relative = form == "~" || form.starts_with("~/");
            if home_relative {
                if let Some(home) = &self.home
                    && let Normalised::Path(p) = normalise(&format!("{home}/{}", &form[1..]))
                {
                    candidates.push(p);
                }
            } else if !form.starts_with('/')
                && !form.starts_with('~')
                && let Some(cwd) = &self.place.cwd
                && let Normalised::Path(p) = normalise(&format!("{cwd}/{form}"))
            {
                candidates.push(p);
            }
            // An absolute path inside the home, the session's or the current
            // working directory, also relative to them.
            let mut more = Vec::new();
            for candidate in candidates.iter().filter(|c| c.starts_with('/')) {
                if let Some(home) = &self.home
                    && let Some(rest) = inside(candidate, home, false)
                {
                    more.push(if rest == "." {
                        "~".to_owned()
                    } else {
                        format!("~/{rest}")
                    });
                }
                for dir in [&self.start, &self.place.cwd].into_iter().flatten() {
                    if dir.starts_with('/')
                        && let Some(rest) = inside(candidate, dir, false)
                    {
                        more.push(rest);
                    }
                }
            }
            candidates.extend(more);
            // Each once (the word read from an unknown working directory is itself).
            let mut seen = std::collections::HashSet::new();
            candidates.retain(|candidate| seen.insert(candidate.clone()));
            for candidate in candidates {
                // A folder is protected when what it holds is: a name no glob
                // spells stands for its files.
                let held = format!("{}/\0", candidate.trim_end_matches('/'));
                let except = self.rule.protect_except.as_ref();
                if let Some(glob) = globs
                    .first_match_unless(&candidate, except)
                    .or_else(|| globs.first_match_unless(&held, except))
                {
                    return Err(CommandVerdict::Protected(candidate, glob.to_owned()));
                }
                if !word.glob && !folders {
                    continue;
                }
                let holding = self.rule.folders.get_or_init(|| Folders::new(globs));
                // A word with wildcards or classes names what it may expand to (its
                // braces made words of their own before).
                let wild = word.glob.then(|| WildPath::new(&candidate));
                if let Some(wild) = &wild
                    && let Some(glob) = holding.may_be_named(globs.texts(), wild)
                {
                    return Err(CommandVerdict::Protected(candidate, glob.to_owned()));
                }
                // A folder that holds a protected path.
                if !folders {
                    continue;
                }
                if let Some(wild) = &wild
                    && let Some(at) =
                        (holding.globs.texts().iter()).position(|folder| wild.may_name(folder))
                {
                    return Err(CommandVerdict::Protected(candidate, holding.of[at].clone()));
                }
                if !excepts(except, &candidate)
                    && let Some(glob) = holding.first_match(&candidate)
                {
                    return Err(CommandVerdict::Protected(candidate, glob.to_owned()));
                }
            }
        }
        Ok(())
    }
}

/// Whether unquoted `text` expands as a pattern or braces: `*`, `?`, a `[` with a
/// `]` after it, a `{` with a `,` or `..` and a `}` after it (so that the test
/// command `[` and a lone `{` are words like others).
fn has_glob(text: &str) -> bool {
    if text.contains(['*', '?']) {
        return true;
    }
    let after = |open: char| text.find(open).map(|at| &text[at + 1..]);
    after('[').is_some_and(|rest| rest.contains(']'))
        || after('{')
            .is_some_and(|rest| rest.contains('}') && (rest.contains(',') || rest.contains("..")))
}

/// The text bash makes of the inside of an ANSI-C quoted string (`$'...'`, as
/// written): `\n`, `\t` and the other letters, `\\`, `\'`, `\"`, `\?`, octal
/// (`\101`), hexadecimal (`\x41`), Unicode (`\u00e9`, `\U0001F600`) and control
/// (`\cA`, `\c?`) escapes, another escape kept as written, and the text cut at the
/// first NUL as bash cuts it. `None` when what it makes is not UTF-8, or for a `\c`
/// before a `\`.
fn ansi_c(inside: &str) -> Option<String> {
    let bytes = inside.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    // Up to `most` digits of `radix` from `at`: their value and how many.
    let digits = |at: usize, radix: u32, most: usize| {
        let found = (bytes.get(at..).unwrap_or_default().iter())
            .take(most)
            .take_while(|b| char::from(**b).is_digit(radix))
            .count();
        let value = (bytes[at..at + found].iter()).fold(0u32, |value, b| {
            value * radix + char::from(*b).to_digit(radix).unwrap_or(0)
        });
        (value, found)
    };
    let mut at = 0;
    while at < bytes.len() {
        let (byte, next) = (bytes[at], bytes.get(at + 1).copied());
        at += 1;
        let Some(escaped) = next.filter(|_| byte == b'\\') else {
            out.push(byte);
            continue;
        };
        at += 1;
        match escaped {
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'e' | b'E' => out.push(0x1b),
            b'f' => out.push(0x0c),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(0x0b),
            b'\\' | b'\'' | b'"' | b'?' => out.push(escaped),
            b'0'..=b'7' => {
                let (value, found) = digits(at - 1, 8, 3);
                at += found - 1;
                out.push((value & 0xff) as u8);
            }
            b'x' | b'u' | b'U' => {
                let most = match escaped {
                    b'x' => 2,
                    b'u' => 4,
                    _ => 8,
                };
                let (value, found) = digits(at, 16, most);
                at += found;
                if found == 0 {
                    out.extend([b'\\', escaped]);
                } else if escaped == b'x' {
                    out.push(value as u8);
                } else {
                    let mut buffer = [0; 4];
                    out.extend(char::from_u32(value)?.encode_utf8(&mut buffer).as_bytes());
                }
            }
            b'c' => match bytes.get(at) {
                None => out.extend([b'\\', b'c']),
                Some(&control) if control.is_ascii() && control != b'\\' => {
                    at += 1;
                    out.push(match control {
                        b'?' => 0x7f,
                        _ => control.to_ascii_uppercase() & 0x1f,
                    });
                }
                Some(_) => return None,
            },
            _ => out.extend([b'\\', escaped]),
        }
    }
    if let Some(end) = out.iter().position(|&byte| byte == 0) {
        out.truncate(end);
    }
    String::from_utf8(out).ok()
}

/// Adds the pieces of the word `source` to `out`: text after quote removal,
/// expansions as written (and the word then not literal), substitutions to judge.
/// `quoted` tells the pieces are inside double quotes (or a here-document).
fn collect(
    source: &str,
    pieces: &[word::WordPieceWithSource],
    quoted: bool,
    reading: Reading<'_>,
    out: &mut Analysed,
) {
    let raw = |piece: &word::WordPieceWithSource| {
        source
            .get(piece.start_index..piece.end_index)
            .unwrap_or("")
            .to_owned()
    };
    for piece in pieces {
        let start = out.text.is_empty() && out.path.is_empty();
        let (text_before, braces_before) = (out.text.len(), out.braces.len());
        match &piece.piece {
            WordPiece::Text(text) => {
                if !quoted && has_glob(text) {
                    out.glob = true;
                }
                out.written_text |= !text.is_empty();
                out.text.push_str(text);
                out.path.push_str(text);
            }
            WordPiece::SingleQuotedText(text) => {
                out.written_text |= !text.is_empty();
                out.text.push_str(text);
                out.path.push_str(text);
            }
            WordPiece::AnsiCQuotedText(text) => match ansi_c(text) {
                Some(text) => {
                    out.written_text |= !text.is_empty();
                    out.text.push_str(&text);
                    out.path.push_str(&text);
                }
                None => {
                    out.literal = false;
                    let written = raw(piece);
                    out.text.push_str(&written);
                    out.path.push_str(&written);
                }
            },
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                collect(source, inner, true, reading, out);
            }
            WordPiece::TildeExpansion(TildeExpr::Home) => {
                out.text.push('~');
                out.path.push('~');
            }
            WordPiece::TildeExpansion(_) => {
                let written = raw(piece);
                out.text.push_str(&written);
                out.path.push_str(&written);
            }
            WordPiece::ParameterExpansion(expr) if substituted(expr, reading, quoted, out) => {}
            WordPiece::ParameterExpansion(expr) => {
                out.literal = false;
                let written = raw(piece);
                out.text.push_str(&written);
                let home = matches!(
                    expr,
                    ParameterExpr::Parameter {
                        parameter: Parameter::Named(name),
                        indirect: false,
                    } if name == "HOME"
                );
                if home && start {
                    out.path.push('~');
                } else {
                    out.path.push_str(&written);
                }
                // What a `${...}` holds may run programs: `${X:-$(cmd)}`.
                if let Some(inner) = written.strip_prefix("${").and_then(|w| w.strip_suffix('}'))
                    && inner.contains(['$', '`', '<', '>'])
                {
                    out.words.push(inner.to_owned());
                }
            }
            WordPiece::CommandSubstitution(script)
            | WordPiece::BackquotedCommandSubstitution(script) => {
                // Known by what it is written as, with the output it prints when
                // that is known ([`Judge::output`]).
                let written = raw(piece);
                if !out.parameters.contains(&written) {
                    out.parameters.push(written.clone());
                    out.outputs.push((written.clone(), script.clone()));
                }
                out.scripts.push(script.clone());
                if !substitute(&written, reading, quoted, out) {
                    out.literal = false;
                    out.text.push_str(&written);
                    out.path.push_str(&written);
                }
            }
            WordPiece::EscapeSequence(text) => {
                let escaped = text.strip_prefix('\\').unwrap_or(text);
                let kept = if !quoted || matches!(escaped, "$" | "`" | "\"" | "\\" | "\n") {
                    if escaped == "\n" { "" } else { escaped }
                } else {
                    text.as_str()
                };
                out.written_text |= !kept.is_empty();
                out.text.push_str(kept);
                out.path.push_str(kept);
            }
            WordPiece::ArithmeticExpression(expr) => {
                out.literal = false;
                let written = raw(piece);
                out.text.push_str(&written);
                out.path.push_str(&written);
                out.words.push(expr.value.clone());
            }
        }
        // What brace expansion reads: unquoted text as it is, the rest escaped (a
        // double-quoted sequence's pieces are added by the call above).
        let piece = &piece.piece;
        let quotes = matches!(
            piece,
            WordPiece::SingleQuotedText(_)
                | WordPiece::AnsiCQuotedText(_)
                | WordPiece::DoubleQuotedSequence(_)
                | WordPiece::GettextDoubleQuotedSequence(_)
        );
        if !matches!(
            piece,
            WordPiece::DoubleQuotedSequence(_) | WordPiece::GettextDoubleQuotedSequence(_)
        ) {
            let plain = !quoted && matches!(piece, WordPiece::Text(_));
            for c in out.text[text_before..].chars() {
                if c == '\\' || (!plain && BRACE_SPECIALS.contains(c)) {
                    out.braces.push('\\');
                }
                out.braces.push(c);
            }
        }
        if quotes && out.braces.len() == braces_before {
            out.braces.push_str("\\\"");
        }
    }
}

/// The characters brace expansion reads as its own ([`shell_braces`]), or as a
/// pattern's after it: escaped where quoted.
const BRACE_SPECIALS: &str = "\\{},.$*?[]";

mod builds;
mod consoles;
mod containers;
mod editors;
mod interpreters;
mod scripts;
use scripts::*;
mod values;
use values::*;
mod wildcards;

#[cfg(test)]
mod tests;
