//! Several inputs at once (`replay`, `scope` and `verify` given several files or a
//! folder): the inputs are expanded in a sorted, deterministic order
//! ([`crate::input::walk`]), audited on the worker pool, and reported in that order,
//! each file's report then a summary of all; the exit status is the worst of all.
//! JSON gives one document holding every file's, SARIF one log with one run holding
//! every file's results. One input is reported as the one-file command always did.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolreplay_core::Findings;
use toolreplay_core::input::InputError;

use crate::args::Format;
use crate::error::Error;
use crate::input::ImportOptions;
use crate::input::display;
use crate::input::walk::expand;
use crate::output::spool::{Spool, SpoolError};
use crate::printer::{Printer, Status};
use crate::render::json::{PLACEHOLDER, Placeholder, document};
use crate::render::{InForce, text};
use crate::settings::Inputs;

/// One file's audit, its report written to the printer it was given.
pub(super) struct Audited {
    /// Its findings, for the summary.
    pub(super) findings: Findings,
    /// Its status.
    pub(super) status: Status,
}

/// One file's audit with its report written, kept for its turn among several.
struct Kept {
    text: Spool,
    findings: Findings,
    status: Status,
}

/// One file's audit among many: what it told stderr, and what it gave.
type Done = (Spool, Result<Kept, Error>);

/// Audits the inputs `files` (files, folders, `-`) with `audit`, which writes a
/// file's report to the printer it is given and its notes to the writer after it:
/// one file is reported as the one-file command always did (then, with `summary`,
/// the summary of its findings); several, or a folder, as [`report`] says.
pub(super) fn audit_files<F>(
    command: &str,
    inputs: &Inputs,
    from: Option<ImportOptions>,
    (summary, configuration): (bool, Option<&InForce>),
    printer: &mut Printer,
    audit: F,
) -> Result<Status, Error>
where
    F: Fn(&Path, &mut Printer, &mut dyn Write) -> Result<Audited, Error> + Sync,
{
    if let Some(configuration) = configuration {
        configuration.tell(&mut std::io::stderr());
    }
    // A Claude Code session's subagent logs are read with it, never twice. (With
    // `--from auto` a session may turn out another format, which reads none: each
    // is then audited on its own.)
    let (files, several) = expand(
        &inputs.files,
        inputs.glob.as_ref(),
        (from.map(|from| from.source), command == "verify"),
        &mut std::io::stderr(),
    )?;
    if several {
        let done = run_all(&files, printer, audit);
        return report(command, &files, done, configuration, printer);
    }
    let Some(file) = files.first() else {
        return Err(Error::Usage("no input".to_owned()));
    };
    let done = audit(file, printer, &mut std::io::stderr())?;
    if summary {
        let name = display(file);
        printer.report(|out| {
            out.write_all(b"\n")?;
            text::summary(&[(name.as_str(), &done.findings)], None, out)
        })?;
    }
    Ok(done.status)
}

/// Raises the soft limit of open files to the hard one: each parked report or set of
/// findings larger than it keeps in memory holds a temporary file open until the end.
/// If the limit cannot be raised, a file past it fails with an `error:` line, as any
/// temporary file that cannot be made does.
fn allow_open_files() {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, getrlimit, setrlimit};
        let mut limit = getrlimit(Resource::Nofile);
        if limit.current != limit.maximum {
            limit.current = limit.maximum;
            let _ = setrlimit(Resource::Nofile, limit);
        }
    }
}

/// Runs `audit` on every file on the worker pool, each file's report written to a
/// printer of its own, and gives the results in the files' order: what each file's
/// audit told stderr (held, in memory while small, until the files before it are
/// told) and what it gave.
fn run_all<F>(files: &[PathBuf], printer: &Printer, audit: F) -> Vec<Done>
where
    F: Fn(&Path, &mut Printer, &mut dyn Write) -> Result<Audited, Error> + Sync,
{
    allow_open_files();
    let (format, paint) = (printer.format(), printer.paint());
    let mut results = Vec::with_capacity(files.len());
    crate::pool::run_in_order(
        files,
        |file| {
            // Each file's report, findings and what it told stderr wait for the
            // others: park them, so that memory does not grow with the files.
            let mut told = Spool::new();
            let mut own = Printer::spooled(format, paint);
            let done = audit(file, &mut own, &mut told).and_then(|done| {
                let mut text = own.into_spool();
                let mut findings = done.findings;
                text.park().map_err(Error::temporary)?;
                findings.park();
                Ok(Kept {
                    text,
                    findings,
                    status: done.status,
                })
            });
            let done = told.park().map_err(Error::temporary).and(done);
            (told, done)
        },
        |_, done| results.push(done),
    );
    results
}

/// The files' audits gathered in order, for the report of them all.
struct Gathered {
    /// Each file's name and report.
    texts: Vec<(String, Spool)>,
    /// Each file's name and findings.
    findings: Vec<(String, Findings)>,
    /// How many files are clean, how many not, how many could not be audited.
    clean: usize,
    unclean: usize,
    errors: usize,
    /// The worst status.
    status: Status,
}

impl Gathered {
    /// Each file's name and findings, borrowed.
    fn findings(&self) -> Vec<(&str, &Findings)> {
        self.findings.iter().map(|(n, f)| (n.as_str(), f)).collect()
    }
}

/// Gathers the files' audits in order; on stderr, in the files' order, what each
/// file's audit told there (an import's notes and warnings) and its error, as they
/// would be for one file.
fn gather(files: &[PathBuf], results: Vec<Done>) -> Gathered {
    let mut gathered = Gathered {
        texts: Vec::new(),
        findings: Vec::new(),
        clean: 0,
        unclean: 0,
        errors: 0,
        status: Status::Clean,
    };
    for (file, (told, result)) in files.iter().zip(results) {
        let name = display(file);
        // What cannot be written to stderr cannot be told anywhere else.
        let _ = told.copy_to(&mut std::io::stderr().lock());
        match result {
            Ok(done) => {
                gathered.status = gathered.status.max(done.status);
                if done.status == Status::Clean {
                    gathered.clean += 1;
                } else {
                    gathered.unclean += 1;
                }
                gathered.findings.push((name.clone(), done.findings));
                gathered.texts.push((name, done.text));
            }
            Err(err) => {
                gathered.errors += 1;
                gathered.status = Status::Failed;
                err.tell(&mut std::io::stderr().lock());
            }
        }
    }
    gathered
}

/// The report of several files: each file's, then the summary, in the printer's
/// format. Exit status: the worst.
fn report(
    command: &str,
    files: &[PathBuf],
    results: Vec<Done>,
    configuration: Option<&InForce>,
    printer: &mut Printer,
) -> Result<Status, Error> {
    let gathered = gather(files, results);
    let status = gathered.status;
    let mut out = Spool::new();
    match printer.format() {
        Format::Text => {
            text_report(command, files.len(), gathered, &mut out).map_err(Error::temporary)?
        }
        Format::Json => json_report(command, files.len(), gathered, &mut out)?,
        Format::Sarif => sarif_report(gathered, configuration, &mut out)?,
    }
    printer.copy(out)?;
    Ok(status)
}

/// The text report of several files: `== FILE` and its report each, then the summary.
fn text_report(
    command: &str,
    files: usize,
    gathered: Gathered,
    out: &mut Spool,
) -> std::io::Result<()> {
    let Gathered {
        texts,
        findings,
        clean,
        unclean,
        errors,
        ..
    } = gathered;
    for (name, report) in texts {
        out.write(b"== ")?;
        out.write(name.as_bytes())?;
        out.write(b"\n")?;
        match report.copy_to(out) {
            Ok(()) => {}
            Err(SpoolError::Write(err) | SpoolError::Spool(err)) => return Err(err),
        }
        out.write(b"\n")?;
    }
    if command == "verify" {
        out.write(
            format!("summary:\nfiles: {files}\nintact: {clean}\nbroken: {unclean}\n").as_bytes(),
        )?;
    } else {
        let findings: Vec<(&str, &Findings)> =
            findings.iter().map(|(n, f)| (n.as_str(), f)).collect();
        text::summary(&findings, Some(files), out)?;
    }
    if errors > 0 {
        out.write(format!("errors: {errors}\n").as_bytes())?;
    }
    Ok(())
}

/// The JSON document of several files: every file's report, nested, and the summary.
fn json_report(
    command: &str,
    files: usize,
    gathered: Gathered,
    out: &mut Spool,
) -> Result<(), Error> {
    let mut kinds = serde_json::Map::new();
    let mut tools = serde_json::Map::new();
    for (_, findings) in gathered.findings() {
        for finding in findings.iter() {
            let finding = finding.map_err(Error::temporary)?;
            count(&mut kinds, finding.kind.name());
            count(&mut tools, &finding.tool);
        }
    }
    let total: u64 = gathered.findings.iter().map(|(_, f)| f.len()).sum();
    let doc = json!({
        "format_version": 1,
        "command": command,
        "files": files,
        "errors": gathered.errors,
        "reports": Placeholder,
        "summary": if command == "verify" {
            json!({"intact": gathered.clean, "broken": gathered.unclean})
        } else {
            json!({
                "findings": total,
                "by_kind": kinds,
                "by_tool": tools,
            })
        },
    });
    let doc = document(&doc);
    let (prefix, suffix) = split_at_placeholder(&doc)?;
    out.write(prefix.as_bytes()).map_err(Error::temporary)?;
    let mut first = true;
    for (name, report) in gathered.texts {
        out.write(if first { b"[\n    " } else { b",\n    " })
            .map_err(Error::temporary)?;
        first = false;
        nested_report(&name, report, out)?;
    }
    out.write(if first { b"[]" } else { b"\n  ]" })
        .map_err(Error::temporary)?;
    out.write(suffix.as_bytes()).map_err(Error::temporary)
}

/// The SARIF log of several files: one run holding every file's results.
fn sarif_report(
    gathered: Gathered,
    configuration: Option<&InForce>,
    out: &mut Spool,
) -> Result<(), Error> {
    // The log of no file declares the rules of every log; a file's log with more
    // rules (a policy's, `verify`'s checks) declares them all.
    let mut merged: Value = serde_json::from_str(&crate::render::sarif::empty())
        .map_err(|e| Error::temporary(std::io::Error::other(e)))?;
    merged["runs"][0]["results"] = json!(Placeholder);
    if let Some(configuration) = configuration {
        merged["runs"][0]["properties"] = crate::render::sarif::properties(configuration);
    }
    let head = document(&merged);
    let (prefix, _) = split_at_placeholder(&head)?;
    let prefix = prefix.to_owned();
    out.write(prefix.as_bytes()).map_err(Error::temporary)?;
    let mut rules: Option<Value> = None;
    let mut first = true;
    for (name, report) in gathered.texts {
        let these = log_results(&name, report, &mut first, out)?;
        let longer = |than: &Value| {
            these.as_array().map_or(0, Vec::len) > than.as_array().map_or(0, Vec::len)
        };
        if rules.as_ref().is_none_or(longer) {
            rules = Some(these);
        }
    }
    out.write(if first { b"[]" } else { b"\n      ]" })
        .map_err(Error::temporary)?;
    if let Some(rules) = rules {
        merged["runs"][0]["tool"]["driver"]["rules"] = rules;
    }
    let whole = document(&merged);
    let (same, suffix) = split_at_placeholder(&whole)?;
    debug_assert_eq!(same, prefix, "the rules come after the results");
    out.write(suffix.as_bytes()).map_err(Error::temporary)
}

/// The document `text` split around its placeholder.
fn split_at_placeholder(text: &str) -> Result<(&str, &str), Error> {
    // The last: a name written before it may hold the same characters.
    let at = text.rfind(PLACEHOLDER).ok_or_else(|| {
        Error::temporary(std::io::Error::other("no placeholder in the report's head"))
    })?;
    Ok((&text[..at], &text[at + PLACEHOLDER.len()..]))
}

/// Why the spooled report of `name` cannot be read back: an error, never a report
/// left out.
fn unreadable(name: &str, why: impl std::fmt::Display) -> Error {
    Error::Input(InputError::Invalid {
        path: name.to_owned(),
        message: format!("its report does not read back: {why}"),
    })
}

/// The next line of `reader` into `line` (cleared first), with its LF; false at the end.
fn next_line(reader: &mut impl BufRead, line: &mut Vec<u8>, name: &str) -> Result<bool, Error> {
    line.clear();
    let n = reader
        .read_until(b'\n', line)
        .map_err(|e| unreadable(name, e))?;
    Ok(n > 0)
}

/// Writes `bytes` with `indent` after each of its LFs.
fn indented(out: &mut Spool, bytes: &[u8], indent: &[u8]) -> Result<(), Error> {
    for piece in bytes.split_inclusive(|&b| b == b'\n') {
        out.write(piece).map_err(Error::temporary)?;
        if piece.ends_with(b"\n") {
            out.write(indent).map_err(Error::temporary)?;
        }
    }
    Ok(())
}

/// Parses `text` as one JSON value.
fn parse(text: &[u8], name: &str) -> Result<Value, Error> {
    serde_json::from_slice(text).map_err(|e| unreadable(name, e))
}

/// Writes the one-file JSON report held in `report` as the document of several files
/// holds it (at depth 2, its keys sorted as serde_json sorts an object's), without
/// holding more than one finding of it in memory. Every JSON string is written on
/// one line, so the lines of the pretty report are read as they come: its head up to
/// `"findings": [`, each finding (from `    {` to `    }`), then `  ]` and `}`.
fn nested_report(name: &str, report: Spool, out: &mut Spool) -> Result<(), Error> {
    const INDENT: &[u8] = b"    ";
    const ITEM: &[u8] = b"        ";
    let mut reader = report.reader();
    let mut head = Vec::new();
    let mut line = Vec::new();
    loop {
        if !next_line(&mut reader, &mut line, name)? {
            // No findings array to stream: a small report, written whole.
            let whole = document(&parse(&head, name)?);
            return indented(out, whole.trim_end_matches('\n').as_bytes(), INDENT);
        }
        if line == b"  \"findings\": [\n" {
            break;
        }
        head.extend_from_slice(&line);
    }
    head.extend_from_slice(b"  \"findings\": ");
    head.extend_from_slice(PLACEHOLDER.as_bytes());
    head.extend_from_slice(b"\n}");
    let head = document(&parse(&head, name)?);
    let (prefix, suffix) = split_at_placeholder(&head)?;
    indented(out, prefix.as_bytes(), INDENT)?;
    let mut item = Vec::new();
    let mut first = true;
    loop {
        if !next_line(&mut reader, &mut line, name)? {
            return Err(unreadable(name, "it ends inside its findings"));
        }
        if line == b"  ]\n" {
            break;
        }
        item.extend_from_slice(&line);
        if line == b"    }\n" || line == b"    },\n" {
            let value = parse(
                item.trim_ascii_end().strip_suffix(b",").unwrap_or(&item),
                name,
            )?;
            item.clear();
            out.write(if first { b"[\n" } else { b",\n" })
                .map_err(Error::temporary)?;
            first = false;
            out.write(ITEM).map_err(Error::temporary)?;
            let mut pretty = Vec::new();
            crate::render::json::pretty_into(&value, &mut pretty);
            indented(out, &pretty, ITEM)?;
        }
    }
    if !item.is_empty() || first {
        return Err(unreadable(name, "its findings do not end where they must"));
    }
    out.write(b"\n").map_err(Error::temporary)?;
    out.write(INDENT).map_err(Error::temporary)?;
    out.write(b"  ]").map_err(Error::temporary)?;
    let mut rest = Vec::new();
    while next_line(&mut reader, &mut line, name)? {
        rest.extend_from_slice(&line);
    }
    if rest != b"}\n" {
        return Err(unreadable(name, "something follows its findings"));
    }
    indented(out, suffix.trim_end_matches('\n').as_bytes(), INDENT)
}

/// Copies the results of the one-file SARIF log held in `report` into the run of the
/// log of several files (the same depth, so the same bytes), each after `[` or `,`
/// as `first` says, and gives the rules the log declares. The lines of the pretty
/// log are read as they come: its head up to `      "results": [`, each result (from
/// `        {` to `        }`), then `      ],` and the rest of the log.
fn log_results(
    name: &str,
    report: Spool,
    first: &mut bool,
    out: &mut Spool,
) -> Result<Value, Error> {
    let mut reader = report.reader();
    let mut rest = Vec::new();
    let mut line = Vec::new();
    let mut streamed = false;
    loop {
        if !next_line(&mut reader, &mut line, name)? {
            break;
        }
        if !streamed && line == b"      \"results\": [\n" {
            streamed = true;
            rest.extend_from_slice(b"      \"results\": [],\n");
            let mut inside = false;
            loop {
                if !next_line(&mut reader, &mut line, name)? {
                    return Err(unreadable(name, "it ends inside its results"));
                }
                if line == b"      ],\n" && !inside {
                    break;
                }
                if line == b"        {\n" && !inside {
                    inside = true;
                    out.write(if *first { b"[\n" } else { b",\n" })
                        .map_err(Error::temporary)?;
                    *first = false;
                }
                if !inside {
                    return Err(unreadable(name, "its results are not laid out as written"));
                }
                if line == b"        }\n" || line == b"        },\n" {
                    inside = false;
                    out.write(b"        }").map_err(Error::temporary)?;
                } else {
                    out.write(&line).map_err(Error::temporary)?;
                }
            }
            if inside {
                return Err(unreadable(name, "its results do not end where they must"));
            }
        } else {
            rest.extend_from_slice(&line);
        }
    }
    let log = parse(&rest, name)?;
    let rules = log["runs"][0]["tool"]["driver"]["rules"].clone();
    if !rules.is_array() {
        return Err(unreadable(name, "its log declares no rules"));
    }
    Ok(rules)
}

fn count(map: &mut serde_json::Map<String, Value>, key: &str) {
    let entry = map.entry(key.to_owned()).or_insert(json!(0));
    *entry = json!(entry.as_u64().unwrap_or(0) + 1);
}

#[cfg(test)]
mod tests {
    use super::{Spool, log_results, nested_report};

    fn spool(text: &str) -> Spool {
        Spool::from_text(text.to_owned())
    }

    #[test]
    fn a_report_is_nested_with_its_keys_sorted() {
        let report = "{\n  \"b\": 1,\n  \"a\": \"x\",\n  \"findings\": [\n    {\n      \"z\": 1,\n      \"y\": [\n        2\n      ]\n    },\n    {\n      \"k\": null\n    }\n  ]\n}\n";
        let mut out = Spool::new();
        assert!(nested_report("f", spool(report), &mut out).is_ok());
        let mut bytes = Vec::new();
        assert!(out.copy_to(&mut bytes).is_ok());
        assert_eq!(
            String::from_utf8_lossy(&bytes),
            "{\n      \"a\": \"x\",\n      \"b\": 1,\n      \"findings\": [\n        {\n          \"y\": [\n            2\n          ],\n          \"z\": 1\n        },\n        {\n          \"k\": null\n        }\n      ]\n    }"
        );
    }

    #[test]
    fn a_report_that_does_not_read_back_is_an_error_never_left_out() {
        let broken = [
            "",
            "{\n  \"a\": 1,\n",
            "{\n  \"a\": 1,\n  \"findings\": [\n    {\n      \"k\": 1\n",
            "{\n  \"a\": 1,\n  \"findings\": [\n    {\n      \"k\": \n    }\n  ]\n}\n",
            "{\n  \"a\": 1,\n  \"findings\": [\n    {\n      \"k\": 1\n    }\n  ]\n",
            "{\n  \"a\": 1,\n  \"findings\": [\n    {\n      \"k\": 1\n    }\n  ],\n  \"b\": 2\n}\n",
        ];
        for text in broken {
            let err = nested_report("f.jsonl", spool(text), &mut Spool::new()).err();
            assert!(
                err.as_ref().is_some_and(|e| e
                    .to_string()
                    .starts_with("f.jsonl: its report does not read back: ")),
                "{text:?}: {err:?}"
            );
            let mut first = true;
            let err = log_results("f.jsonl", spool(text), &mut first, &mut Spool::new()).err();
            assert!(err.is_some(), "{text:?}");
        }
    }
}
