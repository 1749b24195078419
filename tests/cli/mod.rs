//! Tests of the command line, by theme.
//!
//! Every test runs the real `toolreplay` binary, with the environment cleared apart
//! from `PATH`, and snapshots one text stating its exit code, stdout and stderr
//! exactly (see [`Run::text`]). Inputs are written to a temporary directory that is
//! the binary's working directory, and passed by relative name, so error lines read
//! `error: t.jsonl:3: ...` whatever the machine.

mod append;
mod attest;
mod baseline;
pub(crate) mod claims;
mod color;
mod config;
mod diff;
mod errors;
pub(crate) mod export;
mod formats;
mod graph;
pub(crate) mod guard;
mod guard_agents;
mod guard_init;
mod head;
mod help;
mod hints;
mod import;
mod import_many;
mod live_context;
mod many;
mod otlp_live;
mod outputs;
mod policy;
pub(crate) mod proxy;
mod proxy_http;
mod proxy_reference;
mod readme;
mod reconcile;
mod replay;
mod roles;
mod samples;
mod scope;
mod seal;
mod sign;
mod stats;
mod stdin;
mod transcript;
mod verify;

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use tempfile::TempDir;

/// The crate root, where `samples/` lives.
pub(crate) const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// What one run of the binary gave.
#[derive(Debug)]
pub(crate) struct Run {
    /// The exit code (a run killed by a signal fails the test).
    pub code: i32,
    /// Standard output, as text.
    pub stdout: String,
    /// Standard error, as text.
    pub stderr: String,
}

impl Run {
    /// What the run of `args` that gave `output` gave; a run killed by a signal
    /// fails the test.
    pub(crate) fn from_output(args: &[&str], output: std::process::Output) -> Run {
        let code = output
            .status
            .code()
            .unwrap_or_else(|| panic!("toolreplay {args:?} did not exit: {}", output.status));
        Run {
            code,
            stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
        }
    }

    /// The exit code, stdout and stderr as one text, both streams shown even when
    /// empty:
    ///
    /// ```text
    /// exit: 1
    /// --- stdout
    /// ...
    /// --- stderr
    /// ...
    /// ```
    ///
    /// A stream that does not end with LF is followed by the line
    /// `\ no newline at end`. Snapshots ignore trailing whitespace and CRs before
    /// LFs, so a CR anywhere or a blank line at the end of stderr would be invisible
    /// there: both fail the test here instead.
    pub(crate) fn text(&self) -> String {
        let mut text = format!("exit: {}\n", self.code);
        for (name, stream) in [("stdout", &self.stdout), ("stderr", &self.stderr)] {
            assert!(
                !stream.contains('\r'),
                "{name} holds a CR, which a snapshot cannot show: {stream:?}"
            );
            text.push_str("--- ");
            text.push_str(name);
            text.push('\n');
            text.push_str(stream);
            if !stream.is_empty() && !stream.ends_with('\n') {
                text.push_str("\n\\ no newline at end\n");
            }
        }
        assert!(
            !self.stderr.ends_with("\n\n"),
            "stderr ends with a blank line, which a snapshot cannot show: {:?}",
            self.stderr
        );
        text
    }
}

/// Runs the binary in `dir` with `args`, the environment cleared apart from `PATH`.
pub(crate) fn run(dir: &Path, args: &[&str]) -> Run {
    run_full(dir, args, None, &[])
}

/// Runs the binary in `dir` with `args`, `stdin` as standard input, the environment
/// cleared apart from `PATH`.
pub(crate) fn run_with_stdin(dir: &Path, args: &[&str], stdin: impl AsRef<[u8]>) -> Run {
    run_full(dir, args, Some(stdin.as_ref()), &[])
}

/// Runs the binary in `dir` with `args`, the environment cleared apart from `PATH`
/// and the variables `env`.
pub(crate) fn run_with_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    run_full(dir, args, None, env)
}

/// Runs the binary in `dir` with `args`, `stdin` as standard input, the environment
/// cleared apart from `PATH` and the variables `env`.
pub(crate) fn run_with_stdin_env(
    dir: &Path,
    args: &[&str],
    stdin: impl AsRef<[u8]>,
    env: &[(&str, &str)],
) -> Run {
    run_full(dir, args, Some(stdin.as_ref()), env)
}

fn run_full(dir: &Path, args: &[&str], stdin: Option<&[u8]>, env: &[(&str, &str)]) -> Run {
    let mut command = Command::cargo_bin("toolreplay").expect("the toolreplay binary");
    command.env_clear();
    if let Some(path) = std::env::var_os("PATH") {
        command.env("PATH", path);
    }
    command.envs(env.iter().copied());
    if let Some(stdin) = stdin {
        command.write_stdin(stdin.to_vec());
    }
    let output = command
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run toolreplay");
    Run::from_output(args, output)
}

/// Runs the binary in the crate root, so `samples/...` paths work and stay short.
pub(crate) fn run_in_root(args: &[&str]) -> Run {
    run(Path::new(ROOT), args)
}

/// A temporary working directory for one test.
pub(crate) struct Dir {
    tmp: TempDir,
}

impl Dir {
    /// A new directory holding a Claude Code project: `projects/p/session.jsonl` and
    /// its two subagent logs in `projects/p/session/subagents/` (the import fixtures).
    pub(crate) fn with_claude_code_project() -> Self {
        let dir = Dir::new();
        let folder = dir.path().join("projects/p/session/subagents");
        std::fs::create_dir_all(&folder).expect("folders");
        let fixtures = format!("{ROOT}/tests/fixtures/import");
        std::fs::copy(
            format!("{fixtures}/session.jsonl"),
            dir.path().join("projects/p/session.jsonl"),
        )
        .expect("session");
        for name in ["agent-abc123.jsonl", "agent-acompact-1.jsonl"] {
            std::fs::copy(
                format!("{fixtures}/session/subagents/{name}"),
                folder.join(name),
            )
            .expect("subagent log");
        }
        dir
    }

    /// A new, empty directory.
    pub(crate) fn new() -> Self {
        Dir {
            tmp: TempDir::new().expect("temporary directory"),
        }
    }

    /// Its path.
    pub(crate) fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// Writes the file `name` in it.
    pub(crate) fn write(&self, name: &str, bytes: impl AsRef<[u8]>) {
        fs::write(self.path().join(name), bytes).expect("write input file");
    }

    /// Reads the file `name` in it.
    pub(crate) fn read(&self, name: &str) -> Vec<u8> {
        fs::read(self.path().join(name)).expect("read file")
    }

    /// The names of the entries in it, sorted.
    pub(crate) fn entries(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.path())
            .expect("list directory")
            .map(|entry| {
                entry
                    .expect("directory entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    }

    /// Runs the binary in it.
    pub(crate) fn run(&self, args: &[&str]) -> Run {
        run(self.path(), args)
    }

    /// Runs each of `runs` in turn: each as `$ toolreplay ARGS` and its
    /// [`Run::text`], for one snapshot of them all.
    pub(crate) fn runs(&self, runs: &[&[&str]]) -> String {
        runs.iter()
            .map(|args| format!("$ toolreplay {}\n{}", args.join(" "), self.run(args).text()))
            .collect()
    }
}

/// Lines joined with LF, each ending with LF.
pub(crate) fn lines(lines: &[&str]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// Writes `t.jsonl` with `content` in a new directory and runs `command t.jsonl`
/// there.
pub(crate) fn run_on(command: &str, content: impl AsRef<[u8]>) -> Run {
    let dir = Dir::new();
    dir.write("t.jsonl", content);
    dir.run(&[command, "t.jsonl"])
}

/// `replay t.jsonl` on `content`.
pub(crate) fn replay(content: impl AsRef<[u8]>) -> Run {
    run_on("replay", content)
}

/// A record line: `{"index": I, "tool": T, "args": A, "response": R}`, with `args`
/// and `response` given as JSON text.
pub(crate) fn record(index: u64, tool: &str, args: &str, response: &str) -> String {
    format!(r#"{{"index": {index}, "tool": "{tool}", "args": {args}, "response": {response}}}"#)
}
