"""Scale through the command line: counts past 2^31 stay
right, and a thousand seeds run under a thousand open files."""

import csv
import os
import resource
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.

_BIG = 2**31 - 5_000  # Just below where 32-bit counters wrap.


def test_a_run_crossing_2_to_the_31_keeps_counts_budgets_and_logs(
    cli, tmp_path):
  workdir = str(tmp_path / 'run')
  flags = (*cli.FAST, f'--workdir={workdir}')
  done = cli.run('train', *flags, '--num_steps=16000')
  assert done.returncode == 0, done.stderr
  with open(os.path.join(workdir, 'train.csv')) as f:
    early_rows = list(csv.DictReader(f))
  # A two-word counter (experiments/loops/wide_counters.py): [high, low].
  big = np.array([divmod(_BIG, 2**30)], np.int32)
  cli.rewrite_checkpoint(workdir, lambda state: state._replace(
      counters=state.counters._replace(env_steps=big)), _BIG)
  budget = 2**31 + 20_000
  done = cli.run('train', *flags, f'--num_steps={budget}')
  assert done.returncode == 0, done.stderr
  result = cli.strict_json(os.path.join(workdir, 'result.json'))
  assert budget <= result['env_steps'] < budget + 16_384  # One chunk more.
  with open(os.path.join(workdir, 'train.csv')) as f:
    rows = list(csv.DictReader(f))
  kept = [{k: r[k] for k in early_rows[0]} for r in rows[:len(early_rows)]]
  assert kept == early_rows  # Kept across the resume.
  steps = [int(r['step']) for r in rows]
  assert steps == sorted(steps) and steps[-1] == result['env_steps'] > 2**31
  assert all(int(r['progress/episodes']) >= 0 and
             int(r['progress/updates']) >= 0 for r in rows)


def test_budgets_beyond_the_counters_are_refused_before_compiling(
    cli, tmp_path):
  workdir = tmp_path / 'run'
  done = cli.run('train', *cli.FAST, f'--num_steps={2**61}',
                 f'--workdir={workdir}')
  assert done.returncode == 1
  assert 'num_steps must be at most 2^60' in done.stderr
  assert not workdir.exists()


# As many seeds as the process may hold open files: a file held open per
# seed (a log, an event writer) runs out of descriptors.
_SEEDS = _OPEN_FILES = 128


def _limit_open_files():
  resource.setrlimit(resource.RLIMIT_NOFILE, (_OPEN_FILES, _OPEN_FILES))


@pytest.mark.slow
def test_as_many_seeds_as_open_files_run(cli, tmp_path):
  workdir = str(tmp_path / 'run')
  done = subprocess.run(
      [sys.executable, '-m', 'experiments.train', *cli.FAST,
       f'--num_seeds={_SEEDS}', '--num_steps=3000', '--eval_episodes=5',
       f'--workdir={workdir}'],
      cwd=cli.REPO, capture_output=True, text=True, timeout=600,
      preexec_fn=_limit_open_files, check=False)
  assert done.returncode == 0, done.stderr[-3000:]
  for seed in (0, _SEEDS // 2 - 1, _SEEDS - 1):
    result = cli.strict_json(os.path.join(workdir, f'seed_{seed}',
                                          'result.json'))
    assert result['status'] == 'finished' and result['seed'] == seed
