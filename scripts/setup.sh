#!/usr/bin/env bash
# Install what Cabrito's build and tests need, and skip whatever is already there (each tool is
# checked by its version first, so a second run takes a few seconds). A fresh Debian 12 machine
# with Rust (rustup) and Node takes about 10 minutes, almost all of it `cargo install trunk`.
#
#   wasm32-unknown-unknown target · Trunk 0.21 · wasm-bindgen-cli at Cargo.lock's version ·
#   wasm-opt (npm binaryen 132, from package-lock.json) · Chromium + chromedriver (apt) · numpy 2.4 ·
#   the crates of Cargo.lock (Trunk builds offline)
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "$0")/env.sh"
cd "$CABRITO_ROOT"

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else echo "setup: need root to run: $*" >&2; return 1
  fi
}

APT_UPDATED=
apt_install() {
  command -v apt-get >/dev/null || { echo "setup: apt-get not found; install these by hand: $*" >&2; return 1; }
  if [ -z "$APT_UPDATED" ]; then as_root apt-get update -qq; APT_UPDATED=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}

have() { printf '  ok       %s\n' "$*"; }
get() { printf '  install  %s\n' "$*"; }

section "setup: checking tools (installing only what is missing)"
START=$SECONDS

command -v cargo >/dev/null && command -v rustup >/dev/null || {
  echo "setup: cargo and rustup are needed first: https://rustup.rs (Rust 1.95 or newer)" >&2; exit 1; }
have "$(rustc --version)"

# (Each check reads the tool's output into a variable first: `cmd | grep -q` can fail under
# pipefail when grep exits early.)
TARGETS=$(rustup target list --installed)
if grep -qx wasm32-unknown-unknown <<<"$TARGETS"; then
  have "rust target wasm32-unknown-unknown"
else
  get "rust target wasm32-unknown-unknown"; rustup target add wasm32-unknown-unknown
fi

if [ -x /usr/bin/chromium ] && command -v chromedriver >/dev/null; then
  CHROMEDRIVER_V=$(chromedriver --version 2>/dev/null || true)
  have "chromium and ${CHROMEDRIVER_V%% (*}"
else
  get "chromium and chromium-driver (apt)"; apt_install chromium chromium-driver
fi

if command -v node >/dev/null && command -v npm >/dev/null; then
  have "node $(node --version), npm $(npm --version)"
else
  get "nodejs and npm (apt)"; apt_install nodejs npm
fi

if python3 -c 'import numpy, sys; sys.exit(0 if numpy.__version__.startswith("2.4.") else 1)' 2>/dev/null; then
  have "numpy $(python3 -c 'import numpy; print(numpy.__version__)')"
else
  get "numpy 2.4 (pip)"
  command -v python3 >/dev/null || apt_install python3 python3-pip
  python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
  # A Debian system Python refuses pip installs (PEP 668); on such a machine install over it.
  python3 -m pip install -q 'numpy==2.4.*' || python3 -m pip install -q --break-system-packages 'numpy==2.4.*'
fi

TRUNK_V=$(trunk --version 2>/dev/null || true)
if grep -q '^trunk 0\.21\.' <<<"$TRUNK_V"; then
  have "$TRUNK_V"
else
  # Trunk 0.22 needs rustc 1.96.1; 0.21 is the newest that builds here.
  get "trunk 0.21 (cargo install, about 7 minutes)"; cargo install trunk --locked --version '^0.21'
fi

WB_VER=$(wasm_bindgen_version)
[ -n "$WB_VER" ] || { echo "setup: no wasm-bindgen in Cargo.lock" >&2; exit 1; }
WB_HAVE=$(wasm-bindgen --version 2>/dev/null || true)
WBT_HAVE=$(wasm-bindgen-test-runner --version 2>/dev/null || true)
if [ "$WB_HAVE" = "wasm-bindgen $WB_VER" ] && grep -q " $WB_VER\$" <<<"$WBT_HAVE"; then
  have "wasm-bindgen-cli $WB_VER"
else
  # Not --locked: the locked webpki-roots of 0.2.130 is no longer served.
  get "wasm-bindgen-cli $WB_VER (cargo install, about 2 minutes)"
  cargo install wasm-bindgen-cli --version "$WB_VER" --force
fi

WASM_OPT_V=$(wasm-opt --version 2>/dev/null || true)
if grep -q 'version 132' <<<"$WASM_OPT_V"; then
  have "$WASM_OPT_V (node_modules)"
else
  # Debian's binaryen (108) cannot read what rustc 1.95 emits; npm binaryen 132 can.
  get "binaryen 132 (npm ci)"; npm ci --no-audit --no-fund --loglevel=error
fi

# Trunk runs cargo with --offline, so the crates must be here already.
cargo fetch --quiet
have "crates of Cargo.lock"

printf '  setup took %ds\n' $((SECONDS - START))
