"""Cut the steps of N environments into the `Trajectory` batches agents want.

Each step of the N environments stepped side by side (N = 1 included)
arrives at once, as arrays with a leading environment axis, so the per-step
cost is one append, not N. Every environment is its own stream:

  * `SequenceBatcher`: each environment's fixed-length unrolls, across its
    episode boundaries (if step t ends an episode, `observations[t + 1]` is
    the next episode's FIRST observation and `next_observations[t]` the one
    the episode ended on, a time limit's cut-off one). All N streams cut at
    the same steps, and their unrolls queue in environment order, so with N
    dividing the batch a batch holds, as the compiled loop's, `B/N`
    consecutive unrolls of each environment (sequence j·N + i: unroll j of
    environment i).
  * `EpisodeBatcher`: each environment's whole episodes, queued in the
    order they end, padded to a common length with mask 0.

`make_batcher` picks one from an agent's `DataRequirements`. `state` keeps
finished data (complete unrolls, complete episodes), and the unrolls in
progress where asked: a checkpoint of N environments rarely falls between
episodes of all of them, and their games cannot be saved, so the loop then
restarts them on fresh episodes and the partial data is dropped
(`environment_loop`); between episodes of all of them (one environment at
an episode end) unrolls continue across the checkpoint.
"""

from typing import Any, Dict, List, NamedTuple, Union

import jax
import numpy as np

from agents import agent as agent_lib
from environments import continuous_actions


def _check_settings(state: Dict[str, Any], **settings: int) -> None:
  """Raises ValueError if `state` came from a batcher of other settings."""
  saved = {name: state.get(name) for name in settings}
  if saved != settings:
    raise ValueError(f'Batcher state of settings {saved} cannot be restored '
                     f'into a batcher of settings {settings}.')


def _stack_extras(extras: List[agent_lib.Extras]):
  """List of per-step extras dicts -> dict of stacked arrays ({} if none)."""
  if not extras or not extras[0]:
    return {}
  return jax.tree.map(lambda *xs: np.stack([np.asarray(x) for x in xs]),
                      *extras)


def padded_length(length: int, minimum: int = 8) -> int:
  """Next power of two, so jitted updates compile for few distinct T."""
  return max(minimum, 1 << (length - 1).bit_length())


def _pad_episodes(episodes: List[dict]) -> agent_lib.Trajectory:
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


def _stack_sequences(sequences: List[dict]) -> agent_lib.Trajectory:
  """Unrolls (dicts of `Trajectory` fields, each `[T, ...]`; the final
  observation `[...]`) as one time-major batch `[T, B, ...]`."""
  stack = lambda *xs: np.stack(xs, axis=1)
  batch = jax.tree.map(stack, *sequences)
  batch['final_observations'] = np.stack(
      [s['final_observations'] for s in sequences])
  return agent_lib.Trajectory(**batch)


class Step(NamedTuple):
  """One step of N environments (leading axis N on every field)."""
  observations: np.ndarray  # Acted on (a FIRST one after a reset).
  actions: np.ndarray
  rewards: np.ndarray  # float32.
  discounts: np.ndarray  # float32.
  last: np.ndarray  # bool: the step ended the environment's episode.
  next_observations: np.ndarray  # After the step (the terminal one if last).
  extras: agent_lib.Extras


def _stack(steps: List[Step]) -> Step:
  """Steps `[N, ...]` -> one `Step` of `[T, N, ...]` fields."""
  return Step(*[np.stack(field) for field in list(zip(*steps))[:-1]],
              extras=_stack_extras([s.extras for s in steps]))


class SequenceBatcher:
  """Unrolls of `unroll_length` steps of each of N environment streams."""

  def __init__(self, batch_size: int, unroll_length: int):
    if batch_size < 1 or unroll_length < 1:
      raise ValueError(f'batch_size and unroll_length must be >= 1; got '
                       f'{batch_size} and {unroll_length}.')
    self._batch_size = batch_size
    self._unroll_length = unroll_length
    self._steps: List[Step] = []  # Of the unrolls in progress.
    self._sequences: List[dict] = []  # Complete, in batch order.

  def observe(self, step: Step) -> None:
    self._steps.append(step)
    if len(self._steps) < self._unroll_length:
      return
    block = _stack(self._steps)
    self._steps = []
    ones = np.ones(self._unroll_length, np.float32)
    for i in range(block.actions.shape[1]):
      self._sequences.append(dict(
          observations=block.observations[:, i],
          actions=continuous_actions.host_actions(block.actions[:, i]),
          rewards=block.rewards[:, i], discounts=block.discounts[:, i],
          last=block.last[:, i], mask=ones,
          final_observations=step.next_observations[i],
          next_observations=block.next_observations[:, i],
          extras=jax.tree.map(lambda x, i=i: x[:, i], block.extras)))

  def ready_after(self, last: np.ndarray) -> bool:
    """Whether `ready` will hold once a step with these `last` flags
    (`[N]`) is observed (so the loop knows, before observing it, whether
    the next actions must wait for an update)."""
    complete = len(self._sequences)
    if len(self._steps) + 1 == self._unroll_length:
      complete += len(last)
    return complete >= self._batch_size

  def ready(self) -> bool:
    return len(self._sequences) >= self._batch_size

  def pop_batch(self) -> agent_lib.Trajectory:
    """Removes and returns the `batch_size` oldest complete unrolls."""
    if not self.ready():
      raise RuntimeError(f'Only {len(self._sequences)} of '
                         f'{self._batch_size} sequences are complete.')
    sequences = self._sequences[:self._batch_size]
    self._sequences = self._sequences[self._batch_size:]
    return _stack_sequences(sequences)

  def state(self, keep_partial: bool = False) -> Dict[str, Any]:
    """The complete unrolls, and those in progress if `keep_partial` (only
    where every environment is between episodes: they go on from there)."""
    steps = [step._asdict() for step in self._steps] if keep_partial else []
    return {'batch_size': self._batch_size,
            'unroll_length': self._unroll_length,
            'sequences': jax.device_get(self._sequences),
            'steps': jax.device_get(steps)}

  def restore(self, state: Dict[str, Any]) -> None:
    _check_settings(state, batch_size=self._batch_size,
                    unroll_length=self._unroll_length)
    self._steps = [Step(**step) for step in state['steps']]
    self._sequences = list(jax.device_get(state['sequences']))


class EpisodeBatcher:
  """Whole episodes of each of N environment streams, padded to a common
  length (`_pad_episodes`)."""

  # Steps kept before the oldest episode in progress are dropped in blocks
  # of this many (one list deletion, not one per step).
  _TRIM = 256

  def __init__(self, batch_size: int, num_envs: int):
    if batch_size < 1 or num_envs < 1:
      raise ValueError(f'batch_size and num_envs must be >= 1; got '
                       f'{batch_size} and {num_envs}.')
    self._batch_size = batch_size
    self._num_envs = num_envs
    self._steps: List[Step] = []
    self._first = 0  # Index (over all steps observed) of `_steps[0]`.
    self._count = 0  # Steps observed.
    self._starts = [0] * num_envs  # Step index where each episode began.
    self._episodes: List[dict] = []  # Complete, in the order they ended.

  def observe(self, step: Step) -> None:
    self._steps.append(step)
    self._count += 1
    if not step.last.any():
      return
    for i in np.flatnonzero(step.last):
      steps = _stack(self._steps[self._starts[i] - self._first:])
      self._episodes.append(dict(
          observations=steps.observations[:, i],
          final_observation=step.next_observations[i],
          actions=steps.actions[:, i], rewards=steps.rewards[:, i],
          discounts=steps.discounts[:, i],
          extras=jax.tree.map(lambda x, i=i: x[:, i], steps.extras)))
      self._starts[i] = self._count
    oldest = min(self._starts)
    if oldest - self._first >= self._TRIM:
      del self._steps[:oldest - self._first]
      self._first = oldest

  def ready_after(self, last: np.ndarray) -> bool:
    """Whether `ready` will hold once a step with these `last` flags
    (`[N]`) is observed."""
    return len(self._episodes) + int(last.sum()) >= self._batch_size

  def discard_partial(self) -> None:
    """Drops the episodes in progress (their environments start anew)."""
    self._steps = []
    self._first = self._count
    self._starts = [self._count] * self._num_envs

  def ready(self) -> bool:
    return len(self._episodes) >= self._batch_size

  def pop_batch(self) -> agent_lib.Trajectory:
    """Removes and returns the `batch_size` episodes that ended first."""
    if not self.ready():
      raise RuntimeError(f'Only {len(self._episodes)} of {self._batch_size} '
                         f'episodes are complete.')
    episodes = self._episodes[:self._batch_size]
    self._episodes = self._episodes[self._batch_size:]
    return _pad_episodes(episodes)

  def state(self, keep_partial: bool = False) -> Dict[str, Any]:
    """The complete episodes (those in progress are not kept: between
    episodes, where `keep_partial` is asked, there are none)."""
    del keep_partial
    return {'batch_size': self._batch_size,
            'episodes': jax.device_get(self._episodes)}

  def restore(self, state: Dict[str, Any]) -> None:
    _check_settings(state, batch_size=self._batch_size)
    self.discard_partial()
    self._episodes = list(jax.device_get(state['episodes']))


Batcher = Union[SequenceBatcher, EpisodeBatcher]


def make_batcher(data: agent_lib.DataRequirements, num_envs: int) -> Batcher:
  """The batcher of N streams that produces what an agent's `update`
  expects."""
  if data.unroll_length is None:
    return EpisodeBatcher(data.batch_size, num_envs)
  return SequenceBatcher(data.batch_size, data.unroll_length)
