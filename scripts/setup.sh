#!/usr/bin/env bash
# Install what Cabrito's build and tests need, and skip whatever is already there (each tool is
# checked by its version first, so a second run takes a few seconds).
#
#   wasm32-unknown-unknown target · Trunk 0.21 · wasm-bindgen-cli at Cargo.lock's version ·
#   wasm-opt (npm binaryen 132) and Lighthouse 12 (npm lighthouse), both from package-lock.json ·
#   Chromium + chromedriver (apt) · numpy 2.4 · the Python tests' virtualenv (target/pyenv: maturin, pytest,
#   datasets, inspect-ai, verifiers, scipy; pip, from crates/py/requirements-test.lock) ·
#   the crates of Cargo.lock (Trunk builds offline)
#
# What is missing is installed concurrently: the two `cargo install`s compile while apt, npm and pip
# download. The two build tools are compiled with the dev profile (`--debug`): they need no
# optimisation (Trunk drives cargo and copies files; wasm-bindgen's work on our wasm takes about a
# second either way), and it halves their compile time; nor do they need debug info
# (CARGO_PROFILE_DEV_DEBUG=0: less to generate and link). Nor do they need TLS: their default features
# bring rustls and its C crypto (for Trunk's update check, its HTTPS dev server and tool downloads, and
# wasm-bindgen's downloads), none of which Cabrito uses (Trunk.toml: offline, tools from setup), so both are
# built with --no-default-features (on a quiet machine: Trunk 2 min 43 s of CPU, wasm-bindgen 59 s).
# On a quiet 2-core machine that had Chromium
# and Node the whole set-up took about 3.5 minutes (about 14 one install after the other with
# optimised builds); in a fresh Debian 12 root (scripts/fresh-machine.sh) on a heavily loaded machine,
# 14 minutes, of which apt took 6.5 beside the Trunk build.
# Each install's output goes to target/setup-logs/; a failure prints the end of its log.
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

apt_install() {
  command -v apt-get >/dev/null || { echo "setup: apt-get not found; install these by hand: $*" >&2; return 1; }
  as_root apt-get update -qq &&
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}

have() { printf '  ok       %s\n' "$*"; }

LOGS="$CABRITO_ROOT/target/setup-logs"
mkdir -p "$LOGS"
JOBS=()   # "name pid" of each install running in the background
# Start an install in the background: launch NAME DESCRIPTION COMMAND...
launch() {
  local name="$1" what="$2"; shift 2
  printf '  %-8s %s (log: target/setup-logs/%s.log)\n' "${VERB:-install}" "$what" "$name"
  ( "$@" ) >"$LOGS/$name.log" 2>&1 &
  JOBS+=("$name $!")
}
# Time one part of an install: timed NAME COMMAND... (the seconds go to the end of the job's log and
# are printed when the job is done).
timed() {
  local part="$1" t0=$SECONDS status=0; shift
  "$@" || status=$?
  printf '%s %ds\n' "$part" $((SECONDS - t0)) >>"$LOGS/times"
  return "$status"
}
: >"$LOGS/times"

section "setup: checking tools (installing only what is missing, in parallel)"
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
  launch rustup-target "rust target wasm32-unknown-unknown" timed rustup-target rustup target add wasm32-unknown-unknown
fi

# apt: Chromium and chromedriver for the browser tests, Node and npm for wasm-opt. One apt job, since
# apt takes a lock.
APT_PKGS=()
if [ -x /usr/bin/chromium ] && command -v chromedriver >/dev/null; then
  CHROMEDRIVER_V=$(chromedriver --version 2>/dev/null || true)
  have "chromium and ${CHROMEDRIVER_V%% (*}"
else
  APT_PKGS+=(chromium chromium-driver)
fi
NEED_NODE=
if command -v node >/dev/null && command -v npm >/dev/null; then
  have "node $(node --version), npm $(npm --version)"
else
  APT_PKGS+=(nodejs npm); NEED_NODE=1
fi
if ! command -v python3 >/dev/null; then APT_PKGS+=(python3 python3-pip python3-venv)
elif ! python3 -m pip --version >/dev/null 2>&1; then APT_PKGS+=(python3-pip)
fi
# The Python package's tests run in a virtualenv (python3 -m venv: Debian's python3-venv).
if command -v python3 >/dev/null && ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then APT_PKGS+=(python3-venv); fi

# node_modules: what package-lock.json pins (binaryen's wasm-opt, esbuild, lighthouse, CodeMirror); one `npm ci` for all.
WASM_OPT_V=$(wasm-opt --version 2>/dev/null || true)
LIGHTHOUSE_WANT=$(node -p 'require("./package.json").devDependencies.lighthouse' 2>/dev/null || true)
LIGHTHOUSE_V=$(node -p 'require("./node_modules/lighthouse/package.json").version' 2>/dev/null || true)
NEED_NPM=
if grep -q 'version 132' <<<"$WASM_OPT_V"; then have "$WASM_OPT_V (node_modules)"; else NEED_NPM=1; fi
if [ -n "$LIGHTHOUSE_V" ] && [ "$LIGHTHOUSE_V" = "$LIGHTHOUSE_WANT" ]; then
  have "lighthouse $LIGHTHOUSE_V (node_modules)"
else
  NEED_NPM=1
fi
ESBUILD_WANT=$(node -p 'require("./package.json").devDependencies.esbuild' 2>/dev/null || true)
ESBUILD_V=$(node -p 'require("./node_modules/esbuild/package.json").version' 2>/dev/null || true)
if [ -n "$ESBUILD_V" ] && [ "$ESBUILD_V" = "$ESBUILD_WANT" ]; then
  have "esbuild $ESBUILD_V (node_modules)"
else
  NEED_NPM=1
fi
# The solution editor's CodeMirror packages (bundled by scripts/build_editor.mjs).
CM_WANT=$(node -p 'require("./package.json").devDependencies["@codemirror/view"]' 2>/dev/null || true)
CM_V=$(node -p 'require("./node_modules/@codemirror/view/package.json").version' 2>/dev/null || true)
if [ -n "$CM_V" ] && [ "$CM_V" = "$CM_WANT" ]; then have "@codemirror/view $CM_V (node_modules)"; else NEED_NPM=1; fi
# Pyodide, for hidden tests in the page when no worker is there (scripts/build_pygrade.mjs).
PY_WANT=$(node -p 'require("./package.json").devDependencies.pyodide' 2>/dev/null || true)
PY_V=$(node -p 'require("./node_modules/pyodide/package.json").version' 2>/dev/null || true)
if [ -n "$PY_V" ] && [ "$PY_V" = "$PY_WANT" ]; then have "pyodide $PY_V (node_modules)"; else NEED_NPM=1; fi
NEED_NUMPY=
if python3 -c 'import numpy, sys; sys.exit(0 if numpy.__version__.startswith("2.4.") else 1)' 2>/dev/null; then
  have "numpy $(python3 -c 'import numpy; print(numpy.__version__)')"
else
  NEED_NUMPY=1
fi

install_numpy() {
  # Debian's own python3 refuses pip installs (PEP 668: "externally managed"), as on a fresh Debian 12
  # with python3-pip from apt (a pyenv or python.org Python does not). The graders run the `python3`
  # on PATH, not a venv, so numpy must be importable by that interpreter: install it with
  # --break-system-packages, which as root puts it under /usr/local/lib/python3.*/dist-packages,
  # apart from apt's packages (Debian has no numpy 2.4 to install instead).
  python3 -m pip install -q 'numpy==2.4.*' || python3 -m pip install -q --break-system-packages 'numpy==2.4.*'
}
install_npm() { npm ci --no-audit --no-fund --loglevel=error; }

# The Python package's tests (tests/python, run by scripts/python.sh): maturin, pytest, datasets,
# inspect-ai, verifiers and scipy, every package pinned by crates/py/requirements-test.lock, in a
# virtualenv of their own (target/pyenv) so the system Python stays as it is. A stamp holds the
# lock's digest: a changed lock reinstalls.
PYENV="$CABRITO_ROOT/target/pyenv"
PYLOCK="$CABRITO_ROOT/crates/py/requirements-test.lock"
PYLOCK_SUM=$(sha256sum "$PYLOCK" | cut -d' ' -f1)
NEED_PYENV=
if [ -x "$PYENV/bin/python" ] && [ "$(cat "$PYENV/.lock-sha256" 2>/dev/null)" = "$PYLOCK_SUM" ]; then
  have "python test tools (target/pyenv: $(grep -c '==' "$PYLOCK") pinned packages)"
else
  NEED_PYENV=1
fi
# `timed` runs an install in a `||` list, where `set -e` does not act: each step must pass before the
# next, and the stamp is written last, so a failed pip install is reported and tried again next time.
install_pyenv() {
  rm -rf "$PYENV" &&
    python3 -m venv "$PYENV" &&
    "$PYENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$PYLOCK" &&
    echo "$PYLOCK_SUM" >"$PYENV/.lock-sha256"
}
PYENV_WHAT="maturin, pytest, datasets, inspect-ai, verifiers, scipy into target/pyenv (pip, about 6 minutes)"

# Packages that come after apt (npm needs node, pip may need python3-pip) run in the apt job.
if [ ${#APT_PKGS[@]} -gt 0 ]; then
  apt_then() {
    timed apt apt_install "${APT_PKGS[@]}"
    if [ -n "$NEED_NUMPY" ]; then timed numpy install_numpy; fi
    if [ -n "$NEED_NPM" ]; then timed npm install_npm; fi
    if [ -n "$NEED_PYENV" ]; then timed pyenv install_pyenv; fi
  }
  launch apt "${APT_PKGS[*]} (apt)$([ -n "$NEED_NUMPY" ] && echo ', then numpy 2.4 (pip)')$([ -n "$NEED_NPM" ] && echo ', then the npm tools and Pyodide (npm ci)')$([ -n "$NEED_PYENV" ] && echo ", then $PYENV_WHAT")" apt_then
else
  if [ -n "$NEED_NUMPY" ]; then launch numpy "numpy 2.4 (pip)" timed numpy install_numpy; fi
  if [ -n "$NEED_NPM" ]; then launch npm "the npm tools and Pyodide (npm ci)" timed npm install_npm; fi
  if [ -n "$NEED_PYENV" ]; then launch pyenv "$PYENV_WHAT" timed pyenv install_pyenv; fi
fi
: "$NEED_NODE"

TRUNK_V=$(trunk --version 2>/dev/null || true)
if grep -q '^trunk 0\.21\.' <<<"$TRUNK_V"; then
  have "$TRUNK_V"
else
  # Trunk 0.22 needs rustc 1.96.1; 0.21 is the newest that builds here.
  launch trunk "trunk 0.21 (cargo install --debug, about 3 minutes)" \
    timed trunk env CARGO_PROFILE_DEV_DEBUG=0 cargo install trunk --locked --version '^0.21' --debug --no-default-features
fi

WB_VER=$(wasm_bindgen_version)
[ -n "$WB_VER" ] || { echo "setup: no wasm-bindgen in Cargo.lock" >&2; exit 1; }
WB_HAVE=$(wasm-bindgen --version 2>/dev/null || true)
WBT_HAVE=$(wasm-bindgen-test-runner --version 2>/dev/null || true)
if [ "$WB_HAVE" = "wasm-bindgen $WB_VER" ] && grep -q " $WB_VER\$" <<<"$WBT_HAVE"; then
  have "wasm-bindgen-cli $WB_VER"
else
  # Not --locked: the locked webpki-roots of 0.2.130 is no longer served.
  launch wasm-bindgen "wasm-bindgen-cli $WB_VER (cargo install --debug, about 2 minutes)" \
    timed wasm-bindgen env CARGO_PROFILE_DEV_DEBUG=0 cargo install wasm-bindgen-cli --version "$WB_VER" --force --debug --no-default-features
fi

# Trunk runs cargo with --offline, so the crates must be here already.
VERB=fetch launch crates "the crates of Cargo.lock (cargo fetch)" timed crates cargo fetch --quiet

FAILED=()
for job in "${JOBS[@]}"; do
  name=${job% *}; pid=${job##* }
  if wait "$pid"; then
    [ "$name" = crates ] && have "crates of Cargo.lock" || have "installed: $name"
  else
    FAILED+=("$name")
    printf '  FAILED   %s; the end of target/setup-logs/%s.log:\n' "$name" "$name" >&2
    tail -n 20 "$LOGS/$name.log" | sed 's/^/    /' >&2
  fi
done
if [ ${#FAILED[@]} -gt 0 ]; then
  echo "setup: could not install: ${FAILED[*]}" >&2
  exit 1
fi

if [ -s "$LOGS/times" ]; then
  printf '  setup took %ds (%s)\n' $((SECONDS - START)) "$(sort "$LOGS/times" | paste -sd, - | sed 's/,/, /g')"
else
  printf '  setup took %ds\n' $((SECONDS - START))
fi
