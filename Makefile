# Archivist. The first target is the OpenBench build: `make EXE=name`.
EXE    ?= archivist
CARGO  ?= cargo
VENV   := .venv
PY     := $(VENV)/bin/python
CONFIG ?= configs/engine.toml
# The CPU every build here targets: x86-64-v3 (AVX2, BMI2, POPCNT; the
# OpenBench-style portable modern build). `make ARCH=x86-64` is the plain
# baseline for older CPUs, `make ARCH=native` this machine.
ARCH   ?= x86-64-v3
export RUSTFLAGS += -C target-cpu=$(ARCH)

# CI_BUILD=1 (set by .ci/run): every build lints as it compiles. clippy-driver
# wraps rustc for this crate's targets (dependencies build with plain rustc)
# and warnings are errors, so CI needs no separate `cargo clippy` check build.
# And CI builds one profile only: `make build` builds the binary in the test
# profile (optimised, with debug assertions and overflow checks; the `bench`
# node count is the same) together with the examples, which bring in the
# dev-dependencies' features, so `cargo test` and `cargo test --benches`
# after it reuse the dependencies and the library and compile only the test
# harnesses. The black-box tests then run against that binary, its debug
# assertions on (about 0.6x the release build's speed; the tests allow it).
ifeq ($(CI_BUILD),1)
export RUSTC_WORKSPACE_WRAPPER := $(shell rustup which clippy-driver 2>/dev/null || command -v clippy-driver)
export RUSTFLAGS += -D warnings
BUILD_ARGS := --profile test --bins --examples
BUILD_OUT  := target/debug/archivist
else
BUILD_ARGS := --release --bins --examples
BUILD_OUT  := target/release/archivist
endif

# SPRT (tools/sprt.py): the working tree's build against BASE.
BASE ?= HEAD
NODES ?=
ELO0 ?= 0
ELO1 ?= 5
CONCURRENCY ?= 2
OPENINGS ?= engine-tests/openings/balanced-3000.epd

.PHONY: data-keep wasm wasm-test wasm-bench binding-match serve serve-bench explorer-bench doc lint-benches data-status datagen datagen-stop all build run test sprt sprt-selftest unit-test engine-test lint bench-check debug-game debug-test ci bench records-bench perft-bench smp-bench smp-match net-gauntlet net-gauntlet-resume resume-bench sftt-bench tb-bench book-interchange-bench selfplay-bench book-bench nnue-bench train-bench book-build-bench book elo-ladder deps gauntlet-deps gauntlet clean

all: build

build:
	$(CARGO) build $(BUILD_ARGS)
	cp $(BUILD_OUT) $(EXE)

run: build
	./$(EXE) --config $(CONFIG)

# The local service, `archivist serve` (issue 48), on http://127.0.0.1:9090/: the repository's
# YACB book, Debian's gnuchess book (make deps) and the Syzygy tables in
# SERVE_SYZYGY when that directory exists; more options in SERVE_ARGS.
SERVE_SYZYGY ?= ../shared/syzygy
serve: build deps
	./$(EXE) serve --book books/default.yacb --book /usr/share/games/gnuchess/book.bin \
	  $(if $(wildcard $(SERVE_SYZYGY)),--syzygy $(SERVE_SYZYGY)) $(SERVE_ARGS)

# The service under load from wrk (tools/serve_bench.py): requests/s and
# p50/p99 for /standard and /api/book, and wrk's ceiling on /api/info;
# beside lila-tablebase on the same tables when LILA_TABLEBASE names its
# binary (built from its source: README.md, "Lichess's clients").
LILA_TABLEBASE ?=
SERVE_BENCH_SECONDS ?= 10
serve-bench: build deps
	@command -v wrk >/dev/null 2>&1 || { echo "installing Debian's wrk"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk) >/dev/null; }
	$(PY) tools/serve_bench.py ./$(EXE) --seconds $(SERVE_BENCH_SECONDS) \
	  $(if $(LILA_TABLEBASE),--lila $(LILA_TABLEBASE))

# Everything the tests need: python-chess, pytest and selenium in a
# virtualenv, Debian's Stockfish (an outside reference opponent), Debian's
# polyglot (make-book, the reference for `book build`) and gnuchess-book (a
# real 180,358-entry Polyglot book), Debian's chromium and chromium-driver
# (the browser that tests `serve`'s page), and the browser build's toolchain
# (tools/wasm.sh: rustc-web, cargo-web, rust-web-src, rust-web-llvm,
# lld-22) when missing.
deps: $(VENV)/.ok
	@command -v stockfish >/dev/null 2>&1 || [ -x /usr/games/stockfish ] || \
	  { echo "installing Debian's stockfish"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stockfish) >/dev/null; }
	@{ command -v polyglot >/dev/null 2>&1 || [ -x /usr/games/polyglot ]; } && \
	  [ -f /usr/share/games/gnuchess/book.bin ] || \
	  { echo "installing Debian's polyglot and gnuchess-book"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq polyglot gnuchess-book) >/dev/null; }
	@{ command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; } || \
	  { echo "installing Debian's chromium and chromium-driver (the serve page's browser test)"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver) >/dev/null; }
	@sh tools/wasm.sh deps

$(VENV)/.ok: engine-tests/requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q -r engine-tests/requirements.txt
	touch $@

test: deps build unit-test engine-test

# The unit tests run in the test profile: optimised, with debug assertions
# and overflow checks on, so the Board consistency check runs after every
# make/unmake. (`cargo test --release` runs the same tests without them.)
unit-test:
	$(CARGO) test

# The black-box tests on JOBS processes (pytest-xdist), then the ones that
# check wall-clock limits (marked `timing`) alone, so the load of the others
# cannot make them lose on time.
JOBS ?= 2
# The browser build's tests (engine-tests/test_wasm_*.py) are left to
# `make wasm-test`, which builds what they test.
engine-test: deps build
	ARCHIVIST=$(abspath $(EXE)) $(PY) -m pytest -q -n $(JOBS) -m "not timing" --ignore-glob='*/test_wasm_*' engine-tests
	ARCHIVIST=$(abspath $(EXE)) $(PY) -m pytest -q -m timing --ignore-glob='*/test_wasm_*' engine-tests

# The browser build (issue 74; README.md, "In the browser"): web/ as a
# WebAssembly module with Debian's rustc-web and `-Z build-std`, installed
# when missing, and the static site target/web/ (archivist.js, archivist.wasm,
# package.json, web/site/'s page). Its own flags and target directory
# (target/wasm): none of the native build's RUSTFLAGS or CI's clippy-driver.
wasm:
	sh tools/wasm.sh build

# The browser build against the native binary, answer for answer: the
# module in Node (test_wasm_module.py), the page in Chromium
# (test_wasm_page.py), one file per process. Under CI_BUILD=1 a missing
# Node, Chromium or site fails instead of skipping.
wasm-test: deps build wasm
	ARCHIVIST=$(abspath $(EXE)) ARCHIVIST_WEB=$(abspath target/web) \
	  $(PY) -m pytest -q -n $(JOBS) --dist loadfile engine-tests/test_wasm_*.py

# The browser build beside the native one, in one run (tools/wasm_bench.py):
# SBOB, Polyglot and YACB probes/s (the same calls, archivist::web natively
# through examples/web_bench.rs, archivist.js in Node), `bench` nodes/s and
# the .wasm's size gzipped. Not a test.
wasm-bench: build wasm
	python3 tools/wasm_bench.py ./$(EXE) $(dir $(BUILD_OUT))examples/web_bench target/web

# The crate's documentation with its private items (the module docs are
# maps of their private parts), warnings denied: target/doc/archivist.
doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps --document-private-items

lint:
	$(CARGO) fmt --check
	$(CARGO) clippy --release --all-targets -- -D warnings

# With CI_BUILD=1: the benchmarks built in the test profile (whose
# dependencies `make test` already built), which lints them.
lint-benches:
	$(CARGO) test --benches --no-run

# The bench signature: `bench` must print the count of the newest
# `Bench: N` line in git log.
bench-check: build
	tools/check_bench.sh ./$(EXE)

# One short game between two engines built with debug assertions (the
# test profile), failing on an illegal move, a stall or a crash.
debug-game: deps
	$(CARGO) build --profile test --bin archivist
	$(PY) tools/debug_game.py target/debug/archivist

# Everything with debug assertions on: the unit tests, then the game.
debug-test: unit-test debug-game

# The checks CI runs (.ci/run), with `make lint`'s separate clippy build
# instead of CI_BUILD's linting builds, then the README's test command.
ci: deps lint bench-check test

# A match against outside engines (not part of `make test`): GAMES per
# opponent, in pairs over the built-in openings, at TC (BASE+INC seconds).
GAMES     ?= 20
TC        ?= 10+0.1
STOCKFISH ?= $(shell command -v stockfish 2>/dev/null || echo /usr/games/stockfish)
GLAURUNG  ?= /usr/games/glaurung
TOGA2     ?= /usr/games/toga2

gauntlet: build deps gauntlet-deps
	$(PY) tools/gauntlet.py --engine ./$(EXE) \
	  --opponent sf1500=$(STOCKFISH),Threads=1,Hash=16,UCI_LimitStrength=true,UCI_Elo=1500 \
	  --opponent sf2000=$(STOCKFISH),Threads=1,Hash=16,UCI_LimitStrength=true,UCI_Elo=2000 \
	  --opponent sf2500=$(STOCKFISH),Threads=1,Hash=16,UCI_LimitStrength=true,UCI_Elo=2500 \
	  --opponent glaurung=$(GLAURUNG),Threads=1,Hash=16,OwnBook=false \
	  --opponent toga2=$(TOGA2),Hash=16,OwnBook=false \
	  --games $(GAMES) --tc $(TC) --openings $(OPENINGS) $(GAUNTLET_ARGS)

# Debian's Glaurung and Toga II, the gauntlet's other opponents.
gauntlet-deps:
	@[ -x $(GLAURUNG) ] && [ -x $(TOGA2) ] || \
	  { echo "installing Debian's glaurung and toga2"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq glaurung toga2) >/dev/null; }

bench: build
	./$(EXE) bench

# records import / export throughput (MB/s, positions/s) on a generated PGN
# of at least RB_POSITIONS positions (cutechess games with score comments,
# repeated), made in a temporary directory outside the repository.
RB_POSITIONS ?= 1000000
RB_THREADS   ?= 2
# Shell steps shared by the record benchmarks: committed PGNs imported as
# records into $$d/seed.bin, their position count in $$n.
RECORDS_SEED = ./$(EXE) records import --pgn engine-tests/data/shared/pgn/cutechess-fischerrandom.pgn \
	  --pgn engine-tests/data/records/cutechess-stockfish.pgn --out $$d/seed.bin >/dev/null && \
	n=$$(./$(EXE) records verify $$d/seed.bin | sed -n 's/.* \([0-9]*\) positions$$/\1/p')

records-bench: build
	@d=$$(mktemp -d); trap 'rm -rf $$d' EXIT; \
	$(RECORDS_SEED); \
	./$(EXE) records dump --pgn --scores $$d/seed.bin > $$d/seed.pgn; \
	reps=$$(( ($(RB_POSITIONS) + n - 1) / n )); \
	for i in $$(seq $$reps); do cat $$d/seed.pgn; done > $$d/big.pgn; \
	echo "input: $$reps copies of $$n positions, $$(du -m $$d/big.pgn | cut -f1) MB of PGN"; \
	./$(EXE) records import --pgn $$d/big.pgn --out $$d/big.bin --threads 1 | sed 's/^/threads 1: /'; \
	./$(EXE) records import --pgn $$d/big.pgn --out $$d/big.bin --threads $(RB_THREADS) | sed 's/^/threads $(RB_THREADS): /'; \
	for f in viriformat bullet-text sf-plain; do ./$(EXE) records export --format $$f $$d/big.bin --out $$d/big.$$f; done

# Training data outside the checkout (ARCHIVIST_DATA, default ~/archivist-data):
# what is there and what the recipe still wants; the recipe resumed in the
# background at nice 19 by a binary built from HEAD as committed (git
# archive, never the work tree); its stop. See tools/data.py, nets/README.md.
data-status:
	@python3 tools/data.py status

datagen:
	@python3 tools/data.py gen

datagen-stop:
	@python3 tools/data.py stop

# Complete record files copied into data/<bench>/ to be committed (their run
# log gains the commits, bench and FNV-1a); the recipe never plays a kept
# file's seed again.
data-keep:
	@python3 tools/data.py keep

# The opening explorer (issues 64, 75) beside `book build --max-ply 50` on
# the same generated input with [%clk] comments (examples/explorer_games
# --clk, EXPLORER_BENCH_GAMES games, kept under $ARCHIVIST_DATA/explorer-bench):
# build MB/s on 1 and 2 threads (median of 3 alternating runs), peak memory
# of 10 million games streamed through a pipe at --memory 256, index bytes
# beside the input at zstd -3,
# start-up time and /lichess under wrk, cache on and off, on one index and
# on 24 shards of 1 million games; with LILA_EXPLORER (lila-openingexplorer
# built from source, its import-lichess as LILA_IMPORT) its import and
# query rows on the same games (tools/explorer_bench.py).
EXPLORER_BENCH_GAMES ?= 1000000
explorer-bench: build deps
	@command -v wrk >/dev/null 2>&1 || { echo "installing Debian's wrk"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk) >/dev/null; }
	$(PY) tools/explorer_bench.py ./$(EXE) $(dir $(BUILD_OUT))examples/explorer_games \
	  --games $(EXPLORER_BENCH_GAMES) --dir $${ARCHIVIST_DATA:-$$HOME/archivist-data}/explorer-bench \
	  $(if $(LILA_EXPLORER),--lila $(LILA_EXPLORER) --lila-import $(LILA_IMPORT)) $(EXPLORER_BENCH_FLAGS)

# Trainer throughput: one epoch over about TB_POSITIONS recorded positions
# (committed PGNs imported as records and repeated), hidden size TB_HIDDEN,
# on 1 and 2 threads; prints the epoch lines (positions/s, per thread).
TB_POSITIONS ?= 1000000
TB_HIDDEN ?= 128
train-bench: build
	@d=$$(mktemp -d); trap 'rm -rf $$d' EXIT; \
	$(RECORDS_SEED); \
	reps=$$(( ($(TB_POSITIONS) + n - 1) / n )); \
	for i in $$(seq $$reps); do cat $$d/seed.bin; done > $$d/big.bin; \
	echo "input: $$reps copies of $$n positions, hidden $(TB_HIDDEN)"; \
	for t in 1 2; do \
	  ./$(EXE) train --data $$d/big.bin --out $$d/net.nnue --hidden $(TB_HIDDEN) --epochs 1 --threads $$t 2>&1 \
	  | grep '^leg' | sed "s/^/threads $$t: /"; \
	done

perft-bench:
	$(CARGO) bench --bench perft

# Syzygy probes per second, beside the shakmaty-syzygy crate.
tb-bench:
	$(CARGO) bench --bench tb

# NNUE accumulator refreshes, incremental updates and forward passes per second
# (hidden 64 to 512), and the hand-written evaluation's calls per second.
nnue-bench:
	$(CARGO) bench --bench nnue

clean:
	$(CARGO) clean
	rm -rf $(VENV) $(EXE)

# SPRT of the working tree against BASE (a commit): `make sprt BASE=main`,
# `make sprt BASE=HEAD~1 NODES=20000`, bounds `ELO0=-5 ELO1=0` for a
# simplification. Exits 0 when H1 is accepted (1: H0, 3: undecided).
sprt: build deps
	@base=$$(tools/sprt_base.sh $(BASE)) && \
	$(PY) tools/sprt.py --new ./$(EXE) --new-name new --base "$$base" --base-name "base-$$(git rev-parse --short $(BASE))" \
	  --openings $(OPENINGS) --tc $(if $(NODES),nodes=$(NODES),$(TC)) --elo0 $(ELO0) --elo1 $(ELO1) \
	  --concurrency $(CONCURRENCY) --option Hash=16

# The SPRT's own check: the same build with 4x the nodes must pass [0, 30],
# with a quarter of them it must fail.
sprt-selftest: build deps
	$(PY) tools/sprt.py --new ./$(EXE) --base ./$(EXE) --openings $(OPENINGS) --tc nodes=2000 \
	  --new-nodes 8000 --elo0 0 --elo1 30 --concurrency $(CONCURRENCY) --option Hash=4 --seed 1
	$(PY) tools/sprt.py --new ./$(EXE) --base ./$(EXE) --openings $(OPENINGS) --tc nodes=2000 \
	  --base-nodes 8000 --elo0 0 --elo1 30 --concurrency $(CONCURRENCY) --option Hash=4 --seed 1; \
	  test $$? -eq 1 && echo "sprt-selftest: the stronger build passed and the weaker one failed"

# Lazy SMP (tools/smp_bench.py): time to depth 14 and nps with 1 thread and
# with each of SMP_THREADS over SMP_COUNT bench positions (all 50 by
# default), SMP_RUNS times with the thread counts alternating; the speed-ups
# are the medians of the runs' ratios. One run is not enough: on this
# project's machines the one-thread time of the same search varied from 6.4
# to 7.7 s between runs, and single ratios from 1.21 to 1.52. On a machine
# with more cores: `make smp-bench SMP_THREADS="2 4 8 16"`.
SMP_COUNT   ?= 50
SMP_RUNS    ?= 5
SMP_THREADS ?= 2
smp-bench: build
	python3 tools/smp_bench.py ./$(EXE) --count $(SMP_COUNT) --runs $(SMP_RUNS) --threads $(SMP_THREADS)

# What a second thread is worth in games: fastchess, this build with 2
# threads against itself with 1, 10+0.1, Hash 64 MB each, SMP_GAMES games
# (pairs of both colours) from balanced openings in random order, one game
# at a time (the 2-thread engine needs both cores; nothing else may run).
# Prints fastchess's Elo with its 95 % interval; games go to SMP_PGN.
# SMP_EXE plays an older build instead (the baseline match, e.g. a binary
# kept by `make datagen` under $ARCHIVIST_DATA/bin). Issue 47's matches,
# 200 games each, on this 2-core machine: d248ffc +109.5 +/- 28.1 Elo
# (84-23-93, pentanomial 0/6/37/47/10); dc7ee5c, the build before the
# issue, +59.6 +/- 29.1 (63-29-108, pentanomial 1/11/50/29/9). Issue 76's
# final build b3556d5 (gen6-h256): +54.3 +/- 26.5 (60-29-111, 1/8/57/27/7);
# b8dca2a (correction histories shared): +85.3 +/- 35 after 108 games
# (40-14-54, 0/3/26/21/4; b3556d5 +68.4 on the same 108), nets/smp76b.
FASTCHESS ?= ../shared/tools/fastchess
SMP_GAMES ?= 200
SMP_PGN   ?= smp-match.pgn
SMP_EXE   ?= ./$(EXE)
smp-match: build
	$(FASTCHESS) -engine cmd=$(SMP_EXE) name=threads2 option.Threads=2 \
	  -engine cmd=$(SMP_EXE) name=threads1 option.Threads=1 \
	  -each proto=uci tc=10+0.1 timemargin=100 option.Hash=64 option.OwnBook=false \
	  -openings file=$(OPENINGS) format=epd order=random -srand $(or $(SEED),47) \
	  -repeat -rounds $$(( $(SMP_GAMES) / 2 )) -games 2 -concurrency 1 -recover -pgnout file=$(SMP_PGN)

# The network's gauntlet (issue 45), fixed in advance and played once per
# shipped network: 400 games at 10+0.1 against Stockfish 15.1 at UCI_Elo 2500,
# one thread and 16 MB each, balanced-3000 in a fixed random order, every
# opening with both colours, two games at a time, OwnBook off. NET_EVALFILE
# plays a network file instead of the default evaluation (for a candidate not
# built in yet). Goal: at least 40 %, no time losses, crashes or illegal moves.
NET_GAMES    ?= 400
NET_PGN      ?= net-gauntlet.pgn
NET_EVALFILE ?=
net-gauntlet: build
	$(FASTCHESS) -engine cmd=./$(EXE) name=archivist $(if $(NET_EVALFILE),option.EvalFile=$(abspath $(NET_EVALFILE))) \
	  option.OwnBook=false option.Hash=16 \
	  -engine cmd=$(STOCKFISH) name=sf2500 option.UCI_LimitStrength=true option.UCI_Elo=2500 option.Hash=16 \
	  -each proto=uci tc=10+0.1 option.Threads=1 \
	  -openings file=$(OPENINGS) format=epd order=random -srand 4545 \
	  -repeat -rounds $$(( $(NET_GAMES) / 2 )) -games 2 -concurrency 2 -recover -pgnout file=$(NET_PGN)

# Issue 76's binding match, fixed in advance (2026-12-07) and played once:
# HEAD against 58c597b (issue 65's last build, gen4-hw64 built in; made
# from `git archive` by tools/data.py into $ARCHIVIST_DATA/bin), 400 games
# at 10+0.1, one thread and 16 MB each, OwnBook off, balanced-3000 in a
# fixed random order (seed 7677), every opening with both colours, two
# games at a time, nothing else running. Goal: at least +40 Elo, the lower
# end of fastchess's 95 % interval above 0. A stopped match goes on with
# `make net-gauntlet-resume` (its config.json). Issue 65's match was the
# same against fee455c with seed 6565. Played 2026-12-07, gen6-h256 built in
# (0404c46): +82.3 +/- 22.8 Elo, W-D-L 162-169-69 (nets/binding76).
BINDING_BASE  ?= 58c597b
BINDING_GAMES ?= 400
BINDING_PGN   ?= binding-match.pgn
binding-match: build
	base=$$($(PY) tools/data.py binary $(BINDING_BASE)) && \
	$(FASTCHESS) -engine cmd=./$(EXE) name=head -engine cmd=$$base name=$(BINDING_BASE) \
	  -each proto=uci tc=10+0.1 option.Threads=1 option.Hash=16 option.OwnBook=false \
	  -openings file=$(OPENINGS) format=epd order=random -srand $(or $(BINDING_SEED),7677) \
	  -repeat -rounds $$(( $(BINDING_GAMES) / 2 )) -games 2 -concurrency 2 -recover -pgnout file=$(BINDING_PGN)

# Goes on with a gauntlet stopped by Ctrl-C (SIGINT): fastchess saved its
# state (settings, the opening reached, the score so far) in config.json;
# the same games continue, appended to the same PGN. No `build` here: the
# binary must be the one that started the gauntlet.
NET_CONFIG ?= config.json
net-gauntlet-resume:
	$(FASTCHESS) -config file=$(NET_CONFIG)

# Resuming analysis from a saved table (issue 47): 20 positions, Hash 64 MB,
# 1 thread, saved at depth 14 and continued to 15 and 16 by a new process,
# node counts against cold searches (goals: at most 0.5 and 0.65 of cold).
resume-bench: build deps
	$(PY) tools/resume_bench.py ./$(EXE) --depth $(or $(DEPTH),14)

# Warm start (5 positions, cold vs warm after save/restart/load) and the
# save/load speed of a full 1 GB table beside cp.
sftt-bench: build deps
	$(PY) tools/sftt_bench.py ./$(EXE) --depth $(or $(DEPTH),16)
	$(CARGO) bench --bench sftt

# Polyglot lookups/s beside python-chess's reader on the same positions, and
# conversion times of Debian's gnuchess book (Polyglot -> SBOB/JSON -> Polyglot).
book-interchange-bench: deps
	BENCH_PYTHON=$(abspath $(PY)) $(CARGO) bench --bench polyglot

# Self-play throughput at 5,000 nodes per move with 1 and 2 game threads, and
# the share of the game threads' time spent outside the search (goal < 2%).
SP_GAMES ?= 40
selfplay-bench: build
	@d=$$(mktemp -d); for t in 1 2; do \
	  ./$(EXE) selfplay --out $$d/bench$$t.bin --games $(SP_GAMES) --nodes 5000 --threads $$t --seed 1 2>/dev/null \
	  | sed -n "s/^selfplay: \([0-9]*\) games.* \([0-9]*\) positions in \([0-9.]*\) s, \([0-9]*\) positions\/s, \([0-9.]*%\) of the time outside the search.*/Threads $$t: \4 positions\/s (\2 positions, \1 games, \3 s), \5 of the time outside the search/p"; \
	done; rm -rf $$d

# YACB lookups/s on a 10-million-entry mapped book (hits, misses, memory)
# beside a HashMap of the same entries.
book-bench:
	$(CARGO) bench --bench yacb

# `book build` on a synthetic PGN of BENCH_MB MB (perturbed self-play games,
# generated under BENCH_DIR, outside the repository), plain and .zst, 1 and
# 2 threads, --memory MEMORY, beside `polyglot make-book` on the same file:
# MB/s, games/s, peak RSS, load. The files stay for reruns (rm -r BENCH_DIR).
BENCH_MB  ?= 2100
BENCH_DIR ?= /tmp/archivist-book-bench
book-build-bench: build deps
	@mkdir -p $(BENCH_DIR)
	@[ -f $(BENCH_DIR)/synth.pgn ] || $(CARGO) run --release --example book_synth_pgn -- \
	  engine-tests/data/shared/pgn/stockfish-selfplay-200.pgn $(BENCH_DIR)/synth.pgn $(BENCH_MB)
	MEMORY=$(or $(MEMORY),128) sh tools/book_build_bench.sh ./$(EXE) $(BENCH_DIR)

# The default opening book (committed): `book analyse` of every position of
# the lines in books/openings.pgn at BOOK_NODES nodes, one thread, so the
# result is the same file on every machine. See books/README.md.
BOOK_NODES ?= 250000
book: build
	./$(EXE) book analyse books/openings.pgn --nodes $(BOOK_NODES) --out books/default.yacb
	./$(EXE) book info books/default.yacb

# The node-limited games behind the YACB elo estimate (src/book/elo.rs);
# method and results in tools/elo_ladder.md. About an hour on 2 cores.
LADDER_GAMES ?= 40
elo-ladder: build deps
	LADDER_GAMES=$(LADDER_GAMES) PY=$(PY) ENGINE=./$(EXE) STOCKFISH=$(STOCKFISH) sh tools/elo_ladder.sh
