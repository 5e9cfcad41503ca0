#!/bin/sh
# `make book-build-bench`: `archivist book build` on a synthetic PGN of
# BENCH_MB megabytes (plain and .zst; 1 and 2 threads; --memory MEMORY)
# beside Debian's `polyglot make-book` on the same plain file, in one run.
# Prints MB/s of PGN, games/s and peak resident memory (from
# /usr/bin/time -v), the machine's load, and whether the books are equal.
# Each Archivist setting runs RUNS times (default 3) and the median run
# is shown, with the slowest and fastest: the machine's speed drifts by
# up to 30% from run to run. Figures, not a test.
# Usage: book_build_bench.sh ENGINE DIR
set -eu
ENGINE=$1
DIR=$2
MEMORY=${MEMORY:-128}
POLYGLOT=${POLYGLOT:-/usr/games/polyglot}
PGN=$DIR/synth.pgn
ZST=$DIR/synth.pgn.zst
[ -f "$ZST" ] || zstd -q -3 -T2 -f "$PGN" -o "$ZST"
BYTES=$(stat -c %s "$PGN")
GAMES=$(grep -c '^\[Event ' "$PGN")
echo "input: $PGN, $BYTES bytes, $GAMES games; $ZST, $(stat -c %s "$ZST") bytes"

RUNS=${RUNS:-3}

# warm FILE: reads FILE into the page cache before a timed run. This
# machine's kernel gives back cached pages it has not used for a while
# (after a run, half of the plain input was no longer cached), so a run
# would otherwise read part of its input from the disk, a part that
# varies from run to run: every run, the reference's too, starts with
# its input cached.
warm() {
  cat "$1" >/dev/null
}

# measure LABEL OUT COMMAND...: one timed run.
measure() {
  label=$1; shift
  /usr/bin/time -v -o "$DIR/time.txt" "$@" >"$DIR/out.txt" 2>"$DIR/err.txt" || { echo "$label: failed"; tail -3 "$DIR/err.txt"; return 0; }
  secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$DIR/time.txt" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$DIR/time.txt")
  awk -v l="$label" -v b="$BYTES" -v g="$GAMES" -v s="$secs" -v r="$rss" -v u="$(cut -d' ' -f1-3 /proc/loadavg)" \
    'BEGIN { printf "%-34s %7.1f MB/s %9.0f games/s %8.1f s  peak RSS %6.1f MB  (load %s)\n", l, b/1e6/s, g/s, s, r/1024, u }'
}

# measure_runs LABEL INPUT COMMAND...: RUNS timed runs, each after INPUT
# is warmed; the median one's line (and its summary, kept in err.txt),
# then the range of MB/s.
measure_runs() {
  label=$1; warmed=$2; shift 2
  : >"$DIR/runs.txt"
  for run in $(seq "$RUNS"); do
    warm "$warmed"
    line=$(measure "$label" "$@")
    cp "$DIR/err.txt" "$DIR/err-$run.txt"
    echo "$(echo "$line" | awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "MB/s") print $i }') $run $line" >>"$DIR/runs.txt"
  done
  median=$(sort -n "$DIR/runs.txt" | sed -n "$(( (RUNS + 1) / 2 ))p")
  echo "$median" | cut -d' ' -f3- | sed "s/^\($label\)/\1 (median of $RUNS)/"
  cp "$DIR/err-$(echo "$median" | cut -d' ' -f2).txt" "$DIR/err.txt"
  sort -n "$DIR/runs.txt" | awk '{ v[NR] = $1 } END { printf "    runs: %s", v[1]; for (i = 2; i <= NR; i++) printf ", %s", v[i]; print " MB/s" }'
}

warm "$PGN"
measure "polyglot make-book (plain)" "$POLYGLOT" make-book -pgn "$PGN" -bin "$DIR/polyglot.bin"
for input in "$PGN" "$ZST"; do
  kind=plain; [ "$input" = "$ZST" ] && kind=zst
  for t in 1 2; do
    measure_runs "archivist $kind, $t thread(s), --memory $MEMORY" "$input" \
      "$ENGINE" book build --pgn "$input" --out "$DIR/archivist-$kind-$t.bin" --threads "$t" --memory "$MEMORY"
    grep '^summary:' "$DIR/err.txt" | sed 's/^/    /'
    if cmp -s "$DIR/archivist-$kind-$t.bin" "$DIR/polyglot.bin"; then
      echo "    book identical to polyglot make-book's"
    else
      echo "    book DIFFERS from polyglot make-book's"
    fi
  done
done
