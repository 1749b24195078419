//! Findings as data: what was found, about which call.

/// What was found, with what the finding refers to: the kind, and the details of the
/// rule it breaks as data; [`finding_message`](crate::finding_message) writes them as words.
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
    /// An argument breaks the command rule `commands[rule]` of the tool.
    Command {
        /// The rule's position in the tool's `commands`.
        rule: usize,
        /// The JSON pointer of the argument.
        argument: Box<str>,
        /// What is wrong with it.
        problem: CommandProblem,
    },
    /// An argument breaks a rule of a role's entry (`tools['role:shell']`) rather
    /// than of the tool's own: the violation, whose rule counts in the role's lists.
    ByRole {
        /// The role whose entry holds the rule.
        role: crate::graph::PolicyRole,
        /// The violation, as the role's rule found it.
        violation: Box<ArgumentViolation>,
    },
}

/// What is wrong with an argument of a command rule. A command is shown as its
/// words after quote removal (expansions as written), bounded in length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandProblem {
    /// It is not a string.
    NotAString,
    /// It is longer than `limit` bytes, more than is parsed.
    TooLong {
        /// The most bytes parsed.
        limit: u64,
    },
    /// The shell parser cannot read it.
    Unparseable {
        /// Why, as the parser says it, on one line.
        reason: Box<str>,
    },
    /// Its commands nest deeper than `limit` levels (parsing again, unwrapping, or
    /// compound commands in one another).
    TooDeep {
        /// The most levels judged.
        limit: u64,
    },
    /// A simple command's program (or the string a shell, `eval` or `source`
    /// would read) is not known before it runs.
    UnknownProgram {
        /// The simple command.
        command: Box<str>,
    },
    /// A simple command matches a deny pattern.
    Denied {
        /// The simple command.
        command: Box<str>,
        /// The top-level simple command it is run by, when another (a wrapper, a
        /// substitution, a shell's `-c`).
        within: Option<Box<str>>,
        /// The first deny pattern it matches, as written.
        pattern: Box<str>,
    },
    /// A simple command matches no allow pattern.
    NotAllowed {
        /// The simple command.
        command: Box<str>,
        /// The top-level simple command it is run by, when another.
        within: Option<Box<str>>,
    },
    /// A word or redirection names a protected path.
    Protected {
        /// The path, normalised.
        path: Box<str>,
        /// The first protect glob it matches, as written.
        glob: Box<str>,
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
    /// The `path` (a reading of the argument) cannot be placed where the tool would
    /// read it, for the reason `why`: the rule cannot judge it.
    Unplaced {
        /// The reading of the path.
        path: Box<str>,
        /// Why it cannot be placed.
        why: Box<str>,
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
    /// `budgets.per_tool['role:NAME']`: the calls to tools of the role count.
    PerRole(crate::graph::PolicyRole),
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
    /// followed by the canonical arguments (see `crate::fingerprint`).
    pub call: [u8; 32],
}
