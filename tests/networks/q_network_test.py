"""Tests for networks/q_network.py."""

from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np

from networks import q_network


class QNetworkTest(absltest.TestCase):

  def test_default_layout(self):
    net = q_network.make_q_network(3)
    params = net.init(jax.random.PRNGKey(0), jnp.zeros((1, 10, 5)))
    weight_shapes = sorted(p['w'].shape for p in params.values())
    # flatten(50) -> 64 ReLU -> 64 ReLU -> 3 linear Q-values.
    self.assertEqual(weight_shapes, sorted([(50, 64), (64, 64), (64, 3)]))
    self.assertIn('q_values', params)
    q_values = net.apply(params, jnp.zeros((7, 10, 5)))
    self.assertEqual(q_values.shape, (7, 3))

  def test_custom_hidden_sizes(self):
    net = q_network.make_q_network(5, hidden_sizes=(7,))
    params = net.init(jax.random.PRNGKey(0), jnp.zeros((1, 3)))
    self.assertEqual(sorted(p['w'].shape for p in params.values()),
                     [(3, 7), (7, 5)])

  def test_head_is_linear_so_q_values_can_be_negative(self):
    net = q_network.make_q_network(2, hidden_sizes=(4,))
    params = net.init(jax.random.PRNGKey(0), jnp.zeros((1, 3)))
    params['q_values']['b'] = jnp.array([-2.0, 1.0])
    q_values = net.apply(params, jnp.zeros((1, 3)))
    np.testing.assert_allclose(np.asarray(q_values), [[-2.0, 1.0]])

  def test_bad_num_actions(self):
    with self.assertRaisesRegex(ValueError, 'num_actions'):
      q_network.make_q_network(0)


if __name__ == '__main__':
  absltest.main()
