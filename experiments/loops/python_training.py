"""The Python `dm_env` loop behind the `TrainingLoop` interface: one seed.

Acting, batching and learning happen in `EnvironmentLoop`: N =
`num_envs` environments (1 included) stepped side by side, one batched act
per step; this class adds what the driver needs: the checkpoint (`state`:
learner state, actor key, counters, episodes begun; `host_state`: the
batcher's contents and the evaluation episodes played), advancing until a
target, and evaluation on the seed's own episodes (`evaluation_stream`).

Training plays one stream of episodes, `environment_seed(seed, TRAIN, 0)`
(the compiled loop's episode keys too; with N environments, environment i
plays its episodes i, N + i, … as in the compiled loop). Where the
environment is an `episode_streams.EpisodeStream`, a resumed run starts that
stream at the episode it would have played next; any other environment is
seeded anew on resume (with a warning).

Where `advance` stops and what a checkpoint holds:
  * N = 1: at episode ends; a checkpoint there resumes exactly (bit for bit
    as an uninterrupted run), the batcher's unroll in progress included.
  * N > 1: at the first step (of all N environments) where a target is
    reached. A checkpoint keeps, besides learner, actor key and counters,
    each environment's count of episodes begun (`episodes_started`) and the
    batcher's contents. Where every environment is between episodes (as
    N = 1 always is; N games of one fixed length too), the resumed run is
    exact. Otherwise it starts every environment on a fresh episode, its
    next number: the partial episodes (and unrolls) in progress are
    dropped, their steps stay counted, and no trajectory joins two
    episodes; it trains on correctly but differs from an uninterrupted run
    (it warns once).
  * With `actor_thread`, as N > 1 (N = 1 too), after the learner has
    learned every batch the actors queued (`loops.actor_thread`).
"""

import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

from absl import logging
import jax
import numpy as np

from agents import agent as agent_lib
from environments import environment_batch
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

EnvironmentFactory = training_environments.EnvironmentFactory
_max_abs = jax.jit(learner_lib.max_abs)


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
               actor_thread: bool = False,
               make_batch: Optional[training_environments.BatchFactory] = None):
    """`log_every_episodes`: `advance` returns at least at each multiple of
    it (the logging interval; 0: none). `num_envs`: environments stepped
    side by side, one batched act per step (evaluations too).
    `actor_thread`: act in a thread ahead of the learner
    (`loops.actor_thread`). `make_batch`: `(seed, N) ->` the N training
    environments stepped in one call (EnvPool), or None to step
    `make_environment`'s one after another."""
    if num_envs < 1:
      raise ValueError(f'num_envs must be >= 1; got {num_envs}.')
    self._num_envs = num_envs
    self._actor_thread = actor_thread
    # One environment in this thread stops only between episodes, where
    # a checkpoint resumes exactly.
    self._at_episode_ends = num_envs == 1 and not actor_thread
    self._agent = agent
    self._eval_protocol = eval_protocol
    self._log_every_episodes = log_every_episodes
    self._make_environment = make_environment
    self._environments = training_environments.TrainingEnvironments(
        make_environment, seed, num_envs, make_batch)
    self._seed = seed
    learner_key, actor_key = jax.random.split(jax.random.PRNGKey(seed))
    self._initial = {
        # One compiled init, not one compile per operation of it (about
        # a second of a short run).
        'learner': jax.jit(agent.init)(learner_key), 'actor_key': actor_key,
        'counters': {k: np.zeros((), np.int64) for k in interface.COUNTERS},
        'episodes_started': np.zeros(num_envs, np.int64)}
    self._counters = {k: 0 for k in interface.COUNTERS}
    self._restored_batch: Optional[Dict[str, Any]] = None  # Until `_start`.
    self._restored_between = True  # Whether it was saved between episodes.
    self._eval_episodes = 0  # Played of the evaluation stream.
    self._loop: Optional[environment_loop.EnvironmentLoop] = None
    # Whether a step of the loop began and did not finish (then nothing is
    # consistent enough to save).
    self._stepping = False
    self._threaded: Optional[Tuple[actor_thread_lib.ActorThread,
                                   actor_thread_lib.BatchQueue,
                                   actor_thread_lib.QueueLearner]] = None
    self._learner: Optional[learner_lib.Learner] = None
    self._actor: Optional[actor_lib.BatchedActor] = None
    self._batcher: Optional[batchers.Batcher] = None
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
  def program_seconds(self) -> Optional[float]:
    return None

  @property
  def num_devices(self) -> int:
    return 1

  def _no_resume_point(self) -> bool:
    """Whether nothing can be saved now: a step began uncounted (it was
    interrupted), or one environment is part-way through an episode."""
    return self._stepping or (self._at_episode_ends and
                              self._loop is not None and
                              not self._loop.between_episodes())

  @property
  def state(self) -> Optional[Dict[str, Any]]:
    """None where no resume point exists (`_no_resume_point`)."""
    if self._no_resume_point():
      return None
    if self._learner is None:
      learner, key = self._initial['learner'], self._initial['actor_key']
      started = self._initial['episodes_started']
    else:
      learner, key = self._learner.state, self._actor.key
      started = self._loop.resume_started()
    return {'learner': learner, 'actor_key': key,
            'counters': {k: np.asarray(v, np.int64)
                         for k, v in self._counters.items()},
            'episodes_started': np.asarray(started, np.int64)}

  @property
  def host_state(self) -> Optional[Dict[str, Any]]:
    """The batcher's contents (None before training) and the evaluation
    episodes played; None where `state` is. Between episodes of every
    environment the batcher's unrolls in progress are kept too, so the
    resumed run continues them."""
    if self._no_resume_point():
      return None
    if self._batcher is None:
      return {'batcher': self._restored_batch,
              'eval_episodes': self._eval_episodes,
              'between_episodes': self._restored_between}
    between = self._loop.between_episodes()
    return {'batcher': self._batcher.state(keep_partial=between),
            'eval_episodes': self._eval_episodes,
            'between_episodes': between}

  def restore(self, state: Dict[str, Any],
              host_state: Optional[Dict[str, Any]] = None) -> None:
    if self._learner is not None:
      raise RuntimeError('restore comes before training starts.')
    self._initial = state
    self._counters = {k: int(v) for k, v in state['counters'].items()}
    host_state = host_state or {}
    self._restored_batch = host_state.get('batcher')
    self._restored_between = bool(host_state.get('between_episodes', True))
    if not self._restored_between:
      logging.warning(
          'Resuming mid-episode: the episodes in progress at the checkpoint '
          '(of %d environment(s)) are dropped, counted as played, and each '
          'environment starts a fresh one, so the run differs from an '
          'uninterrupted one.', self._num_envs)
    self._eval_episodes = int(host_state.get('eval_episodes', 0))
    if self._evaluations is not None:  # Continue the restored stream.
      self._evaluations.close()
      self._evaluations = None

  def counters(self) -> interface.PerSeed:
    return {k: np.asarray([v], np.int64) for k, v in self._counters.items()}

  def compile(self) -> float:
    return 0.0

  def _start(self) -> None:
    """Environments, batched actor, batcher and learner from the state;
    kept only once all are made (the first act compiles: an interrupt
    there leaves the loop as it was, restored batch included)."""
    started = np.asarray(self._initial['episodes_started'], np.int64)
    stream = seeding.environment_seed(self._seed, seeding.TRAIN, 0)
    environments = self._environments.batch(stream, started)
    if environments is None:
      environments = environment_batch.EnvironmentList(
          [self._environments.environment(i, stream, started)
           for i in range(self._num_envs)], stream)
    # Actors in another thread may still act with params of an old state.
    learner = learner_lib.Learner(self._agent, self._initial['learner'],
                                  donate=not self._actor_thread)
    actor = actor_lib.BatchedActor(self._agent, learner.params,
                                   self._initial['actor_key'])
    batcher = batchers.make_batcher(self._agent.data, self._num_envs)
    if self._restored_batch is not None:
      batcher.restore(self._restored_batch)
    acting_learner, threaded = learner, None
    if self._actor_thread:
      queue = actor_thread_lib.BatchQueue(actor_thread_lib.DEFAULT_CAPACITY)
      acting_learner = actor_thread_lib.QueueLearner(
          queue, learner.params, self._counters['updates'])
    try:
      loop = environment_loop.EnvironmentLoop(
          environments, actor, acting_learner, batcher, started)
    except BaseException:
      environments.close()
      raise
    if self._actor_thread:
      threaded = (actor_thread_lib.ActorThread(loop, queue), queue,
                  acting_learner)
    self._learner, self._actor, self._batcher = learner, actor, batcher
    self._loop, self._threaded = loop, threaded
    self._restored_batch = None

  def advance(self, targets: interface.Targets,
              progress: Optional[interface.ProgressFn] = None
             ) -> interface.Rows:
    """Trains, one step of every environment at a time, to the first step
    where a target, the deadline or the next logging interval is reached
    (one environment: to the first episode end there). `progress` comes at
    the steps where episodes end or updates happen (one environment: where
    episodes end, so that a stop it raises falls on a resume point)."""
    every = self._log_every_episodes
    if every:  # 0: no logging interval of the loop's own.
      log_point = (self._counters['episodes'] // every + 1) * every
      targets = targets._replace(
          episodes=log_point if targets.episodes is None
          else min(log_point, targets.episodes))
    if self._loop is None:
      self._start()
    counters = self._counters
    steps_before = counters['env_steps']
    start = time.perf_counter()
    if self._threaded is not None:
      returns, lengths, metrics = actor_thread_lib.advance(
          *self._threaded, self._learner, counters, targets,
          progress and (lambda: progress(self.counters())))
      if progress is not None:
        progress(self.counters())
      return [_row(returns, lengths, counters['env_steps'] - steps_before,
                   time.perf_counter() - start, metrics)]
    never = float('inf')
    limits = {key: never if getattr(targets, key) is None
              else getattr(targets, key) for key in interface.COUNTERS}
    deadline = never if targets.deadline is None else targets.deadline
    returns: List[float] = []
    lengths: List[int] = []
    metrics: List[agent_lib.Metrics] = []
    while True:
      self._stepping = True
      result = self._loop.step()
      counters['episodes'] += len(result.lengths)
      counters['env_steps'] += self._num_envs
      counters['updates'] += len(result.learner_metrics)
      self._stepping = False  # Counted: `state` is consistent again.
      reached = (counters['env_steps'] >= limits['env_steps'] or
                 counters['episodes'] >= limits['episodes'] or
                 counters['updates'] >= limits['updates'] or
                 time.monotonic() >= deadline) and (
                     result.lengths or not self._at_episode_ends)
      if result.lengths or result.learner_metrics:
        returns.extend(result.returns)
        lengths.extend(result.lengths)
        metrics.extend(result.learner_metrics)
        if progress is not None and not reached and (
            result.lengths or not self._at_episode_ends):
          progress(self.counters())
      if reached:
        break
    if progress is not None:
      progress(self.counters())
    return [_row(returns, lengths, counters['env_steps'] - steps_before,
                 time.perf_counter() - start, metrics)]

  def run_rows(self, schedule: interface.Schedule,
               progress: Optional[interface.ProgressFn] = None
              ) -> List[interface.LogRow]:
    """One row (`advance` to the schedule's next targets): the host steps
    every environment anyway, so more rows per call would save nothing."""
    start = self.counters()
    rows = self.advance(schedule.targets(start), progress)
    return [interface.LogRow(start, self.counters(), rows)]

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
    if self._loop is not None:
      self._loop.close()
    if self._evaluations is not None:
      self._evaluations.close()
