"""Tests for experiments/comparison/report_sections.py, on fabricated runs."""

import os

import numpy as np
import pytest

from experiments.comparison import report_sections

REPS = 100


def _result(seed, score, seconds=20.0):
  return {'seed': seed, 'eval_mean_return': score, 'env_steps': 400,
          'wall_seconds': seconds, 'num_seeds': 2,
          'provenance': {'device_seconds': seconds, 'num_devices': 1,
                         'sessions': [{'python': '3.11.7'}],
                         'differing_between_sessions': []}}


def _runs():
  steps = [100.0, 200.0, 300.0, 400.0]
  return {'catch': {
      'ppo': {0: (_result(0, 1.0), np.array([steps, [-1, 0, 1, 1]])),
              1: (_result(1, 0.0), np.array([steps, [-1, -1, 0, 0]]))},
      'dqn': {0: (None, np.zeros((2, 0)))}}}


def test_from_runs():
  left_out = [{'env': 'catch', 'agent': 'dqn', 'seed': 0,
               'state': 'unfinished', 'reason': 'no result.json yet'}]
  sections = report_sections.from_runs(_runs(), left_out, REPS)
  efficiency = sections['sample_efficiency']
  assert efficiency['threshold'] == 0.9
  assert efficiency['fractions'] == ['25%', '50%', '75%', '100%']
  assert set(efficiency['definitions']) == {'auc', 'score_at',
                                            'steps_to_threshold'}
  ppo = efficiency['envs']['catch']['agents']['ppo']
  # Normalised: seed 0 is 0, .5, 1, 1 (AUC 2/3), seed 1 0, 0, .5, .5 (1/4).
  assert ppo['auc']['point'] == pytest.approx((2 / 3 + 1 / 4) / 2)
  assert ppo['steps_to_threshold'] == {'reached': 1, 'seeds': 2,
                                       'mean': None}
  assert 'dqn' not in efficiency['envs']['catch']['agents']
  assert [(r['agent'], r['seed'], r['status'], r['normalised'], r['auc'])
          for r in sections['per_seed']] == [
              ('ppo', 0, 'finished', 1.0, pytest.approx(2 / 3)),
              ('ppo', 1, 'finished', 0.5, pytest.approx(1 / 4)),
              ('dqn', 0, 'unfinished', None, None)]
  provenance = sections['provenance']
  assert provenance['device_seconds'] == 20.0  # One program of two seeds.
  assert provenance['runs'] == 2
  assert provenance['values']['python'] == ['3.11.7']
  assert provenance['values']['cpu'] == [None]  # Not in these records.


def test_finish_and_write_tables(tmp_path):
  sections = report_sections.from_runs(_runs(), [], REPS)
  report = {
      'settings': {'agents': ['ppo', 'dqn'], 'envs': ['catch']},
      'run_settings': {},
      'envs': {'catch': {'label': 'return', 'reference': {
          'low': -1.0, 'high': 1.0, 'source': 's'}, 'agents': {'ppo': {
              'seeds': [0, 1], 'score': {'point': 0.5, 'low': 0.0,
                                         'high': 1.0},
              'mean_env_steps': 400.0, 'wall_seconds': 20.0}}}},
      'aggregate': {'agents': {}, 'probability_of_improvement': []},
      **sections}
  report_sections.finish(report)
  assert report['few_seeds'] == [{'env': 'catch', 'agent': 'ppo',
                                  'seeds': 2}]
  assert report['tables'] == [
      'tables/per_env.csv', 'tables/per_env.tex',
      'tables/sample_efficiency.csv', 'tables/sample_efficiency.tex',
      'tables/per_seed.csv', 'tables/per_seed.tex']
  report_sections.write_tables(report, str(tmp_path))
  assert sorted(os.listdir(tmp_path / 'tables')) == sorted(
      os.path.basename(n) for n in report['tables'])
  with open(tmp_path / 'tables' / 'per_seed.csv') as f:
    assert f.read().splitlines()[1] == (
        'Catch,PPO,0,1.0,1.0,0.6666666666666666,300,400,20.0,2,finished')
