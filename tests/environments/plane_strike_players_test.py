"""Tests for environments/plane_strike_players.py: the scripted players."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from environments import plane_strike
from environments import plane_strike_players as players_lib

KEY = jax.random.PRNGKey(0)


def _board(hits=(), misses=()):
  board = np.zeros((8, 8), np.float32)
  for cell in hits:
    board[cell] = 1
  for cell in misses:
    board[cell] = -1
  return jnp.asarray(board)


def test_random_untried_never_strikes_a_tried_cell():
  board = np.full((8, 8), -1.0, np.float32)
  board[3, 4] = 0
  for i in range(5):
    assert int(players_lib.random_untried(
        jnp.asarray(board), jax.random.PRNGKey(i))) == 3 * 8 + 4


def test_hunt_and_target_strikes_next_to_a_hit():
  board = _board(hits=[(4, 4)], misses=[(3, 4), (4, 3)])
  for i in range(10):
    cell = int(players_lib.hunt_and_target(board, jax.random.PRNGKey(i)))
    assert cell in (5 * 8 + 4, 4 * 8 + 5)


def _posterior_chance(board):
  """Each cell's chance of holding a plane cell given `board`, by
  enumeration in float64 (placements covering every hit and no miss)."""
  planes, probabilities = plane_strike.placements()
  hits, misses = board == 1, board == -1
  keep = np.asarray([np.all(plane[hits]) and not np.any(plane[misses])
                     for plane in planes])
  assert keep.sum() > 1
  return np.tensordot(probabilities[keep], planes[keep].astype(float), 1)


def test_bayes_greedy_strikes_the_likeliest_untried_cell():
  # Seven hits of one placement and no miss: more than one placement is
  # consistent with them, and not every untried cell is as likely.
  planes, _ = plane_strike.placements()
  board = np.zeros((8, 8), np.float32)
  for cell in list(zip(*np.nonzero(planes[40])))[1:]:
    board[cell] = 1
  chance = np.where(board == 0, _posterior_chance(board), -1.0).reshape(-1)
  best = set(np.flatnonzero(np.isclose(chance, chance.max())))
  assert len(best) < int((board == 0).sum())
  player = players_lib.bayes_greedy_player()
  for i in range(5):
    assert int(player(jnp.asarray(board), jax.random.PRNGKey(i))) in best
  # A random untried cell would not do.
  picks = {int(players_lib.random_untried(jnp.asarray(board),
                                          jax.random.PRNGKey(i)))
           for i in range(20)}
  assert not picks <= best


def test_bayes_greedy_opens_on_the_likeliest_cell():
  planes, probabilities = plane_strike.placements()
  chance = np.tensordot(probabilities, planes.astype(np.float64), 1)
  cell = int(players_lib.bayes_greedy_player()(_board(), KEY))
  assert chance.reshape(-1)[cell] == pytest.approx(chance.max())


@pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
def test_stronger_players_need_fewer_strikes():
  means = {name: players_lib.play(player, 200, KEY).mean()
           for name, player in players_lib.players().items()}
  assert (means['bayes_greedy'] < means['hunt_and_target'] <
          means['random_untried'])
  # A game needs the plane's 8 cells at least, and never more than the
  # 64 cells of the board for a player that never repeats one.
  strikes = players_lib.play(players_lib.random_untried, 50, KEY)
  assert strikes.min() >= 8 and strikes.max() <= 64


def test_play_refuses_no_games():
  with pytest.raises(ValueError, match='num_games must be >= 1'):
    players_lib.play(players_lib.random_untried, 0, KEY)
