#!/usr/bin/env bash
# The main job: install what is missing (scripts/setup.sh), build the app into dist/ (skipped when
# dist/ is newer than its sources), build the native binary, and run `cabrito serve`, which prints
# the playground's URL. Arguments go to `cabrito serve` (e.g. --addr 127.0.0.1:9000).
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "$0")/env.sh"
cd "$CABRITO_ROOT"

bash scripts/setup.sh

if dist_is_fresh && [ -z "${CABRITO_REBUILD:-}" ]; then
  section "app: dist/ is up to date (CABRITO_REBUILD=1 forces a build)"
else
  section "app: trunk build --release"
  build_app
  report_dist
fi

section "cabrito serve"
cargo build --release --bin cabrito
exec cargo run --quiet --release --bin cabrito -- serve "$@"
