"""Tests for `networks.xminigrid_recurrent`."""

from absl.testing import absltest
import chex
import jax
import jax.numpy as jnp
import numpy as np

from environments import registry as env_registry
from environments import specs as env_specs
from networks import registry
from networks import xminigrid_recurrent

_ENV = 'xminigrid:MiniGrid-Empty-5x5'
_BASELINE = dict(direction=True, previous_action_reward=True)


def _observations(n, steps=1):
  """`[steps, n, 2V² + 11]` observations of a 7 x 7 view, played."""
  core = env_registry.make_functional(_ENV, **_BASELINE)

  def play(key):
    state, first = core.reset(key)
    actions = jax.random.randint(key, (steps - 1,), 0, 3)
    _, timesteps = jax.lax.scan(core.step, state, actions)
    return jnp.concatenate([first.observation[None],
                            timesteps.observation])

  return jax.jit(jax.vmap(play, out_axes=1))(
      jax.random.split(jax.random.PRNGKey(3), n))


class XMiniGridRecurrentTest(absltest.TestCase):

  def test_the_vocabularies_are_xminigrids(self):
    from xminigrid.core import constants  # pylint: disable=g-import-not-at-top
    self.assertEqual(xminigrid_recurrent.NUM_TILES, constants.NUM_TILES)
    self.assertEqual(xminigrid_recurrent.NUM_COLORS, constants.NUM_COLORS)

  def test_a_step_is_an_unroll_of_one_and_memory_restarts(self):
    spec = env_specs.make_environment_spec(
        env_registry.make_environment(_ENV, **_BASELINE))
    network = registry.get('xminigrid_gru_actor_critic').make(
        spec, (32, 16))
    observations = _observations(3, steps=4)
    params = jax.jit(network.init)(jax.random.PRNGKey(0), observations[0])
    step, unroll = jax.jit(network.step), jax.jit(network.unroll)
    # The baseline's modules: two embeddings, three 2x2 convolutions over
    # the 7 x 7 view (to 4 x 4 x 64), the direction's layer, the action's
    # embedding, the GRU, two heads of two layers.
    self.assertEqual(params['gru']['w_i'].shape,
                     (4 * 4 * 64 + 16 + 16 + 1, 3 * 32))
    self.assertEqual(params['action_embedding']['w'].shape, (6, 16))
    first = jnp.zeros((4, 3), bool).at[0].set(True).at[2, 1].set(True)
    state = network.initial_state(3)
    (logits, values), final = unroll(params, observations, first, state)
    chex.assert_shape((logits, values), ((4, 3, 6), (4, 3)))
    stepped = []
    for t in range(4):
      outputs, state = step(params, observations[t], first[t], state)
      stepped.append(outputs)
    chex.assert_trees_all_close(
        jax.tree.map(lambda *x: jnp.stack(x), *stepped), (logits, values),
        atol=1e-5)
    chex.assert_trees_all_close(state, final, atol=1e-5)
    # Row 1 began again at step 2: what it did before is forgotten.
    fresh, _ = step(params, observations[2], jnp.ones(3, bool),
                    network.initial_state(3))
    np.testing.assert_allclose(logits[2, 1], fresh[0][1], atol=1e-5)
    self.assertGreater(np.abs(logits[2, 0] - fresh[0][0]).max(), 0)

  def test_observations_without_the_baselines_inputs_are_refused(self):
    plain = env_specs.make_environment_spec(
        env_registry.make_environment(_ENV))
    entry = registry.get('xminigrid_gru_actor_critic')
    with self.assertRaisesRegex(ValueError, 'rank 1'):
      entry.check_observations(plain.observations)
    direction_only = env_specs.make_environment_spec(
        env_registry.make_environment(_ENV, direction=True))
    with self.assertRaisesRegex(
        ValueError, r'--env_config\.direction=true --env_config\.previous_'
        r'action_reward=true .*got shape \(102,\)\. Pick another --network'):
      entry.make(direction_only, None)
    with self.assertRaisesRegex(ValueError, "the GRU's size and the heads' "
                                'width'):
      xminigrid_recurrent.make_xminigrid_actor_critic_network(6, 7, (64,))


if __name__ == '__main__':
  absltest.main()
