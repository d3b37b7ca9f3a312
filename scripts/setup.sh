#!/usr/bin/env bash
# Installs what pgperf and its test suite need on Debian/Ubuntu, skipping what is already there:
# Debian's PostgreSQL server and pgbench, and the npm dependencies. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
have_pg() { compgen -G '/usr/lib/postgresql/*/bin/pgbench' >/dev/null && compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; }
have_pg || missing+=(postgresql postgresql-contrib)

if ((${#missing[@]})); then
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
  fi
  echo "setup: installing Debian packages: ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  # policy-rc.d keeps the package from starting its own cluster: pgperf runs private ones.
  if [ ! -e /usr/sbin/policy-rc.d ] && [ "$(id -u)" -eq 0 ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm dependencies (the tests need them; the bundled CLI in dist/ does not).
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund
fi
