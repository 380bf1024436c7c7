"""Runnable examples of bringing your own environment, network and agent,
and of the Python API.

Each custom_* module registers its piece when imported; name its file (from
any directory) or, from the repository root, its module with `--imports`:

  python -m experiments.train --imports=examples/custom_environment.py \
      --env=corridor --agent=ppo --num_steps=30000

`train_with_api.py` trains, plays and exports through `experiments.api`.
"""
