"""A uniform replay buffer of transitions, as fixed-shape JAX arrays.

The whole buffer is a pytree of arrays of fixed shape, so inserting and
sampling are pure functions that run inside `jit` and `lax.scan` (the
compiled loop) as well as from Python; DQN keeps it in its learner state.
"""

from typing import Any, NamedTuple

import chex
import jax
import jax.numpy as jnp


class Transitions(NamedTuple):
  """A flat batch of transitions `(o_t, a_t, r_{t+1}, γ_{t+1}, o_{t+1})`.

  `discounts` is the bootstrap discount: 0 where the episode ended.
  """
  observations: jax.Array
  actions: jax.Array
  rewards: jax.Array
  discounts: jax.Array
  next_observations: jax.Array


class Replay(NamedTuple):
  """Circular buffer of `capacity` transitions, as fixed-shape arrays.

  Attributes:
    transitions: `Transitions` with leading dim `capacity`.
    position: int32 [], the slot the next transition goes to.
    size: int32 [], how many slots hold data (at most `capacity`).
  """
  transitions: Transitions
  position: jax.Array
  size: jax.Array


def init_replay(capacity: int, observation_spec: Any) -> Replay:
  """An empty buffer for `capacity` transitions of `observation_spec`."""
  # Distinct buffers per field, so that the state can be donated to jit.
  observations = lambda: jnp.zeros(
      (capacity,) + tuple(observation_spec.shape), observation_spec.dtype)
  scalars = lambda: jnp.zeros((capacity,), jnp.float32)
  transitions = Transitions(observations(), jnp.zeros((capacity,), jnp.int32),
                            scalars(), scalars(), observations())
  return Replay(transitions, jnp.zeros((), jnp.int32),
                jnp.zeros((), jnp.int32))


def replay_insert(replay: Replay, transitions: Transitions,
                  valid: jax.Array) -> Replay:
  """Writes the `valid` ones of `transitions` ([n]) after the last insert.

  Invalid (padding) entries are written nowhere: their scatter index is out
  of bounds and dropped, so shapes stay fixed. Should one call bring more
  valid transitions than fit, only the newest `capacity` are kept.
  """
  capacity = replay.transitions.actions.shape[0]
  chex.assert_rank(valid, 1)
  valid_count = jnp.cumsum(valid.astype(jnp.int32))
  num_valid = valid_count[-1]
  rank = valid_count - 1  # Order of each valid transition in this call.
  keep = valid & (rank >= num_valid - capacity)
  slots = jnp.where(keep, (replay.position + rank) % capacity, capacity)

  def write(buffer: jax.Array, values: jax.Array) -> jax.Array:
    return buffer.at[slots].set(values.astype(buffer.dtype), mode='drop')

  return Replay(
      transitions=jax.tree.map(write, replay.transitions, transitions),
      position=(replay.position + num_valid) % capacity,
      size=jnp.minimum(replay.size + num_valid, capacity))


def replay_sample(replay: Replay, key: jax.Array,
                  batch_size: int) -> Transitions:
  """`batch_size` stored transitions, uniformly with replacement."""
  indices = jax.random.randint(key, (batch_size,), 0,
                               jnp.maximum(replay.size, 1))
  return jax.tree.map(lambda x: x[indices], replay.transitions)
