"""Catch: bsuite's falling-ball game as a pure-JAX functional environment.

A ball starts on row 0 in a uniformly random column and falls one row per
step; the player moves a paddle along the bottom row (it starts in column
`columns // 2`). Actions 0, 1, 2 move the paddle by -1, 0, +1 columns, clipped
to the board. When the ball reaches the paddle's row the episode terminates
with reward +1 if the paddle is under the ball and -1 otherwise; every other
step gives 0. An episode therefore lasts `rows - 1` steps.

The rules follow `bsuite.environments.catch.Catch` exactly (the paddle moves,
then the ball falls), so agents can be checked against bsuite results.
"""

from typing import NamedTuple, Optional, Tuple

import dm_env
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import dm_env_wrapper
from environments import functional

NUM_ACTIONS = 3  # Paddle moves -1, 0, +1: left, stay, right.


class CatchState(NamedTuple):
  """Full game state; the observation is a pure function of it."""
  ball_row: jax.Array  # int32 [], 0 at reset, rows - 1 at the end.
  ball_column: jax.Array  # int32 [].
  paddle_column: jax.Array  # int32 [], the paddle is on row rows - 1.


def _check_size(name: str, value, minimum: int) -> int:
  if (not isinstance(value, (int, np.integer)) or isinstance(value, bool) or
      value < minimum):
    raise ValueError(f'{name} must be an integer >= {minimum}; got {value!r}.')
  return int(value)


class Catch:
  """Pure-JAX Catch; see `functional.FunctionalEnvironment`."""

  def __init__(self, rows: int = 10, columns: int = 5):
    # Two rows at least, so the ball starts above the paddle and must fall.
    self.rows = _check_size('rows', rows, 2)
    self.columns = _check_size('columns', columns, 1)
    self.max_episode_steps = self.rows - 1  # The ball falls one row a step.

  def _observation(self, state: CatchState) -> jax.Array:
    board = jnp.zeros((self.rows, self.columns), jnp.float32)
    board = board.at[state.ball_row, state.ball_column].set(1.0)
    return board.at[self.rows - 1, state.paddle_column].set(1.0)

  def reset(self, key: jax.Array) -> Tuple[CatchState, dm_env.TimeStep]:
    state = CatchState(
        ball_row=jnp.zeros((), jnp.int32),
        ball_column=jax.random.randint(key, (), 0, self.columns, jnp.int32),
        paddle_column=jnp.asarray(self.columns // 2, jnp.int32))
    return state, functional.restart(self._observation(state))

  def step(self, state: CatchState,
           action: jax.Array) -> Tuple[CatchState, dm_env.TimeStep]:
    """Moves the paddle by `action - 1`, then drops the ball one row.

    Pure and traceable, so it cannot raise: `action` must be in {0, 1, 2}.
    The dm_env face validates actions from users.
    """
    move = jnp.asarray(action, jnp.int32) - 1
    paddle = jnp.clip(state.paddle_column + move, 0, self.columns - 1)
    state = CatchState(state.ball_row + 1, state.ball_column, paddle)
    terminated = state.ball_row == self.rows - 1
    caught = paddle == state.ball_column
    reward = jnp.where(terminated, jnp.where(caught, 1.0, -1.0), 0.0)
    timestep = functional.transition(reward, self._observation(state),
                                     terminated, jnp.asarray(False))
    return state, timestep

  def observation_spec(self) -> specs.BoundedArray:
    return specs.BoundedArray((self.rows, self.columns), np.float32,
                              minimum=0.0, maximum=1.0, name='board')

  def action_spec(self) -> specs.DiscreteArray:
    return specs.DiscreteArray(NUM_ACTIONS, dtype=np.int32, name='action')

  def reward_spec(self) -> specs.Array:
    return specs.Array((), np.float32, name='reward')

  def discount_spec(self) -> specs.BoundedArray:
    return specs.BoundedArray((), np.float32, 0.0, 1.0, name='discount')


def make_environment(rows: int = 10,
                     columns: int = 5,
                     seed: Optional[int] = None
                    ) -> dm_env_wrapper.DmEnvironment:
  """Catch as a `dm_env.Environment`."""
  return dm_env_wrapper.DmEnvironment(Catch(rows, columns), seed)
