"""Tests for experiments/driver/stopping_points.py: the driver's host-side
decisions (the loops themselves are run in run_python_loop_test.py and
run_compiled_loop_test.py)."""

from absl.testing import absltest
import numpy as np

from experiments.driver import stopping_points
from experiments.loops import interface
from experiments.setup import config as config_lib


def _counters(episodes, env_steps, updates=0):
  return {'episodes': np.asarray(episodes), 'env_steps': np.asarray(env_steps),
          'updates': np.asarray(updates)}


class HostDecisionsTest(absltest.TestCase):

  def test_next_targets_take_the_nearest_point(self):
    config = config_lib.ExperimentConfig(
        env='catch', num_episodes=1000, eval_every_episodes=400,
        eval_every_steps=None, log_every_episodes=0,
        checkpoint_every_updates=100)
    self.assertEqual(stopping_points.next_targets(config, _counters([0], [0], [0])),
                     interface.Targets(episodes=400, updates=100))
    self.assertEqual(
        stopping_points.next_targets(config, _counters([850], [0], [100])),
        interface.Targets(episodes=1000, updates=200))
    steps = config_lib.ExperimentConfig(
        env='catch', num_episodes=None, num_steps=10_000,
        eval_every_steps=3000, eval_every_episodes=0, log_every_steps=0)
    # No update-count checkpoints by default: by wall time only.
    self.assertEqual(stopping_points.next_targets(steps, _counters([5], [9100], [7])),
                     interface.Targets(env_steps=10_000))
    self.assertEqual(stopping_points.next_targets(steps, _counters([5], [3000], [7])),
                     interface.Targets(env_steps=6000))

  def test_next_targets_stop_at_log_points(self):
    # Defaults: 30 log rows over a 30k-step budget.
    steps = config_lib.ExperimentConfig(env='catch', num_episodes=None,
                                        num_steps=30_000)
    self.assertEqual(stopping_points.next_targets(steps, _counters([5], [3050], [7])),
                     interface.Targets(env_steps=4000))
    episodes = config_lib.ExperimentConfig(
        env='catch', num_episodes=1000, log_every_episodes=30,
        eval_every_episodes=0)
    self.assertEqual(
        stopping_points.next_targets(episodes, _counters([31], [400], [7])),
        interface.Targets(episodes=60))

  def test_done_waits_for_the_slowest_seed(self):
    config = config_lib.ExperimentConfig(env='catch', num_episodes=None,
                                         num_steps=100)
    self.assertFalse(stopping_points.done(config, _counters([9, 9], [120, 99])))
    self.assertTrue(stopping_points.done(config, _counters([9, 9], [120, 100])))

  def test_periodic_evaluation_follows_seed_zero(self):
    config = config_lib.ExperimentConfig(env='catch', eval_every_episodes=0,
                                         eval_every_steps=100)
    self.assertTrue(stopping_points.periodic_evaluation_due(
        config, _counters([1, 1], [90, 200]), _counters([2, 2], [110, 210])))
    self.assertFalse(stopping_points.periodic_evaluation_due(
        config, _counters([1, 1], [0, 90]), _counters([2, 2], [90, 110])))


if __name__ == '__main__':
  absltest.main()
