"""One training session of a run: from its restored state to its budget,
a stop or a divergence, one method per step.

`run.run_experiment` builds the run and restores its loop; a `Session`
then trains it (`train`: compile, then `call` → `log` →
`checkpoint_if_due` until the budget is spent), keeps on Ctrl-C or
SIGTERM only a state that matches its logs (`save_on_stop`), and `finish`
evaluates, exports and writes the results.
"""

from concurrent import futures
import sys
import time
from typing import Any, Dict, List, Optional, Tuple

import jax
from jax.experimental import multihost_utils
import numpy as np

from experiments.driver import console
from experiments.driver import divergence
from experiments.driver import progress as progress_lib
from experiments.driver import results
from experiments.driver import seed_logs
from experiments.driver import stop_signals
from experiments.driver import stopping_points
from experiments.driver import time_account
from experiments.export import tflite
from experiments.loops import interface
from experiments.setup import build as build_lib
from experiments.setup import provenance
from experiments.storage import checkpointing

PerSeed = interface.PerSeed
FIRST_CHECKPOINT_SECONDS = 10.0


def agreed(flag: bool) -> bool:
  """Process 0's `flag` on every process: checkpoints and stops are
  collective in a multi-host run, so every process must take the same
  decision at the same call (their clocks and signals differ)."""
  if jax.process_count() == 1:
    return flag
  return bool(multihost_utils.broadcast_one_to_all(np.asarray(flag)))


def _compile(loop: interface.TrainingLoop, will_export: bool) -> float:
  """`loop.compile()`; a run that will export meanwhile imports the
  converter (XLA compiles in a worker thread, mostly without the GIL), so
  that neither training nor the export waits for it."""
  if not will_export:
    return loop.compile()
  pool = futures.ThreadPoolExecutor(1)
  try:
    compiled = pool.submit(loop.compile)
    tflite.import_converter()
    return compiled.result()
  finally:  # A Ctrl-C meanwhile stops at once: no wait for the compiler.
    pool.shutdown(wait=False)


def _reached(targets: Optional[interface.Targets],
             counters: PerSeed) -> bool:
  """Whether seed 0 reached a count target (the loop will return there:
  stopping then would skip the evaluation due at that point)."""
  if targets is None:
    return False
  return any(getattr(targets, key) is not None and
             int(counters[key][0]) >= getattr(targets, key)
             for key in interface.COUNTERS)


class Session:
  """A run's training from its restored loop: its counts, logs, clock and
  checkpoints. `writes`: this process writes logs and results (process 0
  of a multi-host run)."""

  def __init__(self, built: build_lib.Built, loop: interface.TrainingLoop,
               workdir: str, checkpointer: checkpointing.Checkpointer,
               resumed: Any, writes: bool, checked_seconds: float,
               account: time_account.TimeAccount):
    """`resumed`: what the checkpoint said besides the loop's state
    (`run.Resumed`), None for a fresh start; `checked_seconds`: the
    initial parameter check's, counted in the wall time; `account`: the
    run's time account, earlier sessions' sums and this set-up in."""
    self.account = account
    self.built, self.config, self.loop = built, built.config, loop
    self.workdir, self.writes = workdir, writes
    self._checkpointer = checkpointer
    self.counters = loop.counters()
    self.seeds = list(loop.seeds)
    self._logs = (seed_logs.SeedLogs(self.config, workdir, self.seeds,
                                     self.counters,
                                     resumed and resumed.evaluations)
                  if writes else None)
    self.evaluations = resumed.evaluations if resumed else 0
    # A sweep's diverged trials stop alone (the others train on); any
    # other diverged seed stops the run.
    self.stopped: Dict[int, Dict[str, Any]] = (
        dict(resumed.stopped) if resumed else {})
    # What software and hardware trained this run, session by session.
    self.sessions = (resumed.sessions if resumed else []) + [
        provenance.collect()]
    # Whether this session trains, or only evaluates and exports a run
    # whose budget is spent (a rerun after an interruption, --reevaluate).
    self.sessions[-1]['trained'] = not stopping_points.done(self.config,
                                                            self.counters)
    self._compiled_before = resumed.compile_seconds if resumed else 0.0
    self._wall_at_start = self.wall_seconds = (
        (resumed.wall_seconds if resumed else 0.0) + checked_seconds)
    self._session_start = time.perf_counter()
    # False from the end of a call until its logs and evaluation count
    # are written: a checkpoint taken then would not match eval.csv.
    self._consistent = True
    self._stop: Optional[stop_signals.StopSignals] = None
    self._bar: Optional[progress_lib.ProgressBar] = None
    self._plan: Optional[interface.Schedule] = None
    self._targets: Optional[interface.Targets] = None
    self._before = self.counters
    self._next_save = 0.0

  def _clock(self) -> float:
    return self._wall_at_start + time.perf_counter() - self._session_start

  def save(self) -> float:
    """Checkpoints the loop (where it can resume exactly) with the logs'
    rows on disk first; returns when the next checkpoint is due."""
    with self.account.timed('checkpoints'):
      self._save()
    return time.monotonic() + self.config.checkpoint_every_seconds

  def _save(self) -> None:
    state = self.loop.state  # None where no exact resume is possible (a
    if state is not None:  # call or an episode interrupted midway).
      if self._logs is not None:
        self._logs.sync()
      self._checkpointer.save(
          int(self.loop.counters()['env_steps'][0]),
          {'loop': state,
           'wall_seconds': np.asarray(self.wall_seconds, np.float64)},
          {'loop': self.loop.host_state, 'evaluations': self.evaluations,
           'stopped_lanes': self.stopped, 'sessions': self.sessions,
           'compile_seconds': (self._compiled_before +
                               self.loop.compile_seconds),
           'time_account': self.account.record()})

  def train(self, stop: stop_signals.StopSignals, progress: bool,
            announce: bool) -> None:
    """Trains until the budget is spent, then checkpoints.

    Raises:
      stop_signals.Interrupted: on Ctrl-C or SIGTERM (after saving what
        matches the logs).
      divergence.Diverged: training diverged (results record it).
    """
    self._stop = stop
    try:
      self._compile(announce)
      # After compiling: the bar's speed and ETA count training only.
      self._bar = progress_lib.ProgressBar(self.config, self.counters,
                                           progress and self.writes)
      # The first checkpoint comes after a short first stretch, so that a
      # run killed early does not restart from zero.
      self._next_save = time.monotonic() + min(
          self.config.checkpoint_every_seconds, FIRST_CHECKPOINT_SECONDS)
      while not stopping_points.done(self.config, self.counters):
        if agreed(stop.requested is not None):
          raise stop.interrupted('checkpoint saved')
        log_rows, wall_before = self.call()
        self.log(log_rows, wall_before)
        self.checkpoint_if_due()
    except (stop_signals.Interrupted, KeyboardInterrupt) as stopped_by:
      saved_now = self.save_on_stop()
      if isinstance(stopped_by, stop_signals.Interrupted):
        step = int(self.loop.counters()['env_steps'][0])
        raise stop.interrupted(
            f'checkpoint saved at environment step {step:,}' if saved_now
            else 'the newest checkpoint is kept') from None
      raise
    finally:
      if self._bar is not None:
        self._bar.close()
      if self._logs is not None:
        self._logs.close()
    self.save()
    if agreed(stop.requested is not None):
      raise stop.interrupted('training is complete and checkpointed')

  def _compile(self, announce: bool) -> None:
    """Compiles the compiled loop's whole program (the Python loop's jit
    compiles on first use), saying so and how long it took; counted in
    the wall time, not in the rows' speeds. A spent budget compiles
    nothing."""
    if stopping_points.done(self.config, self.counters):
      return
    announce = announce and self.config.loop == 'compiled'
    if announce:
      print(console.compiling(self.config), file=sys.stderr, flush=True)
    # Its compiling counts as such; the wait for the converter's import
    # (`_compile`) as the export's.
    will_export = self.config.export_tflite and self.writes
    with self.account.timed('export' if will_export else 'compile',
                            self.loop):
      seconds = _compile(self.loop, will_export)
    if announce:
      print(console.compiled(seconds), file=sys.stderr, flush=True)

  def _on_progress(self, now: PerSeed) -> None:
    """Between steps of the Python loop: shows progress, and stops there
    on request (its state is a resume point, its finished rows logged)."""
    self._bar.show(now)
    if (self._stop.requested and jax.process_count() == 1 and
        not _reached(self._targets, now) and
        not self._plan.stops(self._before, now)):
      self._consistent = True
      raise self._stop.interrupted('checkpoint saved')

  def call(self) -> Tuple[List[Any], float]:
    """One call of the loop, to the next log, evaluation or checkpoint
    point: its log rows and the wall time before it.

    Raises:
      divergence.Diverged: a seed diverged (a sweep's trial alone stops
        while others train on).
    """
    self._before = self.counters
    self._plan = stopping_points.schedule(self.config, self._next_save)
    self._targets = self._plan.targets(self.counters)
    # From here until the rows are logged, the loop's state may be ahead
    # of the logs: a second Ctrl-C (KeyboardInterrupt) raised anywhere in
    # between must not checkpoint it. A stop requested at a progress
    # point (`_on_progress`) is at a consistent state.
    self._consistent = False
    in_program = self.loop.program_seconds
    started = time.perf_counter()
    log_rows = self.loop.run_rows(self._plan, self._on_progress)
    elapsed = time.perf_counter() - started
    if in_program is not None:  # The compiled loop: its program apart.
      in_program = self.loop.program_seconds - in_program
      self.account.add('host_round_trips', elapsed - in_program)
    self.account.add('training', elapsed if in_program is None
                     else in_program)
    self.counters = self.loop.counters()
    wall_before, self.wall_seconds = self.wall_seconds, self._clock()
    diverged = [r for r in divergence.check_rows(
        log_rows, self.loop.max_abs_params(), self.counters, self.seeds,
        self.config.max_abs_param) if r['lane'] not in self.stopped]
    if diverged and self.config.trials and len(self.stopped) + len(
        diverged) < len(self.seeds):
      for record in diverged:
        self.stopped[record['lane']] = record
        print(f'{divergence.describe(record)} (trial '
              f'{build_lib.lane_trial(self.config, record["lane"])}); it '
              f'is left out, the other trials go on.', file=sys.stderr)
      diverged = []
    if diverged:  # Nothing of this call is saved or logged.
      diverged += list(self.stopped.values())
      results.record_divergence(self.built, self.loop, self.counters,
                                self.wall_seconds, self.evaluations,
                                diverged, self.workdir, self.writes,
                                self.sessions)
      raise divergence.Diverged(diverged)
    return log_rows, wall_before

  def log(self, log_rows: List[Any], wall_before: float) -> None:
    """Writes a call's rows, with the periodic evaluation due at its last
    (rows end where evaluations are due)."""
    self._bar.show(self.counters)
    if log_rows:  # None if the call ended inside a row.
      self._bar.describe(log_rows[-1].rows[0])
    greedy = None
    if log_rows and stopping_points.periodic_evaluation_due(
        self.config, log_rows[0].start, log_rows[-1].counters):
      with self.account.timed('periodic_evaluation', self.loop):
        greedy = self.loop.evaluate(self.built.periodic_eval_episodes)
    with self.account.timed('logs'):
      self._write_rows(log_rows, greedy, wall_before)
    self.evaluations += greedy is not None
    self._consistent = True

  def _write_rows(self, log_rows: List[Any], greedy: Optional[Any],
                  wall_before: float) -> None:
    if self._logs is not None:
      for k, log_row in enumerate(log_rows):
        last = k == len(log_rows) - 1
        self._logs.write(log_row.rows, greedy if last else None,
                         log_row.counters, stopping_points.row_wall_seconds(
                             wall_before, self.wall_seconds, self._before,
                             log_row.counters, self.counters), self.stopped)

  def checkpoint_if_due(self) -> None:
    every = self.config.checkpoint_every_updates
    if agreed((every is not None and
               self.counters['updates'][0] // every >
               self._before['updates'][0] // every) or
              time.monotonic() >= self._next_save):
      self._next_save = self.save()

  def save_on_stop(self) -> bool:
    """On Ctrl-C or SIGTERM: keeps the work done so far (rerun on this
    workdir to resume), but never a state ahead of the logs nor one the
    divergence guard has not passed. Whether it saved."""
    self.wall_seconds = self._clock()
    saved_now = self._consistent and self.loop.state is not None and not [
        r for r in divergence.check([{}] * len(self.seeds),
                                    self.loop.max_abs_params(),
                                    self.loop.counters(), self.seeds,
                                    self.config.max_abs_param)
        if r['lane'] not in self.stopped]
    if saved_now:
      self.save()
    return saved_now

  def finish(self) -> Dict[str, Any]:
    """Evaluates, exports and writes the results (`results.finish`)."""
    return results.finish(self.built, self.loop, self.counters,
                          self.wall_seconds, self.evaluations, self.workdir,
                          self.writes, self.stopped, self.sessions,
                          self._compiled_before + self.loop.compile_seconds,
                          account=self.account)
