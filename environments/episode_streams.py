"""Environments whose episodes are addressable: episode e of stream s.

A run's training episodes form one stream, seeded once. To resume a run
exactly, a fresh environment must be able to start at the episode the
interrupted one would have played next, without replaying the ones before.
Environments that can do so implement `EpisodeStream`; the Python training
loop uses it to continue its training and evaluation streams. Any other
`dm_env.Environment` still works, but a resumed run plays other episodes.
"""

from typing import Optional, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class EpisodeStream(Protocol):
  """An environment that can start at episode `episode` of stream `seed`.

  Episode e of stream s is the same game whether the environment reached it
  by playing e episodes after `seek(s, 0)` or by `seek(s, e)`.
  """

  def seek(self, seed: int, episode: int = 0) -> None:
    """The next `reset` starts episode `episode` of stream `seed`; drops any
    episode in progress (so `step` starts that one too)."""


def episode_seed(seed: int, episode: int) -> int:
  """A 32-bit seed for episode `episode` of stream `seed`, for environments
  that are reseeded at each episode (Gymnasium, bsuite)."""
  if episode < 0:
    raise ValueError(f'episode must be >= 0; got {episode}.')
  return int(np.random.SeedSequence([int(seed), int(episode)])
             .generate_state(1)[0])


class EpisodeSeeds:
  """The per-episode seeds of environments reseeded at each reset: where a
  stream stands (`seek`) and the seed of the episode to play next."""

  def __init__(self, seed: Optional[int] = None):
    """`seed` None: unseeded (`next` gives None)."""
    self._seed = None if seed is None else int(seed)
    self._episode = 0  # Of stream `_seed`: the next `reset` plays it.

  def seek(self, seed: int, episode: int = 0) -> None:
    if episode < 0:
      raise ValueError(f'episode must be >= 0; got {episode}.')
    self._seed, self._episode = int(seed), int(episode)

  def next(self) -> Optional[int]:
    """The seed of the next episode (None if unseeded); moves past it."""
    seed = (None if self._seed is None else
            episode_seed(self._seed, self._episode))
    self._episode += 1
    return seed
