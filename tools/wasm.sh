#!/bin/sh
# The browser build (issue 74): `make wasm` and `make deps` call this.
#
#   tools/wasm.sh deps    install the toolchain and Node when missing (Debian)
#   tools/wasm.sh build   the toolchain, the module, and the static site
#                         target/web/: archivist.js, archivist.wasm,
#                         package.json and the files of web/site/
#
# The toolchain: Debian's rustc-web and cargo-web (1.96, at /usr/bin) with
# rust-web-src (std's source, for `-Z build-std`) and rust-lld (rust-web-llvm,
# lld-22). rustup's toolchain may come first in PATH, so /usr/bin is named
# explicitly. Without Debian's toolchain, rustup's own target (installed,
# or added by `rustup target add wasm32-unknown-unknown` where apt-get
# cannot install Debian's) and plain cargo build it instead, without
# build-std; without either, this says what to install and fails.
#
# Nothing of the native build reaches this one: the top Makefile's RUSTFLAGS
# (-C target-cpu=x86-64-v3, -D warnings) are replaced, and CI's clippy-driver
# (RUSTC_WORKSPACE_WRAPPER) is unset.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PACKAGES="rustc-web cargo-web rust-web-src rust-web-llvm lld-22"
TARGET=wasm32-unknown-unknown
TARGET_DIR=$ROOT/target/wasm
MODULE=$TARGET_DIR/$TARGET/release/archivist_web.wasm
SITE=$ROOT/target/web
WASM_RUSTFLAGS="-C target-feature=+simd128 -C link-arg=-zstack-size=16777216"

debian_ready() {
  [ -x /usr/bin/rustc ] && [ -x /usr/bin/cargo ] && [ -d /usr/lib/rustlib/src/rust/library ] &&
    { [ -x /usr/bin/rust-lld ] || command -v rust-lld >/dev/null 2>&1; } &&
    /usr/bin/rustc --print target-list 2>/dev/null | grep -qx "$TARGET"
}

# Installs Debian's packages when they are missing and apt-get is there.
# Returns 1 when the toolchain is still missing.
install_debian() {
  debian_ready && return 0
  command -v apt-get >/dev/null 2>&1 || return 1
  echo "installing Debian's $PACKAGES (the browser build's toolchain)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $PACKAGES) >/dev/null
  debian_ready
}

rustup_ready() {
  command -v rustup >/dev/null 2>&1 && rustup target list --installed 2>/dev/null | grep -qx "$TARGET"
}

clean_env() {
  env -u RUSTC_WORKSPACE_WRAPPER -u CARGO_ENCODED_RUSTFLAGS -u CARGO_BUILD_RUSTFLAGS \
    RUSTFLAGS="$WASM_RUSTFLAGS" CARGO_TARGET_DIR="$TARGET_DIR" "$@"
}

# Debian's toolchain, else rustup's target where it is installed, else
# Debian's installed, else rustup's added.
build_module() {
  cd "$ROOT/web"
  if debian_ready || { ! rustup_ready && install_debian; }; then
    clean_env RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 \
      /usr/bin/cargo build --release --target "$TARGET" -Z build-std=std,panic_abort
  elif rustup_ready || { command -v rustup >/dev/null 2>&1 && rustup target add "$TARGET"; }; then
    echo "no Debian toolchain: building with rustup's $TARGET target"
    clean_env cargo build --release --target "$TARGET"
  else
    cat >&2 <<EOF
tools/wasm.sh: no toolchain for $TARGET. Install one of:
  Debian 12:  apt-get install $PACKAGES
  rustup:     rustup target add $TARGET
EOF
    exit 1
  fi
  cd "$ROOT"
}

# target/web: the page's files (web/site/, another part's), then the module
# and its loader, so those two are always this build's.
write_site() {
  rm -rf "$SITE"
  mkdir -p "$SITE"
  if [ -d web/site ]; then
    cp -R web/site/. "$SITE"/
  fi
  cp web/js/archivist.js "$SITE"/archivist.js
  cp "$MODULE" "$SITE"/archivist.wasm
  version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' web/Cargo.toml | head -n 1)
  cat >"$SITE"/package.json <<EOF
{
  "name": "archivist-web",
  "version": "$version",
  "description": "The archivist chess engine in WebAssembly: books, conversions and search",
  "type": "module",
  "main": "archivist.js",
  "exports": {
    ".": "./archivist.js",
    "./archivist.wasm": "./archivist.wasm"
  },
  "license": "GPL-3.0-or-later",
  "private": true
}
EOF
  echo "target/web: $(ls "$SITE" | tr '\n' ' ')($(wc -c <"$SITE"/archivist.wasm) bytes of WebAssembly)"
}

case "${1:-}" in
  deps)
    # `make deps`: Debian's packages where apt-get can install them; a
    # host without apt-get is told, and `make wasm` tries rustup there.
    # Node runs the module's tests (engine-tests/test_wasm_module.py).
    if ! command -v node >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
      echo "installing Debian's nodejs (the browser build's tests)"
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs) >/dev/null
    fi
    { debian_ready || rustup_ready || install_debian; } && exit 0
    if command -v apt-get >/dev/null 2>&1; then
      echo "tools/wasm.sh: installing $PACKAGES failed" >&2
      exit 1
    fi
    echo "no apt-get: the browser build needs $PACKAGES (Debian) or rustup's $TARGET target"
    ;;
  build)
    build_module
    write_site
    ;;
  *)
    echo "usage: tools/wasm.sh deps|build" >&2
    exit 2
    ;;
esac
