"""Tests for networks/recurrent.py: stepping equals unrolling, resets."""

from absl.testing import absltest
from absl.testing import parameterized
import chex
from dm_env import specs as dm_specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import specs
from networks import recurrent
from networks import registry


def _network(core):
  return recurrent.make_recurrent_actor_critic_network(3, (16, 8), core)


class RecurrentActorCriticTest(parameterized.TestCase):

  @parameterized.parameters(*recurrent.CORES)
  def test_unroll_is_the_steps_in_order(self, core):
    network = _network(core)
    params = network.init(jax.random.PRNGKey(0), jnp.zeros((2, 5)))
    observations = jax.random.normal(jax.random.PRNGKey(1), (6, 2, 5))
    first = jnp.array([[1, 1], [0, 0], [0, 1], [0, 0], [1, 0], [0, 0]],
                      bool)
    (logits, values), final = network.unroll(
        params, observations, first, network.initial_state(2))
    self.assertEqual(logits.shape, (6, 2, 3))
    state, stepped = network.initial_state(2), []
    for t in range(6):
      (_, v), state = network.step(params, observations[t], first[t], state)
      stepped.append(v)
    chex.assert_trees_all_close(jnp.stack(stepped), values, atol=1e-5)
    chex.assert_trees_all_close(state, final, atol=1e-5)

  @parameterized.parameters(*recurrent.CORES)
  def test_first_resets_and_memory_matters(self, core):
    network = _network(core)
    params = network.init(jax.random.PRNGKey(0), jnp.zeros((1, 5)))
    fresh = network.initial_state(1)
    seen, _ = network.step(params, jnp.ones((1, 5)), jnp.ones(1, bool),
                           fresh)
    _, after_one = network.step(params, 3 * jnp.ones((1, 5)),
                                jnp.ones(1, bool), fresh)
    # The same observation from another state: other outputs, unless it
    # begins an episode, which starts from the initial state.
    remembered, _ = network.step(params, jnp.ones((1, 5)),
                                 jnp.zeros(1, bool), after_one)
    reset, _ = network.step(params, jnp.ones((1, 5)), jnp.ones(1, bool),
                            after_one)
    self.assertGreater(float(jnp.abs(remembered[1] - seen[1]).max()), 1e-4)
    chex.assert_trees_all_close(reset, seen)

  def test_conv_torso_reads_images_step_by_step_as_unrolled(self):
    network = recurrent.make_recurrent_actor_critic_network(
        3, (32, 16), recurrent.LSTM, jax.nn.relu, recurrent.CONV_TORSO)
    images = jax.random.uniform(jax.random.PRNGKey(1), (4, 2, 10, 10, 4))
    params = network.init(jax.random.PRNGKey(0), images[0])
    self.assertEqual(params['conv_torso/conv_0']['w'].shape, (3, 3, 4, 16))
    first = jnp.array([[1, 1], [0, 0], [0, 1], [0, 0]], bool)
    (logits, values), final = network.unroll(params, images, first,
                                             network.initial_state(2))
    self.assertEqual(logits.shape, (4, 2, 3))
    state = network.initial_state(2)
    for t in range(4):
      (_, v), state = network.step(params, images[t], first[t], state)
    chex.assert_trees_all_close(v, values[-1], atol=1e-5)
    chex.assert_trees_all_close(state, final, atol=1e-5)
    with self.assertRaisesRegex(ValueError, 'torso must be one of'):
      recurrent.make_recurrent_actor_critic_network(2, None, torso='vit')

  def test_hidden_sizes_are_the_torso_then_the_core(self):
    network = recurrent.make_recurrent_actor_critic_network(
        2, (32, 16, 8), recurrent.GRU)
    params = network.init(jax.random.PRNGKey(0), jnp.zeros((1, 4)))
    self.assertEqual(params['torso/~/linear_1']['w'].shape, (32, 16))
    self.assertEqual(network.initial_state(3).shape, (3, 8))
    with self.assertRaisesRegex(ValueError, 'lstm'):
      recurrent.make_recurrent_actor_critic_network(2, None, 'rnn')

  def test_craftax_network_has_two_relu_layers_per_head(self):
    # Craftax_Baselines' ppo_rnn.py ActorCriticRNN: Dense(L) ReLU, flax's
    # GRU of L, then Dense(L) ReLU twice and the output, for each head.
    network = registry.get('craftax_gru_actor_critic').make(
        specs.make_spec(dm_specs.Array((7,), np.float32),
                        dm_specs.DiscreteArray(3)), (16, 16))
    params = network.init(jax.random.PRNGKey(0), jnp.zeros((1, 7)))
    shapes = sorted(p['w'].shape for m, p in params.items() if 'w' in p)
    self.assertEqual(shapes, [(7, 16)] + [(16, 1), (16, 3)] +
                     [(16, 16)] * 4)
    self.assertEqual(params['reset_after_gru']['b_hn'].shape, (16,))
    (logits, values), _ = network.step(
        params, jnp.zeros((2, 7)), jnp.ones(2, bool),
        network.initial_state(2))
    self.assertEqual((logits.shape, values.shape), ((2, 3), (2,)))
    self.assertEqual(
        registry.get('craftax_gru_actor_critic').default_hidden_sizes,
        (512, 512))


if __name__ == '__main__':
  absltest.main()
