"""Tests for networks/popgym_arcade_conv.py and its registered network."""

from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np
from dm_env import specs as dm_specs
import pytest

from environments import specs
from networks import popgym_arcade_conv
from networks import registry

# POPGym Arcade 0.0.5's equinox `ActorCritic(obs_size=...)`, its arrays
# counted in the peers' environment: the rebuilt network has as many.
PACKAGE_PARAMETERS = {128: 1_408_774, 256: 3_515_142}


def _spec(shape, num_actions=5) -> specs.EnvironmentSpec:
  return specs.make_spec(dm_specs.Array(shape, np.float32),
                         dm_specs.DiscreteArray(num_actions))


def _shapes(params):
  return {name: {k: v.shape for k, v in layer.items()}
          for name, layer in params.items()}


class PopgymArcadeConvTest(absltest.TestCase):

  def test_parameters_as_many_as_the_packages_network(self):
    for side, count in PACKAGE_PARAMETERS.items():
      network = popgym_arcade_conv.make_popgym_arcade_actor_critic_network(
          5, (side, side, 3))
      params = jax.eval_shape(network.init, jax.random.PRNGKey(0),
                              jnp.zeros((1, side, side, 3)))
      self.assertEqual(sum(np.prod(x.shape) for x in jax.tree.leaves(params)),
                       count, side)

  def test_each_size_takes_its_tower_down_to_one_pixel(self):
    network = popgym_arcade_conv.make_popgym_arcade_actor_critic_network(
        5, (128, 128, 3))
    images = jnp.zeros((3, 128, 128, 3))
    params = jax.eval_shape(network.init, jax.random.PRNGKey(0), images)
    shapes = _shapes(params)
    self.assertEqual(shapes['actor_tower/conv_0']['w'], (5, 5, 3, 64))
    self.assertEqual(shapes['critic_tower/conv_3']['w'], (1, 1, 256, 512))
    # One 512-channel pixel into each trunk.
    self.assertEqual(shapes['actor_trunk/linear_0']['w'], (512, 256))
    self.assertEqual(shapes['critic_trunk/output']['w'], (256, 1))
    logits, values = jax.eval_shape(network.apply, params, images)
    self.assertEqual((logits.shape, values.shape), ((3, 5), (3,)))
    self.assertEqual(popgym_arcade_conv.tower(256),
                     popgym_arcade_conv.LARGE_TOWER)
    for side in (128, 256):
      self.assertEqual(popgym_arcade_conv.output_side(
          side, popgym_arcade_conv.tower(side)), 1, side)

  @pytest.mark.slow  # Initialises two 128x128 towers: 5-6 s cold.
  def test_parameters_start_as_equinox_s(self):
    network = popgym_arcade_conv.make_popgym_arcade_actor_critic_network(
        5, (128, 128, 3), hidden_sizes=(32,))
    params = network.init(jax.random.PRNGKey(0), jnp.zeros((1, 128, 128, 3)))
    for name, fan_in in (('actor_tower/conv_0', 5 * 5 * 3),
                         ('critic_tower/conv_2', 3 * 3 * 128),
                         ('actor_trunk/linear_0', 512),
                         ('critic_trunk/output', 32)):
      limit = 1 / np.sqrt(fan_in)
      for key in ('w', 'b'):
        values = np.abs(np.asarray(params[name][key]))
        # Uniform in ±limit: none beyond it, the largest near it.
        self.assertLessEqual(values.max(), limit, (name, key))
        self.assertGreater(values.max(), 0.5 * limit, (name, key))
    np.testing.assert_array_equal(params['actor_trunk/layer_norm_0']['scale'],
                                  np.ones(32))
    self.assertEqual(params['actor_trunk/layer_norm_0']['offset'].shape,
                     (32,))

  def test_registered_with_its_trunk_widths_and_images_refused(self):
    entry = registry.get('popgym_arcade_actor_critic')
    self.assertEqual((entry.kind, entry.default_hidden_sizes),
                     (registry.ACTOR_CRITIC, (256, 256)))
    network = entry.make(_spec((256, 256, 3)), None)
    params = jax.eval_shape(network.init, jax.random.PRNGKey(0),
                            jnp.zeros((1, 256, 256, 3)))
    self.assertEqual(_shapes(params)['actor_tower/conv_0']['w'],
                     (7, 7, 3, 64))
    with self.assertRaisesRegex(ValueError, r'at least 119x119.*84x84.*'
                                'nature_conv_actor_critic'):
      entry.make(_spec((84, 84, 4)), None)
    with self.assertRaisesRegex(ValueError, 'rank 3'):
      entry.make(_spec((16,)), None)


if __name__ == '__main__':
  absltest.main()
