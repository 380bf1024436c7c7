#!/usr/bin/env bash
# Sets up .venv if needed, then runs the default experiment: REINFORCE on
# Plane Strike, greedy evaluation, TFLite export verified in LiteRT.
# Extra arguments go to experiments.train, e.g. ./run.sh --seed=3
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup_venv.sh
exec .venv/bin/python -m experiments.train --agent=reinforce \
  --env=plane_strike --workdir=runs/default "$@"
