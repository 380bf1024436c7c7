"""Tests for agents/pqn.py: Q(λ) targets by hand, acting, contracts, and
PQN with a recurrent Q-network."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents import agent as agent_lib
from agents import on_policy
from agents import pqn
from agents import recurrent_policy
from agents import registry
from environments import specs
from networks import recurrent
from tests.agents import fake_data

NUM_ACTIONS = 3


def _spec(with_mask: bool = False) -> specs.EnvironmentSpec:
  return fake_data.masked_discrete_spec(NUM_ACTIONS, with_mask)


def _trajectory(discounts, last, with_next=True) -> agent_lib.Trajectory:
  """Three steps of one sequence, rewards 1, 2, 3."""
  t = len(discounts)
  observations = np.zeros((t, 1, NUM_ACTIONS), np.float32)
  return agent_lib.Trajectory(
      observations=observations, actions=np.zeros((t, 1), np.int32),
      rewards=np.array([[1.0], [2.0], [3.0]], np.float32),
      discounts=np.array(discounts, np.float32)[:, None],
      last=np.array(last, bool)[:, None], mask=np.ones((t, 1), np.float32),
      final_observations=observations[0], extras={},
      next_observations=observations if with_next else None)


class QLambdaTargetsTest(parameterized.TestCase):
  # γ = 0.5, λ = 0.5, max Q of each next observation 10, 20, 30.
  NEXT_VALUES = np.array([[10.0], [20.0], [30.0]], np.float32)

  @parameterized.named_parameters(
      # Step 1 terminates: G1 = 2; G0 = 1 + .5(.5·10 + .5·2) = 4; the last
      # step bootstraps from its own next value: G2 = 3 + .5·30 = 18.
      ('termination', [1, 0, 1], [0, 1, 0], True, [4.0, 2.0, 18.0]),
      # Step 1 hits a time limit: G1 = 2 + .5·20 = 12 (its cut-off
      # observation's value), and the trace stops there: G0 = 1 +
      # .5(.5·10 + .5·12) = 6.5.
      ('time_limit', [1, 1, 1], [0, 1, 0], True, [6.5, 12.0, 18.0]),
      # Without the loop's next observations a time limit ends returns.
      ('time_limit_as_end', [1, 1, 1], [0, 1, 0], False, [4.0, 2.0, 18.0]),
      # No end: G1 = 2 + .5(.5·20 + .5·18) = 11.5; G0 = 1 + .5(5 + 5.75).
      ('no_end', [1, 1, 1], [0, 0, 0], True, [6.375, 11.5, 18.0]),
  )
  def test_hand_computed(self, discounts, last, with_next, expected):
    targets = pqn.q_lambda_targets(_trajectory(discounts, last, with_next),
                                   self.NEXT_VALUES, 0.5, 0.5)
    np.testing.assert_allclose(targets[:, 0], expected, rtol=1e-6)

  def test_lambda_zero_is_one_step_q_learning(self):
    targets = pqn.q_lambda_targets(_trajectory([1, 1, 1], [0, 0, 0]),
                                   self.NEXT_VALUES, 0.5, 0.0)
    np.testing.assert_allclose(targets[:, 0], [6.0, 12.0, 18.0])


class AgentTest(parameterized.TestCase):

  def _agent(self, with_mask=False, **config):
    defaults = dict(unroll_length=4, batch_size=2, num_minibatches=2,
                    num_epochs=2)
    return registry.make_agent(
        'pqn', pqn.PQNConfig(**{**defaults, **config}), _spec(with_mask))

  def test_default_network_is_layer_norm(self):
    agent = self._agent()
    params = agent.init(jax.random.PRNGKey(0)).params
    self.assertTrue(any('layer_norm' in name for name in params))

  def test_update_moves_q_of_taken_action_towards_its_target(self):
    agent = self._agent(learning_rate=1e-2, td_lambda=0.0)
    state = agent.init(jax.random.PRNGKey(0))
    observations = jnp.ones((4, 2, NUM_ACTIONS))
    trajectory = agent_lib.Trajectory(
        observations=observations, actions=jnp.zeros((4, 2), jnp.int32),
        rewards=jnp.full((4, 2), 5.0), discounts=jnp.zeros((4, 2)),
        last=jnp.ones((4, 2), bool), mask=jnp.ones((4, 2)),
        final_observations=observations[0], extras={},
        next_observations=observations)
    forward = registry.network_entry('pqn', None, _spec()).make(_spec(), None)
    before = forward.apply(state.params, observations[0])[:, 0]
    update = jax.jit(agent.update)
    for _ in range(20):
      state, metrics = update(state, trajectory)
    after = forward.apply(state.params, observations[0])[:, 0]
    # Every step terminated with reward 5: the target of action 0 is 5.
    self.assertLess(float(jnp.abs(after - 5.0).max()),
                    float(jnp.abs(before - 5.0).max()))
    self.assertEqual(int(state.updates), 20)
    self.assertIn('epsilon', metrics)

  def test_epsilon_decays_with_the_steps_of_each_update(self):
    agent = self._agent(epsilon_start=1.0, epsilon_end=0.0,
                        epsilon_decay_steps=80)
    state = agent.init(jax.random.PRNGKey(0))
    # 8 steps per update (4 x 2): after 5 updates, 40 of 80 steps.
    state = state._replace(updates=jnp.int32(5))
    self.assertAlmostEqual(float(agent.actor_params(state)['epsilon']), 0.5)

  def test_greedy_acting_never_picks_illegal_actions(self):
    agent = self._agent(with_mask=True)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    # Action 1 is illegal in every row; ε = 1: uniformly random legal.
    observations = jnp.tile(jnp.array([0.0, 9.0, 0.0]), (256, 1))
    for epsilon in (0.0, 1.0):
      actions, _ = agent.act(dict(params, epsilon=jnp.float32(epsilon)),
                             jax.random.PRNGKey(1), observations)
      self.assertFalse(bool(jnp.any(actions == 1)))

  @parameterized.named_parameters(
      ('minibatches', dict(num_minibatches=3)),
      ('lambda', dict(td_lambda=1.5)),
      ('epsilon', dict(epsilon_end=-0.1)),
  )
  def test_bad_config_is_named(self, overrides):
    with self.assertRaisesRegex(ValueError, 'PQNConfig'):
      pqn.PQNConfig(**{**dict(unroll_length=4, batch_size=2), **overrides})


class LossTest(absltest.TestCase):
  """`pqn.loss` alone: a pure function of arrays."""

  def test_half_squared_error_of_the_taken_action_padding_zeroed(self):
    loss, metrics = pqn.loss(
        jnp.array([[1.0, 2.0], [3.0, 4.0]]),
        {'actions': jnp.array([1, 0]), 'targets': jnp.array([3.0, 9.0]),
         'mask': jnp.array([1.0, 0.0])})
    # Errors −1 (real) and 0 (padding): ½·1 over 2 steps.
    np.testing.assert_allclose(loss, 0.25)
    np.testing.assert_allclose(metrics['mean_q'], 2.5)


_T, _N = 6, 2


def _recurrent_agent(**config):
  """PQN with a small GRU Q-network on `_spec()`; its network too."""
  network = recurrent.make_recurrent_q_network(NUM_ACTIONS, (8, 8))
  defaults = dict(unroll_length=_T, batch_size=_N, num_minibatches=_N,
                  num_epochs=2)
  return pqn.make_agent(pqn.PQNConfig(**{**defaults, **config}), _spec(),
                        network), network


def _recurrent_trajectory(agent, params, with_next=True):
  """`_T` steps of `_N` environments acted with their state from random
  observations, an episode beginning at step 3 of environment 1 (the step
  before it a termination), rewards 1."""
  observations = jax.random.uniform(jax.random.PRNGKey(1),
                                    (_T, _N, NUM_ACTIONS))
  first = np.zeros((_T, _N), bool)
  first[0] = True
  first[3, 1] = True
  state, steps, actions = agent_lib.initial_state(agent, _N), [], []
  for t in range(_T):
    action, extras, state = agent_lib.act_with_state(
        agent, params, jax.random.PRNGKey(t), observations[t],
        jnp.asarray(first[t]), state)
    steps.append(extras)
    actions.append(action)
  last = np.zeros((_T, _N), bool)
  last[2, 1] = True
  final = jax.random.uniform(jax.random.PRNGKey(2), (_N, NUM_ACTIONS))
  # Each step's next observation: the following step's, or `final`; at the
  # termination (step 2 of environment 1) the next episode's first, which
  # no target uses.
  next_observations = jnp.concatenate([observations[1:], final[None]])
  return agent_lib.Trajectory(
      observations=observations, actions=jnp.stack(actions),
      rewards=jnp.ones((_T, _N)), discounts=jnp.asarray(~last, jnp.float32),
      last=jnp.asarray(last), mask=jnp.ones((_T, _N)),
      final_observations=final,
      extras=jax.tree.map(lambda *x: jnp.stack(x), *steps),
      next_observations=next_observations if with_next else None)


class RecurrentPQNTest(absltest.TestCase):

  @pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
  def test_acts_greedily_by_the_q_values_of_its_state(self):
    agent, network = _recurrent_agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    greedy = dict(params, epsilon=jnp.float32(0.0))
    trajectory = _recurrent_trajectory(agent, greedy)
    extras = trajectory.extras
    q_values, _ = network.unroll(
        params['online'], trajectory.observations,
        extras[recurrent_policy.FIRST],
        jax.tree.map(lambda x: x[0], extras[recurrent_policy.CORE_STATE]))
    np.testing.assert_array_equal(trajectory.actions,
                                  jnp.argmax(q_values, -1))

  def test_next_q_values_continue_each_episode(self):
    agent, network = _recurrent_agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    trajectory = _recurrent_trajectory(agent, params)
    q_network = on_policy.QValueNetwork(network, _spec(), 'PQN')
    online = params['online']
    stepped = q_network.next_q_values(online, trajectory)
    replayed = q_network.next_q_values(
        online, trajectory._replace(next_observations=None))
    # Within an episode the next observation's Q-values are those of the
    # next step replayed; after the last step, of the final observation.
    keep = ~np.asarray(trajectory.last)[..., None]
    np.testing.assert_allclose(np.where(keep, stepped, 0),
                               np.where(keep, replayed, 0), atol=1e-5)
    q_values, _ = network.unroll(
        online, trajectory.observations,
        trajectory.extras[recurrent_policy.FIRST],
        jax.tree.map(lambda x: x[0],
                     trajectory.extras[recurrent_policy.CORE_STATE]))
    np.testing.assert_allclose(stepped[:-1, 0], q_values[1:, 0], atol=1e-5)

  @pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
  def test_a_time_limit_s_next_q_values_continue_its_episode(self):
    agent, network = _recurrent_agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    trajectory = _recurrent_trajectory(agent, params)
    # Step 2 of environment 1 is cut by a time limit (discount 1) instead:
    # its next observation is the one the limit cut off, stepped from the
    # state after step 2, which is the state step 3 began from before its
    # reset.
    cut_off = jnp.full((NUM_ACTIONS,), 0.5)
    trajectory = trajectory._replace(
        discounts=jnp.ones((_T, _N)),
        next_observations=trajectory.next_observations.at[2, 1].set(cut_off))
    online = params['online']
    next_q = on_policy.QValueNetwork(network, _spec(), 'PQN').next_q_values(
        online, trajectory)
    after_step_2 = jax.tree.map(
        lambda x: x[3, 1:2],
        trajectory.extras[recurrent_policy.CORE_STATE])
    expected, _ = network.step(online, cut_off[None], jnp.zeros(1, bool),
                               after_step_2)
    np.testing.assert_allclose(next_q[2, 1], expected[0], atol=1e-5)
    # Not the next episode's first observation from a fresh state.
    fresh, _ = network.step(online, trajectory.observations[3, 1:2],
                            jnp.ones(1, bool), after_step_2)
    self.assertGreater(float(jnp.abs(next_q[2, 1] - fresh[0]).max()), 1e-4)

  def test_exploring_acts_take_random_legal_actions(self):
    agent, _ = _recurrent_agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    observations = jnp.zeros((256, NUM_ACTIONS))
    state = agent_lib.initial_state(agent, 256)
    first = jnp.ones(256, bool)
    greedy, _, _ = agent_lib.act_with_state(
        agent, dict(params, epsilon=jnp.float32(0.0)), jax.random.PRNGKey(1),
        observations, first, state)
    exploring, extras, _ = agent_lib.act_with_state(
        agent, dict(params, epsilon=jnp.float32(1.0)), jax.random.PRNGKey(1),
        observations, first, state)
    # Same observations and state: greedy acts alike, ε = 1 uniformly.
    self.assertEqual(len(set(np.asarray(greedy).tolist())), 1)
    self.assertEqual(set(np.asarray(exploring).tolist()),
                     set(range(NUM_ACTIONS)))
    self.assertIn(recurrent_policy.CORE_STATE, extras)

  def test_update_moves_q_of_taken_actions_towards_their_targets(self):
    agent, network = _recurrent_agent(learning_rate=1e-2, td_lambda=0.0,
                                      discount=0.0)
    state = agent.init(jax.random.PRNGKey(0))
    trajectory = _recurrent_trajectory(agent, agent.actor_params(state))

    def error(params):
      extras = trajectory.extras
      q_values, _ = network.unroll(
          params, trajectory.observations, extras[recurrent_policy.FIRST],
          jax.tree.map(lambda x: x[0], extras[recurrent_policy.CORE_STATE]))
      taken = jnp.take_along_axis(q_values, trajectory.actions[..., None],
                                  -1)[..., 0]
      # γ = 0: every target is the reward, 1.
      return float(jnp.abs(taken - 1.0).max())

    before = error(state.params)
    update = jax.jit(agent.update)
    for _ in range(20):
      state, metrics = update(state, trajectory)
    self.assertLess(error(state.params), before)
    self.assertEqual(int(state.updates), 20)
    self.assertTrue(all(np.isfinite(float(v)) for v in metrics.values()))

  def test_minibatches_must_divide_the_sequences(self):
    with self.assertRaisesRegex(ValueError,
                                'PQNConfig.num_minibatches .* batch_size'):
      _recurrent_agent(batch_size=2, unroll_length=6, num_minibatches=3)

  def test_acting_without_a_state_is_refused(self):
    agent, _ = _recurrent_agent()
    with self.assertRaisesRegex(TypeError, 'acts with a state'):
      agent.act({}, jax.random.PRNGKey(0), jnp.zeros((1, NUM_ACTIONS)))


if __name__ == '__main__':
  absltest.main()
