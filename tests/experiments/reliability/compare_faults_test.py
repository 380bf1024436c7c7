"""Comparison faults through the command line: `compare` counts a run only when
its files check out, repairs or retrains the others, and its report never
drops a seed without saying so."""

import csv
import json
import os
import resource
import shutil
import subprocess
import sys

import pytest

from tests import unrendered_figures

pytestmark = pytest.mark.slow  # Whole commands; see docs/testing.md.

_FLAGS = ('--agents=ppo', '--envs=catch', '--seeds=2', '--num_steps=8000',
          '--eval_points=4', '--eval_episodes=20',
          '--periodic_eval_episodes=10', '--bootstrap_reps=200',
          '--progress=false')
_SEED_1 = os.path.join('runs', 'catch', 'ppo', 'seed_1')


@pytest.fixture(scope='module', name='compared')
def compared_fixture(cli, tmp_path_factory):
  """A finished comparison (read-only: tests copy it)."""
  workdir = str(tmp_path_factory.mktemp('compared') / 'comparison')
  with unrendered_figures.unrendered():
    done = cli.run('compare', *_FLAGS, f'--workdir={workdir}')
  assert done.returncode == 0, done.stderr
  return workdir


def _rerun(cli, compared, tmp_path, damage):
  """Copies the comparison, damages it, reruns compare; (run, workdir)."""
  workdir = str(tmp_path / 'comparison')
  shutil.copytree(compared, workdir)
  damage(os.path.join(workdir, _SEED_1))
  with unrendered_figures.unrendered():
    done = cli.run('compare', *_FLAGS, f'--workdir={workdir}')
  assert done.returncode == 0, done.stderr
  return done, workdir


def _same_results(cli, compared, workdir):
  for seed in (0, 1):
    directory = os.path.join('runs', 'catch', 'ppo', f'seed_{seed}')
    expected = cli.strict_json(os.path.join(compared, directory,
                                            'result.json'))
    got = cli.strict_json(os.path.join(workdir, directory, 'result.json'))
    assert cli.metrics(got) == cli.metrics(expected)
    assert _curve(os.path.join(workdir, directory)) == _curve(
        os.path.join(compared, directory))


def _curve(directory):
  """eval.csv's rows without their wall times."""
  with open(os.path.join(directory, 'eval.csv'), newline='') as f:
    return [{k: v for k, v in row.items() if k != 'wall_seconds'}
            for row in csv.DictReader(f)]


def _damage_both(damage_0, damage_1):
  def damage(directory):
    damage_1(directory)
    damage_0(os.path.join(os.path.dirname(directory), 'seed_0'))
  return damage


def _write(name, text):
  def damage(directory):
    with open(os.path.join(directory, name), 'w') as f:
      f.write(text)
  return damage


def test_unreadable_or_incomplete_results_are_repaired_by_resuming(
    cli, compared, tmp_path):
  done, workdir = _rerun(cli, compared, tmp_path, _damage_both(
      _write('result.json', '{"agent": "pp'), _write('result.json', '{}')))
  assert 'finished already; training 1' in done.stdout
  _same_results(cli, compared, workdir)
  assert not [n for n in os.listdir(os.path.join(workdir, 'runs', 'catch'))
              if 'damaged' in n]  # Resumed, not retrained.


def test_damaged_curves_are_retrained_afresh(cli, compared, tmp_path):

  def truncate(directory):
    path = os.path.join(directory, 'eval.csv')
    with open(path) as f:
      lines = f.readlines()
    with open(path, 'w') as f:
      f.writelines(lines[:-2])  # Whole rows gone: parses, but short.

  done, workdir = _rerun(cli, compared, tmp_path, _damage_both(
      truncate, lambda d: os.remove(os.path.join(d, 'eval.csv'))))
  assert 'finished already; training 1' in done.stdout
  assert 'training it afresh' in done.stderr
  _same_results(cli, compared, workdir)
  assert [n for n in os.listdir(os.path.join(workdir, 'runs', 'catch'))
          if n.startswith('ppo.damaged-')]


def test_report_lists_an_unfinished_seed_and_says_it_is_incomplete(
    cli, compared, tmp_path):
  workdir = str(tmp_path / 'comparison')
  shutil.copytree(compared, workdir)
  os.remove(os.path.join(workdir, _SEED_1, 'result.json'))
  done = cli.run('report', f'--workdir={workdir}', '--bootstrap_reps=200')
  assert done.returncode == 0, done.stderr
  with open(os.path.join(workdir, 'report.json')) as f:
    report = json.load(f)
  assert not report['complete']
  assert [(r['seed'], r['state']) for r in report['left_out_runs']] == [
      (1, 'unfinished')]
  assert report['envs']['catch']['agents']['ppo']['seeds'] == [0]
  with open(os.path.join(workdir, 'report.md')) as f:
    text = f.read()
  assert '**Incomplete report:** 1 of 2 runs' in text
  assert 'PPO on Catch, seed 1: **unfinished**: no result.json yet' in text


def test_a_report_that_cannot_be_written_is_one_line(cli, compared,
                                                     tmp_path):
  """A full disk, as a file size limit (writes past it fail with EFBIG):
  the report command says so in one line, its earlier files intact."""
  workdir = str(tmp_path / 'comparison')
  shutil.copytree(compared, workdir)
  with open(os.path.join(workdir, 'report.md'), 'rb') as f:
    before = f.read()
  done = subprocess.run(
      [sys.executable, '-m', 'experiments.report', f'--workdir={workdir}',
       '--bootstrap_reps=200'], cwd=cli.REPO, capture_output=True, text=True,
      timeout=600, check=False, preexec_fn=lambda: resource.setrlimit(
          resource.RLIMIT_FSIZE, (4096, 4096)))
  assert done.returncode == 1, done.stderr
  lines = done.stderr.strip().splitlines()
  assert 'Traceback' not in done.stderr, done.stderr
  assert lines[-1].startswith('FATAL '), done.stderr
  assert 'report files written before are intact' in lines[-1]
  with open(os.path.join(workdir, 'report.md'), 'rb') as f:
    assert f.read() == before
