"""Tests for networks/actor_twin_q.py."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from networks import actor_twin_q
from networks import gaussian_actor_critic
from tests.networks import network_checks

_OBS = 3


def _network(action_dim=2, hidden_sizes=(8,)):
  net = actor_twin_q.make_actor_twin_q_network(action_dim, hidden_sizes)
  params = net.init(jax.random.PRNGKey(0), jnp.zeros((1, _OBS)),
                    jnp.zeros((1, action_dim)))
  return net, params


def _inputs(n=6, action_dim=2, seed=1):
  obs_key, action_key = jax.random.split(jax.random.PRNGKey(seed))
  return (jax.random.normal(obs_key, (n, _OBS)),
          jax.random.uniform(action_key, (n, action_dim), minval=-1.0,
                             maxval=1.0))


class ActorTwinQTest(parameterized.TestCase):

  def test_init_creates_actor_and_both_critics(self):
    _, params = _network(2, (8,))
    self.assertEqual(
        {name: params[name]['w'].shape for name in params},
        {'actor/~/linear_0': (_OBS, 8),
         'actor/~/linear_1': (8, 4),  # Means and raw log-stds: 2 · D.
         'critic_0/~/linear_0': (_OBS + 2, 8),  # Observation and action.
         'critic_0/~/linear_1': (8, 1),
         'critic_1/~/linear_0': (_OBS + 2, 8),
         'critic_1/~/linear_1': (8, 1)})

  def test_default_widths_are_256_256(self):
    net = actor_twin_q.make_actor_twin_q_network(1)
    params = net.init(jax.random.PRNGKey(0), jnp.zeros((1, _OBS)),
                      jnp.zeros((1, 1)))
    self.assertEqual(params['actor/~/linear_1']['w'].shape, (256, 256))
    self.assertEqual(params['critic_1/~/linear_0']['w'].shape, (_OBS + 1, 256))

  def test_split_params_separates_actor_and_critics(self):
    _, params = _network()
    actor, critic = actor_twin_q.split_params(params)
    self.assertNotEmpty(actor)
    self.assertNotEmpty(critic)
    self.assertTrue(all(k.startswith('actor') for k in actor), list(actor))
    self.assertTrue(all(k.startswith('critic') for k in critic),
                    list(critic))
    self.assertCountEqual(list(actor) + list(critic), list(params))
    self.assertEqual({k.split('/')[0] for k in critic},
                     {'critic_0', 'critic_1'})

  def test_each_function_applies_with_its_own_params(self):
    net, params = _network()
    actor_params, critic_params = actor_twin_q.split_params(params)
    actor_apply, critic_apply = net.apply
    observations, actions = _inputs()
    means, log_stds = actor_apply(actor_params, observations)
    q = critic_apply(critic_params, observations, actions)
    # Same outputs as with the whole tree.
    np.testing.assert_array_equal(means, actor_apply(params, observations)[0])
    np.testing.assert_array_equal(
        q, critic_apply(params, observations, actions))
    self.assertEqual(log_stds.shape, means.shape)

  @parameterized.parameters(1, 3)
  def test_actor_output_shapes_and_bounded_log_stds(self, action_dim):
    net, params = _network(action_dim)
    observations, _ = _inputs(action_dim=action_dim)
    means, log_stds = net.apply[0](params, 100.0 * observations)
    self.assertEqual(means.shape, (6, action_dim))
    self.assertEqual(log_stds.shape, (6, action_dim))
    low, high = gaussian_actor_critic.LOG_STD_RANGE
    self.assertTrue(bool(jnp.all((log_stds >= low) & (log_stds <= high))))

  @parameterized.parameters(1, 3)
  def test_critic_outputs_one_column_per_critic(self, action_dim):
    net, params = _network(action_dim)
    observations, actions = _inputs(action_dim=action_dim)
    q = net.apply[1](params, observations, actions)
    self.assertEqual(q.shape, (6, 2))
    self.assertEqual(q.dtype, jnp.float32)

  def test_the_two_critics_differ(self):
    net, params = _network()
    np.testing.assert_raises(
        AssertionError, np.testing.assert_array_equal,
        params['critic_0/~/linear_0']['w'], params['critic_1/~/linear_0']['w'])
    observations, actions = _inputs()
    q = net.apply[1](params, observations, actions)
    self.assertGreater(float(jnp.max(jnp.abs(q[:, 0] - q[:, 1]))), 1e-4)

  def test_critic_depends_on_the_action(self):
    net, params = _network()
    observations, actions = _inputs()
    q = net.apply[1](params, observations, actions)
    q_other = net.apply[1](params, observations, actions + 0.5)
    self.assertGreater(float(jnp.max(jnp.abs(q - q_other))), 1e-4)

  def test_critic_gradient_never_reaches_the_actor(self):
    net, params = _network()
    observations, actions = _inputs()
    grads = jax.grad(
        lambda p: jnp.sum(net.apply[1](p, observations, actions)))(params)
    network_checks.assert_reaches_only(
        grads, lambda module: not module.startswith('actor'))

  @parameterized.parameters(0, -2)
  def test_action_dim_below_one_is_refused(self, action_dim):
    with self.assertRaisesRegex(ValueError, f'action_dim.*{action_dim}'):
      actor_twin_q.make_actor_twin_q_network(action_dim)


if __name__ == '__main__':
  absltest.main()
