"""Tests for agents/greedy.py."""

from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np

from agents import greedy
from environments import catch
from environments import plane_strike
from environments import specs


def _spec(environment):
  return specs.make_environment_spec(environment)


class GreedyTest(absltest.TestCase):

  def test_picks_most_probable_legal_action(self):
    probabilities = np.array([[0.7, 0.2, 0.1], [0.0, 0.0, 0.0]])
    legal = np.array([[False, True, True], [False, False, True]])
    np.testing.assert_array_equal(
        greedy.greedy_actions(probabilities, legal), [1, 2])

  def test_numpy_and_jax_agree_and_keep_their_kind(self):
    rng = np.random.default_rng(0)
    probabilities = rng.random((50, 9)).astype(np.float32)
    legal = rng.random((50, 9)) < 0.5
    legal[:, 4] = True
    from_numpy = greedy.greedy_actions(probabilities, legal)
    from_jax = jax.jit(greedy.greedy_actions)(jnp.asarray(probabilities),
                                              jnp.asarray(legal))
    self.assertIsInstance(from_numpy, np.ndarray)
    self.assertIsInstance(from_jax, jax.Array)
    np.testing.assert_array_equal(from_numpy, np.asarray(from_jax))
    self.assertTrue(np.all(legal[np.arange(50), from_numpy]))

  def test_legal_mask_of_plane_strike_is_untried_cells(self):
    spec = _spec(plane_strike.make_environment())
    board = np.zeros((8, 8), np.float32)
    board[0, 0], board[3, 4] = 1.0, -1.0
    mask = greedy.legal_mask(spec, board)
    self.assertIsInstance(mask, np.ndarray)
    self.assertEqual(mask.shape, (64,))
    self.assertFalse(mask[0] or mask[3 * 8 + 4])
    self.assertEqual(mask.sum(), 62)

  def test_legal_mask_without_legal_function_is_all_true(self):
    spec = _spec(catch.make_environment())
    observations = np.zeros((4,) + spec.observations.shape, np.float32)
    mask = greedy.legal_mask(spec, observations)
    self.assertEqual(mask.shape, (4, spec.num_actions))
    self.assertTrue(mask.all())


if __name__ == '__main__':
  absltest.main()
