"""Tests for `environments.specs`."""

import dataclasses

from absl.testing import absltest
import dm_env
from dm_env import specs as dm_specs
import jax
import numpy as np

from environments import plane_strike
from environments import specs


class _ContinuousEnvironment(dm_env.Environment):
  """A minimal dm_env with a continuous action and no legal actions."""

  def reset(self):
    return dm_env.restart(np.zeros(2, np.float32))

  def step(self, action):
    return dm_env.transition(0.0, np.zeros(2, np.float32))

  def observation_spec(self):
    return dm_specs.Array((2,), np.float32, name='obs')

  def action_spec(self):
    return dm_specs.BoundedArray((1,), np.float32, -1.0, 1.0, name='force')


class EnvironmentSpecTest(absltest.TestCase):

  def test_plane_strike(self):
    env = plane_strike.make_environment(board_size=6, seed=0)
    spec = specs.make_environment_spec(env)
    self.assertEqual(spec.observations, env.observation_spec())
    self.assertEqual(spec.actions, env.action_spec())
    self.assertEqual(spec.rewards, env.reward_spec())
    self.assertEqual(spec.discounts, env.discount_spec())
    self.assertEqual(spec.num_actions, 36)
    self.assertIsNotNone(spec.legal_actions)
    board = np.zeros((2, 6, 6), np.float32)
    board[0, 0, 1] = 1.0
    board[1, 5, 5] = -1.0
    mask = np.asarray(jax.jit(spec.legal_actions)(board))
    self.assertEqual(mask.shape, (2, 36))
    np.testing.assert_array_equal(np.flatnonzero(~mask[0]), [1])
    np.testing.assert_array_equal(np.flatnonzero(~mask[1]), [35])

  def test_num_actions_default_board(self):
    spec = specs.make_environment_spec(plane_strike.make_environment())
    self.assertEqual(spec.num_actions, 64)

  def test_environment_without_legal_actions(self):
    spec = specs.make_environment_spec(_ContinuousEnvironment())
    self.assertIsNone(spec.legal_actions)
    self.assertEqual(spec.observations.shape, (2,))
    self.assertIsInstance(spec.rewards, dm_specs.Array)

  def test_num_actions_needs_discrete_actions(self):
    spec = specs.make_environment_spec(_ContinuousEnvironment())
    with self.assertRaisesRegex(ValueError, 'DiscreteArray') as context:
      _ = spec.num_actions
    self.assertIn('continuous (shape (1,), bounds [-1, 1])',
                  str(context.exception))

  def test_continuous_spec(self):
    spec = specs.make_environment_spec(_ContinuousEnvironment())
    self.assertTrue(spec.is_continuous)
    self.assertEqual(spec.action_dim, 1)
    discrete = specs.make_environment_spec(plane_strike.make_environment())
    self.assertFalse(discrete.is_continuous)
    with self.assertRaisesRegex(ValueError, r'discrete \(64 actions\)'):
      _ = discrete.action_dim

  def test_made_from_observations_and_actions(self):
    environment = _ContinuousEnvironment()
    made = specs.make_spec(environment.observation_spec(),
                           environment.action_spec())
    read = specs.make_environment_spec(environment)
    self.assertEqual((made.observations, made.actions, made.legal_actions),
                     (read.observations, read.actions, read.legal_actions))
    self.assertEqual((made.rewards.shape, made.rewards.dtype), ((), np.float32))
    self.assertEqual((made.discounts.shape, made.discounts.minimum,
                      made.discounts.maximum), ((), 0.0, 1.0))
    legal = lambda o: o > 0
    self.assertIs(specs.make_spec(dm_specs.Array((2,), np.float32),
                                  dm_specs.DiscreteArray(3),
                                  legal).legal_actions, legal)

  def test_frozen(self):
    spec = specs.make_environment_spec(_ContinuousEnvironment())
    with self.assertRaises(dataclasses.FrozenInstanceError):
      spec.legal_actions = None  # pytype: disable=annotation-type-mismatch


if __name__ == '__main__':
  absltest.main()
