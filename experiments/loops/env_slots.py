"""The environments of one seed in the compiled loop, between steps.

Both ways of collecting experience (`compiled_loop`'s fixed-length unrolls
and `episode_collection`'s whole episodes) keep every environment running:
one that ends an episode resets in place, as episode `started · N + i` of
environment `i` of `N`. On a device holding environments `i0 … i0 + n - 1`
of one seed split over several (`agents.data_parallel`), `i` is the global
index, so every episode draws the random numbers it draws on one device.

Resets cost more than steps in many games (a Craftax world is generated in
about 70 steps' time, a Jumanji maze in 85), and a batch of them costs more
than its parts once it outgrows the caches (a Craftax reset takes 14 ms in
a batch of 256, 1.0 ms in one of 16). So a step resets only the environments that ended, in
batches of `RESET_BATCH` (each with its own episode's key, as before): with
N = 1,024 environments and a few endings per step, one batch of 16 rather
than 1,024 resets.
"""

from typing import Any, NamedTuple, Tuple

import jax
import jax.numpy as jnp

from agents import agent as agent_lib
from agents import data_parallel
from agents import lanes
from environments import functional
from experiments.loops import actor as actor_lib


# Resets computed together (`step`): the fastest batch of Craftax's
# world generation on a 2-core CPU (1.0 ms a reset; 2.2 ms one at a time,
# 1.9 ms 64 at a time).
RESET_BATCH = 16


class EnvSlots(NamedTuple):
  """The `n` environments of one seed on this device (leading dim `n`)."""
  states: Any  # The cores' states.
  observations: jax.Array  # Observations to act on next.
  episode_ids: jax.Array  # int32, global index of the current episode.
  episode_steps: jax.Array  # int32, steps taken in the current episode.
  episodes_started: jax.Array  # int32, episodes begun by this environment.
  returns: jax.Array  # float32, return of the current episode so far.
  # A recurrent agent's state (`Agent.recurrence`), carried from step to
  # step (an episode's first step resets it); () for a feed-forward agent.
  core_states: Any = ()



def where(condition: jax.Array, x: Any, y: Any) -> Any:
  """`jnp.where` over pytrees, broadcasting `condition` [n] from the left."""

  def select(a, b):
    c = condition.reshape(condition.shape + (1,) * (a.ndim - condition.ndim))
    return jnp.where(c, a, b)

  return jax.tree.map(select, x, y)


def global_indices(n: int) -> jax.Array:
  """int32 `[n]` global indices of this device's `n` environments."""
  return data_parallel.axis_index() * n + jnp.arange(n, dtype=jnp.int32)


def reset_keys(env_key: jax.Array, episode_ids: jax.Array) -> jax.Array:
  """The reset key of each episode: `fold_in(env_key, id)`, as
  `DmEnvironment` resets its episode `id`."""
  return jax.vmap(jax.random.fold_in, (None, 0))(env_key, episode_ids)


def start(core: functional.FunctionalEnvironment, env_key: jax.Array,
          num_envs: int, agent: Any = None) -> EnvSlots:
  """All `num_envs` environments of a seed, each in its first episode
  (with `agent`'s initial recurrent state, if it has one)."""
  ids = jnp.arange(num_envs, dtype=jnp.int32)
  states, timesteps = jax.vmap(core.reset)(reset_keys(env_key, ids))
  zeros = jnp.zeros(num_envs, jnp.int32)
  core_states = () if agent is None else agent_lib.initial_state(agent,
                                                                 num_envs)
  return EnvSlots(states, timesteps.observation, ids, zeros, zeros + 1,
                  jnp.zeros(num_envs, jnp.float32), core_states)


def act(agent, params, keys: jax.Array, observations: jax.Array,
        first: Any = None, core_states: Any = (), model_states: Any = None):
  """One action per environment, each with its own key (and state):
  `(actions, extras, core_states)`. A planning agent searches from the
  environments' `model_states` (`Agent.planning`)."""
  if agent.planning is not None:
    if model_states is None:
      raise ValueError('A planning agent acts from the environments\' '
                       'states: pass model_states.')
    # One batched search, each environment with its own key.
    actions, extras = agent.planning.act(params, keys, observations,
                                         model_states)
    return actions, extras, core_states
  if first is None:
    first = jnp.zeros(observations.shape[0], bool)
  batch = lambda tree: jax.tree.map(lambda x: x[None], tree)

  def one(key, obs, is_first, state):
    actions, extras, state = agent_lib.act_with_state(
        agent, params, key, obs[None], is_first[None], batch(state))
    return (actions[0], jax.tree.map(lambda x: x[0], extras),
            jax.tree.map(lambda x: x[0], state))

  return jax.vmap(one)(keys, observations, first, core_states)


def _reset_ended(core: functional.FunctionalEnvironment, env_key: jax.Array,
                 last: jax.Array, next_ids: jax.Array, states: Any,
                 observations: jax.Array) -> Tuple[Any, jax.Array]:
  """The states and observations with every `last` slot reset into
  episode `next_ids[slot]`. Up to `RESET_BATCH` slots, all are reset at
  once and the ended ones kept; more, the ended slots are reset
  `RESET_BATCH` at a time (as many batches as the lanes need)."""
  n = last.shape[0]
  if n <= RESET_BATCH:
    reset_states, reset_steps = jax.vmap(core.reset)(
        reset_keys(env_key, next_ids))
    return (where(last, reset_states, states),
            where(last, reset_steps.observation, observations))
  # The ended slots first, then n (a slot that does not exist: dropped).
  (ended,) = jnp.nonzero(last, size=n + RESET_BATCH, fill_value=n)
  batches = (jnp.sum(last, dtype=jnp.int32) + RESET_BATCH - 1) // RESET_BATCH

  def reset_batch(carry):
    i, states, observations = carry
    slots = jax.lax.dynamic_slice(ended, (i * RESET_BATCH,), (RESET_BATCH,))
    ids = next_ids[jnp.minimum(slots, n - 1)]
    reset_states, reset_steps = jax.vmap(core.reset)(reset_keys(env_key, ids))
    put = lambda x, y: x.at[slots].set(y, mode='drop')
    return (i + 1, jax.tree.map(put, states, reset_states),
            put(observations, reset_steps.observation))

  _, states, observations = jax.lax.while_loop(
      lambda carry: lanes.any_lane(carry[0] < batches), reset_batch,
      (jnp.int32(0), states, observations))
  return states, observations


def step(core: functional.FunctionalEnvironment, agent, params,
         actor_key: jax.Array, env_key: jax.Array, envs: EnvSlots,
         num_envs: int, live: jax.Array) -> Tuple[EnvSlots, dict]:
  """One step of the `live` environments (the others keep their slots);
  one that ends its episode resets in place into its next one.

  Returns the new slots and the step: what was observed, done and
  received (`observations`, `actions`, `rewards`, `discounts`, `last`,
  `next_observations`, `extras`), and each environment's `return` and
  `length` of the episode the step belongs to (final where `last`).
  """
  n = envs.observations.shape[0]
  keys = jax.vmap(actor_lib.step_key, (None, 0, 0))(
      actor_key, envs.episode_ids, envs.episode_steps)
  actions, extras, core_states = act(agent, params, keys, envs.observations,
                                     envs.episode_steps == 0,
                                     envs.core_states, envs.states)
  states, timesteps = jax.vmap(core.step)(envs.states, actions)
  last = timesteps.step_type == functional.LAST
  returns = envs.returns + timesteps.reward
  next_ids = envs.episodes_started * num_envs + global_indices(n)

  # Most steps end no episode: skip the resets then (the same slots). The
  # predicate is one for all lanes, else every lane would reset every slot.
  next_states, next_observations = jax.lax.cond(
      lanes.any_lane(jnp.any(last)),
      lambda _: _reset_ended(core, env_key, last, next_ids, states,
                             timesteps.observation),
      lambda _: (states, timesteps.observation), None)
  stepped = EnvSlots(
      states=next_states, observations=next_observations,
      episode_ids=jnp.where(last, next_ids, envs.episode_ids),
      episode_steps=jnp.where(last, 0, envs.episode_steps + 1),
      episodes_started=envs.episodes_started + last.astype(jnp.int32),
      returns=jnp.where(last, 0.0, returns), core_states=core_states)
  record = dict(observations=envs.observations, actions=actions,
                rewards=timesteps.reward, discounts=timesteps.discount,
                last=last, next_observations=timesteps.observation,
                extras=extras, returns=returns,
                lengths=envs.episode_steps + 1)
  return where(live, stepped, envs), record
