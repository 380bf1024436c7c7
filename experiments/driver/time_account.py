"""Where a training session's wall time went, part by part.

`result.json`'s `time_account` gives this session's seconds in each part,
from the moment the run was asked for to its results: what a short run
pays besides training shows there (`docs/training.md`). The parts do not
overlap; the time not in any of them (Python between them) is small.
"""

import contextlib
import time
from typing import Dict, Iterator, Optional

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
    'export',  # TFLite conversion and its check in the interpreter.
)


class TimeAccount:
  """Seconds per part of one session (`PARTS`)."""

  def __init__(self, setup_seconds: float = 0.0,
               compiled_in_setup: float = 0.0):
    """`compiled_in_setup`: the part of `setup_seconds` spent compiling
    (the initial states' program), counted as 'compile'."""
    self.seconds: Dict[str, float] = dict.fromkeys(PARTS, 0.0)
    self.seconds['setup'] = setup_seconds - compiled_in_setup
    self.seconds['compile'] = compiled_in_setup

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
    """The seconds per part, as `result.json` keeps them."""
    return {part: round(seconds, 3) for part, seconds in self.seconds.items()}
