//! `--help` of the command and every subcommand (with examples), shell completions
//! for every shell, and the man page.

use insta::assert_snapshot;

use super::run_in_root;

const SUBCOMMANDS: [&str; 15] = [
    "replay",
    "scope",
    "seal",
    "verify",
    "head",
    "sign",
    "attest",
    "diff",
    "import",
    "export",
    "reconcile",
    "claims",
    "completions",
    "man",
    "version",
];

#[test]
fn help_of_the_command() {
    assert_snapshot!(run_in_root(&["--help"]).text());
}

#[test]
fn help_of_every_subcommand() {
    for name in SUBCOMMANDS {
        let run = run_in_root(&[name, "--help"]);
        assert_eq!(run.code, 0, "{name}");
        assert_snapshot!(format!("help_{name}"), run.text());
    }
}

#[test]
fn help_of_guard_and_its_subcommands() {
    for args in [
        &["guard", "--help"][..],
        &["guard", "init", "--help"],
        &["guard", "check", "--help"],
    ] {
        let run = run_in_root(args);
        assert_eq!(run.code, 0, "{args:?}");
        let name = args[..args.len() - 1].join("_");
        assert!(
            run.stdout.contains(&format!(
                "Examples:\n  toolreplay {}",
                args[..args.len() - 1].join(" ")
            )),
            "{args:?}"
        );
        assert_snapshot!(format!("help_{name}"), run.text());
    }
}

#[test]
fn every_subcommand_shows_examples_in_its_help() {
    for name in SUBCOMMANDS {
        let run = run_in_root(&[name, "--help"]);
        assert!(
            run.stdout
                .contains(&format!("Examples:\n  toolreplay {name}")),
            "{name}"
        );
    }
}

#[test]
fn completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = run_in_root(&["completions", shell]);
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{shell}");
        for name in SUBCOMMANDS {
            assert!(run.stdout.contains(name), "{shell} completes {name}");
        }
        assert_snapshot!(format!("completions_{shell}"), run.stdout);
    }
}

#[test]
fn completions_for_an_unknown_shell_is_a_usage_error() {
    assert_snapshot!(run_in_root(&["completions", "tcsh"]).text());
}

#[test]
fn man_page() {
    let run = run_in_root(&["man"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert!(run.stdout.starts_with(".ie \\n(.g .ds Aq \\(aq"));
    // One page: every subcommand has its section, none is sent to a page of its own.
    for name in [
        "REPLAY",
        "SCOPE",
        "SEAL",
        "VERIFY",
        "DIFF",
        "IMPORT",
        "COMPLETIONS",
        "MAN",
        "VERSION",
    ] {
        assert!(
            run.stdout.contains(&format!(".SH \"TOOLREPLAY {name}\"\n")),
            "{name}"
        );
    }
    assert!(
        !run.stdout.contains("(1)\n"),
        "no reference to another page"
    );
    assert_snapshot!(run.stdout);
}
