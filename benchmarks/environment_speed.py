"""Benchmark suites of environments beyond our own games.

Run through `benchmarks.suites` (`--suites=gymnax_cartpole,...`); each
suite returns per-run figures and their medians:
  gymnax_cartpole: PPO on `gymnax:CartPole-v1` at its preset (PureJaxRL's
    reference setting), compiled loop, 500k steps: training steps per
    second (compile and periodic evaluation excluded; and over the chunks'
    own time, the host's work between them excluded), compile seconds,
    greedy return; and the wall time of the plain `experiments.train`
    command on that pair (defaults: preset, evaluations, TFLite export).
  breakout_minatar: PPO on `gymnax:Breakout-MinAtar` at its preset
    (PureJaxRL's MinAtar setting, 10M steps): the same figures.
  vector_python_loop: the Python loop on `gym:CartPole-v1` (PPO) with 1 and
    `--vector_envs` environments per actor call: steps per second (median
    of the `train.csv` rows, and over the whole run), ratios.
  bsuite_python_loop: DQN and PPO on `bsuite:catch/0` in the Python loop,
    one environment (before the vectorised loop) and `--vector_envs`.
  envpool_python_loop: the same with PPO on `envpool:CartPole-v1` and
    `envpool:HalfCheetah-v5`, whose environments step as one EnvPool pool,
    and on `gym:HalfCheetah-v5` (Gymnasium's MuJoCo, stepped one by one)
    beside them; one game after another, in `ENVPOOL_GAMES`' order.
"""

import csv
import os
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

from agents import registry as agent_registry
from benchmarks import fingerprints
from experiments.driver import log_names
from experiments.driver import run as driver
from experiments.presets import registry as preset_registry
from experiments.setup import config as config_lib
from experiments.setup import train_settings

# train.csv's column of each chunk's training speed.
_STEPS_PER_SECOND = log_names.PERF + 'steps_per_second'

_ROOT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# No periodic evaluation: the speed of training alone, as PureJaxRL reports.
_NO_EVAL = dict(eval_every_steps=0, eval_every_episodes=0)


def medians(runs: List[Dict[str, Any]]) -> Dict[str, float]:
  """Median of every numeric field over runs (None values skipped)."""
  out = {}
  for key in runs[0]:
    values = [r[key] for r in runs
              if isinstance(r.get(key), (int, float)) and
              not isinstance(r.get(key), bool)]
    if values and key != 'seed':
      out[key] = float(np.median(values))
  return out


def train(root: str, name: str, **settings) -> Dict[str, Any]:
  """One training run of `settings` in `root/name`, recorded as measured
  (`fingerprints.record`): its result, total seconds and workdir."""
  config = config_lib.ExperimentConfig(**settings)
  fingerprints.record(config)
  workdir = os.path.join(root, name)
  start = time.perf_counter()
  result = driver.run_experiment(config, workdir, progress=False)
  result['total_seconds'] = time.perf_counter() - start
  result['workdir'] = workdir
  return result


def preset_settings(name: str) -> Dict[str, Any]:
  """ExperimentConfig settings of preset `name` on its own game: `train`'s
  own resolution of `--preset` (`train_settings.experiment_config`), so
  every setting the preset holds (its widths included) reaches the run.
  The agent config is the preset's before it is fitted to a budget (a
  suite may set another; the run fits it to its own)."""
  preset = preset_registry.get(name)
  config = train_settings.experiment_config(train_settings.TrainSettings(
      agent=preset.agent, env=preset.env, preset=preset.name))
  return {**{key: getattr(config, key) for key in (
      'agent', 'env', 'preset', 'network', 'hidden_sizes', 'num_envs',
      'num_steps', 'num_episodes')},
          'agent_config': agent_registry.make_config(preset.agent,
                                                     **preset.config)}


def _train_command_seconds(root: str, agent: str, env: str) -> float:
  """Wall seconds of `python -m experiments.train --agent --env` with
  every other flag at its default (a fresh process: imports, compile,
  training, evaluations, export and its verification)."""
  start = time.perf_counter()
  subprocess.run(
      [sys.executable, '-m', 'experiments.train', f'--agent={agent}',
       f'--env={env}', f'--workdir={os.path.join(root, "train_command")}',
       '--progress=false'],
      check=True, capture_output=True, cwd=_ROOT_DIR)
  return time.perf_counter() - start


def _chunk_seconds(workdir: str) -> float:
  """Seconds the compiled loop's chunks ran, from `train.csv` (each row:
  one chunk's steps over its rate): training alone, without the host's
  logging, checkpoints and divergence checks between chunks."""
  with open(os.path.join(workdir, 'train.csv')) as f:
    rows = list(csv.DictReader(f))
  steps = [0] + [int(row['step']) for row in rows]
  return sum((steps[i + 1] - steps[i]) / float(row[_STEPS_PER_SECOND])
             for i, row in enumerate(rows))


def preset_speed(root: str, preset: str, seeds: int,
                 train_command: bool = True) -> Dict[str, Any]:
  """Compiled-loop training speed and greedy return of `preset`."""
  runs = []
  for seed in range(seeds):
    result = train(root, f'{preset}_seed{seed}', seed=seed,
                   **preset_settings(preset), **_NO_EVAL, eval_episodes=100,
                   export_tflite=False)
    train_seconds = result['wall_seconds'] - result['compile_seconds']
    runs.append({
        'seed': seed,
        'env_steps': result['env_steps'],
        'steps_per_second': result['env_steps'] / train_seconds,
        'chunk_steps_per_second': result['env_steps'] / _chunk_seconds(
            os.path.join(root, f'{preset}_seed{seed}')),
        'compile_seconds': result['compile_seconds'],
        'train_seconds_without_compile': train_seconds,
        'greedy_return': result['eval_mean_return'],
    })
  report = {'preset': preset, 'source': preset_registry.get(preset).source,
            'median': medians(runs), 'runs': runs}
  if train_command:
    entry = preset_registry.get(preset)
    report['train_command'] = (f'python -m experiments.train '
                               f'--agent={entry.agent} --env={entry.env}')
    report['train_command_seconds'] = _train_command_seconds(
        root, entry.agent, entry.env)
  return report


def _python_rates(root: str, name: str, **settings) -> Tuple[float, float]:
  """Steps per second of a Python-loop run (evaluations off): the median
  of its `train.csv` rows (the loop's own rate: jit compiling in the first
  rows and log writing left out) and over the whole run."""
  result = train(root, name, loop='python', num_episodes=None, **_NO_EVAL,
                 eval_episodes=10, export_tflite=False, **settings)
  with open(os.path.join(root, name, 'train.csv')) as f:
    rates = [float(row[_STEPS_PER_SECOND]) for row in csv.DictReader(f)]
  return (float(np.median(rates)),
          result['env_steps'] / result['wall_seconds'])


def vector_python_loop(root: str, seeds: int, num_steps: int,
                       num_envs: int, agents=('ppo',),
                       env: str = 'gym:CartPole-v1') -> Dict[str, Any]:
  """Python-loop steps per second with 1 and `num_envs` environments."""
  report = {'env': env, 'num_steps': num_steps, 'num_envs': num_envs}
  root = os.path.join(root, env.replace(':', '_').replace('/', '_'))
  for agent in agents:
    runs = []
    for seed in range(seeds):
      common = dict(agent=agent, env=env, seed=seed, num_steps=num_steps)
      one, one_overall = _python_rates(root, f'{agent}_one_seed{seed}',
                                       **common)
      many, many_overall = _python_rates(
          root, f'{agent}_{num_envs}_seed{seed}', num_envs=num_envs,
          **common)
      runs.append({'seed': seed, 'one_env_steps_per_second': one,
                   f'{num_envs}_envs_steps_per_second': many,
                   'speedup': many / one,
                   'one_env_whole_run_steps_per_second': one_overall,
                   f'{num_envs}_envs_whole_run_steps_per_second':
                       many_overall,
                   'whole_run_speedup': many_overall / one_overall})
    report[agent] = {'median': medians(runs), 'runs': runs}
  return report


# The envpool_python_loop suite's games: EnvPool's CartPole (a step far
# cheaper than the pool's call) and HalfCheetah with Gymnasium's beside it.
ENVPOOL_GAMES = ('envpool:CartPole-v1', 'gym:HalfCheetah-v5',
                 'envpool:HalfCheetah-v5')


def suites(root: str, flags_values: Any) -> Dict[str, Callable[[], Any]]:
  """The suites of this module, by name, bound to their flag values."""
  f = flags_values
  return {
      'gymnax_cartpole': lambda: preset_speed(root, 'ppo_gymnax_cartpole',
                                              f.seeds),
      'breakout_minatar': lambda: preset_speed(
          root, 'ppo_breakout_minatar', f.seeds, train_command=False),
      'vector_python_loop': lambda: vector_python_loop(
          root, f.seeds, f.vector_steps, f.vector_envs),
      # Continuous control: compiled-loop speed of each preset.
      'ppo_pendulum': lambda: preset_speed(root, 'ppo_pendulum', f.seeds,
                                           train_command=False),
      'sac_pendulum': lambda: preset_speed(root, 'sac_pendulum', f.seeds,
                                           train_command=False),
      'brax_inverted_pendulum': lambda: preset_speed(
          root, 'ppo_brax_inverted_pendulum', f.seeds, train_command=False),
      'bsuite_python_loop': lambda: vector_python_loop(
          root, f.seeds, f.vector_steps, f.vector_envs,
          agents=('dqn', 'ppo'), env='bsuite:catch/0'),
      'envpool_python_loop': lambda: {
          env: vector_python_loop(root, f.seeds, f.vector_steps,
                                  f.vector_envs, env=env)
          for env in ENVPOOL_GAMES},
  }
