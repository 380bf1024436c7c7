"""Tests for `environments.dm_env_wrapper`."""

from typing import NamedTuple

from absl.testing import absltest
from absl.testing import parameterized
import dm_env
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import dm_env_wrapper
from environments import episode_streams
from environments import functional
from environments import plane_strike

_SPEC = specs.DiscreteArray(5, dtype=np.int32, name='action')


class _State(NamedTuple):
  value: jax.Array
  steps: jax.Array


class _Drift:
  """Tiny functional environment with a continuous action.

  The first observation is `uniform(key)`, so it reveals the episode key; each
  step adds the action to it and episodes terminate after `length` steps.
  """

  def __init__(self, length: int = 2):
    self.length = length

  def reset(self, key):
    value = jax.random.uniform(key, (), jnp.float32)
    return _State(value, jnp.zeros((), jnp.int32)), functional.restart(value)

  def step(self, state, action):
    value = state.value + jnp.asarray(action, jnp.float32)
    steps = state.steps + 1
    timestep = functional.transition(
        jnp.asarray(action, jnp.float32), value, steps >= self.length,
        jnp.asarray(False))
    return _State(value, steps), timestep

  def observation_spec(self):
    return specs.Array((), np.float32, name='value')

  def action_spec(self):
    return specs.BoundedArray((), np.float32, -1.0, 1.0, name='drift')

  def reward_spec(self):
    return specs.Array((), np.float32, name='reward')

  def discount_spec(self):
    return specs.BoundedArray((), np.float32, 0.0, 1.0, name='discount')


def _first_value(seed, episode):
  key = jax.random.fold_in(jax.random.PRNGKey(seed), episode)
  return np.float32(jax.random.uniform(key, (), jnp.float32))


def _reveal_plane(env):
  """Plays one Plane Strike episode cell by cell; returns the plane mask."""
  timestep = env.reset()
  for action in range(env.action_spec().num_values):
    timestep = env.step(action)
    if timestep.last():
      break
  assert float(timestep.discount) == 0.0, 'the episode must terminate'
  return timestep.observation == 1


class ValidateDiscreteActionTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('int_zero', 0, 0),
      ('int_max', 4, 4),
      ('np_int32', np.int32(3), 3),
      ('np_int64', np.int64(4), 4),
      ('np_uint8', np.uint8(2), 2),
      ('array_0d', np.array(2), 2),
      ('array_0d_int8', np.array(1, np.int8), 1),
      ('jax_0d', jnp.asarray(3, jnp.int32), 3),
  )
  def test_accepts(self, action, expected):
    result = dm_env_wrapper.validate_discrete_action(action, _SPEC)
    self.assertIs(type(result), int)
    self.assertEqual(result, expected)

  @parameterized.named_parameters(
      ('negative', -1),
      ('too_large', 5),
      ('np_too_large', np.int32(5)),
      ('array_too_large', np.array(7)),
      ('float', 2.5),
      ('integral_float', 2.0),
      ('np_float', np.float64(2.0)),
      ('string', '2'),
      ('none', None),
      ('true', True),
      ('false', False),
      ('np_bool', np.bool_(False)),
      ('bool_array', np.array(True)),
      ('float_array', np.array(2.0)),
      ('jax_float', jnp.asarray(2.0)),
      ('vector', np.array([1, 2])),
      ('matrix', np.zeros((1, 1), np.int32)),
      ('list', [2]),
  )
  def test_rejects(self, action):
    with self.assertRaisesRegex(ValueError, r'\[0, 4\]'):
      dm_env_wrapper.validate_discrete_action(action, _SPEC)


class DmEnvironmentTest(absltest.TestCase):

  def test_step_before_reset_resets(self):
    env = dm_env_wrapper.DmEnvironment(_Drift(), seed=3)
    timestep = env.step(0.5)  # Ignored: there is no episode yet.
    self.assertIs(timestep.step_type, dm_env.StepType.FIRST)
    self.assertIsNone(timestep.reward)
    self.assertIsNone(timestep.discount)
    self.assertEqual(timestep.observation, _first_value(3, 0))
    timestep = env.step(0.25)
    self.assertIs(timestep.step_type, dm_env.StepType.MID)
    np.testing.assert_allclose(timestep.observation,
                               _first_value(3, 0) + 0.25, rtol=1e-6)

  def test_step_after_last_starts_new_episode(self):
    env = dm_env_wrapper.DmEnvironment(_Drift(length=2), seed=4)
    env.reset()
    types = [env.step(0.5).step_type for _ in range(5)]
    S = dm_env.StepType  # pylint: disable=invalid-name
    self.assertEqual(types, [S.MID, S.LAST, S.FIRST, S.MID, S.LAST])
    env.reset()
    env.step(0.5)
    last = env.step(-0.5)
    self.assertEqual(float(last.discount), 0.0)
    self.assertEqual(float(last.reward), -0.5)
    first = env.step(0.5)
    self.assertIs(first.step_type, dm_env.StepType.FIRST)
    self.assertIsNone(first.reward)
    self.assertIsNone(first.discount)
    # Episodes 0 and 1 came before, then the explicit reset took episode 2.
    self.assertEqual(first.observation, _first_value(4, 3))

  def test_episode_keys(self):
    env = dm_env_wrapper.DmEnvironment(_Drift(), seed=7)
    values = [float(env.reset().observation) for _ in range(4)]
    self.assertEqual(values, [_first_value(7, i) for i in range(4)])
    self.assertLen(set(values), 4)

  def test_default_seed_is_zero(self):
    env = dm_env_wrapper.DmEnvironment(_Drift())
    self.assertEqual(env.reset().observation, _first_value(0, 0))

  def test_seed_restarts_key_sequence(self):
    env = dm_env_wrapper.DmEnvironment(_Drift(), seed=1)
    env.reset()
    env.step(0.5)
    env.reset()
    env.seed(9)
    # `seed` also drops the current episode: step() starts a new one.
    first = env.step(0.5)
    self.assertIs(first.step_type, dm_env.StepType.FIRST)
    self.assertEqual(first.observation, _first_value(9, 0))
    self.assertEqual(env.reset().observation, _first_value(9, 1))

  def test_seek_starts_at_the_episode(self):
    played = dm_env_wrapper.DmEnvironment(_Drift(), seed=2)
    firsts = [played.reset().observation for _ in range(4)]
    sought = dm_env_wrapper.DmEnvironment(_Drift(), seed=5)
    sought.reset()
    sought.seek(2, 3)
    self.assertIsInstance(sought, episode_streams.EpisodeStream)
    first = sought.step(0.5)  # The episode in progress is dropped.
    self.assertIs(first.step_type, dm_env.StepType.FIRST)
    self.assertEqual(first.observation, firsts[3])
    self.assertEqual(first.observation, _first_value(2, 3))
    with self.assertRaisesRegex(ValueError, 'episode'):
      sought.seek(2, -1)

  def test_different_seeds_differ(self):
    envs = [dm_env_wrapper.DmEnvironment(_Drift(), seed=s) for s in range(4)]
    values = [float(env.reset().observation) for env in envs]
    self.assertLen(set(values), 4)

  def test_time_step_types(self):
    env = dm_env_wrapper.DmEnvironment(_Drift(length=2), seed=0)
    first = env.reset()
    self.assertIsInstance(first.observation, np.ndarray)
    for step_type in (dm_env.StepType.MID, dm_env.StepType.LAST):
      timestep = env.step(0.5)
      self.assertIs(timestep.step_type, step_type)
      for value in (timestep.reward, timestep.discount, timestep.observation):
        self.assertIsInstance(value, np.ndarray)
        self.assertEqual(value.dtype, np.float32)
        self.assertEqual(value.shape, ())

  def test_continuous_actions_are_validated_and_clipped(self):
    # `_Drift` adds the action unclipped, so only the face clips it.
    env = dm_env_wrapper.DmEnvironment(_Drift(length=10), seed=0)
    first = env.reset()
    timestep = env.step(0.5)
    np.testing.assert_allclose(timestep.observation, first.observation + 0.5,
                               rtol=1e-6)
    timestep = env.step(np.float64(7.0))  # Clipped to the bound 1.
    np.testing.assert_allclose(timestep.observation, first.observation + 1.5,
                               rtol=1e-6)
    self.assertEqual(float(timestep.reward), 1.0)
    timestep = env.step([-4.0])  # Shape (1,) has the spec's size 1.
    np.testing.assert_allclose(timestep.observation, first.observation + 0.5,
                               rtol=1e-6)
    with self.assertRaisesRegex(ValueError,
                                r'shape \(\); got shape \(2,\)'):
      env.step([0.1, 0.2])
    with self.assertRaisesRegex(ValueError, 'finite'):
      env.step(np.inf)
    with self.assertRaisesRegex(ValueError, 'float array'):
      env.step('left')
    # Refused actions left the episode where it was.
    timestep = env.step(0.25)
    self.assertIs(timestep.step_type, dm_env.StepType.MID)
    np.testing.assert_allclose(timestep.observation, first.observation + 0.75,
                               rtol=1e-6)

  def test_discrete_actions_skip_continuous_validation(self):
    core = plane_strike.PlaneStrike(board_size=5)
    env = dm_env_wrapper.DmEnvironment(core, seed=0)
    env.reset()
    self.assertIs(env.step(np.int32(3)).step_type, dm_env.StepType.MID)
    with self.assertRaisesRegex(ValueError, r'integer in \[0, 24\]'):
      env.step(0.5)

  def test_specs_and_core(self):
    core = _Drift()
    env = dm_env_wrapper.DmEnvironment(core)
    self.assertIs(env.core, core)
    self.assertEqual(env.observation_spec(), core.observation_spec())
    self.assertEqual(env.action_spec(), core.action_spec())
    self.assertEqual(env.reward_spec(), core.reward_spec())
    self.assertEqual(env.discount_spec(), core.discount_spec())
    self.assertFalse(hasattr(env, 'legal_actions'))

  def test_legal_actions_come_from_core(self):
    core = plane_strike.PlaneStrike(board_size=5)
    env = dm_env_wrapper.DmEnvironment(core)
    board = np.zeros((5, 5), np.float32)
    board[2, 3] = -1.0
    mask = env.legal_actions(board)
    self.assertEqual(mask.shape, (25,))
    np.testing.assert_array_equal(mask, np.arange(25) != 13)


class PlaneStrikeSeedingTest(absltest.TestCase):

  def test_same_seed_same_episodes(self):
    a = plane_strike.make_environment(seed=3)
    b = plane_strike.make_environment(seed=3)
    planes_a = [_reveal_plane(a) for _ in range(3)]
    planes_b = [_reveal_plane(b) for _ in range(3)]
    np.testing.assert_array_equal(planes_a, planes_b)
    # Episodes within one run differ (with these seeds).
    self.assertFalse(all((p == planes_a[0]).all() for p in planes_a[1:]))
    for plane in planes_a:
      self.assertEqual(int(plane.sum()), plane_strike.PLANE_CELLS)

  def test_different_seeds_differ(self):
    planes = [
        _reveal_plane(plane_strike.make_environment(seed=s)) for s in (3, 4)
    ]
    self.assertFalse((planes[0] == planes[1]).all())

  def test_seek_replays_the_same_plane(self):
    played = plane_strike.make_environment(seed=4)
    planes = [_reveal_plane(played) for _ in range(3)]
    sought = plane_strike.make_environment(seed=4)
    sought.seek(4, 2)
    np.testing.assert_array_equal(_reveal_plane(sought), planes[2])

  def test_episode_key_matches_core_reset(self):
    core = plane_strike.PlaneStrike()
    env = dm_env_wrapper.DmEnvironment(core, seed=5)
    planes = [_reveal_plane(env) for _ in range(2)]
    for episode, plane in enumerate(planes):
      key = jax.random.fold_in(jax.random.PRNGKey(5), episode)
      np.testing.assert_array_equal(plane, core.reset(key)[0].plane)


if __name__ == '__main__':
  absltest.main()
