"""Tests for networks/gaussian_actor_critic.py."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from networks import gaussian_actor_critic
from tests.networks import network_checks

_OBS = 5


def _network(action_dim=2, **kwargs):
  net = gaussian_actor_critic.make_gaussian_actor_critic_network(
      action_dim, **kwargs)
  params = net.init(jax.random.PRNGKey(0), jnp.zeros((1, _OBS)))
  return net, params


def _observations(n=7, scale=1.0, seed=1):
  return scale * jax.random.normal(jax.random.PRNGKey(seed), (n, _OBS))


class GaussianActorCriticTest(parameterized.TestCase):

  @parameterized.parameters(False, True)
  def test_output_shapes(self, state_dependent_std):
    net, params = _network(3, hidden_sizes=(8, 4),
                           state_dependent_std=state_dependent_std)
    means, log_stds, values = net.apply(params, _observations())
    self.assertEqual(means.shape, (7, 3))
    self.assertEqual(log_stds.shape, (7, 3))
    self.assertEqual(values.shape, (7,))
    for x in (means, log_stds, values):
      self.assertEqual(x.dtype, jnp.float32)

  def test_default_widths_are_64_64_and_towers_are_separate(self):
    _, params = _network(2)
    shapes = sorted(p['w'].shape for p in params.values() if 'w' in p)
    self.assertEqual(shapes, sorted([(_OBS, 64), (64, 64), (64, 2),
                                     (_OBS, 64), (64, 64), (64, 1)]))

  def test_state_independent_log_std_is_one_learned_vector(self):
    net, params = _network(3, hidden_sizes=(8,), initial_log_std=-0.5)
    # One [D] parameter, starting at initial_log_std.
    log_std_leaves = [(module, name) for module, entries in params.items()
                      for name in entries if name == 'log_std']
    self.assertLen(log_std_leaves, 1)
    module, name = log_std_leaves[0]
    np.testing.assert_array_equal(params[module][name], [-0.5] * 3)
    _, log_stds, _ = net.apply(params, _observations(scale=10.0))
    np.testing.assert_array_equal(log_stds, np.full((7, 3), -0.5))
    # Moving the vector moves every row equally, whatever the observation.
    moved = {m: dict(e) for m, e in params.items()}
    moved[module][name] = jnp.array([0.1, -1.0, 0.7])
    _, log_stds, _ = net.apply(moved, _observations(scale=3.0, seed=2))
    np.testing.assert_allclose(
        log_stds, np.tile([0.1, -1.0, 0.7], (7, 1)), rtol=1e-6)
    # And it is learned: the gradient reaches it.
    grads = jax.grad(lambda p: jnp.sum(net.apply(p, _observations())[1]))(
        params)
    np.testing.assert_allclose(grads[module][name], [7.0] * 3)

  def test_initial_log_std_default_is_zero(self):
    net, params = _network(2, hidden_sizes=(8,))
    _, log_stds, _ = net.apply(params, _observations())
    np.testing.assert_array_equal(log_stds, np.zeros((7, 2)))

  def test_state_dependent_log_std_varies_and_stays_in_range(self):
    net, params = _network(2, hidden_sizes=(16,), state_dependent_std=True)
    self.assertFalse(any(name == 'log_std' for entries in params.values()
                         for name in entries))
    # Scale the head up so the raw output is large: near both ends.
    params = {m: dict(e) for m, e in params.items()}
    head = [m for m in params if 'log_std' in m]
    self.assertLen(head, 1)
    params[head[0]]['w'] = params[head[0]]['w'] * 1e4
    _, log_stds, _ = net.apply(params, _observations(n=64, scale=5.0))
    low, high = gaussian_actor_critic.LOG_STD_RANGE
    self.assertTrue(bool(jnp.all(log_stds >= low)))
    self.assertTrue(bool(jnp.all(log_stds <= high)))
    self.assertLess(float(log_stds.min()), low + 0.5)
    self.assertGreater(float(log_stds.max()), high - 0.5)
    # Rows differ with the observation.
    self.assertGreater(float(jnp.max(jnp.std(log_stds, axis=0))), 0.1)

  def test_state_dependent_log_std_varies_at_init(self):
    net, params = _network(2, hidden_sizes=(16,), state_dependent_std=True)
    _, log_stds, _ = net.apply(params, _observations(n=16, scale=3.0))
    self.assertGreater(float(jnp.max(jnp.std(log_stds, axis=0))), 0.0)

  def test_bounded_log_std_maps_into_the_range(self):
    low, high = gaussian_actor_critic.LOG_STD_RANGE
    out = gaussian_actor_critic.bounded_log_std(
        jnp.array([-100.0, 0.0, 100.0]))
    np.testing.assert_allclose(out, [low, (low + high) / 2, high], atol=1e-6)

  def test_mean_head_starts_small_and_critic_is_separate(self):
    net, params = _network(2)
    x = _observations(scale=1.0)
    means, _, values = net.apply(params, x)
    # Orthogonal 0.01 on the mean head: tiny means at init.
    self.assertLess(float(jnp.max(jnp.abs(means))), 0.1)
    # The value's gradient never reaches the actor.
    grads = jax.grad(lambda p: jnp.sum(net.apply(p, x)[2]))(params)
    network_checks.assert_reaches_only(
        grads, lambda module: module.startswith('value'))

  @parameterized.parameters(0, -1)
  def test_action_dim_below_one_is_refused(self, action_dim):
    with self.assertRaisesRegex(ValueError, f'action_dim.*{action_dim}'):
      gaussian_actor_critic.make_gaussian_actor_critic_network(action_dim)


if __name__ == '__main__':
  absltest.main()
