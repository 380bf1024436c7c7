"""Tests for `environments.craftax_adapter`."""


from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from environments import craftax_adapter
from environments import registry as env_registry

_CLASSIC = 'Craftax-Classic-Symbolic-v1'


class CraftaxCoreTest(absltest.TestCase):

  def test_specs_and_settings(self):
    core = env_registry.make_functional(f'craftax:{_CLASSIC}')
    self.assertEqual(core.observation_spec().shape, (1345,))
    self.assertEqual(core.action_spec().num_values, 17)
    self.assertEqual(core.max_episode_steps, 10_000)
    settings = env_registry.settings(f'craftax:{_CLASSIC}')
    self.assertEqual(settings['max_timesteps'].default, 10_000)
    self.assertIn('day_length', settings)
    self.assertEqual(
        env_registry.reference_score(f'craftax:{_CLASSIC}').scale(),
        '0: random actions (1.462), 1: every achievement (22)')

  @pytest.mark.slow  # Compiles Craftax's step: ~10 s.
  def test_time_limit_truncates_and_death_terminates(self):
    core = craftax_adapter.make_core(_CLASSIC, max_timesteps=3)
    self.assertTrue(core.step_draws)  # Craftax's mobs draw each step.
    state, _ = core.reset(jax.random.PRNGKey(0))
    dying = state._replace(env_state=state.env_state.replace(
        player_health=jnp.zeros_like(state.env_state.player_health)))
    both = jax.tree.map(lambda *x: jnp.stack(x), state, dying)
    _, timesteps = jax.jit(jax.vmap(
        lambda s: jax.lax.scan(core.step, s, jnp.zeros(3, jnp.int32))))(both)
    # Craftax's own `done` is True at the limit; here it is a truncation.
    np.testing.assert_array_equal(timesteps.step_type[0], [1, 1, 2])
    np.testing.assert_array_equal(timesteps.discount[0], [1, 1, 1])
    # A player with no health left dies on its next step.
    self.assertEqual(int(timesteps.step_type[1, 0]), 2)
    self.assertEqual(float(timesteps.discount[1, 0]), 0.0)


class BadInputTest(absltest.TestCase):

  def test_unknown_id_names_the_ids(self):
    with self.assertRaisesRegex(ValueError, r"Unknown Craftax environment "
                                r"'Craftax-Clasic-Symbolic-v1'\. Did you "
                                r'mean Craftax-Classic-Symbolic-v1.*Valid '
                                r'craftax ids:'):
      env_registry.check_name('craftax:Craftax-Clasic-Symbolic-v1')

  def test_bad_settings_are_named(self):
    with self.assertRaisesRegex(ValueError, r"\['max_steps'\] for "
                                r'craftax:Craftax-Classic-Symbolic-v1.*'
                                r'max_timesteps, day_length'):
      craftax_adapter.make_core(_CLASSIC, max_steps=5)
    with self.assertRaisesRegex(ValueError, 'max_timesteps must be'):
      craftax_adapter.make_core(_CLASSIC, max_timesteps=0)


if __name__ == '__main__':
  absltest.main()
