#!/usr/bin/env python3
"""Print bench/compare's one table from the RESULT lines run.sh collected."""
import sys

NAMES = {"peer": "boardgame.io (peer)", "echo": "Beast echo (limit)",
         "inarow": "inarow protobuf", "json": "inarow JSON text",
         "bots": "inarow protobuf, 1/3 vs medium bots", "memory": "inarow protobuf, --store :memory:",
         "nosync": "inarow protobuf, --no-sync",
         "paced": "inarow protobuf, paced 500 ms",
         "pacedbots": "inarow, paced 500 ms, 1/3 vs bots",
         "pacedmem": "inarow, paced 500 ms, :memory:"}


def parse(line):
    r = {}
    for kv in line.split()[1:]:
        k, _, v = kv.partition("=")
        r[k] = v
    return r


def num(r, k, default=0.0):
    try:
        return float(r.get(k, default))
    except ValueError:
        return default


runs = [parse(l) for l in open(sys.argv[1]) if l.startswith("RESULT")]
# With --repeat, a server has several runs at a scale: its row is the median
# run by moves/s, and its notes say over how many runs and their spread.
groups = {}
for r in runs:
    groups.setdefault((r["label"], r["want"]), []).append(r)


def median_run(rs):
    return sorted(rs, key=lambda r: num(r, "moves_per_s"))[(len(rs) - 1) // 2]


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


rows = [median_run(rs) for rs in groups.values()]
by = {key: median_run(rs) for key, rs in groups.items()}


def paired_ratios(label, other, m):
    """moves/s of `label` over `other` for each turn both ran at scale m."""
    mine = {r.get("rep", "1"): r for r in groups.get((label, m), [])}
    theirs = {r.get("rep", "1"): r for r in groups.get((other, m), [])}
    return [num(mine[k], "moves_per_s") / num(theirs[k], "moves_per_s")
            for k in sorted(mine) if k in theirs and num(theirs[k], "moves_per_s") > 0]


def ratio_text(ratios, digits, unit=""):
    text = f"{median(ratios):.{digits}f}{unit}"
    if len(ratios) > 1:
        text += (f" (median of {len(ratios)} turns, "
                 f"{min(ratios):.{digits}f}{unit} to {max(ratios):.{digits}f}{unit})")
    return text

head = (f"{'server':<38} {'matches':>7} {'conns':>11} {'moves/s':>9} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'p99.9 ms':>9} {'CPU s/1k':>9} {'VmHWM MiB':>9} {'KiB/conn':>8} {'load':>5} {'steal%':>6}  notes")
print(head)
print("-" * len(head))
for r in rows:
    ok = f"{r.get('connected', '0')}/{r.get('connections', '?')}"
    notes = [] if r.get("note", "-") == "-" else [r["note"]]
    group = groups[(r["label"], r["want"])]
    if len(group) > 1:
        speeds = [num(g, "moves_per_s") for g in group]
        notes.append(f"median of {len(group)} runs, {min(speeds):.0f}-{max(speeds):.0f} moves/s")
    if num(r, "dropped"):
        notes.append(f"dropped={r['dropped']}")
    if num(r, "errors"):
        notes.append(f"errors={r['errors']}")
    if r["label"] in ("bots", "pacedbots"):
        notes.append(f"people-only p99 {num(r, 'people_p99_ms'):.2f} ms, vs-bot p99 {num(r, 'bot_p99_ms'):.2f} ms")
    print(f"{NAMES.get(r['label'], r['label']):<38} {r['want']:>7} {ok:>11} {num(r, 'moves_per_s'):>9.0f} "
          f"{num(r, 'p50_ms'):>8.2f} {num(r, 'p99_ms'):>8.2f} {num(r, 'p999_ms'):>9.2f} "
          f"{num(r, 'cpu_s_per_1000'):>9.3f} {num(r, 'hwm_kib') / 1024:>9.1f} {num(r, 'kib_per_conn'):>8.1f} "
          f"{r.get('load', '?'):>5} {r.get('steal', '?'):>6}  {'; '.join(notes)}")

print()
print("ratios (moves/s; p99; server CPU seconds per move, median rows)")
scales = sorted({r["want"] for r in rows if r["label"] in ("peer", "echo", "inarow", "json")}, key=int)
for m in scales:
    for label in ("inarow", "json"):
        me = by.get((label, m))
        if not me:
            continue
        parts = []
        for other, name in (("peer", "peer"), ("echo", "limit")):
            o = by.get((other, m))
            ratios = paired_ratios(label, other, m)
            if o and ratios:
                # The server's own CPU per move, apart from the driver's share of the cores.
                cpu = num(me, "cpu_s_per_1000") / max(num(o, "cpu_s_per_1000"), 1e-9)
                parts.append(f"{NAMES[label]}/{name} at {m}: {ratio_text(ratios, 2, 'x')} moves/s, "
                             f"p99 {num(me, 'p99_ms'):.2f} vs {num(o, 'p99_ms'):.2f} ms, "
                             f"server CPU per move {cpu:.2f}x")
            elif o:
                parts.append(f"{NAMES[label]}/{name} at {m}: {name} made no moves")
        for p in parts:
            print("  " + p)

print()
print("targets (printed, not timed by CI)")


def verdict(ok):
    return "MET" if ok else "NOT MET"


for m in scales:
    me, peer, echo = by.get(("inarow", m)), by.get(("peer", m)), by.get(("echo", m))
    ratios = paired_ratios("inarow", "peer", m)
    if me and peer and ratios:
        ratio = median(ratios)
        print(f"  >=20x peer moves/s at a lower p99 ({m} matches): {ratio_text(ratios, 1, 'x')}, p99 "
              f"{num(me, 'p99_ms'):.2f} vs {num(peer, 'p99_ms'):.2f} ms: "
              f"{verdict(ratio >= 20 and num(me, 'p99_ms') < num(peer, 'p99_ms'))}")
    ratios = paired_ratios("inarow", "echo", m)
    if me and echo and ratios:
        print(f"  within 2x of the echo limit ({m} matches): {ratio_text(ratios, 2)} of the limit: "
              f"{verdict(median(ratios) >= 0.5)}")
big = [r for r in rows if r["label"] == "inarow"]
if big:
    r = max(big, key=lambda r: num(r, "connected"))
    print(f"  10,000 connections at < 30 KiB per idle connection: {r['connected']} connected, "
          f"{num(r, 'kib_per_conn'):.1f} KiB each: "
          f"{verdict(num(r, 'connected') >= 10000 and num(r, 'kib_per_conn') < 30)}")
# Flat out (no think time) a closed loop's round trip is mostly queue: by
# Little's law p50 ~ players waiting / moves per second. The paced rows answer
# the latency target; the flat-out rows are shown for completeness.
for label, what in (("inarow", "flat out, people only"), ("bots", "flat out, 1/3 of matches vs bots"),
                    ("paced", "paced 500 ms, people only"),
                    ("pacedbots", "paced 500 ms, 1/3 vs bots (people-only p99)"),
                    ("pacedmem", "paced 500 ms, store :memory: (not durable)")):
    r = by.get((label, "1000"))
    if r:
        p99 = num(r, "people_p99_ms" if "bots" in label else "p99_ms")
        print(f"  p99 < 5 ms at 1,000 matches, {what}: {p99:.2f} ms: {verdict(0 < p99 < 5)}")
mid = by.get(("memory", next((r["want"] for r in rows if r["label"] == "memory"), "")))
if mid:
    durable = by.get(("inarow", mid["want"]))
    nosync = by.get(("nosync", mid["want"]))
    if durable and num(mid, "moves_per_s") > 0:
        share = num(durable, "moves_per_s") / num(mid, "moves_per_s")
        extra = f", --no-sync {num(nosync, 'moves_per_s'):.0f}/s" if nosync else ""
        print(f"  durable >= half of non-durable ({mid['want']} matches): durable {num(durable, 'moves_per_s'):.0f}/s, "
              f":memory: {num(mid, 'moves_per_s'):.0f}/s{extra}: {share:.2f}: {verdict(share >= 0.5)}")
