"""Tests for agents/reinforce.py: losses against hand-computed values."""

import math

from absl.testing import absltest
from absl.testing import parameterized
import chex
from dm_env import specs as dm_specs
import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np

from agents import agent as agent_lib
from agents import reinforce
from environments import specs

NUM_ACTIONS = 4


def _spec(with_mask: bool = True) -> specs.EnvironmentSpec:
  return specs.make_spec(
      dm_specs.Array((NUM_ACTIONS,), np.float32),
      dm_specs.DiscreteArray(NUM_ACTIONS),
      legal_actions=(lambda o: o == 0) if with_mask else None)


def _bias_network() -> hk.Transformed:
  """Logits = one learned bias vector (zero at init): uniform policy."""

  def forward(observations):
    bias = hk.get_parameter('bias', [NUM_ACTIONS], init=jnp.zeros)
    return jnp.broadcast_to(bias, observations.shape[:-1] + (NUM_ACTIONS,))

  return hk.without_apply_rng(hk.transform(forward))


def _trajectory(**overrides) -> agent_lib.Trajectory:
  """One episode of 2 real steps plus 1 padded step, B = 1.

  Step 0: all 4 actions legal, take 1, reward 1.
  Step 1: action 1 struck (3 legal), take 2, reward 0, episode ends.
  Step 2: padding (mask 0), with junk values that must not matter.
  """
  observations = np.array([[0, 0, 0, 0], [0, -1, 0, 0], [1, 1, 1, 0]],
                          np.float32)[:, None]
  fields = dict(
      observations=observations,
      actions=np.array([[1], [2], [3]], np.int32),
      rewards=np.array([[1.0], [0.0], [5.0]], np.float32),
      discounts=np.array([[1.0], [0.0], [1.0]], np.float32),
      last=np.array([[False], [True], [False]]),
      mask=np.array([[1.0], [1.0], [0.0]], np.float32),
      final_observations=np.array([[0, -1, -1, 0]], np.float32),
      extras={})
  fields.update(overrides)
  return agent_lib.Trajectory(**fields)


class ReinforceTest(parameterized.TestCase):

  def _agent(self, **config):
    config = reinforce.ReinforceConfig(**{'optimizer': 'sgd', **config})
    return reinforce.make_agent(config, _spec(), _bias_network())

  @parameterized.named_parameters(
      # Returns G = [1, 0]; log pi(a0) = -log 4, log pi(a1) = -log 3.
      ('no_baseline', 'none', math.log(4) / 2),
      # Advantages G - mean(G) = [0.5, -0.5].
      ('batch_mean', 'batch_mean', (math.log(4) - math.log(3)) / 4),
  )
  def test_policy_loss_hand_computed(self, baseline, expected):
    agent = self._agent(baseline=baseline)
    state = agent.init(jax.random.PRNGKey(0))
    _, metrics = jax.jit(agent.update)(state, _trajectory())
    self.assertAlmostEqual(float(metrics['policy_loss']), expected, places=5)
    self.assertAlmostEqual(float(metrics['entropy']),
                           (math.log(4) + math.log(3)) / 2, places=5)
    self.assertAlmostEqual(float(metrics['discounted_return']), 0.5,
                           places=6)
    # entropy_cost 0: the loss is the policy loss, logged once.
    self.assertNotIn('loss', metrics)

  def test_entropy_cost_enters_the_loss(self):
    agent = self._agent(baseline='none', entropy_cost=0.1)
    state = agent.init(jax.random.PRNGKey(0))
    _, metrics = agent.update(state, _trajectory())
    entropy = (math.log(4) + math.log(3)) / 2
    self.assertAlmostEqual(float(metrics['loss']),
                           math.log(4) / 2 - 0.1 * entropy, places=5)

  @chex.variants(with_jit=True, without_jit=True)
  def test_update_raises_probability_of_rewarded_action(self):
    agent = self._agent(baseline='batch_mean', learning_rate=0.5)
    state = agent.init(jax.random.PRNGKey(0))
    update = self.variant(agent.update)
    before = agent.deployable_policy(agent.actor_params(state),
                                        jnp.zeros((1, NUM_ACTIONS)))
    for _ in range(3):
      state, _ = update(state, _trajectory())
    after = agent.deployable_policy(agent.actor_params(state),
                                       jnp.zeros((1, NUM_ACTIONS)))
    self.assertGreater(float(after[0, 1]), float(before[0, 1]))
    self.assertEqual(int(state.updates), 3)

  def test_padding_does_not_change_the_update(self):
    agent = self._agent()
    state = agent.init(jax.random.PRNGKey(0))
    short = jax.tree.map(lambda x: x[:2], _trajectory()._replace(
        final_observations=np.zeros((1, NUM_ACTIONS), np.float32)))
    padded = _trajectory()
    new_short, _ = agent.update(state, short)
    new_padded, _ = agent.update(state, padded)
    chex.assert_trees_all_close(new_short.params, new_padded.params,
                                atol=1e-6)

  def test_act_never_picks_illegal_actions(self):
    agent = self._agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    observations = jnp.tile(jnp.array([[-1.0, 0.0, 1.0, 0.0]]), (2000, 1))
    actions, extras = jax.jit(agent.act)(params, jax.random.PRNGKey(1),
                                         observations)
    self.assertEqual(actions.shape, (2000,))
    self.assertEqual(actions.dtype, jnp.int32)
    self.assertEqual(extras, {})
    self.assertEqual(set(np.asarray(actions).tolist()), {1, 3})

  def test_deployable_policy_contract(self):
    agent = self._agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    p = agent.deployable_policy(params, jnp.array([[0.0, 1.0, 0.0, -1.0]]))
    np.testing.assert_allclose(np.asarray(p), [[0.5, 0.0, 0.5, 0.0]],
                               atol=1e-7)

  def test_without_legal_mask_all_actions_possible(self):
    config = reinforce.ReinforceConfig()
    agent = reinforce.make_agent(config, _spec(with_mask=False),
                                 _bias_network())
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    p = agent.deployable_policy(params, jnp.ones((1, NUM_ACTIONS)))
    np.testing.assert_allclose(np.asarray(p), 0.25, atol=1e-7)

  @parameterized.parameters(
      dict(baseline='value'), dict(optimizer='rmsprop'), dict(discount=1.5),
      dict(batch_size=0), dict(learning_rate=0.0), dict(max_grad_norm=0.0))
  def test_bad_config_is_named(self, **kwargs):
    (name,) = kwargs
    with self.assertRaisesRegex(ValueError, name):
      reinforce.ReinforceConfig(**kwargs)


class LossTest(absltest.TestCase):
  """`reinforce.loss` alone: a pure function of arrays."""

  def test_mean_over_real_steps_of_minus_advantage_log_prob(self):
    logits = jnp.zeros((2, 2))  # π(a|s) = ½ for both actions.
    loss, metrics = reinforce.loss(logits, jnp.array([0, 1]),
                                   jnp.array([3.0, 100.0]),
                                   jnp.array([1.0, 0.0]), entropy_cost=0.5)
    # Only the real step counts: −3·log ½; entropy log 2.
    np.testing.assert_allclose(metrics['policy_loss'], 3 * math.log(2),
                               rtol=1e-6)
    np.testing.assert_allclose(metrics['entropy'], math.log(2), rtol=1e-6)
    np.testing.assert_allclose(loss, 3 * math.log(2) - 0.5 * math.log(2),
                               rtol=1e-6)

  def test_batch_mean_baseline_subtracts_the_real_steps_mean_return(self):
    trajectory = agent_lib.Trajectory(
        observations=np.zeros((2, 2, 1), np.float32),
        actions=np.zeros((2, 2), np.int32),
        rewards=np.array([[1.0, 4.0], [2.0, 0.0]], np.float32),
        discounts=np.ones((2, 2), np.float32),
        last=np.array([[False, True], [True, False]]),
        mask=np.array([[1.0, 1.0], [1.0, 0.0]], np.float32),
        final_observations=np.zeros((2, 1), np.float32), extras={})
    advantages, mean_return = reinforce.advantages(trajectory, 0.5,
                                                   'batch_mean')
    # Returns: 1 + ½·2 = 2, 2, and 4; their mean 8/3.
    np.testing.assert_allclose(mean_return, 8 / 3, rtol=1e-6)
    np.testing.assert_allclose(advantages[:, 0], [2 - 8 / 3, 2 - 8 / 3],
                               rtol=1e-6)
    plain, _ = reinforce.advantages(trajectory, 0.5, 'none')
    np.testing.assert_allclose(plain[:, 0], [2.0, 2.0], rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
