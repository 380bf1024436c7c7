"""The compiled actor/learner loop: acting, stepping and learning in one jit.

For environments with a pure-JAX core, the whole cycle is one XLA program
(the "Anakin" pattern of Podracer, Hessel et al. 2021). One update is:

  1. act with `agent.act` in `num_envs` environments at once (`vmap`),
     stepping the core under `lax.scan` (fixed-length unrolls, finished
     episodes reset in place) or `lax.while_loop` (whole episodes);
  2. `agent.update` on the resulting `Trajectory`.

`K` updates run as one `lax.scan` per host call (a chunk), and S lanes
(seeds; in a sweep, trials × seeds, each lane building its agent from its
own `Hyperparams`) run side by side under `vmap`. The agent, network and
environment are the very definitions the Python `dm_env` loop uses.

The loop draws the same random numbers as the Python loop: episode `e`
resets with `fold_in(env_key, e)` (as `DmEnvironment` does) and its step `t`
acts with `actor.step_key(actor_key, e, t)`. Environment `i` of `N` plays
episodes `i, N + i, 2N + i, …`, so with `num_envs=1` the compiled loop
replays the Python loop's experience exactly.

Data layout per update, for an agent wanting `B` sequences:
  * unroll agents (`unroll_length=T`): each environment contributes `B/N`
    consecutive unrolls of `T` steps, cut across episode boundaries as
    `batchers.SequenceBatcher` cuts them;
  * episode agents (`unroll_length=None`): each environment plays `B/N`
    whole episodes, padded as `batchers.EpisodeBatcher` pads them (to the
    power of two above the longest one; `lax.switch` picks the padded
    length, so short episodes do not pay for the longest possible one).
"""

import dataclasses
from typing import Any, Callable, Dict, NamedTuple, Optional, Tuple

import jax
import jax.numpy as jnp

from agents import agent as agent_lib
from environments import functional
from experiments.loops import actor as actor_lib
from experiments.loops import batchers
from experiments.loops import lane_map
from experiments.loops import wide_counters

Stats = Dict[str, jax.Array]
# Per-lane agent-config values of a sweep (`[S]` arrays outside `vmap`,
# scalars inside); empty for a run of one configuration.
Hyperparams = Dict[str, jax.Array]


class EnvSlots(NamedTuple):
  """The `N` environments of one seed, between steps (leading dim `N`)."""
  states: Any  # The cores' states.
  observations: jax.Array  # Observations to act on next.
  episode_ids: jax.Array  # int32, global index of the current episode.
  episode_steps: jax.Array  # int32, steps taken in the current episode.
  episodes_started: jax.Array  # int32, episodes begun by this environment.
  returns: jax.Array  # float32, return of the current episode so far.


class Counters(NamedTuple):
  """Totals of one seed, each a two-word counter (`wide_counters`)."""
  env_steps: jax.Array
  episodes: jax.Array
  updates: jax.Array


class LoopState(NamedTuple):
  """Everything one seed's training carries from update to update."""
  learner: Any
  envs: EnvSlots
  actor_key: jax.Array
  env_key: jax.Array
  counters: Counters


def _where(condition: jax.Array, x: Any, y: Any) -> Any:
  """`jnp.where` over pytrees, broadcasting `condition` [N] from the left."""

  def select(a, b):
    c = condition.reshape(condition.shape + (1,) * (a.ndim - condition.ndim))
    return jnp.where(c, a, b)

  return jax.tree.map(select, x, y)


def _swap_leading(tree: Any, batch: int) -> Any:
  """`[k, T, N, ...]` leaves to `[T, k·N, ...]` (sequence j·N + i)."""

  def swap(x):
    x = jnp.moveaxis(x, 0, 1)
    return x.reshape((x.shape[0], batch) + x.shape[3:])

  return jax.tree.map(swap, tree)


@dataclasses.dataclass(frozen=True)
class CompiledLoop:
  """Pure functions of the compiled loop for one agent and one core.

  Attributes:
    agent: the agent (the same object the Python loop uses).
    core: the functional environment.
    num_envs: environments per seed (N); must divide `agent.data.batch_size`.
    lane_agent: builds the agent of one sweep lane from its `Hyperparams`
      (traced); None: no sweep. Lanes share `agent`'s shapes.
  """
  agent: agent_lib.Agent
  core: functional.FunctionalEnvironment
  num_envs: int
  lane_agent: Optional[Callable[[Hyperparams], agent_lib.Agent]] = None

  def __post_init__(self):
    batch = self.agent.data.batch_size
    if self.num_envs < 1 or batch % self.num_envs:
      raise ValueError(
          f'num_envs ({self.num_envs}) must divide the agent\'s batch of '
          f'{batch} sequences per update; choose a divisor of {batch} or '
          f'change the agent\'s batch_size.')

  def agent_for(self, hyperparams: Optional[Hyperparams]) -> agent_lib.Agent:
    """The agent of a lane with `hyperparams` (the plain agent if none)."""
    return self.lane_agent(hyperparams) if hyperparams else self.agent

  @property
  def episodic(self) -> bool:
    """True if the agent learns from whole episodes."""
    return self.agent.data.unroll_length is None

  @property
  def rounds(self) -> int:
    """Unrolls (or episodes) each environment contributes per update."""
    return self.agent.data.batch_size // self.num_envs

  @property
  def buckets(self) -> Tuple[int, ...]:
    """Padded episode lengths an episodic update may use."""
    longest = batchers.padded_length(self.core.max_episode_steps)
    sizes, size = [], batchers.padded_length(1)
    while size < longest:
      sizes.append(size)
      size *= 2
    return tuple(sizes) + (longest,)

  def steps_per_update(self) -> int:
    """Environment steps per update (unroll agents; episodic: an upper bound)."""
    length = self.agent.data.unroll_length or self.core.max_episode_steps
    return self.agent.data.batch_size * length

  # Initial state.

  def init(self, key: jax.Array, env_key: jax.Array) -> LoopState:
    """One seed's state: `key` seeds learner and actor, `env_key` the games.

    `key` is split as the Python loop splits it; `env_key` is
    `PRNGKey(seed)` of the training environment's seed.
    """
    learner_key, actor_key = jax.random.split(key)
    ids = jnp.arange(self.num_envs, dtype=jnp.int32)
    states, timesteps = jax.vmap(self.core.reset)(self._reset_keys(env_key,
                                                                   ids))
    zeros = jnp.zeros(self.num_envs, jnp.int32)
    # Unroll agents start every environment's first episode now; episodic
    # rounds reset at their start, so the slots only fix shapes.
    started = zeros if self.episodic else zeros + 1
    envs = EnvSlots(states, timesteps.observation, ids, zeros, started,
                    jnp.zeros(self.num_envs, jnp.float32))
    return LoopState(self.agent.init(learner_key), envs, actor_key, env_key,
                     Counters(wide_counters.zero(), wide_counters.zero(), wide_counters.zero()))

  # Acting and stepping.

  def _reset_keys(self, env_key: jax.Array, ids: jax.Array) -> jax.Array:
    return jax.vmap(jax.random.fold_in, (None, 0))(env_key, ids)

  def _act(self, agent, params, keys, observations):
    """One action per environment, each with its own key."""
    actions, extras = jax.vmap(
        lambda key, obs: agent.act(params, key, obs[None]))(keys,
                                                            observations)
    return actions[:, 0], jax.tree.map(lambda x: x[:, 0], extras)

  # Unroll agents: fixed-length unrolls with resets in place.

  def _unroll_step(self, agent, params, actor_key, env_key, envs: EnvSlots):
    keys = jax.vmap(actor_lib.step_key, (None, 0, 0))(
        actor_key, envs.episode_ids, envs.episode_steps)
    actions, extras = self._act(agent, params, keys, envs.observations)
    states, timesteps = jax.vmap(self.core.step)(envs.states, actions)
    last = timesteps.step_type == functional.LAST
    returns = envs.returns + timesteps.reward
    # The next episode of environment i is number started·N + i.
    next_ids = envs.episodes_started * self.num_envs + jnp.arange(
        self.num_envs, dtype=jnp.int32)
    reset_states, reset_steps = jax.vmap(self.core.reset)(
        self._reset_keys(env_key, next_ids))
    new_envs = EnvSlots(
        states=_where(last, reset_states, states),
        observations=_where(last, reset_steps.observation,
                            timesteps.observation),
        episode_ids=jnp.where(last, next_ids, envs.episode_ids),
        episode_steps=jnp.where(last, 0, envs.episode_steps + 1),
        episodes_started=envs.episodes_started + last.astype(jnp.int32),
        returns=jnp.where(last, 0.0, returns))
    step = dict(observations=envs.observations, actions=actions,
                rewards=timesteps.reward, discounts=timesteps.discount,
                last=last, next_observations=timesteps.observation,
                extras=extras)
    stats = dict(episodes=last.sum(dtype=jnp.int32),
                 return_sum=jnp.where(last, returns, 0.0).sum(),
                 length_sum=jnp.where(last, envs.episode_steps + 1, 0).sum())
    return new_envs, (step, stats)

  def _collect_unrolls(self, state: LoopState, agent, params):
    length = self.agent.data.unroll_length
    envs, (steps, stats) = jax.lax.scan(
        lambda envs, _: self._unroll_step(agent, params, state.actor_key,
                                          state.env_key, envs),
        state.envs, None, length=self.rounds * length)
    # [k·T, N, ...] -> [k, T, N, ...] -> [T, k·N, ...].
    split = jax.tree.map(
        lambda x: x.reshape((self.rounds, length) + x.shape[1:]), steps)
    batch = self.agent.data.batch_size
    final = split['next_observations'][:, -1]  # [k, N, ...]
    trajectory = agent_lib.Trajectory(
        observations=_swap_leading(split['observations'], batch),
        actions=_swap_leading(split['actions'], batch),
        rewards=_swap_leading(split['rewards'], batch),
        discounts=_swap_leading(split['discounts'], batch),
        last=_swap_leading(split['last'], batch),
        mask=jnp.ones((length, batch), jnp.float32),
        final_observations=final.reshape((batch,) + final.shape[2:]),
        extras=_swap_leading(split['extras'], batch))
    stats = jax.tree.map(jnp.sum, stats)
    stats['env_steps'] = jnp.asarray(length * batch, jnp.int32)
    stats['longest'] = jnp.asarray(length, jnp.int32)
    return state._replace(envs=envs), trajectory, stats

  # Episode agents: whole episodes, all environments in step.

  def _play_episodes(self, agent, params, actor_key, env_key,
                     envs: EnvSlots):
    """One episode per environment, from reset until all have ended."""
    n, padded = self.num_envs, self.buckets[-1]
    limit = self.core.max_episode_steps
    ids = envs.episodes_started * n + jnp.arange(n, dtype=jnp.int32)
    states, first = jax.vmap(self.core.reset)(self._reset_keys(env_key, ids))
    # actor.step_key(actor_key, id, t), with the per-episode half hoisted.
    episode_keys = jax.vmap(jax.random.fold_in, (None, 0))(actor_key, ids)
    probe_actions, probe_extras = jax.eval_shape(
        lambda: self._act(agent, params, episode_keys, first.observation))
    rows = dict(observations=first.observation,
                actions=jnp.zeros(probe_actions.shape, jnp.int32),
                rewards=jnp.zeros(n, jnp.float32),
                discounts=jnp.zeros(n, jnp.float32),
                last=jnp.zeros(n, bool), mask=jnp.zeros(n, jnp.float32),
                extras=jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype),
                                    probe_extras))
    buffers = jax.tree.map(
        lambda x: jnp.zeros((padded,) + x.shape, x.dtype), rows)

    def body(carry):
      t, states, observations, done, final, returns, buffers = carry
      live = ~done
      keys = jax.vmap(jax.random.fold_in, (0, None))(episode_keys, t)
      actions, extras = self._act(agent, params, keys, observations)
      new_states, timesteps = jax.vmap(self.core.step)(states, actions)
      ends = timesteps.step_type == functional.LAST
      row = dict(observations=observations, actions=actions,
                 rewards=timesteps.reward, discounts=timesteps.discount,
                 last=ends, mask=jnp.ones(n, jnp.float32), extras=extras)
      row = _where(live, row, jax.tree.map(jnp.zeros_like, row))
      buffers = jax.tree.map(
          lambda b, r: jax.lax.dynamic_update_index_in_dim(b, r, t, 0),
          buffers, row)
      states = _where(live, new_states, states)
      final = _where(live, timesteps.observation, final)
      returns = returns + jnp.where(live, timesteps.reward, 0.0)
      return (t + 1, states, timesteps.observation, done | ends, final,
              returns, buffers)

    carry = (jnp.zeros((), jnp.int32), states, first.observation,
             jnp.zeros(n, bool), first.observation, jnp.zeros(n, jnp.float32),
             buffers)
    _, _, _, _, final, returns, buffers = jax.lax.while_loop(
        lambda c: (c[0] < limit) & ~jnp.all(c[3]), body, carry)
    lengths = buffers['mask'].sum(0).astype(jnp.int32)
    envs = envs._replace(episodes_started=envs.episodes_started + 1)
    return envs, (buffers, final, returns, lengths)

  def _collect_episodes(self, state: LoopState, agent, params):
    envs, (buffers, final, returns, lengths) = jax.lax.scan(
        lambda envs, _: self._play_episodes(agent, params, state.actor_key,
                                            state.env_key, envs),
        state.envs, None, length=self.rounds)
    batch = self.agent.data.batch_size
    flat = lambda x: x.reshape((batch,) + x.shape[2:])  # [k, N] -> [k·N].
    trajectory = agent_lib.Trajectory(
        final_observations=flat(final),
        **{k: _swap_leading(v, batch) for k, v in buffers.items()})
    stats = dict(episodes=jnp.asarray(batch, jnp.int32),
                 return_sum=returns.sum(), length_sum=lengths.sum(),
                 env_steps=lengths.sum(), longest=lengths.max())
    return state._replace(envs=envs), trajectory, stats

  # Learning.

  def collect(self, state: LoopState,
              hyperparams: Optional[Hyperparams] = None):
    """One seed's experience for one update: `(state, trajectory, stats)`."""
    agent = self.agent_for(hyperparams)
    params = agent.actor_params(state.learner)
    if self.episodic:
      return self._collect_episodes(state, agent, params)
    return self._collect_unrolls(state, agent, params)

  def update(self, states: LoopState,
             hyperparams: Optional[Hyperparams] = None
            ) -> Tuple[LoopState, Stats]:
    """One update of every seed in `states` (leading dim S), each lane
    with its `hyperparams` (`[S]` arrays), if any."""
    hyperparams = hyperparams or {}
    states, trajectories, stats = lane_map.map_lanes(self.collect)(
        states, hyperparams)
    learn_lanes = lane_map.map_lanes(
        lambda learner, trajectory, values: self.agent_for(values).update(
            learner, trajectory))
    learn = lambda learner, trajectory: learn_lanes(learner, trajectory,
                                                    hyperparams)
    if self.episodic:
      # Pad to the smallest bucket that holds the longest episode of all
      # seeds here, as EpisodeBatcher does; only that branch runs.
      buckets = self.buckets
      index = jnp.searchsorted(jnp.asarray(buckets), stats['longest'].max())

      def branch(size):
        return lambda learner, trajectory: learn(learner, trajectory._replace(
            **{k: getattr(trajectory, k)[:, :size]
               for k in ('observations', 'actions', 'rewards', 'discounts',
                         'last', 'mask')},
            extras=jax.tree.map(lambda x: x[:, :size], trajectory.extras)))

      learner, metrics = jax.lax.switch(
          index, [branch(size) for size in buckets], states.learner,
          trajectories)
    else:
      learner, metrics = learn(states.learner, trajectories)
    counters = states.counters
    counters = Counters(
        env_steps=wide_counters.add(counters.env_steps, stats['env_steps']),
        episodes=wide_counters.add(counters.episodes, stats['episodes']),
        updates=wide_counters.add(counters.updates, jnp.ones_like(stats['episodes'])))
    stats = dict(stats, **{f'learner/{k}': jnp.asarray(v, jnp.float32)
                           for k, v in metrics.items()})
    return states._replace(learner=learner, counters=counters), stats

  def run_chunk(self, states: LoopState, num_updates: jax.Array,
                max_updates: int,
                hyperparams: Optional[Hyperparams] = None
               ) -> Tuple[LoopState, Stats]:
    """`num_updates` (<= `max_updates`) updates; per-seed totals and means.

    A `lax.scan` of `max_updates` steps whose steps past `num_updates` do
    nothing (`lax.cond`), so one compiled program serves chunks of any
    length up to `max_updates` (the last chunk of a budget is often
    shorter) and XLA still sees a loop of known length. Returns
    the new states and, per seed, summed episode statistics and learner
    metrics averaged over the chunk's updates.
    """
    _, probe = jax.eval_shape(self.update, states, hyperparams)
    sums = jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), probe)
    del sums['longest']

    def step(carry, index):
      states, sums = carry

      def run(states, sums):
        states, stats = self.update(states, hyperparams)
        return states, {k: sums[k] + stats[k] for k in sums}

      return jax.lax.cond(index < num_updates, run, lambda *c: c, states,
                          sums), None

    (states, sums), _ = jax.lax.scan(step, (states, sums),
                                     jnp.arange(max_updates))
    count = jnp.maximum(jnp.minimum(num_updates, max_updates),
                        1).astype(jnp.float32)
    return states, {k: v / count if k.startswith('learner/') else v
                    for k, v in sums.items()}
