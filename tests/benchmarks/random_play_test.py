"""Tests for benchmarks/random_play.py."""

from absl.testing import absltest

from benchmarks import random_play
from environments import registry as env_registry


class RandomPlayTest(absltest.TestCase):

  def test_random_legal_play_on_plane_strike(self):
    # Legal moves only: every game ends with the plane's 8 cells hit, after
    # 57.8 strikes on average (a player that never repeats a cell).
    result = random_play.play(env_registry.make_functional('plane_strike'),
                              episodes=400, seed=0)
    self.assertEqual(result['mean_return'], 8.0)
    self.assertEqual(result['standard_error'], 0.0)
    self.assertBetween(result['mean_length'], 56.0, 59.6)
    self.assertEqual(result['episodes'], 400)


if __name__ == '__main__':
  absltest.main()
