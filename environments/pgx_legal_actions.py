"""Legal moves of pgx's games as pure functions of their observations.

Agents mask illegal moves in jit, and the exported model masks them too, so
a game's legal moves must be read from what the player observes, while pgx
keeps them in its state (`state.legal_action_mask`). `LEGAL_ACTIONS` maps a
pgx id to such a function, `[..., *observation shape] -> bool [..., A]`;
the tests check each one against pgx's masks over random play.
`environments.pgx_adapter` gives a game with one its `legal_actions`, and
plays only the two-player games listed here.
"""

from typing import Callable, Dict, Tuple

import jax
import jax.numpy as jnp
import numpy as np


def _legal_actions_2048(observation: jax.Array) -> jax.Array:
  """2048's legal moves from `[..., 4, 4, 31]` one-hot boards.

  The board (tile exponents, 0 = empty) is the argmax of the one-hot axis;
  the moves are pgx's own `_legal_action_mask` of it. On a board with no
  move (the game is over) every action is legal, as pgx's mask says there.
  """
  from pgx import play2048  # pylint: disable=g-import-not-at-top
  batch = observation.shape[:-3]
  boards = jnp.argmax(observation, axis=-1).astype(jnp.int32)
  masks = jax.vmap(play2048._legal_action_mask)(  # pylint: disable=protected-access
      boards.reshape((-1, 4, 4)))
  masks = masks | ~jnp.any(masks, axis=-1, keepdims=True)
  return masks.reshape(batch + (4,))


def _legal_actions_tic_tac_toe(observation: jax.Array) -> jax.Array:
  """Tic-tac-toe's legal moves from `[..., 3, 3, 2]` boards (the mover's
  marks, the opponent's): the empty cells, row by row (pgx's actions)."""
  empty = ~jnp.any(observation > 0.5, axis=-1)
  return empty.reshape(observation.shape[:-3] + (9,))


def _legal_actions_connect_four(observation: jax.Array) -> jax.Array:
  """Connect four's legal moves from `[..., 6, 7, 2]` boards: the columns
  whose top cell (row 0) is empty. On a full board (the game is over)
  every column is legal, as for 2048's finished boards."""
  masks = ~jnp.any(observation[..., 0, :, :] > 0.5, axis=-1)
  return masks | ~jnp.any(masks, axis=-1, keepdims=True)


# Othello's eight directions (rows, columns).
_DIRECTIONS = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                    if (dr, dc) != (0, 0))


def _shifted(board: jax.Array, dr: int, dc: int) -> jax.Array:
  """`[..., 8, 8]` `board` moved by (dr, dc): what was at (r, c) is at
  (r + dr, c + dc); what moves in from off the board is False."""
  padded = jnp.pad(board, [(0, 0)] * (board.ndim - 2) + [(1, 1), (1, 1)])
  rows, columns = board.shape[-2:]
  return padded[..., 1 - dr:1 - dr + rows, 1 - dc:1 - dc + columns]


def _legal_actions_othello(observation: jax.Array) -> jax.Array:
  """Othello's legal moves from `[..., 8, 8, 2]` boards (the mover's
  discs, the opponent's): the empty cells that close a line of the
  opponent's discs against one of the mover's, in any of 8 directions
  (actions 0-63, row by row), and the pass (action 64) when there is no
  such cell."""
  mine, theirs = observation[..., 0] > 0.5, observation[..., 1] > 0.5
  empty = ~(mine | theirs)
  legal = jnp.zeros_like(empty)
  for dr, dc in _DIRECTIONS:
    # The opponent's discs in an unbroken line from one of the mover's.
    line = _shifted(mine, dr, dc) & theirs
    for _ in range(5):
      line = line | (_shifted(line, dr, dc) & theirs)
    legal = legal | (_shifted(line, dr, dc) & empty)
  cells = legal.reshape(observation.shape[:-3] + (64,))
  return jnp.concatenate(
      [cells, ~jnp.any(cells, axis=-1, keepdims=True)], axis=-1)


# Animal shogi (pgx's 3x4 board). Square `4 * x + y`: column x (0-2), row y
# (0-3), row 0 the far side from the mover. Pieces as pgx numbers them: the
# mover's chick, elephant, giraffe, lion, hen (0-4), the opponent's the
# same plus 5; -1 empty. A move is action `12 * direction + square from`
# (96), a drop `96 + 12 * piece + square to` (the chick, the elephant, the
# giraffe in hand; 36).
_SHOGI_STEPS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1),
                (1, 0), (1, 1))  # (dx, dy) of pgx's eight directions.


def _shogi_tables() -> Tuple[np.ndarray, np.ndarray]:
  """`target [8, 12]`: the square one step from each square in each
  direction (-1 off the board); `reach [5, 12, 12]`: whether a piece moves
  from one square to another (the mover's pieces, facing row 0)."""
  target = np.full((8, 12), -1, np.int32)
  reach = np.zeros((5, 12, 12), bool)
  for square in range(12):
    x, y = divmod(square, 4)
    for direction, (dx, dy) in enumerate(_SHOGI_STEPS):
      if 0 <= x + dx < 3 and 0 <= y + dy < 4:
        to = 4 * (x + dx) + y + dy
        target[direction, square] = to
        diagonal, straight = dx != 0 and dy != 0, dx == 0 or dy == 0
        reach[:, square, to] = (dx == 0 and dy == -1,  # Chick: forward.
                                diagonal,  # Elephant.
                                straight,  # Giraffe.
                                True,  # Lion.
                                dx == 0 or dy != 1)  # Hen: not back-diagonal.
  return target, reach


_SHOGI_TARGET, _SHOGI_REACH = _shogi_tables()


def _animal_shogi_checked(boards: jax.Array) -> jax.Array:
  """bool `[...]`: whether the opponent attacks the mover's lion on
  `boards` `[..., 12]` (pgx's `_is_checked`)."""
  lion = jnp.argmin(jnp.abs(boards - 3), axis=-1)
  squares = jnp.arange(12)
  # An opponent's piece on `square` attacks the lion if the mover's piece
  # of its kind would reach `square` from the lion (the board is mirrored).
  attacks = jnp.asarray(_SHOGI_REACH)[boards % 5, lion[..., None], squares]
  return jnp.any((boards >= 5) & attacks, axis=-1)


def _legal_actions_animal_shogi_one(observation: jax.Array) -> jax.Array:
  """`_legal_actions_animal_shogi` of one `[4, 3, 194]` observation."""
  # pgx's planes are `[row, 2 - column, channel]`; this step's are the first
  # 24 channels: 10 pieces, 12 hand planes (each of 6 pieces, >= 1 and
  # >= 2), 2 repetition planes.
  planes = jnp.swapaxes(observation[:, ::-1, :10], 0, 1).reshape(12, 10)
  board = jnp.where(jnp.any(planes > 0.5, axis=-1),
                    jnp.argmax(planes, axis=-1), -1).astype(jnp.int32)
  in_hand = observation[0, 0, 10:16:2] > 0.5  # The mover's 3 pieces.
  squares = jnp.arange(12)
  # Moves `[8, 12]`: direction, square from.
  to = jnp.asarray(_SHOGI_TARGET)
  piece = jnp.broadcast_to(board, to.shape)
  landing = board[jnp.maximum(to, 0)]
  reaches = jnp.asarray(_SHOGI_REACH)[jnp.clip(piece, 0, 4), squares,
                                      jnp.maximum(to, 0)]
  promoted = jnp.where((squares % 4 == 1) & (piece == 0), 4, piece)
  after = jnp.where(squares == to[..., None], promoted[..., None],
                    jnp.where(squares == squares[:, None], -1, board))
  moves = ((piece >= 0) & (piece <= 4) & (to >= 0) &
           ((landing < 0) | (landing >= 5)) & reaches &
           ~_animal_shogi_checked(after))
  # Drops `[3, 12]`: piece in hand, empty square to.
  dropped = jnp.where(squares[:, None] == squares, jnp.arange(3)[:, None,
                                                                None], board)
  drops = (in_hand[:, None] & (board < 0) &
           ~_animal_shogi_checked(dropped))
  return jnp.concatenate([moves.reshape(96), drops.reshape(36)])


def _legal_actions_animal_shogi(observation: jax.Array) -> jax.Array:
  """Animal shogi's legal moves from `[..., 4, 3, 194]` observations (pgx's
  planes of the last 8 positions; the current one's pieces and hands
  first): the moves and drops that leave the mover's lion unattacked, as
  pgx's `_legal_action_mask` finds them. Where none is (checkmate) every
  action is; at the game's other ends (the lion reaching the far row, a
  repetition, move 256) these are the rules' moves, where pgx's mask is all
  ones: the game is over either way."""
  batch = observation.shape[:-3]
  masks = jax.vmap(_legal_actions_animal_shogi_one)(
      observation.reshape((-1,) + observation.shape[-3:]))
  masks = masks | ~jnp.any(masks, axis=-1, keepdims=True)
  return masks.reshape(batch + (132,))


def _go_neighbours(size: int) -> np.ndarray:
  """int32 `[size², 4]`: each point's neighbours (pgx's indices, row by
  row), `size²` where the board ends."""
  table = np.full((size * size, 4), size * size, np.int32)
  for point in range(size * size):
    x, y = divmod(point, size)
    for k, (dx, dy) in enumerate(((-1, 0), (1, 0), (0, -1), (0, 1))):
      if 0 <= x + dx < size and 0 <= y + dy < size:
        table[point, k] = (x + dx) * size + y + dy
  return table


def _legal_actions_go_one(observation: jax.Array) -> jax.Array:
  """`_legal_actions_go` of one `[size, size, 17]` observation."""
  size = observation.shape[0]
  points = size * size
  planes = observation.reshape(points, -1) > 0.5
  mine, theirs = planes[:, 0], planes[:, 1]  # Now.
  mine_before, theirs_before = planes[:, 2], planes[:, 3]  # A move ago.
  empty = ~(mine | theirs)
  neighbours = jnp.asarray(_go_neighbours(size))
  on_board = neighbours < points
  pad = lambda x, value: jnp.append(x, value)  # The off-board point.
  # Chains: each stone takes the smallest point of its connected stones
  # of its colour (labels spread until nothing changes).
  colour = jnp.where(mine, 1, jnp.where(theirs, 2, 0))
  same = on_board & (pad(colour, -1)[neighbours] == colour[:, None]) & (
      colour[:, None] > 0)

  def spread(state):
    labels, _ = state
    nearest = jnp.min(jnp.where(same, pad(labels, points)[neighbours],
                                points), axis=-1)
    spread_labels = jnp.minimum(labels, nearest)
    return spread_labels, jnp.any(spread_labels != labels)

  labels, _ = jax.lax.while_loop(lambda state: state[1], spread,
                                 (jnp.arange(points), jnp.bool_(True)))
  # Liberties: the distinct empty points next to a chain.
  stone_labels = jnp.where(pad(colour, 0)[neighbours] > 0,
                           pad(labels, points)[neighbours], points)
  touches = jnp.any(stone_labels[..., None] == jnp.arange(points), axis=1)
  liberties = jnp.sum(touches & empty[:, None], axis=0)[labels]
  ok_next_to = (empty | (theirs & (liberties == 1)) |
                (mine & (liberties >= 2)))
  legal = empty & jnp.any(on_board & pad(ok_next_to, False)[neighbours],
                          axis=-1)
  # Ko: the last move took exactly one of the mover's stones, placing its
  # stone among the mover's stones and the board's edge only; the point
  # it took cannot be played back at once.
  placed = theirs & ~theirs_before
  taken = mine_before & ~mine
  enclosed = jnp.all(~on_board | pad(mine_before, False)[neighbours],
                     axis=-1)
  ko = (jnp.sum(taken) == 1) & jnp.any(placed & enclosed)
  legal = legal & ~(ko & taken)
  return jnp.append(legal, True)  # The pass is always legal.


def _legal_actions_go(observation: jax.Array) -> jax.Array:
  """Go's legal moves from `[..., size, size, 17]` observations (pgx's
  planes: the mover's stones and the opponent's, now and at each of the
  7 positions before, then the colour): the empty points where a stone
  has a liberty, captures, or joins a chain of the mover's with another
  liberty, except the point a ko just took (actions row by row), and the
  pass (the last action), as pgx's `legal_action_mask` finds them."""
  batch = observation.shape[:-3]
  masks = jax.vmap(_legal_actions_go_one)(
      observation.reshape((-1,) + observation.shape[-3:]))
  return masks.reshape(batch + masks.shape[-1:])


# id -> legal moves as a pure function of observations `[..., *shape]`.
LEGAL_ACTIONS: Dict[str, Callable[[jax.Array], jax.Array]] = {
    '2048': _legal_actions_2048,
    'animal_shogi': _legal_actions_animal_shogi,
    'connect_four': _legal_actions_connect_four,
    'go_9x9': _legal_actions_go,
    'othello': _legal_actions_othello,
    'tic_tac_toe': _legal_actions_tic_tac_toe,
}
