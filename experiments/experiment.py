"""Runs one training experiment: shared set-up and the Python dm_env loop.

`run_experiment` trains with the loop the config names: the Python loop
here, or the compiled loop (`compiled_experiment.py`).

Workdir layout:
  config.json     the resolved experiment config (checked on resume)
  checkpoints/    Orbax checkpoints (named by environment steps): learner
                  state, actor key, counters
  train.csv       logged scalars, one row per logging interval
  eval.csv        the periodic greedy evaluations: step, mean_return,
                  mean_episode_length, episodes, wall_seconds
  tensorboard/    the same scalars as TensorBoard events
  result.json     final counters, greedy evaluation and export results
  <env>.tflite    the exported policy (e.g. planestrike.tflite)
"""

import contextlib
import dataclasses
import json
import os
import re
import time
from typing import Any, Dict, Optional

from dm_env import specs as dm_specs
import jax
import numpy as np
import tqdm

from agents import registry as agent_registry
from environments import registry as env_registry
from environments import specs
from experiments import actor as actor_lib
from experiments import atomic_files
from experiments import checkpointing
from experiments import config as config_lib
from experiments import environment_loop
from experiments import batchers
from experiments import evaluation
from experiments import learner as learner_lib
from experiments import loggers

# Each role gets its own environment seed stream, derived from config.seed.
TRAIN, EVAL, EXPORT = 0, 1, 2
_COUNTERS = ('episodes', 'env_steps', 'updates')


class ExperimentError(ValueError):
  """An experiment that cannot run as asked; raised before any training."""


@dataclasses.dataclass(frozen=True)
class Built:
  """The objects an experiment config describes."""
  config: config_lib.ExperimentConfig
  environment_spec: specs.EnvironmentSpec
  agent: Any

  def _environment(self, *seed_words: int):
    return env_registry.make_environment(
        self.config.env, seed=environment_seed(self.config.seed, *seed_words),
        **self.config.env_kwargs)

  def train_environment(self, episodes_done: int = 0):
    """Training episodes; a resumed run continues with fresh episodes."""
    return self._environment(TRAIN, episodes_done)

  def eval_environment(self):
    """Greedy evaluation episodes, disjoint from the training ones."""
    return self._environment(EVAL)

  def export_environment(self, stream: int = 0):
    """Games played through the exported model (`stream` > 0: other games
    of the same role, e.g. for fine-tuning it)."""
    return self._environment(EXPORT, *([stream] if stream else []))


def environment_seed(seed: int, *words: int) -> int:
  """The environment seed of one role (`TRAIN`, `EVAL`, `EXPORT`) of `seed`."""
  return int(np.random.SeedSequence([seed, *words]).generate_state(1)[0])


def build(config: config_lib.ExperimentConfig) -> Built:
  """Environment spec and agent for `config` (no training state yet)."""
  environment = env_registry.make_environment(config.env, **config.env_kwargs)
  spec = specs.make_environment_spec(environment)
  environment.close()
  if not isinstance(spec.actions, dm_specs.DiscreteArray):
    raise ExperimentError(
        f'Agent {config.agent!r} needs discrete actions, but environment '
        f'{config.env!r} has {spec.actions!r}. Choose an environment with a '
        f'discrete action space.')
  hidden_sizes = config.hidden_sizes or config_lib.default_hidden_sizes(
      config.env, config.env_kwargs)
  agent = agent_registry.make_agent(config.agent, config.agent_config, spec,
                                    hidden_sizes)
  return Built(config, spec, agent)


def export_filename(env_name: str) -> str:
  """`plane_strike` -> `planestrike.tflite`."""
  return re.sub(r'[^a-z0-9]', '', env_name.lower()) + '.tflite'


def load_config(workdir: str) -> config_lib.ExperimentConfig:
  """The config saved in `workdir` by a training run."""
  path = os.path.join(workdir, 'config.json')
  if not os.path.exists(path):
    raise FileNotFoundError(
        f'No config.json in {workdir!r}; is it the --workdir of a training '
        f'run?')
  with open(path) as f:
    saved = json.load(f)
  saved['agent_config'] = agent_registry.make_config(saved['agent'],
                                                     **saved['agent_config'])
  return config_lib.ExperimentConfig(**saved)


def _initial_state(built: Built) -> Dict[str, Any]:
  key = jax.random.PRNGKey(built.config.seed)
  learner_key, actor_key = jax.random.split(key)
  counters = {name: np.zeros((), np.int64) for name in _COUNTERS}
  counters['wall_seconds'] = np.zeros((), np.float64)
  return {'learner': built.agent.init(learner_key), 'actor_key': actor_key,
          'counters': counters}


def restore_state(built: Built, workdir: str) -> Optional[Dict[str, Any]]:
  """The newest checkpointed training state in `workdir`, or None."""
  checkpointer = checkpointing.Checkpointer(os.path.join(workdir,
                                                         'checkpoints'))
  try:
    restored = checkpointer.restore_latest(_initial_state(built))
  finally:
    checkpointer.close()
  return None if restored is None else restored[1]


def restore_actor_params(built: Built, workdir: str,
                         seed: Optional[int] = None) -> Any:
  """Actor params of `seed` (default: the config's) in `workdir`'s newest
  checkpoint, whichever loop wrote it; None before the first checkpoint."""
  if built.config.loop == 'compiled':
    from experiments import compiled_experiment  # pylint: disable=g-import-not-at-top
    return compiled_experiment.restore_actor_params(built, workdir, seed)
  if seed not in (None, built.config.seed):
    raise ValueError(f'Seed {seed} is not this run\'s seed '
                     f'{built.config.seed}.')
  state = restore_state(built, workdir)
  return None if state is None else built.agent.actor_params(state['learner'])


def quiet_library_logs() -> None:
  """Orbax logs every save at INFO; keep that out unless --verbosity asks."""
  from absl import flags, logging  # pylint: disable=g-import-not-at-top
  if not (flags.FLAGS.is_parsed() and flags.FLAGS['verbosity'].present):
    logging.set_verbosity(logging.WARNING)


def periodic_evaluation_due(config: config_lib.ExperimentConfig,
                            episodes_before: int, episodes: int,
                            steps_before: int, steps: int) -> bool:
  """Whether training from (episodes_before, steps_before) to (episodes,
  steps) passed a periodic evaluation point (either interval)."""
  every_episodes, every_steps = (config.eval_every_episodes,
                                 config.eval_every_steps)
  return bool(
      (every_episodes and
       episodes // every_episodes > episodes_before // every_episodes) or
      (every_steps and steps // every_steps > steps_before // every_steps))


def evaluation_logger(workdir: str,
                      resume_step: Optional[int]) -> loggers.CSVLogger:
  """`eval.csv`: one row per periodic greedy evaluation, x = env steps."""
  return loggers.CSVLogger(os.path.join(workdir, 'eval.csv'), resume_step)


def evaluation_row(greedy: Dict[str, float], episodes: int,
                   wall_seconds: float) -> Dict[str, float]:
  """A row of `eval.csv`."""
  return {'mean_return': float(greedy['mean_return']),
          'mean_episode_length': float(greedy['mean_episode_length']),
          'episodes': int(episodes), 'wall_seconds': float(wall_seconds)}


def prepare_workdir(config: config_lib.ExperimentConfig, workdir: str):
  os.makedirs(workdir, exist_ok=True)
  path = os.path.join(workdir, 'config.json')
  if os.path.exists(path):
    with open(path) as f:
      saved = json.load(f)
    mismatch = config_lib.identity_mismatch(saved, config)
    if mismatch:
      raise ExperimentError(
          f'--workdir {workdir!r} holds a different experiment '
          f'({config_lib.describe_mismatch(mismatch)}). '
          f'Use a new --workdir, or the same settings to resume.')
  atomic_files.write_json(path, config.to_dict())


class _LogWindow:
  """Averages over one logging interval; `paused()` excludes evaluation time."""

  def __init__(self):
    self._returns, self._lengths, self._metrics = [], [], []
    self._start = time.perf_counter()
    self._paused_seconds = 0.0

  def add(self, result: environment_loop.EpisodeResult) -> None:
    self._returns.append(result.episode_return)
    self._lengths.append(result.episode_length)
    self._metrics.extend(result.learner_metrics)

  @contextlib.contextmanager
  def paused(self):
    start = time.perf_counter()
    yield
    self._paused_seconds += time.perf_counter() - start

  def scalars(self) -> Dict[str, float]:
    elapsed = time.perf_counter() - self._start - self._paused_seconds
    values = {
        'episode_return': float(np.mean(self._returns)),
        'game_length': float(np.mean(self._lengths)),
        'steps_per_second': sum(self._lengths) / elapsed,
        'episodes_per_second': len(self._lengths) / elapsed,
    }
    fetched = jax.device_get(self._metrics)  # One transfer per interval.
    for name in (fetched[0] if fetched else ()):
      values[name] = float(np.mean([m[name] for m in fetched]))
    return values


def run_experiment(config: config_lib.ExperimentConfig,
                   workdir: str,
                   progress: bool = True) -> Dict[str, Any]:
  """Trains (resuming from `workdir` if possible), evaluates and exports.

  Returns:
    The dict also written to `workdir/result.json`.
  """
  if config.loop == 'compiled':
    # Imported here: the compiled driver builds on this module's set-up.
    from experiments import compiled_experiment  # pylint: disable=g-import-not-at-top
    return compiled_experiment.run(config, workdir, progress)
  built = build(config)  # Refuses impossible experiments before any write.
  prepare_workdir(config, workdir)
  agent = built.agent
  checkpointer = checkpointing.Checkpointer(os.path.join(workdir,
                                                         'checkpoints'))
  state = _initial_state(built)
  restored = checkpointer.restore_latest(state)
  resume_step = None
  if restored is not None:
    state = restored[1]
    resume_step = int(state['counters']['env_steps'])
  counters = {k: v.item() for k, v in state['counters'].items()}

  environment = built.train_environment(counters['episodes'])
  eval_environment = built.eval_environment()
  learner = learner_lib.Learner(agent, state['learner'])
  actor = actor_lib.Actor(agent, learner.params, state['actor_key'],
                          next_episode=counters['episodes'])
  loop = environment_loop.EnvironmentLoop(
      environment, actor, learner,
      batchers.make_batcher(agent.data))
  logger = loggers.MultiLogger([
      loggers.CSVLogger(os.path.join(workdir, 'train.csv'), resume_step),
      loggers.TensorBoardLogger(os.path.join(workdir, 'tensorboard'),
                                resume_step),
  ])
  eval_logger = evaluation_logger(workdir, resume_step)

  def save():
    checkpointer.save(counters['env_steps'], {
        'learner': learner.state, 'actor_key': actor.key,
        'counters': {k: np.asarray(v) for k, v in counters.items()}})

  def done():
    return ((config.num_episodes is not None and
             counters['episodes'] >= config.num_episodes) or
            (config.num_steps is not None and
             counters['env_steps'] >= config.num_steps))

  # The bar counts episodes, or steps when only a step budget is set.
  by_steps = config.num_episodes is None
  bar = tqdm.tqdm(
      total=config.num_steps if by_steps else config.num_episodes,
      initial=counters['env_steps' if by_steps else 'episodes'],
      unit='step' if by_steps else 'episode', disable=not progress,
      dynamic_ncols=True)
  window = _LogWindow()
  session_start = time.perf_counter()
  wall_at_start = counters['wall_seconds']
  last_checkpoint_updates = counters['updates']
  try:
    while not done():
      result = loop.run_episode()
      counters['episodes'] += 1
      counters['env_steps'] += result.episode_length
      counters['updates'] += len(result.learner_metrics)
      counters['wall_seconds'] = (wall_at_start + time.perf_counter() -
                                  session_start)
      window.add(result)
      bar.update(result.episode_length if by_steps else 1)
      values = {}
      if counters['episodes'] % config.log_every_episodes == 0:
        values.update(window.scalars())
        bar.set_postfix(game_length=f'{values["game_length"]:.1f}',
                        sps=f'{values["steps_per_second"]:.0f}')
        window = _LogWindow()
      if periodic_evaluation_due(
          config, counters['episodes'] - 1, counters['episodes'],
          counters['env_steps'] - result.episode_length,
          counters['env_steps']):
        with window.paused():
          greedy = evaluation.evaluate(eval_environment, agent,
                                       learner.params,
                                       config.periodic_eval_episodes)
        values.update({f'eval/{k}': v for k, v in greedy.items()})
        eval_logger.write(
            evaluation_row(greedy, counters['episodes'],
                           counters['wall_seconds']), counters['env_steps'])
      if values:
        values.update(episodes=counters['episodes'],
                      updates=counters['updates'],
                      wall_seconds=counters['wall_seconds'])
        logger.write(values, counters['env_steps'])
      if (counters['updates'] // config.checkpoint_every_updates >
          last_checkpoint_updates // config.checkpoint_every_updates):
        save()
        last_checkpoint_updates = counters['updates']
  except KeyboardInterrupt:
    save()  # Keep the work done so far; rerun on this workdir to resume.
    raise
  finally:
    bar.close()
    logger.close()
    eval_logger.close()
  save()
  checkpointer.close()

  final = evaluation.evaluate(eval_environment, agent, learner.params,
                              config.eval_episodes)
  result = {
      'agent': config.agent,
      'env': config.env,
      'seed': config.seed,
      **counters,
      'eval_episodes': config.eval_episodes,
      'eval_mean_return': final['mean_return'],
      'eval_mean_episode_length': final['mean_episode_length'],
      'tflite_path': None,
  }
  if config.export_tflite:
    from experiments import export_tflite  # pylint: disable=g-import-not-at-top
    path = os.path.join(workdir, export_filename(config.env))
    report = export_tflite.export_and_verify(
        agent, learner.params, built.environment_spec, path,
        built.export_environment(),
        num_games=config.eval_episodes)
    result['tflite_path'] = os.path.abspath(path)
    result['tflite'] = report
  atomic_files.write_json(os.path.join(workdir, 'result.json'), result)
  return result
