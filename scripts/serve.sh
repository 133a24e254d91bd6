#!/usr/bin/env bash
# The main job: install what is missing (scripts/setup.sh), build the app into dist/ (skipped when
# dist/ is newer than its sources) while the native binary builds beside it, and run `cabrito serve`,
# which prints the playground's URL. Arguments go to `cabrito serve` (e.g. --addr 127.0.0.1:9000).
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "$0")/env.sh"
cd "$CABRITO_ROOT"

bash scripts/setup.sh

# The native binary builds in the background while Trunk builds the app (in target/app, so the two
# cargo builds do not wait for each other's lock).
section "cabrito: cargo build --release (in the background; log: target/native-build.log)"
cargo build --release --locked --bin cabrito >"$CABRITO_ROOT/target/native-build.log" 2>&1 &
NATIVE=$!

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
exec "$CABRITO_ROOT/target/release/cabrito" serve "$@"
