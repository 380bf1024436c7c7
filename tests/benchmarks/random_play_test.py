"""Tests for benchmarks/random_play.py."""

import json
import os

from absl.testing import absltest

from benchmarks import random_play
from environments import registry as env_registry
from environments import suites

_BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'benchmarks')
# The suites' random play; POPGym Arcade's is measured apart.
_JSONS = ('suites_random_play.json', 'popgym_arcade_random_play.json')


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


  def test_the_suites_references_are_the_measured_random_play(self):
    measured = {}
    for name in _JSONS:
      with open(os.path.join(_BENCHMARKS, name), encoding='utf-8') as f:
        measured.update(json.load(f)['random_play'])
    for prefix, suite in suites.SUITES.items():
      if prefix == suites.GYMNAX_PREFIX:  # Measured before this benchmark.
        continue
      for suite_id, reference in suite.references.items():
        # A Craftax pixel game is its symbolic game.
        name = prefix + suite_id.replace('-Pixels-', '-Symbolic-')
        self.assertIn(name, measured)
        self.assertAlmostEqual(reference.random_play,
                               measured[name]['mean_return'], places=3,
                               msg=name)
        self.assertEqual(reference.low, reference.random_play)


if __name__ == '__main__':
  absltest.main()
