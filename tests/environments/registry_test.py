"""Tests for `environments.registry`."""

from absl.testing import absltest
import dm_env
import jax
import numpy as np

from environments import dm_env_wrapper
from environments import plane_strike
from environments import registry


class RegistryTest(absltest.TestCase):

  def test_names(self):
    self.assertIn('plane_strike', registry.names())
    self.assertEqual(list(registry.names()), sorted(registry.names()))

  def test_make_environment(self):
    env = registry.make_environment('plane_strike', seed=3)
    self.assertIsInstance(env, dm_env.Environment)
    self.assertIsInstance(env.core, plane_strike.PlaneStrike)
    timestep = env.reset()
    self.assertIs(timestep.step_type, dm_env.StepType.FIRST)
    self.assertEqual(timestep.observation.shape, (8, 8))
    self.assertEqual(env.action_spec().num_values, 64)

  def test_seed_passes_through(self):
    env = registry.make_environment('plane_strike', seed=3)
    env.reset()
    key = jax.random.fold_in(jax.random.PRNGKey(3), 0)
    plane = np.asarray(env.core.reset(key)[0].plane)
    # Striking exactly the cells of the seed-3 plane ends the episode.
    cells = np.flatnonzero(plane.reshape(-1))
    timesteps = [env.step(int(a)) for a in cells]
    self.assertEqual([float(t.reward) for t in timesteps], [1.0] * 8)
    self.assertTrue(timesteps[-1].last())
    self.assertEqual(float(timesteps[-1].discount), 0.0)

  def test_kwargs_pass_through(self):
    env = registry.make_environment('plane_strike', seed=0, board_size=6,
                                    max_steps=2)
    timestep = env.reset()
    self.assertEqual(timestep.observation.shape, (6, 6))
    self.assertEqual(env.observation_spec().shape, (6, 6))
    self.assertEqual(env.action_spec().num_values, 36)
    self.assertEqual(env.step(0).step_type, dm_env.StepType.MID)
    self.assertEqual(env.step(0).step_type, dm_env.StepType.LAST)

  def test_invalid_kwargs_raise(self):
    with self.assertRaisesRegex(ValueError, 'board_size'):
      registry.make_environment('plane_strike', board_size=4)
    with self.assertRaises(TypeError):
      registry.make_functional('plane_strike', no_such_option=1)

  def test_unknown_name(self):
    for make in (registry.make_environment, registry.make_functional):
      with self.assertRaisesRegex(ValueError, 'plane_strike') as context:
        make('no_such_game')
      self.assertIn('no_such_game', str(context.exception))

  def test_make_functional_is_the_pure_core(self):
    core = registry.make_functional('plane_strike', board_size=6)
    self.assertIsInstance(core, plane_strike.PlaneStrike)
    self.assertNotIsInstance(core, dm_env.Environment)
    self.assertNotIsInstance(core, dm_env_wrapper.DmEnvironment)
    self.assertEqual(core.board_size, 6)
    state, timestep = jax.jit(core.reset)(jax.random.PRNGKey(0))
    self.assertEqual(timestep.observation.shape, (6, 6))
    state, timestep = jax.jit(core.step)(state, 7)
    self.assertEqual(int(state.steps), 1)
    self.assertNotEqual(float(timestep.observation.reshape(-1)[7]), 0.0)


if __name__ == '__main__':
  absltest.main()
