"""N environments of one seed stepped by one call (the Python loop's view).

The Python loop acts on N observations at once and steps the N
environments behind them. `EnvironmentBatch` is what it steps: N
`dm_env.Environment`s one after another (`EnvironmentList`), or an engine
that steps a whole batch in native code (`envpool_adapter.EnvPoolBatch`).
A step returns arrays (`BatchStep`), not N time steps; an environment that
ended its episode is `reset` before the next step, so every environment is
always in an episode.
"""

import abc
from typing import Any, List, NamedTuple, Optional, Sequence

import dm_env
import numpy as np

from environments import episode_streams


class BatchStep(NamedTuple):
  """One step of N environments, each array with leading dim N."""
  observations: np.ndarray  # o_{t+1}: the terminal one where `last`.
  rewards: np.ndarray  # float64, r_{t+1}.
  discounts: np.ndarray  # float32, 0 at terminations, 1 at time limits.
  last: np.ndarray  # bool, the step ended its episode.


class EnvironmentBatch(abc.ABC):
  """N environments stepped together.

  Episodes are numbered by the caller (the loop's episode k·N + i of
  environment i); a batch whose episodes are addressable plays that
  episode of `stream` (`addressable`), any other plays on as seeded.
  """

  @property
  @abc.abstractmethod
  def num_envs(self) -> int:
    """N."""

  @property
  @abc.abstractmethod
  def addressable(self) -> bool:
    """Whether `reset` starts the numbered episode (a resumed run then
    plays the episodes an uninterrupted one would)."""

  @abc.abstractmethod
  def reset(self, indices: Sequence[int],
            episodes: Sequence[int]) -> np.ndarray:
    """Starts episode `episodes[j]` in environment `indices[j]`; their
    first observations, `[len(indices), ...]`."""

  @abc.abstractmethod
  def step(self, actions: np.ndarray) -> BatchStep:
    """One step of every environment, `actions[i]` in environment i (as
    the agent produced them: ints, or float32 rows). Every environment that
    ended its episode must have been `reset` since."""

  def close(self) -> None:
    """Frees the environments."""


class EnvironmentList(EnvironmentBatch):
  """N `dm_env` environments, stepped one after another in Python.

  Those that are `episode_streams.EpisodeStream`s play episode e of
  `stream` when asked for it (`seek`); any other resets as it is seeded.
  """

  def __init__(self, environments: Sequence[dm_env.Environment],
               stream: Optional[int] = None):
    """`stream`: the stream addressable environments seek episodes of
    (None: every environment plays on as seeded)."""
    self.environments: List[dm_env.Environment] = list(environments)
    self._stream = stream
    self._seekable = [stream is not None and
                      isinstance(e, episode_streams.EpisodeStream)
                      for e in self.environments]

  @property
  def num_envs(self) -> int:
    return len(self.environments)

  @property
  def addressable(self) -> bool:
    return all(self._seekable)

  def reset(self, indices: Sequence[int],
            episodes: Sequence[int]) -> np.ndarray:
    observations = []
    for i, episode in zip(indices, episodes):
      environment = self.environments[i]
      if self._seekable[i]:
        environment.seek(self._stream, int(episode))
      observations.append(np.asarray(environment.reset().observation))
    return np.stack(observations)

  def step(self, actions: np.ndarray) -> BatchStep:
    # Ints for discrete actions; float32 rows for continuous ones, as an
    # agent produced them (not rounded on the way), each an array of its
    # own that the environment may write to.
    host_actions: List[Any] = (
        actions.tolist() if actions.dtype.kind in 'iu'
        else list(actions.astype(np.float32)))
    timesteps = [environment.step(action) for environment, action in zip(
        self.environments, host_actions)]
    # np.array, not np.stack: the same array, with less Python on the way.
    return BatchStep(
        observations=np.array([t.observation for t in timesteps]),
        rewards=np.array([t.reward for t in timesteps], np.float64),
        discounts=np.array([t.discount for t in timesteps], np.float32),
        last=np.array([t.last() for t in timesteps]))

  def close(self) -> None:
    for environment in self.environments:
      environment.close()
