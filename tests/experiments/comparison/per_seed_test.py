"""Tests for experiments/comparison/per_seed.py."""

import numpy as np

from experiments.comparison import per_seed

_EVALS = np.zeros((2, 0))


def _result(score, steps=1000, wall=12.0, num_seeds=2):
  return {'eval_mean_return': score, 'eval_mean_episode_length': 20.0,
          'env_steps': steps, 'wall_seconds': wall, 'num_seeds': num_seeds}


def test_rows_of_finished_and_left_out_runs():
  runs = {'catch': {'ppo': {1: (_result(0.5), _EVALS),
                            0: (_result(1.0, 1024), _EVALS),
                            2: (None, _EVALS)}},
          'bsuite:catch/0': {'ppo': {0: (_result(0.3, wall=3.0,
                                                 num_seeds=1), _EVALS)}}}
  left_out = [{'env': 'catch', 'agent': 'ppo', 'seed': 2,
               'state': 'diverged', 'reason': 'loss = nan'}]
  efficiency = {'catch': {'agents': {'ppo': {'per_seed': [
      {'seed': 0, 'auc': 0.75, 'steps_to_threshold': 512},
      {'seed': 1, 'auc': 0.25, 'steps_to_threshold': None}]}}}}
  rows = per_seed.rows(runs, left_out, efficiency)
  assert [(r['env'], r['seed'], r['status']) for r in rows] == [
      ('catch', 0, 'finished'), ('catch', 1, 'finished'),
      ('catch', 2, 'diverged'), ('bsuite:catch/0', 0, 'finished')]
  assert rows[0] == {
      'env': 'catch', 'agent': 'ppo', 'seed': 0, 'status': 'finished',
      'reason': '', 'score': 1.0, 'normalised': 1.0, 'env_steps': 1024,
      'wall_seconds': 12.0, 'seeds_in_program': 2, 'auc': 0.75,
      'steps_to_threshold': 512}
  assert rows[1]['normalised'] == 0.75  # (0.5 + 1) / 2.
  assert rows[1]['steps_to_threshold'] is None
  assert rows[2]['reason'] == 'loss = nan'
  assert rows[2]['score'] is None and rows[2]['env_steps'] is None
  assert rows[3]['normalised'] is None  # No reference score.
  assert rows[3]['score'] == 0.3 and rows[3]['seeds_in_program'] == 1
  assert rows[3]['auc'] is None


def test_plane_strike_scores_strikes():
  runs = {'plane_strike': {'dqn': {0: ({**_result(0.0),
                                        'eval_mean_episode_length': 11.93},
                                       _EVALS)}}}
  (row,) = per_seed.rows(runs, [], {})
  assert row['score'] == 11.93
  assert abs(row['normalised'] - 1.0) < 1e-12
