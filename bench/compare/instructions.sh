#!/usr/bin/env bash
# bench/compare/instructions.sh: the server's user-space instructions per
# move, counted by callgrind while compare-load plays flat out. A count of
# instructions does not move with the host's other tenants the way moves/s
# and CPU seconds do (steal), so it tells two builds apart where a run of
# run.sh cannot. It leaves out the kernel (sockets, fsync) and says nothing
# of cache misses or waiting: a check on a change, not a throughput.
#
#   bench/compare/instructions.sh [--server BIN] [--matches 50] [--seconds 10]
#                                 [--store durable|memory] [--build-dir DIR]
#
# Prints one line: moves=N instructions=I per_move=I/N.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build="$root/build/perf"
server=""
matches=50
seconds=10
store=durable

while [[ $# -gt 0 ]]; do
  case "$1" in
    --server) server="$2"; shift 2 ;;
    --matches) matches="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --store) store="$2"; shift 2 ;;
    --build-dir) build="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
for n in "$matches" "$seconds"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "--matches and --seconds take counts, not '$n'" >&2; exit 2; }
done
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
server=${server:-$build/server/inarow-server}
load="$build/bench/compare/compare-load"
[[ -x $server && -x $load ]] || { echo "build inarow-server and compare-load in $build first" >&2; exit 2; }

work=$(mktemp -d)
pid=""
cleanup() {
  if [[ -n $pid ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

case "$store" in
  durable) store_arg="$work/inarow.db" ;;
  memory) store_arg=":memory:" ;;
  *) echo "--store is durable or memory, not '$store'" >&2; exit 2 ;;
esac

valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$server" --port 0 --threads 2 \
  --bot-threads 1 --store "$store_arg" --max-connections-per-ip 1000000 --max-http-connections-per-ip 1000000 --rate 100000 \
  --rate-burst 100000 >"$work/server.log" 2>&1 &
pid=$!
port=""
for _ in $(seq 300); do
  port=$(sed -n 's/.*listening on [0-9.]*:\([0-9][0-9]*\).*/\1/p' "$work/server.log" | head -1)
  [[ -n $port ]] && break
  sleep 0.1
done
[[ -n $port ]] || { echo "the server did not start" >&2; cat "$work/server.log" >&2; exit 1; }

moves() { curl -fsS "http://127.0.0.1:$port/metrics" | awk '/^inarow_moves_total /{print $2}'; }

"$load" --target inarow --port "$port" --matches "$matches" --seconds $((seconds + 4)) \
  --warmup-seconds 1 >"$work/load.out" 2>&1 &
driver=$!
# Count from after the connections and the first games are made...
sleep 3
callgrind_control --zero "$pid" >/dev/null
before=$(moves)
sleep "$seconds"
# ...to a dump taken while the load still runs.
after=$(moves)
callgrind_control --dump "$pid" >/dev/null
wait "$driver" || true

dump=$(ls "$work"/cg.out.* 2>/dev/null | head -1)
[[ -n $dump ]] || { echo "callgrind wrote no dump" >&2; exit 1; }
instructions=$(awk '/^(summary|totals):/{print $2; exit}' "$dump")
n=$((after - before))
((n > 0)) || { echo "no moves were made" >&2; exit 1; }
echo "moves=$n instructions=$instructions per_move=$((instructions / n))"
