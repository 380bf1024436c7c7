r"""Speed benchmarks of the training loops; prints JSON.

  python -m benchmarks.suites --suites=startup --seeds=3 \
      --output=benchmarks/startup.json
  python -m benchmarks.suites --suites=compiled --output=/tmp/compiled.json

The committed JSON of each suite, the command that wrote it and its tables
are in docs/benchmarks/ (`python -m benchmarks.tables` redraws
the tables from the JSON).

Suites (figures are medians over `--seeds` runs of one invocation):
  python_loop: the dm_env loop, REINFORCE on Plane Strike (the Python-loop
    `./run.sh` experiment): environment alone, training steps and games per
    second, wall seconds until greedy strikes <= 20 / 16 / 13, final greedy
    strikes in JAX and through the exported TFLite model, peak memory.
  loop_speed: the same REINFORCE training (`--speed_episodes` games from
    scratch) in the Python and the compiled loop, environment steps per
    second of each (compile excluded, reported apart) and their ratio; the
    compiled loop also with `--wide_envs` environments and episodes per
    update. Each run in a fresh process, with its peak memory
    (`benchmarks/scaling.py`, as are seeds and devices).
  gymnax_cartpole, breakout_minatar, vector_python_loop,
    bsuite_python_loop, envpool_python_loop: see
    `benchmarks/environment_speed.py`.
  ppo_pendulum, sac_pendulum, brax_inverted_pendulum: continuous control,
    compiled-loop steps per second (compile excluded) and greedy return of
    the presets ppo_pendulum, sac_pendulum (gymnax Pendulum-v1) and
    ppo_brax_inverted_pendulum (the `control` extra), as gymnax_cartpole.
  ppo_cartpole: PPO on CartPole in the common reference setting (4 envs x
    128 steps, 4 epochs x 4 minibatches, 64-unit tanh MLP, 500k steps):
    steps per second, compile seconds, final greedy return.
  time_to_model: the default experiment of `./run.sh` (PPO's Plane Strike
    preset, compiled loop), wall seconds from the start (compile included)
    to an exported, verified model, and that model's greedy strikes.
  train_command, startup, compilation_cache, time_account: whole
    commands (`python -m experiments.train`, each entry point's help) in
    fresh processes, `--seeds` times each: `benchmarks/commands.py` says
    what each times. Every suite but compilation_cache compiles cold: the
    persistent cache is off for this process and those it starts.
  sweep: a 16-configuration × 3-seed PPO sweep on Plane Strike (4 learning
    rates × 4 discounts from the preset, `--sweep_steps` each) as one
    program, against the same runs one by one (`--sweep_single_runs` of
    them timed, each in this process; the one-by-one total is their median
    × 48, stated as such).
  seeds: REINFORCE on Plane Strike with `--seed_counts` (1, 8, 64, 256)
    seeds in one program, each `--seeds` times in fresh processes: total
    steps per second, relative to 1 seed, and peak memory.
  devices: one seed split over `--device_counts` (1, 2, 4) forced CPU
    devices (`devices_per_seed`), each in a fresh process: REINFORCE on
    Plane Strike and PPO's preset, steps per second relative to 1 device,
    peak memory.
  compiled: loop_speed, ppo_cartpole, time_to_model, seeds and devices.
  peers_gymnax_cartpole, peers_breakout_minatar, peers_ppo_games,
    peers_ppo_rnn, peers_pqn_cartpole, peers_dqn_cartpole,
    peers_sac_pendulum, peers_td3_pendulum, peers_python_loop,
    peers_alphazero_connect_four and the rest of `peers.SUITES`: ours
    beside PureJaxRL, purejaxql, rejax, SBX and pgx's AlphaZero example,
    installed in their own environment; see `benchmarks/peers.py`.
"""

import csv
import dataclasses
import json
import os
import resource
import tempfile
import time
from typing import Any, Dict

from absl import app
from absl import flags
import numpy as np

from agents import registry as agent_registry
from benchmarks import commands
from benchmarks import environment_speed
from benchmarks import fingerprints
from benchmarks import peers
from benchmarks import scaling
from environments import plane_strike
from experiments import api
from experiments.cli import help_text
from experiments.setup import compilation_cache
from experiments.setup import config as config_lib
from experiments.setup import library_logs
from experiments.storage import atomic_files

THRESHOLDS = (20.0, 16.0, 13.0)
SUITES = ('python_loop', 'loop_speed', 'ppo_cartpole', 'time_to_model',
          'seeds', 'devices', 'sweep', 'gymnax_cartpole', 'breakout_minatar',
          'vector_python_loop', 'bsuite_python_loop', 'envpool_python_loop',
          'train_command',
          'ppo_pendulum', 'sac_pendulum', 'brax_inverted_pendulum',
          'startup', 'compilation_cache', 'time_account') + peers.SUITES
COMPILED = ('loop_speed', 'ppo_cartpole', 'time_to_model', 'seeds',
            'devices')
# The default experiment of ./run.sh (see run.sh): PPO's preset.
RUN_SH_PRESET = 'ppo_plane_strike'
# One recorded training run (`fingerprints.record`).
_train = environment_speed.train


def _record(settings: Dict[str, Any]) -> None:
  """Records the run `api.train(**settings)` makes (a command's)."""
  fingerprints.record(api.experiment_config(**settings))
SWEEP_GRID = {'learning_rate': (3e-4, 1e-3, 2e-3, 3e-3),
              'discount': (0.3, 0.5, 0.7, 0.9)}


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
  """First wall_seconds at which periodic greedy strikes <= each threshold
  (from a run's `eval.csv`)."""
  with open(csv_path, newline='') as f:
    rows = list(csv.DictReader(f))
  out = {}
  for threshold in THRESHOLDS:
    hit = [float(r['wall_seconds']) for r in rows
           if float(r['mean_episode_length']) <= threshold]
    out[f'seconds_to_strikes_<={threshold:g}'] = hit[0] if hit else None
  return out


def _training_seconds(result: Dict[str, Any]) -> float:
  """Training wall seconds without compilation (compiled loop)."""
  return result['wall_seconds'] - result.get('compile_seconds', 0.0)


def python_loop(root: str, seeds: int, num_episodes: int,
                eval_every_episodes: int, env_steps: int) -> Dict[str, Any]:
  """The Python dm_env loop on the Python-loop `./run.sh` experiment."""
  runs = []
  for seed in range(seeds):
    result = _train(root, f'python_seed{seed}', seed=seed, loop='python',
                    num_episodes=num_episodes,
                    eval_every_episodes=eval_every_episodes,
                    periodic_eval_episodes=200)
    runs.append({
        'seed': seed,
        'episodes': result['episodes'],
        'env_steps': result['env_steps'],
        'train_seconds': result['wall_seconds'],
        'total_seconds_with_eval_and_export': result['total_seconds'],
        'loop_steps_per_second': result['env_steps'] / result['wall_seconds'],
        'games_per_second': result['episodes'] / result['wall_seconds'],
        'greedy_strikes_jax': result['eval_mean_episode_length'],
        'greedy_strikes_tflite': result['tflite']['mean_episode_length'],
        'tflite_max_abs_diff': result['tflite']['max_abs_diff'],
        **seconds_to_thresholds(os.path.join(result['workdir'],
                                             'eval.csv')),
    })
  env_rates = [environment_steps_per_second(env_steps, seed)
               for seed in range(3)]
  return {'env_steps_per_second': float(np.median(env_rates)),
          'median': environment_speed.medians(runs), 'runs': runs}


def ppo_cartpole(root: str, seeds: int) -> Dict[str, Any]:
  """PPO on CartPole, reference setting, 500k steps, compiled loop."""
  runs = []
  for seed in range(seeds):
    config = agent_registry.make_config('ppo',
                                        learning_rate_decay_updates=977)
    result = _train(root, f'ppo_cartpole_seed{seed}', agent='ppo',
                    env='cartpole', seed=seed, agent_config=config,
                    num_episodes=None, num_steps=500_000,
                    eval_every_episodes=0, eval_episodes=100,
                    export_tflite=False)
    runs.append({
        'seed': seed,
        'env_steps': result['env_steps'],
        'steps_per_second': result['env_steps'] / _training_seconds(result),
        'compile_seconds': result['compile_seconds'],
        'train_seconds_without_compile': _training_seconds(result),
        'greedy_return': result['eval_mean_return'],
    })
  return {'setting': '4 envs x 128 steps, 4 epochs x 4 minibatches, tanh '
                     '64-64, lr 2.5e-4 annealed, 500k steps',
          'median': environment_speed.medians(runs), 'runs': runs}


def time_to_model(root: str, seeds: int) -> Dict[str, Any]:
  """The ./run.sh experiment: start to exported, verified model."""
  runs = []
  for seed in range(seeds):
    result = _train(root, f'run_sh_seed{seed}', seed=seed,
                    **environment_speed.preset_settings(RUN_SH_PRESET),
                    eval_every_episodes=0, eval_every_steps=100_000,
                    periodic_eval_episodes=200)
    runs.append({
        'seed': seed,
        'seconds_to_exported_model': result['total_seconds'],
        'compile_seconds': result['compile_seconds'],
        'train_seconds': result['wall_seconds'],
        'greedy_strikes_jax': result['eval_mean_episode_length'],
        'greedy_strikes_tflite': result['tflite']['mean_episode_length'],
        'tflite_max_abs_diff': result['tflite']['max_abs_diff'],
        **seconds_to_thresholds(os.path.join(result['workdir'],
                                             'eval.csv')),
    })
  return {'preset': RUN_SH_PRESET, 'median': environment_speed.medians(runs), 'runs': runs}


def sweep(root: str, num_steps: int, single_runs: int) -> Dict[str, Any]:
  """The 16 × 3 PPO sweep as one program, and single runs timed alone."""
  settings = environment_speed.preset_settings(RUN_SH_PRESET)
  settings.update(num_steps=num_steps, eval_episodes=200,
                  eval_every_episodes=0, eval_every_steps=num_steps // 10,
                  export_tflite=False)
  trials = tuple({'learning_rate': lr, 'discount': d}
                 for lr in SWEEP_GRID['learning_rate']
                 for d in SWEEP_GRID['discount'])
  together = _train(root, 'sweep', num_seeds=3, trials=trials, **settings)
  lanes = together['seeds']
  alone = []
  for i in range(single_runs):
    trial = trials[i % len(trials)]
    config = dict(settings, agent_config=dataclasses.replace(
        settings['agent_config'], **trial))
    alone.append(_train(root, f'sweep_single_{i}', seed=i % 3, **config))
  single_seconds = float(np.median([r['total_seconds'] for r in alone]))
  runs = len(trials) * 3
  return {
      'configurations': len(trials), 'seeds': 3, 'steps_per_run': num_steps,
      'one_program_seconds': together['total_seconds'],
      'one_program_compile_seconds': lanes[0]['compile_seconds'],
      'one_program_total_steps_per_second': sum(
          r['env_steps'] for r in lanes) / _training_seconds(lanes[0]),
      'single_run_seconds_median': single_seconds,
      'single_runs_timed': single_runs,
      'one_by_one_seconds_estimate': single_seconds * runs,
      'speedup': single_seconds * runs / together['total_seconds'],
      'best': min(({'values': trials[i // 3], 'strikes':
                    float(np.mean([lanes[j]['eval_mean_episode_length']
                                   for j in range(i, i + 3)]))}
                   for i in range(0, runs, 3)), key=lambda b: b['strikes']),
      'diverged_lanes': sum(r['status'] == 'diverged' for r in lanes),
  }


# What --help shows, in this order (every flag in exactly one group:
# tests/experiments/cli/help_text_test.py).
FLAG_GROUPS = {
    'What to run': ('suites', 'seeds', 'output', 'workdir'),
    'python_loop suite': ('num_episodes', 'eval_every_episodes', 'env_steps'),
    'loop_speed suite': ('speed_episodes', 'wide_envs'),
    'seeds suite': ('seed_counts', 'program_episodes'),
    'devices suite': ('device_counts', 'devices_episodes',
                      'devices_ppo_steps'),
    'sweep suite': ('sweep_steps', 'sweep_single_runs'),
    'vector_python_loop, bsuite_python_loop and envpool_python_loop suites':
        ('vector_steps', 'vector_envs'),
    'peers_* suites': ('peer_python', 'purejaxrl_source', 'minatar_steps',
                       'ppo_games', 'games_minatar_steps', 'sac_steps',
                       'python_loop_steps', 'purejaxql_source',
                       'pqn_minatar_steps', 'seeds_per_program',
                       'pgx_source', 'alphazero_iterations', 'navix_ids',
                       'navix_steps', 'craftax_ids', 'craftax_widths',
                       'craftax_steps', 'craftax_baselines_source',
                       'jumanji_steps', 'xminigrid_ids', 'xminigrid_widths',
                       'xminigrid_steps', 'xminigrid_benchmark',
                       'xminigrid_ruleset', 'xminigrid_source',
                       'popgym_arcade_ids', 'popgym_arcade_steps'),
}


def _define_flags() -> None:
  # Defined only when run as a program: tests import this module.
  flags.DEFINE_list('suites', ['compiled'],
                    f'Any of {", ".join(SUITES)}, or compiled (= '
                    f'{", ".join(COMPILED)}).')
  flags.DEFINE_integer('seeds', 3, 'Runs per figure (seeds 0..N-1).',
                       lower_bound=1)
  flags.DEFINE_integer(
      'num_episodes', config_lib.ExperimentConfig.num_episodes,
      'python_loop: training episodes per seed.', lower_bound=1)
  flags.DEFINE_integer(
      'eval_every_episodes', 1000,
      'python_loop: periodic greedy evaluation interval.', lower_bound=1)
  flags.DEFINE_integer(
      'env_steps', 20_000,
      'python_loop: steps of the environment-alone measurement.',
      lower_bound=100)
  flags.DEFINE_integer(
      'speed_episodes', config_lib.ExperimentConfig.num_episodes,
      'loop_speed: training games per run (default: the config default, '
      'as the python_loop suite).', lower_bound=1)
  flags.DEFINE_integer('wide_envs', 64,
                       'loop_speed: environments (= episodes per update) of '
                       'the wide compiled run.', lower_bound=1)
  flags.DEFINE_list('seed_counts', ['1', '8', '64', '256'],
                    'seeds: seeds in one program of each configuration.')
  flags.DEFINE_integer('program_episodes', 3200,
                       'seeds: episodes per seed.', lower_bound=1)
  flags.DEFINE_list('device_counts', ['1', '2', '4'],
                    'devices: CPU devices one seed is split over, each '
                    'configuration.')
  flags.DEFINE_integer('devices_episodes', 6400,
                       'devices: REINFORCE games per run.', lower_bound=1)
  flags.DEFINE_integer('devices_ppo_steps', 200_000,
                       'devices: PPO steps per run (0: no PPO runs).',
                       lower_bound=0)
  flags.DEFINE_integer('sweep_steps', 1_000_000,
                       'sweep: environment steps per run.', lower_bound=1)
  flags.DEFINE_integer('sweep_single_runs', 3,
                       'sweep: single runs timed for the one-by-one '
                       'estimate.', lower_bound=1)
  flags.DEFINE_integer('vector_steps', 50_000, 'vector_python_loop, '
                       'bsuite_python_loop, envpool_python_loop: steps per '
                       'run.', lower_bound=1)
  flags.DEFINE_integer('vector_envs', 8, 'vector_python_loop, '
                       'bsuite_python_loop, envpool_python_loop: '
                       'environments of the vectorised runs.', lower_bound=1)
  peers.define_flags()
  flags.DEFINE_string('output', None, 'Also write the JSON here.')
  flags.DEFINE_string(
      'workdir', None, 'Where the training runs go; default a temp dir.')


def main(argv):
  del argv
  library_logs.quiet()
  compilation_cache.enable('')  # Cold compiles (see the docstring).
  f = flags.FLAGS
  suites = []
  for name in f.suites:
    if name not in SUITES + ('compiled',):
      raise app.UsageError(f'--suites: unknown suite {name!r}; valid: '
                           f'{", ".join(SUITES)}, compiled.')
    suites.extend(COMPILED if name == 'compiled' else [name])
  unknown = [g for g in f.ppo_games or () if g not in peers.PPO_GAMES]
  if unknown:
    raise app.UsageError(f'--ppo_games: unknown game {unknown[0]!r}; '
                         f'valid: {", ".join(peers.PPO_GAMES)}.')
  try:
    peers.check_setup(f.peer_python, f.purejaxrl_source, suites,
                      f.purejaxql_source, f.pgx_source,
                      f.craftax_baselines_source, f.xminigrid_source)
  except peers.PeerSetupError as e:
    raise app.UsageError(str(e)) from e
  root = f.workdir or tempfile.mkdtemp(prefix='benchmark-')
  os.makedirs(root, exist_ok=True)
  run = {
      'python_loop': lambda: python_loop(root, f.seeds, f.num_episodes,
                                         f.eval_every_episodes, f.env_steps),
      'loop_speed': lambda: scaling.loop_speed(
          root, f.seeds, f.speed_episodes, f.wide_envs),
      'ppo_cartpole': lambda: ppo_cartpole(root, f.seeds),
      'time_to_model': lambda: time_to_model(root, f.seeds),
      'train_command': lambda: commands.train_command(root, f.seeds,
                                                      _record),
      'startup': lambda: commands.startup(root, f.seeds, _record),
      'compilation_cache': lambda: commands.compilation_cache(
          root, f.seeds, _record),
      'time_account': lambda: commands.time_account(root, f.seeds, _record),
      'seeds': lambda: scaling.seeds_in_one_program(
          root, f.seeds, [int(n) for n in f.seed_counts],
          f.program_episodes),
      'devices': lambda: scaling.devices(
          root, f.seeds, [int(n) for n in f.device_counts],
          f.devices_episodes, f.devices_ppo_steps),
      'sweep': lambda: sweep(root, f.sweep_steps, f.sweep_single_runs),
      **environment_speed.suites(root, f),
      **peers.suites(root, f),
  }
  report = {'runs_per_figure': f.seeds, 'machine': {'cpus': os.cpu_count()}}
  for name in suites:
    start = time.perf_counter()
    report[name] = run[name]()
    report[name]['suite_seconds'] = time.perf_counter() - start
    report[name].update(fingerprints.take_recorded())
    report['peak_memory_mib'] = resource.getrusage(
        resource.RUSAGE_SELF).ru_maxrss / 1024
    text = json.dumps(report, indent=2)
    if f.output:  # After every suite, so a failure keeps what was measured.
      atomic_files.write_bytes(f.output, (text + '\n').encode())
  print(text)


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
