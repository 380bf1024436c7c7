"""Plane Strike: the board game of the TensorFlow Lite Android example.

A plane of 8 cells (a 5-cell cross and a 3-cell tail) is hidden on a
`board_size` x `board_size` board. Each step strikes one cell. The visible
board holds 0 for untried cells, 1 for hits and -1 for misses. Rewards: a new
hit +1, a miss 0, striking an already-struck cell -1. The episode terminates
when all 8 plane cells are hit, and is truncated after `max_steps` strikes.

Placement follows the reference app exactly: the heading is uniform over
right/up/left/down, then the core cell is uniform among the positions where
that heading fits (115 placements on 8x8, not all equally likely).
"""

from typing import NamedTuple, Optional, Tuple

import dm_env
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import dm_env_wrapper
from environments import functional

PLANE_CELLS = 8
HEADINGS = ('right', 'up', 'left', 'down')

# Cells of the plane relative to its core cell, as (row, column) offsets.
_CROSS = ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1))
_TAILS = {
    'right': ((0, -2), (-1, -2), (1, -2)),
    'up': ((2, 0), (2, 1), (2, -1)),
    'left': ((0, 2), (-1, 2), (1, 2)),
    'down': ((-2, 0), (-2, 1), (-2, -1)),
}


def _core_ranges(board_size: int, heading: str) -> Tuple[range, range]:
  """Rows and columns where the reference app may put the plane's core."""
  b = board_size
  return {
      'right': (range(1, b - 1), range(2, b - 1)),
      'up': (range(1, b - 2), range(1, b - 2)),
      'left': (range(1, b - 1), range(1, b - 2)),
      'down': (range(2, b - 1), range(1, b - 1)),
  }[heading]


def placements(board_size: int = 8) -> Tuple[np.ndarray, np.ndarray]:
  """Every plane placement and its probability under the reference sampler.

  Args:
    board_size: side of the square board.

  Returns:
    `(planes, probabilities)`: bool `[P, B, B]` masks of plane cells, grouped
    by heading in `HEADINGS` order, and float64 `[P]` probabilities summing
    to 1 (P = 115 for an 8x8 board).
  """
  planes, probabilities = [], []
  for heading in HEADINGS:
    rows, cols = _core_ranges(board_size, heading)
    for row in rows:
      for col in cols:
        plane = np.zeros((board_size, board_size), bool)
        for dr, dc in _CROSS + _TAILS[heading]:
          plane[row + dr, col + dc] = True
        planes.append(plane)
        probabilities.append(1.0 / (len(HEADINGS) * len(rows) * len(cols)))
  return np.stack(planes), np.asarray(probabilities)


class PlaneStrikeState(NamedTuple):
  """Full game state; only `board` is visible to the player."""
  plane: jax.Array  # bool [B, B], the hidden plane.
  board: jax.Array  # float32 [B, B]: 0 untried, 1 hit, -1 miss.
  hits: jax.Array  # int32 [], plane cells hit so far.
  steps: jax.Array  # int32 [], strikes so far.


class PlaneStrike:
  """Pure-JAX Plane Strike; see `functional.FunctionalEnvironment`."""

  # The plane is in the state, hidden from the player: agents that search
  # by stepping the game itself would see it. They may search over states
  # drawn from what the player knows instead (`sample_state`).
  hidden_state = True

  def __init__(self, board_size: int = 8, max_steps: Optional[int] = None):
    if (not isinstance(board_size, (int, np.integer)) or
        isinstance(board_size, bool) or board_size < 5):
      raise ValueError(
          f'board_size must be an integer >= 5 (the plane spans 3x4 cells '
          f'and the reference placement rule needs a margin); got '
          f'{board_size!r}.')
    self.board_size = int(board_size)
    self.num_actions = self.board_size**2
    self.max_steps = 2 * self.num_actions if max_steps is None else max_steps
    if (not isinstance(self.max_steps, (int, np.integer)) or
        isinstance(self.max_steps, bool) or self.max_steps < 1):
      raise ValueError(f'max_steps must be a positive integer; got '
                       f'{max_steps!r}.')
    planes, probabilities = placements(self.board_size)
    counts = [
        len(rows) * len(cols)
        for rows, cols in (_core_ranges(self.board_size, h) for h in HEADINGS)
    ]
    self._planes = planes
    self._log_prior = np.log(probabilities)
    self._heading_counts = np.asarray(counts, np.int32)
    self._heading_offsets = np.concatenate([[0], np.cumsum(counts)[:-1]
                                           ]).astype(np.int32)

  @property
  def max_episode_steps(self) -> int:
    """Episodes end by `max_steps` at the latest (truncation)."""
    return int(self.max_steps)

  def reset(self, key: jax.Array) -> Tuple[PlaneStrikeState, dm_env.TimeStep]:
    heading_key, position_key = jax.random.split(key)
    heading = jax.random.randint(heading_key, (), 0, len(HEADINGS))
    position = jax.random.randint(position_key, (), 0,
                                  jnp.asarray(self._heading_counts)[heading])
    index = jnp.asarray(self._heading_offsets)[heading] + position
    b = self.board_size
    state = PlaneStrikeState(
        plane=jnp.asarray(self._planes)[index],
        board=jnp.zeros((b, b), jnp.float32),
        hits=jnp.zeros((), jnp.int32),
        steps=jnp.zeros((), jnp.int32))
    return state, functional.restart(state.board)

  def step(self, state: PlaneStrikeState,
           action: jax.Array) -> Tuple[PlaneStrikeState, dm_env.TimeStep]:
    """Strikes cell `action` (= row * board_size + column).

    Pure and traceable, so it cannot raise: `action` must be in
    [0, board_size**2). The dm_env face validates actions from users.
    """
    # One-hot selection instead of gather/scatter: elementwise over the
    # board, so XLA fuses it under vmap and LiteRT can run it.
    cells = jnp.arange(self.num_actions, dtype=jnp.int32).reshape(
        self.board_size, self.board_size)
    struck = cells == jnp.asarray(action, jnp.int32)
    current = jnp.sum(jnp.where(struck, state.board, 0.0))
    untried = current == 0
    hit = jnp.any(struck & state.plane)
    new_hit = jnp.logical_and(untried, hit)
    cell = jnp.where(untried, jnp.where(hit, 1.0, -1.0), current)
    board = jnp.where(struck, cell, state.board)
    reward = jnp.where(untried, jnp.where(hit, 1.0, 0.0), -1.0)
    hits = state.hits + new_hit.astype(jnp.int32)
    steps = state.steps + 1
    terminated = hits == PLANE_CELLS
    truncated = jnp.logical_and(~terminated, steps >= self.max_steps)
    state = PlaneStrikeState(state.plane, board, hits, steps)
    return state, functional.transition(reward, board, terminated, truncated)

  def sample_state(self, observation: jax.Array,
                   key: jax.Array) -> PlaneStrikeState:
    """A state the player cannot tell from the true one: the plane drawn
    from its posterior given the visible board `[B, B]` (the reference
    sampler's prior over placements, kept where every hit is a plane cell
    and no miss is), the board as it is. A planning agent searches over
    such states (posterior sampling) instead of the hidden one. Pure and
    traceable; a board no placement explains (none arises in play) draws
    from the prior. `steps` counts the struck cells (a re-strike, which
    legal play never makes, is not seen on the board)."""
    planes = jnp.asarray(self._planes)
    hits, misses = observation > 0, observation < 0
    fits = (jnp.all(~hits[None] | planes, axis=(1, 2)) &
            jnp.all(~(misses[None] & planes), axis=(1, 2)))
    log_prior = jnp.asarray(self._log_prior, jnp.float32)
    logits = jnp.where(jnp.any(fits), jnp.where(fits, log_prior, -jnp.inf),
                       log_prior)
    plane = planes[jax.random.categorical(key, logits)]
    board = jnp.asarray(observation, jnp.float32)
    return PlaneStrikeState(
        plane=plane, board=board,
        hits=jnp.sum(board > 0).astype(jnp.int32),
        steps=jnp.sum(board != 0).astype(jnp.int32))

  def legal_actions(self, observation: jax.Array) -> jax.Array:
    """Untried cells: `[..., B, B]` boards to `[..., B*B]` boolean masks."""
    return (observation == 0).reshape(observation.shape[:-2] +
                                      (self.num_actions,))

  def observation_spec(self) -> specs.BoundedArray:
    return specs.BoundedArray((self.board_size, self.board_size), np.float32,
                              minimum=-1.0, maximum=1.0, name='board')

  def action_spec(self) -> specs.DiscreteArray:
    return specs.DiscreteArray(self.num_actions, dtype=np.int32, name='cell')

  def reward_spec(self) -> specs.Array:
    return specs.Array((), np.float32, name='reward')

  def discount_spec(self) -> specs.BoundedArray:
    return specs.BoundedArray((), np.float32, 0.0, 1.0, name='discount')


def make_environment(board_size: int = 8,
                     max_steps: Optional[int] = None,
                     seed: Optional[int] = None) -> dm_env_wrapper.DmEnvironment:
  """Plane Strike as a `dm_env.Environment`."""
  return dm_env_wrapper.DmEnvironment(PlaneStrike(board_size, max_steps), seed)
