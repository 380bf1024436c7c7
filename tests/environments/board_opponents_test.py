"""Tests of the opponents self-play agents are evaluated against."""

from absl.testing import absltest
import jax
import numpy as np
import pytest

from environments import board_opponents
from environments import pgx_adapter


def _position(core, moves, seed=0):
  """The state and observation after `moves` from a new game."""
  state, timestep = core.reset(jax.random.PRNGKey(seed))
  for move in moves:
    state, timestep = core.step(state, move)
  return state, timestep.observation


# Moves alternate: the mover of `moves[0]` takes 0 and 1, the other 3 and
# 4. After four moves the first mover wins at 2 (and must, before the
# other wins at 5); after three, the second mover must block at 2.
_WIN_AT_2 = (0, 3, 1, 4)
_BLOCK_AT_2 = (0, 4, 1)


class MinimaxTest(absltest.TestCase):

  def test_table_plays_the_win_and_the_block(self):
    core = pgx_adapter.make_core('tic_tac_toe')
    minimax = board_opponents.tic_tac_toe_minimax()
    for moves in (_WIN_AT_2, _BLOCK_AT_2):
      state, observation = _position(core, moves)
      actions = jax.vmap(lambda k: minimax(k, state, observation))(
          jax.random.split(jax.random.PRNGKey(0), 20))
      np.testing.assert_array_equal(actions, 2)

  def test_every_move_of_the_empty_board_draws(self):
    best = board_opponents.tic_tac_toe_best_moves()
    np.testing.assert_array_equal(best[0], np.ones(9, bool))
    # The opponent (code 2) took a corner: only the centre holds the draw.
    np.testing.assert_array_equal(np.flatnonzero(best[2 * 3**0]), [4])


class AuditTest(absltest.TestCase):

  def test_perfect_play_passes_and_a_fixed_order_fails(self):
    best = board_opponents.tic_tac_toe_best_moves()
    codes = 3**np.arange(9)

    def perfect(observations):  # The first best move of each board.
      boards = (observations[..., 0] > 0.5) + 2 * (observations[..., 1] > 0.5)
      index = boards.reshape(-1, 9).astype(int) @ codes
      return np.argmax(best[index], axis=-1)

    audit = board_opponents.tic_tac_toe_audit(perfect)
    self.assertEqual(audit['suboptimal'], [])
    self.assertGreater(audit['positions'], 20)

    def first_empty(observations):
      return np.argmax(~np.any(observations > 0.5, axis=-1).reshape(-1, 9),
                       axis=-1)

    audit = board_opponents.tic_tac_toe_audit(first_empty)
    self.assertNotEmpty(audit['suboptimal'])
    for miss in audit['suboptimal']:
      self.assertNotIn(miss['played'], miss['best'])


@pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
class MctsTest(absltest.TestCase):

  def test_search_with_random_playouts_wins_and_blocks(self):
    core = pgx_adapter.make_core('tic_tac_toe')
    mcts = jax.jit(board_opponents.mcts(core, 64))
    for moves in (_WIN_AT_2, _BLOCK_AT_2):
      state, observation = _position(core, moves)
      for seed in range(3):
        self.assertEqual(
            int(mcts(jax.random.PRNGKey(seed), state, observation)), 2)

  def test_playout_value_is_the_movers(self):
    core = pgx_adapter.make_core('tic_tac_toe')
    keys = jax.random.split(jax.random.PRNGKey(0), 8)
    value = jax.vmap(lambda k, s: board_opponents.playout_value(core, k, s),
                     (0, None))
    # One cell (5) is left and fills the board without a line: a draw.
    state, _ = _position(core, (4, 0, 8, 2, 1, 7, 6, 3))
    np.testing.assert_array_equal(value(keys, state), 0.0)
    # One cell (2) is left and completes the mover's top row: a win.
    state, _ = _position(core, (0, 3, 1, 4, 5, 8, 6, 7))
    np.testing.assert_array_equal(value(keys, state), 1.0)


if __name__ == '__main__':
  absltest.main()
