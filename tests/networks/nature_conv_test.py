"""Tests for networks/nature_conv.py and its registered networks."""

from absl.testing import absltest
import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
from dm_env import specs as dm_specs

from environments import specs
from networks import nature_conv
from networks import registry


def _spec(shape, num_actions=6) -> specs.EnvironmentSpec:
  """float32 observations of `shape` and `num_actions` actions."""
  return specs.make_spec(dm_specs.Array(shape, np.float32),
                         dm_specs.DiscreteArray(num_actions))


class NatureConvTest(absltest.TestCase):

  def test_the_atari_networks_layers(self):
    torso = hk.without_apply_rng(hk.transform(
        lambda x: nature_conv.NatureConvTorso()(x)))
    images = jnp.zeros((2, 84, 84, 4))
    # Shapes only: traced, not run.
    params = jax.eval_shape(torso.init, jax.random.PRNGKey(0), images)
    shapes = {name: {k: v.shape for k, v in layer.items()}
              for name, layer in params.items()}
    self.assertEqual(shapes, {
        'nature_conv_torso/conv_0': {'w': (8, 8, 4, 32), 'b': (32,)},
        'nature_conv_torso/conv_1': {'w': (4, 4, 32, 64), 'b': (64,)},
        'nature_conv_torso/conv_2': {'w': (3, 3, 64, 64), 'b': (64,)},
        # 84 -> 20 -> 9 -> 7: 7 x 7 x 64 features.
        'nature_conv_torso/mlp/~/linear_0': {'w': (3136, 512), 'b': (512,)},
    })
    self.assertEqual(jax.eval_shape(torso.apply, params, images).shape,
                     (2, 512))

  def test_registered_heads_on_popgym_arcades_images(self):
    spec = _spec((128, 128, 3), num_actions=5)
    observations = jnp.zeros((3, 128, 128, 3))
    key = jax.random.PRNGKey(0)
    actor_critic = registry.get('nature_conv_actor_critic').make(spec, None)
    params = jax.eval_shape(actor_critic.init, key, observations)
    logits, values = jax.eval_shape(actor_critic.apply, params, observations)
    self.assertEqual((logits.shape, values.shape), ((3, 5), (3,)))
    # 128 -> 31 -> 14 -> 12: 9,216 features into the 512 layer.
    self.assertEqual(
        params['nature_conv_torso/mlp/~/linear_0']['w'].shape, (9216, 512))
    q_values = registry.get('nature_conv_q_values').make(spec, (256,))
    params = jax.eval_shape(q_values.init, key, observations)
    self.assertEqual(jax.eval_shape(q_values.apply, params,
                                    observations).shape, (3, 5))
    self.assertEqual(registry.get('nature_conv_q_values').default_hidden_sizes,
                     (512,))
    layer_norm = registry.get('nature_conv_layer_norm_q_values').make(spec,
                                                                     None)
    params = jax.eval_shape(layer_norm.init, key, observations)
    self.assertIn('layer_norm_nature_conv_torso/conv_layer_norm_2', params)
    self.assertEqual(
        params['layer_norm_nature_conv_torso/linear_0']['w'].shape,
        (9216, 512))

  def test_the_recurrent_one_reads_images_through_the_atari_network(self):
    entry = registry.get('nature_conv_lstm_actor_critic')
    self.assertTrue(entry.recurrent)
    self.assertEqual(entry.default_hidden_sizes, (512, 128))
    network = entry.make(_spec((128, 128, 3), num_actions=5), None)
    images = jnp.zeros((4, 2, 128, 128, 3))  # [T, N, H, W, C]
    params = jax.eval_shape(network.init, jax.random.PRNGKey(0), images[0])
    self.assertEqual(params['nature_conv_torso/conv_0']['w'].shape,
                     (8, 8, 3, 32))
    first = jnp.zeros((4, 2), bool)
    (logits, values), state = jax.eval_shape(
        network.unroll, params, images, first, network.initial_state(2))
    self.assertEqual((logits.shape, values.shape), ((4, 2, 5), (4, 2)))
    self.assertEqual(state.hidden.shape, (2, 128))
    with self.assertRaisesRegex(ValueError, 'at least 36x36'):
      entry.make(_spec((10, 10, 4)), None)

  def test_images_too_small_are_refused_naming_the_fix(self):
    with self.assertRaisesRegex(
        ValueError, r'nature_conv_actor_critic needs images of at least '
        r'36x36 .*these are 10x10\..*--network=conv_actor_critic'):
      registry.get('nature_conv_actor_critic').make(_spec((10, 10, 4)), None)
    with self.assertRaisesRegex(ValueError, 'needs observations of rank 3'):
      registry.get('nature_conv_q_values').make(_spec((64,)), None)
    # The smallest image it fits: one feature per channel after the third.
    network = registry.get('nature_conv_q_values').make(_spec((36, 36, 1)),
                                                        None)
    params = jax.eval_shape(network.init, jax.random.PRNGKey(0),
                            jnp.zeros((1, 36, 36, 1)))
    self.assertEqual(params['nature_conv_torso/mlp/~/linear_0']['w'].shape,
                     (64, 512))


if __name__ == '__main__':
  absltest.main()
