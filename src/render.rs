//! The text reports of every command (spec sections 3, 4 and 6).
//!
//! Renderers are pure: they return the report's text, and the caller decides where it
//! goes.

use std::fmt::Write as _;

use toolreplay_core::chain::Verdict;
use toolreplay_core::finding::{Finding, finding_message, shown_field};
use toolreplay_core::replay::ReplayReport;
use toolreplay_core::scope::ScopeReport;

fn finding_line(finding: &Finding, agent: &str, out: &mut String) {
    let _ = writeln!(
        out,
        "index {}: {}: {}",
        finding.index,
        finding.kind.name(),
        finding_message(finding, agent)
    );
}

/// The text report of `replay`.
pub fn render_replay(report: &ReplayReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "calls: {}", report.calls);
    let _ = match report.divergence {
        Some(index) => writeln!(out, "divergence: index {index}"),
        None => writeln!(out, "divergence: none"),
    };
    let _ = writeln!(out, "findings: {}", report.findings.len());
    for finding in &report.findings {
        finding_line(finding, "", &mut out);
    }
    out
}

/// The text report of `scope`.
pub fn render_scope(report: &ScopeReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "calls: {}", report.calls);
    let _ = writeln!(out, "findings: {}", report.findings.len());
    for finding in &report.findings {
        finding_line(finding, &report.agent, &mut out);
    }
    out
}

/// The text report of `verify`.
pub fn render_verify(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Intact { .. } => "chain: intact\n".to_owned(),
        Verdict::Broken {
            position,
            expected,
            found,
            ..
        } => format!(
            "chain: broken\nfirst broken link: index {position}\nexpected: {}\nfound: {}\n",
            shown_field(expected),
            shown_field(found)
        ),
    }
}
