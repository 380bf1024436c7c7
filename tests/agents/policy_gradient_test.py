"""Tests for agents/policy_gradient.py: losses over real steps only."""

import math

from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np

from agents import policy_gradient


class MaskedLossesTest(absltest.TestCase):

  def test_hand_computed_and_padding_ignored(self):
    # Uniform policy over 4 actions: log π = -log 4, entropy log 4. The
    # padded third step (weight 0, huge advantage) must not count.
    logits = jnp.zeros((3, 4))
    pg_loss, entropy_loss = policy_gradient.masked_losses(
        logits, jnp.array([0, 3, 1]), jnp.array([1.0, 2.0, 100.0]),
        jnp.array([1.0, 1.0, 0.0]))
    self.assertAlmostEqual(float(pg_loss), math.log(4) * (1.0 + 2.0) / 2,
                           places=5)
    self.assertAlmostEqual(float(entropy_loss), -math.log(4), places=5)

  def test_same_as_without_the_padding(self):
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(5, 3)).astype(np.float32)
    actions = np.array([0, 2, 1, 1, 0])
    advantages = rng.normal(size=5).astype(np.float32)
    padded = policy_gradient.masked_losses(
        logits, actions, advantages, np.float32([1, 1, 1, 0, 0]))
    unpadded = policy_gradient.masked_losses(
        logits[:3], actions[:3], advantages[:3], np.ones(3, np.float32))
    np.testing.assert_allclose(padded, unpadded, rtol=1e-6)

  def test_gradient_raises_log_probability_of_positive_advantage(self):
    grad = jax.grad(lambda l: policy_gradient.masked_losses(
        l, jnp.array([2]), jnp.array([1.0]), jnp.array([1.0]))[0])(
            jnp.zeros((1, 3)))
    self.assertLess(float(grad[0, 2]), 0.0)  # Descent raises logit 2.
    self.assertGreater(float(grad[0, 0]), 0.0)

  def test_all_padding_is_zero_not_nan(self):
    pg_loss, entropy_loss = policy_gradient.masked_losses(
        jnp.zeros((2, 3)), jnp.array([0, 1]), jnp.array([1.0, 1.0]),
        jnp.zeros(2))
    self.assertEqual((float(pg_loss), float(entropy_loss)), (0.0, 0.0))


if __name__ == '__main__':
  absltest.main()
