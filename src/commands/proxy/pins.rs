//! Pinned tool definitions: the digest of each tool's definition as listed, kept in a
//! pin file the way a lockfile keeps dependencies. A session that starts without the
//! file (or with `--repin`) pins what the server lists; a session that starts with it
//! refuses a tool whose definition changed and a tool that is not pinned: it is taken
//! out of `tools/list` and its calls are denied.
//!
//! A pin file of version 2, as written now, pins every member of a definition but
//! `_meta`; one of version 1 pinned only the name, the description and the input
//! schema, and is still read and checked so.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Read as _, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use toolreplay_core::Value;
use toolreplay_core::encode_canonical;
use toolreplay_core::input::InputError;
use toolreplay_core::quote_name;

use super::wire::get;
use crate::error::{Error, describe_io};
use crate::output::atomic::AtomicFile;

/// The version of the pin files written.
const VERSION: u32 = 2;

/// The pin file: `{"instructions": DIGEST, "toolreplay_pins": 2, "tools": {NAME:
/// DIGEST, ...}}`, `instructions` only when the server gave instructions.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PinFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    instructions: Option<String>,
    toolreplay_pins: u32,
    tools: BTreeMap<String, String>,
}

/// The pins of one session.
#[derive(Debug)]
pub(super) struct Pins {
    path: PathBuf,
    /// Whether definitions seen are pinned (no pin file at the start, or --repin),
    /// rather than checked against the file.
    pinning: bool,
    pinned: BTreeMap<String, String>,
    /// The digest of the server's instructions, when pinned.
    instructions: Option<String>,
    /// The version of the pins: how a definition's digest is made.
    version: u32,
    /// Whether the session was told that its pin file is of an earlier version.
    told_version: bool,
    /// The tools refused by the latest listing that named them, and why.
    refused: HashMap<String, String>,
}

/// What checking one `tools/list` result did.
#[derive(Debug, Default)]
pub(super) struct Checked {
    /// The result with the refused tools taken out, when any was.
    pub result: Option<Value>,
    /// What to tell the user on stderr.
    pub notes: Vec<String>,
}

/// The digest a tool's definition is pinned by, in pins of `version`: SHA-256 of the
/// canonical encoding of the definition without its member `_meta` (version 2), or
/// of `{"description": D, "inputSchema": S, "name": N}`, a missing member as `null`
/// (version 1).
pub(super) fn definition_digest(tool: &Value, version: u32) -> String {
    let definition = match (version, tool) {
        (1, _) => {
            let member = |key| get(tool, key).cloned().unwrap_or(Value::Null);
            Value::object([
                ("description", member("description")),
                ("inputSchema", member("inputSchema")),
                ("name", member("name")),
            ])
        }
        (_, Value::Object(members)) => Value::Object(
            members
                .iter()
                .filter(|(key, _)| key != "_meta")
                .cloned()
                .collect(),
        ),
        (_, other) => other.clone(),
    };
    hex::encode(Sha256::digest(encode_canonical(&definition)))
}

/// The largest pin file read, in bytes.
const MAX_PIN_BYTES: u64 = 16 << 20;

impl Pins {
    /// The pins in `path`; with `repin`, or when there is no such file, a session
    /// that pins afresh (the file is written when the server lists its tools).
    pub(super) fn open(path: &Path, repin: bool) -> Result<Pins, Error> {
        let mut pins = Pins {
            path: path.to_owned(),
            pinning: true,
            pinned: BTreeMap::new(),
            instructions: None,
            version: VERSION,
            told_version: false,
            refused: HashMap::new(),
        };
        if repin {
            return Ok(pins);
        }
        let mut bytes = Vec::new();
        let read = std::fs::File::open(path)
            .and_then(|file| io::Read::take(file, MAX_PIN_BYTES + 1).read_to_end(&mut bytes));
        match read {
            Ok(_) => {}
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(pins),
            Err(source) => {
                return Err(Error::Input(InputError::Read {
                    path: path.display().to_string(),
                    source,
                }));
            }
        }
        let invalid = |message: String| {
            Error::Input(InputError::Invalid {
                path: path.display().to_string(),
                message,
            })
        };
        if bytes.len() as u64 > MAX_PIN_BYTES {
            return Err(invalid(format!("larger than {} MiB", MAX_PIN_BYTES >> 20)));
        }
        let file: PinFile = serde_json::from_slice(&bytes)
            .map_err(|err| invalid(format!("not a pin file: {err}")))?;
        if !(1..=VERSION).contains(&file.toolreplay_pins) {
            return Err(invalid(format!(
                "pin file version {}, this toolreplay reads versions 1 and 2",
                file.toolreplay_pins
            )));
        }
        if file
            .instructions
            .as_deref()
            .is_some_and(|digest| !is_digest(digest))
        {
            return Err(invalid(
                "the pin of the instructions is not a SHA-256 digest (64 lowercase hex digits)"
                    .to_owned(),
            ));
        }
        if let Some((name, _)) = file.tools.iter().find(|(_, digest)| !is_digest(digest)) {
            return Err(invalid(format!(
                "the pin of tool {} is not a SHA-256 digest (64 lowercase hex digits)",
                quote_name(name)
            )));
        }
        pins.pinning = false;
        pins.pinned = file.tools;
        pins.instructions = file.instructions;
        pins.version = file.toolreplay_pins;
        Ok(pins)
    }

    /// Checks the tools of a `tools/list` result: pins the new ones when pinning,
    /// refuses the changed ones (and, when not pinning, the new ones).
    pub(super) fn check_listing(&mut self, result: &Value) -> Checked {
        let mut checked = Checked::default();
        let Some(Value::Array(tools)) = get(result, "tools") else {
            return checked;
        };
        if self.version < VERSION && !self.told_version {
            self.told_version = true;
            checked.notes.push(format!(
                "{} is a pin file of version {}: it pins each tool's name, description and input schema only; re-pin (--repin) to pin every member of the definitions but _meta",
                self.path.display(),
                self.version
            ));
        }
        let mut kept = Vec::with_capacity(tools.len());
        let mut added = false;
        for tool in tools {
            let Some(Value::Str(name)) = get(tool, "name") else {
                checked
                    .notes
                    .push("tools/list: a tool without a string \"name\" was taken out".to_owned());
                continue;
            };
            let digest = definition_digest(tool, self.version);
            let refusal = match self.pinned.get(name) {
                Some(pinned) if *pinned == digest => None,
                Some(_) => Some(format!(
                    "the definition of tool {} ({}) changed since it was pinned in {}",
                    quote_name(name),
                    match self.version {
                        1 => "its description or input schema",
                        _ => "a member of it other than _meta",
                    },
                    self.path.display()
                )),
                None if self.pinning => {
                    self.pinned.insert(name.clone(), digest);
                    added = true;
                    None
                }
                None => Some(format!(
                    "tool {} is not pinned in {}",
                    quote_name(name),
                    self.path.display()
                )),
            };
            match refusal {
                None => {
                    self.refused.remove(name);
                    kept.push(tool.clone());
                }
                Some(why) => {
                    checked
                        .notes
                        .push(format!("tools/list: {why}: taken out of the list"));
                    self.refused.insert(name.clone(), why);
                }
            }
        }
        if kept.len() != tools.len() {
            let mut result = result.clone();
            if let Value::Object(members) = &mut result {
                for (key, value) in members.iter_mut() {
                    if key == "tools" {
                        *value = Value::Array(kept);
                        break;
                    }
                }
            }
            checked.result = Some(result);
        }
        if added {
            match self.write() {
                Ok(()) => checked.notes.push(format!(
                    "pinned {} tool definitions in {}",
                    self.pinned.len(),
                    self.path.display()
                )),
                Err(err) => checked.notes.push(format!(
                    "cannot write the pin file {}: {}",
                    self.path.display(),
                    describe_io(&err)
                )),
            }
        }
        checked
    }

    /// Checks the `instructions` of an `initialize` (or `server/discover`) result:
    /// pins them when pinning and none were pinned; instructions other than the
    /// pinned ones (or none pinned, when checking) are taken out of the result.
    /// Pins of version 1 do not cover instructions.
    pub(super) fn check_instructions(&mut self, result: &Value) -> Checked {
        let mut checked = Checked::default();
        let Some(instructions) = get(result, "instructions") else {
            return checked;
        };
        if self.version < VERSION {
            return checked;
        }
        let digest = hex::encode(Sha256::digest(encode_canonical(instructions)));
        let refusal = match &self.instructions {
            Some(pinned) if *pinned == digest => None,
            Some(_) => Some(format!(
                "the server's instructions changed since they were pinned in {}",
                self.path.display()
            )),
            None if self.pinning => {
                self.instructions = Some(digest);
                match self.write() {
                    Ok(()) => checked.notes.push(format!(
                        "pinned the server's instructions in {}",
                        self.path.display()
                    )),
                    Err(err) => checked.notes.push(format!(
                        "cannot write the pin file {}: {}",
                        self.path.display(),
                        describe_io(&err)
                    )),
                }
                None
            }
            None => Some(format!(
                "the server's instructions are not pinned in {}",
                self.path.display()
            )),
        };
        if let Some(why) = refusal {
            checked.notes.push(format!(
                "{why}: taken out of the result; review them and re-pin (toolreplay proxy --repin) to allow them"
            ));
            if let Value::Object(members) = result {
                checked.result = Some(Value::Object(
                    members
                        .iter()
                        .filter(|(key, _)| key != "instructions")
                        .cloned()
                        .collect(),
                ));
            }
        }
        checked
    }

    /// Why a call to `tool` is refused, if it is.
    pub(super) fn refusal(&self, tool: &str) -> Option<String> {
        if let Some(why) = self.refused.get(tool) {
            return Some(format!(
                "{why}; review it and re-pin (toolreplay proxy --repin) to allow it"
            ));
        }
        if !self.pinning && !self.pinned.contains_key(tool) {
            return Some(format!(
                "tool {} is not pinned in {}; review it and re-pin (toolreplay proxy --repin) to allow it",
                quote_name(tool),
                self.path.display()
            ));
        }
        None
    }

    fn write(&self) -> io::Result<()> {
        let file = PinFile {
            instructions: self.instructions.clone(),
            toolreplay_pins: self.version,
            tools: self.pinned.clone(),
        };
        let mut text = serde_json::to_vec_pretty(&file).map_err(io::Error::other)?;
        text.push(b'\n');
        let mut out = AtomicFile::new(&self.path)?;
        out.file().write_all(&text)?;
        out.commit()
    }
}

fn is_digest(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
