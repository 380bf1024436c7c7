"""A replay buffer of transitions, as fixed-shape JAX arrays.

The whole buffer is a pytree of arrays of fixed shape, so inserting and
sampling are pure functions that run inside `jit` and `lax.scan` (the
compiled loop) as well as from Python; DQN, SAC and TD3 keep it in their
learner state. Sampling is uniform (`replay_sample`) or, for DQN's
`prioritized_replay`, by priority (`agents.prioritized_replay`). Actions
are stored as the action spec has them: int32 scalars, or float32
`[action_dim]` continuous actions.

Not flashbax's buffers: measured beside them (docs/benchmarks/speed.md,
"Replay: ours beside flashbax"), uniform sampling through flashbax is 1.2
to 1.7 times slower with small observations; with MinAtar's it ties
storing transitions whole, and its faster paired layout reads the next
episode's first observation after an episode's end (time limits would
count as terminations) unless next observations are stored too, as
here.
"""

from typing import Any, NamedTuple, Optional, Tuple

import chex
import jax
import jax.numpy as jnp

from agents import agent as agent_lib
from agents import data_parallel
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
    priorities: float32 `[capacity]` of a prioritised replay
      (`agents.prioritized_replay`), 0 in empty slots; None: uniform.
  """
  transitions: Transitions
  position: jax.Array
  size: jax.Array
  priorities: Optional[jax.Array] = None


def init_replay(capacity: int, observation_spec: Any, action_spec: Any,
                prioritized: bool = False) -> Replay:
  """An empty buffer for `capacity` transitions of `observation_spec` and
  `action_spec`, with a priority per slot if `prioritized`."""
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
                jnp.zeros((), jnp.int32),
                scalars() if prioritized else None)


def replay_insert(replay: Replay, transitions: Transitions,
                  valid: jax.Array) -> Replay:
  """Writes the `valid` ones of `transitions` ([n]) after the last insert.

  Invalid (padding) entries are written nowhere: their scatter index is out
  of bounds and dropped, so shapes stay fixed. Should one call bring more
  valid transitions than fit, only the newest `capacity` are kept. In a
  prioritised replay, new transitions get the highest priority stored (1
  in an empty one), so each is sampled soon.
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

  priorities = replay.priorities
  if priorities is not None:
    highest = jnp.where(replay.size > 0, jnp.max(priorities), 1.0)
    priorities = write(priorities, jnp.full(valid.shape, highest))
  return Replay(
      transitions=jax.tree.map(write, replay.transitions, transitions),
      position=(replay.position + num_valid) % capacity,
      size=jnp.minimum(replay.size + num_valid, capacity),
      priorities=priorities)


def replay_sample(replay: Replay, key: jax.Array,
                  batch_size: int) -> Transitions:
  """`batch_size` stored transitions, uniformly with replacement."""
  indices = jax.random.randint(key, (batch_size,), 0,
                               jnp.maximum(replay.size, 1))
  return jax.tree.map(lambda x: x[indices], replay.transitions)


def insert_trajectory(replay: Replay, trajectory: agent_lib.Trajectory,
                      n: int = 1, discount: float = 1.0
                     ) -> Tuple[Replay, jax.Array]:
  """`(replay, valid)`: `replay` with the `trajectory`'s transitions
  (`trajectory_transitions`) written in, and which of them were real.
  Split over devices (`agents.data_parallel`), every device inserts the
  whole batch, so that each holds the replay of one device with it."""
  trajectory = data_parallel.gather(
      trajectory._replace(final_observations=None), axis=1)._replace(
          final_observations=data_parallel.gather(
              trajectory.final_observations, axis=0))
  transitions, valid = trajectory_transitions(trajectory, n, discount)
  return replay_insert(replay, transitions, valid), valid


def trajectory_transitions(trajectory: agent_lib.Trajectory, n: int = 1,
                           discount: float = 1.0
                          ) -> Tuple[Transitions, jax.Array]:
  """Flattens a `[T, B]` trajectory into `T·B` transitions and a valid mask.

  The next observation of step t is that of its own episode
  (`next_observations`: at a time limit, the observation it cut off), and
  the bootstrap discount is the environment's `discounts[t]`: zero at a
  termination only, so targets bootstrap through time limits
  (`returns.bootstrap_discounts`; a trajectory without `next_observations`
  stops them at every episode end).

  With `n > 1`, each transition is an n-step one: its reward is the
  discounted sum `Σ_k γ^k d_t…d_{t+k-1} r_{t+k}` of the m ≤ n steps from
  t that stay in t's episode and in this unroll (an episode end or the
  unroll's last step stops it: the unroll's last n − 1 steps get the
  shorter returns they hold, as PPO's GAE does at an unroll's end), its
  next observation that of step t + m − 1, and its bootstrap discount
  `γ^(m-1) d_t…d_{t+m-1}` (the loss multiplies in one more γ: γ^m in all).

  Returns (transitions [T·B], valid bool [T·B] = mask > 0).
  """
  observations = jnp.asarray(trajectory.observations)
  next_observations = returns_lib.next_observations(trajectory)
  # γ = 1 here: the loss applies `config.discount` to these.
  discounts = jnp.asarray(returns_lib.bootstrap_discounts(trajectory),
                          jnp.float32)
  rewards = jnp.asarray(trajectory.rewards, jnp.float32)
  valid = jnp.asarray(trajectory.mask) > 0
  if n > 1:
    rewards, discounts, next_observations = _n_step(
        rewards, discounts, next_observations,
        jnp.asarray(trajectory.last, bool) | ~valid, n, discount)
  flat = agent_lib.flatten_steps
  transitions = Transitions(
      observations=flat(observations),
      actions=flat(jnp.asarray(trajectory.actions)),
      rewards=flat(rewards),
      discounts=flat(discounts),
      next_observations=flat(next_observations))
  return transitions, flat(valid)


def _n_step(rewards: jax.Array, discounts: jax.Array,
            next_observations: jax.Array, ends: jax.Array, n: int,
            discount: float) -> Tuple[jax.Array, jax.Array, jax.Array]:
  """`[T, B]` n-step rewards and bootstrap discounts, and the `[T, B, ...]`
  observations they bootstrap from (`trajectory_transitions`)."""
  length = rewards.shape[0]
  # A window stops at an episode's end or at the unroll's last step.
  stops = ends.at[-1].set(True)
  returns = jnp.zeros_like(rewards)
  weight = jnp.ones_like(rewards)  # γ^k d_t … d_{t+k-1}.
  open_ = jnp.ones_like(ends)
  bootstrap = jnp.zeros_like(discounts)
  observations = next_observations
  for k in range(n):
    index = jnp.minimum(jnp.arange(length) + k, length - 1)
    returns = returns + jnp.where(open_, weight * rewards[index], 0.0)
    last = open_ & (stops[index] | (k == n - 1))
    bootstrap = jnp.where(last, weight * discounts[index], bootstrap)
    observations = jnp.where(
        last.reshape(last.shape + (1,) * (observations.ndim - 2)),
        next_observations[index], observations)
    weight = weight * discount * discounts[index]
    open_ = open_ & ~stops[index]
  return returns, bootstrap, observations
