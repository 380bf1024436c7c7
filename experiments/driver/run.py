"""The experiment driver: one host loop over either training loop.

`run_experiment` builds the run, resumes it from its workdir, advances the
loop (`loops.interface.TrainingLoop`) between logging, evaluation and
checkpoint points until the budget is spent, then evaluates, exports and
writes `result.json`. Everything here is written once for both loops: the
Python `dm_env` loop is one seed, the compiled loop S seeds, and nothing
below asks which one it is.
"""

import os
import time
from typing import Any, Dict, List, Optional

import jax
import numpy as np
import tqdm

from environments import registry as env_registry
from experiments.driver import workdir as workdir_lib
from experiments.export import tflite
from experiments.loops import interface
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib
from experiments.setup import library_logs
from experiments.setup import user_modules
from experiments.storage import atomic_files
from experiments.storage import checkpointing
from experiments.storage import loggers

PerSeed = interface.PerSeed


def _next_multiple(value: int, every: int) -> int:
  return (value // every + 1) * every


def next_targets(config: config_lib.ExperimentConfig,
                 counters: PerSeed) -> interface.Targets:
  """Where the next `advance` stops: the budget, the next periodic
  evaluation or the next checkpoint, whichever comes first (the loop's
  chunk ends sooner where it is shorter)."""
  episodes, steps = int(counters['episodes'][0]), int(counters['env_steps'][0])
  episode_targets, step_targets = [], []
  if config.num_episodes is not None:
    episode_targets.append(config.num_episodes)
  if config.num_steps is not None:
    step_targets.append(config.num_steps)
  if config.eval_every_episodes:
    episode_targets.append(_next_multiple(episodes,
                                          config.eval_every_episodes))
  if config.eval_every_steps:
    step_targets.append(_next_multiple(steps, config.eval_every_steps))
  return interface.Targets(
      min(episode_targets) if episode_targets else None,
      min(step_targets) if step_targets else None,
      _next_multiple(int(counters['updates'][0]),
                     config.checkpoint_every_updates))


def done(config: config_lib.ExperimentConfig, counters: PerSeed) -> bool:
  """Every seed has spent one of its budgets."""
  return bool(
      (config.num_episodes is not None and
       counters['episodes'].min() >= config.num_episodes) or
      (config.num_steps is not None and
       counters['env_steps'].min() >= config.num_steps))


def periodic_evaluation_due(config: config_lib.ExperimentConfig,
                            before: PerSeed, after: PerSeed) -> bool:
  """Whether seed 0 passed a periodic evaluation point (either interval)."""

  def passed(key: str, every: Optional[int]) -> bool:
    return bool(every) and (int(after[key][0]) // every >
                            int(before[key][0]) // every)

  return (passed('episodes', config.eval_every_episodes) or
          passed('env_steps', config.eval_every_steps))


class _SeedLogs:
  """`train.csv`, TensorBoard and `eval.csv` of every seed (process 0)."""

  def __init__(self, config: config_lib.ExperimentConfig, workdir: str,
               seeds: List[int], counters: PerSeed, resumed: bool):
    self._train, self._eval = [], []
    for i, seed in enumerate(seeds):
      directory = workdir_lib.seed_workdir(config, workdir, seed)
      resume_step = int(counters['env_steps'][i]) if resumed else None
      self._train.append(loggers.MultiLogger([
          loggers.CSVLogger(os.path.join(directory, 'train.csv'), resume_step),
          loggers.TensorBoardLogger(os.path.join(directory, 'tensorboard'), resume_step),
      ]))
      self._eval.append(loggers.CSVLogger(os.path.join(directory, 'eval.csv'),
                                          resume_step))

  def write(self, rows: interface.Rows, greedy: Optional[PerSeed],
            counters: PerSeed, wall_seconds: float) -> None:
    for i, row in enumerate(rows):
      step = int(counters['env_steps'][i])
      values = dict(row)
      if greedy is not None:
        values.update({f'eval/{k}': float(v[i]) for k, v in greedy.items()})
        self._eval[i].write({
            'mean_return': float(greedy['mean_return'][i]),
            'mean_episode_length': float(greedy['mean_episode_length'][i]),
            'episodes': int(counters['episodes'][i]),
            'wall_seconds': wall_seconds}, step)
      values.update(episodes=int(counters['episodes'][i]),
                    updates=int(counters['updates'][i]),
                    wall_seconds=wall_seconds)
      self._train[i].write(values, step)

  def close(self) -> None:
    for logger in self._train + self._eval:
      logger.close()


class _ProgressBar:
  """Counts episodes, or steps when only a step budget is set (slowest
  seed)."""

  def __init__(self, config: config_lib.ExperimentConfig, counters: PerSeed,
               enabled: bool):
    self._key = 'episodes' if config.num_episodes is not None else 'env_steps'
    self._bar = tqdm.tqdm(
        total=config.num_steps if self._key == 'env_steps' else
        config.num_episodes, initial=int(counters[self._key].min()),
        unit='episode' if self._key == 'episodes' else 'step',
        disable=not enabled, dynamic_ncols=True)

  def show(self, counters: PerSeed) -> None:
    """Moves the bar to `counters` (`TrainingLoop.advance`'s progress)."""
    self._bar.update(int(counters[self._key].min()) - self._bar.n)

  def describe(self, row: Dict[str, float]) -> None:
    if 'game_length' in row:
      self._bar.set_postfix(game_length=f'{row["game_length"]:.1f}',
                            sps=f'{row["steps_per_second"]:.0f}')

  def close(self) -> None:
    self._bar.close()


def restore(loop: interface.TrainingLoop,
            checkpointer: checkpointing.Checkpointer) -> Optional[float]:
  """Restores `loop` from the newest checkpoint; its wall seconds, or None
  when there is no checkpoint yet."""
  restored = checkpointer.restore_latest(
      {'loop': loop.state, 'wall_seconds': np.zeros((), np.float64)})
  if restored is None:
    return None
  loop.restore(restored[1]['loop'])
  return float(restored[1]['wall_seconds'])


def restored_loop(built: build_lib.Built,
                  workdir: str) -> Optional[interface.TrainingLoop]:
  """The run's loop at `workdir`'s newest checkpoint; None before the first
  checkpoint."""
  loop = build_lib.make_loop(built)
  checkpointer = checkpointing.Checkpointer(
      workdir_lib.checkpoint_directory(workdir))
  try:
    return None if restore(loop, checkpointer) is None else loop
  finally:
    checkpointer.close()


def restore_actor_params(built: build_lib.Built, workdir: str,
                         seed: Optional[int] = None) -> Any:
  """Actor params of `seed` (default: the config's) in `workdir`'s newest
  checkpoint, whichever loop wrote it; None before the first checkpoint."""
  seed_list = build_lib.seeds(built.config)
  seed = built.config.seed if seed is None else seed
  if seed not in seed_list:
    raise ValueError(f'Seed {seed} is not one of this run\'s seeds '
                     f'{seed_list}.')
  loop = restored_loop(built, workdir)
  return None if loop is None else loop.actor_params(seed_list.index(seed))


def run_experiment(config: config_lib.ExperimentConfig, workdir: str,
                   progress: bool = True) -> Dict[str, Any]:
  """Trains (resuming from `workdir` if possible), evaluates and exports.

  Returns:
    For one seed, its result (also in `workdir/result.json`); for several,
    `{'seeds': [result, …]}` (each also in its `seed_<n>/result.json`).
  """
  library_logs.quiet()  # Also in workers (Ray) that start without flags.
  user_modules.import_modules(config.imports)  # E.g. in a Ray worker.
  built = build_lib.build(config)  # Refuses impossible runs before writes.
  loop = build_lib.make_loop(built)
  workdir_lib.prepare(config, workdir)
  checkpointer = checkpointing.Checkpointer(
      workdir_lib.checkpoint_directory(workdir))
  restored_wall = restore(loop, checkpointer)
  wall_at_start = restored_wall or 0.0
  counters = loop.counters()
  writes = jax.process_index() == 0  # One process writes logs and results.
  seeds = list(loop.seeds)
  logs = (_SeedLogs(config, workdir, seeds, counters,
                    restored_wall is not None) if writes else None)
  bar = _ProgressBar(config, counters, progress and writes)
  wall_seconds = wall_at_start

  def save():
    state = loop.state  # Named by the loop's own counters, which run ahead
    if state is not None:  # of `counters` when an episode is interrupted.
      checkpointer.save(int(loop.counters()['env_steps'][0]), {
          'loop': state, 'wall_seconds': np.asarray(wall_seconds,
                                                    np.float64)})

  session_start = time.perf_counter()
  try:
    loop.compile()  # Counted in wall_seconds, not in the chunks' speeds.
    while not done(config, counters):
      before = counters
      rows = loop.advance(next_targets(config, counters), bar.show)
      counters = loop.counters()
      wall_seconds = wall_at_start + time.perf_counter() - session_start
      bar.describe(rows[0])
      greedy = (loop.evaluate(config.periodic_eval_episodes)
                if periodic_evaluation_due(config, before, counters) else None)
      if logs is not None:
        logs.write(rows, greedy, counters, wall_seconds)
      if (counters['updates'][0] // config.checkpoint_every_updates >
          before['updates'][0] // config.checkpoint_every_updates):
        save()
  except KeyboardInterrupt:
    save()  # Keep the work done so far; rerun on this workdir to resume.
    raise
  finally:
    bar.close()
    if logs is not None:
      logs.close()
  save()
  checkpointer.close()
  try:
    return _finish(built, loop, counters, wall_seconds, workdir, writes)
  finally:
    loop.close()


def _finish(built: build_lib.Built, loop: interface.TrainingLoop,
            counters: PerSeed, wall_seconds: float, workdir: str,
            writes: bool) -> Dict[str, Any]:
  """Final evaluation and export of every seed; writes the results."""
  config = built.config
  compile_seconds = loop.compile_seconds  # Of training, not evaluation.
  final = loop.evaluate(config.eval_episodes)
  # Every process fetches the params (a collective in multi-host runs);
  # process 0 exports them.
  params = ([loop.actor_params(i) for i in range(len(loop.seeds))]
            if config.export_tflite else None)
  results = []
  for i, seed in enumerate(loop.seeds):
    directory = workdir_lib.seed_workdir(config, workdir, seed)
    result = {
        'agent': config.agent,
        'env': config.env,
        'seed': seed,
        'loop': config.loop,
        'num_envs': loop.num_envs,
        'num_seeds': config.num_seeds,
        **{k: int(v[i]) for k, v in counters.items()},
        'wall_seconds': float(wall_seconds),
        # Of this session's training (included in wall_seconds).
        'compile_seconds': compile_seconds,
        'eval_episodes': config.eval_episodes,
        'eval_mean_return': float(final['mean_return'][i]),
        'eval_mean_episode_length': float(final['mean_episode_length'][i]),
        'tflite_path': None,
    }
    if config.export_tflite and writes:
      path = os.path.join(directory,
                          workdir_lib.export_filename(config.env))
      result['tflite'] = tflite.export_and_verify(
          built.agent, params[i], built.environment_spec, path,
          built.for_seed(seed).export_environment(),
          num_games=config.eval_episodes,
          input_name=env_registry.input_name(config.env))
      result['tflite_path'] = os.path.abspath(path)
    if writes:
      atomic_files.write_json(os.path.join(directory, workdir_lib.RESULT), result)
    results.append(result)
  if config.num_seeds == 1:
    return results[0]
  summary = {'seeds': results}
  if writes:
    atomic_files.write_json(os.path.join(workdir, workdir_lib.RESULT), summary)
  return summary
