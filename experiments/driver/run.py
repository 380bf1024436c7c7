"""The experiment driver: one host loop over either training loop.

`run_experiment` builds the run, resumes it from its workdir, and hands it
to a `session.Session`, which advances the loop
(`loops.interface.TrainingLoop`) between logging, evaluation and
checkpoint points until the budget is spent, then evaluates, exports and
writes `result.json`. Everything here is written once for both loops: the
Python `dm_env` loop is one seed, the compiled loop S seeds, and nothing
below asks which one it is.
"""

import dataclasses
import math
import os
import sys
import time
from typing import Any, Dict, List, NamedTuple, Optional

import jax
import numpy as np

from experiments.driver import console
from experiments.driver import divergence
from experiments.driver import results
from experiments.driver import session
from experiments.driver import stop_signals
from experiments.driver import stopping_points
from experiments.driver import time_account
from experiments.driver import workdir as workdir_lib
from experiments.export import tflite
from experiments.loops import interface
from experiments.setup import build as build_lib
from experiments.setup import compilation_cache
from experiments.setup import config as config_lib
from experiments.setup import library_logs
from experiments.setup import observation_check
from experiments.setup import user_modules
from experiments.storage import checkpointing
from experiments.storage import loggers
from experiments.storage import wandb_logger
from experiments.storage import workdir_lock

PerSeed = interface.PerSeed
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
  # Seconds per part of the earlier sessions (`time_account`).
  time_account: Dict[str, float] = {}


def restore(loop: interface.TrainingLoop,
            checkpointer: checkpointing.Checkpointer,
            set_aside_damaged: bool = False,
            step: Optional[int] = None) -> Optional[Resumed]:
  """Restores `loop` from the newest checkpoint that restores (with a
  warning naming a damaged newer one, which the workdir's lock holder,
  `set_aside_damaged`, moves aside), or from checkpoint `step`; None when
  there is none yet."""
  template = {'loop': loop.state, 'wall_seconds': np.zeros((), np.float64)}
  restored = (checkpointer.restore_latest(template, set_aside_damaged)
              if step is None else checkpointer.restore_step(step, template))
  if restored is None:
    return None
  host = restored.host or {}
  loop.restore(restored.state['loop'], host.get('loop'))
  return Resumed(float(restored.state['wall_seconds']),
                 int(host.get('evaluations', 0)),
                 dict(host.get('stopped_lanes', {})),
                 list(host.get('sessions', [])),
                 float(host.get('compile_seconds', 0.0)),
                 dict(host.get('time_account', {})))


def restored_loop(built: build_lib.Built, workdir: str,
                  step: Optional[int] = None
                 ) -> Optional[interface.TrainingLoop]:
  """The run's loop at `workdir`'s newest checkpoint (or checkpoint
  `step`); None before the first checkpoint."""
  loop = build_lib.make_loop(built)
  checkpointer = checkpointing.Checkpointer(
      workdir_lib.checkpoint_directory(workdir))
  try:
    return None if restore(loop, checkpointer, step=step) is None else loop
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
  started = time.perf_counter()
  library_logs.quiet()  # Also in workers (Ray) that start without flags.
  compilation_cache.enable()  # Unless the command or JAX set it already.
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
                announce and writes, started)
  finally:
    if lock is not None:
      lock.release()


def _run(built: build_lib.Built, loop: interface.TrainingLoop, workdir: str,
         progress: bool, writes: bool, reevaluate: bool, announce: bool,
         started: float) -> Dict[str, Any]:
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
  kept = workdir_lib.kept_checkpoints(config, workdir)
  workdir_lib.prepare(dataclasses.replace(config, keep_checkpoints=kept),
                      workdir)
  checkpointer = checkpointing.Checkpointer(
      workdir_lib.checkpoint_directory(workdir), max_to_keep=kept or None)
  try:
    resumed = restore(loop, checkpointer, set_aside_damaged=writes)
    if announce:
      print(console.describe_start(config, workdir, loop.counters()),
            file=sys.stderr, flush=True)
    training = session.Session(
        built, loop, workdir, checkpointer, resumed, writes, checked_seconds,
        time_account.TimeAccount(time.perf_counter() - started,
                                 loop.compile_seconds,
                                 resumed.time_account if resumed else None))
    with stop_signals.StopSignals() as stop:
      training.train(stop, progress, announce)
    return training.finish()
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
