"""Tests for networks/registry.py."""

from unittest import mock

from absl.testing import absltest
import jax
import jax.numpy as jnp

from environments import catch
from environments import specs
from networks import policy
from networks import registry
from tests.networks import network_checks


def _spec():
  return specs.make_environment_spec(catch.make_environment())


class NetworkRegistryTest(absltest.TestCase):

  def test_built_in_networks_by_kind(self):
    self.assertEqual(registry.names(registry.POLICY),
                     ('conv_lstm_policy', 'conv_policy', 'gru_policy',
                      'lstm_policy', 'mlp_policy'))
    self.assertEqual(registry.names(registry.ACTOR_CRITIC),
                     ('conv_actor_critic', 'conv_lstm_actor_critic',
                      'craftax_gru_actor_critic',
                      'gru_actor_critic', 'gru_actor_critic_relu_heads',
                      'jumanji_maze_actor_critic', 'lstm_actor_critic',
                      'mlp_actor_critic', 'mlp_separate_actor_critic',
                      'mlp_separate_actor_critic_relu',
                      'nature_conv_actor_critic',
                      'nature_conv_lstm_actor_critic',
                      'popgym_arcade_actor_critic',
                      'popgym_arcade_lru_actor_critic',
                      'xminigrid_gru_actor_critic'))
    self.assertEqual([n for n in registry.names() if registry.get(n).recurrent],
                     ['conv_lstm_actor_critic', 'conv_lstm_policy',
                      'craftax_gru_actor_critic',
                      'gru_actor_critic', 'gru_actor_critic_relu_heads',
                      'gru_layer_norm_q_values', 'gru_policy',
                      'lstm_actor_critic', 'lstm_policy',
                      'nature_conv_lstm_actor_critic',
                      'popgym_arcade_lru_actor_critic',
                      'xminigrid_gru_actor_critic'])
    self.assertEqual(registry.names(registry.Q_VALUES),
                     ('conv_dueling_q_values', 'conv_layer_norm_q_values',
                      'conv_q_values', 'gru_layer_norm_q_values',
                      'mlp_dueling_q_values', 'mlp_layer_norm_q_values',
                      'mlp_q_values', 'nature_conv_layer_norm_q_values',
                      'nature_conv_q_values'))
    self.assertEqual(registry.names(registry.Q_DISTRIBUTION),
                     ('conv_dueling_q_distribution', 'conv_q_distribution',
                      'mlp_dueling_q_distribution', 'mlp_q_distribution'))
    self.assertEqual(registry.names(registry.LEARNED_MODEL),
                     ('conv_learned_model', 'mlp_learned_model'))

  def test_distribution_networks_give_atoms_per_action(self):
    spec = _spec()
    observations = jnp.zeros((2,) + spec.observations.shape)
    for name in ('mlp_q_distribution', 'mlp_dueling_q_distribution'):
      network = registry.get(name).make(spec, (8,), num_atoms=5)
      params = network.init(jax.random.PRNGKey(0), observations)
      self.assertEqual(network.apply(params, observations).shape, (2, 3, 5),
                       name)
    images = network_checks.image_spec()
    network = registry.get('conv_dueling_q_distribution').make(
        images, None, num_atoms=4)
    frames = jnp.zeros((2,) + images.observations.shape)
    params = network.init(jax.random.PRNGKey(0), frames)
    self.assertEqual(network.apply(params, frames).shape, (2, 3, 4))

  def test_built_in_factories_output_their_kind(self):
    spec = _spec()
    observations = jnp.zeros((3,) + spec.observations.shape)
    for name, check in (
        ('mlp_policy', lambda out: out.shape == (3, 3)),
        ('mlp_q_values', lambda out: out.shape == (3, 3)),
        ('mlp_layer_norm_q_values', lambda out: out.shape == (3, 3)),
        ('mlp_dueling_q_values', lambda out: out.shape == (3, 3)),
        ('mlp_actor_critic',
         lambda out: out[0].shape == (3, 3) and out[1].shape == (3,)),
        ('mlp_separate_actor_critic',
         lambda out: out[0].shape == (3, 3) and out[1].shape == (3,)),
        ('mlp_separate_actor_critic_relu',
         lambda out: out[0].shape == (3, 3) and out[1].shape == (3,))):
      network = registry.get(name).make(spec, (8,))
      params = network.init(jax.random.PRNGKey(0), observations)
      self.assertTrue(check(network.apply(params, observations)), name)

  def test_conv_networks_output_their_kind_on_images(self):
    spec = network_checks.image_spec()
    images = jnp.zeros((3,) + spec.observations.shape)
    for name in ('conv_policy', 'conv_actor_critic', 'conv_q_values'):
      network = registry.get(name).make(spec, None)
      params = network.init(jax.random.PRNGKey(0), images)
      self.assertEqual(params['conv_torso/conv_0']['w'].shape,
                       (3, 3, 4, 16), name)
      out = network.apply(params, images)
      if registry.get(name).kind == registry.ACTOR_CRITIC:
        self.assertEqual((out[0].shape, out[1].shape), ((3, 3), (3,)))
      else:
        self.assertEqual(out.shape, (3, 3), name)

  def test_conv_network_refuses_non_images(self):
    vector = _spec()  # Catch: [10, 5] boards, rank 2.
    for name, valid in (('conv_policy',
                         'gru_policy, lstm_policy, mlp_policy'),
                        ('conv_q_values', 'gru_layer_norm_q_values, '
                         'mlp_dueling_q_values, mlp_layer_norm_q_values, '
                         'mlp_q_values'),
                        ('conv_actor_critic',
                         'craftax_gru_actor_critic, '
                         'gru_actor_critic, gru_actor_critic_relu_heads, '
                         'lstm_actor_critic, '
                         'mlp_actor_critic, mlp_separate_actor_critic, '
                         'mlp_separate_actor_critic_relu')):
      pattern = (rf"Network '{name}' needs observations of rank 3.*"
                 rf'shape \(10, 5\).*Valid choices here: {valid} ')
      with self.assertRaisesRegex(ValueError, pattern):
        registry.get(name).check_observations(vector.observations)
      with self.assertRaisesRegex(ValueError, pattern):
        registry.get(name).make(vector, None)
    registry.get('conv_policy').check_observations(
        network_checks.image_spec().observations)  # Images pass.
    registry.get('mlp_policy').check_observations(
        network_checks.image_spec().observations)  # The MLPs flatten anything.

  def test_unknown_name_lists_the_valid_ones(self):
    with self.assertRaisesRegex(ValueError,
                                r"Unknown network 'resnet'.*mlp_policy"):
      registry.get('resnet')

  def test_wrong_kind_names_both_kinds(self):
    with self.assertRaisesRegex(
        ValueError, r"'mlp_policy' is of kind 'policy'; kind 'q_values'.*"
        r'Valid names: conv_dueling_q_values, conv_layer_norm_q_values, '
        r'conv_q_values, gru_layer_norm_q_values, '
        r'mlp_dueling_q_values, mlp_layer_norm_q_values, mlp_q_values'):
      registry.get('mlp_policy', registry.Q_VALUES)

  def test_bad_kind_is_refused(self):
    with self.assertRaisesRegex(ValueError, 'kind must be one of'):
      registry.NetworkEntry('x', 'logits', lambda spec, sizes: None)

  def test_register_adds_once_and_refuses_another_under_the_same_name(self):
    entry = registry.NetworkEntry(
        'tiny_policy', registry.POLICY,
        lambda spec, sizes: policy.make_policy_network(spec.num_actions, (4,)))
    with mock.patch.dict(registry._ENTRIES.by_name):  # pylint: disable=protected-access
      registry.register(entry)
      registry.register(entry)  # The same entry again: a no-op.
      self.assertIn('tiny_policy', registry.names(registry.POLICY))
      with self.assertRaisesRegex(ValueError, 'already registered'):
        registry.register(registry.NetworkEntry(
            'tiny_policy', registry.POLICY, lambda spec, sizes: None))
    self.assertNotIn('tiny_policy', registry.names())


if __name__ == '__main__':
  absltest.main()
