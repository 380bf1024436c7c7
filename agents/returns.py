"""Discounted returns and the discounts and values they bootstrap from.

The return arithmetic the agents share, on `[T, B]` time-major trajectories
(see `agents.agent.Trajectory`), plus `episode_returns` for one episode's
rewards as a NumPy array (what on-device training feeds its model). Returns
never flow across an episode end: `last` cuts them, truncations included,
because the step after a truncation in a sequence already belongs to the
next episode. A time limit is not the end of the world, though: at one
(`time_limits`), `with_time_limit_values` adds the discounted value of the
observation the limit cut off to the reward, so GAE, λ-returns and TD
targets bootstrap through it as if the episode had gone on, and stop only
at terminations.
"""

import dataclasses
from typing import Callable

import chex
import jax
import jax.numpy as jnp
import numpy as np
import rlax

from agents import agent as agent_lib
from agents import lanes


def continuation_discounts(trajectory: agent_lib.Trajectory,
                           discount: float) -> jax.Array:
  """`[T, B]` γ·d_{t+1}, zero where an episode ended (no bootstrapping)."""
  return discount * trajectory.discounts * (
      1.0 - jnp.asarray(trajectory.last, jnp.float32))


def time_limits(trajectory: agent_lib.Trajectory) -> jax.Array:
  """bool `[T, B]`: step t ended its episode by a time limit (truncation:
  `last` with a nonzero discount, -1 in a two-player game whose turn
  passed; a termination has discount 0)."""
  return jnp.logical_and(jnp.asarray(trajectory.last, bool),
                         jnp.asarray(trajectory.discounts) != 0)


def next_observations(trajectory: agent_lib.Trajectory) -> jax.Array:
  """`[T, B, ...]` o_{t+1} of each step: `trajectory.next_observations`,
  or for a trajectory without them (made by hand, or by a loop of one's
  own), `observations[1:]` then `final_observations`. Those hold the next
  episode's first observation after an end, so without the loop's
  `next_observations` time limits count as terminations
  (`with_time_limit_values`, `bootstrap_discounts`)."""
  if trajectory.next_observations is not None:
    return jnp.asarray(trajectory.next_observations)
  observations = jnp.asarray(trajectory.observations)
  return jnp.concatenate(
      [observations[1:], jnp.asarray(trajectory.final_observations)[None]])


def bootstrap_time_limits_setting() -> bool:
  """The `bootstrap_time_limits` field of every agent config that learns
  from values, declared here once with its default and its meaning
  (`--helpconfig` reads the meaning from the field's `doc`). It returns a
  `dataclasses.field`, typed as the value the field holds, as field
  helpers are, so that the config's field reads as a bool."""
  return dataclasses.field(default=True, metadata={'doc': (
      'bootstrap through time limits from the value of the observation '
      'they cut off (`returns.with_time_limit_values`); False stops '
      'returns there as at terminations, as PureJaxRL and most single-file '
      'scripts do (to compare with them).')})


def time_limits_as_ends(trajectory: agent_lib.Trajectory,
                        bootstrap_time_limits: bool
                       ) -> agent_lib.Trajectory:
  """`trajectory` as an agent's `bootstrap_time_limits` setting reads it:
  as it is, or without `next_observations`, so that time limits stop
  returns as terminations do."""
  if bootstrap_time_limits:
    return trajectory
  return trajectory._replace(next_observations=None)


def bootstrap_discounts(trajectory: agent_lib.Trajectory) -> jax.Array:
  """`[T, B]` discounts of one-step targets from `next_observations`:
  the environment's (0 at terminations only), or, without the loop's
  `next_observations`, 0 at every episode end (time limits included)."""
  if trajectory.next_observations is not None:
    return jnp.asarray(trajectory.discounts, jnp.float32)
  return continuation_discounts(trajectory, 1.0)


def with_time_limit_values(rewards: jax.Array,
                           trajectory: agent_lib.Trajectory,
                           next_values: jax.Array,
                           discount: float) -> jax.Array:
  """`[T, B]` rewards with γ·d_{t+1}·v(next_observations[t]) added where
  step t hit a time limit (`time_limits`), so that a return cut there by
  `continuation_discounts` still counts the value the episode would have
  gone on to (the bootstrap a truncated episode is owed). Without the
  loop's `next_observations`, `rewards` as they are."""
  if trajectory.next_observations is None:
    return rewards
  bootstrap = discount * trajectory.discounts * next_values
  return rewards + jnp.where(time_limits(trajectory), bootstrap, 0.0)


def next_values(value_fn: Callable[[jax.Array], jax.Array],
                trajectory: agent_lib.Trajectory) -> jax.Array:
  """`[T, B]` v(o_{t+1}) of each step's own episode by `value_fn`
  (observations `[N, ...]` -> values `[N]`), without gradient. The last
  row is the unroll's bootstrap; the others count at time limits only
  (`with_time_limit_values`), so only the last row is computed unless a
  time limit ended a step before it (the same in every lane,
  `lanes.any_lane`); the rows not computed are 0. Without the loop's
  `next_observations` (time limits as ends) the last row is the value of
  `final_observations`. A consumer must read the other rows only at time
  limits (`with_time_limit_values`), or weigh them by 0 (λ-returns with
  λ = 1)."""
  t, b = trajectory.rewards.shape

  def last_row(observations):
    values = value_fn(observations)
    return jnp.zeros((t, b), values.dtype).at[-1].set(values)

  if trajectory.next_observations is None:
    values = last_row(trajectory.final_observations)
  else:
    next_observations = trajectory.next_observations
    values = jax.lax.cond(
        lanes.any_lane(jnp.any(time_limits(trajectory)[:-1])),
        lambda: value_fn(agent_lib.flatten_steps(
            next_observations)).reshape(t, b),
        lambda: last_row(next_observations[-1]))
  return jax.lax.stop_gradient(values)


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
