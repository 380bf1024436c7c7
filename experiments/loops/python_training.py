"""The Python `dm_env` loop behind the `TrainingLoop` interface: one seed.

Acting, batching and learning happen in `EnvironmentLoop` (one environment)
or `VectorEnvironmentLoop` (`num_envs` N > 1 side by side, one batched act
per step); this class adds what the driver needs: the checkpoint (`state`:
learner state, actor key, counters; `host_state`: the batcher's part-filled
batch and the evaluation episodes played), advancing until a target, and
evaluation on the seed's own episodes (`evaluation_stream`).

Training plays one stream of episodes, `environment_seed(seed, TRAIN, 0)`
(the compiled loop's episode keys too; with N environments, environment i
plays its episodes i, N + i, … as in the compiled loop). Where the
environment is an `episode_streams.EpisodeStream`, a resumed run starts that
stream at the episode it would have played next; any other environment is
seeded anew on resume (with a warning).

Where `advance` stops and what a checkpoint holds:
  * N = 1: at episode ends; a checkpoint there resumes exactly (bit for bit
    as an uninterrupted run).
  * N > 1: at the first step (of all N environments) where a target is
    reached; the N environments are then almost never all between episodes.
    A checkpoint keeps, besides learner, actor key and counters, each
    environment's count of episodes begun (`episodes_started`) and the
    finished unrolls or episodes of the batcher. A resumed run starts every
    environment on a fresh episode, its next number: the partial episodes
    (and unrolls) in progress are dropped, their steps stay counted, and no
    trajectory joins two episodes. So it trains on correctly but differs
    from an uninterrupted run (it warns once).
  * With `actor_thread`, as N > 1 (N = 1 too), after the learner has
    learned every batch the actors queued (`loops.actor_thread`).
"""

import time
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from absl import logging
import dm_env
import jax
import numpy as np

from agents import agent as agent_lib
from experiments.loops import actor as actor_lib
from experiments.loops import actor_thread as actor_thread_lib
from experiments.loops import batchers
from experiments.loops import environment_loop
from experiments.loops import evaluation
from experiments.loops import evaluation_stream
from experiments.loops import interface
from experiments.loops import learner as learner_lib
from experiments.loops import seeding
from experiments.loops import training_environments
from experiments.loops import vector_batchers
from experiments.loops import vector_environment_loop

EnvironmentFactory = training_environments.EnvironmentFactory
_max_abs = jax.jit(learner_lib.max_abs)


def _reached(targets: interface.Targets, counters: Dict[str, int]) -> bool:
  """Whether a counter target or the deadline is reached."""
  if targets.deadline is not None and time.monotonic() >= targets.deadline:
    return True
  return any(getattr(targets, key) is not None and
             counters[key] >= getattr(targets, key)
             for key in interface.COUNTERS)


def _row(returns: List[float], lengths: List[int], steps: int,
         elapsed: float, metrics: List[agent_lib.Metrics]) -> Dict[str, float]:
  """The logged scalars of one `advance`: episode means (if any ended),
  speeds and the learner metrics' means."""
  values = {}
  if lengths:
    values['episode_return'] = float(np.mean(returns))
    values['episode_length'] = float(np.mean(lengths))
  values['steps_per_second'] = steps / elapsed
  values['episodes_per_second'] = len(lengths) / elapsed
  fetched = jax.device_get(metrics)  # One transfer per call.
  for name in (fetched[0] if fetched else ()):
    values[name] = float(np.mean([m[name] for m in fetched]))
  return values


class PythonTraining:
  """One seed trained in `num_envs` `dm_env` environments."""

  def __init__(self, agent: agent_lib.Agent,
               make_environment: EnvironmentFactory, seed: int,
               log_every_episodes: int = 250, num_envs: int = 1,
               eval_protocol: evaluation.Protocol = evaluation.GREEDY,
               actor_thread: bool = False):
    """`log_every_episodes`: `advance` returns at least at each multiple of
    it (the logging interval; 0: none). `num_envs`: environments stepped
    side by side, one batched act per step (evaluations too).
    `actor_thread`: act in a thread ahead of the learner
    (`loops.actor_thread`)."""
    if num_envs < 1:
      raise ValueError(f'num_envs must be >= 1; got {num_envs}.')
    self._num_envs = num_envs
    self._actor_thread = actor_thread
    # N environments stepped together: N > 1, or any N in a thread.
    self._vectorised = num_envs > 1 or actor_thread
    self._agent = agent
    self._eval_protocol = eval_protocol
    self._log_every_episodes = log_every_episodes
    self._make_environment = make_environment
    self._environments = training_environments.TrainingEnvironments(
        make_environment, seed, num_envs)
    self._seed = seed
    learner_key, actor_key = jax.random.split(jax.random.PRNGKey(seed))
    self._initial = {
        # One compiled init, not one compile per operation of it (about
        # a second of a short run).
        'learner': jax.jit(agent.init)(learner_key), 'actor_key': actor_key,
        'counters': {k: np.zeros((), np.int64) for k in interface.COUNTERS}}
    if self._vectorised:
      self._initial['episodes_started'] = np.zeros(num_envs, np.int64)
    self._counters = {k: 0 for k in interface.COUNTERS}
    self._restored_batch: Optional[Dict[str, Any]] = None  # Until `_start`.
    self._eval_episodes = 0  # Played of the evaluation stream.
    self._loop: Optional[environment_loop.EnvironmentLoop] = None
    # N > 1: the loop of N environments, and whether a step of it began
    # and did not finish (then nothing is consistent enough to save).
    self._vector: Optional[vector_environment_loop.VectorEnvironmentLoop] = (
        None)
    self._stepping = False
    self._threaded: Optional[Tuple[actor_thread_lib.ActorThread,
                                   actor_thread_lib.BatchQueue,
                                   actor_thread_lib.QueueLearner]] = None
    self._learner: Optional[learner_lib.Learner] = None
    self._actor: Optional[Union[actor_lib.Actor,
                                actor_lib.BatchedActor]] = None
    self._batcher: Optional[Union[batchers.Batcher,
                                  vector_batchers.VectorBatcher]] = None
    self._environment: Optional[dm_env.Environment] = None
    self._evaluations: Optional[evaluation_stream.EvaluationStream] = None

  @property
  def seeds(self) -> Sequence[int]:
    return (self._seed,)

  @property
  def num_envs(self) -> int:
    return self._num_envs

  @property
  def compile_seconds(self) -> float:
    return 0.0  # `jax.jit` compiles on first use, inside the training time.

  @property
  def num_devices(self) -> int:
    return 1

  def _in_episode(self) -> bool:
    """Whether an episode (N = 1) or a step (N > 1) began uncounted (it was
    interrupted): learner, batcher and environments are part-way in it."""
    if self._vectorised:
      return self._stepping
    return (self._actor is not None and
            self._actor.next_episode != self._counters['episodes'])

  @property
  def state(self) -> Optional[Dict[str, Any]]:
    """None while an interrupted episode (or step) leaves no resume point."""
    if self._in_episode():
      return None
    if self._learner is None:
      learner, key = self._initial['learner'], self._initial['actor_key']
    else:
      learner, key = self._learner.state, self._actor.key
    state = {'learner': learner, 'actor_key': key,
             'counters': {k: np.asarray(v, np.int64)
                          for k, v in self._counters.items()}}
    if self._vectorised:
      state['episodes_started'] = np.asarray(
          self._initial['episodes_started'] if self._vector is None
          else self._vector.resume_started(), np.int64)
    return state

  @property
  def host_state(self) -> Optional[Dict[str, Any]]:
    """The batcher's contents (None before training) and the evaluation
    episodes played; None where `state` is."""
    if self._in_episode():
      return None
    batch = (self._restored_batch if self._batcher is None
             else self._batcher.state())
    return {'batcher': batch, 'eval_episodes': self._eval_episodes}

  def restore(self, state: Dict[str, Any],
              host_state: Optional[Dict[str, Any]] = None) -> None:
    if self._learner is not None:
      raise RuntimeError('restore comes before training starts.')
    self._initial = state
    self._counters = {k: int(v) for k, v in state['counters'].items()}
    if host_state is None and self._counters['episodes']:
      logging.warning('Resuming without host state (a checkpoint written '
                      'before it was saved): a part-filled batch is lost, '
                      'so the run differs from an uninterrupted one.')
    if self._vectorised and self._counters['env_steps']:
      logging.warning(
          'Resuming %d environments: their episodes in progress at the '
          'checkpoint are dropped (counted as played) and each starts a '
          'fresh one, so the run differs from an uninterrupted one.',
          self._num_envs)
    host_state = host_state or {}
    self._restored_batch = host_state.get('batcher')
    self._eval_episodes = int(host_state.get('eval_episodes', 0))
    if self._evaluations is not None:  # Continue the restored stream.
      self._evaluations.close()
      self._evaluations = None

  def counters(self) -> interface.PerSeed:
    return {k: np.asarray([v], np.int64) for k, v in self._counters.items()}

  def compile(self) -> float:
    return 0.0

  def _start_vector(self) -> None:
    """N environments, batched actor, batcher and learner from the state."""
    started = np.asarray(self._initial['episodes_started'], np.int64)
    stream = seeding.environment_seed(self._seed, seeding.TRAIN, 0)
    environments = [self._environments.of_vector(i, stream, started)
                    for i in range(self._num_envs)]
    # Actors in another thread may still act with params of an old state.
    self._learner = learner_lib.Learner(self._agent, self._initial['learner'],
                                        donate=not self._actor_thread)
    self._actor = actor_lib.BatchedActor(self._agent, self._learner.params,
                                         self._initial['actor_key'])
    self._batcher = vector_batchers.make_batcher(self._agent.data,
                                                 self._num_envs)
    if self._restored_batch is not None:
      self._batcher.restore(self._restored_batch)
      self._restored_batch = None
    learner = self._learner
    if self._actor_thread:
      queue = actor_thread_lib.BatchQueue(actor_thread_lib.DEFAULT_CAPACITY)
      learner = actor_thread_lib.QueueLearner(
          queue, self._learner.params, self._counters['updates'])
    self._vector = vector_environment_loop.VectorEnvironmentLoop(
        environments, stream, self._actor, learner, self._batcher, started)
    if self._actor_thread:
      self._threaded = (actor_thread_lib.ActorThread(self._vector, queue),
                        queue, learner)

  def _start(self) -> None:
    """Environment, actor, batcher and learner from the current state."""
    episodes = self._counters['episodes']
    self._environment = self._environments.at(
        seeding.environment_seed(self._seed, seeding.TRAIN, 0), episodes,
        fallback=seeding.environment_seed(self._seed, seeding.TRAIN,
                                          episodes))
    self._learner = learner_lib.Learner(self._agent, self._initial['learner'])
    self._actor = actor_lib.Actor(self._agent, self._learner.params,
                                  self._initial['actor_key'],
                                  next_episode=episodes)
    self._batcher = batchers.make_batcher(self._agent.data)
    if self._restored_batch is not None:
      self._batcher.restore(self._restored_batch)
      self._restored_batch = None
    self._loop = environment_loop.EnvironmentLoop(
        self._environment, self._actor, self._learner, self._batcher)

  def advance(self, targets: interface.Targets,
              progress: Optional[interface.ProgressFn] = None
             ) -> interface.Rows:
    """Trains to the first episode end (N = 1) or step (N > 1) where a
    target, the deadline or the next logging interval is reached."""
    every = self._log_every_episodes
    if every:  # 0: no logging interval of the loop's own.
      log_point = (self._counters['episodes'] // every + 1) * every
      targets = targets._replace(
          episodes=log_point if targets.episodes is None
          else min(log_point, targets.episodes))
    if self._vectorised:
      return self._advance_vector(targets, progress)
    if self._loop is None:
      self._start()
    returns: List[float] = []
    lengths: List[int] = []
    metrics: List[agent_lib.Metrics] = []
    start = time.perf_counter()
    while True:
      result = self._loop.run_episode()
      counted = dict(self._counters)
      counted['episodes'] += 1
      counted['env_steps'] += result.episode_length
      counted['updates'] += len(result.learner_metrics)
      self._counters = counted  # At once: `state` is exact again.
      returns.append(result.episode_return)
      lengths.append(result.episode_length)
      metrics.extend(result.learner_metrics)
      if progress is not None:
        progress(self.counters())
      if _reached(targets, self._counters):
        break
    elapsed = time.perf_counter() - start
    return [_row(returns, lengths, sum(lengths), elapsed, metrics)]

  def run_rows(self, schedule: interface.Schedule,
               progress: Optional[interface.ProgressFn] = None
              ) -> List[interface.LogRow]:
    """One row (`advance` to the schedule's next targets): the host steps
    every environment anyway, so more rows per call would save nothing."""
    start = self.counters()
    rows = self.advance(schedule.targets(start), progress)
    return [interface.LogRow(start, self.counters(), rows)]

  def _advance_vector(self, targets: interface.Targets,
                      progress: Optional[interface.ProgressFn]
                     ) -> interface.Rows:
    """`advance` of N environments, one step of all of them at a time;
    `progress` comes at the steps where episodes end or updates happen."""
    if self._vector is None:
      self._start_vector()
    if self._threaded is not None:
      start, steps_before = time.perf_counter(), self._counters['env_steps']
      returns, lengths, metrics = actor_thread_lib.advance(
          *self._threaded, self._learner, self._counters, targets,
          progress and (lambda: progress(self.counters())))
      if progress is not None:
        progress(self.counters())
      return [_row(returns, lengths,
                   self._counters['env_steps'] - steps_before,
                   time.perf_counter() - start, metrics)]
    never = float('inf')
    limits = {key: never if getattr(targets, key) is None
              else getattr(targets, key) for key in interface.COUNTERS}
    deadline = never if targets.deadline is None else targets.deadline
    counters = self._counters
    steps_before = counters['env_steps']
    returns: List[float] = []
    lengths: List[int] = []
    metrics: List[agent_lib.Metrics] = []
    start = time.perf_counter()
    while True:
      self._stepping = True
      result = self._vector.step()
      counters['episodes'] += len(result.lengths)
      counters['env_steps'] += self._num_envs
      counters['updates'] += len(result.learner_metrics)
      self._stepping = False  # Counted: `state` is consistent again.
      reached = (counters['env_steps'] >= limits['env_steps'] or
                 counters['episodes'] >= limits['episodes'] or
                 counters['updates'] >= limits['updates'] or
                 time.monotonic() >= deadline)
      if result.lengths or result.learner_metrics:
        returns.extend(result.returns)
        lengths.extend(result.lengths)
        metrics.extend(result.learner_metrics)
        if progress is not None and not reached:
          progress(self.counters())
      if reached:
        break
    if progress is not None:
      progress(self.counters())
    return [_row(returns, lengths, counters['env_steps'] - steps_before,
                 time.perf_counter() - start, metrics)]

  def evaluate(self, num_episodes: int) -> interface.PerSeed:
    if self._evaluations is None:
      self._evaluations = evaluation_stream.EvaluationStream(
          self._agent, seeding.environment_seed(self._seed, seeding.EVAL),
          self._make_environment, self._environments.at, self._num_envs,
          self._eval_episodes, self._eval_protocol)
    result = self._evaluations.play(self._params(), num_episodes)
    self._eval_episodes = self._evaluations.played
    return {k: np.asarray([v]) for k, v in result.items()}

  def _params(self) -> agent_lib.Params:
    if self._learner is None:
      return self._agent.actor_params(self._initial['learner'])
    return self._learner.params

  def max_abs_params(self) -> np.ndarray:
    return np.asarray([_max_abs(self._params())])

  def actor_params(self, index: int) -> agent_lib.Params:
    if index != 0:
      raise IndexError(f'The Python loop trains one seed; asked for seed '
                       f'index {index}.')
    return jax.device_get(self._params())

  def close(self) -> None:
    if self._vector is not None:
      self._vector.close()
    if self._environment is not None:
      self._environment.close()
    if self._evaluations is not None:
      self._evaluations.close()
