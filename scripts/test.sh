#!/usr/bin/env bash
# Install, build and run the whole test suite (GoogleTest via CTest), once
# for each preset named (release by default, or PRESET). Each preset prints
# how long its build and its tests took.
#   bash scripts/test.sh              # release
#   PRESET=asan bash scripts/test.sh  # one other preset
#   bash scripts/test.sh asan tsan    # several (scripts/sanitize.sh does this)
set -euo pipefail
cd "$(dirname "$0")/.."
presets=("$@")
((${#presets[@]})) || presets=("${PRESET:-release}")
# The asan preset builds with Debian's clang (and its libFuzzer): setup.sh's fuzz group.
groups=()
for preset in "${presets[@]}"; do
  if [ "$preset" = asan ]; then groups=(fuzz); fi
done
bash scripts/setup.sh "${groups[@]}"
if [ -f tests/server/node/package.json ]; then
  (cd tests/server/node && npm ci --no-audit --no-fund --silent)
fi
(cd tests/web && npm ci --no-audit --no-fund --silent)  # playwright-core for the browser tests
jobs="$(nproc)"
for preset in "${presets[@]}"; do
  start=$SECONDS
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j"$jobs"
  built=$SECONDS
  ctest --preset "$preset" -j"$jobs"
  echo "test.sh $preset: build $((built - start)) s, tests $((SECONDS - built)) s"
done
