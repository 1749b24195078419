//! The commands that go beyond the chain: `head`, and `verify` with a pinned head.

use std::path::Path;

use crate::chain::Verdict;
use crate::commands::{Outcome, Output, Status};
use crate::error::Error;
use crate::head::{self, Pin};
use crate::report;
use crate::sealed;

/// `toolreplay head SEALED`: the statement of the head of an intact chain.
pub fn head(path: &Path) -> Result<Outcome, Error> {
    let head = sealed::check(path, None)?.head_or_refuse(path, "it has no head")?;
    Ok(Outcome {
        output: Output::Text(head::statement(&head)),
        status: Status::Clean,
    })
}

/// What `verify` checks beyond the chain.
#[derive(Debug, Default)]
pub struct Checks<'a> {
    /// `--head`: a pinned head, as a digest or a file.
    pub head: Option<&'a str>,
}

/// `toolreplay verify SEALED [--head FILE_OR_DIGEST]`: the chain, then the head
/// against the pinned one. Without checks this is exactly `verify`.
pub fn verify(path: &Path, checks: &Checks) -> Result<Outcome, Error> {
    let pin = checks.head.map(head::read_pin).transpose()?;
    let checked = sealed::check(path, pin.as_ref().map(Pin::digest))?;
    let mut text = report::render_verify(&checked.verdict);
    let Verdict::Intact { links, head } = &checked.verdict else {
        return Ok(Outcome {
            output: Output::Text(text),
            status: Status::Findings,
        });
    };
    let head = sealed::Head {
        links: *links,
        digest: head.clone(),
    };
    let mut good = true;
    if let Some(pin) = &pin {
        let (matches, lines) = head::compare(pin, &head, checked.found_at);
        good &= matches;
        text.push_str(&lines);
    }
    Ok(Outcome {
        output: Output::Text(text),
        status: if good {
            Status::Clean
        } else {
            Status::Findings
        },
    })
}
