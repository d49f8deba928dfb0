#!/usr/bin/env bash
# The tests under the sanitizers:
#   asan  the whole suite under AddressSanitizer + UBSan (the asan preset)
#   tsan  the server, store and client tests under ThreadSanitizer (the tsan
#         preset builds only their binaries and what they run)
# Both build at -O1 with asserts on. A report stops the program, so its test
# fails. Each stage prints how long it took.
#   bash scripts/sanitize.sh            # asan, then tsan
#   bash scripts/sanitize.sh tsan       # one
set -euo pipefail
cd "$(dirname "$0")/.."
stages=("$@")
((${#stages[@]})) || stages=(asan tsan)
bash scripts/setup.sh
if [ -f tests/server/node/package.json ]; then
  (cd tests/server/node && npm ci --no-audit --no-fund --silent)
fi
(cd tests/web && npm ci --no-audit --no-fund --silent)  # playwright-core for the browser tests
jobs="$(nproc)"
for preset in "${stages[@]}"; do
  case "$preset" in asan | tsan) ;; *) echo "sanitize.sh: unknown stage '$preset'" >&2; exit 2 ;; esac
  start=$SECONDS
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j"$jobs"
  built=$SECONDS
  ctest --preset "$preset" -j"$jobs"
  echo "sanitize.sh $preset: build $((built - start)) s, tests $((SECONDS - built)) s"
done
