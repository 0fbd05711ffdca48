#!/usr/bin/env bash
# Idempotent Python tool venvs for paygate (paths relative to the repo root):
#
#   scripts/venv.sh               .venv:     moto[server] + cfn-lint           (make dev, make test)
#   scripts/venv.sh sam           .venv/sam: aws-sam-cli (+ aws-sam-translator), in a venv of its
#                                 own, shared by the clones of this machine (make deploy,
#                                 make test: the deploy rehearsal)
#   scripts/venv.sh schemathesis  .venv/st:  schemathesis + botocore (SigV4 of the admin API),
#                                            a venv of its own (make test: tests/tests/conformance.rs)
#
# aws-sam-cli gets its own venv because it pins older boto3/botocore than moto 5.2.5 was
# measured with; installing both in one venv would silently downgrade moto's dependencies.
#
# Installs only what is missing or at another version. When everything is present it only
# reads package metadata (one python start, ~0.05 s). Quiet unless it installs. Exports
# nothing: callers use .venv/bin/moto_server, .venv/bin/cfn-lint,
# .venv/sam/bin/sam, .venv/st/bin/schemathesis.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"

# Pinned tool versions. moto 5.2.5 and cfn-lint 1.58.0 are the versions measured in
# shared/reference/local-tooling.md; aws-sam-cli 1.170.0 likewise.
main_reqs=("moto[server]==5.2.5" "cfn-lint==1.58.0")
sam_reqs=()
st_reqs=()
for extra in "$@"; do
  case "$extra" in
    # aws-sam-translator: the SAM transform the deploy rehearsal runs
    # (scripts/sam_rehearse.py); the version aws-sam-cli 1.170.0 brings, pinned here.
    sam) sam_reqs+=("aws-sam-cli==1.170.0" "aws-sam-translator==1.115.0") ;;
    # Its own venv: schemathesis pins its own dependency ranges (hypothesis, requests).
    schemathesis) st_reqs+=("schemathesis==4.32.5" "botocore==1.44.5") ;;
    *) echo "venv.sh: unknown extra '$extra' (known: sam, schemathesis)" >&2; exit 2 ;;
  esac
done

# missing DIR REQ... : prints the requirements DIR's venv does not satisfy (package absent
# or at another version). moto's [server] extra is checked through flask and flask-cors.
missing() {
  local dir="$1"
  shift
  if [ ! -x "$dir/bin/python" ]; then
    printf '%s\n' "$@"
    return
  fi
  "$dir/bin/python" - "$@" <<'PY'
import sys
from importlib.metadata import PackageNotFoundError, version

def have(name, want=""):
    try:
        got = version(name)
    except PackageNotFoundError:
        return False
    return not want or got == want

for req in sys.argv[1:]:
    name, _, want = req.partition("==")
    extras = []
    if "[" in name:
        name, extras = name[: name.index("[")], ["flask", "flask-cors"]
    if not have(name, want) or not all(have(e) for e in extras):
        print(req)
PY
}

# ensure DIR REQ... : creates the venv if needed and installs what `missing` reports.
ensure() {
  local dir="$1"
  shift
  local todo
  todo="$(missing "$dir" "$@")"
  [ -z "$todo" ] && return 0
  if [ ! -x "$dir/bin/python" ]; then
    echo "venv.sh: creating ${dir#"$root"/}" >&2
    python3 -m venv "$dir"
  fi
  echo "venv.sh: installing into ${dir#"$root"/}: ${todo//$'\n'/ }" >&2
  local -a list
  mapfile -t list <<<"$todo" # an array: "moto[server]" must not meet pathname expansion
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "${list[@]}"
  todo="$(missing "$dir" "$@")"
  if [ -n "$todo" ]; then
    echo "venv.sh: still missing after pip install: ${todo//$'\n'/ }" >&2
    exit 1
  fi
}

# Fast path: nothing to do, no lock, no pip.
if [ -z "$(missing "$venv" "${main_reqs[@]}")" ] &&
  { [ ${#sam_reqs[@]} -eq 0 ] || [ -z "$(missing "$venv/sam" "${sam_reqs[@]}")" ]; } &&
  { [ ${#st_reqs[@]} -eq 0 ] || [ -z "$(missing "$venv/st" "${st_reqs[@]}")" ]; }; then
  exit 0
fi

# Slow path, serialized so that `make dev` and `make test` started together do not race.
# The lock file lives inside .venv (git-ignored); python -m venv accepts the existing dir.
mkdir -p "$venv"
exec 9>"$venv/.paygate-lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi

ensure "$venv" "${main_reqs[@]}"
if [ ${#sam_reqs[@]} -gt 0 ]; then
  # aws-sam-cli takes ~40 s to install, and `make test` needs it (the deploy rehearsal): one
  # venv per pinned set on this machine, outside the clone, which a fresh clone (CI's)
  # links as .venv/sam. Created at its real path, so its scripts name that path.
  if [ ! -e "$venv/sam" ]; then
    key="$(printf '%s\n' "${sam_reqs[@]}" | sha256sum | cut -c1-12)"
    shared="${XDG_CACHE_HOME:-$HOME/.cache}/paygate/venv-sam-$key"
    mkdir -p "$shared"
    ln -s "$shared" "$venv/sam"
  fi
  ensure "$(readlink -f "$venv/sam")" "${sam_reqs[@]}"
fi
if [ ${#st_reqs[@]} -gt 0 ]; then ensure "$venv/st" "${st_reqs[@]}"; fi
