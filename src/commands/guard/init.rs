//! `toolreplay guard init`: sets the guard up in a project. Writes the default
//! policy to `.claude/toolreplay-scope.json` (an existing one is kept unless
//! `--force`) and merges the hooks block of `--print-settings` into
//! `.claude/settings.json`, keeping the user's other settings and hooks in the order
//! written; each hook is added once, so running it again changes nothing. Both files
//! are written atomically. With `--dry-run`, prints what it would write instead.

use std::io::Write as _;
use std::path::Path;

use super::ordered::Json;
use super::project::{EVENTS, POLICY, Project, SESSIONS, SETTINGS, guard_hook};
use crate::args::GuardInitArgs;
use crate::error::Error;
use crate::input::display;
use crate::output::atomic::AtomicFile;
use crate::printer::{Printer, Status};

/// The policy `init` writes, and `samples/claude-code-guard.json` is (a test checks
/// they are the same bytes).
pub(super) const DEFAULT_POLICY: &str = include_str!("default-policy.json");

/// What becomes of settings.json.
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
    let project = Project::new(args.project.as_deref())?;
    let policy = project.path(POLICY);
    let settings = project.path(SETTINGS);
    // settings.json is read first: one that cannot be merged stops everything.
    let merged = merge(project.settings()?, &settings)?;
    let policy_exists = std::fs::symlink_metadata(&policy).is_ok();
    let write_policy = !policy_exists || args.force;
    let mut out = String::new();
    if args.dry_run {
        if write_policy {
            out.push_str(&format!("would write {} (policy):\n", display(&policy)));
            out.push_str(DEFAULT_POLICY);
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
    let folder = project.path(".claude");
    std::fs::create_dir_all(&folder).map_err(|source| Error::Io {
        what: format!("create {}", display(&folder)),
        source,
    })?;
    if write_policy {
        write(&policy, DEFAULT_POLICY)?;
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
    let sessions = project.path(SESSIONS);
    let here = match &args.project {
        Some(dir) => format!("in {}", display(dir)),
        None => "here".to_owned(),
    };
    let check = match &args.project {
        Some(dir) => format!("toolreplay guard check --project {}", display(dir)),
        None => "toolreplay guard check".to_owned(),
    };
    out.push_str(&format!(
        "next: start `claude` {here}: every tool call is decided by the policy\n\
         \x20     and sealed in {}/<session_id>.jsonl\n\
         \x20     `{check}` says whether the hooks and the policy are in place\n",
        display(&sessions)
    ));
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

/// settings.json with the guard's hooks: each event's hook group added unless one
/// of its hooks already runs the guard.
fn merge(existing: Option<(String, Json)>, path: &Path) -> Result<Merged, Error> {
    let created = existing.is_none();
    let mut settings = existing.map_or_else(|| Json::Object(Vec::new()), |(_, value)| value);
    let ours = Json::parse(&super::settings(None, None))
        .ok()
        .and_then(|block| block.get("hooks").cloned());
    let Some(Json::Object(ours)) = ours else {
        return Err(Error::Internal("the hooks block is not a JSON object"));
    };
    if settings.get("hooks").is_none()
        && let Json::Object(members) = &mut settings
    {
        members.push(("hooks".to_owned(), Json::Object(Vec::new())));
    }
    let mut events = 0;
    for (event, groups) in ours {
        debug_assert!(EVENTS.contains(&event.as_str()));
        if guard_hook(&settings, &event).is_some() {
            continue;
        }
        let Some(hooks) = settings.get_mut("hooks") else {
            continue;
        };
        let Json::Object(members) = hooks else {
            return Err(Error::Invalid {
                path: display(path),
                message: format!(
                    "\"hooks\" must be an object, found {}; left as it is",
                    hooks.described()
                ),
            });
        };
        let Json::Array(groups) = groups else {
            continue;
        };
        match members.iter_mut().find(|(k, _)| *k == event) {
            Some((_, Json::Array(existing))) => existing.extend(groups),
            Some((_, other)) => {
                return Err(Error::Invalid {
                    path: display(path),
                    message: format!(
                        "\"hooks\".\"{event}\" must be an array, found {}; left as it is",
                        other.described()
                    ),
                });
            }
            None => members.push((event, Json::Array(groups))),
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
