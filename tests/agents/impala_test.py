"""Tests for agents/impala.py: V-trace targets by hand, on and off policy;
the actors' lag; config checks."""

import math

from absl.testing import absltest
from absl.testing import parameterized
import chex
import jax
import jax.numpy as jnp
import numpy as np

from agents import a2c
from agents import agent as agent_lib
from agents import impala
from agents import registry
from networks import recurrent
from tests.agents import a2c_test

_GAMMA = 0.5


def _agent(**overrides):
  config = impala.IMPALAConfig(**{
      'discount': _GAMMA, 'unroll_length': 2, 'batch_size': 1,
      'max_grad_norm': None, **overrides})
  return impala.make_agent(config, a2c_test._spec(),
                           a2c_test.bias_actor_critic())


def _trajectory(behaviour_probability: float):
  """`a2c_test.two_step_trajectory` as acted with `behaviour_probability`
  of each action taken."""
  return a2c_test.two_step_trajectory(extras={
      'behaviour_log_prob': np.full((2, 1), math.log(behaviour_probability),
                                    np.float32)})


class VTraceTest(parameterized.TestCase):
  # The network: π uniform over 4 actions, V = 0.5 everywhere; rewards 1, 0
  # then V(final) = 0.5, γ = 0.5.

  @parameterized.named_parameters(
      # ρ = 1: n-step returns, 1 + ½·(0 + ½·½) = 1.125 and 0.25.
      ('on_policy', 0.25, [0.625, -0.25], [0.625, -0.25], 1.0, 0.0),
      # ρ = ½ = c: δ1 = ½(0 + ¼ − ½), v1 = 0.375; δ0 = ½(1 + ¼ − ½),
      # v0 = ½ + 0.375 + ½·½(0.375 − ½) = 0.84375; advantages ρ(r + γv' − V).
      ('behind', 0.5, [0.34375, -0.125], [0.34375, -0.125], 0.5, 0.0),
      # ρ = 2, truncated at 1: as on policy.
      ('ahead', 0.125, [0.625, -0.25], [0.625, -0.25], 2.0, 1.0),
  )
  def test_targets_by_hand(self, behaviour, errors, advantages, rho_mean,
                           rho_clipped):
    agent = _agent()
    state = agent.init(jax.random.PRNGKey(0))
    _, metrics = jax.jit(agent.update)(state, _trajectory(behaviour))
    self.assertAlmostEqual(float(metrics['value_loss']),
                           0.5 * np.mean(np.square(errors)), places=6)
    self.assertAlmostEqual(float(metrics['policy_loss']),
                           -math.log(0.25) * np.mean(advantages), places=5)
    self.assertAlmostEqual(float(metrics['rho_mean']), rho_mean, places=5)
    self.assertAlmostEqual(float(metrics['rho_clipped']), rho_clipped)

  def test_acting_records_the_behaviour_log_probability(self):
    agent = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    actions, extras = agent.act(params, jax.random.PRNGKey(1),
                                np.zeros((5, a2c_test.NUM_ACTIONS)))
    self.assertEqual(actions.shape, (5,))
    np.testing.assert_allclose(extras['behaviour_log_prob'],
                               np.full(5, math.log(0.25)), rtol=1e-6)


class ActorLagTest(parameterized.TestCase):

  @parameterized.parameters(0, 1, 3)
  def test_actors_act_with_the_params_of_lag_updates_ago(self, lag):
    agent = _agent(actor_lag=lag, learning_rate=0.1)
    state = agent.init(jax.random.PRNGKey(0))
    history = [state.training.params]  # After each update, from init.
    update = jax.jit(agent.update)
    for _ in range(5):
      state, _ = update(state, _trajectory(0.25))
      history.append(state.training.params)
      expected = history[max(len(history) - 1 - lag, 0)]
      chex.assert_trees_all_equal(agent.actor_params(state), expected)
    self.assertFalse(np.allclose(history[0]['~']['bias'],
                                 history[-1]['~']['bias']))

  @parameterized.parameters(
      (dict(actor_lag=-1), r'IMPALAConfig\.actor_lag must be an integer '
       r'>= 0; got -1'),
      (dict(actor_lag=1.5), r'actor_lag must be an integer >= 0; got 1\.5'),
      (dict(clip_rho_threshold=0.0), r'clip_rho_threshold must be > 0'),
      (dict(vtrace_lambda=1.5), r'vtrace_lambda must be in \[0, 1\]'))
  def test_bad_config_is_named(self, overrides, pattern):
    with self.assertRaisesRegex(ValueError, pattern):
      registry.make_config('impala', **overrides)


class RecurrentNetworkTest(absltest.TestCase):

  def test_a_recurrent_network_is_refused_naming_the_agent(self):
    spec = a2c_test._spec()
    network = recurrent.make_recurrent_actor_critic_network(
        spec.num_actions, (8,), recurrent.LSTM)
    with self.assertRaisesRegex(ValueError, 'IMPALA acts with a '
                                'feed-forward network'):
      impala.make_agent(impala.IMPALAConfig(), spec, network)


class LossTest(absltest.TestCase):
  """`impala.loss` alone: a pure function of arrays."""

  def test_on_policy_it_is_a2c_with_lambda_one(self):
    rng = np.random.default_rng(0)
    t, b, num_actions = 3, 2, 4
    logits = jnp.asarray(rng.normal(size=(t * b, num_actions)), jnp.float32)
    actions = rng.integers(0, num_actions, size=(t, b)).astype(np.int32)
    log_probs = np.take_along_axis(
        np.asarray(jax.nn.log_softmax(logits)),
        actions.reshape(-1)[:, None], -1)[:, 0].reshape(t, b)
    trajectory = agent_lib.Trajectory(
        observations=np.zeros((t, b, 1), np.float32), actions=actions,
        rewards=rng.normal(size=(t, b)).astype(np.float32),
        discounts=np.array([[1, 1], [0, 1], [1, 1]], np.float32),
        last=np.array([[0, 0], [1, 0], [0, 0]], bool),
        mask=np.ones((t, b), np.float32),
        final_observations=np.zeros((b, 1), np.float32),
        extras={'behaviour_log_prob': log_probs},
        next_observations=np.zeros((t, b, 1), np.float32))
    values = jnp.asarray(rng.normal(size=(t, b)), jnp.float32)
    next_values = jnp.asarray(rng.normal(size=(t, b)), jnp.float32)
    _, impala_metrics = impala.loss(
        logits, values, next_values, trajectory,
        impala.IMPALAConfig(discount=0.9, entropy_cost=0.01))
    _, a2c_metrics = a2c.loss(
        logits, values, next_values, trajectory,
        a2c.A2CConfig(discount=0.9, td_lambda=1.0, entropy_cost=0.01))
    for name in ('loss', 'policy_loss', 'value_loss', 'entropy'):
      np.testing.assert_allclose(impala_metrics[name], a2c_metrics[name],
                                 rtol=1e-5, err_msg=name)
    np.testing.assert_allclose(impala_metrics['rho_mean'], 1.0, rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
