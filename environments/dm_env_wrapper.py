"""`dm_env.Environment` face over any pure-JAX functional environment."""

import numbers
from typing import Any, Optional

import dm_env
from dm_env import specs
import jax
import numpy as np

from environments import continuous_actions
from environments import functional


def validate_discrete_action(action: Any, spec: specs.DiscreteArray) -> int:
  """Returns `action` as an int, or raises ValueError naming the valid range."""
  valid = f'an integer in [0, {spec.num_values - 1}]'
  if isinstance(action, (bool, np.bool_)):
    raise ValueError(f'Action must be {valid}; got the boolean {action!r}.')
  if isinstance(action, np.ndarray) or isinstance(action, jax.Array):
    array = np.asarray(action)
    if array.shape not in ((), (1,)) or not np.issubdtype(
        array.dtype, np.integer):
      raise ValueError(
          f'Action must be {valid}; got an array of shape {array.shape} and '
          f'dtype {array.dtype}.')
    action = array.reshape(()).item()
  if not isinstance(action, numbers.Integral):
    raise ValueError(f'Action must be {valid}; got {action!r} '
                     f'({type(action).__name__}).')
  action = int(action)
  if not 0 <= action < spec.num_values:
    raise ValueError(f'Action must be {valid}; got {action}.')
  return action


class DmEnvironment(dm_env.Environment):
  """Steps a functional environment from Python, one jitted call per step.

  Seeding is explicit: episode e of seed s resets with key
  `fold_in(PRNGKey(s), e)` (the keys the compiled loop uses too), so runs
  are reproducible and any episode can be started directly (`seek`: an
  `episode_streams.EpisodeStream`). `step` after a LAST time step starts a
  new episode, as the dm_env contract asks.
  """

  def __init__(self, core: functional.FunctionalEnvironment,
               seed: Optional[int] = None):
    self._core = core
    self._seed = 0 if seed is None else int(seed)
    self._episode = 0
    self._state = None
    self._reset_fn = jax.jit(core.reset)
    self._step_fn = jax.jit(core.step)
    self._action_spec = core.action_spec()
    if hasattr(core, 'legal_actions'):
      # Pure function of the observation; see `EnvironmentSpec.legal_actions`.
      self.legal_actions = core.legal_actions
    self.num_players = getattr(core, 'num_players', 1)

  @property
  def core(self) -> functional.FunctionalEnvironment:
    """The pure functional environment under this face."""
    return self._core

  def seed(self, seed: int) -> None:
    """Restarts the episode key sequence from `seed` (`seek(seed, 0)`)."""
    self.seek(seed)

  def seek(self, seed: int, episode: int = 0) -> None:
    """The next `reset` plays episode `episode` of seed `seed`."""
    if episode < 0:
      raise ValueError(f'episode must be >= 0; got {episode}.')
    self._seed = int(seed)
    self._episode = int(episode)
    self._state = None

  def reset(self) -> dm_env.TimeStep:
    key = jax.random.fold_in(jax.random.PRNGKey(self._seed), self._episode)
    self._episode += 1
    self._state, timestep = self._reset_fn(key)
    return dm_env.restart(np.asarray(timestep.observation))

  def step(self, action) -> dm_env.TimeStep:
    """Steps the core; discrete actions are checked, continuous ones checked
    and clipped to the spec's bounds (ValueError naming the problem)."""
    if self._state is None:
      return self.reset()
    if isinstance(self._action_spec, specs.DiscreteArray):
      action = validate_discrete_action(action, self._action_spec)
    elif continuous_actions.is_continuous(self._action_spec):
      # float32 of the spec's shape, clipped to its bounds; a wrong shape or
      # a non-finite value raises here, not inside the jitted step.
      action = continuous_actions.validate_action(action, self._action_spec)
    self._state, timestep = self._step_fn(self._state, action)
    step_type, reward, discount, observation = jax.device_get(timestep)
    step_type = dm_env.StepType(int(step_type))
    if step_type == dm_env.StepType.LAST:
      self._state = None
    return dm_env.TimeStep(step_type, reward, discount, observation)

  def observation_spec(self) -> specs.Array:
    return self._core.observation_spec()

  def action_spec(self) -> specs.Array:
    return self._action_spec

  def reward_spec(self) -> specs.Array:
    return self._core.reward_spec()

  def discount_spec(self) -> specs.Array:
    return self._core.discount_spec()
