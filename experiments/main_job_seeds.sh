#!/usr/bin/env bash
# The main job (configs/dmc_quick.yaml, 7.5 minutes of training) of two checkouts for several
# seeds at once, each run pinned to its own 2 cores (as on the 2-core machine the README
# measures on), then each run's team duplicate win rate against random and greedy on the 100
# held-out deals from seed 1,000,000. Runs OLD and NEW side by side so both see the same load.
#
#   bash experiments/main_job_seeds.sh OLD_CHECKOUT NEW_CHECKOUT ["1 2 3 4"]
#
# Needs 4 cores per seed (2 per run) and CHECKOUT/.venv/bin/baohuang in both checkouts
# (experiments/README.md). Writes under ./main_job_seeds/ and prints one summary per run.
set -euo pipefail
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd) seeds=${3:-1 2 3 4}
out=$PWD/main_job_seeds
for c in "$old" "$new"; do
  [ -x "$c/.venv/bin/baohuang" ] || { echo "$c has no .venv/bin/baohuang (see experiments/README.md)" >&2; exit 2; }
done
cores=$(nproc) need=$((4 * $(wc -w <<<"$seeds")))
[ "$cores" -ge "$need" ] || { echo "needs $need cores for seeds '$seeds', this machine has $cores" >&2; exit 2; }

run() {  # name checkout cores seed
  local dir=$out/$1 cli=$2/.venv/bin/baohuang
  mkdir -p "$dir" && cd "$dir"
  taskset -c "$3" "$cli" train dmc --config "$2/configs/dmc_quick.yaml" --no-eval "seed=$4" > train.log 2>&1
  taskset -c "$3" "$cli" eval --agents "dmc:$(ls -d "$dir"/runs/*/)model.pt" random greedy --pairs first \
    --protocol team --deals 100 --out "$dir/eval" > eval.log 2>&1
  { echo "== $1"; grep "done:" train.log; grep '^| `dmc' eval.log | head -2; } > summary.txt
}

i=0
for seed in $seeds; do
  run "old-$seed" "$old" "$((4 * i)),$((4 * i + 1))" "$seed" &
  run "new-$seed" "$new" "$((4 * i + 2)),$((4 * i + 3))" "$seed" &
  i=$((i + 1))
done
wait
cat "$out"/*/summary.txt
