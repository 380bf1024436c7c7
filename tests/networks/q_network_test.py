"""Tests for networks/q_network.py."""

from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np

from networks import q_network
from tests.networks import network_checks


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
    self.assertEqual(network_checks.weight_shapes(
        q_network.make_q_network(5, hidden_sizes=(7,)), (3,)),
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


class DuelingQNetworkTest(absltest.TestCase):

  def test_q_is_value_plus_centred_advantages(self):
    net = q_network.make_dueling_q_network(3, hidden_sizes=(4,))
    observations = jax.random.normal(jax.random.PRNGKey(1), (5, 6))
    params = net.init(jax.random.PRNGKey(0), observations)
    self.assertEqual(params['value']['w'].shape, (4, 1))
    self.assertEqual(params['advantages']['w'].shape, (4, 3))
    # Only the value's bias moves: every Q-value moves by the same amount.
    shifted = dict(params, value={'w': params['value']['w'],
                                  'b': params['value']['b'] + 2.0})
    q = net.apply(params, observations)
    self.assertEqual(q.shape, (5, 3))
    np.testing.assert_allclose(net.apply(shifted, observations) - q, 2.0,
                               rtol=1e-5)
    # An advantage bias common to all actions cancels out.
    common = dict(params, advantages={
        'w': params['advantages']['w'],
        'b': params['advantages']['b'] + 5.0})
    np.testing.assert_allclose(net.apply(common, observations), q,
                               rtol=1e-5, atol=1e-5)


  def test_with_atoms_the_advantages_centre_per_atom(self):
    net = q_network.make_dueling_q_network(3, hidden_sizes=(4,), num_atoms=2)
    observations = jax.random.normal(jax.random.PRNGKey(1), (5, 6))
    params = net.init(jax.random.PRNGKey(0), observations)
    outputs = net.apply(params, observations)
    self.assertEqual(outputs.shape, (5, 3, 2))
    # An advantage bias shared by the actions of one atom cancels out;
    # one that differs between actions does not.
    bias = params['advantages']['b'].reshape(3, 2)
    shared = bias + jnp.array([[4.0, -1.0]])
    moved = lambda b: net.apply(dict(params, advantages={
        'w': params['advantages']['w'], 'b': b.reshape(-1)}), observations)
    np.testing.assert_allclose(moved(shared), outputs, rtol=1e-5, atol=1e-5)
    self.assertFalse(np.allclose(moved(bias.at[0, 0].add(3.0)), outputs))


if __name__ == '__main__':
  absltest.main()
