//! Report formats: the text of the specification (the default), a JSON document
//! ([`json`]) and SARIF 2.1.0 ([`sarif`]); and the commands that take a format.
//!
//! Renderers are pure: they return the report, and `main` writes it.

pub mod json;
pub mod sarif;

use std::path::Path;

use crate::color;
use crate::commands::{self, Outcome, Output};
use crate::error::Error;
use crate::input;
use crate::render;
use toolreplay_core::chain::Verdict;
use toolreplay_core::replay::ReplayReport;
use toolreplay_core::scope::ScopeReport;

/// The format of a report: the variants' documentation is their `--help` text;
/// the JSON schema is in [`json`], the SARIF layout in [`sarif`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// The text report of the specification.
    #[default]
    Text,
    /// One JSON document with every fact of the report (schema in README).
    Json,
    /// SARIF 2.1.0 for code-scanning dashboards.
    Sarif,
}

/// The replay report in `format` for the input named `file`; `colored` applies to
/// text only.
pub fn render_replay(report: &ReplayReport, file: &str, format: Format, colored: bool) -> String {
    match format {
        Format::Text => color::maybe(render::render_replay(report), colored),
        Format::Json => json::replay(report, file),
        Format::Sarif => sarif::replay(report, file),
    }
}

/// The scope report in `format`.
pub fn render_scope(
    report: &ScopeReport,
    file: &str,
    scope: &str,
    format: Format,
    colored: bool,
) -> String {
    match format {
        Format::Text => color::maybe(render::render_scope(report), colored),
        Format::Json => json::scope(report, file, scope),
        Format::Sarif => sarif::scope(report, file),
    }
}

/// The verify report in `format`.
pub fn render_verify(verdict: &Verdict, file: &str, format: Format, colored: bool) -> String {
    match format {
        Format::Text => color::maybe(render::render_verify(verdict), colored),
        Format::Json => json::verify(verdict, file),
        Format::Sarif => sarif::verify(verdict, file),
    }
}

fn outcome(clean: bool, text: String) -> Outcome {
    Outcome {
        status: commands::status(clean),
        output: Output::Text(text),
    }
}

/// `toolreplay replay FILE [--mutating-tool NAME]... [--format F]`
pub fn replay(
    path: &Path,
    mutating_tools: &[String],
    format: Format,
    colored: bool,
) -> Result<Outcome, Error> {
    let report = commands::replay_report(path, mutating_tools)?;
    let text = render_replay(&report, &input::display(path), format, colored);
    Ok(outcome(report.findings.is_empty(), text))
}

/// `toolreplay scope FILE SCOPE [--format F]`
pub fn scope(
    path: &Path,
    scope_path: &Path,
    format: Format,
    colored: bool,
) -> Result<Outcome, Error> {
    if input::is_stdin(path) && input::is_stdin(scope_path) {
        return Err(Error::Usage(
            "FILE and SCOPE cannot both be standard input".to_owned(),
        ));
    }
    let report = commands::scope_report(path, scope_path)?;
    let text = render_scope(
        &report,
        &input::display(path),
        &input::display(scope_path),
        format,
        colored,
    );
    Ok(outcome(report.findings.is_empty(), text))
}

/// `toolreplay verify FILE [--format F]`
pub fn verify(path: &Path, format: Format, colored: bool) -> Result<Outcome, Error> {
    let verdict = commands::verify_verdict(path)?;
    let text = render_verify(&verdict, &input::display(path), format, colored);
    Ok(outcome(matches!(verdict, Verdict::Intact { .. }), text))
}
