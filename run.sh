#!/usr/bin/env bash
# Sets up .venv if needed, then runs the default experiment: PPO on Plane
# Strike with its tuned preset (ppo_plane_strike, experiments/presets/
# builtin/plane_strike.json: γ = 0.5, 64 environments × 16 steps per
# update, 1M environment steps) in the compiled loop, greedy evaluation,
# TFLite export verified in LiteRT (about 20 s on 2 cores once .venv is
# installed: docs/benchmarks/speed.md). Extra arguments go to
# experiments.train, e.g.
# ./run.sh --seed=3
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup_venv.sh
exec .venv/bin/python -m experiments.train --agent=ppo \
  --env=plane_strike --workdir=runs/default "$@"
