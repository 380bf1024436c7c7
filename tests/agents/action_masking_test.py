"""Tests for agents/action_masking.py."""

import dataclasses

from absl.testing import absltest
import chex
import jax.numpy as jnp
import numpy as np

from agents import action_masking
from environments import plane_strike
from environments import specs


class ActionMaskingTest(absltest.TestCase):

  def test_masked_softmax_zero_on_illegal_and_normalised(self):
    logits = jnp.array([[5.0, 1.0, -2.0, 0.0]])
    legal = jnp.array([[False, True, True, False]])
    p = action_masking.masked_softmax(logits, legal)
    np.testing.assert_array_equal(np.asarray(p)[0, [0, 3]], 0.0)
    expected = np.exp([1.0, -2.0]) / np.exp([1.0, -2.0]).sum()
    np.testing.assert_allclose(np.asarray(p)[0, [1, 2]], expected, rtol=1e-6)

  def test_single_legal_action_is_finite(self):
    logits = jnp.array([[1e3, -1e3, 0.0]])
    legal = jnp.array([[False, False, True]])
    masked = action_masking.mask_logits(logits, legal)
    p = action_masking.masked_softmax(logits, legal)
    chex.assert_tree_all_finite((masked, p))
    np.testing.assert_array_equal(np.asarray(p), [[0.0, 0.0, 1.0]])

  def test_no_mask_is_identity(self):
    logits = jnp.array([[1.0, 2.0]])
    np.testing.assert_array_equal(
        np.asarray(action_masking.mask_logits(logits, None)), logits)

  def test_legal_actions_from_spec(self):
    env = plane_strike.make_environment(seed=0)
    spec = specs.make_environment_spec(env)
    board = np.zeros((2, 8, 8), np.float32)
    board[1, 0, 3] = -1.0
    legal = np.asarray(action_masking.legal_actions(spec, board))
    self.assertEqual(legal.shape, (2, 64))
    self.assertTrue(legal[0].all())
    self.assertFalse(legal[1, 3])
    self.assertEqual(legal[1].sum(), 63)
    no_mask = dataclasses.replace(spec, legal_actions=None)
    self.assertIsNone(action_masking.legal_actions(no_mask, board))


if __name__ == '__main__':
  absltest.main()
