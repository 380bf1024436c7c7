"""Whole episodes for episode agents (REINFORCE), every environment busy.

An update wants `B` whole episodes from `N` environments: `k = B / N` from
each. Environment `i` plays its episodes back to back, `i, N + i, 2N + i,
…` (ordinal `j` of environment `i` is episode `j·N + i`, reset and acted
with that episode's keys, as everywhere in the framework), and its
ordinals `u·k … u·k + k - 1` make up its rows `i·k … i·k + k - 1` of
update `u`'s batch. Collection for update `u` runs until every environment
has ended its episodes of batch `u`; meanwhile an environment that is done
with them goes on into its episodes of batch `u + 1` (at most those: one
batch ahead), whose steps are kept for the next update. So no environment
waits for the longest episode of a round, and many seeds in one program no
longer wait for the longest episode of them all.

What this changes against playing each update's episodes afresh: every
episode still draws the random numbers it always did (its reset and action
keys depend only on its episode index), and the batch is still the next
`k` episodes of each environment, whatever their lengths (no bias towards
short episodes). But an episode of batch `u + 1` begun during collection
`u` plays its first steps with the parameters before update `u`: at most
one update stale. With one environment per seed nothing is begun early
(an environment's last episode of a batch ends the collection), so the
Python loop's experience is replayed exactly.

Rows are padded to the power of two above the longest possible episode;
the update pads to the smallest bucket holding its batch's longest episode
(`compiled_loop`).
"""

from typing import Any, Dict, NamedTuple, Tuple

import jax
import jax.numpy as jnp

from agents import agent as agent_lib
from agents import data_parallel
from agents import lanes
from environments import functional
from experiments.loops import env_slots

# The `Trajectory` fields kept per step, batch-major `[rows, L, ...]`.
_STEP_FIELDS = ('observations', 'actions', 'rewards', 'discounts', 'last',
                'mask')


class PendingBatch(NamedTuple):
  """The next update's episodes begun early, and where that batch starts.

  Leading dim: this device's rows of the batch (`n·k`, environment-major),
  so that the whole tree splits over devices as the environments do.
  """
  steps: Dict[str, Any]  # `_STEP_FIELDS` and `extras`, each `[n·k, L, ...]`.
  final_observations: jax.Array  # `[n·k, *obs]`, after each episode's end.
  batch_start: jax.Array  # int32 `[n·k]`, ordinal u·k of every environment.


def empty_pending(rows: int, padded_length: int, observation: jax.Array,
                  action: Any, extras: Any) -> PendingBatch:
  """A batch of `rows` rows with nothing in it (mask 0 everywhere).

  `observation`, `action` and `extras` give one step's shapes and dtypes
  (`jax.ShapeDtypeStruct`s or arrays, without an environment axis).
  """

  def zeros(x, leading=(rows, padded_length)):
    return jnp.zeros(leading + tuple(x.shape), x.dtype)

  scalar = jax.ShapeDtypeStruct((), jnp.float32)
  steps = dict(observations=zeros(observation), actions=zeros(action),
               rewards=zeros(scalar), discounts=zeros(scalar),
               last=jnp.zeros((rows, padded_length), bool),
               mask=zeros(scalar), extras=jax.tree.map(zeros, extras))
  return PendingBatch(steps, zeros(observation, (rows,)),
                      jnp.zeros(rows, jnp.int32))


def collect(core: functional.FunctionalEnvironment, agent, params,
            actor_key: jax.Array, env_key: jax.Array,
            envs: env_slots.EnvSlots, pending: PendingBatch, num_envs: int,
            rows_per_env: int
           ) -> Tuple[env_slots.EnvSlots, PendingBatch,
                      agent_lib.Trajectory, Dict[str, jax.Array]]:
  """Plays until this update's batch is complete (see the module doc).

  Args:
    core, agent, params, actor_key, env_key: what acts, in what, with what.
    envs: this device's `n` environments of the seed.
    pending: the batch begun by the previous collection.
    num_envs: N, the seed's environments on all devices.
    rows_per_env: k, episodes per environment per update.

  Returns:
    `(envs, pending, trajectory, stats)`: the trajectory `[L, n·k]`
    (time-major, environment-major rows), the next batch begun early, and
    this device's `episodes`, `return_sum`, `length_sum`, `env_steps` and
    `longest` episode (before any reduction over devices).
  """
  n, k = envs.observations.shape[0], rows_per_env
  rows = n * k
  start = pending.batch_start[::k]  # [n]: u·k, the same for all.
  # Two batches side by side: this update's rows, then the next one's.
  fresh = jax.tree.map(jnp.zeros_like, pending)
  both = jax.tree.map(lambda a, b: jnp.concatenate([a, b]), pending, fresh)
  env_rows = jnp.arange(n, dtype=jnp.int32) * k

  def ordinal(envs):  # Of each environment's current episode.
    return envs.episodes_started - 1

  def unfinished(envs):  # This seed's batch, on all its devices.
    mine = jnp.any(ordinal(envs) < start + k)
    return data_parallel.maximum(mine.astype(jnp.int32)) > 0

  def body(carry):
    envs, both, env_steps = carry
    j = ordinal(envs)
    # This batch's episodes or the next one's, until this seed's batch is
    # complete (other lanes may still be playing theirs).
    live = (j < start + 2 * k) & unfinished(envs)
    slot = env_rows + j % k + jnp.where(j < start + k, 0, rows)
    slot = jnp.where(live, slot, 2 * rows)  # Out of bounds: dropped.
    t = envs.episode_steps
    envs, record = env_slots.step(core, agent, params, actor_key, env_key,
                                  envs, num_envs, live)
    record = dict(record, mask=jnp.ones(n, jnp.float32))
    steps = both.steps
    steps = dict(
        {name: steps[name].at[slot, t].set(record[name], mode='drop')
         for name in _STEP_FIELDS},
        extras=jax.tree.map(
            lambda b, r: b.at[slot, t].set(r, mode='drop'), steps['extras'],
            record['extras']))
    ended = jnp.where(record['last'], slot, 2 * rows)
    final = both.final_observations.at[ended].set(
        record['next_observations'], mode='drop')
    both = both._replace(steps=steps, final_observations=final)
    return envs, both, env_steps + live.sum(dtype=jnp.int32)

  # One trip count for all lanes: no per-lane select of the buffers.
  envs, both, env_steps = jax.lax.while_loop(
      lambda carry: lanes.any_lane(unfinished(carry[0])), body,
      (envs, both, jnp.zeros((), jnp.int32)))
  batch = jax.tree.map(lambda x: x[:rows], both)
  following = jax.tree.map(lambda x: x[rows:], both)
  following = following._replace(batch_start=pending.batch_start + k)
  time_major = lambda x: jnp.swapaxes(x, 0, 1)
  trajectory = agent_lib.Trajectory(
      final_observations=batch.final_observations,
      extras=jax.tree.map(time_major, batch.steps['extras']),
      **{name: time_major(batch.steps[name]) for name in _STEP_FIELDS})
  lengths = batch.steps['mask'].sum(axis=1)
  stats = dict(episodes=jnp.asarray(rows, jnp.int32),
               return_sum=(batch.steps['rewards'] *
                           batch.steps['mask']).sum(),
               length_sum=lengths.sum().astype(jnp.int32),
               env_steps=env_steps,
               longest=lengths.max().astype(jnp.int32))
  return envs, following, trajectory, stats
