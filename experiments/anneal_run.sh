#!/bin/bash
# Issue 37, points 3 and 5: the annealing stage (configs/dmc_anneal.yaml) on top of a trained
# kickstart agent: a warm start from START_MODEL (the optimizer afresh), learning rate 0.00025 and
# ε 0.02 where the recipe keeps 0.001 and 0.05, λ-returns (0.9), no teacher, the same opponents
# (80% the preset's heuristic, 20% itself), MINUTES of training (15), then the result played on
# the tuning deals (1,000 from 21,000,000) against the heuristic and head to head against
# START_MODEL, and on the held-out deals (2,000 from 11,000,000) against the heuristic, all team
# protocol.
#
#   nice bash experiments/anneal_run.sh PRESET START_MODEL [MINUTES] [SEED]
#   nice bash experiments/anneal_run.sh weihai experiments/checkpoints/kickstart_50min/dmc_kickstart_weihai.pt 15 31
#
# Resumable: the run lives in runs/anneal/PRESET (checkpoint every minute; Ctrl-C stops with one)
# and a second call continues it; the evaluations land in runs/anneal/PRESET/eval_*/report.json
# (reused when there) and one JSON line per evaluation is printed. docs/training.md, "Annealing
# the step".
set -e
preset=$1 start=$2 minutes=${3:-15} seed=${4:-31}
[ -n "$preset" ] && [ -f "$start" ] || { echo "usage: anneal_run.sh PRESET START_MODEL [MINUTES] [SEED]" >&2; exit 2; }
root=runs/anneal/$preset
mkdir -p "$root"
run=$(ls -d "$root"/baohuang-*/ 2>/dev/null | head -1)
if [ -n "$run" ] && [ -f "$run/checkpoint.pt" ]; then
  baohuang train dmc --resume "$run" total_minutes="$minutes" --no-eval
else
  baohuang train dmc --config dmc_anneal preset="$preset" init_from="$start" exp_name="anneal_$preset" \
    total_minutes="$minutes" seed="$seed" eval_minutes=0 runs_dir="$root" --no-eval
  run=$(ls -d "$root"/baohuang-*/ | head -1)
fi
evaluate() {  # name, deals, first seed, agents...
  local name=$1 deals=$2 first=$3; shift 3
  [ -f "$root/$name/report.json" ] || baohuang eval --agents "$@" --preset "$preset" --protocol team \
    --deals "$deals" --deal-seed "$first" --out "$root/$name" > /dev/null
  python -c "import json, sys; r = json.load(open(sys.argv[1])); p = r['pairs'][0]; w = p['duplicate_win_rate_a']
print(json.dumps({'eval': sys.argv[2], 'a': p['a'], 'b': p['b'], 'deals': r['deals']['count'],
                  'first_seed': r['deals']['first_seed'], 'rate': round(w['rate'], 4), 'low': round(w['low'], 4),
                  'high': round(w['high'], 4), 'points_per_deal': round(p['paired_difference']['mean'], 3)}))" \
    "$root/$name/report.json" "$name"
}
evaluate eval_tuning_heuristic 1000 21000000 "dmc:${run}model.pt" heuristic
evaluate eval_tuning_start 1000 21000000 "dmc:${run}model.pt" "dmc:$start"
evaluate eval_heldout_heuristic 2000 11000000 "dmc:${run}model.pt" heuristic
