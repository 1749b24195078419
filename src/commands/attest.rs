//! `toolreplay attest SEALED --key KEY [-o OUT] [--scope SCOPE] [--rules R]`:
//! checks the chain, audits the session, and writes the in-toto statement about the
//! sealed file in a DSSE envelope signed with the key, atomically.

use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use toolreplay_core::input::InputError;
use toolreplay_core::{
    FindingCounts, ImportFormat, ImportSource, ReplayOptions, ScopeSummary, SessionPredicate,
    Threads, Verdict, attestation_statement, audit_replay, sign_attestation,
};

use crate::args::Rules;
use crate::error::Error;
use crate::input::{self, ImportOptions, Transcript, display as shown};
use crate::output::atomic::AtomicFile;
use crate::printer::{Printer, Status};
use crate::settings::AttestOptions;

/// The envelope file of `sealed` by default: its path with `.intoto.jsonl` appended.
fn envelope_path(sealed: &Path) -> PathBuf {
    let mut name = OsString::from(sealed.as_os_str());
    name.push(".intoto.jsonl");
    PathBuf::from(name)
}

fn temporary(err: std::io::Error) -> Error {
    Error::temporary(err)
}

/// `toolreplay attest SEALED --key KEY`.
pub(super) fn run(
    path: &Path,
    options: &AttestOptions,
    threads: Threads,
    printer: &mut Printer,
) -> Result<Status, Error> {
    if input::is_stdin(path) {
        return Err(Error::Usage(
            "attest reads the sealed transcript more than once, so SEALED must be a file, not -"
                .to_owned(),
        ));
    }
    let (checked, sha256) = super::head::check_hashed(path, None, threads)?;
    let head = match (&checked.verdict, checked.head()) {
        (_, Some(head)) => head,
        (Verdict::Broken { position, .. }, None) => {
            return Err(Error::Input(InputError::Invalid {
                path: shown(path),
                message: format!(
                    "the chain is broken at index {position} (toolreplay verify says more); nothing was attested"
                ),
            }));
        }
        (Verdict::Intact { .. }, None) => unreachable!("an intact chain has a head"),
    };
    let key = super::sign::read_decrypted_key(&options.key)?;

    let mut predicate = SessionPredicate::new(head);
    let mut sink = std::io::sink();
    let sealed = Some(ImportOptions {
        source: ImportSource::Named(ImportFormat::Sealed),
        strict: false,
    });

    // The replay, as `replay --from sealed SEALED --rules R` judges it (toolreplay.toml aside).
    let mut transcript = Transcript::open(path, sealed, &mut sink)?;
    let replay_options = match options.rules {
        Rules::Spec => ReplayOptions::default(),
        Rules::Agent => ReplayOptions::agent(),
    };
    let report = audit_replay(transcript.reader(), &replay_options, threads)
        .map_err(|err| transcript.reading_error(err))?;
    predicate.rules = match options.rules {
        Rules::Spec => "spec",
        Rules::Agent => "agent",
    }
    .to_owned();
    predicate.replay = FindingCounts::of(&report.findings).map_err(temporary)?;
    predicate.divergence = report.divergence;

    // The policies the live session recorded, from its context file.
    let context = toolreplay_core::input::context_path(path);
    if context.is_file() {
        let checked = super::head::check(&context, None, threads)?;
        if let Verdict::Broken { position, .. } = checked.verdict {
            return Err(Error::Input(InputError::Invalid {
                path: shown(&context),
                message: format!(
                    "the session's context file has a broken chain at index {position}; nothing was attested"
                ),
            }));
        }
        for record in input::read_context(&context)?.records {
            if !predicate.session_policies.contains(&record.policy_digest) {
                predicate.session_policies.push(record.policy_digest);
            }
        }
    }

    // The scope audit, as `scope --from sealed SEALED --scope SCOPE` makes it.
    if let Some(scope_path) = &options.scope {
        let input::ScopeFile { scope, digest } = input::read_scope(scope_path)?;
        let contexts =
            input::session_contexts(path, true, (scope_path, digest.as_str()), &mut sink)?;
        let mut transcript = Transcript::open(path, sealed, &mut sink)?;
        let report = scope
            .audit_in(transcript.reader(), threads, &contexts)
            .map_err(|err| transcript.reading_error(err))?;
        predicate.scope = Some(ScopeSummary {
            agent: report.agent.clone(),
            digest,
            findings: FindingCounts::of(&report.findings).map_err(temporary)?,
        });
    }

    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| shown(path));
    let statement = attestation_statement(&name, &sha256, &predicate);
    let envelope = sign_attestation(&key, &statement).map_err(|err| {
        Error::Input(InputError::Invalid {
            path: shown(&options.key),
            message: err.to_string(),
        })
    })?;

    let target = match &options.output {
        Some(output) if input::is_stdin(output) => {
            printer.print(&envelope)?;
            return Ok(Status::Clean);
        }
        Some(output) => output.clone(),
        None => envelope_path(path),
    };
    let write_error = |source| Error::writing(&target, source);
    let mut file = AtomicFile::new(&target).map_err(write_error)?;
    file.file()
        .write_all(envelope.as_bytes())
        .map_err(write_error)?;
    file.commit().map_err(write_error)?;
    Ok(Status::Clean)
}
