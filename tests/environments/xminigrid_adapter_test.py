"""Tests for `environments.xminigrid_adapter`."""

from unittest import mock

from absl.testing import absltest
import jax
import numpy as np

from environments import registry as env_registry
from tests.environments import stepping
from environments import xminigrid_adapter

_EMPTY = 'MiniGrid-Empty-5x5'
_XLAND = 'XLand-MiniGrid-R1-9x9'
# In the empty 5x5 room: forward twice, turn right, forward twice reaches
# the goal (xminigrid's actions: 0 forward, 1 turn right, 2 turn left, ...).
_TO_GOAL = (0, 0, 1, 0, 0)


class XMiniGridCoreTest(absltest.TestCase):

  def test_specs(self):
    core = xminigrid_adapter.make_core(_EMPTY)
    self.assertEqual(core.observation_spec().shape, (7, 7, 2))
    self.assertEqual(core.action_spec().num_values, 6)
    self.assertEqual(core.max_episode_steps, 100)
    self.assertEqual(
        xminigrid_adapter.make_core(_EMPTY, view_size=5)
        .observation_spec().shape, (5, 5, 2))

  def test_reaching_the_goal_ends_with_discount_zero(self):
    core = xminigrid_adapter.make_core(_EMPTY)
    first, (_, timesteps) = stepping.rollout(core, _TO_GOAL)
    np.testing.assert_array_equal(timesteps.step_type, [1, 1, 1, 1, 2])
    # xminigrid's reward: 1 - 0.9 * steps / max_steps.
    np.testing.assert_allclose(timesteps.reward, [0, 0, 0, 0, 0.955],
                               rtol=1e-6)
    np.testing.assert_array_equal(timesteps.discount, [1, 1, 1, 1, 0])
    expected = core.env.reset(core.params, jax.random.PRNGKey(0))
    np.testing.assert_array_equal(first.observation, expected.observation)

  def test_one_hot_observations(self):
    core = xminigrid_adapter.make_core(_EMPTY, observation='one_hot')
    self.assertEqual(core.observation_spec().shape, (7, 7, 13 + 12))
    first, _ = stepping.rollout(core, (1,))
    symbols = core.env.reset(core.params, jax.random.PRNGKey(0)).observation
    np.testing.assert_array_equal(first.observation.sum(-1), 2)
    np.testing.assert_array_equal(
        np.argmax(first.observation[..., :13], -1), symbols[..., 0])
    np.testing.assert_array_equal(
        np.argmax(first.observation[..., 13:], -1), symbols[..., 1])
    with self.assertRaisesRegex(ValueError, "observation 'pixels'.*one_hot"):
      xminigrid_adapter.make_core(_EMPTY, observation='pixels')

  def test_the_baselines_direction_previous_action_and_reward(self):
    core = xminigrid_adapter.make_core(_EMPTY, direction=True,
                                       previous_action_reward=True)
    # The 7 x 7 view, the direction (4), the action (6), the reward (1).
    self.assertEqual(core.observation_spec().shape, (98 + 4 + 6 + 1,))
    first, (last, timesteps) = stepping.rollout(core, _TO_GOAL)
    symbols = core.env.reset(core.params, jax.random.PRNGKey(0))
    np.testing.assert_array_equal(first.observation[:98],
                                  np.ravel(symbols.observation))
    np.testing.assert_array_equal(
        first.observation[98:102],
        np.eye(4)[int(symbols.state.agent.direction)])
    np.testing.assert_array_equal(first.observation[102:], np.zeros(7))
    np.testing.assert_array_equal(
        timesteps.observation[-1, 98:102],
        np.eye(4)[int(last.state.agent.direction)])
    np.testing.assert_array_equal(timesteps.observation[:, 102:108],
                                  np.eye(6)[list(_TO_GOAL)])
    np.testing.assert_array_equal(timesteps.observation[:, -1],
                                  timesteps.reward)
    # The turn right (third action) turns the direction one step.
    self.assertFalse(np.array_equal(timesteps.observation[2, 98:102],
                                    timesteps.observation[1, 98:102]))

  def test_the_time_limit_ends_with_discount_one(self):
    core = xminigrid_adapter.make_core(_EMPTY, max_steps=3)
    _, (_, timesteps) = stepping.rollout(core, (1, 1, 1))
    np.testing.assert_array_equal(timesteps.step_type, [1, 1, 2])
    np.testing.assert_array_equal(timesteps.discount, [1, 1, 1])

  def test_an_xland_grid_plays_the_benchmark_ruleset_named(self):
    ruleset = xminigrid_adapter.make_core(_EMPTY).params  # Any pytree.
    benchmark = mock.Mock(num_rulesets=lambda: 3)
    benchmark.get_ruleset.return_value = ruleset
    with mock.patch('xminigrid.benchmarks.load_benchmark',
                    return_value=benchmark) as load:
      core = xminigrid_adapter.make_core(_XLAND, benchmark='trivial-21k',
                                         ruleset=2)
      load.assert_called_once_with('trivial-21k')
      benchmark.get_ruleset.assert_called_once_with(2)
      self.assertIs(core.params.ruleset, ruleset)
      with self.assertRaisesRegex(ValueError, r'ruleset must be an index in '
                                  r"\[0, 3\) of benchmark 'trivial-21k'"):
        xminigrid_adapter.make_core(_XLAND, benchmark='trivial-21k',
                                    ruleset=3)


class BadInputTest(absltest.TestCase):

  def test_an_xland_grid_without_a_ruleset_is_refused(self):
    with self.assertRaisesRegex(ValueError, r'needs a ruleset to play: set '
                                r'--env_config\.benchmark \(one of '
                                r'trivial-21k'):
      xminigrid_adapter.make_core(_XLAND)
    with self.assertRaisesRegex(ValueError, "Unknown XLand-MiniGrid "
                                "benchmark 'tiny'"):
      xminigrid_adapter.make_core(_XLAND, benchmark='tiny')
    with self.assertRaisesRegex(ValueError, 'settings of XLand grids'):
      xminigrid_adapter.make_core(_EMPTY, ruleset=1)

  def test_a_benchmark_it_cannot_fetch_says_where_the_file_goes(self):
    with mock.patch('xminigrid.benchmarks.load_benchmark',
                    side_effect=OSError('no network')):
      with self.assertRaisesRegex(
          ValueError, r"could not load benchmark 'small-1m' from "
          r'\S+small_1m_v3 \(downloaded on first use\): no network\. '
          r'Offline, put the file there .*scripts/xminigrid_ruleset_'
          r'generator\.py'):
        xminigrid_adapter.make_core(_XLAND, benchmark='small-1m')

  def test_the_switches_take_booleans(self):
    with self.assertRaisesRegex(ValueError, "direction must be true or "
                                "false; got 'yes'"):
      xminigrid_adapter.make_core(_EMPTY, direction='yes')
    with self.assertRaisesRegex(ValueError, 'previous_action_reward must be '
                                'true or false; got 1'):
      xminigrid_adapter.make_core(_EMPTY, previous_action_reward=1)

  def test_unknown_id_names_close_matches(self):
    with self.assertRaisesRegex(ValueError, r'Did you mean '
                                r'MiniGrid-Empty-5x5.*Valid xminigrid ids:'):
      env_registry.check_name('xminigrid:MiniGrid-Emty-5x5')


if __name__ == '__main__':
  absltest.main()
