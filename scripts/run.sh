#!/usr/bin/env bash
# Quick start: install, build (release) and start the server on its defaults
# (127.0.0.1:8080, store ./inarow.db, bots ready to play). Extra arguments go
# to inarow-server (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)"
if [ -x build/release/server/inarow-server ]; then
  exec build/release/server/inarow-server "$@"
fi
exec build/release/tools/inarow-engine play --variant connect4 --level medium "$@"
