#!/usr/bin/env bash
# The bench signature check: `archivist bench` must print the node count of
# the newest `Bench: N` line in the commit messages (a commit that changes
# search behaviour states its new count; every other commit keeps it).
# Usage: tools/check_bench.sh ./archivist
set -euo pipefail
exe=${1:?usage: check_bench.sh ARCHIVIST}
expected=$(git log --format=%B | grep -m1 -oE '^Bench: [0-9]+' | awk '{print $2}' || true)
if [ -z "$expected" ]; then
  if [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
    echo "check_bench: no 'Bench: N' line in this shallow clone's history; run 'git fetch --unshallow'" >&2
  else
    echo "check_bench: no commit message has a 'Bench: N' line" >&2
  fi
  exit 1
fi
actual=$("$exe" bench 2>&1 | tail -n 1 | awk '{print $1}')
if [ "$actual" != "$expected" ]; then
  echo "check_bench: bench searched $actual nodes, but the newest 'Bench:' line in git log says $expected" >&2
  echo "  (a commit that changes search behaviour must state its new count as 'Bench: $actual')" >&2
  exit 1
fi
echo "bench signature: $actual nodes, as the newest 'Bench:' line says"
