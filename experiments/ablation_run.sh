#!/bin/bash
# Issue 37, point 2: the recipe measured piece by piece. Today's kickstart recipe
# (configs/dmc_kickstart.yaml, seed 11) and each change alone, every run the
# same minutes of training on the 2 cores, one after the other (never side by side: equal
# training time means equal cores), each in runs/ablation/<variant>/.
#
#   bash experiments/ablation_run.sh [MINUTES] [VARIANT ...]     # default: 50, every variant
#   nice bash experiments/ablation_run.sh 50 > ablation.log 2>&1 &
#
# The same at the main job's budget, on its recipe, for one seed (CONFIG and SEED pick the recipe
# and its seed, OUT the folder; defaults: dmc_kickstart, the config's seed, runs/ablation):
#   CONFIG=dmc_quick SEED=1 OUT=runs/ablation_quick/seed1 bash experiments/ablation_run.sh 7.5 base lambda
#
# The docs' tables also have `linear` (teacher_schedule=linear, a gradual hand-over from the
# teacher) and `all` (the four changes together): that option was removed once measured, so
# those two variants run at commit 133358b, where the script still has them.
#
# Resumable: a variant whose run has its model_<MINUTES>.pt is done; one with a checkpoint
# continues from it (written every minute; Ctrl-C or SIGTERM stops with one). Then evaluate
# each on the tuning deals, against the heuristic and head to head against the base:
#   python experiments/ablation_table.py runs/ablation --minutes 50 --deals 1000 --deal-seed 21000000
set -e
minutes=${1:-50}
shift || true
config=${CONFIG:-dmc_kickstart} root=${OUT:-runs/ablation}
declare -A changes=(
  [base]=""
  [pool]="opponent_mix=self=0.1,snapshots=0.1,heuristic=0.8"
  [lambda]="target_lambda=0.9"
  [guard_head]="guard_head_weight=0.5"
)
variants=("$@")
[ ${#variants[@]} -eq 0 ] && variants=(base lambda guard_head pool)
for variant in "${variants[@]}"; do
  [ -v "changes[$variant]" ] || { echo "unknown variant $variant; known: ${!changes[*]}" >&2; exit 2; }
  dir=$root/$variant
  run=$(ls -d "$dir"/*/ 2>/dev/null | head -1)
  [ -n "$run" ] && [ -f "$run/snapshots/model_$minutes.pt" ] && continue
  echo "[ablation] $variant: ${changes[$variant]:-the recipe as it is}, $minutes minutes" >&2
  if [ -n "$run" ] && [ -f "$run/checkpoint.pt" ]; then
    baohuang train dmc --resume "$run" total_minutes="$minutes" eval_minutes=0 --no-eval
  else
    # shellcheck disable=SC2086  # the changes are separate overrides
    baohuang train dmc --config "$config" ${SEED:+seed=$SEED} ${changes[$variant]} exp_name="${config#dmc_}_$variant" \
      total_minutes="$minutes" eval_minutes=0 runs_dir="$dir" --no-eval
    run=$(ls -d "$dir"/*/ | head -1)
  fi
  mkdir -p "$run/snapshots" && cp "$run/model.pt" "$run/snapshots/model_$minutes.pt"
done
