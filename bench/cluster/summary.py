"""Medians of bench/cluster/run.sh's runs, as a Markdown table.

    python3 bench/cluster/summary.py OUT/*.txt

Each file is one inarow-load run, named CONFIG-RUN.txt. A cell is the median
of the runs, with every run's figure after it in brackets.
"""
import re
import statistics
import sys
from collections import defaultdict

FIGURES = [
    # (column, pattern on inarow-load's output)
    ("moves/s", r"^moves .* acked, (\d+) moves/s"),
    ("p50 ms", r"^move round trip\s+p50 ([\d.]+) ms"),
    ("p99 ms", r"^move round trip .* p99 ([\d.]+) ms"),
    ("fwd p99 ms", r"^  forwarded\s+p50 [\d.]+ ms, p99 ([\d.]+) ms"),
    ("CPU us/move", r"^server CPU .* ([\d.]+) us per move"),
    ("machine busy %", r"^machine\s+(\d+)% of"),
    ("driver %", r"this driver (\d+)% of one"),
    ("errors", r"^errors\s+(\d+)"),
    ("stalled", r"^stalled\s+(\d+)"),
]
PER_MOVE = ["forwarded", "redis_commands", "redis_cpu_us", "pg_rows_inserted", "pg_rows_updated",
            "pg_rows_deleted", "pg_commits", "pg_wal_bytes", "pg_wal_syncs", "pg_cpu_us"]


def read(path):
    text = open(path).read()
    row = {}
    for name, pattern in FIGURES:
        m = re.search(pattern, text, re.M)
        if m:
            row[name] = float(m.group(1))
    for name in PER_MOVE:
        m = re.search(r"^  %s\s+(-?\d+)\s+(-?[\d.]+)$" % re.escape(name), text, re.M)
        if m:
            row[name + "/move"] = float(m.group(2))
    return row


def cell(values):
    if not values:
        return ""
    med = statistics.median(values)
    fmt = (lambda v: "%.0f" % v) if med >= 100 else (lambda v: "%.2f" % v)
    return fmt(med) + (" (" + ", ".join(fmt(v) for v in values) + ")" if len(values) > 1 else "")


def main(paths):
    runs = defaultdict(list)
    order = []
    for path in paths:
        m = re.search(r"([^/]+)-(\d+)\.txt$", path)
        if not m:
            continue
        if m.group(1) not in order:
            order.append(m.group(1))
        runs[m.group(1)].append((int(m.group(2)), read(path)))
    columns = [name for name, _ in FIGURES] + [n + "/move" for n in PER_MOVE]
    columns = [c for c in columns if any(c in r for rs in runs.values() for _, r in rs)]
    print("| configuration | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for config in order:
        rows = [r for _, r in sorted(runs[config], key=lambda x: x[0])]
        print("| %s | " % config + " | ".join(cell([r[c] for r in rows if c in r])
                                                for c in columns) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
