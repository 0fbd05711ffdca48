#!/usr/bin/env bash
# The arm64 Lambda bundles (template.yaml: Architectures [arm64], Runtime provided.al2023).
#
#   scripts/arm64.sh toolchain    install what the cross build and qemu need (only what is missing)
#   scripts/arm64.sh check        exit 1 naming what `toolchain` would install (nothing installed)
#   scripts/arm64.sh env          print the build's environment (KEY=value lines) after `toolchain`
#   scripts/arm64.sh build BIN... release arm64 builds of BIN..., packaged for the template:
#                                 target/lambda/<bin>/bootstrap (the CodeUri folder holds
#                                 it and partitions.json, the SDK's trimmed partition table
#                                 that template.yaml names) and target/lambda/<bin>.zip (both at its root,
#                                 as Lambda takes it; beside the folder, so SAM does not
#                                 package the zip into itself), and target/lambda/<bin>.source
#                                 (what it was built from, below)
#   scripts/arm64.sh fresh BIN    exit 0 when target/lambda/BIN.zip was built from the sources
#                                 now in the work tree (its .source still matches), else 1
#
# Rust: rustup's aarch64-unknown-linux-gnu target when it is installed (rustup's rustc),
# otherwise Debian's rustc (RUSTC=/usr/bin/rustc, package rustc-web) and its arm64 std
# (libstd-rust-web-dev:arm64, which needs `dpkg --add-architecture arm64`); rustup cannot
# download the aarch64 std on these machines. Either way the linker and the C compiler of
# build scripts (CC_aarch64_unknown_linux_gnu) are Debian's aarch64-linux-gnu-gcc with
# libc6-dev-arm64-cross, and Debian's qemu-user-static runs the binaries in tests
# (qemu-aarch64-static -L /usr/aarch64-linux-gnu).
#
# The build goes to its own target dir, target/arm64, so it never invalidates the host's
# artifacts in target/ (another rustc, other flags) nor waits on the host build's lock.
#
# Idempotent and quiet when everything is present: apt-get runs only for missing packages.
# Each bootstrap is checked against the runtime's glibc (provided.al2023 has 2.34, Debian's
# cross libc is newer): a binary needing a newer symbol version would not start on Lambda.
#
# target/lambda/<bin>.source records what a bundle was built from: a comment line with the
# commit (and whether those files had uncommitted changes), then, in `sha256sum -c` form,
# every workspace file cargo compiled into the binary (its dep-info, <bin>.d), the Cargo.toml
# of each of those packages, the workspace's Cargo.toml and Cargo.lock. `make bench` reports
# an arm64 zip only when `fresh` says all of them are unchanged, so it never shows the size of
# a bundle built from other sources. No .source is written when one of those files changed
# while cargo ran (the bundle's sources are then unknown).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target=aarch64-unknown-linux-gnu
target_dir="$root/target/arm64"
lambda_dir="$root/target/lambda"
# provided.al2023's glibc.
max_glibc=2.34

rustup_has_target() {
  command -v rustup >/dev/null 2>&1 && rustup target list --installed 2>/dev/null | grep -qx "$target"
}

# Prints the Debian packages (apt names) that are missing, one a line.
missing_packages() {
  [ -x /usr/bin/aarch64-linux-gnu-gcc ] || echo gcc-aarch64-linux-gnu
  [ -f /usr/aarch64-linux-gnu/lib/crt1.o ] || echo libc6-dev-arm64-cross
  [ -x /usr/bin/qemu-aarch64-static ] || echo qemu-user-static
  command -v zip >/dev/null 2>&1 || echo zip
  if ! rustup_has_target; then
    [ -x /usr/bin/rustc ] || echo rustc-web
    [ -x /usr/bin/cargo ] || echo cargo-web
    compgen -G "/usr/lib/rustlib/$target/lib/libstd-*.rlib" >/dev/null || echo libstd-rust-web-dev:arm64
  fi
}

toolchain() {
  local missing
  missing="$(missing_packages)"
  [ -n "$missing" ] || return 0
  # shellcheck disable=SC2086 # one package a line
  echo "arm64.sh: installing Debian packages:" $missing >&2
  local sudo_cmd=()
  if [ "$(id -u)" != 0 ]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  if grep -q ':arm64$' <<<"$missing" && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    "${sudo_cmd[@]}" dpkg --add-architecture arm64
  fi
  "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
  # shellcheck disable=SC2086
  "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null
  missing="$(missing_packages)"
  if [ -n "$missing" ]; then
    # shellcheck disable=SC2086
    echo "arm64.sh: still missing after apt-get:" $missing >&2
    exit 1
  fi
}

# The cross build's environment, one KEY=value a line.
build_env() {
  if ! rustup_has_target; then
    echo "RUSTC=/usr/bin/rustc"
  fi
  echo "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc"
  echo "CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc"
  echo "AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar"
  echo "CARGO_TARGET_DIR=$target_dir"
}

# Fails when $1 needs a glibc symbol version newer than $max_glibc.
check_glibc() {
  local newest
  newest="$(aarch64-linux-gnu-objdump -T "$1" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n1)"
  if [ -n "$newest" ] && [ "$(printf '%s\n%s\n' "$newest" "$max_glibc" | sort -V | tail -n1)" != "$max_glibc" ]; then
    echo "arm64.sh: $1 needs GLIBC_$newest; provided.al2023 has $max_glibc" >&2
    exit 1
  fi
}

# The workspace files (relative to $root) binary $1 was built from, one a line.
sources_of() {
  local dep="$target_dir/$target/release/$1.d" files
  # Not target/: a build script's output (the trust store of shared/aws) is made by the build.
  files="$(sed 's/^[^:]*: *//' "$dep" | tr ' ' '\n' | sed -n "s|^$root/||p" | grep -v '^target/' | sort -u)"
  {
    printf '%s\n' "$files"
    sed -n 's|^\(.*\)/src/.*|\1/Cargo.toml|p; s|^\(.*\)/build\.rs$|\1/Cargo.toml|p' <<<"$files"
    echo Cargo.toml
    echo Cargo.lock
    echo shared/aws/partitions.json
  } | sort -u
}

# Writes target/lambda/$1.source for a bundle whose build started at epoch second $2.
stamp() {
  local b="$1" since="$2" files changed state=""
  files="$(sources_of "$b")"
  changed="$(cd "$root" && while IFS= read -r f; do
    [ "$(stat -c %Y "$f")" -lt "$since" ] || echo "$f"
  done <<<"$files")"
  if [ -n "$changed" ]; then
    # shellcheck disable=SC2086 # one path a line
    echo "arm64.sh: $b: changed during the build, so no $b.source (make bench will not report its zip):" $changed >&2
    return 0
  fi
  # shellcheck disable=SC2086
  (cd "$root" && git diff --quiet HEAD -- $files) || state=" with uncommitted changes"
  {
    echo "# built from $(cd "$root" && git rev-parse --short=12 HEAD)$state, $(date -u +%Y-%m-%dT%H:%MZ)"
    # shellcheck disable=SC2086
    (cd "$root" && sha256sum $files)
  } >"$lambda_dir/$b.source.tmp"
  mv -f "$lambda_dir/$b.source.tmp" "$lambda_dir/$b.source"
}

# Whether target/lambda/$1.zip was built from the sources now in the work tree.
fresh() {
  local s="$lambda_dir/$1.source"
  [ -f "$s" ] && [ -f "$lambda_dir/$1.zip" ] || return 1
  (cd "$root" && grep -v '^#' "$s" | sha256sum -c --status --strict - 2>/dev/null)
}

build() {
  [ "$#" -gt 0 ] || { echo "arm64.sh build: name at least one binary" >&2; exit 2; }
  toolchain
  local args=() b out since
  for b in "$@"; do
    # By package, never `--bin`: features unify over the packages selected, and the whole
    # workspace (the CLI's and the tests' AWS-LC, HTTP/2) must not reach a function.
    args+=(-p "fn-$b")
    rm -f "$lambda_dir/$b.source"
  done
  since="$(date +%s)"
  (
    cd "$root"
    while IFS= read -r kv; do export "${kv?}"; done < <(build_env)
    cargo build --release --locked --target "$target" "${args[@]}"
  )
  for b in "$@"; do
    out="$target_dir/$target/release/$b"
    check_glibc "$out"
    mkdir -p "$lambda_dir/$b"
    # Replace, never write through: a running qemu may have the old file open.
    cp "$out" "$lambda_dir/$b/bootstrap.tmp"
    mv -f "$lambda_dir/$b/bootstrap.tmp" "$lambda_dir/$b/bootstrap"
    # The SDK's trimmed partition table (template.yaml: /var/task/partitions.json).
    cp "$root/shared/aws/partitions.json" "$lambda_dir/$b/partitions.json"
    rm -f "$lambda_dir/$b.zip"
    (cd "$lambda_dir/$b" && zip -q -9 -X "../$b.zip" bootstrap partitions.json)
    stamp "$b" "$since"
  done
}

case "${1:-}" in
  toolchain) toolchain ;;
  check)
    missing="$(missing_packages)"
    if [ -n "$missing" ]; then
      # shellcheck disable=SC2086
      echo "arm64.sh: missing:" $missing "(bash scripts/arm64.sh toolchain installs them)" >&2
      exit 1
    fi
    ;;
  env) build_env ;;
  build) shift; build "$@" ;;
  fresh) [ "$#" -eq 2 ] || { echo "usage: scripts/arm64.sh fresh BIN" >&2; exit 2; }; fresh "$2" ;;
  *) echo "usage: scripts/arm64.sh toolchain | check | env | build BIN... | fresh BIN" >&2; exit 2 ;;
esac
