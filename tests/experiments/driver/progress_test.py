"""Tests for experiments/driver/progress.py: the bar's time left."""

from absl.testing import absltest
import numpy as np

from experiments.driver import progress
from experiments.setup import config as config_lib


class TimeLeftTest(absltest.TestCase):

  def test_rate_is_measured_from_the_reference_not_the_start(self):
    self.assertIsNone(progress.time_left(None, 5.0, 100, 1000))
    self.assertIsNone(progress.time_left((5.0, 100), 5.0, 100, 1000))
    # 100 more in 2 s from the reference: 800 left take 16 s, however long
    # the time before the reference (compiling) was.
    self.assertAlmostEqual(progress.time_left((5.0, 100), 7.0, 200, 1000),
                           16.0)

  def test_bar_estimates_only_once_it_has_a_rate(self):
    now = [100.0]
    config = config_lib.ExperimentConfig(env='catch', num_episodes=None,
                                         num_steps=1000)
    zero = {'episodes': np.zeros(1), 'env_steps': np.zeros(1)}
    bar = progress.ProgressBar(config, zero, enabled=True,
                               clock=lambda: now[0])
    try:
      bar.show({'episodes': np.zeros(1), 'env_steps': np.asarray([100])})
      self.assertIn('estimating', bar._bar.postfix)
      now[0] = 102.0
      bar.show({'episodes': np.zeros(1), 'env_steps': np.asarray([300])})
      self.assertIn('00:07 left', bar._bar.postfix)
      bar.describe({'steps_per_second': 12345.6, 'episode_length': 17.25})
      self.assertIn('steps/s 12,346', bar._bar.postfix)
      self.assertNotIn('strikes', bar._bar.postfix)  # Catch: no lengths.
      # An update that steps past the budget ends the bar at its total.
      bar.show({'episodes': np.zeros(1), 'env_steps': np.asarray([1100])})
      self.assertEqual((bar._bar.n, bar._bar.total), (1000, 1000))
    finally:
      bar.close()


if __name__ == '__main__':
  absltest.main()
