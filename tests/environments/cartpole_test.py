"""Tests for `environments.cartpole`."""

from absl.testing import absltest
from absl.testing import parameterized
import chex
from dm_env import specs
from dm_env import test_utils
from gymnasium.envs.classic_control import cartpole as gym_cartpole
import jax
import jax.numpy as jnp
import numpy as np

from environments import cartpole
from environments import functional
from tests.environments import stepping

FIRST, MID, LAST = functional.FIRST, functional.MID, functional.LAST
LEFT, RIGHT = 0, 1
# float32 here against float64 in Gymnasium: rounding differences grow with
# the unstable pole, staying below this for the first ~60 steps.
_ATOL = 1e-5


def _state(physics, steps=0):
  return cartpole.CartPoleState(
      jnp.asarray(physics, jnp.float32), jnp.asarray(steps, jnp.int32))


def _gym_env(physics):
  """Gymnasium's CartPole (no time limit) started from `physics`."""
  env = gym_cartpole.CartPoleEnv()
  env.reset(seed=0)
  env.state = np.asarray(physics, np.float64)
  return env


class AgreesWithGymnasiumTest(absltest.TestCase):

  def test_one_step_from_many_states(self):
    rng = np.random.default_rng(0)
    bounds = np.array([2.4, 3.0, 0.21, 3.5], np.float32)
    physics = rng.uniform(-bounds, bounds, size=(400, 4)).astype(np.float32)
    actions = np.arange(400, dtype=np.int32) % 2
    core = cartpole.CartPole()
    _, timesteps = jax.jit(jax.vmap(core.step))(_state(physics, np.zeros(400)),
                                                actions)
    timesteps = jax.device_get(timesteps)
    terminated = []
    for i in range(400):
      observation, reward, done, truncated, _ = _gym_env(physics[i]).step(
          int(actions[i]))
      np.testing.assert_allclose(
          timesteps.observation[i], observation, rtol=1e-6, atol=1e-6,
          err_msg=f'state {physics[i]}, action {actions[i]}')
      self.assertEqual(timesteps.reward[i], reward)
      self.assertFalse(truncated)
      terminated.append(done)
    np.testing.assert_array_equal(timesteps.step_type == LAST, terminated)
    np.testing.assert_array_equal(timesteps.discount == 0.0, terminated)
    self.assertBetween(np.mean(terminated), 0.1, 0.9)

  def test_episodes(self):
    core = cartpole.CartPole()
    reset, step = jax.jit(core.reset), jax.jit(core.step)
    rng = np.random.default_rng(1)
    lengths = []
    for episode in range(16):
      state, _ = reset(jax.random.PRNGKey(episode))
      reference = _gym_env(state.physics)
      balancing = episode % 4 == 0  # Long episodes, compared for 60 steps.
      for t in range(60):
        if balancing:
          _, _, theta, theta_dot = reference.state
          action = int(theta + 0.3 * theta_dot > 0)
        else:
          action = int(rng.integers(2))
        observation, reward, terminated, _, _ = reference.step(action)
        state, timestep = step(state, action)
        msg = f'episode {episode}, step {t}'
        np.testing.assert_allclose(timestep.observation, observation,
                                   atol=_ATOL, rtol=0, err_msg=msg)
        self.assertEqual(float(timestep.reward), reward, msg)
        self.assertEqual(int(timestep.step_type) == LAST, terminated, msg)
        self.assertEqual(float(timestep.discount), 0.0 if terminated else 1.0)
        if terminated:
          break
      if balancing:
        self.assertFalse(terminated, f'episode {episode}')
      elif terminated:
        lengths.append(t + 1)
    # Most random episodes end, at various steps, within the 60 compared.
    self.assertGreater(len(lengths), 8)
    self.assertGreater(len(set(lengths)), 5)


class RulesTest(chex.TestCase):

  def _play(self, core, state, actions):
    step = self.variant(core.step)
    timesteps = []
    for action in actions:
      state, timestep = step(state, jnp.int32(action))
      timesteps.append(jax.device_get(timestep))
    return state, timesteps

  def test_reset_is_uniform_in_a_small_box(self):
    core = cartpole.CartPole()
    keys = jax.random.split(jax.random.PRNGKey(3), 4000)
    states, first = jax.jit(jax.vmap(core.reset))(keys)
    physics = np.asarray(states.physics)
    np.testing.assert_array_equal(physics, first.observation)
    self.assertEqual(physics.dtype, np.float32)
    self.assertTrue(np.all(np.abs(physics) <= 0.05))
    np.testing.assert_allclose(physics.min(0), -0.05, atol=1e-3)
    np.testing.assert_allclose(physics.max(0), 0.05, atol=1e-3)
    np.testing.assert_allclose(physics.mean(0), 0.0, atol=2e-3)
    np.testing.assert_array_equal(states.steps, 0)
    np.testing.assert_array_equal(first.step_type, FIRST)
    self.assertLess(np.abs(np.corrcoef(physics.T) - np.eye(4)).max(), 0.1)

  @chex.variants(with_jit=True, without_jit=True)
  def test_push_directions(self):
    core = cartpole.CartPole()
    _, (left,) = self._play(core, _state(np.zeros(4)), [LEFT])
    _, (right,) = self._play(core, _state(np.zeros(4)), [RIGHT])
    # Euler: positions move with the old (zero) velocities.
    self.assertEqual(left.observation[0], 0.0)
    self.assertEqual(left.observation[2], 0.0)
    self.assertLess(left.observation[1], 0.0)
    self.assertGreater(left.observation[3], 0.0)  # The pole tips right.
    np.testing.assert_allclose(right.observation, -left.observation)

  @chex.variants(with_jit=True, without_jit=True)
  def test_termination_thresholds(self):
    core = cartpole.CartPole()
    # Positions move by tau * velocity: 0.02 * 1.0 = 0.02.
    cases = (([2.39, 1.0, 0.0, 0.0], True), ([2.37, 1.0, 0.0, 0.0], False),
             ([-2.39, -1.0, 0.0, 0.0], True), ([0.0, 0.0, 0.2, 1.0], True),
             ([0.0, 0.0, -0.2, -1.0], True), ([0.0, 0.0, 0.18, 1.0], False))
    for physics, terminated in cases:
      _, (timestep,) = self._play(core, _state(physics), [LEFT])
      self.assertEqual(int(timestep.step_type), LAST if terminated else MID,
                       physics)
      self.assertEqual(float(timestep.discount), 0.0 if terminated else 1.0)
      self.assertEqual(float(timestep.reward), 1.0)

  @chex.variants(with_jit=True, without_jit=True)
  def test_truncation_after_max_steps(self):
    core = cartpole.CartPole(max_steps=5)
    self.assertEqual(core.max_episode_steps, 5)
    state, ts = self._play(core, _state(np.zeros(4)), [LEFT, RIGHT] * 3)
    self.assertEqual([int(t.step_type) for t in ts[:5]], [MID] * 4 + [LAST])
    self.assertEqual([float(t.discount) for t in ts[:5]], [1.0] * 5)
    self.assertEqual([float(t.reward) for t in ts[:5]], [1.0] * 5)
    self.assertEqual(int(state.steps), 6)

  @chex.variants(with_jit=True, without_jit=True)
  def test_termination_wins_over_truncation(self):
    _, ts = self._play(cartpole.CartPole(), _state(np.zeros(4)), [LEFT] * 30)
    length = [int(t.step_type) for t in ts].index(LAST) + 1
    self.assertBetween(length, 5, 29)
    _, ts = self._play(cartpole.CartPole(max_steps=length), _state(np.zeros(4)),
                       [LEFT] * length)
    self.assertEqual([int(t.step_type) for t in ts], [MID] * (length - 1) +
                     [LAST])
    self.assertEqual(float(ts[-1].discount), 0.0)
    self.assertEqual(float(ts[-1].reward), 1.0)

  @parameterized.parameters(0, -3, 2.5, True)
  def test_invalid_max_steps(self, max_steps):
    with self.assertRaisesRegex(ValueError, 'max_steps'):
      cartpole.CartPole(max_steps)

  def test_specs(self):
    core = cartpole.CartPole()
    observation_spec = core.observation_spec()
    self.assertEqual(observation_spec.shape, (4,))
    self.assertEqual(observation_spec.dtype, np.float32)
    action_spec = core.action_spec()
    self.assertIsInstance(action_spec, specs.DiscreteArray)
    self.assertEqual(action_spec.num_values, 2)
    self.assertFalse(hasattr(cartpole.make_environment(), 'legal_actions'))


class BatchedAgreesWithDmEnvTest(chex.TestCase):
  """`jax.vmap` over the core and the dm_env face play the same games."""

  @chex.variants(with_jit=True, without_jit=True)
  def test_same_trajectories(self):
    seed, num_episodes, num_steps, max_steps = 9, 5, 40, 30
    core = cartpole.CartPole(max_steps)
    env = cartpole.make_environment(max_steps, seed=seed)
    keys = jnp.stack([
        jax.random.fold_in(jax.random.PRNGKey(seed), i)
        for i in range(num_episodes)
    ])
    states, first = self.variant(jax.vmap(core.reset))(keys)
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 2, size=(num_steps, num_episodes), dtype=np.int32)
    actions[:, 0] = np.arange(num_steps) % 2  # Balanced: truncated at 30.
    step = self.variant(jax.vmap(core.step))
    states, batched = stepping.play_batched(step, states, actions)

    ends = stepping.assert_face_plays_as_batched(env, first, batched, actions,
                                                 atol=1e-6)
    # Terminated and truncated.
    self.assertEqual({float(last.discount) for _, last in ends}, {0.0, 1.0})

  def test_dm_env_face_validates_actions(self):
    env = cartpole.make_environment(seed=0)
    env.reset()
    for action in (2, -1, 0.0):
      with self.assertRaisesRegex(ValueError, r'\[0, 1\]'):
        env.step(action)


class CartPoleDmEnvTest(test_utils.EnvironmentTestMixin, absltest.TestCase):

  def make_object_under_test(self):
    return cartpole.make_environment(seed=0)

  def make_action_sequence(self):
    for _ in range(60):  # Pushing one way ends episodes in ~10 steps.
      yield np.int32(LEFT)


if __name__ == '__main__':
  absltest.main()
