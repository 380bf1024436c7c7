"""Tests for experiments/studies.py: a comparison's and a sweep's workdir
as objects, through `api.compare`, `api.sweep` and `api.load_study`."""

import matplotlib
import pytest

from experiments import api

matplotlib.use('Agg')
# A comparison and a sweep, trained (each fixture over 5 s cold).
pytestmark = pytest.mark.slow

_TINY = dict(seeds=2, eval_points=2, eval_episodes=5,
             periodic_eval_episodes=2, progress=False)


@pytest.fixture(scope='module')
def comparison(tmp_path_factory):
  workdir = str(tmp_path_factory.mktemp('study') / 'compare')
  return api.compare(workdir, agents=['reinforce', 'a2c'], envs=['catch'],
                     num_steps={'catch': 2_000}, **_TINY)


@pytest.fixture(scope='module')
def sweep(tmp_path_factory):
  workdir = str(tmp_path_factory.mktemp('study') / 'sweep')
  return api.sweep(workdir, agent='reinforce', env='catch',
                   grid={'learning_rate': [1e-3, 3e-3]}, num_steps=2_000,
                   held_out_seeds=1, **_TINY)


def test_a_comparison_is_its_report_runs_and_curves(comparison):
  assert comparison.kind == 'comparison'
  assert comparison.report['complete']
  opened = api.load_study(comparison.workdir)
  assert opened.report['aggregate'] == comparison.report['aggregate']
  assert sorted(r.config.agent for r in opened.runs) == ['a2c', 'reinforce']
  curves = opened.curves.eval
  assert {'agent', 'env', 'seed', 'mean_return'} <= set(curves.columns)
  assert sorted(curves['agent'].unique()) == ['a2c', 'reinforce']
  assert sorted(curves['seed'].unique()) == [0, 1]
  ax = opened.plot()
  assert sorted(line.get_label() for line in ax.get_lines()) == [
      'agent a2c', 'agent reinforce']
  assert 'a comparison of 2 program(s), finished' in repr(opened)


def test_a_sweep_labels_each_configuration_and_its_held_out_seeds(sweep):
  assert sweep.kind == 'sweep' and sweep.finished
  best = sweep.report['configurations'][0]
  assert best['rank'] == 1
  curves = sweep.curves.eval
  assert sorted(curves['learning_rate'].unique()) == [1e-3, 3e-3]
  held_out = curves[curves['held_out']]
  assert sorted(held_out['seed'].unique()) == [2]  # After seeds 0 and 1.
  assert set(held_out['configuration']) == {best['configuration']}
  ax = sweep.plot()
  rate = best['values']['learning_rate']
  assert sorted(line.get_label() for line in ax.get_lines()) == sorted([
      'learning_rate 0.001', 'learning_rate 0.003',
      f'learning_rate {rate:g} (held-out seeds)'])


def test_bad_input_is_named(comparison, tmp_path):
  for call, message in (
      (lambda: api.load_study(str(tmp_path)),
       r'holds no comparison \(comparison.json\) and no sweep'),
      (lambda: comparison.plot(env='cartpole'),
       r"env='cartpole' is not one of this comparison's: catch"),
      (lambda: comparison.plot(y='score'),
       r"y='score' is not a column of eval.csv; its columns: step"),
      (lambda: comparison.plot(env='catch', logs='train', y='x'),
       r"y='x' is not a column of train.csv"),
      (lambda: comparison.plot(logs='test'), r"logs must be 'eval'"),
  ):
    with pytest.raises(api.UsageError, match=message):
      call()
