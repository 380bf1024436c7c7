"""Atomic, resumable checkpoints of a whole training state, via Orbax.

Orbax writes each checkpoint into a temporary directory and renames it when
complete, so a crash mid-save leaves the previous checkpoint intact. Each
checkpoint holds two items: `state`, a pytree of arrays restored against a
template (params, optimizer state, keys, counters), and `host`, any
picklable host-side value of no fixed shape (e.g. a part-filled batch).

A checkpoint damaged after it was written (a truncated or deleted file,
a disk error) is set aside and the previous one restored, with a warning
of one line; the run then continues from there. A checkpoint that cannot be
written (a full disk) stops the run with one line (`CheckpointWriteError`):
the earlier ones are intact.

Orbax's failures are said in one line, and Ctrl-C never interrupts it
mid-operation (`orbax_calls`).

Other processes may read a directory that a run is writing (an export or
`api.load_policy` beside a live run): a save, which also removes the
checkpoints past `max_to_keep`, holds an exclusive lock on the directory's
`LOCK_FILE` and a restore a shared one, so a reader waits for a save under
way and then reads the newest complete checkpoint, which no save removes
until the read is done.

Orbax (a fifth of a second to import) loads when the first checkpoint
manager opens, so `--help` and refused commands never pay for it.
"""

import contextlib
import errno
import fcntl
import os
import pickle
import re
import shutil
import time
import traceback
from typing import Any, Iterator, List, NamedTuple, Optional, Tuple

from absl import logging
import jax
import numpy as np

from experiments.storage import orbax_calls

DAMAGED = 'damaged_checkpoints'  # Beside the checkpoint directory.
# Where a set-aside checkpoint keeps the error it failed to restore with.
RESTORE_ERROR = 'restore_error.txt'
# What Orbax names a checkpoint it is still writing: `<step>.<suffix>`, or
# `<step>.<suffix>-<timestamp>`; a process killed while saving leaves one.
_UNFINISHED = re.compile(r'\d+\.orbax-checkpoint-tmp(-\d+)?')
# In the checkpoint directory: saves hold it exclusively, restores shared.
LOCK_FILE = '.save_or_read.lock'


class CheckpointError(RuntimeError):
  """No checkpoint of a directory can be restored, or one cannot be
  written."""


class CheckpointWriteError(CheckpointError):
  """A checkpoint could not be written (e.g. the disk is full); the
  checkpoints and files written before are intact."""


class Restored(NamedTuple):
  step: int
  state: Any
  host: Any


def _orbax() -> Any:
  """`orbax.checkpoint`, imported on first use."""
  import orbax.checkpoint as ocp  # pylint: disable=g-import-not-at-top
  return ocp


def _host_array(host: Any) -> np.ndarray:
  return np.frombuffer(pickle.dumps(host), np.uint8).copy()


def _write_failure(step: int, directory: str, latest: Optional[int],
                   error: BaseException) -> str:
  """What a failed save says: the checkpoint, the cause in words (a full
  disk by name), that earlier files are intact, and the fix."""
  code = orbax_calls.os_error_code(error)
  if code is None:
    why, fix = orbax_calls.reason(error), 'fix the cause'
  else:
    why = (f'{os.strerror(code).lower()} '
           f'({errno.errorcode.get(code, f"errno {code}")})')
    fix = {errno.ENOSPC: 'free space', errno.EDQUOT: 'free space',
           errno.EFBIG: 'raise the file size limit (ulimit -f) or free '
                        'space'}.get(code, 'fix the cause')
  before = ('no checkpoint was complete before it' if latest is None else
            f'the newest complete checkpoint is {latest}')
  return (f'checkpoint {step} could not be written in {directory}: {why}; '
          f'files written before are intact ({before}); {fix} and rerun '
          f'the same command to resume.')


def remove_unfinished(directory: str) -> List[str]:
  """Removes the checkpoints Orbax left unfinished in `directory` (a
  process killed while saving leaves `<step>.orbax-checkpoint-tmp…`);
  only the process that saves there may call this. Returns their paths."""
  if not os.path.isdir(directory):
    return []
  removed = []
  for name in sorted(os.listdir(directory)):
    path = os.path.join(directory, name)
    if _UNFINISHED.fullmatch(name) and os.path.isdir(path) and (
        not os.path.islink(path)):
      shutil.rmtree(path)
      removed.append(path)
  return removed


class Checkpointer:
  """Saves and restores `(state, host)` checkpoints named by integer steps."""

  def __init__(self, directory: str, max_to_keep: Optional[int] = 2):
    """`max_to_keep`: the newest checkpoints kept (None: every one)."""
    self._directory = os.path.abspath(directory)
    self._max_to_keep = max_to_keep
    self._failed = False  # A save failed: closing may repeat its error.
    # Orbax reads every checkpoint's metadata here and logs a damaged one
    # whole: dropped, as `restore_latest` names damaged checkpoints.
    with orbax_calls.OrbaxCall(f'opening checkpoints in {self._directory}') as call:
      self._manager = self._open()
      call.drop_output(settle=False)

  def _open(self) -> Any:
    ocp = _orbax()
    return ocp.CheckpointManager(
        self._directory,
        options=ocp.CheckpointManagerOptions(max_to_keep=self._max_to_keep,
                                             create=True),
        item_names=('state', 'host'))

  @property
  def directory(self) -> str:
    return self._directory

  @contextlib.contextmanager
  def _locked(self, exclusive: bool) -> Iterator[None]:
    """Holds the directory's `LOCK_FILE`: exclusively to save, shared to
    restore (see the module docstring). A directory this process cannot
    write to (a read-only copy) has no writer to wait for. In a multi-host
    run every process saves together (Orbax's collective): none locks, or
    the second would wait for the first, which waits for it."""
    if jax.process_count() > 1:
      yield
      return
    try:
      handle = open(os.path.join(self._directory, LOCK_FILE), 'a')  # pylint: disable=consider-using-with
    except OSError:
      yield
      return
    with handle:
      fcntl.flock(handle.fileno(), fcntl.LOCK_EX if exclusive
                  else fcntl.LOCK_SH)
      try:
        yield
      finally:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

  def save(self, step: int, state: Any, host: Any = None) -> None:
    """Saves checkpoint `step` and waits until it is on disk.

    `step` must identify the state (e.g. environment steps so far): saving a
    step that is already the newest checkpoint does nothing.

    Raises:
      CheckpointWriteError: it could not be written (e.g. a full disk),
        in one line naming the cause; earlier checkpoints are intact.
    """
    latest = self._manager.latest_step()
    if latest == step:
      return
    ocp = _orbax()
    with orbax_calls.OrbaxCall(f'writing checkpoint {step} in '
                               f'{self._directory}'), self._locked(True):
      try:
        self._manager.save(step, args=ocp.args.Composite(
            state=ocp.args.StandardSave(state),
            host=ocp.args.StandardSave({'pickle': _host_array(host)})),
                           force=True)
        self._manager.wait_until_finished()
      except Exception as e:  # pylint: disable=broad-except
        # Orbax and TensorStore raise many kinds for one write error.
        self._failed = True
        orbax_calls.mute_abandoned_writes()
        raise CheckpointWriteError(_write_failure(
            step, self._directory, latest, e)) from e

  def latest_step(self) -> Optional[int]:
    return self._manager.latest_step()

  def steps(self) -> List[int]:
    """The steps of the checkpoints on disk, oldest first."""
    with self._locked(False):
      self._manager.reload()
      return sorted(self._manager.all_steps())

  def restore_step(self, step: int, template: Any) -> Restored:
    """Checkpoint `step`, shaped like `template` (`steps` lists them).

    Raises:
      CheckpointError: naming the step and why, when it does not restore.
    """
    with self._locked(False), orbax_calls.OrbaxCall(
        f'reading checkpoint {step} in {self._directory}') as call:
      try:
        return self._restore(step, template)
      except Exception as e:  # pylint: disable=broad-except
        call.drop_output()  # Said below, in one line.
        raise CheckpointError(
            f'Checkpoint {step} in {self._directory} cannot be restored '
            f'({orbax_calls.reason(e, 160)}).') from e

  # The host item is unpickled: restore only workdirs you trust (as with
  # any pickle), e.g. your own runs.
  def _restore(self, step: int, template: Any) -> Restored:
    ocp = _orbax()
    abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, template)
    restored = self._manager.restore(step, args=ocp.args.Composite(
        state=ocp.args.StandardRestore(abstract),
        host=ocp.args.StandardRestore()))
    host = pickle.loads(np.asarray(restored['host']['pickle']).tobytes())
    return Restored(step, restored['state'], host)

  def _set_aside(self, step: int, error: BaseException) -> str:
    """Moves checkpoint `step` out of the manager's sight, with the error
    it failed with in its `RESTORE_ERROR`; its new path."""
    target = os.path.join(os.path.dirname(self._directory), DAMAGED,
                          f'{step}.{time.strftime("%Y%m%d-%H%M%S")}.'
                          f'{os.getpid()}')
    os.makedirs(os.path.dirname(target), exist_ok=True)
    self._manager.close()
    os.replace(os.path.join(self._directory, str(step)), target)
    with contextlib.suppress(OSError):
      with open(os.path.join(target, RESTORE_ERROR), 'w') as f:
        f.write(''.join(traceback.format_exception(error)))
    self._manager = self._open()
    return target

  def restore_latest(self, template: Any,
                     set_aside_damaged: bool = False) -> Optional[Restored]:
    """The newest checkpoint that restores, shaped like `template`.

    A newer checkpoint that fails to restore is skipped with a warning of
    one line (its step, directory and the reason; the libraries' own
    tracebacks are not shown), and the next older one is tried. With
    `set_aside_damaged` (only for the workdir's lock holder, which will save
    newer checkpoints) the skipped ones are moved to `damaged_checkpoints/`
    beside the directory, the full error in their `restore_error.txt`;
    readers such as an export leave them in place.

    Returns:
      None when there is no checkpoint at all.

    Raises:
      CheckpointError: naming the directory, when checkpoints exist but none
        restores (they are left where they are).
    """
    failures: List[Tuple[int, BaseException]] = []
    restored = None
    moved = {}
    with self._locked(False), orbax_calls.OrbaxCall(
        f'reading checkpoints in {self._directory}') as call:
      # Another process may have saved (and removed) some meanwhile.
      on_disk = {int(n) for n in os.listdir(self._directory) if n.isdigit()}
      if on_disk != set(self._manager.all_steps()):
        self._manager.reload()
      for step in sorted(self._manager.all_steps(), reverse=True):
        try:
          restored = self._restore(step, template)
          break
        except Exception as e:  # pylint: disable=broad-except
          # Orbax/TensorStore raise many kinds for damaged files.
          failures.append((step, e))
      if failures:  # Their tracebacks: said below, one line each.
        call.drop_output()
      if restored is not None and set_aside_damaged:
        moved = {step: self._set_aside(step, e) for step, e in failures}
    if restored is not None:
      for damaged, error in failures:
        where = (f'moved to {moved[damaged]} (the full error is in its '
                 f'{RESTORE_ERROR})' if damaged in moved else
                 'left in place')
        logging.warning(
            'Checkpoint %d in %s is damaged (%s); it was %s and the run '
            'resumes from checkpoint %d.', damaged, self._directory,
            orbax_calls.reason(error, 160), where, restored.step)
      return restored
    if not failures:
      return None
    details = '; '.join(f'step {s}: {orbax_calls.reason(e, 160)}' for s, e in failures)
    raise CheckpointError(
        f'No checkpoint in {self._directory} can be restored ({details}). '
        f'Move that directory aside to train from scratch, or restore it '
        f'from a backup.')

  def close(self) -> None:
    with orbax_calls.OrbaxCall(f'closing checkpoints in {self._directory}') as call:
      try:
        self._manager.close()
      except Exception:  # pylint: disable=broad-except
        if not self._failed:
          raise
        # Orbax repeats the error of the failed save, already reported.
        call.drop_output()
