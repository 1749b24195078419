//! `toolreplay sign SEALED --key KEY`: checks the chain, then writes the SSHSIG
//! signature of its head statement to `SEALED.sig`, atomically.

use std::ffi::OsString;
use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};

use toolreplay_core::input::InputError;
use toolreplay_core::{
    SigningKey as Key, SigningKeyError as KeyError, Threads, head_statement, sign_message,
};

use crate::error::Error;
use crate::input::{self, display as shown};
use crate::output::atomic::AtomicFile;
use crate::printer::Status;

/// The environment variable that holds the passphrase of an encrypted key.
pub(super) const PASSPHRASE_VAR: &str = "TOOLREPLAY_KEY_PASSPHRASE";

/// The largest key, signature or allowed signers file read, in bytes.
pub(super) const MAX_FILE_BYTES: u64 = 1 << 20;

/// What a key, signature or allowed signers file may not exceed.
pub(super) const MAX_FILE_WHAT: &str = "1 MiB";

fn invalid(path: &Path, message: impl Into<String>) -> Error {
    Error::Input(InputError::Invalid {
        path: shown(path),
        message: message.into(),
    })
}

/// Reads the OpenSSH ed25519 private key at `path`, decrypting it with the
/// passphrase from `TOOLREPLAY_KEY_PASSPHRASE` or, when that is not set and stdin is
/// a terminal, one asked for on the terminal.
pub(super) fn read_key(path: &Path) -> Result<Key, Error> {
    let key = read_decrypted_key(path)?;
    key.usable()
        .map_err(|err: KeyError| invalid(path, err.to_string()))
}

/// Reads the OpenSSH private key at `path` of any algorithm, decrypted as
/// [`read_key`] decrypts it (`attest` signs with ECDSA keys too).
pub(super) fn read_decrypted_key(path: &Path) -> Result<Key, Error> {
    let text = super::read_text(path, MAX_FILE_BYTES, MAX_FILE_WHAT)?;
    let key_error = |err: KeyError| invalid(path, err.to_string());
    let key = Key::parse(&text).map_err(key_error)?;
    let key = if key.is_encrypted() {
        let passphrase = match std::env::var(PASSPHRASE_VAR) {
            Ok(passphrase) => passphrase,
            Err(_) if std::io::stdin().is_terminal() => {
                rpassword::prompt_password(format!("Enter passphrase for {}: ", shown(path)))
                    .map_err(|source| {
                        Error::Input(InputError::Read {
                            path: "the terminal".to_owned(),
                            source,
                        })
                    })?
            }
            Err(_) => {
                return Err(invalid(
                    path,
                    format!(
                        "the key is encrypted: set {PASSPHRASE_VAR} or run on a terminal to be asked for its passphrase"
                    ),
                ));
            }
        };
        key.decrypt(passphrase.as_bytes()).map_err(key_error)?
    } else {
        key
    };
    Ok(key)
}

/// The signature file of `sealed`: its path with `.sig` appended.
fn signature_path(sealed: &Path) -> PathBuf {
    let mut name = OsString::from(sealed.as_os_str());
    name.push(".sig");
    PathBuf::from(name)
}

/// `toolreplay sign SEALED --key KEY`.
pub(super) fn run(path: &Path, key_path: &Path, threads: Threads) -> Result<Status, Error> {
    if input::is_stdin(path) {
        return Err(Error::Usage(
            "sign writes SEALED.sig beside the sealed transcript, so SEALED must be a file, not -"
                .to_owned(),
        ));
    }
    let head = super::head::or_refuse(
        &super::head::check(path, None, threads)?,
        path,
        "nothing was signed",
    )?;
    let key = read_key(key_path)?;
    let armored = sign_message(&key, head_statement(&head).as_bytes())
        .map_err(|err| invalid(key_path, err.to_string()))?;
    let target = signature_path(path);
    let write_error = |source| Error::writing(&target, source);
    let mut file = AtomicFile::new(&target).map_err(write_error)?;
    file.file()
        .write_all(armored.as_bytes())
        .map_err(write_error)?;
    file.commit().map_err(write_error)?;
    Ok(Status::Clean)
}
