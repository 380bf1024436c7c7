"""Tests for agents/td3.py: uniform then noisy acting in bounds, the
delayed actor and targets, target-policy smoothing and config checks."""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import chex
from dm_env import specs as dm_specs
import jax
import jax.numpy as jnp
import numpy as np

from agents import agent as agent_lib
from agents import registry
from agents import td3
from networks import actor_twin_q
from tests.agents import fake_data

_OBS, _DIM, _LOW = fake_data.OBSERVATION_SIZE, 2, fake_data.ACTION_LOW
_HIGH = np.array([1.0, 4.0], np.float32)
_spec = functools.partial(fake_data.continuous_spec, _HIGH)


def _agent(**overrides) -> agent_lib.Agent:
  settings = dict(batch_size=4, replay_capacity=32, min_replay_size=4,
                  update_period=2, num_actors=2, actor_learning_rate=1e-2,
                  critic_learning_rate=1e-2, tau=0.5)
  settings.update(overrides)
  return td3.make_agent(td3.TD3Config(**settings), _spec(),
                        actor_twin_q.make_actor_twin_q_network(
                            _DIM, hidden_sizes=(16,), deterministic=True))


def _trajectory(seed=0) -> agent_lib.Trajectory:
  return fake_data.continuous_trajectory(_HIGH, seed=seed)


def _changed(before, after) -> bool:
  return not all(np.array_equal(x, y) for x, y in zip(
      jax.tree.leaves(before), jax.tree.leaves(after)))


class TD3ActTest(absltest.TestCase):

  def test_acts_uniformly_until_the_replay_fills(self):
    agent = _agent(min_replay_size=8, exploration_noise=0.0)
    state = agent.init(jax.random.PRNGKey(0))
    params = agent.actor_params(state)
    self.assertTrue(bool(params['uniform']))
    observations = jnp.zeros((2000, _OBS))
    actions, _ = jax.jit(agent.act)(params, jax.random.PRNGKey(1),
                                    observations)
    actions = np.asarray(actions)
    self.assertTrue(np.all((actions >= _LOW) & (actions <= _HIGH)))
    # Uniform over each range: mean at the centre, std range/√12.
    np.testing.assert_allclose(actions.mean(0), (_LOW + _HIGH) / 2,
                               atol=0.1)
    np.testing.assert_allclose(actions.std(0), (_HIGH - _LOW) / 12**0.5,
                               rtol=0.1)
    # Once it holds min_replay_size: μ(s) itself when the noise is 0.
    update = jax.jit(agent.update)
    for seed in range(2):  # 4 transitions each.
      state, _ = update(state, _trajectory(seed))
    params = agent.actor_params(state)
    self.assertFalse(bool(params['uniform']))
    acted, _ = agent.act(params, jax.random.PRNGKey(1), observations[:3])
    np.testing.assert_allclose(
        acted, agent.deployable_policy(params, observations[:3]), atol=1e-6)

  def test_exploration_noise_is_in_half_range_units_and_clipped(self):
    agent = _agent(min_replay_size=4, exploration_noise=0.1)
    state, _ = jax.jit(agent.update)(agent.init(jax.random.PRNGKey(0)),
                                     _trajectory())
    params = agent.actor_params(state)
    observations = jnp.zeros((4000, _OBS))
    actions = np.asarray(agent.act(params, jax.random.PRNGKey(2),
                                   observations)[0])
    greedy = np.asarray(agent.deployable_policy(params, observations[:1]))[0]
    self.assertTrue(np.all((actions >= _LOW) & (actions <= _HIGH)))
    inside = np.all((actions > _LOW + 1e-3) & (actions < _HIGH - 1e-3), 1)
    np.testing.assert_allclose(
        (actions[inside] - greedy).std(0), 0.1 * (_HIGH - _LOW) / 2,
        rtol=0.15)


class TD3UpdateTest(parameterized.TestCase):

  @parameterized.parameters(1, 2, 3)
  def test_actor_and_targets_move_every_policy_delay_critic_steps(
      self, delay):
    agent = _agent(policy_delay=delay)
    state = agent.init(jax.random.PRNGKey(0))
    update = jax.jit(agent.update)
    for step in range(1, 7):
      new_state, metrics = update(state, _trajectory(step))
      self.assertEqual(float(metrics['learned']), 1.0)
      self.assertTrue(_changed(state.critic_params, new_state.critic_params))
      moves = step % delay == 0
      self.assertEqual(float(metrics['actor_updates']), float(moves))
      self.assertEqual(
          _changed(state.actor_params, new_state.actor_params), moves)
      self.assertEqual(_changed(state.target_actor_params,
                                new_state.target_actor_params), moves)
      self.assertEqual(_changed(state.target_critic_params,
                                new_state.target_critic_params), moves)
      if moves:  # θ̄ ← τ θ + (1 − τ) θ̄ with the new actor.
        chex.assert_trees_all_close(
            new_state.target_actor_params,
            jax.tree.map(lambda p, t: 0.5 * p + 0.5 * t,
                         new_state.actor_params, state.target_actor_params),
            rtol=1e-6)
      state = new_state
    self.assertEqual(int(state.learner_steps), 6)

  def test_no_sgd_before_min_replay_size(self):
    agent = _agent(min_replay_size=8)
    state = agent.init(jax.random.PRNGKey(0))
    new_state, metrics = jax.jit(agent.update)(state, _trajectory())
    self.assertEqual(float(metrics['learned']), 0.0)
    self.assertEqual(int(new_state.replay.size), 4)
    self.assertFalse(_changed(state.critic_params, new_state.critic_params))
    self.assertEqual(int(new_state.learner_steps), 0)

  def test_smoothed_target_actions(self):
    low, high = jnp.asarray(_LOW), jnp.asarray(_HIGH)
    actions = jnp.array([[0.0, 2.0], [0.9, 0.1]])
    noise = jnp.array([[10.0, -10.0], [0.5, -0.5]])
    smoothed = td3.smoothed_target_actions(actions, noise, 0.2, 0.5, low,
                                           high)
    # Half-ranges (1, 2): noise 0.2·ε clipped to ±0.5, times each.
    np.testing.assert_allclose(
        smoothed, [[0.5, 1.0], [1.0, 0.0]], atol=1e-6)
    unclipped = td3.smoothed_target_actions(actions[:1], noise[1:] * 0.1,
                                            1.0, 0.5, low, high)
    np.testing.assert_allclose(unclipped, [[0.05, 1.9]], atol=1e-6)


class TD3ConfigTest(parameterized.TestCase):

  @parameterized.parameters(
      ('policy_delay', 0, r'TD3Config\.policy_delay must be an integer'),
      ('exploration_noise', -0.1,
       r'TD3Config\.exploration_noise must be >= 0; got -0\.1'),
      ('target_noise_clip', -1.0, r'TD3Config\.target_noise_clip must be'),
      ('tau', 1.5, r'TD3Config\.tau must be in \[0, 1\]'),
  )
  def test_bad_values_are_named(self, key, value, pattern):
    with self.assertRaisesRegex(ValueError, pattern):
      registry.make_config('td3', **{key: value})

  def test_refuses_unbounded_actions_and_discrete_ones(self):
    unbounded = dm_specs.Array((_DIM,), np.float32)
    with self.assertRaisesRegex(ValueError, r'TD3 squashes actions'):
      td3.make_agent(
          td3.TD3Config(), _spec(unbounded),
          actor_twin_q.make_actor_twin_q_network(_DIM, deterministic=True))
    discrete = _spec(dm_specs.DiscreteArray(3))
    with self.assertRaisesRegex(
        ValueError, r"Agent 'td3' acts in continuous action spaces"):
      registry.network_entry('td3', None, discrete)

  def test_takes_only_deterministic_actor_networks(self):
    self.assertEqual(registry.network_entry('td3', None, _spec()).name,
                     'mlp_deterministic_actor_twin_q')
    with self.assertRaisesRegex(
        ValueError, r"mlp_actor_twin_q.*Valid names: "
        r"mlp_deterministic_actor_twin_q"):
      registry.network_entry('td3', 'mlp_actor_twin_q', _spec())


class LossTest(absltest.TestCase):
  """TD3's losses alone: pure functions of arrays."""

  def test_targets_stop_at_terminations_and_the_actor_follows_q1(self):
    batch = fake_data.two_transitions()
    np.testing.assert_allclose(
        td3.critic_targets(batch, jnp.full(2, 3.0), 0.5), [2.5, 1.0])
    np.testing.assert_allclose(
        td3.actor_loss(jnp.array([[1.0, -9.0], [3.0, -9.0]])), -2.0)


if __name__ == '__main__':
  absltest.main()
