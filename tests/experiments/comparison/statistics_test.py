"""Tests for experiments/comparison/statistics.py."""

import numpy as np
import pytest

from experiments.comparison import statistics

REPS = 200


def _brackets(interval):
  return interval.low <= interval.point <= interval.high


def test_aggregates_of_a_known_array():
  # One task, eight runs 0..7: mean 3.5, median 3.5, IQM = mean(2..5) = 3.5.
  scores = {'a': np.arange(8.0)[:, None] / 10,
            'b': np.array([[0.0], [0.0], [0.1], [0.2], [0.3], [0.4], [2.0],
                           [9.0]])}
  result = statistics.aggregate_intervals(scores, reps=REPS)
  a, b = result['a'], result['b']
  assert a['mean'].point == pytest.approx(0.35)
  assert a['median'].point == pytest.approx(0.35)
  assert a['iqm'].point == pytest.approx(0.35)
  assert a['optimality_gap'].point == pytest.approx(0.65)  # mean(1 - x).
  assert b['mean'].point == pytest.approx(12.0 / 8)
  # rliable's median is over tasks of the mean over runs: one task, the mean.
  assert b['median'].point == pytest.approx(12.0 / 8)
  assert b['iqm'].point == pytest.approx(np.mean([0.1, 0.2, 0.3, 0.4]))
  # max(1 - x, 0): 1, 1, .9, .8, .7, .6, 0, 0.
  assert b['optimality_gap'].point == pytest.approx(5.0 / 8)
  for agent in result.values():
    assert list(agent) == list(statistics.AGGREGATES)
    for interval in agent.values():
      assert _brackets(interval)
      assert interval.low < interval.high


def test_aggregates_over_tasks_and_subsets():
  # Task means 0.5, 0.2, 0.9: median 0.5; IQM trims runs of all tasks.
  scores = np.array([[0.0, 0.1, 0.8], [0.5, 0.2, 0.9], [1.0, 0.3, 1.0]])
  result = statistics.aggregate_intervals({'a': scores}, ['median', 'iqm'],
                                          reps=REPS)
  assert list(result['a']) == ['median', 'iqm']
  assert result['a']['median'].point == pytest.approx(0.5)
  # Nine scores, trim 2 at each end: mean(0.2, 0.3, 0.5, 0.8, 0.9).
  assert result['a']['iqm'].point == pytest.approx(2.7 / 5)
  with pytest.raises(ValueError, match='Unknown aggregates'):
    statistics.aggregate_intervals({'a': scores}, ['max'], reps=REPS)
  with pytest.raises(ValueError, match='num_runs'):
    statistics.aggregate_intervals({'a': np.zeros((0, 2))}, reps=REPS)


def test_one_run_collapses_the_interval():
  result = statistics.aggregate_intervals({'a': np.array([[0.3, 0.7]])},
                                          reps=REPS)['a']
  assert result['mean'] == statistics.Interval(0.5, 0.5, 0.5)
  assert result['optimality_gap'].point == pytest.approx(0.5)
  assert result['optimality_gap'].low == result['optimality_gap'].high


def test_bootstrap_is_deterministic_and_leaves_global_rng_alone():
  rng = np.random.RandomState(3)
  scores = {'a': rng.rand(5, 3), 'b': rng.rand(4, 3)}
  np.random.seed(123)
  before = np.random.get_state()
  first = statistics.aggregate_intervals(scores, reps=REPS)
  after = np.random.get_state()
  assert before[0] == after[0] and np.array_equal(before[1], after[1])
  assert before[2:] == after[2:]
  np.random.seed(999)  # The caller's global seed must not matter.
  second = statistics.aggregate_intervals(scores, reps=REPS)
  assert first == second
  # Each agent is reseeded: its estimate does not depend on the others.
  alone = statistics.aggregate_intervals({'b': scores['b']}, reps=REPS)
  assert alone['b'] == first['b']
  other_seed = statistics.aggregate_intervals(scores, reps=REPS, seed=1)
  assert other_seed['a']['mean'].point == first['a']['mean'].point
  assert other_seed['a']['mean'].low != first['a']['mean'].low
  pairs = statistics.probability_of_improvement(scores, reps=REPS)
  assert pairs == statistics.probability_of_improvement(scores, reps=REPS)
  curves = rng.rand(4, 6)
  for x, y in zip(statistics.pointwise_mean(curves, REPS),
                  statistics.pointwise_mean(curves, REPS)):
    np.testing.assert_array_equal(x, y)


def test_probability_of_improvement_pairs():
  low = np.array([[0.1, 0.2], [0.2, 0.1], [0.15, 0.15]])
  scores = {'strong': low + 1.0, 'weak': low, 'twin': low.copy(),
            'short': low[:2] + 1.0}
  pairs = statistics.probability_of_improvement(scores, reps=REPS)
  names = [(x, y) for x, y, _ in pairs]
  assert names == [('strong', 'weak'), ('strong', 'twin'),
                   ('strong', 'short'), ('weak', 'twin'), ('weak', 'short'),
                   ('twin', 'short')]
  by_pair = {(x, y): p for x, y, p in pairs}
  assert by_pair['strong', 'weak'] == statistics.Interval(1.0, 1.0, 1.0)
  assert by_pair['weak', 'short'] == statistics.Interval(0.0, 0.0, 0.0)
  assert by_pair['weak', 'twin'].point == pytest.approx(0.5)
  for p in by_pair.values():
    assert _brackets(p) and 0.0 <= p.low and p.high <= 1.0
  assert statistics.probability_of_improvement({'a': low}) == []
  with pytest.raises(ValueError, match='different numbers of tasks'):
    statistics.probability_of_improvement({'a': low, 'b': low[:, :1]})


def test_probability_of_improvement_of_overlapping_scores():
  x = np.array([[1.0], [3.0], [5.0]])
  y = np.array([[2.0], [4.0], [6.0]])
  (_, _, p), = statistics.probability_of_improvement({'x': x, 'y': y},
                                                     reps=REPS)
  assert p.point == pytest.approx(3 / 9)  # 3 beats 2, 5 beats 2 and 4.
  assert _brackets(p) and p.low < p.high


def test_pointwise_mean():
  curves = np.array([[0.0, 1.0, 2.0], [2.0, 3.0, 2.0], [1.0, 5.0, 2.0]])
  mean, low, high = statistics.pointwise_mean(curves, REPS)
  np.testing.assert_allclose(mean, [1.0, 3.0, 2.0])
  assert np.all(low <= mean) and np.all(mean <= high)
  assert low[2] == high[2] == 2.0  # All seeds agree: no uncertainty.
  assert low[1] < high[1]
  one = statistics.pointwise_mean(curves[:1], REPS)
  for values in one:
    np.testing.assert_array_equal(values, curves[0])
  assert all(v.shape == (0,) for v in statistics.pointwise_mean(
      np.zeros((3, 0)), REPS))
  with pytest.raises(ValueError, match='num_runs'):
    statistics.pointwise_mean(np.zeros(3), REPS)


def test_one_task_median_is_over_runs():
  scores = {'a': np.array([[0.0], [0.0], [1.0]])}
  one_task = statistics.aggregate_intervals(scores, ['median', 'mean'],
                                            reps=200,
                                            table=statistics.ONE_TASK)['a']
  assert one_task['median'].point == 0.0
  assert one_task['mean'].point == pytest.approx(1 / 3)
  # rliable's median is over tasks of the mean over runs.
  across = statistics.aggregate_intervals(scores, ['median'], reps=200)['a']
  assert across['median'].point == pytest.approx(1 / 3)


def test_over_seeds_gives_one_task_interval_dicts():
  result = statistics.over_seeds([0.2, 0.4, 0.6], ('mean', 'median'), REPS)
  assert list(result) == ['mean', 'median']
  assert result['mean']['point'] == pytest.approx(0.4)
  # Three seeds: the percentile interval of the mean is the seeds' range.
  assert result['mean']['low'] == pytest.approx(0.2)
  assert result['mean']['high'] == pytest.approx(0.6)
  assert statistics.over_seeds([5.0], reps=REPS) == {
      'mean': {'point': 5.0, 'low': 5.0, 'high': 5.0}}
  assert statistics.as_dict(statistics.Interval(1.0, 0.5, 2.0)) == {
      'point': 1.0, 'low': 0.5, 'high': 2.0}


def test_a_performance_profile_is_the_fraction_of_runs_above_each_tau():
  scores = {'a': np.array([[0.0, 1.0], [0.5, 1.0]]),  # Runs x tasks.
            'b': np.zeros((2, 2))}
  taus = np.array([-0.5, 0.25, 0.75, 1.5])
  profiles = statistics.performance_profiles(scores, taus, reps=100)
  np.testing.assert_allclose(profiles['a'][0], [1.0, 0.75, 0.5, 0.0])
  np.testing.assert_allclose(profiles['b'][0], [1.0, 0.0, 0.0, 0.0])
  low, high = profiles['a'][1], profiles['a'][2]
  assert np.all(low <= profiles['a'][0] + 1e-12)
  assert np.all(profiles['a'][0] <= high + 1e-12)
