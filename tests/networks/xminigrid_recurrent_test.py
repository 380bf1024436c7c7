"""Tests for `networks.xminigrid_recurrent`."""

from absl.testing import absltest
import chex
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import registry as env_registry
from environments import specs as env_specs
from networks import registry
from networks import xminigrid_recurrent

_ENV = 'xminigrid:MiniGrid-Empty-5x5'
_SIDE, _ACTIONS = 7, 6


def _observations(n, steps):
  """`[steps, n, 2V² + 4 + A + 1]` observations laid out as
  `xminigrid:<id>` gives them with the baseline's settings (7 x 7 view):
  tiles and colours, a direction, an action one-hot and a reward."""
  keys = jax.random.split(jax.random.PRNGKey(3), 5)
  cells = (steps, n, _SIDE * _SIDE)
  view = jnp.stack([jax.random.randint(keys[0], cells, 0, 13),
                    jax.random.randint(keys[1], cells, 0, 12)], -1)
  return jnp.concatenate([
      view.reshape(steps, n, -1).astype(jnp.float32),
      jax.nn.one_hot(jax.random.randint(keys[2], (steps, n), 0, 4), 4),
      jax.nn.one_hot(jax.random.randint(keys[3], (steps, n), 0, _ACTIONS),
                     _ACTIONS),
      jax.random.uniform(keys[4], (steps, n, 1))], axis=-1)


def _spec(size):
  return env_specs.make_spec(
      specs.Array((size,), np.float32),
      specs.DiscreteArray(_ACTIONS, dtype=np.int32))


class XMiniGridRecurrentTest(absltest.TestCase):

  def test_the_vocabularies_are_xminigrids(self):
    from xminigrid.core import constants  # pylint: disable=g-import-not-at-top
    self.assertEqual(xminigrid_recurrent.NUM_TILES, constants.NUM_TILES)
    self.assertEqual(xminigrid_recurrent.NUM_COLORS, constants.NUM_COLORS)

  def test_a_step_is_an_unroll_of_one_and_memory_restarts(self):
    network = registry.get('xminigrid_gru_actor_critic').make(
        _spec(2 * _SIDE * _SIDE + 4 + _ACTIONS + 1), (32, 16))
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
