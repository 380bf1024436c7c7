"""Tests for agents/dqn.py: TD losses by hand, replay, acting, contracts."""

from absl.testing import absltest
from absl.testing import parameterized
import chex
import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import rlax

from agents import agent as agent_lib
from agents import dqn
from agents import registry
from agents import replay as replay_lib
from agents import value_distributions
from environments import catch
from environments import plane_strike
from environments import specs
from experiments.loops import actor as actor_lib
from experiments.loops import learner as learner_lib
from tests.agents import fake_data

NUM_ACTIONS = 4


def _spec(with_mask: bool = True) -> specs.EnvironmentSpec:
  return fake_data.masked_discrete_spec(NUM_ACTIONS, with_mask)


def _scale_network() -> hk.Transformed:
  """Q(o) = scale ⊙ o with `scale` ones at init: Q-values are readable."""

  def forward(observations):
    scale = hk.get_parameter('scale', [NUM_ACTIONS], init=jnp.ones)
    return observations * scale

  return hk.without_apply_rng(hk.transform(forward))


def _agent(with_mask: bool = True, **config) -> agent_lib.Agent:
  defaults = dict(min_replay_size=1, batch_size=2, discount=0.9)
  return dqn.make_agent(dqn.DQNConfig(**{**defaults, **config}),
                        _spec(with_mask), _scale_network())


def _trajectory(t: int = 1, b: int = 1, **overrides) -> agent_lib.Trajectory:
  """`[t, b]` steps; by default o = [2, 0, 0, 0], a = 0, r = 1, o' below."""
  fields = dict(
      observations=np.tile(np.array([2, 0, 0, 0], np.float32), (t, b, 1)),
      actions=np.zeros((t, b), np.int32),
      rewards=np.ones((t, b), np.float32),
      discounts=np.ones((t, b), np.float32),
      last=np.zeros((t, b), bool),
      mask=np.ones((t, b), np.float32),
      final_observations=np.tile(np.array([9, 3, 1, 0], np.float32), (b, 1)),
      extras={})
  fields.update(overrides)
  return agent_lib.Trajectory(**fields)


def _actor_params(agent: agent_lib.Agent, epsilon: float):
  return {'online': agent.init(jax.random.PRNGKey(0)).params,
          'epsilon': jnp.float32(epsilon)}


class TDLossTest(parameterized.TestCase):
  # Row 0: action 0 (legal next actions 1, 2); row 1: terminal, td = r - q.
  Q_TM1 = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 4.0]], np.float32)
  ACTIONS = np.array([0, 2], np.int32)
  REWARDS = np.array([1.0, -1.0], np.float32)
  DISCOUNTS = np.array([0.5, 0.0], np.float32)
  Q_T_VALUE = np.array([[30.0, 20.0, 10.0], [5.0, 5.0, 5.0]], np.float32)
  Q_T_SELECTOR = np.array([[50.0, 1.0, 2.0], [0.0, 0.0, 0.0]], np.float32)
  LEGAL_T = np.array([[False, True, True], [True, True, True]])

  @staticmethod
  def _td_errors(q_tm1, actions, rewards, discounts, q_t_value,
                 q_t_selector, legal_t, double_q):
    """Signed TD errors of DQN's loss, as `make_agent`'s loss forms them."""
    selector, discount_t = dqn.legal_bootstrap(
        q_t_selector if double_q else q_t_value, discounts, legal_t)
    return jax.vmap(rlax.double_q_learning)(q_tm1, actions, rewards,
                                            discount_t, q_t_value, selector)

  @parameterized.named_parameters(
      # Max over legal target values = 20: 1 + 0.5·20 - 1 = 10; 0 - 1 - 4.
      ('q_learning', False, True, [10.0, -5.0]),
      # Online selects legal action 2 (2 > 1), valued 10: 1 + 5 - 1 = 5.
      ('double_q', True, True, [5.0, -5.0]),
      # All legal: both bootstrap from action 0, valued 30: 1 + 15 - 1.
      ('q_learning_no_mask', False, False, [15.0, -5.0]),
      ('double_q_no_mask', True, False, [15.0, -5.0]),
  )
  def test_td_errors_bootstrap_over_legal_actions(self, double_q, masked,
                                                  expected):
    errors = self._td_errors(self.Q_TM1, self.ACTIONS, self.REWARDS,
                             self.DISCOUNTS, self.Q_T_VALUE,
                             self.Q_T_SELECTOR,
                             self.LEGAL_T if masked else None, double_q)
    np.testing.assert_allclose(np.asarray(errors), expected, rtol=1e-6)
    # The expected-value head's losses and priorities are of these errors.
    selector, discount_t = dqn.legal_bootstrap(
        self.Q_T_SELECTOR if double_q else self.Q_T_VALUE, self.DISCOUNTS,
        self.LEGAL_T if masked else None)
    losses, priorities = value_distributions.expected('l2').losses(
        self.Q_TM1, self.ACTIONS, self.REWARDS, discount_t, self.Q_T_VALUE,
        selector)
    np.testing.assert_allclose(priorities, np.abs(expected), rtol=1e-6)
    np.testing.assert_allclose(losses, 0.5 * np.square(expected), rtol=1e-6)

  def test_no_legal_next_action_means_no_bootstrap(self):
    errors = self._td_errors(self.Q_TM1[:1], self.ACTIONS[:1],
                             self.REWARDS[:1], np.ones(1, np.float32),
                             self.Q_T_VALUE[:1], self.Q_T_SELECTOR[:1],
                             np.zeros((1, 3), bool), False)
    np.testing.assert_allclose(np.asarray(errors), [0.0])  # 1 - q = 0.

  @parameterized.named_parameters(
      # Huber δ=1: |10| -> 9.5, |-0.5| -> 0.125; l2: ½·100, ½·0.25.
      ('huber', 'huber', (9.5 + 0.125) / 2),
      ('l2', 'l2', (50.0 + 0.125) / 2),
  )
  def test_td_loss(self, loss, expected):
    value = jnp.mean(value_distributions.td_loss(jnp.array([10.0, -0.5]),
                                                 loss))
    self.assertAlmostEqual(float(value), expected, places=5)
    with self.assertRaisesRegex(ValueError, 'loss'):
      value_distributions.td_loss(jnp.array([10.0, -0.5]), 'l1')


class TransitionsTest(absltest.TestCase):

  def test_next_observations_and_discounts(self):
    # B = 2, T = 3. Sequence 0 ends an episode at t = 1 (terminal, d = 0);
    # sequence 1 is truncated at t = 0 (d = 1 but last).
    observations = np.arange(3 * 2 * NUM_ACTIONS, dtype=np.float32).reshape(
        3, 2, NUM_ACTIONS)
    final = -np.ones((2, NUM_ACTIONS), np.float32)
    trajectory = _trajectory(
        t=3, b=2, observations=observations, final_observations=final,
        actions=np.array([[0, 1], [2, 3], [1, 0]], np.int32),
        rewards=np.array([[1, 2], [3, 4], [5, 6]], np.float32),
        discounts=np.array([[1, 1], [0, 1], [1, 1]], np.float32),
        last=np.array([[False, True], [True, False], [False, False]]),
        mask=np.array([[1, 1], [1, 1], [1, 0]], np.float32))
    transitions, valid = replay_lib.trajectory_transitions(trajectory)
    # Time-major flattening: index = t * B + b.
    np.testing.assert_array_equal(transitions.actions, [0, 1, 2, 3, 1, 0])
    np.testing.assert_array_equal(transitions.rewards, [1, 2, 3, 4, 5, 6])
    np.testing.assert_array_equal(transitions.discounts, [1, 0, 0, 1, 1, 1])
    np.testing.assert_array_equal(valid, [1, 1, 1, 1, 1, 0])
    expected_next = np.concatenate([observations[1:], final[None]])
    np.testing.assert_array_equal(transitions.next_observations,
                                  expected_next.reshape(6, NUM_ACTIONS))
    np.testing.assert_array_equal(transitions.observations,
                                  observations.reshape(6, NUM_ACTIONS))


class DQNUpdateTest(parameterized.TestCase):

  @parameterized.named_parameters(
      # o' = [9, 3, 1, 0] (action 0 illegal); target scale [1, 1, 4, 1] gives
      # target Q' = [9, 3, 4, 0]; online Q' = [9, 3, 1, 0]; q(o, 0) = 2.
      # Double: online picks action 1, target values it 3: td = 1+2.7-2.
      ('double_huber', True, 'huber', 1.7 - 0.5),
      ('double_l2', True, 'l2', 0.5 * 1.7**2),
      # Plain: max legal target value 4: td = 1 + 3.6 - 2 = 2.6.
      ('plain_huber', False, 'huber', 2.6 - 0.5),
      ('plain_l2', False, 'l2', 0.5 * 2.6**2),
  )
  def test_loss_hand_computed(self, double_q, loss, expected):
    agent = _agent(double_q=double_q, loss=loss)
    state = agent.init(jax.random.PRNGKey(0))
    state = state._replace(
        target_params={'~': {'scale': jnp.array([1.0, 1.0, 4.0, 1.0])}})
    _, metrics = jax.jit(agent.update)(state, _trajectory())
    self.assertAlmostEqual(float(metrics['loss']), expected, places=5)
    self.assertAlmostEqual(float(metrics['mean_q']), 2.0, places=6)
    self.assertEqual(float(metrics['learned']), 1.0)

  def test_no_sgd_before_min_replay_size(self):
    agent = _agent(min_replay_size=4)
    state = agent.init(jax.random.PRNGKey(0))
    update = jax.jit(agent.update)
    new_state, metrics = update(state, _trajectory(t=3))
    self.assertEqual(float(metrics['learned']), 0.0)
    self.assertEqual(int(new_state.learner_steps), 0)
    chex.assert_trees_all_equal(new_state.params, state.params)
    new_state, metrics = update(new_state, _trajectory(t=1))
    self.assertEqual(float(metrics['learned']), 1.0)
    self.assertEqual(int(new_state.learner_steps), 1)
    self.assertFalse(np.allclose(new_state.params['~']['scale'],
                                 state.params['~']['scale']))

  def test_adam_epsilon_sets_the_optimizer_s(self):
    # Adam's first step moves each weight by lr · g / (|g| + ε): about lr
    # with Optax's 1e-8, far less with an ε that dwarfs the gradient.
    def first_step(**config):
      agent = _agent(min_replay_size=1, learning_rate=0.1, **config)
      state = agent.init(jax.random.PRNGKey(0))
      new_state, _ = jax.jit(agent.update)(state, _trajectory())
      return float(jnp.abs(new_state.params['~']['scale'] -
                           state.params['~']['scale']).max())
    self.assertAlmostEqual(first_step(), 0.1, places=3)
    self.assertLess(first_step(adam_epsilon=1e6), 1e-3)

  def test_target_params_copied_every_period(self):
    agent = _agent(target_update_period=2)
    state = agent.init(jax.random.PRNGKey(0))
    initial = state.params
    update = jax.jit(agent.update)
    state, _ = update(state, _trajectory())
    chex.assert_trees_all_equal(state.target_params, initial)
    state, _ = update(state, _trajectory())
    chex.assert_trees_all_equal(state.target_params, state.params)
    copied = state.params
    state, _ = update(state, _trajectory())
    chex.assert_trees_all_equal(state.target_params, copied)
    self.assertFalse(np.allclose(state.params['~']['scale'],
                                 copied['~']['scale']))

  def test_padding_is_neither_stored_nor_learned_from(self):
    agent = _agent()
    state = agent.init(jax.random.PRNGKey(0))
    real = _trajectory(t=2)
    padded = _trajectory(
        t=3,
        observations=np.concatenate(
            [real.observations, np.full((1, 1, NUM_ACTIONS), 3.0)]),
        rewards=np.array([[1.0], [1.0], [100.0]], np.float32),
        mask=np.array([[1.0], [1.0], [0.0]], np.float32))
    # Same real transitions: step 1's next observation must be o' in both.
    real = real._replace(final_observations=np.full((1, NUM_ACTIONS), 3.0))
    new_real, _ = agent.update(state, real)
    new_padded, metrics = agent.update(state, padded)
    self.assertEqual(float(metrics['replay_size']), 2.0)
    self.assertEqual(int(new_padded.env_steps), 2)
    chex.assert_trees_all_close(new_real.params, new_padded.params)
    chex.assert_trees_all_equal(new_real.replay, new_padded.replay)

  @chex.variants(with_jit=True, without_jit=True)
  def test_update_raises_q_of_rewarded_action(self):
    agent = _agent(learning_rate=0.1, discount=0.0)
    state = agent.init(jax.random.PRNGKey(0))
    update = self.variant(agent.update)
    for _ in range(3):
      state, metrics = update(state, _trajectory(rewards=np.full((1, 1), 5.0)))
    # Q(o, 0) = 2·scale[0] moves from 2 towards the reward 5.
    self.assertGreater(float(state.params['~']['scale'][0]), 1.0)
    self.assertEqual(int(state.learner_steps), 3)
    self.assertEqual(int(state.env_steps), 3)
    self.assertTrue(np.isfinite(float(metrics['grad_norm'])))

  def test_state_can_be_donated(self):
    # The Learner donates the state to jit: no two leaves may share a buffer.
    agent = _agent(target_update_period=1)
    learner = learner_lib.Learner(agent, agent.init(jax.random.PRNGKey(0)))
    for _ in range(3):
      learner.step(_trajectory())
    self.assertEqual(int(learner.state.learner_steps), 3)

  def test_jit_and_no_jit_agree(self):
    agent = _agent(batch_size=4)
    trajectories = [_trajectory(t=2, rewards=np.full((2, 1), float(i)))
                    for i in range(3)]
    states = []
    for update in (agent.update, jax.jit(agent.update)):
      state = agent.init(jax.random.PRNGKey(3))
      for trajectory in trajectories:
        state, _ = update(state, trajectory)
      states.append(state)
    chex.assert_trees_all_close(states[0], states[1], rtol=1e-5)

  def test_update_runs_inside_scan_with_many_environments(self):
    agent = _agent(min_replay_size=8, replay_capacity=16)
    batch = jax.tree.map(lambda x: np.stack([x] * 5),
                         _trajectory(t=2, b=3))

    @jax.jit
    def run(state):
      return jax.lax.scan(agent.update, state, batch)

    state, metrics = run(agent.init(jax.random.PRNGKey(0)))
    # 6 transitions per call: SGD from the 2nd call on (size 12 >= 8).
    np.testing.assert_array_equal(metrics['learned'], [0, 1, 1, 1, 1])
    np.testing.assert_array_equal(metrics['replay_size'],
                                  [6, 12, 16, 16, 16])
    self.assertEqual(int(state.env_steps), 30)
    self.assertEqual(int(state.learner_steps), 4)


class DQNActingTest(parameterized.TestCase):

  def test_epsilon_schedule_over_environment_steps(self):
    agent = _agent(epsilon_start=1.0, epsilon_end=0.1,
                   epsilon_decay_steps=10, min_replay_size=100)
    state = agent.init(jax.random.PRNGKey(0))
    epsilons = [float(agent.actor_params(state)['epsilon'])]
    for _ in range(3):
      state, _ = agent.update(state, _trajectory(t=4))
      epsilons.append(float(agent.actor_params(state)['epsilon']))
    # After 0, 4, 8, 12 environment steps.
    np.testing.assert_allclose(epsilons, [1.0, 0.64, 0.28, 0.1], rtol=1e-5)

  @parameterized.named_parameters(('random', 1.0), ('greedy', 0.0),
                                  ('mixed', 0.5))
  def test_act_never_picks_illegal_actions(self, epsilon):
    agent = _agent()
    params = _actor_params(agent, epsilon)
    # Actions 0 and 2 illegal (and have the largest Q); greedy legal is 3.
    observations = jnp.tile(jnp.array([[9.0, 0.0, 7.0, 1.0]]), (4000, 1))
    actions, extras = jax.jit(agent.act)(params, jax.random.PRNGKey(1),
                                         observations)
    self.assertEqual(actions.shape, (4000,))
    self.assertEqual(actions.dtype, jnp.int32)
    self.assertEqual(extras, {})
    counts = np.bincount(np.asarray(actions), minlength=NUM_ACTIONS)
    self.assertEqual(counts[0] + counts[2], 0)
    # Legal random choice is uniform over {1, 3}: P(1) = ε / 2.
    self.assertAlmostEqual(counts[1] / 4000, epsilon / 2, delta=0.03)

  def test_act_without_mask_explores_every_action(self):
    agent = _agent(with_mask=False)
    params = _actor_params(agent, 1.0)
    actions, _ = agent.act(params, jax.random.PRNGKey(1),
                           jnp.zeros((400, NUM_ACTIONS)))
    self.assertEqual(set(np.asarray(actions).tolist()), {0, 1, 2, 3})

  def test_deployable_policy_zero_on_illegal_and_argmax_greedy(self):
    agent = _agent()
    params = _actor_params(agent, 0.0)
    observations = jnp.array([[9.0, 0.0, 7.0, 1.0], [1.0, 2.0, 4.0, 0.0]])
    probabilities = jax.jit(agent.deployable_policy)(params, observations)
    self.assertEqual(probabilities.shape, (2, NUM_ACTIONS))
    np.testing.assert_array_equal(probabilities[0, [0, 2]], [0.0, 0.0])
    np.testing.assert_allclose(probabilities.sum(-1), 1.0, rtol=1e-6)
    greedy, _ = agent.act(params, jax.random.PRNGKey(0), observations)
    np.testing.assert_array_equal(np.argmax(probabilities, -1), greedy)
    np.testing.assert_array_equal(greedy, [3, 2])

  def test_data_requirements(self):
    agent = _agent(update_period=4)
    self.assertEqual(agent.data, agent_lib.DataRequirements(1, 4))
    agent = _agent(update_period=4, num_actors=16)
    self.assertEqual(agent.data, agent_lib.DataRequirements(16, 4))

  def test_several_sgd_steps_per_update(self):
    agent = _agent(min_replay_size=1, sgd_steps_per_update=3,
                   target_update_period=2)
    state = agent.init(jax.random.PRNGKey(0))
    new_state, metrics = jax.jit(agent.update)(state, _trajectory(t=3))
    self.assertEqual(int(new_state.learner_steps), 3)
    self.assertEqual(float(metrics['learned']), 1.0)
    # The target was copied after SGD step 2, and step 3 moved on.
    self.assertFalse(np.allclose(new_state.target_params['~']['scale'],
                                 new_state.params['~']['scale']))


  def test_target_update_rate_averages_the_target_in(self):
    agent = _agent(min_replay_size=1, target_update_period=1,
                   target_update_rate=0.25)
    state = agent.init(jax.random.PRNGKey(0))
    new_state, _ = jax.jit(agent.update)(state, _trajectory(t=3))
    chex.assert_trees_all_close(
        new_state.target_params,
        jax.tree.map(lambda p, t: 0.25 * p + 0.75 * t, new_state.params,
                     state.target_params), rtol=1e-6)


class DQNConfigTest(parameterized.TestCase):

  @parameterized.parameters(
      dict(learning_rate=0.0), dict(discount=1.5), dict(batch_size=0),
      dict(replay_capacity=0), dict(min_replay_size=0),
      dict(min_replay_size=20_000), dict(update_period=0),
      dict(target_update_period=0), dict(loss='l1'),
      dict(epsilon_start=1.5), dict(epsilon_end=-0.1),
      dict(epsilon_decay_steps=0), dict(max_grad_norm=0.0),
      dict(num_actors=0), dict(sgd_steps_per_update=0),
      dict(batch_size=2.5), dict(target_update_rate=0.0),
      dict(target_update_rate=1.5), dict(n_step=0), dict(adam_epsilon=0.0))
  def test_bad_config_is_named(self, **kwargs):
    (name,) = kwargs
    with self.assertRaisesRegex(ValueError, name):
      dqn.DQNConfig(**kwargs)

  def test_registry_builds_dqn_for_plane_strike(self):
    spec = specs.make_environment_spec(plane_strike.make_environment())
    agent = registry.make_agent('dqn', registry.make_config('dqn'), spec,
                                hidden_sizes=(8,))
    self.assertIsInstance(registry.make_config('dqn'), dqn.DQNConfig)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    self.assertEqual(params['online']['q_values']['w'].shape, (8, 64))
    self.assertAlmostEqual(float(params['epsilon']),
                           dqn.DQNConfig().epsilon_start)


class DQNFamilyConfigTest(parameterized.TestCase):
  """Options that do not combine are refused, naming both."""

  def test_n_step_beyond_the_unroll(self):
    with self.assertRaisesRegex(
        ValueError, r'DQNConfig\.n_step \(3\) must be <= update_period '
        r'\(1\): n-step targets are summed within each unroll'):
      registry.make_config('dqn', n_step=3)
    registry.make_config('dqn', n_step=3, update_period=4)

  @parameterized.parameters(
      ('c51', 'huber', r"C51Config\.loss 'huber' has no categorical form: "
       r'.*cross_entropy'),
      ('c51', 'l2', r"C51Config\.loss 'l2' has no categorical form"),
      ('qr_dqn', 'l2', r"QRDQNConfig\.loss 'l2' has no quantile form: .*"
       r"\('quantile_huber', 'quantile'\)"),
      ('dqn', 'cross_entropy', r"DQNConfig\.loss must be one of \('huber', "
       r"'l2'\); got 'cross_entropy'"))
  def test_losses_without_a_form_for_the_head(self, agent, loss, pattern):
    with self.assertRaisesRegex(ValueError, pattern):
      registry.make_config(agent, loss=loss)

  def test_support_and_quantiles(self):
    with self.assertRaisesRegex(ValueError, r'v_min \(1\.0\) must be below '
                                r'v_max \(1\.0\)'):
      registry.make_config('c51', v_min=1.0, v_max=1.0)
    with self.assertRaisesRegex(ValueError, r'num_quantiles must be >= 2'):
      registry.make_config('qr_dqn', num_quantiles=1)
    with self.assertRaisesRegex(ValueError, r'priority_exponent must be in'):
      registry.make_config('dqn', priority_exponent=1.5)

  def test_distributional_agents_need_distribution_networks(self):
    spec = specs.make_environment_spec(catch.make_environment())
    with self.assertRaisesRegex(
        ValueError, r"Network 'mlp_q_values' is of kind 'q_values'; kind "
        r"'q_distribution' is needed here\. Valid names: "
        r'conv_dueling_q_distribution, conv_q_distribution, '
        r'mlp_dueling_q_distribution, mlp_q_distribution\.'):
      registry.make_agent('c51', registry.make_config('c51'), spec,
                          network='mlp_q_values')
    agent = registry.make_agent(
        'qr_dqn', registry.make_config('qr_dqn', num_quantiles=7), spec,
        hidden_sizes=(8,), network='mlp_dueling_q_distribution')
    state = agent.init(jax.random.PRNGKey(0))
    self.assertEqual(state.params['advantages']['w'].shape, (8, 3 * 7))
    self.assertEqual(state.params['value']['w'].shape, (8, 7))


def _train_on_catch(config: dqn.DQNConfig, num_episodes: int, seed: int):
  """Hand loop: BatchedActor and Learner, `[update_period, 1]` unrolls."""
  environment = catch.make_environment(seed=seed)
  spec = specs.make_environment_spec(environment)
  agent = registry.make_agent('dqn', config, spec)
  learner_key, actor_key = jax.random.split(jax.random.PRNGKey(seed))
  learner = learner_lib.Learner(agent, agent.init(learner_key))
  actor = actor_lib.BatchedActor(agent, learner.params, actor_key)
  steps = []
  for episode in range(num_episodes):
    timestep, step = environment.reset(), 0
    while not timestep.last():
      observation = np.asarray(timestep.observation)
      actions, _ = actor.select_actions(
          np.array([episode], np.int32), np.array([step], np.int32),
          observation[None])
      action = int(actions[0])
      timestep = environment.step(action)
      step += 1
      steps.append((observation, action, timestep.reward, timestep.discount,
                    timestep.last()))
      if len(steps) == config.update_period:
        columns = [np.asarray(c)[:, None] for c in zip(*steps)]
        learner.step(agent_lib.Trajectory(
            observations=columns[0].astype(np.float32),
            actions=columns[1].astype(np.int32),
            rewards=columns[2].astype(np.float32),
            discounts=columns[3].astype(np.float32), last=columns[4],
            mask=np.ones_like(columns[2], np.float32),
            final_observations=np.asarray(timestep.observation)[None],
            extras={}))
        actor.update(learner.params)
        steps = []
  return agent, learner


@pytest.mark.slow
class LearningTest(absltest.TestCase):

  def test_dqn_learns_catch(self):
    # 300 episodes = 2,700 steps, ~7 s on a shared 2-core CPU. Measured with
    # this config: greedy return 1.0 for 10 of 10 seeds (random play: -0.6).
    config = dqn.DQNConfig(target_update_period=10)
    agent, learner = _train_on_catch(config, num_episodes=300, seed=0)
    self.assertEqual(int(learner.state.env_steps), 2700)
    # The deployable greedy policy: argmax of `deployable_policy`.
    probabilities = jax.jit(agent.deployable_policy)
    environment = catch.make_environment(seed=123)
    total = 0.0
    for _ in range(20):
      timestep = environment.reset()
      while not timestep.last():
        p = probabilities(learner.params, timestep.observation[None])
        timestep = environment.step(int(np.argmax(p[0])))
        total += float(timestep.reward)
    self.assertGreaterEqual(total / 20, 0.8)


def _transitions(rewards, discounts):
  n = len(rewards)
  return replay_lib.Transitions(
      observations=jnp.zeros((n, 1)), actions=jnp.ones(n, jnp.int32),
      rewards=jnp.asarray(rewards, jnp.float32),
      discounts=jnp.asarray(discounts, jnp.float32),
      next_observations=jnp.zeros((n, 1)))


class LossTest(absltest.TestCase):
  """`dqn.loss` alone: a pure function of arrays."""

  def test_bootstraps_from_the_best_legal_action_only(self):
    head = value_distributions.expected('l2')
    outputs_tm1 = jnp.array([[1.0, 2.0]])  # Q(o_t, a_t = 1) = 2.
    outputs_t = jnp.array([[5.0, 3.0]])
    batch = _transitions([1.0], [1.0])
    legal = jnp.array([[False, True]])  # The 5 is illegal: target 1 + ½·3.
    loss, (mean_q, priorities) = dqn.loss(
        head, outputs_tm1, outputs_t, outputs_t, batch, jnp.ones(1), 0.5,
        legal)
    np.testing.assert_allclose(loss, 0.5 * 0.5**2)
    np.testing.assert_allclose(mean_q, 2.0)
    np.testing.assert_allclose(priorities, [0.5])
    # No legal action left: no bootstrap, the target is the reward.
    loss, _ = dqn.loss(head, outputs_tm1, outputs_t, outputs_t, batch,
                       jnp.ones(1), 0.5, jnp.array([[False, False]]))
    np.testing.assert_allclose(loss, 0.5 * 1.0**2)
    # Importance weights scale each transition's loss.
    weighted, _ = dqn.loss(head, outputs_tm1, outputs_t, outputs_t, batch,
                           jnp.full(1, 0.25), 0.5, legal)
    np.testing.assert_allclose(weighted, 0.25 * 0.5 * 0.5**2)


if __name__ == '__main__':
  absltest.main()
