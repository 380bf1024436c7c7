"""What a person sees while a run trains: the progress bar.

Its time left is measured from the first progress after the bar starts (the
driver starts it once the program is compiled), not from the start: the
first host call or the first jitted steps would otherwise make the first
estimate absurd (an hour for a run of a minute). Until a second point exists
it says 'estimating'.
"""

import time
from typing import Callable, Dict, Optional, Tuple

import tqdm

from experiments.loops import interface
from experiments.setup import config as config_lib

PerSeed = interface.PerSeed
_FORMAT = '{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]'


def _clock(seconds: float) -> str:
  return tqdm.tqdm.format_interval(max(0.0, seconds))


def time_left(reference: Optional[Tuple[float, int]], now: float, done: int,
              total: int) -> Optional[float]:
  """Seconds until `total` at the rate since `reference` (time, count);
  None until there is a rate to go by."""
  if reference is None:
    return None
  seconds, count = now - reference[0], done - reference[1]
  if seconds <= 0 or count <= 0:
    return None
  return (total - done) * seconds / count


class ProgressBar:
  """Counts episodes, or steps when only a step budget is set (slowest
  seed), with a time left that the first chunk does not skew."""

  def __init__(self, config: config_lib.ExperimentConfig, counters: PerSeed,
               enabled: bool, clock: Callable[[], float] = time.monotonic):
    self._key = 'episodes' if config.num_episodes is not None else 'env_steps'
    self._total = (config.num_steps if self._key == 'env_steps' else
                   config.num_episodes)
    self._clock = clock
    # Loop row key -> what the game calls it (e.g. 'strikes'), for the
    # statistics that tell something on this game.
    self._statistics = config.environment.episode_statistics
    self._reference: Optional[Tuple[float, int]] = None
    self._described = ''
    self._bar = tqdm.tqdm(
        total=self._total,
        initial=min(int(counters[self._key].min()), self._total),
        unit='episode' if self._key == 'episodes' else 'step',
        disable=not enabled, dynamic_ncols=True, bar_format=_FORMAT,
        postfix='estimating time left')

  def show(self, counters: PerSeed) -> None:
    """Moves the bar to `counters` (`TrainingLoop.advance`'s progress)."""
    # An update may step past the budget: the bar stops at its end (past it
    # tqdm would drop the bar and the total).
    done = min(int(counters[self._key].min()), self._total)
    now = self._clock()
    if self._reference is None:
      self._reference = (now, done)
    self._bar.update(done - self._bar.n)
    self._refresh(now)

  def _refresh(self, now: float) -> None:
    left = time_left(self._reference, now, self._bar.n, self._total)
    text = ('estimating time left' if left is None else
            f'{_clock(left)} left')
    self._bar.set_postfix_str(text + self._described)

  def describe(self, row: Dict[str, float]) -> None:
    """Adds the chunk's headline numbers: the game's informative episode
    statistics (e.g. strikes on Plane Strike) where the row has them, and
    its speed."""
    shown = [f'{name.replace("_", " ")} {row[key]:.4g}'
             for key, name in self._statistics.items() if key in row]
    if 'steps_per_second' in row:
      shown.append(f'steps/s {row["steps_per_second"]:,.0f}')
    self._described = ''.join(f', {s}' for s in shown)
    self._refresh(self._clock())

  def close(self) -> None:
    self._bar.close()
