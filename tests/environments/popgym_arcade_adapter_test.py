"""Tests for `environments.popgym_arcade_adapter`."""

from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from environments import popgym_arcade_adapter
from environments import registry as env_registry
from environments import suites
from tests.environments import stepping

# MineSweeper compiles fastest (a few seconds); its four moves (0-3)
# never end an episode (action 4 reveals a cell), so 32 of them reach the
# Easy game's time limit.
_GAME = 'MineSweeperEasy'
_LIMIT = 32


# Two episodes of the POMDP from one key, by one compiled program: moves
# only (to the time limit), and one cell revealed again and again (which
# ends the game, by its mine or after 8 repeats, long before the limit).
_MOVES = [0, 1, 2, 3] * (_LIMIT // 4)
_REVEALS = [4] * _LIMIT
_KEY = jax.random.PRNGKey(3)


def _first_end(step_types: np.ndarray) -> int:
  return int(np.flatnonzero(np.asarray(step_types) == 2)[0])


class PopgymArcadeCoreTest(absltest.TestCase):

  def test_specs(self):
    core = popgym_arcade_adapter.make_core(_GAME)
    self.assertEqual(core.observation_spec().shape, (128, 128, 3))
    self.assertEqual(core.observation_spec().dtype, np.float32)
    self.assertEqual(core.action_spec().num_values, 5)
    self.assertEqual(core.max_episode_steps, _LIMIT)
    self.assertEqual(
        env_registry.reference_score(f'popgym_arcade:{_GAME}').scale(),
        '0: random actions (-0.007), 1: the most a game returns (1)')

  def test_the_observation_is_the_image_drawn(self):
    # popgym-arcade 0.0.5 declares MineSweeper's image 4x4 (its board);
    # the core's spec is the image it draws, at either size.
    for size in popgym_arcade_adapter.OBS_SIZES:
      core = popgym_arcade_adapter.make_core(_GAME, obs_size=size)
      _, first = jax.eval_shape(core.reset, jax.random.PRNGKey(0))
      self.assertEqual(core.observation_spec().shape, (size, size, 3))
      self.assertEqual(first.observation.shape, (size, size, 3))

  def test_the_games_own_end_on_the_limits_step_terminates(self):
    def split(env_id, done, terminated, truncated):
      ends = popgym_arcade_adapter.episode_end(env_id)(
          None, jnp.bool_(done), {'terminated': jnp.bool_(terminated),
                                  'truncated': jnp.bool_(truncated)})
      return tuple(bool(x) for x in ends)

    # BattleShip won by the last step's hit: its end, not the limit's.
    self.assertEqual(split('BattleShipEasy', True, True, True), (True, True))
    self.assertEqual(split('BattleShipEasy', True, False, True),
                     (False, True))
    self.assertEqual(split('CountRecallHard', True, True, False),
                     (True, False))
    self.assertEqual(split('CountRecallHard', False, False, False),
                     (False, False))
    # Breakout's `terminated` is its `done`: on the limit's step it
    # cannot tell its own end apart, and truncates.
    self.assertEqual(split('BreakoutEasy', True, True, True), (False, True))
    self.assertEqual(split('TetrisHard', True, True, False), (True, False))

  def test_games_defining_their_own_is_terminal_step_under_this_gymnax(self):
    # CartPole's step asks gymnax's `discount`, which asks `is_terminated`:
    # 0.0.5 defines only `is_terminal`.
    core = popgym_arcade_adapter.make_core('CartPoleEasy')
    self.assertEqual(core.max_episode_steps, 200)  # max_steps_in_episode.
    state, _ = jax.eval_shape(core.reset, jax.random.PRNGKey(0))
    _, timestep = jax.eval_shape(core.step, state, jnp.int32(0))
    self.assertEqual(timestep.observation.shape, (128, 128, 3))

  def test_bad_input_is_refused_naming_the_fix(self):
    with self.assertRaisesRegex(ValueError, 'Did you mean MineSweeperEasy'
                                r'.*Valid popgym_arcade ids: CartPoleEasy'):
      popgym_arcade_adapter.make_core('MinesweeperEasy')
    with self.assertRaisesRegex(ValueError, 'obs_size must be one of 128, '
                                "256; got 64"):
      popgym_arcade_adapter.make_core(_GAME, obs_size=64)
    with self.assertRaisesRegex(ValueError, 'partial_obs must be true or '
                                "false; got 'yes'"):
      popgym_arcade_adapter.make_core(_GAME, partial_obs='yes')

  def test_registered_with_its_settings(self):
    name = f'popgym_arcade:{_GAME}'
    self.assertTrue(env_registry.has_functional(name))
    self.assertEqual(list(suites.settings('popgym_arcade:', _GAME)),
                     ['partial_obs', 'obs_size'])
    core = env_registry.make_functional(name, partial_obs=True)
    self.assertTrue(core.env.partial_obs)


@pytest.mark.slow  # Compiles MineSweeper's drawing in a scan: ~5 s cold.
class PopgymArcadeRolloutTest(absltest.TestCase):
  """The core stepped as a compiled program, beside the package's game."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.core = popgym_arcade_adapter.make_core(_GAME, partial_obs=True)
    play = jax.jit(lambda actions: stepping.rollout(cls.core, actions,
                                                    _KEY)[1][1])
    episodes = [play(jnp.asarray(actions)) for actions in (_MOVES, _REVEALS)]
    cls.timesteps = jax.device_get(
        jax.tree.map(lambda *xs: np.stack(xs), *episodes))

  def test_steps_as_popgym_arcade_does_with_the_image_scaled(self):
    game, params = self.core.env, self.core.params
    parent = super(type(game), game)  # The game as popgym-arcade has it.

    def theirs(key):
      reset_key, step_key = jax.random.split(key)
      _, state = parent.reset_env(reset_key, params)

      def step(state, action):
        image, state, reward, _, _ = parent.step_env(step_key, state, action,
                                                     params)
        return state, (image, reward)
      return jax.lax.scan(step, state, jnp.asarray(_REVEALS))[1]

    images, rewards = jax.jit(theirs)(_KEY)
    end = _first_end(self.timesteps.step_type[1])
    ours = jax.tree.map(lambda x: x[1, :end + 1], self.timesteps)
    np.testing.assert_allclose(ours.observation,
                               np.asarray(images[:end + 1], np.float32) / 255,
                               rtol=1e-6)
    np.testing.assert_array_equal(ours.reward, rewards[:end + 1])
    self.assertEqual(float(np.max(ours.observation)), 1.0)

  def test_the_time_limit_ends_with_discount_one(self):
    step_types = np.asarray(self.timesteps.step_type[0])
    np.testing.assert_array_equal(step_types[:-1], 1)
    self.assertEqual(step_types[-1], 2)
    self.assertEqual(self.timesteps.discount[0, -1], 1.0)

  def test_an_ending_before_the_limit_has_discount_zero(self):
    end = _first_end(self.timesteps.step_type[1])
    self.assertLess(end, _LIMIT - 1)
    self.assertEqual(self.timesteps.discount[1, end], 0.0)


if __name__ == '__main__':
  absltest.main()
