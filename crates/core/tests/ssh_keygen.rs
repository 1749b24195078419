//! `check_signature` against the real `ssh-keygen -Y verify`, on a generated table of
//! signature variants and allowed signers lines: for every case, ssh-keygen's
//! decision (exit 0: accepted) and ours (a good verdict) must be the same, both ways.
//! The few cases where this crate refuses on purpose what ssh-keygen accepts are
//! listed as such, and must stay exactly that.
//!
//! Keys are made by ssh-keygen in a temporary directory at test time; without
//! ssh-keygen (openssh-client) the test fails.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use toolreplay_core::check_signature;
use toolreplay_core::{
    Ed25519, SSHSIG_BEGIN, SSHSIG_END, SshSignature as Signature, SshsigHash, armor_sshsig,
    base64_encode_wrapped, put_ssh_string as put_string,
};

const MESSAGE: &[u8] = b"toolreplay/sealed-transcript/v1\n3\n5f1bc7b8a4b3f16dbbd6a6fca4fdd5a2f2f4ed02e2a8c7e4b7f2e6f2d3c4b5a6\n";
const IDENTITY: &str = "alice@example.com";

/// A temporary directory, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new() -> Dir {
        let path = std::env::temp_dir().join(format!(
            "toolreplay-ssh-keygen-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        fs::create_dir_all(&path).unwrap();
        Dir(path)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Runs ssh-keygen in `dir` with `args` and `stdin`; the exit code and stderr.
fn ssh_keygen(dir: &Path, args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, String) {
    let mut child = Command::new("ssh-keygen")
        .current_dir(dir)
        .args(args)
        .env("TZ", "UTC")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ssh-keygen must be installed (openssh-client) for this test");
    let mut input = child.stdin.take().unwrap();
    // ssh-keygen may exit before reading its input (a signature it cannot read).
    let _ = input.write_all(stdin);
    drop(input);
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().expect("ssh-keygen exited"),
        output.stdout,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn string(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    put_string(&mut out, bytes);
    out
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// The keys and signatures the cases are made of.
struct Material {
    dir: Dir,
    alice_public: String,
    bob_public: String,
    alice_key: [u8; 32],
    signing: ed25519_dalek::SigningKey,
    /// `ssh-keygen -Y sign` of MESSAGE by alice, SHA-512 and SHA-256.
    sha512: String,
    sha256: String,
}

fn make_key(dir: &Path, name: &str) -> String {
    let (code, _, stderr) = ssh_keygen(
        dir,
        &["-q", "-t", "ed25519", "-C", name, "-N", "", "-f", name],
        b"",
    );
    assert_eq!(code, 0, "ssh-keygen: {stderr}");
    let public = fs::read_to_string(dir.join(format!("{name}.pub"))).unwrap();
    let mut fields = public.split(' ');
    format!("{} {}", fields.next().unwrap(), fields.next().unwrap())
}

fn ssh_sign(dir: &Path, options: &[&str]) -> String {
    let mut args = vec!["-Y", "sign", "-f", "alice", "-n", "toolreplay"];
    args.extend_from_slice(options);
    let (code, stdout, stderr) = ssh_keygen(dir, &args, MESSAGE);
    assert_eq!(code, 0, "ssh-keygen: {stderr}");
    String::from_utf8(stdout).unwrap()
}

impl Material {
    fn new() -> Material {
        let dir = Dir::new();
        let alice_public = make_key(&dir.0, "alice");
        let bob_public = make_key(&dir.0, "bob");
        let private =
            ssh_key::PrivateKey::from_openssh(fs::read_to_string(dir.path("alice")).unwrap())
                .unwrap();
        let ssh_key::private::KeypairData::Ed25519(pair) = private.key_data() else {
            panic!("an ed25519 key");
        };
        let signing = ed25519_dalek::SigningKey::from_bytes(&pair.private.to_bytes());
        let alice_key = pair.public.0;
        let sha512 = ssh_sign(&dir.0, &[]);
        let sha256 = ssh_sign(&dir.0, &["-O", "hashalg=sha256"]);
        Material {
            dir,
            alice_public,
            bob_public,
            alice_key,
            signing,
            sha512,
            sha256,
        }
    }

    fn decoded(&self) -> Signature {
        Signature::from_armored(self.sha512.as_bytes()).unwrap()
    }

    /// The 64 signature bytes of the SHA-512 signature.
    fn raw_signature(&self) -> Vec<u8> {
        Ed25519::from_signature(&self.decoded())
            .unwrap()
            .signature
            .to_vec()
    }

    /// Alice's signature of the SSHSIG data with these fields.
    fn sign_data(&self, namespace: &[u8], reserved: &[u8], hash: &[u8], digest: &[u8]) -> Vec<u8> {
        use ed25519_dalek::Signer as _;
        let data = cat(&[
            b"SSHSIG",
            &string(namespace),
            &string(reserved),
            &string(hash),
            &string(digest),
        ]);
        self.signing.sign(&data).to_bytes().to_vec()
    }

    fn key_blob(&self) -> Vec<u8> {
        cat(&[&string(b"ssh-ed25519"), &string(&self.alice_key)])
    }

    fn sig_blob(&self, signature: &[u8]) -> Vec<u8> {
        cat(&[&string(b"ssh-ed25519"), &string(signature)])
    }

    /// The armored signature with these fields.
    fn armored(&self, fields: Fields) -> String {
        armor_sshsig(&fields.encode())
    }

    fn fields(&self) -> Fields {
        Fields {
            version: 1,
            key: self.key_blob(),
            namespace: b"toolreplay".to_vec(),
            reserved: Vec::new(),
            hash: b"sha512".to_vec(),
            signature: self.sig_blob(&self.raw_signature()),
            trailing: Vec::new(),
        }
    }
}

/// The fields of a blob, written as they are (no check).
struct Fields {
    version: u32,
    key: Vec<u8>,
    namespace: Vec<u8>,
    reserved: Vec<u8>,
    hash: Vec<u8>,
    signature: Vec<u8>,
    trailing: Vec<u8>,
}

impl Fields {
    fn encode(&self) -> Vec<u8> {
        cat(&[
            b"SSHSIG",
            &self.version.to_be_bytes(),
            &string(&self.key),
            &string(&self.namespace),
            &string(&self.reserved),
            &string(&self.hash),
            &string(&self.signature),
            &self.trailing,
        ])
    }
}

/// One case: the signature file, the allowed signers file and the identity.
struct Case {
    name: String,
    signature: String,
    signers: String,
    identity: String,
    /// Why this crate refuses on purpose what ssh-keygen accepts.
    refused_on_purpose: Option<&'static str>,
}

/// L, the order of the ed25519 base point, little-endian.
const ORDER: [u8; 32] = [
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
];

fn signature_cases(m: &Material) -> Vec<Case> {
    let signers = format!("{IDENTITY} {}\n", m.alice_public);
    let raw = m.raw_signature();
    let mut variants: Vec<(&str, String)> = vec![
        ("ssh-keygen, sha512", m.sha512.clone()),
        ("ssh-keygen, sha256", m.sha256.clone()),
        ("re-encoded", m.armored(m.fields())),
    ];
    let mut push = |name: &'static str, fields: Fields| variants.push((name, m.armored(fields)));

    // Versions.
    push(
        "version 0",
        Fields {
            version: 0,
            ..m.fields()
        },
    );
    push(
        "version 2",
        Fields {
            version: 2,
            ..m.fields()
        },
    );
    // The signature blob: its algorithm, lengths, trailing bytes.
    for (name, algorithm) in [
        ("inner algorithm ssh-rsa", &b"ssh-rsa"[..]),
        ("inner algorithm rsa-sha2-512", b"rsa-sha2-512"),
        ("inner algorithm SSH-ED25519", b"SSH-ED25519"),
        ("inner algorithm ed25519", b"ed25519"),
        ("inner algorithm ssh-ed25519 with a NUL", b"ssh-ed25519\0"),
        (
            "inner algorithm ssh-ed25519 with two NULs",
            b"ssh-ed25519\0\0",
        ),
        ("inner algorithm ssh-ed25519x", b"ssh-ed25519x"),
    ] {
        push(
            name,
            Fields {
                signature: cat(&[&string(algorithm), &string(&raw)]),
                ..m.fields()
            },
        );
    }
    push(
        "signature blob with a trailing byte",
        Fields {
            signature: cat(&[&m.sig_blob(&raw), b"\0"]),
            ..m.fields()
        },
    );
    push(
        "signature of 65 bytes",
        Fields {
            signature: m.sig_blob(&cat(&[&raw, b"\0"])),
            ..m.fields()
        },
    );
    push(
        "signature of 63 bytes",
        Fields {
            signature: m.sig_blob(&raw[..63]),
            ..m.fields()
        },
    );
    push(
        "signature length prefix one larger",
        Fields {
            signature: cat(&[&string(b"ssh-ed25519"), &65u32.to_be_bytes(), &raw]),
            ..m.fields()
        },
    );
    push(
        "empty signature blob",
        Fields {
            signature: Vec::new(),
            ..m.fields()
        },
    );
    let mut flipped = raw.clone();
    flipped[10] ^= 1;
    push(
        "a flipped bit",
        Fields {
            signature: m.sig_blob(&flipped),
            ..m.fields()
        },
    );
    // The public key blob.
    for (name, key_type) in [
        ("key type ED25519", &b"ED25519"[..]),
        ("key type ed25519", b"ed25519"),
        ("key type ssh-ed25519 with a NUL", b"ssh-ed25519\0"),
        ("key type ssh-ed25519x", b"ssh-ed25519x"),
        ("key type ssh-rsa", b"ssh-rsa"),
    ] {
        push(
            name,
            Fields {
                key: cat(&[&string(key_type), &string(&m.alice_key)]),
                ..m.fields()
            },
        );
    }
    push(
        "key blob with a trailing byte",
        Fields {
            key: cat(&[&m.key_blob(), b"\0"]),
            ..m.fields()
        },
    );
    push(
        "key length prefix one larger",
        Fields {
            key: cat(&[&string(b"ssh-ed25519"), &33u32.to_be_bytes(), &m.alice_key]),
            ..m.fields()
        },
    );
    push(
        "key of 33 bytes",
        Fields {
            key: cat(&[
                &string(b"ssh-ed25519"),
                &string(&cat(&[&m.alice_key, b"\0"])),
            ]),
            ..m.fields()
        },
    );
    // The outer blob.
    push(
        "blob with a trailing byte",
        Fields {
            trailing: b"\0".to_vec(),
            ..m.fields()
        },
    );
    // The reserved field.
    push(
        "reserved field, signed empty",
        Fields {
            reserved: b"x".to_vec(),
            ..m.fields()
        },
    );
    let digest = SshsigHash::Sha512.digest(MESSAGE);
    let over_reserved = m.sign_data(b"toolreplay", b"x", b"sha512", &digest);
    push(
        "reserved field, signed over it",
        Fields {
            reserved: b"x".to_vec(),
            signature: m.sig_blob(&over_reserved),
            ..m.fields()
        },
    );
    // Namespaces.
    push(
        "namespace with a final NUL",
        Fields {
            namespace: b"toolreplay\0".to_vec(),
            ..m.fields()
        },
    );
    push(
        "namespace with a NUL inside",
        Fields {
            namespace: b"toolreplay\0x".to_vec(),
            ..m.fields()
        },
    );
    let other = m.sign_data(b"file", b"", b"sha512", &digest);
    push(
        "other namespace, signed for it",
        Fields {
            namespace: b"file".to_vec(),
            signature: m.sig_blob(&other),
            ..m.fields()
        },
    );
    // Hash algorithms.
    for (name, hash) in [
        ("hash sha512 with a NUL", &b"sha512\0"[..]),
        ("hash SHA512", b"SHA512"),
        ("hash sha384", b"sha384"),
        ("hash sha256 over a sha512 digest", b"sha256"),
    ] {
        push(
            name,
            Fields {
                hash: hash.to_vec(),
                ..m.fields()
            },
        );
    }
    let other_message = m.sign_data(
        b"toolreplay",
        b"",
        b"sha512",
        &SshsigHash::Sha512.digest(b"another message"),
    );
    push(
        "another message",
        Fields {
            signature: m.sig_blob(&other_message),
            ..m.fields()
        },
    );

    // Armor.
    let good = m.sha512.clone();
    let body = good
        .strip_prefix(SSHSIG_BEGIN)
        .unwrap()
        .strip_suffix(&format!("{}\n", SSHSIG_END))
        .unwrap()
        .to_owned();
    let begin = SSHSIG_BEGIN;
    let end = SSHSIG_END;
    let flat: String = body.split('\n').collect();
    let armor_cases: Vec<(&str, String)> = vec![
        ("CRLF armor", good.replace('\n', "\r\n")),
        (
            "CRLF inside, LF after the first line",
            format!("{begin}{}{end}\r\n", body.replace('\n', "\r\n")),
        ),
        ("a space before the first line", format!(" {good}")),
        ("an LF before the first line", format!("\n{good}")),
        ("text before the first line", format!("signature:\n{good}")),
        ("a byte-order mark", format!("\u{feff}{good}")),
        ("text after the last line", format!("{good}trailing text\n")),
        ("no LF at the end", good.trim_end_matches('\n').to_owned()),
        (
            "text glued to the end line",
            format!("{good}x").replace(&format!("{end}\nx"), &format!("{end}x")),
        ),
        ("no end line", format!("{begin}{body}")),
        (
            "end line not after an LF",
            format!("{begin}{}{end}\n", body.trim_end_matches('\n')),
        ),
        (
            "lowercase first line",
            good.replace("BEGIN SSH", "begin ssh"),
        ),
        (
            "a space at the end of the first line",
            good.replacen("-----\n", "----- \n", 1),
        ),
        ("base64 in one line", format!("{begin}{flat}\n{end}\n")),
        (
            "base64 with spaces and tabs",
            format!("{begin}{}{end}\n", body.replace('\n', " \t\n")),
        ),
        (
            "base64 with a vertical tab and a form feed",
            format!("{begin}{}{end}\n", body.replacen('\n', "\u{b}\n\u{c}", 1)),
        ),
        (
            "base64 with a vertical tab before the end line",
            format!("{begin}{body}\u{b}{end}\n"),
        ),
        (
            "base64 with a NUL at its end",
            format!("{begin}{}\0\n{end}\n", body.trim_end_matches('\n')),
        ),
        (
            "base64 with a NUL inside",
            format!("{begin}\0{body}{end}\n"),
        ),
        (
            "base64 with a stray character",
            format!("{begin}!{body}{end}\n"),
        ),
        (
            "base64 with an empty line",
            format!("{begin}\n{body}{end}\n"),
        ),
        ("empty base64", format!("{begin}\n{end}\n")),
    ];
    variants.extend(armor_cases);
    // Padding: a blob whose length is not a multiple of 3, with its padding changed.
    // (A one-byte reserved field, signed empty, makes the blob 181 bytes long.)
    let padded = {
        let blob = Fields {
            reserved: b"r".to_vec(),
            ..m.fields()
        }
        .encode();
        assert_eq!(blob.len() % 3, 1);
        armor_sshsig(&blob)
    };
    let unpadded = padded.replace("==\n", "\n");
    let nonzero = {
        // The last character before "==" carries four bits of padding.
        let at = padded.find("==\n").unwrap() - 1;
        let mut bytes = padded.clone().into_bytes();
        bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
        String::from_utf8(bytes).unwrap()
    };
    variants.push(("padded blob", padded.clone()));
    variants.push(("padding left out", unpadded));
    variants.push(("padding bits not zero", nonzero));
    variants.push(("padding split by a space", padded.replace("==\n", "= =\n")));
    variants.push(("one = of two", padded.replace("==\n", "=\n")));
    variants.push(("data after padding", padded.replace("==\n", "==AAAA\n")));

    // Malleability: S + L, accepted by OpenSSH's ed25519 (it checks only the top
    // three bits of S).
    let mut malleated = raw.clone();
    let mut carry = 0u16;
    for i in 0..32 {
        let sum = u16::from(malleated[32 + i]) + u16::from(ORDER[i]) + carry;
        malleated[32 + i] = sum as u8;
        carry = sum >> 8;
    }
    let mut cases: Vec<Case> = variants
        .into_iter()
        .map(|(name, signature)| Case {
            name: format!("signature: {name}"),
            signature,
            signers: signers.clone(),
            identity: IDENTITY.to_owned(),
            refused_on_purpose: None,
        })
        .collect();
    if malleated[63] & 0xe0 == 0 {
        cases.push(Case {
            name: "signature: S + L".to_owned(),
            signature: m.armored(Fields {
                signature: m.sig_blob(&malleated),
                ..m.fields()
            }),
            signers: signers.clone(),
            identity: IDENTITY.to_owned(),
            refused_on_purpose: Some("ed25519 is verified strictly: a non-canonical S is refused"),
        });
    }
    cases
}

fn signers_cases(m: &Material) -> Vec<Case> {
    let alice = &m.alice_public;
    let bob = &m.bob_public;
    let long = "x".repeat(1022);
    let longer = "x".repeat(1023);
    let ed_upper_key = {
        let blob = cat(&[&string(b"ED25519"), &string(&m.alice_key)]);
        let text = base64_encode_wrapped(&blob);
        format!("ssh-ed25519 {}", text.trim_end())
    };
    let key_trailing = {
        let blob = cat(&[&m.key_blob(), b"\0"]);
        format!("ssh-ed25519 {}", base64_encode_wrapped(&blob).trim_end())
    };
    let alice_blob = alice.split(' ').nth(1).unwrap();
    let a2000 = "a".repeat(2000);
    let rows: Vec<(&str, String, &str)> = vec![
        // Principals.
        ("exact", format!("alice@example.com {alice}"), IDENTITY),
        (
            "other principal",
            format!("bob@example.com {alice}"),
            IDENTITY,
        ),
        ("other case", format!("Alice@example.com {alice}"), IDENTITY),
        ("star", format!("*@example.com {alice}"), IDENTITY),
        ("star alone", format!("* {alice}"), IDENTITY),
        (
            "question mark",
            format!("?lice@example.com {alice}"),
            IDENTITY,
        ),
        (
            "two question marks for one letter",
            format!("??lice@example.com {alice}"),
            IDENTITY,
        ),
        ("negated", format!("!alice@example.com,* {alice}"), IDENTITY),
        (
            "negated after",
            format!("*,!alice@example.com {alice}"),
            IDENTITY,
        ),
        (
            "negated other",
            format!("!bob@example.com,* {alice}"),
            IDENTITY,
        ),
        (
            "negated only",
            format!("!bob@example.com {alice}"),
            IDENTITY,
        ),
        (
            "list",
            format!("bob@example.com,alice@example.com {alice}"),
            IDENTITY,
        ),
        (
            "trailing comma",
            format!("alice@example.com, {alice}"),
            IDENTITY,
        ),
        (
            "leading comma",
            format!(",alice@example.com {alice}"),
            IDENTITY,
        ),
        (
            "empty sub-pattern",
            format!("bob,,alice@example.com {alice}"),
            IDENTITY,
        ),
        (
            "multi-byte, one ?",
            format!("?@example.com {alice}"),
            "é@example.com",
        ),
        (
            "multi-byte, two ?",
            format!("??@example.com {alice}"),
            "é@example.com",
        ),
        (
            "multi-byte, negated one ?",
            format!("!?@example.com,* {alice}"),
            "é@example.com",
        ),
        (
            "multi-byte, negated two ?",
            format!("!??@example.com,* {alice}"),
            "é@example.com",
        ),
        (
            "multi-byte exact",
            format!("é@example.com {alice}"),
            "é@example.com",
        ),
        (
            "multi-byte, three-byte character",
            format!("!???@example.com,* {alice}"),
            "€@example.com",
        ),
        (
            "multi-byte, one ? for a three-byte character",
            format!("!?@example.com,* {alice}"),
            "€@example.com",
        ),
        (
            "sub-pattern of 1022 bytes",
            format!("{long},alice@example.com {alice}"),
            IDENTITY,
        ),
        (
            "sub-pattern of 1023 bytes after",
            format!("alice@example.com,{longer} {alice}"),
            IDENTITY,
        ),
        (
            "sub-pattern of 1023 bytes before",
            format!("{longer},alice@example.com {alice}"),
            IDENTITY,
        ),
        (
            "negated sub-pattern of 1023 bytes",
            format!("!{longer},* {alice}"),
            IDENTITY,
        ),
        (
            "negated sub-pattern of 1022 bytes",
            format!("!{long},* {alice}"),
            IDENTITY,
        ),
        (
            "star after 1021 bytes",
            format!("{}* {alice}", "a".repeat(1021)),
            &a2000,
        ),
        (
            "star after 1022 bytes",
            format!("{}* {alice}", "a".repeat(1022)),
            &a2000,
        ),
        (
            "identity of 2000 bytes",
            format!("{} {alice}", "a".repeat(2000)),
            &a2000,
        ),
        ("empty identity, star", format!("* {alice}"), ""),
        (
            "empty identity, empty principals",
            format!("\"\" {alice}"),
            "",
        ),
        ("empty identity, leading comma", format!(",bob {alice}"), ""),
        // Quotes.
        ("quoted", format!("\"alice@example.com\" {alice}"), IDENTITY),
        (
            "quoted list",
            format!("\"bob,alice@example.com\" {alice}"),
            IDENTITY,
        ),
        (
            "quoted with a space",
            format!("\"alice@example.com bob\" {alice}"),
            IDENTITY,
        ),
        (
            "quotes inside",
            format!("al\"ice@exa\"mple.com {alice}"),
            IDENTITY,
        ),
        (
            "quote at the end",
            format!("alice@example.com\"\" {alice}"),
            IDENTITY,
        ),
        (
            "unterminated quote",
            format!("\"alice@example.com {alice}"),
            IDENTITY,
        ),
        (
            "text glued after the quote",
            format!("\"alice@example.com\"{alice}"),
            IDENTITY,
        ),
        (
            "quoted identity with quotes",
            format!("\"a\"lice@example.com {alice}"),
            IDENTITY,
        ),
        // Whitespace and comments.
        (
            "leading spaces",
            format!("   alice@example.com {alice}"),
            IDENTITY,
        ),
        (
            "leading tab",
            format!("\talice@example.com\t{alice}"),
            IDENTITY,
        ),
        (
            "tab in the key",
            format!("alice@example.com ssh-ed25519\t{alice_blob}"),
            IDENTITY,
        ),
        (
            "several spaces",
            format!("alice@example.com    ssh-ed25519     {alice_blob}   comment here"),
            IDENTITY,
        ),
        ("CR LF", format!("alice@example.com {alice}\r"), IDENTITY),
        (
            "CR after principals",
            format!("alice@example.com\r{alice}"),
            IDENTITY,
        ),
        (
            "CR inside key type",
            format!("alice@example.com ssh-ed25519\r{alice_blob}"),
            IDENTITY,
        ),
        (
            "CR inside blob",
            format!(
                "alice@example.com ssh-ed25519 {}\r{}",
                &alice_blob[..20],
                &alice_blob[20..]
            ),
            IDENTITY,
        ),
        ("comment", format!("# alice@example.com {alice}"), IDENTITY),
        (
            "indented comment",
            format!("  #alice@example.com {alice}"),
            IDENTITY,
        ),
        (
            "key comment",
            format!("alice@example.com {alice} alice's laptop"),
            IDENTITY,
        ),
        (
            "NUL after key",
            format!("alice@example.com {alice}\0 junk"),
            IDENTITY,
        ),
        (
            "NUL in principals",
            format!("alice@example.com\0 {alice}"),
            IDENTITY,
        ),
        // Keys.
        ("other key", format!("alice@example.com {bob}"), IDENTITY),
        (
            "blob type ED25519",
            format!("alice@example.com {ed_upper_key}"),
            IDENTITY,
        ),
        (
            "key blob with a trailing byte",
            format!("alice@example.com {key_trailing}"),
            IDENTITY,
        ),
        (
            "key type mismatch",
            format!("alice@example.com ssh-rsa {alice_blob}"),
            IDENTITY,
        ),
        (
            "key type in upper case",
            format!("alice@example.com SSH-ED25519 {alice_blob}"),
            IDENTITY,
        ),
        ("no key", "alice@example.com".to_owned(), IDENTITY),
        (
            "truncated key",
            format!("alice@example.com ssh-ed25519 {}", &alice_blob[..40]),
            IDENTITY,
        ),
        // Options.
        (
            "namespaces",
            format!("alice@example.com namespaces=\"toolreplay\" {alice}"),
            IDENTITY,
        ),
        (
            "namespaces upper-case name",
            format!("alice@example.com NAMESPACES=\"toolreplay\" {alice}"),
            IDENTITY,
        ),
        (
            "namespaces other",
            format!("alice@example.com namespaces=\"git,file\" {alice}"),
            IDENTITY,
        ),
        (
            "namespaces pattern",
            format!("alice@example.com namespaces=\"tool*\" {alice}"),
            IDENTITY,
        ),
        (
            "namespaces negated",
            format!("alice@example.com namespaces=\"!toolreplay,*\" {alice}"),
            IDENTITY,
        ),
        (
            "namespaces in other case",
            format!("alice@example.com namespaces=\"TOOLREPLAY\" {alice}"),
            IDENTITY,
        ),
        (
            "namespaces with a space",
            format!("alice@example.com namespaces=\"git, toolreplay\" {alice}"),
            IDENTITY,
        ),
        (
            "namespaces twice",
            format!(
                "alice@example.com namespaces=\"toolreplay\",namespaces=\"toolreplay\" {alice}"
            ),
            IDENTITY,
        ),
        (
            "namespaces unquoted",
            format!("alice@example.com namespaces=toolreplay {alice}"),
            IDENTITY,
        ),
        (
            "namespaces escaped quote",
            format!("alice@example.com namespaces=\"x\\\"y,toolreplay\" {alice}"),
            IDENTITY,
        ),
        (
            "namespaces of 1023 bytes",
            format!("alice@example.com namespaces=\"toolreplay,{longer}\" {alice}"),
            IDENTITY,
        ),
        (
            "cert-authority",
            format!("alice@example.com cert-authority {alice}"),
            IDENTITY,
        ),
        (
            "cert-authority upper case",
            format!("alice@example.com CERT-AUTHORITY {alice}"),
            IDENTITY,
        ),
        (
            "leading comma in options",
            format!("alice@example.com ,namespaces=\"toolreplay\" {alice}"),
            IDENTITY,
        ),
        (
            "trailing comma in options",
            format!("alice@example.com namespaces=\"toolreplay\", {alice}"),
            IDENTITY,
        ),
        (
            "unknown option",
            format!("alice@example.com no-touch-required {alice}"),
            IDENTITY,
        ),
        (
            "option glued to a flag",
            format!("alice@example.com cert-authorityx {alice}"),
            IDENTITY,
        ),
        (
            "valid-after past",
            format!("alice@example.com valid-after=\"20200101Z\" {alice}"),
            IDENTITY,
        ),
        (
            "valid-after past UTC",
            format!("alice@example.com valid-after=\"202001011230utc\" {alice}"),
            IDENTITY,
        ),
        (
            "valid-after future",
            format!("alice@example.com valid-after=\"20990101Z\" {alice}"),
            IDENTITY,
        ),
        (
            "valid-before past",
            format!("alice@example.com valid-before=\"20200101000000Z\" {alice}"),
            IDENTITY,
        ),
        (
            "valid-before future",
            format!("alice@example.com valid-before=\"20990101Z\" {alice}"),
            IDENTITY,
        ),
        (
            "valid window",
            format!(
                "alice@example.com valid-after=\"20200101Z\",valid-before=\"20990101Z\" {alice}"
            ),
            IDENTITY,
        ),
        (
            "valid window reversed",
            format!(
                "alice@example.com valid-after=\"20990101Z\",valid-before=\"20200101Z\" {alice}"
            ),
            IDENTITY,
        ),
        (
            "valid-after twice",
            format!(
                "alice@example.com valid-after=\"20200101Z\",valid-after=\"20200101Z\" {alice}"
            ),
            IDENTITY,
        ),
        (
            "valid-after bad month",
            format!("alice@example.com valid-after=\"20201301Z\" {alice}"),
            IDENTITY,
        ),
        (
            "valid-after 31 February",
            format!("alice@example.com valid-after=\"20200231Z\" {alice}"),
            IDENTITY,
        ),
        (
            "valid-after short",
            format!("alice@example.com valid-after=\"2020Z\" {alice}"),
            IDENTITY,
        ),
        (
            "valid-after epoch",
            format!("alice@example.com valid-after=\"19700101Z\" {alice}"),
            IDENTITY,
        ),
        (
            "valid-after before the epoch",
            format!("alice@example.com valid-after=\"19600101Z\" {alice}"),
            IDENTITY,
        ),
        (
            "valid-after with a space",
            format!("alice@example.com valid-after=\"2020 101Z\" {alice}"),
            IDENTITY,
        ),
        (
            "valid-after letters",
            format!("alice@example.com valid-after=\"2020AB01Z\" {alice}"),
            IDENTITY,
        ),
        (
            "valid-before far future",
            format!("alice@example.com valid-before=\"99991231235961Z\" {alice}"),
            IDENTITY,
        ),
        // Several lines.
        (
            "bad line, then a good one",
            format!("alice@example.com bogus {alice}\nalice@example.com {alice}"),
            IDENTITY,
        ),
        (
            "other key, then the key",
            format!("alice@example.com {bob}\n*@example.com {alice}"),
            IDENTITY,
        ),
        (
            "other namespace, then any",
            format!("alice@example.com namespaces=\"git\" {alice}\nalice@example.com {alice}"),
            IDENTITY,
        ),
        (
            "unterminated quote, then a good line",
            format!("\"bob {alice}\nalice@example.com {alice}"),
            IDENTITY,
        ),
        (
            "empty lines around",
            format!("\n\n\nalice@example.com {alice}\n\n"),
            IDENTITY,
        ),
    ];
    let mut cases: Vec<Case> = rows
        .into_iter()
        .map(|(name, signers, identity)| Case {
            name: format!("allowed signers: {name}"),
            signature: m.sha512.clone(),
            signers: format!("{signers}\n"),
            identity: identity.to_owned(),
            refused_on_purpose: None,
        })
        .collect();
    cases.push(Case {
        name: "allowed signers: valid-after in local time".to_owned(),
        signature: m.sha512.clone(),
        signers: format!("alice@example.com valid-after=\"20200101\" {alice}\n"),
        identity: IDENTITY.to_owned(),
        refused_on_purpose: Some("a time without a time zone is not guessed"),
    });
    cases
}

/// ssh-keygen's decision on `case`: whether it accepts the signature.
fn ssh_keygen_accepts(m: &Material, case: &Case) -> bool {
    fs::write(m.dir.path("case.sig"), &case.signature).unwrap();
    fs::write(m.dir.path("case_signers"), &case.signers).unwrap();
    let (code, _, _) = ssh_keygen(
        &m.dir.0,
        &[
            "-Y",
            "verify",
            "-f",
            "case_signers",
            "-I",
            &case.identity,
            "-n",
            "toolreplay",
            "-s",
            "case.sig",
        ],
        MESSAGE,
    );
    code == 0
}

#[test]
fn check_decides_as_ssh_keygen_verify_on_a_generated_table() {
    let m = Material::new();
    let mut cases = signature_cases(&m);
    cases.extend(signers_cases(&m));
    let mut report = String::new();
    let (mut accepted, mut refused) = (0, 0);
    for case in &cases {
        let theirs = ssh_keygen_accepts(&m, case);
        let verdict = check_signature(&case.signature, &case.signers, &case.identity, MESSAGE);
        let ours = matches!(verdict, Ok(ref v) if v.is_good());
        if theirs {
            accepted += 1;
        } else {
            refused += 1;
        }
        let expected = match case.refused_on_purpose {
            None => theirs,
            Some(why) => {
                if !theirs {
                    report.push_str(&format!(
                        "{}: ssh-keygen refuses it now, yet it is listed as refused on purpose ({why})\n",
                        case.name
                    ));
                }
                false
            }
        };
        if ours != expected {
            report.push_str(&format!(
                "{}: ssh-keygen {}, we {} ({verdict:?})\n",
                case.name,
                if theirs { "accepts" } else { "refuses" },
                if ours { "accept" } else { "refuse" },
            ));
        }
    }
    assert!(
        report.is_empty(),
        "decisions differ from ssh-keygen's:\n{report}"
    );
    // The table covers both decisions, many times over.
    assert!(
        accepted >= 40 && refused >= 60,
        "{accepted} accepted, {refused} refused"
    );
}
