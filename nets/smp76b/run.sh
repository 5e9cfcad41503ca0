#!/bin/sh
# make smp-match (issue 76, b8dca2a: the correction table shared by the threads), on a copy of the binary;
# the Makefile's command with SMP_EXE, OPENINGS and SMP_PGN pointing here (SMP_GAMES=200, SEED 47).
# Stopped with Ctrl-C, it goes on with: fastchess -config file=config.json
cd /root/archivist-data/smp76b
exec /work/shared/tools/fastchess -engine cmd=/root/archivist-data/smp76b/archivist-b8dca2a name=threads2 option.Threads=2 \
  -engine cmd=/root/archivist-data/smp76b/archivist-b8dca2a name=threads1 option.Threads=1 \
  -each proto=uci tc=10+0.1 timemargin=100 option.Hash=64 option.OwnBook=false \
  -openings file=/root/archivist-data/smp76b/balanced-3000.epd format=epd order=random -srand 47 \
  -repeat -rounds 100 -games 2 -concurrency 1 -recover -pgnout file=/root/archivist-data/smp76b/smp-match.pgn
