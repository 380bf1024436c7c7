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
    them in the state. `pgx_legal_actions.LEGAL_ACTIONS` maps a game to such
    a function; a game with one gets it as `legal_actions`, checked
    against pgx's `state.legal_action_mask` in the tests. A single-agent game without
    one gets no `legal_actions`, so every action counts as legal (true of
    the MinAtar games, whose masks are all ones).

pgx is imported on first use, so the framework works without it (then every
pgx id raises, saying how to install it).
"""

from typing import Any, Dict, NamedTuple, Optional, Tuple

import dm_env
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import functional
from environments import name_hints
from environments import pgx_legal_actions
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
# ones whose legal moves are read from observations
# (`pgx_legal_actions.LEGAL_ACTIONS`).
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
  if players == 2 and env_id not in pgx_legal_actions.LEGAL_ACTIONS:
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
    legal_actions = pgx_legal_actions.LEGAL_ACTIONS.get(env_id)
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
