#!/usr/bin/env bash
# Debian's headless Chromium for the dashboard's browser tests (tests/tests/dashboard) and
# screenshots (make dashboard-screenshots), plus the Python `playwright` package (PyPI) in
# .venv/pw that drives it through its executable path. Idempotent and quiet when present:
# apt-get runs only when /usr/bin/chromium is missing, pip only when playwright is absent or
# at another version. Playwright's own browser download (`playwright install`) is never used.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv/pw"
PLAYWRIGHT_VERSION=1.65.2

if [ ! -x /usr/bin/chromium ]; then
  echo "chromium.sh: installing Debian's chromium (apt-get)" >&2
  sudo_cmd=()
  if [ "$(id -u)" != 0 ]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi

have="$("$venv/bin/python" -c 'from importlib.metadata import version; print(version("playwright"))' 2>/dev/null || true)"
if [ "$have" != "$PLAYWRIGHT_VERSION" ]; then
  mkdir -p "$root/.venv"
  exec 9>"$root/.venv/.paygate-pw-lock"
  if command -v flock >/dev/null 2>&1; then flock 9; fi
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  echo "chromium.sh: installing playwright==$PLAYWRIGHT_VERSION into .venv/pw" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "playwright==$PLAYWRIGHT_VERSION"
fi
