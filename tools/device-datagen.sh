#!/usr/bin/env bash
# Self-play on a lent 16-core machine (the `device` tool): one prepared run.
# Plays the data recipe's part A (nets/README.md) with THREADS game threads
# for SECONDS, then stops cleanly (whole games only) and leaves the file and
# its run log under OUT. The binary is carried from this machine (a release
# build of a committed revision), so the records are of the same build as
# the files `make datagen` writes; copy them into
# $ARCHIVIST_DATA/records/<bench>/ when they come back.
#
# Usage: tools/device-datagen.sh ARCHIVIST OUT SEED [SECONDS] [THREADS]
# Example (device run; the result must stay under 16 MiB, about 3 million
# positions, so SECONDS stays below 9 minutes at 15 threads):
#   tools/device-datagen.sh ./archivist "$OUT" 265616150 480 15
set -euo pipefail
exe=${1:?usage: device-datagen.sh ARCHIVIST OUT SEED [SECONDS] [THREADS]}
out=${2:?OUT}
seed=${3:?SEED}
seconds=${4:-480}
threads=${5:-$(( $(nproc) - 1 ))}
mkdir -p "$out"
"$exe" bench 2>/dev/null | tail -n 1 > "$out/bench.txt"
timeout -s INT --kill-after=60 "$seconds" "$exe" selfplay --out "$out/random-$seed.bin" --seed "$seed" \
  --games 1000000 --soft-nodes 5000 --value-only --threads "$threads" > "$out/random-$seed.log" 2>&1 || true
"$exe" records verify "$out/random-$seed.bin" | tee -a "$out/random-$seed.log"
