"""Navix's MiniGrid games as pure-JAX functional cores (`--env=navix:<id>`).

Navix (Pignatelli et al., 2024) re-implements MiniGrid in JAX, so each game
becomes a `functional.FunctionalEnvironment` and runs in both loops:
  * ids: Navix's registry (`Navix-Empty-5x5-v0`, `Navix-DoorKey-8x8-v0`,
    `Navix-FourRooms-v0`, …).
  * The core's state is Navix's `Timestep` (its state, step count and
    PRNG key). The core steps it with Navix's step less its auto-reset
    (`Environment._step`): the loops reset episodes themselves, and under
    `vmap` an auto-reset's `cond` would run a reset on every step.
  * Navix's state carries a rendering cache (the grid's background drawn
    tile by tile) that only its image observations read, and a reset
    without one draws it: 16 Empty-8x8 resets then cost as much as about
    24 batches of 16 steps. A core whose observations are not images
    resets with a blank one-tile cache instead (the same observations,
    rewards and ends; a smaller state).
  * Navix marks each step a transition, a truncation (its `max_steps`) or
    a termination (goal reached, lava, a collision): termination ends the
    episode with discount 0, truncation with discount 1. Rewards are
    Navix's (1 on reaching the goal, less its time penalty where the game
    has one).
  * Observations are float32 in the encoding `observation` names (a
    function of `navix.observations`): 'symbolic' (Navix's default: the
    whole grid, 3 numbers a cell), 'symbolic_first_person' (MiniGrid's 7x7
    view), 'categorical', 'categorical_first_person', 'rgb' or
    'rgb_first_person' (images, scaled to [0, 1]).
  * Settings (`--env_config`): `max_steps` (100, as `navix.make` gives) and
    `observation`.

Navix is imported on first use: without it every navix id raises, saying
how to install it.
"""

from typing import Any, List, Tuple

import dm_env
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import functional
from environments import name_hints
from environments import reference_scores
from environments import suite_packages

OBSERVATIONS = ('symbolic', 'symbolic_first_person', 'categorical',
                'categorical_first_person', 'rgb', 'rgb_first_person')
_IMAGES = ('rgb', 'rgb_first_person')
# Navix's StepType values.
_TRUNCATION = 1
_TERMINATION = 2

# Measured: benchmarks/suites_random_play.json (its command in
# benchmarks/random_play.py): uniformly random actions, 1,000 episodes at
# the default settings (100 steps). Reaching the goal rewards 1.
_MEASURED = 'mean of 1,000 episodes, benchmarks/suites_random_play.json'
REFERENCE_SCORES = {
    env_id: reference_scores.above_random_play(
        random_play, 1.0, "the goal's reward", _MEASURED)
    for env_id, random_play in (('Navix-Empty-5x5-v0', 0.402),
                                ('Navix-Empty-8x8-v0', 0.032),
                                ('Navix-DoorKey-5x5-v0', 0.031),
                                ('Navix-DoorKey-8x8-v0', 0.0))}


def _navix() -> Any:
  """The navix module, imported on first use (ValueError if missing)."""
  return suite_packages.require('navix', 'Navix')


def _blank_cache() -> Any:
  """A rendering cache of one blank tile, for states whose observations
  never render (Navix's `RenderingCache` holds one patch per cell)."""
  cache = suite_packages.require('navix.rendering.cache', 'Navix')
  return cache.RenderingCache(patches=jnp.zeros(
      (1, cache.TILE_SIZE, cache.TILE_SIZE, 3), jnp.uint8))


def ids() -> List[str]:
  """Navix's registered ids."""
  return list(_navix().registry())


def check_id(env_id: str) -> None:
  """Raises ValueError, naming close matches and the ids, unless `env_id`
  is a Navix game."""
  valid = ids()
  if env_id not in valid:
    raise ValueError(f'Unknown Navix environment {env_id!r}.'
                     f'{name_hints.did_you_mean(env_id, valid)} Valid navix '
                     f'ids: {", ".join(valid)}.')


class NavixCore(functional.ScalarSpecs):
  """One Navix game as a `functional.FunctionalEnvironment`."""

  def __init__(self, env_id: str, max_steps: int = 100,
               observation: str = 'symbolic'):
    check_id(env_id)
    if isinstance(max_steps, bool) or not isinstance(
        max_steps, (int, np.integer)) or max_steps < 1:
      raise ValueError(f'max_steps must be an int >= 1; got {max_steps!r}.')
    if observation not in OBSERVATIONS:
      raise ValueError(f'Unknown observation {observation!r} for '
                       f'navix:{env_id}. Valid ones: '
                       f'{", ".join(OBSERVATIONS)}.')
    navix = _navix()
    self.env_id = env_id
    self.env = navix.make(env_id, max_steps=int(max_steps),
                          observation_fn=getattr(navix.observations,
                                                 observation))
    self._scale = 1 / 255 if observation in _IMAGES else None
    # None: Navix draws the cache, as its image observations need.
    self._cache = None if observation in _IMAGES else _blank_cache()
    self._observation_spec = specs.Array(
        tuple(int(d) for d in self.env.observation_space.shape), np.float32,
        name='observation')
    self._action_spec = specs.DiscreteArray(
        len(self.env.action_set), dtype=np.int32, name='action')

  @property
  def max_episode_steps(self) -> int:
    """Navix's `max_steps` (truncation)."""
    return int(self.env.max_steps)

  def _observation(self, observation: jax.Array) -> jax.Array:
    observation = jnp.asarray(observation, jnp.float32)
    return observation if self._scale is None else observation * self._scale

  def reset(self, key: jax.Array) -> Tuple[Any, dm_env.TimeStep]:
    timestep = self.env.reset(key, self._cache)
    return timestep, functional.restart(self._observation(
        timestep.observation))

  def step(self, state: Any,
           action: jax.Array) -> Tuple[Any, dm_env.TimeStep]:
    """Navix's step without its auto-reset (`state` is never a last step:
    the loops reset after one)."""
    timestep = self.env._step(state, jnp.asarray(action, jnp.int32))  # pylint: disable=protected-access
    return timestep, functional.transition(
        timestep.reward, self._observation(timestep.observation),
        timestep.step_type == _TERMINATION,
        timestep.step_type == _TRUNCATION)

  def observation_spec(self) -> specs.Array:
    return self._observation_spec

  def action_spec(self) -> specs.DiscreteArray:
    return self._action_spec


def make_core(env_id: str, max_steps: int = 100,
              observation: str = 'symbolic') -> NavixCore:
  """Navix game `env_id` as a functional core (its settings: the module's
  docstring)."""
  return NavixCore(env_id, max_steps, observation)
