"""Tests for `environments.environment_batch`."""

from absl.testing import absltest
import numpy as np

from environments import environment_batch
from environments import registry


def _catch(seed=0):
  return registry.make_environment('catch', seed=seed)


class EnvironmentListTest(absltest.TestCase):

  def test_steps_each_environment_into_arrays(self):
    environments = [_catch(), _catch()]
    batch = environment_batch.EnvironmentList(environments, stream=3)
    self.assertEqual(batch.num_envs, 2)
    self.assertTrue(batch.addressable)
    first = batch.reset([0, 1], [0, 1])
    self.assertEqual(first.shape, (2,) + environments[0].observation_spec()
                     .shape)
    for _ in range(9):  # Catch's ball falls for 9 steps.
      stepped = batch.step(np.array([1, 1], np.int32))
    self.assertEqual(stepped.rewards.dtype, np.float64)
    self.assertEqual(stepped.discounts.dtype, np.float32)
    np.testing.assert_array_equal(stepped.last, [True, True])
    np.testing.assert_array_equal(stepped.discounts, [0.0, 0.0])

  def test_reset_plays_the_numbered_episode_of_the_stream(self):
    batch = environment_batch.EnvironmentList([_catch(), _catch()], stream=3)
    seeked = batch.reset([1, 0], [5, 2])
    one = _catch(seed=99)
    one.seek(3, 5)
    np.testing.assert_array_equal(seeked[0], one.reset().observation)
    one.seek(3, 2)
    np.testing.assert_array_equal(seeked[1], one.reset().observation)

  def test_without_a_stream_environments_play_on_as_seeded(self):
    batch = environment_batch.EnvironmentList([_catch(seed=4)])
    self.assertFalse(batch.addressable)
    np.testing.assert_array_equal(batch.reset([0], [7])[0],
                                  _catch(seed=4).reset().observation)


if __name__ == '__main__':
  absltest.main()
