"""Tests for `environments.jumanji_adapter`."""


from absl.testing import absltest
import jax
import numpy as np
import pytest

from environments import jumanji_adapter
from environments import registry as env_registry
from tests.environments import stepping


class JumanjiCoreTest(absltest.TestCase):

  def test_observations_are_flat_with_the_mask_last(self):
    core = jumanji_adapter.make_core('Snake-v1')
    # Snake: a 12x12x5 grid, a step count, then 4 legal moves.
    self.assertEqual(core.observation_spec().shape, (12 * 12 * 5 + 1 + 4,))
    self.assertEqual(core.action_spec().num_values, 4)
    self.assertEqual(core.max_episode_steps, 4000)  # Snake's time limit.
    first, _ = stepping.rollout(core, [0])
    _, expected = core.env.reset(jax.random.PRNGKey(0))
    np.testing.assert_array_equal(
        first.observation[:720], np.reshape(expected.observation.grid, -1))
    np.testing.assert_array_equal(
        core.legal_actions(first.observation),
        expected.observation.action_mask)

  def test_legal_actions_follow_the_game(self):
    core = jumanji_adapter.make_core('Maze-v0')
    actions = jax.random.randint(jax.random.PRNGKey(1), (20,), 0, 4)

    def step(state, action):  # Ours, and Jumanji's own mask beside it.
      _, theirs = core.env.step(state.env_state, action)
      state, timestep = core.step(state, action)
      return state, (core.legal_actions(timestep.observation),
                     theirs.observation.action_mask, theirs.last())

    def run(key):
      return jax.lax.scan(step, core.reset(key)[0], actions)[1]

    masks, expected, last = jax.jit(run)(jax.random.PRNGKey(0))
    self.assertEqual(masks.shape, (20, 4))
    played = int(np.argmax(last)) + 1 if last.any() else 20
    np.testing.assert_array_equal(masks[:played], expected[:played])

  @pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
  def test_endings(self):
    # Running into Snake's wall ends the game: discount 0.
    core = jumanji_adapter.make_core('Snake-v1')
    _, (_, timesteps) = stepping.rollout(core, [0] * 12)
    last = int(np.argmax(np.asarray(timesteps.step_type) == 2))
    self.assertGreater(last, 0)
    self.assertEqual(float(timesteps.discount[last]), 0.0)
    # 2048 has no time limit of its own: the core's truncates.
    core = jumanji_adapter.make_core('Game2048-v1', max_steps=3)
    self.assertEqual(jumanji_adapter.make_core('Game2048-v1')
                     .max_episode_steps, jumanji_adapter.DEFAULT_MAX_STEPS)
    _, (_, timesteps) = stepping.rollout(core, [0, 1, 2])
    np.testing.assert_array_equal(timesteps.step_type, [1, 1, 2])
    np.testing.assert_array_equal(timesteps.discount, [1, 1, 1])


class BadInputTest(absltest.TestCase):

  @pytest.mark.slow  # Builds every Jumanji task to list those that play.
  def test_a_task_of_several_choices_is_refused(self):
    with self.assertRaisesRegex(ValueError, r'jumanji:Minesweeper-v0 acts '
                                r'with MultiDiscreteArray.*Valid jumanji ids: '
                                r'.*Snake-v1'):
      env_registry.check_name('jumanji:Minesweeper-v0')

  @pytest.mark.slow  # Builds every Jumanji task to list those that play.
  def test_unknown_id_names_close_matches(self):
    with self.assertRaisesRegex(ValueError, r"Unknown Jumanji environment "
                                r"'Snek-v1'\. Did you mean Snake-v1"):
      env_registry.check_name('jumanji:Snek-v1')


if __name__ == '__main__':
  absltest.main()
