"""Discounted returns and the discounts and values they bootstrap from.

The return arithmetic the agents share, on `[T, B]` time-major trajectories
(see `agents.agent.Trajectory`), plus `episode_returns` for one episode's
rewards as a NumPy array (what on-device training feeds its model). Returns
never flow across an episode end: `last` cuts them, truncations included,
because the step after a truncation in a sequence already belongs to the
next episode.
"""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import rlax

from agents import agent as agent_lib


def continuation_discounts(trajectory: agent_lib.Trajectory,
                           discount: float) -> jax.Array:
  """`[T, B]` γ·d_{t+1}, zero where an episode ended (no bootstrapping)."""
  return discount * trajectory.discounts * (
      1.0 - jnp.asarray(trajectory.last, jnp.float32))


def bootstrapped_values(values: jax.Array,
                        final_values: jax.Array) -> jax.Array:
  """`[T, B]` v(o_{t+1}): the next step's value, then the final value."""
  return jnp.concatenate([values[1:], final_values[None]], axis=0)


def values_with_final(values: jax.Array,
                      final_values: jax.Array) -> jax.Array:
  """`[T + 1, B]` v(o_0) … v(o_T): the values, then the final value."""
  return jnp.concatenate([values, final_values[None]], axis=0)


def discounted_returns(trajectory: agent_lib.Trajectory,
                       discount: float) -> jax.Array:
  """`[T, B]` Monte Carlo returns G_t = r_{t+1} + γ d_{t+1} G_{t+1}, cut at
  episode ends and not bootstrapped past the last step."""
  per_sequence = jax.vmap(
      lambda r, d: rlax.discounted_returns(r, d, jnp.zeros_like(r)),
      in_axes=1, out_axes=1)
  return per_sequence(trajectory.rewards,
                      continuation_discounts(trajectory, discount))


@jax.jit
def _episode_returns(rewards: jax.Array, discount: jax.Array) -> jax.Array:
  return rlax.discounted_returns(rewards, jnp.full_like(rewards, discount),
                                 jnp.zeros_like(rewards))


def episode_returns(rewards: np.ndarray, discount: float) -> np.ndarray:
  """float32 `[T]` returns G_t = r_t + γ G_{t+1} of one whole episode.

  Args:
    rewards: `[T]` rewards of one episode, in order (any real dtype; a
      NumPy array or a sequence).
    discount: γ.

  Returns:
    A NumPy float32 array, computed with `rlax.discounted_returns`
    (compiled once per episode length).
  """
  rewards = np.asarray(rewards, np.float32)
  chex.assert_rank(rewards, 1)
  if not rewards.size:
    return np.zeros(0, np.float32)
  return np.asarray(_episode_returns(rewards, np.float32(discount)))
