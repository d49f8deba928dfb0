#!/usr/bin/env bash
# The figures of a cluster against one node (docs/CLUSTER.md, Sizing): moves/s,
# p99 and server CPU per move at 1,000 concurrent people-vs-people matches,
# and the Redis commands and PostgreSQL rows each move costs. Starts its own
# PostgreSQL and Redis on 127.0.0.1 and ephemeral ports, runs every
# configuration in turn RUNS times, prints the medians, and stops everything
# it started. A benchmark, run by hand: not part of CI.
#
#   bash bench/cluster/run.sh [BUILD_DIR] [SECONDS] [RUNS] [CONNECTIONS]
#   bash bench/cluster/run.sh build/release 20 2 2000
#   THINK_MS=1000 bash bench/cluster/run.sh    # paced: each move after ~1 s (0.5-1.5 s)
#
# Configurations (inarow-load with --bot-fraction 0, players placed on the
# nodes in turn):
#   sqlite-1    one node, SQLite store (a file)
#   pg-1        one node, PostgreSQL store
#   pg-3-seek   three nodes, PostgreSQL + Redis, pairs through the shared seek pool
#   pg-3-next   three nodes, private games whose joiner sits on the next node
#               (the joiner's moves, half of all, are forwarded to the owner)
#   pg-3-same   three nodes, private games whose two players share a node
#               (nothing forwarded; against pg-3-next: what forwarding costs)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build/release}
seconds=${2:-20}
runs=${3:-2}
connections=${4:-2000}
configs=${CONFIGS:-"sqlite-1 pg-1 pg-3-seek pg-3-next pg-3-same"}
think_ms=${THINK_MS:-0}  # 0: every move at once, as fast as the servers answer
[[ $build = /* ]] || build="$root/$build"
load="$build/bench/server/inarow-load"
server="$build/server/inarow-server"
for binary in "$load" "$server"; do
  [[ -x $binary ]] || { echo "no $binary: build the release preset with INAROW_BUILD_BENCH" >&2; exit 1; }
done
pgbin=${INAROW_PG_BINDIR:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
[[ -x $pgbin/initdb ]] || { echo "no PostgreSQL server binaries: run scripts/setup.sh" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "no redis-server: run scripts/setup.sh" >&2; exit 1; }

out=${OUT:-$build/cluster-bench/$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$out"
work=$(mktemp -d /tmp/inarow-cluster-bench.XXXXXX)
pg_pid=""
redis_pid=""
cleanup() {
  # Fast shutdown of PostgreSQL (SIGINT), SIGTERM to Redis; then their files.
  [[ -n $pg_pid ]] && kill -INT "$pg_pid" 2>/dev/null && wait "$pg_pid" 2>/dev/null || true
  [[ -n $redis_pid ]] && kill -TERM "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# PostgreSQL will not run as root: its directory and processes are nobody's
# (setpriv execs, so $! below is the postmaster itself).
as_pg=()
if [[ $(id -u) = 0 ]]; then
  chown nobody "$work"
  as_pg=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
fi
"${as_pg[@]}" "$pgbin/initdb" -D "$work/pg" -U inarow --auth=trust -E UTF8 --locale=C \
  >"$work/initdb.log" 2>&1 || { cat "$work/initdb.log" >&2; exit 1; }
pg_port=$(free_port)
# Durable as in production: fsync and synchronous commit stay on.
"${as_pg[@]}" "$pgbin/postgres" -D "$work/pg" -k "$work" -p "$pg_port" \
  -c listen_addresses=127.0.0.1 -c max_connections=50 >"$work/postgres.log" 2>&1 &
pg_pid=$!
for _ in $(seq 300); do
  "$pgbin/pg_isready" -q -h 127.0.0.1 -p "$pg_port" && break
  sleep 0.1
done
"$pgbin/pg_isready" -q -h 127.0.0.1 -p "$pg_port" || { cat "$work/postgres.log" >&2; exit 1; }

# Redis as docs/CLUSTER.md runs it: an append-only file (fsync every second).
redis_port=$(free_port)
mkdir -p "$work/redis"
redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$work/redis" --save "" \
  --appendonly yes --logfile "$work/redis.log" &
redis_pid=$!
for _ in $(seq 100); do
  redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
  sleep 0.1
done

echo "PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') on 127.0.0.1:$pg_port," \
  "$(redis-server --version | awk '{print $1, $3}') on 127.0.0.1:$redis_port; output in $out"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before the runs"

n=0
for run in $(seq "$runs"); do
  for config in $configs; do
    n=$((n + 1))
    db="run$n"
    psql -X -q -h 127.0.0.1 -p "$pg_port" -U inarow -d postgres -c "CREATE DATABASE $db" >/dev/null
    redis-cli -p "$redis_port" flushall >/dev/null
    pg_uri="postgresql://inarow@127.0.0.1:$pg_port/$db"
    redis_uri="redis://127.0.0.1:$redis_port"
    args=(--spawn "$server" -n "$connections" --bot-fraction 0 --seconds "$seconds" --warmup 3
          --think-ms "$think_ms"
          --probe "bash $root/bench/cluster/probe.sh")
    probe_env=()
    case $config in
      sqlite-1) args+=(--store "$work/$db.sqlite") ;;
      pg-1) args+=(--store "$pg_uri"); probe_env=(INAROW_PROBE_PG="$pg_uri" INAROW_PROBE_PG_PID="$pg_pid") ;;
      pg-3-seek | pg-3-next | pg-3-same)
        args+=(--nodes 3 --store "$pg_uri" --redis "$redis_uri")
        probe_env=(INAROW_PROBE_PG="$pg_uri" INAROW_PROBE_PG_PID="$pg_pid"
                   INAROW_PROBE_REDIS_PORT="$redis_port")
        case $config in
          pg-3-seek) args+=(--pairing seek) ;;
          pg-3-next) args+=(--pairing code --joiner-node next) ;;
          pg-3-same) args+=(--pairing code --joiner-node same) ;;
        esac ;;
      *) echo "unknown configuration $config" >&2; exit 2 ;;
    esac
    file="$out/$config-$run.txt"
    echo "== $config, run $run: inarow-load ${args[*]}" | sed "s|$root/||g" | tee "$file"
    # Bounded: connecting, warming up, measuring and stopping take well under this.
    env "${probe_env[@]}" timeout -k 10 $((seconds + 150)) "$load" "${args[@]}" >>"$file" 2>&1 ||
      echo "inarow-load exited $?" >>"$file"
    grep -E '^(moves|move round|  forwarded|errors|stalled|server CPU|machine)' "$file" || true
    rm -f "$work/$db.sqlite" "$work/$db.sqlite-wal" "$work/$db.sqlite-shm"
  done
done

python3 "$root/bench/cluster/summary.py" "$out"/*.txt | tee "$out/summary.md"
