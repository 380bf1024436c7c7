"""Where a run's wall time went, part by part.

`result.json`'s `time_account` gives the run's seconds in each part, from
the moment it was asked for to its results, summed over its sessions (a
checkpoint carries the sums): what a short run pays besides training
shows there (`docs/training.md`). The parts do not overlap; what falls
outside them (Python between them, the results' own writing) is not
counted.
"""

import contextlib
import time
from typing import Dict, Iterator, Mapping, Optional

from experiments.loops import interface

# In the order a session meets them.
PARTS = (
    'setup',  # Agent, loop, workdir, a restore, the initial states.
    'compile',  # The compiled loop's programs, evaluations' included (the
    # Python loop compiles as it goes: in training).
    'training',  # Acting, stepping and learning: the compiled program,
    # or the Python loop's whole calls.
    'host_round_trips',  # The compiled loop's calls outside its program.
    'periodic_evaluation',
    'logs',  # train.csv, eval.csv, TensorBoard and W&B rows.
    'checkpoints',
    'final_evaluation',
    'export',  # The converter's import, the conversion and its check.
)


class TimeAccount:
  """Seconds per part of a run (`PARTS`)."""

  def __init__(self, setup_seconds: float = 0.0,
               compiled_in_setup: float = 0.0,
               earlier: Optional[Mapping[str, float]] = None):
    """`compiled_in_setup`: the part of this session's `setup_seconds`
    spent compiling (the initial states' program), counted as 'compile';
    `earlier`: the sums of the run's earlier sessions."""
    self.seconds: Dict[str, float] = {
        part: float((earlier or {}).get(part, 0.0)) for part in PARTS}
    self.add('setup', setup_seconds - compiled_in_setup)
    self.add('compile', compiled_in_setup)

  def add(self, part: str, seconds: float) -> None:
    self.seconds[part] += seconds

  @contextlib.contextmanager
  def timed(self, part: str,
            loop: Optional[interface.TrainingLoop] = None) -> Iterator[None]:
    """Adds the time spent in the block to `part`, less what `loop` spent
    compiling meanwhile (an evaluation's first program), which goes to
    'compile'."""
    start = time.perf_counter()
    compiled = loop.compile_seconds if loop is not None else 0.0
    try:
      yield
    finally:
      elapsed = time.perf_counter() - start
      if loop is not None:
        compiling = loop.compile_seconds - compiled
        self.add('compile', compiling)
        elapsed -= compiling
      self.add(part, elapsed)

  def record(self) -> Dict[str, float]:
    """The seconds per part, as `result.json` and checkpoints keep them."""
    return {part: round(seconds, 6) for part, seconds in self.seconds.items()}
