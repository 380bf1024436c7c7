"""What a person sees while a run trains: the progress bar."""

from typing import Dict

import tqdm

from experiments.loops import interface
from experiments.setup import config as config_lib

PerSeed = interface.PerSeed


class ProgressBar:
  """Counts episodes, or steps when only a step budget is set (slowest
  seed)."""

  def __init__(self, config: config_lib.ExperimentConfig, counters: PerSeed,
               enabled: bool):
    self._key = 'episodes' if config.num_episodes is not None else 'env_steps'
    self._bar = tqdm.tqdm(
        total=config.num_steps if self._key == 'env_steps' else
        config.num_episodes, initial=int(counters[self._key].min()),
        unit='episode' if self._key == 'episodes' else 'step',
        disable=not enabled, dynamic_ncols=True)

  def show(self, counters: PerSeed) -> None:
    """Moves the bar to `counters` (`TrainingLoop.advance`'s progress)."""
    self._bar.update(int(counters[self._key].min()) - self._bar.n)

  def describe(self, row: Dict[str, float]) -> None:
    if 'game_length' in row:
      self._bar.set_postfix(game_length=f'{row["game_length"]:.1f}',
                            sps=f'{row["steps_per_second"]:.0f}')

  def close(self) -> None:
    self._bar.close()
