"""Tests for networks/actor_critic.py."""

from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np

from networks import actor_critic
from tests.networks import network_checks


class ActorCriticTest(absltest.TestCase):

  def test_shapes_and_shared_torso(self):
    net = actor_critic.make_actor_critic_network(3, hidden_sizes=(8, 4))
    params = net.init(jax.random.PRNGKey(0), jnp.zeros((1, 5)))
    logits, values = net.apply(params, jnp.ones((7, 5)))
    self.assertEqual(logits.shape, (7, 3))
    self.assertEqual(values.shape, (7,))
    shapes = sorted(p['w'].shape for p in params.values())
    # One torso (5->8->4) feeding both heads (4->3 and 4->1).
    self.assertEqual(shapes, sorted([(5, 8), (8, 4), (4, 3), (4, 1)]))

  def test_default_is_64_64_tanh(self):
    net = actor_critic.make_actor_critic_network(2)
    params = net.init(jax.random.PRNGKey(0), jnp.zeros((1, 4)))
    self.assertIn((4, 64), [p['w'].shape for p in params.values()])



def _separate(num_actions=3, hidden_sizes=None, observation_size=5):
  net = actor_critic.make_separate_actor_critic_network(num_actions,
                                                        hidden_sizes)
  params = net.init(jax.random.PRNGKey(0), jnp.zeros((1, observation_size)))
  return net, params


def _shifted(params, prefix):
  """`params` with every array of the modules under `prefix` moved."""
  return {name: ({k: v + 0.5 for k, v in module.items()}
                 if name.startswith(prefix) else module)
          for name, module in params.items()}


class SeparateActorCriticTest(absltest.TestCase):

  def test_shapes_and_default_widths(self):
    net, params = _separate()
    logits, values = net.apply(params, jnp.ones((7, 5)))
    self.assertEqual(logits.shape, (7, 3))
    self.assertEqual(values.shape, (7,))
    shapes = sorted(p['w'].shape for p in params.values())
    # Two towers 5 -> 64 -> 64, one ending in 3 logits, one in 1 value.
    self.assertEqual(shapes, sorted([(5, 64), (64, 64), (64, 3),
                                     (5, 64), (64, 64), (64, 1)]))

  def test_no_parameter_is_shared(self):
    net, params = _separate(hidden_sizes=(8, 4))
    self.assertTrue(all(name.startswith(('policy', 'value'))
                        for name in params), list(params))
    x = jax.random.normal(jax.random.PRNGKey(1), (6, 5))
    logits, values = net.apply(params, x)
    # Moving the critic leaves the policy alone, and the other way round.
    moved_logits, moved_values = net.apply(_shifted(params, 'value'), x)
    np.testing.assert_array_equal(moved_logits, logits)
    self.assertGreater(float(jnp.max(jnp.abs(moved_values - values))), 0.1)
    moved_logits, moved_values = net.apply(_shifted(params, 'policy'), x)
    np.testing.assert_array_equal(moved_values, values)
    self.assertGreater(float(jnp.max(jnp.abs(moved_logits - logits))), 0.1)
    # The gradient of the logits never reaches the critic.
    grads = jax.grad(lambda p: jnp.sum(net.apply(p, x)[0] ** 2))(params)
    network_checks.assert_reaches_only(
        grads, lambda module: not module.startswith('value'))

  def test_orthogonal_init_scales_and_zero_biases(self):
    _, params = _separate(hidden_sizes=(64, 64), observation_size=5)

    def gram(w):  # Along the smaller side: scale**2 * I for orthogonal w.
      w = np.asarray(w)
      return w.T @ w if w.shape[1] <= w.shape[0] else w @ w.T

    scales = {
        'policy_torso/~/linear_0': 2.0, 'policy_torso/~/linear_1': 2.0,
        'value_torso/~/linear_0': 2.0, 'value_torso/~/linear_1': 2.0,
        'policy': 0.01 ** 2, 'value': 1.0}
    self.assertCountEqual(params, scales)
    for name, squared in scales.items():
      g = gram(params[name]['w'])
      np.testing.assert_allclose(g, squared * np.eye(len(g)),
                                 atol=1e-5 * max(squared, 1.0), err_msg=name)
      np.testing.assert_array_equal(params[name]['b'], 0.0)

  def test_tanh_hidden_layers(self):
    net, params = _separate(hidden_sizes=(4,))
    params['policy']['w'] = jnp.eye(4, 3)
    logits, _ = net.apply(params, 100.0 * jnp.ones((2, 5)))
    self.assertTrue(bool(jnp.all(jnp.abs(logits) <= 1.0)))


if __name__ == '__main__':
  absltest.main()
