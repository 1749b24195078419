//! Reports: the text of the specification (the default, [`text`]), a JSON document
//! ([`json`]) and SARIF 2.1.0 ([`sarif`]), each written from the audits' data in one
//! place; colour for text on a terminal in [`color`].
//!
//! Renderers are pure: they return the report, or write it to the writer they are
//! given (the reports of audits, whose findings are read back as they are written),
//! and `main` writes it.

pub(crate) mod color;
pub(crate) mod json;
pub(crate) mod report;
pub(crate) mod sarif;
pub(crate) mod text;

use toolreplay_core::AttestationVerdict;
use toolreplay_core::Head;
use toolreplay_core::ReplayReport;
use toolreplay_core::ScopeReport;
use toolreplay_core::SignatureVerdict;
use toolreplay_core::Verdict;
use toolreplay_core::{HeadVerdict, Pin};

use crate::args::Format;
use color::Paint;

/// The configuration file that set some of an audit's inputs, and which: said on
/// stderr and in JSON and SARIF reports, since it changes the verdict.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct InForce {
    /// The file, as messages name it.
    pub(crate) file: String,
    /// The keys it set for this audit, in the file's order of documentation.
    pub(crate) sets: Vec<&'static str>,
}

impl InForce {
    /// Says on `out` that the file set these inputs.
    pub(crate) fn tell(&self, out: &mut dyn std::io::Write) {
        // If stderr is gone there is nobody left to tell.
        let _ = writeln!(
            out,
            "note: {} sets {} for this audit (--no-config ignores it)",
            self.file,
            self.sets.join(", ")
        );
    }
}

/// Which checks beyond the chain `verify` was asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Asked {
    /// `--head`.
    pub head: bool,
    /// `--signature`.
    pub signature: bool,
    /// `--attestation`.
    pub attestation: bool,
}

/// What `verify` found: the chain, and when it is intact, the checks asked for.
#[derive(Debug, Clone)]
pub(crate) struct VerifyReport {
    /// Which checks were asked for.
    pub asked: Asked,
    /// The verdict on the chain.
    pub verdict: Verdict,
    /// `--head`: the pinned head against the chain's.
    pub head: Option<HeadCheck>,
    /// `--signature`: the signature of the head statement.
    pub signature: Option<SignatureChecked>,
    /// `--attestation`: the attestation of the file.
    pub attestation: Option<AttestationChecked>,
}

impl VerifyReport {
    /// Whether the chain is intact and every check holds: exit 0.
    pub(crate) fn holds(&self) -> bool {
        matches!(self.verdict, Verdict::Intact { .. })
            && self.head.as_ref().is_none_or(|c| c.verdict.matches())
            && self.signature.as_ref().is_none_or(|c| c.verdict.is_good())
            && self
                .attestation
                .as_ref()
                .is_none_or(|c| c.verdict.is_good())
    }
}

/// The pinned head against the chain's.
#[derive(Debug, Clone)]
pub(crate) struct HeadCheck {
    /// How they compare.
    pub verdict: HeadVerdict,
    /// The pinned head.
    pub pin: Pin,
    /// The chain's head.
    pub head: Head,
}

/// The signature of the head statement, checked.
#[derive(Debug, Clone)]
pub(crate) struct SignatureChecked {
    /// The verdict.
    pub verdict: SignatureVerdict,
    /// The principal the signer must be (`--identity`).
    pub identity: String,
    /// The allowed signers file, as named in messages.
    pub allowed_signers: String,
}

/// The attestation of the file, checked.
#[derive(Debug, Clone)]
pub(crate) struct AttestationChecked {
    /// The verdict.
    pub verdict: AttestationVerdict,
    /// The principal the signer must be (`--identity`), if named.
    pub identity: Option<String>,
    /// The allowed signers file, as named in messages.
    pub allowed_signers: String,
}

/// The replay report in `format` for the input named `file`, written to `out` as
/// the findings are read back; `paint` applies to text only.
pub(crate) fn replay(
    report: &ReplayReport,
    file: &str,
    (format, paint): (Format, Paint),
    configuration: Option<&InForce>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match format {
        Format::Text => text::replay(report, paint, out),
        Format::Json => json::replay(report, file, configuration, out),
        Format::Sarif => sarif::replay(report, file, configuration, out),
    }
}

/// The scope report in `format`, written to `out` as the findings are read back.
pub(crate) fn scope(
    report: &ScopeReport,
    (file, scope): (&str, &str),
    (format, paint): (Format, Paint),
    configuration: Option<&InForce>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match format {
        Format::Text => text::scope(report, paint, out),
        Format::Json => json::scope(report, file, scope, configuration, out),
        Format::Sarif => sarif::scope(report, file, configuration, out),
    }
}

/// The verify report in `format`.
pub(crate) fn verify(report: &VerifyReport, file: &str, format: Format, paint: Paint) -> String {
    match format {
        Format::Text => text::verify_report(report, paint),
        Format::Json => json::verify(report, report.asked, file),
        Format::Sarif => sarif::verify(report, file),
    }
}
