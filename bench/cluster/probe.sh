#!/usr/bin/env bash
# The counters bench/cluster/run.sh reads when inarow-load starts and stops
# measuring (its --probe): one "name number" a line. The nodes' ports come
# from inarow-load (INAROW_LOAD_PORTS); Redis and PostgreSQL, when the
# configuration has them, from INAROW_PROBE_REDIS_PORT, INAROW_PROBE_PG (its
# URI) and INAROW_PROBE_PG_PID (the postmaster's pid, for its CPU time).
set -euo pipefail

# Every node's /metrics, added up.
for port in ${INAROW_LOAD_PORTS:-}; do
  curl -sf --max-time 5 "http://127.0.0.1:$port/metrics"
done | awk '
  /^inarow_moves_total /     { moves += $2 }
  /^inarow_forwarded_total / { fwd += $2 }
  /^inarow_relayed_in_total / { relayed += $2 }
  END { printf "server_moves %d\nforwarded %d\nrelayed_in %d\n", moves, fwd, relayed }'

if [[ -n ${INAROW_PROBE_REDIS_PORT:-} ]]; then
  # Every command Redis ran (these INFO calls too: two per probe), and
  # each command's own count.
  redis-cli -h 127.0.0.1 -p "$INAROW_PROBE_REDIS_PORT" info stats | tr -d '\r' | awk -F: '
    $1 == "total_commands_processed" { print "redis_commands", $2 }
    $1 == "total_net_input_bytes"    { print "redis_in_bytes", $2 }
    $1 == "total_net_output_bytes"   { print "redis_out_bytes", $2 }'
  # Redis's own CPU time (its main thread and helpers), in microseconds.
  redis-cli -h 127.0.0.1 -p "$INAROW_PROBE_REDIS_PORT" info cpu | tr -d '\r' | awk -F: '
    $1 == "used_cpu_sys" || $1 == "used_cpu_user" { s += $2 }
    END { printf "redis_cpu_us %d\n", s * 1e6 }'
  redis-cli -h 127.0.0.1 -p "$INAROW_PROBE_REDIS_PORT" info commandstats | tr -d '\r' |
    sed -n 's/^cmdstat_\([^:]*\):calls=\([0-9]*\),.*/redis.\1 \2/p'
fi

if [[ -n ${INAROW_PROBE_PG:-} ]]; then
  # Rows written to the store's tables, its commits and its WAL. Backends
  # report their counts about once a second while busy, so a 20 s window
  # is right to within a few percent.
  psql -X -q -At -F ' ' "$INAROW_PROBE_PG" <<'SQL'
SELECT 'pg_rows_inserted', coalesce(sum(n_tup_ins), 0) FROM pg_stat_user_tables;
SELECT 'pg_rows_updated', coalesce(sum(n_tup_upd), 0) FROM pg_stat_user_tables;
SELECT 'pg_rows_deleted', coalesce(sum(n_tup_del), 0) FROM pg_stat_user_tables;
SELECT 'pg_commits', xact_commit FROM pg_stat_database WHERE datname = current_database();
SELECT 'pg_wal_records', wal_records FROM pg_stat_wal;
SELECT 'pg_wal_bytes', wal_bytes FROM pg_stat_wal;
SELECT 'pg_wal_syncs', wal_sync FROM pg_stat_wal;
SQL
fi

if [[ -n ${INAROW_PROBE_PG_PID:-} ]]; then
  # PostgreSQL's CPU time: the postmaster and its children (the nodes'
  # backends live as long as the nodes), utime + stime, in microseconds.
  cat /proc/[0-9]*/stat 2>/dev/null | awk -v pg="$INAROW_PROBE_PG_PID" -v tick="$(getconf CLK_TCK)" '
    $1 == pg || $4 == pg { t += $14 + $15 }
    END { printf "pg_cpu_us %d\n", t * 1e6 / tick }'
fi
