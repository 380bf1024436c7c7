r"""Measures the Python dm_env loop on Plane Strike; prints JSON.

  python -m experiments.benchmark --seeds=3 --output=/tmp/bench.json

Figures (medians over seeds, one process, one machine):
  env_steps_per_second: the dm_env environment alone, random legal strikes.
  loop_steps_per_second / games_per_second: whole training (actor, learner,
    batching, logging, checkpoints), environment steps or games per wall
    second.
  seconds_to_strikes_<=20 / <=16 / <=13: wall seconds from the start of
    training (compile and periodic evaluation included) until a periodic
    greedy evaluation first averages at most that many strikes.
  final greedy strikes (1000 games in JAX and through the exported TFLite
    model) and peak resident memory of the process.
"""

import csv
import json
import os
import resource
import tempfile
import time

from absl import app
from absl import flags
import numpy as np

from environments import plane_strike
from experiments import config as config_lib
from experiments import experiment

THRESHOLDS = (20.0, 16.0, 13.0)


def environment_steps_per_second(num_steps: int, seed: int = 0) -> float:
  """The dm_env face alone, striking random untried cells."""
  env = plane_strike.make_environment(seed=seed)
  rng = np.random.default_rng(seed)
  timestep = env.reset()
  env.step(0)  # Compile outside the timing.
  timestep = env.reset()
  start = time.perf_counter()
  for _ in range(num_steps):
    if timestep.last():
      timestep = env.reset()
    untried = np.flatnonzero(timestep.observation.reshape(-1) == 0)
    timestep = env.step(int(rng.choice(untried)))
  return num_steps / (time.perf_counter() - start)


def seconds_to_thresholds(csv_path: str) -> dict:
  """First wall_seconds at which periodic greedy strikes <= each threshold."""
  with open(csv_path, newline='') as f:
    rows = [r for r in csv.DictReader(f)
            if r.get('eval/mean_episode_length')]
  out = {}
  for threshold in THRESHOLDS:
    hit = [float(r['wall_seconds']) for r in rows
           if float(r['eval/mean_episode_length']) <= threshold]
    out[f'seconds_to_strikes_<={threshold:g}'] = hit[0] if hit else None
  return out


def _median(values):
  values = [v for v in values if v is not None]
  return float(np.median(values)) if values else None


def _define_flags() -> None:
  # Defined only when run as a program: tests import this module.
  flags.DEFINE_integer('seeds', 3, 'Training runs (seeds 0..N-1).',
                       lower_bound=1)
  flags.DEFINE_integer(
      'num_episodes', config_lib.ExperimentConfig.num_episodes,
      'Training episodes per seed.', lower_bound=1)
  flags.DEFINE_integer(
      'eval_every_episodes', 1000, 'Periodic greedy evaluation interval.',
      lower_bound=1)
  flags.DEFINE_integer(
      'env_steps', 20_000, 'Steps of the environment-alone measurement.',
      lower_bound=100)
  flags.DEFINE_string('output', None, 'Also write the JSON here.')
  flags.DEFINE_string(
      'workdir', None, 'Where the training runs go; default a temp dir.')


def main(argv):
  del argv
  experiment.quiet_library_logs()
  root = flags.FLAGS.workdir or tempfile.mkdtemp(prefix='benchmark-')
  env_rates = [environment_steps_per_second(flags.FLAGS.env_steps, seed)
               for seed in range(3)]
  runs = []
  for seed in range(flags.FLAGS.seeds):
    config = config_lib.ExperimentConfig(
        seed=seed, num_episodes=flags.FLAGS.num_episodes,
        eval_every_episodes=flags.FLAGS.eval_every_episodes, periodic_eval_episodes=200)
    workdir = os.path.join(root, f'seed{seed}')
    start = time.perf_counter()
    result = experiment.run_experiment(config, workdir, progress=False)
    total = time.perf_counter() - start
    runs.append({
        'seed': seed,
        'episodes': result['episodes'],
        'env_steps': result['env_steps'],
        'train_seconds': result['wall_seconds'],
        'total_seconds_with_eval_and_export': total,
        'loop_steps_per_second': result['env_steps'] / result['wall_seconds'],
        'games_per_second': result['episodes'] / result['wall_seconds'],
        'greedy_strikes_jax': result['eval_mean_episode_length'],
        'greedy_strikes_tflite': result['tflite']['mean_episode_length'],
        'tflite_max_abs_diff': result['tflite']['max_abs_diff'],
        **seconds_to_thresholds(os.path.join(workdir, 'train.csv')),
    })
  summary = {
      key: _median([run[key] for run in runs])
      for key in runs[0] if key != 'seed'
  }
  report = {
      'benchmark': 'python_loop_plane_strike',
      'agent': 'reinforce',
      'seeds': flags.FLAGS.seeds,
      'env_steps_per_second': _median(env_rates),
      'median': summary,
      'runs': runs,
      'peak_memory_mib': resource.getrusage(
          resource.RUSAGE_SELF).ru_maxrss / 1024,
      'machine': {'cpus': os.cpu_count()},
  }
  text = json.dumps(report, indent=2)
  print(text)
  if flags.FLAGS.output:
    from experiments import atomic_files  # pylint: disable=g-import-not-at-top
    atomic_files.write_bytes(flags.FLAGS.output, (text + '\n').encode())


if __name__ == '__main__':
  _define_flags()
  app.run(main)
