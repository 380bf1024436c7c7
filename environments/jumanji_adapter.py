"""Jumanji's discrete-action tasks as pure-JAX functional cores
(`--env=jumanji:<id>`).

Jumanji (Bonnet et al., 2024) is InstaDeep's suite of combinatorial and
grid tasks in JAX, so each task becomes a `functional.FunctionalEnvironment`
and runs in both loops:
  * ids: Jumanji's registry, less the tasks whose action is not one
    choice of n (`DiscreteArray`): a task of several choices at once
    (Minesweeper's row and column, BinPack, Tetris, RubiksCube, the
    multi-agent tasks) is refused, naming the tasks that play.
  * Observations: Jumanji gives each task a structure of arrays (Snake: a
    grid, a step count and a mask). The core flattens every array into
    one float32 vector, in the structure's order, with the legal-action
    mask last: `legal_actions` reads the mask back from the vector, so
    agents mask illegal moves in jit and exported models carry it.
  * Endings: Jumanji's discount is kept (0 where the task ends, 1 at its
    own time limit); the core also truncates at `max_steps` (the task's
    own `time_limit` where it has one, else 1,000), so episodes are
    bounded for the compiled loop.
  * Settings (`--env_config`): `max_steps`.

Some tasks download their data on first use (Sokoban's levels); without a
network they fail to build, and the error says so. Jumanji is imported on
first use: without it every jumanji id raises, saying how to install it.
"""

import functools
from typing import Any, List, NamedTuple, Optional, Tuple

import dm_env
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import functional
from environments import name_hints
from environments import reference_scores
from environments import suite_packages

# Steps before truncation of a task with no time limit of its own (2048
# plays on until the board locks).
DEFAULT_MAX_STEPS = 1000
_MASK = 'action_mask'
# Tasks that download data when built: never built just to list ids in an
# error message (a typo must not wait on a download); they still build
# when named.
_LOADS_DATA = ('Sokoban-v0',)

# Measured: benchmarks/suites_random_play.json (its command in
# benchmarks/random_play.py): uniformly random legal actions, 1,000
# episodes. Only tasks with a largest return make one (Maze: reaching the
# target rewards 1); Snake, 2048 and PacMan give raw returns.
REFERENCE_SCORES = {
    'Maze-v0': reference_scores.above_random_play(
        0.272, 1.0, "the target's reward", 'mean of 1,000 episodes, benchmarks/suites_random_play.json'),
}


def _jumanji() -> Any:
  """The jumanji module, imported on first use (ValueError if missing)."""
  return suite_packages.require('jumanji', 'Jumanji')


@functools.lru_cache(maxsize=None)
def _build(env_id: str) -> Any:
  """`jumanji.make(env_id)`, once per id (ValueError if it fails)."""
  try:
    return _jumanji().make(env_id)
  except Exception as e:  # pylint: disable=broad-except
    raise ValueError(f'Jumanji could not build {env_id!r} (some tasks '
                     f'download data on first use): {e}') from e


def _is_discrete(env: Any) -> bool:
  return type(env.action_spec).__name__ == 'DiscreteArray'


def playable_ids() -> List[str]:
  """Registered tasks of one discrete action that build here (no
  download)."""
  playable = []
  for env_id in sorted(_jumanji().registered_environments()):
    if env_id in _LOADS_DATA:
      continue
    try:
      if _is_discrete(_build(env_id)):
        playable.append(env_id)
    except ValueError:
      continue
  return playable


def check_id(env_id: str) -> None:
  """Raises ValueError, naming the tasks that play, unless `env_id` is a
  Jumanji task of one discrete action."""
  if env_id not in _jumanji().registered_environments():
    valid = playable_ids()
    raise ValueError(f'Unknown Jumanji environment {env_id!r}.'
                     f'{name_hints.did_you_mean(env_id, valid)} Valid '
                     f'jumanji ids: {", ".join(valid)}.')
  env = _build(env_id)
  if not _is_discrete(env):
    raise ValueError(
        f'jumanji:{env_id} acts with {type(env.action_spec).__name__} (several '
        f'choices at once); only tasks of one discrete action play. Valid '
        f'jumanji ids: {", ".join(playable_ids())}.')


class JumanjiState(NamedTuple):
  """Jumanji's state and the steps taken."""
  env_state: Any
  steps: jax.Array  # int32 [].


def _parts(observation: Any) -> List[Any]:
  """The observation's arrays in order, its action mask (if any) last."""
  fields = getattr(observation, '_asdict', lambda: None)()
  if fields is not None and _MASK in fields:
    rest = {k: v for k, v in fields.items() if k != _MASK}
    return jax.tree_util.tree_leaves(rest) + [fields[_MASK]]
  return jax.tree_util.tree_leaves(observation)


def _flatten(observation: Any) -> jax.Array:
  """One float32 vector of the observation's arrays, its mask last."""
  return jnp.concatenate([jnp.asarray(part, jnp.float32).reshape(-1)
                          for part in _parts(observation)])


class JumanjiCore(functional.ScalarSpecs):
  """One Jumanji task of one discrete action as a
  `functional.FunctionalEnvironment`."""

  def __init__(self, env_id: str, max_steps: Optional[int] = None):
    check_id(env_id)
    self.env_id = env_id
    self.env = _build(env_id)
    if max_steps is None:
      max_steps = getattr(self.env, 'time_limit', None) or DEFAULT_MAX_STEPS
    if isinstance(max_steps, bool) or not isinstance(
        max_steps, (int, np.integer)) or max_steps < 1:
      raise ValueError(f'max_steps must be an int >= 1; got {max_steps!r}.')
    self._max_steps = int(max_steps)
    num_actions = int(self.env.action_spec.num_values)
    example = self.env.observation_spec.generate_value()
    size = int(_flatten(example).shape[0])
    self._observation_spec = specs.Array((size,), np.float32,
                                         name='observation')
    self._action_spec = specs.DiscreteArray(num_actions, dtype=np.int32,
                                            name='action')
    fields = getattr(example, '_asdict', lambda: {})()
    self._has_mask = (_MASK in fields and
                      tuple(np.shape(fields[_MASK])) == (num_actions,))

  @property
  def max_episode_steps(self) -> int:
    return self._max_steps

  @property
  def legal_actions(self) -> Optional[Any]:
    """observations `[..., size]` -> the legal-move mask `[..., n]` (the
    vector's last n entries), for tasks whose observation has one."""
    if not self._has_mask:
      return None
    n = self._action_spec.num_values
    return lambda observations: observations[..., -n:] > 0.5

  def reset(self, key: jax.Array) -> Tuple[JumanjiState, dm_env.TimeStep]:
    env_state, timestep = self.env.reset(key)
    state = JumanjiState(env_state, jnp.zeros((), jnp.int32))
    return state, functional.restart(_flatten(timestep.observation))

  def step(self, state: JumanjiState,
           action: jax.Array) -> Tuple[JumanjiState, dm_env.TimeStep]:
    env_state, timestep = self.env.step(state.env_state,
                                        jnp.asarray(action, jnp.int32))
    steps = state.steps + 1
    last = timestep.step_type == int(dm_env.StepType.LAST)
    terminated = last & (timestep.discount == 0)
    truncated = (last & ~terminated) | (steps >= self._max_steps)
    return JumanjiState(env_state, steps), functional.transition(
        timestep.reward, _flatten(timestep.observation), terminated,
        truncated)

  def observation_spec(self) -> specs.Array:
    return self._observation_spec

  def action_spec(self) -> specs.DiscreteArray:
    return self._action_spec


def make_core(env_id: str, max_steps: Optional[int] = None) -> JumanjiCore:
  """Jumanji task `env_id` as a functional core (its settings: the
  module's docstring)."""
  return JumanjiCore(env_id, max_steps)
