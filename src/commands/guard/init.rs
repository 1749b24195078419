//! `toolreplay guard init`: sets the guard up in a project for an agent (see
//! [`Setup`]). Writes the agent's default policy (`.claude/toolreplay-scope.json`
//! for Claude Code; an existing one is kept unless `--force`) and merges the guard's
//! hooks into the agent's hooks file (`.claude/settings.json`), keeping the user's
//! other settings and hooks in the order written; each hook is added once, so
//! running it again changes nothing. Both files are written atomically. With
//! `--dry-run`, prints what it would write instead.

use std::io::Write as _;
use std::path::Path;

use toolreplay_core::input::InputError;

use super::ordered::Json;
use super::project::{Project, guard_hook};
use super::setup::{Setup, Where};
use crate::args::GuardInitArgs;
use crate::error::Error;
use crate::input::display;
use crate::output::atomic::AtomicFile;
use crate::printer::{Printer, Status};

/// What becomes of the hooks file.
enum Merged {
    /// Written whole: created (`true`) or updated, with hooks for this many events.
    Write {
        text: String,
        created: bool,
        events: usize,
    },
    /// Already has a guard hook for every event.
    Kept,
}

/// `toolreplay guard init`.
pub(super) fn run(args: &GuardInitArgs, printer: &mut Printer) -> Result<Status, Error> {
    let setup = Setup::of(args.agent);
    let project = Project::new(args.project.as_deref())?;
    let policy = project.path(setup.policy);
    let settings = project.path(setup.hooks);
    // The hooks file is read first: one that cannot be merged stops everything.
    let merged = merge(setup, &project, project.hooks_file(setup)?, &settings)?;
    let policy_exists = std::fs::symlink_metadata(&policy).is_ok();
    let write_policy = !policy_exists || args.force;
    let mut out = String::new();
    if args.dry_run {
        if write_policy {
            out.push_str(&format!("would write {} (policy):\n", display(&policy)));
            out.push_str(setup.policy_text);
        } else {
            out.push_str(&kept_policy(&policy));
        }
        match &merged {
            Merged::Write { text, events, .. } => {
                out.push_str(&format!(
                    "would write {} (hooks for {events} events):\n{text}",
                    display(&settings)
                ));
            }
            Merged::Kept => out.push_str(&kept_settings(&settings)),
        }
        out.push_str("nothing written (--dry-run)\n");
        printer.print(&out)?;
        return Ok(Status::Clean);
    }
    crate::output::atomic::remove_temporary_files_on_signals();
    for folder in setup.folders() {
        let folder = project.path(folder);
        std::fs::create_dir_all(&folder).map_err(|source| Error::Io {
            what: format!("create {}", display(&folder)),
            source,
        })?;
    }
    if write_policy {
        write(&policy, setup.policy_text)?;
        let verb = if policy_exists { "replaced" } else { "wrote" };
        out.push_str(&format!("{verb} {} (policy)\n", display(&policy)));
    } else {
        out.push_str(&kept_policy(&policy));
    }
    match merged {
        Merged::Write {
            text,
            created,
            events,
        } => {
            write(&settings, &text)?;
            let verb = if created { "wrote" } else { "updated" };
            out.push_str(&format!(
                "{verb} {} (hooks for {events} events)\n",
                display(&settings)
            ));
        }
        Merged::Kept => out.push_str(&kept_settings(&settings)),
    }
    let sessions = project.path(setup.sessions);
    let here = match &args.project {
        Some(dir) => format!("in {}", display(dir)),
        None => "here".to_owned(),
    };
    let mut check = format!("toolreplay guard check{}", setup.agent_words());
    if let Some(dir) = &args.project {
        check.push_str(&format!(" --project {}", display(dir)));
    }
    out.push_str(&setup.next(&here, &display(&sessions), &check));
    printer.print(&out)?;
    Ok(Status::Clean)
}

fn kept_policy(policy: &Path) -> String {
    format!("kept {} (exists; --force replaces it)\n", display(policy))
}

fn kept_settings(settings: &Path) -> String {
    format!(
        "kept {} (its hooks already run toolreplay guard)\n",
        display(settings)
    )
}

/// The hooks file with the guard's hooks: each event's entry (or matcher group)
/// added unless one of its hooks already runs the guard. A new file has the
/// agent's `version`.
fn merge(
    setup: &Setup,
    project: &Project,
    existing: Option<(String, Json)>,
    path: &Path,
) -> Result<Merged, Error> {
    let created = existing.is_none();
    let mut settings = existing.map_or_else(
        || {
            Json::Object(
                setup
                    .version
                    .map(|v| ("version".to_owned(), Json::Number(v.into())))
                    .into_iter()
                    .collect(),
            )
        },
        |(_, value)| value,
    );
    if settings.get("hooks").is_none()
        && let Json::Object(members) = &mut settings
    {
        members.push(("hooks".to_owned(), Json::Object(Vec::new())));
    }
    let mut events = 0;
    for (event, items) in setup.hooks_block(&Where::Project(&project.absolute())) {
        if guard_hook(&settings, setup, &event).is_some() {
            continue;
        }
        let Some(hooks) = settings.get_mut("hooks") else {
            continue;
        };
        let Json::Object(members) = hooks else {
            return Err(Error::Input(InputError::Invalid {
                path: display(path),
                message: format!(
                    "\"hooks\" must be an object, found {}; left as it is",
                    hooks.described()
                ),
            }));
        };
        let Json::Array(items) = items else {
            continue;
        };
        match members.iter_mut().find(|(k, _)| *k == event) {
            Some((_, Json::Array(existing))) => existing.extend(items),
            Some((_, other)) => {
                return Err(Error::Input(InputError::Invalid {
                    path: display(path),
                    message: format!(
                        "\"hooks\".\"{event}\" must be an array, found {}; left as it is",
                        other.described()
                    ),
                }));
            }
            None => members.push((event, Json::Array(items))),
        }
        events += 1;
    }
    if events == 0 {
        return Ok(Merged::Kept);
    }
    Ok(Merged::Write {
        text: settings.pretty(),
        created,
        events,
    })
}

/// Writes `text` to `path` atomically.
fn write(path: &Path, text: &str) -> Result<(), Error> {
    let mut file = AtomicFile::new(path).map_err(|err| Error::writing(path, err))?;
    file.file()
        .write_all(text.as_bytes())
        .map_err(|err| Error::writing(path, err))?;
    file.commit().map_err(|err| Error::writing(path, err))
}
