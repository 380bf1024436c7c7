"""Cut a stream of dm_env time steps into the `Trajectory` batches agents want.

`EpisodeBatcher` collects whole episodes (padded to a common length with mask
0); `SequenceBatcher` cuts fixed-length unrolls that run across episode
boundaries. `make_batcher` picks one from an agent's `DataRequirements`.
Both share one protocol: `observe_first` on a FIRST time step, `observe`
after each action, then `pop_batch` once `ready`; `state` and `restore`
carry a part-filled batch across a checkpoint.
"""

from typing import Any, Dict, List, Optional, Protocol, Union

import dm_env
import jax
import numpy as np

from agents import agent as agent_lib
from environments import continuous_actions


class Batcher(Protocol):
  """Turns time steps into `Trajectory` batches."""

  def observe_first(self, timestep: dm_env.TimeStep) -> None:
    ...

  def observe(self, action: Any, extras: agent_lib.Extras,
              timestep: dm_env.TimeStep) -> None:
    ...

  def ready(self) -> bool:
    ...

  def pop_batch(self) -> agent_lib.Trajectory:
    ...

  def state(self) -> Dict[str, Any]:
    """What the batcher holds, as picklable host values (numpy arrays,
    lists, numbers), so a resumed run builds the same batches."""
    ...

  def restore(self, state: Dict[str, Any]) -> None:
    """Continues from `state()` of a batcher of the same settings."""
    ...


def _host_copy(tree: Any) -> Any:
  """`tree` in new containers, its device arrays fetched to the host (its
  numpy leaves are shared: batchers never write to them)."""
  return jax.device_get(tree)


def check_settings(state: Dict[str, Any], **settings: int) -> None:
  """Raises ValueError if `state` came from a batcher of other settings."""
  saved = {name: state.get(name) for name in settings}
  if saved != settings:
    raise ValueError(f'Batcher state of settings {saved} cannot be restored '
                     f'into a batcher of settings {settings}.')


def stack_extras(extras: List[agent_lib.Extras]):
  """List of per-step extras dicts -> dict of stacked arrays ({} if none)."""
  if not extras or not extras[0]:
    return {}
  return jax.tree.map(lambda *xs: np.stack([np.asarray(x) for x in xs]),
                      *extras)


def padded_length(length: int, minimum: int = 8) -> int:
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

  def observe(self, action: Any, extras: agent_lib.Extras,
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

  def state(self) -> Dict[str, Any]:
    return {'batch_size': self._batch_size,
            'episodes': _host_copy(self._episodes),
            'current': _host_copy(self._current)}

  def restore(self, state: Dict[str, Any]) -> None:
    check_settings(state, batch_size=self._batch_size)
    self._episodes = _host_copy(list(state['episodes']))
    self._current = _host_copy(state['current'])

  def pop_batch(self) -> agent_lib.Trajectory:
    """Removes and returns `batch_size` complete episodes, time-major."""
    if not self.ready():
      raise RuntimeError(f'Only {len(self._episodes)} of {self._batch_size} '
                         f'episodes are complete.')
    episodes = self._episodes[:self._batch_size]
    self._episodes = self._episodes[self._batch_size:]
    return pad_episodes([
        dict(observations=np.stack(e['observations'][:-1]),
             final_observation=e['observations'][-1], actions=e['actions'],
             rewards=e['rewards'], discounts=e['discounts'],
             extras=stack_extras(e['extras'])) for e in episodes])


def pad_episodes(episodes: List[dict]) -> agent_lib.Trajectory:
  """Whole episodes as one time-major batch, padded with mask 0.

  Each episode: `observations` `[L, ...]` (those acted on),
  `final_observation`, `actions`, `rewards`, `discounts` (length L) and
  `extras` (a dict of `[L, ...]` arrays).
  """
  length = padded_length(max(len(e['actions']) for e in episodes))

  def pad(values, dtype, shape=()):
    out = np.zeros((length,) + shape, dtype)
    out[:len(values)] = values
    return out

  def pad_actions(actions):
    actions = continuous_actions.host_actions(actions)
    return pad(actions, actions.dtype, actions.shape[1:])

  obs_shape = episodes[0]['observations'].shape[1:]
  obs_dtype = episodes[0]['observations'].dtype
  columns = dict(observations=[], actions=[], rewards=[], discounts=[],
                 last=[], mask=[], final_observations=[], extras=[])
  for e in episodes:
    n = len(e['actions'])
    columns['observations'].append(pad(e['observations'], obs_dtype,
                                       obs_shape))
    columns['actions'].append(pad_actions(e['actions']))
    columns['rewards'].append(pad(e['rewards'], np.float32))
    columns['discounts'].append(pad(e['discounts'], np.float32))
    columns['last'].append(pad(np.arange(n) == n - 1, bool))
    columns['mask'].append(pad(np.ones(n), np.float32))
    columns['final_observations'].append(e['final_observation'])
    columns['extras'].append(jax.tree.map(
        lambda x: pad(x, x.dtype, x.shape[1:]), e['extras']))
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


class SequenceBatcher:
  """Cuts fixed-length unrolls, `[unroll_length, batch_size]` per batch.

  Sequences run across episode boundaries: if step t ends an episode
  (`last[t]`), `observations[t + 1]` is the next episode's FIRST
  observation, and `next_observations[t]` the one the episode ended on (a
  time limit's cut-off one). `final_observations` is the observation after
  each sequence's last step. Consecutive sequences of the one environment form
  the batch; `mask` is all ones.
  """

  def __init__(self, batch_size: int, unroll_length: int):
    if batch_size < 1 or unroll_length < 1:
      raise ValueError(f'batch_size and unroll_length must be >= 1; got '
                       f'{batch_size} and {unroll_length}.')
    self._batch_size = batch_size
    self._unroll_length = unroll_length
    self._pending: Optional[np.ndarray] = None  # Observation to act on next.
    self._steps: List[tuple] = []
    self._sequences: List[dict] = []

  def observe_first(self, timestep: dm_env.TimeStep) -> None:
    self._pending = np.asarray(timestep.observation)

  def observe(self, action: Any, extras: agent_lib.Extras,
              timestep: dm_env.TimeStep) -> None:
    if self._pending is None:
      raise RuntimeError('observe_first must be called at the episode start.')
    observation = np.asarray(timestep.observation)
    self._steps.append((self._pending, action, timestep.reward,
                        timestep.discount, timestep.last(), extras,
                        observation))
    self._pending = None if timestep.last() else observation
    if len(self._steps) == self._unroll_length:
      (observations, actions, rewards, discounts, last, extras,
       next_observations) = zip(*self._steps)
      self._sequences.append(dict(
          observations=np.stack(observations),
          actions=continuous_actions.host_actions(actions),
          rewards=np.asarray(rewards, np.float32),
          discounts=np.asarray(discounts, np.float32),
          last=np.asarray(last, bool),
          mask=np.ones(self._unroll_length, np.float32),
          final_observations=observation,
          next_observations=np.stack(next_observations),
          extras=stack_extras(list(extras))))
      self._steps = []

  def ready(self) -> bool:
    return len(self._sequences) >= self._batch_size

  def state(self) -> Dict[str, Any]:
    return {'batch_size': self._batch_size,
            'unroll_length': self._unroll_length,
            'pending': _host_copy(self._pending),
            'steps': _host_copy(self._steps),
            'sequences': _host_copy(self._sequences)}

  def restore(self, state: Dict[str, Any]) -> None:
    check_settings(state, batch_size=self._batch_size,
                    unroll_length=self._unroll_length)
    self._pending = _host_copy(state['pending'])
    self._steps = _host_copy(list(state['steps']))
    self._sequences = _host_copy(list(state['sequences']))

  def pop_batch(self) -> agent_lib.Trajectory:
    """Removes and returns `batch_size` sequences, time-major."""
    if not self.ready():
      raise RuntimeError(f'Only {len(self._sequences)} of '
                         f'{self._batch_size} sequences are complete.')
    sequences = self._sequences[:self._batch_size]
    self._sequences = self._sequences[self._batch_size:]
    return stack_sequences(sequences)




def stack_sequences(sequences: List[dict]) -> agent_lib.Trajectory:
  """Unrolls (dicts of `Trajectory` fields, each `[T, ...]`; the final
  observation `[...]`) as one time-major batch `[T, B, ...]`."""
  stack = lambda *xs: np.stack(xs, axis=1)
  batch = jax.tree.map(stack, *sequences)
  batch['final_observations'] = np.stack(
      [s['final_observations'] for s in sequences])
  return agent_lib.Trajectory(**batch)


def make_batcher(data: agent_lib.DataRequirements
                ) -> Union[EpisodeBatcher, SequenceBatcher]:
  """The batcher that produces what an agent's `update` expects."""
  if data.unroll_length is None:
    return EpisodeBatcher(data.batch_size)
  return SequenceBatcher(data.batch_size, data.unroll_length)
