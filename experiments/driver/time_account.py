"""Where a training session's wall time went, part by part.

`result.json`'s `time_account` gives this session's seconds in each part,
from the moment the run was asked for to its results: what a short run
pays besides training shows there (`docs/training.md`). The parts do not
overlap; the time not in any of them (Python between them) is small.
"""

import contextlib
import time
from typing import Dict, Iterator

# In the order a session meets them.
PARTS = (
    'setup',  # Building the agent and loop, the workdir, a restore.
    'compile',  # The compiled loop's programs (the Python loop's: training).
    'training',  # The loop's calls: acting, stepping, learning, rows.
    'periodic_evaluation',
    'logs',  # train.csv, eval.csv, TensorBoard and W&B rows.
    'checkpoints',
    'final_evaluation',
    'export',  # TFLite conversion and its check in the interpreter.
)


class TimeAccount:
  """Seconds per part of one session (`PARTS`)."""

  def __init__(self, setup_seconds: float = 0.0):
    self.seconds: Dict[str, float] = dict.fromkeys(PARTS, 0.0)
    self.seconds['setup'] = setup_seconds

  @contextlib.contextmanager
  def timed(self, part: str) -> Iterator[None]:
    """Adds the time spent in the block to `part`."""
    start = time.perf_counter()
    try:
      yield
    finally:
      self.seconds[part] += time.perf_counter() - start

  def record(self) -> Dict[str, float]:
    """The seconds per part, as `result.json` keeps them."""
    return {part: round(seconds, 3) for part, seconds in self.seconds.items()}
