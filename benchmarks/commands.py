"""End-to-end timing of a user's command, as a person at a terminal runs it.

`startup` times what every command pays before it does anything: each entry
point's `--helpshort`, and a `train` command up to the moment its training
program starts to compile and until it is compiled, against importing the
libraries alone (`import jax, haiku, optax, rlax`, with and without TFP
loading TensorFlow). Fresh processes, entry points taken in turn each round.

`train_command` times `python -m experiments.train --agent=ppo --env=cartpole
--num_steps=500000` with its defaults (final evaluation and a verified TFLite
export included) against the same command with nothing after training
(`--noexport_tflite --eval_episodes=1`): start-up plus training. Each run is
a fresh process; the two alternate, so that the machine's noise falls on
both, and each run's peak memory is its own (`os.wait4`).

`compilation_cache` times what the persistent compilation cache saves: a
small `train` command with an empty cache folder, then the same command,
another seed and another learning rate, each a fresh process.

`time_account` reads where 500k-step commands' time goes, part by part
(`result.json`'s `time_account`), beside the whole command's seconds.

Every command here runs without the cache unless it names a folder: the
suites turn it off (`benchmarks.suites`), so compile times are cold.
"""

import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRAIN_COMMAND = {'agent': 'ppo', 'env': 'cartpole', 'num_steps': 500_000}
BARE = {'export_tflite': False, 'eval_episodes': 1}
ENTRY_POINTS = ('train', 'compare', 'sweep', 'report', 'export_tflite', 'play')
# What a training command cannot start without. `agents` first loads distrax
# without TensorFlow, as every entry point does; plain, TFP loads it.
IMPORTS = 'import jax, haiku, optax, rlax'
LEAN_IMPORTS = 'import agents, jax, haiku, optax, rlax'
STARTUP_TRAIN = {'agent': 'ppo', 'env': 'cartpole', 'num_steps': 2048,
                 'export_tflite': False, 'eval_episodes': 1}
# Lines `experiments.train` prints (stderr) as its program compiles.
_COMPILING = 'Compiling the training program'
_COMPILED = 'Compiled in'


def timed_command(args: Sequence[str]) -> Dict[str, Any]:
  """Wall seconds and peak memory of one `python -m experiments.train`."""
  start = time.perf_counter()
  process = subprocess.Popen(
      [sys.executable, '-m', 'experiments.train', '--noprogress', *args],
      cwd=_REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
  stderr = process.stderr.read()
  _, status, usage = os.wait4(process.pid, 0)
  seconds = time.perf_counter() - start
  process.returncode = os.waitstatus_to_exitcode(status)
  if process.returncode != 0:
    raise RuntimeError(f'{" ".join(args)} failed '
                       f'({process.returncode}): {stderr.decode()[-2000:]}')
  return {'seconds': seconds, 'peak_memory_mib': usage.ru_maxrss / 1024}


def train_command(root: str, repeats: int,
                  record: Callable[[Dict[str, Any]], None]) -> Dict[str, Any]:
  """The CartPole command with its defaults vs start-up plus training;
  `record` gets the command's settings."""
  full: List[Dict[str, Any]] = []
  bare: List[Dict[str, Any]] = []
  for i in range(repeats):
    workdir = os.path.join(root, f'train_command_{i}')
    full.append(timed_command(_flags(TRAIN_COMMAND) +
                              [f'--workdir={workdir}']))
    bare.append(timed_command(_flags({**TRAIN_COMMAND, **BARE}) +
                              [f'--workdir={workdir}_bare']))
  record(TRAIN_COMMAND)
  with open(os.path.join(root, 'train_command_0', 'result.json')) as f:
    result = json.load(f)

  def median(runs, key):
    return statistics.median(r[key] for r in runs)

  return {
      'command': 'python -m experiments.train ' + ' '.join(
          _flags(TRAIN_COMMAND)),
      'bare_flags': ' '.join(_flags(BARE)),
      'seconds': [r['seconds'] for r in full],
      'bare_seconds': [r['seconds'] for r in bare],
      'median_seconds': median(full, 'seconds'),
      'median_bare_seconds': median(bare, 'seconds'),
      'ratio_of_medians': median(full, 'seconds') / median(bare, 'seconds'),
      'median_pairwise_ratio': statistics.median(
          f['seconds'] / b['seconds'] for f, b in zip(full, bare)),
      'median_peak_memory_mib': median(full, 'peak_memory_mib'),
      'median_bare_peak_memory_mib': median(bare, 'peak_memory_mib'),
      # What the defaults did after training (run 0).
      'training_seconds': result['wall_seconds'],
      'eval_episodes': result['eval_episodes'],
      'eval_mean_return': result['eval_mean_return'],
      'export_check': {k: result['tflite'][k] for k in (
          'games', 'observations_checked', 'max_abs_diff', 'tolerance')},
  }


def _seconds_until(args: Sequence[str],
                   lines: Sequence[str] = ()) -> Dict[str, Optional[float]]:
  """Wall seconds of a fresh `python <args>` and until each of `lines` first
  starts a line of its stderr (None: never printed)."""
  start = time.perf_counter()
  process = subprocess.Popen([sys.executable, *args], cwd=_REPO,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             env=dict(os.environ, PYTHONPATH=_REPO), text=True)
  seen: Dict[str, Optional[float]] = {line: None for line in lines}
  tail = []
  for text in process.stderr:
    tail = (tail + [text])[-20:]
    for line in lines:
      if seen[line] is None and text.startswith(line):
        seen[line] = time.perf_counter() - start
  if process.wait() != 0:
    raise RuntimeError(f'python {" ".join(args)} failed '
                       f'({process.returncode}): {"".join(tail)}')
  return {'seconds': time.perf_counter() - start, **seen}


def startup(root: str, repeats: int,
            record_run: Callable[[Dict[str, Any]], None]) -> Dict[str, Any]:
  """`--helpshort` of every entry point and a train command's way to its
  first compiled step, against the libraries' imports; medians.
  `record_run` gets the train command's settings."""
  runs: Dict[str, List[float]] = {}

  def record(name: str, seconds: Optional[float]) -> None:
    if seconds is None:
      raise RuntimeError(f'{name}: the expected line was never printed.')
    runs.setdefault(name, []).append(seconds)

  for i in range(repeats):
    record(IMPORTS, _seconds_until(['-c', IMPORTS])['seconds'])
    record(LEAN_IMPORTS, _seconds_until(['-c', LEAN_IMPORTS])['seconds'])
    for name in ENTRY_POINTS:
      record(f'{name} --helpshort', _seconds_until(
          ['-m', f'experiments.{name}', '--helpshort'])['seconds'])
    train = _seconds_until(
        ['-m', 'experiments.train', '--noprogress', *_flags(STARTUP_TRAIN),
         f'--workdir={os.path.join(root, f"startup_{i}")}'],
        (_COMPILING, _COMPILED))
    record('train: to compile start', train[_COMPILING])
    record('train: compiled', train[_COMPILED])
    record('train: whole command', train['seconds'])
  record_run(STARTUP_TRAIN)
  medians = {name: statistics.median(s) for name, s in runs.items()}
  helps = {n: medians[f'{n} --helpshort'] for n in ENTRY_POINTS}
  return {
      'train_command': 'python -m experiments.train ' + ' '.join(
          _flags(STARTUP_TRAIN)),
      'seconds': runs,
      'median_seconds': medians,
      'slowest_helpshort': max(helps, key=helps.get),
      'max_median_helpshort_seconds': max(helps.values()),
      # Everything the framework does before XLA starts compiling (flags,
      # registries, workdir, environment and agent set-up), beyond what
      # importing the libraries costs.
      'train_setup_over_imports_seconds': (
          medians['train: to compile start'] - medians[LEAN_IMPORTS]),
  }


# The compilation cache suite's commands, as `api.train` keywords (their
# flags are made from them): small runs of the agents' families, on a
# classic game, a MinAtar game (a convolution) and Plane Strike.
CACHE_COMMANDS = {
    'ppo_catch': {'agent': 'ppo', 'env': 'catch'},
    'ppo_gymnax_cartpole': {'agent': 'ppo', 'env': 'gymnax:CartPole-v1'},
    'dqn_catch': {'agent': 'dqn', 'env': 'catch'},
    'ppo_breakout_minatar': {'agent': 'ppo',
                             'env': 'gymnax:Breakout-MinAtar'},
    'ppo_plane_strike': {'agent': 'ppo', 'env': 'plane_strike'},
}
CACHE_SETTINGS = {'num_steps': 20_000, 'eval_episodes': 10,
                  'export_tflite': False}
# Each command again after its first run: the same, another seed, another
# learning rate (one no preset uses).
CACHE_RERUNS = {'same command': {}, 'another seed': {'seed': 1},
                'another learning rate': {'learning_rate': 1.2345e-4}}


def _flags(settings: Dict[str, Any]) -> List[str]:
  return [f'--{k}={v}' if not isinstance(v, bool) else
          f'--{"" if v else "no"}{k}' for k, v in settings.items()]


def compilation_cache(root: str, repeats: int,
                      record: Callable[[Dict[str, Any]], None]
                     ) -> Dict[str, Any]:
  """Each of `CACHE_COMMANDS` run with an empty cache folder, then again
  (`CACHE_RERUNS`), `repeats` times each with a folder of its own: the
  `compile_seconds` of each run's `result.json` and the command's wall
  seconds (fresh processes). `record` is called with each command's
  settings."""
  out: Dict[str, Any] = {'settings': dict(CACHE_SETTINGS), 'commands': {}}
  for name, command in CACHE_COMMANDS.items():
    settings = {**command, **CACHE_SETTINGS}
    record(settings)
    runs: Dict[str, List[Dict[str, float]]] = {}
    for i in range(repeats):
      cache = os.path.join(root, f'cache_{name}_{i}')
      for j, (what, change) in enumerate(
          [('first run', {})] + list(CACHE_RERUNS.items())):
        workdir = os.path.join(root, f'cache_{name}_{i}_{j}')
        timed = timed_command(_flags({**settings, **change}) + [
            f'--workdir={workdir}', f'--compilation_cache_dir={cache}'])
        with open(os.path.join(workdir, 'result.json')) as f:
          compile_seconds = json.load(f)['compile_seconds']
        runs.setdefault(what, []).append(
            {'compile_seconds': compile_seconds,
             'command_seconds': timed['seconds']})
    medians = {what: {key: statistics.median(r[key] for r in rs)
                      for key in ('compile_seconds', 'command_seconds')}
               for what, rs in runs.items()}
    first = medians['first run']['compile_seconds']
    out['commands'][name] = {
        'flags': ' '.join(_flags(settings)),
        'runs': runs,
        'medians': medians,
        'compile_share_of_first': {
            what: m['compile_seconds'] / first
            for what, m in medians.items() if what != 'first run'},
    }
  return out


# The short runs whose time `time_account` breaks down: PPO's 500k-step
# runs on CartPole (ours and gymnax's) and gymnax Acrobot, with every
# default (presets, final evaluation, export and its check).
ACCOUNT_COMMANDS = {
    'cartpole': {'agent': 'ppo', 'env': 'cartpole', 'num_steps': 500_000},
    'gymnax_cartpole': {'agent': 'ppo', 'env': 'gymnax:CartPole-v1',
                        'num_steps': 500_000},
    'gymnax_acrobot': {'agent': 'ppo', 'env': 'gymnax:Acrobot-v1',
                       'num_steps': 500_000},
}


def time_account(root: str, repeats: int,
                 record: Callable[[Dict[str, Any]], None]) -> Dict[str, Any]:
  """Each of `ACCOUNT_COMMANDS`, `repeats` times in fresh processes taken
  in turn: the command's wall seconds, its `result.json` `time_account`
  (medians per part) and each part's share of the command; 'start-up' is
  the rest (Python, imports, flags). `record` gets each command's
  settings."""
  runs: Dict[str, List[Dict[str, float]]] = {name: []
                                              for name in ACCOUNT_COMMANDS}
  for i in range(repeats):
    for name, settings in ACCOUNT_COMMANDS.items():
      workdir = os.path.join(root, f'account_{name}_{i}')
      timed = timed_command(_flags(settings) + [f'--workdir={workdir}'])
      with open(os.path.join(workdir, 'result.json')) as f:
        parts = json.load(f)['time_account']
      runs[name].append({'command': timed['seconds'], **parts,
                         'start-up': timed['seconds'] - sum(parts.values())})
  out: Dict[str, Any] = {'commands': {}}
  for name, settings in ACCOUNT_COMMANDS.items():
    record(settings)
    medians = {part: statistics.median(r[part] for r in runs[name])
               for part in runs[name][0]}
    out['commands'][name] = {
        'flags': ' '.join(_flags(settings)), 'runs': runs[name],
        'medians': medians,
        'shares': {part: seconds / medians['command']
                   for part, seconds in medians.items()
                   if part != 'command'}}
  return out
