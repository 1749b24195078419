//! The evidence graph of a transcript (docs/graph.md): call, artifact and phase
//! nodes, and edges each made by one documented rule, built deterministically from
//! the records, the replay findings and, with a scope, the scope findings.
//!
//! - A `call` node for every record, with its role's action, its phase, its
//!   findings and, for a sealed transcript, its link digest.
//! - An `artifact` node for every file, URL or command a role's arguments name. A
//!   file path is normalised as the policy's path rules normalise it, and made
//!   relative to the roles' root when it is inside it.
//! - A `phase` node for every run of consecutive calls of one phase (`inspect`,
//!   `change`, `execute`, or `validate`: an `execute` call after changes); calls
//!   without a role have no phase and do not end a run.
//! - Edges: `uses` and `produces` (call → artifact, rules `role-uses`,
//!   `role-produces`, `patch-names`, `text-names`), `checked_by` (artifact → call,
//!   `execute-after-change`), `informs` (call → call, `response-names`), `repeats`
//!   (`replay-redundant-call`), `diverges` (`replay-non-determinism`) and `flows`
//!   (`scope-flow-violation`).

mod names;
pub(crate) mod roles;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::BufRead;

use serde::Serialize;

use crate::chain::{Verdict, Verifier};
use crate::claims::{Atom, ClaimCounts, ClaimVerdict, Claims, Message};
use crate::context::Contexts;
use crate::finding::{Finding, FindingKind, finding_message};
use crate::json::{self, Value};
use crate::policy::paths::{Normalised, inside, normalise};
use crate::replay::{Options as ReplayOptions, Replay, fingerprints};
use crate::scope::{Scope, ScopeAudit};
use crate::transcript::{Lines, ReadError, parse_canonical_record, parse_link};

pub use roles::{Action, Argument, ArtifactKind, Role};
pub use roles::{PolicyRole, Roles, is_mcp_tool, policy_roles_of};

/// The version of the graph's JSON format.
pub(crate) const FORMAT_VERSION: u64 = 1;

/// One record as the graph reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallRecord {
    /// Its index: its position in the transcript.
    pub index: u64,
    /// The 1-based physical line of its record (or call, for an import) in the input.
    pub line: u64,
    /// The tool.
    pub tool: String,
    /// The canonical encoding of the arguments, an object.
    pub args: Vec<u8>,
    /// The canonical encoding of the response, an object.
    pub response: Vec<u8>,
    /// The link's digest, as written, when the input is sealed.
    pub digest: Option<String>,
}

/// A transcript read whole: its records, and for a sealed one the verdict on its
/// chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    /// The records, in order.
    pub records: Vec<CallRecord>,
    /// The chain's verdict, when the input is a sealed transcript.
    pub chain: Option<Verdict>,
    /// Where the calls ran, when known (a live session's context file): the scope
    /// findings are then those of [`Scope::audit_in`].
    pub contexts: Contexts,
    /// The conversation's prompts and answers, when known (a live session's context
    /// file): the graph then has its claims layer.
    pub messages: Vec<Message>,
}

/// Reads a transcript or a sealed transcript whole, told apart by its first
/// non-blank line as `diff` tells them (a `prev` or `digest` key makes it sealed):
/// a plain one with the strictness of `replay`, a sealed one with that of `verify`,
/// whose chain is checked. Memory is that of the records.
pub fn read(reader: impl BufRead) -> Result<Transcript, ReadError> {
    let mut lines = Lines::new(reader);
    let mut records = Vec::new();
    let mut sealed: Option<Verifier> = None;
    let mut first = true;
    while let Some((line, text)) = lines.next_line()? {
        if first {
            first = false;
            if crate::diff::is_sealed_line(text) {
                sealed = Some(Verifier::new());
            }
        }
        let index = records.len() as u64;
        let record = match &mut sealed {
            Some(verifier) => {
                let link = parse_link(line, text)?;
                verifier.check(line, &link);
                CallRecord {
                    index,
                    line,
                    tool: link.tool,
                    args: link.args,
                    response: link.response,
                    digest: Some(link.digest),
                }
            }
            None => {
                let record = parse_canonical_record(line, text, index)?;
                CallRecord {
                    index,
                    line,
                    tool: record.tool,
                    args: record.args,
                    response: record.response,
                    digest: None,
                }
            }
        };
        records.push(record);
    }
    Ok(Transcript {
        records,
        chain: sealed.map(Verifier::finish),
        contexts: Contexts::default(),
        messages: Vec::new(),
    })
}

/// The phase of a call, or of a run of calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Reading, searching, listing, fetching.
    Inspect,
    /// Writing, editing, creating, moving, deleting.
    Change,
    /// Running commands, with no change since the previous one.
    Execute,
    /// Running commands after changes: checking them.
    Validate,
}

impl Phase {
    /// Its name in the graph.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Inspect => "inspect",
            Phase::Change => "change",
            Phase::Execute => "execute",
            Phase::Validate => "validate",
        }
    }
}

/// A finding at a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// The audit that made it: `replay` or `scope`.
    pub audit: &'static str,
    /// The finding's kind, as reports name it.
    pub kind: &'static str,
    /// What the text report says of it.
    pub message: String,
    /// The other call it refers to, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub related: Option<u64>,
}

/// A call node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallNode {
    /// `c` and the index.
    pub id: String,
    /// The record's index.
    pub index: u64,
    /// The record's line in the input.
    pub line: u64,
    /// The tool.
    pub tool: String,
    /// The role's action, when the tool has a role.
    pub action: Option<Action>,
    /// The call's phase, when the tool has a role.
    pub phase: Option<Phase>,
    /// The link's digest, when the input is sealed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// The findings at this index: replay's, then scope's.
    pub findings: Vec<Note>,
}

/// An artifact node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArtifactNode {
    /// `a` and its number, in order of first mention.
    pub id: String,
    /// What it is.
    pub kind: ArtifactKind,
    /// Its name: the normalised path, the URL or the command line.
    pub name: String,
}

/// A phase node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PhaseNode {
    /// `p` and its number.
    pub id: String,
    /// The phase.
    pub phase: Phase,
    /// The indices of its calls, in order.
    pub calls: Vec<u64>,
}

/// A request node: a user's prompt, which frames the phases of its turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RequestNode {
    /// `r` and its turn's number.
    pub id: String,
    /// The turn it starts.
    pub turn: usize,
    /// The prompt.
    pub text: String,
    /// The first call of its turn.
    pub first_call: u64,
    /// The first call of the next turn, `null` for the last.
    pub end_call: Option<u64>,
}

/// A claim node: a sentence of a final answer, its atoms and its verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClaimNode {
    /// `k` and its number.
    pub id: String,
    /// The turn whose final answer says it.
    pub turn: usize,
    /// The sentence.
    pub text: String,
    /// The verdict.
    pub verdict: ClaimVerdict,
    /// Its atoms, each with its status and evidence.
    pub atoms: Vec<Atom>,
}

/// A node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Node {
    /// A call.
    Call(CallNode),
    /// An artifact.
    Artifact(ArtifactNode),
    /// A phase.
    Phase(PhaseNode),
    /// A user's prompt (with messages only).
    Request(RequestNode),
    /// A claim of a final answer (with messages only).
    Claim(ClaimNode),
}

/// What an edge says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    /// The call reads, searches, fetches or runs the artifact.
    Uses,
    /// The call writes, edits, creates, moves or deletes the artifact.
    Produces,
    /// The artifact is checked by the `execute` call.
    CheckedBy,
    /// The call's response names an artifact the later call then uses or produces.
    Informs,
    /// The call repeats the earlier identical call with no state change between.
    Repeats,
    /// The call's response differs from that of the earlier identical call.
    Diverges,
    /// A flow of the policy goes from the source call to the sink call.
    Flows,
    /// A request frames a phase of its turn.
    Frames,
    /// A call holds an atom of a claim.
    Supports,
}

impl EdgeKind {
    /// Its name in the graph.
    pub fn name(self) -> &'static str {
        match self {
            EdgeKind::Uses => "uses",
            EdgeKind::Produces => "produces",
            EdgeKind::CheckedBy => "checked_by",
            EdgeKind::Informs => "informs",
            EdgeKind::Repeats => "repeats",
            EdgeKind::Diverges => "diverges",
            EdgeKind::Flows => "flows",
            EdgeKind::Frames => "frames",
            EdgeKind::Supports => "supports",
        }
    }
}

/// A node's place, for edges: calls by index, artifacts by number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum End {
    Call(u64),
    Artifact(usize),
    Phase(usize),
    Request(usize),
    Claim(usize),
}

impl End {
    fn id(self) -> String {
        match self {
            End::Call(index) => format!("c{index}"),
            End::Artifact(number) => format!("a{number}"),
            End::Phase(number) => format!("p{number}"),
            End::Request(turn) => format!("r{turn}"),
            End::Claim(number) => format!("k{number}"),
        }
    }
}

/// An edge, with the rule that made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edge {
    /// What it says.
    #[serde(rename = "type")]
    pub kind: EdgeKind,
    /// The node it starts from.
    pub from: String,
    /// The node it goes to.
    pub to: String,
    /// The rule that made it.
    pub rule: &'static str,
    /// For `uses` and `produces`: the argument (a JSON pointer into `args`) that
    /// names the artifact.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub argument: Option<String>,
    /// For `informs`: the artifact the response names; for `flows`: the flow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
}

/// The chain of a sealed input, as the summary gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChainSummary {
    /// `intact` or `broken`.
    pub status: &'static str,
    /// The head digest, when intact.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// The position of the first broken link, when broken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_broken: Option<u64>,
}

/// The counts a reader wants first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// How many calls.
    pub calls: u64,
    /// Calls by tool.
    pub tools: BTreeMap<String, u64>,
    /// How many findings.
    pub findings: u64,
    /// Findings by kind.
    pub findings_by_kind: BTreeMap<String, u64>,
    /// Findings by tool.
    pub findings_by_tool: BTreeMap<String, u64>,
    /// The first non-determinism finding's index.
    pub divergence: Option<u64>,
    /// The chain, when the input is sealed.
    pub chain: Option<ChainSummary>,
    /// The agent of the scope, when one was given.
    pub scope_agent: Option<String>,
    /// The claims by verdict, when the input has messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claims: Option<ClaimCounts>,
}

/// The evidence graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Graph {
    /// `FORMAT_VERSION`.
    pub format_version: u64,
    /// The counts.
    pub summary: Summary,
    /// The roles in force for the tools the transcript calls, by tool.
    pub roles: BTreeMap<String, Role>,
    /// The root paths were made relative to, if any.
    pub root: Option<String>,
    /// Calls by index, artifacts by first mention, phases in order.
    pub nodes: Vec<Node>,
    /// By kind (in the order of `EdgeKind`), then start, then end.
    pub edges: Vec<Edge>,
}

/// Why a graph could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    /// The automaton over the artifacts' names could not be built.
    #[error("cannot search responses for the names of {artifacts} artifacts: {reason}")]
    Names {
        /// How many artifacts there are.
        artifacts: usize,
        /// Why.
        reason: String,
    },
    /// The findings of the audits could not be kept in a temporary file.
    #[error("cannot keep the findings: {0}")]
    Findings(String),
    /// A message names a link's digest that the sealed transcript's link does not
    /// have: its context file is another session's, or was edited.
    #[error("{0}")]
    Misplaced(String),
}

/// The artifacts met so far.
#[derive(Default)]
struct Artifacts {
    by_name: HashMap<(ArtifactKind, String), usize>,
    nodes: Vec<ArtifactNode>,
    /// Other spellings of each artifact's name met in arguments (`docs/../a.md`).
    spellings: Vec<BTreeSet<String>>,
    /// The calls that use or produce each artifact, in order, once each.
    touched_by: Vec<Vec<u64>>,
}

impl Artifacts {
    fn intern(&mut self, kind: ArtifactKind, name: String, spelling: &str) -> usize {
        let number = match self.by_name.get(&(kind, name.clone())) {
            Some(&number) => number,
            None => {
                let number = self.nodes.len();
                self.nodes.push(ArtifactNode {
                    id: End::Artifact(number).id(),
                    kind,
                    name: name.clone(),
                });
                self.spellings.push(BTreeSet::new());
                self.touched_by.push(Vec::new());
                self.by_name.insert((kind, name.clone()), number);
                number
            }
        };
        if spelling != name {
            self.spellings[number].insert(spelling.to_owned());
        }
        number
    }

    fn touch(&mut self, number: usize, index: u64) {
        let calls = &mut self.touched_by[number];
        if calls.last() != Some(&index) {
            calls.push(index);
        }
    }
}

/// The name of the artifact that `raw` names as a `kind`.
pub(crate) fn artifact_name(kind: ArtifactKind, raw: &str, root: Option<&str>) -> String {
    match kind {
        ArtifactKind::File => match normalise(raw) {
            Normalised::Path(path) => match root {
                Some(root) if path.starts_with('/') => inside(&path, root, false).unwrap_or(path),
                _ => path,
            },
            // A path that climbs above its start is named as written.
            Normalised::Escapes => raw.to_owned(),
        },
        ArtifactKind::Url | ArtifactKind::Command => raw.to_owned(),
    }
}

/// The strings an argument holds: a string, or the strings of an array (a command
/// given as an array of words is one string, its words joined with spaces).
pub(crate) fn strings(kind: ArtifactKind, value: &Value) -> Vec<String> {
    match value {
        Value::Str(text) if !text.is_empty() => vec![text.clone()],
        Value::Array(items) => {
            let words: Vec<&str> = items
                .iter()
                .filter_map(|item| match item {
                    Value::Str(text) if !text.is_empty() => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            if kind == ArtifactKind::Command {
                if words.is_empty() {
                    Vec::new()
                } else {
                    vec![words.join(" ")]
                }
            } else {
                words.into_iter().map(str::to_owned).collect()
            }
        }
        _ => Vec::new(),
    }
}

/// What tells edges apart, in their order: kind, start, end, rule, `via`.
type EdgeKey = (EdgeKind, End, End, &'static str, Option<String>);

/// Edges before sorting, each with its argument.
#[derive(Default)]
struct Edges {
    seen: BTreeMap<EdgeKey, Option<String>>,
}

impl Edges {
    fn add(
        &mut self,
        kind: EdgeKind,
        from: End,
        to: End,
        rule: &'static str,
        argument: Option<String>,
        via: Option<String>,
    ) {
        self.seen
            .entry((kind, from, to, rule, via))
            .or_insert(argument);
    }

    fn finish(self) -> Vec<Edge> {
        self.seen
            .into_iter()
            .map(|((kind, from, to, rule, via), argument)| Edge {
                kind,
                from: from.id(),
                to: to.id(),
                rule,
                argument,
                via,
            })
            .collect()
    }
}

/// Builds the evidence graph of `transcript` with `roles`, and with `scope` the
/// scope findings and `flows` edges.
///
/// The replay audit is the one `replay` makes, with every tool whose role changes
/// or executes counted as changing state (as `--mutating-tool` would add it).
/// Time and memory are linear in the size of the transcript, but for the edges:
/// responses are searched for the artifacts' names with one automaton.
pub fn build(
    transcript: &Transcript,
    roles: &Roles,
    scope: Option<&Scope>,
    replay: &ReplayOptions,
) -> Result<Graph, GraphError> {
    let records = &transcript.records;
    if let Some((_, message)) = crate::claims::misplaced_message(&transcript.messages, |i| {
        usize::try_from(i)
            .ok()
            .and_then(|i| records.get(i))
            .and_then(|record| record.digest.clone())
    }) {
        return Err(GraphError::Misplaced(message));
    }
    let mut walk = Walk {
        calls: Vec::with_capacity(records.len()),
        ..Walk::default()
    };
    for record in records {
        walk.record(record, roles);
    }
    let audited = audit(records, replay, scope, &transcript.contexts)?;
    let (findings_by_kind, findings_by_tool) =
        note_findings(&audited, &mut walk.edges, &mut walk.calls);
    informs(records, &walk.artifacts, &mut walk.edges)?;
    let mut summary = Summary {
        calls: records.len() as u64,
        tools: walk.tools,
        findings: audited.findings.len() as u64,
        findings_by_kind,
        findings_by_tool,
        divergence: audited.divergence,
        chain: transcript.chain.as_ref().map(chain_summary),
        scope_agent: scope.map(|scope| scope.agent.clone()),
        claims: None,
    };
    let layer = if transcript.messages.is_empty() {
        Vec::new()
    } else {
        let (layer, counts) = claims_layer(transcript, roles, &walk.phases, &mut walk.edges);
        summary.claims = Some(counts);
        layer
    };
    let mut nodes: Vec<Node> = walk.calls.into_iter().map(Node::Call).collect();
    nodes.extend(walk.artifacts.nodes.into_iter().map(Node::Artifact));
    nodes.extend(walk.phases.into_iter().map(Node::Phase));
    nodes.extend(layer);
    Ok(Graph {
        format_version: FORMAT_VERSION,
        summary,
        roles: walk.in_force,
        root: roles.root.clone(),
        nodes,
        edges: walk.edges.finish(),
    })
}

/// The claims layer (docs/graph.md): a request node for each prompt with a
/// `frames` edge to each phase holding a call of its turn, and a claim node for
/// each claim with a `supports` edge from each atom's evidence call (the rule the
/// evidence's, `via` the atom). Each response is searched once more, for the
/// claims' atoms.
fn claims_layer(
    transcript: &Transcript,
    roles: &Roles,
    phases: &[PhaseNode],
    edges: &mut Edges,
) -> (Vec<Node>, ClaimCounts) {
    let mut claims = Claims::new(&transcript.messages, roles);
    for record in &transcript.records {
        claims.observe(record.index, &record.tool, &record.args, &record.response);
    }
    let report = claims.finish();
    let mut nodes = Vec::new();
    for turn in &report.turns {
        let Some(text) = &turn.prompt else { continue };
        nodes.push(Node::Request(RequestNode {
            id: End::Request(turn.number).id(),
            turn: turn.number,
            text: text.clone(),
            first_call: turn.first_call,
            end_call: turn.end_call,
        }));
        for (number, phase) in phases.iter().enumerate() {
            if phase.calls.iter().any(|&index| {
                index >= turn.first_call && turn.end_call.is_none_or(|end| index < end)
            }) {
                edges.add(
                    EdgeKind::Frames,
                    End::Request(turn.number),
                    End::Phase(number),
                    "turn-calls",
                    None,
                    None,
                );
            }
        }
    }
    for (number, claim) in report.claims.into_iter().enumerate() {
        for atom in &claim.atoms {
            if let Some(support) = atom.support {
                edges.add(
                    EdgeKind::Supports,
                    End::Call(support.call),
                    End::Claim(number),
                    support.rule,
                    None,
                    Some(atom.text.clone()),
                );
            }
        }
        nodes.push(Node::Claim(ClaimNode {
            id: End::Claim(number).id(),
            turn: claim.turn,
            text: claim.text,
            verdict: claim.verdict,
            atoms: claim.atoms,
        }));
    }
    (nodes, report.counts)
}

/// An artifact a call names, with the rule and the argument that name it.
type Named = (usize, &'static str, String);

/// The walk over the records in order: the call nodes, the artifacts the roles name,
/// the phases, the edges of the roles, and the tools and roles in force.
#[derive(Default)]
struct Walk {
    artifacts: Artifacts,
    edges: Edges,
    calls: Vec<CallNode>,
    phases: Vec<PhaseNode>,
    /// The artifacts produced since the last execute, in order of first production.
    produced_since_execute: Vec<usize>,
    /// The same, as a set.
    produced_set: std::collections::HashSet<usize>,
    changed_since_execute: bool,
    tools: BTreeMap<String, u64>,
    in_force: BTreeMap<String, Role>,
}

impl Walk {
    /// Takes the next record: its call node, and what its tool's role says of it.
    fn record(&mut self, record: &CallRecord, roles: &Roles) {
        *self.tools.entry(record.tool.clone()).or_default() += 1;
        let role = roles.get(&record.tool);
        let phase = role.map(|role| self.role_call(record, role, roles.root.as_deref()));
        self.calls.push(CallNode {
            id: End::Call(record.index).id(),
            index: record.index,
            line: record.line,
            tool: record.tool.clone(),
            action: role.map(|role| role.action),
            phase,
            digest: record.digest.clone(),
            findings: Vec::new(),
        });
    }

    /// A call whose tool has `role`: the artifacts it uses and produces, the
    /// `checked-by` edges of an execute, and its phase.
    fn role_call(&mut self, record: &CallRecord, role: &Role, root: Option<&str>) -> Phase {
        self.in_force
            .entry(record.tool.clone())
            .or_insert_with(|| role.clone());
        let call = End::Call(record.index);
        let (used, produced) = self.named_by(record, role, root);
        let phase = match role.action {
            Action::Inspect => Phase::Inspect,
            Action::Change => Phase::Change,
            Action::Execute if self.changed_since_execute => Phase::Validate,
            Action::Execute => Phase::Execute,
        };
        if role.action == Action::Execute {
            self.checked_by(call);
        }
        for (number, rule, argument) in used {
            self.artifacts.touch(number, record.index);
            let artifact = End::Artifact(number);
            self.edges
                .add(EdgeKind::Uses, call, artifact, rule, Some(argument), None);
        }
        for (number, rule, argument) in produced {
            self.artifacts.touch(number, record.index);
            if self.produced_set.insert(number) {
                self.produced_since_execute.push(number);
            }
            let artifact = End::Artifact(number);
            self.edges.add(
                EdgeKind::Produces,
                call,
                artifact,
                rule,
                Some(argument),
                None,
            );
        }
        if role.action == Action::Change {
            self.changed_since_execute = true;
        }
        match self.phases.last_mut() {
            Some(last) if last.phase == phase => last.calls.push(record.index),
            _ => self.phases.push(PhaseNode {
                id: format!("p{}", self.phases.len()),
                phase,
                calls: vec![record.index],
            }),
        }
        phase
    }

    /// The artifacts `record` uses and produces as `role` names them in its
    /// arguments (arguments that cannot be parsed name none).
    fn named_by(
        &mut self,
        record: &CallRecord,
        role: &Role,
        root: Option<&str>,
    ) -> (Vec<Named>, Vec<Named>) {
        let args = std::str::from_utf8(&record.args)
            .ok()
            .and_then(|text| json::parse(text).ok())
            .unwrap_or(Value::Null);
        let mut used = Vec::new();
        let mut produced = Vec::new();
        for argument in &role.uses {
            for number in self.named(argument, role.kind, &args, root) {
                used.push((number, "role-uses", argument.as_str().to_owned()));
            }
        }
        for argument in &role.produces {
            for number in self.named(argument, role.kind, &args, root) {
                produced.push((number, "role-produces", argument.as_str().to_owned()));
            }
        }
        for argument in &role.patch {
            if let Some(Value::Str(patch)) = argument.find(&args) {
                for raw in roles::patch_files(patch) {
                    let name = artifact_name(ArtifactKind::File, raw, root);
                    let number = self.artifacts.intern(ArtifactKind::File, name, raw);
                    produced.push((number, "patch-names", argument.as_str().to_owned()));
                }
            }
        }
        for argument in &role.texts {
            if let Some(Value::Str(text)) = argument.find(&args) {
                for raw in roles::text_urls(text) {
                    let name = artifact_name(ArtifactKind::Url, raw, root);
                    let number = self.artifacts.intern(ArtifactKind::Url, name, raw);
                    used.push((number, "text-names", argument.as_str().to_owned()));
                }
            }
        }
        (used, produced)
    }

    /// The artifacts of kind `kind` that `argument` of `args` names.
    fn named(
        &mut self,
        argument: &roles::Argument,
        kind: ArtifactKind,
        args: &Value,
        root: Option<&str>,
    ) -> Vec<usize> {
        argument
            .find(args)
            .map(|value| strings(kind, value))
            .unwrap_or_default()
            .into_iter()
            .map(|raw| {
                let name = artifact_name(kind, &raw, root);
                self.artifacts.intern(kind, name, &raw)
            })
            .collect()
    }

    /// An execute `call`: every artifact produced since the last execute is checked
    /// by it.
    fn checked_by(&mut self, call: End) {
        for &number in &self.produced_since_execute {
            self.edges.add(
                EdgeKind::CheckedBy,
                End::Artifact(number),
                call,
                "execute-after-change",
                None,
                None,
            );
        }
        self.produced_since_execute.clear();
        self.produced_set.clear();
        self.changed_since_execute = false;
    }
}

/// The findings of the audits, each with the audit that made it, in index order
/// (replay's before scope's at one index); the replay's divergence; the scope's agent.
struct Audited {
    findings: Vec<(&'static str, Finding)>,
    divergence: Option<u64>,
    agent: String,
}

/// The replay audit of `records`, every tool whose role in force changes or executes
/// counted as changing state, and with `scope` the scope audit.
fn audit(
    records: &[CallRecord],
    options: &ReplayOptions,
    scope: Option<&Scope>,
    contexts: &Contexts,
) -> Result<Audited, GraphError> {
    let mut replay = Replay::with_options(options.clone());
    for record in records {
        let (call, response) = fingerprints(&record.tool, &record.args, &record.response);
        replay.observe_fingerprints(record.line, record.index, &record.tool, call, response);
    }
    let replay = replay.finish();
    let kept = |err: std::io::Error| GraphError::Findings(err.to_string());
    let mut findings: Vec<(&'static str, Finding)> = replay
        .findings
        .to_vec()
        .map_err(kept)?
        .into_iter()
        .map(|finding| ("replay", finding))
        .collect();
    let mut agent = String::new();
    if let Some(scope) = scope {
        let mut audit = ScopeAudit::new(scope);
        for record in records {
            let context = contexts.at(record.index);
            let checked =
                scope.check_call_in(&record.tool, (&record.args, context), &record.response);
            audit.observe(record.line, &record.tool, checked);
        }
        let report = audit.finish();
        agent = report.agent;
        findings.extend(
            report
                .findings
                .to_vec()
                .map_err(kept)?
                .into_iter()
                .map(|finding| ("scope", finding)),
        );
    }
    // Stable: replay's findings before scope's at one index.
    findings.sort_by_key(|(_, finding)| finding.index);
    Ok(Audited {
        findings,
        divergence: replay.divergence,
        agent,
    })
}

/// Notes each finding on its call, with the edges of the findings that relate two
/// calls; gives the counts of findings by kind and by tool.
fn note_findings(
    audited: &Audited,
    edges: &mut Edges,
    calls: &mut [CallNode],
) -> (BTreeMap<String, u64>, BTreeMap<String, u64>) {
    let mut findings_by_kind: BTreeMap<String, u64> = BTreeMap::new();
    let mut findings_by_tool: BTreeMap<String, u64> = BTreeMap::new();
    for (audit, finding) in &audited.findings {
        *findings_by_kind
            .entry(finding.kind.name().to_owned())
            .or_default() += 1;
        *findings_by_tool.entry(finding.tool.clone()).or_default() += 1;
        let this = End::Call(finding.index);
        match &finding.kind {
            FindingKind::RedundantCall { previous } => edges.add(
                EdgeKind::Repeats,
                this,
                End::Call(*previous),
                "replay-redundant-call",
                None,
                None,
            ),
            FindingKind::NonDeterminism { first } => edges.add(
                EdgeKind::Diverges,
                this,
                End::Call(*first),
                "replay-non-determinism",
                None,
                None,
            ),
            FindingKind::FlowViolation(flow) => edges.add(
                EdgeKind::Flows,
                End::Call(flow.source),
                this,
                "scope-flow-violation",
                None,
                Some(flow.flow.to_string()),
            ),
            _ => {}
        }
        if let Some(call) = usize::try_from(finding.index)
            .ok()
            .and_then(|i| calls.get_mut(i))
        {
            call.findings.push(Note {
                audit,
                kind: finding.kind.name(),
                message: finding_message(finding, &audited.agent),
                related: finding.kind.related_index(),
            });
        }
    }
    (findings_by_kind, findings_by_tool)
}

/// The `informs` edges: the first later call to use or produce an artifact a
/// response names.
fn informs(
    records: &[CallRecord],
    artifacts: &Artifacts,
    edges: &mut Edges,
) -> Result<(), GraphError> {
    let finder = names::Finder::new(&artifacts.nodes, &artifacts.spellings).map_err(|reason| {
        GraphError::Names {
            artifacts: artifacts.nodes.len(),
            reason,
        }
    })?;
    let Some(finder) = finder else {
        return Ok(());
    };
    for record in records {
        for number in finder.named_in(&record.response) {
            let later = &artifacts.touched_by[number];
            let at = later.partition_point(|&index| index <= record.index);
            if let Some(&next) = later.get(at) {
                edges.add(
                    EdgeKind::Informs,
                    End::Call(record.index),
                    End::Call(next),
                    "response-names",
                    None,
                    Some(End::Artifact(number).id()),
                );
            }
        }
    }
    Ok(())
}

/// The summary of a sealed transcript's chain.
fn chain_summary(verdict: &Verdict) -> ChainSummary {
    match verdict {
        Verdict::Intact { head, .. } => ChainSummary {
            status: "intact",
            head: Some(head.clone()),
            first_broken: None,
        },
        Verdict::Broken { position, .. } => ChainSummary {
            status: "broken",
            head: None,
            first_broken: Some(*position),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::roles::patch_files;
    use super::{CallRecord, EdgeKind, Node, Roles, Transcript, build};

    fn record(index: u64, tool: &str, args: &str, response: &str) -> CallRecord {
        CallRecord {
            index,
            line: index + 1,
            tool: tool.to_owned(),
            args: args.as_bytes().to_vec(),
            response: response.as_bytes().to_vec(),
            digest: None,
        }
    }

    #[test]
    fn patches_name_their_files() {
        let patch = "*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** Move to: b.go\n*** Add File: c/d.go\r\n*** Delete File: \n*** End Patch";
        assert_eq!(patch_files(patch), ["a.go", "b.go", "c/d.go"]);
    }

    #[test]
    fn a_role_removed_leaves_a_bare_call() {
        let roles = Roles::parse(br#"{"roles_version": 1, "tools": {"Read": null}}"#).unwrap();
        assert!(roles.get("Read").is_none());
        assert!(roles.get("Write").is_some());
        let err = Roles::parse(b"{\"roles_version\": 1,\n\"tools\": {\"x\": {\"kind\": \"url\"}}}")
            .unwrap_err();
        assert_eq!((err.line, err.field.as_str()), (2, "tools.x.action"));
    }

    /// Gemini CLI's web_fetch names its URLs in its prompt; Copilot CLI's in `url`;
    /// Codex's apply_patch in its hooks holds its patch in `command`.
    #[test]
    fn texts_and_patches_of_every_agent_name_their_artifacts() {
        let records = vec![
            record(
                0,
                "web_fetch",
                r#"{"prompt":"Compare https://a.example/x and https://b.example/."}"#,
                "{}",
            ),
            record(1, "web_fetch", r#"{"url":"https://c.example/"}"#, "{}"),
            record(
                2,
                "apply_patch",
                r#"{"command":"*** Begin Patch\n*** Add File: d.md\n+x\n*** End Patch"}"#,
                "{}",
            ),
        ];
        let graph = build(
            &Transcript {
                records,
                chain: None,
                contexts: crate::context::Contexts::default(),
                messages: Vec::new(),
            },
            &Roles::builtin(),
            None,
            &crate::ReplayOptions::default(),
        )
        .unwrap();
        let mut edges: Vec<(String, String)> = graph
            .edges
            .iter()
            .filter(|edge| matches!(edge.kind, EdgeKind::Uses | EdgeKind::Produces))
            .map(|edge| (edge.from.clone(), edge.rule.to_string()))
            .collect();
        edges.sort();
        assert_eq!(
            edges,
            [
                ("c0".to_owned(), "text-names".to_owned()),
                ("c0".to_owned(), "text-names".to_owned()),
                ("c1".to_owned(), "role-uses".to_owned()),
                ("c2".to_owned(), "patch-names".to_owned()),
            ]
        );
    }

    /// Many artifacts and responses naming many of them: each response is searched
    /// once, and each name found gives at most one edge.
    #[test]
    fn informs_goes_to_the_first_later_user_only() {
        let mut records = Vec::new();
        let listing: Vec<String> = (0..300).map(|i| format!("f{i}.txt")).collect();
        let response = format!(r#"{{"files":"{}"}}"#, listing.join(" "));
        records.push(record(0, "search", "{}", &response));
        for i in 0..300u64 {
            records.push(record(
                i + 1,
                "read_file",
                &format!(r#"{{"path":"f{}.txt"}}"#, i % 150),
                "{}",
            ));
        }
        let graph = build(
            &Transcript {
                records,
                chain: None,
                contexts: crate::context::Contexts::default(),
                messages: Vec::new(),
            },
            &Roles::builtin(),
            None,
            &crate::ReplayOptions::default(),
        )
        .unwrap();
        let informs: Vec<_> = graph
            .edges
            .iter()
            .filter(|edge| edge.kind == EdgeKind::Informs)
            .collect();
        // Files f0 to f149 are read, each first by call i + 1, and again later;
        // f150 to f299 are never read, so they are no artifacts.
        assert_eq!(informs.len(), 150);
        assert!(informs.iter().all(|edge| edge.from == "c0"));
        assert_eq!(informs[0].to, "c1");
        assert_eq!(informs[149].to, "c150");
        let artifacts = graph
            .nodes
            .iter()
            .filter(|node| matches!(node, Node::Artifact(_)))
            .count();
        assert_eq!(artifacts, 150);
    }
}
