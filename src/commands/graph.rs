//! `toolreplay graph` and `toolreplay report`: the evidence graph of a transcript
//! (docs/graph.md), as JSON or Graphviz, and as a self-contained HTML report.

use std::fmt::Write as _;
use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};

use toolreplay_core::Scope;
use toolreplay_core::{
    Graph, GraphNode as Node, GraphTranscript as Transcript, Roles, build_graph,
    read_graph_transcript,
};

use crate::error::Error;
use crate::input::{self, ImportOptions as Options, import_transcript};
use crate::output::{Outcome, Output, Status};

/// The examples of `graph --help`.
pub const GRAPH_EXAMPLES: &str = "\
Examples:
  toolreplay graph run.jsonl > graph.json
  toolreplay graph sealed.jsonl --scope policy.json
  toolreplay graph --from claude-code session.jsonl --roles roles.json
  toolreplay graph run.jsonl --format dot | dot -Tsvg > graph.svg

Exit status: 0 printed (findings and a broken chain are in the graph), 2 the input is
invalid.";

/// The examples of `report --help`.
pub const REPORT_EXAMPLES: &str = "\
Examples:
  toolreplay report run.jsonl -o report.html
  toolreplay report sealed.jsonl --scope policy.json -o report.html
  toolreplay report --from claude-code session.jsonl -o report.html

Exit status: 0 written (findings and a broken chain are in the report), 2 the input
is invalid or the file cannot be written (nothing is written).";

/// The largest roles file read, in bytes.
pub const MAX_ROLES_BYTES: u64 = 16 << 20;

/// The format of `graph`'s output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum GraphFormat {
    /// The nodes and edges as one JSON document (docs/graph.md).
    #[default]
    Json,
    /// Graphviz's DOT language.
    Dot,
}

/// The arguments of `graph` and `report` that name their inputs.
#[derive(Debug, clap::Args)]
pub struct InputArgs {
    /// The transcript or sealed transcript (JSON Lines); - reads standard input.
    file: PathBuf,
    #[command(flatten)]
    from: crate::cli::FromArgs,
    /// A scope file: its findings join replay's, and its flows make `flows` edges.
    #[arg(long, value_name = "SCOPE")]
    scope: Option<PathBuf>,
    /// A roles file (JSON) that adds roles to the built-in ones or overrides them.
    #[arg(long, value_name = "ROLES")]
    roles: Option<PathBuf>,
}

impl InputArgs {
    fn inputs(&self) -> Result<Inputs<'_>, Error> {
        Ok(Inputs {
            file: &self.file,
            from: self.from.options()?,
            scope: self.scope.as_deref(),
            roles: self.roles.as_deref(),
        })
    }
}

/// What `graph` and `report` read: the transcript, and the optional scope and
/// roles files.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// The transcript (or sealed transcript, or log with `from`).
    pub file: &'a Path,
    /// Import the file from this format first.
    pub from: Option<Options>,
    /// A scope file, for the scope findings and `flows` edges.
    pub scope: Option<&'a Path>,
    /// A roles file.
    pub roles: Option<&'a Path>,
}

/// The graph of the inputs, with the transcript it was built from.
pub fn build(
    inputs: Inputs<'_>,
    diagnostics: &mut dyn Write,
) -> Result<(Graph, Transcript), Error> {
    let stdin_count = [Some(inputs.file), inputs.scope, inputs.roles]
        .into_iter()
        .flatten()
        .filter(|path| input::is_stdin(path))
        .count();
    if stdin_count > 1 {
        return Err(Error::Usage(
            "only one of FILE, --scope and --roles can be standard input".to_owned(),
        ));
    }
    let roles = match inputs.roles {
        Some(path) => read_roles(path)?,
        None => Roles::builtin(),
    };
    let scope: Option<Scope> = inputs.scope.map(super::scope::read_scope).transpose()?;
    let transcript = read_transcript(inputs.file, inputs.from, diagnostics)?;
    let graph = build_graph(&transcript, &roles, scope.as_ref()).map_err(|err| Error::Invalid {
        path: input::display(inputs.file),
        message: err.to_string(),
    })?;
    Ok((graph, transcript))
}

/// Reads the transcript at `path`, imported first with `from`, its records placed
/// on the lines of their calls in the input.
fn read_transcript(
    path: &Path,
    from: Option<Options>,
    diagnostics: &mut dyn Write,
) -> Result<Transcript, Error> {
    match from {
        None => read_graph_transcript(input::open(path)?).map_err(|err| Error::reading(path, err)),
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
            Ok(transcript)
        }
    }
}

/// Reads and parses a roles file.
fn read_roles(path: &Path) -> Result<Roles, Error> {
    input::read_document(path, MAX_ROLES_BYTES, "roles file", |bytes| {
        Roles::parse(bytes).map_err(|err| (err.line as u64, err.message))
    })
}

/// `toolreplay graph FILE [--from F] [--scope S] [--roles R] --format json|dot`.
pub fn graph(
    args: &InputArgs,
    format: GraphFormat,
    diagnostics: &mut dyn Write,
) -> Result<Outcome, Error> {
    let (graph, _) = build(args.inputs()?, diagnostics)?;
    let text = match format {
        GraphFormat::Json => json(&graph),
        GraphFormat::Dot => dot(&graph),
    };
    Ok(Outcome {
        output: Output::Text(text),
        status: Status::Clean,
    })
}

/// The graph as pretty JSON, ending with LF.
pub fn json(graph: &Graph) -> String {
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
pub fn dot(graph: &Graph) -> String {
    let mut out = String::new();
    out.push_str("digraph toolreplay {\n  rankdir=LR;\n  node [fontname=\"monospace\"];\n");
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
            Node::Phase(_) => {}
        }
    }
    for edge in &graph.edges {
        let _ = writeln!(
            out,
            "  {} -> {} [label={}];",
            edge.from,
            edge.to,
            quoted(edge.kind.name())
        );
    }
    out.push_str("}\n");
    out
}

/// `toolreplay report FILE [--from F] [--scope S] [--roles R] -o OUT.html`: the
/// report written atomically.
pub fn report(
    args: &InputArgs,
    output: &Path,
    diagnostics: &mut dyn Write,
) -> Result<Outcome, Error> {
    let inputs = args.inputs()?;
    let (graph, transcript) = build(inputs, diagnostics)?;
    let html = crate::render::report::html(&graph, &transcript, &input::display(inputs.file));
    let write_error = |source| Error::Write {
        target: input::display(output),
        source,
    };
    let mut file = crate::output::atomic::AtomicFile::new(output).map_err(write_error)?;
    file.file()
        .write_all(html.as_bytes())
        .map_err(write_error)?;
    file.commit().map_err(write_error)?;
    Ok(Outcome {
        output: Output::Nothing,
        status: Status::Clean,
    })
}
