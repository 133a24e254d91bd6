# Sourced by the other scripts: the environment every build and test step runs in.
# shellcheck shell=bash

CABRITO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CABRITO_ROOT
# wasm-opt from npm binaryen 132 (Trunk runs it on release builds); cargo-installed tools.
export PATH="$CABRITO_ROOT/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
# Trunk must not ask crates.io for its own newer version.
export TRUNK_SKIP_VERSION_CHECK=true
# The wasm tests' browser: wasm-bindgen-test-runner reads this file.
export WASM_BINDGEN_TEST_WEBDRIVER_JSON="$CABRITO_ROOT/webdriver.json"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-auto}"

# Print a section header.
section() {
  if [ -t 1 ]; then printf '\n\033[1m==> %s\033[0m\n' "$*"; else printf '\n==> %s\n' "$*"; fi
}

# The wasm-bindgen version Cargo.lock pins (wasm-bindgen-cli must match it exactly).
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' "$CABRITO_ROOT/Cargo.lock"
}

# True when dist/ is newer than every input of the app build.
dist_is_fresh() {
  local stamp="$CABRITO_ROOT/dist/index.html"
  [ -f "$stamp" ] || return 1
  [ -z "$(find "$CABRITO_ROOT/src" "$CABRITO_ROOT/crates" "$CABRITO_ROOT/www" "$CABRITO_ROOT/index.html" "$CABRITO_ROOT/Trunk.toml" \
      "$CABRITO_ROOT/Cargo.toml" "$CABRITO_ROOT/Cargo.lock" -newer "$stamp" -print -quit 2>/dev/null)" ]
}

# Build the app into dist/ with Trunk (release: wasm-opt -Oz, the wasm-release cargo profile). It
# builds in its own target folder, target/app, so a native cargo build can run at the same time
# (cargo locks a target folder for one build at a time) and use the core the app leaves idle
# during its single-threaded link-time optimisation.
build_app() {
  (cd "$CABRITO_ROOT" && CARGO_TARGET_DIR="$CABRITO_ROOT/target/app" trunk build --release)
}

# Sizes of dist/: raw and gzip -9, per file and in all.
report_dist() {
  local f raw gz total_raw=0 total_gz=0
  for f in "$CABRITO_ROOT"/dist/*; do
    # The server's precompressed copies (.br, .gz) are not part of the app.
    case "$f" in *.br | *.gz) continue ;; esac
    [ -f "$f" ] || continue
    raw=$(wc -c < "$f"); gz=$(gzip -9c "$f" | wc -c)
    total_raw=$((total_raw + raw)); total_gz=$((total_gz + gz))
    printf '  %-44s %9d bytes  %8d gzip\n' "$(basename "$f")" "$raw" "$gz"
  done
  printf '  %-44s %9d bytes  %8d gzip\n' "dist/ in all" "$total_raw" "$total_gz"
}
