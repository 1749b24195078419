//! `toolreplay stats FILE [--from F] [--draft-scope AGENT]`: the tools a transcript
//! calls and how often, or a draft scope file allowing exactly them.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use toolreplay_core::{Threads, quote_name};

use std::path::Path;

use crate::error::Error;
use crate::input::{ImportOptions, Transcript};
use crate::printer::{Printer, Status};

/// `toolreplay stats`: exit 0.
pub(super) fn run(
    file: &Path,
    from: Option<ImportOptions>,
    draft_scope: Option<&str>,
    threads: Threads,
    printer: &mut Printer,
) -> Result<Status, Error> {
    let mut transcript = Transcript::open(file, from, &mut std::io::stderr())?;
    if draft_scope == Some("") {
        return Err(Error::Usage(
            "--draft-scope needs an agent name: a scope's agent is not empty".to_owned(),
        ));
    }
    let mut tools: BTreeMap<String, u64> = BTreeMap::new();
    let mut calls = 0u64;
    toolreplay_core::for_each_record(
        transcript.reader(),
        threads,
        |_| (),
        |_, _, tool, ()| {
            calls += 1;
            match tools.get_mut(tool) {
                Some(count) => *count += 1,
                None => {
                    tools.insert(tool.to_owned(), 1);
                }
            }
            Ok::<(), std::convert::Infallible>(())
        },
    )
    .map_err(|stop| transcript.reading_error(stop.into_read_error()))?;
    let text = match draft_scope {
        Some(agent) => {
            let names: Vec<&String> = tools.keys().collect();
            let mut text = serde_json::to_string_pretty(&serde_json::json!({
                "agent": agent,
                "allowed_tools": names,
            }))
            .map_err(|err| Error::temporary(err.into()))?;
            text.push('\n');
            text
        }
        None => {
            let mut by_count: Vec<(&String, &u64)> = tools.iter().collect();
            by_count.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
            let mut text = String::new();
            let _ = writeln!(text, "calls: {calls}");
            let _ = writeln!(text, "tools: {}", tools.len());
            for (tool, count) in by_count {
                let _ = writeln!(text, "{count} {}", quote_name(tool));
            }
            text
        }
    };
    printer.print(&text)?;
    Ok(Status::Clean)
}
