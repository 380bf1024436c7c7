"""Tests for networks/image_defaults.py."""

from absl.testing import absltest
from dm_env import specs as dm_specs
import numpy as np

from networks import image_defaults
from networks import registry
from tests.networks import network_checks


class ImageDefaultsTest(absltest.TestCase):

  def test_images_default_to_the_conv_network_of_each_kind(self):
    image = network_checks.image_spec().observations
    for kind, conv_name in ((registry.POLICY, 'conv_policy'),
                            (registry.ACTOR_CRITIC, 'conv_actor_critic'),
                            (registry.Q_VALUES, 'conv_q_values'),
                            (registry.Q_DISTRIBUTION, 'conv_q_distribution')):
      self.assertEqual(
          image_defaults.default_network(kind, image, 'fallback'), conv_name)
      self.assertEqual(registry.get(conv_name).kind, kind)

  def test_images_take_the_conv_twin_of_the_agents_default(self):
    image = network_checks.image_spec().observations
    # PQN's LayerNorm MLP has a LayerNorm conv twin; the dueling MLP's
    # twin exists too; a default without a twin of its kind falls back.
    for fallback, chosen in (
        ('mlp_layer_norm_q_values', 'conv_layer_norm_q_values'),
        ('mlp_dueling_q_values', 'conv_dueling_q_values'),
        ('mlp_q_values', 'conv_q_values')):
      self.assertEqual(
          image_defaults.default_network(registry.Q_VALUES, image, fallback),
          chosen)
    self.assertEqual(image_defaults.default_network(
        registry.ACTOR_CRITIC, image, 'mlp_separate_actor_critic'),
                     'conv_actor_critic')
    self.assertEqual(image_defaults.default_network(
        registry.ACTOR_CRITIC, image, 'mlp_q_values'), 'conv_actor_critic')

  def test_images_of_atari_scale_take_the_atari_network(self):
    # Both sides >= 44: the Atari network's twin or the kind's Atari
    # network; kinds without one keep the conv network.
    for shape, q_values, actor_critic, policy_network in (
        ((84, 84, 4), 'nature_conv_layer_norm_q_values',
         'nature_conv_actor_critic', 'conv_policy'),
        ((128, 128, 3), 'nature_conv_layer_norm_q_values',
         'nature_conv_actor_critic', 'conv_policy'),
        ((43, 84, 4), 'conv_layer_norm_q_values', 'conv_actor_critic',
         'conv_policy')):
      image = network_checks.image_spec(shape).observations
      self.assertEqual(image_defaults.default_network(
          registry.Q_VALUES, image, 'mlp_layer_norm_q_values'), q_values)
      self.assertEqual(image_defaults.default_network(
          registry.ACTOR_CRITIC, image, 'mlp_separate_actor_critic'),
                       actor_critic)
      self.assertEqual(image_defaults.default_network(
          registry.POLICY, image, 'mlp_policy'), policy_network)
    self.assertEqual(image_defaults.default_network(
        registry.Q_VALUES, network_checks.image_spec((84, 84, 4)).observations,
        'mlp_q_values'), 'nature_conv_q_values')

  def test_other_observations_keep_the_fallback(self):
    # A board no wider than the convolution's kernel (tic-tac-toe's) too.
    self.assertTrue(image_defaults.is_image(dm_specs.Array((4, 4, 31),
                                                     np.float32)))
    for shape in ((5,), (8, 8), (2, 3, 4, 5), (3, 3, 2)):
      observations = dm_specs.Array(shape, np.float32)
      self.assertFalse(image_defaults.is_image(observations))
      self.assertEqual(image_defaults.default_network(
          registry.POLICY, observations, 'mlp_policy'), 'mlp_policy')
    self.assertEqual(image_defaults.default_network(
        registry.POLICY, None, 'mlp_policy'), 'mlp_policy')


if __name__ == '__main__':
  absltest.main()
