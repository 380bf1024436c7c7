"""N `dm_env` environments of one seed, stepped side by side (Python loop;
N = 1 included).

Each step is ONE batched, jitted act for the N observations
(`actor.BatchedActor`: one transfer each way), then the environments step
(`environments.environment_batch`: one after another in Python, or in one
call of an engine such as EnvPool), the batcher takes the N transitions at
once, and the learner updates whenever a batch is ready (the actor then
acts with the new params). A finished episode's environment is reset at
once, so every environment is always in an episode. The next act is dispatched as soon as the new
observations are known, so the device acts while the host does the step's
bookkeeping (per-step host work is what limits this loop's speed).

Episodes are numbered as the compiled loop numbers them: environment i of N
plays training episodes i, N + i, 2N + i, … (its k-th is k·N + i), and step
t of episode e acts with `actor.step_key(actor_key, e, t)`. Environments
that are `episode_streams.EpisodeStream`s all play the seed's one training
stream and `seek` each episode by its number, so on a JAX core the loop
plays the compiled loop's games (and, for unroll agents with N dividing the
batch, builds its very batches).

Checkpoints: the environments' games in progress cannot be saved, so
`resume_started` counts them as played: a resumed loop starts every
environment on its next episode number, and the partial episodes (and
partial unrolls) are dropped; their steps stay counted. Where every
environment is `between_episodes` (one environment at an episode end),
nothing is dropped and the resumed loop continues exactly.
"""

from typing import List, NamedTuple, Optional

import jax
import numpy as np

from agents import agent as agent_lib
from environments import environment_batch
from experiments.loops import actor as actor_lib
from experiments.loops import batchers
from experiments.loops import learner as learner_lib


class StepResult(NamedTuple):
  """What one step of the N environments produced."""
  returns: List[float]  # Of the episodes that ended at this step.
  lengths: List[int]  # Their lengths.
  learner_metrics: List[agent_lib.Metrics]  # One per update made.


class EnvironmentLoop:
  """Steps N environments with one act call per step, learning as it goes.

  Construction starts every environment's next episode: environment i's
  k-th, numbered k·N + i, with k = `episodes_started[i]` (episodes it has
  begun before).
  """

  def __init__(self, environments: environment_batch.EnvironmentBatch,
               actor: actor_lib.BatchedActor,
               learner: learner_lib.Learner,
               batcher: batchers.Batcher,
               episodes_started: np.ndarray):
    """`environments`: the N environments (an `EnvironmentList` of
    `dm_env` environments seeks the training stream's episodes where they
    are `EpisodeStream`s)."""
    self._environments = environments
    n = environments.num_envs
    self._actor = actor
    self._learner = learner
    self._batcher = batcher
    self._started = np.array(episodes_started, np.int64).reshape(n)
    self._episodes = np.zeros(n, np.int32)  # Current episode numbers.
    self._steps = np.zeros(n, np.int32)  # Steps taken in them.
    self._returns = np.zeros(n, np.float64)
    self._observations = self._begin(np.arange(n))
    self._pending: Optional[jax.Array] = None
    self._dispatch()

  @property
  def num_envs(self) -> int:
    return self._environments.num_envs

  def _begin(self, indices: np.ndarray) -> np.ndarray:
    """Starts the next episode of environments `indices`; their FIRST
    observations."""
    episodes = self._started[indices] * self.num_envs + indices
    observations = self._environments.reset(indices, episodes)
    self._started[indices] += 1
    self._episodes[indices] = episodes
    self._steps[indices] = 0
    self._returns[indices] = 0.0
    return observations

  def between_episodes(self) -> bool:
    """Whether every environment is at its episode's first step (a
    checkpoint here loses no game in progress)."""
    return not self._steps.any()

  def resume_started(self) -> np.ndarray:
    """Per environment, the episodes a resumed loop counts as begun: the
    one in progress too, unless it has taken no step yet (then nothing of
    it is lost and the resumed loop plays it)."""
    return self._started - (self._steps == 0)

  def _dispatch(self) -> None:
    """Starts acting on the current observations (the device computes while
    the host goes on; `step` fetches the actions)."""
    self._pending = self._actor.dispatch(self._episodes, self._steps,
                                         self._observations)

  def step(self) -> StepResult:
    """One step of every environment, and the updates it makes ready.

    The next actions are dispatched as soon as the new observations are
    known, before the step's bookkeeping, unless this step completes a
    batch: then they wait for the update (acting always uses the params of
    every update made before).
    """
    observations = self._observations
    actions, extras = self._actor.fetch(self._pending)
    self._pending = None
    stepped = self._environments.step(actions)
    last = stepped.last
    self._returns += stepped.rewards
    self._steps += 1
    returns, lengths = [], []
    if last.any():
      ended = np.flatnonzero(last)
      returns = self._returns[ended].tolist()
      lengths = self._steps[ended].tolist()
      acted_on = stepped.observations.copy()  # The batcher keeps the terminal.
      acted_on[ended] = self._begin(ended)
      self._observations = acted_on
    else:
      self._observations = stepped.observations
    update_due = self._batcher.ready_after(last)
    if not update_due:
      self._dispatch()
    self._batcher.observe(batchers.Step(
        observations, actions, stepped.rewards.astype(np.float32),
        stepped.discounts, last, stepped.observations, extras))
    metrics = []
    if update_due:
      while self._batcher.ready():
        metrics.append(self._learner.step(self._batcher.pop_batch()))
      self._actor.update(self._learner.params)
      self._dispatch()
    elif self._batcher.ready():
      raise RuntimeError('The batcher became ready unannounced.')
    return StepResult(returns, lengths, metrics)

  def close(self) -> None:
    self._environments.close()
