"""Scripted Plane Strike players: the yardsticks a learned player is judged by.

Three players of one board each, pure JAX (`(board, key) -> cell`), from
weakest to strongest:

- `random_untried`: a uniformly random untried cell (never repeats one).
- `hunt_and_target`: the classic Battleship heuristic. While some hit
  has an untried neighbour (up, down, left, right), strike a random one of
  those (target); otherwise a random untried cell (hunt). It knows the
  plane's cells touch but not its shape.
- `bayes_greedy`: the untried cell most likely to hold a plane cell under
  the exact posterior over every placement (`plane_strike.placements`,
  weighted as the game samples them) consistent with the board's hits and
  misses. It plays each strike as well as one strike can be played; it is
  greedy, not a planner over whole games.

`play` measures a player over many games of the JAX core. The measured
means are the game's reference scores (`reference_scores.PLANE_STRIKE`;
the command: `python -m benchmarks.reference_players`).
"""

from typing import Callable, Dict

import jax
import jax.numpy as jnp
import numpy as np

from environments import functional
from environments import plane_strike

# `(board [B, B], key) -> cell (row * B + column)`.
Player = Callable[[jax.Array, jax.Array], jax.Array]


def _random_among(candidates: jax.Array, key: jax.Array) -> jax.Array:
  """A uniformly random index where `candidates` ([N] bool) holds."""
  noise = jax.random.uniform(key, candidates.shape)
  return jnp.argmax(jnp.where(candidates, noise, -1.0)).astype(jnp.int32)


def random_untried(board: jax.Array, key: jax.Array) -> jax.Array:
  """A uniformly random untried cell."""
  return _random_among(board.reshape(-1) == 0, key)


def hunt_and_target(board: jax.Array, key: jax.Array) -> jax.Array:
  """A random untried neighbour of a hit if there is one, else a random
  untried cell."""
  hits = board == 1
  padded = jnp.pad(hits, 1)
  next_to_hit = (padded[:-2, 1:-1] | padded[2:, 1:-1] | padded[1:-1, :-2] |
                 padded[1:-1, 2:])
  untried = board == 0
  targets = (untried & next_to_hit).reshape(-1)
  return _random_among(jnp.where(jnp.any(targets), targets,
                                 untried.reshape(-1)), key)


def bayes_greedy_player(board_size: int = 8) -> Player:
  """The greedy player on the exact posterior of a `board_size` board.

  A placement is consistent with the board when it covers every hit and
  no miss; a cell's chance of holding a plane cell is the prior mass of
  the consistent placements covering it. Ties go to a random cell among
  the best.
  """
  planes, probabilities = plane_strike.placements(board_size)
  planes = jnp.asarray(planes.reshape(len(planes), -1), jnp.float32)
  prior = jnp.asarray(probabilities, jnp.float32)

  def player(board: jax.Array, key: jax.Array) -> jax.Array:
    cells = board.reshape(-1)
    hits, misses = (cells == 1).astype(jnp.float32), cells == -1
    covers_hits = planes @ hits == hits.sum()
    avoids_misses = ~jnp.any((planes > 0) & misses, axis=-1)
    posterior = jnp.where(covers_hits & avoids_misses, prior, 0.0)
    chance = jnp.where(cells == 0, posterior @ planes, -1.0)
    return _random_among(chance >= chance.max(), key)

  return player


def players(board_size: int = 8) -> Dict[str, Player]:
  """Every scripted player by name, for a `board_size` board."""
  return {'random_untried': random_untried,
          'hunt_and_target': hunt_and_target,
          'bayes_greedy': bayes_greedy_player(board_size)}


def play(player: Player, num_games: int, key: jax.Array,
         board_size: int = 8) -> np.ndarray:
  """Strikes per game of `player` over `num_games` games, game j from
  `fold_in(key, j)` (placement and the player's draws), all at once.

  Returns:
    int32 `[num_games]` strikes; a game its player does not finish within
    the core's `max_steps` counts those.
  """
  if num_games < 1:
    raise ValueError(f'num_games must be >= 1; got {num_games}.')
  core = plane_strike.PlaneStrike(board_size)

  def one_game(game_key: jax.Array) -> jax.Array:
    reset_key, play_key = jax.random.split(game_key)
    state, first = core.reset(reset_key)

    def body(carry):
      state, observation, _, t = carry
      action = player(observation, jax.random.fold_in(play_key, t))
      state, timestep = core.step(state, action)
      return (state, timestep.observation,
              timestep.step_type == functional.LAST, t + 1)

    *_, strikes = jax.lax.while_loop(
        lambda carry: ~carry[2], body,
        (state, first.observation, jnp.zeros((), bool),
         jnp.zeros((), jnp.int32)))
    return strikes

  games = jnp.arange(num_games, dtype=jnp.int32)
  keys = jax.vmap(jax.random.fold_in, (None, 0))(key, games)
  return np.asarray(jax.jit(jax.vmap(one_game))(keys))
