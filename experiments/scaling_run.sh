#!/bin/bash
# Issue 37, point 1: today's kickstart recipe (configs/dmc_kickstart.yaml, seed 11) trained past its
# 50 minutes, in stages of training time (25, 50, 100, 150 minutes), each stage's model kept as
# snapshots/model_<minutes>.pt. Resumable: each call continues the run in runs/scaling/ from its
# checkpoint (written every minute; Ctrl-C or SIGTERM stops with one); across sessions, from the
# kept copy: mkdir -p runs/scaling && cp -r experiments/checkpoints/kickstart_jj_scaling runs/scaling/
# In the background: nice bash experiments/scaling_run.sh > scaling.log 2>&1 &
# Other stages: bash experiments/scaling_run.sh 25 50 100 150 200 (a longer curve from the same run).
set -e
mkdir -p runs/scaling
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(25 50 100 150)
for minutes in "${stages[@]}"; do
  run=$(ls -d runs/scaling/*/ 2>/dev/null | head -1)
  [ -n "$run" ] && [ -f "$run/snapshots/model_$minutes.pt" ] && continue
  if [ -n "$run" ] && [ -f "$run/checkpoint.pt" ]; then
    baohuang train dmc --resume "$run" total_minutes=$minutes eval_minutes=0 --no-eval
  else
    baohuang train dmc --config dmc_kickstart total_minutes=$minutes eval_minutes=0 runs_dir=runs/scaling --no-eval
    run=$(ls -d runs/scaling/*/ | head -1)
  fi
  mkdir -p "$run/snapshots" && cp "$run/model.pt" "$run/snapshots/model_$minutes.pt"
done
