"""A uniform replay buffer of transitions, as fixed-shape JAX arrays.

The whole buffer is a pytree of arrays of fixed shape, so inserting and
sampling are pure functions that run inside `jit` and `lax.scan` (the
compiled loop) as well as from Python; DQN and SAC keep it in their learner
state. Actions are stored as the action spec has them: int32 scalars, or
float32 `[action_dim]` continuous actions.
"""

from typing import Any, NamedTuple, Tuple

import chex
import jax
import jax.numpy as jnp

from agents import agent as agent_lib
from agents import returns as returns_lib


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


def init_replay(capacity: int, observation_spec: Any,
                action_spec: Any) -> Replay:
  """An empty buffer for `capacity` transitions of `observation_spec` and
  `action_spec`."""
  # Distinct buffers per field, so that the state can be donated to jit.
  observations = lambda: jnp.zeros(
      (capacity,) + tuple(observation_spec.shape), observation_spec.dtype)
  scalars = lambda: jnp.zeros((capacity,), jnp.float32)
  # As JAX holds them (int64 -> int32 unless x64 is on, as bsuite's).
  actions = jnp.zeros((capacity,) + tuple(action_spec.shape),
                      jax.dtypes.canonicalize_dtype(action_spec.dtype))
  transitions = Transitions(observations(), actions, scalars(), scalars(),
                            observations())
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


def trajectory_transitions(trajectory: agent_lib.Trajectory
                          ) -> Tuple[Transitions, jax.Array]:
  """Flattens a `[T, B]` trajectory into `T·B` transitions and a valid mask.

  The next observation of step t is that of its own episode
  (`next_observations`: at a time limit, the observation it cut off), and
  the bootstrap discount is the environment's `discounts[t]`: zero at a
  termination only, so targets bootstrap through time limits
  (`returns.bootstrap_discounts`; a trajectory without `next_observations`
  stops them at every episode end). Returns (transitions [T·B], valid
  bool [T·B] = mask > 0).
  """
  observations = jnp.asarray(trajectory.observations)
  next_observations = returns_lib.next_observations(trajectory)
  # γ = 1 here: the loss applies `config.discount` to these.
  discounts = returns_lib.bootstrap_discounts(trajectory)
  flat = agent_lib.flatten_steps
  transitions = Transitions(
      observations=flat(observations),
      actions=flat(jnp.asarray(trajectory.actions)),
      rewards=flat(jnp.asarray(trajectory.rewards, jnp.float32)),
      discounts=flat(jnp.asarray(discounts, jnp.float32)),
      next_observations=flat(next_observations))
  return transitions, flat(jnp.asarray(trajectory.mask) > 0)
