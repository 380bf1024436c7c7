"""Tests for `environments.pgx_adapter`."""

import functools
import sys
from unittest import mock

from absl.testing import absltest
import dm_env
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np
import pgx
import pytest

from agents import registry as agent_registry
from environments import dm_env_wrapper
from environments import pgx_adapter
from environments import registry as env_registry
from environments import specs as env_specs


def _random_play(core, key, num_envs, num_steps):
  """Legal uniformly random play, resetting after LAST; per step: the
  observation acted on, pgx's mask there, the mask derived from the
  observation, the time step that follows and the episode's steps then."""
  reset = jax.vmap(core.reset)
  legal = getattr(core, 'legal_actions', None)

  def step(carry, key):
    states, timesteps = carry
    mask = states.game.legal_action_mask
    action_key, reset_key = jax.random.split(key)
    actions = jax.random.categorical(
        action_key, jnp.where(mask, 0.0, -jnp.inf)).astype(jnp.int32)
    after, next_timesteps = jax.vmap(core.step)(states, actions)
    fresh, first = reset(jax.random.split(reset_key, num_envs))
    last = next_timesteps.step_type == 2
    pick = lambda new, old: jnp.where(  # pylint: disable=g-long-lambda
        last.reshape(last.shape + (1,) * (new.ndim - 1)), new, old)
    carry = (jax.tree.map(pick, fresh, after), jax.tree.map(
        pick, first, next_timesteps))
    derived = mask if legal is None else legal(timesteps.observation)
    return carry, (timesteps.observation, mask, derived, next_timesteps,
                   after.steps)

  def run(key):
    start_key, key = jax.random.split(key)
    carry = reset(jax.random.split(start_key, num_envs))
    return jax.lax.scan(step, carry, jax.random.split(key, num_steps))[1]

  return jax.jit(run)(key)


@functools.lru_cache(maxsize=None)
def _play_2048():
  """32 games of 2048 x 200 steps of `_random_play` (shared by tests);
  `max_steps` truncates the longer games."""
  core = pgx_adapter.make_core('2048', max_steps=150)
  return core, _random_play(core, jax.random.PRNGKey(1), num_envs=32,
                            num_steps=200)


@pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
class Play2048Test(absltest.TestCase):

  def test_specs(self):
    core = pgx_adapter.make_core('2048')
    self.assertEqual(core.observation_spec(), specs.BoundedArray(
        (4, 4, 31), np.float32, 0.0, 1.0, name='observation'))
    self.assertEqual(core.action_spec(),
                     specs.DiscreteArray(4, np.int32, name='action'))
    self.assertEqual(core.reward_spec().dtype, np.float32)
    self.assertEqual(core.max_episode_steps,
                     pgx_adapter.DEFAULT_MAX_STEPS)

  def test_jit_vmap_and_pgx_trajectory(self):
    core = pgx_adapter.make_core('2048')
    env = pgx.make('2048')

    def run(key):
      state, first = core.reset(key)
      move = lambda game: jnp.argmax(game.legal_action_mask).astype(jnp.int32)
      _, timesteps = jax.lax.scan(
          lambda state, _: core.step(state, move(state.game)), state, None,
          length=10)
      # The same key through pgx itself: init, then split per step.
      init_key, key = jax.random.split(key)
      game = env.init(init_key)

      def pgx_step(carry, _):
        game, key = carry
        key, step_key = jax.random.split(key)
        game = env.step(game, move(game), step_key)
        return (game, key), (game.observation, game.rewards[0],
                             game.terminated)

      _, reference = jax.lax.scan(pgx_step, (game, key), None, length=10)
      return first, timesteps, game.observation, reference

    first, timesteps, observation, (observations, rewards, ends) = jax.jit(
        jax.vmap(run))(jax.random.split(jax.random.PRNGKey(0), 4))
    self.assertEqual(first.observation.shape, (4, 4, 4, 31))
    self.assertEqual(first.observation.dtype, jnp.float32)
    np.testing.assert_array_equal(first.step_type, [0] * 4)
    np.testing.assert_array_equal(first.observation, observation)
    np.testing.assert_array_equal(timesteps.observation, observations)
    self.assertEqual(timesteps.reward.dtype, jnp.float32)
    np.testing.assert_array_equal(timesteps.reward, rewards)
    self.assertGreater(float(np.sum(rewards)), 0.0)  # Tiles merged.
    np.testing.assert_array_equal(timesteps.step_type, np.where(ends, 2, 1))
    self.assertFalse(np.any(ends))

  def test_legal_actions_match_pgx_mask(self):
    core, (observations, mask, derived, timesteps, _) = _play_2048()
    np.testing.assert_array_equal(derived, mask)
    self.assertGreater(int((~np.asarray(mask)).any(-1).sum()), 300)
    # A finished board has no move; pgx's mask is then all ones, and so is
    # ours (an all-False mask would leave a policy nothing to sample).
    over = (np.asarray(timesteps.step_type) == 2) & (
        np.asarray(timesteps.discount) == 0.0)
    self.assertGreater(int(over.sum()), 5)
    self.assertTrue(np.all(core.legal_actions(
        jnp.asarray(timesteps.observation)[over])))
    # Batches of any rank.
    batch = jnp.asarray(observations[:6, :2])
    self.assertEqual(core.legal_actions(batch).shape, (6, 2, 4))
    np.testing.assert_array_equal(core.legal_actions(batch[3, 1]),
                                  mask[3, 1])

  def test_illegal_move_terminates(self):
    core = pgx_adapter.make_core('2048')
    reset = jax.jit(core.reset)
    for seed in range(20):
      state, first = reset(jax.random.PRNGKey(seed))
      illegal = np.flatnonzero(~core.legal_actions(first.observation))
      if illegal.size:
        break
    _, timestep = jax.jit(core.step)(state, int(illegal[0]))
    self.assertEqual(int(timestep.step_type), 2)
    self.assertEqual(float(timestep.discount), 0.0)
    self.assertEqual(float(timestep.reward), -1.0)  # pgx's penalty.

  def test_game_over_terminates_and_max_steps_truncates(self):
    core, (_, _, _, timesteps, steps) = _play_2048()
    self.assertEqual(core.max_episode_steps, 150)
    step_type, discount = (np.asarray(timesteps.step_type),
                           np.asarray(timesteps.discount))
    steps = np.asarray(steps)
    terminated = (step_type == 2) & (discount == 0.0)
    truncated = (step_type == 2) & (discount == 1.0)
    self.assertGreater(int(terminated.sum()), 5)  # Boards fill up.
    self.assertGreater(int(truncated.sum()), 0)
    np.testing.assert_array_equal(steps[truncated], 150)
    self.assertTrue(np.all(steps[step_type == 1] < 150))
    np.testing.assert_array_equal(discount[step_type == 1], 1.0)
    for bad in (0, 2.5, True):
      with self.assertRaisesRegex(ValueError, 'max_steps must be'):
        pgx_adapter.make_core('2048', max_steps=bad)

  @pytest.mark.slow
  def test_dm_face_and_masking_agent(self):
    env = env_registry.make_environment('pgx:2048', seed=0)
    self.assertIsInstance(env, dm_env_wrapper.DmEnvironment)
    spec = env_specs.make_environment_spec(env)
    self.assertIsNotNone(spec.legal_actions)
    first = env.reset()
    self.assertIs(first.step_type, dm_env.StepType.FIRST)
    action = int(np.argmax(spec.legal_actions(first.observation)))
    self.assertTrue(env.step(action).mid())
    # Observations where some moves are illegal: the agent never picks one.
    _, (observations, mask, _, _, _) = _play_2048()
    rows = np.flatnonzero((~np.asarray(mask)).any(-1).reshape(-1))[:256]
    self.assertLen(rows, 256)
    observations = np.asarray(observations).reshape(-1, 4, 4, 31)[rows]
    mask = np.asarray(mask).reshape(-1, 4)[rows]
    agent = agent_registry.make_agent(
        'ppo', agent_registry.make_config('ppo'), spec, None,
        'mlp_actor_critic')
    params = jax.jit(lambda key: agent.actor_params(agent.init(key)))(
        jax.random.PRNGKey(0))
    act = jax.jit(agent.act)
    for seed in range(3):
      actions, _ = act(params, jax.random.PRNGKey(seed), observations)
      self.assertTrue(np.all(mask[np.arange(len(rows)), actions]))


class MinAtarTest(absltest.TestCase):

  def test_no_legal_actions_function_and_all_actions_legal(self):
    core = pgx_adapter.make_core('minatar-breakout')
    self.assertFalse(hasattr(core, 'legal_actions'))
    env = env_registry.make_environment('pgx:minatar-breakout', seed=0)
    self.assertIsNone(env_specs.make_environment_spec(env).legal_actions)
    self.assertEqual(core.observation_spec().shape, (10, 10, 4))
    self.assertEqual(core.action_spec().num_values, 3)
    # pgx's MinAtar masks are a constant of all ones.
    self.assertTrue(np.all(core.env.legal_action_mask))
    state, first = jax.jit(core.reset)(jax.random.PRNGKey(0))
    self.assertTrue(np.all(state.game.legal_action_mask))
    self.assertEqual(first.observation.dtype, jnp.float32)
    self.assertEqual(first.observation.shape, (10, 10, 4))


class CheckIdTest(absltest.TestCase):

  def test_games_of_more_than_two_players_are_refused(self):
    with self.assertRaisesRegex(ValueError, '3-player game') as context:
      pgx_adapter.make_core('sparrow_mahjong')
    self.assertIn("'sparrow_mahjong'", str(context.exception))
    self.assertIn('2048, minatar-asterix', str(context.exception))
    self.assertIn('tic_tac_toe', str(context.exception))

  def test_unknown_id_lists_close_matches(self):
    with self.assertRaisesRegex(ValueError,
                                "Unknown pgx environment '2049'. Did you "
                                'mean 2048?.*Single-agent pgx ids: 2048'):
      pgx_adapter.check_id('2049')
    with self.assertRaisesRegex(ValueError, 'Did you mean minatar-breakout'):
      pgx_adapter.check_id('minatar-breakot')

  def test_single_agent_ids_are_single_agent(self):
    for env_id in pgx_adapter.SINGLE_AGENT_IDS:
      pgx_adapter.check_id(env_id)

  @pytest.mark.slow
  def test_single_agent_and_two_player_ids_are_all_of_them(self):
    # Making every pgx game takes ~25 s (chess and shogi build tables).
    players = {i: pgx.make(i).num_players for i in pgx.available_envs()}
    self.assertEqual(tuple(i for i, n in players.items() if n == 1),
                     pgx_adapter.SINGLE_AGENT_IDS)
    self.assertEqual(tuple(i for i, n in players.items() if n == 2),
                     pgx_adapter.TWO_PLAYER_IDS)

  def test_missing_package_is_named(self):
    error = ModuleNotFoundError("No module named 'pgx.minatar'")
    with mock.patch.dict(pgx_adapter._MADE, clear=True), mock.patch.object(  # pylint: disable=protected-access
        pgx, 'make', side_effect=error):
      with self.assertRaisesRegex(ValueError,
                                  'pgx:minatar-asterix needs a package .*'
                                  'pip install pgx-minatar'):
        pgx_adapter.make_core('minatar-asterix')
    with mock.patch.dict(sys.modules, {'pgx': None}):
      with self.assertRaisesRegex(ValueError, r"pgx is not installed: pip "
                                  r"install -e '\.\[suites\]'"):
        pgx_adapter.check_id('2048')


class TwoPlayerTest(absltest.TestCase):
  """Two-player games read as `environments.two_player` says."""

  def test_rewards_are_the_movers_and_the_turn_flips_the_discount(self):
    core = pgx_adapter.make_core('tic_tac_toe')
    self.assertEqual(core.num_players, 2)
    self.assertEqual(core.discount_spec().minimum, -1.0)
    state, _ = core.reset(jax.random.PRNGKey(0))
    first = int(core.current_player(state))
    # The first mover takes the top row; the other plays the middle row.
    for i, action in enumerate((0, 3, 1, 4)):
      state, timestep = core.step(state, action)
      self.assertEqual(float(timestep.discount), -1.0)
      self.assertEqual(float(timestep.reward), 0.0)
      self.assertEqual(int(core.current_player(state)),
                       first if i % 2 else 1 - first)
    state, timestep = core.step(state, 2)
    self.assertEqual(float(timestep.reward), 1.0)  # The mover won.
    self.assertEqual(float(timestep.discount), 0.0)
    self.assertEqual(int(timestep.step_type), int(dm_env.StepType.LAST))

  def _legal_actions_in_random_games(self, env_id, moves, pass_logit=0.0,
                                     probe=lambda state: 0, games=32):
    """`games` games of `moves` random legal moves (the pass, where it is the
    last action, weighted by `pass_logit`): asserts that the legal moves
    read from each observation are pgx's; returns, per game and move,
    the action played, pgx's mask, whether the game had ended and
    `probe` of the state."""
    core = pgx_adapter.make_core(env_id)

    def play(key):
      state, timestep = core.reset(key)

      def move(carry, key):
        state, timestep = carry
        mask = core.legal_action_mask(state)
        logits = jnp.where(mask, 0.0, -1e9).at[-1].add(pass_logit)
        action = jax.random.categorical(key, logits)
        ended = timestep.step_type == dm_env.StepType.LAST
        same = jnp.all(core.legal_actions(timestep.observation) == mask)
        return core.step(state, action), (same | ended | ~jnp.any(mask),
                                          action, mask, ended, probe(state))

      _, out = jax.lax.scan(move, (state, timestep),
                            jax.random.split(key, moves))
      return out

    same, *out = jax.jit(jax.vmap(play))(
        jax.random.split(jax.random.PRNGKey(1), games))
    self.assertTrue(np.all(same), env_id)
    return jax.tree.map(np.asarray, out)

  def test_legal_actions_of_tic_tac_toe_and_connect_four(self):
    self._legal_actions_in_random_games('tic_tac_toe', 12)
    self._legal_actions_in_random_games('connect_four', 12)

  def test_legal_actions_of_othello(self):
    # Whole games (up to 60 discs and a pass between two), passes included.
    _, masks, ended, _ = self._legal_actions_in_random_games('othello', 120)
    self.assertTrue(np.all(ended[:, -1]))
    self.assertGreater(int((~ended & masks[..., -1]).sum()), 0)

  @pytest.mark.slow  # Compiling pgx's step takes most of it.
  def test_legal_actions_of_animal_shogi(self):
    # 64 moves of random play hold drops (actions 96-131) and checks.
    from pgx import animal_shogi  # pylint: disable=g-import-not-at-top
    actions, _, ended, checked = self._legal_actions_in_random_games(
        'animal_shogi', 64, games=16,
        probe=lambda state: animal_shogi._is_checked(state.game))  # pylint: disable=protected-access
    self.assertGreater(int((~ended & (actions >= 96)).sum()), 0)
    self.assertGreater(int((~ended & checked).sum()), 0)

  @pytest.mark.slow  # Compiling pgx's step takes most of it.
  def test_legal_actions_of_go(self):
    # Whole games with few passes hold captures, suicides (empty points
    # pgx refuses, other than a ko's) and kos (pgx keeps the point a ko
    # forbids in its state).
    def probe(state):
      game = state.game._x  # pylint: disable=protected-access
      refused = jnp.sum((game.board == 0) &
                        ~state.game.legal_action_mask[:-1])
      return (game.ko >= 0, refused - (game.ko >= 0),
              jnp.sum(game.num_captured))

    _, _, ended, (ko, suicides, captured) = (
        self._legal_actions_in_random_games(
            'go_9x9', 162, pass_logit=-4.0, games=16, probe=probe))
    self.assertGreater(int((~ended & ko).sum()), 0)
    self.assertGreater(int((~ended & (suicides > 0)).sum()), 0)
    self.assertGreater(int(captured[:, -1].max()), 0)

  def test_two_player_games_without_legal_moves_from_observations(self):
    for env_id in ('chess', 'kuhn_poker'):
      with self.assertRaisesRegex(
          ValueError, f'pgx:{env_id} is a two-player game whose legal moves '
          'cannot yet be read.*Two-player games here: animal_shogi, '
          'connect_four, go_9x9, othello, tic_tac_toe'):
        pgx_adapter.make_core(env_id)

  def test_an_opponent_is_for_two_player_games(self):
    with self.assertRaisesRegex(ValueError, 'pgx:2048 is played alone'):
      pgx_adapter.make_core('2048', opponent='random')
    with self.assertRaisesRegex(ValueError,
                                "'minimax' is not an opponent for "
                                'connect_four; valid: random, mcts-<N>'):
      pgx_adapter.make_core('connect_four', opponent='minimax')
    self.assertEqual(pgx_adapter.make_core('tic_tac_toe').opponent,
                     'random')


if __name__ == '__main__':
  absltest.main()
