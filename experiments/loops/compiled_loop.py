"""The compiled actor/learner loop: acting, stepping and learning in one jit.

For environments with a pure-JAX core, the whole cycle is one XLA program
(the "Anakin" pattern of Podracer, Hessel et al. 2021). One update is:

  1. act with `agent.act` in `num_envs` environments at once (`vmap`),
     stepping the core under `lax.scan` (fixed-length unrolls) or
     `lax.while_loop` (whole episodes, `episode_collection`); finished
     episodes reset in place (`env_slots`);
  2. `agent.update` on the resulting `Trajectory`.

Many updates run as one `lax.while_loop` per host call (a chunk), their
statistics summed per log row inside it (`run_rows`), and S lanes
(seeds; in a sweep, trials × seeds, each lane building its agent from its
own `Hyperparams`) run side by side under `vmap`. The agent, network and
environment are the very definitions the Python `dm_env` loop uses.

The loop draws the same random numbers as the Python loop: episode `e`
resets with `fold_in(env_key, e)` (as `DmEnvironment` does) and its step `t`
acts with `actor.step_key(actor_key, e, t)`. Environment `i` of `N` plays
episodes `i, N + i, 2N + i, …`, so with `num_envs=1` the compiled loop
replays the Python loop's experience exactly.

Data layout per update, for an agent wanting `B` sequences, environment-
major (sequence `i·k + j` is environment i's j-th of `k = B/N`):
  * unroll agents (`unroll_length=T`): each environment contributes `k`
    consecutive unrolls of `T` steps, cut across episode boundaries as
    `batchers.SequenceBatcher` cuts them;
  * episode agents (`unroll_length=None`): each environment contributes its
    next `k` whole episodes (`episode_collection`: environments never wait
    for each other's episodes), padded as `batchers.EpisodeBatcher` pads
    them (to the power of two above the longest one; `lax.switch` picks
    the padded length, so short episodes do not pay for the longest
    possible one).

One seed can span D devices (`experiments.loops.device_mesh`): each holds
N/D of its environments (a contiguous block of the batch) and the agent
reduces over devices through `agents.data_parallel`.
"""

import dataclasses
from typing import Any, Callable, Dict, NamedTuple, Optional, Tuple

import jax
import jax.numpy as jnp

from agents import agent as agent_lib
from agents import data_parallel
from environments import functional
from experiments.loops import batchers
from experiments.loops import env_slots
from experiments.loops import episode_collection
from experiments.loops import lane_map
from experiments.loops import wide_counters

Stats = Dict[str, jax.Array]
# Per-lane agent-config values of a sweep (`[S]` arrays outside `vmap`,
# scalars inside); empty for a run of one configuration.
Hyperparams = Dict[str, jax.Array]


class Counters(NamedTuple):
  """Totals of one seed, each a two-word counter (`wide_counters`)."""
  env_steps: jax.Array
  episodes: jax.Array
  updates: jax.Array


class LoopState(NamedTuple):
  """Everything one seed's training carries from update to update.

  `envs` and `pending` have a leading environment (or batch-row) axis,
  split over the devices of the seed (`agents.data_parallel`); the rest is
  the same on each of them.
  """
  learner: Any
  envs: env_slots.EnvSlots
  pending: Any  # Episode agents: the next batch, begun. Else: empty.
  actor_key: jax.Array
  env_key: jax.Array
  counters: Counters


def _env_major(tree: Any) -> Any:
  """`[k, T, n, ...]` leaves to `[T, n·k, ...]`: sequence i·k + j is unroll
  j of environment i, so each device's environments hold a contiguous
  block of the seed's batch."""

  def swap(x):
    x = jnp.moveaxis(x, (0, 1, 2), (2, 0, 1))
    return x.reshape((x.shape[0], -1) + x.shape[3:])

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
    `PRNGKey(seed)` of the training environment's seed. Every environment
    starts its first episode (environment i: episode i).
    """
    learner_key, actor_key = jax.random.split(key)
    learner = self.agent.init(learner_key)
    envs = env_slots.start(self.core, env_key, self.num_envs, self.agent)
    pending = {}
    if self.episodic:
      actions, extras, _ = jax.eval_shape(
          lambda: env_slots.act(self.agent, self.agent.actor_params(learner),
                                jnp.zeros((self.num_envs, 2), jnp.uint32),
                                envs.observations, None, envs.core_states,
                                envs.states))
      one = lambda x: jax.ShapeDtypeStruct(x.shape[1:], x.dtype)
      pending = episode_collection.empty_pending(
          self.agent.data.batch_size, self.buckets[-1],
          one(envs.observations), one(actions), jax.tree.map(one, extras))
    return LoopState(learner, envs, pending, actor_key, env_key,
                     Counters(wide_counters.zero(), wide_counters.zero(),
                              wide_counters.zero()))

  # Unroll agents: fixed-length unrolls with resets in place.

  def _collect_unrolls(self, state: LoopState, agent, params):
    length = self.agent.data.unroll_length
    everyone = jnp.ones(state.envs.observations.shape[0], bool)
    envs, steps = jax.lax.scan(
        lambda envs, _: env_slots.step(self.core, agent, params,
                                       state.actor_key, state.env_key, envs,
                                       self.num_envs, everyone),
        state.envs, None, length=self.rounds * length)
    # [k·T, n, ...] -> [k, T, n, ...] -> [T, n·k, ...].
    split = jax.tree.map(
        lambda x: x.reshape((self.rounds, length) + x.shape[1:]), steps)
    final = jnp.swapaxes(split['next_observations'][:, -1], 0, 1)  # [n, k]
    trajectory = agent_lib.Trajectory(
        mask=jnp.ones(_env_major(split['rewards']).shape, jnp.float32),
        final_observations=final.reshape((-1,) + final.shape[2:]),
        **{name: _env_major(split[name]) for name in (
            'observations', 'actions', 'rewards', 'discounts', 'last',
            'extras', 'next_observations')})
    last = steps['last']
    stats = dict(episodes=last.sum(dtype=jnp.int32),
                 return_sum=jnp.where(last, steps['returns'], 0.0).sum(),
                 length_sum=jnp.where(last, steps['lengths'], 0).sum(),
                 env_steps=jnp.asarray(last.size, jnp.int32),
                 longest=jnp.asarray(length, jnp.int32))
    return state._replace(envs=envs), trajectory, stats

  # Learning.

  def collect(self, state: LoopState,
              hyperparams: Optional[Hyperparams] = None):
    """One seed's experience for one update: `(state, trajectory, stats)`.

    Split over devices, the trajectory is this device's share of the batch
    and `stats` are the seed's totals (`longest`: its longest episode)."""
    agent = self.agent_for(hyperparams)
    params = agent.actor_params(state.learner)
    if self.episodic:
      envs, pending, trajectory, stats = episode_collection.collect(
          self.core, agent, params, state.actor_key, state.env_key,
          state.envs, state.pending, self.num_envs, self.rounds)
      state = state._replace(envs=envs, pending=pending)
    else:
      state, trajectory, stats = self._collect_unrolls(state, agent, params)
    longest = data_parallel.maximum(stats.pop('longest'))
    return state, trajectory, dict(data_parallel.total(stats),
                                   longest=longest)

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

  def carried_stats(self, states: LoopState,
                    hyperparams: Optional[Hyperparams] = None) -> Stats:
    """Zero sums of every row statistic, per seed (`run_rows`' `carried`
    when no row is under way)."""
    _, probe = jax.eval_shape(self.update, states, hyperparams)
    del probe['longest']
    return jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), probe)

  def run_rows(self, states: LoopState, row_ends: jax.Array,
               carried: Stats, hyperparams: Optional[Hyperparams] = None
              ) -> Tuple[LoopState, Stats]:
    """`row_ends[-1]` updates, logged as rows; per-seed sums of each row.

    Row r holds updates `row_ends[r-1] .. row_ends[r]` (`row_ends`: `[R]`
    nondecreasing int32; rows past the last update are empty); the first
    row adds to `carried`, the sums of a row begun in an earlier call
    (`carried_stats` when none was). The updates run in one
    `lax.while_loop`, so one compiled program serves any number of updates
    and rows up to `R`, and the host fetches the rows of many log
    intervals at once. Returns the new states and, per seed and row
    (`[S, R]`), the sums of every episode statistic and learner metric
    (the host divides the metrics by the row's updates).
    """
    num_rows = row_ends.shape[0]
    sums = jax.tree.map(
        lambda c: jnp.zeros((num_rows,) + c.shape, c.dtype).at[0].set(c),
        carried)

    into_carry, out_of_carry = lane_map.loop_carry(states)

    def body(carry):
      index, carried_states, sums = carry
      states, stats = self.update(out_of_carry(carried_states), hyperparams)
      row = jnp.searchsorted(row_ends, index, side='right')
      return index + 1, into_carry(states), {
          k: sums[k].at[row].add(stats[k]) for k in sums}

    _, carried_states, sums = jax.lax.while_loop(
        lambda carry: carry[0] < row_ends[-1], body,
        (jnp.zeros((), row_ends.dtype), into_carry(states), sums))
    return (out_of_carry(carried_states),
            {k: jnp.moveaxis(v, 0, 1) for k, v in sums.items()})
