"""Tests of one player's game against an opponent (`two_player.Versus`)."""

from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np

from environments import board_opponents
from environments import functional
from environments import pgx_adapter
from environments import two_player


def _outcomes(versus, policy, games, seed=0):
  """Each game's return when `policy(key, observation)` plays the agent."""

  def play(key):
    reset_key, key = jax.random.split(key)
    state, timestep = versus.reset(reset_key)

    def move(carry):
      state, key, _, total, observation = carry
      key, move_key = jax.random.split(key)
      state, timestep = versus.step(state, policy(move_key, observation))
      return (state, key, timestep.step_type == functional.LAST,
              total + timestep.reward, timestep.observation)

    carry = (state, key, jnp.zeros((), bool), jnp.zeros(()),
             timestep.observation)
    return jax.lax.while_loop(lambda c: ~c[2], move, carry)[3]

  keys = jax.random.split(jax.random.PRNGKey(seed), games)
  return np.asarray(jax.jit(jax.vmap(play))(keys))


class VersusTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.core = pgx_adapter.make_core('tic_tac_toe', opponent='minimax')
    self.minimax = board_opponents.tic_tac_toe_minimax()

  def test_perfect_play_against_perfect_play_draws(self):
    outcomes = _outcomes(self.core.versus(),
                         lambda key, obs: self.minimax(key, None, obs), 200)
    np.testing.assert_array_equal(outcomes, 0.0)

  def test_random_play_never_beats_perfect_play(self):
    legal = self.core.legal_actions
    outcomes = _outcomes(
        self.core.versus(), lambda key, obs: jax.random.categorical(
            key, jnp.where(legal(obs), 0.0, -1e9)), 400)
    self.assertTrue(np.all(outcomes <= 0))
    self.assertGreater(np.mean(outcomes < 0), 0.7)  # Random play: ~89%.

  def test_random_play_against_random_play_is_balanced(self):
    core = pgx_adapter.make_core('tic_tac_toe')  # opponent: random.
    legal = core.legal_actions
    outcomes = _outcomes(
        two_player.evaluation_core(core), lambda key, obs: (
            jax.random.categorical(key, jnp.where(legal(obs), 0.0, -1e9))),
        4000)
    # Each side about half the time: wins and losses both ~44%, draws ~13%.
    self.assertAlmostEqual(np.mean(outcomes > 0), np.mean(outcomes < 0),
                           delta=0.05)
    self.assertAlmostEqual(np.mean(outcomes == 0), 0.127, delta=0.03)

  def test_the_agent_moves_first_in_about_half_the_games(self):
    versus = self.core.versus()
    states, timesteps = jax.vmap(versus.reset)(
        jax.random.split(jax.random.PRNGKey(0), 400))
    empty = ~np.any(np.asarray(timesteps.observation) > 0.5, axis=(1, 2, 3))
    self.assertAlmostEqual(empty.mean(), 0.5, delta=0.08)
    # The agent is always to move after a reset.
    np.testing.assert_array_equal(
        jax.vmap(self.core.current_player)(states.game), states.agent_player)

  def test_one_player_games_are_evaluated_as_they_are(self):
    core = pgx_adapter.make_core('2048')
    self.assertIs(two_player.evaluation_core(core), core)
    self.assertFalse(two_player.is_two_player(core))

  def test_opponent_names(self):
    self.assertEqual(two_player.check_opponent('mcts-8', 'connect_four'),
                     'mcts-8')
    self.assertEqual(two_player.check_opponent('minimax', 'tic_tac_toe'),
                     'minimax')
    for bad in ('mcts-1', 'mcts', 'minmax', 3):
      with self.assertRaisesRegex(ValueError, 'valid: random, mcts-<N>'):
        two_player.check_opponent(bad, 'tic_tac_toe')


if __name__ == '__main__':
  absltest.main()
