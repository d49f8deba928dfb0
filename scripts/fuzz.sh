#!/usr/bin/env bash
# Build the libFuzzer targets (Debian's clang, ASan + UBSan) and run each
# over its corpus in fuzz/corpus/ for FUZZ_SECONDS (default 20). They are
# built in the tree of FUZZ_PRESET: `fuzz` (the default) builds just them
# and what they link; `asan` also builds them, with the same flags, so
# after the asan stage CI fuzzes from that tree instead of compiling every
# library once more. New inputs go to a scratch directory, not into the
# repository; a crash leaves its input in build/<preset>/crashes/ and
# fails the script.
#   FUZZ_SECONDS=600 bash scripts/fuzz.sh            # a longer run
#   bash scripts/fuzz.sh fuzz_game                   # one target
#   FUZZ_PRESET=asan bash scripts/fuzz.sh            # from the asan tree
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-20}"
preset="${FUZZ_PRESET:-fuzz}"
case "$preset" in fuzz | asan) ;; *) echo "fuzz.sh: FUZZ_PRESET must be fuzz or asan, not '$preset'" >&2; exit 2 ;; esac
bash scripts/setup.sh fuzz
cmake --preset "$preset" >/dev/null
cmake --build "build/$preset" --target inarow_fuzzers -j"$(nproc)"
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=()
  for f in "build/$preset"/fuzz/fuzz_*; do [ -x "$f" ] && targets+=("$(basename "$f")"); done
fi
crashes="build/$preset/crashes"
mkdir -p "$crashes"
status=0
for t in "${targets[@]}"; do
  corpus="fuzz/corpus/${t#fuzz_}"
  scratch=$(mktemp -d)
  log="build/$preset/fuzz/$t.log"
  extra=()
  # The server target keeps its hub (players, matches, messages) across
  # inputs, so every input that finds something new looks like a leak to
  # libFuzzer, which then has LeakSanitizer scan the whole heap (six times
  # slower in the first minute). LeakSanitizer still checks at exit.
  [ "$t" = fuzz_server ] && extra=(-detect_leaks=0)
  if "build/$preset/fuzz/$t" "$scratch" "$corpus" -max_total_time="$seconds" -max_len=4096 -timeout=25 \
       -artifact_prefix="$crashes/$t-" -print_final_stats=1 "${extra[@]}" >"$log" 2>&1; then
    echo "$t: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') executions, 0 crashes"
  else
    echo "$t: CRASH (input in $crashes, log in $log)"; tail -40 "$log"; status=1
  fi
  rm -rf "$scratch"
done
exit "$status"
