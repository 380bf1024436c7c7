"""Tests for experiments/comparison/elo.py."""

from absl.testing import absltest
import numpy as np

from experiments.comparison import elo


class RatingsTest(absltest.TestCase):

  def test_a_three_to_one_score_is_about_191_points(self):
    # Odds of 3: 400 log10(3) = 190.8 points; the prior's one draw in
    # 4,000 games moves it by well under a point.
    ratings = elo.ratings(['a', 'b'], {('a', 'b'): (3000, 0, 1000)}, 'b')
    self.assertEqual(ratings['b'], 0.0)
    self.assertAlmostEqual(ratings['a'], 400 * np.log10(3), delta=0.5)

  def test_draws_count_half_and_ratings_are_transitive(self):
    games = {('a', 'b'): (0, 100, 0), ('b', 'c'): (75, 0, 25),
             ('a', 'c'): (75, 0, 25)}
    ratings = elo.ratings(['a', 'b', 'c'], games, 'c')
    self.assertAlmostEqual(ratings['a'], ratings['b'], places=6)
    self.assertAlmostEqual(ratings['a'], 400 * np.log10(3), delta=3)

  def test_a_clean_sweep_has_a_finite_rating_and_an_interval(self):
    ratings = elo.ratings(['a', 'b'], {('a', 'b'): (50, 0, 0)}, 'b')
    self.assertTrue(np.isfinite(ratings['a']))
    self.assertGreater(ratings['a'], 600)  # Odds of 101 to 1: 802.
    low, high = elo.intervals(['a', 'b'], {('a', 'b'): (50, 0, 0)}, 'b')['a']
    self.assertGreater(high - low, 50)

  def test_players_without_games_and_unknown_anchors_are_named(self):
    with self.assertRaisesRegex(ValueError, "no games of c"):
      elo.ratings(['a', 'b', 'c'], {('a', 'b'): (1, 0, 1)}, 'a')
    with self.assertRaisesRegex(ValueError, "anchor 'z' is not a player"):
      elo.ratings(['a', 'b'], {('a', 'b'): (1, 0, 1)}, 'z')

  def test_intervals_hold_the_rating_and_narrow_with_games(self):
    players = ['a', 'b']
    few = {('a', 'b'): (30, 0, 10)}
    many = {('a', 'b'): (3000, 0, 1000)}
    low, high = elo.intervals(players, few, 'b')['a']
    self.assertLess(low, elo.ratings(players, few, 'b')['a'])
    self.assertGreater(high, elo.ratings(players, few, 'b')['a'])
    low_many, high_many = elo.intervals(players, many, 'b')['a']
    self.assertLess(high_many - low_many, (high - low) / 5)
    self.assertEqual(elo.intervals(players, few, 'b')['b'], (0.0, 0.0))


if __name__ == '__main__':
  absltest.main()
