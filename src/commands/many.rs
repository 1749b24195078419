//! Several inputs at once (`replay`, `scope` and `verify` given several files or a
//! folder): the inputs are expanded in a sorted, deterministic order, audited on a
//! bounded number of threads, and reported in that order, each file's report then a
//! summary of all; the exit status is the worst of all. JSON gives one document
//! holding every file's, SARIF one log with one run holding every file's results.
//! `import` to a folder walks its inputs and spreads its work the same way
//! ([`files_in`], [`run_in_order`]).

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use serde_json::{Value, json};
use toolreplay_core::Findings;

use crate::error::Error;
use crate::input::{display, is_stdin};
use crate::output::spool::{Spool, SpoolError, SpoolReader};
use crate::output::{Outcome, Output, Status};
use crate::render::json::{PLACEHOLDER, Placeholder, document};
use crate::render::{Format, text};

/// How deep folders are walked.
const MAX_DEPTH: usize = 64;

/// One file's audit: its report in the format asked for, and its status.
pub struct Done {
    /// The report, as the one-file command prints it.
    pub report: Report,
    /// Its status.
    pub status: Status,
}

/// One file's report, written or still to be written.
pub enum Report {
    /// Written: in memory while small, in a temporary file beyond that; with the
    /// findings, for the summary.
    Written {
        /// The report.
        text: Spool,
        /// Its findings.
        findings: Findings,
    },
    /// Still to be written, by this: a single input's report goes straight to stdout
    /// as its findings are read back, with no copy of it held. It gives the findings
    /// back, for the summary.
    Later(Later),
}

/// Writes a report to the writer it is given, and gives back its findings.
pub type Later = Box<dyn FnOnce(&mut dyn std::io::Write) -> std::io::Result<Findings> + Send>;

impl Report {
    /// The report written (into a spool, when it was still to be written), and its
    /// findings.
    pub fn written(self) -> std::io::Result<(Spool, Findings)> {
        match self {
            Report::Written { text, findings } => Ok((text, findings)),
            Report::Later(write) => {
                let mut text = Spool::new();
                let findings = write(&mut text)?;
                Ok((text, findings))
            }
        }
    }
}

/// One file's audit with its report written, kept for its turn among several.
struct Kept {
    text: Spool,
    findings: Findings,
    status: Status,
}

/// One file's audit among many: what it told stderr, and what it gave.
type Audited = (Spool, Result<Kept, Error>);

/// The inputs named on the command line, folders walked (files sorted by path, names
/// starting with `.` skipped, symbolic links to folders not followed) and files in
/// folders kept when their name matches `glob`; whether they are to be reported as
/// several (more than one input, or a folder).
pub fn expand(inputs: &[PathBuf], glob: Option<&str>) -> Result<(Vec<PathBuf>, bool), Error> {
    let many = inputs.len() > 1 || inputs.iter().any(|p| !is_stdin(p) && p.is_dir());
    let mut files = Vec::new();
    for input in inputs {
        if !is_stdin(input) && input.is_dir() {
            let mut found = Vec::new();
            walk(input, glob, 0, &mut found)?;
            if found.is_empty() {
                return Err(Error::Invalid {
                    path: display(input),
                    message: match glob {
                        Some(glob) => format!("a folder with no file matching {glob:?}"),
                        None => "a folder with no file to audit".to_owned(),
                    },
                });
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(input.clone());
        }
    }
    if many && files.iter().filter(|p| is_stdin(p)).count() > 1 {
        return Err(Error::Usage(
            "standard input (-) can be named only once".to_owned(),
        ));
    }
    Ok((files, many))
}

/// The files in `folder`, walked as [`expand`] walks it and sorted by path; none is
/// not an error here.
pub fn files_in(folder: &Path, glob: Option<&str>) -> Result<Vec<PathBuf>, Error> {
    let mut found = Vec::new();
    walk(folder, glob, 0, &mut found)?;
    found.sort();
    Ok(found)
}

fn walk(
    folder: &Path,
    glob: Option<&str>,
    depth: usize,
    out: &mut Vec<PathBuf>,
) -> Result<(), Error> {
    let read_error = |source| Error::Read {
        path: display(folder),
        source,
    };
    if depth > MAX_DEPTH {
        return Err(Error::Invalid {
            path: display(folder),
            message: format!("folders nested deeper than {MAX_DEPTH}"),
        });
    }
    for entry in std::fs::read_dir(folder).map_err(read_error)? {
        let entry = entry.map_err(read_error)?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        // `replay .` names `a.jsonl`, not `./a.jsonl`.
        let path = path
            .strip_prefix(".")
            .map_or(path.clone(), Path::to_path_buf);
        let kind = entry.file_type().map_err(read_error)?;
        if kind.is_dir() {
            walk(&path, glob, depth + 1, out)?;
        } else if (kind.is_file() || (kind.is_symlink() && path.is_file()))
            && glob.is_none_or(|glob| matches(glob.as_bytes(), name.as_bytes()))
        {
            out.push(path);
        }
    }
    Ok(())
}

/// Whether `name` matches the glob `glob`: `*` any run of characters, `?` one, `[...]`
/// not special; iterative, linear in practice.
pub fn matches(glob: &[u8], name: &[u8]) -> bool {
    let (mut g, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if g < glob.len() && (glob[g] == b'?' || glob[g] == name[n]) && glob[g] != b'*' {
            g += 1;
            n += 1;
        } else if g < glob.len() && glob[g] == b'*' {
            star = Some((g, n));
            g += 1;
        } else if let Some((sg, sn)) = star {
            g = sg + 1;
            n = sn + 1;
            star = Some((sg, sn + 1));
        } else {
            return false;
        }
    }
    glob[g..].iter().all(|&b| b == b'*')
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

/// Runs `audit` on every file, on at most as many threads as the machine has cores
/// (and no more than files), and gives the results in the files' order: what each
/// file's audit told stderr (held, in memory while small, until the files before it
/// are told) and what it gave.
fn run_all<F>(files: &[PathBuf], audit: F) -> Vec<Audited>
where
    F: Fn(&Path, &mut dyn std::io::Write) -> Result<Done, Error> + Sync,
{
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(files.len())
        .max(1);
    if files.len() > 1 {
        allow_open_files();
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Audited>>> = Mutex::new((0..files.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let at = next.fetch_add(1, Ordering::Relaxed);
                    let Some(file) = files.get(at) else { break };
                    // Each file's report, findings and what it told stderr wait for
                    // the others: park them, so that memory does not grow with the
                    // files.
                    let mut told = Spool::new();
                    let done = audit(file, &mut told).and_then(|done| {
                        let (mut text, mut findings) =
                            done.report.written().map_err(Error::temporary)?;
                        text.park().map_err(Error::temporary)?;
                        findings.park();
                        Ok(Kept {
                            text,
                            findings,
                            status: done.status,
                        })
                    });
                    let done = told.park().map_err(Error::temporary).and(done);
                    if let Ok(mut results) = results.lock() {
                        results[at] = Some((told, done));
                    }
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .map(|done| {
            done.unwrap_or_else(|| {
                let failed = Error::Usage("an audit thread failed".to_owned());
                (Spool::new(), Err(failed))
            })
        })
        .collect()
}

/// Runs `work` on every item, on at most as many threads as the machine has cores
/// (and no more than items), and hands each result to `emit` in the items' order as
/// soon as it and every one before it are done, so that what `emit` tells comes in
/// order while the work goes on.
pub fn run_in_order<I, T, W, E>(items: &[I], work: W, emit: E)
where
    I: Sync,
    T: Send,
    W: Fn(&I) -> T + Sync,
    E: FnMut(usize, T) + Send,
{
    struct Ordered<T, E> {
        done: Vec<Option<T>>,
        emitted: usize,
        emit: E,
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(items.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let state = Mutex::new(Ordered {
        done: (0..items.len()).map(|_| None).collect(),
        emitted: 0,
        emit,
    });
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let at = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(at) else { break };
                    let result = work(item);
                    let mut guard = state.lock().unwrap_or_else(PoisonError::into_inner);
                    let state = &mut *guard;
                    state.done[at] = Some(result);
                    while let Some(result) =
                        state.done.get_mut(state.emitted).and_then(Option::take)
                    {
                        (state.emit)(state.emitted, result);
                        state.emitted += 1;
                    }
                }
            });
        }
    });
}

/// Runs `audit` on every file (see [`run_all`]) and reports them all (see [`report`]).
pub fn audit_all<F>(
    command: &str,
    files: &[PathBuf],
    format: Format,
    audit: F,
) -> Result<Outcome, Error>
where
    F: Fn(&Path, &mut dyn std::io::Write) -> Result<Done, Error> + Sync,
{
    report(command, files, run_all(files, audit), format)
}

/// The report of several files: each file's, then the summary; on stderr, in the
/// files' order, what each file's audit told there (an import's notes and warnings)
/// and its error, as they would be for one file, errors counted. Exit status: the
/// worst.
fn report(
    command: &str,
    files: &[PathBuf],
    results: Vec<Audited>,
    format: Format,
) -> Result<Outcome, Error> {
    let mut status = Status::Clean;
    let mut errors = 0;
    let mut texts: Vec<(String, Spool)> = Vec::new();
    let mut all: Vec<(String, Findings)> = Vec::new();
    let (mut clean, mut unclean) = (0, 0);
    for (file, (told, result)) in files.iter().zip(results) {
        let name = display(file);
        // What cannot be written to stderr cannot be told anywhere else.
        let _ = told.copy_to(&mut std::io::stderr().lock());
        match result {
            Ok(done) => {
                status = status.max(done.status);
                if done.status == Status::Clean {
                    clean += 1;
                } else {
                    unclean += 1;
                }
                all.push((name.clone(), done.findings));
                texts.push((name, done.text));
            }
            Err(err) => {
                errors += 1;
                status = Status::Failed;
                crate::error::report(&err);
            }
        }
    }
    let borrowed: Vec<(&str, &Findings)> = all.iter().map(|(n, f)| (n.as_str(), f)).collect();
    let total: u64 = all.iter().map(|(_, f)| f.len()).sum();
    let mut out = Spool::new();
    match format {
        Format::Text => {
            let copied = |out: &mut Spool, report: Spool| match report.copy_to(out) {
                Ok(()) => Ok(()),
                Err(SpoolError::Write(err) | SpoolError::Spool(err)) => Err(err),
            };
            let written = (|| -> std::io::Result<()> {
                for (name, report) in texts {
                    out.write(b"== ")?;
                    out.write(name.as_bytes())?;
                    out.write(b"\n")?;
                    copied(&mut out, report)?;
                    out.write(b"\n")?;
                }
                if command == "verify" {
                    out.write(
                        format!(
                            "summary:\nfiles: {}\nintact: {clean}\nbroken: {unclean}\n",
                            files.len()
                        )
                        .as_bytes(),
                    )?;
                } else {
                    text::summary(&borrowed, Some(files.len()), &mut out)?;
                }
                if errors > 0 {
                    out.write(format!("errors: {errors}\n").as_bytes())?;
                }
                Ok(())
            })();
            written.map_err(Error::temporary)?;
        }
        Format::Json => {
            let mut kinds = serde_json::Map::new();
            let mut tools = serde_json::Map::new();
            for (_, findings) in &borrowed {
                for finding in findings.iter() {
                    let finding = finding.map_err(Error::temporary)?;
                    count(&mut kinds, finding.kind.name());
                    count(&mut tools, &finding.tool);
                }
            }
            let doc = json!({
                "format_version": 1,
                "command": command,
                "files": files.len(),
                "errors": errors,
                "reports": Placeholder,
                "summary": if command == "verify" {
                    json!({"intact": clean, "broken": unclean})
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
            for (name, report) in texts {
                out.write(if first { b"[\n    " } else { b",\n    " })
                    .map_err(Error::temporary)?;
                first = false;
                nested_report(&name, report, &mut out)?;
            }
            out.write(if first { b"[]" } else { b"\n  ]" })
                .map_err(Error::temporary)?;
            out.write(suffix.as_bytes()).map_err(Error::temporary)?;
        }
        Format::Sarif => {
            // The log of no file declares the rules of every log; a file's log with
            // more rules (a policy's, `verify`'s checks) declares them all.
            let mut merged: Value = serde_json::from_str(&crate::render::sarif::empty())
                .map_err(|e| Error::temporary(std::io::Error::other(e)))?;
            merged["runs"][0]["results"] = json!(Placeholder);
            let head = document(&merged);
            let (prefix, _) = split_at_placeholder(&head)?;
            let prefix = prefix.to_owned();
            out.write(prefix.as_bytes()).map_err(Error::temporary)?;
            let mut rules: Option<Value> = None;
            let mut first = true;
            for (name, report) in texts {
                let these = log_results(&name, report, &mut first, &mut out)?;
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
            out.write(suffix.as_bytes()).map_err(Error::temporary)?;
        }
    }
    Ok(Outcome {
        output: Output::Spooled(out),
        status,
    })
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
    Error::Invalid {
        path: name.to_owned(),
        message: format!("its report does not read back: {why}"),
    }
}

/// The next line of `reader` into `line` (cleared first), with its LF; false at the end.
fn next_line(reader: &mut SpoolReader, line: &mut Vec<u8>, name: &str) -> Result<bool, Error> {
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
    let mut reader = report.into_reader().map_err(|e| unreadable(name, e))?;
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
    let mut reader = report.into_reader().map_err(|e| unreadable(name, e))?;
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
    use super::{Spool, log_results, matches, nested_report};

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

    #[test]
    fn globs_match_names() {
        assert!(matches(b"*.jsonl", b"a.jsonl"));
        assert!(!matches(b"*.jsonl", b"a.json"));
        assert!(matches(b"a?c*", b"abcdef"));
        assert!(matches(b"*", b""));
        assert!(!matches(b"a", b"ab"));
        assert!(matches(b"*a*a*", b"banana"));
    }
}
