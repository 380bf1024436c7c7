"""The Python `dm_env` loop behind the `TrainingLoop` interface: one seed.

Acting, batching and learning happen in `EnvironmentLoop` (actor, batcher
and learner in one process); this class adds what the driver needs: the
checkpointable state (learner state, actor key, counters), advancing by
whole episodes until a target, and greedy evaluation on the seed's own
evaluation episodes.
"""

import time
from typing import Any, Callable, Dict, List, Optional, Sequence

import dm_env
import jax
import numpy as np

from agents import agent as agent_lib
from experiments.loops import actor as actor_lib
from experiments.loops import batchers
from experiments.loops import environment_loop
from experiments.loops import evaluation
from experiments.loops import interface
from experiments.loops import learner as learner_lib
from experiments.loops import seeding

# (environment seed) -> a seeded dm_env environment.
EnvironmentFactory = Callable[[int], dm_env.Environment]


def _reached(targets: interface.Targets, counters: Dict[str, int]) -> bool:
  return any(target is not None and counters[key] >= target
             for key, target in targets._asdict().items())


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
    self._loop: Optional[environment_loop.EnvironmentLoop] = None
    self._learner: Optional[learner_lib.Learner] = None
    self._actor: Optional[actor_lib.Actor] = None
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

  @property
  def state(self) -> Dict[str, Any]:
    if self._learner is None:
      learner, key = self._initial['learner'], self._initial['actor_key']
    else:
      learner, key = self._learner.state, self._actor.key
    return {'learner': learner, 'actor_key': key,
            'counters': {k: np.asarray(v, np.int64)
                         for k, v in self._counters.items()}}

  def restore(self, state: Dict[str, Any]) -> None:
    if self._learner is not None:
      raise RuntimeError('restore comes before training starts.')
    self._initial = state
    self._counters = {k: int(v) for k, v in state['counters'].items()}

  def counters(self) -> interface.PerSeed:
    return {k: np.asarray([v], np.int64) for k, v in self._counters.items()}

  def compile(self) -> float:
    return 0.0

  def _start(self) -> None:
    """Environment, actor and learner from the current state. A resumed
    run continues with fresh training episodes."""
    self._environment = self._make_environment(seeding.environment_seed(
        self._seed, seeding.TRAIN, self._counters['episodes']))
    self._learner = learner_lib.Learner(self._agent, self._initial['learner'])
    self._actor = actor_lib.Actor(self._agent, self._learner.params,
                                  self._initial['actor_key'],
                                  next_episode=self._counters['episodes'])
    self._loop = environment_loop.EnvironmentLoop(
        self._environment, self._actor, self._learner,
        batchers.make_batcher(self._agent.data))

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
      self._counters['episodes'] += 1
      self._counters['env_steps'] += result.episode_length
      self._counters['updates'] += len(result.learner_metrics)
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
    # One evaluation stream per process: successive evaluations play
    # further episodes of the seed's evaluation role.
    if self._eval_environment is None:
      self._eval_environment = self._make_environment(
          seeding.environment_seed(self._seed, seeding.EVAL))
    greedy = evaluation.evaluate(self._eval_environment, self._agent,
                                 self._params(), num_episodes)
    return {k: np.asarray([v]) for k, v in greedy.items()}

  def _params(self) -> agent_lib.Params:
    if self._learner is None:
      return self._agent.actor_params(self._initial['learner'])
    return self._learner.params

  def actor_params(self, index: int) -> agent_lib.Params:
    if index != 0:
      raise IndexError(f'The Python loop trains one seed; asked for seed '
                       f'index {index}.')
    return jax.device_get(self._params())

  def close(self) -> None:
    for environment in (self._environment, self._eval_environment):
      if environment is not None:
        environment.close()
