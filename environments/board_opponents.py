"""Opponents a self-play agent is evaluated against, in pure JAX.

Each is `(key, state, observation) -> action` in a two-player core
(`environments.two_player`):

  * `random_legal`: a uniformly random legal move;
  * `mcts`: Monte Carlo tree search (mctx's PUCT search, a uniform prior
    over legal moves) whose leaves are valued by one random playout to the
    end of the game, the classic `mcts-N` baseline of N simulations; it
    plays the most visited move;
  * `tic_tac_toe_minimax`: perfect play, a uniformly random choice among
    the moves of best minimax value (exact, from a table of every position
    computed once).
"""

import functools
import itertools
from typing import Any, Callable, Dict

import jax
import jax.numpy as jnp
import mctx
import numpy as np

from environments import functional

Opponent = Callable[[jax.Array, Any, jax.Array], jax.Array]

# PUCT's exploration weight in `mcts`. With a uniform prior and one noisy
# playout per leaf, mctx's default (1.25) tries too few moves and misses
# forced blocks in tic-tac-toe at 64 to 128 simulations; 2.8 finds them.
PB_C_INIT = 2.8


def _uniform_legal(key: jax.Array, legal: jax.Array) -> jax.Array:
  """int32 a uniformly drawn legal action of bool `legal [A]`."""
  return jax.random.categorical(
      key, jnp.where(legal, 0.0, -jnp.inf)).astype(jnp.int32)


def random_legal(core: Any) -> Opponent:
  """A uniformly random legal move of `core`'s state."""
  return lambda key, state, observation: _uniform_legal(
      key, core.legal_action_mask(state))


def playout_value(core: Any, key: jax.Array, state: Any) -> jax.Array:
  """float32 [] the outcome of one uniformly random playout from `state`
  to the episode's end (the game's, or a time limit's), seen by the player
  to move in `state`; at most `core.max_episode_steps` moves."""

  def unfinished(carry):
    return ~carry[3] & (carry[4] < core.max_episode_steps)

  def move(carry):
    state, key, sign, _, steps, total = carry
    key, move_key = jax.random.split(key)
    state, timestep = core.step(
        state, _uniform_legal(move_key, core.legal_action_mask(state)))
    total = total + sign * timestep.reward
    ended = timestep.step_type == functional.LAST
    return (state, key, sign * jnp.sign(timestep.discount), ended,
            steps + 1, total)

  carry = (state, key, jnp.ones((), jnp.float32), jnp.zeros((), bool),
           jnp.zeros((), jnp.int32), jnp.zeros((), jnp.float32))
  return jax.lax.while_loop(unfinished, move, carry)[-1]


def mcts(core: Any, num_simulations: int) -> Opponent:
  """`mcts-<num_simulations>`: PUCT search with random-playout values."""

  def recurrent_fn(params, key, action, states):
    del params
    states, timesteps = jax.vmap(core.step)(states, action)
    keys = jax.random.split(key, action.shape[0])
    values = jax.vmap(functools.partial(playout_value, core))(keys, states)
    ended = timesteps.discount == 0
    legal = jax.vmap(core.legal_action_mask)(states)
    return mctx.RecurrentFnOutput(
        reward=timesteps.reward, discount=timesteps.discount,
        prior_logits=jnp.where(legal, 0.0, -1e9),
        value=jnp.where(ended, 0.0, values)), states

  def policy(key, state, observation):
    del observation
    root_key, search_key = jax.random.split(key)
    legal = core.legal_action_mask(state)
    batch = jax.tree.map(lambda x: x[None], state)
    root = mctx.RootFnOutput(
        prior_logits=jnp.where(legal, 0.0, -1e9)[None],
        value=playout_value(core, root_key, state)[None], embedding=batch)
    output = mctx.muzero_policy(
        None, search_key, root, recurrent_fn, num_simulations,
        invalid_actions=~legal[None], dirichlet_fraction=0.0,
        pb_c_init=PB_C_INIT)
    weights = jnp.where(legal, output.action_weights[0], -1.0)
    return jnp.argmax(weights).astype(jnp.int32)

  return policy


# Tic-tac-toe's lines of three, by cell (row by row).
_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8),
          (0, 4, 8), (2, 4, 6))


@functools.lru_cache(maxsize=1)
def tic_tac_toe_best_moves() -> np.ndarray:
  """bool `[3**9, 9]`: for every board seen by the player to move (cell
  code 0 empty, 1 the mover's, 2 the opponent's; index Σ code·3^cell),
  the moves of best minimax value. Boards no game reaches mark every
  empty cell."""
  best = np.zeros((3**9, 9), bool)
  values: Dict[tuple, int] = {}

  def value(board: tuple) -> int:  # Of the player to move.
    if board in values:
      return values[board]
    if any(all(board[c] == 2 for c in line) for line in _LINES):
      result = -1  # The previous mover completed a line.
    elif all(board):
      result = 0
    else:
      swapped = tuple((0, 2, 1)[c] for c in board)
      outcomes = {move: -value(swapped[:move] + (2,) + swapped[move + 1:])
                  for move in range(9) if not board[move]}
      result = max(outcomes.values())
      index = sum(c * 3**i for i, c in enumerate(board))
      for move, outcome in outcomes.items():
        best[index, move] = outcome == result
    values[board] = result
    return result

  value((0,) * 9)
  for board in itertools.product(range(3), repeat=9):
    index = sum(c * 3**i for i, c in enumerate(board))
    if not best[index].any():
      best[index] = np.asarray(board) == 0
  best.flags.writeable = False  # Cached: every caller shares it.
  return best


def tic_tac_toe_minimax() -> Opponent:
  """Perfect tic-tac-toe play from observations `[3, 3, 2]` (the
  mover's marks, the opponent's), random among the best moves."""
  table = jnp.asarray(tic_tac_toe_best_moves())
  powers = jnp.asarray(3**np.arange(9), jnp.int32)

  def policy(key, state, observation):
    del state
    cells = (observation[..., 0] > 0.5) * 1 + (observation[..., 1] > 0.5) * 2
    index = jnp.sum(cells.reshape(9).astype(jnp.int32) * powers)
    return _uniform_legal(key, table[index])

  return policy


def tic_tac_toe_observation(board: np.ndarray) -> np.ndarray:
  """float32 `[..., 3, 3, 2]` observations (pgx's: the mover's marks, the
  opponent's) of boards `[..., 9]` coded 0 empty, 1 mover, 2 opponent."""
  board = np.asarray(board).reshape(board.shape[:-1] + (3, 3))
  return np.stack([board == 1, board == 2], axis=-1).astype(np.float32)


def tic_tac_toe_audit(greedy: Callable[[np.ndarray], np.ndarray]
                     ) -> Dict[str, Any]:
  """A deterministic tic-tac-toe policy against perfect play, exactly.

  Plays `greedy` (observations `[N, 3, 3, 2]` -> actions `[N]`) from both
  sides against every line a perfect player may choose (each of its best
  moves), and checks the policy's move in every position it meets against
  minimax. A policy with no `suboptimal` positions never loses to a
  perfect player, whichever side it takes and whatever best moves the
  perfect player picks.

  Returns:
    `{'positions': positions met, 'suboptimal': [{'board', 'played',
    'best'}, …]}`, boards as 9 codes from the policy's side.
  """
  best = tic_tac_toe_best_moves()
  codes = 3**np.arange(9)
  met, suboptimal = set(), []

  def over(board):
    return (all(board) or any(all(board[c] == 2 for c in line)
                              for line in _LINES))

  def swap(board):  # The same board seen by the other player.
    return tuple((0, 2, 1)[c] for c in board)

  def policy_moves(board):
    if board in met or over(board):
      return
    met.add(board)
    move = int(np.asarray(greedy(tic_tac_toe_observation(
        np.asarray(board)[None])))[0])
    index = int(np.dot(board, codes))
    if not best[index, move]:
      suboptimal.append({'board': list(board), 'played': move,
                         'best': np.flatnonzero(best[index]).tolist()})
    if board[move] == 0:
      perfect_replies(swap(board[:move] + (1,) + board[move + 1:]))

  def perfect_replies(board):
    if over(board):
      return
    for move in np.flatnonzero(best[int(np.dot(board, codes))]):
      policy_moves(swap(board[:move] + (1,) + board[move + 1:]))

  policy_moves((0,) * 9)  # The policy moves first,
  perfect_replies((0,) * 9)  # and second.
  return {'positions': len(met), 'suboptimal': suboptimal}


# Games with a perfect player (`minimax`), by pgx id.
PERFECT_PLAYERS: Dict[str, Callable[[], Opponent]] = {
    'tic_tac_toe': tic_tac_toe_minimax,
}
