"""Tests for agents/ppo.py."""

import math

from absl.testing import absltest
from absl.testing import parameterized
import chex
import jax
import jax.numpy as jnp
import numpy as np

from agents import agent as agent_lib
from agents import ppo
from tests.agents import a2c_test

NUM_ACTIONS = a2c_test.NUM_ACTIONS


def _agent(**config):
  settings = dict(discount=0.5, gae_lambda=1.0, unroll_length=2,
                  batch_size=1, num_epochs=1, num_minibatches=1,
                  normalize_advantages=False, value_clip_epsilon=None,
                  entropy_cost=0.0)
  settings.update(config)
  return ppo.make_agent(ppo.PPOConfig(**settings), a2c_test._spec(),  # pylint: disable=protected-access
                        a2c_test.bias_actor_critic())


def assert_first_minibatch_losses(metrics):
  """Losses of a first minibatch whose behaviour is the current policy
  (ratios 1, no clipping) on the two steps of `a2c_test`'s trajectory,
  with advantages [0.625, -0.25]: -mean(advantages), ½ mean squared."""
  np.testing.assert_allclose(float(metrics['policy_loss']), -0.1875,
                             atol=1e-5)
  np.testing.assert_allclose(float(metrics['value_loss']),
                             0.5 * (0.625**2 + 0.25**2) / 2, atol=1e-5)
  assert float(metrics['clip_fraction']) == 0.0


def _trajectory(log_prob=-math.log(NUM_ACTIONS)):
  extras = {'log_prob': np.full((2, 1), log_prob, np.float32),
            'value': np.full((2, 1), a2c_test.VALUE, np.float32)}
  return a2c_test.two_step_trajectory(extras=extras)


class PPOTest(parameterized.TestCase):

  def test_first_minibatch_losses_hand_computed(self):
    # Behaviour = current policy, so every ratio is 1 and the clipped
    # surrogate is -mean(advantages). GAE with λ = 1 equals the λ-returns of
    # the A2C test: advantages [0.625, -0.25].
    agent = _agent()
    _, metrics = jax.jit(agent.update)(agent.init(jax.random.PRNGKey(0)),
                                       _trajectory())
    assert_first_minibatch_losses(metrics)

  def test_stale_behaviour_policy_is_clipped(self):
    # Behaviour probability e^-3 vs current 1/4: ratio ≈ 5 > 1 + ε.
    agent = _agent()
    _, metrics = agent.update(agent.init(jax.random.PRNGKey(0)),
                              _trajectory(log_prob=-3.0))
    self.assertAlmostEqual(float(metrics['clip_fraction']), 1.0)
    # Positive advantage is capped at (1 + ε)·A, negative uses ratio·A.
    ratio = math.exp(-math.log(NUM_ACTIONS) + 3.0)
    expected = -(1.2 * 0.625 + ratio * -0.25) / 2
    self.assertAlmostEqual(float(metrics['policy_loss']), expected, places=4)

  def test_act_records_log_prob_and_value(self):
    agent = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    observations = jnp.array([[0.0, 1.0, 0.0, 0.0]])  # 3 legal actions.
    actions, extras = agent.act(params, jax.random.PRNGKey(1), observations)
    self.assertNotEqual(int(actions[0]), 1)
    np.testing.assert_allclose(extras['log_prob'], [-math.log(3)], rtol=1e-5)
    np.testing.assert_allclose(extras['value'], [a2c_test.VALUE])

  @chex.variants(with_jit=True, without_jit=True)
  def test_epochs_and_minibatches_raise_rewarded_action(self):
    agent = _agent(num_epochs=3, num_minibatches=2, learning_rate=0.05,
                   normalize_advantages=False)
    state = agent.init(jax.random.PRNGKey(0))
    before = agent.deployable_policy(agent.actor_params(state),
                                        jnp.zeros((1, NUM_ACTIONS)))
    state, metrics = self.variant(agent.update)(state, _trajectory())
    after = agent.deployable_policy(agent.actor_params(state),
                                       jnp.zeros((1, NUM_ACTIONS)))
    self.assertGreater(float(after[0, 1]), float(before[0, 1]))
    self.assertEqual(int(state.updates), 1)
    chex.assert_tree_all_finite(metrics)

  def test_learning_rate_annealing_reaches_zero(self):
    agent = _agent(learning_rate_decay_updates=1, learning_rate=0.1)
    state = agent.init(jax.random.PRNGKey(0))
    state, _ = agent.update(state, _trajectory())
    frozen, _ = agent.update(state, _trajectory())  # Step size is now 0.
    chex.assert_trees_all_close(frozen.params, state.params)

  def test_data_requirements(self):
    self.assertEqual(_agent(unroll_length=8, batch_size=2).data,
                     agent_lib.DataRequirements(2, 8))

  @parameterized.parameters(dict(num_minibatches=3), dict(gae_lambda=2.0),
                            dict(num_epochs=0), dict(clip_epsilon=0.0),
                            dict(max_grad_norm=None),
                            dict(value_clip_epsilon=0.0),
                            dict(learning_rate_decay_updates=0))
  def test_bad_config_is_named(self, **kwargs):
    (name,) = kwargs
    with self.assertRaisesRegex(ValueError, name):
      ppo.PPOConfig(**kwargs)


class LossTest(absltest.TestCase):
  """`ppo.loss` alone: a pure function of arrays."""

  def _batch(self, advantage: float):
    return {'log_prob': jnp.zeros(2), 'advantages': jnp.full(2, advantage),
            'value': jnp.zeros(2), 'returns': jnp.ones(2),
            'actions': jnp.zeros(2, jnp.int32)}

  def test_the_surrogate_is_clipped_where_the_ratio_leaves_the_band(self):
    config = ppo.PPOConfig(clip_epsilon=0.2, normalize_advantages=False,
                           value_clip_epsilon=None, entropy_cost=0.0)
    log_probs = jnp.full(2, 0.5)  # Ratio e^0.5 ≈ 1.65 > 1.2.
    _, gain = ppo.loss(log_probs, jnp.zeros(()), jnp.ones(2),
                       self._batch(2.0), config)
    np.testing.assert_allclose(gain['policy_loss'], -1.2 * 2.0, rtol=1e-6)
    np.testing.assert_allclose(gain['clip_fraction'], 1.0)
    # A negative advantage takes the unclipped, lower objective.
    _, loss = ppo.loss(log_probs, jnp.zeros(()), jnp.ones(2),
                       self._batch(-2.0), config)
    np.testing.assert_allclose(loss['policy_loss'], math.exp(0.5) * 2.0,
                               rtol=1e-6)

  def test_value_clipping_keeps_the_larger_error(self):
    config = ppo.PPOConfig(normalize_advantages=False, value_clip_epsilon=0.2)
    # New values hit the returns (error 0); clipped to 0.2 they miss by 0.8.
    _, metrics = ppo.loss(jnp.zeros(2), jnp.zeros(()), jnp.ones(2),
                          self._batch(0.0), config)
    np.testing.assert_allclose(metrics['value_loss'], 0.5 * 0.8**2,
                               rtol=1e-6)
    unclipped = ppo.PPOConfig(normalize_advantages=False,
                              value_clip_epsilon=None)
    _, metrics = ppo.loss(jnp.zeros(2), jnp.zeros(()), jnp.ones(2),
                          self._batch(0.0), unclipped)
    np.testing.assert_allclose(metrics['value_loss'], 0.0)


if __name__ == '__main__':
  absltest.main()
