"""Tests for agents/impala.py: V-trace targets by hand, on and off policy;
the actors' lag; config checks."""

import math

from absl.testing import absltest
from absl.testing import parameterized
import chex
import jax
import numpy as np

from agents import impala
from agents import registry
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


if __name__ == '__main__':
  absltest.main()
