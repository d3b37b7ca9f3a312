#!/usr/bin/env bash
# Installs what pgperf needs on Debian/Ubuntu, skipping what is already there: Debian's PostgreSQL server
# and pgbench, sysbench, valgrind, and the npm dependencies; then puts `pgperf` on the PATH
# (scripts/link-cli.sh). With --tests also what the test suite needs: the tools to build PostgreSQL and
# PostgreSQL source tarballs for the build tests. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
for_tests=false
[ "${1:-}" = --tests ] && for_tests=true

missing=()
have_pg() { compgen -G '/usr/lib/postgresql/*/bin/pgbench' >/dev/null && compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; }
have_pg || missing+=(postgresql postgresql-contrib)
# sysbench (1.0.20 in Debian 12) drives the sysbench workloads; it is found on the PATH.
command -v sysbench >/dev/null || missing+=(sysbench)
# valgrind's cachegrind counts CPU instructions per transaction (--instructions; docs/instructions.md).
command -v valgrind >/dev/null || missing+=(valgrind)
# Building PostgreSQL from source (pgperf build, the build tests): compiler, build tools, libraries, ccache.
if $for_tests; then
  # chromium (headless) renders the history page in its browser test; perf (linux-perf) is the instruction
  # mode's CPU counter, driven with a software event in its test where the CPU has none.
  for pkg in gcc make git bison flex pkg-config meson ninja-build ccache libreadline-dev zlib1g-dev libicu-dev chromium linux-perf; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
fi

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

# PostgreSQL source for the build tests: upstream release tarballs from Debian's source archive, 18 from
# sid (meson) and 15 from bookworm (autoconf), into /var/cache/pgperf/sources. Only when missing.
pg_sources=/var/cache/pgperf/sources
need_src=()
$for_tests && for major in 18 15; do
  compgen -G "$pg_sources/postgresql-${major}_*.orig.tar.*" >/dev/null || need_src+=("postgresql-$major")
done
if ((${#need_src[@]})); then
  as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo)
  echo "setup: downloading PostgreSQL source tarballs: ${need_src[*]}"
  # deb-src entries (deb822) for sid and bookworm, on the mirror the machine's Debian sources use.
  src_list=/etc/apt/sources.list.d/pgperf-src.sources
  uri=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  suites=$(awk '/^Suites:/ { $1 = ""; print; exit }' "$src_list" 2>/dev/null || true)
  for suite in sid bookworm; do
    case " $suites " in *" $suite "*) ;; *) suites="$suites $suite" ;; esac
  done
  printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "${uri:-http://deb.debian.org/debian}" "$(echo $suites)" | "${as_root[@]}" tee "$src_list" >/dev/null
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" mkdir -p "$pg_sources"
  (cd "$pg_sources" && "${as_root[@]}" apt-get source --download-only -qq "${need_src[@]}")
fi

# npm dependencies (the tests need them; the bundled CLI in dist/ does not).
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund
fi

# `pgperf` on the PATH, as README.md, docs/ and the PR comment's Reproduce block print it (a link to dist/cli.js).
bash scripts/link-cli.sh
