//! `toolreplay sign` and `toolreplay verify --signature`, against the real
//! `ssh-keygen`: our signatures pass `ssh-keygen -Y verify`, signatures made by
//! `ssh-keygen -Y sign` over `toolreplay head` pass ours, and a wrong namespace, a
//! wrong identity or key, a tampered line, a truncated, extended or re-sealed file
//! all fail with their own message. Keys are made at test time in the test's
//! temporary directory; key fingerprints are replaced by `[alice]`, `[bob]` in
//! snapshots.

use std::fs;
use std::io::Write as _;
use std::process::{Command, Stdio};

use insta::assert_snapshot;

use super::{Dir, ROOT, Run, lines, record, run_with_env};

/// Runs `ssh-keygen` in `dir` with `args`, `stdin` on its standard input; returns
/// the exit code and stdout, stderr.
fn ssh_keygen(dir: &Dir, args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new("ssh-keygen")
        .current_dir(dir.path())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ssh-keygen is installed (openssh-client)");
    // ssh-keygen may exit before it reads its input (a bad signature file, say):
    // a closed pipe then is its answer, not a failure of the test.
    match child.stdin.take().expect("stdin").write_all(stdin) {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
            panic!("write to ssh-keygen: {err}")
        }
        _ => {}
    }
    let output = child.wait_with_output().expect("ssh-keygen ran");
    (
        output.status.code().expect("ssh-keygen exited"),
        String::from_utf8(output.stdout).expect("UTF-8"),
        String::from_utf8(output.stderr).expect("UTF-8"),
    )
}

/// Makes the ed25519 key `name` (and `name.pub`) in `dir`, with `passphrase`.
fn make_key(dir: &Dir, name: &str, passphrase: &str) {
    let (code, _, stderr) = ssh_keygen(
        dir,
        &[
            "-q", "-t", "ed25519", "-a", "4", "-C", name, "-N", passphrase, "-f", name,
        ],
        b"",
    );
    assert_eq!(code, 0, "ssh-keygen: {stderr}");
}

/// The SHA256 fingerprint of the public key `name.pub` in `dir`, as ssh-keygen
/// gives it.
fn fingerprint(dir: &Dir, name: &str) -> String {
    let (code, stdout, stderr) = ssh_keygen(
        dir,
        &["-l", "-E", "sha256", "-f", &format!("{name}.pub")],
        b"",
    );
    assert_eq!(code, 0, "ssh-keygen: {stderr}");
    let fingerprint = stdout.split(' ').nth(1).expect("a fingerprint").to_owned();
    assert!(fingerprint.starts_with("SHA256:"), "{stdout}");
    fingerprint
}

/// The public key line of `name.pub` in `dir`, without its final LF.
fn public(dir: &Dir, name: &str) -> String {
    String::from_utf8(dir.read(&format!("{name}.pub")))
        .unwrap()
        .trim_end()
        .to_owned()
}

/// A directory holding `sealed.jsonl` (the sealed sample), the keys `alice` and `bob`,
/// and `allowed_signers` allowing alice's key for alice@example.com in the namespace
/// `toolreplay`.
struct Setup {
    dir: Dir,
}

impl Setup {
    fn new() -> Self {
        let dir = Dir::new();
        dir.write(
            "sealed.jsonl",
            fs::read(format!("{ROOT}/samples/session-dirty.sealed.jsonl")).unwrap(),
        );
        make_key(&dir, "alice", "");
        make_key(&dir, "bob", "");
        let setup = Setup { dir };
        setup.allow(&format!(
            "alice@example.com namespaces=\"toolreplay\" {}",
            public(&setup.dir, "alice")
        ));
        setup
    }

    /// Writes `allowed_signers` with the one line `line`.
    fn allow(&self, line: &str) {
        self.dir.write("allowed_signers", format!("{line}\n"));
    }

    /// Runs toolreplay with `args`, key fingerprints replaced by their names.
    fn run(&self, args: &[&str]) -> Run {
        self.run_with_env(args, &[])
    }

    fn run_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut run = run_with_env(self.dir.path(), args, env);
        for name in ["alice", "bob"] {
            let fingerprint = fingerprint(&self.dir, name);
            run.stdout = run.stdout.replace(&fingerprint, &format!("[{name}]"));
        }
        run
    }

    /// `toolreplay sign sealed.jsonl --key KEY`, which must succeed silently.
    fn sign(&self, key: &str) {
        let run = self.run(&["sign", "sealed.jsonl", "--key", key]);
        assert_eq!(run.text(), "exit: 0\n--- stdout\n--- stderr\n");
    }

    /// `toolreplay verify sealed.jsonl --signature SIG --allowed-signers
    /// allowed_signers --identity ID`.
    fn verify(&self, signature: &str, identity: &str) -> Run {
        self.run(&[
            "verify",
            "sealed.jsonl",
            "--signature",
            signature,
            "--allowed-signers",
            "allowed_signers",
            "--identity",
            identity,
        ])
    }

    /// The output of `toolreplay head sealed.jsonl`.
    fn head(&self) -> String {
        let run = self.run(&["head", "sealed.jsonl"]);
        assert_eq!(run.code, 0, "{}", run.text());
        run.stdout
    }

    /// `ssh-keygen -Y sign` of the head statement with `key` in `namespace` (and
    /// `options`), written to `file`.
    fn ssh_sign(&self, key: &str, namespace: &str, options: &[&str], file: &str) {
        let mut args = vec!["-Y", "sign", "-f", key, "-n", namespace];
        args.extend_from_slice(options);
        let (code, signature, stderr) = ssh_keygen(&self.dir, &args, self.head().as_bytes());
        assert_eq!(code, 0, "ssh-keygen: {stderr}");
        self.dir.write(file, signature);
    }

    /// `ssh-keygen -Y verify` of `signature` over the head statement, for `identity`.
    fn ssh_verify(&self, signature: &str, identity: &str) -> (i32, String) {
        let (code, stdout, stderr) = ssh_keygen(
            &self.dir,
            &[
                "-Y",
                "verify",
                "-f",
                "allowed_signers",
                "-I",
                identity,
                "-n",
                "toolreplay",
                "-s",
                signature,
            ],
            self.head().as_bytes(),
        );
        let mut text = stdout.replace(&fingerprint(&self.dir, "alice"), "[alice]");
        text.push_str(&stderr);
        (code, text)
    }
}

const GOOD: &str = "exit: 0\n--- stdout\nchain: intact\nsignature: good: 'alice@example.com' with ED25519 key [alice]\n--- stderr\n";

// --- interoperability with ssh-keygen

#[test]
fn our_signature_passes_ssh_keygen_verify() {
    let setup = Setup::new();
    setup.sign("alice");
    assert_eq!(
        setup.dir.entries(),
        [
            "alice",
            "alice.pub",
            "allowed_signers",
            "bob",
            "bob.pub",
            "sealed.jsonl",
            "sealed.jsonl.sig"
        ]
    );
    let (code, text) = setup.ssh_verify("sealed.jsonl.sig", "alice@example.com");
    assert_eq!(code, 0, "{text}");
    assert_eq!(
        text,
        "Good \"toolreplay\" signature for alice@example.com with ED25519 key [alice]\n"
    );
}

#[test]
fn our_signature_is_armored_sshsig_with_sha512() {
    let setup = Setup::new();
    setup.sign("alice");
    let armored = String::from_utf8(setup.dir.read("sealed.jsonl.sig")).unwrap();
    assert!(
        armored.starts_with("-----BEGIN SSH SIGNATURE-----\n"),
        "{armored}"
    );
    assert!(
        armored.ends_with("\n-----END SSH SIGNATURE-----\n"),
        "{armored}"
    );
    // ssh-keygen shows what it holds: the namespace and the hash.
    let (code, _, stderr) = setup_check_novalidate(&setup, "sealed.jsonl.sig", "sha512");
    assert_eq!(code, 0, "{stderr}");
}

/// `ssh-keygen -Y check-novalidate` of a signature, and whether it names `hash`.
fn setup_check_novalidate(setup: &Setup, signature: &str, hash: &str) -> (i32, String, String) {
    let (code, stdout, stderr) = ssh_keygen(
        &setup.dir,
        &[
            "-Y",
            "check-novalidate",
            "-n",
            "toolreplay",
            "-s",
            signature,
        ],
        setup.head().as_bytes(),
    );
    let armored = String::from_utf8(setup.dir.read(signature)).unwrap();
    let blob: String = armored
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .collect();
    // "sha512" in the blob's base64 depends on its offset; ask for the hash name
    // through the decoded bytes instead.
    let decoded = decode_base64(&blob);
    assert!(
        decoded.windows(hash.len()).any(|w| w == hash.as_bytes()),
        "the signature does not name {hash}"
    );
    (code, stdout, stderr)
}

/// Base64 decoding, enough for an armored signature.
fn decode_base64(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    for byte in text.bytes().filter(|b| *b != b'=') {
        let value = ALPHABET.iter().position(|c| *c == byte).expect("base64") as u32;
        acc = (acc << 6) | value;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

#[test]
fn ssh_keygen_signature_over_head_passes_ours() {
    let setup = Setup::new();
    setup.ssh_sign("alice", "toolreplay", &[], "ssh.sig");
    let run = setup.verify("ssh.sig", "alice@example.com");
    assert_eq!(run.text(), GOOD);
    assert_snapshot!(run.text());
}

#[test]
fn ssh_keygen_signature_with_sha256_passes_ours() {
    let setup = Setup::new();
    setup.ssh_sign("alice", "toolreplay", &["-O", "hashalg=sha256"], "ssh.sig");
    let (code, _, stderr) = setup_check_novalidate(&setup, "ssh.sig", "sha256");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(setup.verify("ssh.sig", "alice@example.com").text(), GOOD);
}

#[test]
fn our_signature_passes_ours() {
    let setup = Setup::new();
    setup.sign("alice");
    assert_eq!(
        setup.verify("sealed.jsonl.sig", "alice@example.com").text(),
        GOOD
    );
}

#[test]
fn signature_with_a_pinned_head_checks_both() {
    let setup = Setup::new();
    setup.sign("alice");
    setup.dir.write("head.txt", setup.head());
    let run = setup.run(&[
        "verify",
        "sealed.jsonl",
        "--head",
        "head.txt",
        "--signature",
        "sealed.jsonl.sig",
        "--allowed-signers",
        "allowed_signers",
        "--identity",
        "alice@example.com",
    ]);
    assert_snapshot!(run.text());
}

// --- what fails, and how

#[test]
fn wrong_namespace_fails_for_both() {
    let setup = Setup::new();
    setup.ssh_sign("alice", "file", &[], "file.sig");
    assert_snapshot!(setup.verify("file.sig", "alice@example.com").text());
    let (code, _) = setup.ssh_verify("file.sig", "alice@example.com");
    assert_ne!(code, 0);
}

#[test]
fn wrong_identity_fails_for_both() {
    let setup = Setup::new();
    setup.sign("alice");
    assert_snapshot!(setup.verify("sealed.jsonl.sig", "bob@example.com").text());
    let (code, _) = setup.ssh_verify("sealed.jsonl.sig", "bob@example.com");
    assert_ne!(code, 0);
}

#[test]
fn a_key_not_allowed_for_the_identity_fails_for_both() {
    let setup = Setup::new();
    setup.sign("bob");
    assert_snapshot!(setup.verify("sealed.jsonl.sig", "alice@example.com").text());
    let (code, _) = setup.ssh_verify("sealed.jsonl.sig", "alice@example.com");
    assert_ne!(code, 0);
}

#[test]
fn a_key_allowed_only_for_other_namespaces_fails_for_both() {
    let setup = Setup::new();
    setup.allow(&format!(
        "alice@example.com namespaces=\"git,file\" {}",
        public(&setup.dir, "alice")
    ));
    setup.sign("alice");
    assert_snapshot!(setup.verify("sealed.jsonl.sig", "alice@example.com").text());
    let (code, _) = setup.ssh_verify("sealed.jsonl.sig", "alice@example.com");
    assert_ne!(code, 0);
}

#[test]
fn principal_patterns_and_no_options_are_read_as_ssh_keygen_reads_them() {
    let setup = Setup::new();
    setup.allow(&format!(
        "\"!eve@example.com,*@example.com\" {}",
        public(&setup.dir, "alice")
    ));
    setup.sign("alice");
    assert_eq!(
        setup.verify("sealed.jsonl.sig", "alice@example.com").text(),
        GOOD
    );
    assert_eq!(
        setup.ssh_verify("sealed.jsonl.sig", "alice@example.com").0,
        0
    );
    let run = setup.verify("sealed.jsonl.sig", "eve@example.com");
    assert_eq!(run.code, 1);
    assert_ne!(setup.ssh_verify("sealed.jsonl.sig", "eve@example.com").0, 0);
}

#[test]
fn a_tampered_line_fails_as_a_broken_chain() {
    let setup = Setup::new();
    setup.sign("alice");
    let sealed = String::from_utf8(setup.dir.read("sealed.jsonl")).unwrap();
    let tampered = sealed.replacen("\"line\":7", "\"line\":8", 1);
    assert_ne!(tampered, sealed);
    setup.dir.write("sealed.jsonl", tampered);
    assert_snapshot!(setup.verify("sealed.jsonl.sig", "alice@example.com").text());
}

#[test]
fn a_truncated_file_fails_the_signature() {
    let setup = Setup::new();
    setup.sign("alice");
    let sealed = String::from_utf8(setup.dir.read("sealed.jsonl")).unwrap();
    let kept: Vec<&str> = sealed.lines().take(4).collect();
    setup.dir.write("sealed.jsonl", lines(&kept));
    assert_snapshot!(setup.verify("sealed.jsonl.sig", "alice@example.com").text());
}

#[test]
fn an_extended_file_fails_the_signature_until_signed_again() {
    let setup = Setup::new();
    setup.sign("alice");
    setup.dir.write(
        "new.jsonl",
        format!("{}\n", record(0, "read_file", r#"{"path": "x"}"#, "{}")),
    );
    let run = setup.run(&["seal", "--append", "sealed.jsonl", "new.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.text());
    assert_snapshot!(setup.verify("sealed.jsonl.sig", "alice@example.com").text());
    setup.sign("alice");
    assert_eq!(
        setup.verify("sealed.jsonl.sig", "alice@example.com").text(),
        GOOD
    );
}

#[test]
fn a_re_sealed_file_fails_the_signature() {
    let setup = Setup::new();
    setup.sign("alice");
    let original = fs::read_to_string(format!("{ROOT}/samples/session-dirty.jsonl")).unwrap();
    let edited = original.replacen("install", "uninstall", 1);
    assert_ne!(edited, original);
    setup.dir.write("t.jsonl", edited);
    let run = setup.run(&["seal", "t.jsonl", "-o", "sealed.jsonl"]);
    assert_eq!(run.code, 0, "{}", run.text());
    assert_eq!(
        setup.run(&["verify", "sealed.jsonl"]).stdout,
        "chain: intact\n"
    );
    assert_snapshot!(setup.verify("sealed.jsonl.sig", "alice@example.com").text());
    assert_ne!(
        setup.ssh_verify("sealed.jsonl.sig", "alice@example.com").0,
        0
    );
}

#[test]
fn a_signature_of_another_message_fails() {
    let setup = Setup::new();
    let (code, signature, stderr) = ssh_keygen(
        &setup.dir,
        &["-Y", "sign", "-f", "alice", "-n", "toolreplay"],
        b"toolreplay/sealed-transcript/v1\n0\n0000000000000000000000000000000000000000000000000000000000000000\n",
    );
    assert_eq!(code, 0, "{stderr}");
    setup.dir.write("other.sig", signature);
    assert_snapshot!(setup.verify("other.sig", "alice@example.com").text());
}

// --- keys

#[test]
fn an_encrypted_key_signs_with_the_passphrase_from_the_environment() {
    let setup = Setup::new();
    make_key(&setup.dir, "carol", "correct horse");
    setup.allow(&format!(
        "carol@example.com {}",
        public(&setup.dir, "carol")
    ));
    let run = setup.run_with_env(
        &["sign", "sealed.jsonl", "--key", "carol"],
        &[("TOOLREPLAY_KEY_PASSPHRASE", "correct horse")],
    );
    assert_eq!(run.text(), "exit: 0\n--- stdout\n--- stderr\n");
    let run = setup.verify("sealed.jsonl.sig", "carol@example.com");
    assert_eq!(run.code, 0, "{}", run.text());
    assert_eq!(
        setup.ssh_verify("sealed.jsonl.sig", "carol@example.com").0,
        0
    );
}

#[test]
fn an_encrypted_key_with_a_wrong_passphrase_fails_clearly() {
    let setup = Setup::new();
    make_key(&setup.dir, "carol", "correct horse");
    let run = setup.run_with_env(
        &["sign", "sealed.jsonl", "--key", "carol"],
        &[("TOOLREPLAY_KEY_PASSPHRASE", "battery staple")],
    );
    assert_snapshot!(run.text());
    assert!(!setup.dir.entries().contains(&"sealed.jsonl.sig".to_owned()));
}

#[test]
fn an_encrypted_key_without_a_passphrase_or_terminal_fails_clearly() {
    let setup = Setup::new();
    make_key(&setup.dir, "carol", "correct horse");
    let run = setup.run(&["sign", "sealed.jsonl", "--key", "carol"]);
    assert_snapshot!(run.text());
}

#[test]
fn sign_with_a_public_key_fails_clearly() {
    let setup = Setup::new();
    assert_snapshot!(
        setup
            .run(&["sign", "sealed.jsonl", "--key", "alice.pub"])
            .text()
    );
}

#[test]
fn sign_with_a_missing_key_fails_clearly() {
    let setup = Setup::new();
    assert_snapshot!(
        setup
            .run(&["sign", "sealed.jsonl", "--key", "nobody"])
            .text()
    );
}

#[test]
fn sign_with_an_ecdsa_key_is_not_supported() {
    let setup = Setup::new();
    let (code, _, stderr) = ssh_keygen(
        &setup.dir,
        &["-q", "-t", "ecdsa", "-N", "", "-f", "dave"],
        b"",
    );
    assert_eq!(code, 0, "{stderr}");
    assert_snapshot!(setup.run(&["sign", "sealed.jsonl", "--key", "dave"]).text());
}

#[test]
fn sign_of_a_broken_chain_is_refused() {
    let setup = Setup::new();
    setup.dir.write(
        "sealed.jsonl",
        fs::read(format!("{ROOT}/samples/session-dirty.tampered.jsonl")).unwrap(),
    );
    assert_snapshot!(
        setup
            .run(&["sign", "sealed.jsonl", "--key", "alice"])
            .text()
    );
    assert!(!setup.dir.entries().contains(&"sealed.jsonl.sig".to_owned()));
}

#[test]
fn sign_replaces_an_old_signature() {
    let setup = Setup::new();
    setup.dir.write("sealed.jsonl.sig", "old\n");
    setup.sign("alice");
    assert_eq!(
        setup.verify("sealed.jsonl.sig", "alice@example.com").text(),
        GOOD
    );
}

// --- bad files

#[test]
fn a_signature_file_that_is_not_a_signature_is_an_error() {
    let setup = Setup::new();
    setup.dir.write(
        "bad.sig",
        "-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n",
    );
    assert_snapshot!(setup.verify("bad.sig", "alice@example.com").text());
}

#[test]
fn an_allowed_signers_line_with_an_unknown_option_is_an_error() {
    let setup = Setup::new();
    setup.sign("alice");
    setup.allow(&format!(
        "alice@example.com no-touch-required {}",
        public(&setup.dir, "alice")
    ));
    assert_snapshot!(setup.verify("sealed.jsonl.sig", "alice@example.com").text());
}

#[test]
fn an_allowed_signers_line_with_a_validity_window_is_not_supported() {
    let setup = Setup::new();
    setup.sign("alice");
    setup.allow(&format!(
        "alice@example.com valid-after=\"20240101\" {}",
        public(&setup.dir, "alice")
    ));
    assert_snapshot!(setup.verify("sealed.jsonl.sig", "alice@example.com").text());
}

#[test]
fn signature_without_allowed_signers_is_a_usage_error() {
    let setup = Setup::new();
    assert_snapshot!(
        setup
            .run(&["verify", "sealed.jsonl", "--signature", "sealed.jsonl.sig"])
            .text()
    );
}

/// Runs `toolreplay sign sealed.jsonl --key KEY` in `dir` on a terminal (a
/// pseudo-terminal made by `script`), typing `passphrase` once the prompt had time to
/// appear; returns the exit code and what the terminal showed.
fn sign_on_a_terminal(dir: &Dir, key: &str, passphrase: &str) -> (i32, String) {
    let binary = assert_cmd::cargo::cargo_bin("toolreplay");
    let command = format!("'{}' sign sealed.jsonl --key {key}", binary.display());
    let mut child = Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .current_dir(dir.path())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script is installed (util-linux)");
    let mut stdin = child.stdin.take().expect("stdin");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    stdin
        .write_all(format!("{passphrase}\n").as_bytes())
        .expect("type the passphrase");
    drop(stdin);
    let output = child.wait_with_output().expect("script ran");
    let mut shown = String::from_utf8_lossy(&output.stdout).into_owned();
    shown.push_str(&String::from_utf8_lossy(&output.stderr));
    (output.status.code().expect("script exited"), shown)
}

#[test]
fn an_encrypted_key_asks_for_its_passphrase_on_a_terminal() {
    let setup = Setup::new();
    make_key(&setup.dir, "carol", "correct horse");
    setup.allow(&format!(
        "carol@example.com {}",
        public(&setup.dir, "carol")
    ));
    let (code, shown) = sign_on_a_terminal(&setup.dir, "carol", "correct horse");
    assert_eq!(code, 0, "{shown}");
    assert!(shown.contains("Enter passphrase for carol: "), "{shown}");
    let run = setup.verify("sealed.jsonl.sig", "carol@example.com");
    assert_eq!(run.code, 0, "{}", run.text());
}

#[test]
fn a_wrong_passphrase_on_a_terminal_fails_clearly() {
    let setup = Setup::new();
    make_key(&setup.dir, "carol", "correct horse");
    let (code, shown) = sign_on_a_terminal(&setup.dir, "carol", "battery staple");
    assert_eq!(code, 2, "{shown}");
    assert!(shown.contains("error: carol: wrong passphrase"), "{shown}");
    assert!(!setup.dir.entries().contains(&"sealed.jsonl.sig".to_owned()));
}

// --- as ssh-keygen judges them (the generated table: crates/core/tests/ssh_keygen.rs)

#[test]
fn a_validity_window_in_utc_is_checked_as_ssh_keygen_checks_it() {
    let setup = Setup::new();
    setup.sign("alice");
    setup.allow(&format!(
        "alice@example.com valid-after=\"20200101Z\",valid-before=\"20990101Z\" {}",
        public(&setup.dir, "alice")
    ));
    assert_eq!(
        setup.verify("sealed.jsonl.sig", "alice@example.com").text(),
        GOOD
    );
    assert_eq!(
        setup.ssh_verify("sealed.jsonl.sig", "alice@example.com").0,
        0
    );
    setup.allow(&format!(
        "alice@example.com valid-after=\"20990101Z\" {}",
        public(&setup.dir, "alice")
    ));
    assert_snapshot!(setup.verify("sealed.jsonl.sig", "alice@example.com").text());
    assert_ne!(
        setup.ssh_verify("sealed.jsonl.sig", "alice@example.com").0,
        0
    );
}

#[test]
fn an_invalid_line_does_not_hide_a_later_good_one() {
    let setup = Setup::new();
    setup.sign("alice");
    let alice = public(&setup.dir, "alice");
    setup.allow(&format!(
        "alice@example.com namespaces=\"git\",namespaces=\"toolreplay\" {alice}\nalice@example.com {alice}"
    ));
    assert_eq!(
        setup.verify("sealed.jsonl.sig", "alice@example.com").text(),
        GOOD
    );
    assert_eq!(
        setup.ssh_verify("sealed.jsonl.sig", "alice@example.com").0,
        0
    );
    setup.allow(&format!(
        "alice@example.com namespaces=\"git\",namespaces=\"toolreplay\" {alice}"
    ));
    assert_snapshot!(setup.verify("sealed.jsonl.sig", "alice@example.com").text());
    assert_ne!(
        setup.ssh_verify("sealed.jsonl.sig", "alice@example.com").0,
        0
    );
}

#[test]
fn a_signature_with_crlf_armor_is_refused_by_both() {
    let setup = Setup::new();
    setup.sign("alice");
    let armored = String::from_utf8(setup.dir.read("sealed.jsonl.sig")).unwrap();
    setup.dir.write("crlf.sig", armored.replace('\n', "\r\n"));
    assert_snapshot!(setup.verify("crlf.sig", "alice@example.com").text());
    assert_ne!(setup.ssh_verify("crlf.sig", "alice@example.com").0, 0);
}

#[test]
fn a_question_mark_is_one_byte_for_both() {
    let setup = Setup::new();
    setup.sign("alice");
    setup.allow(&format!(
        "!??@example.com,*@example.com {}",
        public(&setup.dir, "alice")
    ));
    assert_snapshot!(setup.verify("sealed.jsonl.sig", "é@example.com").text());
    assert_ne!(setup.ssh_verify("sealed.jsonl.sig", "é@example.com").0, 0);
}

#[test]
fn bytes_after_the_end_line_are_ignored_by_both_even_if_not_utf8() {
    let setup = Setup::new();
    setup.sign("alice");
    let mut armored = setup.dir.read("sealed.jsonl.sig");
    armored.extend_from_slice(b"comment \xff\xfe\n");
    setup.dir.write("trailing.sig", armored);
    assert_eq!(
        setup.verify("trailing.sig", "alice@example.com").text(),
        GOOD
    );
    assert_eq!(setup.ssh_verify("trailing.sig", "alice@example.com").0, 0);
}

// --- every format and colour for the signature's verdict

/// `verify` of `sealed.jsonl.sig` for `identity`, with `extra` arguments.
fn verify_with(setup: &Setup, identity: &str, extra: &[&str]) -> Run {
    let mut args = vec![
        "verify",
        "sealed.jsonl",
        "--signature",
        "sealed.jsonl.sig",
        "--allowed-signers",
        "allowed_signers",
        "--identity",
        identity,
    ];
    args.extend_from_slice(extra);
    setup.run(&args)
}

#[test]
fn signature_verdicts_in_json() {
    let setup = Setup::new();
    setup.sign("alice");
    assert_snapshot!(
        "good_json",
        verify_with(&setup, "alice@example.com", &["--format", "json"]).text()
    );
    assert_snapshot!(
        "untrusted_json",
        verify_with(&setup, "bob@example.com", &["--format", "json"]).text()
    );
}

#[test]
fn signature_verdicts_in_sarif() {
    let setup = Setup::new();
    setup.sign("alice");
    assert_snapshot!(
        "good_sarif",
        verify_with(&setup, "alice@example.com", &["--format", "sarif"]).text()
    );
    assert_snapshot!(
        "untrusted_sarif",
        verify_with(&setup, "bob@example.com", &["--format", "sarif"]).text()
    );
    setup.ssh_sign("alice", "file", &[], "sealed.jsonl.sig");
    assert_snapshot!(
        "bad_sarif",
        verify_with(&setup, "alice@example.com", &["--format", "sarif"]).text()
    );
}

#[test]
fn signature_verdicts_are_coloured() {
    let setup = Setup::new();
    setup.sign("alice");
    assert_snapshot!(
        "good_coloured",
        verify_with(&setup, "alice@example.com", &["--color", "always"]).text()
    );
    assert_snapshot!(
        "untrusted_coloured",
        verify_with(&setup, "bob@example.com", &["--color", "always"]).text()
    );
}

#[test]
fn an_allowed_signers_name_with_a_newline_cannot_add_a_line_to_the_report() {
    let setup = Setup::new();
    setup.sign("alice");
    let name = "allowed\nsignature: good: 'mallory'";
    setup.dir.write(name, setup.dir.read("allowed_signers"));
    let run = setup.run(&[
        "verify",
        "sealed.jsonl",
        "--signature",
        "sealed.jsonl.sig",
        "--allowed-signers",
        name,
        "--identity",
        "bob@example.com",
    ]);
    assert_snapshot!(run.text());
    assert_eq!(run.stdout.lines().count(), 2);
}
