"""What the experiment driver asks of a training loop, whichever it is.

The driver (`experiments/driver/run.py`) owns the host side of a run:
budgets, progress, logging, evaluation cadence, checkpoints, interruption,
final evaluation, results and export. It sees a loop only through
`TrainingLoop`: S seeds (the Python loop is one seed; the compiled loop
trains S side by side), advanced until a target, evaluated greedily, and
saved as one checkpointable pytree.
"""

from typing import Any, Callable, Dict, List, NamedTuple, Optional, Protocol, Sequence

import numpy as np

from agents import agent as agent_lib

# Per-seed host values, each `[S]`.
PerSeed = Dict[str, np.ndarray]
# Per-seed logged scalars: one dict per seed.
Rows = List[Dict[str, float]]
COUNTERS = ('episodes', 'env_steps', 'updates')


# Called with `counters()` as training progresses (e.g. a progress bar).
ProgressFn = Callable[[PerSeed], None]


class Targets(NamedTuple):
  """Where `advance` should stop: at the first episode (Python loop, one
  environment), step (Python loop, N environments) or update (compiled
  loop) at which seed 0 reaches any of these totals. None: no target of
  that kind. A loop also stops at the end of its own log row (Python
  loop: each `log_every_episodes` episodes, if set; compiled loop:
  `updates_per_chunk` updates), and the compiled loop approaches step and
  episode targets as closely as whole updates allow."""
  episodes: Optional[int] = None
  env_steps: Optional[int] = None
  updates: Optional[int] = None
  # A `time.monotonic()` value: a loop stops at the first point past it
  # (the Python loop: an episode or step; the compiled loop: an update,
  # as its last call's speed foresees), so that checkpoints by wall time
  # come on time.
  deadline: Optional[float] = None


class Schedule(NamedTuple):
  """The driver's stopping points, for a loop that plans several log rows
  per host call (`TrainingLoop.run_rows`).

  Attributes:
    targets: counters -> where the row starting there must end (as
      `advance` takes it; its `deadline` bounds the whole call).
    stops: (counters before a row, after it) -> whether the driver must act
      after that row (evaluate, checkpoint, finish): the call ends there.
    counted_by_steps: whether `targets` and `stops` depend on the counters
      only through `env_steps` and `updates` (so a loop that knows its
      steps per update can plan rows ahead; episodes it cannot foresee).
  """
  targets: Callable[[PerSeed], Targets]
  stops: Callable[[PerSeed, PerSeed], bool]
  counted_by_steps: bool


class LogRow(NamedTuple):
  """One log row of every seed: the counters where it starts and ends, and
  its per-seed scalars (`Rows`, as `advance` returns them)."""
  start: PerSeed
  counters: PerSeed
  rows: Rows


class TrainingLoop(Protocol):
  """A loop over S seeds, driven from the host between calls of work."""

  @property
  def seeds(self) -> Sequence[int]:
    """The seeds trained side by side (`[config.seed]` for one)."""

  @property
  def num_envs(self) -> int:
    """Environments each seed steps side by side."""

  @property
  def state(self) -> Optional[Any]:
    """Everything to checkpoint that has a fixed shape: a pytree of arrays
    (None if an interrupted step left none)."""

  @property
  def host_state(self) -> Any:
    """The rest of the checkpoint: picklable host-side values of no fixed
    shape (e.g. the Python loop's part-filled batch), or None."""

  def restore(self, state: Any, host_state: Any = None) -> None:
    """Continues from a checkpointed `state` (shaped like `state`) and
    `host_state`, so that the run goes on exactly as if never stopped."""

  def counters(self) -> PerSeed:
    """`episodes`, `env_steps`, `updates` of each seed (int64 `[S]`)."""

  def compile(self) -> float:
    """Prepares the training program; returns the seconds it took."""

  def advance(self, targets: Targets,
              progress: Optional[ProgressFn] = None) -> Rows:
    """Trains one log row: until `targets` (or the row's end), calling
    `progress` as it goes (at least once, at the end). `progress` is called
    only where `state`, `host_state` and `counters` agree (a checkpoint
    taken then resumes exactly); it may raise to stop the loop there.

    Returns:
      One dict per seed of scalars of the work done, for the loggers:
      `steps_per_second`, `episodes_per_second`, `episode_return` and
      `episode_length` (means over the episodes finished, absent if none)
      and the agent's learner metrics (means over the updates); the
      driver names and groups them for the logs (`driver.log_names`).
    """

  def run_rows(self, schedule: Schedule,
               progress: Optional[ProgressFn] = None) -> List[LogRow]:
    """One host call of training: its complete log rows, in order, the
    last ending where `schedule` stops or the call's time runs out.

    The Python loop returns one row (`advance`, `progress` as there). The
    compiled loop plans as many rows as about
    `row_plans.CHUNK_SECONDS` of work allows, so that the host
    does not stop the device at every row, and cuts a longer row (none
    returned; the row goes on in the next call, and `host_state` holds it
    meanwhile), so that checkpoints by time come on time; it does not call
    `progress` (a call is short, and the rows it finished are logged by
    the caller before anything may stop it)."""

  def evaluate(self, num_episodes: int) -> PerSeed:
    """`mean_return`, `mean_episode_length` and `identical_episodes` (1.0
    when all episodes were alike) of every seed, on each seed's evaluation
    episodes, under the run's evaluation protocol."""

  def max_abs_params(self) -> np.ndarray:
    """`[S]` largest |actor parameter| of each seed (NaN or inf if any
    parameter is), for the divergence guard."""

  def actor_params(self, index: int) -> agent_lib.Params:
    """Host copy of the actor params of seed `seeds[index]`. In a
    multi-host run every process calls it (it may gather across them)."""

  @property
  def compile_seconds(self) -> float:
    """Seconds spent compiling in this process (0 if nothing compiles)."""

  @property
  def program_seconds(self) -> Optional[float]:
    """Seconds the training calls spent in the compiled program, results
    fetched (the rest of a call is the host's); None for a loop that steps
    in Python."""

  @property
  def num_devices(self) -> int:
    """Devices the run's program occupies (over every process), for
    device-seconds."""

  def close(self) -> None:
    """Releases environments and other resources."""
