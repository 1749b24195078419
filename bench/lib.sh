# Shared by the bench scripts: `source "$here/lib.sh"` after setting `repo`.

# Builds the working tree's release binary and prints its path (in cargo's target
# directory, wherever CARGO_TARGET_DIR or the configuration puts it); fails when the
# build does, so call it as `BIN=$(built_binary)` for `set -e` to stop the script.
built_binary() {
    (cd "$repo" && cargo build --release --locked) >&2 || return 1
    local target_dir
    target_dir=$(cd "$repo" && cargo metadata --format-version 1 --no-deps |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])') || return 1
    echo "$target_dir/release/toolreplay"
}
