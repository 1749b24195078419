//! Commands that container and cluster tools run in a container: `docker exec`,
//! `docker run` (its `--entrypoint` too), `docker compose exec` and `run`, the same
//! of `podman` and `nerdctl`, `docker-compose` and `podman-compose`, and
//! `kubectl exec`, `run` and `debug` (and `oc`'s, and `oc rsh`), `lxc exec` and
//! `incus exec`, and `lxc-attach` after `--`. A container often holds the
//! project's folder, mounted: `docker exec dev rm -rf /work` removes it.
//!
//! Where an option these tools take is not listed here, it may take the next word
//! as its value or not, and so may a word not known before the command runs: each
//! reading is judged, so an option missing here cannot hide the command.

use std::collections::BTreeSet;

use super::*;

/// The readings of a container tool's options judged for one command, at most:
/// more is a command not known before it runs.
pub(super) const MAX_OPTION_READINGS: usize = 64;

/// The words judged as commands run in containers in one reading of a string, at
/// most; past it the string is a violation ([`CONTAINERS_SPENT`]).
pub(super) const MAX_CONTAINER_WORDS: usize = 1 << 20;

/// Why a string whose container commands go past [`MAX_CONTAINER_WORDS`] is a
/// violation.
pub(super) const CONTAINERS_SPENT: &str =
    "it runs more words in containers than can be judged (1048576)";

/// What a container tool runs: the words of its arguments from an index on, after
/// its entrypoint when one is given; or a program not known before it runs (an
/// entrypoint given by an expansion, more readings of its options than are judged).
pub(super) enum Run {
    Words(Option<Box<Analysed>>, usize),
    Unknown,
}

/// How a command line reads its options: the short option letters that take a
/// value, the long options that take one, the long options that take none.
struct Options {
    short: &'static str,
    long: &'static [&'static str],
    flags: &'static [&'static str],
}

const DOCKER: Options = Options {
    short: "cHl",
    long: &[
        "config",
        "context",
        "host",
        "log-level",
        "tlscacert",
        "tlscert",
        "tlskey",
        // podman's
        "connection",
        "url",
        "identity",
        "root",
        "runroot",
        "storage-driver",
        "storage-opt",
        "cgroup-manager",
        "events-backend",
        "runtime",
        "tmpdir",
        "module",
        // nerdctl's
        "address",
        "namespace",
        "snapshotter",
        "data-root",
    ],
    flags: &["debug", "tls", "tlsverify", "version", "help", "remote"],
};

const EXEC: Options = Options {
    short: "euw",
    long: &[
        "detach-keys",
        "env",
        "env-file",
        "user",
        "workdir",
        "preserve-fd",
    ],
    flags: &[
        "detach",
        "interactive",
        "tty",
        "privileged",
        "latest",
        "preserve-fds",
    ],
};

const RUN: Options = Options {
    short: "acehlmpuvw",
    long: &[
        "add-host",
        "annotation",
        "attach",
        "blkio-weight",
        "blkio-weight-device",
        "cap-add",
        "cap-drop",
        "cgroup-parent",
        "cgroupns",
        "cidfile",
        "cpu-period",
        "cpu-quota",
        "cpu-rt-period",
        "cpu-rt-runtime",
        "cpu-shares",
        "cpus",
        "cpuset-cpus",
        "cpuset-mems",
        "detach-keys",
        "device",
        "device-cgroup-rule",
        "device-read-bps",
        "device-read-iops",
        "device-write-bps",
        "device-write-iops",
        "dns",
        "dns-option",
        "dns-search",
        "domainname",
        "entrypoint",
        "env",
        "env-file",
        "expose",
        "gpus",
        "group-add",
        "health-cmd",
        "health-interval",
        "health-retries",
        "health-start-interval",
        "health-start-period",
        "health-timeout",
        "hostname",
        "ip",
        "ip6",
        "ipc",
        "isolation",
        "kernel-memory",
        "label",
        "label-file",
        "link",
        "link-local-ip",
        "log-driver",
        "log-opt",
        "mac-address",
        "memory",
        "memory-reservation",
        "memory-swap",
        "memory-swappiness",
        "mount",
        "name",
        "network",
        "network-alias",
        "oom-score-adj",
        "pid",
        "pids-limit",
        "platform",
        "publish",
        "pull",
        "restart",
        "runtime",
        "security-opt",
        "shm-size",
        "stop-signal",
        "stop-timeout",
        "storage-opt",
        "sysctl",
        "tmpfs",
        "ulimit",
        "user",
        "userns",
        "uts",
        "volume",
        "volume-driver",
        "volumes-from",
        "workdir",
    ],
    flags: &[
        "detach",
        "disable-content-trust",
        "init",
        "interactive",
        "no-healthcheck",
        "oom-kill-disable",
        "privileged",
        "publish-all",
        "quiet",
        "read-only",
        "rm",
        "tty",
        "use-api-socket",
    ],
};

const COMPOSE: Options = Options {
    short: "fp",
    long: &[
        "file",
        "project-name",
        "profile",
        "env-file",
        "project-directory",
        "ansi",
        "progress",
        "parallel",
    ],
    flags: &["all-resources", "compatibility", "dry-run", "verbose"],
};

const COMPOSE_EXEC: Options = Options {
    short: "euw",
    long: &["env", "user", "workdir", "index"],
    flags: &[
        "detach",
        "privileged",
        "no-TTY",
        "no-tty",
        "interactive",
        "tty",
    ],
};

const COMPOSE_RUN: Options = Options {
    short: "eluvwp",
    long: &[
        "env",
        "env-from-file",
        "label",
        "user",
        "volume",
        "workdir",
        "publish",
        "name",
        "entrypoint",
        "cap-add",
        "cap-drop",
        "pull",
    ],
    flags: &[
        "build",
        "detach",
        "interactive",
        "no-deps",
        "no-TTY",
        "quiet",
        "quiet-build",
        "quiet-pull",
        "remove-orphans",
        "rm",
        "service-ports",
        "use-aliases",
    ],
};

/// `lxc` and `incus`, their global options and `exec`'s.
const LXC: Options = Options {
    short: "e",
    long: &["env", "mode", "user", "group", "cwd", "project", "remote"],
    flags: &[
        "force-interactive",
        "force-noninteractive",
        "disable-stdin",
        "debug",
        "verbose",
        "quiet",
        "force-local",
    ],
};

const KUBECTL: Options = Options {
    short: "nsvcf",
    long: &[
        "as",
        "as-group",
        "as-uid",
        "cache-dir",
        "certificate-authority",
        "client-certificate",
        "client-key",
        "cluster",
        "context",
        "kubeconfig",
        "namespace",
        "password",
        "profile",
        "profile-output",
        "request-timeout",
        "server",
        "tls-server-name",
        "token",
        "user",
        "username",
        "v",
        "vmodule",
        "container",
        "filename",
        "pod-running-timeout",
    ],
    flags: &[
        "insecure-skip-tls-verify",
        "match-server-version",
        "warnings-as-errors",
        "stdin",
        "tty",
        "quiet",
    ],
};

/// What the container tool `name` runs with `args`: each command it may run, as
/// its options may be read.
pub(super) fn container_runs(name: &str, args: &[Analysed]) -> Vec<Run> {
    let mut runs = Vec::new();
    match name {
        "docker" | "podman" | "nerdctl" => match operands(args, 0, &DOCKER) {
            Some(starts) => starts
                .into_iter()
                .for_each(|at| docker(args, at, &mut runs)),
            None => runs.push(Run::Unknown),
        },
        "docker-compose" | "podman-compose" => compose(args, 0, &mut runs),
        "lxc" | "incus" => match operands(args, 0, &LXC) {
            Some(starts) => starts.into_iter().for_each(|at| {
                if args.get(at).is_some_and(|word| word.text == "exec") {
                    let mut found = Vec::new();
                    words_after(args, at + 1, &LXC, None, &mut found);
                    // `lxc exec INSTANCE [OPTIONS] [--] COMMAND`: cobra reads
                    // options after the instance too.
                    for run in found {
                        match run {
                            Run::Words(None, at) => match operands(args, at, &LXC) {
                                Some(starts) => runs.extend(
                                    (starts.into_iter())
                                        .filter(|&at| at < args.len())
                                        .map(|at| Run::Words(None, at)),
                                ),
                                None => runs.push(Run::Unknown),
                            },
                            run => runs.push(run),
                        }
                    }
                }
            }),
            None => runs.push(Run::Unknown),
        },
        "lxc-attach" => {
            if let Some(dash) = args.iter().position(|word| word.text == "--")
                && dash + 1 < args.len()
            {
                runs.push(Run::Words(None, dash + 1));
            }
        }
        "kubectl" | "oc" => match operands(args, 0, &KUBECTL) {
            Some(starts) => starts
                .into_iter()
                .for_each(|at| kubectl(args, at, &mut runs)),
            None => runs.push(Run::Unknown),
        },
        _ => {}
    }
    if runs.len() > MAX_OPTION_READINGS {
        return vec![Run::Unknown];
    }
    runs
}

/// `docker SUBCOMMAND ...` with the subcommand at `at`.
fn docker(args: &[Analysed], at: usize, runs: &mut Vec<Run>) {
    let Some(word) = args.get(at) else { return };
    match word.text.as_str() {
        "container" => match args.get(at + 1).map(|word| word.text.as_str()) {
            Some("exec") => words_after(args, at + 2, &EXEC, None, runs),
            Some("run") => words_after(args, at + 2, &RUN, Some("entrypoint"), runs),
            _ => {}
        },
        "exec" => words_after(args, at + 1, &EXEC, None, runs),
        "run" => words_after(args, at + 1, &RUN, Some("entrypoint"), runs),
        "compose" => compose(args, at + 1, runs),
        _ => {}
    }
}

/// `compose ...`, its options from `from`.
fn compose(args: &[Analysed], from: usize, runs: &mut Vec<Run>) {
    let Some(starts) = operands(args, from, &COMPOSE) else {
        runs.push(Run::Unknown);
        return;
    };
    for at in starts {
        match args.get(at).map(|word| word.text.as_str()) {
            Some("exec") => words_after(args, at + 1, &COMPOSE_EXEC, None, runs),
            Some("run") => words_after(args, at + 1, &COMPOSE_RUN, Some("entrypoint"), runs),
            _ => {}
        }
    }
}

/// `kubectl SUBCOMMAND ...` with the subcommand at `at`: `exec`, `run` and `debug`
/// run the words after `--`; `exec POD COMMAND`, the old form, the words after the
/// pod.
fn kubectl(args: &[Analysed], at: usize, runs: &mut Vec<Run>) {
    let Some(word) = args.get(at) else { return };
    if word.text == "rsh" {
        // `oc rsh POD COMMAND`: the words after the pod.
        return words_after(args, at + 1, &KUBECTL, None, runs);
    }
    if !matches!(word.text.as_str(), "exec" | "run" | "debug") {
        return;
    }
    let rest = &args[at + 1..];
    match rest.iter().position(|word| word.text == "--") {
        Some(dash) if at + dash + 2 < args.len() => runs.push(Run::Words(None, at + dash + 2)),
        Some(_) => {}
        None if word.text == "exec" => words_after(args, at + 1, &KUBECTL, None, runs),
        None => {}
    }
}

/// The words after the first operand (the container, image or service), the
/// options read from `from`, and the entrypoint an option named `entrypoint`
/// gives before them.
fn words_after(
    args: &[Analysed],
    from: usize,
    options: &Options,
    entrypoint: Option<&str>,
    runs: &mut Vec<Run>,
) {
    let Some(starts) = operands(args, from, options) else {
        runs.push(Run::Unknown);
        return;
    };
    for at in starts {
        if at >= args.len() {
            continue;
        }
        let given = entrypoint.and_then(|name| option_word(&args[from..at], name));
        match given {
            Some(Some(program)) if !program.text.is_empty() => {
                runs.push(Run::Words(Some(Box::new(program)), at + 1));
            }
            Some(None) => runs.push(Run::Unknown),
            // No entrypoint, or `--entrypoint ""`: the image's own, unless the words
            // are given.
            _ if at + 1 < args.len() => runs.push(Run::Words(None, at + 1)),
            _ => {}
        }
    }
}

/// The value of the last long option `name` in `options`: `Some(None)` when it is
/// not known before the command runs.
fn option_word(options: &[Analysed], name: &str) -> Option<Option<Analysed>> {
    let mut found = None;
    for (i, word) in options.iter().enumerate() {
        let Some(rest) = word.text.strip_prefix("--") else {
            continue;
        };
        if rest == name {
            found = Some(options.get(i + 1).filter(|value| value.known()).cloned());
        } else if let Some(value) = rest.strip_prefix(name).and_then(|v| v.strip_prefix('=')) {
            found = Some(word.known().then(|| made_word(value)));
        }
    }
    found
}

/// The indices where the operands of `args` may begin, read from `from` with
/// `options`: after `--`, or at the first word that is no option. A long option
/// not listed (without `=VALUE`) may take the next word or not, and a word not
/// known before the command runs may be an operand, an option or an option and
/// its value: each is followed, so the indices are every reading's; `None` past
/// [`MAX_OPTION_READINGS`] of them.
fn operands(args: &[Analysed], from: usize, options: &Options) -> Option<BTreeSet<usize>> {
    let mut found = BTreeSet::new();
    let mut next = BTreeSet::from([from]);
    let mut seen = BTreeSet::new();
    while let Some(i) = next.pop_first() {
        if found.len() > MAX_OPTION_READINGS {
            return None;
        }
        if !seen.insert(i) {
            continue;
        }
        let Some(word) = args.get(i) else {
            found.insert(i);
            continue;
        };
        let text = word.text.as_str();
        if !word.literal {
            found.insert(i);
            next.extend([i + 1, i + 2]);
            continue;
        }
        if text == "--" {
            found.insert(i + 1);
            continue;
        }
        if !text.starts_with('-') || text == "-" {
            found.insert(i);
            continue;
        }
        if let Some(name) = text.strip_prefix("--") {
            if name.contains('=') || options.flags.contains(&name) {
                next.insert(i + 1);
            } else if options.long.contains(&name) {
                next.insert(i + 2);
            } else {
                next.extend([i + 1, i + 2]);
            }
            continue;
        }
        let takes = text
            .char_indices()
            .skip(1)
            .find(|&(_, c)| options.short.contains(c))
            .is_some_and(|(at, c)| at + c.len_utf8() == text.len());
        next.insert(if takes { i + 2 } else { i + 1 });
    }
    (found.len() <= MAX_OPTION_READINGS).then_some(found)
}
