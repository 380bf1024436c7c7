"""pgx's games as pure-JAX functional cores (`--env=pgx:<id>`).

pgx games are JAX already, so each one becomes a
`functional.FunctionalEnvironment`: the single-agent ones (2048 and the
MinAtar games) run in both loops for every agent; the two-player board
games (tic-tac-toe, connect four, othello, go, ...) are played by agents
that learn by self-play (`environments.two_player` says how such a core
reads, and how evaluation plays it against an opponent).

How a pgx game maps onto the core:
  * The core's state carries pgx's state and a PRNG key, because pgx's
    `step` needs one (2048's new tiles, MinAtar's sticky actions): each step
    splits it, so a trajectory depends only on the reset key and the actions.
  * Reward is the mover's, `state.rewards[player who moved]` (a
    single-agent game's only player). `state.terminated` ends the episode
    with discount 0; `state.truncated`, or `max_steps` steps, with
    discount 1 (-1 in a two-player game whose turn passed). pgx ends the
    game on an illegal action with reward -1 (its rule).
  * Two-player games: every step is one player's move, its discount -1
    where the turn passes to the other player, and the observation is
    from the side of the player to move next, as pgx gives it
    (`environments.two_player`). Only games whose legal moves are read
    from observations are played (`PLAYABLE_TWO_PLAYER_IDS`).
  * Observations are float32 with pgx's observation shape (2048: a
    (4, 4, 31) one-hot board; MinAtar: 10x10xC images).
  * Legal actions: our interface needs them as a pure function of the
    OBSERVATION (agents mask in jit, exported models too), while pgx keeps
    them in the state. `LEGAL_ACTIONS` maps a game to such a function; a game
    with one gets it as `legal_actions`, checked against pgx's
    `state.legal_action_mask` in the tests. A single-agent game without
    one gets no `legal_actions`, so every action counts as legal (true of
    the MinAtar games, whose masks are all ones).

pgx is imported on first use, so the framework works without it (then every
pgx id raises, saying how to install it).
"""

from typing import Any, Callable, Dict, NamedTuple, Optional, Tuple

import dm_env
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import functional
from environments import name_hints
from environments import two_player

INSTALL_HINT = "pip install -e '.[suites]'"
_FLOAT = np.float32

# Episodes are truncated after this many steps unless `max_steps` says
# otherwise. pgx's 2048 and MinAtar games have no time limit, but the
# compiled loop sizes its episode buffers by `max_episode_steps` (padded to a
# power of two), so the cap must stay moderate: 1000 is gymnax's MinAtar
# cap, and 2048 under uniformly random legal play lasts about 120 steps
# (mean of 1,000 games; longest 299). At 1024 padded steps x 64 environments
# a 2048 episode buffer holds 32M floats (130 MB).
DEFAULT_MAX_STEPS = 1000

# Games that always end within this many moves: their episodes are
# bounded by it (a larger `max_steps` changes nothing), so that buffers and
# the default number of evaluation episodes follow the real length.
GAME_LENGTHS = {'tic_tac_toe': 9, 'connect_four': 42,
                # 60 discs, at most one pass between two of them.
                'othello': 120,
                # pgx ends a game at its 256th move, drawn.
                'animal_shogi': 256,
                # pgx ends a game at its 162nd move (2 x 81), scored.
                'go_9x9': 162}

# Single-agent games of pgx 2.6 (`num_players == 1`), for error messages;
# whether an id is accepted is decided by its own `num_players`.
SINGLE_AGENT_IDS = ('2048', 'minatar-asterix', 'minatar-breakout',
                    'minatar-freeway', 'minatar-seaquest',
                    'minatar-space_invaders')
# Two-player games of pgx 2.6; those played here (by self-play) are the
# ones whose legal moves are read from observations (`LEGAL_ACTIONS`).
TWO_PLAYER_IDS = ('animal_shogi', 'backgammon', 'chess', 'connect_four',
                  'gardner_chess', 'go_9x9', 'go_19x19', 'hex',
                  'kuhn_poker', 'leduc_holdem', 'othello', 'shogi',
                  'tic_tac_toe')
PLAYABLE_TWO_PLAYER_IDS = ('animal_shogi', 'connect_four', 'go_9x9',
                           'othello', 'tic_tac_toe')

# Packages that provide pgx games outside pgx itself, by id prefix.
_EXTRA_PACKAGES = {'minatar-': 'pgx-minatar'}


def _pgx() -> Any:
  """The pgx module, imported on first use (ValueError if missing)."""
  try:
    import pgx  # pylint: disable=g-import-not-at-top
  except ImportError as e:
    raise ValueError(f'pgx is not installed: {INSTALL_HINT} ({e}).') from e
  return pgx


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

# id -> the made pgx environment (making some takes seconds).
_MADE: Dict[str, Any] = {}


def _make(env_id: str) -> Any:
  """`pgx.make(env_id)`, cached; a missing package raises naming it."""
  if env_id not in _MADE:
    pgx = _pgx()
    package = next((p for prefix, p in _EXTRA_PACKAGES.items()
                    if env_id.startswith(prefix)), None)
    install = (f'pip install {package}' if package else
               'install the package it names')
    try:
      made = pgx.make(env_id)
    except ImportError as e:
      raise ValueError(f'pgx:{env_id} needs a package that is not '
                       f'installed ({e}): {install}.') from e
    if made is None:  # Some pgx versions print the missing package and
      raise ValueError(  # return None instead of raising.
          f'pgx:{env_id} needs a package that is not installed: '
          f'{install}.')
    _MADE[env_id] = made
  return _MADE[env_id]


def check_id(env_id: str) -> None:
  """Raises ValueError unless `env_id` is a pgx game of one or two
  players."""
  available = _pgx().available_envs()
  if env_id not in available:
    hint = name_hints.did_you_mean(env_id, available)
    raise ValueError(f'Unknown pgx environment {env_id!r}.{hint} '
                     f'Single-agent pgx ids: {", ".join(SINGLE_AGENT_IDS)}; '
                     f'two-player: {", ".join(PLAYABLE_TWO_PLAYER_IDS)}.')
  players = _make(env_id).num_players
  if players not in (1, 2):
    raise ValueError(
        f'pgx environment {env_id!r} is a {players}-player game; agents '
        f'here play alone or against themselves. pgx ids: '
        f'{", ".join(SINGLE_AGENT_IDS + PLAYABLE_TWO_PLAYER_IDS)}.')
  if players == 2 and env_id not in LEGAL_ACTIONS:
    raise ValueError(
        f'pgx:{env_id} is a two-player game whose legal moves cannot yet be '
        f'read from its observations (greedy play and the exported model '
        f'mask by them; an illegal move loses in pgx). Two-player games '
        f'here: {", ".join(PLAYABLE_TWO_PLAYER_IDS)}.')


class PgxState(NamedTuple):
  """pgx's state, the key of the next step, and the steps taken."""
  game: Any
  key: jax.Array
  steps: jax.Array  # int32 [].


class PgxCore:
  """One pgx game as a `functional.FunctionalEnvironment` (a two-player
  one as `environments.two_player` reads it, evaluated against
  `opponent`)."""

  def __init__(self, env_id: str, max_steps: int = DEFAULT_MAX_STEPS,
               opponent: Optional[str] = None):
    if (not isinstance(max_steps, (int, np.integer)) or
        isinstance(max_steps, bool) or max_steps < 1):
      raise ValueError(f'max_steps must be a positive integer; got '
                       f'{max_steps!r}.')
    check_id(env_id)
    self.env_id = env_id
    self.env = _make(env_id)
    self.num_players = int(self.env.num_players)
    self.max_steps = min(int(max_steps),
                         GAME_LENGTHS.get(env_id, int(max_steps)))
    if self.num_players == 1 and opponent is not None:
      raise ValueError(f'opponent: pgx:{env_id} is played alone; an '
                       f'opponent is for two-player games '
                       f'({", ".join(PLAYABLE_TWO_PLAYER_IDS)}).')
    self.opponent = (two_player.check_opponent(
        opponent or two_player.DEFAULT_OPPONENT, env_id)
                     if self.num_players == 2 else None)
    # The state carries the key of every random draw to come (2048's
    # tiles, MinAtar's spawns and sticky actions): a search that steps the
    # game would know them. The two-player games played here draw nothing.
    self.hidden_state = self.num_players == 1
    shape = jax.eval_shape(self.env.init, jax.random.PRNGKey(0)).observation
    self._observation_spec = specs.Array(shape.shape, _FLOAT,
                                         name='observation')
    if shape.dtype == jnp.bool_:
      self._observation_spec = specs.BoundedArray(
          shape.shape, _FLOAT, 0.0, 1.0, name='observation')
    self._num_actions = int(self.env.num_actions)
    legal_actions = LEGAL_ACTIONS.get(env_id)
    if legal_actions is not None:
      # Only games with one have the attribute (see the module docstring).
      self.legal_actions = legal_actions

  @property
  def max_episode_steps(self) -> int:
    """Episodes end by `max_steps` at the latest (truncation)."""
    return self.max_steps

  def reset(self, key: jax.Array) -> Tuple[PgxState, dm_env.TimeStep]:
    init_key, key = jax.random.split(key)
    game = self.env.init(init_key)
    state = PgxState(game, key, jnp.zeros((), jnp.int32))
    return state, functional.restart(
        jnp.asarray(game.observation, jnp.float32))

  def step(self, state: PgxState,
           action: jax.Array) -> Tuple[PgxState, dm_env.TimeStep]:
    """One pgx `step` with the next key of the state's sequence.

    Pure and traceable, so it cannot raise: `action` must be in
    [0, num_actions). The dm_env face validates actions from users.
    """
    key, step_key = jax.random.split(state.key)
    mover = state.game.current_player
    game = self.env.step(state.game, jnp.asarray(action, jnp.int32),
                         step_key)
    steps = state.steps + 1
    truncated = jnp.logical_or(game.truncated, steps >= self.max_steps)
    state = PgxState(game, key, steps)
    timestep = functional.transition(
        game.rewards[mover], jnp.asarray(game.observation, jnp.float32),
        game.terminated, truncated)
    if self.num_players == 2:  # The turn passes: the value changes sides.
      turn = jnp.where(game.current_player == mover, 1.0, -1.0)
      timestep = timestep._replace(discount=timestep.discount * turn)
    return state, timestep

  def current_player(self, state: PgxState) -> jax.Array:
    """int32 [] the player to move in `state` (0 or 1)."""
    return jnp.asarray(state.game.current_player, jnp.int32)

  def legal_action_mask(self, state: PgxState) -> jax.Array:
    """bool `[num_actions]` the legal moves of `state`, as pgx keeps them
    (what search masks; `legal_actions` reads them off observations)."""
    return state.game.legal_action_mask

  def observation_spec(self) -> specs.Array:
    return self._observation_spec

  def action_spec(self) -> specs.DiscreteArray:
    return specs.DiscreteArray(self._num_actions, dtype=np.int32,
                               name='action')

  def reward_spec(self) -> specs.Array:
    return specs.Array((), _FLOAT, name='reward')

  def discount_spec(self) -> specs.BoundedArray:
    low = -1.0 if self.num_players == 2 else 0.0  # -1: the turn passes.
    return specs.BoundedArray((), _FLOAT, low, 1.0, name='discount')

  def versus(self) -> functional.FunctionalEnvironment:
    """A two-player game as one player's, against `opponent`
    (`two_player.Versus`): what evaluation plays."""
    return two_player.Versus(self, self.opponent)


def make_core(env_id: str, max_steps: int = DEFAULT_MAX_STEPS,
              opponent: Optional[str] = None) -> PgxCore:
  """pgx game `env_id` as a functional core; `opponent` (two-player
  games only) is who evaluation plays the agent against: `random` (None:
  the default), `mcts-<N>` (search over N simulations with random
  playouts) or, for tic-tac-toe, `minimax` (perfect play)."""
  return PgxCore(env_id, max_steps, opponent)
