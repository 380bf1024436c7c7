"""Cuts a stream of dm_env time steps into padded `Trajectory` batches."""

from typing import List, Optional

import dm_env
import jax
import numpy as np

from agents import agent as agent_lib


def _padded_length(length: int, minimum: int = 8) -> int:
  """Next power of two, so jitted updates compile for few distinct T."""
  return max(minimum, 1 << (length - 1).bit_length())


class EpisodeBatcher:
  """Collects whole episodes; emits `[T, B]` batches padded with mask 0.

  Use `observe_first` on a FIRST time step, then `observe` after each action.
  Once `batch_size` episodes are complete, `pop_batch` returns them.
  """

  def __init__(self, batch_size: int):
    if batch_size < 1:
      raise ValueError(f'batch_size must be >= 1; got {batch_size}.')
    self._batch_size = batch_size
    self._episodes: List[dict] = []
    self._current: Optional[dict] = None

  def observe_first(self, timestep: dm_env.TimeStep) -> None:
    self._current = dict(observations=[np.asarray(timestep.observation)],
                         actions=[], rewards=[], discounts=[], extras=[])

  def observe(self, action: int, extras: agent_lib.Extras,
              timestep: dm_env.TimeStep) -> None:
    if self._current is None:
      raise RuntimeError('observe_first must be called at the episode start.')
    episode = self._current
    episode['actions'].append(action)
    episode['rewards'].append(timestep.reward)
    episode['discounts'].append(timestep.discount)
    episode['extras'].append(extras)
    episode['observations'].append(np.asarray(timestep.observation))
    if timestep.last():
      self._episodes.append(episode)
      self._current = None

  def ready(self) -> bool:
    return len(self._episodes) >= self._batch_size

  def pop_batch(self) -> agent_lib.Trajectory:
    """Removes and returns `batch_size` complete episodes, time-major."""
    if not self.ready():
      raise RuntimeError(f'Only {len(self._episodes)} of {self._batch_size} '
                         f'episodes are complete.')
    episodes = self._episodes[:self._batch_size]
    self._episodes = self._episodes[self._batch_size:]
    length = _padded_length(max(len(e['actions']) for e in episodes))

    def pad(values, dtype, shape=()):
      out = np.zeros((length,) + shape, dtype)
      out[:len(values)] = values
      return out

    obs_shape = episodes[0]['observations'][0].shape
    obs_dtype = episodes[0]['observations'][0].dtype
    columns = dict(observations=[], actions=[], rewards=[], discounts=[],
                   last=[], mask=[], final_observations=[], extras=[])
    for e in episodes:
      n = len(e['actions'])
      columns['observations'].append(
          pad(np.stack(e['observations'][:-1]), obs_dtype, obs_shape))
      columns['actions'].append(pad(e['actions'], np.int32))
      columns['rewards'].append(pad(e['rewards'], np.float32))
      columns['discounts'].append(pad(e['discounts'], np.float32))
      columns['last'].append(pad(np.arange(n) == n - 1, bool))
      columns['mask'].append(pad(np.ones(n), np.float32))
      columns['final_observations'].append(e['observations'][-1])
      columns['extras'].append(
          jax.tree.map(lambda *xs: pad(np.stack(xs), np.asarray(xs[0]).dtype,
                                       np.shape(xs[0])), *e['extras'])
          if e['extras'] and e['extras'][0] else {})
    time_major = lambda xs: np.stack(xs, axis=1)
    return agent_lib.Trajectory(
        observations=time_major(columns['observations']),
        actions=time_major(columns['actions']),
        rewards=time_major(columns['rewards']),
        discounts=time_major(columns['discounts']),
        last=time_major(columns['last']),
        mask=time_major(columns['mask']),
        final_observations=np.stack(columns['final_observations']),
        extras=jax.tree.map(lambda *xs: np.stack(xs, axis=1),
                            *columns['extras']))
