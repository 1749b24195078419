#!/usr/bin/env bash
# Builds the wheel of the Python package into python/dist/: the release `toolreplay`
# binary first (shipped in the wheel as the `toolreplay` command), then the
# extension module with maturin (which must be on PATH, e.g. in a virtual
# environment: pip install maturin). PROFILE (default wheel, see Cargo.toml) is the extension's
# cargo profile. The binary is put in `toolreplay/bin/` for this build only and
# removed after it, whatever its outcome: a later plain `pip install ./python` must
# not ship a binary left behind (its script runs the command line in the extension).
set -euo pipefail
cd "$(dirname "$0")"
cargo build --locked --release --bin toolreplay --manifest-path ../Cargo.toml
trap 'rm -rf toolreplay/bin' EXIT
mkdir -p toolreplay/bin
cp ../target/release/toolreplay toolreplay/bin/toolreplay
maturin build --locked --profile "${PROFILE:-wheel}" --out dist
