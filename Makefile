# Archivist. The first target is the OpenBench build: `make EXE=name`.
EXE    ?= archivist
CARGO  ?= cargo
VENV   := .venv
PY     := $(VENV)/bin/python
CONFIG ?= configs/engine.toml

.PHONY: all build run test unit-test engine-test lint bench perft-bench tb-bench deps clean

all: build

build:
	$(CARGO) build --release
	cp target/release/archivist $(EXE)

run: build
	./$(EXE) --config $(CONFIG)

# Everything the tests need: python-chess and pytest in a virtualenv, and
# Debian's Stockfish (an outside reference opponent) when it is missing.
deps: $(VENV)/.ok
	@command -v stockfish >/dev/null 2>&1 || [ -x /usr/games/stockfish ] || \
	  { echo "installing Debian's stockfish"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stockfish) >/dev/null; }

$(VENV)/.ok: engine-tests/requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q -r engine-tests/requirements.txt
	touch $@

test: deps build unit-test engine-test

unit-test:
	$(CARGO) test --release

engine-test: deps build
	ARCHIVIST=$(abspath $(EXE)) $(PY) -m pytest -q engine-tests

lint:
	$(CARGO) fmt --check
	$(CARGO) clippy --release --all-targets -- -D warnings

bench: build
	./$(EXE) bench

perft-bench:
	$(CARGO) bench --bench perft

# Syzygy probes per second, beside the shakmaty-syzygy crate.
tb-bench:
	$(CARGO) bench --bench tb

clean:
	$(CARGO) clean
	rm -rf $(VENV) $(EXE)
