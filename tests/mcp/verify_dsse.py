"""Verifies a DSSE envelope written by `toolreplay attest`, independently of it.

    python verify_dsse.py ENVELOPE KEY.pub

The envelope is read and checked by securesystemslib's DSSE implementation
(`Envelope.from_dict`, `Envelope.verify`); the ed25519 or ECDSA P-256 public key is
loaded from the OpenSSH public key file by `cryptography` (`load_ssh_public_key`),
and its key id,
the SHA-256 fingerprint as `ssh-keygen -l` prints it, is computed here from the
key's bytes. Prints `verified: KEYID PREDICATE_TYPE SUBJECT SHA256` and exits 0, or
`not verified: ERROR` and exits 1.
"""

import base64
import hashlib
import json
import sys

from cryptography.hazmat.primitives.serialization import load_ssh_public_key
from securesystemslib.dsse import Envelope
from securesystemslib.signer import SSlibKey


def fingerprint(public_line: bytes) -> str:
    blob = base64.b64decode(public_line.split()[1])
    digest = base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")
    return f"SHA256:{digest}"


def main() -> int:
    envelope_path, public_path = sys.argv[1], sys.argv[2]
    with open(public_path, "rb") as f:
        public_line = f.read()
    keyid = fingerprint(public_line)
    key = SSlibKey.from_crypto(load_ssh_public_key(public_line), keyid=keyid)
    try:
        with open(envelope_path, encoding="utf-8") as f:
            envelope = Envelope.from_dict(json.load(f))
        envelope.verify([key], 1)
        if envelope.payload_type != "application/vnd.in-toto+json":
            raise ValueError(f"payload type {envelope.payload_type}")
        statement = json.loads(envelope.payload)
    except Exception as err:  # noqa: BLE001 - any failure is a failed verification
        print(f"not verified: {type(err).__name__}")
        return 1
    subject = statement["subject"][0]
    print(
        "verified:",
        keyid,
        statement["predicateType"],
        subject["name"],
        subject["digest"]["sha256"],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
