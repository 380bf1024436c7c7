"""Tests for experiments/comparison/sample_efficiency.py."""

import numpy as np
import pytest

from environments import reference_scores
from experiments.comparison import sample_efficiency

REPS = 200


def test_area_under_curve_is_the_mean_over_the_evaluated_span():
  # Trapezoids: (0 + 1) / 2 * 100 + (1 + 1) / 2 * 300 = 350, over 400 steps.
  assert sample_efficiency.area_under_curve([100, 200, 500],
                                            [0.0, 1.0, 1.0]) == 350 / 400
  assert sample_efficiency.area_under_curve([300], [0.25]) == 0.25
  assert sample_efficiency.area_under_curve([], []) is None


def test_score_at_takes_the_nearest_evaluation():
  steps, scores = [1024, 2048, 3072, 4096], [0.1, 0.2, 0.3, 0.4]
  assert sample_efficiency.score_at(steps, scores, 2048) == 0.2
  # Evaluations land a little after the nominal points (whole updates).
  assert sample_efficiency.score_at(steps, scores, 3000) == 0.3
  assert sample_efficiency.score_at(steps, scores, 1000) == 0.1
  # Nothing within half the spacing (512): no score.
  assert sample_efficiency.score_at(steps, scores, 10000) is None
  assert sample_efficiency.score_at(steps, scores, 2560) is None
  # A2C on Catch in a 3000-step comparison: 25% of 3008 is 752.
  a2c = [768, 1504, 2272, 3008]
  assert sample_efficiency.score_at(a2c, [1, 2, 3, 4], 0.25 * 3008) == 1
  assert sample_efficiency.score_at(a2c, [1, 2, 3, 4], 0.75 * 3008) == 3
  assert sample_efficiency.score_at([], [], 5) is None


def test_steps_to_reach():
  steps, scores = [10, 20, 30, 40], [0.5, 0.95, 0.8, 0.9]
  assert sample_efficiency.steps_to_reach(steps, scores, 0.9) == 20
  assert sample_efficiency.steps_to_reach(steps, scores, 0.96) is None
  assert sample_efficiency.steps_to_reach(steps, scores, 0.5) == 10


def test_bad_curves_are_refused():
  with pytest.raises(ValueError, match='must increase'):
    sample_efficiency.area_under_curve([200, 100], [0.0, 1.0])
  with pytest.raises(ValueError, match='finite'):
    sample_efficiency.score_at([100, 200], [0.0, np.nan], 150)
  with pytest.raises(ValueError, match='one length'):
    sample_efficiency.steps_to_reach([100, 200], [0.0], 0.5)


def test_seed_metrics_at_fractions_of_the_steps_trained():
  steps = [250, 500, 750, 1000, 1024]
  metrics = sample_efficiency.seed_metrics(steps, [0.0, 0.4, 0.6, 0.8, 1.0],
                                           budget=1024, threshold=0.7)
  # 25% of 1024 = 256: the evaluation at 250; 100%: the one at 1024.
  assert metrics['score_at'] == {'25%': 0.0, '50%': 0.4, '75%': 0.6,
                                 '100%': 1.0}
  assert metrics['steps_to_threshold'] == 1000
  area = (0.2 * 250 + 0.5 * 250 + 0.7 * 250 + 0.9 * 24) / 774
  assert metrics['auc'] == pytest.approx(area)
  assert 'steps_to_threshold' not in sample_efficiency.seed_metrics(
      steps, [0.0] * 5, budget=1024, threshold=None)


def _points(steps, scores):
  return np.array([steps, scores], np.float64)


def test_env_metrics_normalise_and_give_intervals_over_seeds():
  steps = [100, 200, 300, 400]
  runs = {'ppo': {0: ({'env_steps': 400}, _points(steps, [-1, 0, 1, 1])),
                  1: ({'env_steps': 400}, _points(steps, [-1, 1, 1, 1])),
                  2: (None, np.zeros((2, 0)))},  # Unfinished: skipped.
          'dqn': {0: ({'env_steps': 400}, _points(steps, [-1, -1, 0, 0.6])),
                  1: ({'env_steps': 400}, _points(steps, [-1, -1, -1, 1]))},
          'a2c': {0: (None, np.zeros((2, 0)))}}
  metrics = sample_efficiency.env_metrics(runs, reference_scores.CATCH, REPS)
  assert metrics['normalised'] and metrics['threshold'] == 0.9
  assert metrics['fractions'] == ['25%', '50%', '75%', '100%']
  assert set(metrics['agents']) == {'ppo', 'dqn'}
  ppo = metrics['agents']['ppo']
  # Normalised: seed 0 is 0, .5, 1, 1 (AUC (.25 + .75 + 1) / 3 = 2/3);
  # seed 1 is 0, 1, 1, 1 (AUC (.5 + 1 + 1) / 3 = 5/6).
  assert [s['seed'] for s in ppo['per_seed']] == [0, 1]
  assert ppo['per_seed'][0]['auc'] == pytest.approx(2 / 3)
  assert ppo['auc']['point'] == pytest.approx(0.75)
  assert ppo['auc']['low'] == pytest.approx(2 / 3)
  assert ppo['auc']['high'] == pytest.approx(5 / 6)
  assert ppo['score_at']['50%']['point'] == pytest.approx(0.75)
  assert ppo['steps_to_threshold']['reached'] == 2
  assert ppo['steps_to_threshold']['mean']['point'] == pytest.approx(250)
  dqn = metrics['agents']['dqn']['steps_to_threshold']
  # Seed 0 peaks at 0.8 normalised: only seed 1 reaches 0.9.
  assert (dqn['reached'], dqn['seeds'], dqn['mean']) == (1, 2, None)


def test_env_metrics_without_reference_use_raw_scores():
  runs = {'ppo': {0: ({'env_steps': 200}, _points([100, 200], [3.0, 5.0]))}}
  metrics = sample_efficiency.env_metrics(runs, None, REPS)
  assert not metrics['normalised'] and metrics['threshold'] is None
  ppo = metrics['agents']['ppo']
  assert ppo['auc'] == {'point': 4.0, 'low': 4.0, 'high': 4.0}
  assert ppo['score_at']['25%'] is None  # None nearer 50 than 50.
  assert ppo['score_at']['100%']['point'] == 5.0
  assert 'steps_to_threshold' not in ppo
