#!/bin/sh
# The node-limited games behind the YACB elo estimate (src/book/elo.rs).
# Method and results: tools/elo_ladder.md. Run through `make
# elo-ladder`; RUNGS selects rungs (default: all), LADDER_GAMES the games per
# rung, LADDER_DIR where logs and PGNs go.
set -eu
PY=${PY:-.venv/bin/python}
ENGINE=${ENGINE:-./archivist}
STOCKFISH=${STOCKFISH:-/usr/games/stockfish}
GAMES=${LADDER_GAMES:-40}
DIR=${LADDER_DIR:-target/elo-ladder}
RUNGS=${RUNGS:-"sf1M-sf250k sf250k-sf64k sf64k-sf16k sf16k-sf4k a64k-sf4k a256k-sf4k a1M-sf4k"}
mkdir -p "$DIR"

sf() { echo "$1=$STOCKFISH,Threads=1,Hash=16,nodes=$2"; }
nodes() { case $1 in *4M) echo 4000000 ;; *1M) echo 1000000 ;; *250k) echo 250000 ;; *256k) echo 256000 ;;
  *64k) echo 64000 ;; *16k) echo 16000 ;; *4k) echo 4000 ;; *1k) echo 1000 ;; esac; }

for rung in $RUNGS; do
  a=${rung%-*}; b=${rung#*-}
  case $a in
    sf*) set -- --engine "$STOCKFISH" --engine-name "$a" --engine-option Threads=1 --engine-option Hash=16 \
           --engine-option "nodes=$(nodes "$a")" ;;
    a*)  set -- --engine "$ENGINE" --engine-name "arch${a#a}" --engine-option Threads=1 --engine-option Hash=16 \
           --engine-option OwnBook=false --engine-option "nodes=$(nodes "$a")" ;;
  esac
  echo "== $rung"
  "$PY" tools/gauntlet.py "$@" --opponent "$(sf "$b" "$(nodes "$b")")" --games "$GAMES" \
    --tc nodes=1000 --adjudicate --concurrency 2 --pgn-out "$DIR/$rung.pgn" > "$DIR/$rung.log" 2>&1 || true
  tail -4 "$DIR/$rung.log"
done

"$PY" tools/elo_fit.py "$DIR"/*.log
