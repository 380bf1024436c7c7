"""Runnable examples of bringing your own environment, network and agent.

Each module registers its piece when imported; name it with `--imports`
(run from the repository root), e.g.

  python -m experiments.train --imports=examples.custom_environment \
      --env=corridor --agent=ppo --num_steps=30000
"""
