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

Orbax's own output while an operation fails (tracebacks of its threads and
TensorStore's, printed for minutes in the worst case) is held back: the
failure is said once, in words. Ctrl-C is held back while Orbax saves,
restores or closes (a KeyboardInterrupt raised inside it leaves its threads
waiting, and the next save or close hangs in its barrier): it takes effect
as soon as the operation returns, and Ctrl-C again meanwhile ends the
process at once (exit status 130), dropping the checkpoint being written.

Orbax (a fifth of a second to import) loads when the first checkpoint
manager opens, so `--help` and refused commands never pay for it.
"""

import contextlib
import errno
import gc
import logging as python_logging
import os
import pickle
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
import warnings
from typing import Any, Iterator, List, NamedTuple, Optional, Tuple

from absl import logging
import jax
import numpy as np

DAMAGED = 'damaged_checkpoints'  # Beside the checkpoint directory.
# Where a set-aside checkpoint keeps the error it failed to restore with.
RESTORE_ERROR = 'restore_error.txt'
# What Orbax names a checkpoint it is still writing: `<step>.<suffix>`, or
# `<step>.<suffix>-<timestamp>`; a process killed while saving leaves one.
_UNFINISHED = re.compile(r'\d+\.orbax-checkpoint-tmp(-\d+)?')
# After an operation fails, its output is held until the library has been
# quiet this long (its threads report the failure too), at most _SETTLE_MAX.
_SETTLE_SECONDS = 0.2
_SETTLE_MAX = 3.0
_muted = []  # Whether `_mute_abandoned_writes` ran in this process.


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


def _chain(error: BaseException) -> Iterator[BaseException]:
  """`error` and the exceptions it was raised from, outermost first."""
  seen = set()
  while error is not None and id(error) not in seen:
    seen.add(id(error))
    yield error
    error = error.__cause__ or error.__context__


def _os_error_code(error: BaseException) -> Optional[int]:
  """The errno behind `error` (an OSError's, or the one TensorStore writes
  into its message as `os_error_code=N`); None if it names none."""
  for e in _chain(error):
    if isinstance(e, OSError) and e.errno:
      return e.errno
    found = re.search(r"os_error_code='?(\d+)", str(e))
    if found:
      return int(found.group(1))
  return None


def _reason(error: BaseException, limit: int = 240) -> str:
  """Why `error` happened, in one line: the innermost message of its chain
  (TensorStore's, not the wrappers'), without the spec TensorStore appends,
  at most about `limit` characters (its start and its end)."""
  innermost = list(_chain(error))[-1]
  text = ' '.join(str(innermost).split('[tensorstore_spec=')[0].split())
  text = text.split(' See full TensorStore details')[0]
  text = f'{type(innermost).__name__}: {text}' if text else type(
      innermost).__name__
  if len(text) > limit:
    text = f'{text[:limit // 3]} … {text[-(2 * limit) // 3:]}'
  return text


def _write_failure(step: int, directory: str, latest: Optional[int],
                   error: BaseException) -> str:
  """What a failed save says: the checkpoint, the cause in words (a full
  disk by name), that earlier files are intact, and the fix."""
  code = _os_error_code(error)
  if code is None:
    why, fix = _reason(error), 'fix the cause'
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


def _mute_abandoned_writes() -> None:
  """After a failed save, Orbax's abandoned writes report the error again
  when they are freed, possibly at exit (asyncio's "Task exception was never
  retrieved", "Exception ignored in <coroutine …>", "coroutine … was never
  awaited"): it was said once, so those reports are dropped for the rest
  of the process."""
  if _muted:
    return
  _muted.append(True)
  python_logging.getLogger('asyncio').addFilter(
      lambda record: 'orbax' not in record.getMessage())
  warnings.filterwarnings('ignore', r"coroutine '.*' was never awaited",
                          RuntimeWarning)
  previous = sys.unraisablehook

  def hook(unraisable) -> None:
    code = getattr(unraisable.object, 'cr_code', None)
    if code is None or f'{os.sep}orbax{os.sep}' not in code.co_filename:
      previous(unraisable)

  sys.unraisablehook = hook


class _OrbaxCall:
  """Context of one Orbax operation: holds back Ctrl-C and what is written
  to stderr meanwhile (see the module docstring).

  The output is written out when the block ends normally, and dropped when
  it raises or `drop_output()` was called (the caller says what failed, in
  a line). Outside the main thread nothing is held: Python delivers
  signals to the main thread, and file descriptor 2 is the whole
  process's, so two threads swapping it could lose it.
  """

  def __init__(self, what: str):
    self._what = what
    self._drop = False
    self._settle_first = False
    self._file = None
    self._stderr = None  # The real stderr while it is held.
    self._previous = None
    self._pending = []

  def drop_output(self, settle: bool = True) -> None:
    """Drops what was written meanwhile; `settle`: once the library's
    threads stopped writing (they report a failure late)."""
    self._drop = True
    self._settle_first = self._settle_first or settle

  def _on_sigint(self, signum, frame) -> None:
    if self._pending:  # Ctrl-C again: stop now, Orbax or not.
      os.write(self._stderr if self._stderr is not None else 2, (
          f'\nCtrl-C again while {self._what}: stopped at once. Files '
          f'written before are intact (a checkpoint being written is '
          f'dropped); run the same command again to resume.\n').encode())
      os._exit(128 + signum)  # pylint: disable=protected-access
    self._pending.append(frame)

  def __enter__(self) -> '_OrbaxCall':
    if threading.current_thread() is not threading.main_thread():
      return self  # Its stderr is every thread's: not swapped from here.
    self._previous = signal.signal(signal.SIGINT, self._on_sigint)
    try:
      sys.stderr.flush()
      self._stderr = os.dup(2)
      self._file = tempfile.TemporaryFile()
      os.dup2(self._file.fileno(), 2)
    except (OSError, ValueError, AttributeError):  # No stderr to hold.
      self._release_stderr(write=False)
    return self

  def _settle(self) -> None:
    """Waits until the library's threads stop reporting a failure."""
    deadline = time.monotonic() + _SETTLE_MAX
    size = -1
    while time.monotonic() < deadline:
      gc.collect()  # Its abandoned tasks report their errors when freed.
      now = os.fstat(self._file.fileno()).st_size
      if now == size:
        return
      size = now
      time.sleep(_SETTLE_SECONDS)

  def _release_stderr(self, write: bool) -> None:
    if self._stderr is not None:
      with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
      os.dup2(self._stderr, 2)
      os.close(self._stderr)
      self._stderr = None
    if self._file is not None:
      if write:
        self._file.seek(0)
        held = self._file.read()
        if held:
          with contextlib.suppress(OSError):
            os.write(2, held)
      self._file.close()
      self._file = None

  def __exit__(self, exc_type, *_) -> None:
    failed = exc_type is not None or self._drop
    if (exc_type is not None or self._settle_first) and (
        self._file is not None):
      self._settle()
    self._release_stderr(write=not failed)
    if self._previous is None:
      return
    signal.signal(signal.SIGINT, self._previous)
    if self._pending:  # The Ctrl-C held back takes effect now.
      if callable(self._previous):
        self._previous(signal.SIGINT, self._pending[0])
      elif self._previous == signal.SIG_DFL:
        os.kill(os.getpid(), signal.SIGINT)


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

  def __init__(self, directory: str, max_to_keep: int = 2):
    self._directory = os.path.abspath(directory)
    self._max_to_keep = max_to_keep
    self._failed = False  # A save failed: closing may repeat its error.
    # Orbax reads every checkpoint's metadata here and logs a damaged one
    # whole: dropped, as `restore_latest` names damaged checkpoints.
    with _OrbaxCall(f'opening checkpoints in {self._directory}') as call:
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
    with _OrbaxCall(f'writing checkpoint {step} in {self._directory}'):
      try:
        self._manager.save(step, args=ocp.args.Composite(
            state=ocp.args.StandardSave(state),
            host=ocp.args.StandardSave({'pickle': _host_array(host)})),
                           force=True)
        self._manager.wait_until_finished()
      except Exception as e:  # pylint: disable=broad-except
        # Orbax and TensorStore raise many kinds for one write error.
        self._failed = True
        _mute_abandoned_writes()
        raise CheckpointWriteError(_write_failure(
            step, self._directory, latest, e)) from e

  def latest_step(self) -> Optional[int]:
    return self._manager.latest_step()

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
    with _OrbaxCall(f'reading checkpoints in {self._directory}') as call:
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
            _reason(error, 160), where, restored.step)
      return restored
    if not failures:
      return None
    details = '; '.join(f'step {s}: {_reason(e, 160)}' for s, e in failures)
    raise CheckpointError(
        f'No checkpoint in {self._directory} can be restored ({details}). '
        f'Move that directory aside to train from scratch, or restore it '
        f'from a backup.')

  def close(self) -> None:
    with _OrbaxCall(f'closing checkpoints in {self._directory}') as call:
      try:
        self._manager.close()
      except Exception:  # pylint: disable=broad-except
        if not self._failed:
          raise
        # Orbax repeats the error of the failed save, already reported.
        call.drop_output()
