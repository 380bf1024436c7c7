"""One process per workdir: an exclusive lock the OS releases on death.

`filelock` holds `<workdir>/.lock` (an `flock` on Unix) for as long as the
lock is held; when the process exits, is killed (-9 included) or its host
reboots, the kernel drops it, so no stale lock ever needs removing by hand.
The holder writes its pid, host and command into the file, so that a
second process is refused with a message naming who holds it.
"""

import json
import os
import socket
import sys
import time
from typing import Optional

import filelock

LOCK_FILE = '.lock'


class WorkdirLocked(RuntimeError):
  """Another process holds the workdir's lock."""


def _holder(path: str) -> str:
  try:
    with open(path) as f:
      info = json.loads(f.read() or '{}')
  except (OSError, ValueError):
    info = {}
  if not info:
    return 'another process'
  return (f'pid {info.get("pid")} on host {info.get("host")!r}, started '
          f'{info.get("started")} ({info.get("command")})')


class WorkdirLock:
  """Context manager holding the lock of `workdir` (created if missing)."""

  def __init__(self, workdir: str, what: str = 'run'):
    """`what`: the kind of workdir, for the message (e.g. 'comparison')."""
    self._workdir = workdir
    self._what = what
    self._lock: Optional[filelock.FileLock] = None

  def acquire(self) -> 'WorkdirLock':
    """Takes the lock or raises `WorkdirLocked` naming its holder."""
    os.makedirs(self._workdir, exist_ok=True)
    path = os.path.join(self._workdir, LOCK_FILE)
    lock = filelock.FileLock(path, timeout=0)
    try:
      lock.acquire()
    except filelock.Timeout:
      raise WorkdirLocked(
          f'The {self._what} workdir {self._workdir!r} is in use by '
          f'{_holder(path)}. Wait for that process to finish (or stop it: '
          f'it checkpoints on SIGTERM and Ctrl-C), or use another '
          f'--workdir. The lock goes away by itself when its holder exits.'
      ) from None
    with open(path, 'w') as f:
      f.write(json.dumps({
          'pid': os.getpid(), 'host': socket.gethostname(),
          'started': time.strftime('%Y-%m-%d %H:%M:%S'),
          'command': ' '.join(sys.argv)[:300]}))
    self._lock = lock
    return self

  def release(self) -> None:
    if self._lock is not None:
      self._lock.release()
      self._lock = None

  def __enter__(self) -> 'WorkdirLock':
    return self.acquire()

  def __exit__(self, *exc) -> None:
    self.release()
