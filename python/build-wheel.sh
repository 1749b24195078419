#!/usr/bin/env bash
# Builds the wheel of the Python package into python/dist/: the release `toolreplay`
# binary first (shipped in the wheel as the `toolreplay` command), then the
# extension module with maturin (which must be on PATH, e.g. in a virtual
# environment: pip install maturin). PROFILE (default wheel, see Cargo.toml) is the extension's
# cargo profile.
set -euo pipefail
cd "$(dirname "$0")"
cargo build --locked --release --bin toolreplay --manifest-path ../Cargo.toml
mkdir -p toolreplay/bin
cp ../target/release/toolreplay toolreplay/bin/toolreplay
maturin build --locked --profile "${PROFILE:-wheel}" --out dist
