"""Tests for agents/value_distributions.py: each head learns the return
distribution it stands for, and its Q-values are that distribution's mean.
"""

from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np

from agents import value_distributions

# One action; terminal transitions (discount 0) whose rewards are -1 or
# +1, half and half: the return distribution to learn.
_REWARDS = jnp.array([-1.0, 1.0] * 32)
_N = _REWARDS.shape[0]


def _fit(head: value_distributions.ValueHead, outputs: jax.Array,
         steps: int = 500, learning_rate: float = 0.5) -> jax.Array:
  """Free outputs `[1, 1(, K)]` fitted by gradient descent on the head's
  mean loss over `_REWARDS`."""

  def loss(params):
    tiled = jnp.broadcast_to(params, (_N,) + params.shape[1:])
    losses, _ = head.losses(tiled, jnp.zeros(_N, jnp.int32), _REWARDS,
                            jnp.zeros(_N), tiled, jnp.zeros((_N, 1)))
    return jnp.mean(losses)

  step = jax.jit(lambda p: p - learning_rate * jax.grad(loss)(p))
  for _ in range(steps):
    outputs = step(outputs)
  return outputs


class ValueDistributionsTest(absltest.TestCase):

  def test_expected_learns_the_mean(self):
    head = value_distributions.expected('l2')
    fitted = _fit(head, jnp.full((1, 1), 0.7))
    np.testing.assert_allclose(head.q_values(fitted), [[0.0]], atol=1e-4)

  def test_categorical_learns_both_outcomes(self):
    head = value_distributions.categorical(5, -2.0, 2.0)  # Atoms -2..2.
    fitted = _fit(head, jnp.zeros((1, 1, 5)))
    probabilities = jax.nn.softmax(fitted[0, 0])
    np.testing.assert_allclose(probabilities, [0, 0.5, 0, 0.5, 0],
                               atol=0.02)
    np.testing.assert_allclose(head.q_values(fitted), [[0.0]], atol=0.02)

  def test_quantiles_learn_the_distribution(self):
    # τ = 1/8, 3/8, 5/8, 7/8: the lower two quantiles -1, the upper +1.
    head = value_distributions.quantile(4, huber_param=0.0)
    fitted = _fit(head, jnp.zeros((1, 1, 4)), steps=800, learning_rate=0.2)
    np.testing.assert_allclose(fitted[0, 0], [-1, -1, 1, 1], atol=0.1)
    np.testing.assert_allclose(head.q_values(fitted), [[0.0]], atol=0.05)
    np.testing.assert_allclose(value_distributions.quantile_midpoints(4),
                               [0.125, 0.375, 0.625, 0.875])

  def test_bootstraps_from_the_selected_action(self):
    # r = 0, γ = 1: the target is action 1's return (the selector's pick),
    # a certain 1.0; C51's loss is then -log p(atom 1.0).
    head = value_distributions.categorical(3, -1.0, 1.0)
    logits_t = jnp.array([[[0.0, 9.0, 0.0], [-9.0, -9.0, 9.0]]])
    logits_tm1 = jnp.zeros((1, 2, 3))
    loss, priority = head.losses(logits_tm1, jnp.zeros(1, jnp.int32),
                                 jnp.zeros(1), jnp.ones(1), logits_t,
                                 jnp.array([[0.0, 1.0]]))
    target = jax.nn.softmax(logits_t[0, 1])
    expected = -jnp.sum(target * jax.nn.log_softmax(logits_tm1[0, 0]))
    np.testing.assert_allclose(loss, [expected], rtol=1e-5)
    np.testing.assert_allclose(priority, loss)

  def test_unknown_loss(self):
    with self.assertRaisesRegex(ValueError, r"loss must be one of \('huber', "
                                r"'l2'\); got 'kl'"):
      value_distributions.expected('kl')


if __name__ == '__main__':
  absltest.main()
