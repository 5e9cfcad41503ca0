#!/bin/sh
# make binding-match (issue 76), on copies of the binaries so a rebuild cannot touch them
cd /root/archivist-data/binding76
exec /work/shared/tools/fastchess -engine cmd=/root/archivist-data/binding76/archivist-0404c46 name=head -engine cmd=/root/archivist-data/bin/archivist-58c597bf69ba name=58c597b \
  -each proto=uci tc=10+0.1 option.Threads=1 option.Hash=16 option.OwnBook=false \
  -openings file=/root/archivist-data/binding76/balanced-3000.epd format=epd order=random -srand 7677 \
  -repeat -rounds 200 -games 2 -concurrency 2 -recover -pgnout file=/root/archivist-data/binding76/binding-match.pgn
