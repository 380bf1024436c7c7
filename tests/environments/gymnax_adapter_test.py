"""Tests for `environments.gymnax_adapter`."""

import sys
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized
import dm_env
from dm_env import specs
import gymnax
import jax
import jax.numpy as jnp
import numpy as np

from agents import registry as agent_registry
from environments import dm_env_wrapper
from environments import gymnax_adapter
from environments import registry as env_registry
from environments import specs as env_specs

_CONTINUOUS = ('Pendulum-v1', 'MountainCarContinuous-v0', 'Reacher-misc',
               'Swimmer-misc', 'PointRobot-misc')


def _rollout(core, key, actions):
  """Time steps of one episode start and `actions`, jitted as one scan."""

  def run(key, actions):
    state, first = core.reset(key)
    _, timesteps = jax.lax.scan(core.step, state, actions)
    return first, timesteps

  return jax.jit(run)(key, jnp.asarray(actions, jnp.int32))


class SpecsTest(parameterized.TestCase):

  @parameterized.parameters(('CartPole-v1', (4,), 2),
                            ('Breakout-MinAtar', (10, 10, 4), 3),
                            ('Catch-bsuite', (10, 5), 3))
  def test_specs(self, env_id, shape, num_actions):
    core = gymnax_adapter.make_core(env_id)
    observation_spec = core.observation_spec()
    self.assertEqual(observation_spec.shape, shape)
    self.assertEqual(observation_spec.dtype, np.float32)
    self.assertEqual(core.action_spec(),
                     specs.DiscreteArray(num_actions, np.int32, name='action'))
    self.assertEqual(core.reward_spec().dtype, np.float32)
    self.assertEqual(core.discount_spec().dtype, np.float32)
    _, first = jax.jit(core.reset)(jax.random.PRNGKey(0))
    self.assertEqual(first.observation.shape, shape)
    self.assertEqual(first.observation.dtype, jnp.float32)

  def test_discrete_observations_are_one_hot(self):
    core = gymnax_adapter.make_core('FrozenLake-misc')
    self.assertEqual(core.observation_spec().shape, (16,))
    first, timesteps = _rollout(core, jax.random.PRNGKey(0), [1, 2])
    observations = np.concatenate([first.observation[None],
                                   timesteps.observation])
    np.testing.assert_array_equal(observations.sum(-1), [1.0] * 3)
    self.assertEqual(int(np.argmax(observations[0])), 0)  # Top-left start.

  def test_max_episode_steps_is_gymnax_limit(self):
    self.assertEqual(gymnax_adapter.make_core('CartPole-v1').max_episode_steps,
                     500)
    self.assertEqual(gymnax_adapter.make_core(
        'Breakout-MinAtar', max_steps_in_episode=7).max_episode_steps, 7)
    # BernoulliBandit's limit is a float in gymnax.
    core = gymnax_adapter.make_core('BernoulliBandit-misc')
    self.assertEqual(core.max_episode_steps, 100)
    self.assertIsInstance(core.max_episode_steps, int)


class CoreTest(absltest.TestCase):

  def test_jit_and_vmap(self):
    core = gymnax_adapter.make_core('CartPole-v1')
    keys = jax.random.split(jax.random.PRNGKey(1), 8)
    states, first = jax.jit(jax.vmap(core.reset))(keys)
    self.assertEqual(first.observation.shape, (8, 4))
    np.testing.assert_array_equal(first.step_type, [0] * 8)
    actions = jnp.arange(8, dtype=jnp.int32) % 2
    _, timesteps = jax.jit(jax.vmap(core.step))(states, actions)
    self.assertEqual(timesteps.step_type.dtype, jnp.int8)
    self.assertEqual(timesteps.reward.dtype, jnp.float32)
    self.assertEqual(timesteps.discount.dtype, jnp.float32)
    np.testing.assert_array_equal(timesteps.reward, [1.0] * 8)
    np.testing.assert_array_equal(timesteps.step_type, [1] * 8)
    # Different keys, different starts.
    self.assertLen(np.unique(np.asarray(first.observation)[:, 0]), 8)

  def test_termination_has_discount_zero(self):
    core = gymnax_adapter.make_core('CartPole-v1')
    _, timesteps = _rollout(core, jax.random.PRNGKey(0), [0] * 40)
    step_types = np.asarray(timesteps.step_type)
    end = int(np.argmax(step_types == 2))  # Pushing left topples the pole.
    self.assertGreater(end, 3)
    self.assertLess(end, 30)
    np.testing.assert_array_equal(step_types[:end], [1] * end)
    self.assertEqual(float(timesteps.discount[end]), 0.0)
    self.assertEqual(float(timesteps.reward[end]), 1.0)

  def test_truncation_has_discount_one(self):
    core = gymnax_adapter.make_core('CartPole-v1', max_steps_in_episode=5)
    _, timesteps = _rollout(core, jax.random.PRNGKey(0), [0, 1, 0, 1, 0])
    np.testing.assert_array_equal(timesteps.step_type, [1, 1, 1, 1, 2])
    np.testing.assert_array_equal(timesteps.discount, [1.0] * 5)

  def test_only_a_step_that_draws_splits_the_key(self):
    for env_id, draws in (('CartPole-v1', False), ('Breakout-MinAtar', False),
                          ('Acrobot-v1', True), ('BernoulliBandit-misc', True)):
      core = gymnax_adapter.make_core(env_id)
      self.assertEqual(core.step_draws, draws, env_id)
      state, _ = core.reset(jax.random.PRNGKey(0))
      stepped, _ = jax.jit(core.step)(state, jnp.int32(0))
      self.assertEqual(not np.array_equal(stepped.key, state.key), draws,
                       env_id)

  def test_trajectory_is_gymnax_step_env_with_split_keys(self):
    # BernoulliBandit draws its rewards with the step key, so a wrong key
    # sequence changes them; CartPole checks observations and ends.
    for env_id, limit in (('BernoulliBandit-misc', 30), ('CartPole-v1', 30)):
      core = gymnax_adapter.make_core(env_id, max_steps_in_episode=limit)
      env, params = gymnax.make(env_id)
      params = params.replace(max_steps_in_episode=limit)
      actions = jax.random.randint(jax.random.PRNGKey(5), (limit,), 0, 2)
      key = jax.random.PRNGKey(7)
      first, timesteps = _rollout(core, key, actions)

      def reference(key, actions, env=env, params=params):
        reset_key, key = jax.random.split(key)
        observation, state = env.reset_env(reset_key, params)

        def step(carry, action):
          state, key = carry
          key, step_key = jax.random.split(key)
          obs, state, reward, terminated, _ = env.step_env(
              step_key, state, action, params)
          return (state, key), (obs, reward, terminated,
                                env.is_truncated(state, params))

        return observation, jax.lax.scan(step, (state, key), actions)[1]

      observation, (obs, reward, terminated, truncated) = jax.jit(reference)(
          key, actions)
      np.testing.assert_allclose(first.observation, observation, rtol=1e-6)
      np.testing.assert_allclose(timesteps.observation, obs, rtol=1e-6)
      np.testing.assert_array_equal(timesteps.reward, reward)
      np.testing.assert_array_equal(timesteps.step_type,
                                    np.where(terminated | truncated, 2, 1))
      np.testing.assert_array_equal(timesteps.discount,
                                    np.where(terminated, 0.0, 1.0))
      self.assertTrue(bool(truncated[-1]) or bool(terminated[-1]))
      if env_id == 'BernoulliBandit-misc':
        # Rewards vary along the episode: the keys really are used.
        self.assertLen(np.unique(np.asarray(timesteps.reward)), 2)


class DmFaceTest(absltest.TestCase):

  def test_dm_environment(self):
    env = env_registry.make_environment('gymnax:CartPole-v1', seed=3,
                                          max_steps_in_episode=3)
    self.assertIsInstance(env, dm_env_wrapper.DmEnvironment)
    first = env.reset()
    key = jax.random.fold_in(jax.random.PRNGKey(3), 0)
    np.testing.assert_array_equal(first.observation,
                                  env.core.reset(key)[1].observation)
    self.assertEqual([env.step(1).step_type for _ in range(3)],
                     [dm_env.StepType.MID] * 2 + [dm_env.StepType.LAST])
    self.assertTrue(env.step(0).first())
    with self.assertRaisesRegex(ValueError, r'integer in \[0, 1\]'):
      env.step(2)
    spec = env_specs.make_environment_spec(env)
    self.assertIsNone(spec.legal_actions)
    self.assertEqual(spec.num_actions, 2)

  def test_agents_act_on_the_spec(self):
    env = env_registry.make_environment('gymnax:CartPole-v1', seed=0)
    spec = env_specs.make_environment_spec(env)
    agent = agent_registry.make_agent(
        'ppo', agent_registry.make_config('ppo'), spec, None)
    params = jax.jit(lambda key: agent.actor_params(agent.init(key)))(
        jax.random.PRNGKey(0))
    _, first = jax.vmap(env.core.reset)(
        jax.random.split(jax.random.PRNGKey(1), 5))
    actions, _ = jax.jit(agent.act)(params, jax.random.PRNGKey(2),
                                    first.observation)
    self.assertEqual(actions.shape, (5,))
    self.assertTrue(np.all((actions >= 0) & (actions < 2)))


class ContinuousTest(absltest.TestCase):

  def test_pendulum_spec(self):
    core = gymnax_adapter.make_core('Pendulum-v1')
    self.assertEqual(core.action_spec(), specs.BoundedArray(
        (1,), np.float32, -2.0, 2.0, name='action'))
    np.testing.assert_array_equal(core.action_spec().minimum, [-2.0])
    np.testing.assert_array_equal(core.action_spec().maximum, [2.0])
    self.assertEqual(core.observation_spec().shape, (3,))
    self.assertEqual(core.max_episode_steps, 200)

  def test_out_of_range_actions_are_clipped(self):
    # Pendulum clips its torque itself; MountainCarContinuous and Reacher do
    # not (the former charges 0.1 * action**2 unclipped), so only our
    # clipping makes these match.
    for env_id, wild, clipped in (
        ('Pendulum-v1', [7.5], [2.0]),
        ('Pendulum-v1', [-30.0], [-2.0]),
        ('MountainCarContinuous-v0', [4.0], [1.0]),
        ('Reacher-misc', [3.0, -0.25], [1.0, -0.25])):
      core = gymnax_adapter.make_core(env_id)
      state, _ = core.reset(jax.random.PRNGKey(3))
      step = jax.jit(core.step)
      wild_state, wild_step = step(state, jnp.asarray(wild, jnp.float32))
      clip_state, clip_step = step(state, jnp.asarray(clipped, jnp.float32))
      for a, b in zip(jax.tree_util.tree_leaves((wild_state, wild_step)),
                      jax.tree_util.tree_leaves((clip_state, clip_step))):
        np.testing.assert_array_equal(a, b, err_msg=env_id)
      # ... and in-range actions matter: a different one differs.
      _, other = step(state, jnp.zeros(core.action_spec().shape))
      self.assertFalse(np.allclose(other.observation, clip_step.observation)
                       and float(other.reward) == float(clip_step.reward))
    # The clipped torque is what Pendulum recorded (its state's last_u).
    core = gymnax_adapter.make_core('Pendulum-v1')
    state, _ = core.reset(jax.random.PRNGKey(0))
    state, _ = jax.jit(core.step)(state, jnp.array([9.0]))
    self.assertEqual(float(state.env_state.last_u), 2.0)

  def test_matches_gymnax_step_env(self):
    core = gymnax_adapter.make_core('Pendulum-v1')
    env, params = gymnax.make('Pendulum-v1')
    state, _ = core.reset(jax.random.PRNGKey(4))
    _, step_key = jax.random.split(state.key)
    action = jnp.array([0.75], jnp.float32)
    obs, _, reward, _, _ = env.step_env(step_key, state.env_state, action,
                                        params)
    _, timestep = core.step(state, action)
    np.testing.assert_allclose(timestep.observation, obs, rtol=1e-6)
    np.testing.assert_allclose(timestep.reward, reward, rtol=1e-6)

  def test_jit_and_vmap(self):
    core = gymnax_adapter.make_core('Pendulum-v1')
    keys = jax.random.split(jax.random.PRNGKey(1), 6)
    states, first = jax.jit(jax.vmap(core.reset))(keys)
    self.assertEqual(first.observation.shape, (6, 3))
    actions = jnp.linspace(-3.0, 3.0, 6, dtype=jnp.float32)[:, None]
    step = jax.jit(jax.vmap(core.step))
    _, timesteps = step(states, actions)
    self.assertEqual(timesteps.observation.shape, (6, 3))
    self.assertEqual(timesteps.reward.shape, (6,))
    self.assertEqual(timesteps.reward.dtype, jnp.float32)
    np.testing.assert_array_equal(timesteps.step_type, [1] * 6)
    # Each row is the unbatched step of its own action, clipped.
    for i in range(6):
      state_i = jax.tree_util.tree_map(lambda x, i=i: x[i], states)
      _, single = jax.jit(core.step)(state_i, jnp.clip(actions[i], -2, 2))
      np.testing.assert_allclose(timesteps.observation[i],
                                 single.observation, rtol=1e-6)
      np.testing.assert_allclose(timesteps.reward[i], single.reward,
                                 rtol=1e-6)

  def test_pendulum_truncates_at_200_steps_with_discount_one(self):
    core = gymnax_adapter.make_core('Pendulum-v1')

    def run(key, actions):
      state, _ = core.reset(key)
      return jax.lax.scan(core.step, state, actions)[1]

    actions = jax.random.uniform(jax.random.PRNGKey(2), (200, 1),
                                 minval=-3.0, maxval=3.0)
    timesteps = jax.jit(run)(jax.random.PRNGKey(0), actions)
    np.testing.assert_array_equal(timesteps.step_type, [1] * 199 + [2])
    np.testing.assert_array_equal(timesteps.discount, [1.0] * 200)
    self.assertTrue(np.all(np.asarray(timesteps.reward) <= 0.0))

  def test_dm_face_validates_and_clips(self):
    env = env_registry.make_environment('gymnax:Pendulum-v1', seed=5,
                                          max_steps_in_episode=3)
    twin = env_registry.make_environment('gymnax:Pendulum-v1', seed=5,
                                           max_steps_in_episode=3)
    env.reset()
    twin.reset()
    wild = env.step(np.array([50.0]))
    clipped = twin.step(np.array([2.0], np.float32))
    np.testing.assert_array_equal(wild.observation, clipped.observation)
    self.assertEqual(float(wild.reward), float(clipped.reward))
    self.assertIs(env.step(1.5).step_type, dm_env.StepType.MID)  # (1,) fits.
    self.assertIs(env.step([-1.0]).step_type, dm_env.StepType.LAST)
    self.assertEqual(float(env.step([0.0]).step_type), 0)  # New episode.
    for bad, shape in ((np.zeros(2), r'\(2,\)'),
                       (np.zeros((2, 3)), r'\(2, 3\)')):
      with self.assertRaisesRegex(
          ValueError, r'float array of shape \(1,\); got shape ' + shape):
        env.step(bad)
    with self.assertRaisesRegex(ValueError, 'finite'):
      env.step([np.nan])


class CheckIdTest(parameterized.TestCase):

  def test_buildable_ids(self):
    ids = gymnax_adapter.buildable_ids()
    for env_id in ('CartPole-v1', 'Acrobot-v1', 'Breakout-MinAtar',
                   'Catch-bsuite', 'FrozenLake-misc') + _CONTINUOUS:
      self.assertIn(env_id, ids)
      gymnax_adapter.check_id(env_id)
    self.assertNotIn('MNISTBandit-bsuite', ids)  # Would download MNIST.

  def test_unknown_id_lists_close_matches(self):
    for env_id, close in (('CartPole-v2', 'CartPole-v1'),
                          ('cartpole', 'CartPole-v1'),
                          ('Breakout-Minatar', 'Breakout-MinAtar'),
                          ('pendulum-v1', 'Pendulum-v1')):
      with self.assertRaisesRegex(ValueError, 'Unknown gymnax') as context:
        gymnax_adapter.check_id(env_id)
      message = str(context.exception)
      self.assertIn(f'Did you mean {close}', message)
      self.assertIn('Valid gymnax ids: CartPole-v1, ', message)
      self.assertIn('Pendulum-v1', message)  # Continuous ones are valid.
    with self.assertRaisesRegex(ValueError, 'Unknown gymnax'):
      gymnax_adapter.make_core('NoSuchGame')

  @parameterized.parameters(*_CONTINUOUS)
  def test_continuous_ids_are_accepted(self, env_id):
    core = gymnax_adapter.make_core(env_id)
    env, params = gymnax.make(env_id)
    space = env.action_space(params)
    spec = core.action_spec()
    self.assertIsInstance(spec, specs.BoundedArray)
    self.assertNotIsInstance(spec, specs.DiscreteArray)
    self.assertEqual(spec.dtype, np.float32)
    self.assertEqual(spec.shape, tuple(space.shape))
    np.testing.assert_array_equal(
        spec.minimum, np.broadcast_to(space.low, spec.shape))
    np.testing.assert_array_equal(
        spec.maximum, np.broadcast_to(space.high, spec.shape))
    self.assertTrue(env_specs.make_environment_spec(
        env_registry.make_environment(f'gymnax:{env_id}')).is_continuous)

  def test_env_kwargs_are_checked(self):
    with self.assertRaisesRegex(ValueError,
                                r"\['max_steps'\].*max_steps_in_episode, "
                                r'gravity'):
      gymnax_adapter.make_core('CartPole-v1', max_steps=5)
    with self.assertRaisesRegex(ValueError, 'max_steps_in_episode must be'):
      gymnax_adapter.make_core('CartPole-v1', max_steps_in_episode=0)
    core = gymnax_adapter.make_core('CartPole-v1', force_mag=20.0)
    self.assertEqual(core.params.force_mag, 20.0)

  def test_missing_gymnax_says_how_to_install(self):
    with mock.patch.dict(sys.modules, {'gymnax': None}):
      for fn in (gymnax_adapter.check_id, gymnax_adapter.make_core):
        with self.assertRaisesRegex(
            ValueError, r"gymnax is not installed: pip install -e "
            r"'\.\[suites\]'"):
          fn('CartPole-v1')


if __name__ == '__main__':
  absltest.main()
