"""The compiled loop behind the `TrainingLoop` interface: S seeds at once.

Between chunks of updates the host fetches per-seed statistics (one small
transfer); the training itself never leaves the device. The chunk program
is compiled once (shorter chunks share it), and greedy evaluation once per
number of episodes. Seeds are sharded over the devices, and each seed's
environments over `devices_per_seed` of them (`device_mesh`).
"""

import functools
import time
from typing import Any, Callable, Dict, Optional, Sequence

import jax
import numpy as np

from agents import agent as agent_lib
from environments import functional
from environments import specs
from experiments.loops import compiled_loop
from experiments.loops import evaluation
from experiments.loops import interface
from experiments.loops import learner as learner_lib
from experiments.loops import device_mesh
from experiments.loops import seeding
from experiments.loops import wide_counters


# Environment steps of one host call, at most (about): long enough that the
# call's fixed cost stays small (PPO on gymnax CartPole: chunks of 32 updates
# train ~10% slower than one call for the whole run, chunks of 128 as fast;
# BENCHMARKS.md), short enough that checkpoints and stop signals are handled
# within about a second at the speeds measured there.
CHUNK_STEPS = 65_536


def default_updates_per_chunk(loop: compiled_loop.CompiledLoop,
                              log_every_episodes: int,
                              log_every_steps: int = 0,
                              target_steps: int = CHUNK_STEPS) -> int:
  """Updates per host call: one logging interval of work, cut into equal
  chunks of at most about `target_steps` steps (so no short leftover chunk
  sits before each log row). Intervals by steps count as `steps_per_update`
  does; episode agents logging by episodes: one interval; without
  either: about `target_steps` steps."""
  per_update = loop.steps_per_update()
  cap = max(1, target_steps // per_update)
  if log_every_steps:
    interval = -(-log_every_steps // per_update)
    return -(-interval // -(-interval // cap))
  if loop.episodic and log_every_episodes:
    return max(1, -(-log_every_episodes // loop.agent.data.batch_size))
  return cap


def _state_specs() -> compiled_loop.LoopState:
  """How each part of the seeds' states lies on the mesh: environments
  (and the episodes begun) split over the devices of a seed, the rest the
  same on each of them."""
  seed, batch = device_mesh.seed_spec(), device_mesh.batch_spec()
  return compiled_loop.LoopState(learner=seed, envs=batch, pending=batch,
                                 actor_key=seed, env_key=seed, counters=seed)


def _keys(values: Sequence[int]) -> np.ndarray:
  return np.stack([np.asarray(jax.random.PRNGKey(v)) for v in values])


class CompiledTraining:
  """Seeds `seeds` of one agent on one JAX core, in one XLA program."""

  def __init__(self, agent: agent_lib.Agent,
               environment_spec: specs.EnvironmentSpec,
               core: functional.FunctionalEnvironment, num_envs: int,
               seeds: Sequence[int], updates_per_chunk: Optional[int] = None,
               log_every_episodes: int = 250, log_every_steps: int = 0,
               hyperparams: Optional[Dict[str, Sequence[float]]] = None,
               lane_agent: Optional[Callable[..., agent_lib.Agent]] = None,
               devices_per_seed: int = 1):
    """Raises ValueError if `num_envs` does not divide the agent's batch,
    or `devices_per_seed` the environments or the devices there are
    (`device_mesh.check_devices_per_seed` checks the agent's own sizes).

    `updates_per_chunk` None: about one logging interval of work
    (`default_updates_per_chunk`). A sweep gives each lane
    (entry of `seeds`) its `hyperparams` values, and `lane_agent` builds a
    lane's agent from them (`compiled_loop.CompiledLoop`).
    """
    self._loop = compiled_loop.CompiledLoop(agent, core, num_envs,
                                            lane_agent)
    self._hyperparams = {k: np.asarray(v, np.float32)
                         for k, v in (hyperparams or {}).items()}
    self._agent = agent
    self._spec = environment_spec
    self._seeds = tuple(seeds)
    self._updates_per_chunk = (
        updates_per_chunk or default_updates_per_chunk(
            self._loop, log_every_episodes, log_every_steps))
    if num_envs % devices_per_seed:
      raise ValueError(f'devices_per_seed ({devices_per_seed}) must divide '
                       f'num_envs ({num_envs}).')
    self._mesh = device_mesh.device_mesh(len(self._seeds), devices_per_seed)
    self._maybe_states: Optional[compiled_loop.LoopState] = None
    self._host_params: Optional[agent_lib.Params] = None  # Of every seed.
    self._host_counters: Optional[interface.PerSeed] = None
    self._chunk = None
    self._evaluations: Dict[int, Any] = {}
    self._compile_seconds = 0.0
    self._max_abs = None

  @property
  def _states(self) -> compiled_loop.LoopState:
    """Every seed's state, initialised on first use (a loop built only to
    check settings never runs JAX)."""
    if self._maybe_states is None:
      env_keys = _keys([seeding.environment_seed(s, seeding.TRAIN, 0)
                        for s in self._seeds])
      init = jax.jit(jax.vmap(self._loop.init),
                     out_shardings=jax.tree.map(
                         lambda spec: jax.sharding.NamedSharding(self._mesh,
                                                                 spec),
                         _state_specs()))
      self._maybe_states = init(_keys(self._seeds), env_keys)
    return self._maybe_states

  @_states.setter
  def _states(self, states: compiled_loop.LoopState) -> None:
    self._maybe_states = states
    self._host_params = None
    self._host_counters = None

  @property
  def loop(self) -> compiled_loop.CompiledLoop:
    return self._loop

  @property
  def seeds(self) -> Sequence[int]:
    return self._seeds

  @property
  def num_envs(self) -> int:
    return self._loop.num_envs

  @property
  def compile_seconds(self) -> float:
    return self._compile_seconds

  @property
  def num_devices(self) -> int:
    return int(self._mesh.devices.size)

  @property
  def state(self) -> Optional[compiled_loop.LoopState]:
    """The states of every seed; None if a chunk interrupted mid-call has
    already donated them."""
    if any(x.is_deleted() for x in jax.tree.leaves(self._states)):
      return None
    return self._states

  @property
  def host_state(self) -> None:
    return None  # Everything lives in the device state.

  def restore(self, state: compiled_loop.LoopState,
              host_state: Any = None) -> None:
    del host_state
    self._states = state

  def counters(self) -> interface.PerSeed:
    if self._host_counters is None:  # One transfer per chunk.
      self._host_counters = {
          k: wide_counters.value(v) for k, v in device_mesh.to_host(
              self._states.counters._asdict()).items()}
    return dict(self._host_counters)

  def _lane_values(self) -> Dict[str, jax.Array]:
    """Each lane's sweep hyperparameters, on the lanes' devices."""
    return {k: device_mesh.put(v, self._mesh)
            for k, v in self._hyperparams.items()}

  def _counts(self, num_updates: int) -> jax.Array:
    return device_mesh.put(
        np.full(len(self._seeds), num_updates, np.int32), self._mesh)

  def compile(self) -> float:
    """Compiles the chunk program of `updates_per_chunk` updates."""
    if self._chunk is None:
      start = time.perf_counter()
      max_updates = self._updates_per_chunk
      seed = device_mesh.seed_spec()
      fn = device_mesh.map_seeds(
          lambda states, counts, values: self._loop.run_chunk(
              states, counts[0], max_updates, values),
          self._mesh, in_specs=(_state_specs(), seed, seed),
          out_specs=(_state_specs(), seed))
      self._chunk = jax.jit(fn, donate_argnums=0).lower(
          self._states, self._counts(1), self._lane_values()).compile()
      self._compile_seconds += time.perf_counter() - start
    return self._compile_seconds

  def updates_toward(self, targets: interface.Targets) -> int:
    """Updates for the next chunk: up to `updates_per_chunk`, fewer where
    they can be counted to reach a target of seed 0 (updates, and episodes
    of episode agents: exactly; steps of episode agents: without passing
    it, as each update takes at most `steps_per_update` steps)."""
    loop = self._loop
    counters = self.counters()
    needed = [self._updates_per_chunk]
    if targets.episodes is not None and loop.episodic:
      remaining = targets.episodes - int(counters['episodes'][0])
      needed.append(max(1, -(-remaining // loop.agent.data.batch_size)))
    if targets.env_steps is not None:
      remaining = targets.env_steps - int(counters['env_steps'][0])
      if loop.episodic:
        needed.append(max(1, remaining // loop.steps_per_update()))
      else:
        needed.append(max(1, -(-remaining // loop.steps_per_update())))
    if targets.updates is not None:
      needed.append(max(1, targets.updates - int(counters['updates'][0])))
    return min(needed)

  def advance(self, targets: interface.Targets,
              progress: Optional[interface.ProgressFn] = None
             ) -> interface.Rows:
    self.compile()
    num_updates = self.updates_toward(targets)
    start = time.perf_counter()
    self._states, stats = self._chunk(self._states,
                                      self._counts(num_updates),
                                      self._lane_values())
    stats = device_mesh.to_host(stats)
    seconds = time.perf_counter() - start
    rows = []
    for i in range(len(self._seeds)):
      episodes = int(stats['episodes'][i])
      row = {'steps_per_second': float(stats['env_steps'][i]) / seconds,
             'episodes_per_second': episodes / seconds}
      if episodes:
        row['episode_return'] = float(stats['return_sum'][i]) / episodes
        row['episode_length'] = float(stats['length_sum'][i]) / episodes
      for name, value in stats.items():
        if name.startswith('learner/'):
          row[name[len('learner/'):]] = float(value[i])
      rows.append(row)
    if progress is not None:
      progress(self.counters())
    return rows

  def evaluate(self, num_episodes: int) -> interface.PerSeed:
    """Greedy evaluation of every seed on its own evaluation episodes."""
    keys = _keys([seeding.environment_seed(s, seeding.EVAL)
                  for s in self._seeds])
    if num_episodes not in self._evaluations:  # Compiled once per size.
      start = time.perf_counter()
      evaluate_one = functools.partial(
          evaluation.evaluate_core, self._loop.core, self._agent, self._spec,
          num_episodes=num_episodes)
      self._evaluations[num_episodes] = jax.jit(
          lambda learner, keys: jax.vmap(evaluate_one)(
              jax.vmap(self._agent.actor_params)(learner), keys)).lower(
                  self._states.learner, keys).compile()
      self._compile_seconds += time.perf_counter() - start
    return {k: np.asarray(v) for k, v in device_mesh.to_host(
        self._evaluations[num_episodes](self._states.learner, keys)).items()}

  def max_abs_params(self) -> np.ndarray:
    if self._max_abs is None:
      self._max_abs = jax.jit(jax.vmap(
          lambda learner: learner_lib.max_abs(
              self._agent.actor_params(learner))))
    return np.asarray(device_mesh.to_host(
        self._max_abs(self._states.learner)))

  def actor_params(self, index: int) -> agent_lib.Params:
    """Host copy of seed `index`'s actor params. The first call after
    training fetches every seed's (a collective across processes in a
    multi-host run: every process must call it)."""
    if self._host_params is None:
      self._host_params = device_mesh.to_host(
          jax.vmap(self._agent.actor_params)(self._states.learner))
    return jax.tree.map(lambda x: x[index], self._host_params)

  def close(self) -> None:
    pass
