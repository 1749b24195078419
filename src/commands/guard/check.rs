//! `toolreplay guard check`: whether the guard is set up in a project for an agent
//! (see [`Setup`]). The hooks: each of the agent's events has a command hook running
//! `toolreplay guard` for it with `--policy` and `--dir` in its hooks file
//! (`.claude/settings.json` for Claude Code); the policy those hooks name reads,
//! with the reader the guard uses; and how many sealed sessions their folder holds.
//! One line each; a problem says what to run to fix it (exit 1). A hooks file that
//! cannot be read or is not a JSON object (of the agent's `version`) is an error
//! (exit 2).

use std::path::Path;

use super::project::{Project, guard_hook};
use super::setup::Setup;
use crate::args::GuardCheckArgs;
use crate::error::Error;
use crate::input::{self, display};
use crate::printer::{Printer, Status};

/// `toolreplay guard check`.
pub(super) fn run(args: &GuardCheckArgs, printer: &mut Printer) -> Result<Status, Error> {
    let setup = Setup::of(args.agent);
    let project = Project::new(args.project.as_deref())?;
    let mut init = format!("toolreplay guard init{}", setup.agent_words());
    if let Some(dir) = &args.project {
        init.push_str(&format!(" --project {}", display(dir)));
    }
    let settings_path = project.path(setup.hooks);
    let mut out = String::new();
    let mut problems = 0;
    // The policy and the folder the hooks name: the first hook's, or the defaults.
    let (mut policy, mut sessions) = (project.path(setup.policy), project.path(setup.sessions));
    match project.hooks_file(setup)? {
        None => {
            problems += 1;
            out.push_str(&format!(
                "missing: {} (run `{init}`)\n",
                display(&settings_path)
            ));
        }
        Some((_, settings)) => {
            let found: Vec<_> = setup
                .events
                .iter()
                .map(|event| (&event.name, guard_hook(&settings, setup, event.name)))
                .collect();
            if let Some(named) = found.iter().find_map(|(_, hook)| hook.clone()) {
                policy = project.expand(&named.policy);
                sessions = project.expand(&named.dir);
            }
            let missing: Vec<&str> = found
                .iter()
                .filter(|(_, hook)| hook.is_none())
                .map(|(event, _)| **event)
                .collect();
            for event in &missing {
                problems += 1;
                out.push_str(&format!(
                    "missing: a {event} hook running toolreplay guard in {} (run `{init}`)\n",
                    display(&settings_path)
                ));
            }
            if missing.is_empty() {
                out.push_str(&format!(
                    "ok: {} runs toolreplay guard on all {} events\n",
                    display(&settings_path),
                    setup.events.len()
                ));
            }
        }
    }
    if std::fs::symlink_metadata(&policy).is_err() {
        problems += 1;
        out.push_str(&format!(
            "missing: the policy {} (run `{init}`)\n",
            display(&policy)
        ));
    } else {
        match input::read_scope(&policy) {
            Ok(scope) => out.push_str(&format!(
                "ok: the policy {} reads (agent {}, {} tools allowed)\n",
                display(&policy),
                scope.scope.agent,
                scope.scope.allowed_tools.len()
            )),
            Err(err) => {
                problems += 1;
                out.push_str(&format!(
                    "broken: the policy does not read: {err} (fix it, or run `{init} --force` for the default policy)\n"
                ));
            }
        }
    }
    out.push_str(&format!("sessions: {}\n", count(&sessions)));
    printer.print(&out)?;
    Ok(if problems == 0 {
        Status::Clean
    } else {
        Status::Code(1)
    })
}

/// How many sealed sessions `dir` holds, and where: its `*.jsonl` files but the
/// sessions' `*.context.jsonl`.
fn count(dir: &Path) -> String {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return format!("none yet in {}", display(dir));
    };
    let sealed = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name.ends_with(".jsonl") && !name.ends_with(".context.jsonl") && !name.starts_with('.')
        })
        .count();
    match sealed {
        0 => format!("none yet in {}", display(dir)),
        1 => format!(
            "1 sealed in {} (`toolreplay verify {}/`)",
            display(dir),
            display(dir)
        ),
        n => format!(
            "{n} sealed in {} (`toolreplay verify {}/`)",
            display(dir),
            display(dir)
        ),
    }
}
