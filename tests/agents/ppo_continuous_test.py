"""Tests for agents/ppo.py over continuous actions (a Gaussian policy)."""

import math

from absl.testing import absltest
from absl.testing import parameterized
import chex
from dm_env import specs as dm_specs
import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents import agent as agent_lib
from agents import gaussian_policies
from agents import ppo
from agents import registry as agent_registry
from environments import registry as env_registry
from environments import specs
from networks import gaussian_actor_critic
from tests.agents import a2c_test
from tests.agents import ppo_test

_OBS = 3
_DIM = 2
_VALUE = 0.5  # The bias network's constant value at init.
_HALF_LOG_2PIE = 0.5 * math.log(2 * math.pi * math.e)


def _spec(low=-2.0, high=2.0, bounded=True) -> specs.EnvironmentSpec:
  actions = (dm_specs.BoundedArray((_DIM,), np.float32, low, high)
             if bounded else dm_specs.Array((_DIM,), np.float32))
  return specs.make_spec(
      dm_specs.Array((_OBS,), np.float32),
      actions)


def _mlp_network(action_dim=_DIM):
  return gaussian_actor_critic.make_gaussian_actor_critic_network(
      action_dim, hidden_sizes=(16,))


def _bias_network() -> hk.Transformed:
  """Means = a bias (0), log-stds = a vector (0), value = _VALUE."""

  def forward(observations):
    batch = observations.shape[:-1]
    mean = hk.get_parameter('mean', [_DIM], init=jnp.zeros)
    log_std = hk.get_parameter('log_std', [_DIM], init=jnp.zeros)
    value = hk.get_parameter('value', [],
                             init=hk.initializers.Constant(_VALUE))
    return (jnp.broadcast_to(mean, batch + (_DIM,)),
            jnp.broadcast_to(log_std, batch + (_DIM,)),
            jnp.broadcast_to(value, batch))

  return hk.without_apply_rng(hk.transform(forward))


def _agent(network=None, spec=None, **config):
  settings = dict(discount=0.5, gae_lambda=1.0, unroll_length=2,
                  batch_size=1, num_epochs=1, num_minibatches=1,
                  normalize_advantages=False, value_clip_epsilon=None,
                  entropy_cost=0.0)
  settings.update(config)
  return ppo.make_agent(ppo.PPOConfig(**settings), spec or _spec(),
                        network or _mlp_network())


def _observations(n=5, seed=0):
  return jax.random.normal(jax.random.PRNGKey(seed), (n, _OBS))


def _two_step_trajectory(rewards=(1.0, 0.0), log_prob=None):
  """T = 2, B = 1, actions [0.5, -0.5] then [1, 1]."""
  actions = np.array([[[0.5, -0.5]], [[1.0, 1.0]]], np.float32)
  if log_prob is None:  # The bias network's policy at init: N(0, I).
    log_prob = np.sum(-0.5 * actions**2 - 0.5 * math.log(2 * math.pi), -1)
  return agent_lib.Trajectory(
      observations=np.zeros((2, 1, _OBS), np.float32),
      actions=actions,
      rewards=np.asarray(rewards, np.float32).reshape(2, 1),
      discounts=np.ones((2, 1), np.float32),
      last=np.zeros((2, 1), bool),
      mask=np.ones((2, 1), np.float32),
      final_observations=np.zeros((1, _OBS), np.float32),
      extras={'log_prob': np.asarray(log_prob, np.float32).reshape(2, 1),
              'value': np.full((2, 1), _VALUE, np.float32)})


def _random_trajectory(agent, params, t=8, b=4, seed=0):
  """`[t, b]` steps the agent acts in, with random rewards and ends."""
  keys = jax.random.split(jax.random.PRNGKey(seed), 4)
  observations = jax.random.normal(keys[0], (t, b, _OBS))
  actions, extras = jax.vmap(agent.act, in_axes=(None, 0, 0))(
      params, jax.random.split(keys[1], t), observations)
  return agent_lib.Trajectory(
      observations=observations, actions=actions,
      rewards=jax.random.normal(keys[2], (t, b)),
      discounts=jnp.ones((t, b)),
      last=jax.random.bernoulli(keys[3], 0.2, (t, b)),
      mask=jnp.ones((t, b)),
      final_observations=jax.random.normal(keys[0], (b, _OBS)),
      extras=extras)


def _flat(params):
  return np.concatenate([np.ravel(x) for x in jax.tree.leaves(params)])


class PPOContinuousActingTest(parameterized.TestCase):

  @parameterized.parameters(False, True)
  def test_act_gives_float_actions_and_extras(self, squash):
    agent = _agent(squash_actions=squash)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    actions, extras = jax.jit(agent.act)(params, jax.random.PRNGKey(1),
                                         _observations())
    self.assertEqual(actions.shape, (5, _DIM))
    self.assertEqual(actions.dtype, jnp.float32)
    self.assertCountEqual(extras, ['log_prob', 'value'])
    self.assertEqual(extras['log_prob'].shape, (5,))
    self.assertEqual(extras['value'].shape, (5,))
    # Stored log-prob and value are those of the network's Gaussian.
    means, log_stds, values = _mlp_network().apply(params, _observations())
    np.testing.assert_allclose(extras['value'], values, rtol=1e-5)
    expected = gaussian_policies.log_prob(means, log_stds, actions,
                                          _spec().actions, squash)
    np.testing.assert_allclose(extras['log_prob'], expected, rtol=1e-5)
    if not squash:  # N(mean, 1) at init: log-prob from the sample alone.
      by_hand = np.sum(-0.5 * (np.asarray(actions) - np.asarray(means))**2 -
                       0.5 * math.log(2 * math.pi), -1)
      np.testing.assert_allclose(extras['log_prob'], by_hand, rtol=1e-5)

  def test_squashed_actions_lie_within_the_bounds(self):
    spec = _spec(low=-1.0, high=3.0)
    agent = _agent(squash_actions=True, spec=spec)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    params = dict(params, **{'~': {'log_std': jnp.full((_DIM,), 1.5)}})
    actions, _ = agent.act(params, jax.random.PRNGKey(1),
                           _observations(n=512))
    self.assertTrue(bool(jnp.all((actions >= -1.0) & (actions <= 3.0))))
    unsquashed = _agent(spec=spec)
    actions, _ = unsquashed.act(params, jax.random.PRNGKey(1),
                                _observations(n=512))
    self.assertTrue(bool(jnp.any((actions < -1.0) | (actions > 3.0))))

  def test_deployable_policy_is_the_clipped_mean(self):
    agent = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    params = dict(params, policy_mean=dict(params['policy_mean'],
                                           b=jnp.array([5.0, 0.3])))
    outputs = jax.jit(agent.deployable_policy)(params, _observations())
    self.assertEqual(outputs.shape, (5, _DIM))
    means, _, _ = _mlp_network().apply(params, _observations())
    np.testing.assert_allclose(outputs, jnp.clip(means, -2.0, 2.0),
                               rtol=1e-6)
    np.testing.assert_allclose(outputs[:, 0], 2.0)  # Clipped component.
    self.assertTrue(bool(jnp.all(jnp.abs(outputs[:, 1] - 0.3) < 0.1)))

  def test_squashed_deployable_policy_is_the_squashed_mean(self):
    agent = _agent(squash_actions=True)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    outputs = agent.deployable_policy(params, _observations())
    means, _, _ = _mlp_network().apply(params, _observations())
    np.testing.assert_allclose(outputs, 2.0 * jnp.tanh(means), rtol=1e-5,
                               atol=1e-7)

  def test_pendulum_through_the_registry(self):
    spec = specs.make_environment_spec(
        env_registry.make_environment('gymnax:Pendulum-v1'))
    agent = agent_registry.make_agent(
        'ppo', agent_registry.make_config('ppo'), spec, hidden_sizes=(8,))
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    np.testing.assert_array_equal(params['~']['log_std'], [0.0])
    actions, extras = agent.act(params, jax.random.PRNGKey(1),
                                jnp.zeros((4, 3)))
    self.assertEqual(actions.shape, (4, 1))
    self.assertEqual(extras['log_prob'].shape, (4,))
    self.assertEqual(agent.deployable_policy(params, jnp.zeros((4, 3))).shape,
                     (4, 1))


class PPOContinuousUpdateTest(parameterized.TestCase):

  def test_first_minibatch_losses_hand_computed(self):
    # Behaviour = current policy: ratios 1, policy loss -mean(advantages).
    # λ = 1, γ = 0.5, V = 0.5: returns [1 + 0.5·0.25, 0 + 0.5·0.5].
    agent = _agent(network=_bias_network())
    _, metrics = jax.jit(agent.update)(agent.init(jax.random.PRNGKey(0)),
                                       _two_step_trajectory())
    ppo_test.assert_first_minibatch_losses(metrics)
    # Entropy of N(0, I) in 2 dimensions.
    self.assertAlmostEqual(float(metrics['entropy']), 2 * _HALF_LOG_2PIE,
                           places=5)

  def test_reward_scale_scales_the_gae_inputs(self):
    # × 2: returns [2 + 0.125, 0.25], advantages [1.625, -0.25].
    agent = _agent(network=_bias_network(), reward_scale=2.0)
    _, metrics = agent.update(agent.init(jax.random.PRNGKey(0)),
                              _two_step_trajectory())
    self.assertAlmostEqual(float(metrics['policy_loss']), -0.6875, places=5)
    self.assertAlmostEqual(float(metrics['value_loss']),
                           0.5 * (1.625**2 + 0.25**2) / 2, places=5)

  @pytest.mark.slow  # Over 5 s cold (docs/testing.md).
  def test_reward_scale_equals_scaled_rewards(self):
    kwargs = dict(unroll_length=8, batch_size=4, num_epochs=2,
                  num_minibatches=2, normalize_advantages=True,
                  value_clip_epsilon=0.2, entropy_cost=0.01,
                  learning_rate=1e-2)
    init_agent = _agent(**kwargs)
    params = init_agent.actor_params(init_agent.init(jax.random.PRNGKey(0)))
    trajectory = _random_trajectory(init_agent, params)
    doubled = trajectory._replace(rewards=2.0 * trajectory.rewards)
    results = {}
    for name, scale, batch in (('scaled', 2.0, trajectory),
                               ('doubled', 1.0, doubled),
                               ('plain', 1.0, trajectory)):
      agent = _agent(reward_scale=scale, **kwargs)
      results[name], _ = jax.jit(agent.update)(
          agent.init(jax.random.PRNGKey(0)), batch)
    chex.assert_trees_all_close(results['scaled'].params,
                                results['doubled'].params, rtol=1e-6,
                                atol=1e-7)
    self.assertFalse(np.allclose(_flat(results['scaled'].params),
                                 _flat(results['plain'].params)))

  @parameterized.parameters(False, True)
  @pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
  def test_update_changes_params_with_finite_metrics(self, squash):
    agent = _agent(squash_actions=squash, unroll_length=8, batch_size=4,
                   num_epochs=2, num_minibatches=4,
                   normalize_advantages=True, value_clip_epsilon=0.2,
                   entropy_cost=0.01, learning_rate=1e-3)
    state = agent.init(jax.random.PRNGKey(0))
    trajectory = _random_trajectory(agent, agent.actor_params(state))
    self.assertEqual(trajectory.actions.shape, (8, 4, _DIM))
    new_state, metrics = jax.jit(agent.update)(state, trajectory)
    self.assertEqual(int(new_state.updates), 1)
    self.assertCountEqual(metrics, ['loss', 'policy_loss', 'value_loss',
                                    'entropy', 'clip_fraction', 'grad_norm'])
    chex.assert_tree_all_finite(metrics)
    chex.assert_tree_all_finite(new_state.params)
    for name in new_state.params:  # Every module moves, the log-std too.
      before, after = _flat(state.params[name]), _flat(new_state.params[name])
      self.assertFalse(np.allclose(before, after), name)

  def test_positive_advantage_moves_the_mean_towards_the_action(self):
    # Action [0.5, -0.5] then [1, 1] (reward 1 on the first step only):
    # the mean moves towards the first action's direction more.
    agent = _agent(network=_bias_network(), learning_rate=0.05,
                   num_epochs=3)
    state, _ = agent.update(agent.init(jax.random.PRNGKey(0)),
                            _two_step_trajectory())
    mean = np.asarray(state.params['~']['mean'])
    # Advantages [0.625, -0.25]: gradient ∝ 0.625·a0 - 0.25·a1 = [0.0625,
    # -0.5625]: component 0 up, component 1 down.
    self.assertGreater(mean[0], 0.0)
    self.assertLess(mean[1], 0.0)


class PPOContinuousChecksTest(absltest.TestCase):

  def test_squash_actions_on_a_discrete_spec_is_refused(self):
    with self.assertRaisesRegex(ValueError, 'squash_actions.*discrete'):
      ppo.make_agent(ppo.PPOConfig(squash_actions=True), a2c_test._spec(),  # pylint: disable=protected-access
                     a2c_test.bias_actor_critic())

  def test_squash_actions_without_finite_bounds_is_refused(self):
    with self.assertRaisesRegex(ValueError, 'squash_actions.*no bounds'):
      _agent(squash_actions=True, spec=_spec(bounded=False))
    _agent(spec=_spec(bounded=False))  # Unsquashed: fine.

  def test_network_of_the_wrong_action_dim_is_refused(self):
    agent = _agent(network=_mlp_network(action_dim=3))
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    with self.assertRaisesRegex(ValueError, '3 action components.*has 2'):
      agent.act(params, jax.random.PRNGKey(1), _observations())

  def test_reward_scale_must_be_positive(self):
    with self.assertRaisesRegex(ValueError, 'reward_scale'):
      ppo.PPOConfig(reward_scale=0.0)


if __name__ == '__main__':
  absltest.main()
