#!/usr/bin/env bash
# Builds commit REV of this repository for SPRT runs and prints the binary's
# path: target/sprt/<sha>/archivist, built once from `git archive` of REV
# (no worktree to clean up) with the same RUSTFLAGS as the working tree's
# build, sharing target/sprt/target so dependencies compile once.
# Usage: tools/sprt_base.sh REV
set -euo pipefail
rev=${1:?usage: sprt_base.sh REV}
sha=$(git rev-parse --verify "$rev^{commit}")
root=$(git rev-parse --show-toplevel)
out="$root/target/sprt/$sha"
flags_file="$out/rustflags"
if [ -x "$out/archivist" ] && [ "$(cat "$flags_file" 2>/dev/null)" = "${RUSTFLAGS:-}" ]; then
  echo "$out/archivist"
  exit 0
fi
rm -rf "$out/src"
mkdir -p "$out/src"
git -C "$root" archive "$sha" | tar -x -C "$out/src"
cargo build --release --quiet --manifest-path "$out/src/Cargo.toml" --target-dir "$root/target/sprt/target" >&2
cp "$root/target/sprt/target/release/archivist" "$out/archivist"
printf '%s' "${RUSTFLAGS:-}" > "$flags_file"
rm -rf "$out/src"
echo "$out/archivist"
