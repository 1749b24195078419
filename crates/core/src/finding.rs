//! Findings of the audits (spec sections 3 and 4) and the words that name them.

use std::fmt::{self, Write as _};

/// What was found, with what the finding refers to: the kind, and the details of the
/// rule it breaks as data; [`finding_message`] writes them as words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FindingKind {
    /// The response differs from that of the first identical call, at `first`.
    NonDeterminism {
        /// The index of the first identical call.
        first: u64,
    },
    /// The call repeats the identical call at `previous` with no state change between.
    RedundantCall {
        /// The index of the most recent identical call.
        previous: u64,
    },
    /// The tool is not in the declared scope.
    PermissionOverreach,
    /// An argument breaks a rule of the tool's policy.
    ArgumentViolation(ArgumentViolation),
    /// The call is past a call budget.
    BudgetExceeded(BudgetExceeded),
    /// A detector matched in the response, or the response cannot be scanned.
    SensitiveResponse(SensitiveResponse),
    /// The call is a sink called after a call to a source of a flow.
    FlowViolation(FlowViolation),
}

/// How the arguments of a call break the rules of its tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgumentViolation {
    /// The arguments cannot be read as JSON, so that no rule can be evaluated: only
    /// from a caller that hands over something else than a canonical encoding.
    Unreadable {
        /// Why, as the parser says it.
        reason: Box<str>,
    },
    /// The arguments fail `args_schema`: the first failure in order of the failing
    /// argument's pointer, then the schema keyword's pointer.
    Schema {
        /// The JSON pointer of the failing argument; empty when the failure is about
        /// the arguments object itself.
        argument: Box<str>,
        /// The JSON pointer of the failing keyword in the schema.
        keyword: Box<str>,
    },
    /// `args_schema` cannot evaluate the arguments: an integer in them is beyond the
    /// range of a 64-bit float, which the validator reads numbers as.
    SchemaCannotEvaluate {
        /// The JSON pointer of the first such integer.
        argument: Box<str>,
    },
    /// An argument breaks the path rule `paths[rule]` of the tool.
    Path {
        /// The rule's position in the tool's `paths`.
        rule: usize,
        /// The JSON pointer of the argument.
        argument: Box<str>,
        /// What is wrong with it.
        problem: PathProblem,
    },
    /// An argument breaks the URL rule `urls[rule]` of the tool.
    Url {
        /// The rule's position in the tool's `urls`.
        rule: usize,
        /// The JSON pointer of the argument.
        argument: Box<str>,
        /// What is wrong with it.
        problem: UrlProblem,
    },
}

/// What is wrong with an argument of a path rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathProblem {
    /// It is not a string.
    NotAString,
    /// It holds a NUL character (as written, or percent-decoded), where the tools
    /// that receive it would end it.
    Nul,
    /// Its `..` climbs above where it starts.
    EscapesRoot,
    /// The normalised absolute `path` is outside the rule's `root`.
    OutsideRoot {
        /// The path, normalised.
        path: Box<str>,
        /// The rule's root.
        root: Box<str>,
    },
    /// The normalised `path` matches the deny glob `glob`.
    Denied {
        /// The path, normalised (relative to the root when inside it).
        path: Box<str>,
        /// The first deny glob it matches, as written.
        glob: Box<str>,
    },
    /// The normalised `path` matches no allow glob.
    NotAllowed {
        /// The path, normalised (relative to the root when inside it).
        path: Box<str>,
    },
}

/// What is wrong with an argument of a URL rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlProblem {
    /// It is not a string.
    NotAString,
    /// It is not a valid absolute URL.
    Invalid,
    /// Its scheme is not one of the rule's.
    Scheme {
        /// The scheme, lower-cased.
        scheme: Box<str>,
    },
    /// It has no host, and the rule has host lists.
    NoHost,
    /// Its host cannot be normalised (the host parser refuses it), and the rule has
    /// host lists.
    HostUnreadable {
        /// The host as written in the URL.
        host: Box<str>,
    },
    /// URL parsers disagree on its host, and the rule has host lists.
    HostAmbiguous {
        /// The host as the WHATWG URL parser reads it, normalised; empty for none.
        whatwg: Box<str>,
        /// The host as RFC 3986 reads it, normalised when it can be; empty for none;
        /// `None` when the authority has more than one `@`.
        rfc: Option<Box<str>>,
    },
    /// Its host matches a deny host.
    Denied {
        /// The host, normalised.
        host: Box<str>,
        /// The first deny host it matches, as written.
        pattern: Box<str>,
    },
    /// Its host matches no allow host.
    NotAllowed {
        /// The host, normalised.
        host: Box<str>,
    },
}

/// A call past a budget: the how-manieth call it is, and the budget it is over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetExceeded {
    /// Which budget.
    pub budget: Budget,
    /// The call's count: in all for the total, to its tool for a per-tool budget.
    pub call: u64,
    /// The most calls the budget allows.
    pub limit: u64,
}

/// A budget of a policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// `budgets.total`: every call counts.
    Total,
    /// `budgets.per_tool`: the calls to the finding's tool count.
    PerTool,
}

/// What a response holds that a detector looks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SensitiveResponse {
    /// The detector `detector` matched in a string of the response.
    Match {
        /// The JSON pointer of the string, or of the object whose key it is.
        pointer: Box<str>,
        /// Whether the string is a key of that object rather than a value.
        in_key: bool,
        /// The detector's name.
        detector: Box<str>,
    },
    /// The response cannot be read as JSON, so it cannot be shown free of what the
    /// detectors look for: only from a caller that hands over something else than a
    /// canonical encoding.
    Unscannable {
        /// Why, as the parser says it.
        reason: Box<str>,
    },
}

/// A sink of a flow called after a source of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowViolation {
    /// The flow's name.
    pub flow: Box<str>,
    /// The index of the most recent call to a source of the flow.
    pub source: u64,
    /// The tool that call named.
    pub source_tool: Box<str>,
}

impl FindingKind {
    /// The index the finding refers to besides its own: the first identical call
    /// for non-determinism, the most recent one for redundant-call, the most recent
    /// call to a source for flow-violation.
    pub fn related_index(&self) -> Option<u64> {
        match self {
            FindingKind::NonDeterminism { first } => Some(*first),
            FindingKind::RedundantCall { previous } => Some(*previous),
            FindingKind::FlowViolation(flow) => Some(flow.source),
            FindingKind::PermissionOverreach
            | FindingKind::ArgumentViolation(_)
            | FindingKind::BudgetExceeded(_)
            | FindingKind::SensitiveResponse(_) => None,
        }
    }

    /// The kind's name as reports write it.
    pub fn name(&self) -> &'static str {
        match self {
            FindingKind::NonDeterminism { .. } => "non-determinism",
            FindingKind::RedundantCall { .. } => "redundant-call",
            FindingKind::PermissionOverreach => "permission-overreach",
            FindingKind::ArgumentViolation(_) => "argument-violation",
            FindingKind::BudgetExceeded(_) => "budget-exceeded",
            FindingKind::SensitiveResponse(_) => "sensitive-response",
            FindingKind::FlowViolation(_) => "flow-violation",
        }
    }
}

/// One finding of an audit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The index of the call it is about.
    pub index: u64,
    /// The tool that call named.
    pub tool: String,
    /// What was found.
    pub kind: FindingKind,
    /// The 1-based physical line of the call's record in the input.
    pub line: u64,
    /// What the call is, whatever its position: SHA-256 of the canonical tool name
    /// followed by the canonical arguments (see [`crate::fingerprint`]).
    pub call: [u8; 32],
}

/// A tool or agent name as reports write it: between single quotes, with `\`, `'`
/// and the characters that could break a line or hide escaped, so a finding is
/// always one line and shows what it names: the controls (C0, DEL, C1), the line
/// and paragraph separators, and the invisible format characters that reorder or
/// hide text (bidi embeddings, overrides, isolates and marks, zero-width spaces and
/// joiners, the byte order mark, the soft hyphen) are written `\uXXXX`.
pub fn quote_name(name: &str) -> String {
    Quoted(name).to_string()
}

/// A name as [`quote_name`] writes it, as a [`fmt::Display`] that writes it where it
/// goes, without a string of its own.
#[derive(Debug, Clone, Copy)]
pub struct Quoted<'a>(pub &'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('\'')?;
        write_escaped(self.0, f)?;
        f.write_char('\'')
    }
}

/// Appends `name` as [`quote_name`] writes it.
fn push_quoted(name: &str, out: &mut String) {
    out.push('\'');
    escape_into(name, out);
    out.push('\'');
}

/// Appends `value` in decimal, as `{}` writes it.
pub fn push_u64(value: u64, out: &mut String) {
    out.push_str(itoa::Buffer::new().format(value));
}

/// Writes `text` with the escapes of [`quote_name`], without the quotes.
pub(crate) fn escape_into(text: &str, out: &mut String) {
    // Writing to a string cannot fail.
    let _ = write_escaped(text, out);
}

/// Writes `text` with the escapes of [`quote_name`] to `out`: the runs between
/// escapes in one go, and the whole text at once when nothing in it is escaped, as
/// in most names.
fn write_escaped(text: &str, out: &mut impl fmt::Write) -> fmt::Result {
    let plain = |b: u8| (0x20..0x7f).contains(&b) && b != b'\\' && b != b'\'';
    if text.bytes().all(plain) {
        return out.write_str(text);
    }
    let mut run = 0;
    for (at, c) in text.char_indices() {
        let escaped = c == '\\' || c == '\'' || is_escaped(c);
        if !escaped {
            continue;
        }
        out.write_str(&text[run..at])?;
        run = at + c.len_utf8();
        match c {
            '\\' => out.write_str("\\\\")?,
            '\'' => out.write_str("\\'")?,
            c => write!(out, "\\u{:04x}", u32::from(c))?,
        }
    }
    out.write_str(&text[run..])
}

/// Whether `c` is written `\uXXXX` by [`quote_name`]: a control, a line or
/// paragraph separator, or an invisible format character (Unicode category Cf
/// among the bidi and zero-width ones).
fn is_escaped(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{ad}'
            | '\u{61c}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
    )
}

/// A `prev` or `digest` field as found in a link: written as is when it is a plain
/// digest, with the escapes of [`quote_name`] otherwise, so the report keeps its lines.
pub fn shown_field(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(text, &mut out);
    out
}

/// What a finding says about its call, as the text report writes it after
/// `index N: KIND: ` (`agent` is used by permission-overreach only): every report
/// format writes these words, made here from the finding's data.
pub fn finding_message(finding: &Finding, agent: &str) -> String {
    let mut out = String::new();
    write_finding_message(finding, agent, &mut out);
    out
}

/// Appends the words of [`finding_message`] to `out`, without a string of their own:
/// what a report of many findings writes them with.
pub fn write_finding_message(finding: &Finding, agent: &str, out: &mut String) {
    // Writing to a string cannot fail.
    let _ = message(finding, agent, out);
}

fn message(finding: &Finding, agent: &str, out: &mut String) -> fmt::Result {
    let tool = Quoted(&finding.tool);
    match &finding.kind {
        // The kinds of which there can be a finding on most calls, written piece by
        // piece: the same words as `write!` would give, in less time.
        FindingKind::NonDeterminism { first } => {
            out.push_str("tool ");
            push_quoted(&finding.tool, out);
            out.push_str(" returned a different response than the identical call at index ");
            push_u64(*first, out);
            Ok(())
        }
        FindingKind::RedundantCall { previous } => {
            out.push_str("tool ");
            push_quoted(&finding.tool, out);
            out.push_str(" repeats the identical call at index ");
            push_u64(*previous, out);
            out.push_str(" with no state change between them");
            Ok(())
        }
        FindingKind::PermissionOverreach => {
            out.push_str("tool ");
            push_quoted(&finding.tool, out);
            out.push_str(" is not in the declared scope for agent ");
            push_quoted(agent, out);
            Ok(())
        }
        FindingKind::ArgumentViolation(violation) => {
            out.push_str("tool ");
            push_quoted(&finding.tool, out);
            out.push(' ');
            argument_words(violation, out)
        }
        FindingKind::BudgetExceeded(BudgetExceeded {
            budget,
            call,
            limit,
        }) => {
            let (over, rule) = match budget {
                Budget::Total => (" in all, over the total budget of ", " (budgets.total)"),
                Budget::PerTool => (" to this tool, over its budget of ", " (budgets.per_tool)"),
            };
            out.push_str("tool ");
            push_quoted(&finding.tool, out);
            out.push_str(" is call ");
            push_u64(*call, out);
            out.push_str(over);
            push_u64(*limit, out);
            out.push_str(rule);
            Ok(())
        }
        FindingKind::SensitiveResponse(SensitiveResponse::Match {
            pointer,
            in_key,
            detector,
        }) => {
            let (place, matches) = if *in_key {
                (" response has a key in ", " that matches detector ")
            } else {
                (" response field ", " matches detector ")
            };
            out.push_str("tool ");
            push_quoted(&finding.tool, out);
            out.push_str(place);
            push_quoted(pointer, out);
            out.push_str(matches);
            push_quoted(detector, out);
            Ok(())
        }
        FindingKind::SensitiveResponse(SensitiveResponse::Unscannable { reason }) => {
            write!(out, "tool {tool} response cannot be scanned: {reason}")
        }
        FindingKind::FlowViolation(FlowViolation {
            flow,
            source,
            source_tool,
        }) => {
            out.push_str("tool ");
            push_quoted(&finding.tool, out);
            out.push_str(" is a sink called after the source ");
            push_quoted(source_tool, out);
            out.push_str(" at index ");
            push_u64(*source, out);
            out.push_str(" (flow ");
            push_quoted(flow, out);
            out.push(')');
            Ok(())
        }
    }
}

/// Writes the words of an argument violation after the tool's name.
fn argument_words(violation: &ArgumentViolation, out: &mut String) -> fmt::Result {
    match violation {
        ArgumentViolation::Unreadable { reason } => {
            write!(out, "arguments cannot be read: {reason}")
        }
        ArgumentViolation::Schema { argument, keyword } => {
            if argument.is_empty() {
                out.push_str("arguments fail");
            } else {
                write!(out, "argument {} fails", Quoted(argument))?;
            }
            write!(out, " args_schema at keyword {}", Quoted(keyword))
        }
        ArgumentViolation::SchemaCannotEvaluate { argument } => write!(
            out,
            "arguments cannot be evaluated against args_schema: argument {} is an integer beyond the range of a 64-bit float",
            Quoted(argument)
        ),
        ArgumentViolation::Path {
            rule,
            argument,
            problem,
        } => {
            out.push_str("argument ");
            push_quoted(argument, out);
            out.push(' ');
            match problem {
                PathProblem::NotAString => out.push_str("is not a string"),
                PathProblem::Nul => out.push_str("holds a NUL character"),
                PathProblem::EscapesRoot => out.push_str("escapes above its root"),
                PathProblem::OutsideRoot { path, root } => {
                    out.push_str("path ");
                    push_quoted(path, out);
                    out.push_str(" is outside root ");
                    push_quoted(root, out);
                }
                PathProblem::Denied { path, glob } => {
                    out.push_str("path ");
                    push_quoted(path, out);
                    out.push_str(" matches deny glob ");
                    push_quoted(glob, out);
                }
                PathProblem::NotAllowed { path } => {
                    out.push_str("path ");
                    push_quoted(path, out);
                    out.push_str(" matches no allow glob");
                }
            }
            out.push_str(" (paths[");
            push_u64(*rule as u64, out);
            out.push_str("])");
            Ok(())
        }
        ArgumentViolation::Url {
            rule,
            argument,
            problem,
        } => {
            write!(out, "argument {} ", Quoted(argument))?;
            // An empty host reads as no host.
            let reading = |host: &str| -> String {
                if host.is_empty() {
                    "no host".to_owned()
                } else {
                    quote_name(host)
                }
            };
            match problem {
                UrlProblem::NotAString => out.push_str("is not a string"),
                UrlProblem::Invalid => out.push_str("is not a valid URL"),
                UrlProblem::Scheme { scheme } => {
                    write!(out, "scheme {} is not allowed", Quoted(scheme))?
                }
                UrlProblem::NoHost => out.push_str("has no host"),
                UrlProblem::HostUnreadable { host } => {
                    write!(out, "host {} cannot be normalised", Quoted(host))?
                }
                UrlProblem::HostAmbiguous { whatwg, rfc } => match rfc {
                    Some(rfc) => write!(
                        out,
                        "host is ambiguous: {} to WHATWG URL parsers, {} to RFC 3986 parsers",
                        reading(whatwg),
                        reading(rfc)
                    )?,
                    None => write!(
                        out,
                        "host is ambiguous: {} to WHATWG URL parsers, and the authority has more than one '@'",
                        reading(whatwg)
                    )?,
                },
                UrlProblem::Denied { host, pattern } => write!(
                    out,
                    "host {} matches deny host {}",
                    Quoted(host),
                    Quoted(pattern)
                )?,
                UrlProblem::NotAllowed { host } => {
                    write!(out, "host {} matches no allow host", Quoted(host))?
                }
            }
            write!(out, " (urls[{rule}])")
        }
    }
}

/// The findings of an audit, in the order they were made, kept in a compact binary
/// encoding: in memory up to [`Findings::MEMORY_BYTES`], then in an anonymous
/// temporary file, so that the memory of an audit does not grow with its findings.
/// They are read back in order by [`Findings::iter`], as often as needed.
///
/// A failure to write the temporary file is kept, and given by every later read:
/// findings are never dropped in silence.
#[derive(Debug, Default)]
pub struct Findings {
    /// Encoded findings not yet in the file (all of them while there is no file).
    pending: Vec<u8>,
    /// The temporary file, once the findings outgrew memory.
    file: Option<std::fs::File>,
    /// How many bytes the file holds.
    file_len: u64,
    /// How many findings were pushed.
    len: u64,
    /// The first write error, if any.
    error: Option<std::io::ErrorKind>,
}

impl Findings {
    /// How many encoded bytes are kept in memory before they move to a file.
    pub const MEMORY_BYTES: usize = 4 << 20;

    /// No findings.
    pub fn new() -> Self {
        Findings::default()
    }

    /// The findings of `found`, in order.
    pub fn from_vec(found: Vec<Finding>) -> Self {
        let mut findings = Findings::new();
        for finding in found {
            findings.push(&finding);
        }
        findings
    }

    /// How many findings there are.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds `finding` after the others.
    pub fn push(&mut self, finding: &Finding) {
        self.push_with(|pending| encode(finding, pending));
    }

    /// Adds the finding of kind `kind` on the call of `tool` at `index`, on line
    /// `line`, whose fingerprint is `call`, after the others: as [`Findings::push`]
    /// does with that [`Finding`], without making it.
    pub fn push_call(
        &mut self,
        index: u64,
        line: u64,
        call: &[u8; 32],
        tool: &str,
        kind: &FindingKind,
    ) {
        self.push_with(|pending| {
            encode_call(index, line, call, tool, pending);
            encode_kind(kind, pending);
        });
    }

    /// Adds the finding that `encode` writes.
    fn push_with(&mut self, encode: impl FnOnce(&mut Vec<u8>)) {
        self.len += 1;
        if self.error.is_some() {
            return;
        }
        encode(&mut self.pending);
        if self.pending.len() >= Self::MEMORY_BYTES
            && let Err(err) = self.spill()
        {
            self.error = Some(err.kind());
            self.pending = Vec::new();
        }
    }

    /// How many encoded bytes [`Findings::park`] leaves in memory.
    pub const PARKED_BYTES: usize = 64 << 10;

    /// Readies findings that are only kept to be read later (one file's among many):
    /// more than [`Findings::PARKED_BYTES`] of them go to the temporary file, and the
    /// memory kept for more is given back, so that many sets of findings held at
    /// once stay small.
    pub fn park(&mut self) {
        if self.error.is_none()
            && self.pending.len() > Self::PARKED_BYTES
            && let Err(err) = self.spill()
        {
            self.error = Some(err.kind());
            self.pending = Vec::new();
        }
        self.pending.shrink_to_fit();
    }

    /// Moves the pending bytes to the file, made on first use.
    fn spill(&mut self) -> std::io::Result<()> {
        use std::io::Write as _;
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(tempfile::tempfile()?),
        };
        file.write_all(&self.pending)?;
        self.file_len += self.pending.len() as u64;
        self.pending.clear();
        Ok(())
    }

    /// The error that kept findings out of their temporary file, if one did: then
    /// every read of them fails, and a report of them can fail before it starts.
    ///
    /// ```
    /// use toolreplay_core::finding::{Finding, FindingKind, Findings};
    ///
    /// let mut findings = Findings::new();
    /// findings.push(&Finding {
    ///     index: 1,
    ///     tool: "search".to_owned(),
    ///     kind: FindingKind::RedundantCall { previous: 0 },
    ///     line: 2,
    ///     call: [0; 32],
    /// });
    /// assert!(findings.kept().is_ok());
    /// ```
    pub fn kept(&self) -> std::io::Result<()> {
        self.error.map_or(Ok(()), |kind| Err(unkept(kind)))
    }

    /// The findings in order; an error (the temporary file failed) ends them.
    pub fn iter(&self) -> FindingsIter<'_> {
        FindingsIter {
            source: Source {
                findings: self,
                at: 0,
            },
            buffer: Vec::new(),
            start: 0,
            source_ended: false,
            left: self.len,
            failed: self.error.is_some(),
            error: self.error,
        }
    }

    /// Hands each finding to `each`, in order, as [`Findings::iter`] reads them, but
    /// each read into the same [`Finding`], so that reading many findings does not
    /// allocate a tool name for each. The first error, of reading or of `each`, ends
    /// it.
    ///
    /// ```
    /// use toolreplay_core::finding::{Finding, FindingKind, Findings};
    ///
    /// let finding = |index, tool: &str| Finding {
    ///     index,
    ///     tool: tool.to_owned(),
    ///     kind: FindingKind::RedundantCall { previous: 0 },
    ///     line: index + 1,
    ///     call: [0; 32],
    /// };
    /// let findings = Findings::from_vec(vec![finding(1, "search"), finding(2, "fetch")]);
    /// let mut read = Vec::new();
    /// findings.read_each(|f| {
    ///     read.push(f.clone());
    ///     Ok(())
    /// })?;
    /// assert_eq!(read, [finding(1, "search"), finding(2, "fetch")]);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn read_each(
        &self,
        mut each: impl FnMut(&Finding) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut findings = self.iter();
        let mut finding = blank();
        while let Some(read) = findings.next_into(&mut finding) {
            read?;
            each(&finding)?;
        }
        Ok(())
    }

    /// The findings in a vector, read back whole.
    pub fn to_vec(&self) -> std::io::Result<Vec<Finding>> {
        self.iter().collect()
    }

    /// The findings that `keep` returns, each changed as it says, in order: how
    /// findings are moved to other lines or filtered once made.
    pub fn rewrite(
        &self,
        mut keep: impl FnMut(Finding) -> Option<Finding>,
    ) -> std::io::Result<Findings> {
        let mut out = Findings::new();
        for finding in self.iter() {
            if let Some(finding) = keep(finding?) {
                out.push(&finding);
            }
        }
        match out.error {
            Some(kind) => Err(kind.into()),
            None => Ok(out),
        }
    }
}

/// Two stores are equal when they read back the same findings; one that does not
/// read back is equal to none.
impl PartialEq for Findings {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len
            && self.iter().zip(other.iter()).all(|pair| match pair {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            })
    }
}

impl Eq for Findings {}

/// The bytes of the file, then the pending ones.
struct Source<'a> {
    findings: &'a Findings,
    at: u64,
}

impl std::io::Read for Source<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let findings = self.findings;
        if self.at < findings.file_len {
            let Some(file) = &findings.file else {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            };
            let left = usize::try_from(findings.file_len - self.at).unwrap_or(usize::MAX);
            let want = buf.len().min(left);
            let n = read_at(file, &mut buf[..want], self.at)?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            self.at += n as u64;
            return Ok(n);
        }
        let start = usize::try_from(self.at - findings.file_len).unwrap_or(usize::MAX);
        let rest = findings.pending.get(start..).unwrap_or_default();
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n as u64;
        Ok(n)
    }
}

#[cfg(unix)]
fn read_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, at)
}

#[cfg(windows)]
fn read_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, at)
}

#[cfg(not(any(unix, windows)))]
fn read_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    use std::io::{Read as _, Seek as _};
    let mut file = file;
    file.seek(std::io::SeekFrom::Start(at))?;
    file.read(buf)
}

/// The findings of a [`Findings`], in order.
pub struct FindingsIter<'a> {
    source: Source<'a>,
    /// Bytes read from the source; those from `start` on are not decoded yet.
    buffer: Vec<u8>,
    start: usize,
    /// Whether the source has given all its bytes.
    source_ended: bool,
    left: u64,
    failed: bool,
    error: Option<std::io::ErrorKind>,
}

/// How many bytes [`FindingsIter`] reads at a time.
const READ_BYTES: usize = 1 << 16;

impl FindingsIter<'_> {
    /// Reads more bytes after those not decoded yet (at least [`READ_BYTES`] more,
    /// however long the finding they end in).
    fn refill(&mut self) -> std::io::Result<()> {
        use std::io::Read as _;
        self.buffer.drain(..self.start);
        self.start = 0;
        let kept = self.buffer.len();
        self.buffer.resize(kept + READ_BYTES, 0);
        let read = loop {
            match self.source.read(&mut self.buffer[kept..]) {
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        let n = read.inspect_err(|_| self.buffer.truncate(kept))?;
        self.buffer.truncate(kept + n);
        self.source_ended = n == 0;
        Ok(())
    }
}

impl FindingsIter<'_> {
    /// Reads the next finding into `finding` (none left: `None`), as [`Iterator::next`]
    /// gives it, but keeping the room of `finding`'s tool.
    fn next_into(&mut self, finding: &mut Finding) -> Option<std::io::Result<()>> {
        if self.failed {
            self.failed = false;
            self.left = 0;
            return Some(Err(unkept(self.error.unwrap_or(std::io::ErrorKind::Other))));
        }
        if self.left == 0 {
            return None;
        }
        loop {
            let mut input = &self.buffer[self.start..];
            let short = match decode_into(&mut input, finding) {
                Ok(()) => {
                    self.start = self.buffer.len() - input.len();
                    self.left -= 1;
                    return Some(Ok(()));
                }
                Err(short) => short,
            };
            let failure = match short {
                Short::Incomplete if !self.source_ended => match self.refill() {
                    Ok(()) => continue,
                    Err(err) => err,
                },
                Short::Incomplete => std::io::ErrorKind::UnexpectedEof.into(),
                Short::Corrupt => corrupt(),
            };
            self.left = 0;
            return Some(Err(failure));
        }
    }
}

impl Iterator for FindingsIter<'_> {
    type Item = std::io::Result<Finding>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut finding = blank();
        self.next_into(&mut finding)
            .map(|read| read.map(|()| finding))
    }
}

/// A finding to read others into.
fn blank() -> Finding {
    Finding {
        index: 0,
        tool: String::new(),
        kind: FindingKind::PermissionOverreach,
        line: 0,
        call: [0; 32],
    }
}

/// The error of findings that could not be kept in their temporary file.
fn unkept(kind: std::io::ErrorKind) -> std::io::Error {
    std::io::Error::new(kind, "the findings could not be kept in a temporary file")
}

fn put_u64(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn put_str(out: &mut Vec<u8>, text: &str) {
    put_u64(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

fn put_usize(out: &mut Vec<u8>, value: usize) {
    put_u64(out, value as u64);
}

/// Writes `finding` as bytes that [`decode`] reads back.
fn encode(finding: &Finding, out: &mut Vec<u8>) {
    encode_call(
        finding.index,
        finding.line,
        &finding.call,
        &finding.tool,
        out,
    );
    encode_kind(&finding.kind, out);
}

/// Writes what a finding says of its call, as [`encode`] does.
fn encode_call(index: u64, line: u64, call: &[u8; 32], tool: &str, out: &mut Vec<u8>) {
    put_u64(out, index);
    put_u64(out, line);
    out.extend_from_slice(call);
    put_str(out, tool);
}

/// Writes a finding's kind, as [`encode`] does after its call.
fn encode_kind(kind: &FindingKind, out: &mut Vec<u8>) {
    match kind {
        FindingKind::NonDeterminism { first } => {
            out.push(0);
            put_u64(out, *first);
        }
        FindingKind::RedundantCall { previous } => {
            out.push(1);
            put_u64(out, *previous);
        }
        FindingKind::PermissionOverreach => out.push(2),
        FindingKind::ArgumentViolation(violation) => {
            out.push(3);
            match violation {
                ArgumentViolation::Unreadable { reason } => {
                    out.push(0);
                    put_str(out, reason);
                }
                ArgumentViolation::Schema { argument, keyword } => {
                    out.push(1);
                    put_str(out, argument);
                    put_str(out, keyword);
                }
                ArgumentViolation::SchemaCannotEvaluate { argument } => {
                    out.push(2);
                    put_str(out, argument);
                }
                ArgumentViolation::Path {
                    rule,
                    argument,
                    problem,
                } => {
                    out.push(3);
                    put_usize(out, *rule);
                    put_str(out, argument);
                    match problem {
                        PathProblem::NotAString => out.push(0),
                        PathProblem::Nul => out.push(1),
                        PathProblem::EscapesRoot => out.push(2),
                        PathProblem::OutsideRoot { path, root } => {
                            out.push(3);
                            put_str(out, path);
                            put_str(out, root);
                        }
                        PathProblem::Denied { path, glob } => {
                            out.push(4);
                            put_str(out, path);
                            put_str(out, glob);
                        }
                        PathProblem::NotAllowed { path } => {
                            out.push(5);
                            put_str(out, path);
                        }
                    }
                }
                ArgumentViolation::Url {
                    rule,
                    argument,
                    problem,
                } => {
                    out.push(4);
                    put_usize(out, *rule);
                    put_str(out, argument);
                    match problem {
                        UrlProblem::NotAString => out.push(0),
                        UrlProblem::Invalid => out.push(1),
                        UrlProblem::Scheme { scheme } => {
                            out.push(2);
                            put_str(out, scheme);
                        }
                        UrlProblem::NoHost => out.push(3),
                        UrlProblem::HostUnreadable { host } => {
                            out.push(4);
                            put_str(out, host);
                        }
                        UrlProblem::HostAmbiguous { whatwg, rfc } => {
                            out.push(5);
                            put_str(out, whatwg);
                            match rfc {
                                Some(rfc) => {
                                    out.push(1);
                                    put_str(out, rfc);
                                }
                                None => out.push(0),
                            }
                        }
                        UrlProblem::Denied { host, pattern } => {
                            out.push(6);
                            put_str(out, host);
                            put_str(out, pattern);
                        }
                        UrlProblem::NotAllowed { host } => {
                            out.push(7);
                            put_str(out, host);
                        }
                    }
                }
            }
        }
        FindingKind::BudgetExceeded(BudgetExceeded {
            budget,
            call,
            limit,
        }) => {
            out.push(4);
            out.push(match budget {
                Budget::Total => 0,
                Budget::PerTool => 1,
            });
            put_u64(out, *call);
            put_u64(out, *limit);
        }
        FindingKind::SensitiveResponse(SensitiveResponse::Match {
            pointer,
            in_key,
            detector,
        }) => {
            out.push(5);
            out.push(0);
            put_str(out, pointer);
            out.push(u8::from(*in_key));
            put_str(out, detector);
        }
        FindingKind::SensitiveResponse(SensitiveResponse::Unscannable { reason }) => {
            out.push(5);
            out.push(1);
            put_str(out, reason);
        }
        FindingKind::FlowViolation(FlowViolation {
            flow,
            source,
            source_tool,
        }) => {
            out.push(6);
            put_str(out, flow);
            put_u64(out, *source);
            put_str(out, source_tool);
        }
    }
}

fn corrupt() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        "the temporary file of findings does not read back",
    )
}

/// Why a finding could not be read from the bytes at hand.
#[derive(Debug)]
enum Short {
    /// The bytes end inside the finding: more are needed.
    Incomplete,
    /// They are not a finding written by [`encode`].
    Corrupt,
}

type Decoded<T> = Result<T, Short>;

fn get_u8(input: &mut &[u8]) -> Decoded<u8> {
    let (&byte, rest) = input.split_first().ok_or(Short::Incomplete)?;
    *input = rest;
    Ok(byte)
}

fn get_bytes<'a>(input: &mut &'a [u8], len: usize) -> Decoded<&'a [u8]> {
    if input.len() < len {
        return Err(Short::Incomplete);
    }
    let (bytes, rest) = input.split_at(len);
    *input = rest;
    Ok(bytes)
}

fn get_u64(input: &mut &[u8]) -> Decoded<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = get_u8(input)?;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(Short::Corrupt)
}

fn get_usize(input: &mut &[u8]) -> Decoded<usize> {
    usize::try_from(get_u64(input)?).map_err(|_| Short::Corrupt)
}

fn get_text<'a>(input: &mut &'a [u8]) -> Decoded<&'a str> {
    let len = get_usize(input)?;
    let bytes = get_bytes(input, len)?;
    std::str::from_utf8(bytes).map_err(|_| Short::Corrupt)
}

fn get_str(input: &mut &[u8]) -> Decoded<Box<str>> {
    get_text(input).map(Box::from)
}

/// Reads back a finding written by [`encode`] into `finding`, whose tool keeps its
/// room from one finding to the next. Nothing of `finding` changes unless the whole
/// finding is read.
fn decode_into(input: &mut &[u8], finding: &mut Finding) -> Decoded<()> {
    let index = get_u64(input)?;
    let line = get_u64(input)?;
    let call = get_bytes(input, 32)?;
    let tool = get_text(input)?;
    let kind = match get_u8(input)? {
        0 => FindingKind::NonDeterminism {
            first: get_u64(input)?,
        },
        1 => FindingKind::RedundantCall {
            previous: get_u64(input)?,
        },
        2 => FindingKind::PermissionOverreach,
        3 => FindingKind::ArgumentViolation(match get_u8(input)? {
            0 => ArgumentViolation::Unreadable {
                reason: get_str(input)?,
            },
            1 => ArgumentViolation::Schema {
                argument: get_str(input)?,
                keyword: get_str(input)?,
            },
            2 => ArgumentViolation::SchemaCannotEvaluate {
                argument: get_str(input)?,
            },
            3 => {
                let rule = get_usize(input)?;
                let argument = get_str(input)?;
                let problem = match get_u8(input)? {
                    0 => PathProblem::NotAString,
                    1 => PathProblem::Nul,
                    2 => PathProblem::EscapesRoot,
                    3 => PathProblem::OutsideRoot {
                        path: get_str(input)?,
                        root: get_str(input)?,
                    },
                    4 => PathProblem::Denied {
                        path: get_str(input)?,
                        glob: get_str(input)?,
                    },
                    5 => PathProblem::NotAllowed {
                        path: get_str(input)?,
                    },
                    _ => return Err(Short::Corrupt),
                };
                ArgumentViolation::Path {
                    rule,
                    argument,
                    problem,
                }
            }
            4 => {
                let rule = get_usize(input)?;
                let argument = get_str(input)?;
                let problem = match get_u8(input)? {
                    0 => UrlProblem::NotAString,
                    1 => UrlProblem::Invalid,
                    2 => UrlProblem::Scheme {
                        scheme: get_str(input)?,
                    },
                    3 => UrlProblem::NoHost,
                    4 => UrlProblem::HostUnreadable {
                        host: get_str(input)?,
                    },
                    5 => {
                        let whatwg = get_str(input)?;
                        let rfc = match get_u8(input)? {
                            0 => None,
                            1 => Some(get_str(input)?),
                            _ => return Err(Short::Corrupt),
                        };
                        UrlProblem::HostAmbiguous { whatwg, rfc }
                    }
                    6 => UrlProblem::Denied {
                        host: get_str(input)?,
                        pattern: get_str(input)?,
                    },
                    7 => UrlProblem::NotAllowed {
                        host: get_str(input)?,
                    },
                    _ => return Err(Short::Corrupt),
                };
                ArgumentViolation::Url {
                    rule,
                    argument,
                    problem,
                }
            }
            _ => return Err(Short::Corrupt),
        }),
        4 => {
            let budget = match get_u8(input)? {
                0 => Budget::Total,
                1 => Budget::PerTool,
                _ => return Err(Short::Corrupt),
            };
            FindingKind::BudgetExceeded(BudgetExceeded {
                budget,
                call: get_u64(input)?,
                limit: get_u64(input)?,
            })
        }
        5 => FindingKind::SensitiveResponse(match get_u8(input)? {
            0 => SensitiveResponse::Match {
                pointer: get_str(input)?,
                in_key: match get_u8(input)? {
                    0 => false,
                    1 => true,
                    _ => return Err(Short::Corrupt),
                },
                detector: get_str(input)?,
            },
            1 => SensitiveResponse::Unscannable {
                reason: get_str(input)?,
            },
            _ => return Err(Short::Corrupt),
        }),
        6 => FindingKind::FlowViolation(FlowViolation {
            flow: get_str(input)?,
            source: get_u64(input)?,
            source_tool: get_str(input)?,
        }),
        _ => return Err(Short::Corrupt),
    };
    finding.index = index;
    finding.line = line;
    finding.call.copy_from_slice(call);
    finding.tool.clear();
    finding.tool.push_str(tool);
    finding.kind = kind;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{
        ArgumentViolation, Budget, BudgetExceeded, Finding, FindingKind, Findings, FlowViolation,
        PathProblem, SensitiveResponse, UrlProblem, finding_message, quote_name,
    };

    /// A finding of every kind and payload, with indices past 32 bits.
    fn every_kind() -> Vec<FindingKind> {
        use ArgumentViolation as A;
        let path = |problem| {
            FindingKind::ArgumentViolation(A::Path {
                rule: 3,
                argument: "/path".into(),
                problem,
            })
        };
        let url = |problem| {
            FindingKind::ArgumentViolation(A::Url {
                rule: usize::MAX,
                argument: "/url".into(),
                problem,
            })
        };
        vec![
            FindingKind::NonDeterminism { first: u64::MAX },
            FindingKind::RedundantCall { previous: 1 << 40 },
            FindingKind::PermissionOverreach,
            FindingKind::ArgumentViolation(A::Unreadable { reason: "r".into() }),
            FindingKind::ArgumentViolation(A::Schema {
                argument: "".into(),
                keyword: "/type".into(),
            }),
            FindingKind::ArgumentViolation(A::SchemaCannotEvaluate {
                argument: "/n".into(),
            }),
            path(PathProblem::NotAString),
            path(PathProblem::Nul),
            path(PathProblem::EscapesRoot),
            path(PathProblem::OutsideRoot {
                path: "/etc".into(),
                root: "/work".into(),
            }),
            path(PathProblem::Denied {
                path: ".env".into(),
                glob: "**/.env".into(),
            }),
            path(PathProblem::NotAllowed {
                path: "é😀".into()
            }),
            url(UrlProblem::NotAString),
            url(UrlProblem::Invalid),
            url(UrlProblem::Scheme {
                scheme: "sftp".into(),
            }),
            url(UrlProblem::NoHost),
            url(UrlProblem::HostUnreadable { host: "%zz".into() }),
            url(UrlProblem::HostAmbiguous {
                whatwg: "a".into(),
                rfc: Some("b".into()),
            }),
            url(UrlProblem::HostAmbiguous {
                whatwg: "".into(),
                rfc: None,
            }),
            url(UrlProblem::Denied {
                host: "evil.com".into(),
                pattern: "*.com".into(),
            }),
            url(UrlProblem::NotAllowed { host: "x".into() }),
            FindingKind::BudgetExceeded(BudgetExceeded {
                budget: Budget::Total,
                call: 8,
                limit: 7,
            }),
            FindingKind::BudgetExceeded(BudgetExceeded {
                budget: Budget::PerTool,
                call: u64::MAX,
                limit: 0,
            }),
            FindingKind::SensitiveResponse(SensitiveResponse::Match {
                pointer: "/t".into(),
                in_key: true,
                detector: "secrets".into(),
            }),
            FindingKind::SensitiveResponse(SensitiveResponse::Unscannable {
                reason: "deep".into(),
            }),
            FindingKind::FlowViolation(FlowViolation {
                flow: "web".into(),
                source: 5_000_000_000,
                source_tool: "fetch".into(),
            }),
        ]
    }

    /// Findings read back as they were pushed, past the memory bound (in the
    /// temporary file, then the pending bytes), with 64-bit indices kept whole.
    #[test]
    fn findings_read_back_in_order_past_memory() {
        let kinds = every_kind();
        let made: Vec<Finding> = (0..120_000u64)
            .map(|i| Finding {
                index: i << 33,
                tool: format!("tool-{}", i % 7),
                kind: kinds[(i as usize) % kinds.len()].clone(),
                line: u64::MAX - i,
                call: [(i % 251) as u8; 32],
            })
            .collect();
        let mut findings = Findings::new();
        for finding in &made {
            findings.push(finding);
        }
        assert!(findings.file.is_some(), "past the bound, in a file");
        assert_eq!(findings.len(), made.len() as u64);
        assert_eq!(findings.to_vec().expect("read back"), made);
        // Into one finding, each in turn: every kind after every other.
        let mut each = made.iter();
        findings
            .read_each(|f| {
                assert_eq!(Some(f), each.next());
                Ok(())
            })
            .expect("read back");
        assert!(each.next().is_none(), "every finding read");
        // Twice, and while another read is under way.
        let mut first = findings.iter();
        let _ = first.next();
        assert_eq!(findings.iter().count(), made.len());
        let odd = findings
            .rewrite(|f| ((f.index >> 33) % 2 == 1).then_some(f))
            .expect("rewritten");
        assert_eq!(odd.len(), made.len() as u64 / 2);
        assert_eq!(odd.iter().next().expect("one").expect("read"), made[1]);
    }

    /// Numbers are written as `{}` writes them.
    #[test]
    fn numbers_are_written_in_decimal() {
        for value in [0, 7, 10, 99, 100, 4_294_967_296, u64::MAX - 1, u64::MAX] {
            let mut out = String::from("at ");
            super::push_u64(value, &mut out);
            assert_eq!(out, format!("at {value}"));
        }
    }

    /// A finding longer than what is read at a time reads back whole, between short
    /// ones, from memory and from the file; `push_call` stores what `push` does.
    #[test]
    fn findings_longer_than_a_read_read_back_whole() {
        let long = Finding {
            index: 1,
            tool: "t".repeat(3 * super::READ_BYTES + 5),
            kind: FindingKind::SensitiveResponse(SensitiveResponse::Unscannable {
                reason: "r".repeat(super::READ_BYTES).into(),
            }),
            line: 2,
            call: [7; 32],
        };
        let short = |index: u64| Finding {
            index,
            tool: "read_file".into(),
            kind: FindingKind::RedundantCall { previous: 0 },
            line: index + 1,
            call: [1; 32],
        };
        let mut made = Vec::new();
        let mut findings = Findings::new();
        for i in 0..200_000u64 {
            let finding = if i % 50_000 == 7 {
                long.clone()
            } else {
                short(i)
            };
            if i % 2 == 0 {
                findings.push(&finding);
            } else {
                findings.push_call(
                    finding.index,
                    finding.line,
                    &finding.call,
                    &finding.tool,
                    &finding.kind,
                );
            }
            made.push(finding);
        }
        assert!(findings.file.is_some(), "past the bound, in a file");
        assert_eq!(findings.to_vec().expect("read back"), made);
    }

    /// A store cut short, or holding bytes that are no finding, reads back as an
    /// error after the findings before the damage, never as fewer findings.
    #[test]
    fn damaged_findings_read_back_as_an_error() {
        let mut findings = Findings::new();
        for kind in every_kind() {
            findings.push(&Finding {
                index: 3,
                tool: "t".into(),
                kind,
                line: 4,
                call: [0; 32],
            });
        }
        let whole = findings.to_vec().expect("read back");
        let mut cut = Findings::from_vec(whole.clone());
        cut.pending.truncate(cut.pending.len() - 1);
        let read: Vec<_> = cut.iter().collect();
        assert_eq!(read.len(), whole.len());
        assert!(read[..whole.len() - 1].iter().all(Result::is_ok));
        let err = read.last().expect("one").as_ref().expect_err("cut short");
        assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
        let mut each = 0;
        let err = cut.read_each(|_| {
            each += 1;
            Ok(())
        });
        assert_eq!(each, whole.len() - 1, "all but the cut one");
        assert_eq!(
            err.map_err(|e| e.kind()),
            Err(std::io::ErrorKind::UnexpectedEof)
        );
        let mut bad = Findings::from_vec(whole);
        // The kind of the first finding: no kind has this number.
        bad.pending[2 + 32 + 2] = 99;
        let err = bad.iter().next().expect("one").expect_err("corrupt");
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
    }

    #[test]
    fn parked_findings_keep_little_memory_and_read_back_whole() {
        let kinds = every_kind();
        let made = |count: u64| -> Vec<Finding> {
            (0..count)
                .map(|i| Finding {
                    index: i,
                    tool: format!("tool-{}", i % 3),
                    kind: kinds[(i as usize) % kinds.len()].clone(),
                    line: i + 1,
                    call: [(i % 13) as u8; 32],
                })
                .collect()
        };
        // A few: they stay in memory, the spare capacity given back.
        let few = made(3);
        let mut small = Findings::from_vec(few.clone());
        small.park();
        assert!(small.file.is_none(), "under the bound, in memory");
        assert_eq!(small.pending.capacity(), small.pending.len());
        assert_eq!(small.to_vec().expect("read back"), few);
        // More than the parked bound, less than the memory bound: to the file.
        let many = made(20_000);
        let mut large = Findings::from_vec(many.clone());
        assert!(large.file.is_none(), "under the memory bound until parked");
        large.park();
        assert!(large.file.is_some(), "parked past its bound, in a file");
        assert!(large.pending.capacity() <= Findings::PARKED_BYTES);
        assert_eq!(large.to_vec().expect("read back"), many);
    }

    /// What only a caller that hands over something else than a canonical encoding
    /// can meet: the checks fail closed, and say why.
    #[test]
    fn what_cannot_be_read_is_said() {
        let finding = |kind| Finding {
            index: 0,
            tool: "t".to_owned(),
            kind,
            line: 1,
            call: [0; 32],
        };
        let unreadable = finding(FindingKind::ArgumentViolation(
            ArgumentViolation::Unreadable {
                reason: "invalid UTF-8: byte 0xff at column 1".into(),
            },
        ));
        assert_eq!(
            finding_message(&unreadable, "a"),
            "tool 't' arguments cannot be read: invalid UTF-8: byte 0xff at column 1"
        );
        let unscannable = finding(FindingKind::SensitiveResponse(
            SensitiveResponse::Unscannable {
                reason: "invalid JSON: unterminated string, found end of input at column 7".into(),
            },
        ));
        assert_eq!(
            finding_message(&unscannable, "a"),
            "tool 't' response cannot be scanned: invalid JSON: unterminated string, found end of input at column 7"
        );
    }

    #[test]
    fn names_are_quoted_on_one_line() {
        assert_eq!(quote_name("read_file"), "'read_file'");
        assert_eq!(quote_name("it's"), r"'it\'s'");
        assert_eq!(quote_name(r"a\b"), r"'a\\b'");
        assert_eq!(
            quote_name("a\nb\u{7f}\u{85}\u{2028}\u{2029}"),
            r"'a\u000ab\u007f\u0085\u2028\u2029'"
        );
        assert_eq!(quote_name("é😀\u{a0}"), "'é😀\u{a0}'");
    }

    /// Characters that reorder or hide text are shown as escapes, so a name reads as
    /// what it is: `evil\u{202e}txt.exe` cannot pass for `evilexe.txt`.
    #[test]
    fn bidi_and_zero_width_characters_are_escaped() {
        assert_eq!(
            quote_name("a\u{202e}b\u{2066}\u{2067}\u{2068}\u{2069}c"),
            r"'a\u202eb\u2066\u2067\u2068\u2069c'"
        );
        assert_eq!(
            quote_name("\u{200b}\u{200c}\u{200d}\u{200e}\u{200f}\u{61c}\u{feff}\u{ad}\u{2060}"),
            r"'\u200b\u200c\u200d\u200e\u200f\u061c\ufeff\u00ad\u2060'"
        );
        assert_eq!(quote_name("\u{1b}[31mred"), r"'\u001b[31mred'");
        // Visible characters around them are kept.
        assert_eq!(
            quote_name("\u{2010}\u{2030}\u{2070}"),
            "'\u{2010}\u{2030}\u{2070}'"
        );
    }
}
