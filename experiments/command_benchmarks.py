"""End-to-end timing of a user's command, as a person at a terminal runs it.

`train_command` times `python -m experiments.train --agent=ppo --env=cartpole
--num_steps=500000` with its defaults (final evaluation and a verified TFLite
export included) against the same command with nothing after training
(`--noexport_tflite --eval_episodes=1`): start-up plus training. Each run is
a fresh process; the two alternate, so that the machine's noise falls on
both, and each run's peak memory is its own (`os.wait4`).
"""

import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any, Dict, List, Sequence

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRAIN_COMMAND = ('--agent=ppo', '--env=cartpole', '--num_steps=500000')
BARE = ('--noexport_tflite', '--eval_episodes=1')


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


def train_command(root: str, repeats: int) -> Dict[str, Any]:
  """The CartPole command with its defaults vs start-up plus training."""
  full: List[Dict[str, Any]] = []
  bare: List[Dict[str, Any]] = []
  for i in range(repeats):
    workdir = os.path.join(root, f'train_command_{i}')
    full.append(timed_command(TRAIN_COMMAND + (f'--workdir={workdir}',)))
    bare.append(timed_command(TRAIN_COMMAND + BARE +
                              (f'--workdir={workdir}_bare',)))
  with open(os.path.join(root, 'train_command_0', 'result.json')) as f:
    result = json.load(f)

  def median(runs, key):
    return statistics.median(r[key] for r in runs)

  return {
      'command': 'python -m experiments.train ' + ' '.join(TRAIN_COMMAND),
      'bare_flags': ' '.join(BARE),
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
