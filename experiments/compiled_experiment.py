"""Runs an experiment with the compiled loop: all seeds in one XLA program.

Workdir layout: as the Python loop's (`experiment.py`) for one seed. With
`num_seeds` > 1, `config.json`, `checkpoints/` (all seeds in one state) and
a summary `result.json` stay at the top, and each seed gets `seed_<n>/` with
its own `train.csv`, `tensorboard/`, `result.json` and exported model.

Between chunks of updates the host fetches per-seed statistics (one small
transfer), feeds the loggers and the progress bar, evaluates, checkpoints
and checks the budget; the training itself never leaves the device.
"""

import dataclasses
import functools
import os
import time
from typing import Any, Dict, List, Optional

import jax
import numpy as np
import tqdm

from environments import registry as env_registry
from experiments import atomic_files
from experiments import checkpointing
from experiments import compiled_loop
from experiments import config as config_lib
from experiments import evaluation
from experiments import experiment
from experiments import loggers
from experiments import seed_sharding


def make_loop(built: experiment.Built) -> compiled_loop.CompiledLoop:
  """The compiled loop a config describes; bad settings raise ExperimentError."""
  config = built.config
  core = env_registry.make_functional(config.env, **config.env_kwargs)
  num_envs = config.num_envs or built.agent.data.batch_size
  try:
    return compiled_loop.CompiledLoop(built.agent, core, num_envs)
  except ValueError as e:
    raise experiment.ExperimentError(f'--num_envs: {e}') from e


def seeds(config: config_lib.ExperimentConfig) -> List[int]:
  """The seeds a config trains side by side."""
  return [config.seed + i for i in range(config.num_seeds)]


def seed_workdir(config: config_lib.ExperimentConfig, workdir: str,
                 seed: int) -> str:
  """Where one seed's logs, result and model go."""
  if config.num_seeds == 1:
    return workdir
  return os.path.join(workdir, f'seed_{seed}')


def _keys(values: List[int]) -> jax.Array:
  return np.stack([np.asarray(jax.random.PRNGKey(v)) for v in values])


class _Trainer:
  """The jitted pieces of one run, over S seeds sharded on a mesh."""

  def __init__(self, built: experiment.Built, loop: compiled_loop.CompiledLoop,
               mesh: jax.sharding.Mesh):
    self._loop = loop
    self._built = built
    self._mesh = mesh
    self._sharding = seed_sharding.seed_sharding(mesh)
    self._chunk = None
    self._max_updates = 0
    self._evaluations = {}
    self.compile_seconds = 0.0

  @property
  def loop(self) -> compiled_loop.CompiledLoop:
    return self._loop

  def init(self, seed_list: List[int]) -> compiled_loop.LoopState:
    env_keys = _keys([experiment.environment_seed(s, experiment.TRAIN, 0)
                      for s in seed_list])
    init = jax.jit(jax.vmap(self._loop.init), out_shardings=self._sharding)
    return init(_keys(seed_list), env_keys)

  def _counts(self, states: compiled_loop.LoopState, num_updates: int):
    return seed_sharding.put(
        np.full(states.counters.updates.shape, num_updates, np.int32),
        self._mesh)

  def compile(self, states: compiled_loop.LoopState,
              max_updates: int) -> None:
    """Compiles the chunk program (once; shorter chunks share it)."""
    if self._chunk is None:
      start = time.perf_counter()
      self._max_updates = max_updates
      fn = seed_sharding.map_seeds(
          lambda states, counts: self._loop.run_chunk(states, counts[0],
                                                      max_updates),
          self._mesh)
      self._chunk = jax.jit(fn, donate_argnums=0).lower(
          states, self._counts(states, 1)).compile()
      self.compile_seconds += time.perf_counter() - start

  def chunk(self, states: compiled_loop.LoopState, num_updates: int):
    """Runs `num_updates` updates of every seed."""
    self.compile(states, num_updates)
    if num_updates > self._max_updates:
      raise ValueError(f'A chunk holds at most {self._max_updates} updates; '
                       f'asked for {num_updates}.')
    return self._chunk(states, self._counts(states, num_updates))

  def evaluate(self, states: compiled_loop.LoopState, seed_list: List[int],
               num_episodes: int) -> Dict[str, np.ndarray]:
    """Greedy evaluation of every seed on its own evaluation episodes."""
    built = self._built
    keys = _keys([experiment.environment_seed(s, experiment.EVAL)
                  for s in seed_list])
    if num_episodes not in self._evaluations:  # Compiled once per size.
      start = time.perf_counter()
      self._evaluations[num_episodes] = jax.jit(
          lambda learner, keys: jax.vmap(functools.partial(
              evaluation.evaluate_core, self._loop.core, built.agent,
              built.environment_spec, num_episodes=num_episodes))(
                  jax.vmap(built.agent.actor_params)(learner), keys)).lower(
                      states.learner, keys).compile()
      self.compile_seconds += time.perf_counter() - start
    return seed_sharding.to_host(
        self._evaluations[num_episodes](states.learner, keys))


def restore_states(built: experiment.Built, workdir: str
                  ) -> Optional[compiled_loop.LoopState]:
  """The newest checkpointed states of all seeds in `workdir`, or None."""
  config = built.config
  trainer = _Trainer(built, make_loop(built),
                     seed_sharding.seed_mesh(config.num_seeds))
  template = {'loop': trainer.init(seeds(config)),
              'wall_seconds': np.zeros((), np.float64)}
  checkpointer = checkpointing.Checkpointer(os.path.join(workdir,
                                                         'checkpoints'))
  try:
    restored = checkpointer.restore_latest(template)
  finally:
    checkpointer.close()
  return None if restored is None else restored[1]['loop']


def restore_actor_params(built: experiment.Built, workdir: str,
                         seed: Optional[int] = None) -> Any:
  """Actor params of `seed` (default: the config's) from `workdir`, or None."""
  seed_list = seeds(built.config)
  seed = built.config.seed if seed is None else seed
  if seed not in seed_list:
    raise ValueError(f'Seed {seed} is not one of this run\'s seeds '
                     f'{seed_list}.')
  states = restore_states(built, workdir)
  if states is None:
    return None
  params = seed_sharding.to_host(
      jax.vmap(built.agent.actor_params)(states.learner))
  return jax.tree.map(lambda x: x[seed_list.index(seed)], params)


def _updates_needed(config: config_lib.ExperimentConfig,
                    loop: compiled_loop.CompiledLoop,
                    counters: Dict[str, np.ndarray]) -> Optional[int]:
  """Updates to run next: all that remain when they can be counted, a safe
  number otherwise, or None when the budget gives no bound (episodes of an
  unroll agent). Training stops at the first update that meets a budget."""
  needed = []
  if loop.episodic and config.num_episodes is not None:
    remaining = config.num_episodes - counters['episodes'].min()
    needed.append(-(-remaining // loop.agent.data.batch_size))
  if config.num_steps is not None:
    remaining = config.num_steps - counters['env_steps'].min()
    if loop.episodic:
      # Updates that cannot pass the budget (each takes at most
      # steps_per_update steps), then one at a time.
      needed.append(max(1, remaining // loop.steps_per_update()))
    else:
      needed.append(-(-remaining // loop.steps_per_update()))
  return int(max(0, min(needed))) if needed else None


def _updates_to_evaluation(config: config_lib.ExperimentConfig,
                           loop: compiled_loop.CompiledLoop,
                           counters: Dict[str, np.ndarray]) -> int:
  """Most updates that keep a chunk from running far past the next
  periodic evaluation by steps (evaluations happen between chunks)."""
  every = config.eval_every_steps
  if not every:
    return np.iinfo(np.int32).max
  steps = int(counters['env_steps'][0])
  remaining = (steps // every + 1) * every - steps
  if loop.episodic:  # steps_per_update is an upper bound: approach in steps.
    return max(1, remaining // loop.steps_per_update())
  return max(1, -(-remaining // loop.steps_per_update()))


def _done(config: config_lib.ExperimentConfig,
          counters: Dict[str, np.ndarray]) -> bool:
  """Every seed has spent one of its budgets."""
  return bool(
      (config.num_episodes is not None and
       counters['episodes'].min() >= config.num_episodes) or
      (config.num_steps is not None and
       counters['env_steps'].min() >= config.num_steps))


def _seed_scalars(stats: Dict[str, np.ndarray], s: int, seconds: float
                 ) -> Dict[str, float]:
  """Logged scalars of seed `s` for one chunk."""
  episodes = int(stats['episodes'][s])
  values = {
      'steps_per_second': float(stats['env_steps'][s]) / seconds,
      'episodes_per_second': episodes / seconds,
  }
  if episodes:
    values['episode_return'] = float(stats['return_sum'][s]) / episodes
    values['game_length'] = float(stats['length_sum'][s]) / episodes
  for name, value in stats.items():
    if name.startswith('learner/'):
      values[name[len('learner/'):]] = float(value[s])
  return values


def run(config: config_lib.ExperimentConfig, workdir: str,
        progress: bool = True) -> Dict[str, Any]:
  """Trains every seed (resuming from `workdir`), evaluates and exports.

  Returns:
    For one seed, its result (also in `workdir/result.json`); for several,
    `{'seeds': [result, …]}` (each also in its `seed_<n>/result.json`).
  """
  built = experiment.build(config)  # Refuses impossible runs before writes.
  loop = make_loop(built)
  experiment.prepare_workdir(config, workdir)
  seed_list = seeds(config)
  mesh = seed_sharding.seed_mesh(config.num_seeds)
  trainer = _Trainer(built, loop, mesh)
  checkpointer = checkpointing.Checkpointer(os.path.join(workdir,
                                                         'checkpoints'))
  states = trainer.init(seed_list)
  wall_seconds = np.zeros((), np.float64)
  restored = checkpointer.restore_latest({'loop': states,
                                          'wall_seconds': wall_seconds})
  if restored is not None:
    states, wall_seconds = restored[1]['loop'], restored[1]['wall_seconds']

  def host_counters():
    return {k: np.asarray(v) for k, v in
            seed_sharding.to_host(states.counters._asdict()).items()}

  counters = host_counters()
  writes = jax.process_index() == 0  # One process writes logs and results.
  seed_logs, eval_logs = [], []
  for i, seed in enumerate(seed_list):
    directory = seed_workdir(config, workdir, seed)
    resume_step = None if restored is None else int(counters['env_steps'][i])
    os.makedirs(directory, exist_ok=True)
    seed_logs.append(loggers.MultiLogger([
        loggers.CSVLogger(os.path.join(directory, 'train.csv'), resume_step),
        loggers.TensorBoardLogger(os.path.join(directory, 'tensorboard'),
                                  resume_step),
    ]) if writes else None)
    eval_logs.append(experiment.evaluation_logger(directory, resume_step)
                     if writes else None)

  updates_per_chunk = config.updates_per_chunk or (
      compiled_loop.default_updates_per_chunk(loop,
                                              config.log_every_episodes))
  by_steps = config.num_episodes is None
  bar = tqdm.tqdm(
      total=config.num_steps if by_steps else config.num_episodes,
      initial=int(counters['env_steps' if by_steps else 'episodes'].min()),
      unit='step' if by_steps else 'episode',
      disable=not (progress and writes), dynamic_ncols=True)

  def save():
    checkpointer.save(int(counters['updates'][0]),
                      {'loop': states, 'wall_seconds': wall_seconds})

  session_start = time.perf_counter()
  wall_at_start = float(wall_seconds)
  # Counted in wall_seconds, not in the chunks' speeds.
  trainer.compile(states, updates_per_chunk)
  try:
    while not _done(config, counters):
      needed = _updates_needed(config, loop, counters)
      num_updates = (updates_per_chunk if needed is None else
                     min(updates_per_chunk, needed))
      num_updates = min(num_updates,
                        _updates_to_evaluation(config, loop, counters))
      before = counters
      start = time.perf_counter()
      states, stats = trainer.chunk(states, num_updates)
      stats = seed_sharding.to_host(stats)
      seconds = time.perf_counter() - start
      counters = host_counters()
      wall_seconds = np.asarray(
          wall_at_start + time.perf_counter() - session_start, np.float64)
      key = 'env_steps' if by_steps else 'episodes'
      bar.update(int(counters[key].min() - before[key].min()))
      evaluate = experiment.periodic_evaluation_due(
          config, before['episodes'][0], counters['episodes'][0],
          before['env_steps'][0], counters['env_steps'][0])
      greedy = (trainer.evaluate(states, seed_list,
                                 config.periodic_eval_episodes)
                if evaluate else None)
      for i, logger in enumerate(seed_logs):
        values = _seed_scalars(stats, i, seconds)
        if greedy is not None:
          values.update({f'eval/{k}': float(v[i]) for k, v in greedy.items()})
        values.update(episodes=int(counters['episodes'][i]),
                      updates=int(counters['updates'][i]),
                      wall_seconds=float(wall_seconds))
        if i == 0 and 'game_length' in values:
          bar.set_postfix(game_length=f'{values["game_length"]:.1f}',
                          sps=f'{values["steps_per_second"]:.0f}')
        if logger is not None:
          logger.write(values, int(counters['env_steps'][i]))
        if greedy is not None and eval_logs[i] is not None:
          eval_logs[i].write(
              experiment.evaluation_row(
                  {k: v[i] for k, v in greedy.items()},
                  counters['episodes'][i], wall_seconds),
              int(counters['env_steps'][i]))
      if (counters['updates'][0] // config.checkpoint_every_updates >
          before['updates'][0] // config.checkpoint_every_updates):
        save()
  except KeyboardInterrupt:
    if not any(x.is_deleted() for x in jax.tree.leaves(states)):
      save()  # Keep the work done so far; rerun on this workdir to resume.
    raise
  finally:
    bar.close()
    for logger in seed_logs + eval_logs:
      if logger is not None:
        logger.close()
  save()
  checkpointer.close()
  timing = {'wall_seconds': float(wall_seconds),
            # Of this session's training (included in wall_seconds).
            'compile_seconds': trainer.compile_seconds}
  return _finish(built, trainer, states, counters, timing, workdir, writes)


def _finish(built: experiment.Built, trainer: _Trainer,
            states: compiled_loop.LoopState, counters: Dict[str, np.ndarray],
            timing: Dict[str, float], workdir: str, writes: bool
           ) -> Dict[str, Any]:
  """Final evaluation and export of every seed; writes the results."""
  config = built.config
  seed_list = seeds(config)
  final = trainer.evaluate(states, seed_list, config.eval_episodes)
  params = seed_sharding.to_host(
      jax.vmap(built.agent.actor_params)(states.learner))
  results = []
  for i, seed in enumerate(seed_list):
    directory = seed_workdir(config, workdir, seed)
    result = {
        'agent': config.agent,
        'env': config.env,
        'seed': seed,
        'loop': 'compiled',
        'num_envs': trainer.loop.num_envs,
        'num_seeds': config.num_seeds,
        **{k: int(v[i]) for k, v in counters.items()},
        **timing,
        'eval_episodes': config.eval_episodes,
        'eval_mean_return': float(final['mean_return'][i]),
        'eval_mean_episode_length': float(final['mean_episode_length'][i]),
        'tflite_path': None,
    }
    if config.export_tflite and writes:
      from experiments import export_tflite  # pylint: disable=g-import-not-at-top
      path = os.path.join(directory, experiment.export_filename(config.env))
      seed_built = experiment.Built(
          dataclasses.replace(config, seed=seed), built.environment_spec,
          built.agent)
      report = export_tflite.export_and_verify(
          built.agent, jax.tree.map(lambda x, i=i: x[i], params),
          built.environment_spec, path, seed_built.export_environment(),
          num_games=config.eval_episodes)
      result['tflite_path'] = os.path.abspath(path)
      result['tflite'] = report
    if writes:
      atomic_files.write_json(os.path.join(directory, 'result.json'), result)
    results.append(result)
  if config.num_seeds == 1:
    return results[0]
  summary = {'seeds': results}
  if writes:
    atomic_files.write_json(os.path.join(workdir, 'result.json'), summary)
  return summary
