"""Tests for `environments.gym_adapter`."""

import os

from absl.testing import absltest
from absl.testing import parameterized
import dm_env
from dm_env import specs
from dm_env import test_utils
import gymnasium
from gymnasium import spaces
import numpy as np

from environments import episode_streams
from environments import gym_adapter
from environments import specs as env_specs


class _Walk(gymnasium.Env):
  """A walk on cells 0..4 from cell 2; actions -1, 0, +1 (Discrete start -1).

  Observations are the cell (Discrete(5)); the reward is the new cell. The
  episode terminates on cell 0 or 4 and is truncated after `limit` steps, so
  both can happen on the same step.
  """

  def __init__(self, limit: int = 100):
    self.observation_space = spaces.Discrete(5)
    self.action_space = spaces.Discrete(3, start=-1)
    self.limit = limit
    self.closed = False
    self.actions = []
    self.reset_seeds = []

  def reset(self, *, seed=None, options=None):
    super().reset(seed=seed)
    self.reset_seeds.append(seed)
    self._cell, self._steps = 2, 0
    return self._cell, {}

  def step(self, action):
    assert self.action_space.contains(action), action
    self.actions.append(action)
    self._cell += action
    self._steps += 1
    terminated = self._cell in (0, 4)
    return (self._cell, float(self._cell), terminated,
            self._steps >= self.limit, {})

  def close(self):
    self.closed = True


class _Unsupported(gymnasium.Env):

  def __init__(self, observation_space, action_space):
    self.observation_space = observation_space
    self.action_space = action_space


class CartPoleTest(absltest.TestCase):

  def test_specs(self):
    env = gym_adapter.make_environment('CartPole-v1', seed=0)
    observation_spec = env.observation_spec()
    # Velocities are unbounded, so a plain Array.
    self.assertNotIsInstance(observation_spec, specs.BoundedArray)
    self.assertEqual(observation_spec.shape, (4,))
    self.assertEqual(observation_spec.dtype, np.float32)
    self.assertIsInstance(env.action_spec(), specs.DiscreteArray)
    self.assertEqual(env_specs.make_environment_spec(env).num_actions, 2)

  def test_termination_has_discount_zero_and_step_after_resets(self):
    env = gym_adapter.make_environment('CartPole-v1', seed=0)
    timestep = env.reset()
    self.assertIsNone(timestep.reward)
    self.assertEqual(timestep.observation.dtype, np.float32)
    timesteps = []
    while not timestep.last():
      timestep = env.step(0)  # Pushing left only topples the pole.
      timesteps.append(timestep)
    self.assertBetween(len(timesteps), 5, 30)
    self.assertEqual([t.step_type for t in timesteps],
                     [dm_env.StepType.MID] * (len(timesteps) - 1) +
                     [dm_env.StepType.LAST])
    self.assertEqual(timestep.discount, 0.0)
    self.assertEqual(timestep.discount.dtype, np.float32)
    self.assertEqual(timestep.reward, 1.0)
    self.assertEqual(timestep.reward.dtype, np.float32)
    self.assertIs(env.step(0).step_type, dm_env.StepType.FIRST)
    self.assertIs(env.step(0).step_type, dm_env.StepType.MID)

  def test_time_limit_is_truncation(self):
    env = gym_adapter.make_environment('CartPole-v1', seed=0,
                                       max_episode_steps=4)
    env.reset()
    timesteps = [env.step(i % 2) for i in range(4)]
    self.assertEqual([t.step_type for t in timesteps],
                     [dm_env.StepType.MID] * 3 + [dm_env.StepType.LAST])
    self.assertEqual([float(t.discount) for t in timesteps], [1.0] * 4)
    self.assertIs(env.step(0).step_type, dm_env.StepType.FIRST)

  def test_each_episode_is_seeded_by_its_index(self):
    def first_observations(env, num_episodes=3):
      observations = []
      for _ in range(num_episodes):
        observations.append(env.reset().observation)
      return np.stack(observations)

    seeded = first_observations(gym_adapter.make_environment('CartPole-v1',
                                                             seed=5))
    reference = gymnasium.make('CartPole-v1')
    expected = [reference.reset(seed=episode_streams.episode_seed(5, k))[0]
                for k in range(3)]
    np.testing.assert_array_equal(seeded, np.stack(expected))
    self.assertFalse(np.array_equal(seeded[0], seeded[1]))
    again = first_observations(gym_adapter.make_environment('CartPole-v1',
                                                            seed=5))
    np.testing.assert_array_equal(seeded, again)
    other = first_observations(gym_adapter.make_environment('CartPole-v1',
                                                            seed=6))
    self.assertFalse(np.array_equal(seeded, other))

  def test_seek_starts_at_the_episode(self):
    def episode(env):
      """Observations of one episode (alternating pushes)."""
      timestep, observations = env.reset(), []
      while not timestep.last():
        observations.append(timestep.observation)
        timestep = env.step(len(observations) % 2)
      return np.stack(observations + [timestep.observation])

    played = gym_adapter.make_environment('CartPole-v1', seed=5)
    episodes = [episode(played) for _ in range(3)]
    sought = gym_adapter.make_environment('CartPole-v1', seed=6)
    self.assertIsInstance(sought, episode_streams.EpisodeStream)
    sought.reset()
    sought.step(0)
    sought.seek(5, 1)  # Also drops the episode in progress.
    self.assertIs(sought.step(0).step_type, dm_env.StepType.FIRST)
    sought.seek(5, 1)
    for expected in episodes[1:]:
      np.testing.assert_array_equal(episode(sought), expected)

  def test_validates_discrete_actions(self):
    env = gym_adapter.make_environment('CartPole-v1', seed=0)
    env.reset()
    for action in (2, -1, 0.5, True, np.zeros(2, np.int32)):
      with self.assertRaisesRegex(ValueError, r'\[0, 1\]'):
        env.step(action)
    self.assertIs(env.step(np.int64(1)).step_type, dm_env.StepType.MID)

  def test_unknown_id(self):
    for gym_id in ('NoSuchGame-v0', 'CartPole-v99', 'no_such_module:X-v0'):
      with self.assertRaisesRegex(ValueError, 'Unknown Gymnasium') as context:
        gym_adapter.make_environment(gym_id)
      self.assertIn(repr(gym_id), str(context.exception))
      with self.assertRaises(ValueError):
        gym_adapter.check_id(gym_id)
    gym_adapter.check_id('CartPole-v1')
    gym_adapter.check_id('gymnasium.envs:Pendulum-v1')


class ContinuousActionsTest(absltest.TestCase):

  def test_pendulum_specs_refuse_discrete_agents(self):
    env = gym_adapter.make_environment('Pendulum-v1', seed=0)
    action_spec = env.action_spec()
    self.assertIsInstance(action_spec, specs.BoundedArray)
    self.assertNotIsInstance(action_spec, specs.DiscreteArray)
    self.assertEqual(action_spec.shape, (1,))
    np.testing.assert_array_equal(action_spec.minimum, [-2.0])
    np.testing.assert_array_equal(action_spec.maximum, [2.0])
    with self.assertRaisesRegex(ValueError, 'discrete'):
      _ = env_specs.make_environment_spec(env).num_actions
    observation_spec = env.observation_spec()  # Finite bounds: bounded.
    self.assertIsInstance(observation_spec, specs.BoundedArray)
    np.testing.assert_array_equal(observation_spec.maximum, [1.0, 1.0, 8.0])
    np.testing.assert_array_equal(observation_spec.minimum,
                                  [-1.0, -1.0, -8.0])

  def test_pendulum_steps_and_checks_shapes(self):
    env = gym_adapter.make_environment('Pendulum-v1', seed=0,
                                       max_episode_steps=3)
    env.reset()
    timesteps = [env.step(np.array([0.5], np.float32)) for _ in range(3)]
    self.assertEqual([t.step_type for t in timesteps],
                     [dm_env.StepType.MID] * 2 + [dm_env.StepType.LAST])
    self.assertEqual(float(timesteps[-1].discount), 1.0)
    self.assertLess(float(timesteps[0].reward), 0.0)
    env.reset()
    with self.assertRaisesRegex(ValueError,
                                r'shape \(1,\); got shape \(2,\)'):
      env.step(np.zeros(2, np.float32))
    with self.assertRaisesRegex(ValueError, 'finite'):
      env.step(np.array([np.nan]))

  def test_pendulum_actions_are_clipped(self):
    wild = gym_adapter.make_environment('Pendulum-v1', seed=3)
    clipped = gym_adapter.make_environment('Pendulum-v1', seed=3)
    np.testing.assert_array_equal(wild.reset().observation,
                                  clipped.reset().observation)
    # Pendulum charges 0.001 * u**2 with u clipped by itself; what it is
    # handed must be in the Box already (float32, shape (1,)).
    seen = []
    step = wild.gym_env.step
    wild.gym_env.step = lambda a: seen.append(a) or step(a)
    for action, bound in ((np.array([9.0]), [2.0]), (-5.0, [-2.0]),
                          ([0.5], [0.5])):
      a, b = wild.step(action), clipped.step(np.array(bound, np.float32))
      np.testing.assert_array_equal(a.observation, b.observation)
      self.assertEqual(float(a.reward), float(b.reward))
    np.testing.assert_array_equal(np.concatenate(seen), [2.0, -2.0, 0.5])
    for action in seen:
      self.assertEqual((action.shape, action.dtype), ((1,), np.float32))
      self.assertTrue(wild.gym_env.action_space.contains(action))


class HalfCheetahTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    try:
      import mujoco  # pylint: disable=g-import-not-at-top,unused-import
    except ImportError as e:
      self.skipTest(f'mujoco is not installed ({e}); HalfCheetah-v5 needs '
                    f'it: pip install mujoco.')
    # MuJoCo appends its model warnings to MUJOCO_LOG.TXT in the working
    # directory: keep that out of the checkout.
    self.addCleanup(os.chdir, os.getcwd())
    os.chdir(self.create_tempdir().full_path)

  def test_spec_and_clipped_steps(self):
    env = gym_adapter.make_environment('HalfCheetah-v5', seed=0)
    twin = gym_adapter.make_environment('HalfCheetah-v5', seed=0)
    self.addCleanup(env.close)
    self.addCleanup(twin.close)
    spec = env.action_spec()
    self.assertEqual(spec, specs.BoundedArray((6,), np.float32, -1.0, 1.0,
                                              name='action'))
    np.testing.assert_array_equal(spec.minimum, [-1.0] * 6)
    np.testing.assert_array_equal(spec.maximum, [1.0] * 6)
    self.assertEqual(env.observation_spec().shape, (17,))
    self.assertEqual(env_specs.make_environment_spec(env).action_dim, 6)
    np.testing.assert_array_equal(env.reset().observation,
                                  twin.reset().observation)
    # HalfCheetah's control cost is 0.1 * sum(action**2) of the action it
    # gets, so an unclipped [3] * 6 would cost 5.4, the clipped one 0.6.
    wild = env.step(np.full(6, 3.0))
    clipped = twin.step(np.ones(6, np.float32))
    self.assertIs(wild.step_type, dm_env.StepType.MID)
    np.testing.assert_array_equal(wild.observation, clipped.observation)
    self.assertEqual(float(wild.reward), float(clipped.reward))
    self.assertGreater(float(wild.reward), -1.0)
    with self.assertRaisesRegex(ValueError, r'shape \(6,\); got shape'):
      env.step(np.zeros(5))


class CustomEnvTest(parameterized.TestCase):

  def test_discrete_observations_are_one_hot(self):
    env = gym_adapter.GymEnvironment(_Walk(), seed=0)
    observation_spec = env.observation_spec()
    self.assertEqual(observation_spec.shape, (5,))
    self.assertEqual(observation_spec.dtype, np.float32)
    timestep = env.reset()
    np.testing.assert_array_equal(timestep.observation, [0, 0, 1, 0, 0])
    self.assertEqual(timestep.observation.dtype, np.float32)
    timestep = env.step(2)  # Action index 2 is +1.
    np.testing.assert_array_equal(timestep.observation, [0, 0, 0, 1, 0])
    observation_spec.validate(timestep.observation)

  def test_action_indices_shift_by_the_space_start(self):
    walk = _Walk()
    env = gym_adapter.GymEnvironment(walk)
    self.assertEqual(env.action_spec().num_values, 3)
    env.reset()
    env.step(0)
    env.step(1)
    env.step(2)
    self.assertEqual(walk.actions, [-1, 0, 1])
    with self.assertRaises(ValueError):
      env.step(-1)  # The gym action, not an index.

  def test_terminated_and_truncated(self):
    env = gym_adapter.GymEnvironment(_Walk(limit=2))
    env.reset()
    mid, last = env.step(2), env.step(2)  # Cell 4 on the step limit.
    self.assertIs(mid.step_type, dm_env.StepType.MID)
    self.assertIs(last.step_type, dm_env.StepType.LAST)
    self.assertEqual(float(last.discount), 0.0)  # Termination wins.
    self.assertEqual(float(last.reward), 4.0)
    env.reset()
    env.step(1)
    truncated = env.step(1)  # Cell 2 on the step limit.
    self.assertIs(truncated.step_type, dm_env.StepType.LAST)
    self.assertEqual(float(truncated.discount), 1.0)

  def test_reset_seeds_and_close(self):
    walk = _Walk(limit=1)
    env = gym_adapter.GymEnvironment(walk, seed=7)
    env.step(1)  # A fresh environment resets.
    env.step(1)
    env.step(1)  # After LAST: resets.
    env.reset()
    self.assertEqual(walk.reset_seeds,
                     [episode_streams.episode_seed(7, k) for k in range(3)])
    unseeded = _Walk()
    gym_adapter.GymEnvironment(unseeded).reset()
    self.assertEqual(unseeded.reset_seeds, [None])
    self.assertFalse(walk.closed)
    env.close()
    self.assertTrue(walk.closed)

  @parameterized.parameters(
      (spaces.MultiDiscrete([2, 2]), spaces.Discrete(2), 'observation'),
      (spaces.Dict({'a': spaces.Discrete(2)}), spaces.Discrete(2),
       'observation'),
      (spaces.Discrete(2), spaces.MultiBinary(3), 'action'))
  def test_unsupported_spaces(self, observation_space, action_space, kind):
    with self.assertRaisesRegex(ValueError, f'Unsupported Gymnasium {kind}'):
      gym_adapter.GymEnvironment(_Unsupported(observation_space, action_space))


class GymCartPoleDmEnvTest(test_utils.EnvironmentTestMixin, absltest.TestCase):

  def make_object_under_test(self):
    return gym_adapter.make_environment('CartPole-v1', seed=0)

  def make_action_sequence(self):
    for _ in range(60):  # Pushing one way ends episodes in ~10 steps.
      yield np.int32(0)


if __name__ == '__main__':
  absltest.main()
