"""The compiled loop behind the `TrainingLoop` interface: S seeds at once.

The training never leaves the device: one host call runs as many log rows
as about a second of work allows (`row_plans`; the rows' statistics are
summed inside the program and fetched together, one small transfer),
stopping where the driver must act (an evaluation, a checkpoint, the
budget). The
program is compiled once for any number of updates and rows, and greedy
evaluation once per number of episodes. Seeds are sharded over the
devices, and each seed's environments over `devices_per_seed` of them
(`device_mesh`).
"""

import functools
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import jax
import numpy as np

from agents import agent as agent_lib
from environments import functional
from environments import specs
from environments import two_player
from experiments.loops import compiled_loop
from experiments.loops import evaluation
from experiments.loops import interface
from experiments.loops import learner as learner_lib
from experiments.loops import device_mesh
from experiments.loops import row_plans
from experiments.loops import seeding
from experiments.loops import wide_counters


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
               devices_per_seed: int = 1,
               eval_protocol: evaluation.Protocol = evaluation.GREEDY):
    """Raises ValueError if `num_envs` does not divide the agent's batch,
    or `devices_per_seed` the environments or the devices there are
    (`device_mesh.check_devices_per_seed` checks the agent's own sizes).

    `updates_per_chunk` None: about one logging interval of work
    (`row_plans.default_updates_per_chunk`). A sweep gives each lane
    (entry of `seeds`) its `hyperparams` values, and `lane_agent` builds a
    lane's agent from them (`compiled_loop.CompiledLoop`).
    """
    self._loop = compiled_loop.CompiledLoop(agent, core, num_envs,
                                            lane_agent)
    self._hyperparams = {k: np.asarray(v, np.float32)
                         for k, v in (hyperparams or {}).items()}
    self._agent = agent
    self._eval_protocol = eval_protocol
    self._spec = environment_spec
    self._seeds = tuple(seeds)
    self._updates_per_chunk = (
        updates_per_chunk or row_plans.default_updates_per_chunk(
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
    self._program_seconds = 0.0
    self._max_abs = None
    # Of the last call (None before the first): sizes the next call.
    self._seconds_per_update: Optional[float] = None
    self._row_stats = None  # Shapes of a row's sums (`_carried`).
    # The log row a call cut short (`host_state`): sums and updates so far.
    self._partial: Optional[Dict[str, np.ndarray]] = None
    self._partial_updates = 0

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
  def program_seconds(self) -> float:
    return self._program_seconds

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
  def host_state(self) -> Optional[Dict[str, Any]]:
    """The log row under way when a call ended before the row did (its
    sums so far, per seed, and its updates); None between rows."""
    if self._partial is None:
      return None
    return {'row_sums': dict(self._partial), 'row_updates':
            self._partial_updates}

  def restore(self, state: compiled_loop.LoopState,
              host_state: Any = None) -> None:
    self._states = state
    host_state = host_state or {}
    self._partial = host_state.get('row_sums')
    self._partial_updates = int(host_state.get('row_updates', 0))

  def counters(self) -> interface.PerSeed:
    if self._host_counters is None:  # Known after each call.
      self._host_counters = {
          k: wide_counters.value(v) for k, v in device_mesh.to_host(
              self._states.counters._asdict()).items()}
    return dict(self._host_counters)

  def _lane_values(self) -> Dict[str, jax.Array]:
    """Each lane's sweep hyperparameters, on the lanes' devices."""
    return {k: device_mesh.put(v, self._mesh)
            for k, v in self._hyperparams.items()}

  def _row_ends(self, ends: Sequence[int]) -> jax.Array:
    """Each seed's copy of the rows' cumulative update counts, padded to
    `row_plans.ROWS_PER_CALL` rows (the padding rows are empty)."""
    padding = row_plans.ROWS_PER_CALL - len(ends)
    padded = list(ends) + [ends[-1]] * padding
    return device_mesh.put(
        np.tile(np.asarray(padded, np.int32), (len(self._seeds), 1)),
        self._mesh)

  def _carried(self) -> Dict[str, jax.Array]:
    """The sums of the row under way, on the seeds' devices."""
    if self._row_stats is None:  # Shapes and dtypes, traced once.
      seed = device_mesh.seed_spec()
      self._row_stats = jax.eval_shape(device_mesh.map_seeds(
          self._loop.carried_stats, self._mesh,
          in_specs=(_state_specs(), seed), out_specs=seed),
                                       self._states, self._lane_values())
    return {k: device_mesh.put(
        np.zeros(v.shape, v.dtype) if self._partial is None
        else np.asarray(self._partial[k]), self._mesh)
            for k, v in self._row_stats.items()}

  def compile(self) -> float:
    """Compiles the training program (any number of updates and rows up
    to `row_plans.ROWS_PER_CALL`) and the divergence guard's."""
    if self._chunk is None:
      start = time.perf_counter()
      seed = device_mesh.seed_spec()
      fn = device_mesh.map_seeds(
          lambda states, ends, carried, values: self._loop.run_rows(
              states, ends[0], carried, values),
          self._mesh, in_specs=(_state_specs(), seed, seed, seed),
          out_specs=(_state_specs(), seed))
      self._chunk = jax.jit(fn, donate_argnums=0).lower(
          self._states, self._row_ends([1]), self._carried(),
          self._lane_values()).compile()
      self._compile_seconds += time.perf_counter() - start
      self._max_abs_program()
    return self._compile_seconds

  def _max_abs_program(self):
    """The divergence guard's program, compiled with the training one (a
    compile at its first use would count as training time)."""
    if self._max_abs is None:
      start = time.perf_counter()
      self._max_abs = jax.jit(jax.vmap(
          lambda learner: learner_lib.max_abs(
              self._agent.actor_params(learner)))).lower(
                  self._states.learner).compile()
      self._compile_seconds += time.perf_counter() - start
    return self._max_abs

  def _plan(self, schedule: interface.Schedule) -> Tuple[List[int], bool]:
    """The next call's rows (`row_plans.plan_call`)."""
    return row_plans.plan_call(
        self._loop, self._updates_per_chunk, schedule, self.counters(),
        self._seconds_per_update, self._partial_updates,
        planned_ahead=jax.process_count() == 1)

  def _execute(self, ends: Sequence[int],
               cut: bool = False) -> List[interface.LogRow]:
    """Runs the rows ending at cumulative updates `ends` (the last one
    `cut` short: kept for the next call, not returned)."""
    self.compile()
    before = self.counters()
    began = time.perf_counter()
    self._states, stats = self._chunk(self._states, self._row_ends(ends),
                                      self._carried(), self._lane_values())
    stats = device_mesh.to_host(stats)
    seconds = time.perf_counter() - began
    self._program_seconds += seconds
    self._seconds_per_update = seconds / ends[-1]
    updates = np.diff(ends, prepend=0)
    # The first row began where the row under way began, if any.
    start = {key: before[key] - (0 if self._partial is None else
                                 self._partial[key])
             for key in ('env_steps', 'episodes')}
    start['updates'] = before['updates'] - self._partial_updates
    updates[0] += self._partial_updates
    # This call's work: the sums less what the row under way carried in.
    speeds = {
        'steps_per_second': (stats['env_steps'].sum(1) - before['env_steps']
                             + start['env_steps']) / seconds,
        'episodes_per_second': (stats['episodes'].sum(1) - before['episodes']
                                + start['episodes']) / seconds}
    self._partial, self._partial_updates = None, 0
    log_rows = []
    for r, end in enumerate(ends):
      row_end = {'env_steps': start['env_steps'] + stats['env_steps'][:, r],
                 'episodes': start['episodes'] + stats['episodes'][:, r],
                 'updates': before['updates'] + end}
      self._host_counters = row_end  # What the device holds at the end.
      if cut and r == len(ends) - 1:
        self._partial = {k: v[:, r] for k, v in stats.items()}
        self._partial_updates = int(updates[r])
        break
      log_rows.append(interface.LogRow(
          start, row_end, [row_plans.row_scalars(stats, i, r,
                                                 int(updates[r]), speeds)
                           for i in range(len(self._seeds))]))
      start = row_end
    return log_rows

  def advance(self, targets: interface.Targets,
              progress: Optional[interface.ProgressFn] = None
             ) -> interface.Rows:
    """One row, to `targets` (`row_plans.updates_to_row_end`)."""
    log_rows = self._execute([row_plans.updates_to_row_end(
        self._loop, self._updates_per_chunk, targets, self.counters(),
        self._partial_updates)])
    if progress is not None:
      progress(self.counters())
    return log_rows[-1].rows

  def run_rows(self, schedule: interface.Schedule,
               progress: Optional[interface.ProgressFn] = None
              ) -> List[interface.LogRow]:
    """The rows of one call (`_plan`); none if it ended inside a row."""
    del progress  # See `interface.TrainingLoop.run_rows`.
    return self._execute(*self._plan(schedule))

  def evaluate(self, num_episodes: int) -> interface.PerSeed:
    """Evaluation of every seed on its own evaluation episodes, under the
    evaluation protocol."""
    keys = _keys([seeding.environment_seed(s, seeding.EVAL)
                  for s in self._seeds])
    if num_episodes not in self._evaluations:  # Compiled once per size.
      start = time.perf_counter()
      evaluate_one = functools.partial(
          evaluation.evaluate_core,
          two_player.evaluation_core(self._loop.core), self._agent,
          self._spec,
          num_episodes=num_episodes, protocol=self._eval_protocol,
          outcomes=two_player.is_two_player(self._loop.core))
      self._evaluations[num_episodes] = jax.jit(
          lambda learner, keys: jax.vmap(evaluate_one)(
              jax.vmap(self._agent.actor_params)(learner), keys)).lower(
                  self._states.learner, keys).compile()
      self._compile_seconds += time.perf_counter() - start
    return {k: np.asarray(v) for k, v in device_mesh.to_host(
        self._evaluations[num_episodes](self._states.learner, keys)).items()}

  def max_abs_params(self) -> np.ndarray:
    return np.asarray(device_mesh.to_host(
        self._max_abs_program()(self._states.learner)))

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
