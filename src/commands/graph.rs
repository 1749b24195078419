//! `toolreplay graph` and `toolreplay report`: the evidence graph of a transcript
//! (docs/graph.md), as JSON or Graphviz, and as a self-contained HTML report.

use std::fmt::Write as _;
use std::io::{Cursor, Write};
use std::path::Path;

use toolreplay_core::input::InputError;
use toolreplay_core::{CallMeta, Contexts, Scope};
use toolreplay_core::{
    Graph, GraphNode as Node, GraphTranscript as Transcript, Roles, build_graph,
    read_graph_transcript,
};

use crate::args::GraphFormat;
use crate::error::Error;
use crate::input::{self, ImportOptions as Options, import_transcript};
use crate::printer::{Printer, Status};
use crate::settings::GraphInputs;

/// The largest roles file read, in bytes.
const MAX_ROLES_BYTES: u64 = 16 << 20;

/// The graph of the inputs, with the transcript it was built from.
fn build(inputs: &GraphInputs, diagnostics: &mut dyn Write) -> Result<(Graph, Transcript), Error> {
    let stdin_count = [
        Some(&inputs.file),
        inputs.scope.as_ref(),
        inputs.roles.as_ref(),
    ]
    .into_iter()
    .flatten()
    .filter(|path| input::is_stdin(path))
    .count();
    if stdin_count > 1 {
        return Err(Error::Usage(
            "only one of FILE, --scope and --roles can be standard input".to_owned(),
        ));
    }
    let roles = match &inputs.roles {
        Some(path) => read_roles(path)?,
        None => Roles::builtin(),
    };
    let scope = match &inputs.scope {
        Some(path) => Some((input::read_scope(path)?, path)),
        None => None,
    };
    let (mut transcript, meta) = read_transcript_with_meta(&inputs.file, inputs.from, diagnostics)?;
    // A live session's prompts and answers make the claims layer.
    let sealed = transcript.chain.is_some() || inputs.from.is_some_and(Options::may_be_sealed);
    let context = toolreplay_core::input::context_path(&inputs.file);
    if sealed && !input::is_stdin(&inputs.file) && context.is_file() {
        transcript.messages = input::read_context(&context)?.messages;
    }
    if let Some((input::ScopeFile { digest, .. }, path)) = &scope {
        // Path rules read paths where a live session's calls ran.
        let sealed = transcript.chain.is_some() || inputs.from.is_some_and(Options::may_be_sealed);
        let judged = (path.as_path(), digest.as_str());
        // Path rules read paths where the calls ran: as an imported log says, or
        // as a live session's context file does.
        transcript.contexts = match Contexts::of_calls(&meta) {
            Some(contexts) => contexts,
            None => input::session_contexts(&inputs.file, sealed, judged, diagnostics)?,
        };
    }
    let scope: Option<Scope> = scope.map(|(file, _)| file.scope);
    // Replay's findings judge calls as `replay` does on the same input.
    let replay = inputs.judging.options(inputs.from.is_some());
    let graph = build_graph(&transcript, &roles, scope.as_ref(), &replay).map_err(|err| {
        Error::Input(InputError::Invalid {
            path: input::display(&inputs.file),
            message: err.to_string(),
        })
    })?;
    Ok((graph, transcript))
}

/// Reads the transcript at `path`, imported first with `from`, its records placed
/// on the lines of their calls in the input, with what an imported log says of each
/// call besides its record (none for a transcript).
pub(super) fn read_transcript_with_meta(
    path: &Path,
    from: Option<Options>,
    diagnostics: &mut dyn Write,
) -> Result<(Transcript, Vec<CallMeta>), Error> {
    match from {
        None => read_graph_transcript(input::open(path)?)
            .map(|transcript| (transcript, Vec::new()))
            .map_err(|err| Error::reading(path, err)),
        Some(options) => {
            let loaded = import_transcript(path, options, diagnostics)?;
            let mut transcript = read_graph_transcript(Cursor::new(&loaded.transcript))
                .map_err(|err| Error::reading(path, err))?;
            for record in &mut transcript.records {
                if let Some(&line) = usize::try_from(record.index)
                    .ok()
                    .and_then(|i| loaded.lines.get(i))
                {
                    record.line = line;
                }
            }
            // An agent's prompts and answers, read with its calls, make the claims
            // layer.
            transcript.messages = loaded.messages;
            Ok((transcript, loaded.meta))
        }
    }
}

/// Reads and parses a roles file.
pub(super) fn read_roles(path: &Path) -> Result<Roles, Error> {
    input::read_document(path, MAX_ROLES_BYTES, "roles file", |bytes| {
        Roles::parse(bytes).map_err(|err| (err.line as u64, err.message))
    })
}

/// `toolreplay graph FILE [--from F] [--scope S] [--roles R] --format json|dot`.
pub(super) fn graph(
    inputs: &GraphInputs,
    format: GraphFormat,
    printer: &mut Printer,
) -> Result<Status, Error> {
    let (graph, _) = build(inputs, &mut std::io::stderr())?;
    printer.print(&match format {
        GraphFormat::Json => json(&graph),
        GraphFormat::Dot => dot(&graph),
    })?;
    Ok(Status::Clean)
}

/// The graph as pretty JSON, ending with LF.
fn json(graph: &Graph) -> String {
    // A graph is strings, integers and maps with string keys: it always serialises.
    let mut text = serde_json::to_string_pretty(graph).unwrap_or_default();
    text.push('\n');
    text
}

/// A DOT quoted string.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => {
                let _ = write!(out, "\\\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A label cut to `limit` characters.
fn short(text: &str, limit: usize) -> String {
    if text.chars().count() > limit {
        let cut: String = text.chars().take(limit).collect();
        format!("{cut}...")
    } else {
        text.to_owned()
    }
}

/// The graph in Graphviz's DOT language: calls as boxes (findings in the label),
/// artifacts as notes, phases as clusters of their calls, edges labelled with
/// their type.
fn dot(graph: &Graph) -> String {
    let mut out = String::new();
    out.push_str("digraph toolreplay {\n  rankdir=LR;\n  node [fontname=\"monospace\"];\n");
    if graph.summary.claims.is_some() {
        out.push_str("  compound=true;\n");
    }
    let mut in_phase = std::collections::BTreeSet::new();
    for node in &graph.nodes {
        if let Node::Phase(phase) = node {
            let _ = writeln!(
                out,
                "  subgraph cluster_{} {{\n    label={};",
                phase.id,
                quoted(&format!("{} {}", phase.id, phase.phase.name()))
            );
            for index in &phase.calls {
                in_phase.insert(*index);
                let _ = writeln!(out, "    c{index};");
            }
            out.push_str("  }\n");
        }
    }
    for node in &graph.nodes {
        match node {
            Node::Call(call) => {
                let mut label = format!("{} {}", call.index, short(&call.tool, 40));
                if !call.findings.is_empty() {
                    for finding in &call.findings {
                        let _ = write!(label, "\n{}", finding.kind);
                    }
                }
                let _ = writeln!(
                    out,
                    "  {} [shape=box, label={}{}];",
                    call.id,
                    quoted(&label),
                    if call.findings.is_empty() {
                        ""
                    } else {
                        ", peripheries=2"
                    }
                );
            }
            Node::Artifact(artifact) => {
                let _ = writeln!(
                    out,
                    "  {} [shape=note, label={}];",
                    artifact.id,
                    quoted(&format!(
                        "{}: {}",
                        artifact.kind.name(),
                        short(&artifact.name, 60)
                    ))
                );
            }
            Node::Request(request) => {
                let _ = writeln!(
                    out,
                    "  {} [shape=oval, label={}];",
                    request.id,
                    quoted(&format!("request: {}", short(&request.text, 60)))
                );
            }
            Node::Claim(claim) => {
                let _ = writeln!(
                    out,
                    "  {} [shape=hexagon, label={}];",
                    claim.id,
                    quoted(&format!(
                        "{}: {}",
                        claim.verdict.name(),
                        short(&claim.text, 60)
                    ))
                );
            }
            Node::Phase(_) => {}
        }
    }
    // A request frames a phase: the edge goes to the phase's first call, clipped at
    // its cluster.
    let first_calls: std::collections::BTreeMap<&str, u64> = graph
        .nodes
        .iter()
        .filter_map(|node| match node {
            Node::Phase(phase) => Some((phase.id.as_str(), *phase.calls.first()?)),
            _ => None,
        })
        .collect();
    for edge in &graph.edges {
        match first_calls.get(edge.to.as_str()) {
            Some(first) => {
                let _ = writeln!(
                    out,
                    "  {} -> c{first} [label={}, lhead=cluster_{}];",
                    edge.from,
                    quoted(edge.kind.name()),
                    edge.to
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "  {} -> {} [label={}];",
                    edge.from,
                    edge.to,
                    quoted(edge.kind.name())
                );
            }
        }
    }
    out.push_str("}\n");
    out
}

/// `toolreplay report FILE [--from F] [--scope S] [--roles R] -o OUT.html`: the
/// report written atomically.
pub(super) fn report(
    inputs: &GraphInputs,
    output: Option<&Path>,
    printer: &mut Printer,
) -> Result<Status, Error> {
    let (graph, transcript) = build(inputs, &mut std::io::stderr())?;
    let html = crate::render::report::html(&graph, &transcript, &input::display(&inputs.file));
    let Some(output) = output else {
        printer.print(&html)?;
        return Ok(Status::Clean);
    };
    let write_error = |source| Error::Write {
        target: input::display(output),
        source,
    };
    let mut file = crate::output::atomic::AtomicFile::new(output).map_err(write_error)?;
    file.file()
        .write_all(html.as_bytes())
        .map_err(write_error)?;
    file.commit().map_err(write_error)?;
    Ok(Status::Clean)
}
