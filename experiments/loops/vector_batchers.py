"""Batchers for N environments stepped side by side (one `Step` at a time).

Each step of the N environments arrives at once, as arrays with a leading
environment axis, so the per-step cost is one append, not N. Every
environment is its own stream, cut as the one-environment batchers of
`batchers` cut theirs (the same `Trajectory` layout):

  * `VectorSequenceBatcher`: each environment's fixed-length unrolls, across
    its episode boundaries. All N streams cut at the same steps, and their
    unrolls queue in environment order, so with N dividing the batch a
    batch holds, as the compiled loop's, `B/N` consecutive unrolls of each
    environment (sequence j·N + i: unroll j of environment i).
  * `VectorEpisodeBatcher`: each environment's whole episodes, queued in the
    order they end.

`state` keeps finished data only (complete unrolls, complete episodes): a
checkpoint of N environments almost never falls between episodes of all of
them, and their games cannot be saved, so the loop restarts them on fresh
episodes and the partial data is dropped (`vector_environment_loop`).
"""

from typing import Any, Dict, List, NamedTuple, Union

import jax
import numpy as np

from agents import agent as agent_lib
from environments import continuous_actions
from experiments.loops import batchers


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
              extras=batchers.stack_extras([s.extras for s in steps]))


class VectorSequenceBatcher:
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

  def discard_partial(self) -> None:
    """Drops the unrolls in progress (their environments start anew)."""
    self._steps = []

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
    return batchers.stack_sequences(sequences)

  def state(self) -> Dict[str, Any]:
    """The complete unrolls (those in progress are not kept)."""
    return {'batch_size': self._batch_size,
            'unroll_length': self._unroll_length,
            'sequences': jax.device_get(self._sequences)}

  def restore(self, state: Dict[str, Any]) -> None:
    batchers.check_settings(state, batch_size=self._batch_size,
                             unroll_length=self._unroll_length)
    self._steps = []
    self._sequences = list(jax.device_get(state['sequences']))


class VectorEpisodeBatcher:
  """Whole episodes of each of N environment streams, padded as
  `batchers.EpisodeBatcher` pads them."""

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
    return batchers.pad_episodes(episodes)

  def state(self) -> Dict[str, Any]:
    """The complete episodes (those in progress are not kept)."""
    return {'batch_size': self._batch_size,
            'episodes': jax.device_get(self._episodes)}

  def restore(self, state: Dict[str, Any]) -> None:
    batchers.check_settings(state, batch_size=self._batch_size)
    self.discard_partial()
    self._episodes = list(jax.device_get(state['episodes']))


VectorBatcher = Union[VectorSequenceBatcher, VectorEpisodeBatcher]


def make_batcher(data: agent_lib.DataRequirements,
                 num_envs: int) -> VectorBatcher:
  """The batcher of N streams that produces what an agent's `update`
  expects (as `batchers.make_batcher` for one)."""
  if data.unroll_length is None:
    return VectorEpisodeBatcher(data.batch_size, num_envs)
  return VectorSequenceBatcher(data.batch_size, data.unroll_length)
