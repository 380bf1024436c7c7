#!/usr/bin/env bash
# Sets up .venv if needed, then runs the default experiment: REINFORCE on
# Plane Strike for 100,000 games in the compiled loop, greedy evaluation,
# TFLite export verified in LiteRT (about a minute and a half on 2 cores).
# Extra arguments go to experiments.train, e.g. ./run.sh --seed=3
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup_venv.sh
exec .venv/bin/python -m experiments.train --agent=reinforce \
  --env=plane_strike --num_episodes=100000 --workdir=runs/default "$@"
