#!/usr/bin/env bash
# The Python package: build the wheel from crates/py with maturin, install it into target/pyenv (the
# virtualenv scripts/setup.sh makes), and run its pytest suite, tests/python.
#
#   CABRITO_WHEEL_PROFILE   cargo profile of the wheel: dev (the default here: it shares the test
#                           build's compiled crates) or release (what a user installs; BENCHMARKS.md)
#   extra arguments         go to pytest (e.g. -k frontier)
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "$0")/env.sh"
cd "$CABRITO_ROOT"

PY="$CABRITO_ROOT/target/pyenv/bin/python"
[ -x "$PY" ] || { echo "python: target/pyenv is missing; run scripts/setup.sh first" >&2; exit 1; }
PROFILE="${CABRITO_WHEEL_PROFILE:-dev}"
WHEELS="$CABRITO_ROOT/target/wheels"
rm -f "$WHEELS"/cabrito-*.whl

t0=$SECONDS
if [ "$PROFILE" = release ]; then PROFILE_ARGS=(--release); else PROFILE_ARGS=(--profile "$PROFILE"); fi
"$CABRITO_ROOT/target/pyenv/bin/maturin" build --locked "${PROFILE_ARGS[@]}" -m crates/py/Cargo.toml \
  -i "$PY" -o "$WHEELS" --quiet
WHEEL=$(ls "$WHEELS"/cabrito-*.whl)
printf '  wheel    %s (%s profile): %d bytes, built in %ds\n' "$(basename "$WHEEL")" "$PROFILE" \
  "$(wc -c < "$WHEEL")" $((SECONDS - t0))
"$PY" -m pip install --quiet --force-reinstall --no-deps "$WHEEL"

# The tests compare with this tree's CLI (cargo test built it; build it when it is missing).
[ -x target/debug/cabrito ] || cargo build --locked --quiet --bin cabrito
status=0
(cd tests/python && "$PY" -m pytest -p no:cacheprovider -q "$@") || status=$?
if [ "$status" = 5 ]; then
  # pytest's "no tests collected": the suite is there to run, so this is a failure, said plainly.
  echo "python: pytest collected no tests from tests/python (every test filtered out, or none left)" >&2
  exit 1
fi
exit "$status"
