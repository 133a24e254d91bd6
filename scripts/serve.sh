#!/usr/bin/env bash
# The main job: install what is missing (scripts/setup.sh), build the app into dist/ (skipped when
# dist/ is newer than its sources) while the native binary builds beside it, and run `cabrito serve`,
# which prints the playground's URL. Arguments go to `cabrito serve` (e.g. --addr 127.0.0.1:9000).
#
# The native build needs nothing setup.sh installs (Rust and the crates only), so it starts first and
# runs through the set-up, at a lower priority than the tools' builds (Trunk is on the critical path):
# on a fresh machine the set-up waits mostly on apt's downloads and unpacking, and the cores it leaves idle
# build the native binary (BENCHMARKS.md, "A first run on a fresh machine").
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "$0")/env.sh"
cd "$CABRITO_ROOT"

# The native binary builds in the background through the set-up and while Trunk builds the app (in
# target/app, so the two cargo builds do not wait for each other's lock).
mkdir -p "$CABRITO_ROOT/target"
section "cabrito: cargo build --release (in the background; log: target/native-build.log)"
nice -n 10 cargo build --release --locked --bin cabrito >"$CABRITO_ROOT/target/native-build.log" 2>&1 &
NATIVE=$!
# A failed set-up or app build ends the native build too.
trap 'kill "$NATIVE" 2>/dev/null || true' EXIT

bash scripts/setup.sh

if dist_is_fresh && [ -z "${CABRITO_REBUILD:-}" ]; then
  section "app: dist/ is up to date (CABRITO_REBUILD=1 forces a build)"
else
  section "app: trunk build --release"
  build_app
  report_dist
fi

section "cabrito serve"
if ! wait "$NATIVE"; then
  tail -n 30 "$CABRITO_ROOT/target/native-build.log" >&2
  echo "serve: the native build failed (log: target/native-build.log)" >&2
  exit 1
fi
trap - EXIT
exec "$CABRITO_ROOT/target/release/cabrito" serve "$@"
