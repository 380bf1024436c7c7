"""Tests for networks/policy.py."""

from absl.testing import absltest
import jax
import jax.numpy as jnp

from networks import policy
from tests.networks import network_checks


class PolicyNetworkTest(absltest.TestCase):

  def test_reference_layout_for_plane_strike(self):
    net = policy.make_policy_network(64, (128, 64))
    params = net.init(jax.random.PRNGKey(0), jnp.zeros((1, 8, 8)))
    weight_shapes = sorted(p['w'].shape for p in params.values())
    # flatten(64) -> 128 ReLU -> 64 ReLU -> 64 logits, as the reference app.
    self.assertEqual(weight_shapes, sorted([(64, 128), (128, 64), (64, 64)]))
    logits = net.apply(params, jnp.zeros((3, 8, 8)))
    self.assertEqual(logits.shape, (3, 64))

  def test_default_is_64_64(self):
    net = policy.make_policy_network(3)
    params = net.init(jax.random.PRNGKey(0), jnp.zeros((1, 5)))
    self.assertEqual(sorted(p['w'].shape for p in params.values()),
                     [(5, 64), (64, 3), (64, 64)])

  def test_custom_hidden_sizes(self):
    self.assertEqual(network_checks.weight_shapes(
        policy.make_policy_network(5, hidden_sizes=(7,)), (3,)),
                     [(3, 7), (7, 5)])

  def test_apply_is_deterministic(self):
    net = policy.make_policy_network(4)
    params = net.init(jax.random.PRNGKey(0), jnp.zeros((1, 2)))
    x = jnp.ones((1, 2))
    self.assertTrue(bool(jnp.array_equal(net.apply(params, x),
                                         net.apply(params, x))))


if __name__ == '__main__':
  absltest.main()
