"""N `dm_env` environments of one seed, stepped side by side (Python loop;
N = 1 included).

Each step is ONE batched, jitted act for the N observations
(`actor.BatchedActor`: one transfer each way), then each environment steps,
the batcher takes the N transitions at once, and the learner updates
whenever a batch is ready (the actor then acts with the new params). A
finished episode's environment is reset at once, so every environment is
always in an episode. The next act is dispatched as soon as the new
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

from typing import List, NamedTuple, Optional, Sequence

import dm_env
import jax
import numpy as np

from agents import agent as agent_lib
from environments import episode_streams
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

  def __init__(self, environments: Sequence[dm_env.Environment],
               stream: Optional[int], actor: actor_lib.BatchedActor,
               learner: learner_lib.Learner,
               batcher: batchers.Batcher,
               episodes_started: np.ndarray):
    """`stream`: the training stream EpisodeStream environments seek
    episodes of (None: they play on as seeded)."""
    n = len(environments)
    self._environments = list(environments)
    self._seekable = [stream is not None and
                      isinstance(e, episode_streams.EpisodeStream)
                      for e in self._environments]
    self._stream = stream
    self._actor = actor
    self._learner = learner
    self._batcher = batcher
    self._started = np.array(episodes_started, np.int64).reshape(n)
    self._episodes = np.zeros(n, np.int32)  # Current episode numbers.
    self._steps = np.zeros(n, np.int32)  # Steps taken in them.
    self._returns = np.zeros(n, np.float64)
    self._observations = np.stack([self._begin(i) for i in range(n)])
    self._pending: Optional[jax.Array] = None
    self._dispatch()

  @property
  def num_envs(self) -> int:
    return len(self._environments)

  def _begin(self, i: int) -> np.ndarray:
    """Starts environment i's next episode; its FIRST observation."""
    episode = int(self._started[i]) * self.num_envs + i
    environment = self._environments[i]
    if self._seekable[i]:
      environment.seek(self._stream, episode)
    timestep = environment.reset()
    self._started[i] += 1
    self._episodes[i] = episode
    self._steps[i] = 0
    self._returns[i] = 0.0
    return np.asarray(timestep.observation)

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
    # Ints for discrete actions; float32 rows for continuous ones, as an
    # agent produced them (not rounded on the way), each an array of its
    # own that the environment may write to.
    host_actions = (actions.tolist() if actions.dtype.kind in 'iu'
                    else list(actions.astype(np.float32)))
    timesteps = [environment.step(action) for environment, action in zip(
        self._environments, host_actions)]
    ends = [t.last() for t in timesteps]
    last = np.array(ends)
    # np.array, not np.stack: the same array, with less Python on the way.
    next_observations = np.array([t.observation for t in timesteps])
    rewards = np.array([t.reward for t in timesteps], np.float64)
    self._returns += rewards
    self._steps += 1
    returns, lengths = [], []
    if True in ends:
      acted_on = next_observations.copy()  # The batcher keeps the terminal.
      for i, end in enumerate(ends):
        if end:
          returns.append(float(self._returns[i]))
          lengths.append(int(self._steps[i]))
          acted_on[i] = self._begin(i)
      self._observations = acted_on
    else:
      self._observations = next_observations
    update_due = self._batcher.ready_after(last)
    if not update_due:
      self._dispatch()
    self._batcher.observe(batchers.Step(
        observations, actions, rewards.astype(np.float32),
        np.array([t.discount for t in timesteps], np.float32), last,
        next_observations, extras))
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
    for environment in self._environments:
      environment.close()
