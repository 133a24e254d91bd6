#!/usr/bin/env bash
# Shows that clippy.toml's purity lists catch violations: a scratch crate under the repository's
# clippy.toml, with the pure crates' lint levels, uses a file, a clock, the environment, a process, a
# socket and the terminal; clippy must refuse each one. Also checks that every pure crate (gen,
# check, analysis, agents, and the app's library) denies the lists and that only the native crate, the
# Python bindings and src/web allow them. ~2 s.
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "$0")/env.sh"
cd "$CABRITO_ROOT"

lint_line='#![warn(clippy::disallowed_methods, clippy::disallowed_types, clippy::disallowed_macros)]'
for lib in crates/gen/src/lib.rs crates/check/src/lib.rs crates/analysis/src/lib.rs crates/agents/src/lib.rs src/lib.rs; do
  grep -qxF "$lint_line" "$lib" || { echo "purity: $lib no longer has: $lint_line" >&2; exit 1; }
done
allowing=$(grep -rlE 'allow\([^)]*clippy::disallowed_(methods|types|macros)' src crates | sort | tr '\n' ' ')
[ "$allowing" = "crates/native/src/lib.rs crates/py/src/lib.rs src/web/mod.rs " ] ||
  { echo "purity: only crates/native/src/lib.rs, crates/py/src/lib.rs and src/web/mod.rs may allow the purity lints; found: $allowing" >&2; exit 1; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/src"
cat > "$scratch/Cargo.toml" <<'TOML'
[package]
name = "purity-probe"
version = "0.0.0"
edition = "2021"
[lib]
path = "src/lib.rs"
TOML
{
  echo "$lint_line"
  cat <<'RS'
pub fn impure() -> usize {
    let file = std::fs::read_to_string("x").unwrap_or_default();
    let clock = std::time::Instant::now();
    let home = std::env::var("HOME").unwrap_or_default();
    let pid = std::process::id() as usize;
    let socket = std::net::TcpStream::connect("127.0.0.1:1").is_ok();
    println!("{file}{home}{socket}");
    clock.elapsed().as_secs() as usize + pid
}
RS
} > "$scratch/src/lib.rs"
out=$(cd "$scratch" && CLIPPY_CONF_DIR="$CABRITO_ROOT" CARGO_TARGET_DIR="$scratch/target" \
  cargo clippy --quiet --offline -- -D warnings 2>&1 || true)
for what in 'method `std::fs::read_to_string`' 'method `std::time::Instant::now`' 'type `std::time::Instant`' \
  'method `std::env::var`' 'method `std::process::id`' 'method `std::net::TcpStream::connect`' 'macro `std::println`'; do
  grep -qF "use of a disallowed $what" <<<"$out" ||
    { printf 'purity: clippy did not refuse the disallowed %s; its output:\n%s\n' "$what" "$out" >&2; exit 1; }
done
n=$(grep -c "use of a disallowed" <<<"$out")
echo "purity: clippy refuses ($n errors) files, clocks, environment, processes, sockets and printing in the core"
