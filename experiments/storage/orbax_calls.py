"""Orbax calls that fail in one line and never hang on Ctrl-C.

Orbax's own output while an operation fails (tracebacks of its threads and
TensorStore's, printed for minutes in the worst case) is held back
(`OrbaxCall`): the caller says the failure once, in words (`reason`).
Ctrl-C is held back while Orbax saves, restores or closes (a
KeyboardInterrupt raised inside it leaves its threads waiting, and the next
save or close hangs in its barrier): it takes effect as soon as the
operation returns, and Ctrl-C again meanwhile ends the process at once
(exit status 130), dropping the checkpoint being written.
"""

import contextlib
import errno
import gc
import logging as python_logging
import os
import re
import signal
import sys
import tempfile
import threading
import time
import warnings
from typing import Iterator, Optional

from absl import logging

# After an operation fails, its output is held until the library has been
# quiet this long (its threads report the failure too), at most _SETTLE_MAX.
_SETTLE_SECONDS = 0.2
_SETTLE_MAX = 3.0
_muted = []  # Whether `mute_abandoned_writes` ran in this process.


def _chain(error: BaseException) -> Iterator[BaseException]:
  """`error` and the exceptions it was raised from, outermost first."""
  seen = set()
  while error is not None and id(error) not in seen:
    seen.add(id(error))
    yield error
    error = error.__cause__ or error.__context__


def os_error_code(error: BaseException) -> Optional[int]:
  """The errno behind `error` (an OSError's, or the one TensorStore writes
  into its message as `os_error_code=N`); None if it names none."""
  for e in _chain(error):
    if isinstance(e, OSError) and e.errno:
      return e.errno
    found = re.search(r"os_error_code='?(\d+)", str(e))
    if found:
      return int(found.group(1))
  return None


def reason(error: BaseException, limit: int = 240) -> str:
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


def mute_abandoned_writes() -> None:
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


class OrbaxCall:
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

  def __enter__(self) -> 'OrbaxCall':
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
