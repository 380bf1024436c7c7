"""A seed's `dm_env` environments, placed at the episodes a run plays next.

A fresh run starts each environment at its first episode; a resumed one
(or an evaluation stream continued) must start where the run left off.
Environments that are `episode_streams.EpisodeStream`s seek that episode;
any other is seeded anew instead, and the run warns once that it plays
other episodes than an uninterrupted one would.
"""

from typing import Callable, Optional

from absl import logging
import dm_env
import numpy as np

from environments import environment_batch
from environments import episode_streams
from experiments.loops import seeding

# (environment seed) -> a seeded dm_env environment.
EnvironmentFactory = Callable[[int], dm_env.Environment]
# (environment seed, N) -> N environments stepped in one call, or None
# where the game has no engine for it.
BatchFactory = Callable[[int, int],
                        Optional[environment_batch.EnvironmentBatch]]


class TrainingEnvironments:
  """Makes seed `seed`'s environments at given episodes (`num_envs` of
  them side by side number their episodes as the compiled loop does)."""

  def __init__(self, make_environment: EnvironmentFactory, seed: int,
               num_envs: int, make_batch: Optional[BatchFactory] = None):
    self._make = make_environment
    self._make_batch = make_batch
    self._seed = seed
    self._num_envs = num_envs
    self._warned = False

  def at(self, stream: int, episode: int,
         fallback: int) -> dm_env.Environment:
    """An environment whose next episode is `episode` of seed `stream`; one
    seeded with `fallback` where episodes are not addressable."""
    environment = self._make(stream)
    if episode == 0:
      return environment
    if isinstance(environment, episode_streams.EpisodeStream):
      environment.seek(stream, episode)
      return environment
    self._warn_unaddressable(environment)
    if fallback != stream:
      environment.close()
      environment = self._make(fallback)
    return environment

  def _warn_unaddressable(self, environment: object) -> None:
    if not self._warned:
      self._warned = True
      logging.warning(
          '%s cannot start at a given episode (it is no '
          'environments.episode_streams.EpisodeStream), so the resumed run '
          'plays other episodes than an uninterrupted one would.',
          type(environment).__name__)

  def environment(self, index: int, stream: int,
                  started: np.ndarray) -> dm_env.Environment:
    """Environment `index` of N: an EpisodeStream plays `stream` (the loop
    seeks its episodes); any other is seeded by its next episode number."""
    environment = self._make(stream)
    if isinstance(environment, episode_streams.EpisodeStream):
      return environment
    if started.any():
      self._warn_unaddressable(environment)
    seed = seeding.environment_seed(
        self._seed, seeding.TRAIN, int(started[index]) * self._num_envs + index)
    if seed != stream:
      environment.close()
      environment = self._make(seed)
    return environment

  def batch(self, stream: int, started: np.ndarray
           ) -> Optional[environment_batch.EnvironmentBatch]:
    """The N environments as one batch (None where the game steps them one
    by one), seeded by the next episode number of environment 0 (`stream`
    in a fresh run: its episodes are not addressable)."""
    if self._make_batch is None:
      return None
    seed = seeding.environment_seed(self._seed, seeding.TRAIN,
                                    int(started[0]) * self._num_envs)
    batch = self._make_batch(seed, self._num_envs)
    if batch is not None and started.any() and not batch.addressable:
      self._warn_unaddressable(batch)
    return batch
