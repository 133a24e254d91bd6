#!/usr/bin/env bash
# Run a command in a fresh Debian 12 machine: a debootstrap root (a chroot) that has what a new
# machine of this project's kind has (gcc, git, curl, CPython 3.11 with pip, Rust 1.95 by rustup
# with an empty cargo home and no wasm32 target; no Node, npm or Chromium), with a new clone of
# the repository at a given commit (no target/, node_modules/ or dist/) and shared/ beside it.
# It is how the README's two commands were measured on a "fresh machine". Needs root.
#
#   scripts/fresh-machine.sh [options] [--] COMMAND...      (no command: an interactive shell)
#
#   --root DIR       where the machine is mounted (default /work/fresh-root). Its pristine base lives
#                    in DIR.base (built once by debootstrap, a few minutes); every run starts from
#                    that base again through an overlay (DIR.upper holds what the run changed), so
#                    a fresh start takes seconds.
#   --commit REV     the commit to clone (default: main), from --repo (default: this repository)
#   --keep           keep the previous run's changes (no fresh overlay, no new clone)
#   --rebuild-base   build DIR.base again
#   --log FILE       the run's log (default DIR.logs/run-<time>.log); the command's output and timing
#   --until REGEX    stop the command once a line of its output matches REGEX (e.g. serve.sh's URL);
#                    the time to that line is reported
#   --then CMD       with --until: run CMD in the machine (in the clone) after the match, before the
#                    command is stopped; $MATCH holds the matching line
#   --env K=V        set a variable for the command (repeatable), e.g. --env CI=true
#
# Inside, the clone is /work/cabrito (its shared/ is /work/shared) and the command runs there as
# root in a login shell (`bash -lc`), with PATH as rustup's installer leaves it. /proc, /sys, /dev,
# /dev/pts and /dev/shm are mounted into the machine and unmounted on exit (also on failure or
# Ctrl-C), after every process still running inside it is ended. This machine's TLS trust (the CA
# certificates it has beyond Debian's, and the variables such as SSL_CERT_FILE that point tools at
# them) is carried in, since every machine of this kind reaches the registries through it.
set -euo pipefail
# The whole script is one block, read before it runs: editing this file while a run goes on (a run
# lasts half an hour) must not change what the running script does next.
{

ROOT=/work/fresh-root
COMMIT=main
REPO="$(cd "$(dirname "$0")/.." && pwd)"
KEEP=
REBUILD=
LOG=
UNTIL=
THEN=
ENVS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --root) ROOT="${2:?--root needs a folder}"; shift 2 ;;
    --commit) COMMIT="${2:?--commit needs a revision}"; shift 2 ;;
    --repo) REPO="${2:?--repo needs a folder}"; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --rebuild-base) REBUILD=1; shift ;;
    --log) LOG="${2:?--log needs a file}"; shift 2 ;;
    --until) UNTIL="${2:?--until needs a regular expression}"; shift 2 ;;
    --then) THEN="${2:?--then needs a command}"; shift 2 ;;
    --env) [[ "${2:-}" == *=* ]] || { echo "fresh-machine: --env needs KEY=VALUE" >&2; exit 2; }
           ENVS+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    -*) echo "fresh-machine: unknown option $1 (allowed: --root --commit --repo --keep --rebuild-base --log --until --then --env)" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "fresh-machine: needs root (debootstrap, mount, chroot)" >&2; exit 1; }
[ -z "$THEN" ] || [ -n "$UNTIL" ] || { echo "fresh-machine: --then needs --until" >&2; exit 2; }
ROOT="$(realpath -m "$ROOT")"
case "$ROOT" in "$REPO"|"$REPO"/*) echo "fresh-machine: --root must be outside the repository" >&2; exit 2 ;; esac
BASE="$ROOT.base" UPPER="$ROOT.upper" WORK="$ROOT.work"
mkdir -p "$ROOT.logs"
LOG="${LOG:-$ROOT.logs/run-$(date -u +%Y%m%dT%H%M%SZ).log}"
: >"$LOG"
log() { printf '[fresh-machine %s] %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$LOG" >&2; }

# ---------------------------------------------------------------------------------------------
# The pristine base: Debian 12 as debootstrap makes it, plus what a new machine of this kind has.
# The toolchain is this machine's Rust 1.95 (rustup cannot fetch a toolchain here), copied without
# its wasm32 target, which a new machine does not have.
build_base() {
  local tmp="$BASE.tmp"
  rm -rf "$tmp"
  command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap; }
  log "debootstrap bookworm into $tmp"
  debootstrap --variant=minbase \
    --include=build-essential,git,ca-certificates,curl,python3,python3-pip,python3-venv,procps,xz-utils,less,iproute2,netbase \
    bookworm "$tmp" http://deb.debian.org/debian >>"$LOG" 2>&1
  # Debian 12's sources as a new machine has them (updates and security too); no package lists yet.
  rm -f "$tmp/etc/apt/sources.list"
  cat >"$tmp/etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  chroot "$tmp" apt-get clean
  rm -rf "$tmp"/var/lib/apt/lists/*
  printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n' >"$tmp/etc/hosts"
  echo fresh >"$tmp/etc/hostname"

  # Rust 1.95 by rustup: the toolchain, the rustup binary and its proxies, an empty cargo home.
  local sysroot name
  sysroot="$(rustup run 1.95.0 rustc --print sysroot 2>/dev/null || rustc --print sysroot)"
  sysroot="$(realpath "$sysroot")"
  "$sysroot/bin/rustc" --version | grep -q '^rustc 1\.95\.' || {
    echo "fresh-machine: no Rust 1.95 toolchain here to copy (found $sysroot)" >&2; return 1; }
  name="stable-x86_64-unknown-linux-gnu"
  log "copying the toolchain $sysroot (without wasm32) as $name"
  mkdir -p "$tmp/root/.rustup/toolchains" "$tmp/root/.rustup/downloads" "$tmp/root/.rustup/tmp" \
    "$tmp/root/.cargo/bin"
  tar -C "$sysroot" --exclude=./lib/rustlib/wasm32-unknown-unknown \
    --exclude=./lib/rustlib/manifest-rust-std-wasm32-unknown-unknown -cf - . \
    | { mkdir -p "$tmp/root/.rustup/toolchains/$name" && tar -C "$tmp/root/.rustup/toolchains/$name" -xf -; }
  local rustlib="$tmp/root/.rustup/toolchains/$name/lib/rustlib"
  sed -i '/^rust-std-wasm32-unknown-unknown$/d' "$rustlib/components"
  # rustup's own record of the toolchain's components: drop the wasm32 entry (a 5-line block).
  awk 'BEGIN { RS = ""; ORS = "\n\n" } !/target = "wasm32-unknown-unknown"/' \
    "$rustlib/multirust-config.toml" >"$rustlib/multirust-config.toml.new"
  mv "$rustlib/multirust-config.toml.new" "$rustlib/multirust-config.toml"
  ln -s "/root/.rustup/toolchains/$name" "$tmp/root/.rustup/toolchains/1.95.0-x86_64-unknown-linux-gnu"
  cat >"$tmp/root/.rustup/settings.toml" <<EOF
version = "12"
default_toolchain = "$name"
profile = "default"

[overrides]
EOF
  local rustup_bin
  rustup_bin="$(command -v rustup)"
  cp "$(realpath "$rustup_bin")" "$tmp/root/.cargo/bin/rustup"
  local proxy
  for proxy in cargo cargo-clippy cargo-fmt clippy-driver rustc rustdoc rustfmt rust-gdb rust-gdbgui rust-lldb; do
    ln "$tmp/root/.cargo/bin/rustup" "$tmp/root/.cargo/bin/$proxy"
  done
  # What rustup's installer adds to the shell start-up files.
  cat >"$tmp/root/.cargo/env" <<'EOF'
#!/bin/sh
case ":${PATH}:" in
    *:"$HOME/.cargo/bin":*) ;;
    *) export PATH="$HOME/.cargo/bin:$PATH" ;;
esac
EOF
  echo '. "$HOME/.cargo/env"' >>"$tmp/root/.profile"
  echo '. "$HOME/.cargo/env"' >>"$tmp/root/.bashrc"
  mkdir -p "$tmp/work"
  mv "$tmp" "$BASE"
  log "base ready: $(du -sh "$BASE" | cut -f1)"
}

if [ -n "$REBUILD" ] || [ ! -d "$BASE" ]; then
  rm -rf "$BASE"
  build_base
fi

# ---------------------------------------------------------------------------------------------
# Mount: the overlay (fresh unless --keep), then the kernel's file systems. The trap undoes it all.
MOUNTS=()
cleanup() {
  local status=$? pid root_of n
  trap - EXIT INT TERM
  # End whatever still runs inside the machine (a server, a browser), by process id.
  for n in 1 2 3; do
    local left=()
    for pid in /proc/[0-9]*; do
      pid="${pid#/proc/}"
      root_of="$(readlink "/proc/$pid/root" 2>/dev/null || true)"
      [ "$root_of" = "$ROOT" ] && left+=("$pid")
    done
    [ ${#left[@]} -eq 0 ] && break
    kill "$([ "$n" = 3 ] && echo -KILL || echo -TERM)" "${left[@]}" 2>/dev/null || true
    sleep 2
  done
  local i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    umount -R "${MOUNTS[$i]}" 2>/dev/null || umount -lR "${MOUNTS[$i]}" 2>/dev/null || true
  done
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if mountpoint -q "$ROOT"; then
  echo "fresh-machine: $ROOT is mounted already (another run?); unmount it first" >&2
  trap - EXIT; exit 1
fi
if [ -z "$KEEP" ]; then rm -rf "$UPPER" "$WORK"; fi
mkdir -p "$ROOT" "$UPPER" "$WORK"
mount -t overlay overlay -o "lowerdir=$BASE,upperdir=$UPPER,workdir=$WORK" "$ROOT"
MOUNTS+=("$ROOT")
mount -t proc proc "$ROOT/proc"; MOUNTS+=("$ROOT/proc")
mount -t sysfs sysfs "$ROOT/sys" 2>/dev/null || mount --rbind /sys "$ROOT/sys"; MOUNTS+=("$ROOT/sys")
mount --bind /dev "$ROOT/dev"; MOUNTS+=("$ROOT/dev")
mount --bind /dev/pts "$ROOT/dev/pts"; MOUNTS+=("$ROOT/dev/pts")
mount -t tmpfs -o mode=1777,nosuid,nodev shm "$ROOT/dev/shm"; MOUNTS+=("$ROOT/dev/shm")
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"

# This workplace's network trust: the registries are reached through TLS that this machine's CA
# bundle vouches for with certificates Debian's does not ship, and every machine here has them (and
# the variables that point Python, Node, git and curl at the bundle). Carry both over, as the
# machine's own set-up would; nothing else of this machine's configuration comes along.
HOST_BUNDLE=/etc/ssl/certs/ca-certificates.crt
if [ -f "$HOST_BUNDLE" ] && [ ! -f "$ROOT/usr/local/share/ca-certificates/workplace.crt" ]; then
  awk -v known="$ROOT$HOST_BUNDLE" '
    BEGIN { while ((getline l < known) > 0) { b = b l "\n"; if (l ~ /END CERT/) { seen[b] = 1; b = "" } } }
    { c = c $0 "\n"; if ($0 ~ /END CERT/) { if (!(c in seen)) printf "%s", c; c = "" } }' \
    "$HOST_BUNDLE" >"$ROOT/usr/local/share/ca-certificates/workplace.crt"
  if [ -s "$ROOT/usr/local/share/ca-certificates/workplace.crt" ]; then
    chroot "$ROOT" update-ca-certificates >/dev/null 2>&1
    log "added $(grep -c 'BEGIN CERT' "$ROOT/usr/local/share/ca-certificates/workplace.crt") certificate(s) of this machine's trust store"
  fi
fi
TRUST_VARS=()
for v in SSL_CERT_FILE SSL_CERT_DIR CURL_CA_BUNDLE REQUESTS_CA_BUNDLE PIP_CERT NODE_EXTRA_CA_CERTS GIT_SSL_CAINFO; do
  if [ -n "${!v:-}" ] && [ -e "$ROOT${!v}" ]; then TRUST_VARS+=("$v=${!v}"); fi
done

# The clone: no target/, node_modules/ or dist/; shared/ beside it as on a developer's machine.
if [ -z "$KEEP" ] || [ ! -d "$ROOT/work/cabrito" ]; then
  REV="$(git -C "$REPO" rev-parse --verify "$COMMIT^{commit}")"
  rm -rf "$ROOT/work/cabrito" "$ROOT/work/shared"
  git clone --quiet --no-checkout "$REPO" "$ROOT/work/cabrito"
  git -C "$ROOT/work/cabrito" checkout --quiet --detach "$REV"
  if [ -d "$REPO/../shared" ]; then cp -a "$REPO/../shared" "$ROOT/work/shared"; fi
  log "clone of $COMMIT at $REV in /work/cabrito"
fi

# ---------------------------------------------------------------------------------------------
# Run the command, timed.
[ $# -gt 0 ] || set -- bash -i
# One argument is a shell command line; several are a command and its arguments.
if [ $# -eq 1 ]; then CMD="$1"; else CMD="$(printf '%q ' "$@")"; fi
ENV_ARGS=(HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 USER=root LOGNAME=root SHELL=/bin/bash
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${TRUST_VARS[@]}" "${ENVS[@]}")
in_root() { chroot "$ROOT" /usr/bin/env -i "${ENV_ARGS[@]}" bash -lc "cd /work/cabrito && $1"; }

log "machine: $(in_root 'rustc --version; rustup target list --installed | tr "\n" " "; python3 --version; git --version' | tr '\n' ' ')"
log "run: $CMD (log: $LOG)"
START=$(date +%s.%N)
elapsed() { awk -v s="$START" -v e="$(date +%s.%N)" 'BEGIN { t = e - s; printf "%.1f s (%dm%02ds)", t, t / 60, t % 60 }'; }

if [ "$1" = bash ] && [ "${2:-}" = -i ] && [ $# -eq 2 ]; then
  in_root "exec bash -i" || true
  exit 0
fi

if [ -z "$UNTIL" ]; then
  set +e
  /usr/bin/time -v -o "$ROOT.logs/time.txt" chroot "$ROOT" /usr/bin/env -i "${ENV_ARGS[@]}" \
    bash -lc "cd /work/cabrito && $CMD" 2>&1 | tee -a "$LOG"
  STATUS=${PIPESTATUS[0]}
  set -e
  cat "$ROOT.logs/time.txt" >>"$LOG"
  grep -E 'Elapsed|Maximum resident|Exit status' "$ROOT.logs/time.txt" | sed 's/^\s*/  /' >&2 || true
  log "exit $STATUS after $(elapsed)"
  exit "$STATUS"
fi

# --until: follow the output; at the first matching line, report, run --then, and stop.
FIFO="$(mktemp -u)"; mkfifo "$FIFO"
setsid chroot "$ROOT" /usr/bin/env -i "${ENV_ARGS[@]}" bash -lc "cd /work/cabrito && exec $CMD" >"$FIFO" 2>&1 &
RUN=$!
STATUS=1
MATCH=
while IFS= read -r line; do
  printf '%s\n' "$line" | tee -a "$LOG"
  if [ -z "$MATCH" ] && grep -qE -- "$UNTIL" <<<"$line"; then
    MATCH="$line"
    log "matched /$UNTIL/ after $(elapsed): $line"
    STATUS=0
    if [ -n "$THEN" ]; then
      ENV_ARGS+=("MATCH=$MATCH")
      if in_root "$THEN" 2>&1 | tee -a "$LOG"; then log "--then passed"; else log "--then FAILED"; STATUS=1; fi
    fi
    kill -TERM -- "-$RUN" 2>/dev/null || true
  fi
done <"$FIFO"
wait "$RUN" 2>/dev/null || true
rm -f "$FIFO"
[ -n "$MATCH" ] || log "the command ended after $(elapsed) without a line matching /$UNTIL/"
exit "$STATUS"
}
