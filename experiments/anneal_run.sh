#!/bin/bash
# Issue 37, points 3 and 5: the annealing stage (configs/dmc_anneal.yaml) on top of a trained
# kickstart agent: a warm start from START_MODEL (the optimizer afresh), learning rate 0.00025 and
# ε 0.02 where the recipe keeps 0.001 and 0.05, λ-returns (0.9), no teacher, the same opponents
# (80% the preset's heuristic, 20% itself), MINUTES of training (15), then the result played on
# the tuning deals (1,000 from 21,000,000) against the heuristic and head to head against
# START_MODEL, and on the held-out deals (2,000 from 11,000,000) against the heuristic, all team
# protocol.
#
#   nice bash experiments/anneal_run.sh PRESET START_MODEL [MINUTES] [SEED] [KEY=VALUE ...]
#   nice bash experiments/anneal_run.sh weihai experiments/checkpoints/kickstart_50min/dmc_kickstart_weihai.pt 15 31
#
# KEY=VALUE pairs change the stage's config (one change at a time: ANNEAL_ROOT=runs/anneal_lambda1
# ... target_lambda=1.0). Resumable: the run lives in ANNEAL_ROOT/PRESET (default runs/anneal;
# checkpoint every minute; Ctrl-C stops with one)
# and a second call continues it; the evaluations land in ANNEAL_ROOT/PRESET/eval_*/report.json
# (reused when there) and one JSON line per evaluation is printed. docs/training.md, "Annealing
# the step".
set -e
preset=$1 start=$2 minutes=${3:-15} seed=${4:-31}
[ -n "$preset" ] && [ -f "$start" ] || {
  echo "usage: anneal_run.sh PRESET START_MODEL [MINUTES] [SEED] [KEY=VALUE ...]" >&2; exit 2; }
shift $(( $# < 4 ? $# : 4 ))
root=${ANNEAL_ROOT:-runs/anneal}/$preset
mkdir -p "$root"
run=$(ls -d "$root"/baohuang-*/ 2>/dev/null | head -1)
if [ -n "$run" ] && [ -f "$run/checkpoint.pt" ]; then
  baohuang train dmc --resume "$run" total_minutes="$minutes" --no-eval
else
  # the network's sizes are the start's (KEY=VALUE pairs after them still win)
  sizes=$(python -c 'import sys; from agents.files.checkpoint import load_checkpoint; a = load_checkpoint(sys.argv[1])["arch"]
print("hidden=%d head=%d" % (a["hidden"], a["head"]))' "$start")
  baohuang train dmc --config dmc_anneal preset="$preset" init_from="$start" exp_name="anneal_$preset" \
    total_minutes="$minutes" seed="$seed" eval_minutes=0 runs_dir="$root" $sizes "$@" --no-eval
  run=$(ls -d "$root"/baohuang-*/ | head -1)
fi
evaluate() {  # name, deals, first seed, agent, opponent: one JSON line
  python "$(dirname "$0")/compare_pair.py" "$4" "$5" --preset "$preset" --deals "$2" --deal-seed "$3" \
    --evals "$root" --name "$1"
}
evaluate eval_tuning_heuristic 1000 21000000 "dmc:${run}model.pt" heuristic
evaluate eval_tuning_start 1000 21000000 "dmc:${run}model.pt" "dmc:$start"
evaluate eval_heldout_heuristic 2000 11000000 "dmc:${run}model.pt" heuristic
