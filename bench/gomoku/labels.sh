#!/usr/bin/env bash
# Labelled positions for `inarow-arena texel --labels`: every position after
# the opening of the given tournament records (each once), with the first
# player's chance in it as a pbrain engine sees it after a short search. The
# engine must print its evaluation as pbrain-rapfi does ("MESSAGE ... Eval N"
# for the side to move, "Eval +M5"/"-M5" for a mate); the chance is
# sigmoid(N / SCALE) (Rapfi's own scale is 200).
#
#   bench/gomoku/labels.sh --engine CMD [options] RECORDS... > labels.txt
#     --engine CMD    the pbrain engine (pbrain-rapfi, say)
#     --movetime MS   its time per position (default 150; pbrain-rapfi
#                     stops well short of it when its search settles)
#     --jobs N        engines at once (default 2)
#     --scale S       evaluation units per e-fold of the odds (default 200)
#
# e.g. inarow-arena -v gomoku -e a:master,nodes=100000 -e b:master,nodes=100000 \
#        -n 800 --openings 400 --opening-plies 3 --record sp.jsonl
#      bench/gomoku/labels.sh --engine /path/to/pbrain-rapfi sp.jsonl > labels.txt
#      inarow-arena texel -v gomoku --labels labels.txt --min-count 300 -o fitted.txt
set -euo pipefail
engine="" movetime=150 jobs=2 scale=200
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --engine) engine=$2; shift 2 ;;
    --movetime) movetime=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -n $engine && $# -ge 1 ]] || { sed -n 2,19p "$0" >&2; exit 2; }
exec python3 - "$engine" "$movetime" "$jobs" "$scale" "$@" <<'PY'
import json, math, re, shlex, subprocess, sys, time
from multiprocessing import Pool

engine, movetime, jobs, scale = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
CELL = re.compile(r"[a-z]\d+")


def xy(cell, size):  # our notation (a1 bottom left) to pbrain's x,y (0,0 top left)
    return ord(cell[0]) - 97, size - int(cell[1:])


class Engine:
    def __init__(self):
        self.p = subprocess.Popen(shlex.split(engine), stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, bufsize=1)
        self.say("START 15")
        self.wait_ok()

    def say(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait_ok(self):
        for line in self.p.stdout:
            if line.startswith("OK"):
                return
        raise SystemExit("labels.sh: the engine stopped")

    def eval(self, cells):
        self.say("RESTART")
        self.wait_ok()
        for line in (f"INFO timeout_turn {movetime}", "INFO timeout_match 0",
                     "INFO time_left 2147483647", "BOARD"):
            self.say(line)
        n = len(cells)
        for i, c in enumerate(cells):
            x, y = xy(c, 15)
            self.say(f"{x},{y},{1 if i % 2 == n % 2 else 2}")  # 1: the side to move's
        self.say("DONE")
        ev = None
        for line in self.p.stdout:
            m = re.search(r"Eval (\S+)", line)
            if m:
                ev = m.group(1)
            if re.match(r"^\d+,\d+\s*$", line):
                # pbrain-rapfi drops a command that comes while it finishes a move.
                time.sleep(0.01)
                return ev
        raise SystemExit("labels.sh: the engine stopped")


worker = None


def label(cells):
    global worker
    if worker is None:
        worker = Engine()
    ev = worker.eval(cells)
    if ev is None:
        return None
    if "M" in ev:
        p = 0.0 if ev.startswith("-") else 1.0
    else:
        p = 1 / (1 + math.exp(-int(ev) / scale))
    if len(cells) % 2:  # the second player to move: the first's chance is the rest
        p = 1 - p
    return f"{''.join(cells)} {p:.4f}"


positions, seen = [], set()
for path in sys.argv[5:]:
    for line in open(path):
        if not line.strip():
            continue
        g = json.loads(line)
        if g.get("variant") != "gomoku":
            continue
        cells, skip = CELL.findall(g["moves"]), len(CELL.findall(g.get("opening", "")))
        for n in range(skip, len(cells)):
            key = "".join(cells[:n])
            if key not in seen:
                seen.add(key)
                positions.append(cells[:n])
print(f"# {len(positions)} positions; {engine}, {movetime} ms each, scale {scale}")
with Pool(jobs) as pool:
    for out in pool.imap(label, positions, chunksize=16):
        if out:
            print(out, flush=True)
PY
