#!/usr/bin/env bash
# Build the libFuzzer targets (the fuzz preset: Debian's clang, ASan + UBSan)
# and run each over its corpus in fuzz/corpus/ for FUZZ_SECONDS (default 20).
# New inputs go to a scratch directory, not into the repository; a crash
# leaves its input in build/fuzz/crashes/ and fails the script.
#   FUZZ_SECONDS=600 bash scripts/fuzz.sh            # a longer run
#   bash scripts/fuzz.sh fuzz_game                   # one target
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-20}"
bash scripts/setup.sh fuzz
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$(nproc)"
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=()
  for f in build/fuzz/fuzz/fuzz_*; do [ -x "$f" ] && targets+=("$(basename "$f")"); done
fi
crashes=build/fuzz/crashes
mkdir -p "$crashes"
status=0
for t in "${targets[@]}"; do
  corpus="fuzz/corpus/${t#fuzz_}"
  scratch=$(mktemp -d)
  log="build/fuzz/$t.log"
  extra=()
  # The server target keeps its hub (players, matches, messages) across
  # inputs, so every input that finds something new looks like a leak to
  # libFuzzer, which then has LeakSanitizer scan the whole heap (six times
  # slower in the first minute). LeakSanitizer still checks at exit.
  [ "$t" = fuzz_server ] && extra=(-detect_leaks=0)
  if build/fuzz/fuzz/"$t" "$scratch" "$corpus" -max_total_time="$seconds" -max_len=4096 -timeout=25 \
       -artifact_prefix="$crashes/$t-" -print_final_stats=1 "${extra[@]}" >"$log" 2>&1; then
    echo "$t: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') executions, 0 crashes"
  else
    echo "$t: CRASH (input in $crashes, log in $log)"; tail -40 "$log"; status=1
  fi
  rm -rf "$scratch"
done
exit "$status"
