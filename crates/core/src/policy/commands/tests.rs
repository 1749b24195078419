use super::{
    CommandRule, CommandVerdict, MAX_COMMAND_BYTES, MAX_DEPTH, MAX_NESTING, MAX_PARSER_STEPS,
    Pattern,
};
use crate::policy::Checking;
use crate::policy::paths::Globs;

fn patterns(list: &[&str]) -> Vec<Pattern> {
    list.iter()
        .map(|p| Pattern::new(p, Checking::Now).unwrap())
        .collect()
}

fn rule(deny: &[&str], allow: Option<&[&str]>, protect: Option<&[&str]>) -> CommandRule {
    CommandRule {
        deny: patterns(deny),
        allow: allow.map(patterns),
        protect: protect.map(globs),
        protect_except: None,
        folders: std::sync::OnceLock::new(),
    }
}

fn globs(list: &[&str]) -> Globs {
    Globs::new(&list.iter().map(|g| (*g).to_owned()).collect::<Vec<_>>()).unwrap()
}

fn denied(command: &str, within: Option<&str>, pattern: &str) -> CommandVerdict {
    CommandVerdict::Denied(
        command.to_owned(),
        within.map(str::to_owned),
        pattern.to_owned(),
    )
}

/// Asserts that `rule` denies `rm -rf /` by `rm ** -rf **` in each command,
/// within the command given beside it.
fn denies_rm(rule: &CommandRule, rows: &[(&str, &str)]) {
    for (command, within) in rows {
        assert_eq!(
            rule.check(command, None, None),
            denied("rm -rf /", Some(within), "rm ** -rf **"),
            "{command}"
        );
    }
}

/// Asserts that `rule` denies `rm -rf /` by `rm ** -rf **` in each of `commands`,
/// whatever command it is within.
fn runs_rm(rule: &CommandRule, commands: &[&str]) {
    for command in commands {
        let verdict = rule.check(command, None, None);
        assert!(
            matches!(&verdict, CommandVerdict::Denied(run, Some(_), pattern)
                if run == "rm -rf /" && pattern == "rm ** -rf **"),
            "{command}: {verdict:?}"
        );
    }
}

/// Asserts that `rule` allows each of `commands`.
fn allowed(rule: &CommandRule, commands: &[&str]) {
    for command in commands {
        assert_eq!(
            rule.check(command, None, None),
            CommandVerdict::Allowed,
            "{command}"
        );
    }
}

/// Asserts that `rule` finds each of `commands` running a program not known.
fn not_known(rule: &CommandRule, commands: &[&str]) {
    for command in commands {
        let verdict = rule.check(command, None, None);
        assert!(
            matches!(verdict, CommandVerdict::Unknown(_)),
            "{command}: {verdict:?}"
        );
    }
}

fn unknown(command: &str) -> CommandVerdict {
    CommandVerdict::Unknown(command.to_owned())
}

#[test]
fn patterns_match_words_in_order() {
    let p = Pattern::new("git push ** --force **", Checking::Now).unwrap();
    assert_eq!(
        p.matches("git", &["push", "origin", "main", "--force"]),
        Some(true)
    );
    assert_eq!(p.matches("/usr/bin/git", &["push", "--force"]), Some(true));
    assert_eq!(p.matches("git", &["push", "origin"]), Some(false));
    assert_eq!(p.matches("git", &["pull", "--force"]), Some(false));
    let p = Pattern::new("ls", Checking::Now).unwrap();
    assert_eq!(p.matches("ls", &[]), Some(true));
    assert_eq!(p.matches("ls", &["-la"]), Some(false));
    let p = Pattern::new("rm ** -*[rR]* **", Checking::Now).unwrap();
    assert_eq!(p.matches("rm", &["-rf", "/"]), Some(true));
    assert_eq!(p.matches("rm", &["x", "-R"]), Some(true));
    assert_eq!(p.matches("rm", &["file"]), Some(false));
    // `*` crosses `/` within a word, and matching is case-sensitive.
    let p = Pattern::new("cat /etc/*", Checking::Now).unwrap();
    assert_eq!(p.matches("cat", &["/etc/ssh/sshd_config"]), Some(true));
    assert_eq!(
        Pattern::new("LS", Checking::Now)
            .unwrap()
            .matches("ls", &[]),
        Some(false)
    );
    // Many `**` cost no more than a table of words by pattern words.
    let p = Pattern::new("a ** ** ** ** ** ** ** ** ** ** x", Checking::Now).unwrap();
    let args = vec!["y"; 200];
    assert_eq!(p.matches("a", &args), Some(false));
}

#[test]
fn bad_patterns_are_refused() {
    assert_eq!(
        Pattern::new("", Checking::Now).unwrap_err(),
        "a pattern names a program".to_owned()
    );
    assert!(Pattern::new("rm [", Checking::Now).is_err());
    assert!(Pattern::new("rm {a,b", Checking::Now).is_err());
}

#[test]
fn every_simple_command_is_judged() {
    let r = rule(&["rm ** -*[rR]* **", "sudo **"], None, None);
    let d = |c: &str, w: Option<&str>| denied(c, w, "rm ** -*[rR]* **");
    assert_eq!(r.check("ls -la", None, None), CommandVerdict::Allowed);
    assert_eq!(r.check("rm -rf /", None, None), d("rm -rf /", None));
    assert_eq!(r.check("ls && rm -rf /", None, None), d("rm -rf /", None));
    assert_eq!(r.check("ls | rm -rf /", None, None), d("rm -rf /", None));
    assert_eq!(r.check("(cd x; rm -rf .)", None, None), d("rm -rf .", None));
    assert_eq!(r.check("{ rm -r x; }", None, None), d("rm -r x", None));
    assert_eq!(
        r.check("if true; then rm -rf /; fi", None, None),
        d("rm -rf /", None)
    );
    assert_eq!(
        r.check("for f in a b; do rm -R $f; done", None, None),
        d("rm -R $f", None)
    );
    assert_eq!(
        r.check("case x in x) rm -rf /;; esac", None, None),
        d("rm -rf /", None)
    );
    assert_eq!(
        r.check("f() { rm -rf /; }", None, None),
        d("rm -rf /", None)
    );
    assert_eq!(
        r.check("echo $(rm -rf /)", None, None),
        d("rm -rf /", Some("echo $(rm -rf /)"))
    );
    assert_eq!(
        r.check("echo \"a `rm -rf /` b\"", None, None),
        d("rm -rf /", Some("echo \"a `rm -rf /` b\""))
    );
    assert_eq!(r.check("X=$(rm -rf /)", None, None), d("rm -rf /", None));
    assert_eq!(
        r.check("echo ${X:-$(rm -rf /)}", None, None),
        d("rm -rf /", Some("echo ${X:-$(rm -rf /)}"))
    );
    assert_eq!(
        r.check("diff <(rm -rf /) x", None, None),
        d("rm -rf /", Some("diff <(...) x"))
    );
    assert_eq!(
        r.check("echo $((1 + $(rm -rf /)))", None, None),
        d("rm -rf /", Some("echo $((1 + $(rm -rf /)))"))
    );
    assert_eq!(
        r.check("cat <<EOF\n$(rm -rf /)\nEOF\n", None, None),
        d("rm -rf /", Some("cat"))
    );
    for command in [
        "time rm -rf /",
        "! rm -rf /",
        "rm -rf / &",
        "coproc rm -rf /",
        "while rm -rf /; do :; done",
        "until false; do rm -rf /; done",
        "for ((i = 0; i < 1; i++)); do rm -rf /; done",
    ] {
        assert_eq!(
            r.check(command, None, None),
            d("rm -rf /", None),
            "{command}"
        );
    }
    // The parser does not read `select`: it fails closed.
    assert!(matches!(
        r.check("select x in a; do rm -rf /; done", None, None),
        CommandVerdict::Unparseable(_)
    ));
    for command in [
        "[[ -n $(rm -rf /) ]]",
        "for x in $(rm -rf /); do :; done",
        "case $(rm -rf /) in *) ;; esac",
        "a=( $(rm -rf /) )",
        "export X=$(rm -rf /)",
        "local X=\"$(rm -rf /)\"",
        "cat <<< $(rm -rf /)",
        "(( $(rm -rf /) + 1 ))",
        "ls > $(rm -rf /)",
        "f() { ls; } > >(rm -rf /)",
    ] {
        assert!(
            matches!(r.check(command, None, None), CommandVerdict::Denied(c, _, _) if c == "rm -rf /"),
            "{command}: {:?}",
            r.check(command, None, None)
        );
    }
    // A quoted here-document is not expanded.
    assert_eq!(
        r.check("cat <<'EOF'\n$(rm -rf /)\nEOF\n", None, None),
        CommandVerdict::Allowed
    );
}

#[test]
fn quotes_are_removed() {
    let r = rule(&["rm ** -rf **"], None, None);
    let d = |c: &str| denied(c, None, "rm ** -rf **");
    assert_eq!(r.check("\"r\"\"m\" -rf /", None, None), d("rm -rf /"));
    assert_eq!(r.check("'rm' '-rf' /", None, None), d("rm -rf /"));
    assert_eq!(r.check("\\r\\m -\\rf /", None, None), d("rm -rf /"));
    assert_eq!(r.check("X=1 Y=2 rm -rf /", None, None), d("rm -rf /"));
    assert_eq!(r.check("rm -rf 'a b'", None, None), d("rm -rf \"a b\""));
    assert_eq!(r.check("/bin/rm -rf x", None, None), d("/bin/rm -rf x"));
    assert_eq!(
        r.check("echo 'rm -rf /'", None, None),
        CommandVerdict::Allowed
    );
}

#[test]
fn wrappers_are_unwrapped() {
    let r = rule(&["rm ** -rf **"], None, None);
    let d = |c: &str, w: &str| denied(c, Some(w), "rm ** -rf **");
    for (command, within) in [
        ("sudo rm -rf /", "sudo rm -rf /"),
        ("sudo -u root -E rm -rf /", "sudo -u root -E rm -rf /"),
        ("sudo -Eu root rm -rf /", "sudo -Eu root rm -rf /"),
        ("env -i X=1 rm -rf /", "env -i X=1 rm -rf /"),
        ("env -u HOME -- rm -rf /", "env -u HOME -- rm -rf /"),
        ("env -iu HOME rm -rf /", "env -iu HOME rm -rf /"),
        (
            "env -uHOME -iC /tmp rm -rf /",
            "env -uHOME -iC /tmp rm -rf /",
        ),
        ("env --chdir /tmp rm -rf /", "env --chdir /tmp rm -rf /"),
        ("doas -u root rm -rf /", "doas -u root rm -rf /"),
        ("nohup rm -rf /", "nohup rm -rf /"),
        ("nice -n 10 rm -rf /", "nice -n 10 rm -rf /"),
        ("timeout -s KILL 5 rm -rf /", "timeout -s KILL 5 rm -rf /"),
        ("command rm -rf /", "command rm -rf /"),
        ("exec rm -rf /", "exec rm -rf /"),
        ("stdbuf -o L rm -rf /", "stdbuf -o L rm -rf /"),
        ("xargs -n 1 -I {} rm -rf {}", "xargs -n 1 -I {} rm -rf {}"),
        ("sudo nohup env rm -rf /", "sudo nohup env rm -rf /"),
        ("watch -x rm -rf /", "watch -x rm -rf /"),
        ("setsid -f rm -rf /", "setsid -f rm -rf /"),
        ("unbuffer rm -rf /", "unbuffer rm -rf /"),
        ("pkexec --user root rm -rf /", "pkexec --user root rm -rf /"),
        (
            "chroot --userspec=a:b /srv rm -rf /",
            "chroot --userspec=a:b /srv rm -rf /",
        ),
        ("flock -w 5 /tmp/l rm -rf /", "flock -w 5 /tmp/l rm -rf /"),
        ("runuser -u bob -- rm -rf /", "runuser -u bob -- rm -rf /"),
        ("ionice -c 3 rm -rf /", "ionice -c 3 rm -rf /"),
        ("taskset -c 0,1 rm -rf /", "taskset -c 0,1 rm -rf /"),
        ("chrt -f 10 rm -rf /", "chrt -f 10 rm -rf /"),
        (
            "strace -f -e trace=open -o /tmp/t rm -rf /",
            "strace -f -e trace=open -o /tmp/t rm -rf /",
        ),
        ("ltrace -o out -n 2 rm -rf /", "ltrace -o out -n 2 rm -rf /"),
        (
            "systemd-run --user -p MemoryMax=1G --unit x rm -rf /",
            "systemd-run --user -p MemoryMax=1G --unit x rm -rf /",
        ),
        (
            "firejail --noprofile rm -rf /",
            "firejail --noprofile rm -rf /",
        ),
        (
            "valgrind --leak-check=full rm -rf /",
            "valgrind --leak-check=full rm -rf /",
        ),
        ("fakeroot -- rm -rf /", "fakeroot -- rm -rf /"),
        ("busybox rm -rf /", "busybox rm -rf /"),
        ("nsenter -t 1 -m rm -rf /", "nsenter -t 1 -m rm -rf /"),
        ("unshare -r -w /tmp rm -rf /", "unshare -r -w /tmp rm -rf /"),
        ("cgexec -g cpu:grp rm -rf /", "cgexec -g cpu:grp rm -rf /"),
        ("numactl -N 0 rm -rf /", "numactl -N 0 rm -rf /"),
        (
            "prlimit --nofile=10 rm -rf /",
            "prlimit --nofile=10 rm -rf /",
        ),
        (
            "setpriv --reuid=1000 rm -rf /",
            "setpriv --reuid=1000 rm -rf /",
        ),
        (
            "caffeinate -i -t 60 rm -rf /",
            "caffeinate -i -t 60 rm -rf /",
        ),
        ("arch -x86_64 rm -rf /", "arch -x86_64 rm -rf /"),
        (
            "arch -arch arm64 -e A=1 rm -rf /",
            "arch -arch arm64 -e A=1 rm -rf /",
        ),
        (
            "sandbox-exec -f p.sb -D A=1 rm -rf /",
            "sandbox-exec -f p.sb -D A=1 rm -rf /",
        ),
        (
            "uv run --with requests -p 3.12 rm -rf /",
            "uv run --with requests -p 3.12 rm -rf /",
        ),
        (
            "uv --directory x run --frozen -- rm -rf /",
            "uv --directory x run --frozen -- rm -rf /",
        ),
        ("poetry -C x run rm -rf /", "poetry -C x run rm -rf /"),
        ("pipenv run rm -rf /", "pipenv run rm -rf /"),
        ("pdm run -p . rm -rf /", "pdm run -p . rm -rf /"),
        ("bundle exec rm -rf /", "bundle exec rm -rf /"),
        ("conda run -n base rm -rf /", "conda run -n base rm -rf /"),
        (
            "micromamba run -p /opt/env rm -rf /",
            "micromamba run -p /opt/env rm -rf /",
        ),
        ("asdf exec rm -rf /", "asdf exec rm -rf /"),
        ("direnv exec /tmp rm -rf /", "direnv exec /tmp rm -rf /"),
        (
            "nix develop .#dev -c rm -rf /",
            "nix develop .#dev -c rm -rf /",
        ),
        (
            "nix shell nixpkgs#hello --command rm -rf /",
            "nix shell nixpkgs#hello --command rm -rf /",
        ),
        ("mise x node@20 -- rm -rf /", "mise x node@20 -- rm -rf /"),
        (
            "op run --env-file .env -- rm -rf /",
            "op run --env-file .env -- rm -rf /",
        ),
        ("doppler run -- rm -rf /", "doppler run -- rm -rf /"),
        (
            "dotenvx run -f .env -- rm -rf /",
            "dotenvx run -f .env -- rm -rf /",
        ),
        (
            "aws-vault exec prod -- rm -rf /",
            "aws-vault exec prod -- rm -rf /",
        ),
        (
            "aws-vault exec prod rm -rf /",
            "aws-vault exec prod rm -rf /",
        ),
        ("dotenv -e .env -- rm -rf /", "dotenv -e .env -- rm -rf /"),
        ("npx rm -rf /", "npx rm -rf /"),
        ("npx -y -p x -- rm -rf /", "npx -y -p x -- rm -rf /"),
        ("npm exec -- rm -rf /", "npm exec -- rm -rf /"),
        ("pnpm exec rm -rf /", "pnpm exec rm -rf /"),
        ("pnpm dlx rm -rf /", "pnpm dlx rm -rf /"),
        ("pnpx rm -rf /", "pnpx rm -rf /"),
        ("yarn exec rm -rf /", "yarn exec rm -rf /"),
        ("yarn dlx -p x rm -rf /", "yarn dlx -p x rm -rf /"),
        ("bunx rm -rf /", "bunx rm -rf /"),
        ("bun x rm -rf /", "bun x rm -rf /"),
        ("uvx --from x rm -rf /", "uvx --from x rm -rf /"),
        ("pipx run --spec x rm -rf /", "pipx run --spec x rm -rf /"),
        ("hatch run rm -rf /", "hatch run rm -rf /"),
        ("toolbox run -c dev rm -rf /", "toolbox run -c dev rm -rf /"),
        (
            "distrobox enter dev -- rm -rf /",
            "distrobox enter dev -- rm -rf /",
        ),
        (
            "distrobox-enter dev -e rm -rf /",
            "distrobox-enter dev -e rm -rf /",
        ),
        ("proot -r / -w /tmp rm -rf /", "proot -r / -w /tmp rm -rf /"),
        (
            "bwrap --ro-bind / / --dev /dev --unshare-all rm -rf /",
            "bwrap --ro-bind / / --dev /dev --unshare-all rm -rf /",
        ),
        (
            "flatpak-spawn --host rm -rf /",
            "flatpak-spawn --host rm -rf /",
        ),
        ("gtimeout 5 rm -rf /", "gtimeout 5 rm -rf /"),
        ("gxargs -n 1 rm -rf /", "gxargs -n 1 rm -rf /"),
        ("genv -i rm -rf /", "genv -i rm -rf /"),
        ("screen -dmS job rm -rf /", "screen -dmS job rm -rf /"),
        ("chronic -e rm -rf /", "chronic -e rm -rf /"),
        ("ifne -n rm -rf /", "ifne -n rm -rf /"),
        ("catchsegv rm -rf /", "catchsegv rm -rf /"),
        (
            "dbus-run-session -- rm -rf /",
            "dbus-run-session -- rm -rf /",
        ),
        ("ssh-agent -t 60 rm -rf /", "ssh-agent -t 60 rm -rf /"),
        ("xvfb-run -a -s x rm -rf /", "xvfb-run -a -s x rm -rf /"),
        ("chpst -u bob rm -rf /", "chpst -u bob rm -rf /"),
        ("softlimit -m 100 rm -rf /", "softlimit -m 100 rm -rf /"),
        ("setarch x86_64 -R rm -rf /", "setarch x86_64 -R rm -rf /"),
        ("linux32 rm -rf /", "linux32 rm -rf /"),
        ("runcon u:r:t:s0 rm -rf /", "runcon u:r:t:s0 rm -rf /"),
        ("runcon -t t rm -rf /", "runcon -t t rm -rf /"),
        ("faketime -f +1d rm -rf /", "faketime -f +1d rm -rf /"),
        ("lckdo -q /tmp/l rm -rf /", "lckdo -q /tmp/l rm -rf /"),
        ("konsole --hold -e rm -rf /", "konsole --hold -e rm -rf /"),
        ("gnome-terminal -- rm -rf /", "gnome-terminal -- rm -rf /"),
    ] {
        let inner = command[command.find("rm ").unwrap()..].to_owned();
        assert_eq!(r.check(command, None, None), d(&inner, within), "{command}");
    }
    assert_eq!(
        r.check("bash -c 'rm -rf /'", None, None),
        d("rm -rf /", "bash -c \"rm -rf /\"")
    );
    for (command, within) in [
        ("npx -c 'rm -rf /'", "npx -c \"rm -rf /\""),
        (
            "npm --prefix . x -c 'rm -rf /'",
            "npm --prefix . x -c \"rm -rf /\"",
        ),
        ("pnpm exec -c 'rm -rf /'", "pnpm exec -c \"rm -rf /\""),
        ("socat - EXEC:'rm -rf /'", "socat - \"EXEC:rm -rf /\""),
        (
            "socat TCP-LISTEN:80,fork SYSTEM:'rm -rf /',pty",
            "socat TCP-LISTEN:80,fork \"SYSTEM:rm -rf /,pty\"",
        ),
    ] {
        assert_eq!(
            r.check(command, None, None),
            d("rm -rf /", within),
            "{command}"
        );
    }
    assert_eq!(
        r.check("sh -lc 'ls; rm -rf /'", None, None),
        d("rm -rf /", "sh -lc \"ls; rm -rf /\"")
    );
    assert_eq!(
        r.check("bash -e -x -c 'rm -rf /'", None, None),
        d("rm -rf /", "bash -e -x -c \"rm -rf /\"")
    );
    assert_eq!(
        r.check("bash -c \"sh -c 'rm -rf /'\"", None, None),
        d("rm -rf /", "bash -c \"sh -c 'rm -rf /'\"")
    );
    assert_eq!(
        r.check("fish -c 'rm -rf /'", None, None),
        d("rm -rf /", "fish -c \"rm -rf /\"")
    );
    assert_eq!(
        r.check("tcsh -fc 'rm -rf /'", None, None),
        d("rm -rf /", "tcsh -fc \"rm -rf /\"")
    );
    assert_eq!(
        r.check("eval 'rm -rf /'", None, None),
        d("rm -rf /", "eval \"rm -rf /\"")
    );
    // Strings run later or in a shell of their own: a trap's action, `watch`'s
    // words joined, the `-c` string of `su`, `runuser`, `script` and `flock`.
    for (command, within) in [
        ("trap 'rm -rf /' EXIT", "trap \"rm -rf /\" EXIT"),
        (
            "trap -- 'rm -rf /' INT TERM",
            "trap -- \"rm -rf /\" INT TERM",
        ),
        ("watch -n 1 'ls; rm -rf /'", "watch -n 1 \"ls; rm -rf /\""),
        ("watch rm -rf /", "watch rm -rf /"),
        ("su -c 'rm -rf /' root", "su -c \"rm -rf /\" root"),
        (
            "runuser -l bob -c 'rm -rf /'",
            "runuser -l bob -c \"rm -rf /\"",
        ),
        (
            "script -q -c 'rm -rf /' /dev/null",
            "script -q -c \"rm -rf /\" /dev/null",
        ),
        ("flock /tmp/l -c 'rm -rf /'", "flock /tmp/l -c \"rm -rf /\""),
        // `c` ending a group of short options, or with its string attached.
        (
            "script -qc 'rm -rf /' /dev/null",
            "script -qc \"rm -rf /\" /dev/null",
        ),
        ("su -lc 'rm -rf /' root", "su -lc \"rm -rf /\" root"),
        ("su --command='rm -rf /'", "su \"--command=rm -rf /\""),
        ("eval -- 'rm -rf /'", "eval -- \"rm -rf /\""),
        ("env -S 'rm -rf /'", "env -S \"rm -rf /\""),
        ("env -iS 'rm -rf /'", "env -iS \"rm -rf /\""),
        (
            "env --split-string 'rm -rf /'",
            "env --split-string \"rm -rf /\"",
        ),
        // A remote command: the words after the host, joined.
        ("ssh -p 22 host rm -rf /", "ssh -p 22 host rm -rf /"),
        ("ssh host 'ls; rm -rf /'", "ssh host \"ls; rm -rf /\""),
        ("sg wheel -c 'rm -rf /'", "sg wheel -c \"rm -rf /\""),
        (
            "nix-shell -p hello --run 'rm -rf /'",
            "nix-shell -p hello --run \"rm -rf /\"",
        ),
        ("mise exec -c 'rm -rf /'", "mise exec -c \"rm -rf /\""),
        // Terminal multiplexers: their words, joined, in a window of their own.
        (
            "tmux new-session -d -s job 'rm -rf /'",
            "tmux new-session -d -s job \"rm -rf /\"",
        ),
        (
            "tmux -L sock new -d rm -rf /",
            "tmux -L sock new -d rm -rf /",
        ),
        (
            "tmux split-window -h rm -rf /",
            "tmux split-window -h rm -rf /",
        ),
        (
            "tmux run-shell -b 'rm -rf /'",
            "tmux run-shell -b \"rm -rf /\"",
        ),
        (
            "tmux if-shell 'rm -rf /' 'new-window'",
            "tmux if-shell \"rm -rf /\" new-window",
        ),
        ("tmux -c 'rm -rf /'", "tmux -c \"rm -rf /\""),
        (
            "doppler run --command 'rm -rf /'",
            "doppler run --command \"rm -rf /\"",
        ),
        // GNU parallel: its words up to `:::`, joined, in a shell of their own.
        (
            "parallel -j 4 'rm -rf /' ::: a b",
            "parallel -j 4 \"rm -rf /\" ::: a b",
        ),
        (
            "parallel rm -rf / ::: *.log",
            "parallel rm -rf / ::: \"*.log\"",
        ),
        ("sg - wheel 'rm -rf /'", "sg - wheel \"rm -rf /\""),
    ] {
        assert_eq!(
            r.check(command, None, None),
            d("rm -rf /", within),
            "{command}"
        );
    }
    // What runs nothing: `command -v`, a trap reset or ignored, options that
    // change a running process, a new root or a lock without a command.
    allowed(
        &r,
        &[
            "command -v rm -rf",
            "trap - EXIT",
            "trap '' INT",
            "trap -p",
            "ionice -p 123",
            "taskset -p 3 123",
            "chrt -p 10 123",
            "chroot /srv",
            "flock /tmp/l",
            "su bob",
            "su -s /bin/zsh bob",
            "su -sc bob",
            "strace -p 123 -o /tmp/t",
            "ltrace -p 123",
            "prlimit -p 123 --nofile=10",
            "ssh -i key host",
            "sg wheel",
            "caffeinate -w 123",
            "uv pip install rm",
            "uv run",
            "poetry install",
            "nix build .#rm",
            "mise exec node@20",
            "parallel --version",
            "gfind . -name rm",
            "tmux new-session -d -s job",
            "tmux attach -t rm",
            "tmux kill-session -t rm",
            "screen -r rm",
            "screen -ls",
            "npm install rm",
            "npm run build",
            "npx prettier --check .",
            "pnpm exec -c ls",
            "yarn install",
            "bun run build",
            "pipx install rm",
            "hatch env create",
            "bwrap --ro-bind /usr /usr --proc /proc ls",
            "find . | xargs -I{} sh -c 'echo \"$1\"' _ {}",
            "echo a b | xargs -I{} sh -c 'echo {}'",
            "xargs -I{} rm {}",
            "socat - TCP:host:80",
        ],
    );
    // A string to split attached to its option is not read; GNU parallel without a
    // command runs each of its arguments.
    for command in [
        "env -iS'rm -rf /'",
        "env --split-string='rm -rf /'",
        "parallel ::: 'rm -rf /' ls",
        "sem -j 2 ::: 'rm -rf /'",
        "tmux send-keys -t job 'rm -rf /' Enter",
        "screen -S job -X stuff 'rm -rf /'",
        "bwrap --not-listed x rm -rf /",
        "npx -c \"$X\"",
        "find . | xargs -I{} sh -c 'echo {}'",
        "xargs -a cmds.txt -I % bash -c %",
        "find . | xargs -I{} python3 -Bc 'print(\"{}\")'",
        "find . | xargs -I{} ruby -rtime -e 'p \"{}\"'",
        "find . | xargs -I{} node -pe '\"{}\"'",
        "find . | xargs -I{} awk 'BEGIN { print \"{}\" }'",
        "xargs --replace {} -rf /",
        "socat - EXEC:\"$X\"",
        "socat EXEC:ls SYSTEM:date",
    ] {
        assert!(
            matches!(r.check(command, None, None), CommandVerdict::Unknown(_)),
            "{command}"
        );
    }
    // A shell running a script file is not unwrapped.
    assert_eq!(r.check("bash x.sh -c", None, None), CommandVerdict::Allowed);
}

/// The commands that `find`, aliases and wrappers run are judged: each row a
/// command string and the command denied in it (`None`: allowed).
#[test]
fn inner_commands_are_judged() {
    let r = rule(&["rm ** -rf **", "curl **"], None, None);
    // The command string, and the command denied in it with the top-level one it
    // is within.
    type Row<'a> = (&'a str, Option<(&'a str, Option<&'a str>)>);
    let rows: &[Row<'_>] = &[
        // find -exec, -execdir, -ok, -okdir, to `;` or `+`, several of them.
        (
            "find . -name x -exec rm -rf {} \\;",
            Some(("rm -rf {}", Some("find . -name x -exec rm -rf {} \";\""))),
        ),
        (
            "find . -exec rm -rf {} +",
            Some(("rm -rf {}", Some("find . -exec rm -rf {} +"))),
        ),
        (
            "gfind . -exec rm -rf {} +",
            Some(("rm -rf {}", Some("gfind . -exec rm -rf {} +"))),
        ),
        (
            "find . -execdir rm -rf {} \\;",
            Some(("rm -rf {}", Some("find . -execdir rm -rf {} \";\""))),
        ),
        (
            "find / -ok rm -rf {} ';'",
            Some(("rm -rf {}", Some("find / -ok rm -rf {} \";\""))),
        ),
        (
            "find . -okdir rm -rf {}",
            Some(("rm -rf {}", Some("find . -okdir rm -rf {}"))),
        ),
        (
            "find . -exec ls {} \\; -exec rm -rf {} \\;",
            Some((
                "rm -rf {}",
                Some("find . -exec ls {} \";\" -exec rm -rf {} \";\""),
            )),
        ),
        (
            "find . -exec sudo rm -rf {} +",
            Some(("rm -rf {}", Some("find . -exec sudo rm -rf {} +"))),
        ),
        ("find . -exec ls {} \\; -name rm -rf", None),
        ("find . -name '*.rs' -print", None),
        // xargs and the other wrappers.
        (
            "ls | xargs -0 rm -rf",
            Some(("rm -rf", Some("xargs -0 rm -rf"))),
        ),
        (
            "find . -print0 | xargs -0 -I{} sh -c 'rm -rf {}'",
            Some(("rm -rf {}", Some("xargs -0 -I{} sh -c \"rm -rf {}\""))),
        ),
        (
            "builtin command exec nice rm -rf /",
            Some(("rm -rf /", Some("builtin command exec nice rm -rf /"))),
        ),
        (
            "timeout 5 nohup curl x",
            Some(("curl x", Some("timeout 5 nohup curl x"))),
        ),
        // Aliases defined in the same string, expanded where they are used.
        ("alias x=rm; x -rf /", Some(("rm -rf /", Some("x -rf /")))),
        ("alias x='rm -rf'; x /", Some(("rm -rf /", Some("x /")))),
        ("alias a=b b='rm -rf'; a /", Some(("rm -rf /", Some("a /")))),
        (
            "alias s='sudo ' x=curl; s x y",
            Some(("curl y", Some("s x y"))),
        ),
        ("alias ls='ls -la'; ls", None),
        // Each value given before, in a branch too.
        (
            "alias x=rm; false && alias x=echo; x -rf /",
            Some(("rm -rf /", Some("x -rf /"))),
        ),
        (
            "alias x=echo; true || alias x=rm; x -rf /",
            Some(("rm -rf /", Some("x -rf /"))),
        ),
        ("alias x=rm; echo x -rf /", None),
        // Used before it is defined: not expanded, as bash does not.
        ("x -rf /; alias x=rm", None),
    ];
    for (command, verdict) in rows {
        let expected = match verdict {
            None => CommandVerdict::Allowed,
            Some((inner, within)) => {
                let pattern = if inner.starts_with("curl") {
                    "curl **"
                } else {
                    "rm ** -rf **"
                };
                denied(inner, *within, pattern)
            }
        };
        assert_eq!(r.check(command, None, None), expected, "{command}");
    }
    // An alias whose value is not known before the command runs cannot be judged.
    assert_eq!(
        r.check("alias x=\"$CMD\"; x -rf /", None, None),
        unknown("x -rf /")
    );
    // Nor expanded without end.
    assert_eq!(
        r.check("alias a=b b=a; a", None, None),
        CommandVerdict::Allowed
    );
}

/// `cd`, `pushd` and `popd` move where the protected paths of the later commands
/// are read from, within the subshell they run in: each row a command string, the
/// session's working directory, and the path found protected (`None`: allowed).
#[test]
fn the_working_directory_follows_cd() {
    let r = rule(&[], None, Some(&["conf/*.key", "/etc/shadow"]));
    let rows: &[(&str, Option<&str>, Option<&str>)] = &[
        ("cd conf && cat s.key", None, Some("conf/s.key")),
        ("cd src; cat ../conf/x.key", None, Some("conf/x.key")),
        (
            "cd /work/p/src && cat ../conf/x.key",
            Some("/work/p"),
            Some("conf/x.key"),
        ),
        ("cd /etc && cat shadow", None, Some("/etc/shadow")),
        (
            "cd sub && cd .. && cd conf && rm -r a.key",
            None,
            Some("conf/a.key"),
        ),
        ("pushd conf && cat a.key", None, Some("conf/a.key")),
        ("pushd conf; popd; cat a.key", None, None),
        (
            "pushd src; pushd ../conf; popd; popd; pushd conf; cat a.key",
            None,
            Some("conf/a.key"),
        ),
        (
            "cd conf; cd /tmp; cd -; cat a.key",
            None,
            Some("conf/a.key"),
        ),
        ("cd -P -- conf && cat a.key", None, Some("conf/a.key")),
        (
            "cd ~/x && cat ../conf/a.key",
            Some("/home/u"),
            Some("conf/a.key"),
        ),
        ("cd conf && cd && cat a.key", Some("/home/u"), None),
        ("builtin cd conf && cat a.key", None, Some("conf/a.key")),
        // A subshell's `cd` stays in it.
        ("(cd conf) && cat a.key", None, None),
        ("(cd conf && cat a.key)", None, Some("conf/a.key")),
        ("cd conf | cat a.key", None, None),
        ("cd conf & cat a.key", None, None),
        ("echo $(cd conf) && cat a.key", None, None),
        ("bash -c 'cd conf' && cat a.key", None, None),
        ("f() { cd conf; }; cat a.key", None, None),
        ("{ cd conf; }; cat a.key", None, Some("conf/a.key")),
        (
            "if true; then cd conf; fi; cat a.key",
            None,
            Some("conf/a.key"),
        ),
        // A directory not known before the command runs: relative words as written.
        ("cd \"$D\" && cat a.key", None, None),
        ("cd \"$D\" && cat conf/a.key", None, Some("conf/a.key")),
        // `find -execdir` runs where the file is; its words are `find`'s own
        // arguments too, read where `find` runs.
        (
            "cd conf; find -execdir cat a.key \\;",
            None,
            Some("conf/a.key"),
        ),
        (
            "cd conf; find -exec cat a.key \\;",
            None,
            Some("conf/a.key"),
        ),
    ];
    for (command, cwd, protected) in rows {
        let expected = match protected {
            None => CommandVerdict::Allowed,
            Some(path) => CommandVerdict::Protected(
                (*path).to_owned(),
                if path.starts_with('/') {
                    "/etc/shadow"
                } else {
                    "conf/*.key"
                }
                .to_owned(),
            ),
        };
        let home = cwd.filter(|c| c.starts_with("/home"));
        assert_eq!(r.check(command, home, *cwd), expected, "{command}");
    }
}

#[test]
fn programs_not_known_before_they_run() {
    let r = rule(&["sudo **"], None, None);
    assert_eq!(r.check("$X -rf /", None, None), unknown("$X -rf /"));
    assert_eq!(r.check("\"$X\" a", None, None), unknown("\"$X\" a"));
    assert_eq!(r.check("$(echo rm) a", None, None), unknown("$(echo rm) a"));
    assert_eq!(r.check("/bin/r? a", None, None), unknown("\"/bin/r?\" a"));
    assert_eq!(
        r.check("/bin/[r]m a", None, None),
        unknown("\"/bin/[r]m\" a")
    );
    // Braces make known words: `rm -rf /` runs, which this rule allows.
    assert_eq!(r.check("{rm,-rf,/}", None, None), CommandVerdict::Allowed);
    assert_eq!(
        r.check("{sudo,ls}", None, None),
        CommandVerdict::Denied("sudo ls".to_owned(), None, "sudo **".to_owned())
    );
    assert_eq!(r.check("{/bin/r?,x}", None, None), unknown("\"/bin/r?\" x"));
    // An ANSI-C string is known as bash decodes it, unless it makes bytes that are
    // not UTF-8.
    assert_eq!(
        r.check("$'\\x72m' -rf /", None, None),
        CommandVerdict::Allowed
    );
    assert_eq!(
        r.check("$'\\x72\\xff' -rf /", None, None),
        unknown("$'\\x72\\xff' -rf /")
    );
    assert_eq!(r.check("$'rm' x", None, None), CommandVerdict::Allowed);
    assert_eq!(r.check("'r*' x", None, None), CommandVerdict::Allowed);
    assert_eq!(
        r.check("[ -f x ] && [[ -d y ]]", None, None),
        CommandVerdict::Allowed
    );
    assert_eq!(
        r.check("bash -c \"$CMD\"", None, None),
        unknown("bash -c \"$CMD\"")
    );
    assert_eq!(r.check("eval $CMD", None, None), unknown("eval $CMD"));
    assert_eq!(r.check(". $FILE", None, None), unknown(". $FILE"));
    assert_eq!(
        r.check("sudo -u x $X", None, None),
        denied("sudo -u x $X", None, "sudo **")
    );
    // Arguments that are expansions are matched as written.
    assert_eq!(r.check("echo $HOME", None, None), CommandVerdict::Allowed);
    assert_eq!(
        r.check("source ./env.sh", None, None),
        CommandVerdict::Allowed
    );
    // Without patterns, only protected paths are judged.
    let only = rule(&[], None, Some(&["secret/**"]));
    assert_eq!(only.check("$X a", None, None), CommandVerdict::Allowed);
}

#[test]
fn allow_lists_and_deny_wins() {
    let r = rule(
        &["git push ** --force **"],
        Some(&["git **", "ls **"]),
        None,
    );
    assert_eq!(
        r.check("git status && ls", None, None),
        CommandVerdict::Allowed
    );
    assert_eq!(
        r.check("ls | curl x", None, None),
        CommandVerdict::NotAllowed("curl x".to_owned(), None)
    );
    assert_eq!(
        r.check("git push origin main --force", None, None),
        denied(
            "git push origin main --force",
            None,
            "git push ** --force **"
        )
    );
    // The wrapper is judged too, before what it runs.
    assert_eq!(
        r.check("sudo git status", None, None),
        CommandVerdict::NotAllowed("sudo git status".to_owned(), None)
    );
    // Assignments and redirections alone run no program.
    assert_eq!(
        r.check("X=1 > out.txt", None, None),
        CommandVerdict::Allowed
    );
}

#[test]
fn protected_paths() {
    let r = rule(
        &[],
        None,
        Some(&[".claude/**", "~/.claude/**", "/etc/shadow"]),
    );
    let p = |path: &str, glob: &str| CommandVerdict::Protected(path.to_owned(), glob.to_owned());
    assert_eq!(
        r.check("cat .claude/settings.json", None, None),
        p(".claude/settings.json", ".claude/**")
    );
    assert_eq!(
        r.check("echo x > ./.claude/../.claude/a", None, None),
        p(".claude/a", ".claude/**")
    );
    assert_eq!(
        r.check("echo x >> ~/.claude/a", None, None),
        p("~/.claude/a", "~/.claude/**")
    );
    assert_eq!(
        r.check("rm \"$HOME/.claude/a\"", None, None),
        p("~/.claude/a", "~/.claude/**")
    );
    assert_eq!(
        r.check("rm ${HOME}/.claude/a", None, None),
        p("~/.claude/a", "~/.claude/**")
    );
    assert_eq!(
        r.check("cp x --target=/etc/shadow", None, None),
        p("/etc/shadow", "/etc/shadow")
    );
    assert_eq!(
        r.check("cat /home/u/.claude/a", None, None),
        CommandVerdict::Allowed
    );
    assert_eq!(
        r.check("cat /home/u/.claude/a", Some("/home/u"), None),
        p("~/.claude/a", "~/.claude/**")
    );
    assert_eq!(
        r.check("cat /work/p/.claude/a", None, Some("/work/p")),
        p(".claude/a", ".claude/**")
    );
    assert_eq!(
        r.check("cat ../p/.claude/a", None, Some("/work/p")),
        p(".claude/a", ".claude/**")
    );
    assert_eq!(
        r.check("cat ../../etc/shadow", None, Some("/work/p")),
        p("/etc/shadow", "/etc/shadow")
    );
    assert_eq!(
        r.check("bash -c 'cat .claude/x'", None, None),
        p(".claude/x", ".claude/**")
    );
    assert_eq!(
        r.check("cat README.md", None, None),
        CommandVerdict::Allowed
    );
}

#[test]
fn protect_except_takes_a_path_out_of_protect() {
    let mut r = rule(&[], None, Some(&["**/.env", "**/.env.*"]));
    r.protect_except = Some(globs(&["**/.env.{example,sample,template,dist}"]));
    let protected =
        |path: &str, glob: &str| CommandVerdict::Protected(path.to_owned(), glob.to_owned());
    for (command, verdict) in [
        ("cat .env", protected(".env", "**/.env")),
        (
            "cat app/.env.local",
            protected("app/.env.local", "**/.env.*"),
        ),
        (
            "cp .env.example .env.production",
            protected(".env.production", "**/.env.*"),
        ),
        (
            "cat .env.example.bak",
            protected(".env.example.bak", "**/.env.*"),
        ),
        ("cat .env.example", CommandVerdict::Allowed),
        ("cp .env.sample app/.env.template", CommandVerdict::Allowed),
        (
            "diff .env.dist .env.example > out.txt",
            CommandVerdict::Allowed,
        ),
    ] {
        assert_eq!(r.check(command, None, None), verdict, "{command}");
    }
}

#[test]
fn what_cannot_be_judged_is_a_violation() {
    let r = rule(&["sudo **"], None, None);
    // The parser's messages, with where it stopped.
    for (command, message) in [
        (
            "echo 'unterminated",
            "unterminated single quote at 1,6 (detected near line 1 col 19)",
        ),
        ("if then fi )", "syntax error at line 1 col 9"),
        (
            "echo $(ls",
            "unterminated expansion (detected near line 1 col 10)",
        ),
        (
            "cat <<EOF\nx",
            "unterminated here document sequence; tag(s) [EOF] found at: [1,10] \
             (detected near line 2 col 2)",
        ),
    ] {
        assert_eq!(
            r.check(command, None, None),
            CommandVerdict::Unparseable(message.to_owned()),
            "{command}"
        );
    }
    assert_eq!(
        r.check(&"x".repeat(MAX_COMMAND_BYTES + 1), None, None),
        CommandVerdict::TooLong
    );
    let nested = format!(
        "{}ls{}",
        "echo $(".repeat(MAX_DEPTH + 1),
        ")".repeat(MAX_DEPTH + 1)
    );
    assert_eq!(
        r.check(&nested, None, None),
        CommandVerdict::TooDeep(MAX_DEPTH)
    );
    let wrapped = format!("{}ls", "nohup ".repeat(MAX_DEPTH + 1));
    assert_eq!(
        r.check(&wrapped, None, None),
        CommandVerdict::TooDeep(MAX_DEPTH)
    );
    let deep = format!(
        "{}ls{}",
        "( :; ".repeat(MAX_NESTING + 1),
        " )".repeat(MAX_NESTING + 1)
    );
    assert_eq!(
        r.check(&deep, None, None),
        CommandVerdict::TooDeep(MAX_NESTING)
    );
    // Written together, `((` is arithmetic to bash, which runs nothing.
    let arithmetic = format!(
        "{}ls{}",
        "(".repeat(MAX_NESTING + 1),
        ")".repeat(MAX_NESTING + 1)
    );
    assert_eq!(r.check(&arithmetic, None, None), CommandVerdict::Allowed);
    // Numbers the parser would overflow on are refused before it.
    for command in [
        "ls ~+99999999999999999999999/x",
        "ls ~-99999999999999999999999",
        "echo 99999999999>x",
        "echo {1..99999999999999999999999}",
    ] {
        assert_eq!(
            r.check(command, None, None),
            CommandVerdict::Unparseable("a number too large for the shell parser".to_owned()),
            "{command}"
        );
    }
    assert_eq!(
        r.check("sleep 1700000000000", None, None),
        CommandVerdict::Allowed
    );
    // A rule with nothing to judge judges nothing.
    assert_eq!(
        rule(&[], None, None).check("echo 'unterminated", None, None),
        CommandVerdict::Allowed
    );
}

#[test]
fn long_commands_are_shown_bounded() {
    let r = rule(&["rm **"], None, None);
    let long = format!("rm {}", "a".repeat(200));
    let CommandVerdict::Denied(shown, ..) = r.check(&long, None, None) else {
        panic!("denied");
    };
    assert_eq!(shown.chars().count(), 80);
    assert!(shown.ends_with("..."));
}

/// Nesting up to the bound parses within a test thread's stack; past it, it is a
/// violation.
#[test]
fn nesting_is_bounded() {
    let r = rule(&["sudo **"], None, None);
    let n = MAX_NESTING;
    let at = |n: usize| {
        [
            format!("{}ls{}", "if true; then ".repeat(n), "; fi".repeat(n)),
            format!("{}ls{}", "while true; do ".repeat(n), "; done".repeat(n)),
            // Subshells, never two `(` in a row (see the test of the parser's
            // exponential time below).
            format!("{}ls{}", "( :; ".repeat(n), " )".repeat(n)),
            format!("{}ls{}", "{ ".repeat(n), "; }".repeat(n)),
            format!(
                "{}ls{}",
                "( if true; then { ".repeat(n / 3),
                "; }; fi )".repeat(n / 3)
            ),
        ]
    };
    for command in at(n) {
        let verdict = r.check(&command, None, None);
        assert!(
            matches!(
                verdict,
                CommandVerdict::Allowed | CommandVerdict::TooDeep(MAX_DEPTH)
            ),
            "{command}: {verdict:?}"
        );
    }
    for command in at(n + 3) {
        assert_eq!(
            r.check(&command, None, None),
            CommandVerdict::TooDeep(MAX_NESTING),
            "{command}"
        );
    }
    // Substitutions are parsed again, one level each.
    let substitutions = format!("{}ls{}", "echo $(".repeat(n), ")".repeat(n));
    assert_eq!(
        r.check(&substitutions, None, None),
        CommandVerdict::TooDeep(MAX_DEPTH)
    );
    // What quoted text opens and never closes does not nest: a commit message with
    // many `if`, `for` and backticks.
    let message = "Fix `parse` for the case if `x` is empty, while `y` is not. ".repeat(20);
    assert_eq!(
        r.check(
            &format!("git commit -m \"$(cat <<'EOF'\n{message}\nEOF\n)\""),
            None,
            None
        ),
        CommandVerdict::Allowed
    );

    // Long flat lists are no deeper.
    let list = "ls && ".repeat(5_000) + "ls";
    assert_eq!(r.check(&list, None, None), CommandVerdict::Allowed);
}

proptest::proptest! {
    /// Any string is decided, without a panic: allowed or a violation.
    #[test]
    fn any_string_is_decided(text in "[a-z $(){}\\[\\]'\"`|&;<>=~*?!#\\\\\n-]{0,64}") {
        let r = rule(&["rm ** -rf **"], Some(&["ls **", "echo **"]), Some(&[".claude/**"]));
        let _ = r.check(&text, Some("/home/u"), Some("/work"));
    }

    #[test]
    fn any_unicode_is_decided(text in "\\PC{0,48}") {
        let r = rule(&["rm **"], None, Some(&["**"]));
        let _ = r.check(&text, None, None);
    }
}

/// The verdict on the strings on which the parser takes more steps than its budget.
fn too_many_steps() -> CommandVerdict {
    CommandVerdict::Unparseable(format!(
        "more than {MAX_PARSER_STEPS} steps of the shell parser, whose time grows \
         exponentially on some strings"
    ))
}

/// Strings on which the parser's time grows exponentially are refused by the budget
/// of its steps, wherever they hide: runs of `(` after `((` or in a substitution,
/// with quoted closers among them, substitutions nested in double-quoted strings
/// and in subscripts. Each of these took from seconds to hours before the budget,
/// and each is within the nesting bound.
#[test]
fn strings_that_would_take_the_parser_exponential_time_are_refused_by_its_budget() {
    let r = rule(&["sudo **"], None, None);
    let nest =
        |k: usize, open: &str, close: &str| format!("x {}e{}", open.repeat(k), close.repeat(k));
    // `$[` and runs of `(` within a substitution in a double-quoted string, with
    // quoted `)` among them (found by fuzzing: 79 bytes took 1 second, and each `(`
    // more doubled it).
    let legacy = |k: usize| {
        format!(
            "\"$($[{}')'( ( ')' ( ( ')' ( ( ')' ( ')' ( ??( ')' ( ')' ( ')' (?????])\" ",
            "(".repeat(k)
        )
    };
    for command in [
        "(".repeat(26) + "x",
        "(".repeat(18) + "x",
        "(( ".repeat(13) + "x",
        "( ".repeat(30) + ")",
        // Quoted `)` close nothing for the parser, and keep the nesting low.
        "(( ".to_owned() + &"( ')' ".repeat(40) + "x",
        // The same inside a substitution, parsed again on its own.
        format!("echo `{}x`", "(".repeat(26)),
        legacy(5),
        legacy(14),
        format!("sudo bash -c {}", legacy(9)),
        nest(30, "\"c $(", ")\""),
        nest(5, "${D[$(", ")]}"),
    ] {
        assert!(command.len() < 300);
        assert_eq!(r.check(&command, None, None), too_many_steps(), "{command}");
    }
    // The budget is for all the parses of one string together: one of these is
    // judged, four are refused.
    assert_eq!(r.check(&legacy(3), None, None), CommandVerdict::Allowed);
    assert_eq!(r.check(&legacy(3).repeat(4), None, None), too_many_steps());
    // Bash reads all of these, and so does the parser within its budget.
    for command in [
        "python3 -c 'print(((((((((((((((((((((((((1)))))))))))))))))))))))))'".to_owned(),
        format!("echo $(( {}1{} ))", "(".repeat(30), ")".repeat(30)),
        "(( (1)+(2)*(3) )) && echo ok".to_owned(),
        "f() { :; }; ".repeat(40) + "f",
        "( echo a ); ".repeat(40),
        format!("bash -c \"{}x{}\"; ", "( ".repeat(10), " )".repeat(10)).repeat(1_100),
        nest(4, "${D[", "]}"),
        "cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd".to_owned(),
        "for i in \"${!a[@]}\"; do echo \"${a[$i]} ${b[$i]}\"; done".to_owned(),
        "git commit -m \"$(cat <<'EOF'\nfeat: `x` (y) ${z} $(w)\nEOF\n)\"".to_owned(),
        "echo \"${PIPESTATUS[0]} ${PIPESTATUS[1]}\"".to_owned(),
        "echo \"${a[0]} ${a[1]} ${a[2]} ${b[${c[0]}]}\"".to_owned(),
        format!(
            "gh pr create --body \"$(cat <<'EOF'\n{}\nEOF\n)\" && ls",
            "Set `${HOME}` to `$(pwd)` (#1); ".repeat(40)
        ),
        "case \"$1\" in a) echo \"$(date)\";; esac".to_owned(),
        // Many expansions after a here-document, a comment or a `case`: a count of
        // levels before the parser took each for one level more, and refused these.
        format!(
            "cat > .env <<EOF\n{}EOF",
            (1..=40)
                .map(|i| format!("V{i}=${{V{i}}}\n"))
                .collect::<String>()
        ),
        format!("# build\n{}", "echo \"${HOME}\" $(pwd)\n".repeat(40)),
        format!("case $x in a) ;; esac\n{}", "echo \"$(date)\"\n".repeat(40)),
    ] {
        assert_eq!(
            r.check(&command, None, None),
            CommandVerdict::Allowed,
            "{command}"
        );
    }
    // Substitutions nested in double-quoted strings are read as deep as bash reads
    // them; their programs here are not known before they run.
    for command in [
        nest(13, "\"c $(", ")\""),
        format!("# it's\n{}", nest(14, "\"c $(", ")\"")),
        format!("y ${{D[{}]}}", nest(7, "\"c $(", ")\"")),
    ] {
        assert!(
            matches!(r.check(&command, None, None), CommandVerdict::Unknown(_)),
            "{command}"
        );
    }
}

/// Nesting that quoted closers or keywords in words hide from the count before the
/// parser (`( echo ')'; ( echo ')'; ...`) is parsed on a stack that holds it: the
/// judging ends with a verdict, never a stack overflow.
#[test]
fn nesting_hidden_from_the_count_does_not_overflow_the_stack() {
    let r = rule(&["sudo **"], None, None);
    let fill = |open: &str, middle: &str, close: &str| {
        let n = (MAX_COMMAND_BYTES - middle.len()) / (open.len() + close.len());
        format!("{}{middle}{}", open.repeat(n), close.repeat(n))
    };
    for command in [
        fill("( echo ')'; ", "ls", " )"),
        fill("if echo fi; then ", "ls;", " fi;"),
        fill("while echo done; do ", "ls;", " done;"),
        fill("echo $( ')' ", "ls", " )"),
        fill("{ echo '}'; ", "ls;", " }"),
    ] {
        assert!(command.len() <= MAX_COMMAND_BYTES);
        assert!(
            matches!(
                r.check(&command, None, None),
                CommandVerdict::TooDeep(MAX_NESTING | MAX_DEPTH)
            ),
            "{}",
            &command[..40]
        );
    }
}

/// Commands in options are judged: the options whose value is a command string the
/// program runs, and the commands git's subcommands take.
#[test]
fn commands_in_options_are_judged() {
    let r = rule(&["rm ** -rf **"], None, None);
    let d = |within: &str| denied("rm -rf /", Some(within), "rm ** -rf **");
    for (command, within) in [
        ("rsync -e 'rm -rf /' a b:c", "rsync -e \"rm -rf /\" a b:c"),
        (
            "rsync -avze 'rm -rf /' a b:c",
            "rsync -avze \"rm -rf /\" a b:c",
        ),
        (
            "rsync --rsh='rm -rf /' a b:c",
            "rsync \"--rsh=rm -rf /\" a b:c",
        ),
        (
            "rsync --rsync-path 'rm -rf /' a b:c",
            "rsync --rsync-path \"rm -rf /\" a b:c",
        ),
        (
            "ssh -o ProxyCommand='rm -rf /' host",
            "ssh -o \"ProxyCommand=rm -rf /\" host",
        ),
        (
            "ssh -oLocalCommand='rm -rf /' -o PermitLocalCommand=yes host",
            "ssh \"-oLocalCommand=rm -rf /\" -o PermitLocalCommand=yes host",
        ),
        ("scp -S 'rm -rf /' a b:c", "scp -S \"rm -rf /\" a b:c"),
        ("sftp -D 'rm -rf /' host", "sftp -D \"rm -rf /\" host"),
        (
            "sftp -o 'proxycommand rm -rf /' host",
            "sftp -o \"proxycommand rm -rf /\" host",
        ),
        (
            "tar --to-command='rm -rf /' -xf a.tar",
            "tar \"--to-command=rm -rf /\" -xf a.tar",
        ),
        (
            "tar -I 'rm -rf /' -cf a.tar d",
            "tar -I \"rm -rf /\" -cf a.tar d",
        ),
        (
            "tar -cf a.tar --checkpoint-action=exec='rm -rf /' d",
            "tar -cf a.tar \"--checkpoint-action=exec=rm -rf /\" d",
        ),
        (
            "zip -TT 'rm -rf /' -T a.zip f",
            "zip -TT \"rm -rf /\" -T a.zip f",
        ),
        (
            "git clone --upload-pack='rm -rf /' url",
            "git clone \"--upload-pack=rm -rf /\" url",
        ),
        (
            "git clone -u 'rm -rf /' url",
            "git clone -u \"rm -rf /\" url",
        ),
        (
            "git fetch --upload-pack 'rm -rf /' origin",
            "git fetch --upload-pack \"rm -rf /\" origin",
        ),
        (
            "git push --receive-pack='rm -rf /' origin",
            "git push \"--receive-pack=rm -rf /\" origin",
        ),
        (
            "git rebase -x 'rm -rf /' main",
            "git rebase -x \"rm -rf /\" main",
        ),
        (
            "git -C x rebase --exec 'rm -rf /' main",
            "git -C x rebase --exec \"rm -rf /\" main",
        ),
        ("git difftool -x 'rm -rf /'", "git difftool -x \"rm -rf /\""),
        (
            "git filter-branch --tree-filter 'rm -rf /' HEAD",
            "git filter-branch --tree-filter \"rm -rf /\" HEAD",
        ),
        (
            "git submodule foreach 'rm -rf /'",
            "git submodule foreach \"rm -rf /\"",
        ),
        (
            "git submodule foreach --recursive rm -rf /",
            "git submodule foreach --recursive rm -rf /",
        ),
        ("git bisect run rm -rf /", "git bisect run rm -rf /"),
        ("git grep -O'rm -rf /' x", "git grep \"-Orm -rf /\" x"),
        ("man -P 'rm -rf /' ls", "man -P \"rm -rf /\" ls"),
        // Attached to its letter, whatever the value holds, or in a group.
        ("rsync -ve'rm -rf /' a b:c", "rsync \"-verm -rf /\" a b:c"),
        ("git grep -iO'rm -rf /' x", "git grep \"-iOrm -rf /\" x"),
        // The last `-c` of `su` and `script`, which is the one they run.
        (
            "su -c ls -c 'rm -rf /' root",
            "su -c ls -c \"rm -rf /\" root",
        ),
        (
            "su --session-command 'rm -rf /' root",
            "su --session-command \"rm -rf /\" root",
        ),
        (
            "script -c ls -qc 'rm -rf /' /dev/null",
            "script -c ls -qc \"rm -rf /\" /dev/null",
        ),
    ] {
        assert_eq!(r.check(command, None, None), d(within), "{command}");
    }
    // Values not known before the command runs, and files whose contents are not.
    for command in [
        "rsync -e \"$SSH\" a b:c",
        "ssh -o ProxyCommand=\"$P\" host",
        "git rebase -x \"$CMD\" main",
        // What `source` reads from standard input or another open file.
        "source /dev/stdin",
        ". /dev/fd/3",
        "source /proc/self/fd/0",
        // Commands run later from standard input or a file.
        "at now",
        "at -f job.sh 10:00",
        "batch",
        // Words after the user go to the user's shell as its arguments.
        "su root -- -c x",
        "su - root x.sh",
        "runuser bob -- -c x",
    ] {
        assert_eq!(
            r.check(command, None, None),
            CommandVerdict::Unknown(command.to_owned()),
            "{command}"
        );
    }
    // Options that run nothing, or nothing denied.
    allowed(
        &r,
        &[
            "rsync -av --delete a/ b:c",
            "rsync -e 'ssh -p 2222' a b:c",
            "ssh -o ProxyCommand=none host",
            "ssh -o StrictHostKeyChecking=no host ls",
            "ssh host ls -o ProxyCommand=x",
            "scp a b:c -S x",
            "tar -xzf a.tgz -C d",
            "tar -I zstd -cf a.tar.zst d",
            "zip -r a.zip d",
            "git clone url",
            "git push -u origin main",
            "git rebase -i main",
            "git rebase -x 'cargo test' main",
            "git submodule update --init",
            "git submodule foreach",
            "git bisect start",
            "git bisect run",
            "git grep -O x",
            "sem --wait",
            "setarch --list",
            "ssh-agent -s",
            "xterm -hold",
            // A letter that takes a value ends a group: `-s`'s strategy is `x`.
            "git rebase -sx 'rm -rf /' main",
            "rsync -Be 'rm -rf /' a b:c",
            // Listing, showing or removing jobs runs nothing.
            "at -l",
            "at -c 3",
            "at -r 3",
            // `flock`'s `-c` is the word after the lock file, or a word of the command.
            "flock /tmp/l ls -c 'rm -rf /'",
            "su - root -c ls",
            "su -s /bin/sh -c ls root",
        ],
    );
}

/// A folder that holds a protected path is protected too: removing, moving or
/// writing over it reaches what it holds. Going into it is not, nor a folder that
/// only a wildcard part of a glob names, the home or the root.
#[test]
fn folders_that_hold_protected_paths_are_protected() {
    let r = rule(
        &[],
        None,
        Some(&["**/.claude/settings.json", "/dev/sd*", "~/.claude/**"]),
    );
    let claude = |path: &str| {
        CommandVerdict::Protected(path.to_owned(), "**/.claude/settings.json".to_owned())
    };
    for (command, expected) in [
        ("rm -r .claude", claude(".claude")),
        ("mv .claude .c2", claude(".claude")),
        ("rm -r ./.claude/", claude(".claude")),
        ("git rm -r -q .claude", claude(".claude")),
        ("tar -xf x.tar -C .claude", claude(".claude")),
        ("rsync -a x/ .claude/", claude(".claude")),
        ("sudo mv sub/.claude /tmp", claude("sub/.claude")),
        ("cd .claude && rm -r ../.claude", claude(".claude")),
        (
            "ls /dev",
            CommandVerdict::Protected("/dev".to_owned(), "/dev/sd*".to_owned()),
        ),
    ] {
        assert_eq!(r.check(command, None, None), expected, "{command}");
    }
    for command in [
        "cd .claude && ls",
        "pushd .claude",
        "mkdir -p .claude/agents",
        "cat .claude/agents/x.md",
        "ls ~",
        "ls /",
        "cp -r src dst",
        "echo x > /dev/null",
    ] {
        assert_eq!(
            r.check(command, Some("/home/u"), None),
            CommandVerdict::Allowed,
            "{command}"
        );
    }
}

/// Each alternative of a protect glob gives its folders: `{k/a/b,k}/id_rsa` is held in
/// `k/a/b`, `k/a` and `k`, and `{a,b}/secret` in `a` and `b`.
#[test]
fn folders_of_each_alternative_of_a_glob_are_protected() {
    let r = rule(
        &[],
        None,
        Some(&[
            "{k/a/b,k}/id_rsa",
            "**/.claude/settings.json",
            "{a,b}/secret",
            "x/{y,[{]z}/key",
        ]),
    );
    for (command, path, glob) in [
        ("rm -r .claude", ".claude", "**/.claude/settings.json"),
        ("cat k/id_rsa", "k/id_rsa", "{k/a/b,k}/id_rsa"),
        ("cat k/a/b/id_rsa", "k/a/b/id_rsa", "{k/a/b,k}/id_rsa"),
        ("rm -r k/a", "k/a", "{k/a/b,k}/id_rsa"),
        ("rm -r k/a/b", "k/a/b", "{k/a/b,k}/id_rsa"),
        ("mv k /tmp/k", "k", "{k/a/b,k}/id_rsa"),
        ("rm -r a", "a", "{a,b}/secret"),
        ("rm -r b/", "b", "{a,b}/secret"),
        ("rm -r x/y", "x/y", "x/{y,[{]z}/key"),
    ] {
        assert_eq!(
            r.check(command, None, None),
            CommandVerdict::Protected(path.to_owned(), glob.to_owned()),
            "{command}"
        );
    }
    for command in ["ls k/b", "cat k/a/x", "rm -r c", "rm -r x/z"] {
        assert_eq!(
            r.check(command, None, None),
            CommandVerdict::Allowed,
            "{command}"
        );
    }
}

/// Folders that cannot be told, when a glob's alternatives are too many, are every
/// path (fail closed).
#[test]
fn folders_of_too_many_alternatives_are_every_path() {
    let many = "{a,b}".repeat(11) + "/key";
    let r = rule(&[], None, Some(&[many.as_str()]));
    let verdict = r.check("ls src", None, None);
    assert!(
        matches!(&verdict, CommandVerdict::Protected(path, glob) if path == "src" && *glob == many),
        "{verdict:?}"
    );
}

/// A word's braces name each path the shell makes of them: alternatives (with a `/`
/// inside them too) and sequences of letters or numbers, against each alternative of
/// a protect glob.
#[test]
fn words_with_braces_name_each_path_they_expand_to() {
    let r = rule(
        &[],
        None,
        Some(&["**/.env", "{k/a/b,k}/id_rsa", "logs/run[0-9].key"]),
    );
    let protected =
        |path: &str, glob: &str| CommandVerdict::Protected(path.to_owned(), glob.to_owned());
    // Each word the braces make is named, as the shell passes it.
    for (command, expected) in [
        ("cat .e{n..n}v", protected(".env", "**/.env")),
        ("cat .{e..e}nv", protected(".env", "**/.env")),
        ("cat .e{b..z..3}v", protected(".env", "**/.env")),
        ("cat x/.e{N..p}v", protected("x/.env", "**/.env")),
        ("cat {.,x}env", protected(".env", "**/.env")),
        // A redirection's target too (bash refuses one that makes more than one
        // word; each is named all the same).
        ("echo x > .e{n..n}v", protected(".env", "**/.env")),
        ("echo x >> {a,.env}", protected(".env", "**/.env")),
        (
            "cat < k/id_{rsa,x}",
            protected("k/id_rsa", "{k/a/b,k}/id_rsa"),
        ),
        ("{ echo; } > .e{n..n}v", protected(".env", "**/.env")),
        // Quoted pieces inside and around the braces.
        ("cat {x,\".env\"}", protected(".env", "**/.env")),
        ("cat '.e'{n,x}\"v\"", protected(".env", "**/.env")),
        (
            "cat {\"k\",j}/id_rsa",
            protected("k/id_rsa", "{k/a/b,k}/id_rsa"),
        ),
        ("cat \"$HOME\"/{x,.env}", protected("~/.env", "**/.env")),
        (
            "cat {k,j}/id_rsa",
            protected("k/id_rsa", "{k/a/b,k}/id_rsa"),
        ),
        (
            "cat {x,k/id_rsa}",
            protected("k/id_rsa", "{k/a/b,k}/id_rsa"),
        ),
        ("cat k/id_rs?", protected("k/id_rs?", "{k/a/b,k}/id_rsa")),
        ("cat k/*", protected("k/*", "{k/a/b,k}/id_rsa")),
        (
            "cat logs/run{1..3}.key",
            protected("logs/run1.key", "logs/run[0-9].key"),
        ),
        ("rm -r {j,k/a}", protected("k/a", "{k/a/b,k}/id_rsa")),
        (
            "cat {j,k}/id_rs?",
            protected("k/id_rs?", "{k/a/b,k}/id_rsa"),
        ),
    ] {
        assert_eq!(r.check(command, None, None), expected, "{command}");
    }
    allowed(
        &r,
        &[
            "cat .e{a..c}v",
            "ls file{1..3}.txt",
            "echo {a..bc} {!..#}",
            "ls src/{a,b}.rs",
            "cat {j,x}/id_rsa",
            "cat logs/x{1..3}.key",
            "echo ${HOME}",
            // Quoted braces, commas and dots are characters: one word each.
            "cat '{'x,.env}",
            "cat {x\",\".env}",
            "cat {x,.env\"}\"",
            "cat .e{n\"..\"n}v",
        ],
    );
}

/// Brace expansion as bash 5 makes it (each case checked against bash).
#[test]
fn braces_make_the_words_the_shell_makes() {
    for (word, words) in [
        ("{-rf,x}", &["-rf", "x"][..]),
        ("a{b,c}d", &["abd", "acd"]),
        ("{a{b,c}}", &["{ab}", "{ac}"]),
        ("{a}", &["{a}"]),
        ("{a,}", &["a"]),
        ("{,a}b", &["b", "ab"]),
        ("x{1..3}", &["x1", "x2", "x3"]),
        ("{01..3}", &["01", "02", "03"]),
        ("{1..03}", &["01", "02", "03"]),
        ("{-1..2}", &["-1", "0", "1", "2"]),
        ("{3..1}", &["3", "2", "1"]),
        ("{1..10..3}", &["1", "4", "7", "10"]),
        ("{a..e..2}", &["a", "c", "e"]),
        ("{e..a}", &["e", "d", "c", "b", "a"]),
        ("{1..3..0}", &["1", "2", "3"]),
        ("{1..2..-1}", &["1", "2"]),
        ("--{f..f}orce", &["--force"]),
        ("{a,b}{1..2}", &["a1", "a2", "b1", "b2"]),
        ("\\{a,b}", &["{a,b}"]),
        // Quoted (escaped) characters are no part of a group, and an empty quoted
        // piece keeps its word.
        ("{a,b\\}", &["{a,b}"]),
        ("{a\\,b}", &["{a,b}"]),
        ("{1\\.\\.3}", &["{1..3}"]),
        ("\\\"{a,}", &["a", ""]),
        ("{a,\\\\}", &["a", "\\"]),
        ("\\${a,b}", &["$a", "$b"]),
        ("{x${a,b}y,z}", &["x${a,b}y", "z"]),
        ("{a,{b,c}}", &["a", "b", "c"]),
        ("{a..b}{,x}", &["a", "ax", "b", "bx"]),
        ("${a,b}", &["${a,b}"]),
        ("{-01..1}", &["-01", "000", "001"]),
        ("{+1..2}", &["1", "2"]),
        ("a{b}c{d,e}", &["a{b}cd", "a{b}ce"]),
        ("{x..y..z}", &["{x..y..z}"]),
        ("{ab..cd}", &["{ab..cd}"]),
        ("{9..11}", &["9", "10", "11"]),
        (
            "{Y..b}",
            &["Y", "Z", "[", "\\", "]", "^", "_", "`", "a", "b"],
        ),
        ("{a,b", &["{a,b"]),
    ] {
        let made: Vec<String> = (super::shell_braces(word).unwrap().iter())
            .filter_map(|word| super::unescaped(word))
            .collect();
        assert_eq!(made, words, "{word}");
    }
    // Bounded: 1024 words, and as many steps as MAX_BRACE_PATHS.
    assert_eq!(
        super::shell_braces(&"{a,b}".repeat(10)).unwrap().len(),
        1024
    );
    assert_eq!(super::shell_braces(&"{a,b}".repeat(11)), None);
    assert_eq!(super::shell_braces("{1..1025}"), None);
    assert_eq!(super::shell_braces("{1..9223372036854775807}"), None);
    assert_eq!(super::shell_braces(&"{1..1}".repeat(20_000)), None);
    assert_eq!(
        super::shell_braces(&"{1..1}".repeat(100)).unwrap(),
        ["1".repeat(100)]
    );
}

/// Deny patterns are held against the words braces make, as the shell runs them.
#[test]
fn deny_patterns_see_the_words_braces_make() {
    let r = rule(
        &[
            "rm ** -rf **",
            "git ** push ** --force **",
            "find ** -delete **",
            "sudo **",
        ],
        None,
        None,
    );
    for (command, runs, pattern) in [
        ("rm {-rf,x} /tmp/x", "rm -rf x /tmp/x", "rm ** -rf **"),
        ("rm -{r..r}f /tmp/x", "rm -rf /tmp/x", "rm ** -rf **"),
        ("{rm,-rf} /", "rm -rf /", "rm ** -rf **"),
        (
            "git push --{f..f}orce",
            "git push --force",
            "git ** push ** --force **",
        ),
        (
            "git {push,--force}",
            "git push --force",
            "git ** push ** --force **",
        ),
        (
            "find . -{d..d}elete",
            "find . -delete",
            "find ** -delete **",
        ),
        ("sudo{,} ls", "sudo sudo ls", "sudo **"),
        // Quoted pieces inside a group are part of its words.
        ("rm {-rf,\"x\"} /", "rm -rf x /", "rm ** -rf **"),
        ("{\"rm\",-rf} /", "rm -rf /", "rm ** -rf **"),
        (
            "git push {'--force',x}",
            "git push --force x",
            "git ** push ** --force **",
        ),
        ("rm -{r\"\"f,x} /", "rm -rf -x /", "rm ** -rf **"),
        // An empty quoted piece keeps the empty word it makes; an unquoted one not.
        ("rm -rf ''{/,}", "rm -rf / \"\"", "rm ** -rf **"),
        ("rm -rf {/,}", "rm -rf /", "rm ** -rf **"),
        // Braces that make a word of a parameter's expansion.
        (
            "rm -rf ${HOME}{/,/x}",
            "rm -rf ${HOME}/ ${HOME}/x",
            "rm ** -rf **",
        ),
    ] {
        assert_eq!(
            r.check(command, None, None),
            denied(runs, None, pattern),
            "{command}"
        );
    }
    // An alias is expanded before braces are, so that its arguments' braces are
    // expanded once.
    assert_eq!(
        r.check("alias r=rm; r {-rf,y} /", None, None),
        CommandVerdict::Denied(
            "rm -rf y /".to_owned(),
            Some("r -rf y /".to_owned()),
            "rm ** -rf **".to_owned()
        )
    );
    allowed(
        &r,
        &[
            "rm {-r,x} y",
            "ls {a,b}",
            "mkdir -p src/{a,b}/{c,d}",
            "echo '{-rf,x}'",
            "rm \\{-rf,x}",
            // A quoted brace, comma or `..` opens, splits or makes no group.
            "rm \"{\"-rf,x}",
            "rm {-rf\",\"x}",
            "rm {-rf,x\"}\"",
            "rm -{r\"..\"r}f",
            "rm $'{'-rf,x}",
        ],
    );
}

/// Braces that make more paths than can be judged, in one word or in all the words
/// of a string, are a violation.
#[test]
fn words_whose_braces_make_too_many_paths_are_not_judged() {
    let r = rule(&[], None, Some(&["**/.env"]));
    let spent = CommandVerdict::Unparseable(super::BRACE_PATHS_SPENT.to_owned());
    let word = "{a,b}".repeat(10);
    assert_eq!(
        r.check(&format!("ls {word}"), None, None),
        CommandVerdict::Allowed
    );
    assert_eq!(r.check(&format!("ls {word}{{c,d}}"), None, None), spent);
    // 16 words of 1024 paths each are judged, the 17th is not.
    let words = |n: usize| {
        (0..n)
            .map(|i| format!("{word}{i}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(
        r.check(&format!("ls {}", words(16)), None, None),
        CommandVerdict::Allowed
    );
    assert_eq!(r.check(&format!("ls {}", words(17)), None, None), spent);
    // Words without braces, or quoted ones, make no paths to count.
    assert_eq!(
        r.check(&format!("ls {} '{word}' x* y?", words(16)), None, None),
        CommandVerdict::Allowed
    );
}

/// A word with wildcards, braces or classes names what it may expand to: each part
/// against the part of a protect glob it faces, a leading `.` only when written.
#[test]
fn words_with_wildcards_name_what_they_may_expand_to() {
    let r = rule(
        &[],
        None,
        Some(&["**/.claude/settings.json", "/dev/sd*", "~/.claude/**"]),
    );
    let settings = |path: &str| {
        CommandVerdict::Protected(path.to_owned(), "**/.claude/settings.json".to_owned())
    };
    for (command, expected) in [
        (
            "echo x > .cl*/settings.json",
            settings(".cl*/settings.json"),
        ),
        (
            "echo x > .claude/settings.jso?",
            settings(".claude/settings.jso?"),
        ),
        (
            "echo x > .claude/settings.js[o]n",
            settings(".claude/settings.js[o]n"),
        ),
        (
            "echo x > .claude/{settings,x}.json",
            settings(".claude/settings.json"),
        ),
        ("cat a/.*/settings.json", settings("a/.*/settings.json")),
        // The folder that holds one.
        ("rm -r .c*", settings(".c*")),
        (
            "cat /dev/s?a",
            CommandVerdict::Protected("/dev/s?a".to_owned(), "/dev/sd*".to_owned()),
        ),
        (
            "cat ~/.cl*/x",
            CommandVerdict::Protected("~/.cl*/x".to_owned(), "~/.claude/**".to_owned()),
        ),
        // What comes before and after the wildcards, escapes among them.
        ("cat .claude/*.json", settings(".claude/*.json")),
        ("cat .claude/s*n", settings(".claude/s*n")),
        ("cat .claude/se[t]*", settings(".claude/se[t]*")),
        ("cat .claude/se\\t*", settings(".claude/set*")),
    ] {
        assert_eq!(r.check(command, None, None), expected, "{command}");
    }
    allowed(
        &r,
        &[
            "ls *",
            "cp -r * /tmp",
            "cat */settings.json",
            "rm *.o",
            "ls src/*.rs",
            "ls .claude/agents/*.md",
            "echo '.cl*/settings.json'",
            "cat /dev/tty*",
            "cat .claude/*.txt",
            "cat .claude/x*.json",
            "cat .claude/s*x",
            // Many words, each held against every glob.
            &"ls a* s*n src/*/x* ".repeat(3_000),
        ],
    );
}

/// Extended globs (`+(a|b)`, `?(x)`) are read as bash reads them without `shopt -s
/// extglob`, which `bash -c` never has: as a syntax error. With them on, the word
/// parser's time grew exponentially with nested ones (an 848-byte command took 69
/// seconds, found by fuzzing the policy target).
#[test]
fn extended_globs_are_off_as_in_bash() {
    let r = rule(&["rm ** -rf **"], None, None);
    for command in ["ls +(a|b)", "ls !(x)", "echo @(y)"] {
        assert!(
            matches!(r.check(command, None, None), CommandVerdict::Unparseable(_)),
            "{command}"
        );
    }
    for command in ["ls *.rs", "echo '+(a|b)'", "ls a?b"] {
        assert!(
            !matches!(r.check(command, None, None), CommandVerdict::Unparseable(_)),
            "{command}"
        );
    }
}

/// ANSI-C strings as bash 5 decodes them (each case checked against bash's
/// `printf %s $'...'`).
#[test]
fn ansi_c_strings_are_what_bash_makes_of_them() {
    for (inside, made) in [
        (r"\x72m", Some("rm")),
        (r"\162\155", Some("rm")),
        (
            r"\a\b\e\E\f\n\r\t\v",
            Some("\x07\x08\x1b\x1b\x0c\n\r\t\x0b"),
        ),
        (r#"\\\'\"\?"#, Some("\\'\"?")),
        (r"\c?\ca\cA\c[\c1", Some("\x7f\x01\x01\x1b\x11")),
        (r"\c", Some(r"\c")),
        (r"a\0b", Some("a")),
        (r"\400x", Some("")),
        (r"\x", Some(r"\x")),
        (r"\xg", Some(r"\xg")),
        (r"\x4", Some("\x04")),
        (r"\x414", Some("A4")),
        (r"\u", Some(r"\u")),
        (r"\u41", Some("A")),
        (r"\u00e9", Some("\u{e9}")),
        (r"\U0001F600", Some("\u{1F600}")),
        (r"\U", Some(r"\U")),
        (r"\101", Some("A")),
        (r"\1011", Some("A1")),
        (r"\q\8", Some(r"\q\8")),
        ("\\\u{e9}", Some("\\\u{e9}")),
        (r"\xc3\xa9", Some("\u{e9}")),
        // Not UTF-8, or a control escape bash reads with more of what follows.
        (r"\xff", None),
        (r"\uD800", None),
        (r"\U110000", None),
        (r"\c\\", None),
    ] {
        assert_eq!(super::ansi_c(inside).as_deref(), made, "{inside}");
    }
}

/// Deny patterns and protect see what an ANSI-C string makes, in any word.
#[test]
fn deny_patterns_see_what_ansi_c_strings_make() {
    let r = rule(
        &["rm ** -rf **", "git ** push ** --force **"],
        None,
        Some(&["**/.env"]),
    );
    for (command, runs, pattern) in [
        ("rm -$'\\x72'f /", "rm -rf /", "rm ** -rf **"),
        ("$'\\162\\155' -rf /", "rm -rf /", "rm ** -rf **"),
        (
            "git push $'--\\u0066orce'",
            "git push --force",
            "git ** push ** --force **",
        ),
    ] {
        assert_eq!(
            r.check(command, None, None),
            denied(runs, None, pattern),
            "{command}"
        );
    }
    assert_eq!(
        r.check("cat $'.e\\x6ev'", None, None),
        CommandVerdict::Protected(".env".to_owned(), "**/.env".to_owned())
    );
    // A control letter is not the letter.
    assert_eq!(
        r.check("rm $'-\\cr'f /", None, None),
        CommandVerdict::Allowed
    );
}

/// A command that expands a variable the string assigns is judged with each value
/// the string may give it too, split into fields where unquoted.
#[test]
fn commands_are_judged_with_the_values_the_string_gives_their_variables() {
    let r = rule(
        &["rm ** -rf **", "git ** push ** -f **"],
        None,
        Some(&["**/.env"]),
    );
    let rm = |within: &str| denied("rm -rf /", Some(within), "rm ** -rf **");
    for (command, expected) in [
        ("X=-rf; rm $X /", rm("rm $X /")),
        ("X=-rf; rm \"${X}\" /", rm("rm \"${X}\" /")),
        ("x='-rf /'; rm $x", rm("rm $x")),
        ("export X=-rf; rm $X /", rm("rm $X /")),
        ("declare -x X=-rf; rm $X /", rm("rm $X /")),
        ("readonly X=-rf && rm $X /", rm("rm $X /")),
        // Values made of values, in order and in a loop, and in a branch.
        ("A=-rf; B=$A; rm $B /", rm("rm $B /")),
        ("X=-; X=${X}r; X=${X}f; rm $X /", rm("rm $X /")),
        (
            "while :; do rm $C /; C=$B; B=$A; A=-rf; done",
            rm("rm $C /"),
        ),
        (
            "for i in 1 2 3 4 5 6; do rm $F /; F=$E; E=$D; D=$C; C=$B; B=$A; A=-rf; done",
            rm("rm $F /"),
        ),
        ("while :; do rm $X /; X=${X}f; X=-r; done", rm("rm $X /")),
        ("true || X=-rf; rm $X /", rm("rm $X /")),
        ("X=-rf; (X=ok); rm $X /", rm("rm $X /")),
        (
            "O=-f; git push $O origin main",
            denied(
                "git push -f origin main",
                Some("git push $O origin main"),
                "git ** push ** -f **",
            ),
        ),
        // Appended to, a loop's list, and a value for when unset or set.
        ("X=-r; X+=f; rm $X /", rm("rm $X /")),
        ("export X=-r; export X+=f; rm $X /", rm("rm $X /")),
        ("for X in a -rf; do rm $X /; done", rm("rm $X /")),
        ("for X in {x,-rf}; do rm $X /; done", rm("rm $X /")),
        ("rm ${X:--rf} /", rm("rm ${X:--rf} /")),
        ("read -r X <<< -rf; rm $X /", rm("rm $X /")),
        ("read -p p X Y <<< \"-rf /\"; rm $Y", rm("rm $Y")),
        ("rm ${X-'-rf'} /", rm("rm ${X-'-rf'} /")),
        ("rm ${X:=-rf} /", rm("rm ${X:=-rf} /")),
        ("X=1; rm ${X:+-rf} /", rm("rm ${X:+-rf} /")),
        (
            "cat ${F:-.e}nv",
            CommandVerdict::Protected(".env".to_owned(), "**/.env".to_owned()),
        ),
        // Positional parameters: of set, of a function the string defines, of a
        // shell's string.
        ("set -- -rf; rm $1 /", rm("rm $1 /")),
        ("f() { rm $1 /; }; f -rf", rm("rm $1 /")),
        ("f() { rm \"$@\"; }; f -rf /", rm("rm \"$@\"")),
        ("f() { rm $*; }; f -rf /", rm("rm $*")),
        (
            "function f { rm \"${2}\" /; }; f x -rf",
            rm("rm \"${2}\" /"),
        ),
        (
            "bash -c 'rm $1 /' sh -rf",
            rm("bash -c \"rm \\$1 /\" sh -rf"),
        ),
        (
            "x() { cat \"$1\"nv; }; x a/.e",
            CommandVerdict::Protected("a/.env".to_owned(), "**/.env".to_owned()),
        ),
        // What an expansion that changes a known value makes of it.
        ("X=-RF; rm ${X,,} /", rm("rm ${X,,} /")),
        ("X=-xf; rm ${X/x/r} /", rm("rm ${X/x/r} /")),
        ("X=-zrzf; rm ${X//z/} /", rm("rm ${X//z/} /")),
        ("X=a-rfb; rm ${X:1:3} /", rm("rm ${X:1:3} /")),
        ("X=a-rf; rm ${X: -3} /", rm("rm ${X: -3} /")),
        ("X=-rfxx; rm ${X:0:-2} /", rm("rm ${X:0:-2} /")),
        ("X=-rf.txt; rm ${X%.txt} /", rm("rm ${X%.txt} /")),
        ("X=ab-rf; rm ${X##ab} /", rm("rm ${X##ab} /")),
        ("X=zf; rm ${X/#z/-r} /", rm("rm ${X/#z/-r} /")),
        ("X=-rz; rm ${X/%z/f} /", rm("rm ${X/%z/f} /")),
        ("X=-r; rm ${X}${X:0:0}f /", rm("rm ${X}${X:0:0}f /")),
        // With wildcards in its pattern.
        ("X=-rfz; rm ${X%z*} /", rm("rm ${X%z*} /")),
        ("X=-RF; rm ${X,,[A-Z]} /", rm("rm ${X,,[A-Z]} /")),
        ("X=-rxyx; rm ${X/x*/f} /", rm("rm ${X/x*/f} /")),
        // A transformation.
        ("X=-RF; rm ${X@L} /", rm("rm ${X@L} /")),
        ("X=-rf; rm ${X@P} /", rm("rm ${X@P} /")),
        ("X='-\\x72f'; rm ${X@E} /", rm("rm ${X@E} /")),
        ("X=x-rf.y; Y=${X#?}; rm ${Y%.*} /", rm("rm ${Y%.*} /")),
        // What a command substitution of echo or printf of known words prints.
        ("rm $(echo -rf) /", rm("rm $(echo -rf) /")),
        ("rm `echo -n -rf` /", rm("rm `echo -n -rf` /")),
        ("rm $(echo -rf /)", rm("rm $(echo -rf /)")),
        ("rm $(echo -e '-rf\\n/')", rm("rm $(echo -e '-rf\\n/')")),
        (
            "rm $(printf '%s\\x20' -rf /)",
            rm("rm $(printf '%s\\x20' -rf /)"),
        ),
        ("rm $(printf %s -rf) /", rm("rm $(printf %s -rf) /")),
        ("rm $(printf -- -rf) /", rm("rm $(printf -- -rf) /")),
        (
            "rm $(printf '%s\\n' -rf /)",
            rm("rm $(printf '%s\\n' -rf /)"),
        ),
        ("X=$(echo -rf); rm $X /", rm("rm $X /")),
        ("for X in $(echo -rf); do rm $X /; done", rm("rm $X /")),
        (
            "cat $(echo a/.e)nv",
            CommandVerdict::Protected("a/.env".to_owned(), "**/.env".to_owned()),
        ),
        // In a wrapper's string.
        ("X=-rf; bash -c 'rm $X /'", rm("bash -c \"rm \\$X /\"")),
        // Protect, arguments and redirections, split at the string's IFS (each
        // value no protected path on its own).
        (
            "F=.e; cat ${F}nv",
            CommandVerdict::Protected(".env".to_owned(), "**/.env".to_owned()),
        ),
        (
            "F=.e; echo x > \"${F}nv\"",
            CommandVerdict::Protected(".env".to_owned(), "**/.env".to_owned()),
        ),
        (
            "IFS=,; F=a,.env; cat $F",
            CommandVerdict::Protected(".env".to_owned(), "**/.env".to_owned()),
        ),
    ] {
        assert_eq!(r.check(command, None, None), expected, "{command}");
    }
    allowed(
        &r,
        &[
            "X=safe; rm $X",
            "d=build; rm -r \"$d\"",
            "tmp=$(mktemp); rm -f \"$tmp\"",
            // Quoted, a value is one word.
            "x='-rf /'; rm \"$x\"",
            // A value set for one command only is not the shell's.
            "X=-rf env; rm $X /",
            "X=$(pwd); rm $X /",
            "A=x; A=$A:y; A=$A:z; echo $A",
            "F=-O2; for i in 1 2; do F=\"$F -g\"; done; cc $F x.c",
            "F=.env.example; cat $F",
            "for f in *.txt; do rm -f \"$f\"; done",
            "for X in 'a b' c; do rm $X; done",
            "rm ${X:-build}",
            "f() { rm -r \"$@\"; }; f build dist",
            "set -e; rm $1",
            "f() { echo \"$*\"; }; f -rf /",
            // Not known: another program, escapes, a format with conversions, options.
            "rm $(cat list) /",
            "rm $(printf %d -rf) /",
            "rm $(printf -rf) /",
            "rm $(echo -rf | tr -d f) /",
            "git commit -m \"$(echo fix)\"",
            // Not told: quotes in a pattern, a prompt's expansion; quoted by @Q.
            "X=-rfz; rm ${X%'z'} /",
            "X='-rf\\'; rm ${X@P} /",
            "X=-rf; rm ${X@Q} /",
            "name=notes.txt; cp $name ${name%.txt}.bak",
        ],
    );
    // Bounded: 1024 values of a variable, 16384 readings of words in all, 16 MiB of
    // values read; past them the string is a violation.
    let spent = CommandVerdict::Unparseable(super::VALUES_SPENT.to_owned());
    let values = |n: usize| (0..n).map(|i| format!("X=v{i}; ")).collect::<String>();
    assert_eq!(
        r.check(&format!("{}echo $X", values(1024)), None, None),
        CommandVerdict::Allowed
    );
    assert_eq!(
        r.check(&format!("{}echo $X", values(1025)), None, None),
        spent
    );
    let names: Vec<String> = (0..15).map(|i| format!("V{i}")).collect();
    let two = names
        .iter()
        .map(|n| format!("{n}=a; {n}=b; "))
        .collect::<String>();
    let used = |n: usize| {
        names[..n]
            .iter()
            .map(|n| format!(" ${n}"))
            .collect::<String>()
    };
    assert_eq!(
        r.check(&format!("{two}echo{}", used(14)), None, None),
        CommandVerdict::Allowed
    );
    assert_eq!(
        r.check(&format!("{two}echo{}", used(15)), None, None),
        spent
    );
    let doubling = format!("A=x; {}echo $A", "A=$A$A$A$A; ".repeat(20));
    assert_eq!(r.check(&doubling, None, None), spent);
    // Matching a pattern with wildcards counts as the values' text does: at each
    // place of the value in turn, to its end.
    let matching = |n: usize| format!("X={}; echo ${{X//*b*/c}}", "a".repeat(n));
    assert_eq!(
        r.check(&matching(1_000), None, None),
        CommandVerdict::Allowed
    );
    assert_eq!(r.check(&matching(8_000), None, None), spent);
    // Two variables that feed each other grow without end.
    assert_eq!(
        r.check("A=x; while :; do A=$B:; B=$A; done; echo $A", None, None),
        spent
    );
}

#[test]
fn commands_are_judged_with_the_elements_the_string_gives_its_arrays() {
    let r = rule(
        &["rm ** -rf **", "rm ** -r ** -f **", "git ** push ** -f **"],
        None,
        Some(&["**/.env"]),
    );
    let rm = |within: &str| denied("rm -rf /", Some(within), "rm ** -rf **");
    let rm_r_f = |within: &str| denied("rm -r -f /", Some(within), "rm ** -r ** -f **");
    let protected = || CommandVerdict::Protected(".env".to_owned(), "**/.env".to_owned());
    for (command, expected) in [
        // All the elements, quoted or not, joined or not.
        ("A=(-rf /); rm \"${A[@]}\"", rm("rm \"${A[@]}\"")),
        ("A=(-rf /); rm ${A[@]}", rm("rm ${A[@]}")),
        ("A=(-rf /); rm ${A[*]}", rm("rm ${A[*]}")),
        ("A=(-r -f); rm \"${A[@]}\" /", rm_r_f("rm \"${A[@]}\" /")),
        ("A=('-rf /'); rm ${A[@]}", rm("rm ${A[@]}")),
        // An element's fields, the value of another variable among them.
        ("X='-rf /'; A=($X); rm \"${A[@]}\"", rm("rm \"${A[@]}\"")),
        ("X=-rf; A=(\"$X\" /); rm \"${A[@]}\"", rm("rm \"${A[@]}\"")),
        // One element: by its index, the first as the array's own, by a key or an
        // index that is not a plain integer.
        ("A=(-rf); rm $A /", rm("rm $A /")),
        ("A=(-rf); rm ${A[0]} /", rm("rm ${A[0]} /")),
        ("A=(x -rf); rm ${A[1]} /", rm("rm ${A[1]} /")),
        ("A=(x [5]=-rf); rm ${A[5]} /", rm("rm ${A[5]} /")),
        ("A=(x -rf); rm ${A[$i]} /", rm("rm ${A[$i]} /")),
        ("A=(x -rf); rm ${A[i+1]} /", rm("rm ${A[i+1]} /")),
        ("declare -A M=([k]=-rf); rm ${M[k]} /", rm("rm ${M[k]} /")),
        // Declared, appended to, one element at a time.
        ("declare -a A=(-rf /); rm ${A[@]}", rm("rm ${A[@]}")),
        ("local A=(-rf); rm ${A[@]} /", rm("rm ${A[@]} /")),
        (
            "A=(-r); A+=(-f); rm \"${A[@]}\" /",
            rm_r_f("rm \"${A[@]}\" /"),
        ),
        (
            "A[0]=-r; A[1]=-f; rm \"${A[@]}\" /",
            rm_r_f("rm \"${A[@]}\" /"),
        ),
        ("A[2]=-r; A[2]+=f; rm ${A[2]} /", rm("rm ${A[2]} /")),
        ("A[3]=-rf; rm ${A[@]} /", rm("rm ${A[@]} /")),
        // In a loop, given after the command that uses it.
        (
            "while :; do rm \"${A[@]}\"; A=(-rf /); done",
            rm("rm \"${A[@]}\""),
        ),
        // What an expansion of all the elements makes of them.
        ("A=(x -rf /); rm \"${A[@]:1}\"", rm("rm \"${A[@]:1}\"")),
        ("A=(-rf / x); rm \"${A[@]:0:2}\"", rm("rm \"${A[@]:0:2}\"")),
        ("A=(-RF /); rm \"${A[@],,}\"", rm("rm \"${A[@],,}\"")),
        ("A=(-rx /); rm \"${A[@]/x/f}\"", rm("rm \"${A[@]/x/f}\"")),
        ("A=(-rfz /); rm \"${A[@]%z*}\"", rm("rm \"${A[@]%z*}\"")),
        ("set -- x -rf /; rm \"${@:2}\"", rm("rm \"${@:2}\"")),
        ("set -- -rf / x; rm \"${@: -3:2}\"", rm("rm \"${@: -3:2}\"")),
        // Read into an array: fields, lines.
        (
            "read -a A <<< '-rf /'; rm \"${A[@]}\"",
            rm("rm \"${A[@]}\""),
        ),
        (
            "read -ra A <<< '-rf /'; rm \"${A[@]}\"",
            rm("rm \"${A[@]}\""),
        ),
        ("read -r -a A <<< '-rf /'; rm ${A[@]}", rm("rm ${A[@]}")),
        ("mapfile -t A <<< -rf; rm ${A[@]} /", rm("rm ${A[@]} /")),
        (
            "readarray -t <<< -rf; rm ${MAPFILE[@]} /",
            rm("rm ${MAPFILE[@]} /"),
        ),
        // What printf -v gives its variable.
        ("printf -v X %s -rf; rm $X /", rm("rm $X /")),
        ("printf -v X -- -rf; rm $X /", rm("rm $X /")),
        // Protect, arguments and redirections (each element no protected path on its
        // own).
        ("A=(.e nv); cat \"${A[0]}${A[1]}\"", protected()),
        ("A=(a .e); echo x > ${A[1]}nv", protected()),
        ("read -a A <<< '.e x'; cat ${A[0]}nv", protected()),
    ] {
        assert_eq!(r.check(command, None, None), expected, "{command}");
    }
    allowed(
        &r,
        &[
            "A=(build dist); rm -r \"${A[@]}\"",
            "files=(a.txt b.txt); for f in \"${files[@]}\"; do cat \"$f\"; done",
            "A=(-rf /); echo \"${A[@]}\"",
            "A=(-rf /); rm ${#A[@]}",
            // Quoted and joined, the elements are one word.
            "A=(-r -f); rm \"${A[*]}\" /",
            // An element set for one command only is not the shell's.
            "A=(x); A[1]=-rf env; rm ${A[1]} /",
            // Not known: the keys, read from a pipe.
            "A=(-rf /); rm ${!A[@]}",
            "echo -rf | read -a A; rm ${A[@]} /",
            // printf -v of a format with conversions.
            "printf -v X %d 1; rm $X",
            "printf -v X -rf; rm $X /",
        ],
    );
    // Bounded: each way of taking one value of each element counts against the
    // values of one name.
    let spent = CommandVerdict::Unparseable(super::VALUES_SPENT.to_owned());
    let values =
        |name: &str, n: usize| (0..n).map(|i| format!("{name}=v{i}; ")).collect::<String>();
    let product = |n: usize| {
        format!(
            "{}{}A=(\"$X\" \"$Y\"); echo \"${{A[@]}}\"",
            values("X", n),
            values("Y", 32)
        )
    };
    assert_eq!(r.check(&product(32), None, None), CommandVerdict::Allowed);
    assert_eq!(r.check(&product(33), None, None), spent);
    let elements = (0..300).map(|i| format!("v{i} ")).collect::<String>();
    assert_eq!(
        r.check(&format!("A=({elements}); rm \"${{A[@]}}\""), None, None),
        CommandVerdict::Allowed
    );
}

/// What an expansion with a pattern or a transformation makes of a value, each as
/// bash 5 makes it
/// (`X=VALUE bash -c 'printf %s "EXPANSION"'`).
#[test]
fn expansions_that_change_a_value_make_what_bash_makes() {
    for (value, expansion, made) in [
        ("a.b.c", "${X%.*}", "a.b"),
        ("a.b.c", "${X%%.*}", "a"),
        ("a.b.c", "${X#*.}", "b.c"),
        ("a.b.c", "${X##*.}", "c"),
        ("-rfz", "${X%z*}", "-rf"),
        ("-rfzz", "${X%%z*}", "-rf"),
        ("xx-rf", "${X##x}", "x-rf"),
        ("xx-rf", "${X##*x}", "-rf"),
        ("abc", "${X%[bc]}", "ab"),
        ("abc", "${X%%[!a]*}", "a"),
        ("abc", "${X#?}", "bc"),
        ("abc", "${X#[[:alpha:]]}", "bc"),
        ("a*b", "${X%\\*b}", "a"),
        ("-rx", "${X/x/f}", "-rf"),
        ("-rxyx", "${X/x*/f}", "-rf"),
        ("-rxyx", "${X//x/f}", "-rfyf"),
        ("-rxyx", "${X//[xy]/f}", "-rfff"),
        ("-rxyx", "${X/#-r/-R}", "-Rxyx"),
        ("x-rf", "${X/#?/}", "-rf"),
        ("-rfxy", "${X/%x?/}", "-rf"),
        ("-rfab", "${X/%[a-b]*/}", "-rf"),
        ("-RF", "${X,,[A-Z]}", "-rf"),
        ("-RF", "${X,,[F]}", "-Rf"),
        ("-rf", "${X^^[r]}", "-Rf"),
        ("rf", "${X^[r]}", "Rf"),
        ("rf", "${X^[f]}", "rf"),
        ("RF", "${X,[R]}", "rF"),
        ("-rf", "${X/[-]/}", "rf"),
        ("abcabc", "${X//b?/Z}", "aZaZ"),
        ("abcabc", "${X/*/Z}", "Z"),
        ("abcabc", "${X//*/Z}", "Z"),
        ("ab]c", "${X//[]]/-}", "ab-c"),
        ("it's", "${X@U}", "IT'S"),
        ("it's", "${X@u}", "It's"),
        ("it's", "${X@Q}", "'it'\\''s'"),
        ("-RF", "${X@L}", "-rf"),
        ("-\\x72f", "${X@U}", "-\\X72F"),
        ("-\\x72f", "${X@E}", "-rf"),
        ("-\\162f", "${X@E}", "-rf"),
        ("a\\tb", "${X@E}", "a\tb"),
    ] {
        let pieces = brush_parser::word::parse(expansion, &super::options()).unwrap();
        let [
            brush_parser::word::WordPieceWithSource {
                piece: brush_parser::word::WordPiece::ParameterExpansion(expr),
                ..
            },
        ] = &pieces[..]
        else {
            panic!("{expansion} is not one expansion");
        };
        let work = std::cell::Cell::new(0);
        assert_eq!(
            super::values::operated(expr, "X", value, &work).as_deref(),
            Some(made),
            "{expansion} of {value}"
        );
    }
}

#[test]
fn scripts_the_string_writes_are_judged_where_it_runs_them() {
    let r = rule(
        &["rm ** -rf **", "git ** push ** -f **"],
        None,
        Some(&["**/.env"]),
    );
    let rm = |within: &str| denied("rm -rf /", Some(within), "rm ** -rf **");
    for (command, expected) in [
        // Written by echo, printf, a here-document into cat, tee; run by a shell,
        // source, ., as a path.
        ("echo 'rm -rf /' > x.sh; bash x.sh", rm("bash x.sh")),
        ("echo rm -rf / >x.sh && sh -e x.sh", rm("sh -e x.sh")),
        (
            "printf '#!/bin/sh\\nset -e\\nrm -rf /\\n' > x.sh; sh x.sh",
            rm("sh x.sh"),
        ),
        (
            "printf '%s\\n' 'set -e' 'rm -rf /' > x.sh; sh x.sh",
            rm("sh x.sh"),
        ),
        (
            "echo -e 'set -e\\nrm -rf /' > x.sh; bash x.sh",
            rm("bash x.sh"),
        ),
        (
            "cat > x.sh <<'EOF'\nset -e\nrm -rf /\nEOF\nbash x.sh",
            rm("bash x.sh"),
        ),
        (
            "cat <<-EOF > x.sh\n\trm -rf /\n\tEOF\nsh ./x.sh",
            rm("sh ./x.sh"),
        ),
        (
            "printf 'rm -rf /' > x.sh && chmod +x x.sh && ./x.sh",
            rm("./x.sh"),
        ),
        (
            "echo 'git push -f' > x.sh; source x.sh",
            denied("git push -f", Some("source x.sh"), "git ** push ** -f **"),
        ),
        ("echo 'rm -rf /' | tee x.sh; sh x.sh", rm("sh x.sh")),
        ("tee -a x.sh <<< 'rm -rf /'; . x.sh", rm(". x.sh")),
        ("cat <<< 'rm -rf /' > x.sh; bash x.sh", rm("bash x.sh")),
        ("echo 'rm -rf /' &> x.sh; bash x.sh", rm("bash x.sh")),
        // Added to the file's end, in pieces.
        (
            "printf 'rm -r' > x.sh; printf 'f /' >> x.sh; bash x.sh",
            rm("bash x.sh"),
        ),
        // With its arguments, run by a wrapper, from another folder.
        ("echo 'rm $1 /' > x.sh; bash x.sh -rf", rm("bash x.sh -rf")),
        (
            "echo 'rm -rf /' > x.sh; timeout 9 bash x.sh",
            rm("timeout 9 bash x.sh"),
        ),
        (
            "cd /tmp; echo 'rm -rf /' > x.sh; cd /; bash /tmp/x.sh",
            rm("bash /tmp/x.sh"),
        ),
        // Run before it is written, in a loop.
        (
            "while :; do bash x.sh; echo 'rm -rf /' > x.sh; done",
            rm("bash x.sh"),
        ),
        // Named by a variable, written with one.
        ("F=x.sh; echo 'rm -rf /' > $F; bash $F", rm("bash $F")),
        ("X=-rf; echo \"rm $X /\" > x.sh; bash x.sh", rm("bash x.sh")),
        // Read back by a command substitution.
        ("echo -rf > f; rm $(cat f) /", rm("rm $(cat f) /")),
        ("printf '%s\\n' -rf > f; rm $(< f) /", rm("rm $(< f) /")),
        ("echo -rf > f; X=`cat f`; rm $X /", rm("rm $X /")),
        // Copied, moved.
        ("echo 'rm -rf /' > a; cp a b.sh; bash b.sh", rm("bash b.sh")),
        (
            "echo 'rm -rf /' > a; mv -f a bin/; sh bin/a",
            rm("sh bin/a"),
        ),
        // Read on a shell's standard input.
        ("bash <<< 'rm -rf /'", rm("bash")),
        ("sh <<'EOF'\nrm -rf /\nEOF", rm("sh")),
        ("echo 'rm -rf /' | bash", rm("bash")),
        ("echo cm0gLXJmIC8K | base64 -d | bash", rm("bash")),
        ("base64 -d <<< cm0gLXJmIC8K > x.sh; sh x.sh", rm("sh x.sh")),
        (
            "echo cm0gLXJmIC8K | base64 --decode > x.sh; . x.sh",
            rm(". x.sh"),
        ),
        ("printf 'rm -rf /' | sh -s", rm("sh -s")),
        (
            "echo 'rm $1 /' > x.sh; bash -s -- -rf < x.sh",
            rm("bash -s -- -rf"),
        ),
        ("echo 'rm -rf /' > x.sh; bash < x.sh", rm("bash")),
        // A crontab it installs.
        ("crontab <<< '* * * * * rm -rf /'", rm("crontab")),
        (
            "echo '@reboot rm -rf /' > c; crontab -u root c",
            rm("crontab -u root c"),
        ),
        // What xargs reads: after the command's words, or in place of -I's string.
        ("echo -rf / | xargs rm", rm("xargs rm")),
        ("printf '%s\\n' -rf / | xargs -r rm", rm("xargs -r rm")),
        ("echo \"'-rf' /\" | xargs -n 1 rm", rm("xargs -n 1 rm")),
        (
            "xargs rm / <<< -rf",
            denied("rm / -rf", Some("xargs rm /"), "rm ** -rf **"),
        ),
        ("echo -rf | xargs -I X rm X /", rm("xargs -I X rm X /")),
        ("echo -rf | xargs -i rm {} /", rm("xargs -i rm {} /")),
        // echo's newline is part of the last item.
        (
            "echo -rf,/ | xargs -d , rm",
            denied("rm -rf \"/\n\"", Some("xargs -d , rm"), "rm ** -rf **"),
        ),
        // Protect.
        (
            "echo 'cat .env' > x.sh; bash x.sh",
            CommandVerdict::Protected(".env".to_owned(), "**/.env".to_owned()),
        ),
        // A script that runs itself is as deep as the nesting may go.
        (
            "echo 'bash x.sh' > x.sh; bash x.sh",
            CommandVerdict::TooDeep(MAX_DEPTH),
        ),
    ] {
        assert_eq!(r.check(command, None, Some("/work")), expected, "{command}");
    }
    for command in [
        "echo 'echo hi' > x.sh; bash x.sh",
        "cat > build.sh <<'EOF'\nset -e\ncargo build --release\nEOF\nbash build.sh",
        // Written, not run; run, another file; printed elsewhere.
        "echo 'rm -rf /' > notes.txt",
        "echo 'rm -rf /' > x.sh; bash y.sh",
        "echo 'rm -rf /' > x.sh; bash -c 'echo x.sh'",
        "echo 'rm -rf /' >&2 | bash",
        // A program on the PATH is not the file of that name here.
        "echo 'rm -rf /' > x.sh; x.sh",
        // Not known: another program's output, a variable's.
        "cat notes.txt > x.sh; bash x.sh",
        "echo a.txt b.txt | xargs rm",
        "echo -rf / | xargs -a list rm",
        // A quote xargs finds open stops it.
        "echo \"'-rf /\" | xargs rm",
        "echo \"$CMD\" > x.sh; bash x.sh",
    ] {
        assert_eq!(
            r.check(command, None, Some("/work")),
            CommandVerdict::Allowed,
            "{command}"
        );
    }
    // Bounded: 1024 writes; past them the string is a violation.
    let writes = |n: usize| {
        (0..n)
            .map(|i| format!("echo x > f{i}; "))
            .collect::<String>()
    };
    assert_eq!(r.check(&writes(1024), None, None), CommandVerdict::Allowed);
    assert_eq!(
        r.check(&writes(1025), None, None),
        CommandVerdict::Unparseable(super::scripts::WRITES_SPENT.to_owned())
    );
    // 1024 runs of scripts: each script runs the next one four times (341 runs of
    // five scripts, 1365 of six).
    let runs = |n: usize| {
        let mut command = String::new();
        for i in 0..n {
            command.push_str(&format!(
                "echo 'bash {}.sh; bash {0}.sh; bash {0}.sh; bash {0}.sh' > {i}.sh; ",
                i + 1
            ));
        }
        command + "bash 0.sh"
    };
    assert_eq!(r.check(&runs(5), None, None), CommandVerdict::Allowed);
    assert_eq!(
        r.check(&runs(6), None, None),
        CommandVerdict::Unparseable(super::scripts::WRITES_SPENT.to_owned())
    );
}

#[test]
fn a_git_alias_runs_git_with_its_words() {
    let r = rule(&["git ** push ** -f **", "rm ** -rf **"], None, None);
    let push = |runs: &str, within: &str| denied(runs, Some(within), "git ** push ** -f **");
    for (command, expected) in [
        (
            "git -c alias.p='push -f' p origin main",
            push("git push -f", "git -c \"alias.p=push -f\" p origin main"),
        ),
        (
            "git config alias.p 'push -f'",
            push("git push -f", "git config alias.p \"push -f\""),
        ),
        (
            "git config set --global alias.p 'push -f'; git p",
            push("git push -f", "git config set --global alias.p \"push -f\""),
        ),
        (
            "git -c alias.x='!rm -rf /' x",
            denied(
                "rm -rf /",
                Some("git -c \"alias.x=!rm -rf /\" x"),
                "rm ** -rf **",
            ),
        ),
        (
            "git -c alias.p=\"$CMD\" p",
            CommandVerdict::Unknown("git -c alias.p=\"$CMD\" p".to_owned()),
        ),
    ] {
        assert_eq!(r.check(command, None, None), expected, "{command}");
    }
    allowed(
        &r,
        &[
            "git config alias.st status",
            "git -c alias.lg='log --oneline --graph' lg",
            "git config --global alias.co checkout",
        ],
    );
}

#[test]
fn commands_an_interpreters_code_runs_are_judged() {
    let r = rule(&["rm ** -rf **", "git ** push ** -f **"], None, None);
    let rm = |within: &str| denied("rm -rf /", Some(within), "rm ** -rf **");
    for (command, within) in [
        // Code on the command line: a shell's string, a program's words.
        (
            "python3 -c 'import os; os.system(\"rm -rf /\")'",
            "python3 -c \"import os; os.system(\\\"rm -rf /\\\")\"",
        ),
        (
            "python3 -c 'import subprocess; subprocess.run([\"rm\", \"-rf\", \"/\"])'",
            "python3 -c \"import subprocess; subprocess.run([\\\"rm\\\", \\\"-rf\\\", \\\"/\\\"])\"",
        ),
        (
            "python -c \"import subprocess as s; s.check_call('rm -rf /', shell=True)\"",
            "python -c \"import subprocess as s; s.check_call('rm -rf /', shell=True)\"",
        ),
        (
            "perl -e 'system(\"rm -rf /\")'",
            "perl -e \"system(\\\"rm -rf /\\\")\"",
        ),
        (
            "perl -e 'system \"rm\", \"-rf\", \"/\"'",
            "perl -e \"system \\\"rm\\\", \\\"-rf\\\", \\\"/\\\"\"",
        ),
        (
            "perl -ne 'print `rm -rf /`'",
            "perl -ne \"print \\`rm -rf /\\`\"",
        ),
        ("perl -e 'qx{rm -rf /}'", "perl -e \"qx{rm -rf /}\""),
        (
            "ruby -e 'system(\"rm -rf /\")'",
            "ruby -e \"system(\\\"rm -rf /\\\")\"",
        ),
        ("ruby -e '%x(rm -rf /)'", "ruby -e \"%x(rm -rf /)\""),
        (
            "node -e 'require(\"child_process\").execSync(\"rm -rf /\")'",
            "node -e \"require(\\\"child_process\\\").execSync(\\\"rm -rf /\\\")\"",
        ),
        (
            "node -e 'require(\"child_process\").spawnSync(\"rm\", [\"-rf\", \"/\"])'",
            "node -e \"require(\\\"child_process\\\").spawnSync(\\\"rm\\\", [\\\"-rf\\\", \\\"/\\\"])\"",
        ),
        (
            "php -r 'shell_exec(\"rm -rf /\");'",
            "php -r \"shell_exec(\\\"rm -rf /\\\");\"",
        ),
        (
            "awk 'BEGIN { system(\"rm -rf /\") }'",
            "awk \"BEGIN { system(\\\"rm -rf /\\\") }\"",
        ),
        (
            "awk -F: '{ print $1 | \"rm -rf /\" }' f",
            "awk -F: \"{ print \\$1 | \\\"rm -rf /\\\" }\" f",
        ),
        (
            "gawk 'BEGIN { \"rm -rf /\" | getline x }'",
            "gawk \"BEGIN { \\\"rm -rf /\\\" | getline x }\"",
        ),
        // Code the code runs, the exec family, a module's alias, names imported.
        (
            "python3 -c 'exec(\"import os; os.system(\\\"rm -rf /\\\")\")'",
            "python3 -c \"exec(\\\"import os; os.system(\\\\\\\"rm -rf /\\\\\\\")\\\")\"",
        ),
        (
            "perl -e \"eval 'system(\\\"rm -rf /\\\")'\"",
            "perl -e \"eval 'system(\\\"rm -rf /\\\")'\"",
        ),
        (
            "node -e 'eval(\"require(`child_process`).execSync(`rm -rf /`)\")'",
            "node -e \"eval(\\\"require(\\`child_process\\`).execSync(\\`rm -rf /\\`)\\\")\"",
        ),
        (
            "python3 -c 'import os, subprocess as sp; sp.run(\"rm -rf /\", shell=True)'",
            "python3 -c \"import os, subprocess as sp; sp.run(\\\"rm -rf /\\\", shell=True)\"",
        ),
        (
            "python3 -c 'from subprocess import run; run(\"rm -rf /\", shell=True)'",
            "python3 -c \"from subprocess import run; run(\\\"rm -rf /\\\", shell=True)\"",
        ),
        // A file the string writes, run by its interpreter or by its #! line; its
        // standard input.
        (
            "cat > x <<'EOF'\n#!/usr/bin/env python3\nimport os\nos.system('rm -rf /')\nEOF\nchmod +x x && ./x",
            "./x",
        ),
        (
            "echo 'import os; os.system(\"rm -rf /\")' > x.py; python3 x.py",
            "python3 x.py",
        ),
        (
            "python3 - <<'EOF'\nimport os\nos.system('rm -rf /')\nEOF",
            "python3 -",
        ),
        (
            "python3 <<'EOF'\nimport subprocess\nsubprocess.run('rm -rf /', shell=True)\nEOF",
            "python3",
        ),
    ] {
        assert_eq!(r.check(command, None, None), rm(within), "{command}");
    }
    // The exec family's path, then its argv from the program's name.
    assert_eq!(
        r.check(
            "python3 -c 'import os; os.execv(\"/bin/rm\", [\"rm\", \"-rf\", \"/\"])'",
            None,
            None
        ),
        denied(
            "/bin/rm -rf /",
            Some(
                "python3 -c \"import os; os.execv(\\\"/bin/rm\\\", [\\\"rm\\\", \\\"-rf\\\", \\\"/\\\"])\""
            ),
            "rm ** -rf **"
        )
    );
    // A list with a word not known stands for more words.
    assert!(matches!(
        r.check(
            "python3 -c 'import subprocess; subprocess.run([\"rm\", \"-rf\", p])'",
            None,
            None
        ),
        CommandVerdict::Denied(..)
    ));
    allowed(
        &r,
        &[
            "python3 -c 'print(\"rm -rf /\")'",
            "python3 -c 'import subprocess; subprocess.run([\"ls\", \"-l\"])'",
            "python3 -m pytest -x",
            "node -e 'console.log(`rm -rf /`)'",
            "perl -e 'print \"system(rm -rf /)\"'",
            "python3 -c 'exec(\"import os\")'",
            "awk '{ print $1 }' f",
            "awk -F, '{ s += $2 } END { print s }' data.csv",
            // Python code run as a program is not read as a shell's.
            "cat > x.py <<'EOF'\n#!/usr/bin/env python3\nimport sys\nif len(sys.argv) > 1:\n    print(sys.argv[1])\nEOF\nchmod +x x.py && ./x.py a",
        ],
    );
}

#[test]
fn an_interpreters_call_of_a_command_not_literal_is_not_known() {
    let r = rule(&["rm ** -rf **"], None, None);
    not_known(
        &r,
        &[
            "python3 -c \"$CODE\"",
            "perl -e \"$(cat x.pl)\"",
            "awk \"$PROGRAM\" f",
            "python3 -c \"import os; os.system('$(cat f)')\"",
            "python3 -c \"import os; os.system('$CMD -rf /')\"",
            "python3 -c 'import os, sys; os.system(sys.argv[1])' x",
            "python3 -c 'import subprocess as sp; sp.check_output(cmd, shell=True)'",
            "python3 -c 'import os; os.system(\"r\" + \"m -rf /\")'",
            "python3 -c 'import os; os.system(\"rm %s\" % p)'",
            "python3 -c 'import os; os.system(\"rm {}\".format(p))'",
            "perl -e 'system(@ARGV)' rm -rf /",
            "perl -e '$c = \"rm -rf /\"; system $c'",
            "perl -e 'system \"rm \" . $d'",
            "ruby -e 'system cmd'",
            "ruby -e 'system *ARGV' rm -rf /",
            "ruby -e 'system(\"rm #{d}\")'",
            "node -e 'require(\"child_process\").exec(cmd)'",
            "node -e 'const cp = require(\"child_process\"); cp.execSync(c)'",
            "node -e 'x = `a ${b}`; require(\"child_process\").execSync(c)'",
            "php -r 'system($c);'",
            "bun -e 'await $`rm -rf ${d}`'",
            // A call made by a name the code gives as a string.
            "python3 -c 'import os; getattr(os, \"system\")(\"rm -rf /\")'",
            "node -e 'require(\"child_process\")[\"execSync\"](\"rm -rf /\")'",
            "ruby -e 'Kernel.send(:system, \"rm -rf /\")'",
            "ruby -e 'method(:system).call(\"rm -rf /\")'",
            "php -r 'call_user_func(\"system\", \"rm -rf /\");'",
            "awk '{ system($0) }' cmds.txt",
            "awk 'BEGIN { c = \"rm -rf /\"; system(c) }'",
            "awk 'BEGIN { system(\"rm \" d) }'",
            "awk '{ print | $2 }' f",
            "awk '{ c | getline x }' f",
            "gawk '{ print |& c }' f",
            "python3 -c 'exec(code)'",
            "python3 -c 'import base64; exec(base64.b64decode(\"aW1wb3J0IG9z\"))'",
            "python3 -c 'import os; os.spawnlp(os.P_WAIT, \"rm\", \"rm\", \"-rf\", \"/\")'",
            "ruby -e 'eval(code)'",
            "php -r 'eval($code);'",
        ],
    );
    allowed(
        &r,
        &[
            "python3 -c 'import platform; print(platform.system())'",
            "python3 -c \"print('$(date)')\"",
            "awk \"{ print \\$$N }\" f",
            "python3 -c 'print(1)'",
            "python3 \"$SCRIPT\"",
            "awk -f \"$F\" data",
            "node -e 'const m = /a/.exec(s); console.log(m)'",
            "ruby -e 'conn.exec(sql)'",
            "php -r '$pdo->exec($sql);'",
            "perl -e 'my $system = 1; print $system'",
            "awk '/a|b/ { print $1 }' f",
            "awk '$1 ~ /x|y/ || $2 > 3 { n++ } END { print n / 2 }' f",
            "awk 'BEGIN { \"date\" | getline d; print d }'",
            "awk '{ print $1 | \"sort -u\" }' f",
            "python3 -c 'import re; p = re.compile(x); print(p)'",
            "python3 -c 'df.eval(expr)'",
            "python3 -c 'model.eval()'",
            "python3 -c 'print(eval(\"1 + 2\"))'",
            "ruby -e 'x.instance_eval do puts 1 end'",
            "perl -e 'eval { die }; print 1'",
        ],
    );
    // Without patterns, nothing not known is a violation.
    let protect = rule(&[], None, Some(&["/etc/**"]));
    assert_eq!(
        protect.check("python3 -c \"$CODE\"", None, None),
        CommandVerdict::Allowed
    );
}

#[test]
fn commands_editors_and_debuggers_run_from_their_scripts_are_judged() {
    let r = rule(&["rm ** -rf **"], None, None);
    denies_rm(
        &r,
        &[
            ("sed -n '1e rm -rf /' f", "sed -n \"1e rm -rf /\" f"),
            ("sed -e '$e rm -rf /' f", "sed -e \"\\$e rm -rf /\" f"),
            (
                "sed --expression='1e rm -rf /' f",
                "sed \"--expression=1e rm -rf /\" f",
            ),
            ("sed -ne'1e rm -rf /' f", "sed \"-ne1e rm -rf /\" f"),
            ("gsed -i '/x/ e rm -rf /' f", "gsed -i \"/x/ e rm -rf /\" f"),
            (
                "printf '1e rm -rf /\\n' > s.sed; sed -f s.sed f",
                "sed -f s.sed f",
            ),
            ("vim -c '!rm -rf /' -c q", "vim -c \"!rm -rf /\" -c q"),
            ("vi -c ':silent !rm -rf /'", "vi -c \":silent !rm -rf /\""),
            ("vim '+r !rm -rf /'", "vim \"+r !rm -rf /\""),
            (
                "nvim --headless --cmd 'w !rm -rf /'",
                "nvim --headless --cmd \"w !rm -rf /\"",
            ),
            (
                "nvim -c 'call system(\"rm -rf /\")' -c q",
                "nvim -c \"call system(\\\"rm -rf /\\\")\" -c q",
            ),
            (
                "vim -c 'py3 import os; os.system(\"rm -rf /\")'",
                "vim -c \"py3 import os; os.system(\\\"rm -rf /\\\")\"",
            ),
            ("ex -s f <<< '!rm -rf /'", "ex -s f"),
            ("vim -es f <<'EOF'\n%!rm -rf /\nEOF", "vim -es f"),
            ("echo '!rm -rf /' > x.vim; vim -S x.vim", "vim -S x.vim"),
            ("less '+!rm -rf /' f", "less \"+!rm -rf /\" f"),
            ("gdb -batch -ex '!rm -rf /'", "gdb -batch -ex \"!rm -rf /\""),
            (
                "sed -f /dev/stdin f <<< '1e rm -rf /'",
                "sed -f /dev/stdin f",
            ),
            (
                "echo '!rm -rf /' > x.vim; vim -c 'so x.vim'",
                "vim -c \"so x.vim\"",
            ),
            ("printf ':!rm -rf /\\n' > k; vim -s k f", "vim -s k f"),
            ("LESS='+!rm -rf /' less f", "\"LESS=+!rm -rf /\" less f"),
            ("VIMINIT='!rm -rf /' vim f", "\"VIMINIT=!rm -rf /\" vim f"),
            (
                "gdb -ex 'shell rm -rf /' ./a.out",
                "gdb -ex \"shell rm -rf /\" ./a.out",
            ),
            (
                "gdb --eval-command='shell rm -rf /'",
                "gdb \"--eval-command=shell rm -rf /\"",
            ),
        ],
    );
    not_known(
        &r,
        &[
            "echo x | sed 's/x/rm -rf \\//e'",
            "sed e f",
            "sed \"1e $CMD\" f",
            "sed -e \"$SCRIPT\" f",
            "vim -c 'exe \"!rm -rf /\"'",
            "vim -c 'call system(g:cmd)'",
            "vim -c \"$CMD\"",
            "gdb -ex 'python import os' ./a.out",
            "curl -s x | sed -f - f",
            "sed -f <(echo '1e rm -rf /') f",
            "EXINIT='so x.vim' vi",
        ],
    );
    allowed(
        &r,
        &[
            "sed -i 's/a/b/g' f",
            "sed -i.bak -e 's/e/E/g' -e '/^$/d' f",
            "sed -n '/start/,/end/p' f",
            "sed --sandbox 's/x/y/e' f",
            "sed -f s.sed f",
            "sed 's/x/y/w out.txt' f",
            "vim -c 'wq' f",
            "vim -c '%s/a/b/g' -c 'wq!' f",
            "vim -d a b",
            "less +G f",
            "gdb -batch -ex bt ./a.out",
            "sed -f - f <<< 's/a/b/'",
            // Partly written, read as written: the expansions are values here.
            "sed \"s/a/$B/\" f",
            "sed -i \"s|$OLD|$NEW|g\" f",
            "VIMINIT='set nu' vim f",
            "vim -c 'so $MYVIMRC'",
        ],
    );
    // A file that sources itself is read as many times as scripts may run.
    assert_eq!(
        r.check("echo 'so x.vim' > x.vim; vim -S x.vim", None, None),
        CommandVerdict::Unparseable(super::scripts::WRITES_SPENT.to_owned())
    );
}

#[test]
fn commands_make_and_package_managers_run_from_files_the_string_writes_are_judged() {
    let r = rule(&["rm ** -rf **"], None, None);
    denies_rm(
        &r,
        &[
            ("printf 'all:\\n\\trm -rf /\\n' > Makefile; make", "make"),
            (
                "printf 'all:\\n\\t@$(MAKE) clean\\nclean:\\n\\t-rm -rf /\\n' > makefile; make -j4",
                "make -j4",
            ),
            (
                "mkdir -p b; printf 'X := $(shell rm -rf /)\\n' > b/Makefile; make -C b",
                "make -C b",
            ),
            (
                "printf 'x:\\n\\trm -rf /\\n' > ci.mk; make -f ci.mk x",
                "make -f ci.mk x",
            ),
            (
                "make --eval=$'all:\\n\\trm -rf /'",
                "make \"--eval=all:\n\trm -rf /\"",
            ),
            (
                "echo '{\"scripts\": {\"postinstall\": \"rm -rf /\"}}' > package.json; npm ci",
                "npm ci",
            ),
            (
                "echo '{\"scripts\": {\"x\": \"rm -rf /\"}}' > app/package.json; npm --prefix app run x",
                "npm --prefix app run x",
            ),
            (
                "echo '{\"scripts\": {\"x\": \"rm -rf /\"}}' > package.json; yarn x",
                "yarn x",
            ),
        ],
    );
    not_known(
        &r,
        &[
            "make -f <(printf 'all:\\n\\trm -rf /\\n')",
            "make SHELL=/tmp/x.sh",
            "printf 'all:\\n\\t$(CMD) -rf /\\n' > Makefile; make",
        ],
    );
    allowed(
        &r,
        &[
            "make",
            "make test",
            "npm run build",
            "printf 'CC = gcc\\nall:\\n\\t$(CC) -o $@ main.c\\n' > Makefile; make",
            // A makefile or script that runs itself again is judged once.
            "printf 'all:\\n\\t$(MAKE) all\\n' > Makefile; make",
            "echo '{\"scripts\": {\"a\": \"npm run a\"}}' > package.json; npm run a",
            "echo '{\"scripts\": {\"postinstall\": \"rm -rf /\"}}' > package.json; npm ls",
        ],
    );
}

/// The tokenizer gave an empty here-document body for ever at the end of
/// `$(<<  m ` (the tag's two blanks), growing its queue until memory ran out: 24 GB
/// and 56 s through the guard. It ends with the here-document unterminated.
#[test]
fn an_unterminated_here_document_in_a_substitution_ends() {
    let r = rule(&["rm ** -rf **"], None, None);
    for command in ["$(<<  m ", "ls; $(cat <<  m ", "x=1; $(<<  EOF "] {
        assert!(
            matches!(r.check(command, None, None), CommandVerdict::Unparseable(why) if why.starts_with("unterminated here document")),
            "{command}: {:?}",
            r.check(command, None, None)
        );
    }
}

#[test]
fn commands_a_container_tool_runs_are_judged() {
    let r = rule(&["rm ** -rf **"], None, None);
    let rm = |runs: &str, within: &str| denied(runs, Some(within), "rm ** -rf **");
    for (command, expected) in [
        (
            "docker exec c rm -rf /",
            rm("rm -rf /", "docker exec c rm -rf /"),
        ),
        (
            "docker exec -it -u root -w /w --env-file e c rm -rf /w",
            rm(
                "rm -rf /w",
                "docker exec -it -u root -w /w --env-file e c rm -rf /w",
            ),
        ),
        (
            "docker --context prod container exec c rm -rf /",
            rm(
                "rm -rf /",
                "docker --context prod container exec c rm -rf /",
            ),
        ),
        (
            "docker run --rm -v /w:/w --network host img rm -rf /w",
            rm(
                "rm -rf /w",
                "docker run --rm -v /w:/w --network host img rm -rf /w",
            ),
        ),
        // An option not listed may take a value or not: both are judged.
        (
            "docker run --not-listed x img rm -rf /",
            rm("rm -rf /", "docker run --not-listed x img rm -rf /"),
        ),
        (
            "docker run --not-listed img rm -rf /",
            rm("rm -rf /", "docker run --not-listed img rm -rf /"),
        ),
        (
            "docker run $OPTS img rm -rf /",
            rm("rm -rf /", "docker run $OPTS img rm -rf /"),
        ),
        (
            "docker run --entrypoint rm img -rf /",
            rm("rm -rf /", "docker run --entrypoint rm img -rf /"),
        ),
        (
            "podman run --entrypoint=rm img -rf /",
            rm("rm -rf /", "podman run --entrypoint=rm img -rf /"),
        ),
        (
            "docker run --entrypoint '' img rm -rf /",
            rm("rm -rf /", "docker run --entrypoint \"\" img rm -rf /"),
        ),
        (
            "docker run --entrypoint \"$E\" img -rf /",
            CommandVerdict::Unknown("docker run --entrypoint \"$E\" img -rf /".to_owned()),
        ),
        (
            "nerdctl exec c sh -c 'rm -rf /'",
            rm("rm -rf /", "nerdctl exec c sh -c \"rm -rf /\""),
        ),
        (
            "docker compose -f ci.yml exec -T web rm -rf /",
            rm("rm -rf /", "docker compose -f ci.yml exec -T web rm -rf /"),
        ),
        (
            "docker-compose run --rm --entrypoint rm web -rf /",
            rm(
                "rm -rf /",
                "docker-compose run --rm --entrypoint rm web -rf /",
            ),
        ),
        (
            "kubectl -n prod exec -it pod -c app -- rm -rf /",
            rm(
                "rm -rf /",
                "kubectl -n prod exec -it pod -c app -- rm -rf /",
            ),
        ),
        ("kubectl exec pod rm", CommandVerdict::Allowed),
        (
            "oc run x --image=busybox -- rm -rf /",
            rm("rm -rf /", "oc run x --image=busybox -- rm -rf /"),
        ),
        (
            "kubectl debug pod -it --image=busybox -- rm -rf /",
            rm(
                "rm -rf /",
                "kubectl debug pod -it --image=busybox -- rm -rf /",
            ),
        ),
        (
            "sudo docker exec c rm -rf /",
            rm("rm -rf /", "sudo docker exec c rm -rf /"),
        ),
        (
            "lxc exec dev -- rm -rf /",
            rm("rm -rf /", "lxc exec dev -- rm -rf /"),
        ),
        (
            "incus --project p exec dev --env X=1 rm -rf /",
            rm("rm -rf /", "incus --project p exec dev --env X=1 rm -rf /"),
        ),
        (
            "lxc-attach -n dev -- rm -rf /",
            rm("rm -rf /", "lxc-attach -n dev -- rm -rf /"),
        ),
        (
            "oc rsh -c app pod rm -rf /",
            rm("rm -rf /", "oc rsh -c app pod rm -rf /"),
        ),
    ] {
        assert_eq!(r.check(command, None, None), expected, "{command}");
    }
    allowed(
        &r,
        &[
            "docker run --rm img cargo test",
            "docker run img",
            "docker exec c ls -la",
            "docker run --rm -e RM=1 img echo rm -rf /",
            "docker run --name rm img ls -rf",
            "docker compose exec web pytest -x",
            "kubectl exec pod -- ls -la",
            "kubectl get pods -o wide",
            "docker build -t rm .",
            "docker ps -a",
            "lxc list",
            "lxc exec dev -- ls",
            "oc rsh pod",
        ],
    );
    // Bounded: more readings of the options than are judged is a command not known
    // before it runs; more words judged in containers, a string that is refused.
    let many = format!("docker run {}img ls", "--x $A ".repeat(100));
    assert!(
        matches!(r.check(&many, None, None), CommandVerdict::Unknown(shown) if shown.starts_with("docker run --x $A")),
        "{many}"
    );
    for many in [
        format!("docker {}ls", "$A exec ".repeat(8_000)),
        format!("kubectl {}ls", "$A exec ".repeat(8_000)),
        format!("docker-compose {}ls", "$A exec ".repeat(8_000)),
    ] {
        assert!(
            matches!(r.check(&many, None, None), CommandVerdict::Unknown(shown) if shown.ends_with("...")),
            "{}",
            &many[..40]
        );
    }
    let long = format!(
        "docker run {}img {}",
        "--x y ".repeat(63),
        "ls ".repeat(20_000)
    );
    assert_eq!(
        r.check(&long, None, None),
        CommandVerdict::Unparseable(super::containers::CONTAINERS_SPENT.to_owned())
    );
    let under = format!(
        "docker run {}img {}",
        "--x y ".repeat(40),
        "ls ".repeat(20_000)
    );
    assert_eq!(r.check(&under, None, None), CommandVerdict::Allowed);
}

#[test]
fn an_interpreters_calls_that_delete_a_folder_are_rm_rf() {
    let r = rule(&["rm ** -rf **"], None, None);
    let rm =
        |path: &str, within: &str| denied(&format!("rm -rf {path}"), Some(within), "rm ** -rf **");
    for (command, path) in [
        ("python3 -c 'import shutil; shutil.rmtree(\"/\")'", "/"),
        ("python3 -c 'import shutil as sh; sh.rmtree(\"/\")'", "/"),
        (
            "python3 -c 'from shutil import rmtree; rmtree(\"/\", True)'",
            "/",
        ),
        ("python3 -c 'import shutil; shutil.rmtree(p)'", "..."),
        ("perl -MFile::Path -e 'rmtree(\"/\")'", "/"),
        (
            "perl -MFile::Path=remove_tree -e 'remove_tree(\"/a\", \"/b\")'",
            "/a /b",
        ),
        ("ruby -rfileutils -e 'FileUtils.rm_rf(\"/\")'", "/"),
        (
            "ruby -rfileutils -e 'FileUtils.rm_r([\"/a\", \"/b\"])'",
            "/a /b",
        ),
        (
            "ruby -rfileutils -e 'FileUtils.rm_r [\"/a\", \"/b\"]'",
            "...",
        ),
        ("ruby -rfileutils -e 'FileUtils.remove_dir(\"/\")'", "/"),
        (
            "node -e 'require(\"fs\").rmSync(\"/\", {recursive: true, force: true})'",
            "/",
        ),
        ("node -e 'fs.promises.rm(\"/\", { recursive: true })'", "/"),
        ("node -e 'require(\"fs-extra\").removeSync(\"/\")'", "/"),
        (
            "node -e 'const rimraf = require(\"rimraf\"); rimraf.sync(d)'",
            "...",
        ),
        ("node -e 'rimraf.sync(\"/\")'", "/"),
    ] {
        let verdict = r.check(command, None, None);
        let CommandVerdict::Denied(_, Some(within), _) = &verdict else {
            panic!("{command}: {verdict:?}");
        };
        assert_eq!(verdict, rm(path, within), "{command}");
    }
    // Deleting one file or an empty folder, another object's method of the same
    // name without `recursive`, no call: not `rm -rf`.
    allowed(
        &r,
        &[
            "node -e 'require(\"fs\").rmSync(\"dist/a.js\", {force: true})'",
            "node -e 'fs.rmdirSync(\"empty\")'",
            "node -e 'list.rm(2)'",
            "python3 -c 'import os; os.rmdir(\"empty\"); os.remove(\"a\")'",
            "python3 -c 'print(\"shutil.rmtree(x)\")'",
            "python3 -c 'print(\"system\"); d = {\"exec\": 1}; print(d[\"exec\"])'",
            "ruby -e 'h = {system: 1}; puts h[:system]'",
            "ruby -e 'puts \"rm_rf\"'",
            "php -r 'rmdir(\"empty\");'",
        ],
    );
}

#[test]
fn an_interpreters_string_literals_are_held_to_protect() {
    let r = rule(
        &[],
        None,
        Some(&[".claude/**", "~/.claude/**", "/etc/shadow"]),
    );
    let p = |path: &str, glob: &str| CommandVerdict::Protected(path.to_owned(), glob.to_owned());
    for (command, path, glob) in [
        (
            "python3 -c \"open('.claude/settings.json', 'w').write('{}')\"",
            ".claude/settings.json",
            ".claude/**",
        ),
        (
            "python3 -c 'import os; os.remove(\"./.claude/settings.json\")'",
            ".claude/settings.json",
            ".claude/**",
        ),
        (
            "python3 -c 'import os; p = os.path.expanduser(\"~/.claude/x\")'",
            "~/.claude/x",
            "~/.claude/**",
        ),
        // A folder that holds a protected path, as `rm -r .claude` names it.
        (
            "python3 -c 'import os; os.path.join(\".claude\", name)'",
            ".claude",
            ".claude/**",
        ),
        (
            "node -e 'require(\"fs\").writeFileSync(\".claude/settings.json\", \"{}\")'",
            ".claude/settings.json",
            ".claude/**",
        ),
        // Interpolated: its text as written.
        (
            "node -e 'fs.writeFileSync(`.claude/${name}`, x)'",
            ".claude/${name}",
            ".claude/**",
        ),
        (
            "ruby -e 'File.write(\".claude/a\", \"#{x}\")'",
            ".claude/a",
            ".claude/**",
        ),
        ("perl -e 'unlink \".claude/a\"'", ".claude/a", ".claude/**"),
        (
            "python3 -c \"open('.clau' 'de/settings.json', 'w')\"",
            ".claude/settings.json",
            ".claude/**",
        ),
        (
            "python3 -c \"open('\\x2eclaude/a', 'w')\"",
            ".claude/a",
            ".claude/**",
        ),
        ("php -r 'unlink(\".claude/a\");'", ".claude/a", ".claude/**"),
        (
            "awk '{ print > \".claude/a\" }' f",
            ".claude/a",
            ".claude/**",
        ),
        // In a script the string writes, and in vim's python.
        (
            "printf '%s\\n' 'open(\".claude/a\", \"w\")' > x.py && python3 x.py",
            ".claude/a",
            ".claude/**",
        ),
        (
            "vim -c 'py3 open(\".claude/a\", \"w\")' f",
            ".claude/a",
            ".claude/**",
        ),
    ] {
        assert_eq!(r.check(command, None, None), p(path, glob), "{command}");
    }
    assert_eq!(
        r.check(
            "python3 -c 'open(\"/home/u/.claude/x\")'",
            Some("/home/u"),
            None
        ),
        p("~/.claude/x", "~/.claude/**")
    );
    allowed(
        &r,
        &[
            "python3 -c 'print(\"hello\"); open(\"/tmp/x.txt\", \"w\")'",
            "node -e 'console.log(`a ${b}`)'",
            "python3 -c 'print(\".claude is a folder\")'",
        ],
    );
}

#[test]
fn an_interpreters_options_are_read_as_it_reads_them() {
    let r = rule(&["rm ** -rf **"], None, None);
    // Values in their word or the next, letters grouped, code in its option's word.
    runs_rm(
        &r,
        &[
            "ruby -rtime -e 'system(\"rm -rf /\")'",
            "ruby -r fileutils -e 'system(\"rm -rf /\")'",
            "ruby --disable gems -e 'system(\"rm -rf /\")'",
            "ruby -W0 -e 'system(\"rm -rf /\")'",
            "perl -MO=Deparse -e 'system(\"rm -rf /\")'",
            "perl -Mstrict -we 'system(\"rm -rf /\")'",
            "perl -I /tmp -e 'system(\"rm -rf /\")'",
            "perl -lne 'system(\"rm -rf /\")' f",
            "perl -0777 -ne 'system(\"rm -rf /\")' f",
            "perl -e'system(\"rm -rf /\")'",
            "python3 -X importtime -c 'import os; os.system(\"rm -rf /\")'",
            "python3 -Xpycache_prefix=/tmp/abc -c 'import os; os.system(\"rm -rf /\")'",
            "python3 -Bc 'import os; os.system(\"rm -rf /\")'",
            "python3 -c'import os; os.system(\"rm -rf /\")'",
            "node -r dotenv/config -e 'require(\"child_process\").execSync(\"rm -rf /\")'",
            "node --require x -e 'require(\"child_process\").execSync(\"rm -rf /\")'",
            "node --eval='require(\"child_process\").execSync(\"rm -rf /\")'",
            "node -pe 'require(\"child_process\").execSync(\"rm -rf /\")'",
            "php -d display_errors=1 -r 'system(\"rm -rf /\");'",
            "php -R 'system(\"rm -rf /\");'",
            "php -B 'system(\"rm -rf /\");'",
            "php -f x.php -r 'system(\"rm -rf /\");'",
            "gawk -i inplace 'BEGIN { system(\"rm -rf /\") }' f",
            "pypy3 -c 'import os; os.system(\"rm -rf /\")'",
            "bun -e 'Bun.spawnSync([\"rm\", \"-rf\", \"/\"])'",
            "bun -e 'await $`rm -rf /`'",
            // Escapes read as the language reads them in that quote; Python's
            // literals side by side are one.
            "python3 -c 'import os; os.system(\"\\x72m -rf /\")'",
            "python3 -c 'import os; os.system(\"\\162m -rf /\")'",
            "python3 -c 'import os; os.system(\"\\u0072m -rf /\")'",
            "python3 -c \"import os; os.system('r' 'm -rf /')\"",
            "python3 -c \"import os; os.system('r''m -rf /')\"",
            "python3 -c \"import os; os.system('r'\n   'm -rf /')\"",
            "node -e 'require(\"child_process\").execSync(\"\\u{72}m -rf /\")'",
            "node -e 'require(\"child_process\").execSync(`\\x72m -rf /`)'",
            "perl -e 'system(\"\\x72m -rf /\")'",
            "perl -e 'system(\"\\x{72}m -rf /\")'",
            "ruby -e 'system(\"\\u0072m -rf /\")'",
            "php -r 'system(\"\\x72m -rf /\");'",
            "gawk --include inplace -v x=1 'BEGIN { system(\"rm -rf /\") }' f",
            "printf 'BEGIN { system(\"rm -rf /\") }' > x.awk; gawk -E x.awk",
        ],
    );
    // What the interpreter runs is a file, a module or the arguments of either.
    allowed(
        &r,
        &[
            "perl -pie 's/a/b/' f",
            "perl -pi -e 's/a/b/' f",
            "python3 -m http.server -c 'import os; os.system(\"rm -rf /\")'",
            "python3 x.py -c 'import os; os.system(\"rm -rf /\")'",
            "node x.js -e 'require(\"child_process\").execSync(\"rm -rf /\")'",
            // Escapes not read in these quotes: the program `\x72m`.
            "perl -e \"system('\\x72m -rf /')\"",
            "python3 -c 'import os; os.system(r\"\\x72m -rf /\")'",
        ],
    );
    not_known(&r, &["node --eval=\"$CODE\"", "perl -e\"$CODE\""]);
}

#[test]
fn quote_like_literals_are_held_to_protect() {
    let r = rule(&[], None, Some(&[".claude/**"]));
    let p = |path: &str| CommandVerdict::Protected(path.to_owned(), ".claude/**".to_owned());
    for (command, path) in [
        (
            "perl -e 'unlink q{.claude/settings.json}'",
            ".claude/settings.json",
        ),
        ("perl -e 'unlink qq(.claude/a)'", ".claude/a"),
        ("perl -e 'unlink qw(x .claude/b)'", ".claude/b"),
        ("perl -e 'unlink q!.claude/c!'", ".claude/c"),
        ("perl -e 'unlink q{.claude/{d}}'", ".claude/{d}"),
        ("ruby -e 'File.delete %q(.claude/a)'", ".claude/a"),
        ("ruby -e 'File.delete(*%w[x .claude/b])'", ".claude/b"),
        ("ruby -e 'File.delete %(.claude/c)'", ".claude/c"),
        // Left open: to the end of the code.
        ("perl -e 'unlink q{.claude/d'", ".claude/d"),
    ] {
        assert_eq!(r.check(command, None, None), p(path), "{command}");
    }
    allowed(
        &r,
        &[
            "perl -e '$q{x} = 1; print q{hello}'",
            "perl -e 'my %h = (q => 1)'",
            "ruby -e 'puts 7 % (2)'",
        ],
    );
}

#[test]
fn commands_database_clients_debuggers_and_emacs_run_are_judged() {
    let r = rule(&["rm ** -rf **"], None, None);
    runs_rm(
        &r,
        &[
            "sqlite3 x.db '.system rm -rf /'",
            "sqlite3 -cmd '.shell rm -rf /' x.db",
            "sqlite3 x.db \".once '|rm -rf /'\" 'select 1'",
            "sqlite3 x.db <<'E'\n.output |rm -rf /\nE",
            "psql -c '\\! rm -rf /'",
            "psql --command='select 1 \\g |rm -rf /'",
            "psql -d db -c \"copy t to program 'rm -rf /'\"",
            "printf '%s\\n' '\\! rm -rf /' > x.sql; psql -f x.sql",
            "mysql -u root -e 'system rm -rf /'",
            "mariadb --execute='select 1; \\! rm -rf /'",
            "echo 'system rm -rf /' | mysql",
            "lldb -o 'platform shell rm -rf /' ./a.out",
            "lldb --one-line 'script import os; os.system(\"rm -rf /\")'",
            "emacs --batch --eval '(shell-command \"rm -rf /\")'",
            "emacsclient -eval '(shell-command-to-string \"rm -rf /\")'",
        ],
    );
    allowed(
        &r,
        &[
            "sqlite3 x.db 'select 1' '.tables'",
            "sqlite3 x.db '.output out.txt' 'select 1'",
            "psql -d db -c 'select 1' -o out.txt",
            "mysql -e 'show tables'",
            "lldb -o 'breakpoint set -n main' -o run ./a.out",
            "emacs --batch --eval '(message \"hi\")'",
        ],
    );
    not_known(
        &r,
        &[
            "psql -c \"$Q\"",
            "emacs --batch --eval '(call-process \"rm\" nil nil nil \"-rf\" \"/\")'",
            "emacs --eval '(shell-command cmd)'",
            "psql -c \"copy t to program '$C'\"",
        ],
    );
}

#[test]
fn an_interpreters_literals_are_held_once_a_folder_and_at_most_65536() {
    let r = rule(&[], None, Some(&[".claude/**"]));
    let code: Vec<String> = (0..5_000).map(|i| format!("'{i}'")).collect();
    let write = format!("printf '%s' \"x = [{}]\" > /tmp/x.py; ", code.join(","));
    // The same code run again from the same folder is held once.
    let same = format!("{write}{}", "python3 /tmp/x.py; ".repeat(1_000));
    assert_eq!(r.check(&same, None, Some("/w")), CommandVerdict::Allowed);
    // From fourteen folders, 70,000 literals: more than can be judged.
    let folders = format!("{write}{}", "cd a; python3 /tmp/x.py; ".repeat(14));
    assert_eq!(
        r.check(&folders, None, Some("/w")),
        CommandVerdict::Unparseable(super::interpreters::LITERALS_SPENT.to_owned())
    );
    let fewer = format!("{write}{}", "cd a; python3 /tmp/x.py; ".repeat(13));
    assert_eq!(r.check(&fewer, None, Some("/w")), CommandVerdict::Allowed);
    // A literal that names a protected path is found from any folder.
    let hooks = "printf '%s' \"open('/w/.claude/x')\" > /tmp/y.py; cd a; python3 /tmp/y.py";
    assert_eq!(
        r.check(hooks, None, Some("/w")),
        CommandVerdict::Protected(".claude/x".to_owned(), ".claude/**".to_owned())
    );
}
