"""Any Gymnasium environment as a `dm_env.Environment` (Python loop only).

Specs and conversions:
  * Observations are float32 numpy arrays. A `Box` space becomes a
    `BoundedArray` with its low/high when all bounds are finite, else a plain
    `Array`. A `Discrete(n)` observation becomes a one-hot float32 vector of
    length n, which the MLP networks here can read directly.
  * A `Discrete(n)` action space becomes `DiscreteArray(n)`; actions are
    validated and shifted by the space's `start`. A float `Box` action space
    (continuous control: Pendulum-v1, HalfCheetah-v5, ...) becomes a float32
    `BoundedArray` with its bounds (or `Array` when unbounded), for agents
    with continuous actions; agents that need discrete actions refuse it up
    front (`EnvironmentSpec.num_actions` raises). `step` checks each action's
    shape and clips it to the bounds (`continuous_actions.validate_action`),
    then hands it to Gymnasium in the Box's dtype.
  * Rewards and discounts are float32 scalars. `terminated` ends the episode
    with discount 0 (`dm_env.termination`), `truncated` (time limits) with
    discount 1 (`dm_env.truncation`); termination wins when both are set.

Other spaces (Dict, Tuple, MultiDiscrete, ...) are rejected at construction.

Seeding: episode k of seed s resets with `reset(seed=episode_seed(s, k))`
(`environments.episode_streams`), so every episode can be started directly
(`seek`), e.g. to resume a run on the episode it would have played next.
"""

import importlib
from typing import Any, Optional

import dm_env
from dm_env import specs
import numpy as np

from environments import continuous_actions
from environments import dm_env_wrapper
from environments import episode_streams

INSTALL_HINT = "pip install -e '.[suites]'"
_FLOAT = np.float32


def _gymnasium() -> Any:
  """Gymnasium, imported on first use (ValueError if missing)."""
  try:
    import gymnasium  # pylint: disable=g-import-not-at-top
  except ImportError as e:
    raise ValueError(f'Gymnasium is not installed: {INSTALL_HINT} '
                     f'({e}).') from e
  return gymnasium


def check_id(gym_id: str) -> None:
  """Raises ValueError naming `gym_id` unless Gymnasium has registered it.

  Ids may name the module that registers them, as `gymnasium.make` allows:
  'module:EnvName-v0'. Ids must carry their version ('CartPole-v1').
  """
  gymnasium = _gymnasium()
  module, _, env_id = str(gym_id).rpartition(':')
  try:
    if module:
      importlib.import_module(module)
    gymnasium.spec(env_id)
  except (ImportError, gymnasium.error.Error) as e:
    raise ValueError(
        f'Unknown Gymnasium environment {gym_id!r} ({e}). List the registered '
        f'ids with `gymnasium.pprint_registry()`.') from e


def box_spec(space: Any, dtype: np.dtype, name: str) -> specs.Array:
  """BoundedArray with the Box's bounds when all are finite, else Array."""
  low, high = np.asarray(space.low), np.asarray(space.high)
  if np.all(np.isfinite(low)) and np.all(np.isfinite(high)):
    return specs.BoundedArray(space.shape, dtype, low.astype(dtype),
                              high.astype(dtype), name=name)
  return specs.Array(space.shape, dtype, name=name)


def observation_spec(space: Any) -> specs.Array:
  """The float32 spec of a Gymnasium observation space: a Box's shape and
  finite bounds, or a `Discrete(n)`'s one-hot vector (ValueError for any
  other space)."""
  spaces = _gymnasium().spaces
  if isinstance(space, spaces.Discrete):
    return specs.BoundedArray((int(space.n),), _FLOAT, 0.0, 1.0,
                              name='observation')
  if isinstance(space, spaces.Box):
    return box_spec(space, _FLOAT, 'observation')
  raise ValueError(f'Unsupported Gymnasium observation space {space!r}: '
                   f'only Box and Discrete.')


def action_spec(space: Any) -> specs.Array:
  """The spec of a Gymnasium action space: `DiscreteArray(n)` for a
  `Discrete(n)`, a Box's bounds for a Box (ValueError for any other)."""
  spaces = _gymnasium().spaces
  if isinstance(space, spaces.Discrete):
    return specs.DiscreteArray(int(space.n), dtype=np.int32, name='action')
  if isinstance(space, spaces.Box):
    # Float Boxes (continuous control) get float32 specs, as agents act
    # in float32; others keep their dtype.
    dtype = (_FLOAT if np.issubdtype(space.dtype, np.floating)
             else space.dtype)
    return box_spec(space, dtype, 'action')
  raise ValueError(f'Unsupported Gymnasium action space {space!r}: only '
                   f'Discrete and Box.')


class GymEnvironment(dm_env.Environment):
  """`dm_env.Environment` face over one Gymnasium environment.

  Each episode is reseeded from the seed and its index (see the module
  docstring), an `episode_streams.EpisodeStream`; without a seed, episodes
  continue Gymnasium's unseeded RNG. `step` after a LAST time step starts a
  new episode, as the dm_env contract asks.
  """

  def __init__(self, env: Any, seed: Optional[int] = None):
    """`env`: a `gymnasium.Env`."""
    self._spaces = _gymnasium().spaces
    self._env = env
    self._seeds = episode_streams.EpisodeSeeds(seed)
    self._needs_reset = True
    self._observation_spec = observation_spec(env.observation_space)
    self._action_spec = action_spec(env.action_space)

  @property
  def gym_env(self) -> Any:
    """The wrapped Gymnasium environment."""
    return self._env

  def _observation(self, observation: Any) -> np.ndarray:
    space = self._env.observation_space
    if isinstance(space, self._spaces.Discrete):
      one_hot = np.zeros(int(space.n), _FLOAT)
      one_hot[int(observation) - int(space.start)] = 1.0
      return one_hot
    return np.asarray(observation, _FLOAT)

  def _action(self, action: Any) -> Any:
    space = self._env.action_space
    if isinstance(space, self._spaces.Discrete):
      action = dm_env_wrapper.validate_discrete_action(action,
                                                       self._action_spec)
      return int(space.start) + action
    if continuous_actions.is_continuous(self._action_spec):
      # float32 of the Box's shape, clipped to its bounds; ValueError on a
      # wrong shape or a non-finite value.
      array = continuous_actions.validate_action(action, self._action_spec)
      # Clipped again in the Box's own dtype: float32 bounds may round
      # outside a float64 Box.
      return np.clip(array.astype(space.dtype), space.low, space.high)
    array = np.asarray(action, space.dtype)
    if array.shape != space.shape:
      raise ValueError(f'Action must have shape {space.shape}; got an array '
                       f'of shape {array.shape}.')
    return array

  def seek(self, seed: int, episode: int = 0) -> None:
    """The next `reset` plays episode `episode` of seed `seed`."""
    self._seeds.seek(seed, episode)
    self._needs_reset = True

  def reset(self) -> dm_env.TimeStep:
    observation, _ = self._env.reset(seed=self._seeds.next())
    self._needs_reset = False
    return dm_env.restart(self._observation(observation))

  def step(self, action: Any) -> dm_env.TimeStep:
    if self._needs_reset:
      return self.reset()
    observation, reward, terminated, truncated, _ = self._env.step(
        self._action(action))
    observation = self._observation(observation)
    reward = _FLOAT(reward)
    if terminated:
      self._needs_reset = True
      return dm_env.TimeStep(dm_env.StepType.LAST, reward, _FLOAT(0.0),
                             observation)
    if truncated:
      self._needs_reset = True
      return dm_env.truncation(reward, observation, discount=_FLOAT(1.0))
    return dm_env.transition(reward, observation, discount=_FLOAT(1.0))

  def observation_spec(self) -> specs.Array:
    return self._observation_spec

  def action_spec(self) -> specs.Array:
    return self._action_spec

  def reward_spec(self) -> specs.Array:
    return specs.Array((), _FLOAT, name='reward')

  def discount_spec(self) -> specs.BoundedArray:
    return specs.BoundedArray((), _FLOAT, 0.0, 1.0, name='discount')

  def close(self) -> None:
    self._env.close()


def make_environment(gym_id: str,
                     seed: Optional[int] = None,
                     **kwargs: Any) -> GymEnvironment:
  """Gymnasium environment `gym_id` as a `dm_env.Environment`.

  Args:
    gym_id: a registered Gymnasium id with its version, e.g. 'CartPole-v1'.
    seed: seeds each episode (with its index); None leaves Gymnasium
      unseeded.
    **kwargs: passed to `gymnasium.make`, e.g. `max_episode_steps`.

  Returns:
    The wrapped environment.

  Raises:
    ValueError: `gym_id` is not registered, or its spaces are unsupported.
  """
  check_id(gym_id)
  env = _gymnasium().make(gym_id, **kwargs)
  try:
    return GymEnvironment(env, seed)
  except ValueError:
    env.close()
    raise
