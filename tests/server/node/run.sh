#!/bin/sh
# The Node `ws` client test. Exit 77 (ctest: skipped) when node or npm is
# missing or the ws package cannot be installed.
command -v node >/dev/null 2>&1 || exit 77
command -v npm >/dev/null 2>&1 || exit 77
cd "$(dirname "$0")" || exit 1
if [ ! -d node_modules/ws ]; then
  npm ci --no-audit --no-fund --silent >/dev/null 2>&1 || exit 77
fi
exec node play_vs_bot.mjs "$1"
