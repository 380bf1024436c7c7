"""Tests for experiments/driver/collapse.py."""

import math

from absl.testing import absltest

from environments import registry as env_registry
from experiments.driver import collapse
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib


def _check(env, *args):
  return collapse.check(env_registry.resolve(env), *args)


class CollapseTest(absltest.TestCase):

  def test_healthy_runs_are_not_warned_about(self):
    # What PPO on Plane Strike, REINFORCE on Catch and PPO on gymnax
    # CartPole-v1 (their presets) end with.
    for env, score, entropy, actions in (
        ('plane_strike', 12.15, 0.55, 64), ('catch', 1.0, 0.15, 3),
        ('gymnax:CartPole-v1', 500.0, 0.52, 2)):
      self.assertEqual(_check(env, {}, score, [1.0, entropy],
                                      actions), [], env)

  def test_a_confident_policy_that_beats_chance_is_fine(self):
    self.assertEqual(_check('catch', {}, 1.0, [0.0] * 8, 3), [])

  def test_collapse_no_better_than_random_play_is_named_with_evidence(self):
    (warning,) = _check('plane_strike', {}, 57.75,
                                [3.0] + [1e-8] * 6, 64)
    self.assertStartsWith(warning, 'learning collapsed: the final '
                          'evaluation\'s strikes per game 57.75 is no better '
                          'than random play (57.8; +0% of the way to 11.93)')
    self.assertIn('entropy fell to 1e-08 nats (of 4.16 at most)', warning)

  def test_no_learning_without_collapse(self):
    (warning,) = _check('catch', {}, -0.6, [1.09] * 4, 3)
    self.assertStartsWith(warning, 'no learning: ')

  def test_collapsed_entropy_where_chance_is_unknown(self):
    (warning,) = _check('gym:CartPole-v1', {}, 9.0, [0.0] * 4, 2)
    self.assertStartsWith(warning, 'learning may have collapsed: ')
    self.assertEqual(_check('gym:CartPole-v1', {}, 9.0, [0.3], 2),
                     [])

  def test_other_settings_without_a_measurement_are_not_judged(self):
    self.assertEqual(_check('catch', {'rows': 5}, -1.0, [0.5], 3),
                     [])
    self.assertEqual(_check('gymnax:Pendulum-v1', {}, -1300.0,
                                    [-2.0], None)[0][:12], 'no learning:')

  def test_random_play_is_measured_at_the_runs_own_settings(self):
    def measured(env_kwargs):
      config = config_lib.ExperimentConfig(agent='reinforce', env='catch',
                                           env_kwargs=env_kwargs)
      built = build_lib.build(config)
      return collapse.measured_random_play(config, built.agent,
                                           built.environment_spec)
    self.assertIsNone(measured({}))  # The reference's, measured already.
    default = measured({'rows': 10})  # The default, restated: measured.
    self.assertAlmostEqual(default.mean, -0.602, delta=5 * max(
        default.standard_error, 0.01))
    short = measured({'columns': 2})  # Two columns: often caught.
    self.assertGreater(short.mean, default.mean + 0.1)
    (warning,) = _check('catch', {'columns': 2}, short.mean, [1.0], 3,
                                short)
    self.assertIn('measured at these settings', warning)
    self.assertEqual(_check('catch', {'columns': 2}, 1.0, [0.5], 3,
                                    short), [])

  def test_final_entropy_is_the_last_quarter(self):
    self.assertEqual(collapse.final_entropy([4, 4, 4, 4, 4, 4, 1, 0]), 0.5)
    self.assertIsNone(collapse.final_entropy([]))
    self.assertTrue(math.isclose(collapse.final_entropy([2.0]), 2.0))


if __name__ == '__main__':
  absltest.main()
