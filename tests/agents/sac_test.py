"""Tests for agents/sac.py: replay, SGD gating, Polyak targets, temperature,
acting in bounds and config checks."""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import chex
from dm_env import specs as dm_specs
import jax
import jax.numpy as jnp
import numpy as np

from agents import agent as agent_lib
from agents import sac
from networks import actor_twin_q
from tests.agents import fake_data

_OBS, _DIM, _LOW = fake_data.OBSERVATION_SIZE, 2, fake_data.ACTION_LOW
_HIGH = np.array([1.0, 2.0], np.float32)
_spec = functools.partial(fake_data.continuous_spec, _HIGH)


def _network():
  return actor_twin_q.make_actor_twin_q_network(_DIM, hidden_sizes=(16,))


def _config(**overrides) -> sac.SACConfig:
  settings = dict(batch_size=4, replay_capacity=32, min_replay_size=8,
                  update_period=2, num_actors=2, sgd_steps_per_update=1,
                  actor_learning_rate=1e-2, critic_learning_rate=1e-2)
  settings.update(overrides)
  return sac.SACConfig(**settings)


def _agent(**overrides) -> agent_lib.Agent:
  return sac.make_agent(_config(**overrides), _spec(), _network())


def _trajectory(t=2, b=2, seed=0, **overrides) -> agent_lib.Trajectory:
  return fake_data.continuous_trajectory(_HIGH, t, b, seed, **overrides)


@functools.lru_cache(maxsize=None)
def _first_update(**overrides):
  """`(state0, state1, metrics)` of one jitted update on `_trajectory()`
  that learns (min_replay_size 4), cached per config."""
  agent = _agent(**{'min_replay_size': 4, **overrides})
  state0 = agent.init(jax.random.PRNGKey(0))
  state1, metrics = jax.jit(agent.update)(state0, _trajectory())
  return state0, state1, metrics


def _flat(params) -> np.ndarray:
  return np.concatenate([np.ravel(x) for x in jax.tree.leaves(params)])


def _observations(n=64, scale=3.0):
  return scale * jax.random.normal(jax.random.PRNGKey(7), (n, _OBS))


class SACInitAndActTest(absltest.TestCase):

  def test_init_shapes(self):
    state = _agent(initial_temperature=0.5).init(jax.random.PRNGKey(0))
    self.assertTrue(all(k.startswith('actor') for k in state.actor_params))
    self.assertEqual({k.split('/')[0] for k in state.critic_params},
                     {'critic_0', 'critic_1'})
    self.assertEqual(state.actor_params['actor/~/linear_1']['w'].shape,
                     (16, 2 * _DIM))
    self.assertEqual(state.critic_params['critic_0/~/linear_0']['w'].shape,
                     (_OBS + _DIM, 16))
    chex.assert_trees_all_equal(state.target_critic_params,
                                state.critic_params)
    self.assertAlmostEqual(float(state.log_temperature), np.log(0.5),
                           places=6)
    transitions = state.replay.transitions
    self.assertEqual(transitions.actions.shape, (32, _DIM))
    self.assertEqual(transitions.actions.dtype, jnp.float32)
    self.assertEqual(transitions.observations.shape, (32, _OBS))
    self.assertEqual(transitions.next_observations.shape, (32, _OBS))
    self.assertEqual(int(state.replay.size), 0)
    self.assertEqual(int(state.learner_steps), 0)

  def test_data_requirements(self):
    self.assertEqual(_agent(update_period=3, num_actors=5).data,
                     agent_lib.DataRequirements(5, 3))

  def test_act_gives_actions_within_the_bounds(self):
    agent = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    self.assertEqual(list(params), ['actor'])

    def with_head_bias(bias):  # Means, then raw log-stds, of the head.
      head = dict(params['actor']['actor/~/linear_1'], b=jnp.array(bias))
      return {'actor': dict(params['actor'], **{'actor/~/linear_1': head})}

    act = jax.jit(agent.act)
    # Wide Gaussians (log-std 2): samples spread to both bounds.
    actions, extras = act(with_head_bias([0.0, 0.0, 5.0, 5.0]),
                          jax.random.PRNGKey(1), _observations())
    self.assertEqual(actions.shape, (64, _DIM))
    self.assertEqual(actions.dtype, jnp.float32)
    self.assertEqual(extras, {})
    actions = np.asarray(actions)
    self.assertTrue(np.all(actions >= _LOW) and np.all(actions <= _HIGH))
    np.testing.assert_array_less(actions.min(0), _LOW + 0.1)
    np.testing.assert_array_less(_HIGH - 0.1, actions.max(0))
    # Narrow ones (log-std -5) at means ±4 (zero observations: the head's
    # input is 0): near the top, then the bottom.
    actions, _ = act(with_head_bias([4.0, -4.0, -5.0, -5.0]),
                     jax.random.PRNGKey(1), jnp.zeros((64, _OBS)))
    np.testing.assert_allclose(actions, np.tile([1.0, 0.0], (64, 1)),
                               atol=0.01)
    # Different keys, different samples.
    other, _ = act(with_head_bias([0.0, 0.0, 5.0, 5.0]),
                   jax.random.PRNGKey(2), _observations())
    self.assertFalse(np.allclose(actions, other))

  def test_deployable_policy_is_deterministic_and_in_bounds(self):
    agent = _agent()
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    policy = jax.jit(agent.deployable_policy)
    outputs = policy(params, _observations(scale=100.0))
    self.assertEqual(outputs.shape, (64, _DIM))
    np.testing.assert_array_equal(outputs,
                                  policy(params, _observations(scale=100.0)))
    self.assertTrue(bool(jnp.all((outputs >= _LOW) & (outputs <= _HIGH))))
    # The mean, squashed and rescaled.
    means, _ = _network().apply[0](params['actor'],
                                   _observations(scale=100.0))
    np.testing.assert_allclose(
        outputs, _LOW + (jnp.tanh(means) + 1.0) * (_HIGH - _LOW) / 2,
        rtol=1e-5, atol=1e-6)


class SACUpdateTest(parameterized.TestCase):

  def test_no_sgd_before_min_replay_size_then_sgd(self):
    agent = _agent(sgd_steps_per_update=3)
    update = jax.jit(agent.update)
    state0 = agent.init(jax.random.PRNGKey(0))
    # 4 transitions < min_replay_size 8: stored, nothing learned.
    state1, metrics = update(state0, _trajectory(seed=1))
    self.assertEqual(float(metrics['learned']), 0.0)
    self.assertEqual(float(metrics['replay_size']), 4.0)
    self.assertEqual(float(metrics['critic_loss']), 0.0)
    self.assertAlmostEqual(float(metrics['temperature']), 1.0, places=6)
    self.assertEqual(int(state1.learner_steps), 0)
    for field in ('actor_params', 'critic_params', 'target_critic_params',
                  'log_temperature'):
      chex.assert_trees_all_equal(getattr(state1, field),
                                  getattr(state0, field))
    # 8 transitions: three SGD steps.
    state2, metrics = update(state1, _trajectory(seed=2))
    self.assertEqual(float(metrics['learned']), 1.0)
    self.assertEqual(float(metrics['replay_size']), 8.0)
    self.assertEqual(int(state2.learner_steps), 3)
    for field in ('actor_params', 'critic_params', 'target_critic_params'):
      self.assertFalse(np.allclose(_flat(getattr(state1, field)),
                                   _flat(getattr(state2, field))), field)
    self.assertNotEqual(float(state2.log_temperature),
                        float(state1.log_temperature))
    self.assertGreater(float(metrics['critic_loss']), 0.0)
    chex.assert_tree_all_finite(metrics)
    self.assertCountEqual(metrics, [
        'critic_loss', 'actor_loss', 'temperature_loss', 'temperature',
        'mean_q', 'entropy', 'critic_grad_norm', 'actor_grad_norm',
        'learned', 'replay_size'])
    state3, _ = update(state2, _trajectory(seed=3))
    self.assertEqual(int(state3.learner_steps), 6)

  def test_target_critic_moves_by_polyak_tau(self):
    tau = _config().tau
    state0, state1, metrics = _first_update()
    self.assertEqual(float(metrics['learned']), 1.0)
    expected = jax.tree.map(lambda new, old: tau * new + (1 - tau) * old,
                            state1.critic_params, state0.critic_params)
    chex.assert_trees_all_close(state1.target_critic_params, expected,
                                rtol=1e-6, atol=1e-7)
    # Strictly between the old and the new critic.
    self.assertFalse(np.allclose(_flat(state1.target_critic_params),
                                 _flat(state0.critic_params), rtol=0,
                                 atol=1e-9))
    self.assertFalse(np.allclose(_flat(state1.target_critic_params),
                                 _flat(state1.critic_params), rtol=0,
                                 atol=1e-9))

  def test_critic_loss_by_hand_on_identical_transitions(self):
    # γ = 0: the target is the reward. Every stored transition is the same,
    # so every minibatch is: loss = Σ_i ½ (Q_i(o, a) - r)².
    agent = _agent(min_replay_size=4, discount=0.0)
    state0 = agent.init(jax.random.PRNGKey(0))
    o = np.array([0.5, -1.0, 2.0], np.float32)
    a = np.array([0.3, 1.5], np.float32)
    trajectory = _trajectory(observations=np.tile(o, (2, 2, 1)),
                             actions=np.tile(a, (2, 2, 1)),
                             rewards=np.full((2, 2), 1.5, np.float32))
    _, metrics = agent.update(state0, trajectory)
    q = np.asarray(_network().apply[1](state0.critic_params, o[None],
                                       a[None]))[0]
    self.assertAlmostEqual(float(metrics['critic_loss']),
                           float(np.sum(0.5 * (q - 1.5)**2)), places=5)
    self.assertAlmostEqual(float(metrics['mean_q']), float(q.mean()),
                           places=5)

  @parameterized.named_parameters(
      ('entropy_above_target', -50.0, -1.0),
      ('entropy_below_target', 50.0, 1.0))
  def test_temperature_follows_the_entropy_target(self, target, direction):
    _, state1, metrics = _first_update(target_entropy=target,
                                       temperature_learning_rate=0.1)
    # Adam's first step moves log α by the step size, against the gradient.
    self.assertAlmostEqual(float(state1.log_temperature), direction * 0.1,
                           places=3)
    self.assertAlmostEqual(float(metrics['temperature']),
                           float(np.exp(direction * 0.1)), places=3)
    self.assertAlmostEqual(float(metrics['temperature_loss']),
                           float(metrics['entropy']) - target, places=4)

  def test_default_target_entropy_is_minus_action_dim(self):
    # Temperature loss -α (log π + target) at α = 1: entropy + target.
    _, _, metrics = _first_update()
    self.assertAlmostEqual(float(metrics['temperature_loss']),
                           float(metrics['entropy']) + _DIM, places=5)

  def test_fixed_temperature(self):
    agent = _agent(min_replay_size=4, learn_temperature=False,
                   initial_temperature=0.2, target_entropy=-50.0)
    state = agent.init(jax.random.PRNGKey(0))
    update = jax.jit(agent.update)
    for seed in range(3):
      state, metrics = update(state, _trajectory(seed=seed))
      self.assertEqual(float(metrics['learned']), 1.0)
      self.assertAlmostEqual(float(state.log_temperature), np.log(0.2),
                             places=6)
      self.assertAlmostEqual(float(metrics['temperature']), 0.2, places=6)

  def test_padding_is_not_stored(self):
    agent = _agent()
    trajectory = _trajectory(t=3, b=2, mask=np.array(
        [[1, 1], [1, 0], [0, 0]], np.float32))
    state, metrics = agent.update(agent.init(jax.random.PRNGKey(0)),
                                  trajectory)
    self.assertEqual(int(state.replay.size), 3)
    self.assertEqual(float(metrics['replay_size']), 3.0)
    stored = np.asarray(state.replay.transitions.actions)
    actions = trajectory.actions
    np.testing.assert_allclose(
        stored[:3], [actions[0, 0], actions[0, 1], actions[1, 0]])
    np.testing.assert_array_equal(stored[3:], 0.0)
    np.testing.assert_allclose(
        np.asarray(state.replay.transitions.next_observations)[:3],
        [trajectory.observations[1, 0], trajectory.observations[1, 1],
         trajectory.observations[2, 0]])

  def test_episode_ends_do_not_bootstrap(self):
    agent = _agent()
    trajectory = _trajectory(last=np.array([[True, False], [False, False]]),
                             discounts=np.array([[1, 0], [1, 1]],
                                                np.float32))
    state, _ = agent.update(agent.init(jax.random.PRNGKey(0)), trajectory)
    np.testing.assert_array_equal(
        np.asarray(state.replay.transitions.discounts)[:4], [0, 0, 1, 1])

  def test_update_jits_and_matches_the_python_call(self):
    state, jitted, jit_metrics = _first_update()
    plain, plain_metrics = _agent(min_replay_size=4).update(state,
                                                            _trajectory())
    chex.assert_trees_all_close(jitted, plain, rtol=1e-4, atol=1e-6)
    chex.assert_trees_all_close(jit_metrics, plain_metrics, rtol=1e-4,
                                atol=1e-6)

  def test_wrong_action_shape_is_refused(self):
    agent = _agent()
    with self.assertRaises(AssertionError):
      agent.update(agent.init(jax.random.PRNGKey(0)),
                   _trajectory(actions=np.zeros((2, 2), np.float32)))


class SACChecksTest(parameterized.TestCase):

  def test_min_replay_size_above_capacity_is_refused(self):
    with self.assertRaisesRegex(ValueError,
                                r'min_replay_size \(64\).*replay_capacity '
                                r'\(32\)'):
      sac.SACConfig(replay_capacity=32, min_replay_size=64)

  @parameterized.parameters(
      dict(tau=1.5), dict(tau=-0.1), dict(discount=1.1), dict(batch_size=0),
      dict(replay_capacity=0), dict(min_replay_size=0), dict(update_period=0),
      dict(num_actors=0), dict(sgd_steps_per_update=0),
      dict(actor_learning_rate=0.0), dict(critic_learning_rate=-1.0),
      dict(temperature_learning_rate=0.0), dict(initial_temperature=0.0),
      dict(max_grad_norm=0.0), dict(batch_size=2.5))
  def test_bad_config_is_named(self, **kwargs):
    (name,) = kwargs
    with self.assertRaisesRegex(ValueError, f'SACConfig.{name}'):
      sac.SACConfig(**kwargs)

  def test_defaults_are_valid(self):
    config = sac.SACConfig()
    self.assertEqual((config.tau, config.batch_size), (0.005, 256))
    self.assertEqual(config.batch_splits(),
                     {'batch_size (transitions per SGD step)': 256})

  @parameterized.named_parameters(
      ('unbounded', dm_specs.Array((_DIM,), np.float32)),
      ('half_bounded', dm_specs.BoundedArray((_DIM,), np.float32,
                                             [-1.0, -np.inf], 1.0)))
  def test_action_spec_without_finite_bounds_is_refused(self, actions):
    with self.assertRaisesRegex(ValueError, r'^SAC squashes actions'):
      sac.make_agent(_config(), _spec(actions), _network())

  def test_discrete_spec_is_refused(self):
    with self.assertRaisesRegex(ValueError,
                                r'continuous actions.*discrete \(4 actions'):
      sac.make_agent(_config(), _spec(dm_specs.DiscreteArray(4)), _network())


class LossTest(absltest.TestCase):
  """SAC's losses alone: pure functions of arrays."""

  def test_soft_targets_subtract_the_entropy_term(self):
    batch = fake_data.two_transitions()
    targets = sac.critic_targets(batch, jnp.full(2, 2.0), jnp.full(2, -1.0),
                                 jnp.asarray(0.5), 0.9)
    np.testing.assert_allclose(targets, [1 + 0.9 * (2 + 0.5), 1.0])

  def test_actor_and_temperature_losses(self):
    np.testing.assert_allclose(
        sac.actor_loss(jnp.array([-1.0]), jnp.array([2.0]), 0.5), -2.5)
    log_probs = jnp.array([-1.0])  # Entropy 1, above a target of -1.
    log_alpha = jnp.log(0.5)
    np.testing.assert_allclose(
        sac.temperature_loss(log_alpha, log_probs, -1.0), 1.0, rtol=1e-6)
    # So the temperature's gradient step lowers it.
    self.assertGreater(
        jax.grad(sac.temperature_loss)(log_alpha, log_probs, -1.0), 0.0)


if __name__ == '__main__':
  absltest.main()
