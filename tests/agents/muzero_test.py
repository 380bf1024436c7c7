"""Tests for agents/muzero.py."""

from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents import agent as agent_lib
from agents import muzero
from agents import registry
from environments import dm_env_wrapper
from environments import registry as env_registry
from environments import specs


def _spec(env: str) -> specs.EnvironmentSpec:
  return specs.make_environment_spec(
      dm_env_wrapper.DmEnvironment(env_registry.resolve(env).core()))


def _trajectory(num_actions: int = 3) -> agent_lib.Trajectory:
  """Four steps of one sequence whose episode ends at step 1: rewards 1..4,
  actions 0..3, search policies one-hot on step t mod A."""
  t = 4
  return agent_lib.Trajectory(
      observations=jnp.zeros((t, 1, 2)),
      actions=jnp.arange(t, dtype=jnp.int32)[:, None],
      rewards=jnp.arange(1.0, t + 1)[:, None],
      discounts=jnp.asarray([1.0, 0.0, 1.0, 1.0])[:, None],
      last=jnp.asarray([False, True, False, False])[:, None],
      mask=jnp.ones((t, 1)), final_observations=jnp.zeros((1, 2)),
      extras={'search_policy': jax.nn.one_hot(
          jnp.arange(t) % num_actions, num_actions)[:, None]})


class ConfigTest(absltest.TestCase):

  def test_bad_settings_are_named(self):
    for overrides, message in (
        (dict(num_simulations=1), 'num_simulations must be an integer >= 2'),
        (dict(unroll_steps=0), 'unroll_steps'),
        (dict(value_scale=0.0), 'value_scale'),
        (dict(reward_cost=-1.0), 'reward_cost'),
        (dict(num_minibatches=3), 'num_minibatches')):
      with self.assertRaisesRegex(ValueError, message):
        registry.make_config('muzero', **overrides)


class UnrollTargetsTest(absltest.TestCase):

  def test_targets_stop_at_the_episode_and_the_batch(self):
    values = jnp.arange(10.0, 14.0)[:, None]
    targets = jax.tree.map(lambda x: np.asarray(x[:, 0]),
                           muzero.unroll_targets(_trajectory(), values, 2))
    np.testing.assert_array_equal(targets['actions'],
                                  [[0, 1], [1, 2], [2, 3], [3, 3]])
    # Step 0's unroll crosses the episode's end after step 1: an absorbing
    # state (value 0, no policy target); step 3's leaves the batch.
    np.testing.assert_array_equal(targets['value_target'],
                                  [[10, 11, 0], [11, 0, 0], [12, 13, 13],
                                   [13, 13, 13]])
    np.testing.assert_array_equal(targets['value_mask'],
                                  [[1, 1, 1], [1, 1, 1], [1, 1, 0],
                                   [1, 0, 0]])
    np.testing.assert_array_equal(targets['policy_mask'],
                                  [[1, 1, 0], [1, 0, 0], [1, 1, 0],
                                   [1, 0, 0]])
    np.testing.assert_array_equal(targets['reward_target'],
                                  [[1, 2], [2, 0], [3, 4], [4, 4]])
    np.testing.assert_array_equal(targets['reward_mask'],
                                  [[1, 1], [1, 1], [1, 1], [1, 0]])
    np.testing.assert_array_equal(targets['search_policy'][0].argmax(-1),
                                  [0, 1, 2])
    self.assertNotIn('legal', targets)

  def test_past_a_time_limit_nothing_counts(self):
    # Cut by a time limit at step 1, the episode would have gone on: what
    # follows in the unroll is no absorbing state, and counts for nothing.
    trajectory = _trajectory()._replace(
        discounts=jnp.ones((4, 1)), next_observations=jnp.zeros((4, 1, 2)))
    targets = jax.tree.map(
        lambda x: np.asarray(x[:, 0]),
        muzero.unroll_targets(trajectory, jnp.ones((4, 1)), 2))
    np.testing.assert_array_equal(targets['value_mask'][:2],
                                  [[1, 1, 0], [1, 0, 0]])
    np.testing.assert_array_equal(targets['reward_mask'][:2],
                                  [[1, 1], [1, 0]])
    np.testing.assert_array_equal(targets['policy_mask'][:2],
                                  [[1, 1, 0], [1, 0, 0]])

  def test_padding_counts_for_nothing(self):
    trajectory = _trajectory()._replace(
        mask=jnp.asarray([1.0, 1.0, 1.0, 0.0])[:, None])
    targets = jax.tree.map(
        lambda x: np.asarray(x[:, 0]),
        muzero.unroll_targets(trajectory, jnp.ones((4, 1)), 2))
    # Step 3 is padding: no position there counts, from any start.
    np.testing.assert_array_equal(targets['value_mask'],
                                  [[1, 1, 1], [1, 1, 0], [1, 0, 0],
                                   [0, 0, 0]])
    np.testing.assert_array_equal(targets['policy_mask'][3], [0, 0, 0])

  def test_legal_actions_follow_the_unroll(self):
    legal = jnp.eye(4, dtype=bool)[:, None, :3]
    targets = muzero.unroll_targets(_trajectory(), jnp.zeros((4, 1)), 1,
                                    legal)
    np.testing.assert_array_equal(targets['legal'][1, 0],
                                  [[False, True, False],
                                   [False, False, True]])


class LossTest(absltest.TestCase):

  def test_masked_means_of_each_term(self):
    batch = {
        'search_policy': jnp.asarray([[[0.5, 0.5], [1.0, 0.0]]]),
        'policy_mask': jnp.asarray([[1.0, 0.0]]),
        'value_target': jnp.asarray([[1.0, 3.0]]),
        'value_mask': jnp.asarray([[1.0, 1.0]]),
        'reward_target': jnp.asarray([[2.0]]),
        'reward_mask': jnp.asarray([[0.0]])}
    config = muzero.MuZeroConfig(value_cost=2.0)
    total, metrics = muzero.loss(jnp.zeros((1, 2, 2)), jnp.zeros((1, 2)),
                                 jnp.zeros((1, 1)), batch, config)
    np.testing.assert_allclose(metrics['policy_loss'], np.log(2), rtol=1e-6)
    np.testing.assert_allclose(metrics['value_loss'], (0.5 + 4.5) / 2)
    np.testing.assert_allclose(metrics['reward_loss'], 0.0)
    np.testing.assert_allclose(total, np.log(2) + 5.0, rtol=1e-6)

  def test_scale_gradient_keeps_the_value_and_scales_the_gradient(self):
    value, grad = jax.value_and_grad(
        lambda x: muzero.scale_gradient(x, 0.5) * 3.0)(2.0)
    self.assertEqual((float(value), float(grad)), (6.0, 1.5))


class AgentTest(absltest.TestCase):

  def _agent(self, env: str, **overrides):
    spec = _spec(env)
    config = registry.make_config('muzero', num_simulations=4,
                                  **overrides)
    return spec, registry.make_agent('muzero', config, spec)

  @pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
  def test_search_plays_legal_moves_from_observations_alone(self):
    spec, agent = self._agent('plane_strike')
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    observations = jnp.zeros((8,) + spec.observations.shape,
                             spec.observations.dtype).at[:, 0, :].set(-1)
    actions, extras = jax.jit(agent.act)(params, jax.random.PRNGKey(1),
                                         observations)
    self.assertEqual(actions.shape, (8,))
    self.assertTrue((np.asarray(actions) >= 8).all())  # Row 0 is tried.
    policy = np.asarray(extras['search_policy'])
    np.testing.assert_allclose(policy.sum(-1), 1.0, rtol=1e-5)
    self.assertEqual(float(policy[:, :8].sum()), 0.0)
    self.assertEqual(extras['search_value'].shape, (8,))
    probabilities = agent.deployable_policy(params, observations)
    self.assertEqual(float(probabilities[:, :8].sum()), 0.0)

  @pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
  def test_play_by_search_needs_no_states_and_draws_nothing(self):
    spec, agent = self._agent('plane_strike', random_moves=0.5)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    observations = jnp.zeros((2,) + spec.observations.shape,
                             spec.observations.dtype).at[:, 0, :].set(-1)
    play = jax.jit(jax.vmap(lambda key: agent.play_with_search(
        params, jnp.stack([key, key]), observations, None)))
    actions = np.asarray(play(jax.random.split(jax.random.PRNGKey(1), 6)))
    self.assertTrue((actions >= 8).all())  # Row 0 is tried.
    np.testing.assert_array_equal(actions, actions[:1].repeat(6, 0))

  @pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
  def test_the_model_learns_rewards_that_follow_the_actions(self):
    # The reward is 1 for action 2, else 0: the dynamics must learn it
    # from the action alone.
    spec, agent = self._agent('catch', unroll_length=8, batch_size=4,
                              num_epochs=4, num_minibatches=1)
    state = agent.init(jax.random.PRNGKey(0))
    t, b = 8, 4
    actions = jax.random.randint(jax.random.PRNGKey(2), (t, b), 0, 3)
    observations = jax.random.uniform(jax.random.PRNGKey(3), (t, b) +
                                      spec.observations.shape)
    trajectory = agent_lib.Trajectory(
        observations=observations, actions=actions,
        rewards=(actions == 2).astype(jnp.float32),
        discounts=jnp.ones((t, b)), last=jnp.zeros((t, b), bool),
        mask=jnp.ones((t, b)), final_observations=observations[-1],
        extras={'search_policy': jnp.full((t, b, 3), 1 / 3),
                'search_value': jnp.zeros((t, b))})
    update = jax.jit(agent.update)
    state, first = update(state, trajectory)
    for _ in range(40):
      state, metrics = update(state, trajectory)
    self.assertLess(float(metrics['reward_loss']),
                    0.1 * float(first['reward_loss']))
    self.assertEqual(int(state.updates), 41)


if __name__ == '__main__':
  absltest.main()
