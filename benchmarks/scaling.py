r"""Scaling benchmarks: every measurement in a fresh process.

Run through `benchmarks.suites` (`--suites=loop_speed,seeds,devices`).
Each figure comes from its own child process (`python -m
benchmarks.scaling --child=<settings as JSON>`), which trains
once and prints one JSON line: environment steps per second (compile
excluded, reported apart), compile seconds, steps, and the process's peak
memory, which is then that run's own. A suite's configurations alternate
within each repetition (repetition r runs all of them with seed r), so that
the machine's noise falls on all alike; it reports every run, the medians
per configuration, and ratios per repetition with their medians.

  loop_speed: REINFORCE on Plane Strike, the same training in the Python
    loop, the compiled loop (16 environments) and the compiled loop with
    `--wide_envs` environments: steps per second, speed-up over the Python
    loop (target 50x).
  seeds: 1, 8, 64 and 256 seeds of it in one compiled program: total steps
    per second, per seed, and relative to 1 seed.
  devices: one seed split over D = 1, 2 and 4 forced CPU devices
    (`XLA_FLAGS=--xla_force_host_platform_device_count=D JAX_PLATFORMS=cpu`,
    `devices_per_seed=D`): REINFORCE on Plane Strike (16 environments) and
    PPO's Plane Strike preset (64): steps per second, relative to D = 1.
"""

import dataclasses
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence
from typing import Tuple

from absl import app
from absl import flags
import jax
import numpy as np

from agents import registry as agent_registry
from benchmarks import environment_speed
from benchmarks import fingerprints
from experiments.cli import help_text
from experiments.driver import run as driver
from experiments.presets import registry as preset_registry
from experiments.setup import config as config_lib
from experiments.setup import compilation_cache
from experiments.setup import library_logs

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEEDUP_TARGET = 50.0
DEVICES_PRESET = 'ppo_plane_strike'
# Training alone: no periodic evaluation and no export.
_TRAINING_ONLY = dict(eval_every_episodes=0, eval_every_steps=0,
                      export_tflite=False)

# Per configuration, its runs' figures.
Runs = Dict[str, List[Dict[str, Any]]]


@dataclasses.dataclass(frozen=True)
class Measurement:
  """One configuration of a suite.

  Attributes:
    settings: the child's settings (JSON; see `config_settings`), less the
      seed, which each repetition sets.
    devices: CPU devices the child forces (`device_environment`); None runs
      it on the machine's devices as they are.
  """
  settings: Mapping[str, Any]
  devices: Optional[int] = None


class ChildFailed(RuntimeError):
  """A measurement's child process failed (its command and stderr said)."""


def config_settings(spec: Mapping[str, Any]) -> Dict[str, Any]:
  """ExperimentConfig settings from a child's JSON settings.

  'preset' starts from that preset's settings (as `train` applies it);
  'agent_config', a mapping, overrides the agent's (or the preset's) agent
  settings; every other key is an `ExperimentConfig` field. A measurement
  names its agent or a preset: one that leaned on the framework's default
  agent would measure another agent when that default changes.
  """
  spec = dict(spec)
  if 'agent' not in spec and 'preset' not in spec:
    raise ValueError(f'A measurement names its agent or a preset; got '
                     f'{sorted(spec)}.')
  preset = spec.pop('preset', None)
  overrides = dict(spec.pop('agent_config', {}))
  settings = (environment_speed.preset_settings(preset)
              if preset else {})
  settings.update(spec)
  if overrides or not preset:
    agent = settings['agent']
    base = preset_registry.get(preset).config if preset else {}
    settings['agent_config'] = agent_registry.make_config(
        agent, **{**base, **overrides})
  return settings


def child(spec: Mapping[str, Any], workdir: str) -> Dict[str, Any]:
  """Trains once in this process; the figures of that run."""
  config = config_lib.ExperimentConfig(**config_settings(spec))
  start = time.perf_counter()
  summary = driver.run_experiment(config, workdir, progress=False)
  run_seconds = time.perf_counter() - start
  lanes = summary.get('seeds', [summary])
  # The seeds of one program share its clock: the first lane's times.
  compile_seconds = lanes[0]['compile_seconds']
  train_seconds = lanes[0]['wall_seconds'] - compile_seconds
  steps = sum(r['env_steps'] for r in lanes)
  lengths = [r.get('eval_mean_episode_length') for r in lanes]
  final_return = float(np.median([r.get('eval_mean_return', np.nan)
                                  for r in lanes]))
  return {
      'num_seeds': len(lanes),
      'devices': jax.device_count(),
      'env_steps': steps,
      'steps_per_second': steps / train_seconds,
      'steps_per_second_per_seed': steps / train_seconds / len(lanes),
      'train_seconds': train_seconds,
      'compile_seconds': compile_seconds,
      # The whole run: set-up, training, evaluations, export.
      'run_seconds': run_seconds,
      # The final evaluation's return, played by `eval_policy`; the
      # tables measured before that was recorded read `greedy_return`,
      # the same figure under the name of the commonest protocol.
      'eval_return': final_return,
      'greedy_return': final_return,
      'eval_policy': config.eval_policy,
      'greedy_episode_length': (float(np.median(lengths))
                                if None not in lengths else None),
      'peak_memory_mib': resource.getrusage(
          resource.RUSAGE_SELF).ru_maxrss / 1024,
  }


def device_environment(devices: Optional[int],
                       xla_flags: str = '') -> Dict[str, str]:
  """Environment variables that give a child `devices` CPU devices
  (after `xla_flags`, the caller's XLA_FLAGS); none for None."""
  if devices is None:
    return {}
  force = f'--xla_force_host_platform_device_count={devices}'
  return {'XLA_FLAGS': f'{xla_flags} {force}'.strip(),
          'JAX_PLATFORMS': 'cpu'}


def child_command(settings: Mapping[str, Any], workdir: str) -> List[str]:
  """The command line of one measurement's child."""
  return [sys.executable, '-m', 'benchmarks.scaling',
          '--child=' + json.dumps(dict(settings), sort_keys=True),
          f'--workdir={workdir}']


def parse_child_output(stdout: str) -> Dict[str, Any]:
  """The figures a child printed: its last stdout line that is a JSON
  object (libraries may print before it)."""
  for line in reversed(stdout.splitlines()):
    if line.strip().startswith('{'):
      return json.loads(line)
  raise ValueError(f'no JSON line in the output: {stdout[-500:]!r}')


def run_child(root: str, name: str, measurement: Measurement,
              seed: int) -> Dict[str, Any]:
  """Runs `measurement` with `seed` in a fresh process; its figures plus
  the process's wall seconds.

  Raises:
    ChildFailed: the child failed, printed no figures, or did not get the
      devices asked for; the message holds the command to rerun it.
  """
  workdir = tempfile.mkdtemp(prefix=f'{name}-', dir=root)  # Fresh, empty.
  command = child_command(dict(measurement.settings, seed=seed), workdir)
  variables = device_environment(measurement.devices,
                                 os.environ.get('XLA_FLAGS', ''))
  shown = f'cd {shlex.quote(_REPO)} && ' + shlex.join(
      [f'{k}={v}' for k, v in variables.items()] + command)
  start = time.perf_counter()
  done = subprocess.run(command, cwd=_REPO, capture_output=True, text=True,
                        env={**os.environ, **variables}, check=False)
  seconds = time.perf_counter() - start
  if done.returncode != 0:
    raise ChildFailed(f'benchmark child {name!r} failed (exit status '
                      f'{done.returncode}): {shown}\nIts stderr ends:\n'
                      f'{done.stderr[-3000:]}')
  try:
    result = parse_child_output(done.stdout)
  except ValueError as e:
    raise ChildFailed(f'benchmark child {name!r} printed no figures '
                      f'({e}): {shown}') from e
  if measurement.devices is not None and (
      result['devices'] != measurement.devices):
    raise ChildFailed(f'benchmark child {name!r} saw {result["devices"]} '
                      f'devices, not {measurement.devices}: {shown}')
  result['process_seconds'] = seconds
  return result


# (root, name, measurement, seed) -> figures: `run_child`, or a test's.
Runner = Callable[[str, str, Measurement, int], Dict[str, Any]]


def alternation(names: Sequence[str], repeats: int) -> List[Tuple[int, str]]:
  """(repetition, configuration) in run order: each configuration once per
  repetition, so that the machine's noise falls on all of them alike."""
  return [(rep, name) for rep in range(repeats) for name in names]


def measure(root: str, measurements: Mapping[str, Measurement],
            repeats: int,
            run: Runner = run_child) -> Runs:
  """Every measurement `repeats` times (repetition r with seed r), in
  `alternation` order: per configuration, its runs."""
  for measurement in measurements.values():
    settings = dict(measurement.settings)
    if settings.pop('program', 'ours') == 'ours':
      try:
        config = config_lib.ExperimentConfig(**config_settings(settings))
      except TypeError:  # Not a training run's settings (a test's).
        continue
      fingerprints.record(config, settings.get('agent_config', {}))
  runs = {name: [] for name in measurements}
  for seed, name in alternation(list(measurements), repeats):
    result = run(root, f'{name}_seed{seed}', measurements[name], seed)
    runs[name].append({'seed': seed, **result})
  return runs


def add_ratios(runs: Runs, baseline: str, key: str, ratio_key: str) -> None:
  """Sets `ratio_key` of every run but the baseline's: its `key` over the
  baseline's in the same repetition."""
  for name, name_runs in runs.items():
    if name != baseline:
      for run, base in zip(name_runs, runs[baseline]):
        run[ratio_key] = run[key] / base[key]


def summary(runs: Runs) -> Dict[str, Any]:
  """Medians per configuration (of every numeric figure, ratios included),
  then every run."""
  return {'median': {name: environment_speed.medians(name_runs)
                     for name, name_runs in runs.items()},
          'runs': runs}


def loop_speed(root: str, repeats: int, num_episodes: int, wide_envs: int,
               run: Runner = run_child) -> Dict[str, Any]:
  """The same REINFORCE training in the Python and the compiled loop."""
  common = dict(agent='reinforce', num_episodes=num_episodes,
                eval_episodes=100, **_TRAINING_ONLY)
  runs = measure(root, {
      'python': Measurement(dict(common, loop='python')),
      'compiled': Measurement(dict(common, loop='compiled')),
      f'compiled_{wide_envs}_envs': Measurement(dict(
          common, loop='compiled', num_envs=wide_envs,
          agent_config={'batch_size': wide_envs})),
  }, repeats, run)
  add_ratios(runs, 'python', 'steps_per_second', 'speedup_over_python')
  return {'episodes_per_run': num_episodes,
          'speedup_target': SPEEDUP_TARGET, **summary(runs)}


def seeds_in_one_program(root: str, repeats: int,
                         counts: Sequence[int] = (1, 8, 64, 256),
                         episodes: int = 3200,
                         run: Runner = run_child) -> Dict[str, Any]:
  """REINFORCE on Plane Strike, `counts` seeds in one compiled program."""
  runs = measure(root, {
      f'seeds_{n}': Measurement(dict(agent='reinforce', num_seeds=n,
                                     num_episodes=episodes, eval_episodes=100,
                                     **_TRAINING_ONLY))
      for n in counts}, repeats, run)
  if 1 in counts:
    add_ratios(runs, 'seeds_1', 'steps_per_second',
               'total_speed_vs_1_seed')
  return {'episodes_per_seed': episodes, **summary(runs)}


def _split(devices: int) -> Dict[str, int]:
  # One device is the default: left unset, as a user's run leaves it.
  return {} if devices == 1 else {'devices_per_seed': devices}


def devices(root: str, repeats: int, counts: Sequence[int] = (1, 2, 4),
            episodes: int = 6400, ppo_steps: int = 200_000,
            run: Runner = run_child) -> Dict[str, Any]:
  """One seed split over `counts` forced CPU devices: REINFORCE on Plane
  Strike for `episodes` games, and (unless `ppo_steps` is 0) PPO's Plane
  Strike preset for `ppo_steps` steps."""
  setups = {'reinforce': (
      'REINFORCE on Plane Strike, 16 environments (its batch), '
      f'{episodes} games', dict(agent='reinforce', num_episodes=episodes))}
  if ppo_steps:
    setups['ppo'] = (f'preset {DEVICES_PRESET} (64 environments), '
                     f'{ppo_steps} steps',
                     dict(preset=DEVICES_PRESET, num_steps=ppo_steps))
  measurements = {
      f'{agent}_devices_{d}': Measurement(dict(
          budget, eval_episodes=10, **_TRAINING_ONLY, **_split(d)), d)
      for agent, (_, budget) in setups.items() for d in counts}
  runs = measure(root, measurements, repeats, run)
  report = {'environment': 'XLA_FLAGS=--xla_force_host_platform_device_'
                           'count=D JAX_PLATFORMS=cpu, devices_per_seed=D'}
  for agent, (setting, _) in setups.items():
    part = {f'devices_{d}': runs[f'{agent}_devices_{d}'] for d in counts}
    if 1 in counts:
      add_ratios(part, 'devices_1', 'steps_per_second',
                 'speed_vs_1_device')
    report[agent] = {'setting': setting, **summary(part)}
  return report


# What --help shows (every flag in exactly one group:
# tests/experiments/cli/help_text_test.py).
FLAG_GROUPS = {'One measurement (a child of benchmarks.suites)': (
    'child', 'workdir')}


def _define_flags() -> None:
  # Defined only when run as a program: benchmarks.suites imports this.
  flags.DEFINE_string(
      'child', None, 'Settings of one run, as JSON: ExperimentConfig fields, '
      'plus "preset" (start from that preset) and "agent_config" (a mapping '
      'of agent settings). Trains once and prints its figures as one JSON '
      'line.')
  flags.DEFINE_string('workdir', None, 'Where the run goes (a new or empty '
                      'directory); default a temp dir.')


def main(argv):
  del argv
  library_logs.quiet()
  compilation_cache.enable('')  # Cold compiles, as `benchmarks.suites`.
  f = flags.FLAGS
  if f.child is None:
    raise app.UsageError('--child (the run\'s settings as JSON) is needed; '
                         'benchmarks.suites runs this module.')
  try:
    spec = json.loads(f.child)
  except ValueError as e:
    raise app.UsageError(f'--child is not JSON ({e}): {f.child}') from e
  if not isinstance(spec, dict):
    raise app.UsageError(f'--child must be a JSON object; got {f.child}')
  workdir = f.workdir or tempfile.mkdtemp(prefix='scaling-benchmark-')
  print(json.dumps(child(spec, workdir)), flush=True)


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
