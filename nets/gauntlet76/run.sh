#!/bin/sh
# make net-gauntlet (issue 76, final build b3556d5, gen6-h256 built in), on a copy of the binary
cd /root/archivist-data/gauntlet76
exec /work/shared/tools/fastchess -engine cmd=/root/archivist-data/gauntlet76/archivist-b3556d5 name=archivist option.OwnBook=false option.Hash=16 \
  -engine cmd=/usr/games/stockfish name=sf2500 option.UCI_LimitStrength=true option.UCI_Elo=2500 option.Hash=16 \
  -each proto=uci tc=10+0.1 option.Threads=1 \
  -openings file=/root/archivist-data/gauntlet76/balanced-3000.epd format=epd order=random -srand 4545 \
  -repeat -rounds 200 -games 2 -concurrency 2 -recover -pgnout file=/root/archivist-data/gauntlet76/net-gauntlet.pgn
