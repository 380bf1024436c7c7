"""Environment seeds by role, shared by both loops and export.

Each role gets its own environment seed stream, derived from a run's seed,
so training, evaluation and the exported model's games never share
episodes: `environment_seed(seed, EVAL)` seeds the greedy evaluations of
`seed` in either loop.
"""

import numpy as np

TRAIN, EVAL, EXPORT = 0, 1, 2


def environment_seed(seed: int, *words: int) -> int:
  """The environment seed of one role (`TRAIN`, `EVAL`, `EXPORT`) of `seed`
  (more words: further streams of that role)."""
  return int(np.random.SeedSequence([seed, *words]).generate_state(1)[0])
