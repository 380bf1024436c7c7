"""Prioritised experience replay (Schaul et al., 2016) on `replay.Replay`.

Transition i is sampled with probability `P(i) = p_i^α / Σ_j p_j^α` of its
priority `p_i` (the magnitude of its last TD error, or a distributional
agent's loss, plus a small constant so that none starves; new ones get the
highest stored, `replay.replay_insert`), and its loss is weighted by the
importance weight `(N·P(i))^-β`, divided by the largest in the batch, which
corrects the bias of sampling non-uniformly (β = 1: fully). All of it is
fixed-shape arrays: a cumulative sum over the slots and a search per sample
(stratified: one sample from each of `batch_size` equal slices of the
total), so it runs inside `jit` and the compiled loop as the uniform replay
does.
"""

from typing import Tuple

import chex
import jax
import jax.numpy as jnp

from agents import replay as replay_lib

# Added to every priority, so that no transition is never sampled again.
PRIORITY_EPSILON = 1e-6


def sample(replay: replay_lib.Replay, key: jax.Array, batch_size: int,
           priority_exponent: float
          ) -> Tuple[replay_lib.Transitions, jax.Array, jax.Array]:
  """`(transitions [batch_size], indices int32 [batch_size],
  probabilities [batch_size])`, drawn with probabilities ∝ p^α."""
  if replay.priorities is None:
    raise ValueError('This replay keeps no priorities; make it with '
                     'init_replay(..., prioritized=True).')
  scaled = jnp.where(replay.priorities > 0,
                     replay.priorities ** priority_exponent, 0.0)
  cumulative = jnp.cumsum(scaled)
  total = cumulative[-1]
  # One draw in each of batch_size equal slices of the total.
  points = (jnp.arange(batch_size) + jax.random.uniform(
      key, (batch_size,))) * (total / batch_size)
  indices = jnp.searchsorted(cumulative, points, side='right')
  indices = jnp.clip(indices, 0, jnp.maximum(replay.size, 1) - 1)
  probabilities = scaled[indices] / jnp.maximum(total, 1e-30)
  transitions = jax.tree.map(lambda x: x[indices], replay.transitions)
  return transitions, indices.astype(jnp.int32), probabilities


def importance_weights(probabilities: jax.Array, size: jax.Array,
                       importance_exponent: float) -> jax.Array:
  """`[batch]` weights `(N·P(i))^-β / max` (N: transitions stored)."""
  chex.assert_rank(probabilities, 1)
  weights = (jnp.asarray(size, jnp.float32) *
             jnp.maximum(probabilities, 1e-30)) ** -importance_exponent
  return weights / jnp.max(weights)


def update_priorities(replay: replay_lib.Replay, indices: jax.Array,
                      errors: jax.Array) -> replay_lib.Replay:
  """`replay` with the priorities of `indices` set to `|errors| + ε`."""
  chex.assert_equal_shape([indices, errors])
  priorities = replay.priorities.at[indices].set(
      jnp.abs(errors).astype(jnp.float32) + PRIORITY_EPSILON)
  return replay._replace(priorities=priorities)
