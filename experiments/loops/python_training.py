"""The Python `dm_env` loop behind the `TrainingLoop` interface: one seed.

Acting, batching and learning happen in `EnvironmentLoop` (actor, batcher
and learner in one process); this class adds what the driver needs: the
checkpoint (`state`: learner state, actor key, counters; `host_state`: the
batcher's part-filled batch and the evaluation episodes played), advancing
by whole episodes until a target, and greedy evaluation on the seed's own
evaluation episodes.

Training plays one stream of episodes, `environment_seed(seed, TRAIN, 0)`
(the compiled loop's episode keys too). Where the environment is an
`episode_streams.EpisodeStream`, a resumed run starts that stream at the
episode it would have played next, so it ends exactly as an uninterrupted
one; any other environment is seeded anew on resume (with a warning).
"""

import time
from typing import Any, Callable, Dict, List, Optional, Sequence

from absl import logging
import dm_env
import jax
import numpy as np

from agents import agent as agent_lib
from environments import episode_streams
from experiments.loops import actor as actor_lib
from experiments.loops import batchers
from experiments.loops import environment_loop
from experiments.loops import evaluation
from experiments.loops import interface
from experiments.loops import learner as learner_lib
from experiments.loops import seeding

# (environment seed) -> a seeded dm_env environment.
EnvironmentFactory = Callable[[int], dm_env.Environment]
_max_abs = jax.jit(learner_lib.max_abs)


def _reached(targets: interface.Targets, counters: Dict[str, int]) -> bool:
  """Whether a counter target or the deadline is reached."""
  if targets.deadline is not None and time.monotonic() >= targets.deadline:
    return True
  return any(getattr(targets, key) is not None and
             counters[key] >= getattr(targets, key)
             for key in interface.COUNTERS)


class PythonTraining:
  """One seed trained episode by episode in a `dm_env` environment."""

  def __init__(self, agent: agent_lib.Agent,
               make_environment: EnvironmentFactory, seed: int,
               log_every_episodes: int = 250):
    """`log_every_episodes`: `advance` returns at least at each multiple of
    it (the logging interval)."""
    self._agent = agent
    self._log_every_episodes = log_every_episodes
    self._make_environment = make_environment
    self._seed = seed
    learner_key, actor_key = jax.random.split(jax.random.PRNGKey(seed))
    self._initial = {
        'learner': agent.init(learner_key), 'actor_key': actor_key,
        'counters': {k: np.zeros((), np.int64) for k in interface.COUNTERS}}
    self._counters = {k: 0 for k in interface.COUNTERS}
    self._restored_batch: Optional[Dict[str, Any]] = None  # Until `_start`.
    self._eval_episodes = 0  # Played of the evaluation stream.
    self._warned = False
    self._loop: Optional[environment_loop.EnvironmentLoop] = None
    self._learner: Optional[learner_lib.Learner] = None
    self._actor: Optional[actor_lib.Actor] = None
    self._batcher: Optional[batchers.Batcher] = None
    self._environment: Optional[dm_env.Environment] = None
    self._eval_environment: Optional[dm_env.Environment] = None

  @property
  def seeds(self) -> Sequence[int]:
    return (self._seed,)

  @property
  def num_envs(self) -> int:
    return 1

  @property
  def compile_seconds(self) -> float:
    return 0.0  # `jax.jit` compiles on first use, inside the training time.

  def _in_episode(self) -> bool:
    """Whether an episode began and was not counted (it was interrupted):
    then learner, batcher and environment are part-way through it."""
    return (self._actor is not None and
            self._actor.next_episode != self._counters['episodes'])

  @property
  def state(self) -> Optional[Dict[str, Any]]:
    """None while an interrupted episode leaves no exact resume point."""
    if self._in_episode():
      return None
    if self._learner is None:
      learner, key = self._initial['learner'], self._initial['actor_key']
    else:
      learner, key = self._learner.state, self._actor.key
    return {'learner': learner, 'actor_key': key,
            'counters': {k: np.asarray(v, np.int64)
                         for k, v in self._counters.items()}}

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
    host_state = host_state or {}
    self._restored_batch = host_state.get('batcher')
    self._eval_episodes = int(host_state.get('eval_episodes', 0))
    if self._eval_environment is not None:  # Continue the restored stream.
      self._eval_environment.close()
      self._eval_environment = None

  def counters(self) -> interface.PerSeed:
    return {k: np.asarray([v], np.int64) for k, v in self._counters.items()}

  def compile(self) -> float:
    return 0.0

  def _environment_at(self, stream: int, episode: int,
                      fallback: int) -> dm_env.Environment:
    """An environment whose next episode is `episode` of seed `stream`; one
    seeded with `fallback` where episodes are not addressable."""
    environment = self._make_environment(stream)
    if episode == 0:
      return environment
    if isinstance(environment, episode_streams.EpisodeStream):
      environment.seek(stream, episode)
      return environment
    if not self._warned:
      self._warned = True
      logging.warning(
          '%s cannot start at a given episode (it is no '
          'environments.episode_streams.EpisodeStream), so the resumed run '
          'plays other episodes than an uninterrupted one would.',
          type(environment).__name__)
    if fallback != stream:
      environment.close()
      environment = self._make_environment(fallback)
    return environment

  def _start(self) -> None:
    """Environment, actor, batcher and learner from the current state."""
    episodes = self._counters['episodes']
    self._environment = self._environment_at(
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
    if self._loop is None:
      self._start()
    every = self._log_every_episodes
    log_point = (self._counters['episodes'] // every + 1) * every
    targets = targets._replace(episodes=log_point if targets.episodes is None
                               else min(log_point, targets.episodes))
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
    values = {
        'episode_return': float(np.mean(returns)),
        'game_length': float(np.mean(lengths)),
        'steps_per_second': sum(lengths) / elapsed,
        'episodes_per_second': len(lengths) / elapsed,
    }
    fetched = jax.device_get(metrics)  # One transfer per call.
    for name in (fetched[0] if fetched else ()):
      values[name] = float(np.mean([m[name] for m in fetched]))
    return [values]

  def evaluate(self, num_episodes: int) -> interface.PerSeed:
    # One evaluation stream per run: successive evaluations play further
    # episodes of the seed's evaluation role (continued on resume).
    if self._eval_environment is None:
      stream = seeding.environment_seed(self._seed, seeding.EVAL)
      self._eval_environment = self._environment_at(
          stream, self._eval_episodes, fallback=stream)
    greedy = evaluation.evaluate(self._eval_environment, self._agent,
                                 self._params(), num_episodes)
    self._eval_episodes += num_episodes
    return {k: np.asarray([v]) for k, v in greedy.items()}

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
    for environment in (self._environment, self._eval_environment):
      if environment is not None:
        environment.close()
