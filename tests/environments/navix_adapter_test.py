"""Tests for `environments.navix_adapter`."""


from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np

from environments import navix_adapter
from environments import registry as env_registry
from tests.environments import stepping

_EMPTY = 'Navix-Empty-5x5-v0'
# In the empty 5x5 room: forward twice, turn right, forward twice reaches
# the goal (navix's actions: 0 turn left, 1 turn right, 2 forward, ...).
_TO_GOAL = (2, 2, 1, 2, 2)


class NavixCoreTest(absltest.TestCase):

  def test_specs(self):
    core = navix_adapter.make_core(_EMPTY)
    self.assertEqual(core.observation_spec().shape, (5, 5, 3))
    self.assertEqual(core.observation_spec().dtype, np.float32)
    self.assertEqual(core.action_spec().num_values, 7)
    self.assertEqual(core.max_episode_steps, 100)
    self.assertEqual(
        env_registry.reference_score(f'navix:{_EMPTY}').scale(),
        "0: random actions (0.402), 1: the goal's reward (1)")

  def test_reaching_the_goal_ends_with_discount_zero(self):
    core = navix_adapter.make_core(_EMPTY)
    _, (_, timesteps) = stepping.rollout(core, _TO_GOAL)
    np.testing.assert_array_equal(timesteps.step_type, [1, 1, 1, 1, 2])
    np.testing.assert_array_equal(timesteps.reward, [0, 0, 0, 0, 1])
    np.testing.assert_array_equal(timesteps.discount, [1, 1, 1, 1, 0])

  def test_the_time_limit_ends_with_discount_one(self):
    core = navix_adapter.make_core(_EMPTY, max_steps=3)
    self.assertEqual(core.max_episode_steps, 3)
    _, (_, timesteps) = stepping.rollout(core, (0, 0, 0))
    np.testing.assert_array_equal(timesteps.step_type, [1, 1, 2])
    np.testing.assert_array_equal(timesteps.discount, [1, 1, 1])

  def test_steps_as_navix_does(self):
    core = navix_adapter.make_core(_EMPTY)
    first, (_, timesteps) = stepping.rollout(core, _TO_GOAL[:3])
    expected = core.env.reset(jax.random.PRNGKey(0))
    np.testing.assert_array_equal(first.observation, expected.observation)
    for t, action in enumerate(_TO_GOAL[:3]):
      expected = core.env.step(expected, jnp.int32(action))
      np.testing.assert_array_equal(timesteps.observation[t],
                                    expected.observation)

  def test_resets_without_drawing_unless_observing_images(self):
    for observation, tiles, seeds in (('symbolic', 1, 2), ('rgb', 26, 1)):
      core = navix_adapter.make_core(_EMPTY, observation=observation)
      reset = jax.jit(core.reset)
      navix_reset = jax.jit(core.env.reset)  # Navix draws its cache.
      for seed in range(seeds):
        key = jax.random.PRNGKey(seed)
        state, first = reset(key)
        expected = navix_reset(key)
        self.assertEqual(state.state.cache.patches.shape[0], tiles)
        np.testing.assert_allclose(
            first.observation, core._observation(expected.observation))  # pylint: disable=protected-access
        if observation == 'symbolic':  # Steps read the state alike.
          _, timestep = core.step(state, jnp.int32(2))
          expected = core.env.step(expected, jnp.int32(2))
          np.testing.assert_array_equal(timestep.observation,
                                        expected.observation)

  def test_images_are_scaled_to_one(self):
    core = navix_adapter.make_core(_EMPTY, observation='rgb')
    first, _ = stepping.rollout(core, (0,))
    self.assertEqual(first.observation.shape, core.observation_spec().shape)
    self.assertLessEqual(float(first.observation.max()), 1.0)
    self.assertGreater(float(first.observation.max()), 0.0)


class BadInputTest(absltest.TestCase):

  def test_unknown_id_names_close_matches(self):
    with self.assertRaisesRegex(ValueError, r"Unknown Navix environment "
                                r"'Navix-Emty-5x5-v0'\. Did you mean "
                                r'Navix-Empty-5x5-v0.*Valid navix ids:'):
      env_registry.check_name('navix:Navix-Emty-5x5-v0')

  def test_bad_settings_are_named(self):
    with self.assertRaisesRegex(ValueError, "observation 'pixels'.*rgb"):
      navix_adapter.make_core(_EMPTY, observation='pixels')
    with self.assertRaisesRegex(ValueError, 'max_steps must be'):
      navix_adapter.make_core(_EMPTY, max_steps=0)


if __name__ == '__main__':
  absltest.main()
