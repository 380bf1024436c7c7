"""Tests for `environments.previous_action_reward`."""

from unittest import mock

from absl.testing import absltest
from dm_env import specs
import numpy as np

from environments import catch
from environments import dm_env_wrapper
from environments import previous_action_reward
from tests.environments import stepping

# Catch's three moves: left, stay, right.
_ACTIONS = (2, 0, 1)


class PreviousActionRewardTest(absltest.TestCase):

  def test_observes_the_core_then_the_last_action_and_reward(self):
    core = catch.Catch(rows=4, columns=3)
    wrapped = previous_action_reward.PreviousActionReward(core)
    self.assertEqual(wrapped.observation_spec().shape, (4 * 3 + 3 + 1,))
    self.assertEqual(wrapped.max_episode_steps, core.max_episode_steps)
    first, (_, timesteps) = stepping.rollout(wrapped, _ACTIONS)
    plain_first, (_, plain) = stepping.rollout(core, _ACTIONS)
    # Before any action: the core's observation, then zeros.
    np.testing.assert_array_equal(first.observation[:12],
                                  np.ravel(plain_first.observation))
    np.testing.assert_array_equal(first.observation[12:], np.zeros(4))
    for t, action in enumerate(_ACTIONS):
      observation = timesteps.observation[t]
      np.testing.assert_array_equal(observation[:12],
                                    np.ravel(plain.observation[t]))
      np.testing.assert_array_equal(observation[12:15],
                                    np.eye(3)[action])
      self.assertEqual(observation[15], plain.reward[t])
    # Catch's last step (the ball lands) pays ±1: that reward is observed.
    self.assertEqual(abs(timesteps.observation[-1, -1]), 1.0)
    np.testing.assert_array_equal(timesteps.reward, plain.reward)
    np.testing.assert_array_equal(timesteps.step_type, plain.step_type)

  def test_the_dm_env_face_observes_the_same(self):
    environment = dm_env_wrapper.DmEnvironment(
        previous_action_reward.PreviousActionReward(catch.Catch(4, 3)),
        seed=0)
    self.assertEqual(environment.reset().observation[-4:].tolist(),
                     [0, 0, 0, 0])
    self.assertEqual(environment.step(2).observation[-4:-1].tolist(),
                     [0, 0, 1])

  def test_continuous_actions_are_refused(self):
    with self.assertRaisesRegex(ValueError, 'needs discrete actions'):
      previous_action_reward.PreviousActionReward(mock.Mock(
          action_spec=lambda: specs.BoundedArray((1,), np.float32, -2, 2)))


if __name__ == '__main__':
  absltest.main()
