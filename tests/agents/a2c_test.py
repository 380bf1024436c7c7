"""Tests for agents/a2c.py: losses against hand-computed values."""

import math

from absl.testing import absltest
from absl.testing import parameterized
import chex
from dm_env import specs as dm_specs
import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np

from agents import a2c
from agents import agent as agent_lib
from environments import specs

NUM_ACTIONS = 4
VALUE = 0.5  # The constant value the test network predicts at init.


def _spec() -> specs.EnvironmentSpec:
  return specs.make_spec(
      dm_specs.Array((NUM_ACTIONS,), np.float32),
      dm_specs.DiscreteArray(NUM_ACTIONS),
      legal_actions=lambda o: o == 0)


def bias_actor_critic() -> hk.Transformed:
  """Logits = a bias (uniform at init); value = a scalar (VALUE at init)."""

  def forward(observations):
    batch = observations.shape[:-1]
    bias = hk.get_parameter('bias', [NUM_ACTIONS], init=jnp.zeros)
    value = hk.get_parameter('value', [], init=hk.initializers.Constant(
        VALUE))
    return (jnp.broadcast_to(bias, batch + (NUM_ACTIONS,)),
            jnp.broadcast_to(value, batch))

  return hk.without_apply_rng(hk.transform(forward))


def two_step_trajectory(last_first_step: bool = False, extras=None):
  """T = 2, B = 1: rewards 1 then 0, all actions legal, γ applied later."""
  return agent_lib.Trajectory(
      observations=np.zeros((2, 1, NUM_ACTIONS), np.float32),
      actions=np.array([[1], [2]], np.int32),
      rewards=np.array([[1.0], [0.0]], np.float32),
      discounts=np.ones((2, 1), np.float32),
      last=np.array([[last_first_step], [False]]),
      mask=np.ones((2, 1), np.float32),
      final_observations=np.zeros((1, NUM_ACTIONS), np.float32),
      extras=extras or {})


class A2CTest(parameterized.TestCase):

  @parameterized.named_parameters(
      # λ = 1, γ = 0.5, v = 0.5 everywhere: G1 = 0 + 0.5·0.5 = 0.25,
      # G0 = 1 + 0.5·G1 = 1.125, advantages [0.625, -0.25].
      ('bootstrap', False, [0.625, -0.25]),
      # An episode end after step 0 cuts G0 to the reward alone: G0 = 1.
      ('cut_at_episode_end', True, [0.5, -0.25]),
  )
  def test_losses_hand_computed(self, last_first_step, advantages):
    config = a2c.A2CConfig(discount=0.5, td_lambda=1.0, entropy_cost=0.0,
                           max_grad_norm=None)
    agent = a2c.make_agent(config, _spec(), bias_actor_critic())
    state = agent.init(jax.random.PRNGKey(0))
    _, metrics = jax.jit(agent.update)(state,
                                       two_step_trajectory(last_first_step))
    log_pi = -math.log(NUM_ACTIONS)
    self.assertAlmostEqual(float(metrics['policy_loss']),
                           -log_pi * sum(advantages) / 2, places=5)
    self.assertAlmostEqual(float(metrics['value_loss']),
                           0.5 * sum(a * a for a in advantages) / 2, places=5)
    self.assertAlmostEqual(float(metrics['entropy']), math.log(NUM_ACTIONS),
                           places=5)

  def test_td_lambda_zero_is_one_step_td(self):
    config = a2c.A2CConfig(discount=0.5, td_lambda=0.0, max_grad_norm=None)
    agent = a2c.make_agent(config, _spec(), bias_actor_critic())
    _, metrics = agent.update(agent.init(jax.random.PRNGKey(0)),
                              two_step_trajectory())
    # One-step targets: 1 + 0.5·0.5 and 0 + 0.5·0.5; advantages 0.75, -0.25.
    self.assertAlmostEqual(float(metrics['value_loss']),
                           0.5 * (0.75**2 + 0.25**2) / 2, places=5)

  @chex.variants(with_jit=True, without_jit=True)
  def test_update_moves_value_towards_returns(self):
    config = a2c.A2CConfig(discount=0.5, td_lambda=1.0, learning_rate=0.05)
    agent = a2c.make_agent(config, _spec(), bias_actor_critic())
    state = agent.init(jax.random.PRNGKey(0))
    update = self.variant(agent.update)
    trajectory = two_step_trajectory()
    trajectory = trajectory._replace(
        rewards=np.array([[3.0], [3.0]], np.float32))
    for _ in range(5):
      state, _ = update(state, trajectory)
    self.assertGreater(float(state.params['~']['value']), VALUE)
    self.assertEqual(int(state.updates), 5)

  def test_act_is_legal_and_data_requirements(self):
    config = a2c.A2CConfig(unroll_length=5, batch_size=3)
    agent = a2c.make_agent(config, _spec(), bias_actor_critic())
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    observations = jnp.tile(jnp.array([[1.0, 0.0, -1.0, 1.0]]), (500, 1))
    actions, _ = agent.act(params, jax.random.PRNGKey(1), observations)
    self.assertEqual(set(np.asarray(actions).tolist()), {1})
    self.assertEqual(agent.data, agent_lib.DataRequirements(3, 5))

  @parameterized.parameters(dict(td_lambda=1.5), dict(discount=-0.1),
                            dict(unroll_length=0), dict(batch_size=0),
                            dict(learning_rate=0.0), dict(batch_size=2.5),
                            dict(max_grad_norm=-1.0))
  def test_bad_config_is_named(self, **kwargs):
    (name,) = kwargs
    with self.assertRaisesRegex(ValueError, name):
      a2c.A2CConfig(**kwargs)


def _one_step(last: bool, discount: float = 1.0) -> agent_lib.Trajectory:
  """One step of one sequence: reward 1, its next observation given."""
  return agent_lib.Trajectory(
      observations=np.zeros((1, 1, NUM_ACTIONS), np.float32),
      actions=np.zeros((1, 1), np.int32),
      rewards=np.ones((1, 1), np.float32),
      discounts=np.full((1, 1), discount, np.float32),
      last=np.full((1, 1), last), mask=np.ones((1, 1), np.float32),
      final_observations=np.zeros((1, NUM_ACTIONS), np.float32), extras={},
      next_observations=np.zeros((1, 1, NUM_ACTIONS), np.float32))


class LossTest(absltest.TestCase):
  """`a2c.loss` alone: a pure function of arrays."""

  def test_bootstraps_from_the_next_value_and_stops_at_terminations(self):
    config = a2c.A2CConfig(discount=0.9, td_lambda=1.0, value_cost=1.0,
                           entropy_cost=0.0)
    logits = jnp.zeros((1, NUM_ACTIONS))
    values, next_values = jnp.array([[0.5]]), jnp.array([[2.0]])
    _, going_on = a2c.loss(logits, values, next_values, _one_step(False),
                           config)
    # G = 1 + 0.9·2 = 2.8; advantage 2.3.
    np.testing.assert_allclose(going_on['value_loss'], 0.5 * 2.3**2,
                               rtol=1e-6)
    np.testing.assert_allclose(going_on['policy_loss'],
                               2.3 * math.log(NUM_ACTIONS), rtol=1e-6)
    _, terminated = a2c.loss(logits, values, next_values,
                             _one_step(True, discount=0.0), config)
    np.testing.assert_allclose(terminated['value_loss'], 0.5 * 0.5**2,
                               rtol=1e-6)  # G = 1.
    # A time limit (an end with discount 1) still counts v(next): 2.8.
    _, cut = a2c.loss(logits, values, next_values, _one_step(True), config)
    np.testing.assert_allclose(cut['value_loss'], 0.5 * 2.3**2, rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
