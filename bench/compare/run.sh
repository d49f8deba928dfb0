#!/usr/bin/env bash
# bench/compare/run.sh: inarow against a peer (boardgame.io) and the limit (a
# bare Beast WebSocket relay), one scenario, one table. See README.md here.
#
#   bench/compare/run.sh [--matches 100,1000,10000] [--seconds 10]
#                        [--servers peer,echo,inarow,json] [--no-extras]
#                        [--repeat N] [--build-dir DIR] [--no-build]
#
# --repeat N runs the servers N times over at each scale, taking turns, and
# the table shows each one's median run and the median of the ratios between
# runs of the same turn: on a shared machine the host's other tenants move
# one run against the next by more than most changes do.
# Every run is bounded in time (timeout) and every server it starts is stopped.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build="$root/build/perf"
matches_list="100,1000,10000"
seconds=10
servers="peer,echo,inarow,json"
extras=1
do_build=1
repeat=1
threads=2  # server I/O threads (the echo limit gets the same)

while [[ $# -gt 0 ]]; do
  case "$1" in
    --matches) matches_list="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --servers) servers="$2"; shift 2 ;;
    --no-extras) extras=0; shift ;;
    --build-dir) build="$2"; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --repeat) repeat="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

if ! [[ $repeat =~ ^[1-9][0-9]*$ ]]; then echo "--repeat takes a count of 1 or more, not '$repeat'" >&2; exit 2; fi

# 10,000 matches are 20,000 sockets in the server and as many in the driver.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
fd_limit=$(ulimit -n)

if [[ $do_build == 1 ]]; then
  if [[ ! -f "$build/build.ninja" ]]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DINAROW_BUILD_TESTS=OFF >/dev/null
  fi
  cmake --build "$build" -j2 --target inarow-server compare-load compare-echo-server >/dev/null
  if [[ ! -d "$here/peer/node_modules/boardgame.io" ]]; then
    (cd "$here/peer" && npm ci --no-audit --no-fund >/dev/null 2>&1)
  fi
fi
server_bin="$build/server/inarow-server"
echo_bin="$build/bench/compare/compare-echo-server"
load_bin="$build/bench/compare/compare-load"

work=$(mktemp -d "$build/compare.XXXXXX")
results="$work/results.txt"
: >"$results"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work/store"
}
trap cleanup EXIT

# start_server LOG CMD...: starts it, waits for "listening on ...:PORT", sets server_pid and port.
start_server() {
  local log="$1"; shift
  rm -f "$log"  # so that the wait below cannot read an earlier server's port
  "$@" >"$log" 2>&1 &
  server_pid=$!
  port=""
  for _ in $(seq 150); do
    port=$(sed -n 's/.*listening on [0-9.]*:\([0-9][0-9]*\).*/\1/p' "$log" | head -1)
    [[ -n "$port" ]] && return 0
    sleep 0.2
  done
  echo "server did not start: $*" >&2; cat "$log" >&2
  return 1
}

stop_server() {
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

# steal_percent BEFORE AFTER: the share of CPU time the hypervisor gave to
# others between two /proc/stat "cpu" lines. On a shared 2-core machine this
# is what makes one run differ from the next; every row prints it.
steal_percent() {
  local -a a b
  read -r -a a <<<"$1"
  read -r -a b <<<"$2"
  local total=0 i
  for i in 1 2 3 4 5 6 7 8; do total=$(( total + b[i] - a[i] )); done
  if (( total > 0 )); then echo $(( 100 * (b[8] - a[8]) / total )); else echo 0; fi
}

# run_one LABEL SERVER MATCHES [extra driver args...]: one bounded run, one RESULT line.
run_one() {
  local label="$1" kind="$2" m="$3"; shift 3
  local want=$m note=""
  # A process cannot hold more sockets than its open-file limit.
  if (( 2 * m + 200 > fd_limit )); then
    m=$(( (fd_limit - 200) / 2 ))
    note="capped:fd-limit-$fd_limit"
  fi
  local addrs=$(( m >= 5000 ? 4 : 1 ))
  # Starting N matches at once is a burst of its own: let it settle before measuring.
  local warmup=$(( 2 + m / 1000 ))
  local limit=$(( seconds + warmup + 200 ))
  local out="$work/$label-$want.out" line=""
  mkdir -p "$work/store"
  local cpu_before; cpu_before=$(head -1 /proc/stat)
  case "$kind" in
    peer)
      start_server "$work/server-$label-$want.log" env NODE_ENV=production node "$here/peer/server.js" --port 0
      line=$(timeout "$limit" node "$here/peer/drive.js" --port "$port" --server-pid "$server_pid" \
        --matches "$m" --seconds "$seconds" --warmup-seconds "$warmup" --source-addresses "$addrs" 2>"$out" | grep '^RESULT' || true) ;;
    echo)
      start_server "$work/server-$label-$want.log" "$echo_bin" --port 0 --threads "$threads"
      line=$(timeout "$limit" "$load_bin" --target echo --port "$port" --server-pid "$server_pid" \
        --matches "$m" --seconds "$seconds" --warmup-seconds "$warmup" --source-addresses "$addrs" "$@" 2>"$out" | grep '^RESULT' || true) ;;
    inarow)
      local store_args=(--store "$work/store/inarow.db")
      case "${STORE:-durable}" in
        memory) store_args=(--store :memory:) ;;
        nosync) store_args=(--store "$work/store/inarow.db" --no-sync) ;;
      esac
      start_server "$work/server-$label-$want.log" "$server_bin" --port 0 --threads "$threads" --bot-threads 1 \
        "${store_args[@]}" --max-connections-per-ip 1000000 --max-http-connections-per-ip 1000000 --rate 100000 --rate-burst 100000 \
        --log-level info
      line=$(timeout "$limit" "$load_bin" --target inarow --port "$port" --server-pid "$server_pid" \
        --matches "$m" --seconds "$seconds" --warmup-seconds "$warmup" --source-addresses "$addrs" "$@" 2>"$out" | grep '^RESULT' || true) ;;
  esac
  stop_server
  rm -rf "$work/store"
  if [[ -z "$line" ]]; then
    line="RESULT target=$kind matches=$m failed_run=1"
    note="${note:+$note,}no-result:$(tail -1 "$out" 2>/dev/null | tr ' ' '_' | cut -c1-60)"
  fi
  echo "$line label=$label want=$want rep=${rep:-1} note=${note:--} load=$(cut -d' ' -f1 /proc/loadavg) steal=$(steal_percent "$cpu_before" "$(head -1 /proc/stat)")" >>"$results"
  echo "  $label $want: $(echo "$line" | grep -o 'moves_per_s=[0-9]*') $(echo "$line" | grep -o ' p99_ms=[0-9.]*')" >&2
}

IFS=',' read -r -a scales <<<"$matches_list"
IFS=',' read -r -a kinds <<<"$servers"
echo "bench/compare: ${seconds}s per run, load average before: $(cut -d' ' -f1-3 /proc/loadavg), fd limit $fd_limit" >&2
for m in "${scales[@]}"; do
  for rep in $(seq "$repeat"); do
    for k in "${kinds[@]}"; do
      case "$k" in
        peer) run_one peer peer "$m" ;;
        echo) run_one echo echo "$m" ;;
        inarow) run_one inarow inarow "$m" ;;
        json) run_one json inarow "$m" --json ;;
      esac
    done
  done
done
rep=1

if [[ $extras == 1 ]]; then
  # The middle scale (1,000 matches by default) for bots and durability.
  mid=${scales[$(( ${#scales[@]} / 2 ))]}
  [[ ${#scales[@]} -ge 2 ]] && mid=${scales[1]}
  run_one bots inarow "$mid" --bot-fraction 0.3333 --level medium
  # Paced: players think 500 ms before each move, so the round trip is the
  # server's answer time rather than the queue of a closed loop running flat out.
  run_one paced inarow "$mid" --think-ms 500
  run_one pacedbots inarow "$mid" --think-ms 500 --bot-fraction 0.3333 --level medium
  STORE=memory run_one pacedmem inarow "$mid" --think-ms 500
  STORE=memory run_one memory inarow "$mid"
  STORE=nosync run_one nosync inarow "$mid"
fi

python3 "$here/table.py" "$results"
echo "raw results: $results" >&2
