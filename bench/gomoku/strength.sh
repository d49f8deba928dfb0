#!/usr/bin/env bash
# Gomoku strength: our strongest bot (pbrain-inarow with no --bot, unless
# --ours says otherwise) against any pbrain engine, at a fixed time per move,
# on paired openings (each opening played with both colours). A thin script
# over `inarow-arena tournament`, so it does not care where the arena's code
# lives. Prints the score, Elo +- 95% margin, terminations and game lengths.
# The arena's --time-margin (200 ms unless --margin) absorbs a loaded
# machine's jitter.
#
#   bench/gomoku/strength.sh [options] PBRAIN_COMMAND
#     --ours CMD      our engine's pbrain command (default: build/release/tools/pbrain-inarow)
#     --arena PATH    inarow-arena (default: build/release/tools/inarow-arena)
#     --games N       games, rounded up to whole pairs (default 8)
#     --movetime MS   time per move for both sides (default 500)
#     --jobs N        games at once (default 1: each engine gets a core)
#     --seed N        opening book seed (default 1)
#     --record FILE   game records, one JSON line each (default: a temp file)
#     --margin MS     time past the move's limit before a move is lost on time
#                     (default 200; more on a loaded machine, where a brain's
#                     first move can stall: the brains still aim at MOVETIME)
#
# e.g. bench/gomoku/strength.sh --games 16 /tmp/rapfi/pbrain-rapfi
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ours="$root/build/release/tools/pbrain-inarow"
arena="$root/build/release/tools/inarow-arena"
games=8 movetime=500 jobs=1 seed=1 record="" margin=200
while [[ $# -gt 1 ]]; do
  case $1 in
    --ours) ours=$2; shift 2 ;;
    --arena) arena=$2; shift 2 ;;
    --games) games=$2; shift 2 ;;
    --movetime) movetime=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --record) record=$2; shift 2 ;;
    --margin) margin=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $# -eq 1 ]] || { sed -n 2,20p "$0" >&2; exit 2; }
opponent=$1
[[ -n $record ]] || record=$(mktemp /tmp/gomoku-strength.XXXXXX.jsonl)
# Three random stones near the centre per opening. Only a per-move limit:
# the arena then sends INFO timeout_turn, INFO timeout_match 0 and an
# unlimited INFO time_left. An ERROR line from a brain is not a move: the
# arena skips it and waits for the move (see docs/NOTES.md).
"$arena" tournament -v gomoku --format gauntlet -q \
  -e "ours:pbrain:$ours" -e "opponent:pbrain:$opponent" \
  -n "$games" -j "$jobs" --seed "$seed" --openings $(((games + 1) / 2)) --opening-plies 3 \
  --tc-move "$movetime" --time-margin "$margin" --record "$record" |
  sed -n '/^Pairings/,$p'
# Game lengths by result, from our side. "void" counts games lost on an
# ERROR line scored as a move, which the arena no longer does: it should
# stay 0 (kept as a check on the arena).
python3 - "$record" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
won, lost, drawn, void = [], [], [], 0
for g in lines:
    if g["reason"] == "illegal" and "ERROR" in g.get("detail", ""):
        void += 1
        continue
    ours_first = g["first_name"] == "ours"
    r = g["result"]
    if r == "1/2-1/2": drawn.append(g["plies"])
    elif (r == "1-0") == ours_first: won.append(g["plies"])
    else: lost.append(g["plies"])
def mean(xs): return f"{sum(xs)/len(xs):.0f}" if xs else "-"
print(f"games {len(lines)}: won {len(won)} (mean {mean(won)} plies), lost {len(lost)} "
      f"(mean {mean(lost)} plies), drawn {len(drawn)}, void {void}; record {sys.argv[1]}")
PY
