"""Tests for experiments/driver/saved_run.py: a run's workdir as an object,
through `api.train` and `api.load_run`."""

import json
import os
import shutil

import matplotlib
import numpy as np
import pandas as pd
import pytest

from experiments import api

matplotlib.use('Agg')

_TWO_SEEDS = dict(agent='reinforce', env='catch', num_episodes=64,
                  batch_size=8, eval_episodes=5, periodic_eval_episodes=2,
                  num_seeds=2, export_tflite=False)

pytestmark = pytest.mark.slow  # Trains a run (docs/testing.md).


@pytest.fixture(scope='module')
def trained(tmp_path_factory):
  """(workdir, the Run `api.train` returned) of a tiny two-seed run."""
  workdir = str(tmp_path_factory.mktemp('runs') / 'two_seeds')
  return workdir, api.train(workdir=workdir, progress=False, announce=False,
                            **_TWO_SEEDS)


def test_train_returns_the_run_load_run_opens(trained):
  workdir, run = trained
  opened = api.load_run(workdir)
  assert opened.config == run.config
  assert opened.result == run.result
  assert opened.finished and run.finished
  assert [r['seed'] for r in opened.lane_results] == [0, 1]
  assert opened.checkpoints and all(isinstance(s, int)
                                    for s in opened.checkpoints)
  assert opened.model_paths == []  # Export was off.
  assert opened.status == 'finished'
  assert 'reinforce on catch, 2 lane(s), finished' in repr(opened)


def test_curves_are_each_seed_s_logs(trained):
  workdir, run = trained
  curves = run.curves
  for logs in ('train', 'eval'):
    frame = getattr(curves, logs)
    assert frame.index.name == 'step'
    assert sorted(frame['seed'].unique()) == [0, 1]
    for seed in (0, 1):
      saved = pd.read_csv(os.path.join(workdir, f'seed_{seed}',
                                       f'{logs}.csv'))
      rows = frame[frame['seed'] == seed]
      np.testing.assert_array_equal(rows.index, saved['step'])
  assert 'mean_return' in curves.eval.columns


def test_curves_plot_a_line_per_seed(trained):
  _, run = trained
  ax = run.curves.plot()
  assert len(ax.get_lines()) == 2
  assert ax.get_xlabel() == 'step' and ax.get_ylabel() == 'mean_return'
  ax = run.curves.plot(y='train/episode_return', x='perf/wall_seconds',
                       logs='train')
  assert len(ax.get_lines()) == 2
  assert ax.get_xlabel() == 'perf/wall_seconds'
  with pytest.raises(api.UsageError, match=r"y='return' is not a column of "
                     r'eval.csv; its columns: step, mean_return'):
    run.curves.plot(y='return')


def _copy(workdir, copy):
  shutil.copytree(workdir, copy, ignore=shutil.ignore_patterns('.lock'))
  return copy


def test_a_run_not_finished_or_diverged_says_so(trained, tmp_path):
  workdir, _ = trained
  copy = _copy(workdir, str(tmp_path / 'training'))
  for lane in ('', 'seed_0', 'seed_1'):  # As while it trains.
    os.remove(os.path.join(copy, lane, 'result.json'))
  run = api.load_run(copy)
  assert run.status == 'not finished' and not run.finished
  assert run.result is None and run.lane_results == [None, None]
  assert 'not finished' in repr(run)
  copy = _copy(workdir, str(tmp_path / 'diverged'))
  path = os.path.join(copy, 'seed_1', 'result.json')
  with open(path) as f:
    result = json.load(f)
  with open(path, 'w') as f:
    json.dump(dict(result, status='diverged'), f)
  assert api.load_run(copy).status == 'diverged'


def test_curves_of_a_run_not_yet_evaluated_say_so(trained, tmp_path):
  workdir, _ = trained
  copy = _copy(workdir, str(tmp_path / 'early'))
  for seed in (0, 1):
    path = os.path.join(copy, f'seed_{seed}', 'eval.csv')
    with open(path) as f:
      header = f.readline()
    with open(path, 'w') as f:
      f.write(header)
  run = api.load_run(copy)
  assert run.curves.eval.empty
  with pytest.raises(api.UsageError, match=r"eval.csv has no rows yet .*"
                     r"logs='train'"):
    run.curves.plot()


def test_a_run_s_policy_and_its_episodes(trained):
  _, run = trained
  played = api.evaluate(run, episodes=6, seed=2)
  assert played.returns.shape == (6,)
  second_seed = api.evaluate(run.policy(seed=1), episodes=6, seed=2)
  assert second_seed.lengths.shape == (6,)
  again = api.evaluate(run.workdir, episodes=6, seed=2)
  np.testing.assert_array_equal(again.returns, played.returns)


def test_bad_input_is_named(trained, tmp_path):
  _, run = trained
  for call, message in (
      (lambda: api.load_run(str(tmp_path / 'none')),
       r'--workdir: No config.json'),
      (lambda: api.evaluate(3), r'policy must be a Policy .*got int'),
      (lambda: api.evaluate(run, env='Catch'), r'Catch.*catch'),
      (lambda: api.evaluate(run, episodes=-1),
       r'episodes must be a positive integer'),
      (lambda: api.evaluate(run, protocol='random'),
       r'protocol must be one of'),
      (lambda: run.policy(seed=7), r'--seed'),
      (lambda: run.curves.plot(logs='test'), r"logs must be 'eval'"),
  ):
    with pytest.raises(api.UsageError, match=message):
      call()
