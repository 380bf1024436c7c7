"""Crash-safe file writes (write a temporary file, then rename over), and
the one reader of the JSON-object files they write.

A write error (a full disk) names the file it was writing, so that a
command reports it in one line (`naming_write_errors`).
"""

import contextlib
import json
import os
import re
import tempfile
from typing import Any, Iterator, Union

PathLike = Union[str, os.PathLike]


@contextlib.contextmanager
def naming_write_errors(path: PathLike) -> Iterator[None]:
  """Re-raises an OSError that names no file (`write` on a full disk
  raises ENOSPC without one) as the same error naming `path`."""
  try:
    yield
  except OSError as e:
    if e.filename is None and e.errno is not None:
      raise OSError(e.errno, e.strerror, os.fspath(path)) from e
    raise


def write_bytes(path: PathLike, data: bytes) -> None:
  """Writes `data` to `path` atomically (readers see old or new, never half).

  Raises:
    OSError: naming `path` (e.g. no space left on device); a file already
      at `path` is left as it was.
  """
  with naming_write_errors(path):
    _write_bytes(path, data)


def _write_bytes(path: PathLike, data: bytes) -> None:
  directory = os.path.dirname(os.path.abspath(path))
  os.makedirs(directory, exist_ok=True)
  fd, tmp = tempfile.mkstemp(dir=directory, prefix='.tmp-')
  try:
    # mkstemp makes the file private (0600); results are for everyone who
    # shares the workdir (other users, Ray workers, TensorBoard).
    os.chmod(tmp, 0o644)
    with os.fdopen(fd, 'wb') as f:
      f.write(data)
      f.flush()
      os.fsync(f.fileno())
    os.replace(tmp, path)
  except BaseException:
    if os.path.exists(tmp):
      os.remove(tmp)
    raise


def read_json_object(path: PathLike) -> dict:
  """The JSON object in `path`.

  Raises:
    OSError: the file cannot be read.
    ValueError: it is not JSON, or not a JSON object.
  """
  with open(path, encoding='utf-8') as f:
    value = json.load(f)
  if not isinstance(value, dict):
    raise ValueError('not a JSON object')
  return value


def write_json(path: PathLike, value: Any) -> None:
  """Writes `value` as indented, strict JSON, atomically.

  Raises:
    ValueError: naming `path`, if `value` holds NaN or infinity (which
      strict JSON readers reject); nothing is written then.
  """
  try:
    text = json.dumps(value, indent=2, sort_keys=True, allow_nan=False)
  except ValueError as e:
    raise ValueError(f'Refusing to write {path}: {e} (NaN or infinity is '
                     f'not JSON).') from e
  write_bytes(path, (text + '\n').encode())


# `published_if_verified`'s candidates: `.unverified-<pid>-<name>.tflite`.
_UNVERIFIED = re.compile(r'\.unverified-(\d+)-.+\.tflite')


def _running(pid: int) -> bool:
  """Whether process `pid` is alive and not this one (a reused pid)."""
  if pid == os.getpid():
    return False
  try:
    os.kill(pid, 0)
  except ProcessLookupError:
    return False
  except OSError:  # E.g. another user's process.
    return True
  return True


def remove_unverified(directory: PathLike) -> list:
  """Removes the unverified models (`.unverified-<pid>-<name>.tflite`,
  `published_if_verified`) that a process killed while checking one left
  in `directory`, if that process is gone; nothing else. Returns their
  paths."""
  removed = []
  with contextlib.suppress(FileNotFoundError, NotADirectoryError):
    for name in sorted(os.listdir(directory)):
      path = os.path.join(directory, name)
      found = _UNVERIFIED.fullmatch(name)
      if (found and os.path.isfile(path) and not os.path.islink(path) and
          not _running(int(found.group(1)))):
        os.remove(path)
        removed.append(path)
  return removed


@contextlib.contextmanager
def published_if_verified(path: PathLike) -> Iterator[str]:
  """Yields a temporary path beside `path` to write and check a file at;
  renames it to `path` if the block succeeds, else deletes it. A file that
  fails its check (or a process killed while checking) never sits under
  `path`, and a good file already there stays."""
  path = os.path.abspath(path)
  candidate = os.path.join(os.path.dirname(path), f'.unverified-{os.getpid()}-'
                           f'{os.path.basename(path)}')
  try:
    yield candidate
    os.replace(candidate, path)
  finally:
    if os.path.exists(candidate):
      os.remove(candidate)
