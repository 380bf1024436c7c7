"""Policy-gradient and entropy losses averaged over the real steps only.

REINFORCE and A2C learn from padded batches: `Trajectory.mask` is 0 on
padding. RLax's losses take per-step weights but average over every entry,
padding included, so a batch's loss would shrink with its padding. These
losses are rescaled to a mean over the steps whose weight is 1.

When one batch is split over devices (`agents.data_parallel`), the mean is
over the real steps of the whole batch: each device's losses are its share
of that mean, and the agent sums them (and their gradients) over devices.
"""

from typing import Tuple

import chex
import jax
import jax.numpy as jnp
import rlax

from agents import data_parallel


def masked_losses(logits: jax.Array, actions: jax.Array,
                  advantages: jax.Array,
                  weights: jax.Array) -> Tuple[jax.Array, jax.Array]:
  """`(policy_gradient_loss, entropy_loss)`, each a mean over real steps.

  Args:
    logits: `[N, A]` (illegal actions already masked).
    actions: int `[N]` actions taken.
    advantages: `[N]` weights of the log-probabilities (returns or
      advantages; no gradient flows into them).
    weights: `[N]` 1 for real steps, 0 for padding.

  Returns:
    `rlax.policy_gradient_loss` and `rlax.entropy_loss` (the negated mean
    entropy), both rescaled from a mean over all N entries to a mean over
    the weighted ones (of every device's share of the batch: this
    device's part of that mean, to be summed with `data_parallel.total`).
  """
  chex.assert_rank([logits, actions, advantages, weights], [2, 1, 1, 1])
  # RLax averages over all N entries; rescale to a mean over real steps.
  scale = weights.shape[0] / jnp.maximum(
      data_parallel.total(weights.sum()), 1.0)
  pg_loss = scale * rlax.policy_gradient_loss(logits, actions, advantages,
                                              weights)
  entropy_loss = scale * rlax.entropy_loss(logits, weights)
  return pg_loss, entropy_loss
