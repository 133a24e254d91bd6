#!/usr/bin/env bash
# Lighthouse 12 (npm `lighthouse`, in package.json) with Debian's Chromium over the built app (dist/)
# served by `cabrito serve`.
#
#   bash scripts/lighthouse.sh           the test: gallery and task page (n = 25) desktop and mobile,
#                                        then every view (gallery, task, scale, results, traces,
#                                        agents) in the light and dark themes; fails under 100 for
#                                        accessibility or best practices (performance only printed)
#   bash scripts/lighthouse.sh --bench   BENCHMARKS.md's table: gallery and task pages at n = 25, 200,
#                                        1,000 and 2,000, desktop and mobile (performance, LCP, TBT,
#                                        the cabrito-task-rendered mark)
#   bash scripts/lighthouse.sh --big [--sizes 25,200,1000,2000] [--runs 5]
#                                        big task pages, desktop, several runs each: medians and
#                                        the longest main-thread task (scripts/bigtask_bench.mjs)
#
# Needs dist/ (trunk build --release) and node_modules (scripts/setup.sh); builds `cabrito` if needed
# (the release build when scripts/serve.sh made one; else CABRITO_SERVER, a built binary; else debug).
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "$0")/env.sh"
cd "$CABRITO_ROOT"

[ -f dist/index.html ] || { echo "lighthouse: dist/ is missing; run trunk build --release first" >&2; exit 1; }
[ -x node_modules/.bin/lighthouse ] || { echo "lighthouse: npm lighthouse is missing; run bash scripts/setup.sh" >&2; exit 1; }

TARGET_DIR=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
# The release server that scripts/serve.sh built, the one users run, when it is there (brought up to
# date without scripts/test.sh's lint wrapper, which would build it apart from serve.sh's); else
# CABRITO_SERVER (scripts/test.sh passes the binary its tests used); else a debug build.
if [ -x "$TARGET_DIR/release/cabrito" ]; then
  env -u RUSTC_WORKSPACE_WRAPPER cargo build --release --locked --quiet --bin cabrito
  SERVER_BIN="$TARGET_DIR/release/cabrito"
elif [ -n "${CABRITO_SERVER:-}" ]; then
  SERVER_BIN="$CABRITO_SERVER"
else
  cargo build --locked --quiet --bin cabrito
  SERVER_BIN="$TARGET_DIR/debug/cabrito"
fi
LOG=$(mktemp)
"$SERVER_BIN" serve --addr 127.0.0.1:0 --dist dist >"$LOG" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; rm -f "$LOG"' EXIT
URL=
for _ in $(seq 100); do
  URL=$(grep -o 'http://[^ ]*' "$LOG" | head -n 1 || true)
  [ -n "$URL" ] && break
  kill -0 "$SERVER" 2>/dev/null || { cat "$LOG" >&2; echo "lighthouse: cabrito serve stopped" >&2; exit 1; }
  sleep 0.2
done
[ -n "$URL" ] || { echo "lighthouse: cabrito serve printed no URL" >&2; exit 1; }
case "$URL" in */) ;; *) URL="$URL/" ;; esac
# Measure what a browser gets once the server has made its precompressed copies of dist/ (brotli and
# gzip, on threads of their own; fresh already after scripts/test.sh's app build step or serve.sh).
for _ in $(seq 1800); do
  grep -q '^precompressed:' "$LOG" && break
  kill -0 "$SERVER" 2>/dev/null || { cat "$LOG" >&2; echo "lighthouse: cabrito serve stopped" >&2; exit 1; }
  sleep 0.2
done
grep '^precompressed:' "$LOG" >&2 || echo "lighthouse: the precompressed copies are not ready after 6 minutes; measuring anyway" >&2

if [ "${1:-}" = --big ]; then
  shift
  node scripts/bigtask_bench.mjs --base "$URL" "$@"
elif [ $# -eq 0 ]; then
  # The test: the runs that print performance first, alone; then the accessibility and best-practices
  # runs of the other views in two Chromiums side by side (their scores do not depend on the load).
  node scripts/lighthouse.mjs --base "$URL" --only "gallery,task n=25"
  node scripts/lighthouse.mjs --base "$URL" --only "task runtime,task instr.,task n=1000" & LANE=$!
  status=0
  node scripts/lighthouse.mjs --base "$URL" --skip "gallery,task n=25,task runtime,task instr.,task n=1000" || status=$?
  wait "$LANE" || status=$?
  exit "$status"
else
  node scripts/lighthouse.mjs --base "$URL" "$@"
fi
