"""The experiment driver: one host loop over either training loop.

`run_experiment` builds the run, resumes it from its workdir, advances the
loop (`loops.interface.TrainingLoop`) between logging, evaluation and
checkpoint points until the budget is spent, then evaluates, exports and
writes `result.json`. Everything here is written once for both loops: the
Python `dm_env` loop is one seed, the compiled loop S seeds, and nothing
below asks which one it is.
"""

from concurrent import futures
import math
import os
import sys
import time
from typing import Any, Dict, List, NamedTuple, Optional

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
from experiments.driver import workdir as workdir_lib
from experiments.export import tflite
from experiments.loops import interface
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib
from experiments.setup import library_logs
from experiments.setup import observation_check
from experiments.setup import provenance
from experiments.setup import user_modules
from experiments.storage import checkpointing
from experiments.storage import loggers
from experiments.storage import wandb_logger
from experiments.storage import workdir_lock

PerSeed = interface.PerSeed
FIRST_CHECKPOINT_SECONDS = 10.0
# Failures of a run that an entry point reports in one line, no traceback:
# each message names the file or workdir and the fix.
RUN_FAILURES = (workdir_lock.WorkdirLocked, checkpointing.CheckpointError,
                loggers.CorruptLogError, divergence.Diverged,
                tflite.VerificationError, wandb_logger.WandbError)


class Resumed(NamedTuple):
  """What a checkpoint says besides the loop's state."""
  wall_seconds: float  # Of training so far.
  evaluations: int  # Periodic evaluations written to eval.csv so far.
  # Lanes of a sweep the divergence guard stopped: {lane: record}.
  stopped: Dict[int, Dict[str, Any]] = {}
  # Software and hardware of each earlier session (`setup.provenance`).
  sessions: List[Dict[str, Any]] = []
  compile_seconds: float = 0.0  # Of the earlier sessions' training.


def restore(loop: interface.TrainingLoop,
            checkpointer: checkpointing.Checkpointer,
            set_aside_damaged: bool = False) -> Optional[Resumed]:
  """Restores `loop` from the newest checkpoint that restores (with a
  warning naming a damaged newer one, which the workdir's lock holder,
  `set_aside_damaged`, moves aside); None when there is none yet."""
  restored = checkpointer.restore_latest(
      {'loop': loop.state, 'wall_seconds': np.zeros((), np.float64)},
      set_aside_damaged)
  if restored is None:
    return None
  host = restored.host or {}
  loop.restore(restored.state['loop'], host.get('loop'))
  return Resumed(float(restored.state['wall_seconds']),
                 int(host.get('evaluations', 0)),
                 dict(host.get('stopped_lanes', {})),
                 list(host.get('sessions', [])),
                 float(host.get('compile_seconds', 0.0)))


def restored_loop(built: build_lib.Built,
                  workdir: str) -> Optional[interface.TrainingLoop]:
  """The run's loop at `workdir`'s newest checkpoint; None before the first
  checkpoint."""
  loop = build_lib.make_loop(built)
  checkpointer = checkpointing.Checkpointer(
      workdir_lib.checkpoint_directory(workdir))
  try:
    return None if restore(loop, checkpointer) is None else loop
  finally:
    checkpointer.close()


def restore_actor_params(built: build_lib.Built, workdir: str,
                         seed: Optional[int] = None) -> Any:
  """Actor params of `seed` (default: the config's) in `workdir`'s newest
  checkpoint, whichever loop wrote it; None before the first checkpoint."""
  seed_list = build_lib.seeds(built.config)  # Not for sweeps' trials.
  seed = built.config.seed if seed is None else seed
  if seed not in seed_list:
    raise ValueError(f'Seed {seed} is not one of this run\'s seeds '
                     f'{seed_list}.')
  loop = restored_loop(built, workdir)
  return None if loop is None else loop.actor_params(seed_list.index(seed))


def run_experiment(config: config_lib.ExperimentConfig, workdir: str,
                   progress: bool = True, reevaluate: bool = False,
                   announce: bool = False) -> Dict[str, Any]:
  """Trains (resuming from `workdir` if possible), evaluates and exports.

  A workdir whose every seed already finished its budget is not touched:
  its saved results are returned (after a note on stderr), unless
  `reevaluate` asks to evaluate and export it again. `progress` shows the
  progress bar; `announce` prints (on stderr) the resolved settings once
  the workdir is checked, and the compilation with its duration.

  Returns:
    For one seed, its result (also in `workdir/result.json`); for several,
    `{'seeds': [result, …]}` (each also in its `seed_<n>/result.json`).

  Raises:
    ExperimentError: the run cannot start (bad settings, another
      experiment's workdir, a damaged workdir).
    workdir_lock.WorkdirLocked: another process is using `workdir`.
    checkpointing.CheckpointError: no checkpoint of `workdir` restores.
    loggers.CorruptLogError: a log of `workdir` cannot be read, or does not
      match the checkpoint.
    divergence.Diverged: training diverged (results record it).
    tflite.VerificationError: an exported model failed verification (the
      checkpoint is kept; no result is written).
    stop_signals.Interrupted: SIGTERM or Ctrl-C (after a checkpoint).
  """
  library_logs.quiet()  # Also in workers (Ray) that start without flags.
  if os.path.exists(workdir) and not os.path.isdir(workdir):
    raise build_lib.ExperimentError(
        f'--workdir {workdir!r} is a file, not a directory: give a '
        f'directory (a new one trains from scratch).')
  user_modules.import_modules(config.imports)  # E.g. in a Ray worker.
  built = build_lib.build(config)  # Refuses impossible runs before writes.
  observation_check.check(config, built.environment_spec)
  loop = build_lib.make_loop(built)
  writes = jax.process_index() == 0  # One process writes logs and results.
  lock = workdir_lock.WorkdirLock(workdir) if writes else None
  if lock is not None:
    lock.acquire()
  try:
    return _run(built, loop, workdir, progress, writes, reevaluate,
                announce and writes)
  finally:
    if lock is not None:
      lock.release()


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


def _agreed(flag: bool) -> bool:
  """Process 0's `flag` on every process: checkpoints and stops are
  collective in a multi-host run, so every process must take the same
  decision at the same call (their clocks and signals differ)."""
  if jax.process_count() == 1:
    return flag
  return bool(multihost_utils.broadcast_one_to_all(np.asarray(flag)))


def _run(built: build_lib.Built, loop: interface.TrainingLoop, workdir: str,
         progress: bool, writes: bool, reevaluate: bool,
         announce: bool) -> Dict[str, Any]:
  config = built.config
  workdir_lib.check(config, workdir)
  if writes:  # The lock holder: no other process writes here.
    litter = workdir_lib.remove_litter(config, workdir)
    if litter:
      print(f'Removed what a killed process left unfinished in {workdir}: '
            f'{", ".join(litter)}.', file=sys.stderr)
  finished = None if reevaluate else results.saved(config, workdir)
  if finished is not None and stopping_points.done(config, {
      key: np.asarray([r[key] for r in finished])
      for key in ('episodes', 'env_steps')}):
    # Nothing is written: config.json keeps the settings it ran with.
    if writes:
      print(console.already_finished(workdir, config, finished[0]),
            file=sys.stderr)
    return results.summary(finished)
  checked_seconds = _check_initial_params(config, loop)
  workdir_lib.prepare(config, workdir)
  checkpointer = checkpointing.Checkpointer(
      workdir_lib.checkpoint_directory(workdir))
  try:
    resumed = restore(loop, checkpointer, set_aside_damaged=writes)
    counters = loop.counters()
    if announce:
      print(console.describe_start(config, workdir, counters),
            file=sys.stderr, flush=True)
    seeds = list(loop.seeds)
    logs = (seed_logs.SeedLogs(config, workdir, seeds, counters,
                               resumed and resumed.evaluations,
                               loop.num_envs)
            if writes else None)
    evaluations = resumed.evaluations if resumed else 0
    # A sweep's diverged trials stop alone (the others train on); any
    # other diverged seed stops the run.
    stopped = dict(resumed.stopped) if resumed else {}
    # What software and hardware trained this run, session by session.
    sessions = (resumed.sessions if resumed else []) + [provenance.collect()]
    # Whether this session trains, or only evaluates and exports a run
    # whose budget is spent (a rerun after an interruption, --reevaluate).
    sessions[-1]['trained'] = not stopping_points.done(config, counters)
    compiled_before = resumed.compile_seconds if resumed else 0.0
    # The initial check's compile (in compile_seconds) is this session's.
    wall_at_start = wall_seconds = (resumed.wall_seconds if resumed else
                                    0.0) + checked_seconds
    session_start = time.perf_counter()
    targets = None
    # False from the end of a call until its logs and evaluation count
    # are written: a checkpoint taken then would not match eval.csv.
    consistent = True

    def save() -> float:
      state = loop.state  # None where no exact resume is possible (a
      if state is not None:  # call or an episode interrupted midway).
        if logs is not None:
          logs.sync()  # The rows the checkpoint counts are on disk first.
        checkpointer.save(
            int(loop.counters()['env_steps'][0]),
            {'loop': state,
             'wall_seconds': np.asarray(wall_seconds, np.float64)},
            {'loop': loop.host_state, 'evaluations': evaluations,
             'stopped_lanes': stopped, 'sessions': sessions,
             'compile_seconds': compiled_before + loop.compile_seconds})
      return time.monotonic() + config.checkpoint_every_seconds

    with stop_signals.StopSignals() as stop:

      def on_progress(now: PerSeed) -> None:
        nonlocal consistent
        bar.show(now)
        if (stop.requested and jax.process_count() == 1 and
            not _reached(targets, now) and not plan.stops(before, now)):
          # Between steps of the Python loop: its state is a resume point
          # and its finished rows are logged.
          consistent = True
          raise stop.interrupted('checkpoint saved')

      bar = plan = None
      before = counters
      try:
        # The compiled loop compiles its whole program first (the Python
        # loop's jit compiles on first use): say so, and how long it took.
        # A run whose budget is spent is not compiled again.
        compiling = not stopping_points.done(config, counters)
        announce_compile = (announce and compiling and
                            config.loop == 'compiled')
        if announce_compile:
          print(console.compiling(config), file=sys.stderr, flush=True)
        # Counted in wall_seconds, not in the rows' speeds.
        seconds = _compile(loop, config.export_tflite and writes
                           ) if compiling else 0.0
        if announce_compile:
          print(console.compiled(seconds), file=sys.stderr, flush=True)
        # After compiling: the bar's speed and ETA count training only.
        bar = progress_lib.ProgressBar(config, counters, progress and writes)
        # The first checkpoint comes after a short first stretch, so that a
        # run killed early does not restart from zero.
        next_save = time.monotonic() + min(config.checkpoint_every_seconds,
                                           FIRST_CHECKPOINT_SECONDS)
        while not stopping_points.done(config, counters):
          if _agreed(stop.requested is not None):
            raise stop.interrupted('checkpoint saved')
          before = counters
          plan = stopping_points.schedule(config, next_save)
          targets = plan.targets(counters)
          # From here until the rows are logged, the loop's state may be
          # ahead of the logs: a second Ctrl-C (KeyboardInterrupt) raised
          # anywhere in between must not checkpoint it. A stop requested
          # at a progress point (`on_progress`) is at a consistent state.
          consistent = False
          log_rows = loop.run_rows(plan, on_progress)
          counters = loop.counters()
          wall_before = wall_seconds
          wall_seconds = wall_at_start + time.perf_counter() - session_start
          diverged = [r for r in divergence.check_rows(
              log_rows, loop.max_abs_params(), counters, seeds,
              config.max_abs_param) if r['lane'] not in stopped]
          if diverged and config.trials and len(stopped) + len(
              diverged) < len(seeds):
            for record in diverged:
              stopped[record['lane']] = record
              print(f'{divergence.describe(record)} (trial '
                    f'{build_lib.lane_trial(config, record["lane"])}); it is '
                    f'left out, the other trials go on.', file=sys.stderr)
            diverged = []
          if diverged:  # Nothing of this call is saved or logged.
            diverged += list(stopped.values())
            results.record_divergence(built, loop, counters, wall_seconds,
                                      evaluations, diverged, workdir, writes,
                                      sessions)
            raise divergence.Diverged(diverged)
          bar.show(counters)
          if log_rows:  # None if the call ended inside a row.
            bar.describe(log_rows[-1].rows[0])
          # Rows end where evaluations are due (a call, at its last row).
          greedy = (loop.evaluate(built.periodic_eval_episodes)
                    if log_rows and stopping_points.periodic_evaluation_due(
                        config, log_rows[0].start, log_rows[-1].counters)
                    else None)
          if logs is not None:
            for k, log_row in enumerate(log_rows):
              last = k == len(log_rows) - 1
              logs.write(log_row.rows, greedy if last else None,
                         log_row.counters, stopping_points.row_wall_seconds(
                             wall_before, wall_seconds, before,
                             log_row.counters, counters), stopped)
          evaluations += greedy is not None
          consistent = True
          every = config.checkpoint_every_updates
          if _agreed((every is not None and
                      counters['updates'][0] // every >
                      before['updates'][0] // every) or
                     time.monotonic() >= next_save):
            next_save = save()
      except (stop_signals.Interrupted, KeyboardInterrupt) as stopped_by:
        wall_seconds = wall_at_start + time.perf_counter() - session_start
        # Keep the work done so far (rerun on this workdir to resume), but
        # never a state the divergence guard has not passed.
        saved_now = consistent and loop.state is not None and not [
            r for r in divergence.check([{}] * len(seeds),
                                        loop.max_abs_params(),
                                        loop.counters(), seeds,
                                        config.max_abs_param)
            if r['lane'] not in stopped]
        if saved_now:
          save()
        if isinstance(stopped_by, stop_signals.Interrupted):
          step = int(loop.counters()['env_steps'][0])
          raise stop.interrupted(
              f'checkpoint saved at environment step {step:,}' if saved_now
              else 'the newest checkpoint is kept') from None
        raise
      finally:
        if bar is not None:
          bar.close()
        if logs is not None:
          logs.close()
      save()
      if _agreed(stop.requested is not None):
        raise stop.interrupted('training is complete and checkpointed')
    return results.finish(built, loop, counters, wall_seconds, evaluations,
                          workdir, writes, stopped, sessions,
                          compiled_before + loop.compile_seconds)
  finally:
    checkpointer.close()
    loop.close()


def _check_initial_params(config: config_lib.ExperimentConfig,
                          loop: interface.TrainingLoop) -> float:
  """Refuses a divergence limit that the initial parameters already break
  (the guard would blame training for it); the seconds it took. One
  process only: a multi-host run meets the guard after its first call."""
  if config.max_abs_param is None or jax.process_count() > 1:
    return 0.0
  start = time.perf_counter()
  largest = float(np.max(loop.max_abs_params()))
  if largest > config.max_abs_param:
    raise build_lib.ExperimentError(
        f'--max_abs_param={config.max_abs_param:g} is below the largest '
        f'initial parameter magnitude of this network ({largest:.4g}): set '
        f'it above that (e.g. {10 ** math.ceil(math.log10(largest) + 1):g}), '
        f'or 0 to check only finiteness.')
  return time.perf_counter() - start


def _reached(targets: Optional[interface.Targets],
             counters: PerSeed) -> bool:
  """Whether seed 0 reached a count target (the loop will return there:
  stopping then would skip the evaluation due at that point)."""
  if targets is None:
    return False
  return any(getattr(targets, key) is not None and
             int(counters[key][0]) >= getattr(targets, key)
             for key in interface.COUNTERS)
