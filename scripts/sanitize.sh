#!/usr/bin/env bash
# The tests under the sanitizers:
#   asan  the whole suite under AddressSanitizer + UBSan (the asan preset)
#   tsan  the server, store and client tests under ThreadSanitizer (the tsan
#         preset builds only their binaries and what they run). Not the
#         tests of server/core (inarow_server_core_tests,
#         inarow_server_fairness_core_tests): the core is plain logic that
#         starts no thread and has no Asio, and its tests call it from one
#         thread, so TSan has no two threads to watch there; ASan + UBSan
#         still run them, and the net tests drive the core from the
#         server's threads under TSan.
# Both build at -O1 with asserts on; asan with Debian's clang, whose build
# also has the fuzzers (scripts/fuzz.sh runs them from it in CI). A report
# stops the program, so its test fails. scripts/test.sh does the setup, the
# builds and the runs; each stage prints how long it took.
#   bash scripts/sanitize.sh            # asan, then tsan
#   bash scripts/sanitize.sh tsan       # one
set -euo pipefail
cd "$(dirname "$0")/.."
stages=("$@")
((${#stages[@]})) || stages=(asan tsan)
for preset in "${stages[@]}"; do
  case "$preset" in asan | tsan) ;; *) echo "sanitize.sh: unknown stage '$preset'" >&2; exit 2 ;; esac
done
exec bash scripts/test.sh "${stages[@]}"
