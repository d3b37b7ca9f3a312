#!/usr/bin/env bash
# Puts `pgperf` on the PATH, as README.md, docs/ and the PR comment's Reproduce block print it: a symlink to
# this clone's dist/cli.js (the self-contained CLI, committed). Where: PGPERF_BIN_DIR when set; else
# /usr/local/bin when root; else ~/.local/bin if it is on the PATH; else /usr/local/bin if writable; else
# ~/.local/bin (Debian's ~/.profile puts it on the PATH of the next login shell once it exists; this
# script says how to use it now). A `pgperf` there that is not a link to some clone's dist/cli.js is left
# alone; a link to another clone's is repointed to this one, saying where it pointed before. PGPERF_CLI
# links another build instead (tests). Safe to run again. Run by scripts/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${PGPERF_CLI:-$PWD/dist/cli.js}
[ -f "$cli" ] || { echo "setup: $cli is missing: cannot put pgperf on the PATH" >&2; exit 1; }

on_path() { case ":$PATH:" in *":$1:"*) return 0 ;; *) return 1 ;; esac; }
if [ -n "${PGPERF_BIN_DIR:-}" ]; then
  dir=$PGPERF_BIN_DIR
elif [ "$(id -u)" -eq 0 ]; then
  dir=/usr/local/bin
elif on_path "$HOME/.local/bin"; then
  dir=$HOME/.local/bin
elif [ -w /usr/local/bin ] && on_path /usr/local/bin; then
  dir=/usr/local/bin
else
  dir=$HOME/.local/bin
fi
link=$dir/pgperf
mkdir -p "$dir"

if [ -L "$link" ] && [ "$(readlink "$link")" = "$cli" ]; then
  echo "setup: pgperf: $link -> $cli (linked before)"
elif [ -e "$link" ] && ! { [ -L "$link" ] && [[ "$(readlink "$link")" == */dist/cli.js ]]; }; then
  echo "setup: $link exists and is not a link to a pgperf clone's dist/cli.js: left alone; run this clone's CLI as: node $cli" >&2
  exit 0
elif [ -L "$link" ]; then
  # Another clone's link: repointed, and said loudly, since that clone no longer answers to `pgperf`.
  previous=$(readlink "$link")
  ln -sfn "$cli" "$link"
  case $previous in /*) target=$previous ;; *) target=$dir/$previous ;; esac
  gone=$([ -e "$target" ] || echo ', which no longer exists')
  echo "setup: pgperf: $link now points to $cli (was $previous$gone)"
  [ -n "$gone" ] || echo "setup: the clone at ${target%/dist/cli.js} is no longer \`pgperf\`: run it as node $target, or run its scripts/link-cli.sh to point the link back (PGPERF_BIN_DIR=DIR puts a clone's link elsewhere)"
else
  ln -sfn "$cli" "$link"
  echo "setup: pgperf: linked $link -> $cli"
fi

if ! on_path "$dir"; then
  echo "setup: $dir is not on this shell's PATH: open a new login shell, or run: export PATH=\"$dir:\$PATH\""
elif [ "$(command -v pgperf)" != "$link" ]; then
  echo "setup: another pgperf comes first on the PATH: $(command -v pgperf); run this one as $link" >&2
fi
