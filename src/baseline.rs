//! Baselines: the findings accepted today, by their SARIF partial fingerprint
//! ([`crate::render::sarif::Occurrences`]), so that `--baseline FILE`
//! reports only findings that are new. A fingerprint is made of the finding's rule,
//! its call (tool and canonical arguments), what tells apart findings of the rule on
//! one call (a detector, an argument rule, a budget, a flow) and the occurrence among
//! identical ones, not of lines or indices, so it survives calls added or removed
//! elsewhere, and an accepted finding never hides another detector's.
//!
//! The file is one JSON document:
//! `{"format_version": 1, "fingerprints": ["<hex>:<n>", ...]}`, sorted, read
//! strictly (an unknown key or a malformed fingerprint is an error).

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use toolreplay_core::Findings;
use toolreplay_core::input::InputError;

use crate::error::Error;
use crate::output::atomic::AtomicFile;
use crate::render::sarif::{Occurrences, detail};

/// The largest baseline read, in bytes.
const MAX_BYTES: u64 = 64 << 20;

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    format_version: u32,
    fingerprints: BTreeSet<String>,
}

/// The fingerprints of accepted findings.
#[derive(Debug, Default)]
pub(crate) struct Baseline {
    fingerprints: BTreeSet<String>,
}

impl Baseline {
    /// The baseline in the file at `path`.
    pub(crate) fn read(path: &Path) -> Result<Baseline, Error> {
        let name = crate::naming::display(path);
        let bytes = crate::input::read_whole(path, MAX_BYTES, "64 MiB")?;
        let file: File = serde_json::from_slice(&bytes).map_err(|err| {
            let text = err.to_string();
            // The line is said before the message, as in every input error.
            let text = text.rfind(" at line ").map_or(&text[..], |at| &text[..at]);
            Error::Input(InputError::Input {
                path: name.clone(),
                line: err.line() as u64,
                message: format!("not a baseline: {text}"),
            })
        })?;
        let invalid = |message: String| {
            Error::Input(InputError::Invalid {
                path: name.clone(),
                message,
            })
        };
        if file.format_version != 1 {
            return Err(invalid(format!(
                "baseline format_version {} is not 1",
                file.format_version
            )));
        }
        if let Some(bad) = file.fingerprints.iter().find(|f| !well_formed(f)) {
            return Err(invalid(format!(
                "{bad:?} is not a fingerprint (64 hex digits, ':', an occurrence)"
            )));
        }
        Ok(Baseline {
            fingerprints: file.fingerprints,
        })
    }

    /// Adds the fingerprints of `findings`, read back in order.
    pub(crate) fn record(&mut self, findings: &Findings) -> std::io::Result<()> {
        let mut occurrences = Occurrences::default();
        for finding in findings.iter() {
            let finding = finding?;
            self.fingerprints.insert(occurrences.next(
                finding.kind.name(),
                &detail(&finding.kind),
                &finding.call,
            ));
        }
        Ok(())
    }

    /// The findings not in the baseline, in order.
    pub(crate) fn filter(&self, findings: &Findings) -> std::io::Result<Findings> {
        let mut occurrences = Occurrences::default();
        findings.rewrite(|finding| {
            let fingerprint =
                occurrences.next(finding.kind.name(), &detail(&finding.kind), &finding.call);
            (!self.fingerprints.contains(&fingerprint)).then_some(finding)
        })
    }

    /// Writes the baseline to `path`, atomically.
    pub(crate) fn write(&self, path: &Path) -> Result<(), Error> {
        let write_error = |source| Error::writing(path, source);
        let mut text = serde_json::to_string_pretty(&File {
            format_version: 1,
            fingerprints: self.fingerprints.clone(),
        })
        .map_err(|err| write_error(std::io::Error::other(err)))?;
        text.push('\n');
        let mut file = AtomicFile::new(path).map_err(write_error)?;
        file.file()
            .write_all(text.as_bytes())
            .map_err(write_error)?;
        file.commit().map_err(write_error)
    }
}

fn well_formed(fingerprint: &str) -> bool {
    match fingerprint.split_once(':') {
        Some((hash, occurrence)) => {
            hash.len() == 64
                && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
                && !occurrence.is_empty()
                && occurrence.bytes().all(|b| b.is_ascii_digit())
                && !occurrence.starts_with('0')
        }
        None => false,
    }
}
