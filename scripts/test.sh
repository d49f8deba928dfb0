#!/usr/bin/env bash
# Install, build and run the whole test suite (GoogleTest via CTest).
# PRESET=asan or PRESET=tsan runs it under the sanitizers instead.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${PRESET:-release}"
bash scripts/setup.sh
if [ -f tests/server/node/package.json ]; then
  (cd tests/server/node && npm ci --no-audit --no-fund --silent)
fi
(cd tests/web && npm ci --no-audit --no-fund --silent)  # playwright-core for the browser tests
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j"$(nproc)"
ctest --preset "$preset" -j"$(nproc)"
