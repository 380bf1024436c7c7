"""Tests for `environments.envpool_adapter` (EnvPool's games, `envpool:`)."""

import os
import sys
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized
from dm_env import specs
from dm_env import test_utils
import numpy as np

from environments import envpool_adapter
from environments import episode_streams
from environments import registry


def _play(environment, action=1):
  """One episode's observations, from its first."""
  timestep = environment.reset()
  observations = [timestep.observation]
  while not timestep.last():
    timestep = environment.step(action)
    observations.append(timestep.observation)
  return np.stack(observations)


class EnvPoolEnvironmentConformanceTest(test_utils.EnvironmentTestMixin,
                                        absltest.TestCase):

  def make_object_under_test(self):
    return envpool_adapter.make_environment('CartPole-v1', seed=0)


class EnvPoolBatchTest(parameterized.TestCase):

  def test_steps_every_environment_and_marks_endings(self):
    batch = envpool_adapter.make_batch('CartPole-v1', 3, 4,
                                       max_episode_steps=5)
    first = batch.reset(np.arange(4), np.arange(4))
    self.assertEqual(first.shape, (4, 4))
    self.assertEqual(first.dtype, np.float32)
    # Balanced pushes: no pole falls in 5 steps, so the time limit ends
    # every episode at step 5, with discount 1.
    for step in range(5):
      stepped = batch.step(np.full(4, step % 2))
      self.assertEqual(stepped.observations.shape, (4, 4))
      np.testing.assert_array_equal(stepped.rewards, np.ones(4))
      self.assertEqual(stepped.last.tolist(), [step == 4] * 4)
    np.testing.assert_array_equal(stepped.discounts, np.ones(4))
    with self.assertRaisesRegex(RuntimeError, 'Reset the environments'):
      batch.step(np.zeros(4, np.int32))
    # Reset in any order: each row is its environment's first observation.
    again = batch.reset([2, 0], [0, 0])
    self.assertEqual(again.shape, (2, 4))
    self.assertTrue(np.all(np.abs(again) <= 0.05))  # CartPole's start.
    with self.assertRaisesRegex(RuntimeError, 'Reset the environments'):
      batch.step(np.zeros(4, np.int32))
    batch.reset([1, 3], [0, 0])
    batch.step(np.zeros(4, np.int32))
    batch.close()

  def test_reset_rows_come_in_the_order_asked(self):
    rows = []
    for order in ([0, 2], [2, 0]):
      batch = envpool_adapter.make_batch('CartPole-v1', 7, 3,
                                         max_episode_steps=1)
      batch.reset([0, 1, 2], [0, 1, 2])
      batch.step(np.zeros(3, np.int32))  # Every episode ends.
      rows.append(batch.reset(order, [3, 5]))
      batch.close()
    self.assertFalse(np.array_equal(rows[0][0], rows[0][1]))
    np.testing.assert_array_equal(rows[0], rows[1][::-1])

  def test_a_termination_has_discount_zero(self):
    batch = envpool_adapter.make_batch('CartPole-v1', 0, 2)
    batch.reset([0, 1], [0, 1])
    for _ in range(100):  # Pushing one way fells the pole.
      stepped = batch.step(np.ones(2, np.int32))
      if stepped.last.any():
        break
    self.assertTrue(stepped.last.any())
    np.testing.assert_array_equal(stepped.discounts[stepped.last], 0.0)

  def test_images_come_channels_last_in_zero_one(self):
    batch = envpool_adapter.make_batch('Pong-v5', 0, 2)
    self.assertEqual(batch.observation_spec.shape, (84, 84, 4))
    self.assertEqual((float(np.max(batch.observation_spec.maximum)),
                      float(np.min(batch.observation_spec.minimum))),
                     (1.0, 0.0))
    self.assertEqual(batch.action_spec.num_values, 6)
    observations = batch.reset([0, 1], [0, 1])
    self.assertEqual(observations.shape, (2, 84, 84, 4))
    self.assertEqual(observations.dtype, np.float32)
    # Pong's frames are 0-255 grey levels: scaled, none left above 1.
    self.assertGreater(observations.max(), 0.1)
    self.assertLessEqual(observations.max(), 1.0)
    self.assertEqual(batch.step(np.zeros(2, np.int32)).observations.shape,
                     (2, 84, 84, 4))

  def test_discrete_observations_are_one_hot(self):
    batch = envpool_adapter.make_batch('FrozenLake-v1', 0, 2)
    self.assertEqual(batch.observation_spec.shape, (16,))
    observations = batch.reset([0, 1], [0, 1])
    np.testing.assert_array_equal(observations.sum(axis=1), [1.0, 1.0])
    np.testing.assert_array_equal(observations[:, 0], [1.0, 1.0])

  def test_actions_are_checked(self):
    batch = envpool_adapter.make_batch('CartPole-v1', 0, 2)
    batch.reset([0, 1], [0, 1])
    with self.assertRaisesRegex(ValueError, r'2 integers in \[0, 1\]'):
      batch.step(np.array([0, 2]))
    pendulum = envpool_adapter.make_batch('Pendulum-v1', 0, 2)
    self.assertIsInstance(pendulum.action_spec, specs.BoundedArray)
    pendulum.reset([0, 1], [0, 1])
    pendulum.step(np.array([[5.0], [-5.0]], np.float32))  # Clipped.
    with self.assertRaisesRegex(ValueError, 'finite'):
      pendulum.step(np.array([[np.nan], [0.0]], np.float32))


class EnvPoolEnvironmentTest(absltest.TestCase):

  def test_episodes_are_addressable(self):
    environment = envpool_adapter.make_environment('CartPole-v1', seed=5)
    self.assertIsInstance(environment, episode_streams.EpisodeStream)
    played = [_play(environment) for _ in range(3)]
    other = envpool_adapter.make_environment('CartPole-v1', seed=9)
    other.seek(5, 2)
    np.testing.assert_array_equal(_play(other), played[2])
    self.assertFalse(np.array_equal(played[0][0], played[1][0]))

  def test_time_limit_is_a_truncation(self):
    environment = envpool_adapter.make_environment(
        'Pendulum-v1', seed=0, max_episode_steps=3)
    environment.reset()
    environment.step(np.zeros(1, np.float32))
    environment.step(np.zeros(1, np.float32))
    last = environment.step(np.zeros(1, np.float32))
    self.assertTrue(last.last())
    self.assertEqual(float(last.discount), 1.0)


class EnvPoolNamesTest(absltest.TestCase):

  def test_its_import_leaves_the_process_environment_as_it_was(self):
    # EnvPool's import sets MPLBACKEND=Agg, which a notebook kernel started
    # from this process would inherit (no inline figures).
    with mock.patch.dict(os.environ, clear=False):
      os.environ.pop('MPLBACKEND', None)
      before = dict(os.environ)
      with mock.patch.dict(sys.modules):
        for name in [m for m in sys.modules if m.startswith('envpool')]:
          del sys.modules[name]
        envpool_adapter.ids()
      self.assertEqual(dict(os.environ), before)

  def test_unknown_id_names_close_ones(self):
    with self.assertRaisesRegex(ValueError, 'Did you mean CartPole-v1'):
      registry.check_name('envpool:CartPol-v1')

  def test_settings_are_listed_and_checked(self):
    settings = registry.settings('envpool:Pong-v5')
    self.assertEqual(settings['episodic_life'].default, False)
    self.assertEqual(settings['max_episode_steps'].default, 27000)
    self.assertNotIn('num_envs', settings)
    self.assertNotIn('seed', settings)
    with self.assertRaisesRegex(
        ValueError, "no setting 'stack'; its settings: max_episode_steps"):
      envpool_adapter.make_batch('Pong-v5', 0, 1, stack=2)

  def test_registry_entry_makes_a_pool(self):
    entry = registry.resolve('envpool:CartPole-v1')
    self.assertFalse(entry.has_core)
    batch = entry.batch(0, 3)
    self.assertIsInstance(batch, envpool_adapter.EnvPoolBatch)
    self.assertEqual(batch.num_envs, 3)
    self.assertIsNone(registry.resolve('gym:CartPole-v1').batch(0, 3))


if __name__ == '__main__':
  absltest.main()
