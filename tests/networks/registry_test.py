"""Tests for networks/registry.py."""

from unittest import mock

from absl.testing import absltest
import jax
import jax.numpy as jnp

from environments import catch
from environments import specs
from networks import policy
from networks import registry


def _spec():
  return specs.make_environment_spec(catch.make_environment())


class NetworkRegistryTest(absltest.TestCase):

  def test_built_in_networks_by_kind(self):
    self.assertEqual(registry.names(registry.POLICY), ('mlp_policy',))
    self.assertEqual(registry.names(registry.ACTOR_CRITIC),
                     ('mlp_actor_critic',))
    self.assertEqual(registry.names(registry.Q_VALUES), ('mlp_q_values',))

  def test_built_in_factories_output_their_kind(self):
    spec = _spec()
    observations = jnp.zeros((3,) + spec.observations.shape)
    for name, check in (
        ('mlp_policy', lambda out: out.shape == (3, 3)),
        ('mlp_q_values', lambda out: out.shape == (3, 3)),
        ('mlp_actor_critic',
         lambda out: out[0].shape == (3, 3) and out[1].shape == (3,))):
      network = registry.get(name).make(spec, (8,))
      params = network.init(jax.random.PRNGKey(0), observations)
      self.assertTrue(check(network.apply(params, observations)), name)

  def test_unknown_name_lists_the_valid_ones(self):
    with self.assertRaisesRegex(ValueError,
                                r"Unknown network 'resnet'.*mlp_policy"):
      registry.get('resnet')

  def test_wrong_kind_names_both_kinds(self):
    with self.assertRaisesRegex(
        ValueError, r"'mlp_policy' is of kind 'policy'; kind 'q_values'.*"
        r'Valid names: mlp_q_values'):
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
