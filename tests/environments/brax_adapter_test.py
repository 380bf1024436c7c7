"""Tests for `environments.brax_adapter`.

Brax compiles slowly on CPU (seconds per function), so the tests share one
inverted_pendulum core and its jitted reset and step (module fixtures).
"""

import inspect
import sys
from typing import Any, NamedTuple
from unittest import mock

import brax.envs
import dm_env
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from environments import brax_adapter
from environments import dm_env_wrapper
from environments import functional
from environments import registry


class _Jitted(NamedTuple):
  core: brax_adapter.BraxCore
  reset: Any
  step: Any


@pytest.fixture(scope='module')
def pendulum() -> _Jitted:
  """inverted_pendulum with short episodes, and its jitted reset and step."""
  core = brax_adapter.make_core('inverted_pendulum', episode_length=5)
  return _Jitted(core, jax.jit(core.reset), jax.jit(core.step))


def test_specs(pendulum):
  core = pendulum.core
  assert core.observation_spec() == specs.Array((4,), np.float32,
                                                name='observation')
  action_spec = core.action_spec()
  assert isinstance(action_spec, specs.BoundedArray)
  assert (action_spec.shape, action_spec.dtype) == ((1,), np.float32)
  # Brax's step maps [-1, 1] onto the cart's ctrl_range, [-3, 3].
  np.testing.assert_array_equal(action_spec.minimum, [-1.0])
  np.testing.assert_array_equal(action_spec.maximum, [1.0])
  np.testing.assert_array_equal(core.env.sys.actuator.ctrl_range, [[-3, 3]])
  assert core.reward_spec().dtype == np.float32
  assert core.discount_spec().dtype == np.float32
  assert core.max_episode_steps == 5
  assert core.backend == 'generalized'


def test_bounds_of_tasks_that_rescale_agree_with_brax_source():
  rescaled = getattr(brax_adapter, '_RESCALE_FROM_UNIT')
  for name in brax_adapter.names():
    step = inspect.getsource(getattr(brax.envs, '_envs')[name].step)
    assert ('ctrl_range' in step) == (name in rescaled), name


def test_reset_is_deterministic_given_the_key(pendulum):
  _, first = pendulum.reset(jax.random.PRNGKey(3))
  _, again = pendulum.reset(jax.random.PRNGKey(3))
  _, other = pendulum.reset(jax.random.PRNGKey(4))
  assert first.step_type == functional.FIRST
  assert first.observation.dtype == jnp.float32
  np.testing.assert_array_equal(first.observation, again.observation)
  assert not np.array_equal(first.observation, other.observation)


def test_out_of_range_actions_are_clipped(pendulum):
  state, _ = pendulum.reset(jax.random.PRNGKey(0))
  for outside, inside in ((5.0, 1.0), (-2.5, -1.0)):
    _, clipped = pendulum.step(state, jnp.array([outside]))
    _, expected = pendulum.step(state, jnp.array([inside]))
    np.testing.assert_array_equal(clipped.observation, expected.observation)
  _, half = pendulum.step(state, jnp.array([0.5]))
  assert not np.array_equal(half.observation, expected.observation)


def test_actions_reach_brax_clipped(pendulum):
  """What brax's step receives, seen through a stub task whose step puts
  the action in the observation (brax saturates the pendulum's force
  anyway, so the physics cannot show it)."""
  core = pendulum.core

  class Recorder(brax.envs.Wrapper):

    def step(self, state, action):
      return state.replace(obs=state.obs.at[0].set(action[0]))

  with mock.patch.object(core, 'env', Recorder(core.env)):
    state, _ = pendulum.reset(jax.random.PRNGKey(0))
    step = jax.jit(lambda s, a: core.step(s, a))  # A fresh trace.
    for action, seen in ((7.0, 1.0), (-7.0, -1.0), (0.25, 0.25)):
      _, timestep = step(state, np.array([action], np.float32))
      assert float(timestep.observation[0]) == seen


def test_truncation_ends_with_discount_one(pendulum):
  state, _ = pendulum.reset(jax.random.PRNGKey(0))
  step_types = []
  for _ in range(5):
    state, timestep = pendulum.step(state, jnp.zeros(1))
    step_types.append(int(timestep.step_type))
    assert timestep.reward.dtype == jnp.float32
    assert float(timestep.reward) == 1.0
  assert step_types == [functional.MID] * 4 + [functional.LAST]
  assert float(timestep.discount) == 1.0
  assert int(state.steps) == 5


def test_a_falling_pole_terminates_with_discount_zero(pendulum):
  state, timestep = pendulum.reset(jax.random.PRNGKey(0))
  core = brax_adapter.make_core('inverted_pendulum')  # 1000 steps.
  assert core.env is pendulum.core.env  # The built task is shared.
  step = jax.jit(core.step)
  for steps in range(1, 51):
    state, timestep = step(state, jnp.ones(1))
    if timestep.last():
      break
  assert timestep.last(), 'the pole should fall within 50 steps'
  assert float(timestep.discount) == 0.0
  assert abs(float(timestep.observation[1])) > 0.2  # Its angle.
  assert steps < 50  # Not truncated.


@pytest.mark.slow  # Over 5 s cold (docs/testing.md).
def test_jit_and_vmap_over_four_environments(pendulum):
  core = pendulum.core
  keys = jax.random.split(jax.random.PRNGKey(1), 4)
  states, first = jax.jit(jax.vmap(core.reset))(keys)
  assert first.observation.shape == (4, 4)
  actions = jnp.linspace(-1.0, 1.0, 4)[:, None]

  def rollout(states, actions):
    return jax.lax.scan(
        lambda s, _: jax.vmap(core.step)(s, actions), states, None, length=3)

  states, timesteps = jax.jit(rollout)(states, actions)
  assert timesteps.observation.shape == (3, 4, 4)
  assert timesteps.reward.dtype == jnp.float32
  np.testing.assert_array_equal(states.steps, [3] * 4)
  # Each environment follows its own actions.
  assert len({tuple(o) for o in np.asarray(timesteps.observation[-1])}) == 4


def test_dm_env_face_through_the_registry(pendulum):
  assert registry.has_functional('brax:inverted_pendulum')
  env = registry.make_environment('brax:inverted_pendulum', seed=2,
                                  episode_length=5)
  assert isinstance(env, dm_env_wrapper.DmEnvironment)
  assert isinstance(env.core, brax_adapter.BraxCore)
  first = env.reset()
  assert first.first()
  key = jax.random.fold_in(jax.random.PRNGKey(2), 0)
  np.testing.assert_array_equal(first.observation,
                                pendulum.reset(key)[1].observation)
  timesteps = [env.step(np.array([0.0], np.float32)) for _ in range(5)]
  assert [t.step_type for t in timesteps] == (
      [dm_env.StepType.MID] * 4 + [dm_env.StepType.LAST])
  assert registry.title('brax:inverted_pendulum') == (
      'inverted_pendulum (brax)')


def test_settings_list_the_task_options():
  settings = registry.settings('brax:hopper')
  assert settings['episode_length'].default == 1000
  assert settings['backend'].default == 'generalized'
  assert settings['ctrl_cost_weight'].default == pytest.approx(1e-3)
  assert list(registry.settings('brax:inverted_pendulum')) == [
      'episode_length', 'backend', 'n_frames']


@pytest.mark.parametrize('kwargs, message', [
    ({'no_such_option': 1}, r"Unknown setting\(s\) \['no_such_option'\] "
     r'for brax:inverted_pendulum. Valid ones: episode_length, backend, '
     r'n_frames.'),
    ({'episode_length': 0}, 'episode_length must be an int >= 1'),
    ({'episode_length': None}, 'episode_length must be an int >= 1'),
    ({'n_frames': 2.5}, 'n_frames must be an int >= 1'),
    ({'backend': 'physx'}, "Unknown brax backend 'physx'"),
])
def test_bad_settings_are_refused(kwargs, message):
  with pytest.raises(ValueError, match=message):
    brax_adapter.make_core('inverted_pendulum', **kwargs)


def test_unknown_names_list_close_matches():
  for name, close in (('hoper', 'hopper'),
                      ('Inverted_Pendulum', 'inverted_pendulum'),
                      ('half_cheetah', 'halfcheetah')):
    for fn in (brax_adapter.check_id, brax_adapter.make_core,
               lambda n: registry.check_name(f'brax:{n}')):
      with pytest.raises(ValueError, match=f'Did you mean {close}') as info:
        fn(name)
      assert 'Brax tasks: ant, halfcheetah, hopper' in str(info.value)
  with pytest.raises(ValueError, match="Unknown brax environment 'fast'"):
    brax_adapter.check_id('fast')  # Brax's unit-test stub.


def test_missing_install_names_the_extra():
  with mock.patch.dict(sys.modules, {'brax': None, 'brax.envs': None}):
    for fn in (brax_adapter.check_id, brax_adapter.make_core,
               registry.check_name, registry.has_functional,
               registry.make_environment, registry.make_functional):
      name = 'inverted_pendulum' if fn.__module__.endswith(
          'brax_adapter') else 'brax:inverted_pendulum'
      with pytest.raises(ValueError, match=r"brax is not installed: pip "
                         r"install -e '\.\[control\]'"):
        fn(name)
    registry.check_name('cartpole')  # The rest works without it.
